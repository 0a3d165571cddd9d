#pragma once
// Single-precision GEMM on the TF32 tensor cores at FP32 accuracy (3xTF32,
// kernels/gemm_split_tf32.cuh): opt-in through CUDROP_SGEMM=3xtf32, on devices whose code this
// build holds (sm_90a, i.e. H100/H200). docs/sgemm-3xtf32.md says when it is FP32-equivalent.
#include <cstddef>

#include "core/gemm_part.h"
#include "core/options.h"
#include "core/status.h"

namespace cudrop::impl {

// Bytes of workspace an m x n x k product takes (its split operands, k cut into passes that
// fit a budget, core/tuning.h), 0 for an empty one.
size_t split_tf32_workspace(int m, int n, int k);

// C = alpha op(A) op(B) + beta C on device arrays, in `stream` order (asynchronous), k > 0.
// The workspace (device memory used in stream order) when it has split_tf32_workspace bytes,
// else its own taken in stream order. *ran = false with Status::ok when this device or build
// has no such kernel, or when that memory cannot be had: the caller then runs its FP32 kernel.
// part: as gemm_device's.
Status split_tf32_gemm_device(Op trans_a, Op trans_b, int m, int n, int k, float alpha, const float *dA,
                              size_t ldda, const float *dB, size_t lddb, float beta, float *dC, size_t lddc,
                              void *stream, GemmPart part, void *workspace, size_t workspace_bytes, bool *ran);

}  // namespace cudrop::impl
