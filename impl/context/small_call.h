#pragma once
// A small call's transfers (operands of at most tuning::kSmallCallBytes on the device): every
// operand packed into the first staging buffer and sent in one copy, the math, the result back
// in one copy into the second staging buffer, one synchronization, then the result into the
// caller's array. A call of a few microseconds of math is otherwise bound by the number of
// copies, waits and launches around it, not by bytes. Nothing of the caller's is written
// before the GPU's work has succeeded. Used by GEMM (impl/gemm/gemm.cu) and the Level-3 routines
// beside it (impl/level3/level3_host.cu).
#include <cuda_runtime.h>

#include <cstddef>

#include "core/env.h"
#include "core/layout.h"
#include "core/tuning.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/host_copy.h"

namespace cudrop::impl {

class SmallTransfer {
 public:
  explicit SmallTransfer(GpuContext &ctx) : ctx_(ctx) {}

  // Whether a call of `device_bytes` of device memory, `sent` bytes up and `received` down, is
  // small: within tuning::kSmallCallBytes and any CUDROP_GPU_MEM_LIMIT (under a smaller limit
  // the call's own path tiles it), its transfers within the staging buffers.
  static bool small(const GpuContext &ctx, size_t device_bytes, size_t sent, size_t received) {
    const size_t limit = settings().gpu_mem_limit;
    return device_bytes <= tuning::kSmallCallBytes && (limit == 0 || device_bytes <= limit) &&
           sent <= ctx.staging_bytes && received <= ctx.staging_bytes;
  }

  // The call's `device_bytes` of device memory (device(): the upload fills it from its start),
  // then waits until both staging buffers are free (their last DMAs, of earlier calls, are done).
  Status begin(size_t device_bytes, const char *what) {
    void *dev = nullptr;
    Status s = device_buffer(ctx_, Slot::a, device_bytes, &dev);
    device_ = static_cast<char *>(dev);
    if (s == Status::ok) s = check(cudaEventSynchronize(ctx_.staging_free[0]), what);
    if (s == Status::ok) s = check(cudaEventSynchronize(ctx_.staging_free[1]), what);
    return s;
  }
  char *device() const { return device_; }
  // A column-major host array into the upload at `offset` (columns ldd_bytes apart).
  void pack(size_t offset, const void *host, size_t ld_bytes, size_t row_bytes, size_t cols, size_t ldd_bytes) {
    copy_columns(ctx_.copier, up() + offset, ldd_bytes, host, ld_bytes, row_bytes, cols);
  }
  char *up() const { return static_cast<char *>(ctx_.staging[0]); }
  // The upload's first `bytes` to the device memory's start, on ctx.stream.
  Status send(size_t bytes, const char *what) {
    cudaError_t error = cudaMemcpyAsync(device_, up(), bytes, cudaMemcpyHostToDevice, ctx_.stream);
    if (error == cudaSuccess) error = cudaEventRecord(ctx_.staging_free[0], ctx_.stream);
    return check(error, what);
  }
  // `bytes` of the device memory from `offset` into the second staging buffer, once ctx.stream
  // gets there; returns when they have arrived.
  Status receive(size_t offset, size_t bytes, const char *what) {
    cudaError_t error = cudaMemcpyAsync(ctx_.staging[1], device_ + offset, bytes, cudaMemcpyDeviceToHost, ctx_.stream);
    if (error == cudaSuccess) error = cudaEventRecord(ctx_.staging_free[1], ctx_.stream);
    if (error == cudaSuccess) error = cudaStreamSynchronize(ctx_.stream);
    return check(error, what);
  }
  // What receive() brought, from `offset` within it, into a column-major host array.
  void unpack(size_t offset, size_t ldd_bytes, void *host, size_t ld_bytes, size_t row_bytes, size_t cols) const {
    copy_columns(ctx_.copier, host, ld_bytes, down() + offset, ldd_bytes, row_bytes, cols);
  }
  const char *down() const { return static_cast<const char *>(ctx_.staging[1]); }

 private:
  GpuContext &ctx_;
  char *device_ = nullptr;
};

}  // namespace cudrop::impl
