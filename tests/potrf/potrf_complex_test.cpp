// potrf_complex_test: cpotrf_/zpotrf_ (Hermitian Cholesky, A = U^H U or L L^H) through the
// public symbols, against the reference routine (tests/harness/reference.h).
//
// The input holds only the `uplo` triangle of a Hermitian matrix: the other triangle, the
// imaginary parts of the diagonal and the padding rows (lda > n) are NaN, which must be
// neither read (a NaN would spread into the factor) nor written. Every call:
//  * everything outside the triangle, the padding included, is unchanged, bit for bit;
//  * INFO equals the reference's (exactly: the matrices make the failing minor unambiguous);
//  * INFO = 0: the factor's diagonal is real (imaginary part 0) and positive, and
//    ||A - L L^H||_1 / (n ||A||_1 eps) < 30 (xPOT01's ratio, the netlib threshold);
//  * after a failure, the entries reference CPOTRF leaves as they were (past the failing
//    64-column block) are unchanged, bit for bit;
//  * the array matches the reference's output within 64 n eps max(1, |entry|): the factor, and
//    against the reference LAPACK itself (not OpenBLAS) the failing block's partial state, bit
//    for bit where it left an entry as it was.
// Matrices: diagonally dominant Hermitian (positive definite), and the same with one
// diagonal entry negative at positions around the 64-column blocks and the ends (INFO = that
// position + 1).
//
// Options: --max-size N (default 300), --big (also 1000+7, 2053, 4100), --prec c|z|cz,
//   --seed N, --require-gpu, --expect-gpu, --expect-cpu, --expect-fallback, -v.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/clock.h"
#include "tests/harness/complex_check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

// The state a failing factorization leaves: cudrop's GPU path keeps the reference's; a call that
// ran on the CPU (cpu mode, a fallback) keeps whatever the CPU LAPACK underneath leaves, and
// OpenBLAS's blocked potrf leaves other intermediate values. A difference is a failure where
// every call ran on the GPU (--expect-gpu) and a note elsewhere.
#define CHECK_STATE(cond, ...)                          \
  do {                                                  \
    if (opt.placement.expect_gpu) {                     \
      CHECK(cond, __VA_ARGS__);                         \
    } else if (!(cond)) {                               \
      std::printf("NOTE (state) ");                     \
      std::printf(__VA_ARGS__);                         \
      std::printf("\n");                                \
    }                                                   \
  } while (0)

