#pragma once
// CSR mat-vec of the power method, fused with the max-reduction: y = A x with A in CSR
// (val, colind, rowptr, indices offset by base = 0 or 1), then each block's largest |y_i| and,
// by the last block, lambda (kernels/power.cuh).
//
// Bandwidth-bound SpMV ("CSR-stream", software-pipelined): the rows are cut into tiles of
// Shape::rows consecutive rows; a block takes a tile, and its entries [rowptr(first row),
// rowptr(last row + 1)) form one contiguous range of val/colind, staged in shared memory in
// windows of Shape::window entries. While a block computes on tile i, the entries of tile i+1
// and the row pointers of tile i+2 are already on their way into its other buffers (cp.async,
// no registers held), so every block keeps memory busy all the time, not only between its
// barriers (the version before this one loaded through registers and had nothing in flight
// while it reduced: 0.36-0.51 of copy bandwidth). Per window:
//  1. products: every thread takes 4-entry chunks of the window from shared memory, gathers
//     their x (__ldg: x is what should stay cached; all of a thread's gathers are in flight
//     together) and writes the products v * x back in place;
//  2. reduce: TPR lanes per row (about four entries per lane: csr_lanes_per_row) add the
//     products of their row, lane l taking the row's entries l, l + TPR, ... of
//     the window, each lane from +0 (as the CPU path: a sum is never -0); after the tile's last
//     window the lanes' sums are added with a xor butterfly.
// A tile longer than a window (rows much longer than the average) reads its further windows
// without overlap; the split depends only on where the tile's entries start, so the same bits
// come out run after run. Tiles are handed out by an atomic counter (state->tiles_taken, reset
// by the last block), so the blocks finish together whatever the row lengths; the sums do not
// depend on which block took a tile. The grid is one wave of resident blocks (slot_v/slot_i:
// gridDim.x entries).
// The structure must have been validated (power_csr_validate): no index is checked here.
#include "kernels/cp_async.cuh"
#include "kernels/power.cuh"

