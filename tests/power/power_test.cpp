// power_test: the power-method extension (cudrop_spower_, cudrop_dpower_, cudrop_scsrpower_,
// cudrop_dcsrpower_) through its public symbols.
//
// Every routed call is also run through this program's own implementation of the documented
// iteration (ref_power: plain loops, the same rule for lambda written independently), and must
// agree with it: bit for bit (lambda, x, iterations, INFO) where the arithmetic is exact
// (diagonal matrices with power-of-two entries, explicit zeros), else within the tolerances
// below. Since CUDROP_MODE is read once per process, this is how the GPU run (power_gpu) is
// compared with a CPU implementation.
//
// Cases (single and double precision):
//  * arguments: every illegal argument, alone and several at once (the first in the documented
//    order wins), reported through this program's xerbla_ with the routine's name and its true
//    length; nothing else written. N = 0 and MAXIT = 0 quick results.
//  * CSR structure: row pointers not starting at BASE or decreasing (INFO = -4), a column index
//    outside [BASE, BASE+N) (INFO = -3, also INT_MIN/INT_MAX), both (-4); xerbla_ not called,
//    nothing but INFO written.
//  * exact diagonal matrices (dense with LDA > N and NaN padding; CSR with explicit zeros
//    giving 1 to 40 entries per row, 0- and 1-based): bitwise equal to ref_power for every
//    MAXIT around the converging iteration and across several batches of the GPU loop.
//  * ties: diag(+-1, ...) oscillates (INFO = 1, the iterate of the right parity) and lambda is
//    the signed entry at the FIRST largest magnitude.
//  * breakdowns: zero matrix, a nilpotent shift (A x = 0 at iteration N), zero start vector
//    (INFO = 2, lambda = 0, x kept); NaN and +-Inf in A (INFO = 3).
//  * symmetric A = Q D Q^T with a spectral gap (|lambda_2/lambda_1| <= 1/2), dominant eigenvalue
//    +10 and -10, n = 1, 7, 33, 200, 1007, LDA = N and N + 5: lambda and x against the
//    construction and against LAPACK ssyev_/dsyev_ (when linked, n <= 200).
//  * non-symmetric with known spectrum: dense S D S^-1 (S = I + u v^T), CSR upper triangular.
//  * PageRank-like column-stochastic CSR (lambda = 1), 0- and 1-based bitwise identical.
//  * irregular CSR rows (empty rows and tiles, rows longer than the GPU kernel's 2048-entry
//    window, every lanes-per-row kernel): bit for bit when exact, else within tolerance.
//  * start vector (INIT = 0) already converged: at most 2 iterations.
//  * --big: dense n = 4100 (S, D) and 8195 (S); CSR with ~1M rows (PageRank, 16 entries per
//    row on average), 2^20 rows with ~2 per row, 200000 rows with 40 per row.
//
// Options: --expect-cpu | --expect-gpu | --expect-fallback (what cudrop_counters must show for
// every routed call), --require-gpu (exit 77 when cudrop_gpu_available() is 0), --big,
// --prec s|d|sd, -v.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/clock.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/rng.h"
#include "tests/harness/xerbla_capture.h"

#ifdef CUDROP_TEST_HAVE_LAPACK
extern "C" {
void ssyev_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w,
            float *work, const int *lwork, int *info, size_t, size_t);
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w,
            double *work, const int *lwork, int *info, size_t, size_t);
}
#endif

namespace {

struct Options {
  harness::Placement placement;
  bool big = false, verbose = false;
  std::string prec = "sd";
};
Options opt;
long routed_calls = 0;
using harness::seconds_now;

template <class T> struct Api {
  static constexpr bool single = std::is_same_v<T, float>;
  static constexpr const char *prec = single ? "S" : "D";
  static constexpr const char *dense_name = single ? "CUDROP_SPOWER" : "CUDROP_DPOWER";
  static constexpr const char *csr_name = single ? "CUDROP_SCSRPOWER" : "CUDROP_DCSRPOWER";
  static constexpr double tol = single ? 1e-4 : 1e-9;  // convergence tolerance of the general cases
  static void dense(const int *n, const T *a, const int *lda, T *l, T *x, const int *init, const T *tol, int *maxit,
                    int *info) {
    if constexpr (single) cudrop_spower_(n, a, lda, l, x, init, tol, maxit, info);
    else cudrop_dpower_(n, a, lda, l, x, init, tol, maxit, info);
  }
  static void csr(const int *n, const T *v, const int *c, const int *r, const int *b, T *l, T *x, const int *init,
                  const T *tol, int *maxit, int *info) {
    if constexpr (single) cudrop_scsrpower_(n, v, c, r, b, l, x, init, tol, maxit, info);
    else cudrop_dcsrpower_(n, v, c, r, b, l, x, init, tol, maxit, info);
  }
};

// ---- counters: where each routed call ran ----
struct Counted {
  const harness::Counters start = harness::Counters::now();
  void deltas(long *dg, long *dc, long *df) const {
    const harness::Counters made = harness::Counters::now().since(start);
    *dg = made.gpu;
    *dc = made.cpu;
    *df = made.fallbacks;
  }
  void routed(const char *what) const {
    long dg, dc, df;
    deltas(&dg, &dc, &df);
    ++routed_calls;
    if (opt.placement.expect_gpu) CHECK(dg == 1 && dc == 0 && df == 0, "%s: expected one GPU call, got gpu %ld cpu %ld fallbacks %ld", what, dg, dc, df);
    if (opt.placement.expect_cpu) CHECK(dg == 0 && dc == 1 && df == 0, "%s: expected one CPU call, got gpu %ld cpu %ld fallbacks %ld", what, dg, dc, df);
    if (opt.placement.expect_fallback) CHECK(dg == 0 && dc == 1 && df == 1, "%s: expected a fallback, got gpu %ld cpu %ld fallbacks %ld", what, dg, dc, df);
  }
  void not_routed(const char *what) const {
    long dg, dc, df;
    deltas(&dg, &dc, &df);
    CHECK(dg == 0 && dc == 0 && df == 0, "%s: expected no routed call, got gpu %ld cpu %ld fallbacks %ld", what, dg, dc, df);
  }
};

// ---- matrices ----
template <class T>
struct Dense {
  int n = 0, lda = 1;
  std::vector<T> a;  // lda * n, padding rows NaN
  T &at(int i, int j) { return a[size_t(i) + size_t(j) * lda]; }
  T at(int i, int j) const { return a[size_t(i) + size_t(j) * lda]; }
};

template <class T>
Dense<T> dense_zero(int n, int lda) {
  Dense<T> d;
  d.n = n;
  d.lda = lda;
  d.a.assign(size_t(lda) * std::max(n, 1), std::numeric_limits<T>::quiet_NaN());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) d.at(i, j) = T(0);
  return d;
}

template <class T>
struct Csr {
  int n = 0, base = 0;
  std::vector<T> val;
  std::vector<int> col, row;  // row: n + 1
  long long nnz() const { return (long long)row[n] - base; }
  Csr rebased(int b) const {
    Csr c = *this;
    for (int &x : c.col) x += b - base;
    for (int &x : c.row) x += b - base;
    c.base = b;
    return c;
  }
};

// Rows of (column, value) pairs -> CSR (0-based).
template <class T>
Csr<T> csr_from_rows(int n, const std::vector<std::vector<std::pair<int, double>>> &rows) {
  Csr<T> c;
  c.n = n;
  c.row.assign(size_t(n) + 1, 0);
  for (int i = 0; i < n; ++i) {
    for (const auto &e : rows[i]) {
      c.col.push_back(e.first);
      c.val.push_back(T(e.second));
    }
    c.row[i + 1] = int(c.col.size());
  }
  return c;
}

template <class T>
Dense<T> dense_from_csr(const Csr<T> &c, int lda) {
  Dense<T> d = dense_zero<T>(c.n, lda);
  for (int i = 0; i < c.n; ++i)
    for (int k = c.row[i] - c.base; k < c.row[i + 1] - c.base; ++k) d.at(i, c.col[k] - c.base) += c.val[k];
  return d;
}

