// cudrop-small-call-probe: the floor under a small call host to host, from the CUDA runtime's
// own primitives (no cudrop): what one launch, one copy each way and one synchronization cost,
// and the alternatives a small call could be built from (zero-copy reads of mapped pinned
// memory, graphs). Each line: the best and the median of `reps` repetitions, microseconds.
//   usage: cudrop-small-call-probe [bytes up (49152)] [bytes down (16384)] [reps (300)]
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "tests/harness/cuda_check.h"

namespace {

__global__ void empty_kernel() {}

// Reads `up` bytes (as 16-byte words) and writes `down` bytes: the shape of a small product's
// memory traffic, wherever the pointers lead (device memory or mapped pinned host memory).
__global__ void touch(const int4 *in, size_t in_words, int4 *out, size_t out_words) {
  int4 acc = make_int4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < in_words; i += size_t(gridDim.x) * blockDim.x) {
    const int4 v = in[i];
    acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
  }
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < out_words; i += size_t(gridDim.x) * blockDim.x)
    out[i] = acc;
}

void measure(const char *what, int reps, const std::function<void()> &step) {
  step();
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("small_call_probe %-44s best_us=%7.2f median_us=%7.2f\n", what, us[0], us[us.size() / 2]);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  const size_t up = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 49152;
  const size_t down = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 16384;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 300;
  CHECK_CUDA(cudaSetDevice(0));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void *host_up = nullptr, *host_down = nullptr, *dev = nullptr, *mapped_up = nullptr, *mapped_down = nullptr;
  CHECK_CUDA(cudaHostAlloc(&host_up, up, cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(&host_down, down, cudaHostAllocMapped));
  CHECK_CUDA(cudaHostGetDevicePointer(&mapped_up, host_up, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(&mapped_down, host_down, 0));
  CHECK_CUDA(cudaMalloc(&dev, up + down));
  std::memset(host_up, 1, up);
  std::vector<char> pageable(up);
  cudaEvent_t event[2];
  for (auto &e : event) CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  char *d = static_cast<char *>(dev);
  const size_t in_words = up / 16, out_words = down / 16;

  measure("cudaSetDevice", reps, [&] { CHECK_CUDA(cudaSetDevice(0)); });
  measure("cudaEventSynchronize (done event)", reps, [&] { CHECK_CUDA(cudaEventSynchronize(event[0])); });
  measure("cudaMemGetInfo", reps, [&] {
    size_t f = 0, t = 0;
    CHECK_CUDA(cudaMemGetInfo(&f, &t));
  });
  measure("cudaPointerGetAttributes (malloc)", reps, [&] {
    cudaPointerAttributes a;
    CHECK_CUDA(cudaPointerGetAttributes(&a, pageable.data()));
  });
  measure("memcpy up bytes (pageable -> pinned)", reps, [&] { std::memcpy(host_up, pageable.data(), up); });
  measure("launch + sync", reps, [&] {
    empty_kernel<<<1, 32, 0, stream>>>();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  measure("H2D up + sync", reps, [&] {
    CHECK_CUDA(cudaMemcpyAsync(d, host_up, up, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  measure("H2D up + launch + D2H down + sync", reps, [&] {
    CHECK_CUDA(cudaMemcpyAsync(d, host_up, up, cudaMemcpyHostToDevice, stream));
    touch<<<16, 256, 0, stream>>>(reinterpret_cast<const int4 *>(d), in_words, reinterpret_cast<int4 *>(d + up),
                                  out_words);
    CHECK_CUDA(cudaMemcpyAsync(host_down, d + up, down, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  measure("same + 2 event records + 2 event syncs", reps, [&] {
    CHECK_CUDA(cudaEventSynchronize(event[0]));
    CHECK_CUDA(cudaEventSynchronize(event[1]));
    CHECK_CUDA(cudaMemcpyAsync(d, host_up, up, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaEventRecord(event[0], stream));
    touch<<<16, 256, 0, stream>>>(reinterpret_cast<const int4 *>(d), in_words, reinterpret_cast<int4 *>(d + up),
                                  out_words);
    CHECK_CUDA(cudaMemcpyAsync(host_down, d + up, down, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaEventRecord(event[1], stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  measure("zero-copy: launch on mapped pinned + sync", reps, [&] {
    touch<<<16, 256, 0, stream>>>(reinterpret_cast<const int4 *>(mapped_up), in_words,
                                  reinterpret_cast<int4 *>(mapped_down), out_words);
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  measure("zero-copy: 3 launches on mapped pinned + sync", reps, [&] {
    for (int i = 0; i < 3; ++i)
      touch<<<16, 256, 0, stream>>>(reinterpret_cast<const int4 *>(mapped_up), in_words,
                                    reinterpret_cast<int4 *>(mapped_down), out_words);
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  // The same three steps as one graph.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  CHECK_CUDA(cudaMemcpyAsync(d, host_up, up, cudaMemcpyHostToDevice, stream));
  touch<<<16, 256, 0, stream>>>(reinterpret_cast<const int4 *>(d), in_words, reinterpret_cast<int4 *>(d + up),
                                out_words);
  CHECK_CUDA(cudaMemcpyAsync(host_down, d + up, down, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  measure("graph (H2D, launch, D2H) + sync", reps, [&] {
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  measure("4 launches + sync", reps, [&] {
    for (int i = 0; i < 4; ++i) empty_kernel<<<1, 32, 0, stream>>>();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  });
  return 0;
}
