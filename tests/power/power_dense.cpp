// power_test: dense matrices with a known spectrum (symmetric, against LAPACK syev when linked;
// non-symmetric), and INIT = 0 with a converged start.
#include "tests/power/power.h"
#ifdef CUDROP_TEST_HAVE_LAPACK
extern "C" {
void ssyev_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w,
            float *work, const int *lwork, int *info, size_t, size_t);
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w,
            double *work, const int *lwork, int *info, size_t, size_t);
}
#endif

namespace power_test {

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

POWER_TEST_CASE(test_symmetric)
POWER_TEST_CASE(test_nonsymmetric)
POWER_TEST_CASE(test_start_vector)

}  // namespace power_test
