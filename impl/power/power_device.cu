// A power call's hold on the GPU: the device's facts and the context's power lane, made on
// first use per device.
#include "impl/power/power_device.cuh"

#include <utility>

#include "kernels/sell_power.cuh"

namespace cudrop::impl::power {
namespace {

// Makes the lane's pinned snapshots and events on `info`'s device, and decides whether the
// step kernels are launched programmatically. A lane made for another device before is left
// as it is (its resources stay, unused).
Status make_lane(GpuContext::PowerLane &lane, const DeviceInfo &info) {
  lane.device = -1;
  lane.snapshots = nullptr;
  lane.sell_probe = nullptr;
  cudaError_t error = cudaHostAlloc(&lane.snapshots, 3 * sizeof(PowerState<double>), cudaHostAllocDefault);
  if (error == cudaSuccess) error = cudaHostAlloc(&lane.sell_probe, sizeof(kernels::SellStats) + sizeof(int), cudaHostAllocDefault);
  for (cudaEvent_t &e : lane.batch_done)
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  if (error == cudaSuccess) error = cudaEventCreate(&lane.loop_start);
  if (error == cudaSuccess) error = cudaEventCreate(&lane.loop_end);
  // Programmatic launches need the wait compiled into the kernels: code for sm_90 or later
  // (PTX of an older target JIT-compiled here would not wait).
  cudaFuncAttributes step{};
  if (error == cudaSuccess) error = cudaFuncGetAttributes(&step, kernels::power_scale_check<float>);
  if (Status s = check(error, "power: setup"); s != Status::ok) return s;
  const int major = info.cc_major;
  lane.chained = major >= 9 && step.ptxVersion >= 90 && step.binaryVersion >= 90 && chained_launches_allowed();
  log(2, "power: programmatic launches %s (compute capability %d, kernels for %d from PTX %d)",
      lane.chained ? "on" : "off", major, step.binaryVersion, step.ptxVersion);
  lane.device = info.device;
  return Status::ok;
}

}  // namespace

Status begin_call(PowerCall *call) {
  GpuContext *ctx = nullptr;
  if (Status s = device_context(&ctx); s != Status::ok) return s;
  GpuContext::PowerLane &lane = ctx->power;
  std::unique_lock<std::mutex> hold(lane.busy);
  int device = 0;
  if (Status s = check(cudaGetDevice(&device), "power: device"); s != Status::ok) return s;
  const DeviceInfo *info = nullptr;
  if (Status s = check(device_info(device, &info), "power: setup"); s != Status::ok) return s;
  if (lane.device != device) {
    if (Status s = make_lane(lane, *info); s != Status::ok) return s;
  }
  call->info = info;
  call->lane = &lane;
  call->hold = std::move(hold);
  return Status::ok;
}

}  // namespace cudrop::impl::power