namespace cudrop::kernels {

// Lanes per row: about four entries per lane (the smallest power of two at least a quarter of
// the average row length, up to a warp), so that a row's fixed costs (its bounds, the
// butterfly, the store of y_i) are shared by several entries.
inline int csr_lanes_per_row(int n, long long nnz) {
  const double quarter = n > 0 ? double(nnz) / n / 4 : 0.0;
  int tpr = 1;
  while (tpr < 32 && tpr < quarter) tpr *= 2;
  return tpr;
}

template <class T, int TPR>
struct CsrPowerShape {
  static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR: a power of two up to 32");
  static constexpr int lanes_per_row = TPR;
  // Entries staged per buffer: 16 KiB of values and column indices (float) or 12 KiB (double),
  // two buffers, so that five or more blocks fit an SM's shared memory.
  static constexpr int window = sizeof(T) == 4 ? 2048 : 1024;
  static constexpr int chunks = window / (4 * kPowerThreads);  // 4-entry chunks per thread
  static constexpr int groups = kPowerThreads / TPR;           // rows reduced at a time
  // Rows of a tile: the average row is at most 4 TPR long (csr_lanes_per_row, or rows are
  // shorter than 4), so a tile has at most half a window of entries on average and rarely
  // needs a second window.
  static constexpr int rows = window / (8 * TPR) > groups ? window / (8 * TPR) : groups;
  static constexpr int rows_per_group = rows / groups;
  static_assert(chunks >= 1 && window % (4 * kPowerThreads) == 0 && rows % groups == 0, "shape");
};

// Resident blocks per SM the registers are capped for: float 6 (40 registers; ~34 KB of
// shared memory each, six fit), double 4 (more would spill).
template <class T> constexpr int power_csr_min_blocks() { return sizeof(T) == 4 ? 6 : 4; }

// Four consecutive values in shared memory (16-byte aligned).
__device__ inline void power_csr_shared4(const float *p, float (&v)[4]) {
  const float4 q = *reinterpret_cast<const float4 *>(p);
  v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
}
__device__ inline void power_csr_shared4(const double *p, double (&v)[4]) {
  const double2 a = reinterpret_cast<const double2 *>(p)[0], b = reinterpret_cast<const double2 *>(p)[1];
  v[0] = a.x; v[1] = a.y; v[2] = b.x; v[3] = b.y;
}
__device__ inline void power_csr_store_shared4(float *p, const float (&v)[4]) {
  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
__device__ inline void power_csr_store_shared4(double *p, const double (&v)[4]) {
  reinterpret_cast<double2 *>(p)[0] = make_double2(v[0], v[1]);
  reinterpret_cast<double2 *>(p)[1] = make_double2(v[2], v[3]);
}

// nnz: entries of the whole matrix (no copy reads past it; CSR with int row pointers has
// nnz <= INT_MAX, so entry offsets are ints). vec: val and colind are 16-byte aligned (else
// every copy is of one element). Grid: at most one wave of resident blocks; slot_v/slot_i:
// gridDim.x entries; state->tiles_taken zero at launch.
template <class T, int TPR>
__global__ void __launch_bounds__(kPowerThreads, power_csr_min_blocks<T>())
power_csr_max(int n, long long nnz, const T *__restrict__ val, const int *__restrict__ colind,
              const int *__restrict__ rowptr, int base, bool vec, const T *__restrict__ x,
              T *__restrict__ y, T *slot_v, int *slot_i, PowerState<T> *state) {
  if (__ldcg(&state->stop) != kRunning) return;
  using Shape = CsrPowerShape<T, TPR>;
  constexpr int W = Shape::window, CH = Shape::chunks, R = Shape::rows, NG = Shape::groups;
  constexpr int RPG = Shape::rows_per_group;
  __shared__ __align__(16) T vals[2][W];  // tile i's window, then its products
  __shared__ __align__(16) int cols[2][W];
  __shared__ int rps[3][R + 1];            // row pointers of tiles i, i+1, i+2
  __shared__ int tile_ids[3];

  const int t = threadIdx.x, group = t / TPR, gl = t % TPR;
  const int tiles = int((n + (long long)R - 1) / R);
  const int entries = int(nnz);

  // Row pointers of tile `tile` into rps[slot] (rows past n: rowptr[n], i.e. empty).
  auto issue_rowptr = [&](int tile, int slot) {
    for (int r = t; r <= R; r += kPowerThreads) {
      const long long row = (long long)tile * R + r;
      async_copy::to_shared<4>(async_copy::shared_address(&rps[slot][r]), rowptr + (row < n ? row : (long long)n), 4);
    }
  };
  // Entries [w, we) of val/colind into buffer b; w is a multiple of 4 and we <= nnz. With vec
  // the last chunk of the arrays is cut at nnz (zero-filled); without, only [w, we) is copied.
  auto issue_window = [&](int w, int we, int b) {
    const int count = we - w;
#pragma unroll
    for (int u = 0; u < CH; ++u) {
      const int o = 4 * (t + u * kPowerThreads);
      if (o >= count) continue;
      const int k = w + o;
      if (vec) {
        const int left = entries - k < 4 ? entries - k : 4;
        async_copy::to_shared<16>(async_copy::shared_address(&cols[b][o]), colind + k, 4 * left);
        if constexpr (sizeof(T) == 4) {
          async_copy::to_shared<16>(async_copy::shared_address(&vals[b][o]), val + k, 4 * left);
        } else {
          async_copy::to_shared<16>(async_copy::shared_address(&vals[b][o]), val + k, left >= 2 ? 16 : 8 * left);
          // src-size 0 reads nothing, but the address stays inside the array.
          async_copy::to_shared<16>(async_copy::shared_address(&vals[b][o + 2]), left > 2 ? val + k + 2 : val + k,
                                    left > 2 ? 8 * (left - 2) : 0);
        }
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (o + q < count) {
            async_copy::to_shared<4>(async_copy::shared_address(&cols[b][o + q]), colind + k + q, 4);
            async_copy::to_shared<int(sizeof(T))>(async_copy::shared_address(&vals[b][o + q]), val + k + q,
                                                   int(sizeof(T)));
          }
      }
    }
  };
  auto window_end = [](int w, int e) { return e - w > W ? w + W : e; };

  // Prologue: tile 0's row pointers (waited for), its first window and tile 1's row pointers.
  // Tiles after the first come from the counter; thread 0 asks one tile ahead of what it
  // publishes in tile_ids, so that the atomic's latency hides behind a whole tile.
  int tile = int(blockIdx.x);
  unsigned ticket = 0;
  if (t == 0) {
    tile_ids[1] = int(min(gridDim.x + atomicAdd(&state->tiles_taken, 1u), unsigned(tiles)));
    ticket = gridDim.x + atomicAdd(&state->tiles_taken, 1u);
  }
  if (tile < tiles) issue_rowptr(tile, 0);
  async_copy::commit();
  async_copy::wait<0>();
  __syncthreads();
  int next = tile_ids[1];
  if (tile < tiles) {
    const int s = rps[0][0] - base, e = rps[0][R] - base;
    if (s < e) issue_window(s & ~3, window_end(s & ~3, e), 0);
    if (next < tiles) issue_rowptr(next, 1);
  }
  async_copy::commit();

  T best_v = T(0);
  int best_i = kNoIndex;
  for (int i = 0; tile < tiles; ++i) {
    const int slot = i % 3, b = i & 1;
    if (t == 0) {
      tile_ids[(i + 2) % 3] = int(min(ticket, unsigned(tiles)));
      if (ticket < unsigned(tiles)) ticket = gridDim.x + atomicAdd(&state->tiles_taken, 1u);
    }
    async_copy::wait<0>();  // tile i's window and tile i+1's row pointers
    __syncthreads();
    const int after_next = tile_ids[(i + 2) % 3];
    if (next < tiles) {  // overlaps this tile's work
      const int next_slot = (i + 1) % 3;
      const int s = rps[next_slot][0] - base, e = rps[next_slot][R] - base;
      if (s < e) issue_window(s & ~3, window_end(s & ~3, e), b ^ 1);
      if (after_next < tiles) issue_rowptr(after_next, (i + 2) % 3);
    }
    async_copy::commit();

    const int *rp = rps[slot];
    const int s = rp[0] - base, e = rp[R] - base;
    T acc[RPG];
#pragma unroll
    for (int r = 0; r < RPG; ++r) acc[r] = T(0);
    for (int w = s & ~3; w < e; w += W) {
      const int we = window_end(w, e);
      if (w != (s & ~3)) {  // a further window of a long tile: buffer b is free (barrier below)
        issue_window(w, we, b);
        async_copy::commit();
        async_copy::wait<0>();
        __syncthreads();
      }
      // 1. products in place. Offsets o are relative to w: entries [lo, hi) are this tile's.
      const int lo = s - w > 0 ? s - w : 0, hi = we - w;
      T v[CH][4];
      int c[CH][4];
#pragma unroll
      for (int u = 0; u < CH; ++u) {
        const int o = 4 * (t + u * kPowerThreads);
        const int4 ci = *reinterpret_cast<const int4 *>(&cols[b][o]);
        c[u][0] = ci.x - base; c[u][1] = ci.y - base; c[u][2] = ci.z - base; c[u][3] = ci.w - base;
        power_csr_shared4(&vals[b][o], v[u]);
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (o + q < lo || o + q >= hi) c[u][q] = -1;  // not this tile's: no gather
      }
#pragma unroll
      for (int u = 0; u < CH; ++u)
#pragma unroll
        for (int q = 0; q < 4; ++q) v[u][q] = c[u][q] >= 0 ? v[u][q] * __ldg(x + c[u][q]) : T(0);
#pragma unroll
      for (int u = 0; u < CH; ++u) {
        const int o = 4 * (t + u * kPowerThreads);
        if (o < hi && o + 4 > lo) power_csr_store_shared4(&vals[b][o], v[u]);
      }
      __syncthreads();
      // 2. each row's lanes add its products of this window.
#pragma unroll
      for (int r = 0; r < RPG; ++r) {
        const int row = group + r * NG;
        const int rs = rp[row] - base - w, re = rp[row + 1] - base - w;
        const int k_end = re < hi ? re : hi;
        for (int k = (rs > 0 ? rs : 0) + gl; k < k_end; k += TPR) acc[r] += vals[b][k];
      }
      if (we < e) __syncthreads();  // buffer b is refilled with the next window
    }
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      T sum = acc[r];
#pragma unroll
      for (int offset = TPR / 2; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset, TPR);
      const long long row = (long long)tile * R + group + r * NG;
      if (gl == 0 && row < n) {
        y[row] = sum;
        if (power_better(sum, int(row), best_v, best_i)) {
          best_v = sum;
          best_i = int(row);
        }
      }
    }
    tile = next;
    next = after_next;
  }
  async_copy::wait<0>();  // nothing may land in shared memory after the block is gone
  power_block_best(best_v, best_i);
  power_publish_max(best_v, best_i, blockIdx.x, gridDim.x, slot_v, slot_i, state);
}

}  // namespace cudrop::kernels
