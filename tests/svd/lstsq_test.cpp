// lstsq_test: ?gelsd_ and ?gelss_ (s, d, c, z) through the public symbols, against the reference
// LAPACK (tests/harness/reference.h) on the same problems.
//
// Every call (tall, square and wide m x n, also past the reference's QR/LQ crossover; NRHS 1 to
// 5, and 0 for ?gelss_ (the reference's ?gelsd_ reports it illegal in xLALSD); lda and ldb larger than needed by 0..3 rows, the arrays one element off a 16-byte boundary,
// their padding NaN; well-conditioned, graded (ill-conditioned) and rank-deficient (zero
// columns, repeated columns) matrices; RCOND < 0 (machine precision) and RCOND = 100 max(m, n)
// eps; the workspace the routine's own query asks for):
//  * INFO 0, the reference's too; S within 30 max(m, n) eps ||A||_F of the reference's;
//  * where RANK is unambiguous (no singular value of the reference's within a factor 4 of
//    RCOND s(1)): RANK the reference's, and X (B's first n rows) within
//    100 max(m, n) eps (c + c^2) ||X_ref|| of the reference's, c = s(1) / s(rank);
//  * rank n and m > n: the residual (rows n+1..m of B, whose 2-norm is the residual's) within the
//    same of the reference's, column by column;
//  * ?gelss_: A's first min(m, n) rows V^H, max |V^H V - I| / (n eps) <= 60 (but past the wide
//    crossover, where the reference leaves its LQ factorization there);
//  * WORK(1) the query's answer; ?gelsd_: IWORK(1) (and RWORK(1)) the reference's.
// Illegal arguments (each in turn): INFO and the program's xerbla_ as the reference's order of
// checks says. Outside forced-GPU runs also LWORK's minimum (capi/svd_work.h) against the CPU
// routine's own check: LWORK = minimum - 1 is reported as illegal, LWORK = minimum is not.
// With --special also the zero matrix and problems scaled near underflow, which the reference
// scales (the GPU path leaves them to the CPU routine).
//
// Options: --max-n N (default 130), --big (also 1007 x 1007 and 3000 x 500), --prec sdcz,
//   --seed N, --special, placement (--require-gpu, --expect-gpu, --expect-cpu,
//   --expect-fallback), -v.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "capi/svd_work.h"
#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/complex_check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"
#include "tests/harness/xerbla_capture.h"
#include "tests/svd/svd_common.h"