namespace {

harness::FactorOptions opt;
long factorizations = 0;
long reference_missing = 0;  // comparisons with the reference not made: none loaded

template <class R>
using potrf_fn = void (*)(const char *, const int *, std::complex<R> *, const int *, int *, size_t);

template <class R>
struct Lapack {
  potrf_fn<R> cudrop_potrf, ref_potrf;
  bool netlib;  // the reference LAPACK itself, not OpenBLAS's
};
template <class R>
Lapack<R> routines(const harness::ReferenceLapack &ref) {
  const bool netlib = ref && ref.symbol<void *>("openblas_get_config") == nullptr;
  if constexpr (std::is_same_v<R, float>)
    return {reinterpret_cast<potrf_fn<R>>(&cpotrf_), ref.symbol<potrf_fn<R>>("cpotrf_"), netlib};
  else
    return {reinterpret_cast<potrf_fn<R>>(&zpotrf_), ref.symbol<potrf_fn<R>>("zpotrf_"), netlib};
}

template <class R>
bool same_bits(std::complex<R> a, std::complex<R> b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ||A - L L^H||_1 / (n ||A||_1 eps) (U^H U for upper); a0: the Hermitian input's triangle.
template <class R>
double residual(bool upper, int n, const std::complex<R> *a0, const std::complex<R> *f, int lda) {
  using C = std::complex<double>;
  std::vector<C> l(size_t(n) * n), full(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool in = upper ? i <= j : i >= j;
      // L (lower) = U^H (upper): L(i,j) for i >= j.
      if (i >= j) l[i + size_t(j) * n] = upper ? std::conj(C(f[j + size_t(i) * lda])) : C(f[i + size_t(j) * lda]);
      const C v = in ? C(a0[i + size_t(j) * lda]) : std::conj(C(a0[j + size_t(i) * lda]));
      full[i + size_t(j) * n] = i == j ? C(v.real(), 0) : v;
    }
  const double relative = harness::relative_product_error(n, n, n, full.data(), l.data(), l.data(), 'C');
  return relative / (double(n) * std::numeric_limits<R>::epsilon() / 2);
}

template <class R>
void run_case(const Lapack<R> &lp, bool upper, int n, int pad, bool unaligned, int negative_at, Rng &rng) {
  using C = std::complex<R>;
  const int lda = n + pad;
  const size_t elems = size_t(lda) * n;
  const R nan = std::numeric_limits<R>::quiet_NaN();
  std::vector<R> storage(2 * elems + 2, nan);
  C *a = reinterpret_cast<C *>(storage.data() + (unaligned ? 1 : 0));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      C &x = a[i + size_t(j) * lda];
      if (i == j) x = C(R(2 * n + rng.uniform()), nan);  // imaginary part never read
      else if (upper ? i < j : i > j) x = C(R(rng.symmetric()), R(rng.symmetric()));
    }
  if (negative_at >= 0) a[negative_at + size_t(negative_at) * lda] = C(R(-1 - n), nan);
  const std::vector<C> a0(a, a + elems);
  const std::vector<R> before(storage);
  const char uplo = upper ? 'U' : 'L';
  int info = -99;
  lp.cudrop_potrf(&uplo, &n, a, &lda, &info, 1);
  ++factorizations;
  char what[160];
  std::snprintf(what, sizeof what, "%cpotrf %c n=%d lda=%d%s negative at %d", std::is_same_v<R, float> ? 'c' : 'z',
                uplo, n, lda, unaligned ? " unaligned" : "", negative_at);
  if (opt.verbose) std::printf("%s: info=%d\n", what, info);

  // Outside the triangle (and the padding, and the alignment gap): bit for bit.
  bool outside_kept = std::memcmp(&storage[0], &before[0], sizeof(R)) == 0 || !unaligned;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < lda; ++i) {
      const bool in = i < n && (upper ? i <= j : i >= j);
      if (!in) outside_kept = outside_kept && same_bits(a[i + size_t(j) * lda], a0[i + size_t(j) * lda]);
    }
  CHECK(outside_kept, "%s: an entry outside the triangle changed", what);
  const int expected = negative_at + 1;
  CHECK(info == expected, "%s: INFO %d, expected %d", what, info, expected);
  if (info == 0) {
    bool diagonal_ok = true;
    for (int j = 0; j < n; ++j) {
      const C d = a[j + size_t(j) * lda];
      diagonal_ok = diagonal_ok && d.imag() == 0 && d.real() > 0;
    }
    CHECK(diagonal_ok, "%s: a diagonal entry of the factor not real and positive", what);
    const double ratio = residual(upper, n, a0.data(), a, lda);
    CHECK(ratio < 30, "%s: residual ratio %.3g", what, ratio);
  }
  // What reference CPOTRF leaves as it was after failing at INFO = k, in lower coordinates:
  // every column from the end of the failing 64-column block on, and the rows below that
  // block in its columns (n <= 64: one unblocked CPOTRF2, nothing kept by structure).
  const int k0 = info > 0 ? (n <= 64 ? 0 : (info - 1) / 64 * 64) : n;
  const int k1 = info > 0 ? (n <= 64 ? n : std::min(n, k0 + 64)) : n;
  auto index = [&](int i, int j) { return upper ? j + size_t(i) * lda : i + size_t(j) * lda; };
  bool kept = true;
  for (int j = k0; j < n; ++j)
    for (int i = std::max(j, k1); i < n; ++i) kept = kept && same_bits(a[index(i, j)], a0[index(i, j)]);
  CHECK_STATE(kept, "%s: an entry beyond the failing block changed", what);
  if (n > 4200) return;
  if (lp.ref_potrf == nullptr) {
    ++reference_missing;
    return;
  }
  std::vector<C> r(a0);
  int rinfo = -99;
  lp.ref_potrf(&uplo, &n, r.data(), &lda, &rinfo, 1);
  CHECK(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);
  // The factored columns always; the failing block's partial state only against the reference
  // LAPACK itself (OpenBLAS's potrf leaves other intermediate values).
  const double tol = 64.0 * n * std::numeric_limits<R>::epsilon();
  double worst = 0;
  bool kept_as_reference = true;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      if (j >= k0 && (i >= k1 || j >= k1)) continue;  // kept: checked above
      const bool partial = j >= k0;
      if (partial && !lp.netlib) continue;
      const size_t e = index(i, j);
      if (partial && same_bits(r[e], a0[e])) {
        kept_as_reference = kept_as_reference && same_bits(a[e], a0[e]);
        continue;
      }
      const std::complex<double> x(a[e]), y(r[e]);
      const double d = std::isnan(y.imag()) ? std::fabs(x.real() - y.real()) : std::abs(x - y);
      worst = std::max(worst, d == d ? d / (tol * std::max(1.0, std::abs(y))) : INFINITY);
    }
  CHECK_STATE(kept_as_reference, "%s: an entry the reference leaves as it was changed", what);
  // After a failure, against OpenBLAS's state: a note (its blocking differs from the reference's).
  if (info == 0 || lp.netlib) CHECK(worst <= 1, "%s: differs from the reference's output by %.3g x tol", what, worst);
  else if (!(worst <= 1)) std::printf("NOTE (state) %s: differs from OpenBLAS's output after the failure by %.3g x tol\n", what, worst);
}

