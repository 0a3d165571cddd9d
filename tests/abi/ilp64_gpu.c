/* ilp64_gpu: every routine cudrop accelerates (tests/abi/ilp64_calls.h: ?gemm ?symm ?syrk ?syr2k
   ?trmm ?trsm, their CBLAS forms, ?getrf ?potrf ?getrs ?potrs ?gesv ?posv; s and d, and the last
   six in c and z) in forced-GPU mode (CUDROP_MODE=gpu), through three entries on the same random
   inputs:
     the LP64 one of libcudrop_full (dgemm_, cblas_dgemm; linked),
     its ILP64 one (dgemm_64_, cblas_dgemm64_),
     libcudrop64's (argv[1], dlopen'ed RTLD_LOCAL: dgemm_, cblas_dgemm with 64-bit integers).
   Every output (arrays, INFO, IPIV widened) bit for bit the LP64 entry's, each call counted as
   one GPU call without fallback by its library (cudrop_counters), every routine found.
   Exit 0 pass, 1 fail, 77 skipped (no usable GPU). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cudrop.h"
#include "tests/abi/ilp64_calls.h"

ILP64_RUNNER(run_lp64_s, float, int)
ILP64_RUNNER(run_lp64_d, double, int)
ILP64_RUNNER(run_ilp64_s, float, int64_t)
ILP64_RUNNER(run_ilp64_d, double, int64_t)
ILP64_COMPLEX_RUNNER(run_lp64_c, float _Complex, int)
ILP64_COMPLEX_RUNNER(run_lp64_z, double _Complex, int)
ILP64_COMPLEX_RUNNER(run_ilp64_c, float _Complex, int64_t)
ILP64_COMPLEX_RUNNER(run_ilp64_z, double _Complex, int64_t)

struct names {
  void *handle;
  const char *suffix; /* Fortran "_" + suffix; CBLAS + suffix */
};
static void *lookup(const struct ilp64_api *api, char p, const char *stem, int cblas) {
  const struct names *names = (const struct names *)api->context;
  char name[48];
  if (cblas) snprintf(name, sizeof name, "cblas_%c%s%s", p, stem, names->suffix);
  else snprintf(name, sizeof name, "%c%s_%s", p, stem, names->suffix);
  return dlsym(names->handle, name);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: ilp64_gpu LIBCUDROP64\n");
    return 1;
  }
  if (!cudrop_gpu_available()) {
    printf("SKIP: no usable GPU\n");
    return 77;
  }
  void *lib64 = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib64 == NULL) {
    printf("FAIL: dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  void (*counters64)(long *, long *, long *) = (void (*)(long *, long *, long *))dlsym(lib64, "cudrop_counters");
  if (counters64 == NULL) {
    printf("FAIL: libcudrop64 has no cudrop_counters\n");
    return 1;
  }
  struct names lp64 = {RTLD_DEFAULT, ""}, suffixed = {RTLD_DEFAULT, "64_"}, plain64 = {lib64, ""};
  const struct ilp64_api api_lp64 = {lookup, &lp64, cudrop_counters};
  const struct ilp64_api api_suffixed = {lookup, &suffixed, cudrop_counters};
  const struct ilp64_api api_plain64 = {lookup, &plain64, counters64};
  const struct ilp64_api *apis[3] = {&api_lp64, &api_suffixed, &api_plain64};
  const char *what[3] = {"LP64", "libcudrop_full _64_", "libcudrop64"};
  int failures = 0, calls = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const int size = seed % 4 == 0 ? 1200 : 300;
    for (int prec = 0; prec < 4; ++prec) {
      struct ilp64_result res[3][ILP64_ROUTINES];
      const char p = "sdcz"[prec];
      int count = 0;
      for (int l = 0; l < 3; ++l) {
        const struct ilp64_api *api = apis[l];
        struct ilp64_result *out = res[l];
        if (p == 's') count = l == 0 ? run_lp64_s(api, p, size, seed, out) : run_ilp64_s(api, p, size, seed, out);
        if (p == 'd') count = l == 0 ? run_lp64_d(api, p, size, seed, out) : run_ilp64_d(api, p, size, seed, out);
        if (p == 'c') count = l == 0 ? run_lp64_c(api, p, size, seed, out) : run_ilp64_c(api, p, size, seed, out);
        if (p == 'z') count = l == 0 ? run_lp64_z(api, p, size, seed, out) : run_ilp64_z(api, p, size, seed, out);
      }
      for (int r = 0; r < count; ++r)
        for (int l = 0; l < 3; ++l) {
          const struct ilp64_result *x = &res[l][r];
          ++calls;
          if (!x->found) printf("FAIL: %s %s: not found\n", what[l], x->routine), ++failures;
          else if (x->gpu_calls != 1 || x->fallbacks != 0)
            printf("FAIL: %s %s seed %d: %ld GPU calls, %ld fallbacks (want 1, 0)\n", what[l], x->routine, (int)seed,
                   x->gpu_calls, x->fallbacks), ++failures;
          if (l > 0 && x->hash != res[0][r].hash)
            printf("FAIL: %s %s seed %d: differs from the LP64 entry\n", what[l], x->routine, (int)seed), ++failures;
        }
    }
  }
  printf("%s: %d calls, the ILP64 entries (libcudrop_full _64_, libcudrop64) bit for bit the LP64 ones, each "
         "one GPU call\n", failures ? "FAIL" : "ok", calls);
  return failures ? 1 : 0;
}
