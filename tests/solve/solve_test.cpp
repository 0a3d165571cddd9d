// solve_test: sgetrs_/dgetrs_, spotrs_/dpotrs_, sgesv_/dgesv_, sposv_/dposv_ through the public
// symbols, against the reference LAPACK (tests/harness/reference.h, its own link namespace).
//
// What every call must satisfy (lda, ldb larger than n, arrays one element off their
// allocation's alignment):
//  * nothing outside what the routine may write changes, bit for bit: A's and B's padding rows,
//    a sentinel column after B's NRHS columns, IPIV(n+1), A for ?getrs/?potrs, the other
//    triangle of A for ?posv, B when INFO > 0;
//  * INFO equals the reference's: 0, or the column of a planted exact zero pivot (?gesv), or
//    the order of the first leading minor that is not positive definite (?posv);
//  * solution residual ||op(A) X - B||_1 / (||A||_1 ||X||_1 n eps) < 30 (LAPACK's xGET02 ratio);
//  * ?gesv's factor: ||P A x - L (U x)||_1 / (n ||A||_1 ||x||_1 eps) < 30 for a random x, IPIV
//    in range; where IPIV equals the reference's (n <= 1007), L and U within 64 n eps max|LU| of
//    the reference's (not for the badly scaled kind); how many leading pivots agree: -v;
//  * ?posv's factor: the UPLO triangle within 16 n eps max|A| of the reference's factor; after
//    a failure at minor k, the columns before k's 64-block as well (--strict-state: all of it,
//    the state the reference leaves, as the GPU path promises).
// Bad arguments go to this program's xerbla_ with the reference's parameter numbers.
//
// Options: --max-n N (default 300) --prec s|d|sd --seed N --strict-state --require-gpu
//          --expect-gpu|--expect-cpu|--expect-fallback -v
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
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
#include "tests/harness/lapack.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"
#include "tests/harness/xerbla_capture.h"

namespace {

constexpr double kThreshold = 30.0;

struct Options {
  long max_n = 300;
  std::string prec = "sd";
  uint64_t seed = 1;
  bool strict_state = false;
  bool reference_is_openblas = false;  // its partial Cholesky state differs from the reference's
  harness::Placement placement;
  bool verbose = false;
};
Options opt;
long calls = 0;

template <class T> using gesv_fn = void (*)(const int *, const int *, T *, const int *, int *, T *, const int *, int *);
template <class T>
using posv_fn = void (*)(const char *, const int *, const int *, T *, const int *, T *, const int *, int *, size_t);
template <class T> using potrf_fn = void (*)(const char *, const int *, T *, const int *, int *, size_t);

template <class T> struct Prec;
template <> struct Prec<float> {
  static constexpr const char *name = "S";
  static constexpr auto getrs = sgetrs_; static constexpr auto potrs = spotrs_;
  static constexpr auto gesv = sgesv_; static constexpr auto posv = sposv_;
};
template <> struct Prec<double> {
  static constexpr const char *name = "D";
  static constexpr auto getrs = dgetrs_; static constexpr auto potrs = dpotrs_;
  static constexpr auto gesv = dgesv_; static constexpr auto posv = dposv_;
};
template <class T> double eps() { return std::numeric_limits<T>::epsilon() / 2; }

struct Reference {
  harness::ReferenceLapack lib;
  template <class T> gesv_fn<T> gesv() const { return lib.symbol<gesv_fn<T>>(std::is_same_v<T, float> ? "sgesv_" : "dgesv_"); }
  template <class T> posv_fn<T> posv() const { return lib.symbol<posv_fn<T>>(std::is_same_v<T, float> ? "sposv_" : "dposv_"); }
  template <class T> potrf_fn<T> potrf() const { return lib.symbol<potrf_fn<T>>(std::is_same_v<T, float> ? "spotrf_" : "dpotrf_"); }
};
Reference ref;

// A column-major matrix inside a larger allocation: `ld` rows per column, `cols` columns plus
// one sentinel column, starting one element past the allocation (never 16-byte aligned).
template <class T>
struct Padded {
  int rows, cols, ld;
  std::vector<T> store;
  Padded(int r, int c, int l) : rows(r), cols(c), ld(l), store(size_t(l) * (c + 1) + 1) {
    for (size_t e = 0; e < store.size(); ++e) store[e] = T(-1e10) * T(1 + (e % 7) * 1e-3);
  }
  T *p() { return store.data() + 1; }
  const T *p() const { return store.data() + 1; }
  T &operator()(int i, int j) { return p()[size_t(i) + size_t(j) * ld]; }
  T operator()(int i, int j) const { return p()[size_t(i) + size_t(j) * ld]; }
  // Elements outside rows x cols that differ from `before`.
  long outside_changed(const Padded &before) const {
    long changed = 0;
    for (size_t e = 0; e < store.size(); ++e) {
      const long k = long(e) - 1;
      const bool inside = k >= 0 && k % ld < rows && k / ld < cols;
      if (!inside && std::memcmp(&store[e], &before.store[e], sizeof(T)) != 0) ++changed;
    }
    return changed;
  }
  bool same(const Padded &other) const { return std::memcmp(store.data(), other.store.data(), store.size() * sizeof(T)) == 0; }
};

double norm1(const std::vector<double> &m, int rows, int cols) {
  double best = 0;
  for (int j = 0; j < cols; ++j) {
    double s = 0;
    for (int i = 0; i < rows; ++i) s += std::fabs(m[size_t(i) + size_t(j) * rows]);
    best = std::max(best, s);
  }
  return best;
}

// ||op(A) X - B||_1 / (||A||_1 ||X||_1 n eps), A given whole (n x n, in double).
template <class T>
double solution_ratio(int n, int nrhs, bool trans, const std::vector<double> &a, const Padded<T> &b, const Padded<T> &x) {
  std::vector<double> r(size_t(n) * nrhs), xs(size_t(n) * nrhs);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) xs[size_t(i) + size_t(j) * n] = double(x(i, j));
  for (int j = 0; j < nrhs; ++j) {
    for (int i = 0; i < n; ++i) r[size_t(i) + size_t(j) * n] = -double(b(i, j));
    for (int k = 0; k < n; ++k) {
      const double xk = xs[size_t(k) + size_t(j) * n];
      for (int i = 0; i < n; ++i)
        r[size_t(i) + size_t(j) * n] += (trans ? a[size_t(k) + size_t(i) * n] : a[size_t(i) + size_t(k) * n]) * xk;
    }
  }
  const double an = norm1(a, n, n), xn = norm1(xs, n, nrhs);
  if (an == 0 || xn == 0) return norm1(r, n, nrhs) == 0 ? 0 : 1e30;
  return norm1(r, n, nrhs) / (an * xn * n * eps<T>());
}