// ---- results and the reference iteration ----
template <class T>
struct Outcome {
  T lambda = T(0);
  std::vector<T> x;
  int iterations = 0, info = 0;
};

// The documented iteration, written independently of the library: lambda = the signed entry at
// the first index of the largest magnitude (a NaN counts as larger than everything).
template <class T>
Outcome<T> ref_power(int n, const std::function<void(const T *, T *)> &matvec, const std::vector<T> *x0,
                     T tol, int maxit) {
  Outcome<T> o;
  o.x = x0 ? *x0 : std::vector<T>(size_t(n), T(1));
  std::vector<T> y(static_cast<size_t>(n));
  auto larger = [](T a, T b) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
    return std::fabs(a) > std::fabs(b);
  };
  for (int k = 1; k <= maxit; ++k) {
    matvec(o.x.data(), y.data());
    int p = 0;
    for (int i = 1; i < n; ++i)
      if (larger(y[i], y[p])) p = i;
    const T lam = y[p];
    o.iterations = k;
    if (lam == T(0)) {
      o.lambda = T(0);
      o.info = 2;
      return o;
    }
    if (!std::isfinite(lam)) {
      o.lambda = lam;
      o.info = 3;
      return o;
    }
    bool moved = false;
    for (int i = 0; i < n; ++i) {
      const T s = y[i] / lam;
      if (!(std::fabs(s - o.x[i]) < tol)) moved = true;
      o.x[i] = s;
    }
    o.lambda = lam;
    if (!moved) {
      o.info = 0;
      return o;
    }
  }
  o.iterations = maxit;
  o.info = 1;
  o.lambda = maxit == 0 ? T(0) : o.lambda;
  return o;
}

template <class T>
std::function<void(const T *, T *)> dense_matvec(const Dense<T> &d) {
  return [&d](const T *x, T *y) {
    for (int i = 0; i < d.n; ++i) y[i] = T(0);
    for (int j = 0; j < d.n; ++j)
      for (int i = 0; i < d.n; ++i) y[i] += d.at(i, j) * x[j];
  };
}

template <class T>
std::function<void(const T *, T *)> csr_matvec(const Csr<T> &c) {
  return [&c](const T *x, T *y) {
    for (int i = 0; i < c.n; ++i) {
      T s = T(0);
      for (int k = c.row[i] - c.base; k < c.row[i + 1] - c.base; ++k) s += c.val[k] * x[c.col[k] - c.base];
      y[i] = s;
    }
  };
}

// One routed call, call(o, init), counted and timed, on an outcome set up as every call's:
// X = *x0 (INIT = 0) or, without x0, -7 that INIT = 1 must overwrite; LAMBDA = -99; INFO = -999.
// Returns the milliseconds it took.
template <class T, class Call>
double call_routed(Outcome<T> &o, int n, const std::vector<T> *x0, int maxit, const char *what, Call &&call) {
  o.x = x0 ? *x0 : std::vector<T>(size_t(n), T(-7));
  const int init = x0 ? 0 : 1;
  o.lambda = T(-99);
  o.iterations = maxit;
  o.info = -999;
  Counted counted;
  const double t0 = seconds_now();
  call(init);
  const double t = seconds_now() - t0;
  counted.routed(what);
  return t * 1e3;
}

template <class T>
Outcome<T> call_dense(const Dense<T> &d, const std::vector<T> *x0, T tol, int maxit, const char *what) {
  Outcome<T> o;
  const double ms = call_routed(o, d.n, x0, maxit, what, [&](const int &init) {
    Api<T>::dense(&d.n, d.a.data(), &d.lda, &o.lambda, o.x.data(), &init, &tol, &o.iterations, &o.info);
  });
  if (opt.verbose)
    std::printf("  %s: n=%d lda=%d -> info %d, %d iterations, lambda %.9g (%.3f ms)\n", what, d.n, d.lda,
                o.info, o.iterations, double(o.lambda), ms);
  return o;
}

template <class T>
Outcome<T> call_csr(const Csr<T> &c, const std::vector<T> *x0, T tol, int maxit, const char *what) {
  Outcome<T> o;
  const double ms = call_routed(o, c.n, x0, maxit, what, [&](const int &init) {
    Api<T>::csr(&c.n, c.val.data(), c.col.data(), c.row.data(), &c.base, &o.lambda, o.x.data(), &init, &tol,
                &o.iterations, &o.info);
  });
  if (opt.verbose)
    std::printf("  %s: n=%d nnz=%lld base=%d -> info %d, %d iterations, lambda %.9g (%.3f ms)\n", what, c.n,
                c.nnz(), c.base, o.info, o.iterations, double(o.lambda), ms);
  return o;
}

template <class T>
bool same_bits(T a, T b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Bit for bit: what exact arithmetic must give on every path.
template <class T>
void check_identical(const char *what, const Outcome<T> &got, const Outcome<T> &ref) {
  CHECK(got.info == ref.info, "%s: INFO %d, expected %d", what, got.info, ref.info);
  CHECK(got.iterations == ref.iterations, "%s: %d iterations, expected %d", what, got.iterations, ref.iterations);
  CHECK(same_bits(got.lambda, ref.lambda), "%s: lambda %.17g, expected %.17g", what, double(got.lambda), double(ref.lambda));
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < ref.x.size(); ++i)
    if (!same_bits(got.x[i], ref.x[i]) && bad++ == 0) first = i;
  CHECK(bad == 0, "%s: %zu entries of x differ from the reference, first x[%zu] = %.17g, expected %.17g", what, bad,
        first, bad ? double(got.x[first]) : 0.0, bad ? double(ref.x[first]) : 0.0);
}

// Within rounding: two correct implementations add in different orders.
template <class T>
void check_agree(const char *what, const Outcome<T> &got, const Outcome<T> &ref, double tol) {
  CHECK(got.info == ref.info, "%s: INFO %d, the reference iteration gives %d", what, got.info, ref.info);
  const int slack = std::max(2, ref.iterations / 10);
  CHECK(std::abs(got.iterations - ref.iterations) <= slack, "%s: %d iterations, the reference iteration %d", what,
        got.iterations, ref.iterations);
  const double dl = std::fabs(double(got.lambda) - double(ref.lambda));
  CHECK(dl <= 20 * tol * std::max(1.0, std::fabs(double(ref.lambda))), "%s: lambda %.10g, reference iteration %.10g",
        what, double(got.lambda), double(ref.lambda));
  double dx = 0;
  for (size_t i = 0; i < ref.x.size(); ++i) dx = std::max(dx, std::fabs(double(got.x[i]) - double(ref.x[i])));
  CHECK(dx <= 20 * tol, "%s: max |x - x_ref| = %.3g (tolerance %.3g)", what, dx, 20 * tol);
}

// x is the last iterate: finite, largest-magnitude entry exactly 1 (INFO 0 or 1).
template <class T>
int check_normalized(const char *what, const Outcome<T> &o) {
  int p = 0;
  bool finite = true;
  for (size_t i = 0; i < o.x.size(); ++i) {
    finite = finite && std::isfinite(o.x[i]);
    if (std::fabs(o.x[i]) > std::fabs(o.x[size_t(p)])) p = int(i);
  }
  CHECK(finite, "%s: x has non-finite entries", what);
  CHECK(!o.x.empty() && o.x[size_t(p)] == T(1), "%s: largest |x| entry is %.9g at %d, not 1", what,
        o.x.empty() ? 0.0 : double(o.x[size_t(p)]), p);
  return p;
}

// Against a known eigenpair (lambda, v in double): x = v / v_p at x's largest entry p.
template <class T>
void check_eigenpair(const char *what, const Outcome<T> &o, double lambda, const std::vector<double> &v, double tol) {
  CHECK(o.info == 0, "%s: INFO %d (not converged?)", what, o.info);
  const int p = check_normalized(what, o);
  double vmax = 0;
  for (double e : v) vmax = std::max(vmax, std::fabs(e));
  const double vp = v[size_t(p)];
  CHECK(std::fabs(vp) >= 0.5 * vmax, "%s: x's largest entry %d is not one of v's largest", what, p);
  if (std::fabs(vp) < 0.5 * vmax) return;
  double dx = 0;
  for (size_t i = 0; i < v.size(); ++i) dx = std::max(dx, std::fabs(double(o.x[i]) - v[i] / vp));
  CHECK(dx <= 20 * tol, "%s: max |x - v| = %.3g (tolerance %.3g)", what, dx, 20 * tol);
  const double dl = std::fabs(double(o.lambda) - lambda);
  CHECK(dl <= 20 * tol * std::fabs(lambda), "%s: lambda %.10g, expected %.10g", what, double(o.lambda), lambda);
}

