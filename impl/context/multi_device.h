#pragma once
// One call over several devices (CUDROP_DEVICES): its output cut into regions
// (impl/context/device_split.h), each region computed on its own device by its own host thread, with
// that device's own streams, staging buffers and share of the host copy threads. Any routine
// whose output splits into independent blocks (GEMM's C; a Level-3 routine's columns of C or B)
// runs through run_on_devices with its own region work.
#include <functional>
#include <vector>

#include "impl/gemm/gemm.h"
#include "impl/context/gpu_context.cuh"

namespace cudrop::impl {

// Computes `region` of the output on ctx's device (the calling thread's current device on
// entry). On failure, *progress (in the region's own coordinates, as gemm_host's) says which of
// its columns reached the caller's output; nothing else of the caller's output was changed, so
// that the rest can be computed again from the caller's inputs. `redone`: the region (what is
// missing of it) is being computed again after its own device failed, in a second round.
using RegionWork =
    std::function<Status(GpuContext &ctx, const GemmBlock &region, GemmProgress *progress, bool redone)>;

// While a call runs on several devices, the first device copies with its share of the host copy
// threads (the others always do), so that together they use as many as one device alone.
class SharedCopier {
 public:
  explicit SharedCopier(GpuContext &ctx) : ctx_(ctx), own_(ctx.copier) {
    if (ctx.shared_copier != nullptr) ctx.copier = ctx.shared_copier;
  }
  ~SharedCopier() { ctx_.copier = own_; }
  SharedCopier(const SharedCopier &) = delete;
  SharedCopier &operator=(const SharedCopier &) = delete;

 private:
  GpuContext &ctx_;
  CopyPool *own_;
};

// Runs regions[i] on devices[i] (regions.size() <= devices.size(); devices[0] the leased one),
// each on a thread of its own (run_device_threads). A region whose device fails is then computed, what is missing of it, on a
// device whose own region succeeded. Status::ok once every region is computed; else the first
// failure, with *progress covering the whole output (what reached it, what did not) so that the
// dispatch layer finishes only the rest on the CPU.
Status run_on_devices(const std::vector<GpuContext *> &devices, const std::vector<GemmBlock> &regions,
                      const RegionWork &work, GemmProgress *progress);

}  // namespace cudrop::impl
