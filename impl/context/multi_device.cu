#include "impl/context/multi_device.h"

#include <cuda_runtime.h>

#include "core/log.h"
#include "impl/context/device_split.h"
#include "impl/context/step_lanes.h"

namespace cudrop::impl {
namespace {

// One device's share of a round: the regions it computes, in turn, and what each did.
struct DeviceTurn {
  GpuContext *ctx = nullptr;
  std::vector<GemmBlock> regions;
  std::vector<Status> status;
  std::vector<GemmProgress> own;
};

// Runs turn.regions on turn.ctx's device from the calling thread (working for that context,
// its device current), into turn.status and turn.own (sized by the caller: nothing here
// allocates outside the work). No exception leaves (a failed region instead: its device may
// still run the next).
void run_turn(DeviceTurn &turn, const RegionWork &work, bool redone) noexcept {
  for (size_t r = 0; r < turn.regions.size(); ++r) {
    try {
      turn.status[r] = work(*turn.ctx, turn.regions[r], &turn.own[r], redone);
    } catch (...) {
      turn.status[r] = Status::out_of_memory;  // as a failed allocation: the region is done elsewhere
    }
  }
}

// Each turn on a thread of its own (run_device_threads). A turn whose thread could not start,
// or could not move to its device, leaves its regions failed with nothing written.
void run_round(std::vector<DeviceTurn> &turns, const RegionWork &work, bool redone) {
  std::vector<GpuContext *> contexts;
  for (DeviceTurn &turn : turns) {
    turn.status.assign(turn.regions.size(), Status::out_of_memory);
    turn.own.assign(turn.regions.size(), GemmProgress{});
    contexts.push_back(turn.ctx);
  }
  if (contexts.empty()) return;
  std::vector<Status> started;
  run_device_threads(
      contexts,
      [&](int t) {
        run_turn(turns[size_t(t)], work, redone);
        return Status::ok;
      },
      started, [] {}, [] {});
  for (size_t t = 0; t < turns.size(); ++t)
    if (started[t] != Status::ok) turns[t].status.assign(turns[t].regions.size(), started[t]);
}

}  // namespace

Status run_on_devices(const std::vector<GpuContext *> &devices, const std::vector<GemmBlock> &regions,
                      const RegionWork &work, GemmProgress *progress) {
  SharedCopier shared(*devices[0]);
  std::vector<DeviceTurn> turns(std::min(devices.size(), regions.size()));
  for (size_t d = 0; d < turns.size(); ++d) {
    turns[d].ctx = devices[d];
    turns[d].regions = {regions[d]};
  }
  run_round(turns, work, false);

  GemmProgress record;
  std::vector<GemmBlock> missing;
  std::vector<GpuContext *> succeeded;
  Status first_failure = Status::ok;
  for (DeviceTurn &turn : turns) {
    const bool ok = turn.status[0] == Status::ok;
    record_attempt(record, turn.regions[0], ok, turn.own[0], missing);
    if (ok) succeeded.push_back(turn.ctx);
    else if (first_failure == Status::ok) first_failure = turn.status[0];
  }
  if (!missing.empty() && !succeeded.empty()) {
    // What failed goes, region by region, to the devices that succeeded, in turn.
    log(1, "%zu region(s) of a call over %zu devices failed; computing them on the %zu that succeeded",
        missing.size(), turns.size(), succeeded.size());
    std::vector<DeviceTurn> retry(std::min(succeeded.size(), missing.size()));
    for (size_t r = 0; r < missing.size(); ++r) {
      DeviceTurn &turn = retry[r % retry.size()];
      turn.ctx = succeeded[r % retry.size()];
      turn.regions.push_back(missing[r]);
    }
    run_round(retry, work, true);
    missing.clear();
    for (DeviceTurn &turn : retry)
      for (size_t r = 0; r < turn.regions.size(); ++r)
        record_attempt(record, turn.regions[r], turn.status[r] == Status::ok, turn.own[r], missing);
  }
  cudaSetDevice(devices[0]->device);
  cudaGetLastError();
  if (missing.empty()) return Status::ok;
  record_missing(record, missing);
  if (progress != nullptr) *progress = std::move(record);
  return first_failure != Status::ok ? first_failure : Status::cuda_error;
}

}  // namespace cudrop::impl
