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
 * lengths; cudrop accepts but never relies on them. COMPLEX and COMPLEX*16 arguments are
 * pointers to CUDROP_COMPLEX_FLOAT / CUDROP_COMPLEX_DOUBLE: void unless defined before this
 * header (float _Complex, std::complex<float>, or any struct of a real and an imaginary part). */
#ifndef CUDROP_COMPLEX_FLOAT
#define CUDROP_COMPLEX_FLOAT void
#endif
#ifndef CUDROP_COMPLEX_DOUBLE
#define CUDROP_COMPLEX_DOUBLE void
#endif
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t transa_len, size_t transb_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);
/* Complex: TRANSA/TRANSB 'N', 'T' or 'C' (conjugate transpose). */
void cgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
            const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta,
            CUDROP_COMPLEX_FLOAT *c, const int *ldc, size_t transa_len, size_t transb_len);
void zgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
            const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta,
            CUDROP_COMPLEX_DOUBLE *c, const int *ldc, size_t transa_len, size_t transb_len);

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
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t uplo_len);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
void cpotrf_(const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *info, size_t uplo_len);
void zpotrf_(const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *info, size_t uplo_len);

/* Householder QR, reference semantics (xGEQRF, xORMQR/xUNMQR, xORGQR/xUNGQR, xGELS): LWORK = -1
 * returns the CPU LAPACK's optimal LWORK; ?gels_ with M < N runs on the CPU LAPACK. */
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
             size_t side_len, size_t trans_len);
void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const double *a,
             const int *lda, const double *tau, double *c, const int *ldc, double *work, const int *lwork, int *info,
             size_t side_len, size_t trans_len);
void cunmqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *c, const int *ldc, CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info,
             size_t side_len, size_t trans_len);
void zunmqr_(const char *side, const char *trans, const int *m, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *c, const int *ldc, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info,
             size_t side_len, size_t trans_len);
void sorgqr_(const int *m, const int *n, const int *k, float *a, const int *lda, const float *tau, float *work,
             const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau, double *work,
             const int *lwork, int *info);
void cungqr_(const int *m, const int *n, const int *k, CUDROP_COMPLEX_FLOAT *a, const int *lda, const CUDROP_COMPLEX_FLOAT *tau, CUDROP_COMPLEX_FLOAT *work,
             const int *lwork, int *info);
void zungqr_(const int *m, const int *n, const int *k, CUDROP_COMPLEX_DOUBLE *a, const int *lda, const CUDROP_COMPLEX_DOUBLE *tau, CUDROP_COMPLEX_DOUBLE *work,
             const int *lwork, int *info);
void sgels_(const char *trans, const int *m, const int *n, const int *nrhs, float *a, const int *lda, float *b,
            const int *ldb, float *work, const int *lwork, int *info, size_t trans_len);
void dgels_(const char *trans, const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, double *work, const int *lwork, int *info, size_t trans_len);
void cgels_(const char *trans, const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *b,
            const int *ldb, CUDROP_COMPLEX_FLOAT *work, const int *lwork, int *info, size_t trans_len);
void zgels_(const char *trans, const int *m, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *b,
            const int *ldb, CUDROP_COMPLEX_DOUBLE *work, const int *lwork, int *info, size_t trans_len);

/* Symmetric and Hermitian eigenproblems by divide and conquer, reference semantics (xSYEVD,
 * xHEEVD): eigenvalues ascending in W; with JOBZ = 'V' the orthonormal eigenvectors in A (their
 * signs may differ from the reference's, which leaves them free); with JOBZ = 'N' A is left as it
 * was. LWORK = -1 (or LIWORK, LRWORK) returns the CPU LAPACK's optimal sizes. */
void ssyevd_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w, float *work,
             const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
             const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len);
void cheevd_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, float *w,
             CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, const int *lrwork, int *iwork,
             const int *liwork, int *info, size_t jobz_len, size_t uplo_len);
void zheevd_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, double *w,
             CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, const int *lrwork, int *iwork,
             const int *liwork, int *info, size_t jobz_len, size_t uplo_len);

