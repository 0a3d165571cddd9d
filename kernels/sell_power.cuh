#pragma once
// CSR mat-vec of the power method through a SELL-32-sigma copy of the matrix, fused with the
// max-reduction like the CSR-stream kernel (kernels/csr_power.cuh), which stays the path for
// matrices this format does not suit (rows longer than kSellMaxWidth, or too much padding).
//
// The copy is built once per call on the GPU, the loop then reads only it:
//  * rows are sorted by length (longest first, ties by row) within windows of kSellWindow
//    rows; position p of the sorted order is (window, rank), row_of[p] its row (-1 past n),
//    row_len[p] its length;
//  * a slice is 32 consecutive positions, one lane each; entry j of lane l of slice s is at
//    slice_start[s] + 32 j + l (column-major in the slice), slice s is as wide as its first
//    (longest) lane, the lanes' shorter rows leave padding that is never read.
// A warp takes a slice at a time and each lane adds its own row, entries in order from +0,
// as the CPU path does: the sums are bit for bit the CPU path's. Every load instruction reads
// 32 consecutive elements of val and of the column indices, and U entries of a lane are
// loaded before their x is gathered, so ~2-4 KB per warp are in flight; the CSR-stream kernel
// parks products in shared memory and keeps less in flight per warp, and is slower with
// columns in a band. With random columns both are bound by one L2 sector per gather
// (docs/perf/README.md, SELL power copy). Which matrices get the copy: impl/power/power_csr.cu.
// Sorting within windows keeps the padding small (1.5% on rows of 4..12 entries) and y local:
// a lane writes y[row_of[p]], within a window of its slice.
//
// The loop reads the copy's bytes once per iteration, so the copy is kept small:
//  * row_word[p] packs what a lane needs of its position, the row's offset in its window
//    (10 bits) and its length, one 4-byte load instead of two;
//  * where every entry's column is within 32768 of its row, cyclically (|j - i| mod n, the
//    band of a FEM mesh or an RCM-ordered graph, periodic boundaries included), the column
//    indices are stored as 16-bit distances from the row: 6 bytes an entry in float instead
//    of 8. power_sell_reach finds out, once per call.
#include "kernels/power.cuh"
#include "kernels/sell_index.h"

