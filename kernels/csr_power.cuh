#pragma once
// CSR mat-vec of the power method, fused with the max-reduction: y = A x with A in CSR
// (val, colind, rowptr, indices offset by base = 0 or 1), then each block's largest |y_i| and,
// by the last block, lambda (kernels/power.cuh).
//
// Bandwidth-bound SpMV ("CSR-stream"): the rows are cut into tiles of Shape::rows consecutive
// rows; a block takes a tile, and its entries [rowptr(first row), rowptr(last row + 1)) form one
// contiguous range of val/colind, read in windows of Shape::window entries:
//  1. stream: every thread loads 4-entry chunks of the window, 16-byte vector loads (values and
//     column indices) when the arrays are 16-byte aligned, with the streaming (evict-first)
//     cache hint so that they do not push x out of L1/L2; all of a thread's chunks are in
//     flight together, then their x gathers (__ldg: x is what should stay cached), then the
//     products v * x go to shared memory;
//  2. reduce: TPR lanes per row (the smallest power of two >= the average row length, up to a
//     warp) add the products of their row from shared memory, lane l taking the row's entries
//     l, l + TPR, ... of the window, each lane from +0 (as the CPU path: a sum is never -0);
//     after the tile's last window the lanes' sums are added with a xor butterfly.
// A row longer than a window is read over several windows; the split depends only on where
// the tile's entries start, so the same bits come out run after run. Tiles are handed out by
// an atomic counter (state->tiles_taken, reset by the last block), so the blocks finish
// together whatever the row lengths; the sums do not depend on which block took a tile. The
// grid is one wave of resident blocks (slot_v/slot_i: gridDim.x entries). Each block also
// fetches the next tile's row pointers while it works on the current one.
// The structure must have been validated (power_csr_validate): no index is checked here.
#include "kernels/power.cuh"

