#pragma once
// The power method on the GPU, the parts the dense and CSR paths share:
//  * PowerState: the iteration's state on the device, and its stop codes;
//  * the rule choosing lambda (first index of the largest magnitude): core/power_rule.h,
//    shared with the CPU loop;
//  * power_publish_max: the fused second stage of the max-reduction (the last block of the
//    mat-vec kernel to finish reduces every block's candidate and records lambda);
//  * power_scale_check: the second launch of an iteration: x = y / lambda, the convergence
//    flag, and (last block) the iteration count and the decision to stop;
//  * power_fill, power_csr_validate: once per call.
//
// One iteration = two launches: the mat-vec kernel (kernels/gemv_power.cuh or
// kernels/csr_power.cuh) and power_scale_check. Each starts by reading state->stop and
// returns at once unless it is kRunning, so that launches issued after the iteration that
// stopped are no-ops: the host may queue a batch of iterations and look at the state only
// after the batch, and the results are those of checking after every iteration.
// Cross-block communication inside one kernel uses only the "last block" pattern (writes,
// __threadfence, an atomic counter; the block that sees the final count reads everything
// through L2): no block ever waits for another, so any grid size is safe.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <cstring>

#include "core/power_rule.h"
#include "kernels/dependent_launch.cuh"

namespace cudrop::kernels {

constexpr int kPowerThreads = 256;  // block size of every power kernel
constexpr int kPowerWarps = kPowerThreads / 32;

// Why the iteration stopped (state->stop). kRunning until then.
enum PowerStop : int {
  kRunning = 0,
  kConverged = 1,  // max |y/lambda - x| < tol                       -> INFO = 0
  kLimit = 2,      // MAXIT iterations done without converging      -> INFO = 1
  kZero = 3,       // y = A x is exactly zero: lambda = 0           -> INFO = 2
  kNonFinite = 4,  // the largest |y_i| is Inf or NaN               -> INFO = 3
  kBadColind = 5,  // a column index outside [base, base + n)       -> INFO = -3
  kBadRowptr = 6,  // row pointers not starting at base / decreasing -> INFO = -4 (wins over kBadColind)
};

template <class T>
struct PowerState {
  T lambda;                  // lambda of the last iteration done (0 before the first)
  int stop;                  // PowerStop
  int iterations;            // iterations done (mat-vecs whose result was used)
  int not_converged;         // this iteration: some |y_i/lambda - x_i| >= tol (or NaN)
  unsigned arrivals;         // mat-vec kernel: blocks (row tiles) whose candidate is in
  unsigned scale_arrivals;   // power_scale_check: blocks done
};

// The empty candidate: loses to every real one (magnitude 0, index after every row).
constexpr int kNoIndex = INT_MAX;

#ifdef __CUDACC__

// The first i in [0, count) with sorted[i] >= target (count when none): the partition kernels'
// search of a block's first row or slice by entries.
template <class Index>
__device__ inline int power_lower_bound(const Index *__restrict__ sorted, int count, long long target) {
  int lo = 0, hi = count;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if ((long long)sorted[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Loads of the matrix (values, column indices, row pointers, SELL descriptions, dense columns):
// each byte is read once per iteration, so they are marked evict-first (ld.global.cs) and the
// vectors (x gathered, y written, then both read by power_scale_check) keep their lines in L2
// while the matrix streams past. That gains with columns in a band, where x is reused; random
// columns and dense matrices are unchanged (docs/perf/README.md, power cache hints).
template <class V>
__device__ __forceinline__ V power_matrix_load(const V *p) {
  return __ldcs(p);
}

// A gathered x_j of the CSR kernels. Double also marks it evict-last in L2 (x and y are 16 MB
// each at 2M rows), which gains with columns in a band; in float the same hint loses, so
// float loads plainly (docs/perf/README.md, power cache hints).
template <class T>
__device__ __forceinline__ T power_vector_gather(const T *p) {
  if constexpr (sizeof(T) == 8) {
    T v;
    asm("{\n\t.reg .b64 policy;\n\tcreatepolicy.fractional.L2::evict_last.b64 policy, 1.0;\n\t"
        "ld.global.nc.L2::cache_hint.f64 %0, [%1], policy;\n\t}"
        : "=d"(v)
        : "l"(p));
    return v;
  } else {
    return __ldg(p);
  }
}

template <class T>
__device__ inline void power_warp_best(T &v, int &i) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const T ov = __shfl_down_sync(0xffffffffu, v, offset);
    const int oi = __shfl_down_sync(0xffffffffu, i, offset);
    if (power_better(ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
}

// Every thread of the block calls it; the block's best candidate ends in thread 0.
template <class T>
__device__ inline void power_block_best(T &v, int &i) {
  __shared__ T warp_v[kPowerWarps];
  __shared__ int warp_i[kPowerWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  power_warp_best(v, i);
  if (lane == 0) {
    warp_v[warp] = v;
    warp_i[warp] = i;
  }
  __syncthreads();
  if (warp == 0) {
    v = lane < kPowerWarps ? warp_v[lane] : T(0);
    i = lane < kPowerWarps ? warp_i[lane] : kNoIndex;
    power_warp_best(v, i);
  }
  __syncthreads();  // warp_v/warp_i are free again for a later call
}

// Second stage of the max-reduction, fused into the mat-vec kernel. Every thread of the block
// calls it, with the block's candidate (v, i) in thread 0 (power_block_best). The candidate is
// published in slot `slot` of (slot_v, slot_i); the last of `slots` publishers reduces all of
// them and records lambda, or the breakdown (y = 0, or a non-finite largest entry: the
// iteration then counts as done and the stop code stays, so that power_scale_check and every
// later launch are no-ops and x keeps the iterate that was multiplied).
template <class T>
__device__ void power_publish_max(T v, int i, unsigned slot, unsigned slots, T *slot_v,
                                  int *slot_i, PowerState<T> *state) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    slot_v[slot] = v;
    slot_i[slot] = i;
    __threadfence();
    last = atomicAdd(&state->arrivals, 1u) == slots - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  T best_v = T(0);
  int best_i = kNoIndex;
  for (unsigned s = threadIdx.x; s < slots; s += blockDim.x) {
    const T sv = __ldcg(slot_v + s);
    const int si = __ldcg(slot_i + s);
    if (power_better(sv, si, best_v, best_i)) {
      best_v = sv;
      best_i = si;
    }
  }
  power_block_best(best_v, best_i);
  if (threadIdx.x == 0) {
    state->arrivals = 0;  // ready for the next launch
    if (power_magnitude_bits(best_v) == 0) {
      state->lambda = T(0);
      state->stop = kZero;
      state->iterations += 1;
    } else if (!isfinite(best_v)) {
      state->lambda = best_v;
      state->stop = kNonFinite;
      state->iterations += 1;
    } else {
      state->lambda = best_v;
    }
  }
}

// The second launch of an iteration: x_i = y_i / lambda (a true division, as on the CPU
// path, so the largest entry becomes exactly 1), not_converged set when some
// |y_i/lambda - x_i| < tol fails (a NaN fails it too), and, by the last block to finish:
// iterations += 1, then stop = kConverged, or kLimit once max_iterations are done.
// Each block takes one contiguous range of 4-element chunks (16-byte loads when x and y allow
// them); a thread loads K chunks of y and x before it divides. The mat-vec before it has just
// streamed the whole matrix past L2: a grid-stride loop (all blocks on the same few pages at
// once, one load pair in flight per thread) takes an order of magnitude longer. K = 2 is the
// fastest in the loop with programmatic launches (docs/perf/README.md, power launches).
constexpr int kScaleChunks = 2;  // K: chunks per thread and round

template <class T>
struct PowerChunk4 {
  T y[4], x[4];
  int count;  // elements of the chunk inside [0, n)

  __device__ void load(const T *__restrict__ yp, const T *__restrict__ xp, int elements, bool vec) {
    count = elements;
    if (vec && count == 4) {
      if constexpr (sizeof(T) == 4) {
        const float4 a = *reinterpret_cast<const float4 *>(yp), b = *reinterpret_cast<const float4 *>(xp);
        y[0] = a.x; y[1] = a.y; y[2] = a.z; y[3] = a.w;
        x[0] = b.x; x[1] = b.y; x[2] = b.z; x[3] = b.w;
      } else {
        const double2 a0 = reinterpret_cast<const double2 *>(yp)[0], a1 = reinterpret_cast<const double2 *>(yp)[1];
        const double2 b0 = reinterpret_cast<const double2 *>(xp)[0], b1 = reinterpret_cast<const double2 *>(xp)[1];
        y[0] = a0.x; y[1] = a0.y; y[2] = a1.x; y[3] = a1.y;
        x[0] = b0.x; x[1] = b0.y; x[2] = b1.x; x[3] = b1.y;
      }
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        y[q] = q < count ? yp[q] : T(0);
        x[q] = q < count ? xp[q] : T(0);
      }
    }
  }

  // x = y / lambda; true when some entry moved by tol or more.
  __device__ bool scale(T lambda, T tol) {
    bool moved = false;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const T scaled = y[q] / lambda;
      if (q < count && !(fabs(scaled - x[q]) < tol)) moved = true;
      x[q] = scaled;
    }
    return moved;
  }

  __device__ void store(T *__restrict__ xp, bool vec) const {
    if (vec && count == 4) {
      if constexpr (sizeof(T) == 4) {
        *reinterpret_cast<float4 *>(xp) = make_float4(x[0], x[1], x[2], x[3]);
      } else {
        reinterpret_cast<double2 *>(xp)[0] = make_double2(x[0], x[1]);
        reinterpret_cast<double2 *>(xp)[1] = make_double2(x[2], x[3]);
      }
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (q < count) xp[q] = x[q];
    }
  }
};

// Grid of power_scale_check<T, K>: K 4-element chunks per thread, at most `cap` blocks (a
// wave; past it, threads take further rounds).
template <int K = kScaleChunks>
inline int power_scale_blocks(int n, int cap) {
  const long long per_block = 4LL * K * kPowerThreads;
  const long long blocks = ((long long)n + per_block - 1) / per_block;
  return int(blocks < 1 ? 1 : blocks < cap ? blocks : cap);
}

template <class T, int K = kScaleChunks>
__global__ void __launch_bounds__(kPowerThreads)
power_scale_check(int n, const T *__restrict__ y, T *__restrict__ x, T tol, int max_iterations,
                  PowerState<T> *state) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (__ldcg(&state->stop) != kRunning) return;
  const T lambda = __ldcg(&state->lambda);
  const bool vec = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15) == 0;
  // Chunks of this block: a multiple of a round (K per thread).
  constexpr long long kRound = (long long)K * kPowerThreads;
  const long long chunks = (n + 3LL) / 4;
  const long long per_block = (chunks + gridDim.x - 1) / gridDim.x;
  const long long mine = (per_block + kRound - 1) / kRound * kRound;
  const long long first = (long long)blockIdx.x * mine;
  const long long last = first + mine < chunks ? first + mine : chunks;
  bool moved = false;
  for (long long round = first; round < last; round += kRound) {
    PowerChunk4<T> part[K];
#pragma unroll
    for (int q = 0; q < K; ++q) {
      const long long c = round + q * kPowerThreads + threadIdx.x;
      const long long i = 4 * c;
      part[q].load(y + i, x + i, c < last ? int(n - i < 4 ? n - i : 4) : 0, vec);
    }
#pragma unroll
    for (int q = 0; q < K; ++q) {
      const long long c = round + q * kPowerThreads + threadIdx.x;
      if (c < last) {
        if (part[q].scale(lambda, tol)) moved = true;
        part[q].store(x + 4 * c, vec);
      }
    }
  }
  const bool block_moved = __syncthreads_or(moved) != 0;
  __shared__ bool last_block;
  if (threadIdx.x == 0) {
    if (block_moved) atomicExch(&state->not_converged, 1);
    __threadfence();
    last_block = atomicAdd(&state->scale_arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block || threadIdx.x != 0) return;
  __threadfence();
  state->scale_arrivals = 0;
  const int done = __ldcg(&state->iterations) + 1;
  state->iterations = done;
  const bool moved_any = atomicExch(&state->not_converged, 0) != 0;
  if (!moved_any) state->stop = kConverged;
  else if (done >= max_iterations) state->stop = kLimit;
}

template <class T>
__global__ void __launch_bounds__(kPowerThreads) power_fill(int n, T *x, T value) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size_t(n); i += stride) x[i] = value;
}

