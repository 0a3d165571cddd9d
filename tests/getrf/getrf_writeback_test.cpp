// getrf_writeback_test: ?getrf_ (s, d, c, z) whose GPU attempt fails after rows of the factor
// have already gone back to the caller's array (CUDROP_TEST_FAULT_INJECT=getrf-writeback:N,
// with CUDROP_GETRF_WRITEBACK small enough that every panel is a piece of its own).
//
// Such a call must put the caller's rows back and finish on the CPU from the original matrix,
// so that its result is the CPU library's: a, IPIV and INFO equal the reference LAPACK's bit
// for bit (tests/harness/reference.h) where cudrop's CPU path uses the same library; where it
// uses another (OpenBLAS beside a netlib reference), INFO must be the reference's and the result
// an LU of the original matrix (||P A x - L U x|| at rounding level). The padding rows between m and lda are never touched. A call
// that completed on the GPU (fewer than N pieces) must give the reference's INFO and pivots in
// range; the GPU results themselves are checked by getrf_test and getrf_complex_test. A call
// that ran on the CPU alone (CUDROP_MODE=cpu: this test's premise) must give the reference's bits.
// Cases: square, tall, wide, lda > m, and exactly singular matrices (a zero column: INFO > 0).
//
// Run with CUDROP_MODE=auto, CUDROP_GETRF_MIN_N=0 and GEMM/TRSM crossovers out of reach: the
// LU goes to the GPU while the BLAS calls of the CPU LAPACK's own LU stay on the CPU BLAS, as
// the reference's do.
// Options: --require-gpu --expect-gpu (every call completed on the GPU) --expect-cpu (none did)
// --expect-fallback (some call fell back) --all-fall-back (every call did) -v
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

harness::Placement placement;
bool verbose = false, all_fall_back = false;
long calls = 0, fell_back = 0, on_gpu = 0;

template <class T>
using getrf_fn = void (*)(const int *, const int *, T *, const int *, int *, int *);

template <class T> struct Prec;
template <> struct Prec<float> {
  static constexpr const char *name = "sgetrf_";
  static getrf_fn<float> cudrop() { return sgetrf_; }
};
template <> struct Prec<double> {
  static constexpr const char *name = "dgetrf_";
  static getrf_fn<double> cudrop() { return dgetrf_; }
};
template <> struct Prec<std::complex<float>> {
  static constexpr const char *name = "cgetrf_";
  static getrf_fn<std::complex<float>> cudrop() { return reinterpret_cast<getrf_fn<std::complex<float>>>(&cgetrf_); }
};
template <> struct Prec<std::complex<double>> {
  static constexpr const char *name = "zgetrf_";
  static getrf_fn<std::complex<double>> cudrop() {
    return reinterpret_cast<getrf_fn<std::complex<double>>>(&zgetrf_);
  }
};

template <class T>
T random_value(Rng &rng) {
  if constexpr (std::is_floating_point_v<T>) return T(rng.symmetric());
  else return T(typename T::value_type(rng.symmetric()), typename T::value_type(rng.symmetric()));
}

// ||P A x - L (U x)||_inf / (||A||_inf ||x||_inf max(m, n) eps) for x of random signs, with L, U
// and the row interchanges IPIV (LAPACK's order) from `lu`: small for an LU of `a`, large for an
// LU of another matrix.
template <class T>
double lu_residual(const std::vector<T> &a, const std::vector<T> &lu, const std::vector<int> &ipiv, int m, int n,
                   int lda) {
  using W = std::conditional_t<std::is_floating_point_v<T>, double, std::complex<double>>;
  using R = decltype(std::abs(T()));  // the real type of T
  const int mn = std::min(m, n);
  Rng rng(99);
  std::vector<W> x(n), y(m, W(0)), z(mn, W(0)), w(m, W(0));
  for (W &v : x) v = rng.symmetric() < 0 ? W(-1) : W(1);
  auto at = [&](const std::vector<T> &v, int i, int j) { return W(v[size_t(i) + size_t(j) * lda]); };
  double norm_a = 0;
  for (int i = 0; i < m; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) {
      y[i] += at(a, i, j) * x[j];
      row += std::abs(at(a, i, j));
    }
    norm_a = std::max(norm_a, row);
  }
  for (int k = 0; k < mn; ++k) std::swap(y[k], y[ipiv[k] - 1]);
  for (int k = 0; k < mn; ++k)
    for (int j = k; j < n; ++j) z[k] += at(lu, k, j) * x[j];
  for (int i = 0; i < m; ++i) {
    for (int k = 0; k < std::min(i, mn); ++k) w[i] += at(lu, i, k) * z[k];
    if (i < mn) w[i] += z[i];
  }
  double err = 0;
  for (int i = 0; i < m; ++i) err = std::max(err, std::abs(y[i] - w[i]));
  return err / (std::max(norm_a, 1e-300) * std::max(m, n) * double(std::numeric_limits<R>::epsilon()));
}

struct Case {
  int m, n, lda, zero_col;  // zero_col >= 0: that column is exactly zero (INFO = zero_col + 1 or earlier)
};

