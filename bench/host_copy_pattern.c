/* cudrop-host-copy-pattern: numpy's linalg copies (numpy/linalg/umath_linalg.cpp,
 * linearize_matrix / delinearize_matrix) with the CPU BLAS's ?copy_ and with cudrop's.
 *
 * numpy copies an n x n operand into Fortran order with one ?copy_ per row, each gathering n
 * elements n apart (linearize: copy(n, a + i, n, b + n*i, 1)), and back the other way
 * (delinearize: copy(n, b + n*i, 1, a + i, n)). One process holds both: libcudrop.so
 * (dlopen'ed; its settings as the environment gives them) and the CPU BLAS cudrop resolved
 * underneath (found among the loaded objects after a first cudrop call, as
 * dispatch_bench.c does), so both columns run the same library on the same data. Per case the
 * median of `reps` runs of the whole pattern; speedup = CPU BLAS time / cudrop time, higher is
 * better; same = the two results are the same bytes.
 *
 * Then the CPU LAPACK's ?lacpy_, ?laswp_ and ?lange_ on one n x n matrix (the largest size),
 * the other level-1/2 calls numpy and scipy make around a factorization: seconds and the rate
 * of the bytes they must move, to judge whether they are worth serving.
 *
 * --sweep: the threshold question. With CUDROP_COPY_SPLIT_N=2 and CUDROP_COPY_SPLIT_STRIDE=0 (set
 * here unless the environment sets them), every copy with a nonzero increment goes to cudrop's
 * copy threads: for each n and stride (bytes) the time of one strided copy, CPU BLAS against
 * cudrop, the mean over a loop of calls like numpy's (successive offsets).
 *
 * --small: what cudrop adds to a copy that stays the CPU library's (n 1, 16, 256, unit
 * increments): nanoseconds per call each way, the median of 11 batches of 100000 calls.
 *
 * usage: cudrop-host-copy-pattern path/to/libcudrop.so [d|z|dz] [n,n,...] [reps (3)] [--sweep | --small] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timing.h"
#include "loaded_symbol.h"

typedef void copy_fn(const int *, const void *, const int *, void *, const int *);
typedef void lacpy_fn(const char *, const int *, const int *, const void *, const int *, void *, const int *, size_t);
typedef void laswp_fn(const int *, void *, const int *, const int *, const int *, const int *, const int *);
typedef double lange_fn(const char *, const int *, const int *, const void *, const int *, void *, size_t);
typedef void getrf_fn(const int *, const int *, void *, const int *, int *, int *);

static void fill(char *p, size_t bytes) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i + 8 <= bytes; i += 8) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    const double v = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    memcpy(p + i, &v, 8);
  }
}

/* One whole pattern, src to dst: linearize gathers row i of src (n elements n apart) into
 * column i of dst; delinearize scatters column i of src into row i of dst. es: bytes of an
 * element. */
static double pattern_seconds(copy_fn *copy, int linearize, int n, const char *src, char *dst, size_t es) {
  const int one = 1;
  const double t0 = now_seconds();
  for (int i = 0; i < n; ++i) {
    if (linearize) copy(&n, src + (size_t)i * es, &n, dst + (size_t)n * i * es, &one);
    else copy(&n, src + (size_t)n * i * es, &one, dst + (size_t)i * es, &n);
  }
  return now_seconds() - t0;
}

static double median(double *t, int count) {
  qsort(t, count, sizeof(double), compare_doubles);
  return t[count / 2];
}

static void *cpu_symbol(const char *name, void *cudrop_fn) {
  struct Search search = {name, cudrop_fn, NULL, ""};
  find_loaded_symbol(&search);
  return search.found;
}

static void small_calls(copy_fn *cudrop, copy_fn *cpu, char prec) {
  const int ns[] = {1, 16, 256}, calls = 100000, one = 1;
  char x[256 * 16], y[256 * 16];
  fill(x, sizeof x);
  for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ++ni) {
    double t[2][11];
    copy_fn *who[2] = {cpu, cudrop};
    for (int r = 0; r < 11; ++r)
      for (int w = 0; w < 2; ++w) {
        const double t0 = now_seconds();
        for (int i = 0; i < calls; ++i) who[(w + r) % 2](&ns[ni], x, &one, y, &one);
        t[(w + r) % 2][r] = (now_seconds() - t0) / calls;
      }
    const double c = median(t[0], 11), g = median(t[1], 11);
    printf("copy_small prec=%c n=%d cpu_ns=%.1f cudrop_ns=%.1f added_ns=%.1f\n", prec, ns[ni], c * 1e9, g * 1e9,
           (g - c) * 1e9);
    fflush(stdout);
  }
}

