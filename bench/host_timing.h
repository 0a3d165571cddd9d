/* Wall-clock timing shared by the plain C host benchmarks (host_gemm.c, dispatch_bench.c). */
#ifndef CUDROP_BENCH_HOST_TIMING_H
#define CUDROP_BENCH_HOST_TIMING_H
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
#endif
