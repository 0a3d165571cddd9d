// potrf_test: spotrf_/dpotrf_ through the public entry points, as a LAPACK user calls them.
//
// What every call must satisfy:
//  * arguments: UPLO -> 1, N < 0 -> 2, LDA < max(1,N) -> 4, in that order, through the
//    program's own xerbla_ with "SPOTRF"/"DPOTRF", hidden length 6, INFO = -param, nothing
//    written; N = 0 returns INFO = 0 and touches nothing; 'u'/'l' and long strings accepted.
//  * only the referenced triangle may change: the other triangle (filled with NaN or with a
//    sentinel), the LDA padding rows and guard elements after the array stay byte for byte.
//  * positive definite A (random, well and badly conditioned; A = D + V V^T, or L0 L0^T for
//    small n): INFO = 0, no NaN/Inf, positive diagonal, and
//      ratio = ||A - L L^T||_1 / (n ||A||_1 eps) < kThresh       (n <= --full-n), or
//      ratio = max_x ||(A - L L^T) x||_inf / (sqrt(n) ||A||_1 eps) < kThresh for 3 random
//              +-1 vectors x (larger n; each entry of (A - LL^T)x is a sum of n terms of
//              random sign, so this is the full ratio's scale).
//    kThresh = 30, the LAPACK testers' threshold; real errors give ratios >> 1e3.
//  * not positive definite from column k on (pivot made negative, row/column k zero, or
//    A(k,k) NaN): INFO = k+1, equal to reference LAPACK's (loaded by tests/harness/reference.h
//    so it is not interposed; not OpenBLAS's; when available and n <= --ref-n), and A left as
//    the reference leaves it (tests/potrf/model.h): columns before the failing 64-block are
//    the factor (randomized check as above on those columns), the block's lower triangle is
//    SPOTRF2's partial work on the SSYRK-updated block (replayed here in double from the
//    returned factor), the rest of the triangle unchanged bit for bit; for n <= --model-n
//    also entry by entry against the whole model. With --strict-state a state difference
//    fails; without it (CPU mode: the CPU LAPACK underneath may be OpenBLAS, whose blocking
//    differs, and it lets a NaN pivot pass) it is reported and counted only, except INFO for
//    negative and zero pivots and the bytes outside the triangle.
// Options: --max-size N (default 300), --full-n N (1100), --model-n N (600), --ref-n N (1100),
//   --prec s|d|sd, --require-gpu (exit 77 without a GPU), --expect-gpu | --expect-cpu |
//   --expect-fallback (counters at the end), --strict-state, -v.
// Exit 0 pass, 1 fail, 77 (ctest's skip code) when nothing failed but a comparison with the
// reference LAPACK was wanted and none could be loaded.
#include "tests/harness/xerbla_capture.h"
#include "tests/potrf/potrf_test.h"

