// potrf_test: the test matrices: diag(d) + V V^T and L0 L0^T, well and badly conditioned.
#include "tests/potrf/potrf_test.h"

namespace potrf_test {

const char *family_name(Family f) {
  static const char *const names[] = {"D+VV'", "D+VV'(bad)", "L0L0'", "L0L0'(bad)"};
  return names[int(f)];
}
const char *breakage_name(Breakage b) {
  static const char *const names[] = {"pd", "neg-pivot", "zero-row", "nan-diag"};
  return names[int(b)];
}

Source make_source(int n, Family family, uint64_t seed, double bad_decades) {
  Source s;
  s.n = n;
  s.family = family;
  Rng rng(seed);
  if (family == Family::LowRank || family == Family::LowRankBad) {
    s.d.resize(n);
    s.v.resize(size_t(n) * s.r);
    // Pivots are >= d_i exactly (the V V^T part's Schur complements are semidefinite).
    for (int i = 0; i < n; ++i)
      s.d[i] = family == Family::LowRank ? 0.5 + 0.5 * rng.uniform() : std::pow(10.0, -bad_decades * rng.uniform());
    for (double &x : s.v) x = rng.symmetric();
    return s;
  }
  // A = L0 L0^T: L0 lower with diagonal in [1, 2] and off-diagonal entries in [-0.3, 0.3]
  // (the pivots are L0(k,k)^2 >= 1), or (bad) L0 = L1 diag(d), L1 unit lower with entries in
  // [-0.05, 0.05], d decaying over bad_decades/2 decades: cond(A) ~ 10^bad_decades.
  std::vector<double> l0(size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    const double dj = family == Family::DenseBad
                          ? (1.0 + 0.3 * rng.symmetric()) * std::pow(10.0, -0.5 * bad_decades * j / std::max(1, n - 1))
                          : 1.0;
    for (int i = j; i < n; ++i) {
      double x = family == Family::DenseBad ? 0.05 * rng.symmetric() * dj : 0.3 * rng.symmetric();
      if (i == j) x = family == Family::DenseBad ? dj : 1.5 + 0.5 * rng.symmetric();
      l0[i + size_t(j) * n] = x;
    }
  }
  s.dense.assign(size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      double sum = 0;
      for (int k = 0; k <= j; ++k) sum += l0[i + size_t(k) * n] * l0[j + size_t(k) * n];
      s.dense[i + size_t(j) * n] = sum;
    }
  return s;
}

}  // namespace potrf_test
