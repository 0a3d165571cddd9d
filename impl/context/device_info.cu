#include "impl/context/device_info.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

namespace cudrop::impl {
namespace {

constexpr int kMaxDevices = 64;
std::atomic<const DeviceInfo *> g_known[kMaxDevices] = {};  // set once, never freed
std::mutex g_asking;

}  // namespace

cudaError_t device_info(int device, const DeviceInfo **out) {
  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
  if (const DeviceInfo *known = g_known[device].load(std::memory_order_acquire)) {
    *out = known;
    return cudaSuccess;
  }
  std::lock_guard<std::mutex> lock(g_asking);
  if (const DeviceInfo *known = g_known[device].load(std::memory_order_acquire)) {
    *out = known;
    return cudaSuccess;
  }
  cudaDeviceProp prop{};
  const cudaError_t error = cudaGetDeviceProperties(&prop, device);
  if (error != cudaSuccess) return error;
  auto *info = new DeviceInfo;
  info->device = device;
  info->sms = prop.multiProcessorCount;
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->smem_optin = prop.sharedMemPerBlockOptin;
  info->smem_per_sm = prop.sharedMemPerMultiprocessor;
  info->smem_reserved = prop.reservedSharedMemPerBlock;
  info->l2_bytes = size_t(prop.l2CacheSize);
  info->l2_persist_max = size_t(std::max(0, prop.persistingL2CacheMaxSize));
  info->l2_window_max = size_t(std::max(0, prop.accessPolicyMaxWindowSize));
  info->global_bytes = prop.totalGlobalMem;
  std::strncpy(info->name, prop.name, sizeof info->name - 1);
  info->generation = tuning::generation_of(prop.major, prop.minor);
  g_known[device].store(info, std::memory_order_release);
  *out = info;
  return cudaSuccess;
}

cudaError_t current_device_info(const DeviceInfo **out) {
  int device = 0;
  const cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess) return error;
  return device_info(device, out);
}

}  // namespace cudrop::impl
