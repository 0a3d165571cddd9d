#include "impl/context/shared_operand.h"

#include "core/log.h"

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
    if (ctx.device == leader_.device) {
      error = cudaMemcpy2DAsync(dev, ldd_bytes, from.dev, from.ldd_bytes, row_bytes, cols, cudaMemcpyDeviceToDevice,
                                ctx.stream);
    } else {
      cudaMemcpy3DPeerParms copy = {};
      copy.srcPtr = make_cudaPitchedPtr(const_cast<void *>(from.dev), from.ldd_bytes, row_bytes, cols);
      copy.srcDevice = leader_.device;
      copy.dstPtr = make_cudaPitchedPtr(dev, ldd_bytes, row_bytes, cols);
      copy.dstDevice = ctx.device;
      copy.extent = make_cudaExtent(row_bytes, cols, 1);
      error = cudaMemcpy3DPeerAsync(&copy, ctx.stream);
    }
  }
  if (error == cudaSuccess) {
    std::lock_guard<std::mutex> lock(count_mutex_);
    forwarded_ += row_bytes * cols;
  }
  return check(error, "shared operand copy");
}

}  // namespace cudrop::impl
