/* relink.c: a C program that uses cudrop as its BLAS. Build it with nothing but what
 * pkg-config says (no other BLAS on the link line):
 *
 *   cc relink.c $(pkg-config --cflags --libs cudrop) -o relink
 *
 * It calls the Fortran-interface sgemm_/dgemm_ and the CBLAS cblas_dgemm (row-major), checks
 * every result, prints where the calls ran, and exits 1 on any mismatch.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cudrop.h"

static int failures;

/* (No libm: the link line is exactly what pkg-config gives.) */
static double absdiff(double a, double b) { return a > b ? a - b : b - a; }
static double maxd(double a, double b) { return a > b ? a : b; }

static void report(const char *what, double error, double tolerance) {
  const int ok = error <= tolerance;
  printf("%-44s max error %.3g (tolerance %.3g): %s\n", what, error, tolerance, ok ? "ok" : "WRONG");
  if (!ok) ++failures;
}

int main(void) {
  printf("cudrop %s, GPU available: %s\n", cudrop_version(), cudrop_gpu_available() ? "yes" : "no");

  /* 1. A small product with integer entries: exact in any precision.
   *    C(2x2) = 2*A(2x3)*B(3x2) + C, column-major; A*B = [76 103; 100 136]. */
  {
    const int m = 2, n = 2, k = 3;
    const float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12}, alpha = 2, beta = 1;
    float C[4] = {1, -1, 2, -2};
    const double want[4] = {153, 199, 208, 270};
    sgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C, &m, 1, 1);
    double error = 0;
    for (int i = 0; i < 4; ++i) error = maxd(error, absdiff(C[i], want[i]));
    report("sgemm_ 2x3 * 3x2 (exact)", error, 0);
  }
  /* 2. dgemm_ with A transposed: C(3x3) = A(2x3)^T * B(2x3). */
  {
    const int m = 3, n = 3, k = 2, lda = 2, ldb = 2, ldc = 3;
    const double A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, 0, 1, 1, 1}, alpha = 1, beta = 0;
    double C[9];
    /* A^T = [1 2; 3 4; 5 6]; B = [1 0 1; 0 1 1]; A^T B = [1 2 3; 3 4 7; 5 6 11]. */
    const double want[9] = {1, 3, 5, 2, 4, 6, 3, 7, 11};
    dgemm_("T", "N", &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
    double error = 0;
    for (int i = 0; i < 9; ++i) error = maxd(error, absdiff(C[i], want[i]));
    report("dgemm_ A^T * B (exact)", error, 0);
  }
  /* 3. CBLAS, row-major: C(2x2) = A(2x3) * B(3x2) with A = [1 2 3; 4 5 6] stored by rows. */
  {
    const double A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12};
    double C[4] = {0, 0, 0, 0};
    /* [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154]. */
    const double want[4] = {58, 64, 139, 154};
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 1.0, A, 3, B, 2, 0.0, C, 2);
    double error = 0;
    for (int i = 0; i < 4; ++i) error = maxd(error, absdiff(C[i], want[i]));
    report("cblas_dgemm row-major (exact)", error, 0);
  }
  /* 4. A product large enough for the GPU in auto mode: spot-check entries in double. */
  {
    const int n = 768;
    float *A = malloc(sizeof(float) * n * n), *B = malloc(sizeof(float) * n * n),
          *C = malloc(sizeof(float) * n * n);
    if (!A || !B || !C) { printf("out of memory\n"); return 1; }
    unsigned s = 12345;
    for (long i = 0; i < (long)n * n; ++i) {
      s = s * 1103515245u + 12345u;
      A[i] = (float)((s >> 8) % 2001) / 1000.0f - 1.0f;
      s = s * 1103515245u + 12345u;
      B[i] = (float)((s >> 8) % 2001) / 1000.0f - 1.0f;
    }
    const float alpha = 1, beta = 0;
    sgemm_("N", "N", &n, &n, &n, &alpha, A, &n, B, &n, &beta, C, &n, 1, 1);
    double error = 0;
    for (int t = 0; t < 64; ++t) {
      const int i = (t * 97) % n, j = (t * 389 + 11) % n;
      double ref = 0;
      for (int l = 0; l < n; ++l) ref += (double)A[i + (long)l * n] * B[l + (long)j * n];
      error = maxd(error, absdiff(C[i + (long)j * n], ref));
    }
    /* |error| <= n * eps * max|A| * max|B| with eps = 2^-23 (float). */
    report("sgemm_ 768^3 (64 entries vs double)", error, n * 1.1920929e-7);
    free(A); free(B); free(C);
  }

  long gpu = 0, cpu = 0, fallbacks = 0;
  cudrop_counters(&gpu, &cpu, &fallbacks);
  printf("calls: %ld on the GPU, %ld on the CPU (%ld after a GPU failure)\n", gpu, cpu, fallbacks);
  printf("relink.c: %s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