namespace cudrop::kernels {

template <int TPR>
struct CsrPowerShape {
  static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR: a power of two up to 32");
  static constexpr int lanes_per_row = TPR;
  static constexpr int window = 4096;                         // entries staged at a time
  static constexpr int chunks = window / (4 * kPowerThreads); // 4-entry chunks per thread
  static constexpr int groups = kPowerThreads / TPR;          // rows reduced at a time
  // Rows of a tile: about half a window of entries when rows are TPR long (most tiles need one
  // window, and a tile's loads are many), at most 1024 (the row pointers in shared memory).
  static constexpr int rows = window / (2 * TPR) < 1024 ? window / (2 * TPR) : 1024;
  static constexpr int rows_per_group = rows / groups;
  static constexpr int rowptr_per_thread = (rows + 1 + kPowerThreads - 1) / kPowerThreads;
  static_assert(window % (4 * kPowerThreads) == 0 && rows % groups == 0, "shape");
};

// Four consecutive entries (k 4-aligned), streaming loads.
__device__ inline void power_csr_load4(const float *p, float (&v)[4]) {
  const float4 q = __ldcs(reinterpret_cast<const float4 *>(p));
  v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
}
__device__ inline void power_csr_load4(const double *p, double (&v)[4]) {
  const double2 a = __ldcs(reinterpret_cast<const double2 *>(p));
  const double2 b = __ldcs(reinterpret_cast<const double2 *>(p) + 1);
  v[0] = a.x; v[1] = a.y; v[2] = b.x; v[3] = b.y;
}
__device__ inline void power_csr_store4(float *p, const float (&v)[4]) {
  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
__device__ inline void power_csr_store4(double *p, const double (&v)[4]) {
  reinterpret_cast<double2 *>(p)[0] = make_double2(v[0], v[1]);
  reinterpret_cast<double2 *>(p)[1] = make_double2(v[2], v[3]);
}

// Resident blocks per SM the registers are capped for (float: 4 = 64 registers, no spill;
// double: 2, since 3 would spill).
template <class T> constexpr int power_csr_min_blocks() { return sizeof(T) == 4 ? 4 : 2; }

// nnz: entries of the whole matrix (the vector loads never read past it). vec: val and colind
// are 16-byte aligned (else every load is a scalar one). Grid: at most one wave of resident
// blocks; slot_v/slot_i: gridDim.x entries; state->tiles_taken zero at launch.
template <class T, int TPR>
__global__ void __launch_bounds__(kPowerThreads, power_csr_min_blocks<T>())
power_csr_max(int n, long long nnz, const T *__restrict__ val, const int *__restrict__ colind,
              const int *__restrict__ rowptr, int base, bool vec, const T *__restrict__ x,
              T *__restrict__ y, T *slot_v, int *slot_i, PowerState<T> *state) {
  if (__ldcg(&state->stop) != kRunning) return;
  using Shape = CsrPowerShape<TPR>;
  constexpr int W = Shape::window, CH = Shape::chunks, R = Shape::rows, NG = Shape::groups;
  constexpr int RPG = Shape::rows_per_group, NRP = Shape::rowptr_per_thread;
  __shared__ __align__(16) T products[W];
  __shared__ int rp[R + 1];
  __shared__ int next_shared;

  const int t = threadIdx.x, group = t / TPR, gl = t % TPR;
  const int tiles = int((n + (long long)R - 1) / R);

  int rpv[NRP];
  auto fetch_rowptr = [&](int tile) {
#pragma unroll
    for (int j = 0; j < NRP; ++j) {
      const int r = t + j * kPowerThreads;
      if (r <= R) {
        const long long row = (long long)tile * R + r;
        rpv[j] = __ldg(rowptr + (row < n ? row : (long long)n));  // rows past n: empty
      }
    }
  };

  T best_v = T(0);
  int best_i = kNoIndex;
  int tile = int(blockIdx.x);
  unsigned ticket = 0;  // thread 0: the tile after the next one
  if (tile < tiles) {
    fetch_rowptr(tile);
    if (t == 0) ticket = gridDim.x + atomicAdd(&state->tiles_taken, 1u);
  }
  while (tile < tiles) {
#pragma unroll
    for (int j = 0; j < NRP; ++j)
      if (t + j * kPowerThreads <= R) rp[t + j * kPowerThreads] = rpv[j];
    if (t == 0) next_shared = int(min(ticket, unsigned(tiles)));
    __syncthreads();
    const int next = next_shared;
    if (next < tiles) {  // overlaps this tile's work
      fetch_rowptr(next);
      if (t == 0) ticket = gridDim.x + atomicAdd(&state->tiles_taken, 1u);
    }

    const long long s = (long long)rp[0] - base, e = (long long)rp[R] - base;
    T acc[RPG];
#pragma unroll
    for (int r = 0; r < RPG; ++r) acc[r] = T(0);
    for (long long w = s & ~3LL; w < e; w += W) {
      const long long we = w + W < e ? w + W : e;
      // 1. stream the window: loads, then gathers, then products into shared memory. Offsets
      // o are relative to w: entries [lo, hi) of the window are this tile's.
      const int lo = s > w ? int(s - w) : 0, hi = int(we - w);
      const int vec_end = vec ? (nnz - w < W ? int(nnz - w) : W) : 0;  // vector loads below this
      const T *vw = val + w;
      const int *cw = colind + w;
      T v[CH][4];
      int c[CH][4];
#pragma unroll
      for (int u = 0; u < CH; ++u) {
        const int o = 4 * (t + u * kPowerThreads);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          v[u][q] = T(0);
          c[u][q] = -1;  // not an entry of this tile's window: no gather
        }
        if (o < hi && o + 4 > lo) {
          if (o + 4 <= vec_end) {
            power_csr_load4(vw + o, v[u]);
            const int4 ci = __ldcs(reinterpret_cast<const int4 *>(cw + o));
            c[u][0] = ci.x - base; c[u][1] = ci.y - base; c[u][2] = ci.z - base; c[u][3] = ci.w - base;
#pragma unroll
            for (int q = 0; q < 4; ++q)
              if (o + q < lo || o + q >= hi) c[u][q] = -1;
          } else {
#pragma unroll
            for (int q = 0; q < 4; ++q)
              if (o + q >= lo && o + q < hi) {
                v[u][q] = __ldcs(vw + o + q);
                c[u][q] = __ldcs(cw + o + q) - base;
              }
          }
        }
      }
#pragma unroll
      for (int u = 0; u < CH; ++u)
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (c[u][q] >= 0) v[u][q] = v[u][q] * __ldg(x + c[u][q]);
#pragma unroll
      for (int u = 0; u < CH; ++u) power_csr_store4(products + 4 * (t + u * kPowerThreads), v[u]);
      __syncthreads();
      // 2. each row's lanes add its products of this window.
#pragma unroll
      for (int r = 0; r < RPG; ++r) {
        const int row = group + r * NG;
        const long long rs = (long long)rp[row] - base, re = (long long)rp[row + 1] - base;
        const int k_end = int((re < we ? re : we) - w);
        for (int k = int((rs > w ? rs : w) - w) + gl; k < k_end; k += TPR) acc[r] += products[k];
      }
      __syncthreads();  // products free for the next window
    }
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      T sum = acc[r];
#pragma unroll
      for (int offset = TPR / 2; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset, TPR);
      const long long i = (long long)tile * R + group + r * NG;
      if (gl == 0 && i < n) {
        y[i] = sum;
        if (power_better(sum, int(i), best_v, best_i)) {
          best_v = sum;
          best_i = int(i);
        }
      }
    }
    __syncthreads();  // rp and next_shared free for the next tile
    tile = next;
  }
  power_block_best(best_v, best_i);
  power_publish_max(best_v, best_i, blockIdx.x, gridDim.x, slot_v, slot_i, state);
}

}  // namespace cudrop::kernels
