// core/interchanges.h against the interchanges done one by one on an array of row labels, for
// random pivots (each >= its row, as LAPACK's are) over panels of every width up to 40.
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "core/interchanges.h"
#include "tests/harness/check.h"

int main() {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 4000; ++trial) {
    const int64_t m = 1 + int64_t(rng() % 120), g0 = int64_t(rng() % uint64_t(m));
    const int64_t kb = 1 + int64_t(rng() % uint64_t(std::min<int64_t>(40, m - g0)));
    std::vector<int64_t> pivot(static_cast<size_t>(kb));
    for (int64_t i = 0; i < kb; ++i) {
      // Mostly nearby rows, now and then the row itself (no interchange).
      const int64_t row = g0 + i;
      pivot[size_t(i)] = rng() % 4 == 0 ? row : row + int64_t(rng() % uint64_t(m - row));
    }
    std::vector<int64_t> rows(static_cast<size_t>(m));
    for (int64_t r = 0; r < m; ++r) rows[size_t(r)] = r;
    for (int64_t i = 0; i < kb; ++i) std::swap(rows[size_t(g0 + i)], rows[size_t(pivot[size_t(i)])]);

    const cudrop::Interchanges swaps(g0, pivot);
    std::vector<int64_t> applied(static_cast<size_t>(m));
    for (int64_t r = 0; r < m; ++r) applied[size_t(r)] = r;
    for (size_t i = 0; i < swaps.target.size(); ++i) {
      CHECK(i == 0 || swaps.target[i] > swaps.target[i - 1], "targets ascending (trial %d)", trial);
      applied[size_t(swaps.target[i])] = swaps.source[i];
    }
    CHECK(applied == rows, "trial %d: m=%lld g0=%lld kb=%lld", trial, (long long)m, (long long)g0, (long long)kb);
    CHECK(swaps.target.size() <= size_t(2 * kb), "at most 2 kb rows touched (trial %d)", trial);
    for (size_t i = 0; i < swaps.target.size(); ++i) CHECK(swaps.target[i] != swaps.source[i], "a row left in place");
  }
  std::printf("interchanges: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