namespace potrf_test {

Options opt;

namespace {

constexpr double kThresh = 30.0;
constexpr long kTail = 5;

int state_notes = 0;
long reference_missing = 0;  // INFO comparisons with the reference not made: none loaded
// A difference from the reference's intermediate state: fatal only with --strict-state.
#define CHECK_STATE(cond, ...)                                                    \
  do {                                                                            \
    ++checks;                                                                     \
    if (!(cond)) {                                                                \
      if (opt.strict_state) ++failures; else ++state_notes;                       \
      std::printf("%s %s:%d: ", opt.strict_state ? "FAIL" : "NOTE (state)", __FILE__, __LINE__); \
      std::printf(__VA_ARGS__);                                                   \
      std::printf("\n");                                                          \
    }                                                                             \
  } while (0)


// ---- the reference LAPACK, not interposed ----
using spotrf_fn = void (*)(const char *, const int *, float *, const int *, int *, size_t);
using dpotrf_fn = void (*)(const char *, const int *, double *, const int *, int *, size_t);
spotrf_fn ref_spotrf = nullptr;
dpotrf_fn ref_dpotrf = nullptr;

void load_reference() {
  const harness::ReferenceLapack lapack = harness::load_reference_lapack({"spotrf_", "dpotrf_"}, false);
  ref_spotrf = lapack.symbol<spotrf_fn>("spotrf_");
  ref_dpotrf = lapack.symbol<dpotrf_fn>("dpotrf_");
  if (lapack) std::printf("reference LAPACK for INFO: %s\n", lapack.how.c_str());
  else std::printf("reference LAPACK for INFO: none found (compared with the model only)\n");
}

bool call_reference(const char *uplo, const int *n, float *a, const int *lda, int *info) {
  if (!ref_spotrf) return false;
  ref_spotrf(uplo, n, a, lda, info, 1);
  return true;
}
bool call_reference(const char *uplo, const int *n, double *a, const int *lda, int *info) {
  if (!ref_dpotrf) return false;
  ref_dpotrf(uplo, n, a, lda, info, 1);
  return true;
}

template <class T> constexpr double eps() { return std::is_same_v<T, float> ? FLT_EPSILON : DBL_EPSILON; }
template <class T> const char *prec_name() { return std::is_same_v<T, float> ? "s" : "d"; }

bool same_bytes(const void *x, const void *y, size_t bytes) { return std::memcmp(x, y, bytes) == 0; }

// ---- one call ----
template <class T>
struct Stored {
  int n = 0, lda = 1;
  bool upper = false;
  std::vector<T> buf;  // lda*n + kTail
  T &ref(long i, long j) { return upper ? buf[size_t(j) + size_t(i) * lda] : buf[size_t(i) + size_t(j) * lda]; }  // i >= j
  const T &ref(long i, long j) const { return upper ? buf[size_t(j) + size_t(i) * lda] : buf[size_t(i) + size_t(j) * lda]; }
  bool referenced(size_t p) const {
    if (p >= size_t(lda) * n) return false;
    const long i = long(p % lda), j = long(p / lda);
    return i < n && (upper ? i <= j : i >= j);
  }
};

template <class T>
T other_triangle_fill(size_t p, bool nan_fill) {
  return nan_fill ? T(std::nan("")) : T(-1.0e10 - double(p % 1000));
}

// A(i,j) of the matrix given to the call (after rounding to T), symmetric access.
template <class T>
double a0(const Stored<T> &orig, long i, long j) {
  return i >= j ? double(orig.ref(i, j)) : double(orig.ref(j, i));
}

template <class T>
double norm1(const Stored<T> &orig) {  // ||A||_1 over finite entries
  const int n = orig.n;
  std::vector<double> col(n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const double x = std::fabs(double(orig.ref(i, j)));
      if (!std::isfinite(x)) continue;
      col[j] += x;
      if (i != j) col[i] += x;
    }
  double m = 0;
  for (double c : col) m = std::max(m, c);
  return m;
}

// max over 3 random x of ||A(:, 0:c) x - L(:, 0:c) (L(0:c, 0:c)^T x)||_inf, x of length c.
template <class T>
double random_residual(const Stored<T> &orig, const Stored<T> &out, int c, uint64_t seed) {
  const int n = orig.n;
  double worst = 0;
  Rng rng(seed);
  std::vector<double> x(c), y(c), z(n), w(n);
  for (int rep = 0; rep < 3; ++rep) {
    for (double &xi : x) xi = (rng.next() & 1) ? 1.0 : -1.0;
    std::fill(y.begin(), y.end(), 0.0);
    std::fill(z.begin(), z.end(), 0.0);
    std::fill(w.begin(), w.end(), 0.0);
    for (int k = 0; k < c; ++k) {  // y = L11^T x
      double s = 0;
      for (int i = k; i < c; ++i) s += double(out.ref(i, k)) * x[i];
      y[k] = s;
    }
    for (int k = 0; k < c; ++k)  // z = L(:, 0:c) y
      for (int i = k; i < n; ++i) z[i] += double(out.ref(i, k)) * y[k];
    for (int j = 0; j < c; ++j)  // w = A(:, 0:c) x
      for (int i = j; i < n; ++i) {
        const double aij = double(orig.ref(i, j));
        w[i] += aij * x[j];
        if (i != j && i < c) w[j] += aij * x[i];
      }
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(z[i] - w[i]));
  }
  return worst;
}

// ||A - L L^T||_1 over the full matrix, in double.
template <class T>
double full_residual(const Stored<T> &orig, const Stored<T> &out) {
  const int n = orig.n;
  std::vector<double> l(size_t(n) * n, 0.0);  // row-major lower: l[i*n + k]
  for (int k = 0; k < n; ++k)
    for (int i = k; i < n; ++i) l[size_t(i) * n + k] = double(out.ref(i, k));
  std::vector<double> col(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      const double *li = &l[size_t(i) * n], *lj = &l[size_t(j) * n];
      double s = 0;
      for (int k = 0; k <= j; ++k) s += li[k] * lj[k];
      const double e = std::fabs(s - double(orig.ref(i, j)));
      col[j] += e;
      if (i != j) col[i] += e;
    }
  double m = 0;
  for (double c : col) m = std::max(m, c);
  return m;
}

struct CaseSpec {
  int n, pad;
  bool upper;
  Family family;
  Breakage breakage;
  int k;          // failing column (0-based) when broken
  bool nan_fill;  // the other triangle holds NaN (else a sentinel)
  const char *uplo_text;
};

template <class T>
void run_case(const CaseSpec &cs, uint64_t seed) {
  const int n = cs.n;
  Source src = make_source(n, cs.family, seed, std::is_same_v<T, float> ? 3.0 : 8.0);
  Stored<T> a;
  a.n = n;
  a.lda = std::max(1, n + cs.pad);
  a.upper = cs.upper;
  a.buf.resize(size_t(a.lda) * n + kTail);
  for (size_t p = 0; p < a.buf.size(); ++p) a.buf[p] = other_triangle_fill<T>(p, cs.nan_fill);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) a.ref(i, j) = T(src.value(i, j));
  const int k = cs.k;
  if (cs.breakage == Breakage::NegativePivot) {
    a.ref(k, k) = T(-1);  // pivot k = -1 - sum_j L(k,j)^2 < 0; columns before k are untouched
  } else if (cs.breakage == Breakage::ZeroRow) {
    for (int j = 0; j <= k; ++j) a.ref(k, j) = T(0);
    for (int i = k; i < n; ++i) a.ref(i, k) = T(0);
  } else if (cs.breakage == Breakage::NanDiagonal) {
    a.ref(k, k) = T(std::nan(""));
  }
  const Stored<T> orig = a;
  const int expected_info = cs.breakage == Breakage::None ? 0 : k + 1;

