#pragma once
// What power_test's parts share: the options, the routines by precision, where each routed call
// ran, the matrices, the reference iteration, the routed calls and the checks of their results;
// and the cases, each defined (for float and double) in the file of its kind:
//   power_arguments.cpp  illegal arguments and CSR structure
//   power_exact.cpp      exact diagonal matrices, ties, breakdowns
//   power_dense.cpp      dense matrices with a known spectrum, the start vector
//   power_csr.cpp        PageRank-like, irregular rows, columns near their rows
//   power_big.cpp        --big: the large dense and CSR cases
// power_test.cpp runs them.
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

namespace power_test {

struct Options {
  harness::Placement placement;
  bool big = false, verbose = false;
  std::string prec = "sd";
};
extern Options opt;        // power_test.cpp
extern long routed_calls;  // power_test.cpp
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

// ---- shared by the cases' files ----
void build_symmetric(int n, double lambda1, uint64_t seed, std::vector<double> &A, std::vector<double> &v);
template <class T>
Csr<T> pagerank(int n, int extra_min, int extra_max, uint64_t seed);

// ---- the cases, by file ----
// power_arguments.cpp
template <class T> void test_arguments();
template <class T> void test_csr_structure();
// power_exact.cpp
template <class T> void test_exact_diagonal();
template <class T> void test_ties();
template <class T> void test_breakdowns();
// power_dense.cpp
template <class T> void test_symmetric();
template <class T> void test_nonsymmetric();
template <class T> void test_start_vector();
// power_csr.cpp
template <class T> void test_pagerank();
template <class T> void test_irregular();
template <class T> void test_near_columns();
// power_big.cpp
template <class T> void test_big();

// A case's definitions for both precisions, in the file that defines it.
#define POWER_TEST_CASE(name) template void name<float>(); template void name<double>();

}  // namespace power_test
