// svd_test: ?gesdd_ and ?gesvd_ (s, d, c, z) through the public symbols, against the reference
// LAPACK (tests/harness/reference.h) on the same matrices.
//
// Every call (JOBZ N, O, S, A; every legal JOBU, JOBVT pair; tall, square and wide m x n, also
// past the reference's QR/LQ crossover; lda, ldu, ldvt larger than needed by 0..3 rows, the arrays
// one element off a 16-byte boundary, their padding NaN; random, rank-deficient (zero columns,
// repeated columns) and graded matrices; the workspace the routine's own query asks for):
//  * INFO 0, the reference's too;
//  * S descending, each within 30 max(m, n) eps ||A||_F of the reference's;
//  * with both factors: max |A - U S V^H| / (||A||_F max(m, n) eps) <= 60; with one:
//    | ||A^H u_j|| - s_j | (or | ||A v_j|| - s_j |) as small; max |U^H U - I| / (m eps) and
//    max |V^H V - I| / (n eps) <= 60 over every column of U (row of V^H) computed. Vectors are
//    only defined up to a sign (c, z: a phase) per pair: never compared elementwise;
//  * the entries of U and VT the reference leaves alone unchanged, bit for bit; WORK(1) the
//    query's answer.
// Illegal arguments (each in turn): INFO and the program's xerbla_ as the reference's order of
// checks says. Outside forced-GPU runs also LWORK's minimum (capi/svd_work.h) against the CPU
// routine's own check: LWORK = minimum - 1 is reported as illegal, LWORK = minimum is not.
// With --special also the zero matrix and matrices scaled near underflow (1e-300; s, c: 1e-30),
// which the GPU path leaves to the CPU routine.
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
#include <tuple>
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
using gesdd_real_fn = void (*)(const char *, const int *, const int *, T *, const int *, R *, T *, const int *, T *,
                               const int *, T *, const int *, int *, int *, size_t);
template <class T, class R = real_of<T>>
using gesdd_complex_fn = void (*)(const char *, const int *, const int *, T *, const int *, R *, T *, const int *,
                                  T *, const int *, T *, const int *, R *, int *, int *, size_t);
template <class T, class R = real_of<T>>
using gesvd_real_fn = void (*)(const char *, const char *, const int *, const int *, T *, const int *, R *, T *,
                               const int *, T *, const int *, T *, const int *, int *, size_t, size_t);
template <class T, class R = real_of<T>>
using gesvd_complex_fn = void (*)(const char *, const char *, const int *, const int *, T *, const int *, R *, T *,
                                  const int *, T *, const int *, T *, const int *, R *, int *, size_t, size_t);

// One call's arguments.
template <class T>
struct Call {
  using R = real_of<T>;
  char ju = 'N', jv = 'N';  // gesdd: ju is JOBZ
  int m = 0, n = 0, lda = 1, ldu = 1, ldvt = 1, info = -99;
  T *a = nullptr, *u = nullptr, *vt = nullptr;
  std::vector<R> s, rwork;
  std::vector<T> work;
  std::vector<int> iwork;
};

// ?gesdd_ (dc) or ?gesvd_.
template <class T>
struct Routine {
  void *fn;
  bool dc;
  void call(Call<T> &c, int lwork) const {
    T *work = c.work.data();
    if (dc) {
      if constexpr (is_complex<T>)
        reinterpret_cast<gesdd_complex_fn<T>>(fn)(&c.ju, &c.m, &c.n, c.a, &c.lda, c.s.data(), c.u, &c.ldu, c.vt,
                                                  &c.ldvt, work, &lwork, c.rwork.data(), c.iwork.data(), &c.info, 1);
      else
        reinterpret_cast<gesdd_real_fn<T>>(fn)(&c.ju, &c.m, &c.n, c.a, &c.lda, c.s.data(), c.u, &c.ldu, c.vt, &c.ldvt,
                                               work, &lwork, c.iwork.data(), &c.info, 1);
      return;
    }
    if constexpr (is_complex<T>)
      reinterpret_cast<gesvd_complex_fn<T>>(fn)(&c.ju, &c.jv, &c.m, &c.n, c.a, &c.lda, c.s.data(), c.u, &c.ldu, c.vt,
                                                &c.ldvt, work, &lwork, c.rwork.data(), &c.info, 1, 1);
    else
      reinterpret_cast<gesvd_real_fn<T>>(fn)(&c.ju, &c.jv, &c.m, &c.n, c.a, &c.lda, c.s.data(), c.u, &c.ldu, c.vt,
                                             &c.ldvt, work, &lwork, &c.info, 1, 1);
  }
};

