/* cudrop: a drop-in BLAS/LAPACK subset that runs large calls on an NVIDIA GPU.
 *
 * Every routine takes ordinary host pointers and has exactly the reference
 * (netlib) semantics; calls too small to pay for their transfers, and every call
 * on a machine without a usable GPU, go to the CPU BLAS/LAPACK found underneath.
 * Environment: CUDROP_MODE=auto|gpu|cpu, CUDROP_VERBOSE=0|1|2 (see README.md).
 *
 * The Fortran-interface routines end with the hidden lengths of their CHARACTER arguments
 * (size_t ..._len, as gfortran passes them). A call may leave them all out, in C (C99 and
 * later) as in C++, as with the reference lapack.h: both
 *   dgemm_("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
 *   dgemm_("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
 * compile. #define CUDROP_NO_STRLEN_MACROS before this header to have the plain prototypes
 * only (see "Fortran ABI" below).
 */
#ifndef CUDROP_H
#define CUDROP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Fortran ABI (gfortran, LP64). The trailing size_t ..._len parameters are the hidden
 * lengths of the CHARACTER arguments, in their order; cudrop accepts but never relies on them.
 * A call gives all of them or none; left out, each is 1 (the length of a one-letter option, what
 * the reference lapack.h passes):
 *   C++  they are default arguments;
 *   C    each routine that has them is also a function-like macro of its own name (defined at
 *        the end of this header) that appends them to a call that has exactly as many arguments
 *        as come before them, and passes any other call on unchanged. A name not followed by
 *        '(' is not the macro: &dgemm_, a function pointer = dgemm_, and (dgemm_)(...), a call
 *        that must give every argument, name the function itself.
 * CUDROP_NO_STRLEN_MACROS, defined before this header: neither (no macros, no default
 * arguments), for code whose own identifiers are these names (a struct member dgemm_, say) or
 * that declares the routines again with default arguments.
 * COMPLEX and COMPLEX*16 arguments are pointers to CUDROP_COMPLEX_FLOAT / CUDROP_COMPLEX_DOUBLE:
 * void unless defined before this header (float _Complex, std::complex<float>, or any struct of
 * a real and an imaginary part). */
#if defined(__cplusplus) && !defined(CUDROP_NO_STRLEN_MACROS)
#define CUDROP_DEFAULT_LEN_ = 1
#else
#define CUDROP_DEFAULT_LEN_
#endif
#ifndef CUDROP_COMPLEX_FLOAT
#define CUDROP_COMPLEX_FLOAT void
#endif
#ifndef CUDROP_COMPLEX_DOUBLE
#define CUDROP_COMPLEX_DOUBLE void
#endif
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc,
            size_t transa_len CUDROP_DEFAULT_LEN_, size_t transb_len CUDROP_DEFAULT_LEN_);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc,
            size_t transa_len CUDROP_DEFAULT_LEN_, size_t transb_len CUDROP_DEFAULT_LEN_);
/* Complex: TRANSA/TRANSB 'N', 'T' or 'C' (conjugate transpose). */
void cgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
            const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta,
            CUDROP_COMPLEX_FLOAT *c, const int *ldc,
            size_t transa_len CUDROP_DEFAULT_LEN_, size_t transb_len CUDROP_DEFAULT_LEN_);
void zgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
            const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta,
            CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
            size_t transa_len CUDROP_DEFAULT_LEN_, size_t transb_len CUDROP_DEFAULT_LEN_);

/* LU factorization with partial pivoting, A = P*L*U (reference xGETRF semantics: IPIV 1-based,
 * INFO = i > 0 when U(i,i) is exactly zero, the factorization completed; c and z pivot on
 * |Re|+|Im| as ICAMAX does). */
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void cgetrf_(const int *m, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *ipiv, int *info);
void zgetrf_(const int *m, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *ipiv, int *info);

/* Cholesky factorization, A = U**T*U (UPLO='U') or L*L**T (UPLO='L'), for c and z A Hermitian,
 * U**H*U or L*L**H, reference xPOTRF semantics: only that triangle is read and written (the
 * imaginary parts of the diagonal are not read); INFO = k > 0 when the
 * leading minor of order k is not positive definite, A then left as the reference leaves it. */
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void cpotrf_(const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *info,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void zpotrf_(const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *info,
             size_t uplo_len CUDROP_DEFAULT_LEN_);

/* Householder QR, reference semantics (xGEQRF, xORMQR/xUNMQR, xORGQR/xUNGQR, xGELS): LWORK = -1
 * returns the CPU LAPACK's optimal LWORK; ?gels_ with M < N on the LQ routines below. */
void sgeqrf_(const int *m, const int *n, float *a, const int *lda, float *tau, float *work,
             const int *lwork, int *info);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void cgeqrf_(const int *m, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *work,
             const int *lwork, int *info);
void zgeqrf_(const int *m, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *work,
             const int *lwork, int *info);
void sormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const float *a,
             const int *lda, const float *tau, float *c, const int *ldc, float *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const double *a,
             const int *lda, const double *tau, double *c, const int *ldc, double *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void cunmqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *c, const int *ldc, CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void zunmqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *c, const int *ldc, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void sorgqr_(const int *m, const int *n, const int *k, float *a, const int *lda, const float *tau, float *work,
             const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau, double *work,
             const int *lwork, int *info);
void cungqr_(const int *m, const int *n, const int *k, CUDROP_COMPLEX_FLOAT *a, const int *lda, const CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *work,
             const int *lwork, int *info);
void zungqr_(const int *m, const int *n, const int *k, CUDROP_COMPLEX_DOUBLE *a, const int *lda, const CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *work,
             const int *lwork, int *info);
void sgeqp3_(const int *m, const int *n, float *a, const int *lda, int *jpvt, float *tau, float *work, const int *lwork,
             int *info);
void dgeqp3_(const int *m, const int *n, double *a, const int *lda, int *jpvt, double *tau, double *work,
             const int *lwork, int *info);
void sgelsy_(const int *m, const int *n, const int *nrhs, float *a, const int *lda, float *b, const int *ldb, int *jpvt,
             const float *rcond, int *rank, float *work, const int *lwork, int *info);
void dgelsy_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
             int *jpvt, const double *rcond, int *rank, double *work, const int *lwork, int *info);
void sgels_(const char *trans, const int *m, const int *n, const int *nrhs, float *a, const int *lda, float *b,
            const int *ldb, float *work, const int *lwork, int *info, size_t trans_len CUDROP_DEFAULT_LEN_);
