#pragma once
// The small element-wise kernels of the SVD and least-squares drivers (impl/svd/svd_host.cu):
// a wide matrix's problem is its conjugate transpose's, R is cut out of a QR factor, and the
// pseudo-inverse's middle factor scales rows. Grid-stride in both directions, so that any
// shape launches with a bounded grid.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "core/complex.h"

namespace cudrop::kernels {

namespace svd_detail {
inline dim3 grid_for(int rows, int cols) {
  return dim3(unsigned(std::min((rows + 255) / 256, 4096)), unsigned(std::min(cols, 65535)));
}
}  // namespace svd_detail

// a (rows x cols) := the identity's leading block (diag 1) or zero (diag 0).
template <class T>
__global__ void fill_matrix(int rows, int cols, T *a, size_t lda, T diag) {
  for (int j = blockIdx.y; j < cols; j += gridDim.y)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
      a[size_t(i) + size_t(j) * lda] = i == j ? diag : T(0);
}
template <class T>
cudaError_t launch_fill(int rows, int cols, T *a, size_t lda, T diag, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  fill_matrix<T><<<svd_detail::grid_for(rows, cols), 256, 0, s>>>(rows, cols, a, lda, diag);
  return cudaGetLastError();
}

// a (rows x cols) := conj(a): with the transpose kernel, the conjugate transpose.
template <class T>
__global__ void conjugate_matrix(int rows, int cols, T *a, size_t lda) {
  for (int j = blockIdx.y; j < cols; j += gridDim.y)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
      a[size_t(i) + size_t(j) * lda] = conj(a[size_t(i) + size_t(j) * lda]);
}
template <class T>
cudaError_t launch_conjugate(int rows, int cols, T *a, size_t lda, cudaStream_t s) {
  if (!is_complex_v<T> || rows <= 0 || cols <= 0) return cudaSuccess;
  conjugate_matrix<T><<<svd_detail::grid_for(rows, cols), 256, 0, s>>>(rows, cols, a, lda);
  return cudaGetLastError();
}

// out (n x n) := the upper triangle of a's leading n x n block, zero below the diagonal.
template <class T>
__global__ void upper_triangle_copy(int n, const T *__restrict__ a, size_t lda, T *__restrict__ out, size_t ldo) {
  for (int j = blockIdx.y; j < n; j += gridDim.y)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      out[size_t(i) + size_t(j) * ldo] = i <= j ? a[size_t(i) + size_t(j) * lda] : T(0);
}
template <class T>
cudaError_t launch_upper_triangle_copy(int n, const T *a, size_t lda, T *out, size_t ldo, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  upper_triangle_copy<T><<<svd_detail::grid_for(n, n), 256, 0, s>>>(n, a, lda, out, ldo);
  return cudaGetLastError();
}

// out (rows x cols, T) := z (real): the bidiagonal problem's singular vectors in T.
template <class T>
__global__ void real_to_matrix(int rows, int cols, const real_t<T> *__restrict__ z, size_t ldz, T *__restrict__ out,
                               size_t ldo) {
  for (int j = blockIdx.y; j < cols; j += gridDim.y)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
      out[size_t(i) + size_t(j) * ldo] = T(z[size_t(i) + size_t(j) * ldz]);
}
template <class T>
cudaError_t launch_real_to_matrix(int rows, int cols, const real_t<T> *z, size_t ldz, T *out, size_t ldo,
                                  cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  real_to_matrix<T><<<svd_detail::grid_for(rows, cols), 256, 0, s>>>(rows, cols, z, ldz, out, ldo);
  return cudaGetLastError();
}

// w (rows x cols): row i times scale[i] (the pseudo-inverse's 1/sigma, or zero).
template <class T>
__global__ void scale_rows(int rows, int cols, const real_t<T> *__restrict__ scale, T *w, size_t ldw) {
  for (int j = blockIdx.y; j < cols; j += gridDim.y)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
      w[size_t(i) + size_t(j) * ldw] = w[size_t(i) + size_t(j) * ldw] * scale[i];
}
template <class T>
cudaError_t launch_scale_rows(int rows, int cols, const real_t<T> *scale, T *w, size_t ldw, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  scale_rows<T><<<svd_detail::grid_for(rows, cols), 256, 0, s>>>(rows, cols, scale, w, ldw);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