template <class T>
std::string symbol(bool dc) {
  return std::string(1, harness::precision_letter<T>()) + (dc ? "gesdd_" : "gesvd_");
}
template <class T>
void *mine(bool dc) {
  if constexpr (std::is_same_v<T, float>)
    return dc ? reinterpret_cast<void *>(&sgesdd_) : reinterpret_cast<void *>(&sgesvd_);
  else if constexpr (std::is_same_v<T, double>)
    return dc ? reinterpret_cast<void *>(&dgesdd_) : reinterpret_cast<void *>(&dgesvd_);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return dc ? reinterpret_cast<void *>(&cgesdd_) : reinterpret_cast<void *>(&cgesvd_);
  else return dc ? reinterpret_cast<void *>(&zgesdd_) : reinterpret_cast<void *>(&zgesvd_);
}

// RWORK (complex) and IWORK as the routines document them, generously.
template <class T>
void size_side_arrays(Call<T> &c) {
  const size_t k = size_t(std::min(c.m, c.n)), big = size_t(std::max(c.m, c.n));
  c.rwork.assign(std::max<size_t>(1, k * std::max(5 * k + 7, 2 * big + 2 * k + 1) + 7 * k + 5 * k), real_of<T>(0));
  c.iwork.assign(std::max<size_t>(1, 8 * k), 0);
  c.s.assign(std::max<size_t>(1, k), std::numeric_limits<real_of<T>>::quiet_NaN());
}

// The query, then the call with what it asked for. Returns the query's WORK(1).
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
  r.call(c, lwork);
  return asked;
}

// Where the factors are: U's first `ucols` columns (m rows) and VT's first `vrows` rows (n
// columns); null where not computed.
template <class T>
struct Factors {
  const T *u = nullptr;
  int ldu = 1, ucols = 0;
  const T *vt = nullptr;
  int ldvt = 1, vrows = 0;
};
template <class T>
Factors<T> factors(bool dc, const Call<T> &c) {
  const int m = c.m, n = c.n, k = std::min(m, n);
  Factors<T> f;
  auto left = [&](char j) {
    if (j == 'A') f = {c.u, c.ldu, m, f.vt, f.ldvt, f.vrows};
    else if (j == 'S') f = {c.u, c.ldu, k, f.vt, f.ldvt, f.vrows};
    else if (j == 'O') f = {c.a, c.lda, k, f.vt, f.ldvt, f.vrows};
  };
  auto right = [&](char j) {
    if (j == 'A') f.vt = c.vt, f.ldvt = c.ldvt, f.vrows = n;
    else if (j == 'S') f.vt = c.vt, f.ldvt = c.ldvt, f.vrows = k;
    else if (j == 'O') f.vt = c.a, f.ldvt = c.lda, f.vrows = k;
  };
  if (!dc) {
    left(c.ju);
    right(c.jv);
    return f;
  }
  switch (c.ju) {
    case 'A': left('A'); right('A'); break;
    case 'S': left('S'); right('S'); break;
    case 'O':
      if (m >= n) { left('O'); f.vt = c.vt, f.ldvt = c.ldvt, f.vrows = k; }
      else { f.u = c.u, f.ldu = c.ldu, f.ucols = k; right('O'); }
      break;
    default: break;
  }
  return f;
}

