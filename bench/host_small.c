/* cudrop-host-small: the fixed cost of small BLAS calls host to host. A plain client (malloc'ed
 * arrays, routines from whatever BLAS the process has, as cudrop-host-gemm finds them): run it
 * under LD_PRELOAD=libcudrop.so CUDROP_MODE=gpu for the GPU's cost of a call, plain for the CPU
 * BLAS's. Each call: order n, alpha 1 (TRSM's A well conditioned: a unit-dominant lower
 * triangle), beta 0, random data; `reps` timed calls after an untimed one.
 * usage: cudrop-host-small [n (64)] [reps (300)] [calls (sgemm,dgemm,zgemm,dtrsm,ztrsm,dsyrk,dsymm)]
 * prints one line per call: small_call NAME n=N seconds=MEDIAN best_seconds=BEST checksum=X */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timing.h"

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                     const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void trsm_fn(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                     const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
typedef void syrk_fn(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                     const void *, void *, const int *, size_t, size_t);
typedef void symm_fn(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                     const void *, const int *, const void *, void *, const int *, size_t, size_t);

/* Element size of a precision letter; its scalars are two reals for c and z. */
static size_t element_bytes(char p) { return p == 's' ? 4 : p == 'd' || p == 'c' ? 8 : 16; }

static void fill(char p, void *x, size_t count, unsigned *state, int dominant_n) {
  const size_t reals = count * (p == 'c' || p == 'z' ? 2 : 1);
  for (size_t i = 0; i < reals; ++i) {
    *state = *state * 1664525u + 1013904223u;
    double v = (*state >> 8) / 16777216.0 - 0.5;
    if (p == 's' || p == 'c') ((float *)x)[i] = (float)v;
    else ((double *)x)[i] = v;
  }
  /* A triangle solved: the diagonal made dominant (real part n + 1). */
  for (int j = 0; dominant_n > 0 && j < dominant_n; ++j) {
    const size_t at = (size_t)j * dominant_n + j, stride = p == 'c' || p == 'z' ? 2 : 1;
    if (p == 's' || p == 'c') ((float *)x)[at * stride] = (float)(dominant_n + 1);
    else ((double *)x)[at * stride] = dominant_n + 1.0;
  }
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  const int reps = argc > 2 ? atoi(argv[2]) : 300;
  char list[256];
  snprintf(list, sizeof list, "%s", argc > 3 ? argv[3] : "sgemm,dgemm,zgemm,dtrsm,ztrsm,dsyrk,dsymm");
  if (n <= 0 || reps <= 0) {
    fprintf(stderr, "usage: %s [n] [reps] [calls]\n", argv[0]);
    return 2;
  }
  const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
  const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
  for (char *name = strtok(list, ","); name != NULL; name = strtok(NULL, ",")) {
    const char p = name[0];
    const char *kind = name + 1;
    const size_t es = element_bytes(p), count = (size_t)n * n;
    char symbol[16];
    snprintf(symbol, sizeof symbol, "%s_", name);
    void *fn = library_symbol(symbol, "BENCH_BLAS", "libblas.so.3");
    char *a = malloc(count * es), *b = malloc(count * es), *c = malloc(count * es), *b0 = malloc(count * es);
    double *times = malloc((size_t)reps * sizeof(double));
    if (!a || !b || !c || !b0 || !times) { fprintf(stderr, "out of memory\n"); return 2; }
    unsigned state = 12345u;
    const int is_trsm = strcmp(kind, "trsm") == 0;
    fill(p, a, count, &state, is_trsm ? n : 0);
    fill(p, b0, count, &state, 0);
    memset(c, 0, count * es);
    const void *alpha = p == 's' || p == 'c' ? (const void *)one_f : (const void *)one;
    const void *beta = p == 's' || p == 'c' ? (const void *)zero_f : (const void *)zero;
    for (int r = -1; r < reps; ++r) {
      memcpy(b, b0, count * es); /* TRSM overwrites B: every call solves the same system */
      const double t0 = now_seconds();
      if (strcmp(kind, "gemm") == 0)
        ((gemm_fn *)fn)("N", "N", &n, &n, &n, alpha, a, &n, b, &n, beta, c, &n, 1, 1);
      else if (is_trsm)
        ((trsm_fn *)fn)("L", "L", "N", "N", &n, &n, alpha, a, &n, b, &n, 1, 1, 1, 1);
      else if (strcmp(kind, "syrk") == 0 || strcmp(kind, "herk") == 0)
        ((syrk_fn *)fn)("L", "N", &n, &n, alpha, a, &n, beta, c, &n, 1, 1);
      else if (strcmp(kind, "symm") == 0 || strcmp(kind, "hemm") == 0)
        ((symm_fn *)fn)("L", "L", &n, &n, alpha, a, &n, b, &n, beta, c, &n, 1, 1);
      else {
        fprintf(stderr, "%s: not one of gemm, trsm, syrk, herk, symm, hemm\n", name);
        return 2;
      }
      if (r >= 0) times[r] = now_seconds() - t0;
    }
    const char *out = is_trsm ? b : c;
    double checksum = 0;
    const size_t reals = count * (p == 'c' || p == 'z' ? 2 : 1);
    for (size_t i = 0; i < reals; i += reals / 97 + 1)
      checksum += p == 's' || p == 'c' ? ((const float *)out)[i] : ((const double *)out)[i];
    qsort(times, reps, sizeof(double), compare_doubles);
    printf("small_call %s n=%d seconds=%.6f best_seconds=%.6f checksum=%.6e\n", name, n, times[reps / 2], times[0],
           checksum);
    fflush(stdout);
    free(a); free(b); free(c); free(b0); free(times);
  }
  return 0;
}
