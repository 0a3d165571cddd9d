/* A plain LAPACK client for the symmetric eigenproblem: host arrays from malloc, dsyevd_ or
 * zheevd_ (or the selected-eigenpair drivers dsyevr_/zheevr_, dsyevx_/zheevx_, or the generalized
 * dsygvd_/zhegvd_) from whatever LAPACK the process has (a preloaded one first, else
 * liblapack.so.3, or BENCH_LAPACK). Run it as is, under LD_PRELOAD=libcudrop.so, or with
 * CUDROP_MODE=cpu.
 * usage: cudrop-host-eigen d|z n [V|N] [reps] [evd|evr|evx [k] | gvd [itype]]
 * evr, evx: RANGE = 'A', or with k the k smallest eigenpairs (RANGE = 'I', IL = 1, IU = k).
 * gvd: the generalized problem of ITYPE itype (1, 2, 3; 1 when left out), B = a random symmetric
 * matrix + n I.
 * prints the median and best seconds of reps calls (after an untimed one, each on a fresh copy of
 * the same random symmetric matrix), and for V the residual max |A z - w z| / (max|A| n eps) of
 * the first eigenpair and of the last (for gvd of ITYPE 1, max |A z - w B z| / (max|A| n eps); none
 * for ITYPE 2 and 3). */
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
/* ?syevr_/?heevr_ (rwork and lrwork left out for d) and ?syevx_/?heevx_ (rwork left out for d). */
typedef void syevr_fn(const char *, const char *, const char *, const int *, double *, const int *, const double *,
                      const double *, const int *, const int *, const double *, int *, double *, double *,
                      const int *, int *, double *, const int *, int *, const int *, int *, size_t, size_t, size_t);
typedef void heevr_fn(const char *, const char *, const char *, const int *, double *, const int *, const double *,
                      const double *, const int *, const int *, const double *, int *, double *, double *,
                      const int *, int *, double *, const int *, double *, const int *, int *, const int *, int *,
                      size_t, size_t, size_t);
typedef void syevx_fn(const char *, const char *, const char *, const int *, double *, const int *, const double *,
                      const double *, const int *, const int *, const double *, int *, double *, double *,
                      const int *, double *, const int *, int *, int *, int *, size_t, size_t, size_t);
typedef void heevx_fn(const char *, const char *, const char *, const int *, double *, const int *, const double *,
                      const double *, const int *, const int *, const double *, int *, double *, double *,
                      const int *, double *, const int *, double *, int *, int *, int *, size_t, size_t, size_t);

/* One driver's call, its workspace lengths -1 for a query. */
struct call {
  int z, driver; /* driver: 0 evd, 1 evr, 2 evx, 3 gvd */
  char jobz, range;
  int n, il, iu, m;
  double *a, *w, *zv, *work, *rwork;
  int *iwork, *support;
  int itype; /* gvd's, with B */
  double *b;
};
static int run(void *fn, struct call *c, int lwork, int lrwork, int liwork) {
  const char uplo = 'L';
  const double vl = 0, vu = 0, abstol = 0;
  int info = 0;
  if (c->driver == 3 && c->z)
    ((hegvd_fn *)fn)(&c->itype, &c->jobz, &uplo, &c->n, c->a, &c->n, c->b, &c->n, c->w, c->work, &lwork, c->rwork,
                     &lrwork, c->iwork, &liwork, &info, 1, 1);
  else if (c->driver == 3)
    ((sygvd_fn *)fn)(&c->itype, &c->jobz, &uplo, &c->n, c->a, &c->n, c->b, &c->n, c->w, c->work, &lwork, c->iwork,
                     &liwork, &info, 1, 1);
  else if (c->driver == 0 && c->z)
    ((heevd_fn *)fn)(&c->jobz, &uplo, &c->n, c->a, &c->n, c->w, c->work, &lwork, c->rwork, &lrwork, c->iwork, &liwork,
                     &info, 1, 1);
  else if (c->driver == 0)
    ((syevd_fn *)fn)(&c->jobz, &uplo, &c->n, c->a, &c->n, c->w, c->work, &lwork, c->iwork, &liwork, &info, 1, 1);
  else if (c->driver == 1 && c->z)
    ((heevr_fn *)fn)(&c->jobz, &c->range, &uplo, &c->n, c->a, &c->n, &vl, &vu, &c->il, &c->iu, &abstol, &c->m, c->w,
                     c->zv, &c->n, c->support, c->work, &lwork, c->rwork, &lrwork, c->iwork, &liwork, &info, 1, 1, 1);
  else if (c->driver == 1)
    ((syevr_fn *)fn)(&c->jobz, &c->range, &uplo, &c->n, c->a, &c->n, &vl, &vu, &c->il, &c->iu, &abstol, &c->m, c->w,
                     c->zv, &c->n, c->support, c->work, &lwork, c->iwork, &liwork, &info, 1, 1, 1);
  else if (c->z)
    ((heevx_fn *)fn)(&c->jobz, &c->range, &uplo, &c->n, c->a, &c->n, &vl, &vu, &c->il, &c->iu, &abstol, &c->m, c->w,
                     c->zv, &c->n, c->work, &lwork, c->rwork, c->iwork, c->support, &info, 1, 1, 1);
  else
    ((syevx_fn *)fn)(&c->jobz, &c->range, &uplo, &c->n, c->a, &c->n, &vl, &vu, &c->il, &c->iu, &abstol, &c->m, c->w,
                     c->zv, &c->n, c->work, &lwork, c->iwork, c->support, &info, 1, 1, 1);
  return info;
}


