#pragma once
// Launch shapes and workspace layouts of the power method's device calls (impl/power_*.cu).
#include <algorithm>
#include <cstddef>

#include "impl/power/power_device.cuh"
#include "kernels/csr_power.cuh"
#include "kernels/sell_power.cuh"

namespace cudrop::impl::power {

// ---- plans: launch shapes and workspace layout ---------------------------------------------
template <class T>
struct DensePlan {
  int vec = 1;  // V of the kernel
  int tiles = 0, chunks = 0, chunk_cols = 0;
  size_t y = 0, partial = 0, slot_v = 0, slot_i = 0, arrivals = 0, state = 0, bytes = 0;
};

template <class T>
DensePlan<T> dense_plan(int n, int sms, int vec) {
  DensePlan<T> p;
  p.vec = vec;
  const int rows = 32 * vec;
  p.tiles = int(ceil_div(n, rows));
  const long long target = (long long)std::max(1, sms) * PowerTune::dense_blocks_per_sm;
  const long long most = std::max(1LL, ceil_div(n, PowerTune::min_chunk_cols));
  long long chunks = std::min(most, std::max(1LL, ceil_div(target, p.tiles)));
  chunks = std::min<long long>(chunks, std::max(1, 2147483647 / p.tiles));  // grid <= 2^31 - 1
  p.chunk_cols = int(ceil_div(n, chunks));
  p.chunks = int(ceil_div(n, p.chunk_cols));  // no empty chunk
  size_t at = 0;
  auto take = [&](size_t bytes) { const size_t here = at; at += align_up(bytes); return here; };
  p.y = take(size_t(n) * sizeof(T));
  p.partial = take(size_t(p.chunks) * size_t(n) * sizeof(T));
  p.slot_v = take(size_t(p.tiles) * sizeof(T));
  p.slot_i = take(size_t(p.tiles) * sizeof(int));
  p.arrivals = take(size_t(p.tiles) * sizeof(unsigned));
  p.state = take(sizeof(PowerState<T>));
  p.bytes = at;
  return p;
}

template <class T> constexpr int dense_vec() { return int(16 / sizeof(T)); }

// bytes: what the CSR-stream kernel needs; sell_bytes: with room for the SELL copy after it.
template <class T>
struct CsrPlan {
  int tpr = 1;
  int blocks = 0;        // CSR-stream grid: one wave, each block a contiguous range of rows
  int sell_blocks = 0;   // SELL grid: SellTune waves, each block a contiguous range of slices
  long long sell_capacity = 0;  // padded entries the copy may have
  size_t x = 0, y = 0, part_rows = 0, slot_v = 0, slot_i = 0, state = 0, bytes = 0;
  size_t row_of = 0, row_len = 0, row_word = 0, slice_start = 0, sell_part = 0, sell_val = 0, sell_col = 0,
         sell_stats = 0, sell_bytes = 0;
};

// Col: int column indices, or short distances from the row (kernels/sell_power.cuh).
template <class T, class Col = int>
auto sell_kernel() {
  return kernels::power_sell_max<T, Col, SellTune<T>::entries, SellTune<T>::slices>;
}

template <class T, int TPR>
Status csr_blocks(const PowerCall &g, int n, int *blocks) {
  int wave = 0;
  if (Status s = one_wave(g, kernels::power_csr_max<T, TPR>, &wave); s != Status::ok) return s;
  const long long rows_per_block = (long long)kernels::kPowerWarps * kernels::csr_rows_per_warp<TPR>();
  *blocks = int(std::max(1LL, std::min<long long>(wave, ceil_div(n, rows_per_block))));
  return Status::ok;
}

template <class T>
Status csr_plan(const PowerCall &g, int n, long long nnz, CsrPlan<T> *out) {
  CsrPlan<T> p;
  p.tpr = kernels::csr_lanes_per_row(n, nnz);
  Status s = Status::ok;
  switch (p.tpr) {
    case 1: s = csr_blocks<T, 1>(g, n, &p.blocks); break;
    case 2: s = csr_blocks<T, 2>(g, n, &p.blocks); break;
    case 4: s = csr_blocks<T, 4>(g, n, &p.blocks); break;
    case 8: s = csr_blocks<T, 8>(g, n, &p.blocks); break;
    case 16: s = csr_blocks<T, 16>(g, n, &p.blocks); break;
    default: s = csr_blocks<T, 32>(g, n, &p.blocks); break;
  }
  if (s != Status::ok) return s;
  int sell_wave = 0;
  if ((s = one_wave(g, sell_kernel<T>(), &sell_wave)) != Status::ok) return s;
  const int slices = kernels::sell_slices(n);
  p.sell_blocks = std::max(1, std::min(slices, SellTune<T>::waves * sell_wave));
  p.sell_capacity = nnz * kSellCapacityPercent / 100 + kernels::kSellLanes;
  const int candidates = std::max(p.blocks, p.sell_blocks);
  size_t at = 0;
  auto take = [&](size_t bytes) { const size_t here = at; at += align_up(bytes); return here; };
  p.x = take(size_t(n) * sizeof(T));  // x and y adjacent: one L2 window covers both
  p.y = take(size_t(n) * sizeof(T));
  p.part_rows = take((size_t(p.blocks) + 1) * sizeof(int));
  p.slot_v = take(size_t(candidates) * sizeof(T));
  p.slot_i = take(size_t(candidates) * sizeof(int));
  p.state = take(sizeof(PowerState<T>));
  p.bytes = at;
  const size_t positions = size_t(kernels::sell_positions(n));
  p.row_of = take(positions * sizeof(int));
  p.row_len = take(positions * sizeof(int));
  p.row_word = take(positions * sizeof(int));
  p.slice_start = take((size_t(slices) + 1) * sizeof(long long));
  p.sell_part = take((size_t(p.sell_blocks) + 1) * sizeof(int));
  p.sell_stats = take(sizeof(kernels::SellStats));
  p.sell_val = take(size_t(p.sell_capacity) * sizeof(T));
  p.sell_col = take(size_t(p.sell_capacity) * sizeof(int));
  p.sell_bytes = at;
  *out = p;
  return Status::ok;
}

}  // namespace cudrop::impl::power
