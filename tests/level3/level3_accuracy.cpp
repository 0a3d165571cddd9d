// level3_accuracy: ?symm, ?syrk, ?syr2k, ?trmm, ?trsm (Fortran, CBLAS column- and row-major)
// against the reference BLAS (tests/harness/reference.h, loaded apart from cudrop) on the same
// inputs, every side/uplo/trans/diag, odd sizes, padded leading dimensions, views one element
// into their buffers (not 16-byte aligned), alpha 0/1/other, beta 0/1/other.
//
// What every call must satisfy:
//  * accuracy: max|C - Cref| / (scale eps) < kBound, scale = |alpha| K maxA maxB + |beta| maxC0
//    (K the inner dimension; SYR2K twice that); TRSM: max|X - Xref| / (max|Xref| order eps) <
//    kSolveBound, A diagonally dominant (well conditioned). scale == 0: exactly equal.
//  * what the routine may not read is NaN: the other triangle of A (and its diagonal with
//    diag = 'U'), C's written part when beta = 0, A and B when alpha = 0; no NaN may come out.
//  * nothing outside what the routine writes changes, byte for byte: C's other triangle
//    (SYRK, SYR2K), padding rows past m, guard elements before and after each view; A and B
//    (inputs) unchanged.
// A row-major CBLAS call is made on the same storage, read as the transposed problem (side and
// triangle swapped, M and N swapped; SYRK's trans flipped): its answer is the column-major one.
//
// Options: --max-size N (largest dimension of the normal shapes, default 2100), --prec s|d|sd, --shapes
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
  std::string prec = "sd", shapes = "normal";
  bool verbose = false, expect_partial = false;
  harness::Placement placement;
};
Options opt;

