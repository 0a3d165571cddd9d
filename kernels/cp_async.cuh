#pragma once
// cp.async (sm_80+): global -> shared copies that do not pass through registers, so a block can
// have the next tile's loads in flight while it computes on the current one. Shared by the GEMM
// kernels and the CSR power kernel.
//
// src_bytes < BYTES zero-fills the rest of the destination and reads only src_bytes bytes, so a
// copy at the end of an array never reads past it (src_bytes = 0 reads nothing, but the
// address must still be a valid one: callers pass a pointer inside the array).
#include <cuda_runtime.h>

namespace cudrop::kernels::async_copy {

__device__ __forceinline__ unsigned shared_address(const void *smem) {
  return static_cast<unsigned>(__cvta_generic_to_shared(smem));
}

// BYTES = 4 or 8: through L1 (.ca, the only form for these sizes). BYTES = 16: L2 only (.cg):
// the data is used once from shared memory.
template <int BYTES>
__device__ __forceinline__ void to_shared(unsigned dst, const void *src, int src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES),
                 "r"(src_bytes));
}

// The whole BYTES are in range: no source-size operand to compute.
template <int BYTES>
__device__ __forceinline__ void to_shared_whole(unsigned dst, const void *src) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(BYTES));
}

__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most N committed groups of this thread are still in flight. Not a barrier
// for other threads' copies: a __syncthreads follows it wherever the block shares the data.
template <int N>
__device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

}  // namespace cudrop::kernels::async_copy