  char what[160];
  std::snprintf(what, sizeof what, "%spotrf %s n=%d lda=%d %s %s k=%d", prec_name<T>(), cs.uplo_text, n, a.lda,
                family_name(cs.family), breakage_name(cs.breakage), cs.breakage == Breakage::None ? -1 : k);
  const int n_arg = n, lda_arg = a.lda;
  int info = -12345;
  harness::xerbla.clear();
  harness::potrf(cs.uplo_text, &n_arg, a.buf.data(), &lda_arg, &info);
  CHECK(n_arg == n && lda_arg == a.lda, "%s: an integer argument was written", what);
  CHECK(harness::xerbla.calls == 0, "%s: xerbla called", what);

  // Bytes outside the referenced triangle: untouched.
  long moved = 0;
  for (size_t p = 0; p < a.buf.size(); ++p)
    if (!a.referenced(p) && !same_bytes(&a.buf[p], &orig.buf[p], sizeof(T))) ++moved;
  CHECK(moved == 0, "%s: %ld elements outside the referenced triangle changed", what, moved);
  if (cs.breakage == Breakage::NanDiagonal)  // OpenBLAS underneath (CPU mode) lets a NaN pivot pass
    CHECK_STATE(info == expected_info, "%s: INFO = %d, expected %d", what, info, expected_info);
  else
    CHECK(info == expected_info, "%s: INFO = %d, expected %d", what, info, expected_info);

  // The reference's INFO on the same input.
  if (n <= opt.ref_n) {
    Stored<T> r = orig;
    int rinfo = -12345;
    if (call_reference(cs.uplo_text, &n_arg, r.buf.data(), &lda_arg, &rinfo))
      CHECK(info == rinfo, "%s: INFO = %d, reference LAPACK %d", what, info, rinfo);
    else
      ++reference_missing;
  }

