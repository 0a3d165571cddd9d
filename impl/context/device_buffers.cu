// The cached device buffers of a context (impl/context/gpu_context.cuh: device_buffers and what sizes
// them): one per role in a call, each only growing, released all at once when the GPU is short
// of memory or CUDROP_GPU_MEM_LIMIT needs the room.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/env.h"
#include "core/log.h"
#include "impl/context/device_info.h"
#include "impl/context/gpu_context.cuh"

namespace cudrop::impl {
namespace {

void release_device_buffers(GpuContext &ctx) {
  for (int s = 0; s < static_cast<int>(Slot::count); ++s) {
    if (ctx.slot[s] != nullptr) cudaFree(ctx.slot[s]);
    ctx.slot[s] = nullptr;
    ctx.slot_bytes[s] = 0;
  }
}

// Grows one slot; exact = no headroom. Returns the raw CUDA result.
cudaError_t grow_slot(GpuContext &ctx, int i, size_t bytes, bool exact) {
  if (ctx.slot_bytes[i] >= bytes) return cudaSuccess;
  if (ctx.slot[i] != nullptr) cudaFree(ctx.slot[i]);
  ctx.slot[i] = nullptr;
  ctx.slot_bytes[i] = 0;
  // Headroom so a sequence of slightly larger calls does not reallocate each time.
  const size_t want = exact ? bytes : bytes + bytes / 8;
  const cudaError_t error = cudaMalloc(&ctx.slot[i], want);
  if (error == cudaSuccess) ctx.slot_bytes[i] = want;
  else ctx.slot[i] = nullptr;
  return error;
}

// With a limit: whether the request, grown with headroom, fits beside the slots it does not
// name; if not, those are released first. False when even that does not fit.
bool make_room(GpuContext &ctx, std::initializer_list<BufferRequest> requests, size_t limit) {
  auto total_after = [&] {
    size_t total = 0;
    for (int s = 0; s < static_cast<int>(Slot::count); ++s) {
      size_t bytes = ctx.slot_bytes[s];
      for (const BufferRequest &r : requests)
        if (static_cast<int>(r.slot) == s && bytes < r.bytes) bytes = r.bytes + r.bytes / 8;
      total += bytes;
    }
    return total;
  };
  if (total_after() <= limit) return true;
  for (int s = 0; s < static_cast<int>(Slot::count); ++s) {
    bool requested = false;
    for (const BufferRequest &r : requests) requested |= static_cast<int>(r.slot) == s;
    if (requested || ctx.slot[s] == nullptr) continue;
    cudaFree(ctx.slot[s]);
    ctx.slot[s] = nullptr;
    ctx.slot_bytes[s] = 0;
  }
  return total_after() <= limit;
}

}  // namespace

size_t held_device_bytes(const GpuContext &ctx) {
  size_t total = 0;
  for (size_t bytes : ctx.slot_bytes) total += bytes;
  return total;
}

Status device_memory_cap(GpuContext &ctx, size_t *cap) {
  size_t free_bytes = 0, total_bytes = 0;
  if (Status s = check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"); s != Status::ok) return s;
  const DeviceInfo *info = nullptr;
  if (Status s = check(device_info(ctx.device, &info), "device facts"); s != Status::ok) return s;
  const tuning::Table &tuned = info->tuned();
  const size_t margin = std::max<size_t>(tuned.device_margin_min, total_bytes / tuned.device_margin_divisor);
  const size_t usable = free_bytes + held_device_bytes(ctx);
  *cap = usable > margin ? usable - margin : 0;
  const size_t limit = settings().gpu_mem_limit;
  if (limit != 0) *cap = std::min(*cap, limit);
  return Status::ok;
}

Status device_buffers(GpuContext &ctx, std::initializer_list<BufferRequest> requests) {
  if (inject_fault("alloc")) return Status::out_of_memory;
  const size_t limit = settings().gpu_mem_limit;
  size_t needed = 0;
  for (const BufferRequest &r : requests) needed += r.bytes;
  if (limit != 0 && needed > limit) {
    log(2, "device buffers of %.1f MiB requested, over CUDROP_GPU_MEM_LIMIT (%.1f MiB)",
        needed / 1048576.0, limit / 1048576.0);
    return Status::out_of_memory;
  }
  cudaError_t error = cudaSuccess;
  for (bool exact : {false, true}) {
    // With headroom first; exact sizes (after releasing everything) when that does not fit
    // under the limit or the GPU is short of memory.
    if (!exact && limit != 0 && !make_room(ctx, requests, limit)) {
      release_device_buffers(ctx);
      continue;
    }
    error = cudaSuccess;
    for (const BufferRequest &r : requests) {
      error = grow_slot(ctx, static_cast<int>(r.slot), r.bytes, exact);
      if (error != cudaSuccess) break;
    }
    if (error != cudaErrorMemoryAllocation) break;
    cudaGetLastError();
    release_device_buffers(ctx);
  }
  if (Status s = check(error, "cudaMalloc"); s != Status::ok) return s;
  for (const BufferRequest &r : requests) *r.out = ctx.slot[static_cast<int>(r.slot)];
  return Status::ok;
}

}  // namespace cudrop::impl
