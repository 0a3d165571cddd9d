#pragma once
// Singular value decomposition and least squares on the GPU (LAPACK xGESDD, xGESVD, xGELSD,
// xGELSS). The pieces every driver shares:
// - the reduction of an m x n matrix (m >= n) to upper bidiagonal form, xGEBRD on the device
//   (gebrd_device: xLABRD's panels, the per-column products on the GPU, the trailing matrix by
//   two GEMMs), with its back-transformations (Q: the QR family's ormqr_device on gebrd's
//   reflectors, which are stored as xGEQRF's; P^H: apply_p_device);
// - the bidiagonal problem on the device through its Golub-Kahan form and the eigensolvers'
//   divide and conquer (bidiagonal_svd_device, checked on the device), or where that is refused
//   or does not fit, by the caller's CPU solver (BidiagonalSolver: xBDSDC of the entry's CPU
//   LAPACK, capi's callback: impl does not reach the CPU library);
// - svd_device: xGESDD's path on a device matrix (m >= n: a tall matrix by QR first, as the
//   reference does past its crossover; a wide one is the host's to conjugate-transpose);
// - the host interfaces for the Fortran entries.
#include <cstddef>
#include <functional>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"
#include "impl/eigen/eigen.h"

namespace cudrop::impl {

struct GpuContext;

// The bidiagonal SVD on the CPU: solve(n, d, e, u, vt) for the n x n upper bidiagonal B with
// diagonal d[n] and superdiagonal e[n-1]: d := the singular values, descending; e destroyed;
// u and vt null: the values alone (xBDSDC COMPQ 'N'); else u, vt (n x n, leading dimension n)
// := B's left and right singular vectors, B = U diag(d) VT (xBDSDC 'U', 'I'). Returns its INFO
// (-1: no such routine in the library).
template <class R>
using BidiagonalSolver = std::function<int(int n, R *d, R *e, R *u, R *vt)>;

// ---- xGEBRD (m >= n) and its back-transformations ----

// Device workspace of gebrd_device for an m x n matrix, bytes.
template <class T>
size_t gebrd_device_workspace(int m, int n);

// dA (m x n, m >= n >= 1, ldda) := Q B P^H, xGEBRD's result and layout exactly: B upper
// bidiagonal, d_d[n] its diagonal, d_e[n-1] its superdiagonal (real: the reflectors are chosen
// so); Q = H(1) ... H(n), H(i) = I - tauq(i) v v^H, v(i+1:m) below the diagonal in column i;
// P = G(1) ... G(n-1), G(i) = I - taup(i) u u^H, u(i+2:n) right of the superdiagonal in row i
// (as the reference stores it, conjugated for complex T); d_tauq[n], d_taup[n] (taup(n) = 0).
// d_flag (one int, device): set to 1 when a reflector needs xLARFG's rescaling (its norm below
// the safe minimum) or meets Inf/NaN; the reduction stops and the caller leaves the call to the
// CPU routine. Asynchronous on `stream`.
template <class T>
Status gebrd_device(int m, int n, T *dA, size_t ldda, real_t<T> *d_d, real_t<T> *d_e, T *d_tauq, T *d_taup,
                    int *d_flag, void *d_work, size_t work_bytes, void *stream);

// Q from gebrd_device: dC (m x k) := Q dC is ormqr_device(Side::left, Op::none, m, k, n, dA, ldda,
// d_tauq, ...) (xORMBR 'Q', 'L', 'N'); no function of its own.

// dC (k x n, lddc) := dC P^H (xORMBR 'P', 'R', 'C'/'T'), P = G(1) ... G(n-1) from gebrd_device's
// dA (rows 1..n-1 above the superdiagonal) and d_taup, n >= 1. Asynchronous on `stream`.
template <class T>
size_t apply_p_device_workspace(int k, int n);
template <class T>
Status apply_p_device(int k, int n, const T *dA, size_t ldda, const T *d_taup, T *dC, size_t lddc, void *d_work,
                      size_t work_bytes, void *stream);

// ---- the bidiagonal SVD on the device ----

template <class R>
size_t bidiagonal_svd_device_workspace(int n);

// s[n] (host) := the singular values, descending, of the n x n upper bidiagonal B (d[n], e[n-1]
// on the host); with dU, dVT (device, n x n) not null also B = U diag(s) V^T. The order-2n
// Golub-Kahan form's eigenproblem by stedc_device (`leaf` taking its leaves), the vectors
// checked on the device (orthogonality and B V - U S within a few n eps): Status::special_values
// where they are not, or B has a zero singular value; the caller then uses the CPU's solver.
// Synchronous.
template <class R>
Status bidiagonal_svd_device(GpuContext &ctx, int n, const R *d, const R *e, R *s, R *dU, size_t lddu, R *dVT,
                             size_t lddvt, const TridiagonalSolver<R> &leaf, void *work, size_t work_bytes);

// ---- the SVD of a device matrix ----

// values: singular values alone (xGESDD 'N'); thin: U m x n and V^H n x n ('S'); full: U m x m
// and V^H n x n ('A').
enum class SvdJob { values, thin, full };

// Its device workspace, bytes; gpu_bidiagonal: with bidiagonal_svd_device's (without it the
// bidiagonal problem always goes to the CPU's solver).
template <class T>
size_t svd_device_workspace(SvdJob job, int m, int n, bool gpu_bidiagonal = true);

// A = U diag(s) V^H for the m x n device matrix dA (m >= n >= 1): s (host, n) := the singular
// values descending; dU (m x n or m x m, lddu) and dVT (n x n, lddvt) := the singular vectors
// (job != values; dU, dVT distinct from dA). The bidiagonal problem by bidiagonal_svd_device when
// work_bytes holds its workspace too (`leaf`: its tridiagonal leaves), else or where it refuses,
// by `solve`. dA is destroyed. Status::special_values where the
// reference would scale A (its largest entry outside [sqrt(safmin)/eps, eps/sqrt(safmin)]), A is
// zero or holds Inf or NaN, a reflector needs scaling, or the bidiagonal solver fails: the CPU
// routine takes the call. Synchronous on ctx.stream.
template <class T>
Status svd_device(GpuContext &ctx, SvdJob job, int m, int n, T *dA, size_t ldda, real_t<T> *s, T *dU, size_t lddu,
                  T *dVT, size_t lddvt, void *work, size_t work_bytes, const BidiagonalSolver<real_t<T>> &solve,
                  const TridiagonalSolver<real_t<T>> &leaf);

// ---- host interfaces: arguments checked, min(m, n) >= 1; LAPACK's semantics ----
// Each writes the caller's arrays only once the GPU work has succeeded and restores what a
// failed write-back changed, so any status but ok leaves the call to the CPU routine from the
// caller's own inputs.

// xGESDD: jobz 'N', 'O', 'S', 'A' (upper case); *info := 0.
template <class T>
Status gesdd_host(char jobz, int m, int n, T *a, int lda, real_t<T> *s, T *u, int ldu, T *vt, int ldvt, int *info,
                  const BidiagonalSolver<real_t<T>> &solve, const TridiagonalSolver<real_t<T>> &leaf);

// xGESVD: jobu, jobvt 'N', 'O', 'S', 'A' (upper case, not both 'O'); the bidiagonal problem by
// the same solver (divide and conquer where the reference iterates QR: the same SVD within the
// testers' bounds); *info := 0.
template <class T>
Status gesvd_host(char jobu, char jobvt, int m, int n, T *a, int lda, real_t<T> *s, T *u, int ldu, T *vt, int ldvt,
                  int *info, const BidiagonalSolver<real_t<T>> &solve, const TridiagonalSolver<real_t<T>> &leaf);

// xGELSD (gelss false) and xGELSS (true): the minimum-norm least-squares solution of
// min || B - A X || by the SVD, singular values below rcond * s(1) (rcond <= 0 or >= 1 for
// xGELSD, < 0 for xGELSS: machine epsilon; xGELSS also never below the safe minimum) taken as
// zero. b (ldb x nrhs, ldb >= max(m, n)) := X in its first n rows (rows n+1..m: Q^H B's, whose
// squares sum to the residual when rank = n); s := the singular values; *rank; xGELSS: A's first
// min(m, n) rows := V^H; *info := 0. Status::special_values where the reference scales A or B.
template <class T>
Status gelsd_host(bool gelss, int m, int n, int nrhs, T *a, int lda, T *b, int ldb, real_t<T> *s, real_t<T> rcond,
                  int *rank, int *info, const BidiagonalSolver<real_t<T>> &solve,
                  const TridiagonalSolver<real_t<T>> &leaf);

}  // namespace cudrop::impl
