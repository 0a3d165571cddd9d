/* cudrop-forward-bench: what a forwarder of the complete library (libcudrop_full) adds to a call
 * of a routine cudrop does not accelerate: the forwarder (`jmp *slot(%rip)`, abi/forwarders.S)
 * against the CPU library's own symbol, called directly through its address, in one process
 * (the CPU library is the one cudrop resolved underneath, found among the loaded objects after a
 * first forwarded call, so both columns run the same code). Routines: idamax_ with n = 1 and
 * drotg_ (a few nanoseconds each: the forwarder's cost is not lost in the routine's). Each round
 * times a batch of direct calls, a batch of forwarded calls and a second direct batch (A/A
 * control), in rotating order; the medians over the rounds, in ns per call, and the difference
 * (issue 28 asks at most 2 ns).
 * usage: cudrop-forward-bench path/to/libcudrop_full.so [rounds (2001)] [calls per batch (2000)] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_timing.h"
#include "loaded_symbol.h"

typedef int idamax_fn(const int *, const double *, const int *);
typedef void drotg_fn(double *, double *, double *, double *);

static double batch_ns(const char *routine, void *fn, int calls) {
  const int n = 1, one = 1;
  const double x[1] = {2.5};
  volatile double sink = 0;
  const double t0 = now_seconds();
  if (routine[1] == 'a') { /* idamax_ */
    idamax_fn *f = (idamax_fn *)fn;
    for (int i = 0; i < calls; ++i) sink += f(&n, x, &one);
  } else { /* drotg_ */
    drotg_fn *f = (drotg_fn *)fn;
    for (int i = 0; i < calls; ++i) {
      double a = 3.0, b = 4.0, c, s;
      f(&a, &b, &c, &s);
      sink += a;
    }
  }
  (void)sink;
  return (now_seconds() - t0) / calls * 1e9;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s path/to/libcudrop_full.so [rounds] [calls per batch]\n", argv[0]);
    return 2;
  }
  int rounds = argc > 2 ? atoi(argv[2]) : 2001;
  const int calls = argc > 3 ? atoi(argv[3]) : 2000;
  enum { kMaxRounds = 20001 };
  if (rounds > kMaxRounds) rounds = kMaxRounds;
  if (rounds < 5) rounds = 5;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  const char *routines[] = {"idamax_", "drotg_"};
  for (size_t r = 0; r < sizeof routines / sizeof routines[0]; ++r) {
    const char *routine = routines[r];
    void *forwarded = dlsym(lib, routine);
    if (forwarded == NULL) {
      fprintf(stderr, "%s has no %s\n", argv[1], routine);
      return 2;
    }
    batch_ns(routine, forwarded, 1); /* resolves the slot: cudrop loads the CPU library */
    struct Search search = {routine, forwarded, NULL, ""};
    find_loaded_symbol(&search);
    if (search.found == NULL) {
      fprintf(stderr, "no CPU library with %s is loaded next to cudrop\n", routine);
      return 2;
    }
    static double t[3][kMaxRounds];
    void *who[3] = {search.found, forwarded, search.found};
    for (int w = 0; w < 3; ++w) batch_ns(routine, who[w], calls); /* warm */
    for (int round = 0; round < rounds; ++round)
      for (int slot = 0; slot < 3; ++slot) {
        const int w = (slot + round) % 3;
        t[w][round] = batch_ns(routine, who[w], calls);
      }
    for (int w = 0; w < 3; ++w) qsort(t[w], rounds, sizeof(double), compare_doubles);
    const double d = t[0][rounds / 2], f = t[1][rounds / 2], d2 = t[2][rounds / 2];
    printf("forward %s cpu_library=%s rounds=%d calls_per_batch=%d direct_ns=%.3f forwarded_ns=%.3f "
           "added_ns=%.3f aa_diff_ns=%.3f\n",
           routine, search.name, rounds, calls, d, f, f - d, d2 - d);
    fflush(stdout);
  }
  return 0;
}