static void sweep(copy_fn *cudrop, copy_fn *cpu, char prec) {
  const size_t es = prec == 'z' ? 16 : 8;
  const int ns[] = {128, 256, 512, 1024, 2048, 4096, 8192};
  const size_t strides[] = {64, 512, 2048, 4096, 16384, 65536};
  const int calls = 256, one = 1;
  for (size_t si = 0; si < sizeof strides / sizeof *strides; ++si)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ++ni) {
      const int n = ns[ni], inc = (int)(strides[si] / es);
      const size_t a_bytes = ((size_t)(n - 1) * inc + calls + 1) * es, b_bytes = (size_t)n * calls * es;
      char *a = malloc(a_bytes), *b = malloc(b_bytes);
      if (!a || !b) exit(2);
      fill(a, a_bytes), fill(b, b_bytes);
      double t[2][5];
      copy_fn *who[2] = {cpu, cudrop};
      for (int r = 0; r < 5; ++r)
        for (int w = 0; w < 2; ++w) {
          const double t0 = now_seconds();
          for (int i = 0; i < calls; ++i) who[w](&n, a + (size_t)i * es, &inc, b + (size_t)n * i * es, &one);
          t[w][r] = (now_seconds() - t0) / calls;
        }
      const double c = median(t[0], 5), g = median(t[1], 5);
      printf("copy_sweep prec=%c n=%d stride_bytes=%zu cpu_us=%.2f cudrop_us=%.2f speedup=%.2f\n", prec, n,
             strides[si], c * 1e6, g * 1e6, c / g);
      fflush(stdout);
      free(a), free(b);
    }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s path/to/libcudrop.so [d|z|dz] [n,n,...] [reps] [--sweep | --small]\n", argv[0]);
    return 2;
  }
  int do_sweep = 0, do_small = 0, positional = 0;
  const char *precs = "dz", *sizes = "2048,4096,8192";
  int reps = 3;
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--sweep") == 0) do_sweep = 1;
    else if (strcmp(argv[i], "--small") == 0) do_small = 1;
    else if (positional == 0) precs = argv[i], ++positional;
    else if (positional == 1) sizes = argv[i], ++positional;
    else reps = atoi(argv[i]);
  }
  if (reps < 1 || reps > 99) reps = 3;
  if (do_sweep) {
    setenv("CUDROP_COPY_SPLIT_N", "2", 0);
    setenv("CUDROP_COPY_SPLIT_STRIDE", "0", 0);
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  int largest = 0;
  for (const char *q = sizes; *q;) {
    const int n = atoi(q);
    if (n > largest) largest = n;
    while (*q && *q != ',') ++q;
    if (*q == ',') ++q;
  }
  for (const char *p = precs; *p; ++p) {
    const char prec = *p;
    const size_t es = prec == 'z' ? 16 : 8;
    char name[16];
    snprintf(name, sizeof name, "%ccopy_", prec);
    copy_fn *cudrop = (copy_fn *)dlsym(lib, name);
    if (cudrop == NULL) {
      fprintf(stderr, "%s has no %s\n", argv[1], name);
      return 2;
    }
    { /* a first call makes cudrop resolve its CPU BLAS */
      const int two = 2, one = 1;
      double x[4] = {1, 2, 3, 4}, y[4];
      cudrop(&two, x, &one, y, &one);
    }
    copy_fn *cpu = (copy_fn *)cpu_symbol(name, (void *)cudrop);
    if (cpu == NULL) {
      fprintf(stderr, "no CPU BLAS with %s is loaded next to cudrop\n", name);
      return 2;
    }
    if (do_sweep || do_small) {
      if (do_sweep) sweep(cudrop, cpu, prec);
      else small_calls(cudrop, cpu, prec);
      continue;
    }
    for (const char *q = sizes; *q;) {
      const int n = atoi(q);
      while (*q && *q != ',') ++q;
      if (*q == ',') ++q;
      const size_t bytes = (size_t)n * n * es;
      /* a: the operand; b, b2: its Fortran-order copies (CPU BLAS, cudrop); c, c2: copied back. */
      char *a = malloc(bytes), *out[2][2] = {{malloc(bytes), malloc(bytes)}, {malloc(bytes), malloc(bytes)}};
      if (!a || !out[0][0] || !out[0][1] || !out[1][0] || !out[1][1]) return 2;
      fill(a, bytes);
      for (int k = 0; k < 4; ++k) memset(out[k / 2][k % 2], 0, bytes);
      for (int dir = 0; dir < 2; ++dir) {
        const int linearize = dir == 0;
        copy_fn *who[2] = {cpu, cudrop};
        double t[2][99];
        for (int r = 0; r < reps; ++r)
          for (int w = 0; w < 2; ++w)
            t[w][r] = pattern_seconds(who[w], linearize, n, linearize ? a : out[0][w], out[dir][w], es);
        const int same = memcmp(out[dir][0], out[dir][1], bytes) == 0 && (linearize || memcmp(out[1][0], a, bytes) == 0);
        const double c = median(t[0], reps), g = median(t[1], reps);
        printf("copy_pattern prec=%c n=%d dir=%s cpu_s=%.4f cudrop_s=%.4f speedup=%.2f same=%s\n", prec, n,
               linearize ? "linearize" : "delinearize", c, g, c / g, same ? "yes" : "NO");
        fflush(stdout);
      }
      free(a);
      for (int k = 0; k < 4; ++k) free(out[k / 2][k % 2]);
    }
  }
  if (do_sweep || do_small) return 0;

  /* The CPU LAPACK's own level-1/2 helpers: from the LAPACK cudrop loaded (a small dgetrf_
   * makes it load one), else liblapack.so.3. */
  getrf_fn *getrf = (getrf_fn *)dlsym(lib, "dgetrf_");
  if (getrf) {
    const int two = 2;
    double m[4] = {4, 1, 1, 3};
    int ipiv[2], info;
    getrf(&two, &two, m, &two, ipiv, &info);
  }
  const int n = largest;
  for (const char *p = precs; *p; ++p) {
    const char prec = *p;
    const size_t es = prec == 'z' ? 16 : 8;
    char lacpy_name[16], laswp_name[16], lange_name[16];
    snprintf(lacpy_name, sizeof lacpy_name, "%clacpy_", prec);
    snprintf(laswp_name, sizeof laswp_name, "%claswp_", prec);
    snprintf(lange_name, sizeof lange_name, "%clange_", prec);
    lacpy_fn *lacpy = (lacpy_fn *)cpu_symbol(lacpy_name, NULL);
    laswp_fn *laswp = (laswp_fn *)cpu_symbol(laswp_name, NULL);
    lange_fn *lange = (lange_fn *)cpu_symbol(lange_name, NULL);
    if (!lacpy || !laswp || !lange) {
      void *lapack = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
      if (lapack) {
        lacpy = (lacpy_fn *)dlsym(lapack, lacpy_name);
        laswp = (laswp_fn *)dlsym(lapack, laswp_name);
        lange = (lange_fn *)dlsym(lapack, lange_name);
      }
    }
    if (!lacpy || !laswp || !lange) {
      fprintf(stderr, "no CPU LAPACK with %s, %s, %s\n", lacpy_name, laswp_name, lange_name);
      return 2;
    }
    const size_t bytes = (size_t)n * n * es;
    char *a = malloc(bytes), *b = malloc(bytes);
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    double *work = malloc(sizeof(double) * (size_t)n);
    if (!a || !b || !ipiv || !work) return 2;
    fill(a, bytes), memset(b, 0, bytes);
    uint64_t s = 12345;
    for (int i = 0; i < n; ++i) { /* random forward pivots, as a partial-pivoting LU makes */
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      ipiv[i] = i + 1 + (int)(s % (uint64_t)(n - i));
    }
    const int one = 1;
    double t[3][99];
    for (int r = 0; r < reps; ++r) {
      double t0 = now_seconds();
      lacpy("A", &n, &n, a, &n, b, &n, 1);
      t[0][r] = now_seconds() - t0;
      t0 = now_seconds();
      laswp(&n, b, &n, &one, &n, ipiv, &one);
      t[1][r] = now_seconds() - t0;
      t0 = now_seconds();
      volatile double norm = lange("1", &n, &n, a, &n, work, 1);
      (void)norm;
      t[2][r] = now_seconds() - t0;
    }
    /* Bytes each must move at the least: read A, write B (lacpy); read and write every row
     * swapped, about the whole matrix (laswp); read A (lange). */
    const char *names[3] = {lacpy_name, laswp_name, lange_name};
    const double moved[3] = {2.0 * bytes, 2.0 * bytes, 1.0 * bytes};
    for (int k = 0; k < 3; ++k) {
      const double sec = median(t[k], reps);
      printf("lapack_aux prec=%c n=%d routine=%s seconds=%.4f GBps=%.2f\n", prec, n, names[k], sec,
             moved[k] / sec * 1e-9);
    }
    fflush(stdout);
    free(a), free(b), free(ipiv), free(work);
  }
  return 0;
}
