#pragma once
// What the power method's device files share: a call's hold on the GPU (PowerCall), the
// test hooks that pick a path, grid sizes, and the end of a loop (info_of). Internal to impl/power_*.
#include <algorithm>
#include <cstddef>
#include <mutex>

#include "core/env.h"
#include "core/log.h"
#include "core/layout.h"
#include "impl/context/device_info.h"
#include "impl/context/gpu_context.cuh"
#include "impl/power/power.h"
#include "core/tuning.h"
#include "kernels/power.cuh"

namespace cudrop::impl::power {

using kernels::PowerState;
using kernels::kPowerThreads;
using tuning::PowerTune;
using tuning::kSellCapacityPercent;
using tuning::kSellMinAverageRow;
using tuning::kSellNearMinAverageRow;
using tuning::compiled::SellTune;

constexpr size_t kAlign = 256;
inline size_t align_up(size_t bytes) { return size_t(round_up((long long)bytes, kAlign)); }

// A power call's hold on the GPU: the current device's facts (SMs, L2) and the context's
// power lane (GpuContext::PowerLane: pinned snapshots, events, launch mode), locked for the
// call.
struct PowerCall {
  const DeviceInfo *info = nullptr;
  GpuContext::PowerLane *lane = nullptr;
  std::unique_lock<std::mutex> hold;
};

// CUDROP_TEST_POWER_PDL=0: the loop's kernels are launched plainly even where programmatic
// launches are possible (a gpu test runs the power tests so, the path of pre-Hopper GPUs).
inline bool chained_launches_allowed() {
  return env::environment().power_pdl;
}

// CUDROP_TEST_POWER_L2=0: no L2 access-policy window around the CSR loop's vectors (L2Residency).
inline bool l2_window_allowed() {
  return env::environment().power_l2;
}

// Starts a device call on the current device: the context (started if need be), its power
// lane (made on first use per device) locked, the device's facts (impl/power/power_device.cu).
Status begin_call(PowerCall *call);

// Blocks of `kernel` (kPowerThreads each) resident on the whole GPU: the size of a
// grid-stride grid that fills it once.
template <class Kernel>
Status one_wave(const PowerCall &g, Kernel kernel, int *blocks) {
  int per_sm = 0;
  const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kPowerThreads, 0);
  if (Status s = check(error, "power: occupancy"); s != Status::ok) return s;
  *blocks = std::max(1, per_sm) * std::max(1, g.info->sms);
  return Status::ok;
}

inline int grid_for(long long items, int cap) {
  return int(std::max(1LL, std::min<long long>(ceil_div(items, kPowerThreads), cap)));
}

// CUDROP_TEST_POWER_CSR_ELEMENTWISE=1: the kernel loads one element at a time even from aligned
// arrays, the path of device arrays that are not 16-byte aligned, which the public calls
// (always aligned) never take otherwise; a gpu test runs the power tests with it.
inline bool csr_elementwise_forced() {
  return env::environment().power_csr_elementwise;
}

// CUDROP_TEST_POWER_CSR_FORMAT=stream: never the SELL copy, so that a gpu test covers the
// CSR-stream kernel on matrices the copy would take (the elementwise hook implies it too).
inline bool csr_stream_forced() {
  return csr_elementwise_forced() || env::environment().power_csr_format == env::CsrFormat::stream;
}

// CUDROP_TEST_POWER_CSR_FORMAT=wide: the SELL copy keeps 32-bit column indices even where 16-bit
// distances would do, so that a gpu test covers that copy on the small matrices of the tests
// (with n <= 65536 every distance fits).
inline bool sell_wide_forced() {
  return env::environment().power_csr_format == env::CsrFormat::wide;
}

// Whether the SELL copy may be worth its workspace for this shape (it may still not be made:
// rows too long or too uneven, or below kSellMinAverageRow columns too far for 16 bits, which
// only the GPU sees).
template <class T>
bool sell_may_pay(int n, long long nnz) {
  const bool near = SellTune<T>::near && !sell_wide_forced();
  return nnz >= (near ? kSellNearMinAverageRow : kSellMinAverageRow) * n && !csr_stream_forced();
}

// ---- the iteration loop, shared by both formats ---------------------------------------------
inline int info_of(int stop) {
  switch (stop) {
    case kernels::kConverged: return 0;
    case kernels::kLimit: return 1;
    case kernels::kZero: return 2;
    case kernels::kNonFinite: return 3;
    case kernels::kBadColind: return -3;
    case kernels::kBadRowptr: return -4;
    default: return 1;  // kRunning: MAXIT = 0, no iteration done
  }
}


}  // namespace cudrop::impl::power
