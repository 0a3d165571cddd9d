#pragma once
// What the LU and Cholesky benchmarks share for c and z: cuSOLVER's 64-bit API's data types and
// workspace, and a value widened to std::complex<double> for the spot checks.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <complex>
#include <type_traits>
#include <vector>

#include "bench/bench_common.cuh"
#include "core/complex.h"

namespace bench {

template <class T>
constexpr cudaDataType kCusolverComplex = std::is_same_v<T, cudrop::Complex<float>> ? CUDA_C_32F : CUDA_C_64F;

template <class T>
std::complex<double> widen(T x) {
  return {double(cudrop::real_part(x)), double(cudrop::imag_part(x))};
}

// One factorization's workspace: set device_bytes and host_bytes (the *_bufferSize calls), then
// allocate().
struct CusolverWork {
  cusolverDnParams_t params = nullptr;
  size_t device_bytes = 0, host_bytes = 0;
  std::vector<char> host;
  void *device = nullptr;
  CusolverWork() { CHECK_CUSOLVER(cusolverDnCreateParams(&params)); }
  CusolverWork(const CusolverWork &) = delete;
  CusolverWork &operator=(const CusolverWork &) = delete;
  void allocate() {
    CHECK_CUDA(cudaMalloc(&device, std::max<size_t>(256, device_bytes)));
    host.resize(std::max<size_t>(1, host_bytes));
  }
  ~CusolverWork() {
    cudaFree(device);
    cusolverDnDestroyParams(params);
  }
};

}  // namespace bench
