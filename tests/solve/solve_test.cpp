// solve_test: ?getrs_, ?potrs_, ?gesv_, ?posv_ (s, d, c, z) through the public symbols, against
// the reference LAPACK (tests/harness/reference.h, its own link namespace).
//
// What every call must satisfy (lda, ldb larger than n, arrays one element off their
// allocation's alignment):
//  * nothing outside what the routine may write changes, bit for bit: A's and B's padding rows,
//    a sentinel column after B's NRHS columns, IPIV(n+1), A for ?getrs/?potrs, the other
//    triangle of A for ?posv, B when INFO > 0;
//  * INFO equals the reference's: 0, or the column of a planted exact zero pivot (?gesv), or
//    the order of the first leading minor that is not positive definite (?posv);
//  * solution residual ||op(A) X - B||_1 / (||A||_1 ||X||_1 n eps) < 30 (LAPACK's xGET02 ratio),
//    op(A) = A, A^T or A^H for ?getrs's TRANS 'N', 'T', 'C' (c, z: A Hermitian for ?po*);
//  * ?gesv's factor: ||P A x - L (U x)||_1 / (n ||A||_1 ||x||_1 eps) < 30 for a random x, IPIV
//    in range; where IPIV equals the reference's (n <= 1007), L and U within 64 n eps max|LU| of
//    the reference's (not for the badly scaled kind); how many leading pivots agree: -v;
//  * ?posv's factor: the UPLO triangle within 16 n eps max|A| of the reference's factor; after
//    a failure at minor k, the columns before k's 64-block as well (--strict-state: all of it,
//    the state the reference leaves, as the GPU path promises);
//  * --bitwise (the CPU path): every output (A, IPIV, B, INFO) bit for bit the reference
//    routine's on the same inputs; cudrop's CPU library underneath is then set to the
//    reference's own files (CUDROP_CPU_LAPACK, CUDROP_CPU_BLAS, unless already set).
// Bad arguments go to this program's xerbla_ with the reference's parameter numbers.
//
// Options: --max-n N (default 300; c and z stop at 1007) --prec any of s,d,c,z (default sdcz)
//          --seed N --strict-state --bitwise --require-gpu --expect-gpu|--expect-cpu|--expect-fallback -v
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#define CUDROP_COMPLEX_FLOAT std::complex<float>
#define CUDROP_COMPLEX_DOUBLE std::complex<double>
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
  std::string prec = "sdcz";
  uint64_t seed = 1;
  bool strict_state = false;
  bool bitwise = false;
  bool reference_is_openblas = false;  // its partial Cholesky state differs from the reference's
  harness::Placement placement;
  bool verbose = false;
};
Options opt;
long calls = 0;

// The element types: R the real one, W the one the checks compute in (double, or
// std::complex<double>).
template <class T> struct Scalar { using R = T; using W = double; };
template <class R_> struct Scalar<std::complex<R_>> { using R = R_; using W = std::complex<double>; };
template <class T> using Real = typename Scalar<T>::R;
template <class T> using Wide = typename Scalar<T>::W;
template <class T> constexpr bool is_complex = !std::is_same_v<T, Real<T>>;
template <class T> double eps() { return std::numeric_limits<Real<T>>::epsilon() / 2; }
// The conjugate, staying real for a real value (std::conj(double) is complex).
template <class V> V conj_of(V v) {
  if constexpr (std::is_arithmetic_v<V>) return v;
  else return std::conj(v);
}
// A random entry in [-1, 1) (both parts for complex), exactly representable in T.
template <class T> Wide<T> random_entry(Rng &rng) {
  if constexpr (is_complex<T>) {
    const Real<T> re = Real<T>(rng.symmetric()), im = Real<T>(rng.symmetric());
    return Wide<T>(re, im);
  } else {
    return double(T(rng.symmetric()));
  }
}

