/* The program of the secure_exec test: linked with the system BLAS and LAPACK (libblas.so.3 and
 * liblapack.so.3, found in cudrop's stand-in directory), installed setuid root by the test.
 * It prints its ids, whether the kernel runs it in secure-execution mode and the file its dgemm_
 * came from, then multiplies (dgemm_) and solves (dgesv_) small integer systems and checks both
 * results, and prints where the calls ran. Prints "victim: ... OK" and exits 0 when both are
 * right. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);

int main(void) {
  printf("victim: euid=%d uid=%d at_secure=%lu\n", (int)geteuid(), (int)getuid(), getauxval(AT_SECURE));
  Dl_info where;
  printf("victim: dgemm_ from %s\n", dladdr((void *)dgemm_, &where) != 0 && where.dli_fname ? where.dli_fname : "?");
  /* C(2x2) = 2 * A(2x3) * B(3x2) + C, column-major: A*B = [76 103; 100 136]. */
  const int m = 2, n = 2, k = 3;
  const double A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12}, alpha = 2, beta = 1;
  double C[4] = {1, -1, 2, -2};
  const double want_c[4] = {153, 199, 208, 270};
  dgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C, &m, 1, 1);
  /* [4 3; 6 3] x = [10; 12]: x = [1; 2]. */
  double M[4] = {4, 6, 3, 3}, x[2] = {10, 12};
  const int two = 2, one = 1;
  int ipiv[2], info = -1;
  dgesv_(&two, &one, M, &two, ipiv, x, &two, &info);
  /* A CPU LAPACK may round: 1 and 2 within a few ulps. */
  int ok = info == 0 && fabs(x[0] - 1) < 1e-12 && fabs(x[1] - 2) < 1e-12;
  for (int i = 0; i < 4; ++i) ok = ok && C[i] == want_c[i];
  printf("victim: dgemm_ C = [%g %g; %g %g], dgesv_ x = [%g; %g] info=%d: %s\n", C[0], C[2], C[1], C[3],
         x[0], x[1], info, ok ? "OK" : "WRONG");
  /* Where the calls ran (cudrop's counters, when cudrop is what the BLAS is), and whether the
   * CUDA driver was loaded at all. */
  void (*counters)(long *, long *, long *) = (void (*)(long *, long *, long *))dlsym(RTLD_DEFAULT, "cudrop_counters");
  long gpu = -1, cpu = -1, fallbacks = -1;
  if (counters != NULL) counters(&gpu, &cpu, &fallbacks);
  int driver = 0;
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL) driver |= strstr(line, "libcuda.so") != NULL;
  if (maps != NULL) fclose(maps);
  printf("victim: gpu_calls=%ld cpu_calls=%ld libcuda=%s\n", gpu, cpu, driver ? "loaded" : "not loaded");
  return ok ? 0 : 1;
}
