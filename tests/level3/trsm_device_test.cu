// impl::trsm_device, the device interface blocked LAPACK solvers call (impl/level3/level3_device.h):
// every side/uplo/trans/diag at orders around the 64-wide diagonal blocks, past a few levels of
// the recursion and past the 256-wide inverted blocks (with a tiny diagonal entry too), device
// arrays with padded leading dimensions, with and without a caller's workspace, alpha 1 / -0.5 /
// 0 (complex: with an imaginary part), against a substitution computed here in long double;
// s, d, c, z ('C': the conjugate transpose).
// The other triangle of A (and its diagonal with diag = 'U') is NaN and must not be read; the
// padding rows of B must be unchanged.
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <complex>
#include <cstring>
#include <vector>

#include "core/complex.h"
#include "impl/level3/level3_device.h"
#include "tests/harness/check.h"
#include "tests/harness/rng.h"

namespace {

using cudrop::Complex;
// The reference's element: long double, or its complex for c and z.
template <class T>
using Wide = std::conditional_t<cudrop::is_complex_v<T>, std::complex<long double>, long double>;
template <class T> Wide<T> wide(T v) {
  if constexpr (cudrop::is_complex_v<T>) return {(long double)v.re, (long double)v.im};
  else return (long double)v;
}
template <class T> bool has_nan(T v) {
  return std::isnan(double(cudrop::real_part(v))) || std::isnan(double(cudrop::imag_part(v)));
}
template <class T> T random_value(Rng &rng) {
  if constexpr (cudrop::is_complex_v<T>) return T(cudrop::real_t<T>(rng.symmetric()), cudrop::real_t<T>(rng.symmetric()));
  else return T(rng.symmetric());
}

// X with op(A) X = alpha B (left) or X op(A) = alpha B (right), column by column / row by row.
template <class T>
std::vector<Wide<T>> reference(char side, char uplo, char trans, char diag, int m, int n, T alpha,
                               const std::vector<T> &a, int lda, const std::vector<T> &b, int ldb) {
  using W = Wide<T>;
  const bool left = side == 'L', unit = diag == 'U', t = trans != 'N';
  const int order = left ? m : n;
  // op(A) as a dense matrix with the other triangle zero.
  std::vector<W> op(size_t(order) * order, W(0.0L));
  for (int j = 0; j < order; ++j)
    for (int i = 0; i < order; ++i) {
      const bool stored = uplo == 'U' ? i <= j : i >= j;
      if (!stored) continue;
      W v = i == j && unit ? W(1.0L) : wide(a[size_t(i) + size_t(j) * lda]);
      if constexpr (cudrop::is_complex_v<T>)
        if (trans == 'C') v = std::conj(v);
      if (t) op[size_t(j) + size_t(i) * order] = v;
      else op[size_t(i) + size_t(j) * order] = v;
    }
  const bool op_lower = (uplo == 'L') != t;
  std::vector<W> x(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) x[size_t(i) + size_t(j) * m] = wide(alpha) * wide(b[size_t(i) + size_t(j) * ldb]);
  if (left) {
    for (int j = 0; j < n; ++j)
      for (int s = 0; s < m; ++s) {
        const int i = op_lower ? s : m - 1 - s;
        W v = x[size_t(i) + size_t(j) * m];
        for (int k = 0; k < m; ++k)
          if (k != i && (op_lower ? k < i : k > i)) v -= op[size_t(i) + size_t(k) * order] * x[size_t(k) + size_t(j) * m];
        x[size_t(i) + size_t(j) * m] = v / op[size_t(i) + size_t(i) * order];
      }
  } else {
    // X op(A) = B: column j of X from the columns k with op(A)(k, j) != 0, k != j.
    for (int s = 0; s < n; ++s) {
      const int j = op_lower ? n - 1 - s : s;
      for (int i = 0; i < m; ++i) {
        W v = x[size_t(i) + size_t(j) * m];
        for (int k = 0; k < n; ++k)
          if (k != j && (op_lower ? k > j : k < j)) v -= x[size_t(i) + size_t(k) * m] * op[size_t(k) + size_t(j) * order];
        x[size_t(i) + size_t(j) * m] = v / op[size_t(j) + size_t(j) * order];
      }
    }
  }
  return x;
}

// tiny >= 0: A(tiny, tiny) = 1e-4 (diag 'N'), so that its block's inverse is too ill-conditioned
// to use (impl/level3/level3_device.cu): that block is solved by substitution.
template <class T>
void run(char side, char uplo, char trans, char diag, int m, int n, T alpha, bool own_workspace, Rng &rng,
         int tiny = -1) {
  const int order = side == 'L' ? m : n, lda = order + 3, ldb = m + 5;
  std::vector<T> a(size_t(lda) * order), b(size_t(ldb) * n);
  for (int j = 0; j < order; ++j)
    for (int i = 0; i < lda; ++i) {
      const bool stored = i < order && (uplo == 'U' ? i <= j : i >= j);
      T v = T(cudrop::real_t<T>(0.5 / order)) * random_value<T>(rng);
      if (i == j) v = diag == 'U' ? T(NAN) : T(cudrop::real_t<T>(i == tiny ? 1e-4 : 1 + rng.uniform()));
      a[size_t(i) + size_t(j) * lda] = stored ? v : T(NAN);
    }
  for (T &v : b) v = random_value<T>(rng);
  const std::vector<Wide<T>> want = reference(side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
  T *dA, *dB;
  void *work = nullptr;
  const size_t work_bytes = cudrop::impl::trsm_device_workspace<T>(cudrop::side_of(side), m, n);
  cudaMalloc(&dA, a.size() * sizeof(T));
  cudaMalloc(&dB, b.size() * sizeof(T));
  if (own_workspace) cudaMalloc(&work, work_bytes);
  cudaMemcpy(dA, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice);
  const cudrop::Status s = cudrop::impl::trsm_device<T>(cudrop::side_of(side), cudrop::uplo_of(uplo),
                                                       cudrop::Op::from_letter(trans), cudrop::diag_of(diag), m, n,
                                                       alpha, dA, size_t(lda), dB,
                                                       size_t(ldb), nullptr, work, own_workspace ? work_bytes : 0);
  std::vector<T> got(b.size());
  const cudaError_t e = cudaMemcpy(got.data(), dB, b.size() * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(work);
  CHECK(s == cudrop::Status::ok && e == cudaSuccess, "%c%c%c%c m=%d n=%d: status %d, %s", side, uplo, trans, diag, m,
        n, int(s), cudaGetErrorString(e));
  long double err = 0, scale = 0;
  long pad_changed = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldb; ++i) {
      const size_t e_ = size_t(i) + size_t(j) * ldb;
      if (i >= m) { pad_changed += std::memcmp(&got[e_], &b[e_], sizeof(T)) != 0; continue; }
      const Wide<T> w = want[size_t(i) + size_t(j) * m];
      err = std::fmax(err, has_nan(got[e_]) ? INFINITY : std::abs(wide(got[e_]) - w));
      scale = std::fmax(scale, std::abs(w));
    }
  const double eps = sizeof(cudrop::real_t<T>) == 4 ? FLT_EPSILON : DBL_EPSILON;
  const char *prec = cudrop::is_complex_v<T> ? (sizeof(T) == 8 ? "c" : "z") : (sizeof(T) == 4 ? "s" : "d");
  const double ratio = scale > 0 ? double(err / (scale * order * eps)) : double(err);
  CHECK(ratio < 16, "%s %c%c%c%c m=%d n=%d alpha=%g: error ratio %.3g", prec, side, uplo, trans, diag, m, n,
        double(cudrop::real_part(alpha)), ratio);
  CHECK(pad_changed == 0, "%c%c%c%c m=%d n=%d: %ld padding elements changed", side, uplo, trans, diag, m, n,
        pad_changed);
}

}  // namespace

// --quick: orders up to 300 only (one inverted block and a partial one), for the sanitizers.
int main(int argc, char **argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("trsm_device_test: SKIP: no usable GPU\n");
    return 77;  // ctest's SKIP_RETURN_CODE
  }
  Rng rng(7);
  // Past 256 the diagonal blocks are inverted (a partial last block at 300, 517 and 600).
  const int orders[] = {1, 63, 64, 65, 130, 256, 257, 300, 517, 600};
  const double alphas[] = {1, -0.5, 0};
  int index = 0;
  for (int order : orders)
    for (char side : {'L', 'R'}) {
      if (quick && order > 300) continue;
      for (char uplo : {'U', 'L'})
        for (char trans : {'N', 'T', 'C'})
          for (char diag : {'N', 'U'}) {
            ++index;
            const int other = 1 + (index * 37) % 90;
            const int m = side == 'L' ? order : other, n = side == 'L' ? other : order;
            const double a1 = alphas[index % 3], a2 = alphas[(index + 1) % 3];
            run<float>(side, uplo, trans, diag, m, n, float(a1), index % 2 == 0, rng);
            run<double>(side, uplo, trans, diag, m, n, a2, index % 2 == 1, rng);
            run<Complex<float>>(side, uplo, trans, diag, m, n, Complex<float>(float(a1), a1 == 0 ? 0.0f : 0.3f),
                                index % 2 == 1, rng);
            run<Complex<double>>(side, uplo, trans, diag, m, n, Complex<double>(a2, a2 == 0 ? 0.0 : -0.3),
                                 index % 2 == 0, rng);
          }
    }
  // A tiny diagonal entry in the second block of 256 (and in the last, partial one).
  for (int tiny : {290, 590})
    for (char side : {'L', 'R'})
      for (char uplo : {'U', 'L'})
        for (char trans : {'N', 'T', 'C'}) {
          const int order = quick ? 300 : 600;
          if (tiny >= order) continue;
          const int m = side == 'L' ? order : 40, n = side == 'L' ? 40 : order;
          run<float>(side, uplo, trans, 'N', m, n, 1.0f, true, rng, tiny);
          run<double>(side, uplo, trans, 'N', m, n, -0.5, false, rng, tiny);
          run<Complex<float>>(side, uplo, trans, 'N', m, n, Complex<float>(1, 0.3f), false, rng, tiny);
          run<Complex<double>>(side, uplo, trans, 'N', m, n, Complex<double>(1, -0.3), true, rng, tiny);
        }
  std::printf("%d checks, %d failures\n%s\n", checks, failures, failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