  const double anorm = norm1(orig), e = eps<T>();
  double scale = 0;  // max |A| over finite entries
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i)
      if (std::isfinite(double(orig.ref(i, j)))) scale = std::max(scale, std::fabs(double(orig.ref(i, j))));
  double ratio = 0;

  if (expected_info == 0) {
    if (info != 0) return;
    long bad = 0;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        const double x = double(a.ref(i, j));
        if (!std::isfinite(x) || (i == j && !(x > 0))) ++bad;
      }
    CHECK(bad == 0, "%s: %ld NaN/Inf or non-positive diagonal entries in the factor", what, bad);
    if (n <= opt.full_n) ratio = full_residual(orig, a) / (n * anorm * e);
    else ratio = random_residual(orig, a, n, seed + 1) / (std::sqrt(double(n)) * anorm * e);
    CHECK(ratio < kThresh, "%s: residual ratio %.3g", what, ratio);
    if (opt.verbose) std::printf("  %s: ratio %.3f\n", what, ratio);
    return;
  }

  // Not positive definite: the state the reference leaves.
  if (info != expected_info) return;
  const int j0 = (info - 1) / potrf_model::kNb * potrf_model::kNb, jb = std::min(potrf_model::kNb, n - j0);
  auto computed = [&](long i, long j) { return j < j0 || (j < j0 + jb && i < j0 + jb); };  // i >= j
  long changed = 0;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i)
      if (!computed(i, j) && !same_bytes(&a.ref(i, j), &orig.ref(i, j), sizeof(T))) ++changed;
  CHECK_STATE(changed == 0, "%s: %ld elements beyond the failing block changed (the reference leaves them)", what,
              changed);
  long nonfinite = 0;
  for (int j = 0; j < j0; ++j)
    for (int i = j; i < n; ++i)
      if (!std::isfinite(double(a.ref(i, j)))) ++nonfinite;
  CHECK(nonfinite == 0, "%s: NaN/Inf in the factored columns", what);
  const double tol = 32.0 * (n + 64) * e * std::max(scale, 1e-300);
  if (j0 > 0) {
    ratio = random_residual(orig, a, j0, seed + 2) / (std::sqrt(double(n)) * anorm * e);
    CHECK_STATE(ratio < kThresh, "%s: columns before the failing block: residual ratio %.3g", what, ratio);
  }
  // The failing block: SSYRK-update the original block with the returned columns, replay
  // SPOTRF2 on it, compare.
  std::vector<double> block(size_t(jb) * jb, 0.0);
  for (int j = 0; j < jb; ++j)
    for (int i = j; i < jb; ++i) {
      double s = double(orig.ref(j0 + i, j0 + j));
      for (int l = 0; l < j0; ++l) s -= double(a.ref(j0 + i, l)) * double(a.ref(j0 + j, l));
      block[i + size_t(j) * jb] = s;
    }
  const int block_info = potrf_model::potrf2_lower<double>(jb, block.data(), jb);
  CHECK_STATE(j0 + block_info == info, "%s: replayed SPOTRF2 on the failing block gives INFO %d", what, j0 + block_info);
  double diff = 0;
  for (int j = 0; j < jb; ++j)
    for (int i = j; i < jb; ++i) {
      const double mine = double(a.ref(j0 + i, j0 + j)), model = block[i + size_t(j) * jb];
      if (std::isnan(mine) && std::isnan(model)) continue;
      diff = std::max(diff, std::isfinite(mine) ? std::fabs(mine - model) : HUGE_VAL);
    }
  CHECK_STATE(diff <= tol, "%s: failing block differs from SPOTRF2's state by %.3g (tol %.3g)", what, diff, tol);
  // Small n: the whole model, entry by entry.
  if (n <= opt.model_n) {
    std::vector<double> model(size_t(n) * n, 0.0);
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) model[i + size_t(j) * n] = double(orig.ref(i, j));
    const int model_info = potrf_model::potrf_lower<double>(n, model.data(), n);
    CHECK(model_info == info, "%s: INFO = %d, model %d", what, info, model_info);
    double mdiff = 0;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        const double mine = double(a.ref(i, j)), m = model[i + size_t(j) * n];
        if (std::isnan(mine) && std::isnan(m)) continue;
        mdiff = std::max(mdiff, std::isfinite(mine) && std::isfinite(m) ? std::fabs(mine - m) : HUGE_VAL);
      }
    CHECK_STATE(mdiff <= tol, "%s: differs from the reference's state by %.3g (tol %.3g)", what, mdiff, tol);
  }
  if (opt.verbose) std::printf("  %s: INFO %d, state ok\n", what, info);
}