void dgels_(const char *trans, const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, double *work, const int *lwork, int *info, size_t trans_len CUDROP_DEFAULT_LEN_);
void cgels_(const char *trans, const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *b,
            const int *ldb, CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info,
            size_t trans_len CUDROP_DEFAULT_LEN_);
void zgels_(const char *trans, const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *b,
            const int *ldb, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info,
            size_t trans_len CUDROP_DEFAULT_LEN_);

/* Householder LQ, reference semantics (xGELQF, xORMLQ/xUNMLQ, xORGLQ/xUNGLQ): LWORK = -1 returns
 * the CPU LAPACK's optimal LWORK. */
void sgelqf_(const int *m, const int *n, float *a, const int *lda, float *tau, float *work,
             const int *lwork, int *info);
void dgelqf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void cgelqf_(const int *m, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *work,
             const int *lwork, int *info);
void zgelqf_(const int *m, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *work,
             const int *lwork, int *info);
void sormlq_(const char *side, const char *trans, const int *m, const int *n, const int *k, const float *a,
             const int *lda, const float *tau, float *c, const int *ldc, float *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void dormlq_(const char *side, const char *trans, const int *m, const int *n, const int *k, const double *a,
             const int *lda, const double *tau, double *c, const int *ldc, double *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void cunmlq_(const char *side, const char *trans, const int *m, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *c, const int *ldc, CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void zunmlq_(const char *side, const char *trans, const int *m, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *c, const int *ldc, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info,
             size_t side_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void sorglq_(const int *m, const int *n, const int *k, float *a, const int *lda, const float *tau, float *work,
             const int *lwork, int *info);
void dorglq_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau, double *work,
             const int *lwork, int *info);
void cunglq_(const int *m, const int *n, const int *k, CUDROP_COMPLEX_FLOAT *a, const int *lda, const CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *work,
             const int *lwork, int *info);
void zunglq_(const int *m, const int *n, const int *k, CUDROP_COMPLEX_DOUBLE *a, const int *lda, const CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *work,
             const int *lwork, int *info);

/* Symmetric and Hermitian eigenproblems by divide and conquer, reference semantics (xSYEVD,
 * xHEEVD): eigenvalues ascending in W; with JOBZ = 'V' the orthonormal eigenvectors in A (their
 * signs may differ from the reference's, which leaves them free); with JOBZ = 'N' A is left as it
 * was. LWORK = -1 (or LIWORK, LRWORK) returns the CPU LAPACK's optimal sizes. */
void ssyevd_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w, float *work,
             const int *lwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
             const int *lwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void cheevd_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, float *w,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, const int *lrwork, int *iwork,
             const int *liwork, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zheevd_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, double *w,
             CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, const int *lrwork, int *iwork,
             const int *liwork, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);

/* The same problems through xSYEV/xHEEV: the same GPU path (the tridiagonal problem by divide and
 * conquer, where the reference iterates QR). */
void ssyev_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w, float *work,
            const int *lwork, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
            const int *lwork, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void cheev_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, float *w,
            CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, int *info,
            size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zheev_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, double *w,
            CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, int *info,
            size_t jobz_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_);

/* Selected eigenpairs, reference semantics (xSYEVR, xHEEVR: relatively robust representations;
 * xSYEVX, xHEEVX: bisection and inverse iteration): RANGE = 'A' every eigenvalue, 'V' those in
 * (VL, VU], 'I' the IL-th through IU-th; M of them ascending in W, with JOBZ = 'V' their
 * orthonormal eigenvectors in Z (signs free, as the reference leaves them), ISUPPZ (xSYEVR's
 * xSTEMR path) or IFAIL (xSYEVX) as the reference sets them. A is left as it was. LWORK = -1 (or
 * LIWORK, LRWORK) returns the CPU LAPACK's optimal sizes. */
void ssyevr_(const char *jobz, const char *range, const char *uplo, const int *n, float *a, const int *lda,
             const float *vl, const float *vu, const int *il, const int *iu, const float *abstol, int *m, float *w,
             float *z, const int *ldz, int *isuppz, float *work, const int *lwork, int *iwork, const int *liwork,
             int *info, size_t jobz_len CUDROP_DEFAULT_LEN_, size_t range_len CUDROP_DEFAULT_LEN_,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a, const int *lda,
             const double *vl, const double *vu, const int *il, const int *iu, const double *abstol, int *m, double *w,
             double *z, const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork, const int *liwork,
             int *info, size_t jobz_len CUDROP_DEFAULT_LEN_, size_t range_len CUDROP_DEFAULT_LEN_,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void cheevr_(const char *jobz, const char *range, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const float *vl, const float *vu, const int *il, const int *iu, const float *abstol,
             int *m, float *w, CUDROP_COMPLEX_FLOAT *z, const int *ldz, int *isuppz, CUDROP_COMPLEX_FLOAT *work,
             const int *lwork, float *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t range_len CUDROP_DEFAULT_LEN_,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void zheevr_(const char *jobz, const char *range, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const double *vl, const double *vu, const int *il, const int *iu, const double *abstol,
             int *m, double *w, CUDROP_COMPLEX_DOUBLE *z, const int *ldz, int *isuppz, CUDROP_COMPLEX_DOUBLE *work,
             const int *lwork, double *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t range_len CUDROP_DEFAULT_LEN_,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void ssyevx_(const char *jobz, const char *range, const char *uplo, const int *n, float *a, const int *lda,
             const float *vl, const float *vu, const int *il, const int *iu, const float *abstol, int *m, float *w,
             float *z, const int *ldz, float *work, const int *lwork, int *iwork, int *ifail, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t range_len CUDROP_DEFAULT_LEN_,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsyevx_(const char *jobz, const char *range, const char *uplo, const int *n, double *a, const int *lda,
             const double *vl, const double *vu, const int *il, const int *iu, const double *abstol, int *m, double *w,
             double *z, const int *ldz, double *work, const int *lwork, int *iwork, int *ifail, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t range_len CUDROP_DEFAULT_LEN_,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void cheevx_(const char *jobz, const char *range, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const float *vl, const float *vu, const int *il, const int *iu, const float *abstol,
             int *m, float *w, CUDROP_COMPLEX_FLOAT *z, const int *ldz, CUDROP_COMPLEX_FLOAT *work, const int *lwork,
             float *rwork, int *iwork, int *ifail, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_,
             size_t range_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zheevx_(const char *jobz, const char *range, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const double *vl, const double *vu, const int *il, const int *iu, const double *abstol,
             int *m, double *w, CUDROP_COMPLEX_DOUBLE *z, const int *ldz, CUDROP_COMPLEX_DOUBLE *work, const int *lwork,
             double *rwork, int *iwork, int *ifail, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_,
             size_t range_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
/* The generalized symmetric-definite eigenproblems A x = lambda B x (ITYPE 1), A B x = lambda x
 * (2), B A x = lambda x (3), B positive definite, reference semantics (xSYGVD, xHEGVD, and xSYGV,
 * xHEGV by the same path): eigenvalues ascending in W; B's triangle UPLO names holds its
 * Cholesky factor; with JOBZ = 'V' the eigenvectors in A, normalized as the reference normalizes
 * them (their signs, for c and z their phases, may differ from the reference's); with JOBZ = 'N'
 * A is left as it was. B not positive definite: INFO = N + i as the reference. */
void ssygvd_(const int *itype, const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *b,
             const int *ldb, float *w, float *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsygvd_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *b,
             const int *ldb, double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void chegvd_(const int *itype, const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a,
             const int *lda, CUDROP_COMPLEX_FLOAT *b, const int *ldb, float *w, CUDROP_COMPLEX_FLOAT *work,
             const int *lwork, float *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zhegvd_(const int *itype, const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, double *w, CUDROP_COMPLEX_DOUBLE *work,
             const int *lwork, double *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void ssygv_(const int *itype, const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *b,
            const int *ldb, float *w, float *work, const int *lwork, int *info,
            size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *b,
            const int *ldb, double *w, double *work, const int *lwork, int *info,
            size_t jobz_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void chegv_(const int *itype, const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a,
            const int *lda, CUDROP_COMPLEX_FLOAT *b, const int *ldb, float *w, CUDROP_COMPLEX_FLOAT *work,
            const int *lwork, float *rwork, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_);
void zhegv_(const int *itype, const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, double *w, CUDROP_COMPLEX_DOUBLE *work,
            const int *lwork, double *rwork, int *info, size_t jobz_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_);

/* The singular value decomposition A = U diag(S) V^H, reference semantics (xGESDD: the bidiagonal
 * problem by divide and conquer; xGESVD: by the same path, where the reference iterates QR):
 * S descending; JOBZ (JOBU, JOBVT) 'A' all of U or V^H, 'S' the first min(m, n) columns of U
 * (rows of V^H), 'O' those overwriting A, 'N' none. The singular vectors are the reference
 * algorithm's up to rounding: each pair may differ from the reference's by a sign (c, z: a phase).
 * LWORK = -1 returns the CPU LAPACK's optimal size. */
void sgesdd_(const char *jobz, const int *m, const int *n, float *a, const int *lda, float *s, float *u,
             const int *ldu, float *vt, const int *ldvt, float *work, const int *lwork, int *iwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_);
void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,
             const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_);
void cgesdd_(const char *jobz, const int *m, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, float *s,
             CUDROP_COMPLEX_FLOAT *u, const int *ldu, CUDROP_COMPLEX_FLOAT *vt, const int *ldvt,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, int *iwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_);
void zgesdd_(const char *jobz, const int *m, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, double *s,
             CUDROP_COMPLEX_DOUBLE *u, const int *ldu, CUDROP_COMPLEX_DOUBLE *vt, const int *ldvt,
             CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, int *iwork, int *info,
             size_t jobz_len CUDROP_DEFAULT_LEN_);
void sgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, float *a, const int *lda, float *s,
             float *u, const int *ldu, float *vt, const int *ldvt, float *work, const int *lwork, int *info,
             size_t jobu_len CUDROP_DEFAULT_LEN_, size_t jobvt_len CUDROP_DEFAULT_LEN_);
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a, const int *lda, double *s,
             double *u, const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *info,
             size_t jobu_len CUDROP_DEFAULT_LEN_, size_t jobvt_len CUDROP_DEFAULT_LEN_);
void cgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda,
             float *s, CUDROP_COMPLEX_FLOAT *u, const int *ldu, CUDROP_COMPLEX_FLOAT *vt, const int *ldvt,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, int *info,
             size_t jobu_len CUDROP_DEFAULT_LEN_, size_t jobvt_len CUDROP_DEFAULT_LEN_);
void zgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, double *s, CUDROP_COMPLEX_DOUBLE *u, const int *ldu, CUDROP_COMPLEX_DOUBLE *vt,
             const int *ldvt, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, int *info,
             size_t jobu_len CUDROP_DEFAULT_LEN_, size_t jobvt_len CUDROP_DEFAULT_LEN_);
/* The minimum-norm solution of min ||B - A X|| (A m x n of any rank) by the SVD, reference
 * semantics (xGELSD: the bidiagonal problem by divide and conquer; xGELSS: by the same path, where
 * the reference iterates QR): singular values at most RCOND * S(1) taken as zero (RCOND < 0:
 * machine precision), RANK the number of the others; X in B's first n rows, S descending; xGELSS
 * also leaves V^H in A's first min(m, n) rows. LWORK = -1 returns the CPU LAPACK's optimal size
 * (xGELSD: and IWORK(1), RWORK(1) the minimum ones). */
void sgelsd_(const int *m, const int *n, const int *nrhs, float *a, const int *lda, float *b, const int *ldb,
             float *s, const float *rcond, int *rank, float *work, const int *lwork, int *iwork, int *info);
void dgelsd_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
             double *s, const double *rcond, int *rank, double *work, const int *lwork, int *iwork, int *info);
void cgelsd_(const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda,
             CUDROP_COMPLEX_FLOAT *b, const int *ldb, float *s, const float *rcond, int *rank,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, int *iwork, int *info);
void zgelsd_(const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             CUDROP_COMPLEX_DOUBLE *b, const int *ldb, double *s, const double *rcond, int *rank,
             CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, int *iwork, int *info);
void sgelss_(const int *m, const int *n, const int *nrhs, float *a, const int *lda, float *b, const int *ldb,
             float *s, const float *rcond, int *rank, float *work, const int *lwork, int *info);
void dgelss_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
             double *s, const double *rcond, int *rank, double *work, const int *lwork, int *info);
void cgelss_(const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda,
             CUDROP_COMPLEX_FLOAT *b, const int *ldb, float *s, const float *rcond, int *rank,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, int *info);
void zgelss_(const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             CUDROP_COMPLEX_DOUBLE *b, const int *ldb, double *s, const double *rcond, int *rank,
             CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, int *info);

/* The rest of Level 3, reference semantics: C = alpha*A*B + beta*C or alpha*B*A + beta*C with A
 * symmetric (SYMM); uplo's triangle of C = alpha*op(A)*op(A)**T + beta*C (SYRK) or
 * alpha*(op(A)*op(B)**T + op(B)*op(A)**T) + beta*C (SYR2K); B := alpha*op(A)*B or alpha*B*op(A)
 * (TRMM) and the solutions of op(A)*X = alpha*B or X*op(A) = alpha*B (TRSM), A triangular. Only
 * the triangle uplo names is read of A (SYMM, TRMM, TRSM) and written of C (SYRK, SYR2K). */
void ssymm_(const char *side, const char *uplo, const int *m, const int *n, const float *alpha, const float *a,
            const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
            size_t side_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void ssyrk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const float *a,
            const int *lda, const float *beta, float *c, const int *ldc,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void ssyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const float *a,
             const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
             size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void strmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const float *alpha, const float *a, const int *lda, float *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const float *alpha, const float *a, const int *lda, float *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
void dsymm_(const char *side, const char *uplo, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *b, const int *ldb, const double *beta, double *c, const int *ldc,
            size_t side_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
            const int *lda, const double *beta, double *c, const int *ldc,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void dsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
             const int *lda, const double *b, const int *ldb, const double *beta, double *c, const int *ldc,
             size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *a, const int *lda, double *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *a, const int *lda, double *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
/* The same for COMPLEX and COMPLEX*16, with the Hermitian forms: A Hermitian (HEMM, the imaginary
 * parts of its diagonal never read); uplo's triangle of C = alpha*op(A)*op(A)**H + beta*C (HERK,
 * alpha and beta real) or alpha*op(A)*op(B)**H + conjg(alpha)*op(B)*op(A)**H + beta*C (HER2K,
 * beta real), the imaginary parts of C's diagonal set to zero; TRANSA = 'C' in TRMM/TRSM: the
 * conjugate transpose. */
void csymm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
            size_t side_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void chemm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
            size_t side_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void csyrk_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void cherk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const float *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void csyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
             size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void cher2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const float *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
             size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void ctrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
void ctrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
void zsymm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
            size_t side_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zhemm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
            size_t side_len CUDROP_DEFAULT_LEN_, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void zherk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const double *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void zsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
             size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void zher2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const double *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
             size_t uplo_len CUDROP_DEFAULT_LEN_, size_t trans_len CUDROP_DEFAULT_LEN_);
void ztrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
void ztrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *b, const int *ldb,
            size_t side_len CUDROP_DEFAULT_LEN_,
            size_t uplo_len CUDROP_DEFAULT_LEN_, size_t transa_len CUDROP_DEFAULT_LEN_, size_t diag_len CUDROP_DEFAULT_LEN_);
/* Solves with the factors of ?GETRF (A*X = B, A**T*X = B, A**H*X = B: TRANS = 'N', 'T' or 'C';
 * 'C' is 'T' for s and d) and of ?POTRF (c, z: A = U**H*U or L*L**H), and the drivers that
 * factor and solve in one call (?GESV, ?POSV), reference semantics: INFO = i > 0 from the
 * factorization leaves B unsolved. */
void sgetrs_(const char *trans, const int *n, const int *nrhs, const float *a, const int *lda, const int *ipiv,
             float *b, const int *ldb, int *info, size_t trans_len CUDROP_DEFAULT_LEN_);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
             double *b, const int *ldb, int *info, size_t trans_len CUDROP_DEFAULT_LEN_);
void spotrs_(const char *uplo, const int *n, const int *nrhs, const float *a, const int *lda, float *b,
             const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
             const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void sgesv_(const int *n, const int *nrhs, float *a, const int *lda, int *ipiv, float *b, const int *ldb, int *info);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
            int *info);
void sposv_(const char *uplo, const int *n, const int *nrhs, float *a, const int *lda, float *b, const int *ldb,
            int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
            int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void cgetrs_(const char *trans, const int *n, const int *nrhs, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info, size_t trans_len CUDROP_DEFAULT_LEN_);
void zgetrs_(const char *trans, const int *n, const int *nrhs, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info,
             size_t trans_len CUDROP_DEFAULT_LEN_);
void cpotrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
             CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zpotrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void cgesv_(const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *ipiv, CUDROP_COMPLEX_FLOAT *b,
            const int *ldb, int *info);
void zgesv_(const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *ipiv,
            CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info);
void cposv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda,
            CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zposv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda,
            CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);

/* The symmetric indefinite factorization A = U*D*U**T or L*D*L**T (?SYTRF; c, z also ?HETRF:
 * A = U*D*U**H or L*D*L**H) by Bunch-Kaufman diagonal pivoting, its solves (?SYTRS, ?HETRS) and
 * the drivers that factor and solve in one call (?SYSV, ?HESV), reference semantics: A and IPIV
 * in the reference's format (IPIV the reference's own pivots), INFO = i > 0 for an exactly
 * singular D(i,i) (the drivers then leave B unsolved). LWORK = -1 returns the CPU LAPACK's
 * optimal size, and WORK(1) holds it after every call. */
void ssytrf_(const char *uplo, const int *n, float *a, const int *lda, int *ipiv, float *work, const int *lwork,
             int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsytrf_(const char *uplo, const int *n, double *a, const int *lda, int *ipiv, double *work, const int *lwork,
             int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void csytrf_(const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *ipiv,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zsytrf_(const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *ipiv,
             CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void chetrf_(const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *ipiv,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void zhetrf_(const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *ipiv,
             CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void ssytrs_(const char *uplo, const int *n, const int *nrhs, const float *a, const int *lda, const int *ipiv,
             float *b, const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsytrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
             double *b, const int *ldb, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void csytrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void zsytrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void chetrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void zhetrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info,
             size_t uplo_len CUDROP_DEFAULT_LEN_);
void ssysv_(const char *uplo, const int *n, const int *nrhs, float *a, const int *lda, int *ipiv, float *b,
            const int *ldb, float *work, const int *lwork, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void dsysv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, double *work, const int *lwork, int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void csysv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *ipiv,
            CUDROP_COMPLEX_FLOAT *b, const int *ldb, CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info,
            size_t uplo_len CUDROP_DEFAULT_LEN_);
void zsysv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *ipiv,
            CUDROP_COMPLEX_DOUBLE *b, const int *ldb, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info,
            size_t uplo_len CUDROP_DEFAULT_LEN_);
void chesv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *ipiv,
            CUDROP_COMPLEX_FLOAT *b, const int *ldb, CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info,
            size_t uplo_len CUDROP_DEFAULT_LEN_);
void zhesv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *ipiv,
            CUDROP_COMPLEX_DOUBLE *b, const int *ldb, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info,
            size_t uplo_len CUDROP_DEFAULT_LEN_);
/* The vector copy, reference semantics: y(iy) = x(ix) for n elements in the reference's order
 * (a negative increment starts at the far end; an increment of 0 repeats one element). */
void scopy_(const int *n, const float *x, const int *incx, float *y, const int *incy);
void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy);
void ccopy_(const int *n, const CUDROP_COMPLEX_FLOAT *x, const int *incx, CUDROP_COMPLEX_FLOAT *y, const int *incy);
void zcopy_(const int *n, const CUDROP_COMPLEX_DOUBLE *x, const int *incx, CUDROP_COMPLEX_DOUBLE *y, const int *incy);

/* The reference error handler's prototype, for a program that defines its own. cudrop defines
 * no xerbla_ or cblas_xerbla: an illegal argument reaches the program's own handler, else the
 * one of the CPU BLAS/LAPACK underneath, as it would without cudrop (docs/semantics.md). */
void xerbla_(const char *srname, const int *info, size_t srname_len CUDROP_DEFAULT_LEN_);

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
/* Complex CBLAS: scalars and arrays by address, as the CBLAS standard passes them. */
void cblas_cgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, const void *alpha, const void *a, int lda, const void *b,
                 int ldb, const void *beta, void *c, int ldc);
void cblas_zgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, const void *alpha, const void *a, int lda, const void *b,
                 int ldb, const void *beta, void *c, int ldc);
void cblas_scopy(int n, const float *x, int incx, float *y, int incy);
void cblas_dcopy(int n, const double *x, int incx, double *y, int incy);
void cblas_ccopy(int n, const void *x, int incx, void *y, int incy);
void cblas_zcopy(int n, const void *x, int incx, void *y, int incy);
enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 };
enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 };
enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 };
void cblas_ssymm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_ssyrk(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, float alpha,
                 const float *a, int lda, float beta, float *c, int ldc);
void cblas_ssyr2k(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, float alpha,
                  const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_strmm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, float alpha, const float *a, int lda, float *b, int ldb);
void cblas_strsm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, float alpha, const float *a, int lda, float *b, int ldb);
void cblas_dsymm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc);
void cblas_dsyrk(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, double alpha,
                 const double *a, int lda, double beta, double *c, int ldc);
