/* gemm_args: the reference (netlib) argument checking of ?gemm_ and cblas_?gemm (s, d, c, z),
 * as the BLAS testers see it.
 *
 * This program defines its own xerbla_ and cblas_xerbla (as the testers do) and links the
 * reference CBLAS (-lblas, after cudrop): with cudrop, its handlers must be called exactly
 * as without it, with the reference INFO numbers in the reference order, the name "SGEMM "
 * blank-padded to 6 with hidden length 6, and then the call returns without touching any
 * array. Checks come before the quick return; quick returns touch nothing, and no illegal
 * call is counted as a call. CBLAS: layout->1, TransA->2, TransB->3 (row-major: 2, the
 * reference's own quirk) through cblas_xerbla("cblas_sgemm"); every other error of a
 * row-major call is reported by the column-major routine through xerbla_ with the numbering
 * of the swapped call (A<->B, M<->N) while RowMajorStrg == 1, and RowMajorStrg is 0 again
 * afterwards. RowMajorStrg and CBLAS_CallFromC are the reference library's: cudrop has none.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrop.h"

extern int RowMajorStrg;
extern int CBLAS_CallFromC;

/* ---- the handlers, recording what they were given ---- */
static int xerbla_calls, cblas_xerbla_calls;
static char last_name[64];
static size_t last_len;
static int last_info;
static int last_rowmajor;
static int last_callfromc;

void xerbla_(const char *srname, const int *info, size_t srname_len) {
  ++xerbla_calls;
  size_t n = srname_len < sizeof last_name - 1 ? srname_len : sizeof last_name - 1;
  memcpy(last_name, srname, n);
  last_name[n] = '\0';
  last_len = srname_len;
  last_info = *info;
  last_rowmajor = RowMajorStrg;
  last_callfromc = CBLAS_CallFromC;
}

void cblas_xerbla(int info, const char *routine, const char *form, ...) {
  (void)form;
  ++cblas_xerbla_calls;
  snprintf(last_name, sizeof last_name, "%s", routine);
  last_len = 0;
  last_info = info;
  last_rowmajor = RowMajorStrg;
  last_callfromc = CBLAS_CallFromC;
}

static void reset_handlers(void) {
  xerbla_calls = cblas_xerbla_calls = 0;
  last_name[0] = '\0';
  last_len = 0;
  last_info = -999;
  last_rowmajor = -1;
  last_callfromc = -1;
}

static int failures, checks;
#define CHECK(cond, ...)                                          \
  do {                                                            \
    ++checks;                                                     \
    if (!(cond)) {                                                \
      ++failures;                                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                 \
      printf(__VA_ARGS__);                                        \
      printf("\n");                                               \
    }                                                             \
  } while (0)

/* ---- arrays: big enough for every call below, filled with a byte pattern ---- */
#define NELEM 4096
static double abuf[NELEM + 8], bbuf[NELEM + 8], cbuf[NELEM + 8];
static double asave[NELEM + 8], bsave[NELEM + 8], csave[NELEM + 8];

static void fill_sentinels(void) {
  /* -1e10 like the netlib testers' padding, with varying low bits so that any moved
   * byte shows. The arrays are used as float or double: both views are finite. */
  for (int i = 0; i < NELEM + 8; ++i) {
    abuf[i] = -1.0e10 - i;
    bbuf[i] = -2.0e10 - i;
    cbuf[i] = -3.0e10 - i;
  }
  memcpy(asave, abuf, sizeof abuf);
  memcpy(bsave, bbuf, sizeof bbuf);
  memcpy(csave, cbuf, sizeof cbuf);
}

static int arrays_untouched(void) {
  return memcmp(asave, abuf, sizeof abuf) == 0 && memcmp(bsave, bbuf, sizeof bbuf) == 0 &&
         memcmp(csave, cbuf, sizeof cbuf) == 0;
}