namespace cudrop::kernels {

constexpr int kSellWindow = 1024;  // sigma; also the block size of power_sell_sort
constexpr int kSellMaxWidth = 256; // the longest row the format takes: a slice keeps one warp
                                   // for width / U load rounds, ~1 us each
constexpr int kSellLanes = 32;     // rows per slice

// What power_sell_widths finds: padded entries of the copy, and the widest slice; and
// power_sell_reach: whether some column is too far from its row for a 16-bit distance.
struct SellStats {
  long long entries;
  int widest;
  int far;
};

// The column a stored index names: as stored (int), or the row plus a 16-bit distance
// (kernels/sell_index.h).
__device__ __forceinline__ int sell_column(int stored, int, int) { return stored; }
__device__ __forceinline__ int sell_column(short stored, int row, int n) { return sell_column_near(stored, row, n); }

// row_word: the row's offset in its window (low 10 bits) and its length above them.
constexpr int kSellOffsetBits = 10;
static_assert((1 << kSellOffsetBits) == 1024, "a window's offsets take kSellOffsetBits bits");
__host__ __device__ constexpr int sell_word(int offset, int length) {
  return offset | ((length < (1 << 20) ? length : (1 << 20)) << kSellOffsetBits);
}

// Positions of the sorted order (a multiple of kSellWindow) and slices for n rows.
__host__ __device__ constexpr long long sell_positions(int n) {
  return ((long long)n + kSellWindow - 1) / kSellWindow * kSellWindow;
}
__host__ __device__ constexpr int sell_slices(int n) { return int(sell_positions(n) / kSellLanes); }

// One block of kSellWindow threads per window: each thread ranks its row. Reads rowptr only; a
// row pointer that decreases counts as an empty row (the structure check stops such a matrix
// before the copy is filled). Positions past n get offsets that name rows past n.
static __global__ void __launch_bounds__(kSellWindow)
power_sell_sort(int n, const int *__restrict__ rowptr, int *__restrict__ row_of, int *__restrict__ row_len,
                int *__restrict__ row_word) {
  __shared__ int lengths[kSellWindow];
  const long long row = (long long)blockIdx.x * kSellWindow + threadIdx.x;
  const int length = row < n ? max(0, __ldg(rowptr + row + 1) - __ldg(rowptr + row)) : -1;
  lengths[threadIdx.x] = length;
  __syncthreads();
  int rank = 0;
  for (int j = 0; j < kSellWindow; ++j) {
    const int other = lengths[j];
    rank += other > length || (other == length && j < int(threadIdx.x));
  }
  const long long at = (long long)blockIdx.x * kSellWindow + rank;
  row_of[at] = row < n ? int(row) : -1;
  row_len[at] = max(length, 0);
  row_word[at] = sell_word(int(threadIdx.x), max(length, 0));
}

// stats->far (zeroed before) = 1 when some entry's column is too far from its row for a
// 16-bit distance. One thread per row; runs before the structure check is known to have
// passed, so it reads only entries inside [0, nnz) and skips columns outside [0, n).
static __global__ void __launch_bounds__(kPowerThreads)
power_sell_reach(int n, long long nnz, const int *__restrict__ colind, const int *__restrict__ rowptr, int base,
                 SellStats *__restrict__ stats) {
  bool far = false;
  for (long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x; row < n && !far;
       row += (long long)gridDim.x * blockDim.x) {
    const long long from = max(0LL, (long long)__ldg(rowptr + row) - base);
    const long long to = min(nnz, (long long)__ldg(rowptr + row + 1) - base);
    for (long long k = from; k < to; ++k) {
      const int j = __ldg(colind + k) - base;
      bool this_far = false;
      if (j >= 0 && j < n) sell_distance(j, int(row), n, &this_far);
      far = far || this_far;
    }
  }
  if (__syncthreads_or(far) && threadIdx.x == 0) atomicOr(&stats->far, 1);
}

// slice_start[s] = 32 * (width of slices 0..s-1), slice_start[slices] = the padded entries;
// stats: those and the widest slice. One block of 1024 threads walks the slices in chunks.
static __global__ void __launch_bounds__(1024)
power_sell_widths(int slices, const int *__restrict__ row_len, long long *__restrict__ slice_start,
                  SellStats *__restrict__ stats) {
  __shared__ long long warp_sums[32];
  __shared__ long long carry;
  __shared__ int widest[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) carry = 0;
  int my_widest = 0;
  for (int base = 0; base < slices; base += 1024) {
    const int s = base + threadIdx.x;
    const int width = s < slices ? row_len[(long long)s * kSellLanes] : 0;  // lane 0 is the longest
    my_widest = max(my_widest, width);
    long long sum = (long long)kSellLanes * width;  // inclusive scan in the warp, then of the warps
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const long long up = __shfl_up_sync(0xffffffffu, sum, d);
      if (lane >= d) sum += up;
    }
    if (lane == 31) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
      long long w = warp_sums[lane];
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const long long up = __shfl_up_sync(0xffffffffu, w, d);
        if (lane >= d) w += up;
      }
      warp_sums[lane] = w;  // inclusive over warps
    }
    __syncthreads();
    const long long before = carry + (warp > 0 ? warp_sums[warp - 1] : 0);
    if (s < slices) slice_start[s] = before + sum - (long long)kSellLanes * width;
    __syncthreads();
    if (threadIdx.x == 0) carry += warp_sums[31];
    __syncthreads();
  }
  my_widest = __reduce_max_sync(0xffffffffu, my_widest);
  if (lane == 0) widest[warp] = my_widest;
  __syncthreads();
  if (threadIdx.x == 0) {
    int w = 0;
    for (int i = 0; i < 32; ++i) w = max(w, widest[i]);
    slice_start[slices] = carry;
    stats->entries = carry;
    stats->widest = w;
  }
}

// The copy: one thread per position. Only for a structure that passed the check, and with
// Col = short only where power_sell_reach found every distance to fit.
template <class T, class Col>
__global__ void __launch_bounds__(kPowerThreads)
power_sell_fill(int n, int slices, const T *__restrict__ val, const int *__restrict__ colind,
                const int *__restrict__ rowptr, int base, const int *__restrict__ row_of,
                const int *__restrict__ row_len, const long long *__restrict__ slice_start, T *__restrict__ sell_val,
                Col *__restrict__ sell_col) {
  const long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (p >= (long long)slices * kSellLanes) return;
  const long long s = p / kSellLanes;
  const int lane = int(p % kSellLanes);
  const int row = row_of[p], length = row_len[p], width = row_len[s * kSellLanes];
  const long long from = row >= 0 ? (long long)rowptr[row] - base : 0;
  const long long to = slice_start[s] + lane;
  for (int j = 0; j < width; ++j) {
    const bool mine = j < length;
    int column = mine ? colind[from + j] - base : 0;
    if constexpr (sizeof(Col) < sizeof(int)) {
      bool far = false;
      column = mine ? sell_distance(column, row, n, &far) : 0;
    }
    sell_val[to + (long long)kSellLanes * j] = mine ? val[from + j] : T(0);
    sell_col[to + (long long)kSellLanes * j] = Col(column);
  }
}

