/* The illegal calls of the handlers matrix, and (with -DHANDLER_TAG=name) error handlers
 * that print what they were given and return. Built into the program itself (handler in the
 * executable, or none) or into a library the program dlopens RTLD_LOCAL (numpy's case). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void cblas_sgemm(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);

#ifdef HANDLER_TAG
#define STR2(x) #x
#define STR(x) STR2(x)
void xerbla_(const char *srname, const int *info, size_t srname_len) {
  printf("xerbla_ of the %s: name [%.*s] length %zu, parameter %d\n", STR(HANDLER_TAG),
         (int)srname_len, srname, srname_len, *info);
}
void cblas_xerbla(int info, const char *routine, const char *form, ...) {
  printf("cblas_xerbla of the %s: parameter %d, routine [%s], message [", STR(HANDLER_TAG), info,
         routine);
  va_list args;
  va_start(args, form);
  vprintf(form, args);
  va_end(args);
  printf("]\n");
}
#endif

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111 };

/* Returns 0 after making the call, 2 for an unknown case name. */
int run_case(const char *name) {
  static float a[64], b[64], c[64];
  const float one = 1.0f;
  const int two = 2, one_i = 1;
  if (strcmp(name, "sgemm_lda") == 0) {
    sgemm_("N", "N", &two, &two, &two, &one, a, &one_i, b, &two, &one, c, &two, 1, 1); /* LDA < M: 8 */
  } else if (strcmp(name, "sgemm_transa") == 0) {
    sgemm_("X", "N", &two, &two, &two, &one, a, &two, b, &two, &one, c, &two, 1, 1); /* TRANSA: 1 */
  } else if (strcmp(name, "cblas_col_lda") == 0) {
    cblas_sgemm(ColMajor, NoTrans, NoTrans, 4, 2, 2, 1.0f, a, 2, b, 2, 1.0f, c, 4); /* lda < M */
  } else if (strcmp(name, "cblas_row_ldb") == 0) {
    cblas_sgemm(RowMajor, NoTrans, NoTrans, 2, 4, 2, 1.0f, a, 2, b, 2, 1.0f, c, 4); /* ldb < N */
  } else if (strcmp(name, "cblas_layout") == 0) {
    cblas_sgemm(99, NoTrans, NoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 1.0f, c, 2);
#ifdef WITH_LAPACK /* the builds without -llapack have no dgesv_ */
  } else if (strcmp(name, "dgesv_lda") == 0) {
    static double da[16], db[16];
    static int ipiv[4];
    int info = 0;
    dgesv_(&two, &one_i, da, &one_i, ipiv, db, &two, &info); /* LDA < N: 4 */
    printf("dgesv_ INFO %d\n", info);
#endif
  } else {
    return 2;
  }
  return 0;
}
