// power_test --big: dense n = 4100 and 8195, CSR with about a million rows.
#include "tests/power/power.h"

namespace power_test {

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

POWER_TEST_CASE(test_big)

}  // namespace power_test
