// level3_args: the reference argument checks of ?symm, ?syrk, ?syr2k, ?trmm, ?trsm (s, d, c, z),
// ?hemm, ?herk, ?her2k (c, z) and their CBLAS forms, as the BLAS testers see them (tests/gemm/gemm_args.c does the same for GEMM).
// This program defines its own xerbla_ and cblas_xerbla and links the reference CBLAS (-lblas,
// after cudrop): each illegal call must reach them exactly as without cudrop (the reference's
// INFO, first illegal argument in the reference's order, the blank-padded name, length 6), touch
// no array and not count as a call. CBLAS: layout 1, then Side/Uplo/Trans/Diag by position
// through cblas_xerbla; a row-major call's other errors come from the column-major routine with
// the numbering of the swapped call. Quick returns touch nothing; alpha = 0 zeroes B of TRMM/TRSM
// without reading A or B.
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "cudrop.h"
#include "tests/harness/check.h"

extern "C" {
extern int RowMajorStrg;
static int xerbla_calls, cblas_xerbla_calls, last_info;
static std::string last_name;
static size_t last_len;
void xerbla_(const char *srname, const int *info, size_t srname_len) {
  ++xerbla_calls;
  last_name.assign(srname, srname_len);
  last_len = srname_len;
  last_info = *info;
}
void cblas_xerbla(int info, const char *routine, const char *, ...) {
  ++cblas_xerbla_calls;
  last_name = routine;
  last_len = 0;
  last_info = info;
}
}

