#pragma once
// CSR mat-vec of the power method, fused with the max-reduction: y = A x with A in CSR
// (val, colind, rowptr, indices offset by base = 0 or 1), then each block's largest |y_i| and,
// by the last block, lambda (kernels/power.cuh).
//
// TPR lanes per row (1 = a row per thread for very short rows, up to 32 = a warp per row),
// chosen by the launcher from the average row length. A warp takes 32/TPR consecutive rows
// at a time, UNROLL such groups per step, so that the row pointers, then the first TPR
// entries (values and column indices), then the gathered x of UNROLL row groups are in flight
// together; entries past the first TPR of a row (longer rows) follow in a loop. A row's lanes
// add their sums with shuffles (xor butterfly, the lane 0 result is used): the same bits run
// after run. The loop is warp-uniform (rows past n contribute nothing), so full-warp shuffles
// are safe; the grid is grid-stride, sized to one wave by the launcher.
// The structure must have been validated (power_csr_validate): no index is checked here.
#include "kernels/power.cuh"

namespace cudrop::kernels {

template <int TPR>
struct CsrPowerShape {
  static constexpr int lanes_per_row = TPR;
  static constexpr int rows_per_group = 32 / TPR;  // rows a warp takes at a time
  static constexpr int unroll = TPR >= 16 ? 2 : 4; // row groups in flight per warp
  static constexpr int rows_per_step = rows_per_group * unroll;
  static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR: a power of two up to 32");
};

// slot_v/slot_i: gridDim.x entries.
template <class T, int TPR>
__global__ void __launch_bounds__(kPowerThreads)
power_csr_max(int n, const T *__restrict__ val, const int *__restrict__ colind,
              const int *__restrict__ rowptr, int base, const T *__restrict__ x,
              T *__restrict__ y, T *slot_v, int *slot_i, PowerState<T> *state) {
  if (__ldcg(&state->stop) != kRunning) return;
  using Shape = CsrPowerShape<TPR>;
  constexpr int G = Shape::rows_per_group, UR = Shape::unroll, S = Shape::rows_per_step;
  const int lane = threadIdx.x % 32, group = lane / TPR, gl = lane % TPR;
  const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const long long warps = (long long)gridDim.x * blockDim.x / 32;

  T best_v = T(0);
  int best_i = kNoIndex;
  for (long long step = warp0; step * S < n; step += warps) {
    const long long first = step * S;
    unsigned k[UR], end[UR];
    T sum[UR], v[UR];
    int c[UR];
#pragma unroll
    for (int u = 0; u < UR; ++u) {
      const long long i = first + u * G + group;
      k[u] = end[u] = 0;
      sum[u] = v[u] = T(0);
      c[u] = 0;
      if (i < n) {
        k[u] = unsigned(__ldg(rowptr + i) - base) + unsigned(gl);
        end[u] = unsigned(__ldg(rowptr + i + 1) - base);
      }
    }
#pragma unroll
    for (int u = 0; u < UR; ++u)
      if (k[u] < end[u]) {
        v[u] = __ldg(val + k[u]);
        c[u] = __ldg(colind + k[u]) - base;
      }
#pragma unroll
    for (int u = 0; u < UR; ++u)
      if (k[u] < end[u]) sum[u] = fma(v[u], __ldg(x + c[u]), T(0));  // from +0, as the CPU path: never -0
#pragma unroll
    for (int u = 0; u < UR; ++u)
      for (unsigned kk = k[u] + TPR; kk < end[u]; kk += TPR)
        sum[u] = fma(__ldg(val + kk), __ldg(x + (__ldg(colind + kk) - base)), sum[u]);
#pragma unroll
    for (int u = 0; u < UR; ++u) {
      T s = sum[u];
#pragma unroll
      for (int offset = TPR / 2; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset, TPR);
      const long long i = first + u * G + group;
      if (gl == 0 && i < n) {
        y[i] = s;
        if (power_better(s, int(i), best_v, best_i)) {
          best_v = s;
          best_i = int(i);
        }
      }
    }
  }
  power_block_best(best_v, best_i);
  power_publish_max(best_v, best_i, blockIdx.x, gridDim.x, slot_v, slot_i, state);
}

}  // namespace cudrop::kernels