/* Calls cudrop sent to the CPU BLAS underneath so far. */
static long cpu_calls_so_far(void) {
  long gpu = 0, cpu = 0, fallbacks = 0;
  cudrop_counters(&gpu, &cpu, &fallbacks);
  return cpu;
}

/* One Fortran-interface call with every argument given; returns nothing, the caller
 * inspects the handler record. Also checks that no scalar argument was written. */
static void call_f77(char prec, const char *ta, const char *tb, int m, int n, int k, double alpha,
                     int lda, int ldb, double beta, int ldc) {
  const int m0 = m, n0 = n, k0 = k, lda0 = lda, ldb0 = ldb, ldc0 = ldc;
  char ta_copy[32], tb_copy[32];
  snprintf(ta_copy, sizeof ta_copy, "%s", ta);
  snprintf(tb_copy, sizeof tb_copy, "%s", tb);
  if (prec == 's') {
    float fa = (float)alpha, fb = (float)beta;
    sgemm_(ta_copy, tb_copy, &m, &n, &k, &fa, (float *)abuf, &lda, (float *)bbuf, &ldb, &fb,
           (float *)cbuf, &ldc, strlen(ta), strlen(tb));
    CHECK(fa == (float)alpha && fb == (float)beta, "sgemm_ wrote alpha/beta");
  } else if (prec == 'c') {
    /* A complex alpha, but alpha = 0 where the quick returns want it. */
    const float im = alpha == 0 ? 0.0f : 0.25f;
    float fa[2] = {(float)alpha, im}, fb[2] = {(float)beta, 0.0f};
    cgemm_(ta_copy, tb_copy, &m, &n, &k, fa, abuf, &lda, bbuf, &ldb, fb, cbuf, &ldc, strlen(ta), strlen(tb));
    CHECK(fa[0] == (float)alpha && fa[1] == im && fb[0] == (float)beta && fb[1] == 0.0f, "cgemm_ wrote alpha/beta");
  } else if (prec == 'z') {
    const double im = alpha == 0 ? 0.0 : 0.25;
    double za[2] = {alpha, im}, zb[2] = {beta, 0.0};
    zgemm_(ta_copy, tb_copy, &m, &n, &k, za, abuf, &lda, bbuf, &ldb, zb, cbuf, &ldc, strlen(ta), strlen(tb));
    CHECK(za[0] == alpha && za[1] == im && zb[0] == beta && zb[1] == 0.0, "zgemm_ wrote alpha/beta");
  } else {
    double da = alpha, db = beta;
    dgemm_(ta_copy, tb_copy, &m, &n, &k, &da, abuf, &lda, bbuf, &ldb, &db, cbuf, &ldc,
           strlen(ta), strlen(tb));
    CHECK(da == alpha && db == beta, "dgemm_ wrote alpha/beta");
  }
  CHECK(m == m0 && n == n0 && k == k0 && lda == lda0 && ldb == ldb0 && ldc == ldc0,
        "%cgemm_ wrote an integer argument", prec);
  CHECK(strcmp(ta_copy, ta) == 0 && strcmp(tb_copy, tb) == 0, "%cgemm_ wrote TRANSA/TRANSB", prec);
}

/* Expect exactly one xerbla_ call with this INFO and nothing touched. */
static void expect_f77_error(char prec, const char *ta, const char *tb, int m, int n, int k,
                             int lda, int ldb, int ldc, int info, const char *what) {
  const char name[7] = {(char)(prec - 'a' + 'A'), 'G', 'E', 'M', 'M', ' ', 0};
  fill_sentinels();
  reset_handlers();
  const long cpu_before = cpu_calls_so_far();
  call_f77(prec, ta, tb, m, n, k, 1.5, lda, ldb, 0.5, ldc);
  CHECK(cpu_calls_so_far() == cpu_before, "%cgemm_ %s: the illegal call was counted as a call", prec, what);
  CHECK(xerbla_calls == 1 && cblas_xerbla_calls == 0,
        "%cgemm_ %s: xerbla_ called %d times, cblas_xerbla %d times (want 1, 0)", prec, what,
        xerbla_calls, cblas_xerbla_calls);
  CHECK(last_info == info, "%cgemm_ %s: INFO %d, want %d", prec, what, last_info, info);
  CHECK(strcmp(last_name, name) == 0 && last_len == 6,
        "%cgemm_ %s: name \"%s\" length %zu, want \"%s\" length 6", prec, what, last_name,
        last_len, name);
  CHECK(arrays_untouched(), "%cgemm_ %s: an array was modified after the error", prec, what);
}