namespace {

constexpr int kElems = 256;
double abuf[kElems], bbuf[kElems], cbuf[kElems], saved[3][kElems];

void fill() {
  for (int i = 0; i < kElems; ++i) abuf[i] = -1e10 - i, bbuf[i] = -2e10 - i, cbuf[i] = -3e10 - i;
  std::memcpy(saved[0], abuf, sizeof abuf);
  std::memcpy(saved[1], bbuf, sizeof bbuf);
  std::memcpy(saved[2], cbuf, sizeof cbuf);
  xerbla_calls = cblas_xerbla_calls = 0;
  last_info = -999;
  last_name.clear();
}
bool untouched() {
  return !std::memcmp(saved[0], abuf, sizeof abuf) && !std::memcmp(saved[1], bbuf, sizeof bbuf) &&
         !std::memcmp(saved[2], cbuf, sizeof cbuf);
}
long cpu_calls() {
  long g = 0, c = 0, f = 0;
  cudrop_counters(&g, &c, &f);
  return c + g;
}

// One call of routine `r` (symm, syrk, syr2k, trmm, trsm; c, z: hemm, herk, her2k too) in precision
// p ('s', 'd', 'c', 'z'): the characters, then m, n (SYRK: n, k), lda, ldb, ldc.
struct F77 {
  const char *c1, *c2, *c3, *c4;
  int m, n, lda, ldb, ldc;
};
// The complex calls: arrays and scalars by address (COMPLEX: two floats, COMPLEX*16: two doubles).
void call_f77_complex(char p, const std::string &r, const F77 &a, double alpha) {
  int m = a.m, n = a.n, lda = a.lda, ldb = a.ldb, ldc = a.ldc;
  const double alpha_im = alpha == 0 ? 0 : 0.25;
  const double za[2] = {alpha, alpha_im}, zb[2] = {0.5, -0.25}, dr[2] = {alpha, 0.5};
  const float ca[2] = {float(alpha), float(alpha_im)}, cb[2] = {0.5f, -0.25f}, fr[2] = {float(alpha), 0.5f};
  const bool c = p == 'c';
  const void *al = c ? (const void *)ca : za, *be = c ? (const void *)cb : zb;
  const void *ral = c ? (const void *)&fr[0] : &dr[0], *rbe = c ? (const void *)&fr[1] : &dr[1];  // real scalars
  if (r == "symm" || r == "hemm") {
    auto f = r == "symm" ? (c ? csymm_ : zsymm_) : (c ? chemm_ : zhemm_);
    f(a.c1, a.c2, &m, &n, al, abuf, &lda, bbuf, &ldb, be, cbuf, &ldc, 1, 1);
  } else if (r == "syrk") {
    (c ? csyrk_ : zsyrk_)(a.c1, a.c2, &m, &n, al, abuf, &lda, be, cbuf, &ldc, 1, 1);
  } else if (r == "herk") {
    if (c) cherk_(a.c1, a.c2, &m, &n, (const float *)ral, abuf, &lda, (const float *)rbe, cbuf, &ldc, 1, 1);
    else zherk_(a.c1, a.c2, &m, &n, (const double *)ral, abuf, &lda, (const double *)rbe, cbuf, &ldc, 1, 1);
  } else if (r == "syr2k") {
    (c ? csyr2k_ : zsyr2k_)(a.c1, a.c2, &m, &n, al, abuf, &lda, bbuf, &ldb, be, cbuf, &ldc, 1, 1);
  } else if (r == "her2k") {
    if (c) cher2k_(a.c1, a.c2, &m, &n, al, abuf, &lda, bbuf, &ldb, (const float *)rbe, cbuf, &ldc, 1, 1);
    else zher2k_(a.c1, a.c2, &m, &n, al, abuf, &lda, bbuf, &ldb, (const double *)rbe, cbuf, &ldc, 1, 1);
  } else {
    auto f = r == "trmm" ? (c ? ctrmm_ : ztrmm_) : (c ? ctrsm_ : ztrsm_);
    f(a.c1, a.c2, a.c3, a.c4, &m, &n, al, abuf, &lda, bbuf, &ldb, 1, 1, 1, 1);
  }
}

void call_f77(char p, const std::string &r, const F77 &a, double alpha = 1.5) {
  if (p == 'c' || p == 'z') return call_f77_complex(p, r, a, alpha);
  int m = a.m, n = a.n, lda = a.lda, ldb = a.ldb, ldc = a.ldc;
  const double beta = 0.5;
  const float fa = float(alpha), fb = float(beta);
  float *fa_ = reinterpret_cast<float *>(abuf), *fb_ = reinterpret_cast<float *>(bbuf), *fc_ = reinterpret_cast<float *>(cbuf);
  if (r == "symm") {
    if (p == 's') ssymm_(a.c1, a.c2, &m, &n, &fa, fa_, &lda, fb_, &ldb, &fb, fc_, &ldc, 1, 1);
    else dsymm_(a.c1, a.c2, &m, &n, &alpha, abuf, &lda, bbuf, &ldb, &beta, cbuf, &ldc, 1, 1);
  } else if (r == "syrk") {
    if (p == 's') ssyrk_(a.c1, a.c2, &m, &n, &fa, fa_, &lda, &fb, fc_, &ldc, 1, 1);
    else dsyrk_(a.c1, a.c2, &m, &n, &alpha, abuf, &lda, &beta, cbuf, &ldc, 1, 1);
  } else if (r == "syr2k") {
    if (p == 's') ssyr2k_(a.c1, a.c2, &m, &n, &fa, fa_, &lda, fb_, &ldb, &fb, fc_, &ldc, 1, 1);
    else dsyr2k_(a.c1, a.c2, &m, &n, &alpha, abuf, &lda, bbuf, &ldb, &beta, cbuf, &ldc, 1, 1);
  } else {
    auto sf = r == "trmm" ? strmm_ : strsm_;
    auto df = r == "trmm" ? dtrmm_ : dtrsm_;
    if (p == 's') sf(a.c1, a.c2, a.c3, a.c4, &m, &n, &fa, fa_, &lda, fb_, &ldb, 1, 1, 1, 1);
    else df(a.c1, a.c2, a.c3, a.c4, &m, &n, &alpha, abuf, &lda, bbuf, &ldb, 1, 1, 1, 1);
  }
}

std::string handler_name(char p, const std::string &r) {
  std::string name(1, char(p - 'a' + 'A'));
  for (char ch : r) name += char(std::toupper(static_cast<unsigned char>(ch)));
  name.resize(6, ' ');
  return name;
}

void expect_f77_error(char p, const std::string &r, const F77 &a, int info) {
  fill();
  const long before = cpu_calls();
  call_f77(p, r, a);
  const std::string name = handler_name(p, r);
  CHECK(xerbla_calls == 1 && cblas_xerbla_calls == 0, "%c%s info %d: xerbla_ %d calls, cblas_xerbla %d", p, r.c_str(),
        info, xerbla_calls, cblas_xerbla_calls);
  CHECK(last_info == info, "%c%s: INFO %d, want %d", p, r.c_str(), last_info, info);
  CHECK(last_name == name && last_len == 6, "%c%s: name \"%s\" (%zu), want \"%s\"", p, r.c_str(), last_name.c_str(),
        last_len, name.c_str());
  CHECK(untouched(), "%c%s info %d: an array changed", p, r.c_str(), info);
  CHECK(cpu_calls() == before, "%c%s info %d: counted as a call", p, r.c_str(), info);
}

void fortran_checks(char p) {
  // SYMM: SIDE 1, UPLO 2, M 3, N 4, LDA 7 (rows of A: M on the left, N on the right), LDB 9, LDC 12.
  expect_f77_error(p, "symm", {"X", "U", "", "", 3, 4, 3, 3, 3}, 1);
  expect_f77_error(p, "symm", {"L", "X", "", "", -1, 4, 3, 3, 3}, 2);
  expect_f77_error(p, "symm", {"l", "u", "", "", -1, -1, 3, 3, 3}, 3);
  expect_f77_error(p, "symm", {"R", "L", "", "", 3, -1, 3, 3, 3}, 4);
  expect_f77_error(p, "symm", {"L", "U", "", "", 3, 4, 2, 3, 3}, 7);
  expect_f77_error(p, "symm", {"R", "U", "", "", 3, 4, 3, 3, 3}, 7);
  expect_f77_error(p, "symm", {"R", "U", "", "", 3, 4, 4, 2, 3}, 9);
  expect_f77_error(p, "symm", {"L", "U", "", "", 3, 4, 3, 3, 2}, 12);
  // SYRK: UPLO 1, TRANS 2, N 3, K 4, LDA 7 (rows of A: N for 'N', K otherwise), LDC 10.
  expect_f77_error(p, "syrk", {"X", "N", "", "", 3, 2, 3, 0, 3}, 1);
  expect_f77_error(p, "syrk", {"U", "X", "", "", -1, 2, 3, 0, 3}, 2);
  expect_f77_error(p, "syrk", {"U", "T", "", "", -1, -1, 3, 0, 3}, 3);
  // 'C' for the real ones, 'T' for the complex ones (whose CSYRK/CSYR2K reject 'C').
  const bool complex = p == 'c' || p == 'z';
  expect_f77_error(p, "syrk", {"L", complex ? "T" : "C", "", "", 3, -1, 3, 0, 3}, 4);
  expect_f77_error(p, "syrk", {"L", "N", "", "", 3, 4, 2, 0, 3}, 7);
  expect_f77_error(p, "syrk", {"L", "T", "", "", 3, 4, 3, 0, 3}, 7);
  expect_f77_error(p, "syrk", {"U", "T", "", "", 3, 2, 2, 0, 2}, 10);
  // SYR2K: as SYRK, LDB 9, LDC 12.
  expect_f77_error(p, "syr2k", {"X", "N", "", "", 3, 2, 3, 3, 3}, 1);
  expect_f77_error(p, "syr2k", {"U", complex ? "t" : "c", "", "", 3, -2, 3, 3, 3}, 4);
  expect_f77_error(p, "syr2k", {"U", "N", "", "", 3, 2, 2, 3, 3}, 7);
  expect_f77_error(p, "syr2k", {"U", "N", "", "", 3, 2, 3, 2, 3}, 9);
  expect_f77_error(p, "syr2k", {"U", "T", "", "", 3, 2, 2, 2, 2}, 12);
  // TRMM/TRSM: SIDE 1, UPLO 2, TRANSA 3, DIAG 4, M 5, N 6, LDA 9, LDB 11.
  for (const char *r : {"trmm", "trsm"}) {
    expect_f77_error(p, r, {"X", "U", "N", "N", 3, 4, 3, 3, 0}, 1);
    expect_f77_error(p, r, {"L", "X", "N", "N", 3, 4, 3, 3, 0}, 2);
    expect_f77_error(p, r, {"L", "U", "X", "N", -3, 4, 3, 3, 0}, 3);
    expect_f77_error(p, r, {"L", "U", "C", "X", -3, 4, 3, 3, 0}, 4);
    expect_f77_error(p, r, {"r", "l", "t", "u", -3, -4, 3, 3, 0}, 5);
    expect_f77_error(p, r, {"R", "L", "T", "U", 3, -4, 3, 3, 0}, 6);
    expect_f77_error(p, r, {"L", "L", "T", "U", 3, 4, 2, 3, 0}, 9);
    expect_f77_error(p, r, {"R", "L", "T", "U", 3, 4, 3, 3, 0}, 9);
    expect_f77_error(p, r, {"R", "L", "T", "U", 3, 4, 4, 2, 0}, 11);
  }
  if (complex) {
    // HEMM: as SYMM. CSYRK/CSYR2K take TRANS N or T only, CHERK/CHER2K N or C only (else 2).
    expect_f77_error(p, "hemm", {"X", "U", "", "", 3, 4, 3, 3, 3}, 1);
    expect_f77_error(p, "hemm", {"L", "X", "", "", -1, 4, 3, 3, 3}, 2);
    expect_f77_error(p, "hemm", {"R", "U", "", "", 3, 4, 3, 3, 3}, 7);
    expect_f77_error(p, "hemm", {"R", "U", "", "", 3, 4, 4, 2, 3}, 9);
    expect_f77_error(p, "hemm", {"L", "U", "", "", 3, 4, 3, 3, 2}, 12);
    expect_f77_error(p, "syrk", {"U", "C", "", "", 3, 2, 3, 0, 3}, 2);
    expect_f77_error(p, "syr2k", {"U", "c", "", "", 3, 2, 3, 3, 3}, 2);
    expect_f77_error(p, "herk", {"U", "T", "", "", 3, 2, 3, 0, 3}, 2);
    expect_f77_error(p, "her2k", {"L", "t", "", "", 3, 2, 3, 3, 3}, 2);
    expect_f77_error(p, "herk", {"X", "N", "", "", 3, 2, 3, 0, 3}, 1);
    expect_f77_error(p, "herk", {"U", "C", "", "", -1, -1, 3, 0, 3}, 3);
    expect_f77_error(p, "herk", {"L", "C", "", "", 3, -1, 3, 0, 3}, 4);
    expect_f77_error(p, "herk", {"L", "N", "", "", 3, 4, 2, 0, 3}, 7);
    expect_f77_error(p, "herk", {"L", "C", "", "", 3, 4, 3, 0, 3}, 7);
    expect_f77_error(p, "herk", {"U", "c", "", "", 3, 2, 2, 0, 2}, 10);
    expect_f77_error(p, "her2k", {"X", "N", "", "", 3, 2, 3, 3, 3}, 1);
    expect_f77_error(p, "her2k", {"U", "C", "", "", 3, -2, 3, 3, 3}, 4);
    expect_f77_error(p, "her2k", {"U", "N", "", "", 3, 2, 2, 3, 3}, 7);
    expect_f77_error(p, "her2k", {"U", "N", "", "", 3, 2, 3, 2, 3}, 9);
    expect_f77_error(p, "her2k", {"U", "C", "", "", 3, 2, 2, 2, 2}, 12);
  }
  // Quick returns touch nothing and make no call.
  for (const char *r : {"symm", "trmm", "trsm"}) {
    fill();
    const long before = cpu_calls();
    call_f77(p, r, {"L", "U", "N", "N", 0, 4, 1, 1, 1});
    CHECK(untouched() && xerbla_calls == 0 && cpu_calls() == before, "%c%s m = 0 touched something", p, r);
  }
  // alpha = 0: B = 0 (TRMM/TRSM), A not read (NaN there stays out).
  for (const char *r : {"trmm", "trsm"}) {
    fill();
    for (int i = 0; i < kElems; ++i) abuf[i] = NAN;
    call_f77(p, r, {"L", "U", "N", "N", 3, 2, 3, 4, 0}, 0.0);
    bool zero = true;
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 3; ++i)
        for (int part = 0; part < (p == 'c' || p == 'z' ? 2 : 1); ++part) {
          const int e = (p == 'c' || p == 'z' ? 2 : 1) * (i + 4 * j) + part;
          zero = zero && (p == 's' || p == 'c' ? reinterpret_cast<float *>(bbuf)[e] == 0.0f : bbuf[e] == 0.0);
        }
    CHECK(zero && xerbla_calls == 0, "%c%s alpha = 0: B not zeroed", p, r);
  }
}

