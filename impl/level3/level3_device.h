#pragma once
// The Level-3 BLAS beside GEMM on the GPU, device interface (arrays already on the GPU,
// column-major, leading dimensions in elements; what the host interface, blocked LAPACK and
// the benchmarks use). Each is a blocked algorithm over impl::gemm_device plus the small kernels
// of kernels/triangular.cuh, issued in order on `stream` (a cudaStream_t; nullptr = the legacy
// default stream); asynchronous. Options are core/options.h's (Op::conj_trans: the conjugate
// transpose, a transpose for real T). m, n, k fit an
// int. T: float, double, Complex<float>, Complex<double> (core/complex.h). Each reads only the triangle of a
// triangular or symmetric operand that uplo names and writes only what the BLAS routine writes.
//
// workspace: device memory of workspace_bytes, used in stream order; with less than the
// routine's *_device_workspace(...) bytes (or nullptr) the routine allocates its own in
// stream order (cudaMallocAsync) and frees it the same way.
#include <cstddef>
#include <cstdint>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

// op(A) X = alpha B (side 'L', A m x m) or X op(A) = alpha B (side 'R', A n x n); B (m x n)
// is overwritten by X. alpha == 0 sets B to zero without reading A or B. Past an order of
// tuning::kTrsmInverseNb it inverts A's diagonal blocks first and needs workspace
// (trsm_device_workspace, for any TRANS; 0 up to that order): with `lean` only the inverses'
// part, without which it allocates in stream order, and without the rest of which each complex
// product allocates its own (slower, less memory).
template <class T>
Status trsm_device(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda,
                   T *dB, size_t lddb, void *stream, void *workspace = nullptr, size_t workspace_bytes = 0);
template <class T>
size_t trsm_device_workspace(Side side, int64_t m, int64_t n, bool lean = false);

// C = alpha op(A) B (side 'L') or C = alpha B op(A) (side 'R'), out of place: B (m x n) is
// only read, C (m x n) must not overlap A or B. alpha == 0 sets C to zero reading neither. Its
// workspace holds A's triangle as a zero-filled square.
template <class T>
Status trmm_device(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda,
                   const T *dB, size_t lddb, T *dC, size_t lddc, void *stream, void *workspace = nullptr,
                   size_t workspace_bytes = 0);
template <class T>
size_t trmm_device_workspace(Side side, int64_t m, int64_t n);

// C = alpha A B + beta C (side 'L', A m x m symmetric) or alpha B A + beta C (side 'R', A n x n).
template <class T>
Status symm_device(Side side, Uplo uplo, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda, const T *dB,
                   size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace = nullptr,
                   size_t workspace_bytes = 0);
template <class T>
size_t symm_device_workspace(Side side, int64_t m, int64_t n);
// The same with A Hermitian (complex T): the imaginary parts of A's diagonal are never read
// (taken as zero). Its workspace is symm_device_workspace's.
template <class T>
Status hemm_device(Side side, Uplo uplo, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda, const T *dB,
                   size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace = nullptr,
                   size_t workspace_bytes = 0);

// uplo's triangle of C (n x n) = alpha op(A) op(A)^T + beta C (SYRK, B == nullptr) or
// alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C (SYR2K); op(A) is n x k (trans 'N': A is
// n x k, else k x n). The other triangle of C is neither read nor written.
template <class T>
Status syr2k_device(Uplo uplo, Op trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda, const T *dB,
                    size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace = nullptr,
                    size_t workspace_bytes = 0);
// Workspace that lets the products run without allocating (a complex product's widened operand,
// a float A^T B's repacked operand; 0 when none is needed).
template <class T>
size_t syr2k_device_workspace(Op trans, int64_t n, int64_t k);
// The Hermitian updates (complex T, trans 'N' or 'C'): uplo's triangle of C = alpha op(A) op(A)^H
// + beta C (HERK, B == nullptr, alpha real: its imaginary part zero) or alpha op(A) op(B)^H +
// conj(alpha) op(B) op(A)^H + beta C (HER2K), beta real. On C's diagonal only real parts are
// read and the imaginary parts are set to zero, as the reference does. Its workspace is
// syr2k_device_workspace's.
template <class T>
Status her2k_device(Uplo uplo, Op trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda, const T *dB,
                    size_t lddb, real_t<T> beta, T *dC, size_t lddc, void *stream, void *workspace = nullptr,
                    size_t workspace_bytes = 0);

}  // namespace cudrop::impl