/* Expect no handler call and no array touched (quick returns). */
static void expect_f77_untouched(char prec, const char *ta, const char *tb, int m, int n, int k,
                                 double alpha, int lda, int ldb, double beta, int ldc,
                                 const char *what) {
  fill_sentinels();
  reset_handlers();
  const long cpu_before = cpu_calls_so_far();
  call_f77(prec, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc);
  /* The reference's own branches are cudrop's: whatever the BLAS underneath would do. */
  CHECK(cpu_calls_so_far() == cpu_before, "%cgemm_ %s: the call reached the BLAS underneath", prec, what);
  CHECK(xerbla_calls == 0 && cblas_xerbla_calls == 0, "%cgemm_ %s: error handler called (INFO %d)",
        prec, what, last_info);
  CHECK(arrays_untouched(), "%cgemm_ %s: an array was modified by a quick return", prec, what);
}

/* Valid transpose spellings compute the right thing: a 3x4x5 product checked in double. */
static void expect_f77_valid(char prec, const char *ta, const char *tb) {
  if (prec == 'c' || prec == 'z') return; /* complex results: tests/gemm/complex_gemm_accuracy.cpp */
  const int m = 3, n = 4, k = 5, lda = 7, ldb = 8, ldc = 6;
  const int ta_t = (ta[0] != 'N' && ta[0] != 'n'), tb_t = (tb[0] != 'N' && tb[0] != 'n');
  double A[7 * 5], B[8 * 5], C[6 * 4], Cref[6 * 4];
  float Af[7 * 5], Bf[8 * 5], Cf[6 * 4];
  for (int i = 0; i < 7 * 5; ++i) A[i] = 0.25 + 0.125 * ((i * 7) % 11) - (i % 3 == 0 ? 1.0 : 0.0);
  for (int i = 0; i < 8 * 5; ++i) B[i] = -0.5 + 0.0625 * ((i * 5) % 13) + (i % 4 == 1 ? 0.75 : 0.0);
  for (int i = 0; i < 6 * 4; ++i) C[i] = 0.375 * ((i % 5) + 1) - 1.0;
  const double alpha = -1.25, beta = 0.5;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) {
      if (i >= m) { Cref[i + j * ldc] = C[i + j * ldc]; continue; }
      double s = 0;
      for (int l = 0; l < k; ++l) {
        const double a = ta_t ? A[l + i * lda] : A[i + l * lda];
        const double b = tb_t ? B[j + l * ldb] : B[l + j * ldb];
        s += a * b;
      }
      Cref[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
    }
  reset_handlers();
  double err = 0;
  if (prec == 's') {
    for (int i = 0; i < 7 * 5; ++i) Af[i] = (float)A[i];
    for (int i = 0; i < 8 * 5; ++i) Bf[i] = (float)B[i];
    for (int i = 0; i < 6 * 4; ++i) Cf[i] = (float)C[i];
    const float fa = (float)alpha, fb = (float)beta;
    sgemm_(ta, tb, &m, &n, &k, &fa, Af, &lda, Bf, &ldb, &fb, Cf, &ldc, strlen(ta), strlen(tb));
    for (int i = 0; i < 6 * 4; ++i) err = fmax(err, fabs(Cf[i] - Cref[i]));
    CHECK(err < 1e-5, "sgemm_(\"%s\",\"%s\") wrong result: max error %g", ta, tb, err);
  } else {
    dgemm_(ta, tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, strlen(ta), strlen(tb));
    for (int i = 0; i < 6 * 4; ++i) err = fmax(err, fabs(C[i] - Cref[i]));
    CHECK(err < 1e-13, "dgemm_(\"%s\",\"%s\") wrong result: max error %g", ta, tb, err);
  }
  CHECK(xerbla_calls == 0 && cblas_xerbla_calls == 0,
        "%cgemm_(\"%s\",\"%s\") rejected (INFO %d)", prec, ta, tb, last_info);
}