void cblas_dsyr2k(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, double alpha,
                  const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc);
void cblas_dtrmm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, double alpha, const double *a, int lda, double *b, int ldb);
void cblas_dtrsm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, double alpha, const double *a, int lda, double *b, int ldb);
void cblas_csymm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void *alpha,
                 const void *a, int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
void cblas_chemm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void *alpha,
                 const void *a, int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
void cblas_csyrk(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                 const void *alpha, const void *a, int lda, const void *beta, void *c, int ldc);
void cblas_cherk(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, float alpha,
                 const void *a, int lda, float beta, void *c, int ldc);
void cblas_csyr2k(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                  const void *alpha, const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                  int ldc);
void cblas_cher2k(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                  const void *alpha, const void *a, int lda, const void *b, int ldb, float beta, void *c, int ldc);
void cblas_ctrmm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, const void *alpha, const void *a, int lda, void *b, int ldb);
void cblas_ctrsm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, const void *alpha, const void *a, int lda, void *b, int ldb);
void cblas_zsymm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void *alpha,
                 const void *a, int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
void cblas_zhemm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void *alpha,
                 const void *a, int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
void cblas_zsyrk(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                 const void *alpha, const void *a, int lda, const void *beta, void *c, int ldc);
void cblas_zherk(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, double alpha,
                 const void *a, int lda, double beta, void *c, int ldc);