template <class T>
void run_case(const Routine<T> &me, const Routine<T> &ref, int m, int n, char ju, char jv, Kind kind, double scale,
              Rng &rng) {
  using R = real_of<T>;
  const double eps = std::numeric_limits<R>::epsilon();
  const int k = std::min(m, n), big = std::max(m, n);
  const int lda = m + int(rng.below(4));
  // The leading dimensions: as the job needs, plus 0..3 rows (at least 1).
  const bool dc = me.dc;
  const bool u_used = dc ? (ju == 'A' || ju == 'S' || (ju == 'O' && m < n)) : (ju == 'A' || ju == 'S');
  const bool vt_used = dc ? (ju == 'A' || ju == 'S' || (ju == 'O' && m >= n)) : (jv == 'A' || jv == 'S');
  const int vt_rows = dc ? (ju == 'A' ? n : ju == 'O' ? n : k) : (jv == 'A' ? n : k);
  const int ldu = (u_used ? m : 1) + int(rng.below(4));
  const int ldvt = (vt_used ? vt_rows : 1) + int(rng.below(4));
  const int ucols = dc ? (ju == 'A' || (ju == 'O' && m < n) ? m : k) : (ju == 'A' ? m : k);
  Matrix<T> matrix(rng, m, n, lda, kind);
  if (scale != 1)
    for (T &x : matrix.storage) x *= R(scale);
  const double fro = matrix.fro * scale, denom = fro > 0 ? fro : 1;
  const R nan = std::numeric_limits<R>::quiet_NaN();
  std::vector<T> ustore(size_t(ldu) * std::max(ucols, 1) + 2, T(nan)), vstore(size_t(ldvt) * std::max(n, 1) + 2, T(nan));
  char where[200];
  std::snprintf(where, sizeof where, "%s m=%d n=%d lda=%d ldu=%d ldvt=%d job=%c%s%c %s%s", symbol<T>(dc).c_str(), m,
                n, lda, ldu, ldvt, ju, dc ? "" : ",", dc ? ' ' : jv, svd_test::kind_name(kind),
                scale != 1 ? " tiny" : "");
  if (opt.verbose) std::printf("%s\n", where);
  std::vector<T> mine_a = matrix.storage, ref_a = matrix.storage, mine_u = ustore, ref_u = ustore, mine_vt = vstore,
                 ref_vt = vstore;
  Call<T> cm, cr;
  for (Call<T> *c : {&cm, &cr}) {
    c->ju = ju;
    c->jv = jv;
    c->m = m;
    c->n = n;
    c->lda = lda;
    c->ldu = ldu;
    c->ldvt = ldvt;
  }
  cm.a = mine_a.data() + 1, cm.u = mine_u.data() + 1, cm.vt = mine_vt.data() + 1;
  cr.a = ref_a.data() + 1, cr.u = ref_u.data() + 1, cr.vt = ref_vt.data() + 1;
  const double asked = run(me, cm);
  run(ref, cr);
  if (k > 0) ++calls;
  CHECK(cm.info == 0 && cr.info == 0, "%s: info %d (reference %d)", where, cm.info, cr.info);
  if (cm.info != 0) return;
  CHECK(double(std::real(cm.work[0])) == asked, "%s: WORK(1) %g, the query said %g", where,
        double(std::real(cm.work[0])), asked);
  // U and VT where the reference leaves them alone.
  for (auto [mine_q, ref_q, orig] : {std::make_tuple(&mine_u, &ref_u, &ustore), std::make_tuple(&mine_vt, &ref_vt, &vstore)}) {
    bool intact = true;
    for (size_t i = 0; i < orig->size(); ++i)
      if (std::memcmp(&(*ref_q)[i], &(*orig)[i], sizeof(T)) == 0 && std::memcmp(&(*mine_q)[i], &(*orig)[i], sizeof(T)) != 0)
        intact = false;
    CHECK(intact, "%s: %s changed where the reference leaves it", where, mine_q == &mine_u ? "U" : "VT");
  }
  double ds = 0;
  bool ordered = true;
  for (int i = 0; i < k; ++i) {
    ds = std::max(ds, std::fabs(double(cm.s[i]) - double(cr.s[i])));
    if (i > 0 && !(cm.s[i] <= cm.s[i - 1])) ordered = false;
    if (!(cm.s[i] >= 0)) ordered = false;
  }
  CHECK(ordered, "%s: S not descending and nonnegative", where);
  CHECK(ds <= 30.0 * big * eps * denom, "%s: |S - S_ref| %.3g ||A||_F max(m,n) eps", where,
        ds / (denom * big * eps));
  const Factors<T> f = factors(dc, cm);
  const double limit = 60;
  if (f.u && f.vt) {
    const double e = svd_test::reconstruction_error(matrix, f.u, f.ldu, cm.s.data(), f.vt, f.ldvt, k) / scale;
    CHECK(e <= limit * denom / scale * big * eps, "%s: |A - U S V^H| %.3g ||A||_F max(m,n) eps", where,
          e * scale / (denom * big * eps));
  } else if (f.u || f.vt) {
    const double e = svd_test::one_sided_error(matrix, f.u ? f.u : f.vt, f.u ? f.ldu : f.ldvt, cm.s.data(), k,
                                               f.u != nullptr) * (scale != 1 ? 1 / scale : 1);
    CHECK(e <= limit * denom / scale * big * eps, "%s: one-sided error %.3g ||A||_F max(m,n) eps", where,
          e * scale / (denom * big * eps));
  }
  if (f.u) {
    const double e = svd_test::orthogonality_error(f.u, f.ldu, m, f.ucols, false);
    CHECK(e <= limit * std::max(m, 1) * eps, "%s: |U^H U - I| %.3g m eps", where, e / (std::max(m, 1) * eps));
  }
  if (f.vt) {
    const double e = svd_test::orthogonality_error(f.vt, f.ldvt, n, f.vrows, true);
    CHECK(e <= limit * std::max(n, 1) * eps, "%s: |V^H V - I| %.3g n eps", where, e / (std::max(n, 1) * eps));
  }
}

