// getrf_test: the test matrices: random, scaled, low rank, zero columns, exact ties, planted
// ties; each with what its construction implies for INFO and the leading pivots.
#include "tests/getrf/getrf_test.h"

namespace getrf_test {

const char *kind_name(Kind k) {
  switch (k) {
    case Kind::random: return "random";
    case Kind::scaled: return "scaled";
    case Kind::lowrank: return "lowrank";
    case Kind::zero_first: return "zerocol-first";
    case Kind::zero_mid: return "zerocol-mid";
    case Kind::zero_last: return "zerocol-last";
    case Kind::zero: return "zero";
    case Kind::ties: return "ties";
    case Kind::ties_square: return "ties-square";
    case Kind::planted: return "planted-ties";
  }
  return "?";
}

// Fills the m x n block of a (column stride lda); the padding rows are left alone.
template <class T>
Built build(Kind kind, int m, int n, int lda, uint64_t seed, T *a) {
  Rng rng(seed);
  auto A = [&](int i, int j) -> T & { return a[size_t(i) + size_t(j) * lda]; };
  const int mn = std::min(m, n);
  Built b;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) A(i, j) = T(rng.symmetric());
  switch (kind) {
    case Kind::random: break;
    case Kind::scaled: {
      const double decades = std::is_same_v<T, float> ? 3.0 : 6.0;
      std::vector<double> row(m), col(n);
      for (double &r : row) r = std::pow(10.0, decades * rng.symmetric());
      for (double &c : col) c = std::pow(10.0, decades * rng.symmetric());
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) A(i, j) = T(double(A(i, j)) * row[i] * col[j]);
      break;
    }
    case Kind::lowrank: {
      const int r = std::max(1, mn / 2);
      std::vector<double> x(size_t(m) * r), y(size_t(n) * r);
      for (double &v : x) v = rng.symmetric();
      for (double &v : y) v = rng.symmetric();
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
          double s = 1e-4 * double(A(i, j));
          for (int l = 0; l < r; ++l) s += x[size_t(i) + size_t(l) * m] * y[size_t(j) + size_t(l) * n];
          A(i, j) = T(s / r);
        }
      break;
    }
    case Kind::zero_first: case Kind::zero_mid: case Kind::zero_last: {
      const int col = kind == Kind::zero_first ? 0 : kind == Kind::zero_mid ? n / 2 : n - 1;
      for (int i = 0; i < m; ++i) A(i, col) = T(0);
      if (col < mn) b.expected_info = col + 1;
      break;
    }
    case Kind::zero:
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) A(i, j) = T(0);
      b.expected_info = 1;
      b.exact_prefix = mn;
      break;
    case Kind::ties: case Kind::ties_square: {
      // Column k < h holds +-1 at rows perm[k] and perm[h+k]; every other entry is zero.
      const int h = std::min(n, m / 2);
      std::vector<int> perm(m);
      for (int i = 0; i < m; ++i) perm[i] = i;
      for (int i = m - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(size_t(i) + 1)]);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) A(i, j) = T(0);
      for (int k = 0; k < h; ++k) {
        A(perm[k], k) = T(rng.sign());
        A(perm[h + k], k) = T(rng.sign());
      }
      b.expected_info = h < mn ? h + 1 : 0;
      b.exact_prefix = mn;
      break;
    }
    case Kind::planted: {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) A(i, j) *= T(0.5);
      // Three entries of |1| in column 1 (rows in the last third, the middle, the first third,
      // so they fall in different thread blocks of any split); the first one wins.
      const int rows[3] = {m - 1 - m / 7, m / 2, m / 5};
      for (int r : rows) A(r, 0) = T(rng.sign());
      b.exact_prefix = 1;
      break;
    }
  }
  return b;
}

template Built build<float>(Kind, int, int, int, uint64_t, float *);
template Built build<double>(Kind, int, int, int, uint64_t, double *);

}  // namespace getrf_test