static void test_f77(char prec) {
  /* Each argument alone. */
  expect_f77_error(prec, "X", "N", 2, 2, 2, 2, 2, 2, 1, "TRANSA='X'");
  expect_f77_error(prec, "x", "N", 2, 2, 2, 2, 2, 2, 1, "TRANSA='x'");
  expect_f77_error(prec, " ", "N", 2, 2, 2, 2, 2, 2, 1, "TRANSA=' '");
  expect_f77_error(prec, "R", "T", 2, 2, 2, 2, 2, 2, 1, "TRANSA='R'");
  expect_f77_error(prec, "/", "N", 2, 2, 2, 2, 2, 2, 1, "TRANSA='/'");
  expect_f77_error(prec, "N", "X", 2, 2, 2, 2, 2, 2, 2, "TRANSB='X'");
  expect_f77_error(prec, "T", "y", 2, 2, 2, 2, 2, 2, 2, "TRANSB='y'");
  expect_f77_error(prec, "c", "Q", 2, 2, 2, 2, 2, 2, 2, "TRANSB='Q'");
  expect_f77_error(prec, "N", "N", -1, 2, 2, 2, 2, 2, 3, "M<0");
  expect_f77_error(prec, "N", "N", 2, -1, 2, 2, 2, 2, 4, "N<0");
  expect_f77_error(prec, "N", "N", 2, 2, -1, 2, 2, 2, 5, "K<0");
  /* LDA < max(1, nrowA): nrowA = M when A is not transposed, K when it is. */
  expect_f77_error(prec, "N", "N", 5, 2, 3, 4, 3, 5, 8, "LDA<M (A not transposed)");
  expect_f77_error(prec, "N", "N", 3, 2, 5, 2, 5, 3, 8, "LDA<M (K larger is irrelevant)");
  expect_f77_error(prec, "T", "N", 3, 2, 5, 4, 5, 3, 8, "LDA<K (A transposed)");
  expect_f77_error(prec, "C", "N", 3, 2, 5, 4, 5, 3, 8, "LDA<K (A conjugate-transposed)");
  expect_f77_error(prec, "N", "N", 2, 2, 2, 0, 2, 2, 8, "LDA=0");
  expect_f77_error(prec, "N", "N", 2, 2, 2, -3, 2, 2, 8, "LDA<0");
  /* LDB < max(1, nrowB): nrowB = K when B is not transposed, N when it is. */
  expect_f77_error(prec, "N", "N", 2, 3, 5, 2, 4, 2, 10, "LDB<K (B not transposed)");
  expect_f77_error(prec, "N", "T", 2, 5, 3, 2, 4, 2, 10, "LDB<N (B transposed)");
  expect_f77_error(prec, "N", "c", 2, 5, 3, 2, 4, 2, 10, "LDB<N (B conjugate-transposed)");
  expect_f77_error(prec, "N", "N", 2, 2, 2, 2, 0, 2, 10, "LDB=0");
  expect_f77_error(prec, "N", "N", 5, 2, 2, 5, 2, 4, 13, "LDC<M");
  expect_f77_error(prec, "T", "T", 5, 2, 2, 2, 2, 4, 13, "LDC<M (transposed)");
  expect_f77_error(prec, "N", "N", 2, 2, 2, 2, 2, 0, 13, "LDC=0");
  /* Valid for the not-transposed case, wrong once transposed: nrowA/nrowB really follow TRANS. */
  expect_f77_error(prec, "T", "N", 5, 2, 6, 5, 6, 5, 8, "LDA=M but A transposed needs K");
  expect_f77_error(prec, "N", "T", 2, 5, 3, 2, 3, 2, 10, "LDB=K but B transposed needs N");
  /* Precedence when several are bad: the first in reference order wins. */
  expect_f77_error(prec, "X", "X", -1, -1, -1, 0, 0, 0, 1, "everything bad");
  expect_f77_error(prec, "N", "X", -1, -1, -1, 0, 0, 0, 2, "all but TRANSA bad");
  expect_f77_error(prec, "N", "N", -1, -1, -1, 0, 0, 0, 3, "M,N,K,LDs bad");
  expect_f77_error(prec, "N", "N", 2, -1, -1, 0, 0, 0, 4, "N,K,LDs bad");
  expect_f77_error(prec, "N", "N", 2, 2, -1, 0, 0, 0, 5, "K,LDs bad");
  expect_f77_error(prec, "N", "N", 2, 2, 2, 1, 1, 1, 8, "LDA,LDB,LDC bad");
  expect_f77_error(prec, "N", "N", 2, 2, 2, 2, 1, 1, 10, "LDB,LDC bad");
  expect_f77_error(prec, "T", "T", 3, 4, 5, 4, 3, 2, 8, "transposed: LDA<K, LDB<N, LDC<M");
  expect_f77_error(prec, "T", "T", 3, 4, 5, 5, 3, 2, 10, "transposed: LDB<N, LDC<M");
  /* Only the first character is read; long names are fine, long garbage is not. */
  expect_f77_error(prec, "Xo transpose", "N", 2, 2, 2, 2, 2, 2, 1, "TRANSA='Xo transpose'");
  expect_f77_error(prec, "No transpose", "Yes", 2, 2, 2, 2, 2, 2, 2, "TRANSB='Yes'");
  /* Checks before the quick return: M=0 with a bad LDA still reports 8, etc. */
  expect_f77_error(prec, "N", "N", 0, 2, 2, 0, 2, 1, 8, "M=0, LDA=0");
  expect_f77_error(prec, "N", "N", 0, 0, 0, 0, 1, 1, 8, "M=N=K=0, LDA=0");
  expect_f77_error(prec, "N", "N", 2, 0, 2, 2, 1, 2, 10, "N=0, LDB<K");
  expect_f77_error(prec, "N", "N", 2, 0, 2, 2, 2, 1, 13, "N=0, LDC<M");
  expect_f77_error(prec, "N", "N", 2, 2, 0, 2, 0, 2, 10, "K=0, LDB=0");
  expect_f77_error(prec, "X", "N", 0, 0, 0, 1, 1, 1, 1, "M=N=K=0, TRANSA bad");
  expect_f77_error(prec, "N", "N", 0, -1, 0, 1, 1, 1, 4, "M=0, N<0");

  /* Quick returns: nothing read or written (the arrays hold -1e10 sentinels, C too). */
  expect_f77_untouched(prec, "N", "N", 0, 3, 3, 1.5, 1, 3, 0.0, 1, "M=0");
  expect_f77_untouched(prec, "T", "N", 3, 0, 3, 1.5, 3, 3, 0.0, 3, "N=0");
  expect_f77_untouched(prec, "N", "N", 0, 0, 0, 1.5, 1, 1, 0.0, 1, "M=N=K=0");
  expect_f77_untouched(prec, "N", "T", 4, 3, 5, 0.0, 4, 3, 1.0, 4, "alpha=0, beta=1");
  expect_f77_untouched(prec, "T", "N", 5, 3, 4, -0.0, 4, 4, 1.0, 5, "alpha=-0, beta=1");
  expect_f77_untouched(prec, "N", "N", 4, 3, 0, 1.5, 4, 1, 1.0, 4, "K=0, beta=1");
  expect_f77_untouched(prec, "C", "C", 4, 3, 0, 1.5, 1, 3, 1.0, 4, "K=0, beta=1, transposed");

  /* Valid spellings of TRANS: either case, 'C', and only the first character read. */
  const char *valid[] = {"N", "n", "T", "t", "C", "c", "No transpose", "Transpose",
                         "Conjugate transpose", "nonsense after n", "tX"};
  for (size_t i = 0; i < sizeof valid / sizeof valid[0]; ++i)
    for (size_t j = 0; j < sizeof valid / sizeof valid[0]; j += 3) {
      expect_f77_valid(prec, valid[i], valid[j]);
      expect_f77_valid(prec, valid[j], valid[i]);
    }
}

