#pragma once
// Tuning data of the power method on the GPU: launch shapes, batching and when the CSR loop
// gets the SELL copy of the matrix.
namespace cudrop::impl {

// dense_blocks_per_sm: the dense grid aims at this many blocks per SM (about four waves of
// eight resident blocks, so the last, partial wave is short); min_chunk_cols: a block's column
// chunk is at least this wide (its partial sums cost 2*rows*sizeof(T) of traffic per chunk).
// max_batch: most iterations queued between two looks at the state (the adaptive schedule
// doubles from 2 to this); a look costs nothing while the next batch runs, and at most two
// batches of no-op launches (a few microseconds each) follow the stopping iteration.
struct PowerTune {
  static constexpr int dense_blocks_per_sm = 32;
  static constexpr int min_chunk_cols = 128;
  static constexpr int first_batch = 2;
  static constexpr int max_batch = 32;
};

// The SELL copy of a CSR matrix (kernels/sell_power.cuh): its mat-vec kernel's shape per
// precision, U entries per lane and round, P slices per warp at once, and its grid in waves.
// Each precision takes the fastest shape of the tuning probes; the others are clearly
// slower (docs/perf/2026-11-22-h100-session7.md). The copy is made only when its padded
// entries stay within kSellCapacityPercent of the CSR entries (a bounded workspace).
// near: whether the copy stores 16-bit column distances where every column allows it. In
// float the smaller copy is faster at every row length; in double every kernel shape loses
// with distances (docs/perf/2026-11-22-h100-session17.md), so double keeps 32 bits.
template <class T> struct SellTune;
template <> struct SellTune<float> {
  static constexpr int entries = 16, slices = 1, waves = 4;
  static constexpr bool near = true;
};
template <> struct SellTune<double> {
  static constexpr int entries = 8, slices = 2, waves = 1;
  static constexpr bool near = false;
};
constexpr long long kSellCapacityPercent = 125;
// Below this many entries per row on average the copy with 32-bit column indices is not made:
// at 8 per row (float) the loop on it is no faster than on the CSR-stream kernel with columns
// in a band and slower with random columns; from 16 per row it is faster in a band
// (docs/perf/2026-11-22-h100-session7.md).
constexpr long long kSellMinAverageRow = 12;
// With 16-bit distances (SellTune::near, every column near its row) the copy moves fewer bytes
// than the CSR arrays (6 instead of 8 per float entry, no row pointers). Float in a band: it
// overtakes the CSR-stream kernel between 6 and 8 entries per row
// (docs/perf/2026-11-22-h100-session17.md).
constexpr long long kSellNearMinAverageRow = 7;

}  // namespace cudrop::impl
