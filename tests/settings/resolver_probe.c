/* A plain BLAS client for the cpu_resolver test: declares the Fortran routines itself (no
 * cudrop header), multiplies small integer matrices (exact in float and double) and checks
 * the result. Exit 0 and "probe: OK" when both sgemm_ and dgemm_ are right. */
#include <stddef.h>
#include <stdio.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);

int main(void) {
  /* C(2x2) = 2 * A(2x3) * B(3x2) + 1 * C, column-major. */
  const int m = 2, n = 2, k = 3;
  const float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12}, alpha = 2, beta = 1;
  float C[4] = {1, -1, 2, -2};
  const double Ad[6] = {1, 2, 3, 4, 5, 6}, Bd[6] = {7, 8, 9, 10, 11, 12}, alphad = 2, betad = 1;
  double Cd[4] = {1, -1, 2, -2};
  /* A*B = [76 103; 100 136]; 2*A*B + C: */
  const double want[4] = {153, 199, 208, 270};
  sgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C, &m, 1, 1);
  dgemm_("N", "N", &m, &n, &k, &alphad, Ad, &m, Bd, &k, &betad, Cd, &m, 1, 1);
  int ok = 1;
  for (int i = 0; i < 4; ++i) ok = ok && C[i] == (float)want[i] && Cd[i] == want[i];
  printf("probe: sgemm_ C = [%g %g; %g %g], dgemm_ C = [%g %g; %g %g]: %s\n", C[0], C[2], C[1],
         C[3], Cd[0], Cd[2], Cd[1], Cd[3], ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