/* ---- CBLAS ---- */
typedef struct {
  int handler; /* 1 = xerbla_, 2 = cblas_xerbla */
  int info;
  int rowmajor; /* RowMajorStrg at the time of the call */
} Expect;

static void call_cblas(char prec, int layout, int ta, int tb, int m, int n, int k, int lda,
                       int ldb, int ldc) {
  const float ca[2] = {1.5f, 0.25f}, cb[2] = {0.5f, 0.0f};
  const double za[2] = {1.5, 0.25}, zb[2] = {0.5, 0.0};
  if (prec == 'c')
    cblas_cgemm((CBLAS_LAYOUT)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n, k, ca, abuf, lda,
                bbuf, ldb, cb, cbuf, ldc);
  else if (prec == 'z')
    cblas_zgemm((CBLAS_LAYOUT)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n, k, za, abuf, lda,
                bbuf, ldb, zb, cbuf, ldc);
  else if (prec == 's')
    cblas_sgemm((CBLAS_LAYOUT)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n,
                k, 1.5f, (float *)abuf, lda, (float *)bbuf, ldb, 0.5f, (float *)cbuf, ldc);
  else
    cblas_dgemm((CBLAS_LAYOUT)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb, m, n,
                k, 1.5, abuf, lda, bbuf, ldb, 0.5, cbuf, ldc);
}

