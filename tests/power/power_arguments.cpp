// power_test: illegal arguments (reported through xerbla_, nothing written) and CSR structures
// refused with INFO alone.
#include "tests/power/power.h"
#include "tests/harness/xerbla_capture.h"

namespace power_test {

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

POWER_TEST_CASE(test_arguments)
POWER_TEST_CASE(test_csr_structure)

}  // namespace power_test