template <class T> struct Prec;
template <> struct Prec<float> {
  static constexpr const char *name = "S", *letter = "s";
  static constexpr auto getrs = sgetrs_; static constexpr auto potrs = spotrs_;
  static constexpr auto gesv = sgesv_; static constexpr auto posv = sposv_;
};
template <> struct Prec<double> {
  static constexpr const char *name = "D", *letter = "d";
  static constexpr auto getrs = dgetrs_; static constexpr auto potrs = dpotrs_;
  static constexpr auto gesv = dgesv_; static constexpr auto posv = dposv_;
};
template <> struct Prec<std::complex<float>> {
  static constexpr const char *name = "C", *letter = "c";
  static constexpr auto getrs = cgetrs_; static constexpr auto potrs = cpotrs_;
  static constexpr auto gesv = cgesv_; static constexpr auto posv = cposv_;
};
template <> struct Prec<std::complex<double>> {
  static constexpr const char *name = "Z", *letter = "z";
  static constexpr auto getrs = zgetrs_; static constexpr auto potrs = zpotrs_;
  static constexpr auto gesv = zgesv_; static constexpr auto posv = zposv_;
};

// The reference's routines, the same types as cudrop's (cudrop.h).
struct Reference {
  harness::ReferenceLapack lib;
  template <class T, class Fn> Fn get(Fn, const char *stem) const {
    return lib.symbol<Fn>((std::string(Prec<T>::letter) + stem).c_str());
  }
  template <class T> auto getrs() const { return get<T>(Prec<T>::getrs, "getrs_"); }
  template <class T> auto potrs() const { return get<T>(Prec<T>::potrs, "potrs_"); }
  template <class T> auto gesv() const { return get<T>(Prec<T>::gesv, "gesv_"); }
  template <class T> auto posv() const { return get<T>(Prec<T>::posv, "posv_"); }
  template <class T> auto potrf() const {
    using Fn = void (*)(const char *, const int *, T *, const int *, int *, size_t);
    return lib.symbol<Fn>((std::string(Prec<T>::letter) + "potrf_").c_str());
  }
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

template <class V>
double norm1(const std::vector<V> &m, int rows, int cols) {
  double best = 0;
  for (int j = 0; j < cols; ++j) {
    double s = 0;
    for (int i = 0; i < rows; ++i) s += std::abs(m[size_t(i) + size_t(j) * rows]);
    best = std::max(best, s);
  }
  return best;
}

// ||op(A) X - B||_1 / (||A||_1 ||X||_1 n eps), A given whole (n x n, in Wide<T>); trans 'N',
// 'T' or 'C'.
template <class T>
double solution_ratio(int n, int nrhs, char trans, const std::vector<Wide<T>> &a, const Padded<T> &b,
                      const Padded<T> &x) {
  using W = Wide<T>;
  std::vector<W> r(size_t(n) * nrhs), xs(size_t(n) * nrhs);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) xs[size_t(i) + size_t(j) * n] = W(x(i, j));
  auto op = [&](int i, int k) {
    if (trans == 'N') return a[size_t(i) + size_t(k) * n];
    const W t = a[size_t(k) + size_t(i) * n];
    return trans == 'C' ? conj_of(t) : t;
  };
  for (int j = 0; j < nrhs; ++j) {
    for (int i = 0; i < n; ++i) r[size_t(i) + size_t(j) * n] = -W(b(i, j));
    for (int k = 0; k < n; ++k) {
      const W xk = xs[size_t(k) + size_t(j) * n];
      for (int i = 0; i < n; ++i) r[size_t(i) + size_t(j) * n] += op(i, k) * xk;
    }
  }
  const double an = norm1(a, n, n), xn = norm1(xs, n, nrhs);
  if (an == 0 || xn == 0) return norm1(r, n, nrhs) == 0 ? 0 : 1e30;
  return norm1(r, n, nrhs) / (an * xn * n * eps<T>());
}

enum class Kind { random, illcond, singular };
const char *kind_name(Kind k) { return k == Kind::random ? "random" : k == Kind::illcond ? "illcond" : "singular"; }

