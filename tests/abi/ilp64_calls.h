/* Every routine cudrop accelerates (routines.def's rows of kind blas, lapack, cblas), called once
   each through function pointers on inputs drawn from a seed, with index type I: the same calls
   through an LP64 and an ILP64 entry must give the same bits. Shared by tests/abi/forward64_probe.c
   (--dump: cudrop's ILP64 entries against Debian's ILP64 libraries, CPU) and
   tests/abi/ilp64_gpu.c (LP64 against ILP64 entries, forced GPU).
   ILP64_RUNNER(name, T, I) defines
     int name(const struct ilp64_api *api, char p, int size, uint64_t seed, struct ilp64_result *out)
   p: 's' or 'd' (T float or double); size: the largest dimension; returns the number of results
   (ILP64_ROUTINES). Each result: the routine, the FNV-1a hash of its outputs (arrays, INFO and
   IPIV as 64-bit values), and the GPU calls and fallbacks the library counted during it.
   ILP64_COMPLEX_RUNNER(name, T, I): the same for p 'c' or 'z' (T float _Complex or double
   _Complex) over the LAPACK routines (?getrf ... ?posv; ?getrs's TRANS 'C' too): the
   ILP64_ROUTINES - ILP64_FIRST_LAPACK results. */
#ifndef CUDROP_TESTS_ILP64_CALLS_H
#define CUDROP_TESTS_ILP64_CALLS_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ILP64_ROUTINES 18
#define ILP64_FIRST_LAPACK 12 /* the steps from ?getrf on */
struct ilp64_api {
  /* The function of routine `stem` in precision p (cblas: 1 for the CBLAS one), or NULL. */
  void *(*lookup)(const struct ilp64_api *api, char p, const char *stem, int cblas);
  void *context;
  void (*counters)(long *gpu, long *cpu, long *fallbacks); /* NULL: not counted */
};
struct ilp64_result {
  char routine[24];
  uint64_t hash;
  long gpu_calls, fallbacks;
  int found;
};