namespace {

harness::FactorOptions opt;
bool special = false;
long calls = 0;

using svd_test::is_complex;
using svd_test::Kind;
using svd_test::Matrix;
using svd_test::real_of;

template <class T, class R = real_of<T>>
using gelsd_real_fn = void (*)(const int *, const int *, const int *, T *, const int *, T *, const int *, R *,
                               const R *, int *, T *, const int *, int *, int *);
template <class T, class R = real_of<T>>
using gelsd_complex_fn = void (*)(const int *, const int *, const int *, T *, const int *, T *, const int *, R *,
                                  const R *, int *, T *, const int *, R *, int *, int *);
template <class T, class R = real_of<T>>
using gelss_real_fn = void (*)(const int *, const int *, const int *, T *, const int *, T *, const int *, R *,
                               const R *, int *, T *, const int *, int *);
template <class T, class R = real_of<T>>
using gelss_complex_fn = void (*)(const int *, const int *, const int *, T *, const int *, T *, const int *, R *,
                                  const R *, int *, T *, const int *, R *, int *);

template <class T>
struct Call {
  using R = real_of<T>;
  int m = 0, n = 0, nrhs = 0, lda = 1, ldb = 1, rank = -1, info = -99;
  R rcond = -1;
  T *a = nullptr, *b = nullptr;
  std::vector<R> s, rwork;
  std::vector<T> work;
  std::vector<int> iwork;
};

// ?gelsd_ (dc) or ?gelss_.
template <class T>
struct Routine {
  void *fn;
  bool dc;
  void call(Call<T> &c, int lwork) const {
    T *work = c.work.data();
    auto *rw = c.rwork.data();
    int *iw = c.iwork.data();
    if (dc) {
      if constexpr (is_complex<T>)
        reinterpret_cast<gelsd_complex_fn<T>>(fn)(&c.m, &c.n, &c.nrhs, c.a, &c.lda, c.b, &c.ldb, c.s.data(), &c.rcond,
                                                  &c.rank, work, &lwork, rw, iw, &c.info);
      else
        reinterpret_cast<gelsd_real_fn<T>>(fn)(&c.m, &c.n, &c.nrhs, c.a, &c.lda, c.b, &c.ldb, c.s.data(), &c.rcond,
                                               &c.rank, work, &lwork, iw, &c.info);
      return;
    }
    if constexpr (is_complex<T>)
      reinterpret_cast<gelss_complex_fn<T>>(fn)(&c.m, &c.n, &c.nrhs, c.a, &c.lda, c.b, &c.ldb, c.s.data(), &c.rcond,
                                                &c.rank, work, &lwork, rw, &c.info);
    else
      reinterpret_cast<gelss_real_fn<T>>(fn)(&c.m, &c.n, &c.nrhs, c.a, &c.lda, c.b, &c.ldb, c.s.data(), &c.rcond,
                                             &c.rank, work, &lwork, &c.info);
  }
};

template <class T>
std::string symbol(bool dc) {
  return std::string(1, harness::precision_letter<T>()) + (dc ? "gelsd_" : "gelss_");
}
template <class T>
void *mine(bool dc) {
  if constexpr (std::is_same_v<T, float>)
    return dc ? reinterpret_cast<void *>(&sgelsd_) : reinterpret_cast<void *>(&sgelss_);
  else if constexpr (std::is_same_v<T, double>)
    return dc ? reinterpret_cast<void *>(&dgelsd_) : reinterpret_cast<void *>(&dgelss_);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return dc ? reinterpret_cast<void *>(&cgelsd_) : reinterpret_cast<void *>(&cgelss_);
  else return dc ? reinterpret_cast<void *>(&zgelsd_) : reinterpret_cast<void *>(&zgelss_);
}

// RWORK and IWORK past the reference's minima (capi/svd_work.h), S of min(m, n).
template <class T>
void size_side_arrays(Call<T> &c) {
  const auto least = cudrop::capi::gelsd_minimum<is_complex<T>, std::is_same_v<T, float>>(std::max(0, c.m), std::max(0, c.n),
                                                                 std::max(0, c.nrhs));
  const size_t k = size_t(std::max(0, std::min(c.m, c.n)));
  c.rwork.assign(size_t(std::max(least.lrwork, 1LL)) + 5 * k + 64, real_of<T>(0));
  c.iwork.assign(size_t(std::max(least.liwork, 1LL)) + 64, 0);
  c.s.assign(std::max<size_t>(1, k), std::numeric_limits<real_of<T>>::quiet_NaN());
}

template <class T>
double run(const Routine<T> &r, Call<T> &c) {
  size_side_arrays(c);
  c.work.assign(1, T(0));
  c.info = -99;
  r.call(c, -1);
  CHECK(c.info == 0, "%s query: info %d", symbol<T>(r.dc).c_str(), c.info);
  const double asked = double(std::real(c.work[0]));
  const int lwork = std::max(1, int(asked));
  c.work.assign(size_t(lwork), T(0));
  c.info = -99;
  c.rank = -1;
  r.call(c, lwork);
  return asked;
}

template <class T>
void run_case(const Routine<T> &me, const Routine<T> &ref, int m, int n, int nrhs, Kind kind, bool eps_rcond,
              double scale, Rng &rng) {
  using R = real_of<T>;
  const double eps = std::numeric_limits<R>::epsilon();
  const int k = std::min(m, n), big = std::max(m, n);
  const int lda = m + int(rng.below(4)), ldb = std::max(1, big) + int(rng.below(4));
  Matrix<T> matrix(rng, m, n, lda, kind);
  Matrix<T> rhs(rng, ldb, nrhs, ldb, Kind::random);  // B: ldb x nrhs, the rows past max(m, n) unused
  for (int j = 0; j < nrhs; ++j)
    for (int i = big; i < ldb; ++i) rhs.a0[i + size_t(j) * ldb] = T(std::numeric_limits<R>::quiet_NaN());
  if (scale != 1) {
    for (T &x : matrix.storage) x *= R(scale);
    for (T &x : rhs.storage) x *= R(scale);
  }
  const R rcond = eps_rcond ? R(-1) : R(100 * big * eps);
  const double fro = matrix.fro * scale, denom = fro > 0 ? fro : 1;
  char where[200];
  std::snprintf(where, sizeof where, "%s m=%d n=%d nrhs=%d lda=%d ldb=%d rcond=%s %s%s", symbol<T>(me.dc).c_str(), m,
                n, nrhs, lda, ldb, eps_rcond ? "eps" : "100 max(m,n) eps", svd_test::kind_name(kind),
                scale != 1 ? " tiny" : "");
  if (opt.verbose) std::printf("%s\n", where);
  std::vector<T> mine_a = matrix.storage, ref_a = matrix.storage, mine_b = rhs.storage, ref_b = rhs.storage;
  Call<T> cm, cr;
  for (Call<T> *c : {&cm, &cr}) {
    c->m = m, c->n = n, c->nrhs = nrhs, c->lda = lda, c->ldb = ldb, c->rcond = rcond;
  }
  cm.a = mine_a.data() + 1, cm.b = mine_b.data() + 1;
  cr.a = ref_a.data() + 1, cr.b = ref_b.data() + 1;
  const double asked = run(me, cm);
  run(ref, cr);
  if (k > 0) ++calls;
  CHECK(cm.info == 0 && cr.info == 0, "%s: info %d (reference %d)", where, cm.info, cr.info);
  if (cm.info != 0 || cr.info != 0) return;
  CHECK(double(std::real(cm.work[0])) == asked, "%s: WORK(1) %g, the query said %g", where,
        double(std::real(cm.work[0])), asked);
  if (me.dc) {
    CHECK(cm.iwork[0] == cr.iwork[0], "%s: IWORK(1) %d (reference %d)", where, cm.iwork[0], cr.iwork[0]);
    if (is_complex<T>)
      CHECK(cm.rwork[0] == cr.rwork[0], "%s: RWORK(1) %g (reference %g)", where, double(cm.rwork[0]),
            double(cr.rwork[0]));
  }
  // B's padding rows: untouched.
  bool intact = true;
  for (int j = 0; j < nrhs; ++j)
    for (int i = big; i < ldb; ++i)
      if (std::memcmp(&cm.b[i + size_t(j) * ldb], &rhs.a0[i + size_t(j) * ldb], sizeof(T)) != 0) intact = false;
  CHECK(intact, "%s: B's rows past max(m, n) changed", where);
  double ds = 0;
  for (int i = 0; i < k; ++i) ds = std::max(ds, std::fabs(double(cm.s[i]) - double(cr.s[i])));
  CHECK(ds <= 30.0 * std::max(big, 1) * eps * denom, "%s: |S - S_ref| %.3g ||A||_F max(m,n) eps", where,
        ds / (denom * std::max(big, 1) * eps));
  if (k == 0) return;
  // RANK unambiguous: no singular value within a factor 4 of the threshold.
  const double s1 = cr.s[0], threshold = (rcond < 0 ? eps : double(rcond)) * s1;
  bool ambiguous = false;
  for (int i = 0; i < k; ++i)
    if (cr.s[i] > threshold / 4 && cr.s[i] < threshold * 4) ambiguous = true;
  if (s1 == 0 || ambiguous) return;
  CHECK(cm.rank == cr.rank, "%s: rank %d (reference %d)", where, cm.rank, cr.rank);
  if (cm.rank != cr.rank || cr.rank == 0) return;
  const double c = s1 / double(cr.s[cr.rank - 1]);
  const double tol = 100.0 * big * eps * (c + c * c);
  for (int j = 0; j < nrhs; ++j) {
    double dx = 0, nx = 0;
    for (int i = 0; i < n; ++i) {
      dx = std::max(dx, double(std::abs(cm.b[i + size_t(j) * ldb] - cr.b[i + size_t(j) * ldb])));
      nx = std::max(nx, double(std::abs(cr.b[i + size_t(j) * ldb])));
    }
    CHECK(dx <= tol * std::max(nx, 1e-300), "%s: column %d of X: |X - X_ref| %.3g |X_ref| (tol %.3g)", where, j + 1,
          dx / std::max(nx, 1e-300), tol);
    if (cr.rank == n && m > n) {
      long double rm = 0, rr = 0, nb = 0;
      for (int i = n; i < m; ++i) {
        rm += std::norm(std::complex<long double>(cm.b[i + size_t(j) * ldb]));
        rr += std::norm(std::complex<long double>(cr.b[i + size_t(j) * ldb]));
      }
      for (int i = 0; i < m; ++i) nb += std::norm(std::complex<long double>(rhs.a0[i + size_t(j) * ldb]));
      const double diff = std::fabs(double(std::sqrt(rm)) - double(std::sqrt(rr)));
      CHECK(diff <= tol * double(std::sqrt(nb)), "%s: column %d: residual %.6g (reference %.6g)", where, j + 1,
            double(std::sqrt(rm)), double(std::sqrt(rr)));
    }
  }
  // The reference's wide path past its LQ crossover (path 2a) leaves the LQ factorization in A.
  if (!me.dc && !(n > m && n >= cudrop::capi::ilaenv_svd_crossover(m, n))) {
    const double e = svd_test::orthogonality_error(cm.a, lda, n, k, true);
    CHECK(e <= 60.0 * n * eps, "%s: A's rows V^H: |V^H V - I| %.3g n eps", where, e / (n * eps));
  }
}

// Illegal arguments: the program's own xerbla_ gets the routine's name (hidden length 6) and the
// parameter the reference's order of checks names first, INFO = -that; A and B untouched.
template <class T>
void check_arguments(const Routine<T> &me) {
  std::string name = symbol<T>(me.dc);
  name.pop_back();
  for (char &c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  name.resize(6, ' ');
  struct Bad {
    int m, n, nrhs, lda, ldb, lwork, param;
  };
  const int m = 6, n = 4, big = 100000;
  const std::vector<Bad> bad = {{-1, n, 1, m, m, big, 1},     {m, -1, 1, m, m, big, 2}, {m, n, -1, m, m, big, 3},
                                {m, n, 1, m - 1, m, big, 5},  {m, n, 1, m, m - 1, big, 7},
                                {n, m, 1, n, m - 1, big, 7},  {m, n, 2, m, m, 1, 12},  {0, 0, 0, 1, 1, 0, 12}};
  std::vector<T> a(size_t(m) * m + 8, T(1)), b(size_t(m) * m + 8, T(2));
  for (const Bad &x : bad) {
    // ?gelss_ of an empty problem needs LWORK 1, ?gelsd_'s more: LWORK 0 is illegal in both.
    const std::vector<T> a0 = a, b0 = b;
    Call<T> c;
    c.m = x.m, c.n = x.n, c.nrhs = x.nrhs, c.lda = x.lda, c.ldb = x.ldb, c.a = a.data(), c.b = b.data();
    size_side_arrays(c);
    c.work.assign(size_t(std::max(1, x.lwork)), T(0));
    c.info = 99;
    harness::xerbla.clear();
    me.call(c, x.lwork);
    CHECK(c.info == -x.param && harness::xerbla.calls == 1 && harness::xerbla.info == x.param &&
              harness::xerbla.length == 6 && name == harness::xerbla.name,
          "%s illegal parameter %d: info %d, xerbla %d call(s) with '%s' (length %zu) and %d", name.c_str(), x.param,
          c.info, harness::xerbla.calls, harness::xerbla.name, harness::xerbla.length, harness::xerbla.info);
    CHECK(a == a0 && b == b0, "%s illegal parameter %d: A or B changed", name.c_str(), x.param);
  }
}

// LWORK's minimum (capi/svd_work.h) against the CPU routine's own check, as in svd_test.
template <class T>
void check_minimum_work(const Routine<T> &me, Rng &rng) {
  for (int trial = 0; trial < 60; ++trial) {
    const int m = int(rng.below(5)) == 0 ? int(rng.below(3)) : 1 + int(rng.below(45));
    const int n = int(rng.below(5)) == 0 ? int(rng.below(3)) : 1 + int(rng.below(45));
    // ?gelsd_ with NRHS = 0 is illegal inside the reference (xLALSD's check, its own handler).
    const int nrhs = int(rng.below(5)) + (me.dc ? 1 : 0);
    const long long least = me.dc ? cudrop::capi::gelsd_minimum<is_complex<T>, std::is_same_v<T, float>>(m, n, nrhs).lwork
                                  : cudrop::capi::gelss_minimum<is_complex<T>>(m, n, nrhs);
    Rng fill(trial + 7);
    for (long long lwork : {least - 1, least}) {
      const int ldb = std::max({1, m, n});
      Matrix<T> matrix(fill, m, n, std::max(1, m), Kind::random);
      Matrix<T> rhs(fill, ldb, nrhs, ldb, Kind::random);
      Call<T> c;
      c.m = m, c.n = n, c.nrhs = nrhs, c.lda = std::max(1, m), c.ldb = ldb, c.a = matrix.a0, c.b = rhs.a0;
      size_side_arrays(c);
      c.work.assign(size_t(std::max(1LL, lwork)), T(0));
      harness::xerbla.clear();
      me.call(c, int(lwork));
      const bool reported = harness::xerbla.calls == 1 && harness::xerbla.info == 12;
      if (lwork < least)
        CHECK(reported && c.info == -12, "%s m=%d n=%d nrhs=%d: LWORK %lld (minimum - 1) not reported: info %d",
              symbol<T>(me.dc).c_str(), m, n, nrhs, lwork, c.info);
      else
        CHECK(harness::xerbla.calls == 0 && c.info >= 0, "%s m=%d n=%d nrhs=%d: LWORK %lld (the minimum) reported: info %d",
              symbol<T>(me.dc).c_str(), m, n, nrhs, lwork, c.info);
    }
  }
}

struct Shape {
  int m, n, nrhs;
};

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  using R = real_of<T>;
  const bool cpu_calls = !opt.placement.expect_gpu && !opt.placement.expect_fallback;
  for (bool dc : {true, false}) {
    const Routine<T> me{mine<T>(dc), dc}, ref{lib.symbol<void *>(symbol<T>(dc).c_str()), dc};
    if (ref.fn == nullptr) {
      CHECK(false, "the reference lacks %s", symbol<T>(dc).c_str());
      return;
    }
    check_arguments<T>(me);
    Rng rng(opt.seed + sizeof(T) * 23 + dc);
    if (cpu_calls) check_minimum_work<T>(me, rng);
    const std::vector<Shape> shapes = {{1, 1, 1},    {7, 7, 2},    {7, 3, 1},     {3, 7, 2},     {33, 20, 3},
                                       {20, 33, 3},  {33, 20, 0},  {100, 20, 2},  {20, 100, 1},  {100, 100, 4},
                                       {130, 60, 5}, {60, 130, 3}, {130, 130, 2}};
    for (const Shape &sh : shapes) {
      if (std::max(sh.m, sh.n) > opt.max || (dc && sh.nrhs == 0)) continue;
      for (bool eps_rcond : {true, false}) run_case<T>(me, ref, sh.m, sh.n, sh.nrhs, Kind::random, eps_rcond, 1, rng);
      if (std::min(sh.m, sh.n) < 3) continue;
      for (Kind kind : {Kind::graded, Kind::zero_columns, Kind::repeated})
        run_case<T>(me, ref, sh.m, sh.n, sh.nrhs, kind, false, 1, rng);
      if (special) {
        run_case<T>(me, ref, sh.m, sh.n, sh.nrhs, Kind::zero, false, 1, rng);
        run_case<T>(me, ref, sh.m, sh.n, sh.nrhs, Kind::random, false, std::is_same_v<R, float> ? 1e-30 : 1e-300,
                    rng);
      }
    }
    if (opt.big)
      for (const Shape &sh : {Shape{1007, 1007, 3}, Shape{3000, 500, 4}})
        run_case<T>(me, ref, sh.m, sh.n, sh.nrhs, Kind::random, false, 1, rng);
  }
}

}  // namespace

int main(int argc, char **argv) {
  opt.max = 130;
  return harness::lapack_test_main(argc, argv, "lstsq_test", opt, &special, {"dgelsd_", "zgelsd_", "dgelss_", "zgelss_"},
                                   &calls, [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
