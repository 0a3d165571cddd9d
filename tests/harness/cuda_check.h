#pragma once
// CHECK_CUDA(call): a CUDA runtime call in a test that drives the device itself; on an error,
// the file, line and message on stderr and exit status 1 (a failed test, not a skip).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                                 \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)
