#pragma once
// Symmetric indefinite factorization and solves on the GPU (LAPACK xSYTRF, xHETRF, xSYTRS,
// xHETRS and the drivers xSYSV, xHESV; T float, double, Complex<float>, Complex<double>):
// the host interfaces (what the Fortran entries use: host arrays in, results out) over the
// device interfaces (matrix already on the GPU).
//
// The factorization is the reference's: A = U*D*U^T or L*D*L^T (^H for xHETRF) by blocked
// Bunch–Kaufman diagonal pivoting as xLASYF/xLAHEF do it (alpha = (1 + sqrt(17))/8, the same
// pivot tests in the same order, the column maxima by |re| + |im| for complex T as IxAMAX,
// the first of equal maxima as IxAMAX returns it), so that A and IPIV come back in exactly the
// reference's format: D's 1x1 and 2x2 blocks, the multipliers of U or L in product form with
// the interchanges, IPIV(k) > 0 for a 1x1 block, IPIV(k) = IPIV(k+1) < 0 (L: IPIV(k) =
// IPIV(k+1) < 0 for the block at k, k+1) for a 2x2 block, INFO the first exactly singular D
// block.
#include <cstddef>
#include <cstdio>

#include "core/options.h"
#include "impl/context/gpu.h"
#include "impl/solve/solve.h"

namespace cudrop::impl {

// Which factorization: xSYTRF (A = A^T, complex symmetric for complex T) or xHETRF (A = A^H,
// complex T only; the imaginary parts of the diagonal are not read and come back zero).
enum class Symmetry { symmetric, hermitian };

// ---- host interfaces: arguments already checked, n >= 1, nrhs >= 1 unless said ----

// xSYTRF/xHETRF: on ok, a's `uplo` triangle holds D and the multipliers, ipiv[0..n) the
// interchanges and block structure, *info the reference's INFO; the other triangle is not
// touched. Otherwise a, ipiv and *info hold what they held before the call.
template <class T>
Status sytrf_host(Symmetry symmetry, Uplo uplo, int n, T *a, int lda, int *ipiv, int *info);

// xSYTRS/xHETRS: B := A^-1 B with sytrf_host's (or the CPU routine's) factor and ipiv. On ok,
// B holds X. Otherwise B's columns before progress->columns hold X, the rest are unchanged.
template <class T>
Status sytrs_host(Symmetry symmetry, Uplo uplo, int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb,
                  SolveProgress *progress);

// What xSYSV's caller holds when a GPU attempt stops (as GesvProgress for xGESV): the factor
// (factor_columns: 0 or n, since a Bunch-Kaufman factor cannot be finished from part of it: a
// write-back that fails part way puts the caller's columns back), then the pivots
// (ipiv_written) and INFO, then X's columns before x_columns.
struct SysvProgress {
  int n = 0, nrhs = 0;
  bool ipiv_written = false;
  int factor_columns = 0, x_columns = 0, info = 0;
  bool any_written() const { return ipiv_written || factor_columns != 0 || x_columns != 0; }
  void describe(char *text, size_t size) const {
    std::snprintf(text, size, "after %d of %d factor columns and %d of %d solution columns were written back",
                  factor_columns, n, x_columns, nrhs);
  }
};

// xSYSV/xHESV (nrhs >= 0): on ok, A and IPIV hold the factorization as sytrf_host's, *info its
// INFO, and B the solution when *info is 0 (unchanged otherwise). Otherwise *info is untouched
// and *progress says what the caller's arrays hold. A stays on the device between the
// factorization and the solve.
template <class T>
Status sysv_host(Symmetry symmetry, Uplo uplo, int n, int nrhs, T *a, int lda, int *ipiv, T *b, int ldb, int *info,
                 SysvProgress *progress);

// ---- device interfaces: asynchronous on `stream` (a cudaStream_t) ----

// Device workspace sytrf_device needs for order n, in bytes.
template <class T>
size_t sytrf_device_workspace(int n);

// xSYTRF/xHETRF on device arrays: dA (ldda >= n) in, the factor out in its `uplo` triangle;
// d_ipiv (n ints, the reference's format) and d_info (one int) out; d_work
// (sytrf_device_workspace bytes, 256-byte aligned).
template <class T>
Status sytrf_device(Symmetry symmetry, Uplo uplo, int n, T *dA, size_t ldda, int *d_ipiv, int *d_info, void *d_work,
                    void *stream);

// Device workspace sytrs_device needs for n x nrhs right-hand sides, in bytes.
template <class T>
size_t sytrs_device_workspace(int n, int nrhs);

// xSYTRS/xHETRS on device arrays: dA (ldda >= n) sytrf_device's factor (read only),
// ipiv the same interchanges on the host (n ints), dB (lddb >= n) := A^-1 dB in place.
template <class T>
Status sytrs_device(Symmetry symmetry, Uplo uplo, int n, int nrhs, const T *dA, size_t ldda, const int *ipiv, T *dB,
                    size_t lddb, void *d_work, size_t work_bytes, void *stream);

}  // namespace cudrop::impl
