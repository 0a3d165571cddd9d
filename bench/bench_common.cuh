#pragma once
// What every device benchmark needs: checked CUDA/cuSOLVER calls (a benchmark may exit),
// a monotonic clock, the median, and random device data (never zeros).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(2); } } while (0)
#define CHECK_CUSOLVER(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d cusolver %d\n", __FILE__, __LINE__, int(s_)); std::exit(2); } } while (0)

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