static uint64_t ilp64_hash(uint64_t h, const void *data, size_t bytes) {
  const unsigned char *b = (const unsigned char *)data;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
static uint64_t ilp64_next(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}
static double ilp64_uniform(uint64_t *s) { return (double)(ilp64_next(s) >> 11) / 9007199254740992.0 * 2 - 1; }
/* Both parts drawn, the real one first (without <complex.h>, whose macro I would clash). */
static double _Complex ilp64_complex(uint64_t *s) {
  double parts[2];
  parts[0] = ilp64_uniform(s);
  parts[1] = ilp64_uniform(s);
  double _Complex z;
  memcpy(&z, parts, sizeof z);
  return z;
}

enum { ILP64_COL = 102, ILP64_ROW = 101, ILP64_NOTRANS = 111, ILP64_TRANS = 112, ILP64_UPPER = 121,
       ILP64_LOWER = 122, ILP64_NONUNIT = 131, ILP64_UNIT = 132, ILP64_LEFT = 141, ILP64_RIGHT = 142 };

#define ILP64_RUNNER(NAME, T, I) ILP64_RUNNER_FROM(NAME, T, I, 0, ilp64_uniform)
#define ILP64_COMPLEX_RUNNER(NAME, T, I) ILP64_RUNNER_FROM(NAME, T, I, ILP64_FIRST_LAPACK, ilp64_complex)
/* The steps from FIRST on, the inputs' entries drawn by VALUE(&state). */
#define ILP64_RUNNER_FROM(NAME, T, I, FIRST, VALUE)                                                              \
  static int NAME(const struct ilp64_api *api, char p, int size, uint64_t seed, struct ilp64_result *out) {      \
    uint64_t s = seed | 1;                                                                                       \
    const I n = 1 + (I)(ilp64_next(&s) % (uint64_t)size), m = 1 + (I)(ilp64_next(&s) % (uint64_t)size);         \
    const I k = 1 + (I)(ilp64_next(&s) % (uint64_t)size), pad = (I)(ilp64_next(&s) % 3);                        \
    const I ld = (n > m ? (n > k ? n : k) : (m > k ? m : k)) + pad, nrhs = 1 + (I)(ilp64_next(&s) % 5);         \
    const size_t count = (size_t)ld * (size_t)ld;                                                                \
    T *a = (T *)malloc(sizeof(T) * count), *b = (T *)malloc(sizeof(T) * count);                                 \
    T *c = (T *)malloc(sizeof(T) * count);                                                                       \
    I *ipiv = (I *)malloc(sizeof(I) * (size_t)ld), info = 0;                                                     \
    const T alpha = (T)ilp64_uniform(&s), beta = (T)ilp64_uniform(&s);                                           \
    const char tr = (ilp64_next(&s) & 1) ? 'T' : 'N', ul = (ilp64_next(&s) & 1) ? 'U' : 'L';                    \
    const char sd = (ilp64_next(&s) & 1) ? 'R' : 'L', dg = (ilp64_next(&s) & 1) ? 'U' : 'N';                    \
    const int layout = (ilp64_next(&s) & 1) ? ILP64_ROW : ILP64_COL;                                             \
    const int ctr = tr == 'T' ? ILP64_TRANS : ILP64_NOTRANS, cul = ul == 'U' ? ILP64_UPPER : ILP64_LOWER;        \
    const int csd = sd == 'R' ? ILP64_RIGHT : ILP64_LEFT, cdg = dg == 'U' ? ILP64_UNIT : ILP64_NONUNIT;          \
    int r = 0;                                                                                                   \
    for (int step = FIRST; step < ILP64_ROUTINES; ++step) {                                                      \
      static const char *const stems[ILP64_ROUTINES] = {"gemm", "symm", "syrk", "syr2k", "trmm", "trsm",       \
                                                        "gemm", "symm", "syrk", "syr2k", "trmm", "trsm",       \
                                                        "getrf", "potrf", "getrs", "potrs", "gesv", "posv"};   \
      const int cblas = step >= 6 && step < 12;                                                                  \
      struct ilp64_result *res = &out[r++];                                                                      \
      snprintf(res->routine, sizeof res->routine, "%s%c%s", cblas ? "cblas_" : "", p, stems[step]);            \
      void *fn = api->lookup(api, p, stems[step], cblas);                                                        \
      res->found = fn != NULL;                                                                                   \
      res->hash = 1469598103934665603ull, res->gpu_calls = res->fallbacks = 0;                                   \
      if (!fn) continue;                                                                                         \
      /* Fresh inputs per routine; the diagonal raised (triangles, LU and Cholesky well conditioned). */      \
      uint64_t fill_state = seed * 7919u + (uint64_t)step + 1;                                                               \
      for (size_t i = 0; i < count; ++i) a[i] = (T)VALUE(&fill_state);                                          \
      for (size_t i = 0; i < count; ++i) b[i] = (T)VALUE(&fill_state);                                          \
      for (size_t i = 0; i < count; ++i) c[i] = (T)VALUE(&fill_state);                                          \
      for (I i = 0; i < ld; ++i) a[(size_t)i * (size_t)ld + (size_t)i] += (T)(2 * ld), ipiv[i] = -7;             \
      /* SPD: A + A^T (dominant diagonal; c, z: the triangle not read holds A's other one, the                   \
         imaginary parts of the diagonal are not read either) */                                                 \
      if (step == 13 || step == 17)                                                                              \
        for (I j = 0; j < ld; ++j)                                                                               \
          for (I i = 0; i < j; ++i) a[(size_t)j * ld + i] = a[(size_t)i * ld + j];                              \
      info = -99;                                                                                                \
      long g0 = 0, c0 = 0, f0 = 0, g1 = 0, c1 = 0, f1 = 0;                                                       \
      if (api->counters) api->counters(&g0, &c0, &f0);                                                          \
      switch (step) {                                                                                            \
        case 0: ((void (*)(const char *, const char *, const I *, const I *, const I *, const T *, const T *,    \
                          const I *, const T *, const I *, const T *, T *, const I *, size_t, size_t))fn)(       \
                    &tr, "N", &m, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);                          \
                break;                                                                                           \
        case 1: ((void (*)(const char *, const char *, const I *, const I *, const T *, const T *, const I *,    \
                          const T *, const I *, const T *, T *, const I *, size_t, size_t))fn)(                  \
                    &sd, &ul, &m, &n, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);                              \
                break;                                                                                           \
        case 2: ((void (*)(const char *, const char *, const I *, const I *, const T *, const T *, const I *,    \
                          const T *, T *, const I *, size_t, size_t))fn)(&ul, &tr, &n, &k, &alpha, a, &ld,       \
                                                                          &beta, c, &ld, 1, 1);                  \
                break;                                                                                           \
        case 3: ((void (*)(const char *, const char *, const I *, const I *, const T *, const T *, const I *,    \
                          const T *, const I *, const T *, T *, const I *, size_t, size_t))fn)(                  \
                    &ul, &tr, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);                              \
                break;                                                                                           \
        case 4: case 5:                                                                                          \
                ((void (*)(const char *, const char *, const char *, const char *, const I *, const I *,        \
                           const T *, const T *, const I *, T *, const I *, size_t, size_t, size_t,             \
                           size_t))fn)(&sd, &ul, &tr, &dg, &m, &n, &alpha, a, &ld, c, &ld, 1, 1, 1, 1);          \
                break;                                                                                           \
        case 6: ((void (*)(int, int, int, I, I, I, T, const T *, I, const T *, I, T, T *, I))fn)(               \
                    layout, ctr, ILP64_NOTRANS, m, n, k, alpha, a, ld, b, ld, beta, c, ld);                      \
                break;                                                                                           \
        case 7: ((void (*)(int, int, int, I, I, T, const T *, I, const T *, I, T, T *, I))fn)(                  \
                    layout, csd, cul, m, n, alpha, a, ld, b, ld, beta, c, ld);                                   \
                break;                                                                                           \
        case 8: ((void (*)(int, int, int, I, I, T, const T *, I, T, T *, I))fn)(layout, cul, ctr, n, k, alpha,  \
                                                                                a, ld, beta, c, ld);             \
                break;                                                                                           \
        case 9: ((void (*)(int, int, int, I, I, T, const T *, I, const T *, I, T, T *, I))fn)(                  \
                    layout, cul, ctr, n, k, alpha, a, ld, b, ld, beta, c, ld);                                   \
                break;                                                                                           \
        case 10: case 11:                                                                                        \
                ((void (*)(int, int, int, int, int, I, I, T, const T *, I, T *, I))fn)(                          \
                    layout, csd, cul, ctr, cdg, m, n, alpha, a, ld, c, ld);                                      \
                break;                                                                                           \
        case 12: ((void (*)(const I *, const I *, T *, const I *, I *, I *))fn)(&m, &n, a, &ld, ipiv, &info);   \
                 break;                                                                                          \
        case 13: ((void (*)(const char *, const I *, T *, const I *, I *, size_t))fn)(&ul, &n, a, &ld, &info,  \
                                                                                       1);                       \
                 break;                                                                                          \
        case 14: { /* with a square LU of its own, then the solve (c, z: 'C' on even seeds for 'T') */           \
                 void *getrf = api->lookup(api, p, "getrf", 0);                                                  \
                 const char gtr = tr == 'T' && (p == 'c' || p == 'z') && seed % 2 == 0 ? 'C' : tr;               \
                 ((void (*)(const I *, const I *, T *, const I *, I *, I *))getrf)(&n, &n, a, &ld, ipiv, &info); \
                 if (api->counters) api->counters(&g0, &c0, &f0);                                               \
                 ((void (*)(const char *, const I *, const I *, const T *, const I *, const I *, T *, const I *, \
                            I *, size_t))fn)(&gtr, &n, &nrhs, a, &ld, ipiv, c, &ld, &info, 1);                  \
                 break;                                                                                          \
               }                                                                                                 \
        case 15: {                                                                                               \
                 void *potrf = api->lookup(api, p, "potrf", 0);                                                  \
                 for (I j = 0; j < ld; ++j)                                                                      \
                   for (I i = 0; i < j; ++i) a[(size_t)j * ld + i] = a[(size_t)i * ld + j];                     \
                 ((void (*)(const char *, const I *, T *, const I *, I *, size_t))potrf)(&ul, &n, a, &ld, &info, \
                                                                                          1);                    \
                 if (api->counters) api->counters(&g0, &c0, &f0);                                               \
                 ((void (*)(const char *, const I *, const I *, const T *, const I *, T *, const I *, I *,       \
                            size_t))fn)(&ul, &n, &nrhs, a, &ld, c, &ld, &info, 1);                               \
                 break;                                                                                          \
               }                                                                                                 \
        case 16: ((void (*)(const I *, const I *, T *, const I *, I *, T *, const I *, I *))fn)(                 \
                     &n, &nrhs, a, &ld, ipiv, c, &ld, &info);                                                    \
                 break;                                                                                          \
        case 17: ((void (*)(const char *, const I *, const I *, T *, const I *, T *, const I *, I *,             \
                            size_t))fn)(&ul, &n, &nrhs, a, &ld, c, &ld, &info, 1);                               \
                 break;                                                                                          \
      }                                                                                                          \
      if (api->counters) api->counters(&g1, &c1, &f1);                                                          \
      res->gpu_calls = g1 - g0, res->fallbacks = f1 - f0;                                                        \
      (void)c0, (void)c1;                                                                                        \
      res->hash = ilp64_hash(res->hash, a, sizeof(T) * count);                                                   \
      res->hash = ilp64_hash(res->hash, c, sizeof(T) * count);                                                   \
      int64_t wide = (int64_t)info;                                                                              \
      res->hash = ilp64_hash(res->hash, &wide, sizeof wide);                                                     \
      for (I i = 0; i < ld; ++i) wide = (int64_t)ipiv[i], res->hash = ilp64_hash(res->hash, &wide, sizeof wide); \
    }                                                                                                            \
    free(a), free(b), free(c), free(ipiv);                                                              \
    return r;                                                                                                    \
  }

#endif
