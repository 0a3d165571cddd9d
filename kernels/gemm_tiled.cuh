#pragma once
// GEMM kernels: C = alpha*op(A)*op(B) + beta*C, column-major, any size, any leading
// dimension, any alignment; beta == 0 never reads C. One entry point for both precisions:
// float on the FP32 pipes (kernels/gemm_ffma.cuh; the netlib thresholds forbid TF32),
// double on the FP64 tensor cores (kernels/gemm_dmma.cuh).
// Include it in impl/gemm/gemm.cu only (everything else calls impl::gemm_device): the launchers
// raise each kernel's shared-memory limit once per process, and a kernel instantiated in a
// second translation unit is a second kernel whose limit was never raised (its launch fails
// with "invalid argument").
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "kernels/gemm_dmma.cuh"
#include "kernels/gemm_ffma.cuh"

namespace cudrop::kernels {

// The kernel configuration of one launch, chosen by the caller (impl/gemm/gemm_config.h) from the
// shape, the device and the tuning table.
struct GemmKernelConfig {
  DmmaTile dmma_tile = DmmaTile::t128x64;  // double: the block tile
  bool ffma_deep = false;                  // float: FfmaShapeDeep (else FfmaShape)
};

// Launches on `stream`, computing and writing `part` of C (kernels/gemm_part.cuh).
template <class T>
cudaError_t launch_gemm_tiled(const GemmKernelConfig &config, bool trans_a, bool trans_b, int m, int n, int k,
                              T alpha, const T *A, size_t lda, const T *B, size_t ldb, T beta, T *C, size_t ldc,
                              cudaStream_t stream, GemmPart part = {}) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  if constexpr (std::is_same_v<T, float>)
    return launch_gemm_ffma(config.ffma_deep, trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream,
                            part);
  else
    return launch_gemm_dmma(config.dmma_tile, trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream,
                            part);
}

}  // namespace cudrop::kernels
