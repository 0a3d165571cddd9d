/* gemm_thread_counts: cudrop_counters stays exact when many threads make small CPU calls at
 * once and then exit. Each thread counts its CPU calls in its own slot (route/dispatch.cpp),
 * the sgemm_/dgemm_ entry without a lock; counters() adds up the live slots and what exited
 * threads left. Several rounds of threads, so that exited threads' slots are reused. The
 * results are checked too (small integer matrices, exact in float and double). */
#include <pthread.h>
#include <stdio.h>

#include "cudrop.h"

enum { kThreads = 8, kCallsPerThread = 2000, kRounds = 3 };

static int wrong_results;
static pthread_mutex_t wrong_mutex = PTHREAD_MUTEX_INITIALIZER;

static void *small_gemms(void *arg) {
  const int id = (int)(size_t)arg;
  const int m = 3, n = 2, k = 4;
  float a[12], b[8], c[6];
  double ad[12], bd[8], cd[6];
  for (int i = 0; i < 12; ++i) ad[i] = a[i] = (float)((i + id) % 5 - 2);
  for (int i = 0; i < 8; ++i) bd[i] = b[i] = (float)((i * 3 + id) % 7 - 3);
  const float one = 1, zero = 0;
  const double oned = 1, zerod = 0;
  int wrong = 0;
  for (int call = 0; call < kCallsPerThread; ++call) {
    if (call % 2) sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    else dgemm_("N", "N", &m, &n, &k, &oned, ad, &m, bd, &k, &zerod, cd, &m, 1, 1);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double want = 0;
        for (int l = 0; l < k; ++l) want += ad[i + l * m] * bd[l + j * k];
        const double got = call % 2 ? c[i + j * m] : cd[i + j * m];
        wrong += got != want;
      }
  }
  pthread_mutex_lock(&wrong_mutex);
  wrong_results += wrong;
  pthread_mutex_unlock(&wrong_mutex);
  return NULL;
}

int main(void) {
  long gpu0 = 0, cpu0 = 0, fb0 = 0;
  cudrop_counters(&gpu0, &cpu0, &fb0);
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    pthread_t threads[kThreads];
    for (int t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, small_gemms, (void *)(size_t)t);
    for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
    long gpu = 0, cpu = 0, fb = 0;
    cudrop_counters(&gpu, &cpu, &fb);
    const long want = (long)(round + 1) * kThreads * kCallsPerThread;
    printf("round %d: cpu_calls %ld (want %ld), gpu_calls %ld\n", round, cpu - cpu0, want, gpu - gpu0);
    if (cpu - cpu0 != want || gpu != gpu0) ++failures;
  }
  if (wrong_results) printf("FAIL: %d wrong entries\n", wrong_results);
  printf("gemm_thread_counts: %s\n", failures == 0 && wrong_results == 0 ? "OK" : "FAILED");
  return failures == 0 && wrong_results == 0 ? 0 : 1;
}
