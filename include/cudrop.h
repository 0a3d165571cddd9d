/* cudrop: a drop-in BLAS/LAPACK subset that runs large calls on an NVIDIA GPU.
 *
 * Every routine takes ordinary host pointers and has exactly the reference
 * (netlib) semantics; calls too small to pay for their transfers, and every call
 * on a machine without a usable GPU, go to the CPU BLAS/LAPACK found underneath.
 * Environment: CUDROP_MODE=auto|gpu|cpu, CUDROP_VERBOSE=0|1|2 (see README.md).
 */
#ifndef CUDROP_H
#define CUDROP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Fortran ABI (gfortran, LP64). The trailing size_t are the hidden CHARACTER
 * lengths; cudrop accepts but never relies on them. ---- */
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t transa_len, size_t transb_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);

/* LU factorization with partial pivoting, A = P*L*U (reference SGETRF/DGETRF semantics:
 * IPIV 1-based, INFO = i > 0 when U(i,i) is exactly zero, the factorization completed). */
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);

/* Cholesky factorization, A = U**T*U (UPLO='U') or L*L**T (UPLO='L'), reference
 * SPOTRF/DPOTRF semantics: only that triangle is read and written; INFO = k > 0 when the
 * leading minor of order k is not positive definite, A then left as the reference leaves it. */
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t uplo_len);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);

/* Reference error handler: prints the routine name and parameter number, then stops.
 * A program that defines its own xerbla_ overrides this one. */
void xerbla_(const char *srname, const int *info, size_t srname_len);

/* ---- CBLAS. If a cblas.h was included first, its declarations are used. ---- */
#ifndef CBLAS_H
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
typedef enum CBLAS_ORDER CBLAS_LAYOUT;
void cblas_sgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc);
void cblas_dgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, double alpha, const double *a, int lda, const double *b,
                 int ldb, double beta, double *c, int ldc);
void cblas_xerbla(int info, const char *routine, const char *form, ...);
#endif

/* ---- cudrop's own ---- */
const char *cudrop_version(void);
/* 1 when a CUDA device is usable (starts CUDA on first call), else 0. */
int cudrop_gpu_available(void);
/* Calls so far: done on the GPU, done on the CPU, and GPU attempts that fell back
 * to the CPU after a GPU error. Any pointer may be NULL. */
void cudrop_counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks);

#ifdef __cplusplus
}
#endif
#endif /* CUDROP_H */