/* The same problems through xSYEV/xHEEV: the same GPU path (the tridiagonal problem by divide and
 * conquer, where the reference iterates QR). */
void ssyev_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w, float *work,
            const int *lwork, int *info, size_t jobz_len, size_t uplo_len);
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
            const int *lwork, int *info, size_t jobz_len, size_t uplo_len);
void cheev_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_FLOAT *a, const int *lda, float *w,
            CUDROP_COMPLEX_FLOAT *work, const int *lwork, float *rwork, int *info, size_t jobz_len, size_t uplo_len);
void zheev_(const char *jobz, const char *uplo, const int *n, CUDROP_COMPLEX_DOUBLE *a, const int *lda, double *w,
            CUDROP_COMPLEX_DOUBLE *work, const int *lwork, double *rwork, int *info, size_t jobz_len,
            size_t uplo_len);

/* The rest of Level 3, reference semantics: C = alpha*A*B + beta*C or alpha*B*A + beta*C with A
 * symmetric (SYMM); uplo's triangle of C = alpha*op(A)*op(A)**T + beta*C (SYRK) or
 * alpha*(op(A)*op(B)**T + op(B)*op(A)**T) + beta*C (SYR2K); B := alpha*op(A)*B or alpha*B*op(A)
 * (TRMM) and the solutions of op(A)*X = alpha*B or X*op(A) = alpha*B (TRSM), A triangular. Only
 * the triangle uplo names is read of A (SYMM, TRMM, TRSM) and written of C (SYRK, SYR2K). */
void ssymm_(const char *side, const char *uplo, const int *m, const int *n, const float *alpha, const float *a,
            const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
            size_t side_len, size_t uplo_len);
void ssyrk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const float *a,
            const int *lda, const float *beta, float *c, const int *ldc, size_t uplo_len, size_t trans_len);
void ssyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const float *a,
             const int *lda, const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
             size_t uplo_len, size_t trans_len);
void strmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const float *alpha, const float *a, const int *lda, float *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const float *alpha, const float *a, const int *lda, float *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void dsymm_(const char *side, const char *uplo, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *b, const int *ldb, const double *beta, double *c, const int *ldc,
            size_t side_len, size_t uplo_len);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
            const int *lda, const double *beta, double *c, const int *ldc, size_t uplo_len, size_t trans_len);
void dsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
             const int *lda, const double *b, const int *ldb, const double *beta, double *c, const int *ldc,
             size_t uplo_len, size_t trans_len);
void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *a, const int *lda, double *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const double *alpha, const double *a, const int *lda, double *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
/* The same for COMPLEX and COMPLEX*16, with the Hermitian forms: A Hermitian (HEMM, the imaginary
 * parts of its diagonal never read); uplo's triangle of C = alpha*op(A)*op(A)**H + beta*C (HERK,
 * alpha and beta real) or alpha*op(A)*op(B)**H + conjg(alpha)*op(B)*op(A)**H + beta*C (HER2K,
 * beta real), the imaginary parts of C's diagonal set to zero; TRANSA = 'C' in TRMM/TRSM: the
 * conjugate transpose. */
void csymm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
            size_t side_len, size_t uplo_len);
void chemm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
            size_t side_len, size_t uplo_len);
void csyrk_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc, size_t uplo_len, size_t trans_len);
void cherk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha, const CUDROP_COMPLEX_FLOAT *a,
            const int *lda, const float *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc, size_t uplo_len, size_t trans_len);
void csyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const CUDROP_COMPLEX_FLOAT *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
             size_t uplo_len, size_t trans_len);
void cher2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a,
             const int *lda, const CUDROP_COMPLEX_FLOAT *b, const int *ldb, const float *beta, CUDROP_COMPLEX_FLOAT *c, const int *ldc,
             size_t uplo_len, size_t trans_len);
void ctrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void ctrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_FLOAT *alpha, const CUDROP_COMPLEX_FLOAT *a, const int *lda, CUDROP_COMPLEX_FLOAT *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void zsymm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
            size_t side_len, size_t uplo_len);
void zhemm_(const char *side, const char *uplo, const int *m, const int *n, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
            size_t side_len, size_t uplo_len);
void zsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc, size_t uplo_len, size_t trans_len);
void zherk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const CUDROP_COMPLEX_DOUBLE *a,
            const int *lda, const double *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc, size_t uplo_len, size_t trans_len);
void zsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const CUDROP_COMPLEX_DOUBLE *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
             size_t uplo_len, size_t trans_len);
void zher2k_(const char *uplo, const char *trans, const int *n, const int *k, const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a,
             const int *lda, const CUDROP_COMPLEX_DOUBLE *b, const int *ldb, const double *beta, CUDROP_COMPLEX_DOUBLE *c, const int *ldc,
             size_t uplo_len, size_t trans_len);
void ztrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void ztrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
            const CUDROP_COMPLEX_DOUBLE *alpha, const CUDROP_COMPLEX_DOUBLE *a, const int *lda, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
/* Solves with the factors of ?GETRF (A*X = B, A**T*X = B, A**H*X = B: TRANS = 'N', 'T' or 'C';
 * 'C' is 'T' for s and d) and of ?POTRF (c, z: A = U**H*U or L*L**H), and the drivers that
 * factor and solve in one call (?GESV, ?POSV), reference semantics: INFO = i > 0 from the
 * factorization leaves B unsolved. */
void sgetrs_(const char *trans, const int *n, const int *nrhs, const float *a, const int *lda, const int *ipiv,
             float *b, const int *ldb, int *info, size_t trans_len);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
             double *b, const int *ldb, int *info, size_t trans_len);
void spotrs_(const char *uplo, const int *n, const int *nrhs, const float *a, const int *lda, float *b,
             const int *ldb, int *info, size_t uplo_len);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
             const int *ldb, int *info, size_t uplo_len);
void sgesv_(const int *n, const int *nrhs, float *a, const int *lda, int *ipiv, float *b, const int *ldb, int *info);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
            int *info);
void sposv_(const char *uplo, const int *n, const int *nrhs, float *a, const int *lda, float *b, const int *ldb,
            int *info, size_t uplo_len);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
            int *info, size_t uplo_len);
void cgetrs_(const char *trans, const int *n, const int *nrhs, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info, size_t trans_len);
void zgetrs_(const char *trans, const int *n, const int *nrhs, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             const int *ipiv, CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info, size_t trans_len);
void cpotrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_FLOAT *a, const int *lda,
             CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info, size_t uplo_len);
void zpotrs_(const char *uplo, const int *n, const int *nrhs, const CUDROP_COMPLEX_DOUBLE *a, const int *lda,
             CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info, size_t uplo_len);
void cgesv_(const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda, int *ipiv, CUDROP_COMPLEX_FLOAT *b,
            const int *ldb, int *info);
void zgesv_(const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda, int *ipiv,
            CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info);
void cposv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_FLOAT *a, const int *lda,
            CUDROP_COMPLEX_FLOAT *b, const int *ldb, int *info, size_t uplo_len);
void zposv_(const char *uplo, const int *n, const int *nrhs, CUDROP_COMPLEX_DOUBLE *a, const int *lda,
            CUDROP_COMPLEX_DOUBLE *b, const int *ldb, int *info, size_t uplo_len);

/* The reference error handler's prototype, for a program that defines its own. cudrop defines
 * no xerbla_ or cblas_xerbla: an illegal argument reaches the program's own handler, else the
 * one of the CPU BLAS/LAPACK underneath, as it would without cudrop (docs/semantics.md). */
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
/* Complex CBLAS: scalars and arrays by address, as the CBLAS standard passes them. */
void cblas_cgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, const void *alpha, const void *a, int lda, const void *b,
                 int ldb, const void *beta, void *c, int ldc);
void cblas_zgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, const void *alpha, const void *a, int lda, const void *b,
                 int ldb, const void *beta, void *c, int ldc);
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
              int *info, size_t uplo_len);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca,
              int *info, size_t uplo_len);
void psgetrf_(const int *m, const int *n, float *a, const int *ia, const int *ja, const int *desca, int *ipiv,
              int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *ipiv,
              int *info);

#ifdef __cplusplus
}
#endif
#endif /* CUDROP_H */
