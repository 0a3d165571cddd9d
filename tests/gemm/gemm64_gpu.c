/* gemm64_gpu: sgemm_64_/dgemm_64_ (64-bit integers, libcudrop_full) against cudrop's LP64
   sgemm_/dgemm_ in forced-GPU mode (CUDROP_MODE=gpu): random shapes, transposes, padded leading
   dimensions, alpha/beta, every result bit for bit equal (the same GPU path), each call counted
   as a GPU call with no fallback; the rows and columns past M x N untouched.
   `gemm64_gpu huge`: sgemm_64_ with M = 2^31 + 64, N = 2, K = 2, LDA = LDC = M (8 GiB for A,
   16 GiB for C in float: skipped with a message when the host has less free memory), checked
   on sampled rows against a loop in double. Sizes past an int go whole to the ILP64 CPU
   library today (capi/ilp64.h): the run checks the answer, and reports where it ran.
   Exit 0 pass, 1 fail, 77 skipped (no GPU, or too little memory for `huge`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudrop.h"

typedef int64_t I;
void sgemm_64_(const char *, const char *, const I *, const I *, const I *, const float *, const float *, const I *,
               const float *, const I *, const float *, float *, const I *, size_t, size_t);
void dgemm_64_(const char *, const char *, const I *, const I *, const I *, const double *, const double *,
               const I *, const double *, const I *, const double *, double *, const I *, size_t, size_t);

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) {
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}
static double uniform(void) { return (double)(next() >> 11) / 9007199254740992.0 * 2 - 1; }
static int dim(int max) { return 1 + (int)(next() % (uint64_t)max); }

#define SHAPE_TEST(NAME, T, LP64, ILP64)                                                                      \
  static int NAME(int m, int n, int k, char ta, char tb, T alpha, T beta, int pad) {                         \
    const int ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m, rb = tb == 'N' ? k : n, cb = tb == 'N' ? n : k; \
    const int lda = ra + pad, ldb = rb + pad, ldc = m + pad;                                                  \
    T *a = malloc(sizeof(T) * lda * ca), *b = malloc(sizeof(T) * ldb * cb);                                   \
    T *c1 = malloc(sizeof(T) * ldc * n), *c2 = malloc(sizeof(T) * ldc * n);                                   \
    for (long i = 0; i < (long)lda * ca; ++i) a[i] = (T)uniform();                                            \
    for (long i = 0; i < (long)ldb * cb; ++i) b[i] = (T)uniform();                                            \
    for (long i = 0; i < (long)ldc * n; ++i) c1[i] = c2[i] = (T)uniform();                                    \
    LP64(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c1, &ldc, 1, 1);                              \
    long g0, c0, f0, g1, c1n, f1;                                                                             \
    cudrop_counters(&g0, &c0, &f0);                                                                           \
    const I m64 = m, n64 = n, k64 = k, lda64 = lda, ldb64 = ldb, ldc64 = ldc;                                 \
    ILP64(&ta, &tb, &m64, &n64, &k64, &alpha, a, &lda64, b, &ldb64, &beta, c2, &ldc64, 1, 1);                 \
    cudrop_counters(&g1, &c1n, &f1);                                                                          \
    const int same = memcmp(c1, c2, sizeof(T) * ldc * n) == 0;                                                \
    const int on_gpu = g1 == g0 + 1 && f1 == f0;                                                              \
    if (!same || !on_gpu)                                                                                     \
      printf("FAIL: %s %c%c m=%d n=%d k=%d pad=%d: %s%s\n", #ILP64, ta, tb, m, n, k, pad,                     \
             same ? "" : "differs from the LP64 entry ", on_gpu ? "" : "not one GPU call without fallback");  \
    free(a), free(b), free(c1), free(c2);                                                                     \
    return same && on_gpu;                                                                                    \
  }
SHAPE_TEST(shape_s, float, sgemm_, sgemm_64_)
SHAPE_TEST(shape_d, double, dgemm_, dgemm_64_)

static int huge(void) {
  const I m = ((I)1 << 31) + 64, n = 2, k = 2, lda = m, ldb = k, ldc = m;
  const double need = (double)m * (k + n) * sizeof(float) + (1 << 30);
  const double avail = (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (avail < need) {
    printf("SKIP: huge needs %.1f GiB of free host memory, %.1f GiB free\n", need / (1 << 30), avail / (1 << 30));
    return 77;
  }
  float *a = malloc(sizeof(float) * (size_t)lda * k), *c = malloc(sizeof(float) * (size_t)ldc * n);
  if (a == NULL || c == NULL) {
    printf("SKIP: huge: malloc failed\n");
    return 77;
  }
  const float b[4] = {1.0f, 0.5f, -2.0f, 0.25f}, alpha = 1, beta = 0;
  for (I i = 0; i < (I)lda * k; ++i) a[i] = (float)(((uint64_t)i * 2654435761u) % 1000) / 64.0f;
  memset(c, 0xff, sizeof(float) * (size_t)ldc * n);  /* NaN: beta = 0 must not read C */
  long g0, c0, f0, g1, c1, f1;
  cudrop_counters(&g0, &c0, &f0);
  sgemm_64_("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  cudrop_counters(&g1, &c1, &f1);
  printf("huge: sgemm_64_ m=%lld n=2 k=2: gpu_calls +%ld, cpu_calls +%ld, fallbacks +%ld\n", (long long)m,
         g1 - g0, c1 - c0, f1 - f0);
  int bad = 0;
  for (int s = 0; s < 4096 && bad < 5; ++s) {
    I i = s < 64 ? (I)s : s < 128 ? m - 128 + s : (I)(next() % (uint64_t)m);
    for (int j = 0; j < 2; ++j) {
      /* Exact in float: multiples of 1/64 below 16 times 1, 0.5, -2, 0.25. */
      const double want = (double)a[i] * b[2 * j] + (double)a[i + lda] * b[2 * j + 1];
      if (c[i + j * ldc] != (float)want)
        printf("FAIL: huge: C(%lld,%d) = %g, want %g\n", (long long)i, j, c[i + j * ldc], want), ++bad;
    }
  }
  free(a), free(c);
  if (!bad) printf("huge: 4096 sampled rows (the first and last 64 among them) match\n");
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  if (!cudrop_gpu_available()) {
    printf("SKIP: no usable GPU\n");
    return 77;
  }
  if (argc > 1 && strcmp(argv[1], "huge") == 0) return huge();
  int ok = 1, count = 0;
  const char trans[] = {'N', 'T', 'C'};
  for (int t = 0; t < 40; ++t) {
    const int big = t % 8 == 0;
    const int m = dim(big ? 1500 : 300), n = dim(big ? 1500 : 300), k = dim(big ? 1500 : 300);
    const char ta = trans[next() % 3], tb = trans[next() % 3];
    const int pad = (int)(next() % 5);
    const double alpha = t % 5 == 0 ? 1 : uniform(), beta = t % 4 == 0 ? 0 : uniform();
    ok &= shape_s(m, n, k, ta, tb, (float)alpha, (float)beta, pad);
    ok &= shape_d(m, n, k, ta, tb, alpha, beta, pad);
    count += 2;
  }
  printf("%s: %d shapes, sgemm_64_/dgemm_64_ equal to sgemm_/dgemm_ bit for bit, each one GPU call\n",
         ok ? "ok" : "FAIL", count);
  return ok ? 0 : 1;
}