// Illegal arguments: the program's own xerbla_ gets the routine's name (hidden length 6) and the
// parameter the reference's order of checks names first, INFO = -that; A, U, VT untouched.
template <class T>
void check_arguments(const Routine<T> &me) {
  const bool dc = me.dc;
  std::string name = symbol<T>(dc);
  name.pop_back();
  for (char &c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  name.resize(6, ' ');
  struct Bad {
    char ju, jv;
    int m, n, lda, ldu, ldvt, lwork, param;
  };
  const int m = 6, n = 4, big = 4000;
  const std::vector<Bad> bad = dc ? std::vector<Bad>{{'X', 'N', m, n, m, m, n, big, 1},     {'A', 'N', -1, n, m, m, n, big, 2},
           {'A', 'N', m, -1, m, m, n, big, 3},    {'S', 'N', m, n, m - 1, m, n, big, 5},
           {'S', 'N', m, n, m, m - 1, n, big, 8}, {'A', 'N', m, n, m, 0, n, big, 8},
           {'O', 'N', n, m, n, n - 1, n, big, 8}, {'A', 'N', m, n, m, m, n - 1, big, 10},
           {'S', 'N', n, m, n, n, n - 1, big, 10}, {'O', 'N', m, n, m, m, n - 1, big, 10},
           {'N', 'N', m, n, m, 1, 0, big, 10},    {'A', 'N', m, n, m, m, n, 1, 12},
           {'n', 'N', m, n, m, 1, 1, 0, 12}}
                                  : std::vector<Bad>{{'X', 'N', m, n, m, m, n, big, 1},  {'N', 'X', m, n, m, m, n, big, 2},  {'O', 'O', m, n, m, m, n, big, 2},
           {'A', 'A', -1, n, m, m, n, big, 3}, {'A', 'A', m, -1, m, m, n, big, 4}, {'S', 'S', m, n, m - 1, m, n, big, 6},
           {'S', 'N', m, n, m, m - 1, n, big, 9}, {'N', 'N', m, n, m, 0, 1, big, 9},
           {'N', 'A', m, n, m, 1, n - 1, big, 11}, {'N', 'S', n, m, n, 1, n - 1, big, 11},
           {'a', 's', m, n, m, m, n, 1, 13}};
  std::vector<T> a(size_t(m) * m + 8, T(1)), u(size_t(m) * m + 8, T(2)), vt(size_t(m) * m + 8, T(3));
  for (const Bad &x : bad) {
    const std::vector<T> a0 = a, u0 = u, vt0 = vt;
    Call<T> c;
    c.ju = x.ju, c.jv = x.jv, c.m = x.m, c.n = x.n, c.lda = x.lda, c.ldu = x.ldu, c.ldvt = x.ldvt;
    c.a = a.data(), c.u = u.data(), c.vt = vt.data();
    c.m = x.m, c.n = x.n;
    Call<T> sized = c;
    sized.m = std::max(0, x.m), sized.n = std::max(0, x.n);
    size_side_arrays(sized);
    c.s = sized.s, c.rwork = sized.rwork, c.iwork = sized.iwork;
    c.work.assign(size_t(std::max(1, x.lwork)), T(0));
    c.info = 99;
    harness::xerbla.clear();
    me.call(c, x.lwork);
    CHECK(c.info == -x.param && harness::xerbla.calls == 1 && harness::xerbla.info == x.param &&
              harness::xerbla.length == 6 && name == harness::xerbla.name,
          "%s illegal parameter %d: info %d, xerbla %d call(s) with '%s' (length %zu) and %d", name.c_str(), x.param,
          c.info, harness::xerbla.calls, harness::xerbla.name, harness::xerbla.length, harness::xerbla.info);
    CHECK(a == a0 && u == u0 && vt == vt0, "%s illegal parameter %d: A, U or VT changed", name.c_str(), x.param);
  }
}

// LWORK's minimum (capi/svd_work.h, what the entry checks) against the CPU routine's own check:
// through the library, LWORK = minimum - 1 goes to the CPU routine as an illegal call, which
// must report it; LWORK = minimum runs, and the routine must not report it.
template <class T>
void check_minimum_work(const Routine<T> &me, Rng &rng) {
  const bool dc = me.dc;
  const int lwork_param = dc ? 12 : 13;
  const char jobs[] = {'N', 'O', 'S', 'A'};
  for (int trial = 0; trial < 60; ++trial) {
    const int m = int(rng.below(5)) == 0 ? int(rng.below(3)) : 1 + int(rng.below(45));
    const int n = int(rng.below(5)) == 0 ? int(rng.below(3)) : 1 + int(rng.below(45));
    char ju = jobs[rng.below(4)], jv = jobs[rng.below(4)];
    if (!dc && ju == 'O' && jv == 'O') jv = 'S';
    const long long least = dc ? cudrop::capi::gesdd_minimum<is_complex<T>>(ju, m, n)
                               : cudrop::capi::gesvd_minimum<is_complex<T>>(ju, jv, m, n);
    Rng fill(trial + 1);
    for (long long lwork : {least - 1, least}) {
      Matrix<T> matrix(fill, m, n, std::max(1, m), Kind::random);
      std::vector<T> u(size_t(std::max(1, m)) * std::max(1, m) + 1), vt(size_t(std::max(1, n)) * std::max(1, n) + 1);
      Call<T> c;
      c.ju = ju, c.jv = jv, c.m = m, c.n = n, c.lda = std::max(1, m), c.ldu = std::max(1, m), c.ldvt = std::max(1, n);
      c.a = matrix.a0, c.u = u.data(), c.vt = vt.data();
      size_side_arrays(c);
      c.work.assign(size_t(std::max(1LL, lwork)), T(0));
      harness::xerbla.clear();
      me.call(c, int(lwork));
      const bool reported = harness::xerbla.calls == 1 && harness::xerbla.info == lwork_param;
      if (lwork < least)
        CHECK(reported && c.info == -lwork_param, "%s m=%d n=%d job=%c%c: LWORK %lld (minimum - 1) not reported: info %d",
              symbol<T>(dc).c_str(), m, n, ju, dc ? ' ' : jv, lwork, c.info);
      else
        CHECK(harness::xerbla.calls == 0 && c.info >= 0, "%s m=%d n=%d job=%c%c: LWORK %lld (the minimum) reported: info %d",
              symbol<T>(dc).c_str(), m, n, ju, dc ? ' ' : jv, lwork, c.info);
    }
  }
}

struct Shape {
  int m, n;
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
    Rng rng(opt.seed + sizeof(T) * 19 + dc);
    if (cpu_calls) check_minimum_work<T>(me, rng);
    // Tall past the crossover (100 x 20), short of it (33 x 20), square, wide, order 1.
    std::vector<Shape> shapes = {{1, 1}, {7, 7}, {7, 3}, {3, 7}, {33, 20}, {20, 33}, {100, 20}, {20, 100},
                                 {33, 33}, {100, 100}, {130, 60}, {60, 130}, {130, 130}};
    std::vector<std::pair<char, char>> jobs;
    for (char ju : {'N', 'O', 'S', 'A'})
      for (char jv : {'N', 'O', 'S', 'A'}) {
        if (dc && jv != 'N') continue;
        if (!dc && ju == 'O' && jv == 'O') continue;
        jobs.push_back({ju, jv});
      }
    for (const Shape &sh : shapes) {
      if (std::max(sh.m, sh.n) > opt.max) continue;
      for (auto [ju, jv] : jobs) run_case<T>(me, ref, sh.m, sh.n, ju, jv, Kind::random, 1, rng);
      if (std::min(sh.m, sh.n) < 3) continue;
      // The other matrices with the jobs that write both factors in their own arrays and in A.
      for (Kind kind : {Kind::zero_columns, Kind::repeated, Kind::graded})
        for (auto [ju, jv] : {std::pair<char, char>{'S', 'S'}, {'O', 'A'}, {'A', 'O'}, {'N', 'N'}}) {
          run_case<T>(me, ref, sh.m, sh.n, ju, dc ? 'N' : jv, kind, 1, rng);
        }
      if (special)
        for (auto [ju, jv] : {std::pair<char, char>{'S', 'S'}, {'A', 'N'}, {'N', 'N'}}) {
          run_case<T>(me, ref, sh.m, sh.n, ju, dc ? 'N' : jv, Kind::zero, 1, rng);
          run_case<T>(me, ref, sh.m, sh.n, ju, dc ? 'N' : jv, Kind::random,
                      std::is_same_v<R, float> ? 1e-30 : 1e-300, rng);
        }
    }
    if (opt.big)
      for (const Shape &sh : {Shape{1007, 1007}, Shape{3000, 500}})
        for (auto [ju, jv] : {std::pair<char, char>{'S', 'S'}, {'N', 'N'}}) run_case<T>(me, ref, sh.m, sh.n, ju, jv, Kind::random, 1, rng);
  }
}

}  // namespace

int main(int argc, char **argv) {
  opt.max = 130;
  return harness::lapack_test_main(argc, argv, "svd_test", opt, &special, {"dgesdd_", "zgesdd_", "dgesvd_", "zgesvd_"},
                                   &calls, [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
