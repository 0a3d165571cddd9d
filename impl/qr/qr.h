#pragma once
// Householder QR on the GPU (LAPACK xGEQRF, xORMQR/xUNMQR, xORGQR/xUNGQR, xGELS): host
// interfaces (host arrays in and out, what the Fortran entries use) over device interfaces
// (arrays already on the GPU, what the benchmarks and the drivers use).
//
// Algorithm: blocked Householder QR, panel width qr_nb (CUDROP_QR_NB, core/tuning.h). Each
// panel is factored by one kernel (kernels/householder.cuh: xGEQR2 with xLARFG's reflectors);
// its block reflector H = I - V T V^H gets T from V^H V (xLARFT), and the trailing matrix is
// updated by three GEMMs (xLARFB: W = V^H C, W = T^H W, C -= V W). Applying Q or Q^H (xORMQR)
// is the same xLARFT and xLARFB per block of reflectors, in the order the reference applies
// them; generating Q (xORGQR) applies the blocks to the identity, each only to the columns
// it can change.
#include <cstddef>
#include <functional>
#include <vector>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

// ---- device interfaces: column-major device arrays, asynchronous on `stream` ----

// Workspace geqrf_device needs for an m x n matrix (and ormqr_device, orgqr_device for a
// matrix of nq rows and k reflectors applied to C m x n: see the *_workspace functions), bytes.
template <class T>
size_t geqrf_device_workspace(int m, int n);

// A = Q R: R on and above the diagonal, the reflectors' vectors below it, d_tau[0..min(m,n)).
// d_flag (one int, device): set to 1 when a column's scaling or values need the CPU routine
// (kernels/householder.cuh); the factorization then stops part way and the caller must run the
// CPU routine on its own copy of A.
template <class T>
Status geqrf_device(int m, int n, T *dA, size_t ldda, T *d_tau, int *d_flag, void *d_work, size_t work_bytes,
                    void *stream);

// C := op(Q) C (side left) or C op(Q) (side right), Q = H_1 ... H_k from xGEQRF's reflectors in
// the first k columns of A (nq x k, nq = m for left, n for right) and d_tau; trans none or
// conj_trans (a real T: trans is conj_trans).
template <class T>
size_t ormqr_device_workspace(Side side, int m, int n, int k);
template <class T>
Status ormqr_device(Side side, Op trans, int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dC,
                    size_t lddc, void *d_work, size_t work_bytes, void *stream);

// Q's first n columns (m x n, n <= m) into dQ from k reflectors in dA (m x k) and d_tau; dQ must
// not overlap dA.
template <class T>
size_t orgqr_device_workspace(int m, int n, int k);
template <class T>
Status orgqr_device(int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dQ, size_t lddq,
                    void *d_work, size_t work_bytes, void *stream);

// ---- LQ (LAPACK xGELQF, xORMLQ/xUNMLQ, xORGLQ/xUNGLQ): the QR of A^H ----
// xGELQF's factor is the conjugate transpose of xGEQRF's factor of A^H, with the same tau, and
// its Q is that QR's Q^H (qr_device.cu says why); each routine conjugate-transposes into its
// workspace and runs its QR twin there.

// A = L Q: L on and below the diagonal, row i's reflector right of it (conjugated, as the
// reference stores it), d_tau[0..min(m,n)). d_flag as geqrf_device's: when set, dA holds a
// partial result and the caller runs the CPU routine on its own copy of A.
template <class T>
size_t gelqf_device_workspace(int m, int n);
template <class T>
Status gelqf_device(int m, int n, T *dA, size_t ldda, T *d_tau, int *d_flag, void *d_work, size_t work_bytes,
                    void *stream);

// C := op(Q) C (side left) or C op(Q) (side right), Q = H(k)^H ... H(1)^H from xGELQF's
// reflectors in the first k rows of A (k x nq, nq = m for left, n for right) and d_tau; trans
// none or conj_trans (a real T: trans is conj_trans).
template <class T>
size_t ormlq_device_workspace(Side side, int m, int n, int k);
template <class T>
Status ormlq_device(Side side, Op trans, int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dC,
                    size_t lddc, void *d_work, size_t work_bytes, void *stream);

// Q's first m rows (m x n, m <= n) into dQ from k reflectors in dA's rows (k x n) and d_tau;
// dQ must not overlap dA.
template <class T>
size_t orglq_device_workspace(int m, int n, int k);
template <class T>
Status orglq_device(int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dQ, size_t lddq,
                    void *d_work, size_t work_bytes, void *stream);

// ---- host interfaces: arguments already checked, nothing trivial; LAPACK's semantics ----

// How far the caller's output holds the GPU's results when an attempt stops after writing some
// of it (every other element is the caller's original): for the dispatch layer to finish on the
// CPU from there.
struct QrProgress {
  int a_columns = 0;      // A's leading columns written (xGEQRF's factor, xORGQR's Q)
  int b_columns = 0;      // xGELS: X's leading columns written in B (only once A is whole)
  int a_total = 0, b_total = 0;
  std::vector<unsigned char> tau;  // the reflectors' tau as the GPU computed them (bytes of T)
  bool any_written() const { return a_columns != 0 || b_columns != 0; }
  void describe(char *text, size_t size) const;
};

// xGEQRF: a (m x n) := its QR factorization, tau[0..min(m,n)).
template <class T>
Status geqrf_host(int m, int n, T *a, int lda, T *tau, QrProgress *progress);

