// getrf_complex_test: cgetrf_/zgetrf_ (LU with partial pivoting, ICAMAX's |Re|+|Im| pivot)
// through the public symbols, against the reference routine (tests/harness/reference.h; on a
// machine with OpenBLAS only, OpenBLAS's, whose factors round differently: compared with a
// tolerance, IPIV and INFO exactly where the construction makes them exact).
//
// Every call (m, n, lda >= m, the array sometimes only 4- or 8-byte aligned):
//  * the padding rows (between m and lda, NaN-filled) are unchanged, bit for bit;
//  * INFO equals the reference's; IPIV(k) in [k, m];
//  * every multiplier |L(i,k)| <= sqrt(2) (1 + 1e-5): |Re|+|Im| of the pivot is the largest;
//  * ||P*A - L*U||_1 / (min(m,n) ||A||_1 eps) < 30 (xGET01's ratio, the netlib threshold);
//  * where IPIV equals the reference's, max |LU - LU_ref| <= tol max|A|; where it differs, the
//    first difference is a near tie: |Re|+|Im| of the two pivots within tol max(max|A|, max|U| of
//    the rows so far), tol = 16 max(m,n) eps (the elimination's rounding grows with |U|).
// Matrices: random; zero columns first, middle, last (INFO = that column, exactly); all zero
// (INFO = 1, IPIV(k) = k); planted ties in column 1 ((0.5,-0.5), (1,0), (0,1): equal |Re|+|Im|,
// different moduli; the first must be chosen); a first column below the safe minimum (the
// multipliers divided, not multiplied by an overflowing reciprocal: CGETRF2).
//
// Options: --max-n N (default 300), --big (also 1007, 2053, 4096 and 8192+7 x 1000),
//   --prec c|z|cz, --seed N, --require-gpu, --expect-gpu, --expect-cpu, --expect-fallback, -v.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

namespace {

harness::FactorOptions opt;
long factorizations = 0;
long reference_missing = 0;  // comparisons with the reference not made: none loaded

template <class R>
using getrf_fn = void (*)(const int *, const int *, std::complex<R> *, const int *, int *, int *);

template <class R>
struct Lapack {
  getrf_fn<R> cudrop_getrf, ref_getrf;
  // OpenBLAS's getrf scales by the reciprocal of every pivot, where the reference divides by a
  // pivot below the safe minimum: its factors of a tiny column (1/pivot overflows) are not the
  // reference's, so that kind is compared with the reference LAPACK only.
  bool netlib = false;
};
inline bool netlib(const harness::ReferenceLapack &ref) {
  return ref && ref.symbol<void *>("openblas_get_config") == nullptr;
}
template <class R>
Lapack<R> routines(const harness::ReferenceLapack &ref) {
  if constexpr (std::is_same_v<R, float>)
    return {reinterpret_cast<getrf_fn<R>>(&cgetrf_), ref.symbol<getrf_fn<R>>("cgetrf_"), netlib(ref)};
  else
    return {reinterpret_cast<getrf_fn<R>>(&zgetrf_), ref.symbol<getrf_fn<R>>("zgetrf_"), netlib(ref)};
}

template <class R>
R abs1(std::complex<R> a) { return std::fabs(a.real()) + std::fabs(a.imag()); }

enum Kind { random_kind, zero_first, zero_middle, zero_last, all_zero, planted_ties, tiny_column, kinds };
const char *kind_name[] = {"random", "zero-first", "zero-middle", "zero-last", "all-zero", "planted-ties", "tiny"};

// A (m x n, leading dimension lda) of `kind`; *tie_row: the row ICAMAX must choose in column 1
// for planted ties (-1 otherwise).
template <class R>
void fill(Kind kind, int m, int n, std::complex<R> *a, int lda, Rng &rng, int *tie_row) {
  *tie_row = -1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      a[i + size_t(j) * lda] =
          kind == all_zero ? std::complex<R>(0) : std::complex<R>(R(rng.symmetric()), R(rng.symmetric()));
  const int mn = std::min(m, n);
  auto zero_column = [&](int j) {
    for (int i = 0; i < m; ++i) a[i + size_t(j) * lda] = 0;
  };
  if (kind == zero_first) zero_column(0);
  if (kind == zero_middle) zero_column(mn / 2);
  if (kind == zero_last) zero_column(mn - 1);
  if (kind == planted_ties && m >= 3) {
    for (int i = 0; i < m; ++i) a[i] *= R(0.2);  // |Re|+|Im| < 0.4
    const int r0 = int(rng.below(m / 3 + 1)), r1 = m / 3 + 1 + int(rng.below(m - m / 3 - 1));
    const int r2 = std::min(m - 1, r1 + 1 + int(rng.below(std::max(1, m - r1 - 1))));
    a[r1] = std::complex<R>(1, 0);
    if (r2 != r1) a[r2] = std::complex<R>(0, 1);
    a[r0] = std::complex<R>(0.5, -0.5);
    *tie_row = std::min(r0, r1);
  }
  if (kind == tiny_column) {
    const R scale = std::is_same_v<R, float> ? R(1e-39) : R(1e-309);
    for (int i = 0; i < m; ++i) a[i] *= scale;
  }
}

// ||P*A - L*U||_1 / (min(m,n) ||A||_1 eps).
template <class R>
double residual(int m, int n, const std::complex<R> *a0, int lda0, const std::complex<R> *f, int lda,
                const int *ipiv) {
  using C = std::complex<double>;
  const int mn = std::min(m, n);
  std::vector<C> pa(size_t(m) * n), l(size_t(m) * mn), u(size_t(mn) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) pa[i + size_t(j) * m] = C(a0[i + size_t(j) * lda0]);
  for (int k = 0; k < mn; ++k)
    for (int j = 0; j < n; ++j) std::swap(pa[k + size_t(j) * m], pa[(ipiv[k] - 1) + size_t(j) * m]);
  for (int k = 0; k < mn; ++k)
    for (int i = 0; i < m; ++i) l[i + size_t(k) * m] = i == k ? C(1) : i > k ? C(f[i + size_t(k) * lda]) : C(0);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < mn; ++k) u[k + size_t(j) * mn] = k <= j ? C(f[k + size_t(j) * lda]) : C(0);
  const double relative = harness::relative_product_error(m, n, mn, pa.data(), l.data(), u.data(), 'N');
  return relative / (double(mn) * std::numeric_limits<R>::epsilon() / 2);
}