void expect_cblas(const char *what, int info, bool from_f77, const std::string &name) {
  CHECK(from_f77 ? (xerbla_calls == 1 && cblas_xerbla_calls == 0) : (cblas_xerbla_calls == 1 && xerbla_calls == 0),
        "%s: xerbla_ %d calls, cblas_xerbla %d", what, xerbla_calls, cblas_xerbla_calls);
  CHECK(last_info == info && last_name == name, "%s: INFO %d name \"%s\", want %d \"%s\"", what, last_info,
        last_name.c_str(), info, name.c_str());
  CHECK(untouched(), "%s: an array changed", what);
  CHECK(RowMajorStrg == 0, "%s: RowMajorStrg left at %d", what, RowMajorStrg);
}

void cblas_checks() {
  const auto R = CblasRowMajor, C = CblasColMajor;
  fill();
  cblas_dtrsm(CBLAS_LAYOUT(99), CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 3, 3, 1.0, abuf, 3, bbuf, 3);
  expect_cblas("cblas_dtrsm layout", 1, false, "cblas_dtrsm");
  fill();
  cblas_strmm(R, CBLAS_SIDE(99), CblasUpper, CblasNoTrans, CblasNonUnit, 3, 3, 1.0f, (float *)abuf, 3, (float *)bbuf, 3);
  expect_cblas("cblas_strmm side", 2, false, "cblas_strmm");
  fill();
  cblas_dtrmm(C, CblasLeft, CBLAS_UPLO(99), CblasNoTrans, CblasNonUnit, 3, 3, 1.0, abuf, 3, bbuf, 3);
  expect_cblas("cblas_dtrmm uplo", 3, false, "cblas_dtrmm");
  fill();
  cblas_dtrsm(C, CblasLeft, CblasLower, CBLAS_TRANSPOSE(99), CblasNonUnit, 3, 3, 1.0, abuf, 3, bbuf, 3);
  expect_cblas("cblas_dtrsm trans", 4, false, "cblas_dtrsm");
  fill();
  cblas_dtrsm(R, CblasLeft, CblasLower, CblasTrans, CBLAS_DIAG(99), 3, 3, 1.0, abuf, 3, bbuf, 3);
  expect_cblas("cblas_dtrsm diag", 5, false, "cblas_dtrsm");
  // Row-major: the column-major call on the transposed problem (M <-> N, side swapped).
  fill();
  cblas_dtrsm(R, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 3, 4, 1.0, abuf, 2, bbuf, 4);
  expect_cblas("cblas_dtrsm row-major lda", 9, true, "DTRSM ");
  fill();
  cblas_dtrsm(R, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 3, -1, 1.0, abuf, 3, bbuf, 4);
  expect_cblas("cblas_dtrsm row-major n", 5, true, "DTRSM ");
  fill();
  cblas_ssymm(C, CBLAS_SIDE(0), CblasUpper, 3, 3, 1.0f, (float *)abuf, 3, (float *)bbuf, 3, 0.0f, (float *)cbuf, 3);
  expect_cblas("cblas_ssymm side", 2, false, "cblas_ssymm");
  fill();
  cblas_dsymm(R, CblasLeft, CblasUpper, 3, 4, 1.0, abuf, 3, bbuf, 4, 0.0, cbuf, 3);
  expect_cblas("cblas_dsymm row-major ldc", 12, true, "DSYMM ");
  fill();
  cblas_dsyrk(C, CblasUpper, CBLAS_TRANSPOSE(0), 3, 3, 1.0, abuf, 3, 0.0, cbuf, 3);
  expect_cblas("cblas_dsyrk trans", 3, false, "cblas_dsyrk");
  fill();
  // Row-major: the reference's SYRK, HERK and SYR2K report Uplo as parameter 3 (HER2K as 2).
  cblas_ssyrk(R, CBLAS_UPLO(0), CblasNoTrans, 3, 3, 1.0f, (float *)abuf, 3, 0.0f, (float *)cbuf, 3);
  expect_cblas("cblas_ssyrk uplo", 3, false, "cblas_ssyrk");
  fill();
  cblas_dsyrk(R, CblasUpper, CblasNoTrans, 3, 4, 1.0, abuf, 3, 0.0, cbuf, 3);  // row-major NoTrans: lda >= k
  expect_cblas("cblas_dsyrk row-major lda", 7, true, "DSYRK ");
  fill();
  cblas_dsyr2k(C, CblasUpper, CblasNoTrans, 3, 4, 1.0, abuf, 3, bbuf, 2, 0.0, cbuf, 3);
  expect_cblas("cblas_dsyr2k ldb", 9, true, "DSYR2K");

  // Complex: scalars by address, HERK's and HER2K's beta (and HERK's alpha) real by value.
  const double z1[2] = {1, 0};
  const float c1[2] = {1, 0};
  fill();
  cblas_zherk(C, CblasUpper, CblasTrans, 3, 3, 1.0, abuf, 3, 0.0, cbuf, 3);  // CHERK takes N or C
  expect_cblas("cblas_zherk trans", 2, true, "ZHERK ");
  fill();
  cblas_cherk(R, CblasUpper, CblasNoTrans, 3, 4, 1.0f, abuf, 3, 0.0f, cbuf, 3);  // row-major NoTrans: 'C', lda >= k
  expect_cblas("cblas_cherk row-major lda", 7, true, "CHERK ");
  fill();
  cblas_zsyrk(C, CblasUpper, CblasConjTrans, 3, 3, z1, abuf, 3, z1, cbuf, 3);  // CSYRK takes N or T
  expect_cblas("cblas_zsyrk conjtrans", 2, true, "ZSYRK ");
  fill();
  cblas_cher2k(C, CBLAS_UPLO(0), CblasNoTrans, 3, 3, c1, abuf, 3, bbuf, 3, 0.0f, cbuf, 3);
  expect_cblas("cblas_cher2k uplo", 2, false, "cblas_cher2k");
  fill();
  cblas_zher2k(C, CblasUpper, CblasNoTrans, 3, 4, z1, abuf, 3, bbuf, 2, 0.0, cbuf, 3);
  expect_cblas("cblas_zher2k ldb", 9, true, "ZHER2K");
  fill();
  cblas_chemm(R, CblasLeft, CblasUpper, 3, 4, c1, abuf, 3, bbuf, 4, c1, cbuf, 3);
  expect_cblas("cblas_chemm row-major ldc", 12, true, "CHEMM ");
  fill();
  cblas_zhemm(C, CBLAS_SIDE(0), CblasUpper, 3, 3, z1, abuf, 3, bbuf, 3, z1, cbuf, 3);
  expect_cblas("cblas_zhemm side", 2, false, "cblas_zhemm");
  fill();
  cblas_ztrsm(R, CblasLeft, CblasUpper, CblasConjTrans, CblasNonUnit, 3, 4, z1, abuf, 2, bbuf, 4);
  expect_cblas("cblas_ztrsm row-major lda", 9, true, "ZTRSM ");
  fill();
  cblas_ctrmm(C, CblasLeft, CblasLower, CBLAS_TRANSPOSE(99), CblasNonUnit, 3, 3, c1, abuf, 3, bbuf, 3);
  expect_cblas("cblas_ctrmm trans", 4, false, "cblas_ctrmm");
  fill();
  cblas_csymm(C, CblasRight, CblasUpper, 3, 4, c1, abuf, 4, bbuf, 3, c1, cbuf, 2);
  expect_cblas("cblas_csymm ldc", 12, true, "CSYMM ");
}

}  // namespace

int main() {
  for (char p : {'s', 'd', 'c', 'z'}) fortran_checks(p);
  cblas_checks();
  std::printf("%d checks, %d failures\n%s\n", checks, failures, failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
