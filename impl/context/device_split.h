#pragma once
// How a call is shared out over several devices (CUDROP_DEVICES): pure host code, tested
// without a GPU (tests/gemm/device_split_test.cpp). The output is cut into one contiguous
// region per device; a region that fails on its device is finished elsewhere, and the record
// of what reached the caller's output is a GemmProgress over all regions together.
#include <algorithm>
#include <cmath>
#include <vector>

#include "impl/gemm/gemm.h"

namespace cudrop::impl {

// How many of `available` devices a call of `flops` is worth: as many as get at least
// `min_share` flops each, at least one.
inline int devices_worth(double flops, int available, double min_share) {
  if (available <= 1) return 1;
  if (!(min_share > 0)) return available;
  const double worth = std::floor(flops / min_share);
  return worth >= available ? available : std::max(1, int(worth));
}

// An m x n output (column-major) cut into one contiguous region per weight, proportional to the
// weights (a device's speed: its SM count), by columns or, with by_rows, by rows. Every edge but
// the last falls on a multiple of `align`, so each region is whole kernel tiles; a device whose
// share would round to nothing is left out (fewer regions than weights). The regions cover the
// output exactly once, in order.
inline std::vector<GemmBlock> split_for_devices(int m, int n, bool by_rows, const std::vector<double> &weights,
                                                int align) {
  std::vector<GemmBlock> regions;
  const long long extent = by_rows ? m : n;
  double total = 0;
  for (double w : weights) total += w > 0 ? w : 0;
  if (extent <= 0 || !(total > 0)) return regions;
  double before = 0;
  long long start = 0;
  for (size_t d = 0; d < weights.size() && start < extent; ++d) {
    before += weights[d] > 0 ? weights[d] : 0;
    long long end = extent;
    if (d + 1 < weights.size()) {
      const double ideal = double(extent) * before / total;
      end = std::min(extent, (long long)std::llround(ideal / align) * align);
    }
    if (end <= start) continue;
    const int first = int(start), size = int(end - start);
    regions.push_back(by_rows ? GemmBlock{first, size, 0, n} : GemmBlock{0, m, first, size});
    start = end;
  }
  return regions;
}

// Splitting the columns makes every device read all of op(A) (m x k), the rows all of op(B)
// (k x n): the split that copies less, columns on a tie.
inline bool split_rows(int m, int n) { return m > n; }

// What one attempt at `region` did, into `record` (blocks over the whole output): all of it on
// success; else the blocks its own progress says were written, in the output's coordinates,
// with the columns still missing appended to `missing` (the whole region when nothing was
// written). The blocks recorded and those in `missing` cover the region exactly once.
inline void record_attempt(GemmProgress &record, const GemmBlock &region, bool succeeded, const GemmProgress &own,
                           std::vector<GemmBlock> &missing) {
  if (succeeded) {
    record.blocks.push_back(region);
    record.written.push_back(region.cols);
    return;
  }
  if (!own.any_written()) {
    missing.push_back(region);
    return;
  }
  for (size_t b = 0; b < own.blocks.size(); ++b) {
    const GemmBlock &blk = own.blocks[b];
    const int i0 = region.i0 + blk.i0, j0 = region.j0 + blk.j0, w = std::clamp(own.written[b], 0, blk.cols);
    if (w > 0) {
      record.blocks.push_back({i0, blk.rows, j0, w});
      record.written.push_back(w);
    }
    if (w < blk.cols) missing.push_back({i0, blk.rows, j0 + w, blk.cols - w});
  }
}

// Regions still missing at the end: recorded with nothing written, for the CPU to compute.
inline void record_missing(GemmProgress &record, const std::vector<GemmBlock> &missing) {
  for (const GemmBlock &blk : missing) {
    record.blocks.push_back(blk);
    record.written.push_back(0);
  }
}

}  // namespace cudrop::impl
