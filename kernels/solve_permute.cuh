#pragma once
// Row permutation of a block of right-hand sides: the interchanges of an LU's IPIV applied to B
// (xLASWP forward: gather, dst(i, :) = src(perm[i], :)) or undone (backward: scatter,
// dst(perm[i], :) = src(i, :)), out of place. perm is the composition of the interchanges
// (impl/solve/solve.h, row_permutation), so the sequential chain of swaps becomes one parallel pass.
#include <cuda_runtime.h>

#include <cstddef>

namespace cudrop::kernels {

constexpr int kPermuteThreads = 256;

// Grid: x over rows, y strides over columns (any count).
template <class T>
__global__ void __launch_bounds__(kPermuteThreads)
permute_rows(int n, int cols, const int *__restrict__ perm, bool scatter, const T *__restrict__ src, size_t ld_src,
             T *__restrict__ dst, size_t ld_dst) {
  const long long i = (long long)blockIdx.x * kPermuteThreads + threadIdx.x;
  if (i >= n) return;
  const size_t p = size_t(perm[i]);
  const size_t from = scatter ? size_t(i) : p, to = scatter ? p : size_t(i);
  for (long long j = blockIdx.y; j < cols; j += gridDim.y) dst[to + size_t(j) * ld_dst] = src[from + size_t(j) * ld_src];
}

template <class T>
cudaError_t launch_permute_rows(int n, int cols, const int *perm, bool scatter, const T *src, size_t ld_src, T *dst,
                                size_t ld_dst, cudaStream_t stream) {
  if (n <= 0 || cols <= 0) return cudaSuccess;
  const long long blocks = (n + kPermuteThreads - 1) / kPermuteThreads;
  const dim3 grid(unsigned(blocks), unsigned(cols < 65535 ? cols : 65535));
  permute_rows<T><<<grid, kPermuteThreads, 0, stream>>>(n, cols, perm, scatter, src, ld_src, dst, ld_dst);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
