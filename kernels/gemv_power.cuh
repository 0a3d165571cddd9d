#pragma once
// Dense mat-vec of the power method, fused with the max-reduction: y = A x (A n x n,
// column-major, leading dimension lda), then every row tile's largest |y_i| and, by the last
// tile, lambda (kernels/power.cuh).
//
// Bandwidth-bound GEMV with A read once: the grid is (row tiles) x (column chunks), flattened
// into blockIdx.x. A tile is 32*V rows: a warp reads V consecutive rows per lane (one 16-byte
// load when V > 1), i.e. 32*V*sizeof(T) contiguous bytes of a column, and the eight warps of a
// block take interleaved columns of the block's chunk, UNROLL columns in flight per warp.
// Their sums meet in shared memory, the chunk's partial sums go to `partial` (chunks x n), and
// the last chunk of a tile to arrive adds the chunks' partials in chunk order: y is the same
// bits whatever the scheduling, run after run.
#include "kernels/power.cuh"

namespace cudrop::kernels {

template <class T, int V> struct PowerVec { using type = T; };
template <> struct PowerVec<float, 4> { using type = float4; };
template <> struct PowerVec<double, 2> { using type = double2; };

template <class T, int V>
struct GemvPowerShape {
  static constexpr int V_ = V;
  static constexpr int rows = 32 * V;  // rows of one tile
  static constexpr int unroll = 4;     // columns in flight per warp
  static_assert(V == 1 || V * sizeof(T) == 16, "a lane loads one element or 16 bytes");
  static_assert(rows <= kPowerThreads, "one thread per row of the tile in the reduction");
};

template <class T, int V>
__device__ inline void power_accumulate(const typename PowerVec<T, V>::type &a, T xj, T (&acc)[V]) {
  if constexpr (V == 1) {
    acc[0] = fma(a, xj, acc[0]);
  } else if constexpr (V == 2) {
    acc[0] = fma(a.x, xj, acc[0]);
    acc[1] = fma(a.y, xj, acc[1]);
  } else {
    acc[0] = fma(a.x, xj, acc[0]);
    acc[1] = fma(a.y, xj, acc[1]);
    acc[2] = fma(a.z, xj, acc[2]);
    acc[3] = fma(a.w, xj, acc[3]);
  }
}

// Grid: tiles * chunks blocks of kPowerThreads, tiles = ceil(n / rows). Block b handles tile
// b / chunks, columns [c * chunk_cols, min(n, (c + 1) * chunk_cols)) with c = b % chunks.
// V > 1 needs A 16-byte aligned and lda a multiple of V (the launcher checks).
// slot_v/slot_i: tiles entries; tile_arrivals: tiles counters, zero before the first launch
// (each tile's last block resets its own).
template <class T, int V>
__global__ void __launch_bounds__(kPowerThreads)
power_gemv_max(int n, const T *__restrict__ A, size_t lda, const T *__restrict__ x,
               T *__restrict__ y, T *__restrict__ partial, int chunks, int chunk_cols, T *slot_v,
               int *slot_i, unsigned *tile_arrivals, PowerState<T> *state) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (__ldcg(&state->stop) != kRunning) return;
  using Shape = GemvPowerShape<T, V>;
  using Vec = typename PowerVec<T, V>::type;
  constexpr int R = Shape::rows, U = Shape::unroll, W = kPowerWarps;
  __shared__ T sums[W][R];

  const unsigned tile = blockIdx.x / unsigned(chunks), chunk = blockIdx.x % unsigned(chunks);
  const unsigned tiles = gridDim.x / unsigned(chunks);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row0 = (long long)tile * R + (long long)lane * V;  // this lane's first row
  const long long c0 = (long long)chunk * chunk_cols;
  const long long c1 = c0 + chunk_cols < n ? c0 + chunk_cols : n;

  T acc[V];
#pragma unroll
  for (int e = 0; e < V; ++e) acc[e] = T(0);
  if (row0 + V <= n) {
    // Whole vector of rows: UNROLL independent loads in flight, then their FMAs in column order.
    const T *a = A + row0;
    long long j = c0 + warp;
    for (; j + (U - 1) * W < c1; j += U * W) {
      Vec v[U];
      T xj[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        v[u] = power_matrix_load(reinterpret_cast<const Vec *>(a + size_t(j + u * W) * lda));
        xj[u] = __ldg(x + j + u * W);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) power_accumulate<T, V>(v[u], xj[u], acc);
    }
    for (; j < c1; j += W) {
      const Vec v = power_matrix_load(reinterpret_cast<const Vec *>(a + size_t(j) * lda));
      power_accumulate<T, V>(v, __ldg(x + j), acc);
    }
  } else if (row0 < n) {
    // The matrix's last rows, fewer than V: element loads, never past row n-1.
    const int valid = int(n - row0);
    for (long long j = c0 + warp; j < c1; j += W) {
      const T xj = __ldg(x + j);
      const T *a = A + size_t(j) * lda + row0;
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (e < valid) acc[e] = fma(power_matrix_load(a + e), xj, acc[e]);
    }
  }
#pragma unroll
  for (int e = 0; e < V; ++e) sums[warp][lane * V + e] = acc[e];
  __syncthreads();

  // This chunk's partial sums of the tile's rows (warps added in order).
  const long long row = (long long)tile * R + threadIdx.x;
  if (threadIdx.x < R && row < n) {
    T s = sums[0][threadIdx.x];
#pragma unroll
    for (int w = 1; w < W; ++w) s += sums[w][threadIdx.x];
    partial[size_t(chunk) * size_t(n) + size_t(row)] = s;
  }
  __threadfence();
  __syncthreads();
  __shared__ bool last_chunk;
  if (threadIdx.x == 0) last_chunk = atomicAdd(tile_arrivals + tile, 1u) == unsigned(chunks) - 1;
  __syncthreads();
  if (!last_chunk) return;
  if (threadIdx.x == 0) tile_arrivals[tile] = 0;
  __threadfence();

  // Last chunk of this tile: y = the chunks' partials added in chunk order; the tile's candidate.
  T best_v = T(0);
  int best_i = kNoIndex;
  if (threadIdx.x < R && row < n) {
    T s = __ldcg(partial + size_t(row));
    for (int c = 1; c < chunks; ++c) s += __ldcg(partial + size_t(c) * size_t(n) + size_t(row));
    y[row] = s;
    best_v = s;
    best_i = int(row);
  }
  power_block_best(best_v, best_i);
  power_publish_max(best_v, best_i, tile, tiles, slot_v, slot_i, state);
}

}  // namespace cudrop::kernels
