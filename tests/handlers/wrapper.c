/* A BLAS call wrapper, as profilers and loggers are: sgemm_ and cblas_sgemm of its own that hand
 * every call to the next definition (dlsym(RTLD_NEXT)). Preloaded before libcudrop, the next one
 * is cudrop's: an illegal call must then reach the handler as without cudrop, never come back
 * to the wrapper (which would call cudrop again, forever). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef void sgemm_fn(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
                      const int *, const float *, const int *, const float *, float *, const int *, size_t, size_t);
typedef void cblas_sgemm_fn(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                            int);

void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc, size_t ta_len, size_t tb_len) {
  sgemm_fn *next = (sgemm_fn *)dlsym(RTLD_NEXT, "sgemm_");
  next(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ta_len, tb_len);
}

void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc) {
  cblas_sgemm_fn *next = (cblas_sgemm_fn *)dlsym(RTLD_NEXT, "cblas_sgemm");
  next(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
