/* The CPU side of the seeds experiments (bench/cudrop-bench --seeds, docs/seeds.md): the plain,
 * single-threaded loops cudrop's GPU routines were first measured against. Plain C, built at -O2
 * (bench/CMakeLists.txt), no BLAS.
 *
 *   cudrop-seeds-cpu naive s|d N COLS REPS
 *     C = A B, N x N, column-major, by the i-j-l triple loop (C(i,j) = sum_l A(i,l) B(l,j)), on
 *     C's first COLS columns (COLS = N: the whole product). Median of REPS timed runs after one
 *     warm-up; the full product's time is the slice's times N / COLS (extrapolated=1 when
 *     COLS < N: every column costs the same, the loops do identical work per column).
 *   cudrop-seeds-cpu power s|d ROWS PER_ROW TOL MAXIT
 *     The power method of docs/power.md (start vector ones, the same stopping rule and tie rule
 *     as cudrop's) on bench/seeds_matrix.h's CSR matrix, a CSR mat-vec row by row: time,
 *     iterations, eigenvalue. Median of 3 runs when the matrix has at most 2e7 entries, else one.
 * One key=value line per measurement, starting with seeds_naive / seeds_power. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timing.h"
#include "seeds_matrix.h"

static double median_of(double *t, int count) {
  qsort(t, (size_t)count, sizeof(double), compare_doubles);
  return t[count / 2];
}

/* The loops, once per element type (T, NAME). */
#define SEEDS_NAIVE(T, NAME)                                                           \
  static void NAME(int n, int cols, const T *a, const T *b, T *c) {                    \
    int i, j, l;                                                                       \
    for (i = 0; i < n; ++i)                                                            \
      for (j = 0; j < cols; ++j) {                                                     \
        T sum = 0;                                                                     \
        for (l = 0; l < n; ++l) sum += a[i + (size_t)l * n] * b[l + (size_t)j * n];    \
        c[i + (size_t)j * n] = sum;                                                    \
      }                                                                                \
  }
SEEDS_NAIVE(float, naive_s)
SEEDS_NAIVE(double, naive_d)

/* docs/power.md's iteration: y = A x; p = first index of the largest |y_i| (a NaN counts as
 * largest); lambda = y_p; 0 -> INFO 2, Inf/NaN -> INFO 3; x = y / lambda; converged when every
 * |x_new_i - x_i| < tol. */
#define SEEDS_POWER(T, NAME)                                                                          \
  static int NAME(int n, const int *rowptr, const int *colind, const T *val, T tol, int maxit,       \
                  T *x, T *y, T *lambda, int *info) {                                                 \
    int i, k;                                                                                         \
    for (i = 0; i < n; ++i) x[i] = 1;                                                                 \
    *lambda = 0;                                                                                      \
    *info = 1;                                                                                        \
    for (k = 1; k <= maxit; ++k) {                                                                    \
      int p = 0, converged = 1;                                                                       \
      T big = -1;                                                                                     \
      for (i = 0; i < n; ++i) {                                                                       \
        T s = 0;                                                                                      \
        int e;                                                                                        \
        for (e = rowptr[i]; e < rowptr[i + 1]; ++e) s += val[e] * x[colind[e]];                       \
        y[i] = s;                                                                                     \
        if (fabs((double)s) > big || (s != s && big == big)) { big = s != s ? (T)NAN : (T)fabs(s); p = i; } \
      }                                                                                               \
      *lambda = y[p];                                                                                 \
      if (*lambda == 0) { *info = 2; return k; }                                                      \
      if (isinf((double)*lambda) || isnan((double)*lambda)) { *info = 3; return k; }                  \
      for (i = 0; i < n; ++i) {                                                                       \
        const T v = y[i] / *lambda;                                                                   \
        if (!(fabs((double)(v - x[i])) < (double)tol)) converged = 0;                                 \
        x[i] = v;                                                                                     \
      }                                                                                               \
      if (converged) { *info = 0; return k; }                                                         \
    }                                                                                                 \
    return maxit;                                                                                     \
  }
SEEDS_POWER(float, power_s)
SEEDS_POWER(double, power_d)

