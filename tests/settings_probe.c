/* settings_probe [CALLS]: makes CALLS (default 1) small sgemm_ calls through cudrop and checks
 * each result; with 0 it makes none (it is still linked to cudrop, as every process is that a
 * shell starts under LD_PRELOAD). Exit 0 when every result is right. tests/settings.sh runs it
 * under CUDROP_* settings and reads what cudrop prints on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "cudrop.h"

int main(int argc, char **argv) {
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