// ---- arguments ----
// After an illegal call: one report to xerbla_ naming the routine and the parameter, INFO =
// -parameter, and LAMBDA, MAXIT and X (set to 123, the given MAXIT, 5) not written.
template <class T>
void check_refused(const char *what, const char *routine, int parameter, int info, T lambda, bool maxit_kept,
                   const std::vector<T> &x) {
  const harness::XerblaRecord &r = harness::xerbla;
  CHECK(r.calls == 1 && r.info == parameter, "%s: xerbla calls %d info %d, expected 1 call, %d", what, r.calls,
        r.info, parameter);
  CHECK(std::strcmp(r.name, routine) == 0 && r.length == std::strlen(routine), "%s: xerbla name '%s' len %zu", what,
        r.name, r.length);
  CHECK(info == -parameter, "%s: INFO %d, expected %d", what, info, -parameter);
  CHECK(lambda == T(123) && maxit_kept && std::all_of(x.begin(), x.end(), [](T v) { return v == T(5); }),
        "%s: an output was written", what);
}

template <class T>
void test_arguments() {
  const char *P = Api<T>::prec;
  const int n7 = 7;
  Dense<T> d = dense_zero<T>(n7, n7);
  for (int i = 0; i < n7; ++i) d.at(i, i) = T(i + 1);
  Csr<T> c;
  c.n = n7;
  c.row.assign(n7 + 1, 0);
  for (int i = 0; i < n7; ++i) {
    c.col.push_back(i);
    c.val.push_back(T(i + 1));
    c.row[i + 1] = i + 1;
  }
  const T good_tol = T(1e-3), nan = std::numeric_limits<T>::quiet_NaN();

  struct DenseCase { int n, lda, init; T tol; int maxit, expect; };
  const DenseCase dense_cases[] = {
      {-1, 7, 1, good_tol, 10, 1}, {-1, 0, 2, T(-1), -1, 1},  // N first, whatever follows
      {7, 6, 1, good_tol, 10, 3},  {7, 0, 2, T(-1), -1, 3},   {0, 0, 1, good_tol, 10, 3},
      {7, 7, 2, good_tol, 10, 6},  {7, 7, -1, T(-1), -1, 6},
      {7, 7, 1, T(-1), 10, 7},     {7, 7, 1, nan, 10, 7},     {7, 7, 0, T(-0.5), -3, 7},
      {7, 7, 1, good_tol, -1, 8},
  };
  for (const DenseCase &k : dense_cases) {
    T lambda = T(123);
    std::vector<T> x(7, T(5));
    int maxit = k.maxit, info = 777;
    harness::xerbla.clear();
    Counted counted;
    Api<T>::dense(&k.n, d.a.data(), &k.lda, &lambda, x.data(), &k.init, &k.tol, &maxit, &info);
    char what[96];
    std::snprintf(what, sizeof what, "%s dense args n=%d lda=%d init=%d tol=%g maxit=%d", P, k.n, k.lda, k.init,
                  double(k.tol), k.maxit);
    counted.not_routed(what);
    check_refused(what, Api<T>::dense_name, k.expect, info, lambda, maxit == k.maxit, x);
  }

  struct CsrCase { int n, base, init; T tol; int maxit, expect; };
  const CsrCase csr_cases[] = {
      {-1, 0, 1, good_tol, 10, 1}, {-1, 2, 2, T(-1), -1, 1},
      {7, 2, 1, good_tol, 10, 5},  {7, -1, 2, T(-1), -1, 5},
      {7, 0, 2, good_tol, 10, 8},  {7, 1, 3, T(-1), -1, 8},
      {7, 0, 1, T(-1), 10, 9},     {7, 1, 1, nan, 10, 9},    {7, 0, 0, T(-2), -3, 9},
      {7, 0, 1, good_tol, -1, 10}, {0, 3, 1, good_tol, 10, 5},
  };
  for (const CsrCase &k : csr_cases) {
    const Csr<T> cc = k.base == 1 ? c.rebased(1) : c;
    T lambda = T(123);
    std::vector<T> x(7, T(5));
    int maxit = k.maxit, info = 777;
    harness::xerbla.clear();
    Counted counted;
    Api<T>::csr(&k.n, cc.val.data(), cc.col.data(), cc.row.data(), &k.base, &lambda, x.data(), &k.init, &k.tol,
                &maxit, &info);
    char what[112];
    std::snprintf(what, sizeof what, "%s csr args n=%d base=%d init=%d tol=%g maxit=%d", P, k.n, k.base, k.init,
                  double(k.tol), k.maxit);
    counted.not_routed(what);
    check_refused(what, Api<T>::csr_name, k.expect, info, lambda, maxit == k.maxit, x);
  }

  // N = 0: INFO = 0, LAMBDA = 0, MAXIT = 0, nothing read (null arrays), no xerbla.
  {
    const int zero = 0, one = 1, init = 1, base = 1;
    T lambda = T(123);
    int maxit = 50, info = 777;
    harness::xerbla.clear();
    Counted counted;
    Api<T>::dense(&zero, nullptr, &one, &lambda, nullptr, &init, &good_tol, &maxit, &info);
    counted.not_routed("N=0 dense");
    CHECK(harness::xerbla.calls == 0 && info == 0 && lambda == T(0) && maxit == 0, "%s N=0 dense: info %d lambda %g maxit %d xerbla %d",
          P, info, double(lambda), maxit, harness::xerbla.calls);
    lambda = T(123);
    maxit = 50;
    info = 777;
    const int row1[1] = {1};
    Api<T>::csr(&zero, nullptr, nullptr, row1, &base, &lambda, nullptr, &init, &good_tol, &maxit, &info);
    counted.not_routed("N=0 csr");
    CHECK(harness::xerbla.calls == 0 && info == 0 && lambda == T(0) && maxit == 0, "%s N=0 csr: info %d lambda %g maxit %d xerbla %d",
          P, info, double(lambda), maxit, harness::xerbla.calls);
  }

  // MAXIT = 0: no iteration; INFO = 1, LAMBDA = 0, x = the start vector.
  {
    const Outcome<T> a = call_dense<T>(d, nullptr, good_tol, 0, "MAXIT=0 dense ones");
    CHECK(a.info == 1 && a.iterations == 0 && a.lambda == T(0) &&
              std::all_of(a.x.begin(), a.x.end(), [](T v) { return v == T(1); }),
          "%s MAXIT=0 dense: info %d iterations %d lambda %g", P, a.info, a.iterations, double(a.lambda));
    std::vector<T> x0(7);
    for (int i = 0; i < 7; ++i) x0[i] = T(i) - T(2.5);
    const Outcome<T> b = call_csr<T>(c.rebased(1), &x0, good_tol, 0, "MAXIT=0 csr given x");
    CHECK(b.info == 1 && b.iterations == 0 && b.lambda == T(0) && b.x == x0,
          "%s MAXIT=0 csr: info %d iterations %d lambda %g", P, b.info, b.iterations, double(b.lambda));
  }
}