enum class Op { symm, syrk, syr2k, trmm, trsm };
const char *op_name(Op op) {
  static const char *names[] = {"symm", "syrk", "syr2k", "trmm", "trsm"};
  return names[int(op)];
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

// The reference routines, with cudrop's Fortran signatures.
template <class T> struct Reference {
  std::remove_const_t<decltype(Fns<T>::symm)> symm = nullptr;
  std::remove_const_t<decltype(Fns<T>::syrk)> syrk = nullptr;
  std::remove_const_t<decltype(Fns<T>::syr2k)> syr2k = nullptr;
  std::remove_const_t<decltype(Fns<T>::trmm)> trmm = nullptr;
  std::remove_const_t<decltype(Fns<T>::trsm)> trsm = nullptr;
  explicit Reference(const harness::ReferenceLapack &lib) {
    const std::string p = Fns<T>::prefix;
    symm = lib.symbol<decltype(symm)>((p + "symm_").c_str());
    syrk = lib.symbol<decltype(syrk)>((p + "syrk_").c_str());
    syr2k = lib.symbol<decltype(syr2k)>((p + "syr2k_").c_str());
    trmm = lib.symbol<decltype(trmm)>((p + "trmm_").c_str());
    trsm = lib.symbol<decltype(trsm)>((p + "trsm_").c_str());
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

template <class T>
bool run_case(const Case &c, const Reference<T> &ref, Rng &rng) {
  const bool tri = c.op == Op::trmm || c.op == Op::trsm, rank = c.op == Op::syrk || c.op == Op::syr2k;
  const int order = rank ? c.n : (c.side == 'L' ? c.m : c.n);
  const int ra = rank ? (c.trans == 'N' ? c.n : c.k) : order, ca = rank ? (c.trans == 'N' ? c.k : c.n) : order;
  const int cm = rank ? c.n : c.m, cn = c.n;
  Mat<T> A(ra, ca, c.pad, c.off), B(rank ? ra : c.m, rank ? ca : c.n, c.pad + 1, 1 - c.off), C(cm, cn, c.pad, c.off);
  const T nan = T(NAN), alpha = T(c.alpha), beta = T(c.beta);
  // A: diagonally dominant triangle for TRMM/TRSM, the other triangle NaN.
  for (int j = 0; j < ca; ++j)
    for (int i = 0; i < ra; ++i) {
      T v = T(rng.symmetric());
      if (tri) v = i == j ? (c.diag == 'U' ? nan : T(1 + rng.uniform())) : T(0.5 * rng.symmetric() / order);
      if (!rank && !in_triangle(c.uplo, i, j)) v = nan;
      A.at(i, j) = v;
    }
  for (int j = 0; j < B.cols; ++j)
    for (int i = 0; i < B.rows; ++i) B.at(i, j) = T(rng.symmetric());
  const bool c_out_only = tri ? false : c.beta == 0;
  Mat<T> &out = tri ? B : C;
  for (int j = 0; j < C.cols; ++j)
    for (int i = 0; i < C.rows; ++i) C.at(i, j) = T(rng.symmetric());
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
    for (T &v : m.buf) if (std::isnan(v)) v = T(0);
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
  switch (c.op) {
    case Op::symm:
      if (c.api == 0) Fns<T>::symm(s1, u1, &m, &n, &alpha, A.p(), &lda, B.p(), &ldb, &beta, C.p(), &ldc, 1, 1);
      else Fns<T>::csymm(L, CBLAS_SIDE(cs), CBLAS_UPLO(cu), cm_, cn_, alpha, A.p(), lda, B.p(), ldb, beta, C.p(), ldc);
      ref.symm(s1, u1, &m, &n, &alpha, Ar.p(), &lda, Br.p(), &ldb, &beta, Cr.p(), &ldc, 1, 1);
      break;
    case Op::syrk:
      if (c.api == 0) Fns<T>::syrk(u1, t1, &n, &k, &alpha, A.p(), &lda, &beta, C.p(), &ldc, 1, 1);
      else Fns<T>::csyrk(L, CBLAS_UPLO(cu), CBLAS_TRANSPOSE(rank_t), n, k, alpha, A.p(), lda, beta, C.p(), ldc);
      ref.syrk(u1, t1, &n, &k, &alpha, Ar.p(), &lda, &beta, Cr.p(), &ldc, 1, 1);
      break;
    case Op::syr2k:
      if (c.api == 0) Fns<T>::syr2k(u1, t1, &n, &k, &alpha, A.p(), &lda, B.p(), &ldb, &beta, C.p(), &ldc, 1, 1);
      else
        Fns<T>::csyr2k(L, CBLAS_UPLO(cu), CBLAS_TRANSPOSE(rank_t), n, k, alpha, A.p(), lda, B.p(), ldb, beta, C.p(),
                       ldc);
      ref.syr2k(u1, t1, &n, &k, &alpha, Ar.p(), &lda, Br.p(), &ldb, &beta, Cr.p(), &ldc, 1, 1);
      break;
    case Op::trmm:
    case Op::trsm: {
      auto f = c.op == Op::trmm ? Fns<T>::trmm : Fns<T>::trsm;
      auto cf = c.op == Op::trmm ? Fns<T>::ctrmm : Fns<T>::ctrsm;
      if (c.api == 0) f(s1, u1, t1, d1, &m, &n, &alpha, A.p(), &lda, B.p(), &ldb, 1, 1, 1, 1);
      else
        cf(L, CBLAS_SIDE(cs), CBLAS_UPLO(cu), CBLAS_TRANSPOSE(ct), CBLAS_DIAG(cd), cm_, cn_, alpha, A.p(), lda, B.p(),
           ldb);
      (c.op == Op::trmm ? ref.trmm : ref.trsm)(s1, u1, t1, d1, &m, &n, &alpha, Ar.p(), &lda, Br.p(), &ldb, 1, 1, 1, 1);
      break;
    }
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
  for (T v : Ar.buf) if (v != T(kSentinel)) maxa = std::max(maxa, double(std::fabs(v)));
  for (T v : Br.buf) if (v != T(kSentinel)) maxb = std::max(maxb, double(std::fabs(v)));
  for (T v : Cr.buf) if (v != T(kSentinel)) maxc = std::max(maxc, double(std::fabs(v)));
  long outside_changed = 0, nans = 0;
  for (size_t e = 0; e < out.buf.size(); ++e) {
    const long long rel = (long long)e - (long long)out.off;
    const int i = rel >= 0 ? int(rel % out.ld) : -1, j = rel >= 0 ? int(rel / out.ld) : -1;
    const bool written = rel >= 0 && i < out.rows && j < out.cols && (!rank || in_triangle(c.uplo, i, j));
    if (!written) {
      outside_changed += std::memcmp(&out.buf[e], &out0.buf[e], sizeof(T)) != 0;
      continue;
    }
    if (std::isnan(out.buf[e])) ++nans;
    err = std::max(err, double(std::fabs(out.buf[e] - outr.buf[e])));
    maxref = std::max(maxref, double(std::fabs(outr.buf[e])));
  }
  const double eps = sizeof(T) == 4 ? FLT_EPSILON : DBL_EPSILON;
  const int inner = rank ? c.k * (c.op == Op::syr2k ? 2 : 1) : order;
  // With diag = 'U' the diagonal read as 1 is part of |A| (the stored one is NaN, left out above).
  if (tri && c.diag == 'U') maxa = std::max(maxa, 1.0);
  // The bound of an entry, gamma_k * sum |a||b|, is never below the entry itself: maxref floors
  // the estimate from the largest entries, which can fall short of one rounding of the output.
  const double scale =
      c.op == Op::trsm ? maxref * order * kSolveBound / kBound
                       : std::max(maxref, std::fabs(c.alpha) * inner * maxa * std::max(maxb, c.op == Op::syrk ? maxa : 0.0) +
                                              std::fabs(c.beta) * (tri ? 0 : maxc));
  const double ratio = scale > 0 ? err / (scale * eps) : (err == 0 ? 0 : INFINITY);
  CHECK(outside_changed == 0, "%s: %ld elements outside the written part changed", what, outside_changed);
  CHECK(nans == 0, "%s: %ld NaN in the result", what, nans);
  CHECK(ratio < kBound, "%s: error ratio %.3g (max error %.3g)", what, ratio, err);
  if (opt.verbose) std::printf("%s: ratio %.3g\n", what, ratio);
  return ok && outside_changed == 0 && nans == 0 && ratio < kBound;
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
  }
  long index = 0;
  for (Op op : ops) {
    const bool rank = op == Op::syrk || op == Op::syr2k;
    const std::vector<Shape> &shapes = rank ? rank_shapes : side_shapes;
    for (const Shape &s : shapes) {
      if (!left_only && std::max(s.m, s.n) > opt.max_size) continue;
      for (char side : {'L', 'R'})
        for (char uplo : {'U', 'L'})
          for (char trans : {'N', 'T', 'C'})
            for (char diag : {'N', 'U'}) {
              if (rank && (side == 'R' || diag == 'U')) continue;
              if (op == Op::symm && (trans != 'N' || diag == 'U')) continue;
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
  harness::CommandLine cl("usage: level3_accuracy [--max-size N] [--prec s|d|sd] [--shapes normal|partial|chunked] [-v] "
                          "[--expect-partial] [placement options]");
  cl.number("--max-size", &opt.max_size).text("--prec", &opt.prec).text("--shapes", &opt.shapes)
      .flag("-v", &opt.verbose).flag("--expect-partial", &opt.expect_partial).placement(&opt.placement);
  if (!cl.parse(argc, argv)) return 2;
  const harness::ReferenceLapack lib =
      harness::load_reference_lapack({"dsymm_", "dsyrk_", "dsyr2k_", "dtrmm_", "dtrsm_", "ssymm_", "strsm_"}, true);
  if (!lib) {
    std::printf("level3_accuracy: SKIP: no reference BLAS\n");
    return harness::kSkipped;
  }
  std::printf("reference: %s\n", lib.how.c_str());
  if (harness::skip_without_gpu("level3_accuracy", opt.placement.require_gpu)) return harness::kSkipped;
  const harness::Counters start = harness::Counters::now();
  if (opt.prec.find('s') != std::string::npos) run_precision<float>(Reference<float>(lib));
  if (opt.prec.find('d') != std::string::npos) run_precision<double>(Reference<double>(lib));
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