static int run_naive(int dbl, int n, int cols, int reps) {
  const size_t es = dbl ? sizeof(double) : sizeof(float), count = (size_t)n * n;
  char *a = malloc(count * es), *b = malloc(count * es), *c = malloc((size_t)n * cols * es);
  double times[64], checksum = 0, t;
  size_t i;
  int r, runs = reps < 1 ? 1 : reps > 64 ? 64 : reps;
  uint64_t state = 12345u;
  if (!a || !b || !c) { fprintf(stderr, "out of memory\n"); return 2; }
  for (i = 0; i < count; ++i) {  /* uniform in [-0.5, 0.5), never all zero */
    const double va = (double)(seeds_next(&state) >> 11) / 9007199254740992.0 - 0.5;
    const double vb = (double)(seeds_next(&state) >> 11) / 9007199254740992.0 - 0.5;
    if (dbl) { ((double *)a)[i] = va; ((double *)b)[i] = vb; }
    else { ((float *)a)[i] = (float)va; ((float *)b)[i] = (float)vb; }
  }
  for (r = -1; r < runs; ++r) {
    const double t0 = now_seconds();
    if (dbl) naive_d(n, cols, (double *)a, (double *)b, (double *)c);
    else naive_s(n, cols, (float *)a, (float *)b, (float *)c);
    if (r >= 0) times[r] = now_seconds() - t0;
    if (r < 0 && cols == n && n >= 2048) runs = 1;  /* the whole product: one timed run is minutes */
  }
  for (i = 0; i < (size_t)n * cols; i += (size_t)n * cols / 97 + 1) checksum += dbl ? ((double *)c)[i] : ((float *)c)[i];
  t = median_of(times, runs);
  {
    const double full = t * n / cols;
    printf("seeds_naive %c n=%d cols=%d reps=%d slice_seconds=%.6f seconds=%.6f gflops=%.3f extrapolated=%d "
           "checksum=%.6e\n", dbl ? 'd' : 's', n, cols, runs, t, full, 2.0 * n * (double)n * n / full / 1e9,
           cols < n, checksum);
  }
  free(a); free(b); free(c);
  return 0;
}

static int run_power(int dbl, int rows, int per_row, double tol, int maxit) {
  const long long nnz = (long long)rows * per_row;
  int *rowptr = malloc(((size_t)rows + 1) * sizeof(int)), *colind = malloc((size_t)nnz * sizeof(int));
  double *val = malloc((size_t)nnz * sizeof(double));
  float *fval = dbl ? NULL : malloc((size_t)nnz * sizeof(float));
  void *x = malloc((size_t)rows * sizeof(double)), *y = malloc((size_t)rows * sizeof(double));
  double times[3], lambda = 0, t0;
  int runs = nnz <= 20000000LL ? 3 : 1, r, iters = 0, info = 0;
  long long e;
  if (!rowptr || !colind || !val || !x || !y || (!dbl && !fval)) { fprintf(stderr, "out of memory\n"); return 2; }
  seeds_csr(rows, per_row, rowptr, colind, val);
  if (!dbl)
    for (e = 0; e < nnz; ++e) fval[e] = (float)val[e];
  for (r = 0; r < runs; ++r) {
    t0 = now_seconds();
    if (dbl) {
      iters = power_d(rows, rowptr, colind, val, tol, maxit, x, y, &lambda, &info);
    } else {
      float l = 0;
      iters = power_s(rows, rowptr, colind, fval, (float)tol, maxit, x, y, &l, &info);
      lambda = l;
    }
    times[r] = now_seconds() - t0;
  }
  printf("seeds_power %c rows=%d per_row=%d nnz=%lld impl=cpu reps=%d ms=%.3f iters=%d lambda=%.12e info=%d\n",
         dbl ? 'd' : 's', rows, per_row, nnz, runs, median_of(times, runs) * 1e3, iters, lambda, info);
  free(rowptr); free(colind); free(val); free(fval); free(x); free(y);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 6 && strcmp(argv[1], "naive") == 0 && atoi(argv[3]) > 0 && atoi(argv[4]) > 0) {
    const int n = atoi(argv[3]), cols = atoi(argv[4]) < n ? atoi(argv[4]) : n;
    return run_naive(argv[2][0] == 'd', n, cols, atoi(argv[5]));
  }
  if (argc >= 7 && strcmp(argv[1], "power") == 0 && atoi(argv[3]) > 0 && atoi(argv[4]) > 0)
    return run_power(argv[2][0] == 'd', atoi(argv[3]), atoi(argv[4]), atof(argv[5]), atoi(argv[6]));
  fprintf(stderr, "usage: %s naive s|d N COLS REPS\n       %s power s|d ROWS PER_ROW TOL MAXIT\n", argv[0], argv[0]);
  return 2;
}
