// gemm_accuracy: sgemm_/dgemm_ and cblas_sgemm/cblas_dgemm (column- and row-major) against
// a reference computed here in higher precision (double for S, long double for D).
//
// What every call must satisfy:
//  * accuracy, norm-wise:  ratio = max|C - Cref| / ((|alpha| k maxA maxB + |beta| maxC0) eps)
//    must be < kBound = 3.0, eps = FLT_EPSILON or DBL_EPSILON. Why 3: for k <= 1 an entry
//    goes through at most four roundings of eps/2 each (product, alpha*, beta*, sum), so
//    about 2 is the worst case there; for larger k random data keeps the accumulated error
//    of any summation order well under the k-proportional denominator (observed: <= 1 with
//    the reference BLAS, 0.3..0.5 at k ~ 1000). A wrong element, a missing beta term or TF32
//    (10-bit mantissa) arithmetic gives ratios of 10 to 10^6. When the denominator is 0
//    (alpha = 0 or k = 0, and beta = 0), C must be exactly 0.
//  * beta = 0: C is output only; it is filled with NaN before the call and no NaN may survive.
//    alpha = 0: A and B are not referenced; they are filled with NaN then.
//  * A and B are unchanged byte for byte (hash before/after), and so is everything of C's
//    buffer outside the m x n view: the LDC padding rows, and guard elements before and after
//    (the view may start one element into the buffer, so it is not 16-byte aligned).
//  * the scalar arguments are unchanged.
// Large calls (m n k > --full-work), where a full reference is too slow, are checked by
//  * the same per-entry bound on a random sample of entries (computed exactly as above), and
//  * a randomized (Freivalds) check of all of C: for random x with entries +-1,
//    y = C x and z = alpha op(A) (op(B) x) + beta C0 x in the reference precision, and
//    ratio_x = max|y - z| / (sqrt(n) (|alpha| k maxA maxB + |beta| maxC0) eps) < kBound.
//    Each y_i - z_i = sum_j E_ij x_j is a sum of n independent +-E_ij, so it is of order
//    sqrt(n) times the typical entry error: the same bound then holds with a margin of many
//    standard deviations, while a wrong block, a missing term or TF32 gives a ratio >> 2.
//  * no NaN anywhere in C, and the padding/guards as above.
//
// Options (also from the environment where noted):
//   --max-size N      largest dimension tested (env CUDROP_TEST_MAX_SIZE; default 300)
//   --full-work W     m*n*k above which the sampled + randomized check replaces the full one
//                     (env CUDROP_TEST_FULL_WORK; default 3e7)
//   --quick           only the shapes with m*n*k <= 3e5 (for valgrind)
//   --require-gpu     exit 77 (skip) when cudrop_gpu_available() is 0
//   --expect-gpu      at the end assert gpu_calls > 0, cpu_calls == 0, gpu_fallbacks == 0
//   --expect-cpu      at the end assert gpu_calls == 0, cpu_calls > 0
//   --expect-fallback at the end assert gpu_fallbacks > 0
//   --prec s|d|sd     precisions (default sd)      --seed N   data seed (default 1)
//   --shapes normal|extreme|ooc|all   extreme: n > 65535*128 columns, a column > 32 MiB, ...;
//                     ooc: the out-of-core set (run it under CUDROP_GPU_MEM_LIMIT=64M: every
//                     shape is then tiled; per shape and precision all 4 transpose pairs x
//                     beta -1.3 / 0 (C full of NaN) / 1, APIs, LD padding and misalignment rotating)
//   --expect-tiling   with --shapes ooc and CUDROP_GPU_MEM_LIMIT set: the library's tiling
//                     plans (impl::plan_gemm_tiles, computed here for each call as the library
//                     sees it) must include k split, C resident and rotating, both block orders
//   --expect-partial  at the end assert gpu_calls > 0 and gpu_fallbacks > 0: with
//                     CUDROP_TEST_FAULT_INJECT=launch:N a tiled call failed part way, after some of
//                     C was written back, and was finished on the CPU (counted as both)
//   --bound B         the bound instead of 3. The CUDROP_SGEMM=3xtf32 runs use 6: a product of
//                     two split floats drops the small x small term (up to 2^-22 |ab|, 2 eps)
//                     and carries each operand's second rounding (2^-24 each), so an entry of a
//                     sum of one or two terms can reach 3 to 4 eps (longer sums average it out)
//   --max-work W      skip shapes with m*n*k > W
//   --plans-only      --shapes ooc: make no call, only tally (and with -v print) the plans
//   -v                one line per call
#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "impl/gemm.h"      // the out-of-core plan (header-only), for --expect-tiling
#include "route/dispatch.h"  // parse_byte_size, as the library reads CUDROP_GPU_MEM_LIMIT
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/rng.h"

