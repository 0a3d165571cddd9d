// power_test: CSR matrices: PageRank-like, irregular rows, columns near their rows.
#include "tests/power/power.h"

namespace power_test {

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

template Csr<float> pagerank<float>(int, int, int, uint64_t);
template Csr<double> pagerank<double>(int, int, int, uint64_t);
POWER_TEST_CASE(test_pagerank)
POWER_TEST_CASE(test_irregular)
POWER_TEST_CASE(test_near_columns)

}  // namespace power_test