// ---- CSR structure ----
template <class T>
void test_csr_structure() {
  const char *P = Api<T>::prec;
  const int n = 33;
  // A valid tridiagonal matrix; each case breaks one thing. Arrays are exactly nnz / n+1 long.
  std::vector<std::vector<std::pair<int, double>>> rows(n);
  for (int i = 0; i < n; ++i) {
    if (i > 0) rows[i].push_back({i - 1, -1.0});
    rows[i].push_back({i, i == 5 ? 20.0 : 4.0});  // a dominant eigenvalue near 20
    if (i + 1 < n) rows[i].push_back({i + 1, -1.0});
  }
  const Csr<T> good = csr_from_rows<T>(n, rows);
  for (int base : {0, 1}) {
    const Csr<T> g = good.rebased(base);
    struct Case { const char *name; std::function<void(Csr<T> &)> spoil; int expect; };
    const Case cases[] = {
        {"rowptr(1) != base", [](Csr<T> &c) { c.row[0] += 1; }, -4},
        {"rowptr(1) below base", [](Csr<T> &c) { c.row[0] -= 1; }, -4},
        {"rowptr decreasing", [](Csr<T> &c) { std::swap(c.row[10], c.row[11]); }, -4},
        {"rowptr decreasing at the end", [](Csr<T> &c) { c.row[n - 1] = c.row[n] + 1; }, -4},
        {"colind below base", [](Csr<T> &c) { c.col[5] = c.base - 1; }, -3},
        {"colind = base + n", [](Csr<T> &c) { c.col[17] = c.base + c.n; }, -3},
        {"colind INT_MIN", [](Csr<T> &c) { c.col[0] = INT_MIN; }, -3},
        {"colind INT_MAX (last entry)", [](Csr<T> &c) { c.col.back() = INT_MAX; }, -3},
        {"both (rowptr wins)", [](Csr<T> &c) { c.col[3] = -5; std::swap(c.row[20], c.row[21]); }, -4},
    };
    for (const Case &k : cases) {
      Csr<T> c = g;
      k.spoil(c);
      // Exactly as long as the caller's arrays claim (rowptr's own last entry may lie).
      c.val.resize(size_t(g.nnz()));
      c.col.resize(size_t(g.nnz()));
      T lambda = T(123);
      std::vector<T> x(n, T(5));
      int maxit = 100, info = 777;
      const int init = 1;
      const T tol = T(1e-3);
      harness::xerbla.clear();
      Counted counted;
      Api<T>::csr(&c.n, c.val.data(), c.col.data(), c.row.data(), &c.base, &lambda, x.data(), &init, &tol, &maxit,
                  &info);
      char what[128];
      std::snprintf(what, sizeof what, "%s csr structure base %d: %s", P, base, k.name);
      if (k.expect == -4) counted.not_routed(what);  // row pointers: checked before routing
      else counted.routed(what);                     // column indices: on the path that runs
      CHECK(info == k.expect, "%s: INFO %d, expected %d", what, info, k.expect);
      CHECK(harness::xerbla.calls == 0, "%s: xerbla_ was called", what);
      CHECK(lambda == T(123) && maxit == 100 && std::all_of(x.begin(), x.end(), [](T v) { return v == T(5); }),
            "%s: an output other than INFO was written", what);
    }
    // And the valid one still works.
    const Outcome<T> o = call_csr<T>(g, nullptr, T(Api<T>::tol), 1000, "structure: valid");
    CHECK(o.info == 0, "%s csr structure base %d valid matrix: INFO %d", P, base, o.info);
  }
}

// ---- exact diagonal matrices: bit for bit ----
template <class T>
void test_exact_diagonal() {
  const char *P = Api<T>::prec;
  const T short_tol = T(1e-3);
  const T long_tol = std::is_same_v<T, float> ? T(1e-25) : T(1e-60);
  for (int n : {1, 7, 33, 1007}) {
    Rng rng(uint64_t(n) * 7 + 1);
    // d_q = L; the others L * (+-2^-m), m = 1..3, some zero; L = +-4.
    const double L = (n % 2) ? 4.0 : -4.0;
    const int q = n / 3;
    std::vector<double> diag(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int m = 1 + rng.below(3);
      diag[i] = rng.below(9) == 0 ? 0.0 : L * std::ldexp(rng.below(2) ? 1.0 : -1.0, -m);
    }
    diag[size_t(q)] = L;
    Dense<T> d = dense_zero<T>(n, n + 3);
    for (int i = 0; i < n; ++i) d.at(i, i) = T(diag[i]);
    const auto mv = dense_matvec(d);
    // CSR variants: only the diagonal (1 per row), and explicit zeros around it (k per row).
    std::vector<Csr<T>> csrs;
    for (int extra : {0, 1, 3, 5, 11, 39}) {
      std::vector<std::vector<std::pair<int, double>>> rows(n);
      for (int i = 0; i < n; ++i) {
        std::vector<int> cols{i};
        for (int e = 0; e < extra && n > 1; ++e) cols.push_back(rng.below(n));
        std::sort(cols.begin(), cols.end());
        for (int cidx : cols) rows[i].push_back({cidx, 0.0});  // explicit zeros ...
        for (auto &e : rows[i])                                  // ... and the diagonal once
          if (e.first == i) { e.second = diag[i]; break; }
      }
      csrs.push_back(csr_from_rows<T>(n, rows));
    }
    for (T tol : {short_tol, long_tol}) {
      const Outcome<T> conv = ref_power<T>(n, mv, nullptr, tol, 100000);
      const int K = conv.iterations;
      CHECK(conv.info == 0, "%s exact diag n=%d: the reference did not converge", P, n);
      std::vector<int> limits;
      if (tol == short_tol) {
        for (int m = 1; m <= K + 2; ++m) limits.push_back(m);
      } else {
        limits = {31, 32, 33, 63, 64, 65, K - 1, K, K + 1, 100000};
      }
      for (int maxit : limits) {
        if (maxit < 1) continue;
        const Outcome<T> ref = ref_power<T>(n, mv, nullptr, tol, maxit);
        char what[128];
        std::snprintf(what, sizeof what, "%s exact diag dense n=%d tol=%g maxit=%d (K=%d)", P, n, double(tol), maxit, K);
        check_identical(what, call_dense<T>(d, nullptr, tol, maxit, what), ref);
        // Every CSR variant on a few limits (each has its own lanes-per-row kernel).
        if (maxit == 1 || maxit == K - 1 || maxit == K || maxit >= K + 1) {
          for (const Csr<T> &c : csrs) {
            for (int base : {0, 1}) {
              std::snprintf(what, sizeof what, "%s exact diag csr n=%d nnz=%lld base=%d tol=%g maxit=%d (K=%d)", P, n,
                            c.nnz(), base, double(tol), maxit, K);
              check_identical(what, call_csr<T>(c.rebased(base), nullptr, tol, maxit, what), ref);
            }
          }
        }
      }
    }
  }
}

// ---- ties and non-convergence ----
template <class T>
void test_ties() {
  const char *P = Api<T>::prec;
  for (double first : {1.0, -1.0}) {
    for (int n : {7, 33, 1007}) {
      // diag(first, -first, 1/2, -1, ...): entries of magnitude 1 with both signs; x oscillates.
      Dense<T> d = dense_zero<T>(n, n);
      std::vector<std::vector<std::pair<int, double>>> rows(n);
      for (int i = 0; i < n; ++i) {
        const double v = i == 0 ? first : i == 1 ? -first : (i % 3 == 2) ? 0.5 : (i % 2 ? 1.0 : -1.0);
        d.at(i, i) = T(v);
        rows[i].push_back({i, v});
      }
      const Csr<T> c = csr_from_rows<T>(n, rows);
      const auto mv = dense_matvec(d);
      for (int maxit : {1, 2, 5, 6, 33, 34}) {
        const Outcome<T> ref = ref_power<T>(n, mv, nullptr, T(1e-3), maxit);
        char what[128];
        std::snprintf(what, sizeof what, "%s ties first=%+g n=%d maxit=%d", P, first, n, maxit);
        CHECK(ref.info == 1 && ref.lambda == T(first), "%s: the reference gives info %d lambda %g", what, ref.info,
              double(ref.lambda));
        const Outcome<T> a = call_dense<T>(d, nullptr, T(1e-3), maxit, what);
        check_identical(what, a, ref);
        CHECK(a.lambda == T(first), "%s: lambda %g, the first largest entry is %g", what, double(a.lambda), first);
        // Parity: after an even number of iterations every +-1 entry is back to +1.
        CHECK(a.x.size() > 1 && a.x[1] == T(maxit % 2 ? -1 : 1), "%s: x[1] = %g", what, a.x.size() > 1 ? double(a.x[1]) : 0.0);
        check_identical(what, call_csr<T>(c.rebased(maxit % 2), nullptr, T(1e-3), maxit, what), ref);
      }
    }
  }
}

