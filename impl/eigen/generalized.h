#pragma once
// The generalized symmetric-definite eigenproblem on the GPU (xSYGVD/xHEGVD, and xSYGV/xHEGV
// by the same path): B = L L^H by Cholesky (potrf_device), the reduction to the standard problem
// (xSYGST's C, by TRSM or TRMM on the whole Hermitian A), syevd_device on C, and the
// back-transformation of its eigenvectors (TRSM or TRMM with L). sygvd_device works on device
// matrices, sygvd_host adds the caller's arrays.
#include <cstddef>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"
#include "impl/eigen/eigen.h"

namespace cudrop::impl {

struct GpuContext;

// ITYPE of the reference drivers: which problem A and B make.
enum class Itype : unsigned char {
  a_x_is_lambda_b_x = 1,  // A x = lambda B x: C = inv(L) A inv(L)^H, x = inv(L)^H y
  a_b_x_is_lambda_x = 2,  // A B x = lambda x: C = L^H A L, x = inv(L)^H y
  b_a_x_is_lambda_x = 3,  // B A x = lambda x: C = L^H A L, x = L y
};
constexpr Itype itype_of(int itype) {
  return itype == 1 ? Itype::a_x_is_lambda_b_x : itype == 2 ? Itype::a_b_x_is_lambda_x : Itype::b_a_x_is_lambda_x;
}

// Device workspace of sygvd_device for order n, bytes.
template <class T>
size_t sygvd_device_workspace(Jobz jobz, int n);

// xSYGVD/xHEGVD on the device, n >= 1: dA and dB (n x n, ldda, lddb) Hermitian, the triangle
// uplo names of each read (the other never read nor written), B positive definite. w (host) :=
// the eigenvalues ascending; the uplo triangle of dB := B's Cholesky factor as xPOTRF leaves it
// (L, or U = L^H for 'U'); with vectors, dA := the eigenvectors, normalized as the reference
// normalizes them (Z^H B Z = I for itypes 1 and 2, Z^H inv(B) Z = I for 3), else dA is destroyed.
// Status::special_values: B is not positive definite (the reference's INFO = N + i, with the
// partial state of its own factorization), or syevd_device leaves C to the CPU routine (the
// reference would scale it, Inf or NaN, a tridiagonal solver failure): the CPU routine takes
// the whole call, and dB's uplo triangle may already hold the factor. Synchronous.
template <class T>
Status sygvd_device(GpuContext &ctx, Itype itype, Jobz jobz, Uplo uplo, int n, T *dA, size_t ldda, T *dB,
                    size_t lddb, real_t<T> *w, void *work, size_t work_bytes,
                    const TridiagonalSolver<real_t<T>> &solve);

// xSYGVD/xHEGVD host to host (arguments checked, n >= 1): w := the eigenvalues ascending; b's
// uplo triangle := the Cholesky factor; with vectors, a := the eigenvectors, else a is left as
// it was (the reference leaves uplo's triangle destroyed: unchanged is one such state); *info
// := 0. The caller's arrays are written only by a call that succeeds: a GPU failure while the
// results are written back restores a and b, so any status but ok leaves the call to the CPU
// routine from its own inputs (also when B is not positive definite: Status::special_values).
template <class T>
Status sygvd_host(Itype itype, Jobz jobz, Uplo uplo, int n, T *a, int lda, T *b, int ldb, real_t<T> *w, int *info,
                  const TridiagonalSolver<real_t<T>> &solve);

}  // namespace cudrop::impl
