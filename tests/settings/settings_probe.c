/* settings_probe [CALLS]: makes CALLS (default 1) small sgemm_ calls through cudrop and checks
 * each result; with 0 it makes none (it is still linked to cudrop, as every process is that a
 * shell starts under LD_PRELOAD). settings_probe cblas: one row-major cblas_sgemm, M=3, N=2,
 * K=5, B transposed. Exit 0 when every result is right. tests/settings/settings.sh runs it under
 * CUDROP_* settings and reads what cudrop prints on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrop.h"

/* C(3x2) = A(3x5) * B(2x5)^T, row-major, small integers (exact). */
static int cblas_call(void) {
  float a[15], b[10], c[6];
  for (int i = 0; i < 15; ++i) a[i] = (float)(i % 4 - 1);
  for (int i = 0; i < 10; ++i) b[i] = (float)(i % 3 - 1);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 3, 2, 5, 1.0f, a, 5, b, 5, 0.0f, c, 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      float want = 0;
      for (int l = 0; l < 5; ++l) want += a[i * 5 + l] * b[j * 5 + l];
      if (c[i * 2 + j] != want) {
        fprintf(stdout, "settings_probe: C(%d,%d) = %g, expected %g\n", i, j, c[i * 2 + j], want);
        return 1;
      }
    }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "cblas") == 0) return cblas_call();
  const int calls = argc > 1 ? atoi(argv[1]) : 1;
  for (int call = 0; call < calls; ++call) {
    const int n = 2;
    const float one = 1.0f, zero = 0.0f;
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    float c[4] = {-1, -1, -1, -1};
    sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    /* column-major: A = [1 3; 2 4], B = [5 7; 6 8], A*B = [23 31; 34 46] */
    const float expected[4] = {23, 34, 31, 46};
    for (int i = 0; i < 4; ++i) {
      if (c[i] != expected[i]) {
        fprintf(stdout, "settings_probe: c[%d] = %g, expected %g\n", i, c[i], expected[i]);
        return 1;
      }
    }
  }
  return 0;
}
