#pragma once
// What every device benchmark needs: checked CUDA/cuBLAS/cuSOLVER calls (a benchmark may exit),
// a monotonic clock, the median, timed repetitions (host wall clock and CUDA events), and
// random device data (never zeros).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "include/cudrop.h"

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(2); } } while (0)
#define CHECK_CUSOLVER(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d cusolver %d\n", __FILE__, __LINE__, int(s_)); std::exit(2); } } while (0)
#define CHECK_CUBLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d cublas %d\n", __FILE__, __LINE__, int(s_)); std::exit(2); } } while (0)

namespace bench {

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "4096,8192,16384" -> {4096, 8192, 16384}; entries that are not positive are dropped (so ""
// gives an empty list).
inline std::vector<int> parse_list(const char *text) {
  std::vector<int> out;
  for (const char *p = text; *p;) {
    if (std::atoi(p) > 0) out.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return out;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// False, after saying so, when cudrop has no usable GPU to measure.
inline bool gpu_present(const char *bench) {
  if (cudrop_gpu_available() != 0) return true;
  std::printf("%s bench: no usable GPU\n", bench);
  return false;
}

// Says which GPU the numbers come from; returns a stream (cudaStreamCreateWithFlags' flags)
// for the benchmark's work.
inline cudaStream_t open_device(unsigned stream_flags) {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, stream_flags));
  return stream;
}

// Median wall-clock milliseconds of `reps` calls of call() after one warm-up call, restore()
// (untimed) before each. *on_gpu: cudrop's counters show each call on the GPU, none on the CPU
// and none fallen back.
template <class Restore, class Call>
double host_median_ms(int reps, Restore &&restore, Call &&call, bool *on_gpu) {
  long gpu0 = 0, cpu0 = 0, fallbacks0 = 0, gpu1 = 0, cpu1 = 0, fallbacks1 = 0;
  cudrop_counters(&gpu0, &cpu0, &fallbacks0);
  std::vector<double> times;
  for (int r = 0; r <= reps; ++r) {
    restore();
    const double t0 = now();
    call();
    if (r > 0) times.push_back((now() - t0) * 1e3);
  }
  cudrop_counters(&gpu1, &cpu1, &fallbacks1);
  *on_gpu = gpu1 - gpu0 == reps + 1 && cpu1 == cpu0 && fallbacks1 == fallbacks0;
  return median(times);
}

// Median milliseconds of `reps` runs of run() on `stream`, by CUDA events, after `warmups`
// runs not counted; prepare() is enqueued (untimed) before each run.
template <class Prepare, class Run>
double device_median_ms(cudaStream_t stream, int warmups, int reps, Prepare &&prepare, Run &&run) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int r = 0; r < warmups + reps; ++r) {
    prepare();
    CHECK_CUDA(cudaEventRecord(start, stream));
    run();
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    if (r >= warmups) times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(times);
}

// Uniform in [-0.5, 0.5) from a hash of the index and seed.
template <class T>
__global__ void fill_random(T *p, size_t count, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    unsigned x = unsigned(i) * 2654435761u ^ (seed * 97u + unsigned(i >> 32));
    x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
    p[i] = T(x) / T(4294967296.0) - T(0.5);
  }
}

}  // namespace bench
