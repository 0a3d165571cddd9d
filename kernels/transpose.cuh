#pragma once
// out = in^T for a rows x cols column-major block (out is cols x rows): the repacking that
// lets impl::gemm_device run C = A^T B as C = A^T (B^T)^T on the kernel layout that copies
// its operands into shared memory with fewer, wider loads (kernels/gemm_ffma.cuh).
// Bandwidth-bound: each block moves 32 x 32 tiles through shared memory so that both the
// reads of `in` and the writes of `out` are whole 128-byte lines (per 32 floats).
// Conjugate: out = in^H, the LQ routines' passage to and from their conjugate transpose's QR.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"

namespace cudrop::kernels {

constexpr int kTransposeTile = 32, kTransposeRowsPerPass = 8;

// Grid: x over tiles along `rows`, y strides over tiles along `cols` (any count).
template <class T, bool Conjugate = false>
__global__ void __launch_bounds__(kTransposeTile *kTransposeRowsPerPass)
transpose_matrix(int rows, int cols, const T *__restrict__ in, size_t ld_in, T *__restrict__ out, size_t ld_out) {
  // One column of padding: the column-wise reads of the second phase hit 32 different banks.
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];
  const int tx = threadIdx.x % kTransposeTile, ty = threadIdx.x / kTransposeTile;
  const long long i0 = (long long)blockIdx.x * kTransposeTile;
  for (long long j0 = (long long)blockIdx.y * kTransposeTile; j0 < cols;
       j0 += (long long)gridDim.y * kTransposeTile) {
    // Read: lanes along a column of `in` (i fastest).
#pragma unroll
    for (int p = ty; p < kTransposeTile; p += kTransposeRowsPerPass) {
      const long long i = i0 + tx, j = j0 + p;
      if (i < rows && j < cols) tile[p][tx] = in[size_t(i) + size_t(j) * ld_in];
    }
    __syncthreads();
    // Write: lanes along a column of `out`, which is a row of the tile (j fastest).
#pragma unroll
    for (int p = ty; p < kTransposeTile; p += kTransposeRowsPerPass) {
      const long long j = j0 + tx, i = i0 + p;
      if (i < rows && j < cols) {
        if constexpr (Conjugate) out[size_t(j) + size_t(i) * ld_out] = conj(tile[tx][p]);
        else out[size_t(j) + size_t(i) * ld_out] = tile[tx][p];
      }
    }
    __syncthreads();  // the tile is refilled by the next stride
  }
}

template <class T, bool Conjugate = false>
cudaError_t launch_transpose(int rows, int cols, const T *in, size_t ld_in, T *out, size_t ld_out,
                             cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  const long long tiles_i = (rows + kTransposeTile - 1) / kTransposeTile;
  const long long tiles_j = (cols + kTransposeTile - 1) / kTransposeTile;
  if (tiles_i > 0x7fffffffLL) return cudaErrorInvalidValue;
  const dim3 grid(unsigned(tiles_i), unsigned(tiles_j < 65535 ? tiles_j : 65535));
  transpose_matrix<T, Conjugate>
      <<<grid, kTransposeTile * kTransposeRowsPerPass, 0, stream>>>(rows, cols, in, ld_in, out, ld_out);
  return cudaGetLastError();
}

// out (cols x rows) := in^H (in^T for a real T).
template <class T>
cudaError_t launch_conjugate_transpose(int rows, int cols, const T *in, size_t ld_in, T *out, size_t ld_out,
                                       cudaStream_t stream) {
  return launch_transpose<T, is_complex_v<T>>(rows, cols, in, ld_in, out, ld_out, stream);
}

}  // namespace cudrop::kernels