static unsigned long long state = 4321;
static double uniform(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(state >> 11) / 9007199254740992.0 * 2 - 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s d|z n [V|N] [reps] [evd|evr|evx [k] | gvd [itype]]\n", argv[0]);
    return 2;
  }
  const int z = argv[1][0] == 'z', n = atoi(argv[2]);
  const char jobz = argc > 3 ? argv[3][0] : 'V';
  const int reps = argc > 4 ? atoi(argv[4]) : 3;
  const char *const driver_arg = argc > 5 ? argv[5] : "evd";
  const int driver = strcmp(driver_arg, "evr") == 0 ? 1 : strcmp(driver_arg, "evx") == 0 ? 2
                     : strcmp(driver_arg, "gvd") == 0 ? 3 : 0;
  const int k = driver != 3 && argc > 6 ? atoi(argv[6]) : 0;
  const int itype = driver != 3 ? 0 : argc > 6 ? atoi(argv[6]) : 1;
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
  static const char *const names[2][4] = {{"dsyevd_", "dsyevr_", "dsyevx_", "dsygvd_"},
                                          {"zheevd_", "zheevr_", "zheevx_", "zhegvd_"}};
  const char *name = names[z][driver];
  void *fn = library_symbol(name, "BENCH_LAPACK", "liblapack.so.3");
  /* The eigenvectors: in A for evd and gvd, in their own n x n array (ld n) for evr and evx. */
  double *zv = driver == 0 || driver == 3 ? a : malloc((size_t)n * n * words * sizeof(double));
  int *support = malloc(sizeof(int) * 2 * (size_t)(n > 0 ? n : 1));
  double size[2] = {0, 0}, rsize = 0;
  int isize = 0;
  struct call c = {z, driver, jobz, k > 0 ? 'I' : 'A', n, 1, k > 0 ? k : n, 0, a, w, zv, size, &rsize, &isize,
                   support, itype, b};
  run(fn, &c, -1, -1, -1);
  int lwork = (int)size[0], lrwork = (int)rsize > 1 ? (int)rsize : 1, liwork = isize > 1 ? isize : 1;
  if (driver == 2) lrwork = 7 * n, liwork = 5 * n; /* xSYEVX's are not asked for */
  c.work = malloc((size_t)lwork * words * sizeof(double));
  c.rwork = malloc((size_t)lrwork * sizeof(double));
  c.iwork = malloc((size_t)liwork * sizeof(int));
  double *times = malloc(sizeof(double) * (reps + 1));
  for (int r = 0; r <= reps; ++r) {
    memcpy(a, a0, (size_t)n * n * words * sizeof(double));
    memcpy(b, b0, (size_t)n * n * words * sizeof(double));
    const double t0 = now_seconds();
    const int info = run(fn, &c, lwork, lrwork, liwork);
    times[r] = now_seconds() - t0;
    if (info != 0) {
      fprintf(stderr, "info %d\n", info);
      return 1;
    }
  }
  const int m = driver == 0 || driver == 3 ? n : c.m;
  qsort(times + 1, reps, sizeof(double), compare_doubles);
  double residual = 0, amax = 0;
  for (size_t i = 0; i < (size_t)n * n * words; ++i) amax = fabs(a0[i]) > amax ? fabs(a0[i]) : amax;
  if (jobz == 'V' && m > 0 && itype <= 1)
    for (int end = 0; end < 2; ++end) {
      const int col = end == 0 ? 0 : m - 1;
      for (int i = 0; i < n; ++i) {
        double re = 0, im = 0;
        for (int p = 0; p < n; ++p) {
          const double *x = a0 + (i + (size_t)p * n) * words, *v = zv + (p + (size_t)col * n) * words;
          re += x[0] * v[0] - (z ? x[1] * v[1] : 0);
          im += z ? x[0] * v[1] + x[1] * v[0] : 0;
        }
        /* w B v (B v: v itself for the standard problem). */
        double bre = 0, bim = 0;
        for (int p = 0; p < n; ++p) {
          const double *x = itype ? b0 + (i + (size_t)p * n) * words : 0, *v = zv + (p + (size_t)col * n) * words;
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
  printf("%s n=%d jobz=%c m=%d itype=%d: median %.4f s best %.4f s residual %.3g w[0] %.6g w[m-1] %.6g\n", name, n,
         jobz, m, itype, times[1 + reps / 2], times[1], residual, w[0], w[m > 0 ? m - 1 : 0]);
  return 0;
}