// ---- breakdowns ----
template <class T>
void test_breakdowns() {
  const char *P = Api<T>::prec;
  const T tol = T(1e-3);
  // Zero matrix.
  for (int n : {1, 33}) {
    Dense<T> d = dense_zero<T>(n, n + 1);
    const Outcome<T> o = call_dense<T>(d, nullptr, tol, 10, "zero matrix");
    CHECK(o.info == 2 && o.iterations == 1 && same_bits(o.lambda, T(0)) &&
              std::all_of(o.x.begin(), o.x.end(), [](T v) { return v == T(1); }),
          "%s zero matrix n=%d: info %d iterations %d lambda %g", P, n, o.info, o.iterations, double(o.lambda));
    Csr<T> c;
    c.n = n;
    c.row.assign(size_t(n) + 1, 0);  // no entries at all
    const Outcome<T> e = call_csr<T>(c, nullptr, tol, 10, "empty csr");
    CHECK(e.info == 2 && e.iterations == 1 && same_bits(e.lambda, T(0)),
          "%s empty csr n=%d: info %d iterations %d lambda %g", P, n, e.info, e.iterations, double(e.lambda));
  }
  // Nilpotent shift: (A x)_i = x_{i+1}: A x = 0 at iteration n, x = e_0 then.
  for (int n : {1, 7, 33}) {
    Dense<T> d = dense_zero<T>(n, n);
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    for (int i = 0; i + 1 < n; ++i) {
      d.at(i, i + 1) = T(1);
      rows[i].push_back({i + 1, 1.0});
    }
    const Outcome<T> ref = ref_power<T>(n, dense_matvec(d), nullptr, tol, 1000);
    char what[96];
    std::snprintf(what, sizeof what, "%s nilpotent n=%d", P, n);
    CHECK(ref.info == 2 && ref.iterations == n && ref.x[0] == T(1), "%s: the reference gives info %d after %d", what,
          ref.info, ref.iterations);
    check_identical(what, call_dense<T>(d, nullptr, tol, 1000, what), ref);
    check_identical(what, call_csr<T>(csr_from_rows<T>(n, rows).rebased(1), nullptr, tol, 1000, what), ref);
  }
  // Zero start vector.
  {
    const int n = 33;
    Dense<T> d = dense_zero<T>(n, n);
    for (int i = 0; i < n; ++i) d.at(i, i) = T(i + 1);
    const std::vector<T> zero(n, T(0));
    const Outcome<T> o = call_dense<T>(d, &zero, tol, 10, "zero start");
    CHECK(o.info == 2 && o.iterations == 1 && o.lambda == T(0) && o.x == zero, "%s zero start: info %d iterations %d", P,
          o.info, o.iterations);
  }
  // NaN and +-Inf in A.
  for (int kind = 0; kind < 3; ++kind) {
    const int n = 33;
    const T bad = kind == 0 ? std::numeric_limits<T>::quiet_NaN()
                            : (kind == 1 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity());
    Dense<T> d = dense_zero<T>(n, n + 2);
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    for (int i = 0; i < n; ++i) {
      d.at(i, i) = T(2);
      rows[i].push_back({i, 2.0});
    }
    d.at(20, 7) = bad;
    rows[20].insert(rows[20].begin(), {7, double(bad)});
    const char *name = kind == 0 ? "NaN" : kind == 1 ? "+Inf" : "-Inf";
    char what[96];
    std::snprintf(what, sizeof what, "%s %s in A", P, name);
    for (int path = 0; path < 2; ++path) {
      const Outcome<T> o = path == 0 ? call_dense<T>(d, nullptr, tol, 10, what)
                                     : call_csr<T>(csr_from_rows<T>(n, rows), nullptr, tol, 10, what);
      const bool lambda_ok = kind == 0 ? std::isnan(o.lambda) : o.lambda == bad;
      CHECK(o.info == 3 && o.iterations == 1 && lambda_ok &&
                std::all_of(o.x.begin(), o.x.end(), [](T v) { return v == T(1); }),
            "%s (%s): info %d iterations %d lambda %g", what, path ? "csr" : "dense", o.info, o.iterations,
            double(o.lambda));
    }
  }
}

// ---- symmetric with a spectral gap ----
// A = Q D Q^T, Q = H1 H2 H3 (Householder reflectors), D: lambda1 at q, the rest in
// lambda1 * [-1/2, 1/2]. Returns A (double, column-major n x n) and v = Q e_q.
void build_symmetric(int n, double lambda1, uint64_t seed, std::vector<double> &A, std::vector<double> &v) {
  Rng rng(seed);
  A.assign(size_t(n) * n, 0.0);
  const int q = rng.below(n);
  for (int i = 0; i < n; ++i) A[size_t(i) * n + i] = i == q ? lambda1 : lambda1 * 0.5 * rng.symmetric();
  v.assign(size_t(n), 0.0);
  v[size_t(q)] = 1.0;
  std::vector<std::vector<double>> ws;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> w(static_cast<size_t>(n));
    double norm = 0;
    for (double &e : w) { e = rng.symmetric(); norm += e * e; }
    norm = std::sqrt(norm);
    for (double &e : w) e /= norm;
    ws.push_back(w);
  }
  std::vector<double> t(static_cast<size_t>(n));
  // A = H1 H2 H3 D H3 H2 H1: innermost first. H M H = M - 2 w (w^T M) - 2 (M' w) w^T.
  for (int r = 2; r >= 0; --r) {
    const std::vector<double> &w = ws[size_t(r)];
    for (int j = 0; j < n; ++j) {  // M = M - 2 w (w^T M)
      double s = 0;
      for (int i = 0; i < n; ++i) s += w[i] * A[size_t(j) * n + i];
      for (int i = 0; i < n; ++i) A[size_t(j) * n + i] -= 2 * w[i] * s;
    }
    std::fill(t.begin(), t.end(), 0.0);  // M = M - 2 (M w) w^T
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) t[i] += A[size_t(j) * n + i] * w[j];
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) A[size_t(j) * n + i] -= 2 * t[i] * w[j];
    double s = 0;  // v = H v
    for (int i = 0; i < n; ++i) s += w[i] * v[i];
    for (int i = 0; i < n; ++i) v[i] -= 2 * w[i] * s;
  }
  for (int j = 0; j < n; ++j)  // exactly symmetric
    for (int i = j + 1; i < n; ++i) A[size_t(i) * n + j] = A[size_t(j) * n + i];
}

#ifdef CUDROP_TEST_HAVE_LAPACK
template <class T>
bool lapack_syev(int n, std::vector<T> a, std::vector<T> &w) {
  w.assign(size_t(n), T(0));
  int info = 0, lwork = -1;
  T query = 0;
  if constexpr (std::is_same_v<T, float>) ssyev_("V", "U", &n, a.data(), &n, w.data(), &query, &lwork, &info, 1, 1);
  else dsyev_("V", "U", &n, a.data(), &n, w.data(), &query, &lwork, &info, 1, 1);
  lwork = std::max(1, int(query));
  std::vector<T> work(static_cast<size_t>(lwork));
  if constexpr (std::is_same_v<T, float>) ssyev_("V", "U", &n, a.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
  else dsyev_("V", "U", &n, a.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
  w.insert(w.end(), a.begin(), a.end());  // eigenvalues, then the eigenvectors
  return info == 0;
}
#endif

template <class T>
void test_symmetric() {
  const char *P = Api<T>::prec;
  const T tol = T(Api<T>::tol);
  for (int n : {1, 7, 33, 200, 1007}) {
    for (double lambda1 : {10.0, -10.0}) {
      std::vector<double> A, v;
      build_symmetric(n, lambda1, uint64_t(n) * 31 + (lambda1 > 0), A, v);
      for (int pad : {0, 5}) {
        Dense<T> d = dense_zero<T>(n, n + pad);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) d.at(i, j) = T(A[size_t(j) * n + i]);
        char what[96];
        std::snprintf(what, sizeof what, "%s symmetric n=%d lambda1=%+g lda=%d", P, n, lambda1, d.lda);
        const Outcome<T> o = call_dense<T>(d, nullptr, tol, 10000, what);
        check_eigenpair(what, o, lambda1, v, double(tol));
        check_agree(what, o, ref_power<T>(n, dense_matvec(d), nullptr, tol, 10000), double(tol));
#ifdef CUDROP_TEST_HAVE_LAPACK
        if (pad == 0 && n <= 200) {
          std::vector<T> packed(size_t(n) * n), wz;
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) packed[size_t(j) * n + i] = d.at(i, j);
          CHECK(lapack_syev<T>(n, packed, wz), "%s: LAPACK syev failed", what);
          int k = 0;  // the eigenvalue of largest magnitude
          for (int i = 1; i < n; ++i)
            if (std::fabs(wz[size_t(i)]) > std::fabs(wz[size_t(k)])) k = i;
          std::vector<double> z(static_cast<size_t>(n));
          for (int i = 0; i < n; ++i) z[i] = double(wz[size_t(n) + size_t(k) * n + i]);
          std::string lw = std::string(what) + " vs LAPACK syev";
          CHECK(std::fabs(double(wz[size_t(k)]) - lambda1) <= 1e3 * std::numeric_limits<T>::epsilon() * std::fabs(lambda1),
                "%s: LAPACK's dominant eigenvalue %.9g, constructed %.9g", lw.c_str(), double(wz[size_t(k)]), lambda1);
          check_eigenpair(lw.c_str(), o, double(wz[size_t(k)]), z, double(tol));
        }
#endif
      }
    }
  }
}

