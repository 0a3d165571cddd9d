#pragma once
// CSR mat-vec of the power method, fused with the max-reduction: y = A x with A in CSR
// (val, colind, rowptr, indices offset by base = 0 or 1), then each block's largest |y_i| and,
// by the last block, lambda (kernels/power.cuh).
//
// Bandwidth-bound SpMV, "CSR-stream" per warp:
//  * Block b owns the contiguous rows [part_rows[b], part_rows[b+1]), about nnz / gridDim.x
//    entries each (power_csr_partition, once per call), and its warps walk them together.
//    That keeps x cheap: with columns near the diagonal the block's x window slides along in
//    L1. (Rows handed out in tiles from a counter would leave a block's x window cold after
//    every tile, and it would fetch about as many x sectors from L2 as it reads matrix bytes
//    from DRAM: docs/perf/README.md, CSR power kernel.)
//  * A warp takes G = 32 / TPR consecutive rows at a time (TPR lanes per row:
//    csr_lanes_per_row) and streams their entries, one contiguous range, in chunks of 128
//    aligned to 4 entries: each lane loads 4 consecutive values and column indices (one 16-byte
//    load of each when vec), gathers their x and parks the products in the warp's
//    shared-memory buffer; then each row's lanes add the products of their row and a xor
//    butterfly adds the lanes. Every load instruction reads whole lines (a lane-per-entry
//    "vector" kernel touches each sector once per entry a lane takes), no block barrier.
//  * Lane gl of a row adds the row's entries gl, gl + TPR, ... in order, from +0 (never -0,
//    as the CPU path), carried from chunk to chunk: the bits depend only on the row lengths,
//    not on the grid or where the chunks fall.
// The structure must have been validated (power_csr_validate): no index is checked here.
#include "kernels/power.cuh"

namespace cudrop::kernels {

// Lanes per row: the power of two nearest an eighth of the average row length (1 to 32). The
// lanes of a row share its fixed costs (bounds, butterfly, the store of y_i); fewer lanes
// leave more of them idle while one long row is added. 8, 16 and 32 entries per row run
// best with 1, 2 and 4 lanes (docs/perf/README.md, CSR power kernel).
inline int csr_lanes_per_row(int n, long long nnz) {
  const double eighth = n > 0 ? double(nnz) / n / 8 : 0.0;
  int tpr = 1;
  while (tpr < 32 && 2 * tpr <= 1.41421356 * eighth) tpr *= 2;  // nearest in ratio
  return tpr;
}

// Rows a warp takes at a time.
template <int TPR> __host__ __device__ constexpr int csr_rows_per_warp() { return 32 / TPR; }

// part_rows[b] (b <= parts) = the first row whose entries start at or after b * nnz / parts,
// part_rows[parts] = n. Reads rowptr[0..n) only; a structure that is not monotone gives some
// block an empty or partial range, and never reaches the mat-vec (power_csr_validate stops
// the loop first).
static __global__ void __launch_bounds__(kPowerThreads)  // static: one copy per translation unit
power_csr_partition(int n, long long nnz, const int *__restrict__ rowptr, int base, int parts,
                    int *__restrict__ part_rows) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b <= parts; b += gridDim.x * blockDim.x) {
    if (b == 0 || b == parts) {
      part_rows[b] = b == 0 ? 0 : n;
      continue;
    }
    part_rows[b] = power_lower_bound(rowptr, n, (long long)base + nnz * b / parts);
  }
}

