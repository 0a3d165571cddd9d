#pragma once
// dst row to[i] = src row from[i] for i < count, columns [0, cols): the row interchanges of a
// distributed LU (rows gathered into a packed block and put back in their new places). A null
// index array stands for i itself. The rows of one call must not overlap between src and dst.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace cudrop::kernels {

constexpr int kIndexedRowsThreads = 256;

// Block: threadIdx.x over the rows, blockIdx.x strides over the columns.
template <class T>
__global__ void __launch_bounds__(kIndexedRowsThreads)
copy_indexed_rows(int count, const int *__restrict__ from, const T *__restrict__ src, size_t ld_src,
                  const int *__restrict__ to, T *__restrict__ dst, size_t ld_dst, int64_t cols) {
  for (int64_t c = blockIdx.x; c < cols; c += gridDim.x)
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      const int f = from != nullptr ? from[i] : i, t = to != nullptr ? to[i] : i;
      dst[size_t(t) + size_t(c) * ld_dst] = src[size_t(f) + size_t(c) * ld_src];
    }
}

template <class T>
cudaError_t launch_copy_indexed_rows(int count, const int *from, const T *src, size_t ld_src, const int *to, T *dst,
                                     size_t ld_dst, int64_t cols, cudaStream_t stream) {
  if (count == 0 || cols == 0) return cudaSuccess;
  const unsigned blocks = unsigned(cols < 65535 ? cols : 65535);
  copy_indexed_rows<T><<<blocks, kIndexedRowsThreads, 0, stream>>>(count, from, src, ld_src, to, dst, ld_dst, cols);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
