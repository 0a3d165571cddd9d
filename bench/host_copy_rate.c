/* The host's pageable memory copy rate with T threads, the floor of every host->host call: each
 * byte of a caller's array is copied once by the CPU between pageable memory and a pinned staging
 * buffer (impl/context/host_copy.cpp) whatever the GPUs do. bench/multi-gemm compares GEMMs over several
 * GPUs with it. T threads each copy their slice of a G GiB buffer; the median of R rounds.
 * usage: cudrop-host-copy-rate [threads [gib [reps]]]
 * prints: host_copy threads=T gib=G GBps=X */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timing.h"

struct Slice {
  char *dst;
  const char *src;
  size_t bytes;
};

static void *copy_slice(void *arg) {
  const struct Slice *s = arg;
  memcpy(s->dst, s->src, s->bytes);
  return NULL;
}

int main(int argc, char **argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 16;
  const double gib = argc > 2 ? atof(argv[2]) : 2.0;
  const int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (threads < 1 || threads > 1024 || !(gib > 0) || reps < 1 || reps > 64) {
    fprintf(stderr, "usage: %s [threads [gib [reps]]]\n", argv[0]);
    return 2;
  }
  const size_t bytes = (size_t)(gib * (1u << 30)) / 4096 * 4096;
  char *src = malloc(bytes), *dst = malloc(bytes);
  if (src == NULL || dst == NULL) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  memset(src, 1, bytes);
  memset(dst, 2, bytes); /* both touched: no page faults inside the timed copies */
  pthread_t *ids = malloc(sizeof(pthread_t) * threads);
  struct Slice *slices = malloc(sizeof(struct Slice) * threads);
  const size_t per = bytes / threads / 4096 * 4096;
  double times[64];
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_seconds();
    for (int t = 0; t < threads; ++t) {
      const size_t start = per * t, size = t + 1 == threads ? bytes - start : per;
      slices[t] = (struct Slice){dst + start, src + start, size};
      pthread_create(&ids[t], NULL, copy_slice, &slices[t]);
    }
    for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
    times[r] = now_seconds() - t0;
  }
  qsort(times, reps, sizeof(double), compare_doubles);
  printf("host_copy threads=%d gib=%.2f GBps=%.1f\n", threads, gib, bytes / times[reps / 2] / 1e9);
  free(ids);
  free(slices);
  free(src);
  free(dst);
  return 0;
}
