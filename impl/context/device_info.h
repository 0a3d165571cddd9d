#pragma once
// Facts about a CUDA device that cudrop's choices depend on, queried once per device and kept
// for the life of the process (they cannot change while it runs). Here rather than in core/:
// it calls the CUDA runtime, which only impl/ and kernels/ launchers do.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/tuning.h"

namespace cudrop::impl {

struct DeviceInfo {
  int device = 0;
  int sms = 0;                   // multiprocessors
  int cc_major = 0, cc_minor = 0;
  size_t smem_optin = 0;         // dynamic + static shared memory a block may opt in to
  size_t smem_per_sm = 0;        // shared memory of one multiprocessor
  size_t smem_reserved = 0;      // shared memory the system reserves per block
  size_t l2_bytes = 0;
  size_t l2_persist_max = 0;     // L2 that may be set aside for persisting lines (0: none)
  size_t l2_window_max = 0;      // largest access-policy window (0: none)
  size_t global_bytes = 0;
  char name[256] = {};
  tuning::Generation generation = tuning::Generation::sm90;
  // This device's column of the tuning table.
  const tuning::Table &tuned() const { return tuning::table(generation); }
};

// The facts of `device`, queried on first use; the runtime's error when it cannot answer
// (nothing is cached then: a later call asks again). The caller judges the error (check()).
cudaError_t device_info(int device, const DeviceInfo **out);

// The same for the calling thread's current device.
cudaError_t current_device_info(const DeviceInfo **out);

}  // namespace cudrop::impl