// A general n x n matrix (in Wide<T>, exactly representable in T). illcond: rows and columns
// scaled over 3 (S, C) or 6 (D, Z) decades; singular: column `zero` all zeros.
template <class T>
std::vector<Wide<T>> general(int n, Kind kind, int zero, Rng &rng) {
  std::vector<Wide<T>> a(size_t(n) * n);
  for (Wide<T> &v : a) v = random_entry<T>(rng);
  if (kind == Kind::illcond) {
    const double decades = std::is_same_v<Real<T>, float> ? 1.5 : 3.0;
    std::vector<double> s(n);
    for (double &v : s) v = std::pow(10.0, decades * rng.symmetric());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        Wide<T> &v = a[size_t(i) + size_t(j) * n];
        v = Wide<T>(T(v * s[i] * s[j]));
      }
  }
  if (kind == Kind::singular)
    for (int i = 0; i < n; ++i) a[size_t(i) + size_t(zero) * n] = 0;
  return a;
}

template <class T>
void load(Padded<T> &dst, const std::vector<Wide<T>> &src) {
  for (int j = 0; j < dst.cols; ++j)
    for (int i = 0; i < dst.rows; ++i) dst(i, j) = T(src[size_t(i) + size_t(j) * dst.rows]);
}

#include "tests/solve/solve_cases.h"
#include "tests/solve/solve_args.h"

template <class T>
void run_precision(int which) {
  argument_checks<T>();
  Rng rng(opt.seed * 7919 + which);
  int index = 0;
  for (int n : {1, 7, 33, 100, 1007, 3000}) {
    if (n > opt.max_n || (is_complex<T> && n > 1007)) continue;
    for (int nrhs : {1, 3, 100}) {
      const int pad = 1 + index % 3;
      const bool big = n > 1007;
      gesv_case<T>(Kind::random, n, nrhs, pad, rng);
      if (!big || nrhs == 3) gesv_case<T>(Kind::illcond, n, nrhs, pad, rng);
      if (!big || nrhs == 1) gesv_case<T>(Kind::singular, n, nrhs, pad, rng);
      for (char trans : {'N', 'T', 'C'})
        if (!big || trans == "NTC"[index % 3]) getrs_case<T>(trans, index % 2 ? Kind::illcond : Kind::random, n, nrhs, pad, rng);
      for (char uplo : {'U', 'L'}) {
        potrs_case<T>(uplo, index % 2 == 1, n, nrhs, pad, rng);
        posv_case<T>(uplo, index % 2 == 0, -1, n, nrhs, pad, rng);
        if (!big || nrhs == 3) posv_case<T>(uplo == 'U' ? 'u' : 'l', false, n / 2, n, nrhs, pad, rng);
      }
      ++index;
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  harness::CommandLine line("usage: solve_test [--max-n N] [--prec s|d|c|z|sdcz] [--seed N] [--strict-state]\n"
                            "                  [--bitwise] [--require-gpu]\n"
                            "                  [--expect-gpu|--expect-cpu|--expect-fallback] [-v]");
  line.number("--max-n", &opt.max_n).text("--prec", &opt.prec).number("--seed", &opt.seed);
  line.flag("--strict-state", &opt.strict_state).flag("--bitwise", &opt.bitwise);
  line.placement(&opt.placement).flag("-v", &opt.verbose);
  if (!line.parse(argc, argv)) return 2;
  if (harness::skip_without_gpu("solve_test", opt.placement.require_gpu)) return harness::kSkipped;
  ref.lib = harness::load_reference_lapack({"sgesv_", "dgesv_", "cgesv_", "zgesv_", "sposv_", "dposv_", "cposv_",
                                            "zposv_", "spotrf_", "dpotrf_", "cpotrf_", "zpotrf_"},
                                           true);
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
  if (opt.bitwise) harness::use_reference_underneath(ref.lib, "dgesv_", "solve_test");
  std::printf("solve_test: cudrop %s, reference: %s, max n %ld\n", cudrop_version(), ref.lib.how.c_str(), opt.max_n);
  const harness::Counters start = harness::Counters::now();
  const double t0 = harness::seconds_now();
  if (opt.prec.find('s') != std::string::npos) run_precision<float>(0);
  if (opt.prec.find('d') != std::string::npos) run_precision<double>(1);
  if (opt.prec.find('c') != std::string::npos) run_precision<std::complex<float>>(2);
  if (opt.prec.find('z') != std::string::npos) run_precision<std::complex<double>>(3);
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
