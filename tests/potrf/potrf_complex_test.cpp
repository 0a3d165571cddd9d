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
//  * the array matches the reference's output: where the reference left an entry as it was,
//    bit for bit; elsewhere within 64 n eps max(1, |entry|) (the failing block's partial state
//    too).
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
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

struct Options {
  long max_size = 300;
  bool big = false;
  std::string prec = "cz";
  uint64_t seed = 1;
  harness::Placement placement;
  bool verbose = false;
} opt;
long factorizations = 0;

template <class R>
using potrf_fn = void (*)(const char *, const int *, std::complex<R> *, const int *, int *, size_t);

template <class R>
struct Lapack {
  potrf_fn<R> cudrop_potrf, ref_potrf;
};
template <class R>
Lapack<R> routines(const harness::ReferenceLapack &ref) {
  if constexpr (std::is_same_v<R, float>)
    return {reinterpret_cast<potrf_fn<R>>(&cpotrf_), ref.symbol<potrf_fn<R>>("cpotrf_")};
  else
    return {reinterpret_cast<potrf_fn<R>>(&zpotrf_), ref.symbol<potrf_fn<R>>("zpotrf_")};
}

template <class R>
bool same_bits(std::complex<R> a, std::complex<R> b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ||A - L L^H||_1 / (n ||A||_1 eps) (U^H U for upper), the product in long double (small n)
// or by zgemm_ (large n); a0: the Hermitian input's triangle.
template <class R>
double residual(bool upper, int n, const std::complex<R> *a0, const std::complex<R> *f, int lda) {
  using C = std::complex<double>;
  std::vector<C> l(size_t(n) * n), full(size_t(n) * n), prod(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool in = upper ? i <= j : i >= j;
      // L (lower) = U^H (upper): L(i,j) for i >= j.
      if (i >= j) l[i + size_t(j) * n] = upper ? std::conj(C(f[j + size_t(i) * lda])) : C(f[i + size_t(j) * lda]);
      const C v = in ? C(a0[i + size_t(j) * lda]) : std::conj(C(a0[j + size_t(i) * lda]));
      full[i + size_t(j) * n] = i == j ? C(v.real(), 0) : v;
    }
  if (double(n) * n * n <= 3e7) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        std::complex<long double> s = 0;
        for (int k = 0; k <= std::min(i, j); ++k)
          s += std::complex<long double>(l[i + size_t(k) * n]) * std::conj(std::complex<long double>(l[j + size_t(k) * n]));
        prod[i + size_t(j) * n] = C(s);
      }
  } else {
    const C one = 1, zero = 0;
    zgemm_("N", "C", &n, &n, &n, &one, l.data(), &n, l.data(), &n, &zero, prod.data(), &n, 1, 1);
  }
  double diff = 0, norm = 0;
  for (int j = 0; j < n; ++j) {
    double d = 0, s = 0;
    for (int i = 0; i < n; ++i) {
      d += std::abs(full[i + size_t(j) * n] - prod[i + size_t(j) * n]);
      s += std::abs(full[i + size_t(j) * n]);
    }
    diff = std::max(diff, d);
    norm = std::max(norm, s);
  }
  return diff / norm / (double(n) * std::numeric_limits<R>::epsilon() / 2);
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
  if (lp.ref_potrf == nullptr || n > 4200) return;
  std::vector<C> r(a0);
  int rinfo = -99;
  lp.ref_potrf(&uplo, &n, r.data(), &lda, &rinfo, 1);
  CHECK(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);
  const double tol = 64.0 * n * std::numeric_limits<R>::epsilon();
  double worst = 0;
  bool kept_as_reference = true;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (!(upper ? i <= j : i >= j)) continue;
      const size_t e = i + size_t(j) * lda;
      if (same_bits(r[e], a0[e])) {
        kept_as_reference = kept_as_reference && same_bits(a[e], a0[e]);
        continue;
      }
      const std::complex<double> x(a[e]), y(r[e]);
      const double d = std::isnan(y.imag()) ? std::fabs(x.real() - y.real()) : std::abs(x - y);
      worst = std::max(worst, d == d ? d / (tol * std::max(1.0, std::abs(y))) : INFINITY);
    }
  CHECK(kept_as_reference, "%s: an entry the reference leaves as it was changed", what);
  CHECK(worst <= 1, "%s: differs from the reference's output by %.3g x tol", what, worst);
}

template <class R>
void run_precision(const harness::ReferenceLapack &ref) {
  const Lapack<R> lp = routines<R>(ref);
  Rng rng(opt.seed);
  std::vector<int> sizes;
  for (int n : {1, 2, 7, 33, 63, 64, 65, 100, 128, 129, 200, 255, 300, 513, 1000, 1007, 2053, 4100})
    if (n <= opt.max_size || (opt.big && n >= 1000)) sizes.push_back(n);
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
  cl.number("--max-size", &opt.max_size).flag("--big", &opt.big).text("--prec", &opt.prec)
      .number("--seed", &opt.seed).placement(&opt.placement).flag("-v", &opt.verbose);
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
  const harness::Counters made = harness::Counters::now().since(start);
  std::printf("counters: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld (%ld factorizations)\n", made.gpu, made.cpu,
              made.fallbacks, factorizations);
  if (opt.placement.expect_gpu)
    CHECK(made.gpu >= factorizations && made.cpu == 0 && made.fallbacks == 0,
          "expected every call on the GPU: gpu_calls=%ld cpu_calls=%ld fallbacks=%ld", made.gpu, made.cpu,
          made.fallbacks);
  if (opt.placement.expect_cpu)
    CHECK(made.gpu == 0 && made.cpu >= factorizations, "expected CPU only: gpu_calls=%ld cpu_calls=%ld", made.gpu,
          made.cpu);
  if (opt.placement.expect_fallback) CHECK(made.fallbacks > 0, "expected GPU attempts to fall back");
  std::printf("potrf_complex_test: %d checks, %d failures, %ld factorizations, %.1f s\n", checks, failures,
              factorizations, harness::seconds_now() - t0);
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