static void expect_cblas(char prec, int layout, int ta, int tb, int m, int n, int k, int lda,
                         int ldb, int ldc, Expect want, const char *what) {
  const char cname[12] = {'c', 'b', 'l', 'a', 's', '_', prec, 'g', 'e', 'm', 'm', 0};
  const char fname[7] = {(char)(prec - 'a' + 'A'), 'G', 'E', 'M', 'M', ' ', 0};
  fill_sentinels();
  reset_handlers();
  RowMajorStrg = 0;
  CBLAS_CallFromC = 0;
  call_cblas(prec, layout, ta, tb, m, n, k, lda, ldb, ldc);
  if (want.handler == 2) {
    CHECK(cblas_xerbla_calls == 1 && xerbla_calls == 0,
          "%s %s: cblas_xerbla called %d times, xerbla_ %d times (want 1, 0)", cname, what,
          cblas_xerbla_calls, xerbla_calls);
    CHECK(strcmp(last_name, cname) == 0, "%s %s: routine \"%s\", want \"%s\"", cname, what,
          last_name, cname);
  } else {
    CHECK(xerbla_calls == 1 && cblas_xerbla_calls == 0,
          "%s %s: xerbla_ called %d times, cblas_xerbla %d times (want 1, 0)", cname, what,
          xerbla_calls, cblas_xerbla_calls);
    CHECK(strcmp(last_name, fname) == 0 && last_len == 6,
          "%s %s: xerbla_ name \"%s\" length %zu, want \"%s\" length 6", cname, what, last_name,
          last_len, fname);
  }
  CHECK(last_info == want.info, "%s %s: INFO %d, want %d", cname, what, last_info, want.info);
  CHECK(last_rowmajor == want.rowmajor, "%s %s: RowMajorStrg was %d during the handler, want %d",
        cname, what, last_rowmajor, want.rowmajor);
  CHECK(last_callfromc == 1, "%s %s: CBLAS_CallFromC was %d during the handler, want 1", cname,
        what, last_callfromc);
  CHECK(RowMajorStrg == 0 && CBLAS_CallFromC == 0,
        "%s %s: afterwards RowMajorStrg=%d CBLAS_CallFromC=%d, want 0 0", cname, what,
        RowMajorStrg, CBLAS_CallFromC);
  CHECK(arrays_untouched(), "%s %s: an array was modified after the error", cname, what);
}