// ---- non-symmetric with known spectrum ----
template <class T>
void test_nonsymmetric() {
  const char *P = Api<T>::prec;
  const T tol = T(Api<T>::tol);
  for (int n : {1, 7, 33, 1007}) {
    for (double lambda1 : {6.0, -6.0}) {
      // A = S D S^-1, S = I + u v^T, S^-1 = I - c u v^T, c = 1 / (1 + v.u):
      // A = D + u w^T - c (D u) v^T - c (w.u) u v^T with w = D v; eigenvector S e_q = e_q + u v_q.
      Rng rng(uint64_t(n) * 131 + (lambda1 > 0));
      const int q = rng.below(n);
      std::vector<double> dg(static_cast<size_t>(n)), u(static_cast<size_t>(n)), vv(static_cast<size_t>(n)), w(static_cast<size_t>(n));
      const double scale = 1.0 / std::sqrt(double(n));
      for (int i = 0; i < n; ++i) {
        dg[i] = i == q ? lambda1 : lambda1 * 0.5 * rng.symmetric();
        u[i] = rng.symmetric() * scale;
        vv[i] = rng.symmetric() * scale;
      }
      double vu = 0, wu = 0;
      for (int i = 0; i < n; ++i) {
        w[i] = dg[i] * vv[i];
        vu += vv[i] * u[i];
      }
      for (int i = 0; i < n; ++i) wu += w[i] * u[i];
      const double c = 1.0 / (1.0 + vu);
      Dense<T> d = dense_zero<T>(n, n + 2);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          d.at(i, j) = T((i == j ? dg[i] : 0.0) + u[i] * w[j] - c * dg[i] * u[i] * vv[j] - c * wu * u[i] * vv[j]);
      std::vector<double> ev(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) ev[i] = (i == q ? 1.0 : 0.0) + u[i] * vv[q];
      char what[96];
      std::snprintf(what, sizeof what, "%s S*D*S^-1 n=%d lambda1=%+g", P, n, lambda1);
      const Outcome<T> o = call_dense<T>(d, nullptr, tol, 10000, what);
      check_eigenpair(what, o, lambda1, ev, double(tol));
      check_agree(what, o, ref_power<T>(n, dense_matvec(d), nullptr, tol, 10000), double(tol));
    }
  }
  // CSR upper triangular: eigenvalues = the diagonal; eigenvector by back substitution.
  for (int n : {7, 33, 1007}) {
    Rng rng(uint64_t(n) * 17 + 3);
    const double lambda1 = -5.0;
    const int q = n - 1 - n / 4;
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    std::vector<double> dg(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      dg[i] = i == q ? lambda1 : lambda1 * 0.5 * rng.symmetric();
      std::vector<int> cols{i};
      for (int e = 0; e < 3 && i + 1 < n; ++e) cols.push_back(i + 1 + rng.below(n - i - 1));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      for (int cidx : cols) rows[i].push_back({cidx, cidx == i ? dg[i] : 0.05 * std::fabs(lambda1) * rng.symmetric()});
    }
    const Csr<T> c = csr_from_rows<T>(n, rows);
    // (A - lambda1 I) v = 0 with the T-rounded entries, in double: v_i = 0 below q, v_q = 1.
    std::vector<double> ev(size_t(n), 0.0);
    ev[size_t(q)] = 1.0;
    for (int i = q - 1; i >= 0; --i) {
      double s = 0, di = 0;
      for (int k = c.row[i]; k < c.row[i + 1]; ++k) {
        if (c.col[k] == i) di = double(c.val[k]);
        else s += double(c.val[k]) * ev[size_t(c.col[k])];
      }
      ev[i] = s / (double(T(lambda1)) - di);
    }
    for (int base : {0, 1}) {
      char what[96];
      std::snprintf(what, sizeof what, "%s upper triangular csr n=%d base=%d", P, n, base);
      const Outcome<T> o = call_csr<T>(c.rebased(base), nullptr, tol, 10000, what);
      check_eigenpair(what, o, lambda1, ev, double(tol));
      check_agree(what, o, ref_power<T>(n, csr_matvec(c), nullptr, tol, 10000), double(tol));
    }
  }
}

// ---- PageRank-like column-stochastic CSR ----
// Node j links to j+1 (a ring: strongly connected), to itself (aperiodic) and to `extra` random
// nodes; P(i, j) = 1 / outdegree(j) per link. Rows of the CSR are the in-links.
template <class T>
Csr<T> pagerank(int n, int extra_min, int extra_max, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<int>> out(static_cast<size_t>(n));
  std::vector<int> in_count(size_t(n), 0);
  for (int j = 0; j < n; ++j) {
    out[j].push_back(j);
    if (n > 1) out[j].push_back((j + 1) % n);
    const int extra = extra_min + rng.below(extra_max - extra_min + 1);
    for (int e = 0; e < extra && n > 1; ++e) out[j].push_back(rng.below(n));
    for (int i : out[j]) ++in_count[size_t(i)];
  }
  Csr<T> c;
  c.n = n;
  c.row.assign(size_t(n) + 1, 0);
  for (int i = 0; i < n; ++i) c.row[i + 1] = c.row[i] + in_count[size_t(i)];
  c.col.resize(size_t(c.row[n]));
  c.val.resize(size_t(c.row[n]));
  std::vector<int> fill(c.row.begin(), c.row.end() - 1);
  for (int j = 0; j < n; ++j)
    for (int i : out[j]) {
      c.col[size_t(fill[i])] = j;
      c.val[size_t(fill[i])] = T(1.0 / double(out[j].size()));
      ++fill[i];
    }
  return c;
}

template <class T>
void test_pagerank() {
  const char *P = Api<T>::prec;
  const T tol = T(Api<T>::tol);
  for (int n : {1, 7, 33, 1007}) {
    const Csr<T> c = pagerank<T>(n, 2, 12, uint64_t(n) + 99);
    char what[96];
    std::snprintf(what, sizeof what, "%s pagerank n=%d nnz=%lld", P, n, c.nnz());
    const Outcome<T> o0 = call_csr<T>(c, nullptr, tol, 10000, what);
    const Outcome<T> o1 = call_csr<T>(c.rebased(1), nullptr, tol, 10000, what);
    CHECK(o0.info == 0, "%s: INFO %d", what, o0.info);
    CHECK(std::fabs(double(o0.lambda) - 1.0) <= 20 * double(tol), "%s: lambda %.10g, expected 1", what, double(o0.lambda));
    check_normalized(what, o0);
    CHECK(std::all_of(o0.x.begin(), o0.x.end(), [](T v) { return v > T(0); }), "%s: x not positive", what);
    std::string both = std::string(what) + ": 0- vs 1-based";
    check_identical(both.c_str(), o1, o0);
    // Residual: |P x - x| small (x is a stationary vector up to the tolerance).
    std::vector<T> y(static_cast<size_t>(n));
    csr_matvec(c)(o0.x.data(), y.data());
    double r = 0;
    for (int i = 0; i < n; ++i) r = std::max(r, std::fabs(double(y[i]) - double(o0.x[i])));
    CHECK(r <= 20 * double(tol), "%s: max |P x - x| = %.3g", what, r);
    check_agree(what, o0, ref_power<T>(n, csr_matvec(c), nullptr, tol, 10000), double(tol));
  }
}

