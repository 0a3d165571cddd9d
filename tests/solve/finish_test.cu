// The CPU completions of GPU solves that stopped after writing part of the caller's arrays
// (route/finish_on_cpu.h), run on the CPU LAPACK without a GPU, in double and double complex:
// from each state a GPU attempt can leave (the GPU's pivots and its factor's first d columns,
// the rest of A original; or the whole factor and X's first k columns), the result must be the
// reference's answer: INFO, a valid factorization P A = L U with the given first pivots, and X
// solving A X = B (c, z: A Hermitian for ?posv).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "impl/potrf/potrf.h"
#include "impl/solve/solve.h"
#include "route/finish_on_cpu.h"
#include "tests/harness/check.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

using cudrop::Complex;
using W = std::complex<double>;  // what the checks compute in, for both element types
constexpr double kEps = 1.1102230246251565e-16;

W wide(double x) { return x; }
W wide(Complex<double> x) { return {x.re, x.im}; }
template <class T> T narrow(W x) {
  if constexpr (cudrop::is_complex_v<T>) return T(x.real(), x.imag());
  else return x.real();
}
// A random entry in [-1, 1) (both parts for complex).
template <class T> T random_entry(Rng &rng) {
  const double re = rng.symmetric();
  if constexpr (cudrop::is_complex_v<T>) return T(re, rng.symmetric());
  else return re;
}

template <class T> using getrf_fn = void (*)(const int *, const int *, T *, const int *, int *, int *);
template <class T> using gesv_fn = void (*)(const int *, const int *, T *, const int *, int *, T *, const int *, int *);
template <class T>
using posv_fn = void (*)(const char *, const int *, const int *, T *, const int *, T *, const int *, int *, size_t);

// max over columns of |A X - B| / (||A|| ||X|| n eps), 1-norms.
template <class T>
double solve_ratio(int n, int nrhs, const std::vector<T> &a, const std::vector<T> &x, const std::vector<T> &b) {
  double r = 0, an = 0, xn = 0;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += std::abs(wide(a[i + size_t(j) * n]));
    an = std::max(an, s);
  }
  for (int j = 0; j < nrhs; ++j) {
    double rs = 0, xs = 0;
    for (int i = 0; i < n; ++i) {
      W v = -wide(b[i + size_t(j) * n]);
      for (int k = 0; k < n; ++k) v += wide(a[i + size_t(k) * n]) * wide(x[k + size_t(j) * n]);
      rs += std::abs(v);
      xs += std::abs(wide(x[i + size_t(j) * n]));
    }
    r = std::max(r, rs);
    xn = std::max(xn, xs);
  }
  return r / (an * xn * n * kEps);
}

// ||P A - L U||_1 / (n ||A||_1 eps).
template <class T>
double lu_ratio(int n, const std::vector<T> &a, const std::vector<T> &lu, const std::vector<int> &ipiv) {
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int k = 0; k < n; ++k) std::swap(perm[k], perm[ipiv[k] - 1]);
  double r = 0, an = 0;
  for (int j = 0; j < n; ++j) {
    double rs = 0, as = 0;
    for (int i = 0; i < n; ++i) {
      W v = 0;
      for (int k = 0; k <= std::min(i, j); ++k)
        v += (k == i ? W(1) : wide(lu[i + size_t(k) * n])) * wide(lu[k + size_t(j) * n]);
      rs += std::abs(wide(a[perm[i] + size_t(j) * n]) - v);
      as += std::abs(wide(a[i + size_t(j) * n]));
    }
    r = std::max(r, rs);
    an = std::max(an, as);
  }
  return an == 0 ? (r == 0 ? 0 : 1e30) : r / (n * an * kEps);
}

