/* Wall-clock timing and routine lookup shared by the plain C host benchmarks (host_gemm.c,
 * host_qr.c, host_eigen.c, dispatch_bench.c). */
#ifndef CUDROP_BENCH_HOST_TIMING_H
#define CUDROP_BENCH_HOST_TIMING_H
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* qsort comparator for doubles (medians). */
static inline int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Routine `name` from whatever the process has (a preloaded library first), else from the
 * library the environment variable `env` names, else from `library` (dlopen'ed, found at run
 * time so that the program needs no development files to build); exits when there is none. */
static inline void *library_symbol(const char *name, const char *env, const char *library) {
  void *fn = dlsym(RTLD_DEFAULT, name);
  if (fn == NULL) {
    void *handle = dlopen(getenv(env) ? getenv(env) : library, RTLD_NOW | RTLD_GLOBAL);
    if (handle != NULL) fn = dlsym(handle, name);
  }
  if (fn == NULL) {
    fprintf(stderr, "no %s: preload a library that has it or install %s\n", name, library);
    exit(2);
  }
  return fn;
}
#endif
