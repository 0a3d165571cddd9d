/* forward_probe: calls through the complete library's forwarders (tests/abi/forward.sh builds it
 * against libcudrop_full alone, against the reference BLAS/LAPACK, and against -lblas -llapack
 * for cudrop standing in as those libraries).
 *   values   forwarded ddot_, dnrm2_, drotg_, idamax_, cblas_ddot, dgeqrf_, dgesv_ (which calls
 *            the accelerated dgetrf_ back) and the accelerated dgemm_, small: each result's bits
 *            as %a (compared across builds by the script), then a self-check with tolerances
 *            ("forward_probe: OK", else exit 1).
 *   xerbla   the variadic cblas_xerbla with an int, a double (in %xmm0, %al = 1) and a string:
 *            the reference prints both lines on stderr and exits -1.
 *   illegal  dtrsv_ with UPLO = 'X': the reference XERBLA's text, STOP (exit 0). */
#include <math.h>
#include <stdio.h>
#include <string.h>

double ddot_(const int *, const double *, const int *, const double *, const int *);
double dnrm2_(const int *, const double *, const int *);
void drotg_(double *, double *, double *, double *);
int idamax_(const int *, const double *, const int *);
double cblas_ddot(int, const double *, int, const double *, int);
void cblas_xerbla(int, const char *, const char *, ...);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void dtrsv_(const char *, const char *, const char *, const int *, const double *, const int *, double *,
            const int *, size_t, size_t, size_t);

static int failures = 0;
static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    printf("WRONG %s: %.17g, want %.17g\n", what, got, want);
    ++failures;
  }
}

static int values(void) {
  enum { N = 5 };
  const int n = N, one = 1;
  double x[N], y[N], a[N * N], a0[N * N], b[N], xs[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.5 + i * 0.25;
    y[i] = 1.0 / (i + 2);
    xs[i] = 1.0 + i;
    for (int j = 0; j < N; ++j) a[i + j * N] = a0[i + j * N] = (i == j ? 6.0 : 0.0) + sin(1.0 + i + 3.0 * j);
  }
  double want_dot = 0;
  for (int i = 0; i < N; ++i) want_dot += x[i] * y[i];

  const double dot = ddot_(&n, x, &one, y, &one);
  printf("ddot_ %a\n", dot);
  check("ddot_", dot, want_dot, 1e-14);
  const double nrm = dnrm2_(&n, x, &one);
  printf("dnrm2_ %a\n", nrm);
  check("dnrm2_", nrm, sqrt(ddot_(&n, x, &one, x, &one)), 1e-14);
  double ra = 3, rb = 4, c, s;
  drotg_(&ra, &rb, &c, &s);
  printf("drotg_ %a %a %a %a\n", ra, rb, c, s);
  check("drotg_ r", ra, 5, 1e-15);
  const int imax = idamax_(&n, x, &one);
  printf("idamax_ %d\n", imax);
  check("idamax_", imax, N, 0);
  const double cdot = cblas_ddot(N, x, 1, y, 1);
  printf("cblas_ddot %a\n", cdot);
  check("cblas_ddot", cdot, want_dot, 1e-14);

  double gemm_c[N * N];
  const double alpha = 1, beta = 0;
  dgemm_("N", "N", &n, &n, &n, &alpha, a, &n, a, &n, &beta, gemm_c, &n, 1, 1);
  printf("dgemm_ %a %a\n", gemm_c[0], gemm_c[N * N - 1]);
  double want_c0 = 0;
  for (int k = 0; k < N; ++k) want_c0 += a[k * N] * a[k];
  check("dgemm_", gemm_c[0], want_c0, 1e-14);

  double tau[N], work[64 * N];
  const int lwork = 64 * N;
  int info = -1;
  dgeqrf_(&n, &n, a, &n, tau, work, &lwork, &info);
  printf("dgeqrf_ info %d r11 %a r55 %a tau1 %a\n", info, a[0], a[N * N - 1], tau[0]);
  check("dgeqrf_ info", info, 0, 0);
  /* |R(1,1)| is the norm of A's first column. */
  check("dgeqrf_ |r11|", fabs(a[0]), dnrm2_(&n, a0, &one), 1e-13);

  memcpy(a, a0, sizeof a);
  for (int i = 0; i < N; ++i) {
    b[i] = 0;
    for (int j = 0; j < N; ++j) b[i] += a0[i + j * N] * xs[j];
  }
  int ipiv[N];
  info = -1;
  dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
  printf("dgesv_ info %d x %a %a %a %a %a\n", info, b[0], b[1], b[2], b[3], b[4]);
  check("dgesv_ info", info, 0, 0);
  for (int i = 0; i < N; ++i) check("dgesv_ x", b[i], xs[i], 1e-12);

  if (failures != 0) return 1;
  printf("forward_probe: OK\n");
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "values";
  if (strcmp(mode, "values") == 0) return values();
  if (strcmp(mode, "xerbla") == 0) {
    fflush(stdout);
    cblas_xerbla(2, "cblas_probe", "value %d %.2f %s\n", 42, 2.5, "end");
    printf("forward_probe: cblas_xerbla returned\n");
    return 0;
  }
  if (strcmp(mode, "illegal") == 0) {
    const int n = 2, lda = 2, incx = 1;
    const double a[4] = {1, 0, 0, 1};
    double x[2] = {1, 1};
    dtrsv_("X", "N", "N", &n, a, &lda, x, &incx, 1, 1, 1);
    printf("forward_probe: dtrsv_ returned\n");
    return 0;
  }
  fprintf(stderr, "usage: forward_probe values|xerbla|illegal\n");
  return 2;
}
