// level3_accuracy: ?symm, ?syrk, ?syr2k, ?trmm, ?trsm (s, d, c, z) and ?hemm, ?herk, ?her2k (c, z)
// (Fortran, CBLAS column- and row-major) against the reference BLAS (tests/harness/reference.h, loaded apart from cudrop) on the same
// inputs, every side/uplo/trans/diag, odd sizes, padded leading dimensions, views one element
// into their buffers (not 16-byte aligned), alpha 0/1/other, beta 0/1/other.
//
// What every call must satisfy:
//  * accuracy: max|C - Cref| / (scale eps) < kBound, scale = |alpha| K maxA maxB + |beta| maxC0
//    (K the inner dimension; SYR2K twice that; SYRK and HERK times max(1, sqrt(K) / 4), their
//    diagonal's sums of one sign); TRSM: max|X - Xref| / (max|Xref| order eps) <
//    kSolveBound, A diagonally dominant (well conditioned). scale == 0: exactly equal.
//  * what the routine may not read is NaN: the other triangle of A (and its diagonal with
//    diag = 'U'), C's written part when beta = 0, A and B when alpha = 0, the imaginary parts of
//    a Hermitian A's diagonal (HEMM) and of C's diagonal (HERK, HER2K); no NaN may come out.
//  * HERK, HER2K: the imaginary parts of C's diagonal come out exactly zero.
// Complex magnitudes are |re| + |im| (at least the modulus, and submultiplicative).
//  * nothing outside what the routine writes changes, byte for byte: C's other triangle
//    (SYRK, SYR2K), padding rows past m, guard elements before and after each view; A and B
//    (inputs) unchanged.
// A row-major CBLAS call is made on the same storage, read as the transposed problem (side and
// triangle swapped, M and N swapped; SYRK's trans flipped; HER2K's alpha conjugated, as reference
// CBLAS conjugates it back): its answer is the column-major one.
//
// Options: --max-size N (largest dimension of the normal shapes, default 2100), --prec (any of sdcz), --shapes
// normal|partial|chunked (side-L TRSM/TRMM/SYMM only, for the fault injected part way / for a
// capped device memory), -v, and the placement options (tests/harness/options.h). --expect-partial:
// at the end gpu_calls > 0 and gpu_fallbacks > 0 (with CUDROP_TEST_FAULT_INJECT=launch:N a
// chunked side-L call failed part way and was finished on the CPU).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/complex.h"
#define CUDROP_COMPLEX_FLOAT cudrop::Complex<float>
#define CUDROP_COMPLEX_DOUBLE cudrop::Complex<double>
#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

constexpr double kBound = 4.0, kSolveBound = 16.0;
constexpr double kSentinel = -7777.5;

struct Options {
  long max_size = 2100;
  std::string prec = "sdcz", shapes = "normal";
  bool verbose = false, expect_partial = false;
  harness::Placement placement;
};
Options opt;

using cudrop::Complex;
enum class Op { symm, syrk, syr2k, trmm, trsm, hemm, herk, her2k };
const char *op_name(Op op) {
  static const char *names[] = {"symm", "syrk", "syr2k", "trmm", "trsm", "hemm", "herk", "her2k"};
  return names[int(op)];
}
bool hermitian(Op op) { return op == Op::hemm || op == Op::herk || op == Op::her2k; }

// Element helpers for real and complex T.
template <class T> constexpr bool is_complex = cudrop::is_complex_v<T>;
template <class T> using Real = cudrop::real_t<T>;
template <class T> double mag(T v) { return std::fabs(double(cudrop::real_part(v))) + std::fabs(double(cudrop::imag_part(v))); }
template <class T> bool has_nan(T v) { return std::isnan(cudrop::real_part(v)) || std::isnan(cudrop::imag_part(v)); }
// NaN parts replaced by 0.
template <class T> T without_nan(T v) {
  if constexpr (is_complex<T>) return T(std::isnan(v.re) ? 0 : v.re, std::isnan(v.im) ? 0 : v.im);
  else return std::isnan(v) ? T(0) : v;
}
// v with a NaN imaginary part (a place never read); v itself for real T.
template <class T> T with_nan_imaginary(T v) {
  if constexpr (is_complex<T>) v.im = Real<T>(NAN);
  return v;
}
template <class T> T random_value(Rng &rng) {
  if constexpr (is_complex<T>) return T(Real<T>(rng.symmetric()), Real<T>(rng.symmetric()));
  else return T(rng.symmetric());
}
// A scalar of the case: real x, or for complex T x with an imaginary part (a real one stays real
// where the routine takes a real scalar).
template <class T> T scalar(double x, bool real) {
  if constexpr (is_complex<T>) return T(Real<T>(x), real || x == 0 || x == 1 ? Real<T>(0) : Real<T>(0.4 * x));
  else return T(x);
}
// The scalar argument of a CBLAS entry: by value for s and d, by address for c and z.
template <class T> auto cblas_arg(const T &v) {
  if constexpr (is_complex<T>) return static_cast<const void *>(&v);
  else return v;
}

