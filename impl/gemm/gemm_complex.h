#pragma once
// Complex GEMM on the device: impl::gemm_device's c and z instances (impl/gemm/gemm_complex.cu
// says how: one real GEMM of twice the size).
#include <cstddef>

#include "core/complex.h"
#include "impl/gemm/gemm.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

template <class R>
Status complex_gemm_device(Op trans_a, Op trans_b, int m, int n, int k, Complex<R> alpha, const Complex<R> *dA,
                           size_t ldda, const Complex<R> *dB, size_t lddb, Complex<R> beta, Complex<R> *dC,
                           size_t lddc, void *stream, GemmPart part, void *workspace, size_t workspace_bytes);
template <class R>
size_t complex_gemm_workspace(Op trans_a, Op trans_b, int m, int n, int k);

}  // namespace cudrop::impl