// ---- irregular rows (the CSR kernels' tiles and windows) ----
// Matrices with at least 12 entries per row on average, none longer than 256 (and little
// padding) run on the SELL copy by default (kernels/sell_power.cuh: rows sorted within windows of 1024, slices of 32);
// the test power_gpu_csr_stream runs every case on the CSR-stream kernel described next.
// The GPU kernel reads a tile of rows as one range of entries, in windows of 2048 (float) or
// 1024 (double) entries, with 16-byte copies from the 4-aligned entry below the tile's first
// (element copies under CUDROP_TEST_POWER_CSR_ELEMENTWISE=1): rows longer than a window, rows
// straddling windows, empty rows and tiles, unaligned row starts and the last entries of the
// arrays are all exercised here, for average row lengths picking every lanes-per-row kernel.
// Exact (power-of-two diagonal + explicit zeros): bit for bit; general values: within tolerance.
template <class T>
Csr<T> irregular(int n, int short_max, int long_every, int long_len, bool exact, uint64_t seed) {
  Rng rng(seed);
  const int q = rng.below(n);
  std::vector<std::vector<std::pair<int, double>>> rows(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    int len = rng.below(short_max + 1);
    if (long_every > 0 && rng.below(long_every) == 0) len = long_len / 2 + rng.below(long_len);
    if (i % 101 == 50) len = 0;                         // empty rows (y_i = 0)
    if (i / 3000 == 2 && (i % 3000) < 2000) len = 0;  // whole empty tiles
    std::vector<int> cols;
    if (len > 0) cols.push_back(i);
    for (int e = 1; e < len; ++e) cols.push_back(rng.below(n));
    std::sort(cols.begin(), cols.end());
    bool diagonal_done = false;
    for (int cidx : cols) {
      double v;
      if (cidx == i && !diagonal_done) {
        diagonal_done = true;
        v = exact ? (i == q ? 4.0 : 4.0 * std::ldexp(rng.sign(), -1 - rng.below(3))) : (i == q ? 10.0 : 5.0 * rng.symmetric());
      } else {
        v = exact ? 0.0 : 0.5 / len * rng.symmetric();
      }
      rows[size_t(i)].push_back({cidx, v});
    }
  }
  if (rows[size_t(q)].empty()) rows[size_t(q)].push_back({q, exact ? 4.0 : 10.0});
  return csr_from_rows<T>(n, rows);
}

template <class T>
void test_irregular() {
  const char *P = Api<T>::prec;
  const T tol = T(Api<T>::tol);
  struct Case { const char *name; int n, short_max, long_every, long_len; };
  const Case cases[] = {
      // name: the average row length, which picks the lanes per row (1 ... 32)
      {"avg<1", 20011, 1, 2000, 600},
      {"avg~1.3", 14000, 2, 3000, 900},
      {"avg~2.6", 12000, 4, 1000, 1000},
      {"avg~4", 9001, 8, 2000, 5000},       // long rows: 2500-7499 entries, several windows
      {"avg~6", 12000, 3, 500, 2048},      // long rows 1024-3071: around a window's length
      {"avg~8", 12000, 3, 500, 4096},      // long rows 2048-6143
      {"avg~9 short rows", 3001, 1, 7, 60},
      {"avg~17", 7003, 40, 0, 0},
      {"avg~25", 9001, 3, 300, 9000},
      {"avg~65", 5003, 80, 1000, 20000},    // long rows up to 29999 entries: many windows
      // The SELL copy (>= 12 entries per row on average, rows of at most 256): its widest
      // rows, small n, and rows past its limit that leave the matrix to the CSR-stream kernel.
      {"avg~128, widest 256", 3001, 256, 0, 0},
      {"avg~15, n=7", 7, 30, 0, 0},
      {"avg~20, n=33", 33, 40, 0, 0},
      {"avg~128, some rows up to 449", 4099, 256, 1000, 300},
  };
  for (const Case &k : cases) {
    for (bool exact : {true, false}) {
      const Csr<T> c = irregular<T>(k.n, k.short_max, k.long_every, k.long_len, exact, uint64_t(k.n) * 3 + exact);
      const auto mv = csr_matvec(c);
      char what[160];
      if (exact) {
        for (int maxit : {1, 2, 7, 60}) {
          const Outcome<T> ref = ref_power<T>(c.n, mv, nullptr, T(0), maxit);
          for (int base : {0, 1}) {
            std::snprintf(what, sizeof what, "%s irregular exact %s n=%d nnz=%lld base=%d maxit=%d", P, k.name, c.n,
                          c.nnz(), base, maxit);
            check_identical(what, call_csr<T>(c.rebased(base), nullptr, T(0), maxit, what), ref);
          }
        }
      } else {
        std::snprintf(what, sizeof what, "%s irregular %s n=%d nnz=%lld", P, k.name, c.n, c.nnz());
        const Outcome<T> o = call_csr<T>(c, nullptr, tol, 10000, what);
        CHECK(o.info == 0, "%s: INFO %d", what, o.info);
        check_normalized(what, o);
        check_agree(what, o, ref_power<T>(c.n, mv, nullptr, tol, 10000), double(tol));
      }
    }
  }
}

// ---- columns near their rows (the SELL copy's 16-bit distances) ----
// In single precision, where every column is within 32768 of its row, cyclically, the SELL
// copy stores 16-bit distances from the row (kernels/sell_power.cuh); one entry farther keeps
// 32-bit indices (and below 12 entries per row on average, the CSR-stream kernel). Double
// always keeps 32-bit indices, so there these matrices cover its copy and the stream kernel. n > 65536, so that distances
// can be too far: the extremes -32768 and +32767 both ways round, wrapping past 0 and n - 1,
// and +-32768 (too far) in the far variants. Integer values and start vector: the first
// iteration is exact whatever the order of the additions, so it must match bit for bit (a
// wrong column shows), and later iterations agree within rounding.
template <class T>
Csr<T> near_columns(int n, int per_row, bool one_far, uint64_t seed) {
  Rng rng(seed);
  const int q = rng.below(n);
  const int extremes[] = {32767, -32768, n - 32768, 32768 - n, 1 - n, n - 1};
  std::vector<std::vector<std::pair<int, double>>> rows(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    std::vector<int> cols{i};
    const int len = per_row / 2 + rng.below(per_row + 1);
    for (int e = 1; e < len; ++e) {
      long long d = int(rng.below(65)) - 32;
      if (rng.below(8) == 0) d = extremes[rng.below(6)];
      cols.push_back(int(((i + d) % n + n) % n));
    }
    if (one_far && i == n / 3) cols.push_back((i + 32768) % n);
    if (one_far && i == n - 5) cols.push_back((i - 32768 + n) % n);
    std::sort(cols.begin(), cols.end());
    for (int j : cols) {
      const double v = j == i ? (i == q ? 16.0 : double(rng.below(9)) - 4.0) : double(rng.below(5)) - 2.0;
      rows[size_t(i)].push_back({j, v});
    }
  }
  return csr_from_rows<T>(n, rows);
}