// ---- argument checks ----
template <class T>
void test_arguments() {
  const char *name = std::is_same_v<T, float> ? "SPOTRF" : "DPOTRF";
  std::vector<T> buf(64), save;
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = T(-1.0e10 - double(i));
  save = buf;
  struct Bad { const char *uplo; int n, lda, param; };
  const Bad bad[] = {{"X", 5, 5, 1}, {"x", -1, 0, 1}, {" ", 3, 3, 1}, {"N", 3, 3, 1},
                     {"L", -1, 5, 2}, {"U", -3, 0, 2}, {"l", 5, 4, 4}, {"u", 0, 0, 4},
                     {"L", 2, 1, 4}, {"U", 1, 0, 4}};
  for (const Bad &b : bad) {
    harness::xerbla.clear();
    int info = 12345;
    const int n = b.n, lda = b.lda;
    harness::potrf(b.uplo, &n, buf.data(), &lda, &info);
    CHECK(harness::xerbla.calls == 1, "%s uplo=%s n=%d lda=%d: xerbla called %d times", name, b.uplo, b.n, b.lda, harness::xerbla.calls);
    CHECK(std::strcmp(harness::xerbla.name, name) == 0 && harness::xerbla.length == 6, "%s: xerbla got name '%s' length %zu", name, harness::xerbla.name,
          harness::xerbla.length);
    CHECK(harness::xerbla.info == b.param, "%s uplo=%s n=%d lda=%d: parameter %d, expected %d", name, b.uplo, b.n, b.lda,
          harness::xerbla.info, b.param);
    CHECK(info == -b.param, "%s uplo=%s n=%d lda=%d: INFO %d, expected %d", name, b.uplo, b.n, b.lda, info, -b.param);
    CHECK(buf == save || std::memcmp(buf.data(), save.data(), buf.size() * sizeof(T)) == 0, "%s: array written", name);
  }
  // Quick return: N = 0 with any LDA >= 1, either UPLO; nothing touched, INFO = 0.
  for (const char *uplo : {"L", "U", "lower", "Upper"}) {
    harness::xerbla.clear();
    int info = 12345;
    const int n = 0, lda = 1;
    harness::potrf(uplo, &n, buf.data(), &lda, &info);
    CHECK(harness::xerbla.calls == 0 && info == 0, "%s uplo=%s n=0: xerbla %d, INFO %d", name, uplo, harness::xerbla.calls, info);
    CHECK(std::memcmp(buf.data(), save.data(), buf.size() * sizeof(T)) == 0, "%s n=0: array written", name);
  }
}

std::vector<int> pd_sizes() {
  const int all[] = {1, 2, 3, 4, 7, 16, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 191, 192, 193, 255, 256, 257, 300,
                     383, 384, 385, 511, 512, 513, 640, 1000, 1023, 1024, 1025, 1500, 2048, 2049, 3000, 4095, 4096,
                     4097, 5000, 6000, 8192, 16384};
  std::vector<int> out;
  for (int n : all)
    if (n <= opt.max_size) out.push_back(n);
  return out;
}

