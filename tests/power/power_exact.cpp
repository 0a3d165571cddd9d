// power_test: exact diagonal matrices (bit for bit), ties and non-convergence, breakdowns.
#include "tests/power/power.h"

namespace power_test {

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

POWER_TEST_CASE(test_exact_diagonal)
POWER_TEST_CASE(test_ties)
POWER_TEST_CASE(test_breakdowns)

}  // namespace power_test
