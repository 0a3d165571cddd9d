/* forward64: calls with 64-bit integers through cudrop's ILP64 names (tests/abi/forward64.sh). Built
   twice: -DSFX=64_ against libcudrop_full (dgemm_64_, cblas_ddot64_, dgesv_64_), and with SFX
   empty against libcudrop64 (dgemm_, cblas_ddot, dgesv_). Before any call it loads an LP64
   libblas.so.3 and liblapack.so.3 into the global scope (argv[1], argv[2]): the forwarders must
   still reach an ILP64 library, never those (whose dgemm_ would read half of each integer).
   Each result is checked against a loop; an integer argument's upper half set where the
   reference reads it (LDA = 2^32 + lda would be wrong) is caught by the checks. Prints one line
   per check; exit 0 when all pass.
   `--dump [libraries to load first...]`: every routine cudrop accelerates, in s and d, and the
   LAPACK ones in c and z too (tests/abi/ilp64_calls.h), one line each: its name and the hash of its outputs, to compare with the
   same probe linked against Debian's ILP64 libraries directly. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef SFX
#define SFX
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define F(name) CAT(name##_, SFX)
#define C(name) CAT(name, SFX)

#define STR2(x) #x
#define STR(x) STR2(x)

#include "ilp64_calls.h"

typedef int64_t I;
void F(dgemm)(const char *, const char *, const I *, const I *, const I *, const double *, const double *,
              const I *, const double *, const I *, const double *, double *, const I *, size_t, size_t);
void F(sgemm)(const char *, const char *, const I *, const I *, const I *, const float *, const float *,
              const I *, const float *, const I *, const float *, float *, const I *, size_t, size_t);
void F(dgesv)(const I *, const I *, double *, const I *, I *, double *, const I *, I *);
I F(idamax)(const I *, const double *, const I *);
double C(cblas_ddot)(I, const double *, I, const double *, I);
void F(dgetrs)(const char *, const I *, const I *, const double *, const I *, const I *, double *, const I *, I *,
               size_t);

ILP64_RUNNER(run_all, double, I)
ILP64_RUNNER(run_all_s, float, I)
ILP64_COMPLEX_RUNNER(run_lapack_c, float _Complex, I)
ILP64_COMPLEX_RUNNER(run_lapack_z, double _Complex, I)
static void *lookup(const struct ilp64_api *api, char p, const char *stem, int cblas) {
  (void)api;
  char name[48];
  snprintf(name, sizeof name, cblas ? "cblas_%c%s%s" : "%c%s_%s", p, stem, STR(SFX));
  return dlsym(RTLD_DEFAULT, name);
}
static int dump(void) {
  const struct ilp64_api api = {lookup, NULL, NULL};
  struct ilp64_result res[ILP64_ROUTINES];
  int missing = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed)
    for (int prec = 0; prec < 4; ++prec) {
      const char p = "sdcz"[prec];
      const int count = p == 's'   ? run_all_s(&api, p, 24, seed, res)
                        : p == 'd' ? run_all(&api, p, 24, seed, res)
                        : p == 'c' ? run_lapack_c(&api, p, 24, seed, res)
                                   : run_lapack_z(&api, p, 24, seed, res);
      for (int i = 0; i < count; ++i) {
        printf("%s seed %d: %016llx\n", res[i].routine, (int)seed, (unsigned long long)res[i].hash);
        missing += !res[i].found;
      }
    }
  return missing != 0;
}

static int failures;
static void check(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "--illegal") == 0 && strcmp(argv[2], "getrs") == 0) {
    /* LDB = 0 (parameter 8) with no IPIV at all: checked before IPIV is read. */
    const I n = 2, one = 1, zero = 0;
    I info = 5;
    double x[4] = {1, 0, 0, 1};
    void (*getrs)(const char *, const I *, const I *, const double *, const I *, const I *, double *, const I *,
                  I *, size_t) = (void (*)(const char *, const I *, const I *, const double *, const I *, const I *,
                                           double *, const I *, I *, size_t))dlsym(RTLD_DEFAULT, "dgetrs_" STR(SFX));
    getrs("N", &n, &one, x, &n, NULL, x, &zero, &info, 1);
    printf("returned, INFO = %lld\n", (long long)info);
    return 0;
  }
  if (argc > 2 && strcmp(argv[1], "--illegal") == 0 && strcmp(argv[2], "cblas_dsyrk") == 0) {
    /* Uplo = 0: CBLAS's own message through the ILP64 library's cblas_xerbla. */
    double x = 1;
    void (*syrk)(int, int, int, I, I, double, const double *, I, double, double *, I) =
        (void (*)(int, int, int, I, I, double, const double *, I, double, double *, I))dlsym(RTLD_DEFAULT,
                                                                                             "cblas_dsyrk" STR(SFX));
    syrk(102, 0, 111, 1, 1, 1.0, &x, 1, 1.0, &x, 1);
    printf("returned\n");
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--illegal") == 0) {
    /* M = -1: the reference's message through the ILP64 library's handler. */
    const I m = -1, one = 1;
    double x = 1;
    F(dgemm)("N", "N", &m, &one, &one, &x, &x, &one, &x, &one, &x, &x, &one, 1, 1);
    printf("returned\n");
    return 0;
  }
  const int dumping = argc > 1 && strcmp(argv[1], "--dump") == 0;
  for (int i = 1 + dumping; i < argc; ++i)
    if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) {
      printf("FAIL: dlopen %s: %s\n", argv[i], dlerror());
      return 1;
    }
  if (dumping) return dump();
  /* C(5x3) = A(5x4) B(4x3), lda 7, ldb 4, ldc 6. */
  enum { M = 5, N = 3, K = 4, LDA = 7, LDB = 4, LDC = 6 };
  double a[LDA * K], b[LDB * N], c[LDC * N], want[LDC * N];
  for (int i = 0; i < LDA * K; ++i) a[i] = (i * 37 % 11) - 5.0;
  for (int i = 0; i < LDB * N; ++i) b[i] = (i * 13 % 7) - 3.0;
  for (int i = 0; i < LDC * N; ++i) c[i] = want[i] = i;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i) {
      double s = 0;
      for (int l = 0; l < K; ++l) s += a[i + l * LDA] * b[l + j * LDB];
      want[i + j * LDC] = 2 * s + 0.5 * want[i + j * LDC];
    }
  const I m = M, n = N, k = K, lda = LDA, ldb = LDB, ldc = LDC;
  const double alpha = 2, beta = 0.5;
  F(dgemm)("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  check(memcmp(c, want, sizeof c) == 0, "dgemm with 64-bit integers: C = 2AB + C/2, rows past M untouched");

  /* The same in single precision (values exact in float). */
  float fa[LDA * K], fb[LDB * N], fc[LDC * N];
  for (int i = 0; i < LDA * K; ++i) fa[i] = (float)a[i];
  for (int i = 0; i < LDB * N; ++i) fb[i] = (float)b[i];
  for (int i = 0; i < LDC * N; ++i) fc[i] = (float)i;
  const float falpha = 2, fbeta = 0.5f;
  F(sgemm)("N", "N", &m, &n, &k, &falpha, fa, &lda, fb, &ldb, &fbeta, fc, &ldc, 1, 1);
  int same = 1;
  for (int i = 0; i < LDC * N; ++i) same &= fc[i] == (float)want[i];
  check(same, "sgemm with 64-bit integers");

  /* An LDA past 2^31 is legal where A has one column (K = 1): only A(1:M, 1) is read. */
  {
    const I m3 = 3, n2 = 2, k1 = 1, big_lda = ((I)1 << 31) + 5, ldb1 = 1, ldc3 = 3;
    double a1[3] = {1, 2, 3}, b1[2] = {10, 100}, c1[6] = {0}, zero = 0, one_d = 1;
    F(dgemm)("N", "N", &m3, &n2, &k1, &one_d, a1, &big_lda, b1, &ldb1, &zero, c1, &ldc3, 1, 1);
    check(c1[0] == 10 && c1[2] == 30 && c1[3] == 100 && c1[5] == 300, "dgemm with LDA = 2^31 + 5 (K = 1)");
  }

  const double x[] = {1, -9, 3, 9.5, 2};
  const I five = 5, one = 1;
  check(F(idamax)(&five, x, &one) == 4, "idamax with 64-bit integers returns a 64-bit 4");
  check(C(cblas_ddot)(5, x, 1, x, 1) == 1 + 81 + 9 + 90.25 + 4, "cblas_ddot with 64-bit integers");

  /* A x = b, 3x3, LDA 4: x = (1, 2, 3). */
  double la[4 * 3] = {4, 1, 2, -1, 1, 5, 1, -1, 2, 1, 6, -1};
  double rhs[3];
  for (int i = 0; i < 3; ++i) rhs[i] = la[i] * 1 + la[i + 4] * 2 + la[i + 8] * 3;
  I ipiv[3] = {-1, -1, -1}, info = -77;
  const I three = 3, four = 4;
  F(dgesv)(&three, &one, la, &four, ipiv, rhs, &three, &info);
  check(info == 0 && fabs(rhs[0] - 1) < 1e-12 && fabs(rhs[1] - 2) < 1e-12 && fabs(rhs[2] - 3) < 1e-12,
        "dgesv with 64-bit integers solves, INFO a 64-bit 0");
  check(ipiv[0] >= 1 && ipiv[0] <= 3 && ipiv[2] == 3 && la[3] == -1 && la[7] == -1,
        "dgesv's IPIV 64-bit, A's row past N untouched");

  /* The LU above, solved again with LDB = 2^31 + 5 (legal; NRHS = 1 reads B's first column only):
     past an int, the whole call on the ILP64 library. */
  {
    const I big_ldb = ((I)1 << 31) + 5;
    double rhs2[3];
    for (int i = 0; i < 3; ++i) rhs2[i] = (double)(i + 1);
    double want2[3] = {rhs2[0], rhs2[1], rhs2[2]};
    I info2 = -77;
    F(dgetrs)("N", &three, &one, la, &four, ipiv, want2, &three, &info2, 1);
    info2 = -77;
    F(dgetrs)("N", &three, &one, la, &four, ipiv, rhs2, &big_ldb, &info2, 1);
    check(info2 == 0 && memcmp(rhs2, want2, sizeof rhs2) == 0, "dgetrs with LDB = 2^31 + 5 as with LDB = 3");
  }
  return failures != 0;
}