void cblas_zsyr2k(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                  const void *alpha, const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                  int ldc);
void cblas_zher2k(CBLAS_LAYOUT layout, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k,
                  const void *alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c, int ldc);
void cblas_ztrmm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, const void *alpha, const void *a, int lda, void *b, int ldb);
void cblas_ztrsm(CBLAS_LAYOUT layout, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa,
                 enum CBLAS_DIAG diag, int m, int n, const void *alpha, const void *a, int lda, void *b, int ldb);
void cblas_xerbla(int info, const char *routine, const char *form, ...);
#endif

/* ---- cudrop's own ---- */
const char *cudrop_version(void);
/* 1 when a CUDA device is usable (starts CUDA on first call), else 0. */
int cudrop_gpu_available(void);
/* Calls the program made so far: done on the GPU, done on the CPU, and GPU attempts that fell
 * back to the CPU after a GPU error (calls that the CPU library underneath makes back into
 * cudrop are not the program's: not counted here). Any pointer may be NULL. */
void cudrop_counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks);
/* What cudrop-info prints, in one of three FORMs:
 *   CUDROP_INFO_SHORT  version, build, the GPU used or why none is, the CPU BLAS/LAPACK
 *                      libraries underneath and how they were found, the users' CUDROP_*
 *                      settings (and any other one set) with their sources;
 *   CUDROP_INFO_ALL    also each CPU routine and where it was found, every setting (tuning
 *                      knobs and test hooks too) and the auto-mode thresholds;
 *   CUDROP_INFO_JSON   all of it as one JSON object.
 * snprintf's contract: at most SIZE bytes written, always terminated (SIZE > 0); returns the
 * length of the whole text. */
