#pragma once
// The CPU completions of GPU attempts that stopped after writing part of the caller's output
// (route()'s finish_on_cpu, shim/dispatch.h): each computes the rest of the call on the CPU
// library, from the state impl's progress record describes.
#include "impl/gemm.h"
#include "impl/potrf.h"

namespace cudrop {

// The columns of C that the GPU did not write back: each is still the caller's original, and
// so are A and B.
template <class T>
void gemm_finish_on_cpu(const GemmArgs<T> &g, const impl::GemmProgress &progress);

// Reference SPOTRF's blocked loop (block 64) on the CPU BLAS/LAPACK, from the state it has
// after `progress`: 'L' with columns 0..d-1 factored and the rest as on entry; 'U' likewise
// with rows 0..d-1 factored in every column, of which the columns d..d+u12-1 the GPU already
// wrote and the others are solved here first (U12 = U11^-T A12). A failure leaves A as the
// reference leaves it, and *info as the reference sets it.
template <class T>
void potrf_finish_on_cpu(bool upper, int n, T *a, int lda, const impl::PotrfProgress &progress, int *info);

}  // namespace cudrop
