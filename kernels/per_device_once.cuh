#pragma once
// Kernel settings that the CUDA runtime keeps per device (cudaFuncSetAttribute's shared-memory
// opt-in): made once per device the calling thread launches on, so that a kernel prepared on one
// GPU of several is prepared on the next before its first launch there.
#include <cuda_runtime.h>

#include <atomic>
#include <mutex>

namespace cudrop::kernels {

struct PerDeviceOnce {
  static constexpr int kDevices = 64;
  std::atomic<bool> done[kDevices];
  cudaError_t status[kDevices];
  std::mutex making;
};

// set() -> cudaError_t once on the calling thread's current device; its result kept per device.
// `once` must have static storage (zero-initialized).
template <class Set>
cudaError_t once_per_device(PerDeviceOnce &once, Set &&set) {
  int device = 0;
  if (const cudaError_t error = cudaGetDevice(&device); error != cudaSuccess) return error;
  if (device < 0 || device >= PerDeviceOnce::kDevices) return set();
  if (once.done[device].load(std::memory_order_acquire)) return once.status[device];
  std::lock_guard<std::mutex> lock(once.making);
  if (!once.done[device].load(std::memory_order_relaxed)) {
    once.status[device] = set();
    once.done[device].store(true, std::memory_order_release);
  }
  return once.status[device];
}

}  // namespace cudrop::kernels