// xORMQR/xUNMQR: c (m x n) := op(Q) c or c op(Q); a holds k reflectors (nq x k).
template <class T>
Status ormqr_host(Side side, Op trans, int m, int n, int k, const T *a, int lda, const T *tau, T *c, int ldc,
                  QrProgress *progress);

// xORGQR/xUNGQR: a (m x n) := Q's first n columns from its first k columns' reflectors.
template <class T>
Status orgqr_host(int m, int n, int k, T *a, int lda, const T *tau, QrProgress *progress);

// xGELS, trans none or conj_trans (a real T's 'T'). m >= n (the QR case): a := its QR factor,
// b := the solution (and, for none, the residual's rotated rows below it). m < n (the LQ case):
// a := its LQ factor, b (n rows) := the minimum-norm solution (none), or the solution in rows
// 1..m and Q B's rows m+1..n below it (conj_trans), as xGELS leaves them; this case writes
// nothing unless every step succeeded (a download that fails part way puts a and b back), so
// progress stays empty. Status::special_values when the reference would scale A or B, A is
// zero, holds Inf or NaN, or R (L) has an exactly zero diagonal entry: nothing was written, the
// CPU routine takes the call.
// xGELQF: a (m x n) := its LQ factorization, tau[0..min(m,n)). Writes nothing unless every
// GPU step succeeded (a download that fails part way puts a back).
template <class T>
Status gelqf_host(int m, int n, T *a, int lda, T *tau);

// xORMLQ/xUNMLQ: c (m x n) := op(Q) c or c op(Q); a holds k reflectors in its rows (k x nq).
// All or nothing as gelqf_host.
template <class T>
Status ormlq_host(Side side, Op trans, int m, int n, int k, const T *a, int lda, const T *tau, T *c, int ldc);

// xORGLQ/xUNGLQ: a (m x n, m <= n) := Q's first m rows from its first k rows' reflectors. All
// or nothing as gelqf_host.
template <class T>
Status orglq_host(int m, int n, int k, T *a, int lda, const T *tau);

template <class T>
Status gels_host(Op trans, int m, int n, int nrhs, T *a, int lda, T *b, int ldb, QrProgress *progress);

}  // namespace cudrop::impl

// ---- column-pivoted QR (xGEQP3) and the least squares on it (xGELSY) ----

namespace cudrop::impl {

struct GpuContext;

// Device workspace of geqp3_device for an m x n matrix, bytes.
template <class T>
size_t geqp3_device_workspace(int m, int n);

// xGEQP3's free columns on the device: columns [first, n) of dA (m x n, ldda), whose first
// `first` columns are already factored (their R rows applied to the rest, as xGEQP3 leaves its
// fixed columns), := their QR with column pivoting as xLAQPS computes it: the pivot the column
// of largest partial norm (the first of equals), the norms downdated as the reference does and
// recomputed where it would. d_jpvt[n] (device, 1-based) is permuted with the columns; d_tau
// [first, min(m, n)) := the reflectors' tau. Synchronous on ctx.stream (the host reads each
// panel's length back). Status::special_values (d_flag set) where a reflector needs xLARFG's
// rescaling or meets Inf or NaN: the caller leaves the call to the CPU routine.
template <class T>
Status geqp3_device(GpuContext &ctx, int m, int n, int first, T *dA, size_t ldda, int *d_jpvt, T *d_tau, int *d_flag,
                    void *d_work, size_t work_bytes);

// xGEQP3: a (m x n, min(m, n) >= 1) := A P's QR, jpvt (in: nonzero = a column fixed in front,
// as the reference moves them; out: P), tau[min(m, n)]. The fixed columns by geqrf_device and
// ormqr_device, the free ones by geqp3_device. Nothing is written unless every GPU step
// succeeded (a failed write-back of A puts A back).
template <class T>
Status geqp3_host(int m, int n, T *a, int lda, int *jpvt, T *tau);

// The CPU LAPACK routines xGELSY's GPU path needs, supplied by capi (impl does not reach the CPU
// library); LAPACK's arguments, INFO returned (-1000: no such routine underneath).
template <class T>
struct GelsyCpuRoutines {
  // xLAIC1(JOB, J, X, SEST, W, GAMMA, SESTPR, S, C).
  std::function<int(int job, int j, const T *x, real_t<T> sest, const T *w, T gamma, real_t<T> *sestpr, T *s, T *c)>
      laic1;
  // xTZRZF(M, N, A, LDA, TAU) with its own workspace.
  std::function<int(int m, int n, T *a, int lda, T *tau)> tzrzf;
  // xORMRZ/xUNMRZ('L', 'T'/'C', M, N, K, L, A, LDA, TAU, C, LDC) with its own workspace.
  std::function<int(int m, int n, int k, int l, const T *a, int lda, const T *tau, T *c, int ldc)> ormrz;
};

// xGELSY (min(m, n, nrhs) >= 1): the minimum-norm solution of min || B - A X || by the complete
// orthogonal factorization A P = Q [T11 0; 0 0] Z, the rank from incremental condition
// estimation with rcond: the pivoted QR and Q^H B on the GPU, the rank (xLAIC1) and xTZRZF on
// R's leading min(m, n) rows downloaded, T11's solve on the GPU, xORMRZ and P on the host.
// a := the factorization as the reference leaves it, b := X (rows n+1..m: Q^H B's), jpvt, *rank.
// Status::special_values where the reference would scale A or B, or A is zero: nothing written.
template <class T>
Status gelsy_host(int m, int n, int nrhs, T *a, int lda, T *b, int ldb, int *jpvt, real_t<T> rcond, int *rank,
                  const GelsyCpuRoutines<T> &cpu);

}  // namespace cudrop::impl
