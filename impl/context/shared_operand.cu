#include "impl/context/shared_operand.h"

#include "core/log.h"
#include "impl/context/step_lanes.h"

namespace cudrop::impl {

SharedOperand::SharedOperand(GpuContext &leader, int chunks) : leader_(leader), board_(chunks) {
  ready_.assign(size_t(board_.chunks()), nullptr);
  cudaError_t error = cudaSuccess;
  for (cudaEvent_t &event : ready_)
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  ok_ = error == cudaSuccess;
  if (!ok_) {
    cudaGetLastError();
    log(1, "no events for an operand shared by several devices (%s): each reads it from the host",
        cudaGetErrorString(error));
    board_.close();
  }
}

SharedOperand::~SharedOperand() {
  board_.close();
  for (cudaEvent_t event : ready_)
    if (event != nullptr) cudaEventDestroy(event);
  cudaGetLastError();
}

Status SharedOperand::send(GpuContext &ctx, int c, const void *host, size_t ld_bytes, size_t row_bytes, size_t cols,
                           void *dev, size_t ldd_bytes) {
  if (&ctx == &leader_) {
    Status s = upload_matrix(ctx, host, ld_bytes, row_bytes, cols, dev, ldd_bytes);
    if (s == Status::ok && ok_ && c >= 0 && c < board_.chunks()) {
      s = check(cudaEventRecord(ready_[size_t(c)], ctx.stream), "shared operand");
      if (s == Status::ok) board_.post(c, {dev, ldd_bytes});
    }
    return s;
  }
  ChunkBoard::Posted from;
  if (!ok_ || !board_.take(c, &from)) return upload_matrix(ctx, host, ld_bytes, row_bytes, cols, dev, ldd_bytes);
  cudaError_t error = cudaStreamWaitEvent(ctx.stream, ready_[size_t(c)], 0);
  if (error == cudaSuccess) {
    error = copy_between_devices(dev, ctx.device, ldd_bytes, from.dev, leader_.device, from.ldd_bytes, row_bytes, cols,
                                 ctx.stream);
  }
  if (error == cudaSuccess) forwarded_.fetch_add(row_bytes * cols);
  return check(error, "shared operand copy");
}

}  // namespace cudrop::impl
