#pragma once
// Pieces the GEMM kernels share: the part of C a launch writes (core/gemm_part.h) and the
// column slabs of wide launches.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/gemm_part.h"

namespace cudrop::kernels {

// gridDim.y is limited to 65535: a launch with more column tiles of width BN is cut into
// column slabs. Calls launch(first_col, cols, B_slab, C_slab) for each, in order, and stops
// at the first error.
template <int BN, class T, class Launch>
cudaError_t for_each_column_slab(int n, bool trans_b, const T *B, size_t ldb, T *C, size_t ldc, Launch &&launch) {
  constexpr long long kMaxSlabCols = 65535LL * BN;
  for (long long col = 0; col < n; col += kMaxSlabCols) {
    const int cols = static_cast<int>(n - col < kMaxSlabCols ? n - col : kMaxSlabCols);
    const cudaError_t error =
        launch(col, cols, B + (trans_b ? size_t(col) : size_t(col) * ldb), C + size_t(col) * ldc);
    if (error != cudaSuccess) return error;
  }
  return cudaSuccess;
}

}  // namespace cudrop::kernels
