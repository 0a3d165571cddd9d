#pragma once
// Symmetric and Hermitian eigenproblems on the GPU. The pieces every driver shares:
// the reduction to tridiagonal form (xSYTRD/xHETRD, lower) on the device; the tridiagonal
// problem by divide and conquer with the eigenvector matrix on the device (stedc_device; its
// leaves by the caller's CPU solver); the back-transformation
// (xORMTR/xUNMTR 'L': the QR family's ormqr_device). syevd_device chains them (xSYEVD/xHEEVD on
// a device matrix), syevd_host adds the caller's arrays.
#include <cstddef>
#include <functional>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

struct GpuContext;

// Device workspace of sytrd_device for order n, bytes.
template <class T>
size_t sytrd_device_workspace(int n);

// The lower triangle of the n x n Hermitian dA (ldda) := xSYTRD/xHETRD's reduction ('L'): d[n],
// e[n-1] (real) the tridiagonal, d_tau[n-1], the reflectors below the subdiagonal. d_flag (one
// int): set when a column needs the CPU routine's scaling (kernels/tridiagonal.cuh); the
// reduction then stops. Asynchronous on `stream`.
template <class T>
Status sytrd_device(int n, T *dA, size_t ldda, real_t<T> *d_d, real_t<T> *d_e, T *d_tau, int *d_flag, void *d_work,
                    size_t work_bytes, void *stream);

// The tridiagonal problem on the CPU (the caller's, capi: the CPU LAPACK of the entry's own
// kind): solve(n, d, e, z) with z null: the eigenvalues into d ascending (xSTERF); else also the
// eigenvectors into z (n x n, ld n; xSTEDC 'I'). Returns its INFO (-1: no such routine).
template <class R>
using TridiagonalSolver = std::function<int(int n, R *d, R *e, R *z)>;

// ---- the reduction and the back-transformation, for any driver ----

// Device workspace of tridiagonalize_device, bytes.
template <class T>
size_t tridiagonalize_device_workspace(int n);

// The n x n Hermitian device matrix dA (ldda; the triangle uplo names is read, an upper one is
// mirrored into the lower first) := its reduction to tridiagonal form, xSYTRD/xHETRD 'L' (the
// reflectors below the subdiagonal, d_tau[n-1] on the device); d[n], e[n-1] on the host.
// *anrm := the largest |a_ij| of the triangle, so that the driver can apply its own rule for
// the reference's scaling (when it would scale, the result here is not the scaled one and the
// call belongs to the CPU routine). Status::special_values: A holds Inf or NaN, or a reflector
// needs the reference's scaling. Synchronous on ctx.stream.
template <class T>
Status tridiagonalize_device(GpuContext &ctx, Uplo uplo, int n, T *dA, size_t ldda, T *d_tau, real_t<T> *d,
                             real_t<T> *e, double *anrm, void *work, size_t work_bytes);

// dZ (n x m, lddz, device) := Q dZ, Q = H(1) ... H(n-1) from tridiagonalize_device's dA and d_tau
// (xORMTR 'L', 'L', 'N'). Asynchronous on `stream`.
template <class T>
size_t back_transform_device_workspace(int n, int m);
template <class T>
Status back_transform_device(int n, int m, const T *dA, size_t ldda, const T *d_tau, T *dZ, size_t lddz, void *work,
                             size_t work_bytes, void *stream);

// ---- divide and conquer ----

// Device workspace of stedc_device for order n, bytes.
template <class R>
size_t stedc_device_workspace(int n);

// The symmetric tridiagonal problem (d[n], e[n-1] on the host; R float or double): d := the
// eigenvalues ascending, dZ (n x n, lddz, device) := the orthonormal eigenvectors, by Cuppen's
// divide and conquer as xSTEDC ('I') does it: subproblems of at most tuning::kStedcLeaf solved by
// `leaf`, each merge's deflation on the host, its secular equation, eigenvectors and product
// with the children's eigenvectors on the device. e is destroyed. Returns special_values when a
// leaf's solver fails (its INFO nonzero: the CPU routine meets and reports the same). Synchronous.
template <class R>
Status stedc_device(GpuContext &ctx, int n, R *d, R *e, R *dZ, size_t lddz, const TridiagonalSolver<R> &leaf,
                    void *work, size_t work_bytes);

// ---- xSYEVD / xHEEVD ----

template <class T>
size_t syevd_device_workspace(Jobz jobz, int n);

// xSYEVD/xHEEVD on the device: w (host) := the eigenvalues of the n x n Hermitian dA (ldda, the
// triangle uplo names) ascending (with or without vectors by stedc_device, `solve` taking its
// leaves); with vectors dZ (n x n, lddz, device, not dA) := the
// orthonormal eigenvectors. dA is destroyed. Status::special_values where the reference scales
// A (its largest entry outside [sqrt(smlnum), sqrt(bignum)]), A holds Inf or NaN, a reflector
// needs scaling, or the tridiagonal solver fails: the CPU routine takes the call. Synchronous.
template <class T>
Status syevd_device(GpuContext &ctx, Jobz jobz, Uplo uplo, int n, T *dA, size_t ldda, real_t<T> *w, T *dZ,
                    size_t lddz, void *work, size_t work_bytes, const TridiagonalSolver<real_t<T>> &solve);

// xSYEVD/xHEEVD host to host (arguments checked, n >= 1): w := the eigenvalues ascending; with
// vectors, a := the orthonormal eigenvectors, else a is left as it was (the reference leaves
// uplo's triangle destroyed: unchanged is one such state); *info := 0. The caller's A is
// written only by a call that succeeds: a GPU failure while the eigenvectors are written back
// restores A, so any status but ok leaves the call to the CPU routine from its own inputs.
template <class T>
Status syevd_host(Jobz jobz, Uplo uplo, int n, T *a, int lda, real_t<T> *w, int *info,
                  const TridiagonalSolver<real_t<T>> &solve);

}  // namespace cudrop::impl