template <class T>
void run_precision(const harness::ReferenceLapack &ref, const char *p) {
  const auto getrf = ref.symbol<getrf_fn<T>>((std::string(p) + "getrf_").c_str());
  const auto gesv = ref.symbol<gesv_fn<T>>((std::string(p) + "gesv_").c_str());
  const auto posv = ref.symbol<posv_fn<T>>((std::string(p) + "posv_").c_str());
  Rng rng(5);
  for (int n : {1, 5, 64, 200, 301}) {
    for (int zero : {-1, 0, n / 2, n - 1}) {
      const int nrhs = 3;
      std::vector<T> a(size_t(n) * n), b(size_t(n) * nrhs);
      for (T &v : a) v = random_entry<T>(rng);
      for (T &v : b) v = random_entry<T>(rng);
      if (zero >= 0)
        for (int i = 0; i < n; ++i) a[i + size_t(zero) * n] = T(0);
      // What the GPU would have computed: the whole factorization.
      std::vector<T> lu = a;
      std::vector<int> gpu_piv(n);
      int gpu_info = 0;
      getrf(&n, &n, lu.data(), &n, gpu_piv.data(), &gpu_info);
      std::vector<T> ra = a, rb = b;
      std::vector<int> rpiv(n);
      int rinfo = 0;
      gesv(&n, &nrhs, ra.data(), &n, rpiv.data(), rb.data(), &n, &rinfo);
      for (int d : {0, 1, n / 3, n - 1, n}) {
        for (int x_done : {0, 2}) {
          if (x_done > 0 && (d < n || gpu_info != 0)) continue;
          if (d < 0 || d > n) continue;
          // The caller's arrays as a GPU attempt leaves them.
          std::vector<T> ca = a, cb = b;
          std::vector<int> cpiv = gpu_piv;
          for (size_t e = 0; e < size_t(d) * n; ++e) ca[e] = lu[e];
          for (size_t e = 0; e < size_t(x_done) * n; ++e) cb[e] = rb[e];
          cudrop::impl::GesvProgress pr;
          pr.n = n;
          pr.nrhs = nrhs;
          pr.ipiv_written = true;
          pr.lu_columns = d;
          pr.x_columns = x_done;
          pr.info = gpu_info;
          int info = -99;
          cudrop::gesv_finish_on_cpu<T>(n, nrhs, ca.data(), n, cpiv.data(), cb.data(), n, pr, &info);
          CHECK(info == rinfo, "%sgesv n=%d zero=%d d=%d x=%d: INFO %d, reference %d", p, n, zero, d, x_done, info,
                rinfo);
          bool first_kept = true;
          for (int k = 0; k < d; ++k) first_kept = first_kept && cpiv[k] == gpu_piv[k];
          CHECK(first_kept, "%sgesv n=%d d=%d: the GPU's first pivots changed", p, n, d);
          const double lr = lu_ratio(n, a, ca, cpiv);
          CHECK(lr < 30, "%sgesv n=%d zero=%d d=%d: factor ratio %.3g", p, n, zero, d, lr);
          if (info == 0) {
            const double xr = solve_ratio(n, nrhs, a, cb, b);
            CHECK(xr < 30, "%sgesv n=%d d=%d x=%d: solution ratio %.3g", p, n, d, x_done, xr);
          } else {
            CHECK(std::equal(cb.begin(), cb.end(), b.begin()), "%sgesv n=%d zero=%d d=%d: B changed with INFO %d", p,
                  n, zero, d, info);
          }
        }
      }
    }
    // posv: the whole factor back, X's first k columns back; the rest solved on the CPU.
    for (int x_done : {0, 1, 3}) {
      const int nrhs = 3;
      std::vector<T> a(size_t(n) * n), b(size_t(n) * nrhs);
      for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
          const T v = i == j ? T(n + 1.0) : random_entry<T>(rng);
          a[i + size_t(j) * n] = v;
          a[j + size_t(i) * n] = narrow<T>(std::conj(wide(v)));
        }
      for (T &v : b) v = random_entry<T>(rng);
      std::vector<T> ra = a, rb = b;
      int rinfo = 0;
      posv("L", &n, &nrhs, ra.data(), &n, rb.data(), &n, &rinfo, 1);
      std::vector<T> cb = b;
      for (size_t e = 0; e < size_t(x_done) * n; ++e) cb[e] = rb[e];
      cudrop::impl::PotrfProgress pr;
      pr.n = n;
      pr.columns = n;
      pr.x_columns = x_done;
      int info = -99;
      cudrop::posv_finish_on_cpu<T>(false, n, nrhs, ra.data(), n, cb.data(), n, pr, &info);
      const double xr = solve_ratio(n, nrhs, a, cb, b);
      CHECK(info == 0 && xr < 30, "%sposv n=%d x=%d: INFO %d, solution ratio %.3g", p, n, x_done, info, xr);
    }
  }
}

}  // namespace

int main() {
  const harness::ReferenceLapack ref =
      harness::load_reference_lapack({"dgetrf_", "dgesv_", "dposv_", "zgetrf_", "zgesv_", "zposv_"}, true);
  if (!ref) {
    std::printf("finish_test: SKIP: no reference LAPACK\n");
    return 77;
  }
  run_precision<double>(ref, "d");
  run_precision<Complex<double>>(ref, "z");
  std::printf("finish_test: %d checks, %d failures\n%s\n", checks, failures, failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