template <class T> struct Fns;
#define CUDROP_FNS(T, p)                                                                                       \
  template <> struct Fns<T> {                                                                                   \
    static constexpr auto symm = p##symm_;                                                                      \
    static constexpr auto syrk = p##syrk_;                                                                      \
    static constexpr auto syr2k = p##syr2k_;                                                                    \
    static constexpr auto trmm = p##trmm_;                                                                      \
    static constexpr auto trsm = p##trsm_;                                                                      \
    static constexpr auto csymm = cblas_##p##symm;                                                              \
    static constexpr auto csyrk = cblas_##p##syrk;                                                              \
    static constexpr auto csyr2k = cblas_##p##syr2k;                                                            \
    static constexpr auto ctrmm = cblas_##p##trmm;                                                              \
    static constexpr auto ctrsm = cblas_##p##trsm;                                                              \
    static constexpr const char *prefix = #p;                                                                   \
  };
CUDROP_FNS(float, s)
CUDROP_FNS(double, d)
CUDROP_FNS(Complex<float>, c)
CUDROP_FNS(Complex<double>, z)
#undef CUDROP_FNS

// The Hermitian routines (c and z only).
template <class T> struct HermitianFns;
#define CUDROP_HERMITIAN_FNS(T, p)                  \
  template <> struct HermitianFns<T> {              \
    static constexpr auto hemm = p##hemm_;          \
    static constexpr auto herk = p##herk_;          \
    static constexpr auto her2k = p##her2k_;        \
    static constexpr auto chemm = cblas_##p##hemm;  \
    static constexpr auto cherk = cblas_##p##herk;  \
    static constexpr auto cher2k = cblas_##p##her2k; \
  };
CUDROP_HERMITIAN_FNS(Complex<float>, c)
CUDROP_HERMITIAN_FNS(Complex<double>, z)
#undef CUDROP_HERMITIAN_FNS

// The reference routines, with cudrop's Fortran signatures.
template <class T> struct Reference {
  std::remove_const_t<decltype(Fns<T>::symm)> symm = nullptr;
  std::remove_const_t<decltype(Fns<T>::syrk)> syrk = nullptr;
  std::remove_const_t<decltype(Fns<T>::syr2k)> syr2k = nullptr;
  std::remove_const_t<decltype(Fns<T>::trmm)> trmm = nullptr;
  std::remove_const_t<decltype(Fns<T>::trsm)> trsm = nullptr;
  // c, z: ?hemm_, ?herk_, ?her2k_ (the functions' types are the Fortran entries' of HermitianFns).
  void *hemm = nullptr, *herk = nullptr, *her2k = nullptr;
  explicit Reference(const harness::ReferenceLapack &lib) {
    const std::string p = Fns<T>::prefix;
    symm = lib.symbol<decltype(symm)>((p + "symm_").c_str());
    syrk = lib.symbol<decltype(syrk)>((p + "syrk_").c_str());
    syr2k = lib.symbol<decltype(syr2k)>((p + "syr2k_").c_str());
    trmm = lib.symbol<decltype(trmm)>((p + "trmm_").c_str());
    trsm = lib.symbol<decltype(trsm)>((p + "trsm_").c_str());
    if (is_complex<T>) {
      hemm = lib.symbol<void *>((p + "hemm_").c_str());
      herk = lib.symbol<void *>((p + "herk_").c_str());
      her2k = lib.symbol<void *>((p + "her2k_").c_str());
    }
  }
};