template <class T>
void test_near_columns() {
  const char *P = Api<T>::prec;
  const T tol = T(Api<T>::tol);
  const int n = 70001;
  for (int per_row : {8, 16})
    for (bool far : {false, true}) {
      const Csr<T> c = near_columns<T>(n, per_row, far, uint64_t(per_row) * 2 + far);
      const auto mv = csr_matvec(c);
      Rng rng(uint64_t(per_row) + 7 * far);
      std::vector<T> x0(static_cast<size_t>(n));
      for (T &v : x0) v = T(int(rng.below(9)) - 4);
      x0[size_t(n / 2)] = T(5);  // never all zero
      char what[160];
      for (int base : {0, 1}) {
        std::snprintf(what, sizeof what, "%s near columns %d/row%s n=%d base=%d: first iteration", P, per_row,
                      far ? ", two too far" : "", n, base);
        check_identical(what, call_csr<T>(c.rebased(base), &x0, T(0), 1, what), ref_power<T>(n, mv, &x0, T(0), 1));
      }
      std::snprintf(what, sizeof what, "%s near columns %d/row%s n=%d: 20 iterations", P, per_row,
                    far ? ", two too far" : "", n);
      check_agree(what, call_csr<T>(c, &x0, T(0), 20, what), ref_power<T>(n, mv, &x0, T(0), 20), double(tol));
    }
}

// ---- INIT = 0 with a converged start ----
template <class T>
void test_start_vector() {
  const char *P = Api<T>::prec;
  const T tol = T(Api<T>::tol);
  const int n = 200;
  std::vector<double> A, v;
  build_symmetric(n, 10.0, 4242, A, v);
  Dense<T> d = dense_zero<T>(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) d.at(i, j) = T(A[size_t(j) * n + i]);
  const Outcome<T> first = call_dense<T>(d, nullptr, tol, 10000, "start: first");
  const Outcome<T> again = call_dense<T>(d, &first.x, tol, 10000, "start: again from x");
  CHECK(again.info == 0 && again.iterations <= 2, "%s start vector: INFO %d after %d iterations", P, again.info,
        again.iterations);
  CHECK(std::fabs(double(again.lambda) - double(first.lambda)) <= 20 * double(tol) * 10, "%s start vector: lambda %.9g vs %.9g",
        P, double(again.lambda), double(first.lambda));
  check_agree("start vector", again, ref_power<T>(n, dense_matvec(d), &first.x, tol, 10000), double(tol));
}

// ---- large (GPU) ----
// A = diag(d) + sparse off-diagonal entries (k per row, small): lambda1 = 10 at q, |others| <= 5.
template <class T>
Csr<T> diag_plus_sparse(int n, int k, uint64_t seed) {
  Rng rng(seed);
  const int q = rng.below(n);
  Csr<T> c;
  c.n = n;
  c.row.assign(size_t(n) + 1, 0);
  c.col.reserve(size_t(n) * (k + 1));
  c.val.reserve(size_t(n) * (k + 1));
  std::vector<int> cols;
  for (int i = 0; i < n; ++i) {
    cols.assign(1, i);
    for (int e = 0; e < k; ++e) cols.push_back(rng.below(n));
    std::sort(cols.begin(), cols.end());
    for (size_t e = 0; e < cols.size(); ++e) {
      const bool diagonal = cols[e] == i && (e == 0 || cols[e - 1] != i);
      c.col.push_back(cols[e]);
      c.val.push_back(T(diagonal ? (i == q ? 10.0 : 5.0 * rng.symmetric()) : 0.5 / (k + 1) * rng.symmetric()));
    }
    c.row[i + 1] = int(c.col.size());
  }
  return c;
}

template <class T>
void test_big() {
  const char *P = Api<T>::prec;
  const T tol = T(Api<T>::tol);
  std::vector<int> sizes{4100};
  if (std::is_same_v<T, float>) sizes.push_back(8195);
  for (int n : sizes) {
    std::vector<double> A, v;
    build_symmetric(n, -10.0, uint64_t(n), A, v);
    Dense<T> d = dense_zero<T>(n, n + 1);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) d.at(i, j) = T(A[size_t(j) * n + i]);
    A.clear();
    A.shrink_to_fit();
    char what[96];
    std::snprintf(what, sizeof what, "%s big dense n=%d", P, n);
    const double t0 = seconds_now();
    const Outcome<T> o = call_dense<T>(d, nullptr, tol, 10000, what);
    const double t = seconds_now() - t0;
    std::printf("  %s: %d iterations, %.1f ms host->host (%.2f GB matrix)\n", what, o.iterations, t * 1e3,
                double(n) * n * sizeof(T) / 1e9);
    check_eigenpair(what, o, -10.0, v, double(tol));
    check_agree(what, o, ref_power<T>(n, dense_matvec(d), nullptr, tol, 10000), double(tol));
  }
  struct CsrBig { const char *name; int n; std::function<Csr<T>()> make; };
  const CsrBig cases[] = {
      {"pagerank ~16/row", (1 << 20) + 13, [] { return pagerank<T>((1 << 20) + 13, 8, 20, 7); }},
      {"diag+sparse ~2/row", 1 << 20, [] { return diag_plus_sparse<T>(1 << 20, 1, 8); }},
      {"diag+sparse ~40/row", 200000, [] { return diag_plus_sparse<T>(200000, 39, 9); }},
  };
  for (const CsrBig &k : cases) {
    const Csr<T> c = k.make();
    char what[128];
    std::snprintf(what, sizeof what, "%s big csr %s n=%d nnz=%lld", P, k.name, c.n, c.nnz());
    const double t0 = seconds_now();
    const Outcome<T> o = call_csr<T>(c.rebased(1), nullptr, tol, 10000, what);
    const double t = seconds_now() - t0;
    std::printf("  %s: %d iterations, %.1f ms host->host\n", what, o.iterations, t * 1e3);
    CHECK(o.info == 0, "%s: INFO %d", what, o.info);
    check_normalized(what, o);
    check_agree(what, o, ref_power<T>(c.n, csr_matvec(c), nullptr, tol, 10000), double(tol));
  }
}

template <class T>
void run_all() {
  const double t0 = seconds_now();
  auto step = [&](const char *name, void (*fn)()) {
    const int before = failures;
    const double s = seconds_now();
    fn();
    std::printf("%s %-16s %s (%.1f s)\n", Api<T>::prec, name, failures == before ? "ok" : "FAILED", seconds_now() - s);
    std::fflush(stdout);
  };
  step("arguments", test_arguments<T>);
  step("csr structure", test_csr_structure<T>);
  step("exact diagonal", test_exact_diagonal<T>);
  step("ties", test_ties<T>);
  step("breakdowns", test_breakdowns<T>);
  step("symmetric", test_symmetric<T>);
  step("nonsymmetric", test_nonsymmetric<T>);
  step("pagerank", test_pagerank<T>);
  step("irregular rows", test_irregular<T>);
  step("near columns", test_near_columns<T>);
  step("start vector", test_start_vector<T>);
  if (opt.big) step("big", test_big<T>);
  std::printf("%s done in %.1f s\n", Api<T>::prec, seconds_now() - t0);
}

}  // namespace

int main(int argc, char **argv) {
  const bool understood =
      harness::CommandLine("usage: power_test [--expect-cpu|--expect-gpu|--expect-fallback] [--require-gpu] [--big] "
                           "[--prec s|d|sd] [-v]")
          .placement(&opt.placement)
          .flag("--big", &opt.big)
          .text("--prec", &opt.prec)
          .flag("-v", &opt.verbose)
          .parse(argc, argv);
  if (!understood) return 2;
  if (harness::skip_without_gpu("power_test", opt.placement.require_gpu)) return harness::kSkipped;
  std::printf("power_test: cudrop %s, GPU available: %d%s\n", cudrop_version(), cudrop_gpu_available(),
#ifdef CUDROP_TEST_HAVE_LAPACK
              ", LAPACK syev reference linked"
#else
              ", no LAPACK (constructed eigenpairs only)"
#endif
  );
  if (opt.prec.find('s') != std::string::npos) run_all<float>();
  if (opt.prec.find('d') != std::string::npos) run_all<double>();
  const harness::Counters total = harness::Counters::now();
  const long g = total.gpu, c = total.cpu, f = total.fallbacks;
  std::printf("power_test: %d checks, %d failures; %ld routed calls (gpu %ld, cpu %ld, fallbacks %ld)\n", checks,
              failures, routed_calls, g, c, f);
  if (opt.placement.expect_fallback) CHECK(f > 0, "no GPU attempt fell back");
  return failures == 0 ? 0 : 1;
}
