#pragma once
// The CPU completions of GPU attempts that stopped after writing part of the caller's output
// (route()'s finish_on_cpu, route/dispatch.h): each computes the rest of the call on the CPU
// library, from the state impl's progress record describes.
#include "impl/gemm/gemm.h"
#include "impl/potrf/potrf.h"
#include "impl/qr/qr.h"
#include "impl/solve/solve.h"

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

// xGESV from the state `progress` describes: the GPU's pivots in IPIV, its factor in columns
// 0..lu_columns-1 of A (the rest the caller's original), X in columns 0..x_columns-1 of B.
// The factorization is finished left-looking from the GPU's columns (the GPU's later
// interchanges undone on them; their own interchanges on the rest of A, U12 = L11^-1 A12,
// A22 -= L21 U12, xGETRF of A22, its interchanges on L21), then
// B's remaining columns solved by xGETRS when INFO is 0, as the reference leaves them.
template <class T>
void gesv_finish_on_cpu(int n, int nrhs, T *a, int lda, int *ipiv, T *b, int ldb, const impl::GesvProgress &progress,
                        int *info);

// xPOSV: the factorization finished by potrf_finish_on_cpu, then B's columns from
// progress.x_columns on solved by xPOTRS when INFO is 0.
template <class T>
void posv_finish_on_cpu(bool upper, int n, int nrhs, T *a, int lda, T *b, int ldb, const impl::PotrfProgress &progress,
                        int *info);

// xGEQRF from the state `progress` describes: the GPU's factor in A's columns 0..c-1
// (c = a_columns), the rest the caller's original, the GPU's tau in progress.tau. The first
// min(c, min(m,n)) reflectors are applied to the other columns (xORMQR) and what is left below
// them factored (xGEQRF): A and tau hold a QR factorization of the caller's A.
template <class T>
void geqrf_finish_on_cpu(int m, int n, T *a, int lda, T *tau, const impl::QrProgress &progress);

// xORMQR/xUNMQR from the left with C's columns 0..b_columns-1 written: the rest done here.
template <class T>
void ormqr_finish_on_cpu(char trans, int m, int n, int k, const T *a, int lda, const T *tau, T *c, int ldc,
                         const impl::QrProgress &progress);

// xGELS (m >= n) from the state `progress` describes: A's factorization finished as
// geqrf_finish_on_cpu does, then B's columns from b_columns on solved with it. Returns INFO:
// i when R(i,i) is exactly zero (B's remaining columns then hold what the reference leaves).
template <class T>
int gels_finish_on_cpu(char trans, int m, int n, int nrhs, T *a, int lda, T *b, int ldb,
                       const impl::QrProgress &progress);

}  // namespace cudrop
