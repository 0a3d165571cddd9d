#pragma once
// GEMM for small products in one launch, any of the four precisions: C = alpha op(A) op(B) +
// beta C, each thread one element of C, 16 x 64 and 64 x 16 slabs of op(A) and op(B) through
// shared memory (34 KiB for Complex<double>).
// Below a few million multiply-adds the tiled kernels' large tiles leave most SMs idle and run a
// long k loop in the few blocks there are, and the complex product (impl/gemm/gemm_complex.cu)
// pays an extra pass and launch for its widened operands; this kernel is latency-bound instead,
// a few microseconds for 64^3 to 128^3.
// beta == 0 never reads C; only the k entries the product has are multiplied (no padding
// value meets an Inf or NaN of the other operand).
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"

namespace cudrop::kernels {

constexpr int kSmallTile = 16;   // C's block: kSmallTile x kSmallTile threads, one element each
constexpr int kSmallDepth = 64;  // the k entries of op(A) and op(B) loaded at once

// op(X)(r, c) of a rows x cols op(X): X(r, c) stored, or X(c, r) when transposed, conjugated when
// asked; 0 outside. The index is selected, not branched on (an element outside loads element
// 0, always there, and drops it), so that a thread's loads are all in flight at once: one
// memory latency a step, not one a load.
template <class T>
__device__ __forceinline__ T op_element(const T *__restrict__ X, size_t ld, bool trans, bool conjugate, long long r,
                                        long long c, long long rows, long long cols) {
  const bool inside = (r < rows) & (c < cols);
  const T v = X[inside ? (trans ? size_t(c) + size_t(r) * ld : size_t(r) + size_t(c) * ld) : 0];
  return inside ? (conjugate ? conj(v) : v) : T(0);
}

template <class T>
__global__ void __launch_bounds__(kSmallTile *kSmallTile)
    gemm_small(int m, int n, int k, bool trans_a, bool conj_a, bool trans_b, bool conj_b, T alpha,
               const T *__restrict__ A, size_t lda, const T *__restrict__ B, size_t ldb, T beta, T *__restrict__ C,
               size_t ldc) {
  constexpr int kTile = kSmallTile, kDepth = kSmallDepth, kThreads = kTile * kTile;
  __shared__ T a_tile[kTile][kDepth + 1];  // a_tile[i][l] = op(A)(row0 + i, l0 + l)
  __shared__ T b_tile[kDepth][kTile + 1];  // b_tile[l][j] = op(B)(l0 + l, col0 + j)
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kTile + tx;
  const long long row0 = (long long)blockIdx.x * kTile, col0 = (long long)blockIdx.y * kTile;
  T acc = T(0);
  for (int l0 = 0; l0 < k; l0 += kDepth) {
    // kTile x kDepth elements of each operand, kDepth / kTile a thread, consecutive threads on
    // consecutive elements of the stored array.
#pragma unroll
    for (int q = 0; q < kTile * kDepth / kThreads; ++q) {
      const int e = t + q * kThreads;
      const int i = trans_a ? e / kDepth : e % kTile, l = trans_a ? e % kDepth : e / kTile;
      a_tile[i][l] = op_element(A, lda, trans_a, conj_a, row0 + i, l0 + l, m, k);
    }
#pragma unroll
    for (int q = 0; q < kTile * kDepth / kThreads; ++q) {
      const int e = t + q * kThreads;
      const int l = trans_b ? e / kTile : e % kDepth, j = trans_b ? e % kTile : e / kDepth;
      b_tile[l][j] = op_element(B, ldb, trans_b, conj_b, l0 + l, col0 + j, k, n);
    }
    __syncthreads();
    const int depth = k - l0 < kDepth ? k - l0 : kDepth;
#pragma unroll 8
    for (int l = 0; l < depth; ++l) acc += a_tile[tx][l] * b_tile[l][ty];
    __syncthreads();
  }
  const long long i = row0 + tx, j = col0 + ty;
  if (i >= m || j >= n) return;
  T result = alpha * acc;
  if (beta != T(0)) result += beta * C[size_t(i) + size_t(j) * ldc];
  C[size_t(i) + size_t(j) * ldc] = result;
}

// conj_a, conj_b: op 'C' (a real operand's conjugate is itself).
template <class T>
cudaError_t launch_gemm_small(int m, int n, int k, bool trans_a, bool conj_a, bool trans_b, bool conj_b, T alpha,
                              const T *A, size_t lda, const T *B, size_t ldb, T beta, T *C, size_t ldc,
                              cudaStream_t stream) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  const dim3 grid(unsigned((m + kSmallTile - 1) / kSmallTile),
                  unsigned((n + kSmallTile - 1) / kSmallTile));
  gemm_small<T><<<grid, dim3(kSmallTile, kSmallTile), 0, stream>>>(m, n, k, trans_a, conj_a, trans_b, conj_b, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