template <class T>
void test_precision() {
  test_arguments<T>();
  uint64_t seed = std::is_same_v<T, float> ? 1000 : 2000;
  // Positive definite: every size in both UPLO; the family, padding and fill rotate.
  int index = 0;
  for (int n : pd_sizes()) {
    const bool big = n >= 2048;
    for (int u = 0; u < 2; ++u, ++index) {
      if (n == 16384 && u == (std::is_same_v<T, float> ? 1 : 0)) continue;  // one each: s lower, d upper
      const bool upper = u == 1;
      Family family;
      if (n <= 300) family = (index % 4 == 0) ? Family::Dense : (index % 4 == 1) ? Family::DenseBad
                            : (index % 4 == 2) ? Family::LowRank : Family::LowRankBad;
      else family = (index % 2 == 0) ? Family::LowRank : Family::LowRankBad;
      const int pad = (index % 3 == 0) ? 0 : (index % 3 == 1) ? 3 : 17;
      const char *uplo = upper ? ((index % 4 < 2) ? "U" : "upper") : ((index % 4 < 2) ? "L" : "lower");
      run_case<T>({n, big && pad == 17 ? 1 : pad, upper, family, Breakage::None, 0, index % 2 == 0, uplo}, ++seed);
    }
  }
  // Not positive definite: failing first, in the middle, last, and at block boundaries.
  const int np_all[] = {1, 2, 5, 64, 65, 130, 300, 1000, 2100, 4500, 8192};
  index = 0;
  for (int n : np_all) {
    if (n > opt.max_size) continue;
    std::vector<int> ks = {0, n / 2, n - 1};
    if (n <= 300) {
      for (int k : {1, 63, 64, 65, 127, 128}) if (k < n) ks.push_back(k);
    }
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    for (int k : ks)
      for (int kind = 0; kind < 3; ++kind)
        for (int u = 0; u < 2; ++u, ++index) {
          if (n > 300 && (index % 2) != 0) continue;  // large: half the combinations
          const Breakage br = kind == 0 ? Breakage::NegativePivot : kind == 1 ? Breakage::ZeroRow : Breakage::NanDiagonal;
          const Family family = n <= 300 ? ((index % 2) ? Family::Dense : Family::LowRank) : Family::LowRank;
          run_case<T>({n, (index % 3 == 1) ? 5 : 0, u == 1, family, br, k, index % 2 == 1, u ? "U" : "L"}, ++seed);
        }
  }
}

int parse(int argc, char **argv) {
  harness::CommandLine line("usage: potrf_test [--max-size N] [--full-n N] [--model-n N] [--ref-n N] [--prec s|d|sd]\n"
                            "                  [--require-gpu] [--expect-gpu|--expect-cpu|--expect-fallback]\n"
                            "                  [--strict-state] [-v]");
  line.number("--max-size", &opt.max_size).number("--full-n", &opt.full_n).number("--model-n", &opt.model_n);
  line.number("--ref-n", &opt.ref_n).text("--prec", &opt.prec).placement(&opt.placement);
  line.flag("--strict-state", &opt.strict_state).flag("-v", &opt.verbose);
  return line.parse(argc, argv) ? 0 : 2;
}

}  // namespace
}  // namespace potrf_test

using namespace potrf_test;

int main(int argc, char **argv) {
  if (int rc = parse(argc, argv)) return rc;
  load_reference();
  if (harness::skip_without_gpu("potrf_test", opt.placement.require_gpu)) return harness::kSkipped;
  if (opt.prec.find('s') != std::string::npos) test_precision<float>();
  if (opt.prec.find('d') != std::string::npos) test_precision<double>();

  const harness::Counters made = harness::Counters::now();
  const long gpu = made.gpu, cpu = made.cpu, fallbacks = made.fallbacks;
  std::printf("counters: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld\n", gpu, cpu, fallbacks);
  if (opt.placement.expect_gpu) CHECK(gpu > 0 && cpu == 0 && fallbacks == 0, "expected every call on the GPU");
  if (opt.placement.expect_cpu) CHECK(gpu == 0 && cpu > 0, "expected every call on the CPU");
  if (opt.placement.expect_fallback) CHECK(fallbacks > 0, "expected GPU attempts that fell back");
  std::printf("potrf_test: %d checks, %d failures, %d state notes\n", checks, failures, state_notes);
  if (failures != 0) return 1;
  if (reference_missing != 0) {
    std::printf("potrf_test: SKIP: no reference LAPACK: %ld comparisons of INFO with it not made\n",
                reference_missing);
    return harness::kSkipped;
  }
  return 0;
}
