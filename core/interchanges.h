#pragma once
// The row interchanges of one LU panel (LAPACK's IPIV: row g0 + i swapped with pivot[i], in
// order) as a permutation of the rows they touch: row target[i] ends up holding the old contents
// of row source[i]. Rows are global indices; targets ascending; a row that ends where it began
// is left out. Pure host code (impl/distributed/distributed_getrf.cu; tests/scalapack/interchanges_test.cpp).
#include <cstdint>
#include <map>
#include <vector>

namespace cudrop {

struct Interchanges {
  std::vector<int64_t> target, source;
  Interchanges(int64_t g0, const std::vector<int64_t> &pivot) {
    std::map<int64_t, int64_t> content;  // row -> the row whose old contents it holds now
    auto holds = [&](int64_t row) {
      auto it = content.find(row);
      return it == content.end() ? row : it->second;
    };
    for (size_t i = 0; i < pivot.size(); ++i) {
      const int64_t a = g0 + int64_t(i), b = pivot[i];
      const int64_t ha = holds(a), hb = holds(b);
      content[a] = hb;
      content[b] = ha;
    }
    for (const auto &[row, from] : content)
      if (row != from) {
        target.push_back(row);
        source.push_back(from);
      }
  }
};

}  // namespace cudrop
