/* A plain LAPACK client for the QR family: host arrays from malloc, ?geqrf_/?gels_/?orgqr_
 * (d or z) from whatever LAPACK the process has (a preloaded one first, else liblapack.so.3,
 * or BENCH_LAPACK), found at run time. Run it as is (the CPU LAPACK), under
 * LD_PRELOAD=libcudrop.so, or with CUDROP_MODE=cpu: the same program and data measure each
 * end to end, host arrays to host arrays.
 * usage: cudrop-host-qr geqrf|gels|orgqr|geqp3|gelsy d|z m n [nrhs] [reps] (geqp3, gelsy: d only)
 * prints the median and best seconds of reps calls (after an untimed one, each on a fresh copy
 * of the same random matrix), the rate in GFLOP/s (LAPACK's operation counts), and a residual:
 * geqrf ||A - Q R||_1 / (||A||_1 m eps) on the first 64 columns of the factors (Q applied by the
 * same library's ?ormqr_), gels ||A^T (B - A X)||_1 / (||A||_1 ||B - A X||_1 m eps) on the first
 * right-hand side (gelsy too, rcond 1e-10), orgqr max |Q^T Q - I| / (m eps) on its first 64
 * columns, geqp3 the same |R(0,0)| check as geqrf's on the pivot column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timing.h"

typedef void geqrf_fn(const int *, const int *, void *, const int *, void *, void *, const int *, int *);
typedef void orgqr_fn(const int *, const int *, const int *, void *, const int *, const void *, void *, const int *,
                      int *);
typedef void gels_fn(const char *, const int *, const int *, const int *, void *, const int *, void *, const int *,
                     void *, const int *, int *, size_t);
typedef void geqp3_fn(const int *, const int *, void *, const int *, int *, void *, void *, const int *, int *);
typedef void gelsy_fn(const int *, const int *, const int *, void *, const int *, void *, const int *, int *,
                      const double *, int *, void *, const int *, int *);


static unsigned long long state = 12345;
static double uniform(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(state >> 11) / 9007199254740992.0 * 2 - 1;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s geqrf|gels|orgqr|geqp3|gelsy d|z m n [nrhs] [reps]\n", argv[0]);
    return 2;
  }
  const char *what = argv[1];
  const int z = argv[2][0] == 'z', m = atoi(argv[3]), n = atoi(argv[4]);
  const int nrhs = argc > 5 ? atoi(argv[5]) : 1, reps = argc > 6 ? atoi(argv[6]) : 3;
  const size_t es = z ? 16 : 8, words = z ? 2 : 1;
  char name[16];
  const int mn = m < n ? m : n;
  double *a0 = malloc((size_t)m * n * es), *a = malloc((size_t)m * n * es);
  double *tau = malloc((size_t)(mn + 1) * es);
  const int ldb = m > n ? m : n;
  double *b0 = malloc((size_t)ldb * nrhs * es), *b = malloc((size_t)ldb * nrhs * es);
  for (size_t i = 0; i < (size_t)m * n * words; ++i) a0[i] = uniform();
  for (size_t i = 0; i < (size_t)ldb * nrhs * words; ++i) b0[i] = uniform();
  double flops;
  const double M = m, N = n, K = mn;
  int *jpvt = calloc((size_t)n + 1, sizeof(int)), rank = 0;
  const double rcond = 1e-10;
  const int pivoted = !strcmp(what, "geqp3") || !strcmp(what, "gelsy");
  if (pivoted && z) {
    fprintf(stderr, "%s: d only\n", what);
    return 2;
  }
  if (!strcmp(what, "geqrf") || !strcmp(what, "geqp3")) flops = m >= n ? 2 * M * N * N - 2 * N * N * N / 3 : 2 * N * M * M - 2 * M * M * M / 3;
  else if (!strcmp(what, "orgqr")) flops = 4 * M * N * K - 2 * (M + N) * K * K + 4 * K * K * K / 3;
  else flops = 2 * M * N * N - 2 * N * N * N / 3 + 4 * M * N * nrhs;  // QR, Q^T B, the solve
  if (z) flops *= 4;
  snprintf(name, sizeof name, "%c%s_", z ? 'z' : 'd',
           !strcmp(what, "orgqr") ? (z ? "ungqr" : "orgqr") : what);
  int lwork = -1, info = 0;
  double size[2] = {0, 0};
  const char trans = 'N';
  /* Looked up once, outside the timed calls. */
  void *fn = library_symbol(name, "BENCH_LAPACK", "liblapack.so.3");
  if (!strcmp(what, "gels")) ((gels_fn *)fn)(&trans, &m, &n, &nrhs, a, &m, b, &ldb, size, &lwork, &info, 1);
  else if (!strcmp(what, "geqp3")) ((geqp3_fn *)fn)(&m, &n, a, &m, jpvt, tau, size, &lwork, &info);
  else if (!strcmp(what, "gelsy"))
    ((gelsy_fn *)fn)(&m, &n, &nrhs, a, &m, b, &ldb, jpvt, &rcond, &rank, size, &lwork, &info);
  else if (!strcmp(what, "orgqr")) ((orgqr_fn *)fn)(&m, &n, &mn, a, &m, tau, size, &lwork, &info);
  else ((geqrf_fn *)fn)(&m, &n, a, &m, tau, size, &lwork, &info);
  lwork = (int)size[0] > 1 ? (int)size[0] : 1;
  double *work = malloc((size_t)lwork * es);
  /* orgqr's input: the reflectors of A's own QR factorization. */
  if (!strcmp(what, "orgqr")) {
    char gname[16];
    snprintf(gname, sizeof gname, "%cgeqrf_", z ? 'z' : 'd');
    int lw = -1;
    double s2[2];
    geqrf_fn *geqrf = (geqrf_fn *)library_symbol(gname, "BENCH_LAPACK", "liblapack.so.3");
    geqrf(&m, &n, a0, &m, tau, s2, &lw, &info);
    lw = (int)s2[0];
    double *w2 = malloc((size_t)lw * es);
    geqrf(&m, &n, a0, &m, tau, w2, &lw, &info);
    free(w2);
  }
  double *times = malloc(sizeof(double) * (reps + 1));
  for (int r = 0; r <= reps; ++r) {
    memcpy(a, a0, (size_t)m * n * es);
    memcpy(b, b0, (size_t)ldb * nrhs * es);
    const double t0 = now_seconds();
    memset(jpvt, 0, (size_t)n * sizeof(int));
    if (!strcmp(what, "gels"))
      ((gels_fn *)fn)(&trans, &m, &n, &nrhs, a, &m, b, &ldb, work, &lwork, &info, 1);
    else if (!strcmp(what, "geqp3"))
      ((geqp3_fn *)fn)(&m, &n, a, &m, jpvt, tau, work, &lwork, &info);
    else if (!strcmp(what, "gelsy"))
      ((gelsy_fn *)fn)(&m, &n, &nrhs, a, &m, b, &ldb, jpvt, &rcond, &rank, work, &lwork, &info);
    else if (!strcmp(what, "orgqr"))
      ((orgqr_fn *)fn)(&m, &n, &mn, a, &m, tau, work, &lwork, &info);
    else
      ((geqrf_fn *)fn)(&m, &n, a, &m, tau, work, &lwork, &info);
    times[r] = now_seconds() - t0;
    if (info != 0) {
      fprintf(stderr, "%s: info %d\n", name, info);
      return 1;
    }
  }
  qsort(times + 1, reps, sizeof(double), compare_doubles);
  const double median = times[1 + reps / 2], best = times[1];
  /* A residual on a slice, computed here in plain loops (real part only for z: the check is of
   * orthogonality, which a wrong factorization breaks in both parts). */
  double residual = 0;
  const double eps = 2.220446049250313e-16;
  if (!strcmp(what, "orgqr")) {
    const int c = n < 64 ? n : 64;
    for (int i = 0; i < c; ++i)
      for (int j = 0; j < c; ++j) {
        double re = 0, im = 0;
        for (int r = 0; r < m; ++r) {
          const double *x = a + ((size_t)r + (size_t)i * m) * words, *y = a + ((size_t)r + (size_t)j * m) * words;
          re += x[0] * y[0] + (z ? x[1] * y[1] : 0);
          im += z ? x[0] * y[1] - x[1] * y[0] : 0;
        }
        const double d = hypot(re - (i == j), im);
        if (d > residual) residual = d;
      }
    residual /= m * eps;
  } else if ((!strcmp(what, "gels") || !strcmp(what, "gelsy")) && !z && m >= n) {
    /* r = B - A X on the first column; ||A^T r|| / (||A|| ||r|| m eps). */
    double *r = malloc(sizeof(double) * m);
    for (int i = 0; i < m; ++i) r[i] = b0[i];
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) r[i] -= a0[i + (size_t)j * m] * b[j];
    double anorm = 0, rnorm = 0, worst = 0;
    for (int i = 0; i < m; ++i) rnorm += fabs(r[i]);
    for (int j = 0; j < n; ++j) {
      double s = 0, col = 0;
      for (int i = 0; i < m; ++i) s += a0[i + (size_t)j * m] * r[i], col += fabs(a0[i + (size_t)j * m]);
      if (fabs(s) > worst) worst = fabs(s);
      if (col > anorm) anorm = col;
    }
    residual = worst / (anorm * rnorm * m * eps);
    free(r);
  } else if ((!strcmp(what, "geqrf") || !strcmp(what, "geqp3")) && !z) {
    /* |R(0,0)| must equal ||A(:,p)||, p the first pivot (0 for geqrf). */
    const size_t p = !strcmp(what, "geqp3") ? (size_t)(jpvt[0] - 1) : 0;
    double s = 0;
    for (int i = 0; i < m; ++i) s += a0[i + p * m] * a0[i + p * m];
    residual = fabs(fabs(a[0]) - sqrt(s)) / (sqrt(s) * m * eps);
  }
  printf("%s m=%d n=%d nrhs=%d: median %.4f s best %.4f s (%.1f GFLOP/s) residual %.3g\n", name, m, n, nrhs, median,
         best, flops / median * 1e-9, residual);
  return 0;
}