#define CUDROP_INFO_SHORT 0
#define CUDROP_INFO_JSON 1
#define CUDROP_INFO_ALL 2
size_t cudrop_info(char *buffer, size_t size, int form);

/* ---- Power method (cudrop extension, Fortran ABI: every argument by pointer) ----
 * Dominant eigenvalue LAMBDA and eigenvector X of an N x N matrix A (docs/power.md):
 *   x = X (INIT = 0) or ones (INIT = 1); repeat up to MAXIT times:
 *     y = A*x;  LAMBDA = y(p), p = the FIRST index of the largest |y(i)| (signed value);
 *     y = y / LAMBDA;  converged when max |y(i) - x(i)| < TOL;  x = y.
 * On return X is the last iterate, its largest-magnitude entry exactly 1, and MAXIT (in: the
 * limit) the number of iterations done. INFO:
 *    0  converged;
 *    1  not converged in MAXIT iterations: LAMBDA and X of the last iteration (MAXIT = 0: no
 *       iteration, LAMBDA = 0, X = the start vector);
 *    2  A*x = 0 exactly: LAMBDA = 0, X = that x (nothing is divided by zero);
 *    3  the largest |y(i)| is Inf or NaN: LAMBDA = that entry, X = the x that gave it;
 *   -k  argument k is illegal, reported through xerbla_ with the routine's name
 *       ("CUDROP_SPOWER", length 13; "CUDROP_SCSRPOWER", length 16; ...) and nothing else
 *       written. Checked in this order: N < 0 (1); dense: LDA < max(1,N) (3), INIT not 0/1 (6),
 *       TOL < 0 or NaN (7), MAXIT < 0 (8); CSR: BASE not 0/1 (5), INIT (8), TOL (9), MAXIT (10).
 *   CSR structure, checked next, before any entry is followed; only INFO is written and
 *   xerbla_ is NOT called:
 *   -4  ROWPTR(1) /= BASE, or ROWPTR decreases somewhere;
 *   -3  a column index outside [BASE, BASE + N - 1].
 *   -1010  out of memory: the CPU path cannot allocate its work vector of N elements (LAPACKE's
 *       LAPACK_WORK_MEMORY_ERROR); only INFO is written and xerbla_ is NOT called.
 * N = 0: INFO = 0, LAMBDA = 0, MAXIT = 0. A is never written. CSR: row i (0-based) holds
 * VAL/COLIND entries ROWPTR(i) - BASE .. ROWPTR(i+1) - BASE - 1 (0-based positions); BASE = 1
 * for 1-based (Fortran) arrays. */
