#pragma once
// The operand kernels of complex GEMM as one real GEMM (impl/gemm/gemm_complex.cu):
//   copy_op_complex  out = s * op(in), rows x cols of op(in) (op: as is, transposed, conjugate
//                    transposed); with `widen` every column l of op(in) becomes the two columns
//                    2l and 2l+1 of out, s * op(in)(:, l) and i * s * op(in)(:, l), so that out,
//                    read as a real matrix of 2 rows x 2 cols, times a complex matrix read as real
//                    (2 cols x n) is the complex product, read as real (2 rows x n).
//   scale_complex    C = beta * C (beta == 0: C = 0, never read).
// Bandwidth-bound: 32 x 32 tiles through shared memory, so that a transposed read is as
// coalesced as a plain one.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"

namespace cudrop::kernels {

constexpr int kOperandTile = 32, kOperandRowsPerPass = 8;

// Grid: x over tiles along op(in)'s rows, y strides over tiles along its columns.
template <class R, bool Widen>
__global__ void __launch_bounds__(kOperandTile *kOperandRowsPerPass)
copy_op_complex(int rows, int cols, bool transposed, bool conjugated, Complex<R> s,
                const Complex<R> *__restrict__ in, size_t ld_in, Complex<R> *__restrict__ out, size_t ld_out) {
  __shared__ Complex<R> tile[kOperandTile][kOperandTile + 1];
  const int tx = threadIdx.x % kOperandTile, ty = threadIdx.x / kOperandTile;
  const long long i0 = (long long)blockIdx.x * kOperandTile;
  for (long long l0 = (long long)blockIdx.y * kOperandTile; l0 < cols; l0 += (long long)gridDim.y * kOperandTile) {
    // Read along in's own columns: op(in)(i, l) is in(l, i) when transposed.
#pragma unroll
    for (int p = ty; p < kOperandTile; p += kOperandRowsPerPass) {
      if (transposed) {
        const long long l = l0 + tx, i = i0 + p;
        if (i < rows && l < cols) tile[p][tx] = in[size_t(l) + size_t(i) * ld_in];
      } else {
        const long long i = i0 + tx, l = l0 + p;
        if (i < rows && l < cols) tile[tx][p] = in[size_t(i) + size_t(l) * ld_in];
      }
    }
    __syncthreads();
#pragma unroll
    for (int p = ty; p < kOperandTile; p += kOperandRowsPerPass) {
      const long long i = i0 + tx, l = l0 + p;
      if (i < rows && l < cols) {
        Complex<R> x = tile[tx][p];
        if (conjugated) x.im = -x.im;
        x = s * x;
        if (Widen) {
          out[size_t(i) + size_t(2 * l) * ld_out] = x;
          out[size_t(i) + size_t(2 * l + 1) * ld_out] = Complex<R>(-x.im, x.re);
        } else {
          out[size_t(i) + size_t(l) * ld_out] = x;
        }
      }
    }
    __syncthreads();  // the tile is refilled by the next stride
  }
}

template <class R, bool Widen>
cudaError_t launch_copy_op_complex(int rows, int cols, bool transposed, bool conjugated, Complex<R> s,
                                   const Complex<R> *in, size_t ld_in, Complex<R> *out, size_t ld_out,
                                   cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  const long long tiles_i = (rows + kOperandTile - 1) / kOperandTile;
  const long long tiles_l = (cols + kOperandTile - 1) / kOperandTile;
  if (tiles_i > 0x7fffffffLL) return cudaErrorInvalidValue;
  const dim3 grid(unsigned(tiles_i), unsigned(tiles_l < 65535 ? tiles_l : 65535));
  copy_op_complex<R, Widen><<<grid, kOperandTile * kOperandRowsPerPass, 0, stream>>>(
      rows, cols, transposed, conjugated, s, in, ld_in, out, ld_out);
  return cudaGetLastError();
}

// Grid: x over rows in blocks of 256, y strides over columns.
template <class R>
__global__ void __launch_bounds__(256)
scale_complex(int rows, int cols, Complex<R> beta, Complex<R> *__restrict__ c, size_t ldc) {
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i >= rows) return;
  const bool zero = beta == Complex<R>(0);
  for (long long j = blockIdx.y; j < cols; j += gridDim.y) {
    Complex<R> *x = c + size_t(i) + size_t(j) * ldc;
    *x = zero ? Complex<R>(0) : beta * *x;
  }
}

template <class R>
cudaError_t launch_scale_complex(int rows, int cols, Complex<R> beta, Complex<R> *c, size_t ldc, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  const long long blocks = (rows + 255) / 256;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
  const dim3 grid(unsigned(blocks), unsigned(cols < 65535 ? cols : 65535));
  scale_complex<R><<<grid, 256, 0, stream>>>(rows, cols, beta, c, ldc);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