enum class Kind { random, illcond, singular };
const char *kind_name(Kind k) { return k == Kind::random ? "random" : k == Kind::illcond ? "illcond" : "singular"; }

// A general n x n matrix (in double, exactly representable in T). illcond: rows and columns
// scaled over 3 (S) or 6 (D) decades; singular: column `zero` all zeros.
template <class T>
std::vector<double> general(int n, Kind kind, int zero, Rng &rng) {
  std::vector<double> a(size_t(n) * n);
  for (double &v : a) v = double(T(rng.symmetric()));
  if (kind == Kind::illcond) {
    const double decades = std::is_same_v<T, float> ? 1.5 : 3.0;
    std::vector<double> s(n);
    for (double &v : s) v = std::pow(10.0, decades * rng.symmetric());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) a[size_t(i) + size_t(j) * n] = double(T(a[size_t(i) + size_t(j) * n] * s[i] * s[j]));
  }
  if (kind == Kind::singular)
    for (int i = 0; i < n; ++i) a[size_t(i) + size_t(zero) * n] = 0;
  return a;
}

template <class T>
void load(Padded<T> &dst, const std::vector<double> &src) {
  for (int j = 0; j < dst.cols; ++j)
    for (int i = 0; i < dst.rows; ++i) dst(i, j) = T(src[size_t(i) + size_t(j) * dst.rows]);
}

#include "tests/solve/solve_cases.h"

}  // namespace

int main(int argc, char **argv) {
  harness::CommandLine line("usage: solve_test [--max-n N] [--prec s|d|sd] [--seed N] [--strict-state]\n"
                            "                  [--require-gpu] [--expect-gpu|--expect-cpu|--expect-fallback] [-v]");
  line.number("--max-n", &opt.max_n).text("--prec", &opt.prec).number("--seed", &opt.seed);
  line.flag("--strict-state", &opt.strict_state).placement(&opt.placement).flag("-v", &opt.verbose);
  if (!line.parse(argc, argv)) return 2;
  if (harness::skip_without_gpu("solve_test", opt.placement.require_gpu)) return harness::kSkipped;
  ref.lib = harness::load_reference_lapack({"sgesv_", "dgesv_", "sposv_", "dposv_", "spotrf_", "dpotrf_"}, true);
  if (!ref.lib) {
    std::printf("solve_test: SKIP: no reference LAPACK\n");
    return harness::kSkipped;
  }
  // OpenBLAS's own Cholesky (GPU machines often have no other LAPACK) stops at a minor that is
  // not positive definite with another partial state than the reference's.
  if (dlsym(ref.lib.handle, "openblas_get_config") != nullptr) {
    std::printf("solve_test: the reference is OpenBLAS: after a minor that is not positive definite, the factor "
                "is not compared (OpenBLAS leaves another partial state than the reference LAPACK)\n");
    opt.reference_is_openblas = true;
  }
  std::printf("solve_test: cudrop %s, reference: %s, max n %ld\n", cudrop_version(), ref.lib.how.c_str(), opt.max_n);
  const harness::Counters start = harness::Counters::now();
  const double t0 = harness::seconds_now();
  if (opt.prec.find('s') != std::string::npos) run_precision<float>();
  if (opt.prec.find('d') != std::string::npos) run_precision<double>();
  const harness::Counters made = harness::Counters::now().since(start);
  std::printf("counters: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld (%ld calls checked)\n", made.gpu, made.cpu,
              made.fallbacks, calls);
  if (opt.placement.expect_gpu)
    CHECK(made.gpu >= calls && made.cpu == 0 && made.fallbacks == 0,
          "expected every call on the GPU: gpu_calls=%ld cpu_calls=%ld fallbacks=%ld", made.gpu, made.cpu, made.fallbacks);
  if (opt.placement.expect_cpu) CHECK(made.gpu == 0, "expected CPU only: gpu_calls=%ld", made.gpu);
  if (opt.placement.expect_fallback) CHECK(made.fallbacks > 0, "expected GPU attempts to fall back");
  std::printf("solve_test: %d checks, %d failures, %.1f s\n%s\n", checks, failures, harness::seconds_now() - t0,
              failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