template <class R>
void run_case(const Lapack<R> &lp, Kind kind, int m, int n, int pad, bool unaligned, Rng &rng) {
  using C = std::complex<R>;
  const int lda = m + pad, mn = std::min(m, n);
  const size_t elems = size_t(lda) * n;
  // Storage in R: an odd offset leaves the complex array aligned only as its real part.
  std::vector<R> storage(2 * elems + 2, std::numeric_limits<R>::quiet_NaN());
  C *a = reinterpret_cast<C *>(storage.data() + (unaligned ? 1 : 0));
  int tie_row = -1;
  fill(kind, m, n, a, lda, rng, &tie_row);
  const std::vector<R> before(storage);
  const std::vector<C> a0(a, a + elems);
  std::vector<int> ipiv(mn + 1, -7);
  int info = -99;
  lp.cudrop_getrf(&m, &n, a, &lda, ipiv.data(), &info);
  ++factorizations;
  char what[160];
  std::snprintf(what, sizeof what, "%cgetrf %s m=%d n=%d lda=%d%s", std::is_same_v<R, float> ? 'c' : 'z',
                kind_name[kind], m, n, lda, unaligned ? " unaligned" : "");
  if (opt.verbose) std::printf("%s: info=%d\n", what, info);

  bool padding_kept = true;
  for (int j = 0; j < n; ++j)
    for (int i = m; i < lda; ++i)
      for (int h = 0; h < 2; ++h) {
        const size_t e = 2 * (i + size_t(j) * lda) + h + (unaligned ? 1 : 0);
        padding_kept = padding_kept && std::memcmp(&storage[e], &before[e], sizeof(R)) == 0;
      }
  CHECK(padding_kept, "%s: padding rows changed", what);
  CHECK(ipiv[mn] == -7, "%s: IPIV written past min(m,n)", what);
  bool pivots_ok = true, multipliers_ok = true, finite = true;
  for (int k = 0; k < mn; ++k) pivots_ok = pivots_ok && ipiv[k] >= k + 1 && ipiv[k] <= m;
  CHECK(pivots_ok, "%s: IPIV out of range", what);
  if (!pivots_ok) return;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const C x = a[i + size_t(j) * lda];
      finite = finite && std::isfinite(x.real()) && std::isfinite(x.imag());
      if (i > j && j < mn) multipliers_ok = multipliers_ok && std::abs(x) <= std::sqrt(2.0) * (1 + 1e-5);
    }
  CHECK(finite, "%s: NaN or Inf in the factors", what);
  CHECK(multipliers_ok, "%s: a multiplier larger than sqrt(2): not ICAMAX's pivot", what);
  const double ratio = residual(m, n, a0.data(), lda, a, lda, ipiv.data());
  CHECK(ratio < 30, "%s: residual ratio %.3g", what, ratio);

  const int expected_zero = kind == zero_first ? 1 : kind == zero_middle ? mn / 2 + 1 : kind == zero_last ? mn
                            : kind == all_zero ? 1 : 0;
  if (expected_zero != 0) CHECK(info == expected_zero, "%s: INFO %d, expected %d", what, info, expected_zero);
  if (kind == all_zero)
    for (int k = 0; k < mn; ++k) CHECK(ipiv[k] == k + 1, "%s: IPIV(%d) = %d in a zero matrix", what, k + 1, ipiv[k]);
  if (tie_row >= 0) CHECK(ipiv[0] == tie_row + 1, "%s: IPIV(1) = %d, ICAMAX takes %d", what, ipiv[0], tie_row + 1);

  if (double(m) * n * mn > 3e11 || (kind == tiny_column && !lp.netlib)) return;
  if (lp.ref_getrf == nullptr) {
    ++reference_missing;
    return;
  }
  std::vector<C> r(a0);
  std::vector<int> rpiv(mn);
  int rinfo = -99;
  lp.ref_getrf(&m, &n, r.data(), &lda, rpiv.data(), &rinfo);
  CHECK(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);
  double amax = 0;
  for (const C &x : a0) amax = std::max(amax, double(abs1(x)));
  const double tol = 16.0 * std::max(m, n) * std::numeric_limits<R>::epsilon() * std::max(amax, 1e-300);
  int first_diff = -1;
  for (int k = 0; k < mn && first_diff < 0; ++k)
    if (ipiv[k] != rpiv[k]) first_diff = k;
  if (first_diff < 0 && mn <= 300) {
    // The same pivots: the factors differ by rounding only (L relative to 1, U to max|A|).
    const double limit = 1024.0 * std::max(m, n) * std::numeric_limits<R>::epsilon();
    double worst = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        const C x = a[i + size_t(j) * lda], y = r[i + size_t(j) * lda];
        const double scale = i > j ? 1.0 : std::max(amax, 1e-300);
        worst = std::max(worst, std::abs(std::complex<double>(x) - std::complex<double>(y)) / (scale * limit));
      }
    CHECK(worst <= 1, "%s: factors differ from the reference's by %.3g x the tolerance", what, worst);
  } else if (first_diff >= 0) {
    const int k = first_diff;
    const double ours = abs1(a[k + size_t(k) * lda]), theirs = abs1(r[k + size_t(k) * lda]);
    // Rounding errors grow with the entries the elimination has made (|dA| <= n eps |L||U|), so
    // at step k the two codes' candidates may differ by up to tol scaled by the largest |U| of
    // rows 0..k, not only by max|A|.
    double umax = amax;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= std::min(k, j); ++i) umax = std::max(umax, double(abs1(a[i + size_t(j) * lda])));
    const double tol_k = tol / std::max(amax, 1e-300) * umax;
    CHECK(std::fabs(ours - theirs) <= tol_k,
          "%s: IPIV(%d) = %d, reference %d, and no near tie (%.17g vs %.17g, tol %.3g)", what, k + 1, ipiv[k],
          rpiv[k], ours, theirs, tol_k);
  }
}