// part[b] (b <= parts) = the first slice starting at or after b * entries / parts.
static __global__ void __launch_bounds__(kPowerThreads)
power_sell_partition(int slices, const long long *__restrict__ slice_start, int parts, int *__restrict__ part) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b <= parts; b += gridDim.x * blockDim.x) {
    if (b == 0 || b == parts) {
      part[b] = b == 0 ? 0 : slices;
      continue;
    }
    part[b] = power_lower_bound(slice_start, slices, slice_start[slices] * b / parts);
  }
}

// y = A x and the fused max (power_publish_max). Block b owns slices [part[b], part[b+1]); its
// warps take P of them at a time (P rows per lane in flight) and load U entries of each per
// round. The next step's slice descriptions are loaded while this step runs. Col: int column
// indices, or short distances from the row (sell_column).
template <class T, class Col, int U, int P>
__global__ void __launch_bounds__(kPowerThreads)
power_sell_max(int n, const T *__restrict__ sell_val, const Col *__restrict__ sell_col,
               const int *__restrict__ row_word, const long long *__restrict__ slice_start,
               const int *__restrict__ part, const T *__restrict__ x, T *__restrict__ y, T *slot_v, int *slot_i,
               PowerState<T> *state) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (__ldcg(&state->stop) != kRunning) return;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int first = part[blockIdx.x], last = part[blockIdx.x + 1];
  constexpr int kStep = kPowerWarps * P;
  int row[P], length[P];
  long long at[P];
  auto describe = [&](int s, int q) {
    row[q] = -1;
    length[q] = 0;
    at[q] = 0;
    if (s < last) {
      const long long position = (long long)s * kSellLanes + lane;
      const int word = power_matrix_load(row_word + position);
      const long long r = (position & ~((1LL << kSellOffsetBits) - 1)) + (word & ((1 << kSellOffsetBits) - 1));
      row[q] = r < n ? int(r) : -1;
      length[q] = word >> kSellOffsetBits;
      at[q] = power_matrix_load(slice_start + s) + lane;
    }
  };
  int s = first + warp * P;
#pragma unroll
  for (int q = 0; q < P; ++q) describe(s + q, q);
  T best_v = T(0);
  int best_i = kNoIndex;
  for (; s < last; s += kStep) {
    int my_row[P], my_length[P];
    long long my_at[P];
#pragma unroll
    for (int q = 0; q < P; ++q) {
      my_row[q] = row[q];
      my_length[q] = length[q];
      my_at[q] = at[q];
    }
#pragma unroll
    for (int q = 0; q < P; ++q) describe(s + kStep + q, q);
    int width = 0;
#pragma unroll
    for (int q = 0; q < P; ++q) width = max(width, __shfl_sync(0xffffffffu, my_length[q], 0));
    T sum[P];
#pragma unroll
    for (int q = 0; q < P; ++q) sum[q] = T(0);
    for (int j = 0; j < width; j += U) {
      T v[P][U], xv[P][U];
      int c[P][U];
#pragma unroll
      for (int q = 0; q < P; ++q)
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const bool on = j + u < my_length[q];
          const long long e = my_at[q] + (long long)kSellLanes * (j + u);
          v[q][u] = on ? power_matrix_load(sell_val + e) : T(0);
          c[q][u] = on ? sell_column(power_matrix_load(sell_col + e), my_row[q], n) : -1;
        }
#pragma unroll
      for (int q = 0; q < P; ++q)
#pragma unroll
        for (int u = 0; u < U; ++u) xv[q][u] = c[q][u] >= 0 ? power_vector_gather(x + c[q][u]) : T(0);
#pragma unroll
      for (int q = 0; q < P; ++q)
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + u < my_length[q]) sum[q] += v[q][u] * xv[q][u];
    }
#pragma unroll
    for (int q = 0; q < P; ++q)
      if (my_row[q] >= 0) {
        y[my_row[q]] = sum[q];
        if (power_better(sum[q], my_row[q], best_v, best_i)) {
          best_v = sum[q];
          best_i = my_row[q];
        }
      }
  }
  power_block_best(best_v, best_i);
  power_publish_max(best_v, best_i, blockIdx.x, gridDim.x, slot_v, slot_i, state);
}

}  // namespace cudrop::kernels
