#pragma once
// Symmetric and Hermitian eigenproblems on the GPU (LAPACK xSYEVD/xHEEVD): the reduction to
// tridiagonal form (xSYTRD/xHETRD, lower; an upper triangle is mirrored first) on the device,
// the tridiagonal problem by the caller's solver (capi: the CPU LAPACK's xSTERF, or xSTEDC),
// the back-transformation (xORMTR/xUNMTR 'L': the QR family's ormqr_device) on the device.
#include <cstddef>
#include <functional>
#include <vector>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

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

// What a GPU xSYEVD/xHEEVD that stopped while writing the eigenvectors back leaves to finish:
// columns [columns, n) of A are still the caller's; z (the tridiagonal's eigenvectors, n x n
// real), the reflectors (n x n, lower) and tau let the CPU apply Q to the rest.
template <class T>
struct EigenProgress {
  int n = 0, columns = 0;
  std::vector<real_t<T>> z;
  std::vector<T> reflectors, tau;
  bool any_written() const { return columns != 0; }
  void describe(char *text, size_t size) const;
};

// xSYEVD/xHEEVD (arguments checked, n >= 1): w := the eigenvalues in ascending order; with
// vectors, a := the orthonormal eigenvectors, else a is left as it was (the reference leaves
// uplo's triangle destroyed: unchanged is one such state). *info as xSTERF/xSTEDC set it.
// Status::special_values where the reference scales A (its largest entry outside
// [sqrt(smlnum), sqrt(bignum)]), A holds Inf or NaN, or a reflector needs scaling: nothing was
// written, the CPU routine takes the call.
// solve(n, d, e, z): the tridiagonal problem on the CPU (the caller's: xSTERF with z null, else
// xSTEDC 'I' into z, n x n), called with the GPU given back; returns its INFO.
template <class R>
using TridiagonalSolver = std::function<int(int n, R *d, R *e, R *z)>;
template <class T>
Status syevd_host(Jobz jobz, Uplo uplo, int n, T *a, int lda, real_t<T> *w, int *info,
                  const TridiagonalSolver<real_t<T>> &solve, EigenProgress<T> *progress);

}  // namespace cudrop::impl
