#pragma once
// Programmatic dependent launch (sm_90+): a kernel launched with the programmatic
// stream-serialization attribute may be scheduled before the kernel ahead of it in the stream
// has finished, which hides the launch latency between short dependent kernels (the power
// method's loop, the tridiagonal reduction's per-column kernels). wait_for_previous_kernel()
// blocks until that kernel has completed and its writes are visible: a chained kernel reads
// nothing an earlier launch writes before it. let_next_kernel_start() lets the next chained
// kernel be scheduled once every block of this grid has called it (or exited), so the next
// kernel's waiting blocks never hold SMs that a block of this one still needs.
// Without the attribute (or on an older GPU) both return at once.
#include <cuda_runtime.h>

#include <utility>

namespace cudrop::kernels {

__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void let_next_kernel_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, 0, stream>>>(args...), with programmatic stream serialization when
// `chained`. Returns the launch's error.
template <class... Params, class... Args>
cudaError_t launch_chained(bool chained, dim3 grid, dim3 block, cudaStream_t stream, void (*kernel)(Params...),
                           Args &&...args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = chained ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace cudrop::kernels