// CSR structure check, before the first iteration: rowptr[0] == base, rowptr non-decreasing,
// rowptr[n] - base == nnz (-> kBadRowptr), every colind in [base, base + n) (-> kBadColind).
// Reads rowptr[0..n] and colind[0..nnz) only. The stop code makes every iteration a no-op,
// so no out-of-range index is ever followed.
template <class T>
__global__ void __launch_bounds__(kPowerThreads)
power_csr_validate(int n, long long nnz, const int *__restrict__ rowptr,
                   const int *__restrict__ colind, int base, PowerState<T> *state) {
  bool bad_row = false, bad_col = false;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (size_t i = first; i < size_t(n); i += stride) {
    const int r0 = rowptr[i], r1 = rowptr[i + 1];
    if (r1 < r0 || (i == 0 && r0 != base) || (i + 1 == size_t(n) && (long long)r1 - base != nnz))
      bad_row = true;
  }
  const long long limit = (long long)base + n;
  for (size_t k = first; k < size_t(nnz); k += stride) {
    const int c = colind[k];
    if (c < base || (long long)c >= limit) bad_col = true;
  }
  const bool block_bad_row = __syncthreads_or(bad_row) != 0;
  const bool block_bad_col = __syncthreads_or(bad_col) != 0;
  if (threadIdx.x == 0) {
    if (block_bad_row) atomicMax(&state->stop, int(kBadRowptr));
    else if (block_bad_col) atomicMax(&state->stop, int(kBadColind));
  }
}

#endif  // __CUDACC__

}  // namespace cudrop::kernels
