#pragma once
// GEMM on the GPU: the host interface (host arrays in and out, what sgemm_ uses) over the
// device interface (arrays already on the GPU, what benchmarks and blocked LAPACK use).
#include <cstddef>

#include "impl/status.h"

namespace cudrop {

// One column-major GEMM call as the Fortran routine received it (checked, non-trivial).
template <class T>
struct GemmArgs {
  bool trans_a, trans_b;
  int m, n, k;
  T alpha;
  const T *a;
  int lda;
  const T *b;
  int ldb;
  T beta;
  T *c;
  int ldc;
};

namespace impl {

// Host arrays: copies op-sized blocks of A and B (and C unless beta == 0) in, runs the
// kernel, copies C's m x n block out. Never touches anything else of the caller's arrays.
template <class T>
Status gemm_host(const GemmArgs<T> &args);

// Device arrays (column-major, leading dimensions in elements), on the given stream
// (a cudaStream_t; nullptr = the legacy default stream). Asynchronous.
template <class T>
Status gemm_device(bool trans_a, bool trans_b, int m, int n, int k, T alpha, const T *dA,
                   size_t ldda, const T *dB, size_t lddb, T beta, T *dC, size_t lddc,
                   void *stream);

}  // namespace impl
}  // namespace cudrop
