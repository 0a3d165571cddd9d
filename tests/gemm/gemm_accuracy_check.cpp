// gemm_accuracy: one call made and checked against the higher-precision reference (the notes
// at the top of gemm_accuracy.cpp say what it must satisfy), and the out-of-core plan the
// library makes for it.
#include "tests/gemm/gemm_accuracy.h"

namespace gemm_accuracy {
namespace {

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

}  // namespace

const char *api_name(Api a) {
  return a == Api::f77 ? "f77" : a == Api::cblas_col ? "cblas-col" : "cblas-row";
}

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
      cudrop::Op::transposed_if(ta), cudrop::Op::transposed_if(tb), int(m), int(n), int(cs.k), sizeof(T), cs.beta != 0,
      g_mem_cap, max_rows);
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

template void note_plan<float>(const Case &);
template void note_plan<double>(const Case &);
template bool run_case<float>(const Case &, Rng &);
template bool run_case<double>(const Case &, Rng &);

}  // namespace gemm_accuracy
