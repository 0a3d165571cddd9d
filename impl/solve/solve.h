#pragma once
// Linear solves on the GPU (LAPACK xGETRS, xPOTRS, and the drivers xGESV, xPOSV; T float,
// double, Complex<float>, Complex<double>): the host interfaces (what the Fortran entries use:
// host arrays in, results out) over the device interfaces (factor and right-hand sides already
// on the GPU).
//
// A solve with an LU factor applies IPIV to B (one permutation pass, kernels/solve_permute.cuh),
// then two triangular solves (impl::trsm_device); with a Cholesky factor, two triangular
// solves. The drivers keep A on the device between the factorization and the solve: A and B
// go up once, the factor, IPIV and X come back once.
#include <cstddef>
#include <cstdio>
#include <vector>

#include "core/options.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

// How far a solve's X has reached the caller's B when a GPU attempt stops: its columns
// 0..columns-1; the others are still the caller's right-hand sides, and A and IPIV are inputs.
struct SolveProgress {
  int nrhs = 0;
  int columns = 0;
  bool any_written() const { return columns != 0; }
  void describe(char *text, size_t size) const {
    std::snprintf(text, size, "after %d of %d solution columns were written back", columns, nrhs);
  }
};

// What xGESV's caller holds when a GPU attempt stops: the pivots (ipiv_written: all n in
// IPIV, the GPU's), the factor's columns 0..lu_columns-1 (the rest of A is the caller's
// original), and X's columns 0..x_columns-1 (only once the whole factor is back). info: the
// GPU factorization's INFO (valid once ipiv_written).
struct GesvProgress {
  int n = 0, nrhs = 0;
  bool ipiv_written = false;
  int lu_columns = 0, x_columns = 0, info = 0;
  bool any_written() const { return ipiv_written || lu_columns != 0 || x_columns != 0; }
  void describe(char *text, size_t size) const {
    std::snprintf(text, size, "after %d of %d factor columns and %d of %d solution columns were written back",
                  lu_columns, n, x_columns, nrhs);
  }
};

// The row order IPIV's interchanges give, applied forward as xLASWP does: position i of P*B
// holds row perm[i] of B. False (perm unspecified) when an entry of ipiv[0..n) is outside
// [1, n]: the reference would read outside B, which only the CPU routine may reproduce.
bool row_permutation(int n, const int *ipiv, std::vector<int> *perm);

// Test hook CUDROP_TEST_FAULT_INJECT=solve-stage:N (docs/tuning.md): whether a GPU solve stops
// at stage N; the stages that the Cholesky driver (impl/potrf/potrf_host.cu) shares.
constexpr int kSolveStageUploaded = 1, kSolveStageFactorBack = 5, kSolveStageSolutionHalfBack = 6;
bool stop_at_solve_stage(int stage);

struct GpuContext;
// Device columns -> the caller's (download_matrix), *columns counting those that hold their
// final values, also after a failure part way. A stop at `half_stage` writes the first half.
Status download_columns(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes, int cols, void *host,
                        size_t ld_bytes, int *columns, int half_stage);

// ---- host interfaces: arguments already checked, n >= 1, nrhs >= 1 unless said ----

// xGETRS: B := op(A)^-1 B with A's LU factors and pivots (trans none, trans or conj_trans: the conjugate
// transpose, the transpose for a real T). On ok, B holds X. Otherwise B's columns before
// progress->columns hold X, the rest are unchanged.
template <class T>
Status getrs_host(Op trans, int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb,
                  SolveProgress *progress);

// xPOTRS with the `upper` (A = U^H U) or lower (L L^H) factor (^H: ^T for a real T); only that
// triangle is read. As getrs_host for B.
template <class T>
Status potrs_host(Uplo uplo, int n, int nrhs, const T *a, int lda, T *b, int ldb, SolveProgress *progress);

// xGESV (nrhs >= 0): on ok, A holds L and U, IPIV the pivots, *info the factorization's INFO,
// and B the solution when *info is 0 (unchanged otherwise), exactly as the reference defines
// them. Otherwise *info is untouched and *progress says what the caller's arrays hold.
template <class T>
Status gesv_host(int n, int nrhs, T *a, int lda, int *ipiv, T *b, int ldb, int *info, GesvProgress *progress);

// ---- device interfaces: asynchronous on `stream` (a cudaStream_t) ----

// Device workspace getrs_device and potrs_device use for n x nrhs right-hand sides, in bytes
// (the triangular solves': impl::trsm_device_workspace); with less they allocate their own.
template <class T>
size_t solve_device_workspace(int n, int nrhs);

// xGETRS on device arrays: dLU (ldda >= n) the factors, d_perm the row_permutation of IPIV
// (n ints), dB (lddb >= n) the right-hand sides; X lands in dX (lddx >= n), dB is scratch.
template <class T>
Status getrs_device(Op trans, int n, int nrhs, const T *dLU, size_t ldda, const int *d_perm, T *dB, size_t lddb, T *dX,
                    size_t lddx, void *stream, void *d_work = nullptr, size_t work_bytes = 0);

// xPOTRS with the factor in dA's `upper` triangle (A = U^H U) or lower one (A = L L^H; ^H: ^T
// for a real T), only that triangle read: dB := A^-1 dB in place.
template <class T>
Status potrs_device(Uplo uplo, int n, int nrhs, const T *dA, size_t ldda, T *dB, size_t lddb, void *stream,
                    void *d_work = nullptr, size_t work_bytes = 0);

}  // namespace cudrop::impl