// A column-major rows x cols view at `off` elements into its buffer, with guards after it.
template <class T> struct Mat {
  int rows = 0, cols = 0, ld = 1;
  size_t off = 0;
  std::vector<T> buf;
  Mat(int r, int c, int pad, size_t offset) : rows(r), cols(c), ld(std::max(1, r + pad)), off(offset) {
    buf.assign(off + size_t(ld) * size_t(std::max(c, 1)) + 3, T(kSentinel));
  }
  T *p() { return buf.data() + off; }
  T &at(int i, int j) { return buf[off + size_t(i) + size_t(j) * ld]; }
};

// Which elements of an m x n view the routine may touch (write) or must read.
bool in_triangle(char uplo, int i, int j) { return uplo == 'U' ? i <= j : i >= j; }

struct Case {
  Op op;
  char side, uplo, trans, diag;
  int m, n, k;  // SYRK/SYR2K: n, k
  double alpha, beta;
  int api;  // 0 Fortran, 1 CBLAS column-major, 2 CBLAS row-major
  int pad;
  size_t off;
};

// The Hermitian calls (c, z): cudrop's entry (api 0: Fortran, else CBLAS in layout L) and the
// reference's, on the case's arrays. Nothing for real T.
template <class T>
void call_hermitian(const Case &c, const Reference<T> &ref, int api, CBLAS_LAYOUT L, int cs, int cu, int rank_t, T *a,
                    int lda, T *b, int ldb, T *c_, int ldc, T *ar, T *br, T *cr, T alpha, T beta) {
  if constexpr (is_complex<T>) {
    using H = HermitianFns<T>;
    int m = c.m, n = c.n, k = c.k;
    const int cm_ = api == 2 ? n : m, cn_ = api == 2 ? m : n;
    const char s1[2] = {c.side, 0}, u1[2] = {c.uplo, 0}, t1[2] = {c.trans, 0};
    const Real<T> ra = alpha.re, rb = beta.re;
    // Reference CBLAS conjugates HER2K's alpha for a row-major call: conjugated here, it is alpha.
    const T alpha2 = api == 2 ? cudrop::conj(alpha) : alpha;
    switch (c.op) {
      case Op::hemm:
        if (api == 0) H::hemm(s1, u1, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c_, &ldc, 1, 1);
        else H::chemm(L, CBLAS_SIDE(cs), CBLAS_UPLO(cu), cm_, cn_, &alpha, a, lda, b, ldb, &beta, c_, ldc);
        reinterpret_cast<decltype(H::hemm)>(ref.hemm)(s1, u1, &m, &n, &alpha, ar, &lda, br, &ldb, &beta, cr, &ldc, 1, 1);
        break;
      case Op::herk:
        if (api == 0) H::herk(u1, t1, &n, &k, &ra, a, &lda, &rb, c_, &ldc, 1, 1);
        else H::cherk(L, CBLAS_UPLO(cu), CBLAS_TRANSPOSE(rank_t), n, k, ra, a, lda, rb, c_, ldc);
        reinterpret_cast<decltype(H::herk)>(ref.herk)(u1, t1, &n, &k, &ra, ar, &lda, &rb, cr, &ldc, 1, 1);
        break;
      default:
        if (api == 0) H::her2k(u1, t1, &n, &k, &alpha, a, &lda, b, &ldb, &rb, c_, &ldc, 1, 1);
        else H::cher2k(L, CBLAS_UPLO(cu), CBLAS_TRANSPOSE(rank_t), n, k, &alpha2, a, lda, b, ldb, rb, c_, ldc);
        reinterpret_cast<decltype(H::her2k)>(ref.her2k)(u1, t1, &n, &k, &alpha, ar, &lda, br, &ldb, &rb, cr, &ldc, 1, 1);
        break;
    }
  }
}