static void test_cblas(char prec) {
  const int R = CblasRowMajor, Cm = CblasColMajor, N = CblasNoTrans, T = CblasTrans,
            CT = CblasConjTrans;
  /* Row-major TransB is reported as parameter 2: reference cblas_sgemm.c passes 2 there. */
  const Expect cb1 = {2, 1, 0}, cb2c = {2, 2, 0}, cb3c = {2, 3, 0}, cb2r = {2, 2, 1},
               cb3r = {2, 2, 1};
  /* Layout, TransA, TransB: through cblas_xerbla. */
  expect_cblas(prec, 0, N, N, 2, 2, 2, 2, 2, 2, cb1, "layout=0");
  expect_cblas(prec, 100, N, N, 2, 2, 2, 2, 2, 2, cb1, "layout=100");
  expect_cblas(prec, 103, 0, 0, -1, 2, 2, 2, 2, 2, cb1, "layout=103, rest bad too");
  expect_cblas(prec, Cm, 110, N, 2, 2, 2, 2, 2, 2, cb2c, "col-major TransA=110");
  expect_cblas(prec, Cm, 114, 0, -1, 2, 2, 2, 2, 2, cb2c, "col-major TransA=114, rest bad");
  expect_cblas(prec, Cm, N, 0, 2, 2, 2, 2, 2, 2, cb3c, "col-major TransB=0");
  expect_cblas(prec, Cm, CT, 'N', -1, 2, 2, 2, 2, 2, cb3c, "col-major TransB='N', M<0");
  expect_cblas(prec, R, 'T', N, 2, 2, 2, 2, 2, 2, cb2r, "row-major TransA='T'");
  expect_cblas(prec, R, 0, 0, 2, 2, 2, 2, 2, 2, cb2r, "row-major both Trans bad");
  expect_cblas(prec, R, T, 1, 2, 2, 2, 2, 2, 2, cb3r, "row-major TransB=1");

  /* Column-major: the Fortran numbering through xerbla_, RowMajorStrg 0. */
  const Expect f3 = {1, 3, 0}, f4 = {1, 4, 0}, f5 = {1, 5, 0}, f8 = {1, 8, 0}, f10 = {1, 10, 0},
               f13 = {1, 13, 0};
  expect_cblas(prec, Cm, N, N, -1, 2, 2, 2, 2, 2, f3, "col-major M<0");
  expect_cblas(prec, Cm, N, N, 2, -1, 2, 2, 2, 2, f4, "col-major N<0");
  expect_cblas(prec, Cm, N, N, -1, -1, 2, 2, 2, 2, f3, "col-major M<0,N<0");
  expect_cblas(prec, Cm, N, N, 2, 2, -1, 2, 2, 2, f5, "col-major K<0");
  expect_cblas(prec, Cm, N, N, 5, 2, 2, 4, 2, 5, f8, "col-major LDA<M");
  expect_cblas(prec, Cm, T, N, 2, 2, 5, 4, 5, 2, f8, "col-major TransA LDA<K");
  expect_cblas(prec, Cm, N, N, 2, 2, 5, 2, 4, 2, f10, "col-major LDB<K");
  expect_cblas(prec, Cm, N, CT, 2, 5, 2, 2, 4, 2, f10, "col-major TransB LDB<N");
  expect_cblas(prec, Cm, N, N, 5, 2, 2, 5, 2, 4, f13, "col-major LDC<M");
  expect_cblas(prec, Cm, N, N, 0, 2, 2, 0, 2, 1, f8, "col-major M=0, LDA=0 (before quick return)");

  /* Row-major: C^T = op(B)^T op(A)^T, i.e. the column-major routine called with
   * (TransB, TransA, N, M, K, B, ldb, A, lda, C, ldc): M<0 -> 4, N<0 -> 3, K<0 -> 5,
   * the row-major LDB (first matrix of the swapped call) -> 8, LDA -> 10, LDC<N -> 13. */
  const Expect r3 = {1, 3, 1}, r4 = {1, 4, 1}, r5 = {1, 5, 1}, r8 = {1, 8, 1}, r10 = {1, 10, 1},
               r13 = {1, 13, 1};
  expect_cblas(prec, R, N, N, -1, 2, 2, 2, 2, 2, r4, "row-major M<0");
  expect_cblas(prec, R, N, N, 2, -1, 2, 2, 2, 2, r3, "row-major N<0");
  expect_cblas(prec, R, N, N, -1, -1, 2, 2, 2, 2, r3, "row-major M<0,N<0 (N is checked first)");
  expect_cblas(prec, R, N, N, 2, 2, -1, 2, 2, 2, r5, "row-major K<0");
  expect_cblas(prec, R, N, N, 2, -1, -1, 2, 2, 2, r3, "row-major N<0,K<0");
  /* Row-major A (M x K, not transposed) needs lda >= K. */
  expect_cblas(prec, R, N, N, 7, 2, 5, 4, 2, 2, r10, "row-major LDA<K");
  /* Row-major A transposed (stored K x M) needs lda >= M. */
  expect_cblas(prec, R, T, N, 5, 2, 7, 4, 2, 2, r10, "row-major TransA LDA<M");
  /* Row-major B (K x N) needs ldb >= N; transposed (stored N x K) ldb >= K. */
  expect_cblas(prec, R, N, N, 2, 5, 2, 2, 4, 5, r8, "row-major LDB<N");
  expect_cblas(prec, R, N, T, 2, 2, 5, 5, 4, 2, r8, "row-major TransB LDB<K");
  /* Row-major C (M x N) needs ldc >= N. */
  expect_cblas(prec, R, N, N, 2, 5, 2, 2, 5, 4, r13, "row-major LDC<N");
  /* Precedence in the swapped call: LDB (8) before LDA (10) before LDC (13). */
  expect_cblas(prec, R, N, N, 2, 5, 5, 4, 4, 4, r8, "row-major LDA,LDB,LDC bad");
  expect_cblas(prec, R, N, N, 2, 5, 5, 4, 5, 4, r10, "row-major LDA,LDC bad");
  /* Before the quick return. */
  expect_cblas(prec, R, N, N, 0, 2, 2, 2, 1, 2, r8, "row-major M=0, LDB<N");
  expect_cblas(prec, R, N, N, 2, 0, 2, 2, 1, 0, r13, "row-major N=0, LDC=0");
}

int main(void) {
  /* Twice: the first pass's valid calls open the short way of small CPU calls (the x86-64
   * entry in capi/gemm.cpp), so the second pass sends every bad argument through it too. */
  for (int pass = 0; pass < 2; ++pass) {
    test_f77('s');
    test_f77('d');
  }
  test_f77('c');
  test_f77('z');
  test_cblas('s');
  test_cblas('d');
  test_cblas('c');
  test_cblas('z');
  long gpu = 0, cpu = 0, fallbacks = 0;
  cudrop_counters(&gpu, &cpu, &fallbacks);
  printf("gemm_args: %d checks, %d failed (cudrop counters: gpu_calls=%ld cpu_calls=%ld "
         "gpu_fallbacks=%ld)\n",
         checks, failures, gpu, cpu, fallbacks);
  return failures == 0 ? 0 : 1;
}