template <class R>
void run_precision(const harness::ReferenceLapack &ref) {
  const Lapack<R> lp = routines<R>(ref);
  Rng rng(opt.seed);
  std::vector<std::pair<int, int>> shapes;
  for (int n : {1, 2, 3, 7, 33, 64, 65, 100, 129, 255, 300})
    if (n <= opt.max) shapes.push_back({n, n});
  for (auto s : std::vector<std::pair<int, int>>{{300, 7}, {7, 300}, {1000, 33}, {33, 1000}, {260, 130}})
    if (std::max(s.first, s.second) <= std::max(opt.max, 300L) && (opt.max >= 300)) shapes.push_back(s);
  if (opt.big)
    for (auto s : std::vector<std::pair<int, int>>{{1007, 1007}, {2053, 2053}, {4096, 4096}, {8199, 1000}})
      shapes.push_back(s);
  int count = 0;
  for (auto [m, n] : shapes)
    for (int kind = 0; kind < kinds; ++kind) {
      const bool large = std::min(m, n) > 1100;
      if (large && kind != random_kind && kind != zero_middle && kind != tiny_column) continue;
      const int pad = (count % 3 == 1) ? 3 : 0;
      run_case<R>(lp, Kind(kind), m, n, pad, count % 2 == 1, rng);
      ++count;
    }
}

}  // namespace

int main(int argc, char **argv) {
  harness::CommandLine cl("getrf_complex_test [--max-n N] [--big] [--prec c|z|cz] [--seed N] [placement] [-v]");
  opt.add_to(cl, "--max-n");
  if (!cl.parse(argc, argv)) return 2;
  if (harness::skip_without_gpu("getrf_complex_test", opt.placement.require_gpu)) return harness::kSkipped;
  const harness::ReferenceLapack ref = harness::load_reference_lapack({"cgetrf_", "zgetrf_"}, true);
  std::printf("getrf_complex_test: cudrop %s, reference: %s\n", cudrop_version(), ref.how.c_str());
  const harness::Counters start = harness::Counters::now();
  const double t0 = harness::seconds_now();
  if (opt.prec.find('c') != std::string::npos) run_precision<float>(ref);
  if (opt.prec.find('z') != std::string::npos) run_precision<double>(ref);
  harness::check_placement(opt.placement, start, factorizations);
  std::printf("getrf_complex_test: %d checks, %d failures, %ld factorizations, %.1f s\n", checks, failures,
              factorizations, harness::seconds_now() - t0);
  if (failures == 0 && reference_missing != 0) {
    std::printf("getrf_complex_test: SKIP: no reference LAPACK: %ld comparisons with it not made\n",
                reference_missing);
    return harness::kSkipped;
  }
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
