#pragma once
// LU factorization with partial pivoting on the GPU (LAPACK xGETRF): the host interface (what
// sgetrf_/dgetrf_ use: host matrix in, factors and pivots out) over the device interface
// (matrix already on the GPU; what benchmarks use).
//
// Algorithm: right-looking blocked LU, panel width nb (core/tuning.h), with one panel of
// look-ahead. For each panel: the panel is factored by one kernel (pivot search,
// interchange, scaling and rank-1 updates inside the panel; kernels/getrf_panel.cuh) on a
// high-priority stream; the panel's interchanges are applied to the columns on both sides
// (xLASWP), U12 = inv(L11) A12 (own TRSM kernel), and A22 -= L21 U12 (impl::gemm_device).
// The next panel's columns are updated first, so that its factorization overlaps the
// update of the rest of the matrix.
#include <cstddef>
#include <functional>

#include "core/complex.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

// Host arrays, column-major, any m, n >= 1 and lda >= m (the caller has checked them).
// On Status::ok: a holds L (unit, below the diagonal) and U, ipiv[0..min(m,n)) the 1-based
// pivot rows, *info the first exactly-zero U(i,i) (1-based) or 0, exactly as the reference
// routine defines them. On any other status a, ipiv and info hold what they held before the
// call. Rows of the factor that are final while the GPU works on (row block [j, j+nb) once
// its step is done) go back early, their original contents kept on the host until the call
// has succeeded and copied back over them when it fails; without the memory for that copy
// nothing is written before the end.
template <class T>
Status getrf_host(int m, int n, T *a, int lda, int *ipiv, int *info);

// Device workspace getrf_device needs for an m x n matrix, in bytes (the panel kernel's
// exchange buffer: a constant, at most 1.3 MB).
template <class T>
size_t getrf_device_workspace(int m, int n);

// Device arrays: dA (ldda >= m), d_ipiv (min(m,n) ints, 1-based like the reference),
// d_info (one int), d_work (getrf_device_workspace bytes, 256-byte aligned). Asynchronous on
// `stream` (a cudaStream_t): the results are there once that stream has completed.
// nb = 0 takes the tuned panel width; otherwise 1 <= nb <= 128.
// rows_final (optional): called on the issuing thread once the work that makes rows [0, rows)
// of the factor final has been enqueued on `stream` (an event recorded there now completes
// once they hold their final values; later steps only interchange rows below them), with
// rows increasing up to min(m, n); rows beyond min(m, n) are final only at the end. A status
// other than ok stops the factorization with that status.
using RowsFinal = std::function<Status(int rows)>;
template <class T>
Status getrf_device(int m, int n, T *dA, size_t ldda, int *d_ipiv, int *d_info, void *d_work,
                    void *stream, int nb = 0, const RowsFinal *rows_final = nullptr);

}  // namespace cudrop::impl