namespace {


struct Options {
  long max_size = 300;
  double full_work = 3e7;
  harness::Placement placement;
  bool quick = false, verbose = false, expect_tiling = false, expect_partial = false;
  double max_work = 0;  // 0: no limit
  bool plans_only = false;
  std::string prec = "sd";
  std::string shapes = "normal";
  uint64_t seed = 1;
  double bound = 3.0;  // kBound of the notes above
};
Options opt;

// Never zero: +-[0.25, 1), from one draw of the shared test generator (tests/harness/rng.h).
double nonzero_value(Rng &rng) {
  const uint64_t r = rng.next();
  const double v = 0.25 + 0.75 * ((r >> 11) * (1.0 / 9007199254740992.0));
  return (r & 1) ? -v : v;
}

uint64_t hash_bytes(const void *p, size_t bytes) {
  // FNV-1a over 8-byte words, then the tail.
  const auto *b = static_cast<const unsigned char *>(p);
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, b + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
  }
  for (; i < bytes; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

// ---- a matrix view inside a guarded buffer ----
// rows x cols, stored column-major (element (r,c) at r + c*ld) or row-major (r*ld + c),
// starting `off` elements into the buffer; kTail guard elements after the last ld-stride.
constexpr long kTail = 3;
template <class T>
struct Stored {
  long rows = 0, cols = 0, ld = 1, off = 0;
  bool row_major = false;
  std::vector<T> buf;
  long outer() const { return row_major ? rows : cols; }
  long inner() const { return row_major ? cols : rows; }
  size_t index(long r, long c) const {
    return size_t(off) + (row_major ? size_t(r) * ld + c : size_t(r) + size_t(c) * ld);
  }
  T *view() { return buf.data() + off; }
  const T *view() const { return buf.data() + off; }
  bool in_view(size_t p) const {
    if (p < size_t(off)) return false;
    const size_t q = p - off;
    if (q >= size_t(ld) * outer()) return false;
    return long(q % ld) < inner();
  }
};

template <class T>
T sentinel() { return T(-1.0e10); }

template <class T>
void allocate(Stored<T> &s, long rows, long cols, bool row_major, long pad, long off) {
  s.rows = rows;
  s.cols = cols;
  s.row_major = row_major;
  s.off = off;
  s.ld = std::max(1L, row_major ? cols : rows) + pad;
  s.buf.assign(size_t(off) + size_t(s.ld) * s.outer() + kTail, sentinel<T>());
}

template <class T>
void fill_random(Stored<T> &s, Rng &rng) {
  for (long o = 0; o < s.outer(); ++o) {
    T *col = s.buf.data() + s.off + size_t(o) * s.ld;
    for (long i = 0; i < s.inner(); ++i) col[i] = T(nonzero_value(rng));
  }
}

template <class T>
void fill_value(Stored<T> &s, T v) {
  for (long o = 0; o < s.outer(); ++o) {
    T *col = s.buf.data() + s.off + size_t(o) * s.ld;
    for (long i = 0; i < s.inner(); ++i) col[i] = v;
  }
}

template <class T>
double max_abs(const Stored<T> &s) {
  double m = 0;
  for (long o = 0; o < s.outer(); ++o) {
    const T *col = s.buf.data() + s.off + size_t(o) * s.ld;
    for (long i = 0; i < s.inner(); ++i) m = std::max(m, double(std::fabs(col[i])));
  }
  return m;
}

// Outside the view every element of C must still be the sentinel, byte for byte.
template <class T>
long count_guard_changes(const Stored<T> &s) {
  const T sen = sentinel<T>();
  long bad = 0;
  for (size_t p = 0; p < s.buf.size(); ++p)
    if (!s.in_view(p) && std::memcmp(&s.buf[p], &sen, sizeof(T)) != 0) ++bad;
  return bad;
}

// ---- the calls ----
enum class Api { f77, cblas_col, cblas_row };
const char *api_name(Api a) {
  return a == Api::f77 ? "f77" : a == Api::cblas_col ? "cblas-col" : "cblas-row";
}

void call_f77(const char *ta, const char *tb, const int *m, const int *n, const int *k,
              const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
              const float *beta, float *c, const int *ldc) {
  sgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}
void call_f77(const char *ta, const char *tb, const int *m, const int *n, const int *k,
              const double *alpha, const double *a, const int *lda, const double *b,
              const int *ldb, const double *beta, double *c, const int *ldc) {
  dgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}
void call_cblas(CBLAS_LAYOUT l, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
                float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                float *c, int ldc) {
  cblas_sgemm(l, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void call_cblas(CBLAS_LAYOUT l, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
                double alpha, const double *a, int lda, const double *b, int ldb, double beta,
                double *c, int ldc) {
  cblas_dgemm(l, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

struct Case {
  Api api;
  char ta, tb;  // 'N', 'T', 'C'
  long m, n, k;
  double alpha, beta;
  long off;  // 0 or 1: view starts one element into the buffer
  long pad;  // extra leading-dimension elements
  bool lower;  // f77: pass lower-case transpose characters
};

long g_calls = 0, g_failures = 0;
double g_worst = 0;

template <class T>
const char *prec_name() { return std::is_same_v<T, float> ? "s" : "d"; }

template <class T>
void describe(const Case &c, char *out, size_t size) {
  std::snprintf(out, size, "%sgemm %s ta=%c tb=%c m=%ld n=%ld k=%ld alpha=%g beta=%g off=%ld pad=%ld",
                prec_name<T>(), api_name(c.api), c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.beta, c.off,
                c.pad);
}

// op(M)(i,l) for a stored matrix, trans meaning op = transpose.
template <class T>
inline T op_at(const Stored<T> &s, bool trans, long i, long l) {
  return trans ? s.buf[s.index(l, i)] : s.buf[s.index(i, l)];
}

// y = op(M) x in precision R, for a stored matrix of either layout.
template <class T, class R>
void matvec(const Stored<T> &s, bool trans, const std::vector<R> &x, std::vector<R> &y) {
  const long out_len = trans ? s.cols : s.rows;
  y.assign(out_len, R(0));
  // The stored matrix as rows x cols with unit stride along `inner`.
  const bool walk_rows_contig = !s.row_major;  // column-major: a column is contiguous
  if (!trans) {
    if (walk_rows_contig) {
      for (long c = 0; c < s.cols; ++c) {
        const T *col = s.buf.data() + s.index(0, c);
        const R xc = x[c];
        for (long r = 0; r < s.rows; ++r) y[r] += R(col[r]) * xc;
      }
    } else {
      for (long r = 0; r < s.rows; ++r) {
        const T *row = s.buf.data() + s.index(r, 0);
        R acc = 0;
        for (long c = 0; c < s.cols; ++c) acc += R(row[c]) * x[c];
        y[r] = acc;
      }
    }
  } else {
    if (walk_rows_contig) {
      for (long c = 0; c < s.cols; ++c) {
        const T *col = s.buf.data() + s.index(0, c);
        R acc = 0;
        for (long r = 0; r < s.rows; ++r) acc += R(col[r]) * x[r];
        y[c] = acc;
      }
    } else {
      for (long r = 0; r < s.rows; ++r) {
        const T *row = s.buf.data() + s.index(r, 0);
        const R xr = x[r];
        for (long c = 0; c < s.cols; ++c) y[c] += R(row[c]) * xr;
      }
    }
  }
}

// ---- which out-of-core plan the library used (for --expect-tiling) ----
struct PlanTally {
  long calls = 0, in_core = 0, tiled = 0, k_split = 0, resident_multi = 0, resident_single = 0,
       rotating = 0, cols_outer = 0, rows_outer_multi = 0, beta0_tiled = 0, beta1_tiled = 0,
       beta_other_tiled = 0, trans[4] = {};
} g_plans;
size_t g_mem_cap = 0;  // CUDROP_GPU_MEM_LIMIT as the library reads it (0: unset)

template <class T>
void note_plan(const Case &cs) {
  if (g_mem_cap == 0) return;
  // The column-major call the library sees: row-major swaps the operands.
  const bool row = cs.api == Api::cblas_row;
  const bool ta = (row ? cs.tb : cs.ta) != 'N', tb = (row ? cs.ta : cs.tb) != 'N';
  const long m = row ? cs.n : cs.m, n = row ? cs.m : cs.n;
  if (m == 0 || n == 0 || cs.k == 0 || cs.alpha == 0) return;  // answered in the API layer
  const char *staging = std::getenv("CUDROP_STAGING_MB");
  const long staging_mb = staging && std::atol(staging) > 0 ? std::atol(staging) : 32;
  const size_t max_rows = std::max<size_t>(128, (size_t(staging_mb) << 20) / sizeof(T) / 128 * 128);
  const cudrop::impl::GemmTilePlan p = cudrop::impl::plan_gemm_tiles(
      ta, tb, int(m), int(n), int(cs.k), sizeof(T), cs.beta != 0, g_mem_cap, max_rows);
  ++g_plans.calls;
  if (!p.fits) return;
  if (p.in_core) {
    ++g_plans.in_core;
    return;
  }
  ++g_plans.tiled;
  g_plans.k_split += p.kchunks > 1;
  const bool multi = p.mblocks * p.nblocks > 1;
  g_plans.resident_multi += p.c_resident && multi;
  g_plans.resident_single += p.c_resident && !multi;
  g_plans.rotating += !p.c_resident;
  g_plans.cols_outer += !p.rows_outer && p.mblocks > 1 && p.nblocks > 1;
  g_plans.rows_outer_multi += p.rows_outer && p.mblocks > 1 && p.nblocks > 1;
  g_plans.beta0_tiled += cs.beta == 0;
  g_plans.beta1_tiled += cs.beta == 1;
  g_plans.beta_other_tiled += cs.beta != 0 && cs.beta != 1;
  ++g_plans.trans[(cs.ta != 'N') + 2 * (cs.tb != 'N')];
  if (opt.verbose)
    std::printf("     plan: C in %lld x %lld blocks of %d x %d (%s), k in %lld chunk(s) of %d, %s outer, %.1f MiB\n",
                p.mblocks, p.nblocks, p.mb, p.nb, p.c_resident ? "resident" : "rotating", p.kchunks, p.kb,
                p.rows_outer ? "rows" : "columns", p.device_bytes / 1048576.0);
}

template <class T>
bool run_case(const Case &cs, Rng &rng) {
  using R = std::conditional_t<std::is_same_v<T, float>, double, long double>;
  const double eps = std::is_same_v<T, float> ? FLT_EPSILON : DBL_EPSILON;
  const bool row = cs.api == Api::cblas_row;
  const bool tA = cs.ta != 'N', tB = cs.tb != 'N';
  const long m = cs.m, n = cs.n, k = cs.k;
  const T alpha = T(cs.alpha), beta = T(cs.beta);
  char what[256];
  describe<T>(cs, what, sizeof what);

  // Stored shapes: A is m x k (k x m when transposed), B is k x n (n x k), C is m x n.
  Stored<T> A, B, C;
  allocate(A, tA ? k : m, tA ? m : k, row, cs.pad, cs.off);
  allocate(B, tB ? n : k, tB ? k : n, row, cs.pad + (cs.pad ? 2 : 0), cs.off);
  allocate(C, m, n, row, cs.pad ? cs.pad + 1 : 0, cs.off);
  if (alpha == T(0)) {
    // Not referenced when alpha == 0.
    fill_value(A, T(NAN));
    fill_value(B, T(NAN));
  } else {
    fill_random(A, rng);
    fill_random(B, rng);
  }
  if (beta == T(0)) fill_value(C, T(NAN));
  else fill_random(C, rng);
  const Stored<T> C0 = C;
  const uint64_t hA = hash_bytes(A.buf.data(), A.buf.size() * sizeof(T));
  const uint64_t hB = hash_bytes(B.buf.data(), B.buf.size() * sizeof(T));
  const double maxA = alpha == T(0) ? 0 : max_abs(A), maxB = alpha == T(0) ? 0 : max_abs(B);
  const double maxC0 = beta == T(0) ? 0 : max_abs(C0);

  // ---- the call ----
  if (cs.api == Api::f77) {
    const char ta[2] = {cs.lower ? char(cs.ta - 'A' + 'a') : cs.ta, 0};
    const char tb[2] = {cs.lower ? char(cs.tb - 'A' + 'a') : cs.tb, 0};
    const int im = int(m), in = int(n), ik = int(k), lda = int(A.ld), ldb = int(B.ld),
              ldc = int(C.ld);
    const T al = alpha, be = beta;
    call_f77(ta, tb, &im, &in, &ik, &al, A.view(), &lda, B.view(), &ldb, &be, C.view(), &ldc);
    if (im != m || in != n || ik != k || lda != A.ld || ldb != B.ld || ldc != C.ld ||
        std::memcmp(&al, &alpha, sizeof al) != 0 || std::memcmp(&be, &beta, sizeof be) != 0 ||
        ta[0] != (cs.lower ? char(cs.ta - 'A' + 'a') : cs.ta)) {
      std::printf("FAIL %s: a scalar argument was modified\n", what);
      ++g_failures;
      return false;
    }
  } else {
    auto code = [](char t) {
      return t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans;
    };
    call_cblas(row ? CblasRowMajor : CblasColMajor, code(cs.ta), code(cs.tb), int(m), int(n),
               int(k), alpha, A.view(), int(A.ld), B.view(), int(B.ld), beta, C.view(),
               int(C.ld));
  }
  ++g_calls;
  note_plan<T>(cs);

  bool ok = true;
  auto fail = [&](const char *fmt, auto... args) {
    std::printf("FAIL %s: ", what);
    std::printf(fmt, args...);
    std::printf("\n");
    ok = false;
  };
  if (hash_bytes(A.buf.data(), A.buf.size() * sizeof(T)) != hA) fail("A was modified");
  if (hash_bytes(B.buf.data(), B.buf.size() * sizeof(T)) != hB) fail("B was modified");
  if (long bad = count_guard_changes(C); bad != 0)
    fail("%ld elements of C outside the m x n view (LDC padding / guards) were modified", bad);

  const double denom = (std::fabs(cs.alpha) * double(k) * maxA * maxB + std::fabs(cs.beta) * maxC0) * eps;
  const bool product_vanishes = alpha == T(0) || k == 0;
  double worst = 0;
  long nan_count = 0;
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < m; ++i)
      if (std::isnan(C.buf[C.index(i, j)])) ++nan_count;
  if (nan_count) {
    if (alpha == T(0))
      fail("%ld NaN entries in C; alpha = 0, and A and B were filled with NaN: the reference "
           "never reads them then (a CPU BLAS underneath that computes 0*NaN does this)",
           nan_count);
    else fail("%ld NaN entries in C", nan_count);
  }

  // One entry against its reference; false (after the failure) when it is out of bounds.
  auto within_bound = [&](const char *which, long i, long j, T got, R ref) {
    const double ratio = double(std::fabs(R(got) - ref)) / denom;
    if (!(ratio < opt.bound)) {
      fail("%sC(%ld,%ld) = %.17g, reference %.17g, ratio %.3g >= %g", which, i, j, double(got), double(ref), ratio,
           opt.bound);
      worst = std::max(worst, std::isnan(ratio) ? double(INFINITY) : ratio);
      return false;
    }
    worst = std::max(worst, ratio);
    return true;
  };
  const double work = double(m) * double(n) * double(k);
  if (work <= opt.full_work) {
    // Full reference: op(A) as m x k rows and op(B) as n x k rows (columns of op(B)), in R.
    std::vector<R> opA(size_t(m) * k), opBt(size_t(n) * k);
    if (!product_vanishes) {
      for (long i = 0; i < m; ++i)
        for (long l = 0; l < k; ++l) opA[size_t(i) * k + l] = R(op_at(A, tA, i, l));
      for (long j = 0; j < n; ++j)
        for (long l = 0; l < k; ++l) opBt[size_t(j) * k + l] = R(op_at(B, tB, l, j));
    }
    for (long j = 0; j < n && ok; ++j)
      for (long i = 0; i < m; ++i) {
        R ref = 0;
        if (!product_vanishes) {
          const R *a = &opA[size_t(i) * k];
          const R *b = &opBt[size_t(j) * k];
          R s = 0;
          for (long l = 0; l < k; ++l) s += a[l] * b[l];
          ref = R(alpha) * s;
        }
        if (beta != T(0)) ref += R(beta) * R(C0.buf[C0.index(i, j)]);
        const T got = C.buf[C.index(i, j)];
        if (denom == 0) {
          // alpha*op(A)op(B) vanishes and beta == 0: exactly zero.
          if (!(got == T(0))) {
            fail("C(%ld,%ld) = %g, want exactly 0", i, j, double(got));
            break;
          }
          continue;
        }
        if (!within_bound("", i, j, got, ref)) break;
      }
  } else {
    // Sampled entries, same per-entry bound.
    // (512 of them, fewer for a very long k; all of them when C is that small.)
    const long budget = std::max(8L, std::min(512L, long(3e7 / double(std::max(k, 1L)))));
    const bool all = double(m) * n <= budget;
    const long samples = all ? m * n : budget;
    for (long s = 0; s < samples && denom > 0; ++s) {
      const long i = all ? s % m : rng.below(m), j = all ? s / m : rng.below(n);
      R ref = 0;
      if (!product_vanishes) {
        R acc = 0;
        for (long l = 0; l < k; ++l) acc += R(op_at(A, tA, i, l)) * R(op_at(B, tB, l, j));
        ref = R(alpha) * acc;
      }
      if (beta != T(0)) ref += R(beta) * R(C0.buf[C0.index(i, j)]);
      const T got = C.buf[C.index(i, j)];
      if (!within_bound("sampled ", i, j, got, ref)) break;
    }
    // Randomized check of everything: C x against alpha op(A)(op(B) x) + beta C0 x.
    for (int trial = 0; trial < 2 && ok && denom > 0; ++trial) {
      std::vector<R> x(n), t, u, v, y;
      for (long j = 0; j < n; ++j) x[j] = (rng.next() & 1) ? R(1) : R(-1);
      if (!product_vanishes) {
        matvec(B, tB, x, t);  // op(B) x, length k
        matvec(A, tA, t, u);  // op(A) t, length m
      }
      matvec(C, false, x, y);
      if (beta != T(0)) matvec(C0, false, x, v);
      double wx = 0;
      long wi = 0;
      for (long i = 0; i < m; ++i) {
        R z = product_vanishes ? R(0) : R(alpha) * u[i];
        if (beta != T(0)) z += R(beta) * v[i];
        const double r = double(std::fabs(y[i] - z)) / (std::sqrt(double(n)) * denom);
        if (std::isnan(r) || r > wx) {
          wx = std::isnan(r) ? double(INFINITY) : r;
          wi = i;
        }
      }
      if (!(wx < opt.bound)) fail("randomized check: row %ld ratio %.3g >= %g", wi, wx, opt.bound);
      worst = std::max(worst, std::isnan(wx) ? double(INFINITY) : wx);
    }
  }
  g_worst = std::max(g_worst, worst);
  if (opt.verbose || !ok) std::printf("%s %s: ratio %.3f\n", ok ? "ok  " : "BAD ", what, worst);
  if (!ok) ++g_failures;
  return ok;
}

struct Shape {
  long m, n, k;
};

bool listed(const std::vector<Shape> &list, const Shape &sh) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Shape &o) { return o.m == sh.m && o.n == sh.n && o.k == sh.k; });
}

// Combinations per shape: all of them for small shapes, a rotating subset for larger ones.
void run_shape(const Shape &sh, Rng &rng, long &rot) {
  const char trans[3] = {'N', 'T', 'C'};
  const double ab[4] = {0.0, 1.0, -1.3, 0.7};
  const Api apis[3] = {Api::f77, Api::cblas_col, Api::cblas_row};
  const long pads[3] = {0, 1, 7};
  const double work = double(sh.m) * sh.n * std::max(sh.k, 1L);
  const bool do_s = opt.prec.find('s') != std::string::npos;
  const bool do_d = opt.prec.find('d') != std::string::npos;
  auto run = [&](bool dbl, const Case &c) {
    if (dbl) run_case<double>(c, rng);
    else run_case<float>(c, rng);
  };
  std::vector<bool> precs;
  if (do_s) precs.push_back(false);
  if (do_d) precs.push_back(true);
  if (work <= 40000) {
    // Everything: 3 APIs x 9 transpose pairs x 16 (alpha, beta), per precision.
    for (bool dbl : precs)
      for (Api api : apis)
        for (char ta : trans)
          for (char tb : trans)
            for (double al : ab)
              for (double be : ab) {
                ++rot;
                const Case c{api, ta, tb, sh.m, sh.n, sh.k, al, be, rot % 2, pads[rot % 3],
                             (rot / 2) % 2 == 1};
                run(dbl, c);
              }
    return;
  }
  if (work <= 2e7 && std::max(sh.m, std::max(sh.n, sh.k)) < 100000) {
    // Per precision: every transpose pair once and every (alpha, beta) once; API, alignment,
    // padding and the other parameters rotate.
    for (bool dbl : precs) {
      for (long pair = 0; pair < 9; ++pair) {
        ++rot;
        const Case c{apis[rot % 3], trans[pair / 3], trans[pair % 3], sh.m, sh.n, sh.k,
                     ab[1 + rot % 3], ab[(rot / 3) % 4], rot % 2, pads[(rot / 2) % 3],
                     rot % 4 == 1};
        run(dbl, c);
      }
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          ++rot;
          const long pair = rot % 9;
          const Case c{apis[(rot / 9) % 3], trans[pair / 3], trans[pair % 3], sh.m, sh.n, sh.k,
                       ab[a], ab[b], rot % 2, pads[(rot / 2) % 3], rot % 4 == 3};
          run(dbl, c);
        }
    }
    return;
  }
  // Large: three calls per precision; the transpose pair, API, alpha/beta (mostly nonzero;
  // beta = 0 with a NaN-filled C every fourth), alignment and padding rotate over the shapes.
  // (Extreme aspect ratios get at most one element of padding: 7 would multiply the memory.)
  const bool extreme = std::max(sh.m, std::max(sh.n, sh.k)) >= 100000;
  for (bool dbl : precs)
    for (int i = 0; i < 3; ++i) {
      ++rot;
      const long pair = (rot * 4) % 9;
      const Case c{apis[rot % 3], trans[pair / 3], trans[pair % 3], sh.m, sh.n, sh.k,
                   ab[1 + rot % 3], rot % 4 == 0 ? 0.0 : ab[1 + (rot / 3) % 3], (rot / 2) % 2,
                   extreme ? (rot / 5) % 2 : pads[(rot / 5) % 3], rot % 2 == 1};
      run(dbl, c);
    }
}

// Shapes large enough for the in-core transfer pipeline (column panels of B and C; with
// beta = 0 the panels of C go back from a sender thread while B is still going up), with an
// odd n so the last panel is partial: per precision every transpose pair with beta = 0 (C full
// of NaN), then one call that reads C; API, padding and misalignment rotate.
void run_pipeline_shape(const Shape &sh, Rng &rng, long &rot) {
  const char pairs[4][2] = {{'N', 'N'}, {'T', 'N'}, {'N', 'T'}, {'T', 'T'}};
  const Api apis[3] = {Api::f77, Api::cblas_col, Api::cblas_row};
  const long pads[3] = {0, 1, 7};
  for (bool dbl : {false, true}) {
    if (opt.prec.find(dbl ? 'd' : 's') == std::string::npos) continue;
    for (int i = 0; i < 5; ++i) {
      ++rot;
      const Case c{apis[rot % 3], pairs[i % 4][0], pairs[i % 4][1], sh.m, sh.n, sh.k, i == 4 ? -0.7 : 1.3,
                   i == 4 ? -1.3 : 0.0, rot % 2, pads[(rot / 2) % 3], (rot / 3) % 2 == 1};
      if (dbl) run_case<double>(c, rng);
      else run_case<float>(c, rng);
    }
  }
}

// The out-of-core set: every (transpose pair, beta) per precision; alpha, API, LD padding and
// misalignment rotate. The first call of each shape and precision is f77 N,N with beta = -1.3
// (single) or 0 (double), so that a fault-injection run starts with a C read / not read.
void run_ooc_shape(const Shape &sh, Rng &rng, long &rot) {
  const double alphas[3] = {1.0, -1.3, 0.7};
  const double betas[3] = {-1.3, 0.0, 1.0};
  const Api apis[3] = {Api::f77, Api::cblas_col, Api::cblas_row};
  const long pads[3] = {0, 1, 7};
  for (bool dbl : {false, true}) {
    if (opt.prec.find(dbl ? 'd' : 's') == std::string::npos) continue;
    for (int t = 0; t < 4; ++t)
      for (int b = 0; b < 3; ++b) {
        ++rot;
        const int step = t * 3 + b;
        const char ta = (t & 1) ? (rot % 2 ? 'C' : 'T') : 'N';
        const char tb = (t & 2) ? (rot % 3 ? 'T' : 'C') : 'N';
        const Case c{apis[step % 3], ta, tb, sh.m, sh.n, sh.k, alphas[(step + rot) % 3],
                     betas[(b + (dbl ? 1 : 0)) % 3], step == 0 ? 0 : (step / 2) % 2, pads[(step + 1) % 3] * (step != 0),
                     b == 2};
        if (opt.plans_only) {
          if (dbl) note_plan<double>(c);
          else note_plan<float>(c);
          ++g_calls;
        } else if (dbl) {
          run_case<double>(c, rng);
        } else {
          run_case<float>(c, rng);
        }
      }
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (const char *e = std::getenv("CUDROP_TEST_MAX_SIZE")) opt.max_size = std::atol(e);
  if (const char *e = std::getenv("CUDROP_TEST_FULL_WORK")) opt.full_work = std::atof(e);
  harness::CommandLine line("usage: gemm_accuracy [--max-size N] [--full-work W] [--quick] [--require-gpu]\n"
                            "                     [--expect-gpu|--expect-cpu|--expect-fallback] [--prec s|d|sd]\n"
                            "                     [--shapes normal|extreme|ooc|all] [--expect-tiling]\n"
                            "                     [--expect-partial] [--max-work W] [--plans-only] [--seed N] [--bound B] [-v]");
  line.number("--max-size", &opt.max_size).number("--full-work", &opt.full_work).number("--max-work", &opt.max_work);
  line.flag("--quick", &opt.quick).text("--prec", &opt.prec).number("--seed", &opt.seed).flag("-v", &opt.verbose);
  line.number("--bound", &opt.bound);
  line.placement(&opt.placement).flag("--expect-tiling", &opt.expect_tiling).text("--shapes", &opt.shapes);
  line.flag("--expect-partial", &opt.expect_partial).flag("--plans-only", &opt.plans_only);
  if (!line.parse(argc, argv)) return 2;
  if (const char *limit = std::getenv("CUDROP_GPU_MEM_LIMIT"); limit && *limit) {
    if (!cudrop::env::parse_byte_size(limit, &g_mem_cap)) g_mem_cap = 0;
  }
  const char *mode = std::getenv("CUDROP_MODE");
  std::printf("gemm_accuracy: cudrop %s, CUDROP_MODE=%s, max size %ld, full reference up to "
              "m*n*k = %.3g, bound %.1f\n",
              cudrop_version(), mode ? mode : "(unset)", opt.max_size, opt.full_work, opt.bound);
  if (opt.placement.require_gpu) {
    if (harness::skip_without_gpu("gemm_accuracy")) return harness::kSkipped;
    std::printf("GPU available\n");
  }

  // Squares and rectangles (m != n != k), odd sizes around tile edges, k = 0.
  const std::vector<Shape> normal_shapes = {
      {1, 1, 1},        {2, 2, 2},        {1, 7, 33},        {33, 1, 7},        {7, 33, 1},
      {7, 7, 7},        {3, 5, 0},        {16, 16, 16},      {2, 16, 7},        {33, 33, 33},
      {16, 33, 2},      {64, 64, 64},     {65, 17, 129},     {65, 65, 65},      {65, 33, 0},
      {127, 127, 127},  {129, 129, 129},  {127, 255, 64},    {1, 1007, 129},    {255, 255, 255},
      {1007, 33, 65},   {257, 129, 1007}, {513, 1031, 257},  {1007, 1007, 1007}, {2049, 2049, 2049},
      {1031, 4097, 17}, {2049, 513, 3077}, {4096, 4096, 4096}, {4097, 4095, 4099}, {8192, 8192, 8192},
      {8193, 1025, 8191}, {3, 8193, 4}};
  // Extreme aspect ratios (--shapes extreme): more than 65535 tiles along n (a CUDA grid's
  // y/z limit) for any tile width up to 128; a column longer than a 32 MiB staging buffer;
  // a long k with a tiny C. Not limited by --max-size.
  const std::vector<Shape> extreme_shapes = {
      {2, 8388617, 1}, {8388617, 2, 3}, {3, 2, 8388617}, {1, 8388617, 2}};
  // Out of core (--shapes ooc), chosen for CUDROP_GPU_MEM_LIMIT=64M (plans: -v, or
  // --plans-only -v): odd sizes everywhere, so border blocks and chunks are partial. First (for
  // the fault-injection runs): column-outer order, C in rotating blocks; then one shape that
  // fits whole (the untiled path under a cap); k split in many chunks with one resident C
  // block (double: 2 x 2 rotating blocks); C resident in several blocks when beta != 0;
  // m < 128 with n-blocks; n = 3 with k = 40001; a 7-row C whose padded copy is 4.6x its size.
  const std::vector<Shape> ooc_shapes = {
      {5084, 3994, 1925}, {1500, 1499, 1501}, {3001, 2999, 3003}, {1000, 1100, 30001},
      {14611, 397, 1271}, {173, 18145, 907},  {1025, 3, 40001},   {7, 1500001, 9}};
  // In-core transfer pipeline (run_pipeline_shape): 7 or 8 column panels (row-major calls
  // swap m and n), the last partial.
  const std::vector<Shape> pipeline_shapes = {{3001, 4099, 1500}, {4097, 2501, 1777}};
  std::vector<Shape> shapes;
  const bool ooc = opt.shapes == "ooc";
  if (opt.shapes != "extreme" && !ooc) {
    for (const Shape &sh : normal_shapes)
      if (std::max(sh.m, std::max(sh.n, sh.k)) <= opt.max_size) shapes.push_back(sh);
    for (const Shape &sh : pipeline_shapes)
      if (std::max(sh.m, std::max(sh.n, sh.k)) <= opt.max_size) shapes.push_back(sh);
  }
  if (opt.shapes == "extreme" || opt.shapes == "all")
    shapes.insert(shapes.end(), extreme_shapes.begin(), extreme_shapes.end());
  if (ooc || opt.shapes == "all") shapes.insert(shapes.end(), ooc_shapes.begin(), ooc_shapes.end());
  Rng rng(opt.seed);
  long rot = 0;
  long shapes_run = 0;
  for (const Shape &sh : shapes) {
    if (opt.quick && double(sh.m) * sh.n * std::max(sh.k, 1L) > 3e5) continue;
    if (opt.max_work > 0 && double(sh.m) * sh.n * std::max(sh.k, 1L) > opt.max_work) continue;
    const long before = g_calls, fails_before = g_failures;
    const double worst_before = g_worst;
    const harness::Counters start = harness::Counters::now();
    g_worst = 0;
    if (listed(ooc_shapes, sh)) run_ooc_shape(sh, rng, rot);
    else if (listed(pipeline_shapes, sh)) run_pipeline_shape(sh, rng, rot);
    else run_shape(sh, rng, rot);
    const harness::Counters made = harness::Counters::now().since(start);
    std::printf("  m=%-5ld n=%-5ld k=%-5ld %4ld calls, worst ratio %.3f  [gpu %ld, cpu %ld, "
                "fallbacks %ld]%s\n",
                sh.m, sh.n, sh.k, g_calls - before, g_worst, made.gpu, made.cpu, made.fallbacks,
                g_failures > fails_before ? "  FAILED" : "");
    std::fflush(stdout);
    g_worst = std::max(g_worst, worst_before);
    ++shapes_run;
  }

  const harness::Counters total = harness::Counters::now();
  const long gpu = total.gpu, cpu = total.cpu, fallbacks = total.fallbacks;
  std::printf("counters: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld\n", gpu, cpu, fallbacks);
  int status = g_failures == 0 ? 0 : 1;
  if (g_calls == 0) {
    std::printf("FAIL: no call was tested\n");
    status = 1;
  }
  if (opt.placement.expect_gpu && !(gpu > 0 && cpu == 0 && fallbacks == 0)) {
    std::printf("FAIL: expected every call on the GPU (gpu_calls > 0, cpu_calls == 0, "
                "gpu_fallbacks == 0)\n");
    status = 1;
  }
  if (opt.placement.expect_cpu && !(gpu == 0 && cpu > 0)) {
    std::printf("FAIL: expected every call on the CPU (gpu_calls == 0, cpu_calls > 0)\n");
    status = 1;
  }
  if (g_plans.calls > 0)
    std::printf("plans under CUDROP_GPU_MEM_LIMIT=%zu: %ld calls: %ld in core, %ld tiled (%ld k split, "
                "%ld C resident in several blocks, %ld C resident in one block, %ld C rotating, %ld "
                "columns outer, %ld rows outer; beta 0/1/other %ld/%ld/%ld; transposes NN/TN/NT/TT "
                "%ld/%ld/%ld/%ld)\n",
                g_mem_cap, g_plans.calls, g_plans.in_core, g_plans.tiled, g_plans.k_split,
                g_plans.resident_multi, g_plans.resident_single, g_plans.rotating, g_plans.cols_outer,
                g_plans.rows_outer_multi, g_plans.beta0_tiled, g_plans.beta1_tiled,
                g_plans.beta_other_tiled, g_plans.trans[0], g_plans.trans[1], g_plans.trans[2],
                g_plans.trans[3]);
  if (opt.expect_tiling) {
    const PlanTally &t = g_plans;
    if (!(g_mem_cap > 0 && t.tiled > 0 && t.k_split > 0 && t.resident_multi > 0 && t.resident_single > 0 &&
          t.rotating > 0 && t.cols_outer > 0 && t.rows_outer_multi > 0 && t.beta0_tiled > 0 &&
          t.beta1_tiled > 0 && t.beta_other_tiled > 0 && t.trans[0] > 0 && t.trans[1] > 0 &&
          t.trans[2] > 0 && t.trans[3] > 0)) {
      std::printf("FAIL: expected the calls to be tiled in every way (k split, C resident in one and in "
                  "several blocks, C rotating, both block orders, every beta and transpose pair); is "
                  "CUDROP_GPU_MEM_LIMIT set (64M)?\n");
      status = 1;
    }
  }
  if (opt.expect_partial && !(gpu > 0 && fallbacks > 0)) {
    std::printf("FAIL: expected a tiled call to fail part way and be finished on the CPU (gpu_calls > 0 "
                "and gpu_fallbacks > 0)\n");
    status = 1;
  }
  if (opt.placement.expect_fallback && !(fallbacks > 0)) {
    std::printf("FAIL: expected GPU attempts to fail and fall back (gpu_fallbacks > 0)\n");
    status = 1;
  }
  std::printf("gemm_accuracy: %ld shapes, %ld calls, %ld failed, worst ratio %.3f (bound %.1f): %s\n",
              shapes_run, g_calls, g_failures, g_worst, opt.bound, status == 0 ? "PASS" : "FAIL");
  return status;
}
