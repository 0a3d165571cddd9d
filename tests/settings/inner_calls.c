/* inner_calls: a relinked program (libcudrop_full) making 4 calls of its own: two small dgemm_
 * (the first through the full path, which opens the short way, the second through the x86-64
 * entry's short way) and two dgesv_ (n = 200, on the CPU LAPACK underneath, whose dgetrf_ calls
 * dgemm_, dtrsm_, ... back through cudrop's exports), then one dgetri_ on the last LU, which
 * cudrop forwards to the CPU LAPACK (its own inner calls come back too). cudrop_counters must count the
 * program's 4 calls, none of the inner ones. Prints "inner_calls: PASS" when the results and
 * the counters are right; tests/settings/inner_calls.sh reads what cudrop printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudrop.h"

void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork, int *info);

enum { N = 200 };

static double random_entry(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (double)(*state >> 8) / (double)(1u << 24) - 0.5;
}

int main(void) {
  static double a[N * N], lu[N * N], b[N], x[N], work[64 * N];
  static int ipiv[N];
  unsigned state = 12345u;
  int failures = 0;
  long gpu0, cpu0, fallbacks0;
  cudrop_counters(&gpu0, &cpu0, &fallbacks0);

  for (int call = 0; call < 2; ++call) {
    const int n = 2;
    const double one = 1.0, zero = 0.0, p[4] = {1, 2, 3, 4}, q[4] = {5, 6, 7, 8};
    double c[4] = {-1, -1, -1, -1};
    dgemm_("N", "N", &n, &n, &n, &one, p, &n, q, &n, &zero, c, &n, 1, 1);
    if (c[0] != 23 || c[1] != 34 || c[2] != 31 || c[3] != 46) {
      printf("inner_calls: dgemm_ call %d wrong: %g %g %g %g\n", call, c[0], c[1], c[2], c[3]);
      ++failures;
    }
  }
  for (int call = 0; call < 2; ++call) {
    for (int i = 0; i < N * N; ++i) a[i] = random_entry(&state) + (i % (N + 1) == 0 ? N : 0);
    for (int i = 0; i < N; ++i) b[i] = random_entry(&state);
    for (int i = 0; i < N * N; ++i) lu[i] = a[i];
    for (int i = 0; i < N; ++i) x[i] = b[i];
    const int n = N, nrhs = 1;
    int info = -1;
    dgesv_(&n, &nrhs, lu, &n, ipiv, x, &n, &info);
    double residual = 0;
    for (int i = 0; i < N; ++i) {
      double sum = -b[i];
      for (int j = 0; j < N; ++j) sum += a[i + (size_t)j * N] * x[j];
      residual = fmax(residual, fabs(sum));
    }
    if (info != 0 || residual > 1e-10) {
      printf("inner_calls: dgesv_ call %d: info %d, residual %g\n", call, info, residual);
      ++failures;
    }
  }
  {
    const int n = N, lwork = 64 * N;
    int info = -1;
    dgetri_(&n, lu, &n, ipiv, work, &lwork, &info);
    if (info != 0) {
      printf("inner_calls: dgetri_ info %d\n", info);
      ++failures;
    }
  }

  long gpu, cpu, fallbacks;
  cudrop_counters(&gpu, &cpu, &fallbacks);
  printf("inner_calls: counted gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld\n", gpu - gpu0, cpu - cpu0,
         fallbacks - fallbacks0);
  if (gpu - gpu0 + cpu - cpu0 != 4) {
    printf("inner_calls: the counters hold %ld calls, the program made 4\n", gpu - gpu0 + cpu - cpu0);
    ++failures;
  }
  if (failures == 0) printf("inner_calls: PASS\n");
  return failures == 0 ? 0 : 1;
}
