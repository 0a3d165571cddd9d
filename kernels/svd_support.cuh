#pragma once
// The small kernels of the SVD and least-squares drivers (impl/svd): R is cut out of a QR
// factor, U is started as [0] or [I] and widened from real, the pseudo-inverse's middle factor
// scales rows; the bidiagonal SVD's vectors from its Golub-Kahan form, and their checks.
// Grid-stride, so that any shape launches with a bounded grid.
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

// ---- the bidiagonal SVD through the Golub-Kahan form (impl/svd/bidiagonal_device.cu) ----

namespace svd_detail {
template <class R>
__device__ __forceinline__ unsigned long long magnitude_bits(R x) {
  const double m = fabs(double(x));
  return m != m ? ~0ull : static_cast<unsigned long long>(__double_as_longlong(m));
}
// The sum of a block's values (blockDim.x a multiple of 32, at most 1024), in every thread.
template <class R>
__device__ R block_sum(R v, R *shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  R total = 0;
  for (int w = 0; w < warps; ++w) total += shared[w];
  return total;
}
}  // namespace svd_detail

// U (n x n) and V (n x n) from the eigenvectors Z (2n x 2n) of the form, eigenvalues ascending:
// column i from column 2n-1-i, v its even entries, u its odd ones, each scaled to unit length
// (a zero part gives NaN, which the checks refuse). One block per column.
template <class R>
__global__ void __launch_bounds__(256) golub_kahan_vectors(int n, const R *__restrict__ z, size_t ldz,
                                                            R *__restrict__ u, size_t ldu, R *__restrict__ v,
                                                            size_t ldv) {
  __shared__ R partial[2][32];
  for (int i = blockIdx.x; i < n; i += gridDim.x) {
    const R *col = z + size_t(2 * n - 1 - i) * ldz;
    R su = 0, sv = 0;
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
      const R a = col[2 * size_t(k)], b = col[2 * size_t(k) + 1];
      sv += a * a;
      su += b * b;
    }
    const R nu = sqrt(svd_detail::block_sum(su, partial[0])), nv = sqrt(svd_detail::block_sum(sv, partial[1]));
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
      v[size_t(k) + size_t(i) * ldv] = col[2 * size_t(k)] / nv;
      u[size_t(k) + size_t(i) * ldu] = col[2 * size_t(k) + 1] / nu;
    }
    __syncthreads();  // partial is reused by the next column
  }
}
template <class R>
cudaError_t launch_golub_kahan_vectors(int n, const R *z, size_t ldz, R *u, size_t ldu, R *v, size_t ldv,
                                       cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  golub_kahan_vectors<R><<<unsigned(std::min(n, 65535)), 256, 0, s>>>(n, z, ldz, u, ldu, v, ldv);
  return cudaGetLastError();
}

// *out := max(*out, max |G(i,j) - delta_ij|) over the n x n G, as the bits of a nonnegative
// double (NaN: all ones), by atomicMax.
template <class R>
__global__ void identity_distance(int n, const R *__restrict__ g, size_t ldg, unsigned long long *out) {
  unsigned long long best = 0;
  for (int j = blockIdx.y; j < n; j += gridDim.y)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      best = max(best, svd_detail::magnitude_bits(g[size_t(i) + size_t(j) * ldg] - (i == j ? R(1) : R(0))));
  for (int o = 16; o > 0; o >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, o));
  if ((threadIdx.x & 31) == 0 && best != 0) atomicMax(out, best);
}
template <class R>
cudaError_t launch_identity_distance(int n, const R *g, size_t ldg, unsigned long long *out, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  identity_distance<R><<<svd_detail::grid_for(n, n), 256, 0, s>>>(n, g, ldg, out);
  return cudaGetLastError();
}

// *out := max(*out, max |(B V - U diag(s))(k, i)|), B upper bidiagonal with diagonal d and
// superdiagonal e.
template <class R>
__global__ void bidiagonal_residual(int n, const R *__restrict__ d, const R *__restrict__ e, const R *__restrict__ s,
                                    const R *__restrict__ u, size_t ldu, const R *__restrict__ v, size_t ldv,
                                    unsigned long long *out) {
  unsigned long long best = 0;
  for (int i = blockIdx.y; i < n; i += gridDim.y)
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
      R r = d[k] * v[size_t(k) + size_t(i) * ldv] - s[i] * u[size_t(k) + size_t(i) * ldu];
      if (k + 1 < n) r += e[k] * v[size_t(k + 1) + size_t(i) * ldv];
      best = max(best, svd_detail::magnitude_bits(r));
    }
  for (int o = 16; o > 0; o >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, o));
  if ((threadIdx.x & 31) == 0 && best != 0) atomicMax(out, best);
}
template <class R>
cudaError_t launch_bidiagonal_residual(int n, const R *d, const R *e, const R *s, const R *u, size_t ldu, const R *v,
                                       size_t ldv, unsigned long long *out, cudaStream_t st) {
  if (n <= 0) return cudaSuccess;
  bidiagonal_residual<R><<<svd_detail::grid_for(n, n), 256, 0, st>>>(n, d, e, s, u, ldu, v, ldv, out);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
