#pragma once
// Pieces both GEMM kernels share. Which tiles of C a GEMM launch computes: all, or (lower_only, for SYRK-like updates whose
// result is needed on and below the diagonal only, e.g. Cholesky's trailing matrix) those
// that reach the diagonal or below it, the diagonal being row == column + diagonal_col in the
// launch's coordinates. Tiles entirely above it are skipped: their part of C is neither read
// nor written.
#include <cuda_runtime.h>

#include <cstddef>

namespace cudrop::kernels {

struct GemmPart {
  bool lower_only = false;
  long long diagonal_col = 0;
  __device__ bool skips(long long tile_row0, int tile_rows, long long tile_col0) const {
    return lower_only && tile_row0 + tile_rows <= tile_col0 + diagonal_col;
  }
};

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