template <class T>
bool run_case(const Case &c, const Reference<T> &ref, Rng &rng) {
  const bool tri = c.op == Op::trmm || c.op == Op::trsm;
  const bool rank = c.op == Op::syrk || c.op == Op::syr2k || c.op == Op::herk || c.op == Op::her2k;
  const bool herm = hermitian(c.op);
  const int order = rank ? c.n : (c.side == 'L' ? c.m : c.n);
  const int ra = rank ? (c.trans == 'N' ? c.n : c.k) : order, ca = rank ? (c.trans == 'N' ? c.k : c.n) : order;
  const int cm = rank ? c.n : c.m, cn = c.n;
  Mat<T> A(ra, ca, c.pad, c.off), B(rank ? ra : c.m, rank ? ca : c.n, c.pad + 1, 1 - c.off), C(cm, cn, c.pad, c.off);
  const T nan = T(NAN);
  // HERK's alpha and the Hermitian routines' beta are real.
  const T alpha = scalar<T>(c.alpha, c.op == Op::herk), beta = scalar<T>(c.beta, herm && c.op != Op::hemm);
  // A: diagonally dominant triangle for TRMM/TRSM, the other triangle NaN.
  for (int j = 0; j < ca; ++j)
    for (int i = 0; i < ra; ++i) {
      T v = random_value<T>(rng);
      if (tri) v = i == j ? (c.diag == 'U' ? nan : T(Real<T>(1 + rng.uniform()))) : T(Real<T>(0.5 / order)) * random_value<T>(rng);
      if (!rank && !in_triangle(c.uplo, i, j)) v = nan;
      if (c.op == Op::hemm && i == j) v = with_nan_imaginary(v);  // never read
      A.at(i, j) = v;
    }
  for (int j = 0; j < B.cols; ++j)
    for (int i = 0; i < B.rows; ++i) B.at(i, j) = random_value<T>(rng);
  const bool c_out_only = tri ? false : c.beta == 0;
  const bool quick_return = c.alpha == 0 && c.beta == 1;  // C, NaN and all, stays as it is
  Mat<T> &out = tri ? B : C;
  for (int j = 0; j < C.cols; ++j)
    for (int i = 0; i < C.rows; ++i) {
      C.at(i, j) = random_value<T>(rng);
      // HERK/HER2K read only the real parts of C's diagonal.
      if (herm && rank && i == j && i < cm && !quick_return) C.at(i, j) = with_nan_imaginary(C.at(i, j));
    }
  if (c_out_only)
    for (int j = 0; j < cn; ++j)
      for (int i = 0; i < cm; ++i)
        if (!rank || in_triangle(c.uplo, i, j)) C.at(i, j) = nan;
  if (c.alpha == 0) {
    std::fill(A.buf.begin(), A.buf.end(), nan);
    if (!tri) std::fill(B.buf.begin(), B.buf.end(), nan);
    else  // B is then output only: its view NaN, its padding and guards kept
      for (int j = 0; j < B.cols; ++j)
        for (int i = 0; i < B.rows; ++i) B.at(i, j) = nan;
  }
  // The reference's inputs: NaN (never to be read) replaced by 0, so any BLAS underneath will do.
  auto clean = [](Mat<T> m) {
    for (T &v : m.buf) v = without_nan(v);
    return m;
  };
  Mat<T> Ar = clean(A), Br = clean(B), Cr = clean(C);
  const Mat<T> A0 = A, B0 = B, C0 = C;
  int m = c.m, n = c.n, k = c.k, lda = A.ld, ldb = B.ld, ldc = C.ld;
  const char s1[2] = {c.side, 0}, u1[2] = {c.uplo, 0}, t1[2] = {c.trans, 0}, d1[2] = {c.diag, 0};
  const bool row = c.api == 2;
  const int cs = (c.side == 'L') != row ? CblasLeft : CblasRight;
  const int cu = (c.uplo == 'U') != row ? CblasUpper : CblasLower;
  const int ct = c.trans == 'N' ? CblasNoTrans : c.trans == 'T' ? CblasTrans : CblasConjTrans;
  const int rank_t = row ? (c.trans == 'N' ? (c.pad == 1 ? CblasConjTrans : CblasTrans) : CblasNoTrans) : ct;
  const int cd = c.diag == 'U' ? CblasUnit : CblasNonUnit;
  const auto L = row ? CblasRowMajor : CblasColMajor;
  const int cm_ = row ? n : m, cn_ = row ? m : n;
  const auto al = cblas_arg(alpha), be = cblas_arg(beta);
  switch (c.op) {
    case Op::symm:
      if (c.api == 0) Fns<T>::symm(s1, u1, &m, &n, &alpha, A.p(), &lda, B.p(), &ldb, &beta, C.p(), &ldc, 1, 1);
      else Fns<T>::csymm(L, CBLAS_SIDE(cs), CBLAS_UPLO(cu), cm_, cn_, al, A.p(), lda, B.p(), ldb, be, C.p(), ldc);
      ref.symm(s1, u1, &m, &n, &alpha, Ar.p(), &lda, Br.p(), &ldb, &beta, Cr.p(), &ldc, 1, 1);
      break;
    case Op::syrk:
      if (c.api == 0) Fns<T>::syrk(u1, t1, &n, &k, &alpha, A.p(), &lda, &beta, C.p(), &ldc, 1, 1);
      else Fns<T>::csyrk(L, CBLAS_UPLO(cu), CBLAS_TRANSPOSE(rank_t), n, k, al, A.p(), lda, be, C.p(), ldc);
      ref.syrk(u1, t1, &n, &k, &alpha, Ar.p(), &lda, &beta, Cr.p(), &ldc, 1, 1);
      break;
    case Op::syr2k:
      if (c.api == 0) Fns<T>::syr2k(u1, t1, &n, &k, &alpha, A.p(), &lda, B.p(), &ldb, &beta, C.p(), &ldc, 1, 1);
      else
        Fns<T>::csyr2k(L, CBLAS_UPLO(cu), CBLAS_TRANSPOSE(rank_t), n, k, al, A.p(), lda, B.p(), ldb, be, C.p(), ldc);
      ref.syr2k(u1, t1, &n, &k, &alpha, Ar.p(), &lda, Br.p(), &ldb, &beta, Cr.p(), &ldc, 1, 1);
      break;
    case Op::trmm:
    case Op::trsm: {
      auto f = c.op == Op::trmm ? Fns<T>::trmm : Fns<T>::trsm;
      auto cf = c.op == Op::trmm ? Fns<T>::ctrmm : Fns<T>::ctrsm;
      if (c.api == 0) f(s1, u1, t1, d1, &m, &n, &alpha, A.p(), &lda, B.p(), &ldb, 1, 1, 1, 1);
      else
        cf(L, CBLAS_SIDE(cs), CBLAS_UPLO(cu), CBLAS_TRANSPOSE(ct), CBLAS_DIAG(cd), cm_, cn_, al, A.p(), lda, B.p(), ldb);
      (c.op == Op::trmm ? ref.trmm : ref.trsm)(s1, u1, t1, d1, &m, &n, &alpha, Ar.p(), &lda, Br.p(), &ldb, 1, 1, 1, 1);
      break;
    }
    default:
      call_hermitian<T>(c, ref, c.api, L, cs, cu, rank_t, A.p(), lda, B.p(), ldb, C.p(), ldc, Ar.p(), Br.p(), Cr.p(),
                        alpha, beta);
  }
  // Inputs untouched; outside the written part untouched; the written part accurate.
  bool ok = true;
  char what[160];
  std::snprintf(what, sizeof what, "%s%s side=%c uplo=%c trans=%c diag=%c m=%d n=%d k=%d alpha=%g beta=%g api=%d pad=%d off=%zu",
                Fns<T>::prefix, op_name(c.op), c.side, c.uplo, c.trans, c.diag, c.m, c.n, c.k, c.alpha, c.beta, c.api,
                c.pad, c.off);
  auto same = [](const Mat<T> &x, const Mat<T> &y) { return std::memcmp(x.buf.data(), y.buf.data(), x.buf.size() * sizeof(T)) == 0; };
  CHECK(same(A, A0), "%s: A changed", what);
  if (!tri) CHECK(same(B, B0), "%s: B changed", what);
  ok = ok && same(A, A0);
  const Mat<T> &out0 = tri ? B0 : C0;
  const Mat<T> &outr = tri ? Br : Cr;
  double maxa = 0, maxb = 0, maxc = 0, maxref = 0, err = 0;
  for (T v : Ar.buf) if (v != T(kSentinel)) maxa = std::max(maxa, mag(v));
  for (T v : Br.buf) if (v != T(kSentinel)) maxb = std::max(maxb, mag(v));
  for (T v : Cr.buf) if (v != T(kSentinel)) maxc = std::max(maxc, mag(v));
  long outside_changed = 0, nans = 0, imaginary_diagonal = 0;
  int worst_i = -1, worst_j = -1;  // where the largest error is, and its values (for the report)
  double worst_got = 0, worst_ref = 0;
  for (size_t e = 0; e < out.buf.size(); ++e) {
    const long long rel = (long long)e - (long long)out.off;
    const int i = rel >= 0 ? int(rel % out.ld) : -1, j = rel >= 0 ? int(rel / out.ld) : -1;
    const bool written = rel >= 0 && i < out.rows && j < out.cols && (!rank || in_triangle(c.uplo, i, j));
    if (!written) {
      outside_changed += std::memcmp(&out.buf[e], &out0.buf[e], sizeof(T)) != 0;
      continue;
    }
    if (has_nan(out.buf[e])) ++nans;
    if (herm && rank && i == j && !quick_return) imaginary_diagonal += cudrop::imag_part(out.buf[e]) != 0;
    if (mag(out.buf[e] - outr.buf[e]) > err) {
      err = mag(out.buf[e] - outr.buf[e]);
      worst_i = i;
      worst_j = j;
      worst_got = double(cudrop::real_part(out.buf[e]));
      worst_ref = double(cudrop::real_part(outr.buf[e]));
    }
    maxref = std::max(maxref, mag(outr.buf[e]));
  }
  const double eps = sizeof(Real<T>) == 4 ? FLT_EPSILON : DBL_EPSILON;
  const bool two = c.op == Op::syr2k || c.op == Op::her2k, self = c.op == Op::syrk || c.op == Op::herk;
  const int inner = rank ? c.k * (two ? 2 : 1) : order;
  // With diag = 'U' the diagonal read as 1 is part of |A| (the stored one is NaN, left out above).
  if (tri && c.diag == 'U') maxa = std::max(maxa, 1.0);
  // The bound of an entry, gamma_k * sum |a||b|, is never below the entry itself: maxref floors
  // the estimate from the largest entries, which can fall short of one rounding of the output.
  // SYRK's and HERK's diagonal entries are sums of K terms of one sign, whose partial sums grow to
  // the entry itself: the roundings add up like a random walk of K steps at that size, not the
  // cancelling ones of mixed signs, and two summation orders (cudrop's, a blocked reference
  // BLAS's) differ by about sqrt(K) of them (docs/perf/README.md, Level 3 accuracy). Their
  // scale grows by sqrt(K) / 4 past K = 16.
  const double same_sign_sums = self ? std::max(1.0, std::sqrt(double(inner)) / 4) : 1.0;
  const double products = mag(alpha) * inner * maxa * std::max(maxb, self ? maxa : 0.0) + mag(beta) * (tri ? 0 : maxc);
  const double scale =
      c.op == Op::trsm ? maxref * order * kSolveBound / kBound : same_sign_sums * std::max(maxref, products);
  const double ratio = scale > 0 ? err / (scale * eps) : (err == 0 ? 0 : INFINITY);
  CHECK(outside_changed == 0, "%s: %ld elements outside the written part changed", what, outside_changed);
  CHECK(nans == 0, "%s: %ld NaN in the result", what, nans);
  CHECK(imaginary_diagonal == 0, "%s: %ld diagonal elements of C not real", what, imaginary_diagonal);
  CHECK(ratio < kBound, "%s: error ratio %.3g (max error %.3g at (%d, %d): %.17g, reference %.17g)", what, ratio, err,
        worst_i, worst_j, worst_got, worst_ref);
  if (opt.verbose) std::printf("%s: ratio %.3g\n", what, ratio);
  return ok && outside_changed == 0 && nans == 0 && imaginary_diagonal == 0 && ratio < kBound;
}

