/* A plain BLAS client: host arrays from malloc, ?gemm_ (s, d, c, z) from whatever BLAS the
 * process has (a preloaded one first, else libblas.so.3, found at run time so that the
 * program needs no BLAS development files to build). Run it as is (the CPU BLAS), under
 * LD_PRELOAD=libcudrop.so, or under LD_PRELOAD=libnvblas.so: the same program and data
 * measure every peer end to end.
 * usage: cudrop-host-gemm s|d|c|z n[,n...] [reps]   prints one line per size (median and best of
 * reps calls after an untimed one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_timing.h"

typedef void sgemm_fn(const char *, const char *, const int *, const int *, const int *, const float *,
                      const float *, const int *, const float *, const int *, const float *, float *,
                      const int *, size_t, size_t);
typedef void dgemm_fn(const char *, const char *, const int *, const int *, const int *, const double *,
                      const double *, const int *, const double *, const int *, const double *, double *,
                      const int *, size_t, size_t);



int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s s|d|c|z n[,n...] [reps]\n", argv[0]);
    return 2;
  }
  const char prec = argv[1][0];
  const int dbl = prec == 'd' || prec == 'z';
  /* Complex: the same arrays with twice the reals (interleaved real and imaginary parts), the
   * same routine's type with scalars of two reals (alpha = 1, beta = 0). */
  const int parts = prec == 'c' || prec == 'z' ? 2 : 1;
  const int reps = argc > 3 ? atoi(argv[3]) : 5;
  const char name[8] = {prec, 'g', 'e', 'm', 'm', '_', 0};
  sgemm_fn *sgemm_ = dbl ? NULL : (sgemm_fn *)library_symbol(name, "BENCH_BLAS", "libblas.so.3");
  dgemm_fn *dgemm_ = dbl ? (dgemm_fn *)library_symbol(name, "BENCH_BLAS", "libblas.so.3") : NULL;
  for (char *p = argv[2]; *p;) {
    const int n = atoi(p);
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
    const size_t count = (size_t)n * n * parts, es = dbl ? sizeof(double) : sizeof(float);
    char *a = malloc(count * es), *b = malloc(count * es), *c = malloc(count * es);
    if (!a || !b || !c) { fprintf(stderr, "out of memory\n"); return 2; }
    unsigned state = 12345u;
    for (size_t i = 0; i < count; ++i) {
      state = state * 1664525u + 1013904223u;
      const double va = (state >> 8) / 16777216.0 - 0.5;
      state = state * 1664525u + 1013904223u;
      const double vb = (state >> 8) / 16777216.0 - 0.5;
      if (dbl) { ((double *)a)[i] = va; ((double *)b)[i] = vb; ((double *)c)[i] = 0.25; }
      else { ((float *)a)[i] = (float)va; ((float *)b)[i] = (float)vb; ((float *)c)[i] = 0.25f; }
    }
    const int runs = reps > 0 ? reps : 1;
    double *times = malloc((size_t)runs * sizeof(double));
    if (!times) { fprintf(stderr, "out of memory\n"); return 2; }
    double checksum = 0;
    /* One untimed call first: CUDA start-up and buffer allocation happen once per process. */
    for (int r = -1; r < runs; ++r) {
      const double t0 = now_seconds();
      if (dbl) {
        const double alpha[2] = {1.0, 0.0}, beta[2] = {0.0, 0.0};
        dgemm_("N", "N", &n, &n, &n, alpha, (double *)a, &n, (double *)b, &n, beta, (double *)c, &n, 1, 1);
      } else {
        const float alpha[2] = {1.0f, 0.0f}, beta[2] = {0.0f, 0.0f};
        sgemm_("N", "N", &n, &n, &n, alpha, (float *)a, &n, (float *)b, &n, beta, (float *)c, &n, 1, 1);
      }
      if (r >= 0) times[r] = now_seconds() - t0;
    }
    for (size_t i = 0; i < count; i += count / 97 + 1) checksum += dbl ? ((double *)c)[i] : ((float *)c)[i];
    qsort(times, runs, sizeof(double), compare_doubles);
    const double t = times[runs / 2];
    /* seconds: the median call; best_seconds: the fastest (a small call's fixed cost). */
    printf("host_gemm %c n=%d seconds=%.6f best_seconds=%.6f gflops=%.2f checksum=%.6e\n", prec, n, t, times[0],
           2.0 * parts * parts * n * (double)n * n / t / 1e9, checksum);
    fflush(stdout);
    free(a); free(b); free(c); free(times);
  }
  return 0;
}
