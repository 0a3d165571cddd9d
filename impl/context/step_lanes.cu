#include "impl/context/step_lanes.h"

#include <exception>
#include <thread>

#include "core/log.h"

namespace cudrop::impl {

cudaError_t copy_between_devices(void *dst, int dst_device, size_t dst_pitch, const void *src, int src_device,
                                 size_t src_pitch, size_t row_bytes, size_t cols, cudaStream_t stream) {
  if (row_bytes == 0 || cols == 0) return cudaSuccess;
  if (dst_device == src_device)
    return cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, cols, cudaMemcpyDeviceToDevice, stream);
  cudaMemcpy3DPeerParms copy = {};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<void *>(src), src_pitch, row_bytes, cols);
  copy.srcDevice = src_device;
  copy.dstPtr = make_cudaPitchedPtr(dst, dst_pitch, row_bytes, cols);
  copy.dstDevice = dst_device;
  copy.extent = make_cudaExtent(row_bytes, cols, 1);
  return cudaMemcpy3DPeerAsync(&copy, stream);
}

cudaError_t StepLanes::create(int steps) {
  int low = 0, high = 0;
  cudaError_t error = cudaDeviceGetStreamPriorityRange(&low, &high);
  if (error == cudaSuccess) error = cudaStreamCreateWithPriority(&lane, cudaStreamNonBlocking, high);
  if (error == cudaSuccess) error = cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking);
  if (error == cudaSuccess) error = cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming);
  std::vector<cudaEvent_t> *const lists[] = {&copied, &updated, &ahead};
  for (std::vector<cudaEvent_t> *list : lists) {
    list->assign(size_t(steps), nullptr);
    for (cudaEvent_t &e : *list)
      if (error == cudaSuccess) error = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  }
  ahead_recorded.assign(size_t(steps), false);
  return error;
}

Status StepLanes::after_uploads(GpuContext &ctx) {
  cudaError_t error = cudaEventRecord(uploaded, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamWaitEvent(lane, uploaded, 0);
  if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx.compute, uploaded, 0);
  return check(error, "several devices: uploads");
}

void StepLanes::drain_and_destroy(GpuContext &ctx) {
  const cudaStream_t streams[] = {lane, copies, ctx.compute, ctx.stream, ctx.return_stream};
  for (cudaStream_t stream : streams)
    if (stream != nullptr) cudaStreamSynchronize(stream);
  if (lane != nullptr) cudaStreamDestroy(lane);
  if (copies != nullptr) cudaStreamDestroy(copies);
  if (uploaded != nullptr) cudaEventDestroy(uploaded);
  std::vector<cudaEvent_t> *const lists[] = {&copied, &updated, &ahead};
  for (std::vector<cudaEvent_t> *list : lists)
    for (cudaEvent_t e : *list)
      if (e != nullptr) cudaEventDestroy(e);
  lane = copies = nullptr;
  uploaded = nullptr;
  cudaGetLastError();
}

void run_device_threads(const std::vector<GpuContext *> &devices, const std::function<Status(int)> &work,
                        std::vector<Status> &status, const std::function<void()> &stop,
                        const std::function<void()> &writer) {
  status.assign(devices.size(), Status::ok);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < devices.size(); ++i) {
    try {
      threads.emplace_back([&, i] {
        WorkingOn working(devices[i]);
        Status s = Status::cuda_error;
        if (cudaSetDevice(devices[i]->device) == cudaSuccess) {
          try {
            s = work(int(i));
          } catch (...) {
            s = Status::out_of_memory;
          }
        } else {
          cudaGetLastError();
        }
        status[i] = s;
        if (s != Status::ok) stop();
      });
    } catch (const std::exception &) {
      log(1, "GPU %d: no thread for its part of a call over several devices", devices[i]->device);
      status[i] = Status::out_of_memory;
      stop();
    }
  }
  writer();
  for (std::thread &t : threads) t.join();
  cudaSetDevice(devices[0]->device);
  cudaGetLastError();
}

}  // namespace cudrop::impl