void cudrop_spower_(const int *n, const float *a, const int *lda, float *lambda, float *x,
                    const int *init, const float *tol, int *maxit, int *info);
void cudrop_dpower_(const int *n, const double *a, const int *lda, double *lambda, double *x,
                    const int *init, const double *tol, int *maxit, int *info);
void cudrop_scsrpower_(const int *n, const float *val, const int *colind, const int *rowptr,
                       const int *base, float *lambda, float *x, const int *init,
                       const float *tol, int *maxit, int *info);
void cudrop_dcsrpower_(const int *n, const double *val, const int *colind, const int *rowptr,
                       const int *base, double *lambda, double *x, const int *init,
                       const double *tol, int *maxit, int *info);

/* ---- ScaLAPACK (MPI programs, cudrop preloaded in every rank; README "Under MPI") ----
 * ScaLAPACK's own routines and semantics: the local block-cyclic part of each rank, array
 * descriptors DESCA(9). Calls the GPU path does not cover go to the ScaLAPACK routine found after
 * cudrop in the process. */
void pspotrf_(const char *uplo, const int *n, float *a, const int *ia, const int *ja, const int *desca,
              int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca,
              int *info, size_t uplo_len CUDROP_DEFAULT_LEN_);
void psgetrf_(const int *m, const int *n, float *a, const int *ia, const int *ja, const int *desca, int *ipiv,
              int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *ipiv,
              int *info);

#ifdef __cplusplus
}
#endif

#undef CUDROP_DEFAULT_LEN_

/* ---- The hidden lengths left out, in C ("Fortran ABI" above). NAME(...) is
 * CUDROP_STRLEN_CALL_(NAME, F, L, ...): (NAME)(...), with L arguments 1 appended when the call
 * has exactly F arguments, F the routine's parameters before its L lengths. C99's variadic macros;
 * the '~' arguments keep every '...' given at least one (ISO C99 asks it of every call). */
#if !defined(__cplusplus) && !defined(CUDROP_NO_STRLEN_MACROS)
#define CUDROP_STRLEN_CALL_(f, fixed, lengths, ...) \
  (f)(__VA_ARGS__ CUDROP_STRLEN_TAIL_(fixed, CUDROP_NARG_(__VA_ARGS__), lengths))
/* The number of arguments, 1 to 32. */
#define CUDROP_NARG_(...)                                                                      \
  CUDROP_NARG2_(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, \
                14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, ~)
#define CUDROP_NARG2_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, \
                      a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, n, ...) \
  n
/* CUDROP_STRLEN_OMITTED_<fixed>_<given> is defined, as "~, CUDROP_STRLEN_ONES_", only where
 * given = fixed (one for each F the list below uses): the second item of "its expansion,
 * CUDROP_STRLEN_NONE_" is the macro that writes the tail. */