struct Shape { int m, n; };

template <class T>
void run_precision(const Reference<T> &ref) {
  Rng rng(sizeof(T));
  std::vector<Shape> side_shapes = {{1, 1}, {1, 7}, {7, 1}, {7, 33}, {33, 7}, {100, 100}, {1007, 33}, {33, 1007},
                                    {100, 2100}, {517, 300}, {260, 1100}};
  std::vector<Shape> rank_shapes = {{1, 1}, {7, 1}, {1, 7}, {33, 7}, {100, 100}, {300, 33}, {1007, 20}, {600, 600}};
  const double alphas[] = {-0.7, 1, 0, 1.3}, betas[] = {1.3, 0, 1, -0.5};
  std::vector<Op> ops = {Op::trsm, Op::trmm, Op::symm, Op::syrk, Op::syr2k};
  if (is_complex<T>) ops.insert(ops.end(), {Op::hemm, Op::herk, Op::her2k});
  const bool left_only = opt.shapes == "partial" || opt.shapes == "chunked";
  if (opt.shapes == "partial") {
    // The first GPU call is a side-L TRSM in column chunks, for the fault injected part way.
    side_shapes = {{100, 2100}};
  } else if (opt.shapes == "chunked") {
    // Under CUDROP_GPU_MEM_LIMIT=6M: A (517 x 517) stays, B and C go in narrow column chunks.
    side_shapes = {{517, 1500}};
  }
  if (left_only) {
    rank_shapes = {};
    ops = {Op::trsm, Op::trmm, Op::symm};
    if (is_complex<T>) ops.push_back(Op::hemm);
  }
  long index = 0;
  for (Op op : ops) {
    const bool rank = op == Op::syrk || op == Op::syr2k || op == Op::herk || op == Op::her2k;
    const std::vector<Shape> &shapes = rank ? rank_shapes : side_shapes;
    for (const Shape &s : shapes) {
      if (!left_only && std::max(s.m, s.n) > opt.max_size) continue;
      for (char side : {'L', 'R'})
        for (char uplo : {'U', 'L'})
          for (char trans : {'N', 'T', 'C'})
            for (char diag : {'N', 'U'}) {
              if (rank && (side == 'R' || diag == 'U')) continue;
              if ((op == Op::symm || op == Op::hemm) && (trans != 'N' || diag == 'U')) continue;
              // The TRANS each complex routine accepts: N, T (SYRK, SYR2K); N, C (HERK, HER2K).
              if (is_complex<T> && rank && trans == (hermitian(op) ? 'T' : 'C')) continue;
              if (left_only && side == 'R') continue;
              ++index;
              Case c{op, side, uplo, trans, diag, s.m, s.n, s.n, alphas[index % 4], betas[(index / 4) % 4],
                     int(index % 3), int((index / 3) % 3), size_t(index % 2)};
              if (rank) c = {op, 'L', uplo, trans, 'N', s.m, s.m, s.n, c.alpha, c.beta, c.api, c.pad, c.off};
              if (opt.shapes == "partial") c.alpha = -0.7;
              run_case<T>(c, ref, rng);
            }
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  harness::CommandLine cl("usage: level3_accuracy [--max-size N] [--prec sdcz] [--shapes normal|partial|chunked] [-v] "
                          "[--expect-partial] [placement options]");
  cl.number("--max-size", &opt.max_size).text("--prec", &opt.prec).text("--shapes", &opt.shapes)
      .flag("-v", &opt.verbose).flag("--expect-partial", &opt.expect_partial).placement(&opt.placement);
  if (!cl.parse(argc, argv)) return 2;
  const harness::ReferenceLapack lib =
      harness::load_reference_lapack(
      {"dsymm_", "dsyrk_", "dsyr2k_", "dtrmm_", "dtrsm_", "ssymm_", "strsm_", "zhemm_", "zherk_", "cher2k_"}, true);
  if (!lib) {
    std::printf("level3_accuracy: SKIP: no reference BLAS\n");
    return harness::kSkipped;
  }
  std::printf("reference: %s\n", lib.how.c_str());
  if (harness::skip_without_gpu("level3_accuracy", opt.placement.require_gpu)) return harness::kSkipped;
  const harness::Counters start = harness::Counters::now();
  if (opt.prec.find('s') != std::string::npos) run_precision<float>(Reference<float>(lib));
  if (opt.prec.find('d') != std::string::npos) run_precision<double>(Reference<double>(lib));
  if (opt.prec.find('c') != std::string::npos) run_precision<Complex<float>>(Reference<Complex<float>>(lib));
  if (opt.prec.find('z') != std::string::npos) run_precision<Complex<double>>(Reference<Complex<double>>(lib));
  const harness::Counters made = harness::Counters::now().since(start);
  std::printf("calls: %ld on the GPU, %ld on the CPU, %ld fallbacks; %d checks, %d failures\n", made.gpu, made.cpu,
              made.fallbacks, checks, failures);
  if (opt.placement.expect_gpu) CHECK(made.gpu > 0 && made.cpu == 0 && made.fallbacks == 0, "not every call on the GPU");
  if (opt.placement.expect_cpu) CHECK(made.gpu == 0 && made.cpu > 0, "a call went to the GPU");
  if (opt.placement.expect_fallback) CHECK(made.fallbacks > 0, "no GPU attempt fell back");
  if (opt.expect_partial) CHECK(made.gpu > 0 && made.fallbacks > 0, "no call was finished on the CPU part way");
  std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
