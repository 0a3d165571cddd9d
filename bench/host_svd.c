/* A plain LAPACK client for the SVD and least squares: host arrays from malloc, ?gesdd_, ?gesvd_,
 * ?gelsd_, ?gelss_ or ?gelsy_ (d or z) from whatever LAPACK the process has (a preloaded one first,
 * else liblapack.so.3, or BENCH_LAPACK). Run it as is, under LD_PRELOAD=libcudrop.so, or with
 * CUDROP_MODE=cpu.
 * usage: cudrop-host-svd d|z m n [N|S|A] [reps] [gesdd|gesvd|gelsd|gelss|gelsy [nrhs]]
 * The job letter is gesdd's JOBZ (gesvd: JOBU = JOBVT = it); least squares ignore it (nrhs
 * right-hand sides, default 16, RCOND = -1).
 * prints the median and best seconds of reps calls (after an untimed one, each on a fresh copy of
 * the same random matrix; reps 0: the one call, timed, for the CPU LAPACK's minutes) and the residuals of a sample, so that a wrong answer cannot pass as a
 * fast one: SVD max |A(:,j) - U S V^H(:,j)| / (max|A| max(m,n) eps) over three columns j and
 * max |U^H U - I|, |V^H V - I| / (max(m,n) eps) over three pairs; least squares
 * max |A^H (B - A X)| / (max|A| (max|A| max|X| n + max|B|) m eps) on the first right-hand side. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timing.h"

typedef void dgesdd_fn(const char *, const int *, const int *, double *, const int *, double *, double *, const int *,
                       double *, const int *, double *, const int *, int *, int *, size_t);
typedef void zgesdd_fn(const char *, const int *, const int *, double *, const int *, double *, double *, const int *,
                       double *, const int *, double *, const int *, double *, int *, int *, size_t);
typedef void dgesvd_fn(const char *, const char *, const int *, const int *, double *, const int *, double *, double *,
                       const int *, double *, const int *, double *, const int *, int *, size_t, size_t);
typedef void zgesvd_fn(const char *, const char *, const int *, const int *, double *, const int *, double *, double *,
                       const int *, double *, const int *, double *, const int *, double *, int *, size_t, size_t);
typedef void dgelsd_fn(const int *, const int *, const int *, double *, const int *, double *, const int *, double *,
                       const double *, int *, double *, const int *, int *, int *);
typedef void zgelsd_fn(const int *, const int *, const int *, double *, const int *, double *, const int *, double *,
                       const double *, int *, double *, const int *, double *, int *, int *);
typedef void dgelss_fn(const int *, const int *, const int *, double *, const int *, double *, const int *, double *,
                       const double *, int *, double *, const int *, int *);
typedef void zgelss_fn(const int *, const int *, const int *, double *, const int *, double *, const int *, double *,
                       const double *, int *, double *, const int *, double *, int *);
typedef void dgelsy_fn(const int *, const int *, const int *, double *, const int *, double *, const int *, int *,
                       const double *, int *, double *, const int *, int *);
typedef void zgelsy_fn(const int *, const int *, const int *, double *, const int *, double *, const int *, int *,
                       const double *, int *, double *, const int *, double *, int *);

enum { GESDD, GESVD, GELSD, GELSS, GELSY };

struct call {
  int z, driver, m, n, nrhs, rank;
  char job;
  double *a, *s, *u, *vt, *b, *work, *rwork;
  int *iwork;
  void *fn;
};

static int run(struct call *c, int lwork) {
  int info = 0;
  const int m = c->m, n = c->n, ldb = m > n ? m : n;
  const double rcond = -1;
  const int ucols = c->job == 'A' ? m : (m < n ? m : n), vtrows = c->job == 'A' ? n : (m < n ? m : n);
  (void)ucols;
  switch (c->driver * 2 + c->z) {
    case GESDD * 2: ((dgesdd_fn *)c->fn)(&c->job, &m, &n, c->a, &m, c->s, c->u, &m, c->vt, &vtrows, c->work, &lwork,
                                         c->iwork, &info, 1); break;
    case GESDD * 2 + 1: ((zgesdd_fn *)c->fn)(&c->job, &m, &n, c->a, &m, c->s, c->u, &m, c->vt, &vtrows, c->work,
                                             &lwork, c->rwork, c->iwork, &info, 1); break;
    case GESVD * 2: ((dgesvd_fn *)c->fn)(&c->job, &c->job, &m, &n, c->a, &m, c->s, c->u, &m, c->vt, &vtrows, c->work,
                                         &lwork, &info, 1, 1); break;
    case GESVD * 2 + 1: ((zgesvd_fn *)c->fn)(&c->job, &c->job, &m, &n, c->a, &m, c->s, c->u, &m, c->vt, &vtrows,
                                             c->work, &lwork, c->rwork, &info, 1, 1); break;
    case GELSD * 2: ((dgelsd_fn *)c->fn)(&m, &n, &c->nrhs, c->a, &m, c->b, &ldb, c->s, &rcond, &c->rank, c->work,
                                         &lwork, c->iwork, &info); break;
    case GELSD * 2 + 1: ((zgelsd_fn *)c->fn)(&m, &n, &c->nrhs, c->a, &m, c->b, &ldb, c->s, &rcond, &c->rank, c->work,
                                             &lwork, c->rwork, c->iwork, &info); break;
    case GELSS * 2: ((dgelss_fn *)c->fn)(&m, &n, &c->nrhs, c->a, &m, c->b, &ldb, c->s, &rcond, &c->rank, c->work,
                                         &lwork, &info); break;
    case GELSS * 2 + 1: ((zgelss_fn *)c->fn)(&m, &n, &c->nrhs, c->a, &m, c->b, &ldb, c->s, &rcond, &c->rank, c->work,
                                             &lwork, c->rwork, &info); break;
    case GELSY * 2: ((dgelsy_fn *)c->fn)(&m, &n, &c->nrhs, c->a, &m, c->b, &ldb, c->iwork, &rcond, &c->rank, c->work,
                                         &lwork, &info); break;
    default: ((zgelsy_fn *)c->fn)(&m, &n, &c->nrhs, c->a, &m, c->b, &ldb, c->iwork, &rcond, &c->rank, c->work, &lwork,
                                  c->rwork, &info); break;
  }
  return info;
}

static unsigned long long state = 4321;
static double uniform(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(state >> 11) / 9007199254740992.0 * 2 - 1;
}

/* x (words 1 or 2) times y, or conj(x) times y. */
static void mul(const double *x, const double *y, int z, int conj_x, double *re, double *im) {
  const double xi = z ? (conj_x ? -x[1] : x[1]) : 0, yi = z ? y[1] : 0;
  *re += x[0] * y[0] - xi * yi;
  *im += x[0] * yi + xi * y[0];
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s d|z m n [N|S|A] [reps] [gesdd|gesvd|gelsd|gelss|gelsy [nrhs]]\n", argv[0]);
    return 2;
  }
  struct call c;
  memset(&c, 0, sizeof c);
  c.z = argv[1][0] == 'z';
  c.m = atoi(argv[2]);
  c.n = atoi(argv[3]);
  c.job = argc > 4 ? argv[4][0] : 'S';
  int reps = argc > 5 ? atoi(argv[5]) : 3;
  static const char *const drivers[] = {"gesdd", "gesvd", "gelsd", "gelss", "gelsy"};
  c.driver = GESDD;
  for (int d = 0; d < 5; ++d)
    if (argc > 6 && strcmp(argv[6], drivers[d]) == 0) c.driver = d;
  c.nrhs = argc > 7 ? atoi(argv[7]) : 16;
  const int m = c.m, n = c.n, z = c.z, k = m < n ? m : n, mx = m > n ? m : n, ls = c.driver >= GELSD;
  const size_t words = z ? 2 : 1;
  char name[16];
  snprintf(name, sizeof name, "%c%s_", z ? 'z' : 'd', drivers[c.driver]);
  c.fn = library_symbol(name, "BENCH_LAPACK", "liblapack.so.3");
  double *a0 = malloc((size_t)m * n * words * sizeof(double));
  for (size_t i = 0; i < (size_t)m * n * words; ++i) a0[i] = uniform();
  c.a = malloc((size_t)m * n * words * sizeof(double));
  c.s = malloc((size_t)k * sizeof(double));
  double *b0 = NULL;
  if (ls) {
    b0 = malloc((size_t)mx * c.nrhs * words * sizeof(double));
    c.b = malloc((size_t)mx * c.nrhs * words * sizeof(double));
    for (size_t i = 0; i < (size_t)mx * c.nrhs * words; ++i) b0[i] = uniform();
  } else if (c.job != 'N') {
    c.u = malloc((size_t)m * (c.job == 'A' ? m : k) * words * sizeof(double));
    c.vt = malloc((size_t)(c.job == 'A' ? n : k) * n * words * sizeof(double));
  }
  /* Workspace: the routine's own answer to a query; RWORK and IWORK as the reference's minima. */
  double size[2] = {0, 0};
  c.work = size;
  const int liwork = 8 * k + 64 * k + 3 * n + 64;
  c.iwork = calloc((size_t)liwork, sizeof(int));
  const size_t lrwork = (size_t)5 * k * k + 7 * (size_t)k + 2 * (size_t)mx * k + 64 * (size_t)k + 4096;
  c.rwork = malloc(lrwork * sizeof(double));
  memcpy(c.a, a0, (size_t)m * n * words * sizeof(double));
  if (ls) memcpy(c.b, b0, (size_t)mx * c.nrhs * words * sizeof(double));
  if (run(&c, -1) != 0) {
    fprintf(stderr, "query failed\n");
    return 1;
  }
  const int lwork = (int)size[0] + 1;
  c.work = malloc((size_t)lwork * words * sizeof(double));
  double *times = malloc(sizeof(double) * (reps + 2));
  for (int r = 0; r <= reps; ++r) {
    memcpy(c.a, a0, (size_t)m * n * words * sizeof(double));
    if (ls) memcpy(c.b, b0, (size_t)mx * c.nrhs * words * sizeof(double));
    if (c.driver == GELSY) memset(c.iwork, 0, sizeof(int) * (size_t)n);
    const double t0 = now_seconds();
    const int info = run(&c, lwork);
    times[r] = now_seconds() - t0;
    if (info != 0) {
      fprintf(stderr, "%s: info %d\n", name, info);
      return 1;
    }
  }
  if (reps == 0) {
    times[1] = times[0];
    reps = 1;
  }
  qsort(times + 1, reps, sizeof(double), compare_doubles);
  const double eps = 2.220446049250313e-16;
  double amax = 0, residual = 0, orth = 0;
  for (size_t i = 0; i < (size_t)m * n * words; ++i) amax = fabs(a0[i]) > amax ? fabs(a0[i]) : amax;
  if (!ls && c.job != 'N') {
    const int ldvt = c.job == 'A' ? n : k;
    const int cols[3] = {0, n / 2, n - 1};
    for (int q = 0; q < 3; ++q) {
      const int j = cols[q];
      for (int i = 0; i < m; ++i) {
        double re = a0[(i + (size_t)j * m) * words], im = z ? a0[(i + (size_t)j * m) * words + 1] : 0;
        for (int p = 0; p < k; ++p) {
          double ur = 0, ui = 0;
          const double one[2] = {c.s[p], 0};
          mul(c.u + (i + (size_t)p * m) * words, one, z, 0, &ur, &ui);
          const double uv[2] = {ur, ui};
          double tr = 0, ti = 0;
          mul(uv, c.vt + (p + (size_t)j * ldvt) * words, z, 0, &tr, &ti);
          re -= tr;
          im -= ti;
        }
        const double d = hypot(re, im);
        if (d > residual) residual = d;
      }
    }
    residual /= amax * mx * eps;
    const int pairs[3][2] = {{0, 0}, {0, k - 1}, {k - 1, k - 1}};
    for (int q = 0; q < 3; ++q) {
      const int p1 = pairs[q][0], p2 = pairs[q][1];
      double ur = 0, ui = 0, vr = 0, vi = 0;
      for (int i = 0; i < m; ++i)
        mul(c.u + (i + (size_t)p1 * m) * words, c.u + (i + (size_t)p2 * m) * words, z, 1, &ur, &ui);
      for (int j = 0; j < n; ++j) {
        /* rows p1, p2 of V^H: (V^H V^H^H)(p1, p2) = sum_j VT(p1, j) conj(VT(p2, j)) */
        const double *x = c.vt + (p2 + (size_t)j * ldvt) * words, *y = c.vt + (p1 + (size_t)j * ldvt) * words;
        mul(x, y, z, 1, &vr, &vi);
      }
      const double d = p1 == p2 ? 1 : 0;
      const double e = fmax(hypot(ur - d, ui), hypot(vr - d, vi));
      if (e > orth) orth = e;
    }
    orth /= mx * eps;
  }
  if (ls) {
    /* r = B - A X (first column), then A^H r. */
    const int ldb = mx;
    double xmax = 0, bmax = 0;
    for (int i = 0; i < n; ++i) xmax = fmax(xmax, hypot(c.b[(size_t)i * words], z ? c.b[(size_t)i * words + 1] : 0));
    for (int i = 0; i < m; ++i) bmax = fmax(bmax, hypot(b0[(size_t)i * words], z ? b0[(size_t)i * words + 1] : 0));
    double *r = malloc((size_t)m * 2 * sizeof(double));
    for (int i = 0; i < m; ++i) {
      double re = b0[(size_t)i * words], im = z ? b0[(size_t)i * words + 1] : 0;
      for (int j = 0; j < n; ++j) {
        double tr = 0, ti = 0;
        mul(a0 + (i + (size_t)j * m) * words, c.b + (size_t)j * words, z, 0, &tr, &ti);
        re -= tr;
        im -= ti;
      }
      r[2 * i] = re;
      r[2 * i + 1] = im;
    }
    for (int j = 0; j < n; ++j) {
      double re = 0, im = 0;
      for (int i = 0; i < m; ++i) {
        const double ri[2] = {r[2 * i], r[2 * i + 1]};
        double tr = 0, ti = 0;
        mul(a0 + (i + (size_t)j * m) * words, ri, z, 1, &tr, &ti);
        re += tr;
        im += z ? ti : 0;
      }
      residual = fmax(residual, hypot(re, im));
    }
    residual /= amax * (amax * xmax * n + bmax) * m * eps;
    free(r);
    (void)ldb;
  }
  if (ls)
    printf("%s m=%d n=%d nrhs=%d: median %.4f s best %.4f s residual %.3g rank %d\n", name, m, n, c.nrhs,
           times[1 + reps / 2], times[1], residual, c.rank);
  else
    printf("%s m=%d n=%d job=%c: median %.4f s best %.4f s residual %.3g orth %.3g s[0] %.6g s[k-1] %.6g\n", name, m,
           n, c.job, times[1 + reps / 2], times[1], residual, orth, c.s[0], c.s[k - 1]);
  return 0;
}