#define CUDROP_STRLEN_TAIL_(fixed, given, lengths) CUDROP_STRLEN_TAIL2_(fixed, given, lengths)
#define CUDROP_STRLEN_TAIL2_(fixed, given, lengths) \
  CUDROP_STRLEN_SECOND_(CUDROP_STRLEN_OMITTED_##fixed##_##given, CUDROP_STRLEN_NONE_, ~)(lengths)
#define CUDROP_STRLEN_SECOND_(...) CUDROP_STRLEN_SECOND2_(__VA_ARGS__)
#define CUDROP_STRLEN_SECOND2_(first, second, ...) second
#define CUDROP_STRLEN_OMITTED_2_2 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_5_5 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_7_7 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_8_8 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_9_9 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_10_10 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_11_11 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_12_12 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_13_13 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_14_14 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_15_15 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_16_16 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_20_20 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_21_21 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_OMITTED_23_23 ~, CUDROP_STRLEN_ONES_
#define CUDROP_STRLEN_NONE_(lengths)
#define CUDROP_STRLEN_ONES_(lengths) CUDROP_STRLEN_ONES_##lengths
#define CUDROP_STRLEN_ONES_1 , 1
#define CUDROP_STRLEN_ONES_2 , 1, 1
#define CUDROP_STRLEN_ONES_3 , 1, 1, 1
#define CUDROP_STRLEN_ONES_4 , 1, 1, 1, 1
/* Every routine above with hidden lengths: its parameters before them, and their number. A routine
 * added above with hidden lengths (each with CUDROP_DEFAULT_LEN_) needs its line here, and its
 * two calls in tests/abi/header_calls.c and .cpp. */
#define sgemm_(...) CUDROP_STRLEN_CALL_(sgemm_, 13, 2, __VA_ARGS__)
#define dgemm_(...) CUDROP_STRLEN_CALL_(dgemm_, 13, 2, __VA_ARGS__)
#define cgemm_(...) CUDROP_STRLEN_CALL_(cgemm_, 13, 2, __VA_ARGS__)
#define zgemm_(...) CUDROP_STRLEN_CALL_(zgemm_, 13, 2, __VA_ARGS__)
#define spotrf_(...) CUDROP_STRLEN_CALL_(spotrf_, 5, 1, __VA_ARGS__)
#define dpotrf_(...) CUDROP_STRLEN_CALL_(dpotrf_, 5, 1, __VA_ARGS__)
#define cpotrf_(...) CUDROP_STRLEN_CALL_(cpotrf_, 5, 1, __VA_ARGS__)
#define zpotrf_(...) CUDROP_STRLEN_CALL_(zpotrf_, 5, 1, __VA_ARGS__)
#define sormqr_(...) CUDROP_STRLEN_CALL_(sormqr_, 13, 2, __VA_ARGS__)
#define dormqr_(...) CUDROP_STRLEN_CALL_(dormqr_, 13, 2, __VA_ARGS__)
#define cunmqr_(...) CUDROP_STRLEN_CALL_(cunmqr_, 13, 2, __VA_ARGS__)
#define zunmqr_(...) CUDROP_STRLEN_CALL_(zunmqr_, 13, 2, __VA_ARGS__)
#define sgels_(...) CUDROP_STRLEN_CALL_(sgels_, 11, 1, __VA_ARGS__)
#define dgels_(...) CUDROP_STRLEN_CALL_(dgels_, 11, 1, __VA_ARGS__)
#define cgels_(...) CUDROP_STRLEN_CALL_(cgels_, 11, 1, __VA_ARGS__)
#define zgels_(...) CUDROP_STRLEN_CALL_(zgels_, 11, 1, __VA_ARGS__)
#define sormlq_(...) CUDROP_STRLEN_CALL_(sormlq_, 13, 2, __VA_ARGS__)
#define dormlq_(...) CUDROP_STRLEN_CALL_(dormlq_, 13, 2, __VA_ARGS__)
#define cunmlq_(...) CUDROP_STRLEN_CALL_(cunmlq_, 13, 2, __VA_ARGS__)
#define zunmlq_(...) CUDROP_STRLEN_CALL_(zunmlq_, 13, 2, __VA_ARGS__)
#define ssyevd_(...) CUDROP_STRLEN_CALL_(ssyevd_, 11, 2, __VA_ARGS__)
#define dsyevd_(...) CUDROP_STRLEN_CALL_(dsyevd_, 11, 2, __VA_ARGS__)
#define cheevd_(...) CUDROP_STRLEN_CALL_(cheevd_, 13, 2, __VA_ARGS__)
#define zheevd_(...) CUDROP_STRLEN_CALL_(zheevd_, 13, 2, __VA_ARGS__)
#define ssyev_(...) CUDROP_STRLEN_CALL_(ssyev_, 9, 2, __VA_ARGS__)
#define dsyev_(...) CUDROP_STRLEN_CALL_(dsyev_, 9, 2, __VA_ARGS__)
#define cheev_(...) CUDROP_STRLEN_CALL_(cheev_, 10, 2, __VA_ARGS__)
#define zheev_(...) CUDROP_STRLEN_CALL_(zheev_, 10, 2, __VA_ARGS__)
#define ssyevr_(...) CUDROP_STRLEN_CALL_(ssyevr_, 21, 3, __VA_ARGS__)
#define dsyevr_(...) CUDROP_STRLEN_CALL_(dsyevr_, 21, 3, __VA_ARGS__)
#define cheevr_(...) CUDROP_STRLEN_CALL_(cheevr_, 23, 3, __VA_ARGS__)
#define zheevr_(...) CUDROP_STRLEN_CALL_(zheevr_, 23, 3, __VA_ARGS__)
#define ssyevx_(...) CUDROP_STRLEN_CALL_(ssyevx_, 20, 3, __VA_ARGS__)
#define dsyevx_(...) CUDROP_STRLEN_CALL_(dsyevx_, 20, 3, __VA_ARGS__)
#define cheevx_(...) CUDROP_STRLEN_CALL_(cheevx_, 21, 3, __VA_ARGS__)
#define zheevx_(...) CUDROP_STRLEN_CALL_(zheevx_, 21, 3, __VA_ARGS__)
#define ssygvd_(...) CUDROP_STRLEN_CALL_(ssygvd_, 14, 2, __VA_ARGS__)
#define dsygvd_(...) CUDROP_STRLEN_CALL_(dsygvd_, 14, 2, __VA_ARGS__)
#define chegvd_(...) CUDROP_STRLEN_CALL_(chegvd_, 16, 2, __VA_ARGS__)
#define zhegvd_(...) CUDROP_STRLEN_CALL_(zhegvd_, 16, 2, __VA_ARGS__)
#define ssygv_(...) CUDROP_STRLEN_CALL_(ssygv_, 12, 2, __VA_ARGS__)
#define dsygv_(...) CUDROP_STRLEN_CALL_(dsygv_, 12, 2, __VA_ARGS__)
#define chegv_(...) CUDROP_STRLEN_CALL_(chegv_, 13, 2, __VA_ARGS__)
#define zhegv_(...) CUDROP_STRLEN_CALL_(zhegv_, 13, 2, __VA_ARGS__)
#define sgesdd_(...) CUDROP_STRLEN_CALL_(sgesdd_, 14, 1, __VA_ARGS__)
#define dgesdd_(...) CUDROP_STRLEN_CALL_(dgesdd_, 14, 1, __VA_ARGS__)
#define cgesdd_(...) CUDROP_STRLEN_CALL_(cgesdd_, 15, 1, __VA_ARGS__)
#define zgesdd_(...) CUDROP_STRLEN_CALL_(zgesdd_, 15, 1, __VA_ARGS__)
#define sgesvd_(...) CUDROP_STRLEN_CALL_(sgesvd_, 14, 2, __VA_ARGS__)
#define dgesvd_(...) CUDROP_STRLEN_CALL_(dgesvd_, 14, 2, __VA_ARGS__)
#define cgesvd_(...) CUDROP_STRLEN_CALL_(cgesvd_, 15, 2, __VA_ARGS__)
#define zgesvd_(...) CUDROP_STRLEN_CALL_(zgesvd_, 15, 2, __VA_ARGS__)
#define ssymm_(...) CUDROP_STRLEN_CALL_(ssymm_, 12, 2, __VA_ARGS__)
#define ssyrk_(...) CUDROP_STRLEN_CALL_(ssyrk_, 10, 2, __VA_ARGS__)
#define ssyr2k_(...) CUDROP_STRLEN_CALL_(ssyr2k_, 12, 2, __VA_ARGS__)
#define strmm_(...) CUDROP_STRLEN_CALL_(strmm_, 11, 4, __VA_ARGS__)
#define strsm_(...) CUDROP_STRLEN_CALL_(strsm_, 11, 4, __VA_ARGS__)
#define dsymm_(...) CUDROP_STRLEN_CALL_(dsymm_, 12, 2, __VA_ARGS__)
#define dsyrk_(...) CUDROP_STRLEN_CALL_(dsyrk_, 10, 2, __VA_ARGS__)
#define dsyr2k_(...) CUDROP_STRLEN_CALL_(dsyr2k_, 12, 2, __VA_ARGS__)
#define dtrmm_(...) CUDROP_STRLEN_CALL_(dtrmm_, 11, 4, __VA_ARGS__)
#define dtrsm_(...) CUDROP_STRLEN_CALL_(dtrsm_, 11, 4, __VA_ARGS__)
#define csymm_(...) CUDROP_STRLEN_CALL_(csymm_, 12, 2, __VA_ARGS__)
#define chemm_(...) CUDROP_STRLEN_CALL_(chemm_, 12, 2, __VA_ARGS__)
#define csyrk_(...) CUDROP_STRLEN_CALL_(csyrk_, 10, 2, __VA_ARGS__)
#define cherk_(...) CUDROP_STRLEN_CALL_(cherk_, 10, 2, __VA_ARGS__)
#define csyr2k_(...) CUDROP_STRLEN_CALL_(csyr2k_, 12, 2, __VA_ARGS__)
#define cher2k_(...) CUDROP_STRLEN_CALL_(cher2k_, 12, 2, __VA_ARGS__)
#define ctrmm_(...) CUDROP_STRLEN_CALL_(ctrmm_, 11, 4, __VA_ARGS__)
#define ctrsm_(...) CUDROP_STRLEN_CALL_(ctrsm_, 11, 4, __VA_ARGS__)
#define zsymm_(...) CUDROP_STRLEN_CALL_(zsymm_, 12, 2, __VA_ARGS__)
#define zhemm_(...) CUDROP_STRLEN_CALL_(zhemm_, 12, 2, __VA_ARGS__)
#define zsyrk_(...) CUDROP_STRLEN_CALL_(zsyrk_, 10, 2, __VA_ARGS__)
#define zherk_(...) CUDROP_STRLEN_CALL_(zherk_, 10, 2, __VA_ARGS__)
#define zsyr2k_(...) CUDROP_STRLEN_CALL_(zsyr2k_, 12, 2, __VA_ARGS__)
#define zher2k_(...) CUDROP_STRLEN_CALL_(zher2k_, 12, 2, __VA_ARGS__)
#define ztrmm_(...) CUDROP_STRLEN_CALL_(ztrmm_, 11, 4, __VA_ARGS__)
#define ztrsm_(...) CUDROP_STRLEN_CALL_(ztrsm_, 11, 4, __VA_ARGS__)
#define sgetrs_(...) CUDROP_STRLEN_CALL_(sgetrs_, 9, 1, __VA_ARGS__)
#define dgetrs_(...) CUDROP_STRLEN_CALL_(dgetrs_, 9, 1, __VA_ARGS__)
#define spotrs_(...) CUDROP_STRLEN_CALL_(spotrs_, 8, 1, __VA_ARGS__)
#define dpotrs_(...) CUDROP_STRLEN_CALL_(dpotrs_, 8, 1, __VA_ARGS__)
#define sposv_(...) CUDROP_STRLEN_CALL_(sposv_, 8, 1, __VA_ARGS__)
#define dposv_(...) CUDROP_STRLEN_CALL_(dposv_, 8, 1, __VA_ARGS__)
#define cgetrs_(...) CUDROP_STRLEN_CALL_(cgetrs_, 9, 1, __VA_ARGS__)
#define zgetrs_(...) CUDROP_STRLEN_CALL_(zgetrs_, 9, 1, __VA_ARGS__)
#define cpotrs_(...) CUDROP_STRLEN_CALL_(cpotrs_, 8, 1, __VA_ARGS__)
#define zpotrs_(...) CUDROP_STRLEN_CALL_(zpotrs_, 8, 1, __VA_ARGS__)
#define cposv_(...) CUDROP_STRLEN_CALL_(cposv_, 8, 1, __VA_ARGS__)
#define zposv_(...) CUDROP_STRLEN_CALL_(zposv_, 8, 1, __VA_ARGS__)
#define ssytrf_(...) CUDROP_STRLEN_CALL_(ssytrf_, 8, 1, __VA_ARGS__)
#define dsytrf_(...) CUDROP_STRLEN_CALL_(dsytrf_, 8, 1, __VA_ARGS__)
#define csytrf_(...) CUDROP_STRLEN_CALL_(csytrf_, 8, 1, __VA_ARGS__)
#define zsytrf_(...) CUDROP_STRLEN_CALL_(zsytrf_, 8, 1, __VA_ARGS__)
#define chetrf_(...) CUDROP_STRLEN_CALL_(chetrf_, 8, 1, __VA_ARGS__)
#define zhetrf_(...) CUDROP_STRLEN_CALL_(zhetrf_, 8, 1, __VA_ARGS__)
#define ssytrs_(...) CUDROP_STRLEN_CALL_(ssytrs_, 9, 1, __VA_ARGS__)
#define dsytrs_(...) CUDROP_STRLEN_CALL_(dsytrs_, 9, 1, __VA_ARGS__)
#define csytrs_(...) CUDROP_STRLEN_CALL_(csytrs_, 9, 1, __VA_ARGS__)
#define zsytrs_(...) CUDROP_STRLEN_CALL_(zsytrs_, 9, 1, __VA_ARGS__)
#define chetrs_(...) CUDROP_STRLEN_CALL_(chetrs_, 9, 1, __VA_ARGS__)
#define zhetrs_(...) CUDROP_STRLEN_CALL_(zhetrs_, 9, 1, __VA_ARGS__)
#define ssysv_(...) CUDROP_STRLEN_CALL_(ssysv_, 11, 1, __VA_ARGS__)
#define dsysv_(...) CUDROP_STRLEN_CALL_(dsysv_, 11, 1, __VA_ARGS__)
#define csysv_(...) CUDROP_STRLEN_CALL_(csysv_, 11, 1, __VA_ARGS__)
#define zsysv_(...) CUDROP_STRLEN_CALL_(zsysv_, 11, 1, __VA_ARGS__)
#define chesv_(...) CUDROP_STRLEN_CALL_(chesv_, 11, 1, __VA_ARGS__)
#define zhesv_(...) CUDROP_STRLEN_CALL_(zhesv_, 11, 1, __VA_ARGS__)
#define xerbla_(...) CUDROP_STRLEN_CALL_(xerbla_, 2, 1, __VA_ARGS__)
#define pspotrf_(...) CUDROP_STRLEN_CALL_(pspotrf_, 7, 1, __VA_ARGS__)
#define pdpotrf_(...) CUDROP_STRLEN_CALL_(pdpotrf_, 7, 1, __VA_ARGS__)
#endif

#endif /* CUDROP_H */