template <class R>
void run_precision(const harness::ReferenceLapack &ref) {
  const Lapack<R> lp = routines<R>(ref);
  Rng rng(opt.seed);
  std::vector<int> sizes;
  for (int n : {1, 2, 7, 33, 63, 64, 65, 100, 128, 129, 200, 255, 300, 513, 1000, 1007, 2053, 4100})
    if (n <= opt.max || (opt.big && n >= 1000)) sizes.push_back(n);
  int count = 0;
  for (int n : sizes)
    for (bool upper : {false, true}) {
      std::vector<int> failing = {-1};
      for (int p : {0, 1, 31, 32, 63, 64, 65, 127, 200, 513, 1100, 4097, n - 1})
        if (p < n && std::find(failing.begin(), failing.end(), p) == failing.end()) failing.push_back(p);
      if (n > 1100) failing = {-1, 0, 65, n / 2, n - 1};
      for (int p : failing) {
        run_case<R>(lp, upper, n, count % 3 == 1 ? 5 : 0, count % 2 == 1, p, rng);
        ++count;
      }
    }
}

}  // namespace

int main(int argc, char **argv) {
  harness::CommandLine cl("potrf_complex_test [--max-size N] [--big] [--prec c|z|cz] [--seed N] [placement] [-v]");
  opt.add_to(cl, "--max-size");
  if (!cl.parse(argc, argv)) return 2;
  if (harness::skip_without_gpu("potrf_complex_test", opt.placement.require_gpu)) return harness::kSkipped;
  // The reference's intermediate state is compared: not OpenBLAS's own potrf.
  harness::ReferenceLapack ref = harness::load_reference_lapack({"cpotrf_", "zpotrf_"}, false);
  if (!ref) ref = harness::load_reference_lapack({"cpotrf_", "zpotrf_"}, true);
  std::printf("potrf_complex_test: cudrop %s, reference: %s\n", cudrop_version(), ref.how.c_str());
  const harness::Counters start = harness::Counters::now();
  const double t0 = harness::seconds_now();
  if (opt.prec.find('c') != std::string::npos) run_precision<float>(ref);
  if (opt.prec.find('z') != std::string::npos) run_precision<double>(ref);
  harness::check_placement(opt.placement, start, factorizations);
  std::printf("potrf_complex_test: %d checks, %d failures, %ld factorizations, %.1f s\n", checks, failures,
              factorizations, harness::seconds_now() - t0);
  if (failures == 0 && reference_missing != 0) {
    std::printf("potrf_complex_test: SKIP: no reference LAPACK: %ld comparisons with it not made\n",
                reference_missing);
    return harness::kSkipped;
  }
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