template <class T>
void run_case(const harness::ReferenceLapack &ref, const Case &c, uint64_t seed) {
  const int m = c.m, n = c.n, lda = c.lda, mn = std::min(m, n);
  Rng rng(seed);
  std::vector<T> a(size_t(lda) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < lda; ++i)
      a[size_t(i) + size_t(j) * lda] = i < m && j != c.zero_col ? random_value<T>(rng) : T(i < m ? 0 : -1e10 - i);
  std::vector<T> want = a, got = a;
  std::vector<int> want_ipiv(mn + 1, -7), got_ipiv(mn + 1, -7);
  int want_info = -99, got_info = -99;
  const auto reference = ref.symbol<getrf_fn<T>>(Prec<T>::name);
  reference(&m, &n, want.data(), &lda, want_ipiv.data(), &want_info);

  const harness::Counters before = harness::Counters::now();
  Prec<T>::cudrop()(&m, &n, got.data(), &lda, got_ipiv.data(), &got_info);
  const harness::Counters made = harness::Counters::now().since(before);
  ++calls;
  const bool fallback = made.fallbacks > 0, on_cpu = made.gpu == 0;
  fell_back += fallback ? 1 : 0;
  on_gpu += on_cpu ? 0 : 1;
  char what[96];
  std::snprintf(what, sizeof what, "%s m=%d n=%d lda=%d zero_col=%d", Prec<T>::name, m, n, lda, c.zero_col);
  if (verbose) std::printf("%s: %s, INFO %d\n", what, fallback ? "fell back" : on_cpu ? "CPU" : "GPU", got_info);
  CHECK(made.gpu + made.cpu >= 1, "%s: the call was not counted", what);
  CHECK(got_info == want_info, "%s: INFO %d, reference %d", what, got_info, want_info);
  CHECK(got_ipiv[mn] == -7, "%s: IPIV written past min(m,n)", what);
  // Padding rows (i >= m): never touched, bit for bit.
  long padding_moved = 0;
  for (int j = 0; j < n; ++j)
    for (int i = m; i < lda; ++i)
      padding_moved += std::memcmp(&got[size_t(i) + size_t(j) * lda], &a[size_t(i) + size_t(j) * lda], sizeof(T)) != 0;
  CHECK(padding_moved == 0, "%s: %ld padding elements changed", what, padding_moved);
  if (on_cpu) {
    long differ = 0, first = -1;
    for (size_t e = 0; e < got.size(); ++e)
      if (std::memcmp(&got[e], &want[e], sizeof(T)) != 0 && differ++ == 0) first = long(e);
    const bool same_ipiv = std::equal(got_ipiv.begin(), got_ipiv.begin() + mn, want_ipiv.begin());
    if (differ == 0 && same_ipiv) return;
    // cudrop's CPU LAPACK is another library than the reference (OpenBLAS on a machine whose
    // reference is netlib's): then the result must be an LU of the original matrix, which a
    // factorization of rows left overwritten would not be.
    const double ratio = lu_residual(a, got, got_ipiv, m, n, lda);
    CHECK(ratio < 30,
          "%s: on the CPU, %ld elements differ from the reference's (first at row %ld column %ld) and "
          "||P A x - L U x|| / (||A|| ||x|| max(m,n) eps) = %.3g: not an LU of the original matrix "
          "(the caller's rows not restored?)",
          what, differ, first % lda, first / lda, ratio);
    if (verbose) std::printf("%s: another CPU library's bits; residual ratio %.3g\n", what, ratio);
  } else {
    bool in_range = true;
    for (int k = 0; k < mn; ++k) in_range = in_range && got_ipiv[k] >= k + 1 && got_ipiv[k] <= m;
    CHECK(in_range, "%s: IPIV out of range", what);
  }
}

template <class T>
void run_precision(const harness::ReferenceLapack &ref) {
  const Case cases[] = {
      {640, 640, 640, -1},  {700, 700, 731, -1},  {900, 500, 905, -1}, {500, 900, 517, -1},
      {1030, 1030, 1030, -1}, {640, 640, 647, 300}, {900, 500, 900, 10}, {500, 900, 503, 450},
  };
  uint64_t seed = 1;
  for (const Case &c : cases) run_case<T>(ref, c, seed++);
}

}  // namespace

int main(int argc, char **argv) {
  harness::CommandLine line(
      "usage: getrf_writeback_test [--require-gpu] [--expect-gpu|--expect-cpu|--expect-fallback|--all-fall-back] [-v]");
  line.placement(&placement).flag("--all-fall-back", &all_fall_back).flag("-v", &verbose);
  if (!line.parse(argc, argv)) return 2;
  if (harness::skip_without_gpu("getrf_writeback_test", placement.require_gpu)) return harness::kSkipped;
  const harness::ReferenceLapack ref =
      harness::load_reference_lapack({"sgetrf_", "dgetrf_", "cgetrf_", "zgetrf_"}, true);
  if (!ref) {
    std::printf("getrf_writeback_test: SKIP: no reference LAPACK\n");
    return harness::kSkipped;
  }
  std::printf("getrf_writeback_test: cudrop %s, reference: %s\n", cudrop_version(), ref.how.c_str());
  run_precision<float>(ref);
  run_precision<double>(ref);
  run_precision<std::complex<float>>(ref);
  run_precision<std::complex<double>>(ref);
  std::printf("%ld calls: %ld on the GPU, %ld fell back\n", calls, on_gpu, fell_back);
  if (placement.expect_fallback) CHECK(fell_back > 0, "expected GPU attempts to fall back");
  if (all_fall_back) CHECK(fell_back == calls, "expected every call to fall back: %ld of %ld", fell_back, calls);
  if (placement.expect_gpu) CHECK(on_gpu == calls, "expected every call on the GPU: %ld of %ld", on_gpu, calls);
  if (placement.expect_cpu) CHECK(on_gpu == 0, "expected no call on the GPU: %ld were", on_gpu);
  std::printf("getrf_writeback_test: %d checks, %d failures\n", checks, failures);
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
