// The power method's per-process device state: made once per device, never destroyed.
#include "impl/power_device.cuh"

#include "kernels/sell_power.cuh"

namespace cudrop::impl::power {

PowerDevice &power_device() {
  static PowerDevice *g = new PowerDevice;
  return *g;
}

Status prepare(PowerDevice &g) {
  int device = 0;
  if (Status s = check(cudaGetDevice(&device), "power: device"); s != Status::ok) return s;
  if (g.ready && g.device == device) return Status::ok;
  if (g.ready) {
    // A benchmark switched devices: start again on this one (the old resources stay).
    g.ready = false;
    g.snapshots = nullptr;
    g.sell_probe = nullptr;
  }
  cudaError_t error = cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, device);
  if (error == cudaSuccess) error = cudaHostAlloc(&g.snapshots, 3 * sizeof(PowerState<double>), cudaHostAllocDefault);
  if (error == cudaSuccess) error = cudaHostAlloc(&g.sell_probe, sizeof(kernels::SellStats) + sizeof(int), cudaHostAllocDefault);
  for (cudaEvent_t &e : g.batch_done)
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  if (error == cudaSuccess) error = cudaEventCreate(&g.loop_start);
  if (error == cudaSuccess) error = cudaEventCreate(&g.loop_end);
  // Programmatic launches need the wait compiled into the kernels: code for sm_90 or later
  // (PTX of an older target JIT-compiled here would not wait).
  int major = 0;
  cudaFuncAttributes step{};
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (error == cudaSuccess) error = cudaFuncGetAttributes(&step, kernels::power_scale_check<float>);
  int persist_max = 0, window_max = 0;
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&persist_max, cudaDevAttrMaxPersistingL2CacheSize, device);
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, device);
  if (Status s = check(error, "power: setup"); s != Status::ok) return s;
  g.l2_persist_max = size_t(std::max(0, persist_max));
  g.l2_window_max = size_t(std::max(0, window_max));
  g.chained = major >= 9 && step.ptxVersion >= 90 && step.binaryVersion >= 90 && chained_launches_allowed();
  log(2, "power: programmatic launches %s (compute capability %d, kernels for %d from PTX %d)",
      g.chained ? "on" : "off", major, step.binaryVersion, step.ptxVersion);
  g.device = device;
  g.ready = true;
  return Status::ok;
}

}  // namespace cudrop::impl::power
