/* A plain LAPACK client for the symmetric eigenproblem: host arrays from malloc, dsyevd_ or
 * zheevd_ from whatever LAPACK the process has (a preloaded one first, else liblapack.so.3, or
 * BENCH_LAPACK). Run it as is, under LD_PRELOAD=libcudrop.so, or with CUDROP_MODE=cpu.
 * usage: cudrop-host-eigen d|z n [V|N] [reps] [itype]
 * prints the median and best seconds of reps calls (after an untimed one, each on a fresh copy of
 * the same random symmetric matrix), and for V the residual max |A z - w z| / (max|A| n eps) of
 * the first eigenpair and of the last. With itype (1, 2, 3): the generalized problem by
 * dsygvd_/zhegvd_, B = a random symmetric matrix + n I, and for V (itype 1) the residual
 * max |A z - w B z| / (max|A| n eps). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timing.h"

typedef void syevd_fn(const char *, const char *, const int *, double *, const int *, double *, double *,
                      const int *, int *, const int *, int *, size_t, size_t);
typedef void heevd_fn(const char *, const char *, const int *, double *, const int *, double *, double *,
                      const int *, double *, const int *, int *, const int *, int *, size_t, size_t);
typedef void sygvd_fn(const int *, const char *, const char *, const int *, double *, const int *, double *,
                      const int *, double *, double *, const int *, int *, const int *, int *, size_t, size_t);
typedef void hegvd_fn(const int *, const char *, const char *, const int *, double *, const int *, double *,
                      const int *, double *, double *, const int *, double *, const int *, int *, const int *, int *,
                      size_t, size_t);


static unsigned long long state = 4321;
static double uniform(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(state >> 11) / 9007199254740992.0 * 2 - 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s d|z n [V|N] [reps]\n", argv[0]);
    return 2;
  }
  const int z = argv[1][0] == 'z', n = atoi(argv[2]);
  const char jobz = argc > 3 ? argv[3][0] : 'V', uplo = 'L';
  const int reps = argc > 4 ? atoi(argv[4]) : 3, itype = argc > 5 ? atoi(argv[5]) : 0;
  const size_t words = z ? 2 : 1;
  double *a0 = malloc((size_t)n * n * words * sizeof(double)), *a = malloc((size_t)n * n * words * sizeof(double));
  double *b0 = malloc((size_t)n * n * words * sizeof(double)), *b = malloc((size_t)n * n * words * sizeof(double));
  double *w = malloc((size_t)n * sizeof(double));
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i)
      for (size_t p = 0; p < words; ++p) {
        const double v = (i == j && p == 1) ? 0 : uniform();
        a0[(i + (size_t)j * n) * words + p] = v;
        a0[(j + (size_t)i * n) * words + p] = p == 1 ? -v : v;
        const double u = (i == j && p == 1) ? 0 : uniform() / 2 + (i == j && p == 0 ? n : 0);
        b0[(i + (size_t)j * n) * words + p] = u;
        b0[(j + (size_t)i * n) * words + p] = p == 1 ? -u : u;
      }
  const char *name = itype ? (z ? "zhegvd_" : "dsygvd_") : (z ? "zheevd_" : "dsyevd_");
  int lwork = -1, lrwork = -1, liwork = -1, info = 0, isize = 0;
  double size[2] = {0, 0}, rsize = 0;
  void *fn = library_symbol(name, "BENCH_LAPACK", "liblapack.so.3");
  if (itype && z)
    ((hegvd_fn *)fn)(&itype, &jobz, &uplo, &n, a, &n, b, &n, w, size, &lwork, &rsize, &lrwork, &isize, &liwork, &info,
                     1, 1);
  else if (itype) ((sygvd_fn *)fn)(&itype, &jobz, &uplo, &n, a, &n, b, &n, w, size, &lwork, &isize, &liwork, &info, 1, 1);
  else if (z) ((heevd_fn *)fn)(&jobz, &uplo, &n, a, &n, w, size, &lwork, &rsize, &lrwork, &isize, &liwork, &info, 1, 1);
  else ((syevd_fn *)fn)(&jobz, &uplo, &n, a, &n, w, size, &lwork, &isize, &liwork, &info, 1, 1);
  lwork = (int)size[0];
  lrwork = (int)rsize > 1 ? (int)rsize : 1;
  liwork = isize;
  double *work = malloc((size_t)lwork * words * sizeof(double)), *rwork = malloc((size_t)lrwork * sizeof(double));
  int *iwork = malloc((size_t)liwork * sizeof(int));
  double *times = malloc(sizeof(double) * (reps + 1));
  for (int r = 0; r <= reps; ++r) {
    memcpy(a, a0, (size_t)n * n * words * sizeof(double));
    memcpy(b, b0, (size_t)n * n * words * sizeof(double));
    const double t0 = now_seconds();
    if (itype && z)
      ((hegvd_fn *)fn)(&itype, &jobz, &uplo, &n, a, &n, b, &n, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info,
                       1, 1);
    else if (itype)
      ((sygvd_fn *)fn)(&itype, &jobz, &uplo, &n, a, &n, b, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    else if (z) ((heevd_fn *)fn)(&jobz, &uplo, &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1, 1);
    else ((syevd_fn *)fn)(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    times[r] = now_seconds() - t0;
    if (info != 0) {
      fprintf(stderr, "info %d\n", info);
      return 1;
    }
  }
  qsort(times + 1, reps, sizeof(double), compare_doubles);
  double residual = 0, amax = 0;
  for (size_t i = 0; i < (size_t)n * n * words; ++i) amax = fabs(a0[i]) > amax ? fabs(a0[i]) : amax;
  if (jobz == 'V' && itype <= 1)
    for (int k = 0; k < 2; ++k) {
      const int col = k == 0 ? 0 : n - 1;
      for (int i = 0; i < n; ++i) {
        double re = 0, im = 0;
        for (int p = 0; p < n; ++p) {
          const double *x = a0 + (i + (size_t)p * n) * words, *v = a + (p + (size_t)col * n) * words;
          re += x[0] * v[0] - (z ? x[1] * v[1] : 0);
          im += z ? x[0] * v[1] + x[1] * v[0] : 0;
        }
        /* w B v (B v: v itself for the standard problem). */
        double bre = 0, bim = 0;
        for (int p = 0; p < n; ++p) {
          const double *x = itype ? b0 + (i + (size_t)p * n) * words : 0, *v = a + (p + (size_t)col * n) * words;
          if (!itype && p != i) continue;
          const double xr = itype ? x[0] : 1, xi = itype && z ? x[1] : 0;
          bre += xr * v[0] - (z ? xi * v[1] : 0);
          bim += z ? xr * v[1] + xi * v[0] : 0;
        }
        re -= w[col] * bre;
        im -= w[col] * bim;
        const double d = hypot(re, im);
        if (d > residual) residual = d;
      }
    }
  residual /= amax * n * 2.220446049250313e-16;
  printf("%s n=%d jobz=%c itype=%d: median %.4f s best %.4f s residual %.3g w[0] %.6g w[n-1] %.6g\n", name, n, jobz,
         itype, times[1 + reps / 2], times[1], residual, w[0], w[n - 1]);
  return 0;
}