// nnz: entries of the whole matrix (no load reaches past it; CSR with int row pointers has
// nnz <= INT_MAX, so entry offsets are ints). vec: val and colind are 16-byte aligned (else
// one element per load). part_rows: gridDim.x + 1 entries (power_csr_partition);
// slot_v/slot_i: gridDim.x entries.
template <class T, int TPR>
__global__ void __launch_bounds__(kPowerThreads)
power_csr_max(int n, long long nnz, const T *__restrict__ val, const int *__restrict__ colind,
              const int *__restrict__ rowptr, int base, bool vec, const int *__restrict__ part_rows,
              const T *__restrict__ x, T *__restrict__ y, T *slot_v, int *slot_i, PowerState<T> *state) {
  static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR: a power of two up to 32");
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (__ldcg(&state->stop) != kRunning) return;
  constexpr int G = csr_rows_per_warp<TPR>(), C = 128;
  // Entry o of a chunk is parked at (o % 4) * 32 + o / 4: a lane's 4 stores are conflict-free
  // and lanes reading rows that start a few entries apart hit different banks.
  __shared__ T products[kPowerWarps][C];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, group = lane / TPR, gl = lane % TPR;
  T *parked = products[warp];
  const int first = part_rows[blockIdx.x];
  const int last = min(part_rows[blockIdx.x + 1], n);
  const int entries = int(nnz);
  // Warp w takes the block's steps w, w + kPowerWarps, ...; a step is G rows.
  constexpr long long kStride = (long long)kPowerWarps * G;
  long long row = first + (long long)warp * G;

  // This lane's row of the step at `at`: its entry range (empty past the block's rows).
  auto bounds = [&](long long at, int &begin, int &end) {
    const long long i = at + group;
    begin = end = 0;
    if (i < last) {
      begin = power_matrix_load(rowptr + i) - base;
      end = power_matrix_load(rowptr + i + 1) - base;
    }
  };
  int begin, end;
  bounds(row, begin, end);

  T best_v = T(0);
  int best_i = kNoIndex;
  for (; row < last; row += kStride) {
    int next_begin, next_end;
    bounds(row + kStride, next_begin, next_end);  // in flight while this step runs
    const int start = __shfl_sync(0xffffffffu, begin, 0);  // row `row` < last: its begin
    const int stop = __reduce_max_sync(0xffffffffu, end);  // rows past last: end 0
    T sum = T(0);
    int k = begin + gl;  // this lane's next entry
    for (int c0 = start & ~3; c0 < stop; c0 += C) {
      const int k0 = c0 + 4 * lane;
      T v[4];
      int c[4];
      if (vec && k0 + 4 <= entries && k0 < stop) {
        const int4 ci = power_matrix_load(reinterpret_cast<const int4 *>(colind + k0));
        c[0] = ci.x - base; c[1] = ci.y - base; c[2] = ci.z - base; c[3] = ci.w - base;
        if constexpr (sizeof(T) == 4) {
          const float4 q = power_matrix_load(reinterpret_cast<const float4 *>(val + k0));
          v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
        } else {
          const double2 a = power_matrix_load(reinterpret_cast<const double2 *>(val + k0));
          const double2 b = power_matrix_load(reinterpret_cast<const double2 *>(val + k0 + 2));
          v[0] = a.x; v[1] = a.y; v[2] = b.x; v[3] = b.y;
        }
      } else {  // unaligned arrays, the arrays' last chunk, or lanes past the step's entries
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          v[q] = T(0);
          c[q] = -1;
          if (k0 + q < stop && k0 + q < entries) {
            v[q] = power_matrix_load(val + k0 + q);
            c[q] = power_matrix_load(colind + k0 + q) - base;
          }
        }
      }
      // Entries of the chunk before `start` (alignment) or past `stop` belong to other rows;
      // their indices are valid, their products are never added.
      T xv[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) xv[q] = c[q] >= 0 ? power_vector_gather(x + c[q]) : T(0);
#pragma unroll
      for (int q = 0; q < 4; ++q) parked[q * 32 + lane] = v[q] * xv[q];
      __syncwarp();
      const int hi = end < c0 + C ? end : c0 + C;
      for (; k < hi; k += TPR) {
        const int o = k - c0;
        sum += parked[(o & 3) * 32 + (o >> 2)];
      }
      __syncwarp();  // the buffer is refilled by the next chunk
    }
#pragma unroll
    for (int offset = TPR / 2; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset, TPR);
    const long long i = row + group;
    if (gl == 0 && i < last) {
      y[i] = sum;
      if (power_better(sum, int(i), best_v, best_i)) {
        best_v = sum;
        best_i = int(i);
      }
    }
    begin = next_begin;
    end = next_end;
  }
  power_block_best(best_v, best_i);
  power_publish_max(best_v, best_i, blockIdx.x, gridDim.x, slot_v, slot_i, state);
}

}  // namespace cudrop::kernels
