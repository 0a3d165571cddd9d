/* cudrop-demo: what cudrop does on this machine, in a few seconds.
 *
 *   cudrop-demo            sizes 64, 512, 2048, 4096 with a GPU; 64, 512, 1024 without
 *   cudrop-demo N [N ...]  these sizes
 *
 * For sgemm_ and dgemm_ (C = A*B, n x n x n, in whatever CUDROP_MODE says; auto by default)
 * it prints the time, GFLOP/s, where the call ran (from cudrop_counters before and after), and
 * a correctness check: a randomized (Freivalds) residual. For random x with entries +-1,
 * r = max|C x - A (B x)| / (sqrt(n) * n * max|A| * max|B| * eps), computed in double (long
 * double for dgemm_); a correct product gives r < 1 (about 0.1), anything else (a wrong block, a
 * missing term, reduced-precision arithmetic) gives r >> 1. PASS when r < 3. Exits 1 on any FAIL.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cudrop.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static unsigned long long rng_state = 0x853c49e6748fea9bULL;
static double rnd(void) { /* uniform in [-1, 1), xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) / 4503599627370496.0 - 1.0;
}

static const char *where(long gpu, long cpu, long fallbacks) {
  if (fallbacks > 0) return "CPU (GPU failed)";
  if (gpu > 0 && cpu == 0) return "GPU";
  if (cpu > 0 && gpu == 0) return "CPU";
  return "?";
}

#define DEFINE_RUN(NAME, T, R, GEMM, EPS)                                                       \
  static int NAME(int n) {                                                                      \
    const size_t nn = (size_t)n * n;                                                            \
    T *A = malloc(nn * sizeof(T)), *B = malloc(nn * sizeof(T)), *C = malloc(nn * sizeof(T));    \
    R *x = malloc(n * sizeof(R)), *bx = malloc(n * sizeof(R)), *abx = malloc(n * sizeof(R)),    \
      *cx = malloc(n * sizeof(R));                                                              \
    if (!A || !B || !C || !x || !bx || !abx || !cx) {                                           \
      printf("%-7s n=%-5d out of memory\n", #GEMM, n);                                          \
      return 0;                                                                                 \
    }                                                                                           \
    double maxa = 0, maxb = 0;                                                                  \
    for (size_t i = 0; i < nn; ++i) {                                                           \
      A[i] = (T)rnd();                                                                          \
      B[i] = (T)rnd();                                                                          \
      C[i] = (T)NAN; /* beta = 0: C is output only */                                          \
      if (fabs((double)A[i]) > maxa) maxa = fabs((double)A[i]);                                 \
      if (fabs((double)B[i]) > maxb) maxb = fabs((double)B[i]);                                 \
    }                                                                                           \
    const T alpha = 1, beta = 0;                                                                \
    long g0, c0, f0, g1, c1, f1;                                                                \
    cudrop_counters(&g0, &c0, &f0);                                                             \
    const double t0 = now();                                                                    \
    GEMM("N", "N", &n, &n, &n, &alpha, A, &n, B, &n, &beta, C, &n, 1, 1);                       \
    const double seconds = now() - t0;                                                          \
    cudrop_counters(&g1, &c1, &f1);                                                             \
    /* Freivalds: C x against A (B x), twice. */                                               \
    double residual = 0;                                                                        \
    for (int trial = 0; trial < 2; ++trial) {                                                   \
      for (int j = 0; j < n; ++j) x[j] = rnd() < 0 ? -1 : 1;                                    \
      for (int i = 0; i < n; ++i) bx[i] = abx[i] = cx[i] = 0;                                   \
      for (int j = 0; j < n; ++j)                                                               \
        for (int i = 0; i < n; ++i) {                                                           \
          bx[i] += (R)B[i + (size_t)j * n] * x[j];                                              \
          cx[i] += (R)C[i + (size_t)j * n] * x[j];                                              \
        }                                                                                       \
      for (int l = 0; l < n; ++l)                                                               \
        for (int i = 0; i < n; ++i) abx[i] += (R)A[i + (size_t)l * n] * bx[l];                  \
      for (int i = 0; i < n; ++i) {                                                             \
        const double d = fabs((double)(cx[i] - abx[i]));                                        \
        if (!(d <= residual)) residual = d; /* NaN sticks */                                   \
      }                                                                                         \
    }                                                                                           \
    residual /= sqrt((double)n) * n * maxa * maxb * (EPS);                                      \
    const int pass = residual < 3.0;                                                            \
    printf("%-7s n=%-5d %9.3f ms %9.1f GFLOP/s  on %-16s residual %.3f  %s\n", #GEMM, n,       \
           seconds * 1e3, 2.0 * n * n * (double)n / seconds * 1e-9,                             \
           where(g1 - g0, c1 - c0, f1 - f0), residual, pass ? "PASS" : "FAIL");                 \
    fflush(stdout);                                                                             \
    free(A); free(B); free(C); free(x); free(bx); free(abx); free(cx);                          \
    return pass;                                                                                \
  }

DEFINE_RUN(run_s, float, double, sgemm_, FLT_EPSILON)
DEFINE_RUN(run_d, double, long double, dgemm_, DBL_EPSILON)

int main(int argc, char **argv) {
  const int gpu = cudrop_gpu_available();
  const char *mode = getenv("CUDROP_MODE");
  printf("cudrop %s\n", cudrop_version());
  printf("GPU available: %s\n", gpu ? "yes" : "no (every call runs on the CPU BLAS)");
  printf("CUDROP_MODE: %s\n", mode && *mode ? mode : "auto (unset)");

  int sizes[16], count = 0;
  for (int i = 1; i < argc && count < 16; ++i) {
    const int n = atoi(argv[i]);
    if (n <= 0) {
      fprintf(stderr, "usage: cudrop-demo [N ...]   (positive sizes)\n");
      return 2;
    }
    sizes[count++] = n;
  }
  if (count == 0) {
    const int with_gpu[] = {64, 512, 2048, 4096}, without[] = {64, 512, 1024};
    const int *s = gpu ? with_gpu : without;
    count = gpu ? 4 : 3;
    for (int i = 0; i < count; ++i) sizes[i] = s[i];
  }

  int failures = 0;
  for (int i = 0; i < count; ++i) {
    failures += !run_s(sizes[i]);
    failures += !run_d(sizes[i]);
  }
  long g, c, f;
  cudrop_counters(&g, &c, &f);
  printf("total: %ld calls on the GPU, %ld on the CPU, %ld GPU fallbacks\n", g, c, f);
  printf("%s\n", failures == 0 ? "all PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
