#pragma once
// The GPU cudrop uses, described for cudrop-info (capi/info.cpp).
#include <cstddef>
#include <string>
#include <vector>

namespace cudrop::impl {

struct GpuDescription {
  bool usable = false;
  std::string reason;  // why not, when not usable (the text of gpu-mode's notice)
  int device = -1;     // index among the visible devices
  int device_count = 0;
  std::string rule;    // why this device (CUDROP_DEVICE(S), an MPI launcher's local rank, the first)
  std::vector<int> devices;  // every device in use (CUDROP_DEVICES), `device` first
  std::string name;
  size_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  int driver_version = 0, runtime_version = 0;  // CUDA versions, 12040 for 12.4 (0: unknown)
};

// Starts CUDA on first use, as the first call on the GPU would.
GpuDescription describe_gpu();

}  // namespace cudrop::impl
