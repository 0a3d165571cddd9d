/* The program tests/launcher/cudrop_run.sh runs under cudrop-run, linked with the system BLAS:
 *   run_probe gemm   one 2x2 dgemm_: C on stdout, a line on stderr
 *   run_probe env    the variables cudrop-run sets, and whether cudrop is loaded */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);

static int gemm(void) {
  const int two = 2;
  const double one = 1, zero = 0;
  const double a[4] = {1, 3, 2, 4}, b[4] = {5, 7, 6, 8};  /* column-major [1 2; 3 4], [5 6; 7 8] */
  double c[4] = {0, 0, 0, 0};
  dgemm_("N", "N", &two, &two, &two, &one, a, &two, b, &two, &zero, c, &two, 1, 1);
  printf("C = %g %g %g %g\n", c[0], c[2], c[1], c[3]);  /* row by row: 19 22 43 50 */
  fprintf(stderr, "run_probe: gemm done\n");
  return 0;
}

static int env(void) {
  static const char *const names[] = {"CUDROP_MODE", "CUDROP_VERBOSE", "CUDROP_DEVICES", "CUDROP_DEVICE",
                                      "CUDROP_CPU_BLAS", "CUDROP_CPU_LAPACK", "LD_PRELOAD"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char *value = getenv(names[i]);
    printf("%s=%s\n", names[i], value ? value : "(unset)");
  }
  printf("cudrop loaded: %s\n", dlsym(RTLD_DEFAULT, "cudrop_version") ? "yes" : "no");
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "gemm") == 0) return gemm();
  if (argc == 2 && strcmp(argv[1], "env") == 0) return env();
  fprintf(stderr, "usage: run_probe gemm|env\n");
  return 2;
}
