// The SVD family: ?gesdd_, ?gesvd_, ?gelsd_, ?gelss_ (s, d, c, z; the complex ones with RWORK);
// the lq family: ?gelqf_, ?ormlq_/?unmlq_, ?orglq_/?unglq_ (s, d, c, z) and the pivoted QR
// ?geqp3_, ?gelsy_ (s, d). As qr.cpp: every job, side and trans letter (and illegal ones),
// sizes 0, 1, tall and wide, padded leading dimensions, LWORK a query, one short, the minimum
// or more, the argument checks in the reference's order, and on the CPU path every output bit
// for bit: A, S, U, VT, B, TAU, JPVT, RANK and the workspaces' first entries (cudrop's CPU path
// is the reference routine, so singular vectors' phases and tied pivots agree exactly there).
// Where calls may reach the GPU (--gpu, --bounds) only the calls that compute nothing are drawn;
// the computing calls' GPU results are judged by tests/svd and tests/qr (residuals,
// orthogonality, singular values within bounds).
// IWORK (?gesdd_, ?gelsd_), JPVT and RANK are integers of the index type that shim.cpp's ILP64
// stand-ins take as INFO (one element, written back): those routines' 64-bit names' cases are
// drawn as the LP64 ones (as qr.cpp's syevd_as does).
#include <algorithm>
#include <climits>

#include "capi/svd_work.h"
#include "tests/fuzz/codes.h"
#include "tests/fuzz/drivers.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

using cudrop::capi::gelsd_minimum;
using cudrop::capi::gelss_minimum;
using cudrop::capi::gesdd_minimum;
using cudrop::capi::gesvd_minimum;

// What one library's call gave: A, a second matrix (B, TAU), U, VT, S, JPVT, RANK and the
// workspaces' first entries.
template <class T> struct Run {
  Array<T> a, b, u, vt, work;
  Array<real_t<T>> s;
  Pivots<int64_t> jpvt;
  int64_t info = 0, rank = kIntGuard, iwork1 = 0;
  real_t<T> rwork1 = 0;
  std::vector<HandlerCall> handlers;
};

template <class T> void compare_runs(const Run<T> &ref, const Run<T> &got) {
  if (ref.info != got.info) difference("INFO: reference %lld, cudrop %lld", (long long)ref.info, (long long)got.info);
  check_untouched_outside("A", ref.a, got.a);
  check_untouched_outside("B", ref.b, got.b);
  check_untouched_outside("U", ref.u, got.u);
  check_untouched_outside("VT", ref.vt, got.vt);
  check_untouched_outside("S", ref.s, got.s);
  check_same_entries("A", ref.a, got.a);
  check_same_entries("B", ref.b, got.b);
  check_same_entries("U", ref.u, got.u);
  check_same_entries("VT", ref.vt, got.vt);
  check_same_entries("S", ref.s, got.s);
  if (ref.work.rows > 0) check_same_entries("WORK(1)", ref.work, got.work);
  if (ref.jpvt.data != got.jpvt.data) difference("JPVT differs from the reference's");
  if (ref.rank != got.rank) difference("RANK: reference %lld, cudrop %lld", (long long)ref.rank, (long long)got.rank);
  if (ref.iwork1 != got.iwork1)
    difference("IWORK(1): reference %lld, cudrop %lld", (long long)ref.iwork1, (long long)got.iwork1);
  if (!same(ref.rwork1, got.rwork1))
    difference("RWORK(1): reference %s, cudrop %s", show(ref.rwork1).c_str(), show(got.rwork1).c_str());
}

// A size for the SVD's cases: dimension()'s, the largest (past 40) drawn a third as often, the
// routines' cost growing with their cube.
int svd_dimension(Rng &rng) {
  const int d = dimension(rng);
  return d > 40 && rng.below(3) != 0 ? 1 + int(rng.below(40)) : d;
}

// A (rows x cols): random, sometimes of integers, sometimes of lower rank (columns that are
// multiples of the one before: a rank-deficient least-squares problem, tied column norms);
// with `specials`, sometimes with Inf and NaN. Not for the SVD routines: the reference's xBDSQR
// (under xGESVD and xGELSS) can iterate for minutes on a NaN.
template <class T> Array<T> svd_matrix(Rng &rng, int rows, int cols, int ld, bool specials) {
  const uint64_t r = rng.below(100);
  const Fill fill = specials && r < 6 ? Fill::Special : r < 14 ? Fill::Integer : Fill::Random;
  Array<T> a = make_array<T>(rng, rows, cols, ld, fill);
  if (r >= 80)
    for (int j = 1; j < a.cols; ++j)
      if (rng.below(3) == 0)
        for (int i = 0; i < a.rows; ++i) a.at(i, j) = a.at(i, j - 1) * real_t<T>(2);
  return a;
}

// RCOND: negative (machine precision), 0, small, or large enough to cut most of the spectrum.
template <class R> R rcond_value(Rng &rng) {
  switch (rng.below(5)) {
    case 0: return R(-1);
    case 1: return R(0);
    case 2: return R(0.5);
    default: return R(1e-3 * rng.uniform());
  }
}

// WORK's buffer for an LWORK, with room before and after it: the reference's sgelsy_ writes
// WORK(0) (m=2, n=7, nrhs=12, rcond=-1, lwork=16: tests/fuzz --seed 7 --family lq --only 13).
constexpr size_t kWorkFront = 64;
size_t work_room(int lwork) { return kWorkFront + size_t(std::max(lwork, 1)) + 512; }

char upper_letter(char c) { return char(std::toupper(static_cast<unsigned char>(c))); }

// ---- ?gesdd_ ----

template <class T> void gesdd_as(Rng &rng, Names names) {
  using R = real_t<T>;
  constexpr bool complex = is_complex<T>;
  if (wide(names)) names = Names::lp64;
  const char jobz = option_letter(rng, "ASON");
  const char jz = upper_letter(jobz);
  const int m = svd_dimension(rng), n = svd_dimension(rng);
  const int mn = std::max(0, std::min(m, n)), mx = std::max({0, m, n});
  const bool wntqa = jz == 'A', wntqs = jz == 'S', wntqo = jz == 'O', jobz_ok = letter_in(jobz, "ASON");
  // U: m x m (A, or O with m < n), m x min(m, n) (S), else not referenced; VT likewise.
  const int urows = wntqa || wntqs || (wntqo && m < n) ? std::max(m, 0) : 1;
  const int ucols = wntqa || (wntqo && m < n) ? std::max(m, 0) : wntqs ? mn : 1;
  const int vtrows = wntqa || (wntqo && m >= n) ? std::max(n, 0) : wntqs ? mn : 1;
  const int vtcols = wntqa || wntqs || (wntqo && m >= n) ? std::max(n, 0) : 1;
  const int lda = leading_dimension(rng, m), ldu = leading_dimension(rng, urows),
            ldvt = leading_dimension(rng, vtrows);
  const long long least = jobz_ok ? gesdd_minimum<complex>(jz, std::max(m, 0), std::max(n, 0)) : 1;
  int lwork = work_length(rng, least);
  const int minmn = std::min(m, n);
  const bool legal = jobz_ok && m >= 0 && n >= 0 && lda >= std::max(1, m) && ldu >= 1 &&
                     !((wntqa || wntqs) && ldu < m) && !(wntqo && m < n && ldu < m) && ldvt >= 1 &&
                     !(wntqa && ldvt < n) && !(wntqs && ldvt < minmn) && !(wntqo && m >= n && ldvt < n) &&
                     (lwork == -1 || lwork >= least);
  if (legal && lwork != -1 && mn > 0 && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && mn > 0;
  const Array<T> a0 = svd_matrix<T>(rng, m, n, lda, false);
  const Array<R> s0 = make_array<R>(rng, std::max(mn, 1), 1, std::max(mn, 1), Fill::Random);
  const Array<T> u0 = make_array<T>(rng, std::max(urows, 1), std::max(ucols, 1), ldu, Fill::Random);
  const Array<T> vt0 = make_array<T>(rng, std::max(vtrows, 1), std::max(vtcols, 1), ldvt, Fill::Random);
  const char *stem = "gesdd";
  char call[200];
  std::snprintf(call, sizeof call, "%s(%s, m=%d, n=%d, lda=%d, ldu=%d, ldvt=%d, lwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), letter_text(jobz).c_str(), m, n, lda, ldu, ldvt, lwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = jobz;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = lda;
  args.in[3] = ldu;
  args.in[4] = ldvt;
  args.in[5] = lwork;
  // zgesdd.f's LRWORK for JOBZ other than 'N', with room for the older 7 min(m, n) of 'N'.
  const size_t lrwork = size_t(mn) * size_t(std::max(5 * mn + 7, 2 * mx + 2 * mn + 1)) + 7 * size_t(mn) + 1;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.s = s0;
    out.u = u0;
    out.vt = vt0;
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    std::vector<R> rwork(lrwork, R(0));
    std::vector<I> iwork(8 * size_t(mn) + 1, I(0));
    I info = I(kIntGuard);
    const auto fn = symbol<T>(Kind::lapack, stem, as);
    if constexpr (complex)
      lib.get<sig::gesdd_lapack_cz<T, I>>(fn)(&s.ch[0], &s.in[0], &s.in[1], out.a.p(), &s.in[2], out.s.p(), out.u.p(),
                                              &s.in[3], out.vt.p(), &s.in[4], work, &s.in[5], rwork.data(),
                                              iwork.data(), &info, 1);
    else
      lib.get<sig::gesdd_lapack<T, I>>(fn)(&s.ch[0], &s.in[0], &s.in[1], out.a.p(), &s.in[2], out.s.p(), out.u.p(),
                                           &s.in[3], out.vt.p(), &s.in[4], work, &s.in[5], iwork.data(), &info,
                                           1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare_runs(ref, got);
}

// ---- ?gesvd_ ----

template <class T> void gesvd_as(Rng &rng, Names names) {
  using R = real_t<T>;
  constexpr bool complex = is_complex<T>;
  const char jobu = option_letter(rng, "ASON"), jobvt = option_letter(rng, "ASON");
  const char ju = upper_letter(jobu), jv = upper_letter(jobvt);
  const int m = svd_dimension(rng), n = svd_dimension(rng);
  const int mn = std::max(0, std::min(m, n)), minmn = std::min(m, n);
  const bool letters_ok = letter_in(jobu, "ASON") && letter_in(jobvt, "ASON") && !(ju == 'O' && jv == 'O');
  const int urows = ju == 'A' || ju == 'S' ? std::max(m, 0) : 1;
  const int ucols = ju == 'A' ? std::max(m, 0) : ju == 'S' ? mn : 1;
  const int vtrows = jv == 'A' ? std::max(n, 0) : jv == 'S' ? mn : 1;
  const int vtcols = jv == 'A' || jv == 'S' ? std::max(n, 0) : 1;
  const int lda = leading_dimension(rng, m), ldu = leading_dimension(rng, urows),
            ldvt = leading_dimension(rng, vtrows);
  const long long least = letters_ok ? gesvd_minimum<complex>(ju, jv, std::max(m, 0), std::max(n, 0)) : 1;
  int lwork = work_length(rng, least);
  const bool legal = letters_ok && m >= 0 && n >= 0 && lda >= std::max(1, m) && ldu >= 1 &&
                     !((ju == 'A' || ju == 'S') && ldu < m) && ldvt >= 1 && !(jv == 'A' && ldvt < n) &&
                     !(jv == 'S' && ldvt < minmn) && (lwork == -1 || lwork >= least);
  if (legal && lwork != -1 && mn > 0 && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && mn > 0;
  const Array<T> a0 = svd_matrix<T>(rng, m, n, lda, false);
  const Array<R> s0 = make_array<R>(rng, std::max(mn, 1), 1, std::max(mn, 1), Fill::Random);
  const Array<T> u0 = make_array<T>(rng, std::max(urows, 1), std::max(ucols, 1), ldu, Fill::Random);
  const Array<T> vt0 = make_array<T>(rng, std::max(vtrows, 1), std::max(vtcols, 1), ldvt, Fill::Random);
  const char *stem = "gesvd";
  char call[200];
  std::snprintf(call, sizeof call, "%s(%s, %s, m=%d, n=%d, lda=%d, ldu=%d, ldvt=%d, lwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), letter_text(jobu).c_str(), letter_text(jobvt).c_str(), m,
                n, lda, ldu, ldvt, lwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = jobu;
  args.ch[1] = jobvt;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = lda;
  args.in[3] = ldu;
  args.in[4] = ldvt;
  args.in[5] = lwork;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.s = s0;
    out.u = u0;
    out.vt = vt0;
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    std::vector<R> rwork(5 * size_t(mn) + 1, R(0));
    I info = I(kIntGuard);
    const auto fn = symbol<T>(Kind::lapack, stem, as);
    if constexpr (complex)
      lib.get<sig::gesvd_lapack_cz<T, I>>(fn)(&s.ch[0], &s.ch[1], &s.in[0], &s.in[1], out.a.p(), &s.in[2], out.s.p(),
                                              out.u.p(), &s.in[3], out.vt.p(), &s.in[4], work, &s.in[5],
                                              rwork.data(), &info, 1, 1);
    else
      lib.get<sig::gesvd_lapack<T, I>>(fn)(&s.ch[0], &s.ch[1], &s.in[0], &s.in[1], out.a.p(), &s.in[2], out.s.p(),
                                           out.u.p(), &s.in[3], out.vt.p(), &s.in[4], work, &s.in[5], &info, 1,
                                           1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare_runs(ref, got);
}

// ---- ?gelsd_ and ?gelss_ ----

template <class T> void least_squares_as(Rng &rng, Names names, bool gelss) {
  using R = real_t<T>;
  constexpr bool complex = is_complex<T>;
  // IWORK, and RANK: the ILP64 stand-ins write RANK back as INFO (0 where the reference left it).
  if (wide(names)) names = Names::lp64;
  const int m = svd_dimension(rng), n = svd_dimension(rng), nrhs = svd_dimension(rng);
  const int mn = std::max(0, std::min(m, n)), m0 = std::max(m, 0), n0 = std::max(n, 0), nrhs0 = std::max(nrhs, 0);
  const int lda = leading_dimension(rng, m), ldb = leading_dimension(rng, std::max(m, n));
  const R rcond = rcond_value<R>(rng);
  cudrop::capi::LeastSquaresWork least;
  if (gelss) least.lwork = gelss_minimum<complex>(m0, n0, nrhs0);
  else least = gelsd_minimum<complex, std::is_same_v<T, float>>(m0, n0, nrhs0);
  int lwork = work_length(rng, least.lwork);
  const bool legal = m >= 0 && n >= 0 && nrhs >= 0 && lda >= std::max(1, m) && ldb >= std::max({1, m, n}) &&
                     (lwork == -1 || lwork >= least.lwork);
  // xGELSD with NRHS = 0 is the CPU routine's, uncounted (capi/svd.cpp); it still factors A, by
  // whichever CPU library is underneath, so it too is made only where the fuzzer computes (with
  // --gpu that library need not be the reference: case 2489 of seed 5 differed by one ulp).
  const bool computes = legal && mn > 0 && (gelss || nrhs > 0);
  if (legal && mn > 0 && lwork != -1 && !may_compute()) lwork = -1;
  const bool works = computes && lwork != -1;
  const Array<T> a0 = svd_matrix<T>(rng, m, n, lda, false);
  // B has a column also for NRHS = 0: the reference's xGELSS writes B(1:n, 1) then (m < n).
  const Array<T> b0 = make_array<T>(rng, std::max(m, n), std::max(nrhs, 1), ldb, Fill::Random);
  const Array<R> s0 = make_array<R>(rng, std::max(mn, 1), 1, std::max(mn, 1), Fill::Random);
  const char *stem = gelss ? "gelss" : "gelsd";
  char call[200];
  std::snprintf(call, sizeof call, "%s(m=%d, n=%d, nrhs=%d, lda=%d, ldb=%d, rcond=%g, lwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), m, n, nrhs, lda, ldb, double(rcond), lwork);
  g_call = call;
  Args<T> args;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = nrhs;
  args.in[3] = lda;
  args.in[4] = ldb;
  args.in[5] = lwork;
  args.r[0] = rcond;
  const size_t lrwork = size_t(std::max<long long>({least.lrwork, 5LL * mn, 1})) + 1;
  const size_t liwork = size_t(std::max<long long>(least.liwork, 1)) + 1;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = b0;
    out.s = s0;
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    std::vector<R> rwork(lrwork, R(0));
    std::vector<I> iwork(liwork, I(0));
    I info = I(kIntGuard), rank = I(kIntGuard);
    const auto fn = symbol<T>(Kind::lapack, stem, as);
    T *a = out.a.p(), *b = out.b.p();
    R *sv = out.s.p();
    if constexpr (complex) {
      if (gelss)
        lib.get<sig::gelss_lapack_cz<T, I>>(fn)(&s.in[0], &s.in[1], &s.in[2], a, &s.in[3], b, &s.in[4], sv, &s.r[0],
                                                &rank, work, &s.in[5], rwork.data(), &info);
      else
        lib.get<sig::gelsd_lapack_cz<T, I>>(fn)(&s.in[0], &s.in[1], &s.in[2], a, &s.in[3], b, &s.in[4], sv, &s.r[0],
                                                &rank, work, &s.in[5], rwork.data(), iwork.data(), &info);
    } else {
      if (gelss)
        lib.get<sig::gelss_lapack<T, I>>(fn)(&s.in[0], &s.in[1], &s.in[2], a, &s.in[3], b, &s.in[4], sv, &s.r[0],
                                             &rank, work, &s.in[5], &info);
      else
        lib.get<sig::gelsd_lapack<T, I>>(fn)(&s.in[0], &s.in[1], &s.in[2], a, &s.in[3], b, &s.in[4], sv, &s.r[0],
                                             &rank, work, &s.in[5], iwork.data(), &info);
    }
    out.work = one_entry(work[0]);
    out.info = info;
    out.rank = rank;
    out.iwork1 = gelss ? 0 : int64_t(iwork[0]);
    out.rwork1 = !gelss && complex ? rwork[0] : R(0);
  });
  compare_runs(ref, got);
}

// ---- ?gelqf_, ?ormlq_/?unmlq_, ?orglq_/?unglq_ ----

// WORK(1) is compared only where every argument but LWORK is legal, as orgqr_as does: the
// reference sets it before all its checks, from its block size.
template <class T> void gelqf_as(Rng &rng, Names names) {
  const int m = dimension(rng), n = dimension(rng);
  const int lda = leading_dimension(rng, m);
  int lwork = work_length(rng, std::max(1, m));
  const bool basic = m >= 0 && n >= 0 && lda >= std::max(1, m);
  const bool legal = basic && (lwork == -1 || (lwork > 0 && (n == 0 || lwork >= std::max(1, m))));
  const bool computes = legal && lwork != -1 && std::min(m, n) > 0;
  if (computes && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && std::min(m, n) > 0;
  const Array<T> a0 = make_array<T>(rng, m, n, lda, rng.below(10) == 0 ? Fill::Special : Fill::Random);
  const int mn = std::max(0, std::min(m, n));
  const Array<T> tau0 = make_array<T>(rng, mn, 1, std::max(mn, 1), Fill::Random);
  char call[200];
  std::snprintf(call, sizeof call, "%s(m=%d, n=%d, lda=%d, lwork=%d)", symbol<T>(Kind::lapack, "gelqf", names).c_str(),
                m, n, lda, lwork);
  g_call = call;
  Args<T> args;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = lda;
  args.in[3] = lwork;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = tau0;
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    I info = I(kIntGuard);
    lib.get<sig::gelqf_lapack<T, I>>(symbol<T>(Kind::lapack, "gelqf", as))(&s.in[0], &s.in[1], out.a.p(), &s.in[2],
                                                                          out.b.p(), work, &s.in[3], &info);
    out.work = basic ? one_entry(work[0]) : Array<T>();
    out.info = info;
  });
  compare_runs(ref, got);
}

// C (m x n) times Q of k reflectors stored row-wise in a random A (k x nq).
template <class T> void ormlq_as(Rng &rng, Names names) {
  const char *trans_letters = is_complex<T> ? "NC" : "NT";
  const char side = option_letter(rng, "LR"), trans = option_letter(rng, trans_letters);
  const int m = dimension(rng), n = dimension(rng);
  const bool left = is(side, 'L');
  const int nq = left ? m : n, nw = std::max(1, left ? n : m);
  const int k = rng.below(3) == 0 ? dimension(rng) : int(rng.below(uint64_t(std::max(nq, 0)) + 1));
  const int lda = leading_dimension(rng, k), ldc = leading_dimension(rng, m);
  int lwork = work_length(rng, nw);
  const bool legal = letter_in(side, "LR") && letter_in(trans, trans_letters) && m >= 0 && n >= 0 && k >= 0 &&
                     k <= nq && lda >= std::max(1, k) && ldc >= std::max(1, m) && (lwork == -1 || lwork >= nw);
  const bool computes = legal && lwork != -1 && m > 0 && n > 0 && k > 0;
  if (computes && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && m > 0 && n > 0 && k > 0;
  const Array<T> a0 = make_array<T>(rng, k, std::max(nq, 0), lda, Fill::Random);
  const Array<T> c0 = make_array<T>(rng, m, n, ldc, Fill::Random);
  std::vector<T> tau(size_t(std::max(k, 1)));
  for (T &t : tau) t = random_value<T>(rng, Fill::Random);
  const char *stem = is_complex<T> ? "unmlq" : "ormlq";
  char call[200];
  std::snprintf(call, sizeof call, "%s(%s, %s, m=%d, n=%d, k=%d, lda=%d, ldc=%d, lwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), letter_text(side).c_str(), letter_text(trans).c_str(), m,
                n, k, lda, ldc, lwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = side;
  args.ch[1] = trans;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = k;
  args.in[3] = lda;
  args.in[4] = ldc;
  args.in[5] = lwork;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = c0;
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    I info = I(kIntGuard);
    auto fn = is_complex<T> ? lib.get<sig::unmlq_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))
                            : lib.get<sig::ormlq_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as));
    fn(&s.ch[0], &s.ch[1], &s.in[0], &s.in[1], &s.in[2], out.a.p(), &s.in[3], tau.data(), out.b.p(), &s.in[4],
       work, &s.in[5], &info, 1, 1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  check_unchanged("A", a0, got.a);
  compare_runs(ref, got);
}

// Q (m x n, n >= m) from k reflectors of a random A. WORK(1) is compared only where every
// argument but LWORK is legal, as orgqr_as does.
template <class T> void orglq_as(Rng &rng, Names names) {
  const int m = dimension(rng);
  const int n = rng.below(4) == 0 || m < 0 ? dimension(rng) : m + int(rng.below(8));
  const int k = rng.below(4) == 0 || m < 0 ? dimension(rng) : int(rng.below(uint64_t(m) + 1));
  const int lda = leading_dimension(rng, m);
  int lwork = work_length(rng, std::max(1, m));
  const bool basic = m >= 0 && n >= m && k >= 0 && k <= m && lda >= std::max(1, m);
  const bool legal = basic && (lwork == -1 || lwork >= std::max(1, m));
  const bool computes = legal && lwork != -1 && m > 0;
  if (computes && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && m > 0;
  const Array<T> a0 = make_array<T>(rng, m, n, lda, Fill::Random);
  std::vector<T> tau(size_t(std::max(k, 1)));
  for (T &t : tau) t = random_value<T>(rng, Fill::Random);
  const char *stem = is_complex<T> ? "unglq" : "orglq";
  char call[200];
  std::snprintf(call, sizeof call, "%s(m=%d, n=%d, k=%d, lda=%d, lwork=%d)", symbol<T>(Kind::lapack, stem, names).c_str(),
                m, n, k, lda, lwork);
  g_call = call;
  Args<T> args;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = k;
  args.in[3] = lda;
  args.in[4] = lwork;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    I info = I(kIntGuard);
    auto fn = is_complex<T> ? lib.get<sig::unglq_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))
                            : lib.get<sig::orglq_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as));
    fn(&s.in[0], &s.in[1], &s.in[2], out.a.p(), &s.in[3], tau.data(), work, &s.in[4], &info);
    out.work = basic ? one_entry(work[0]) : Array<T>();
    out.info = info;
  });
  compare_runs(ref, got);
}

// ---- ?geqp3_, ?gelsy_ (s, d) ----

// JPVT's entries on input: mostly free columns (0), some fixed ones (nonzero) to the front.
std::vector<int> jpvt_values(Rng &rng, int n) {
  std::vector<int> values(size_t(std::max(n, 0)), 0);
  if (rng.below(3) == 0)
    for (int &v : values) v = rng.below(4) == 0 ? 1 + int(rng.below(std::max(n, 1))) : 0;
  return values;
}

template <class T> void geqp3_as(Rng &rng, Names names) {
  if (wide(names)) names = Names::lp64;  // JPVT
  const int m = dimension(rng), n = dimension(rng);
  const int lda = leading_dimension(rng, m);
  const int mn = std::max(0, std::min(m, n));
  const int iws = mn == 0 ? 1 : 3 * std::max(n, 0) + 1;
  int lwork = work_length(rng, iws);
  const bool legal = m >= 0 && n >= 0 && lda >= std::max(1, m) && (lwork == -1 || lwork >= iws);
  const bool computes = legal && lwork != -1 && mn > 0;
  if (computes && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && mn > 0;
  const Array<T> a0 = svd_matrix<T>(rng, m, n, lda, true);
  const Array<T> tau0 = make_array<T>(rng, std::max(mn, 1), 1, std::max(mn, 1), Fill::Random);
  const std::vector<int> jpvt0 = jpvt_values(rng, n);
  char call[200];
  std::snprintf(call, sizeof call, "%s(m=%d, n=%d, lda=%d, lwork=%d)", symbol<T>(Kind::lapack, "geqp3", names).c_str(),
                m, n, lda, lwork);
  g_call = call;
  Args<T> args;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = lda;
  args.in[3] = lwork;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = tau0;
    Pivots<I> jpvt = make_pivots<I>(std::max(n, 1), jpvt0);
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    I info = I(kIntGuard);
    lib.get<sig::geqp3_lapack<T, I>>(symbol<T>(Kind::lapack, "geqp3", as))(&s.in[0], &s.in[1], out.a.p(), &s.in[2],
                                                                          jpvt.p(), out.b.p(), work, &s.in[3],
                                                                          &info);
    out.jpvt = widened(jpvt);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare_runs(ref, got);
}

template <class T> void gelsy_as(Rng &rng, Names names) {
  using R = real_t<T>;
  if (wide(names)) names = Names::lp64;  // JPVT
  const int m = svd_dimension(rng), n = svd_dimension(rng), nrhs = svd_dimension(rng);
  const int mn = std::max(0, std::min(m, n));
  const int lda = leading_dimension(rng, m), ldb = leading_dimension(rng, std::max(m, n));
  const R rcond = rcond_value<R>(rng);
  const long long least = mn == 0 || nrhs <= 0
                              ? 1
                              : mn + std::max({2LL * mn, (long long)n + 1, (long long)mn + nrhs});
  int lwork = work_length(rng, least);
  const bool legal = m >= 0 && n >= 0 && nrhs >= 0 && lda >= std::max(1, m) && ldb >= std::max({1, m, n}) &&
                     (lwork == -1 || lwork >= least);
  const bool computes = legal && lwork != -1 && mn > 0 && nrhs > 0;
  if (computes && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && mn > 0 && nrhs > 0;
  const Array<T> a0 = svd_matrix<T>(rng, m, n, lda, true);
  const Array<T> b0 = make_array<T>(rng, std::max(m, n), std::max(nrhs, 1), ldb, Fill::Random);
  const std::vector<int> jpvt0 = jpvt_values(rng, n);
  char call[200];
  std::snprintf(call, sizeof call, "%s(m=%d, n=%d, nrhs=%d, lda=%d, ldb=%d, rcond=%g, lwork=%d)",
                symbol<T>(Kind::lapack, "gelsy", names).c_str(), m, n, nrhs, lda, ldb, double(rcond), lwork);
  g_call = call;
  Args<T> args;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = nrhs;
  args.in[3] = lda;
  args.in[4] = ldb;
  args.in[5] = lwork;
  args.r[0] = rcond;
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = b0;
    Pivots<I> jpvt = make_pivots<I>(std::max(n, 1), jpvt0);
    std::vector<T> room(work_room(lwork), T(0));
    T *const work = room.data() + kWorkFront;
    I info = I(kIntGuard), rank = I(kIntGuard);
    lib.get<sig::gelsy_lapack<T, I>>(symbol<T>(Kind::lapack, "gelsy", as))(
        &s.in[0], &s.in[1], &s.in[2], out.a.p(), &s.in[3], out.b.p(), &s.in[4], jpvt.p(), &s.r[0], &rank, work,
        &s.in[5], &info);
    out.jpvt = widened(jpvt);
    out.work = one_entry(work[0]);
    out.info = info;
    out.rank = rank;
  });
  compare_runs(ref, got);
}

}  // namespace

void svd_case(Rng &rng, Names names) {
  const uint64_t routine = rng.below(4);
  for_precision(rng.below(4), [&](auto zero) {
    using T = decltype(zero);
    if (routine == 0) gesdd_as<T>(rng, names);
    else if (routine == 1) gesvd_as<T>(rng, names);
    else least_squares_as<T>(rng, names, routine == 3);
  });
}

void lq_case(Rng &rng, Names names) {
  // The LQ routines in four precisions, the pivoted QR ones in two: each routine and precision
  // an equal share.
  const uint64_t r = rng.below(16);
  if (r < 12) {
    for_precision(r % 4, [&](auto zero) {
      using T = decltype(zero);
      if (r < 4) gelqf_as<T>(rng, names);
      else if (r < 8) ormlq_as<T>(rng, names);
      else orglq_as<T>(rng, names);
    });
  } else if (r < 14) {
    if (r == 12) geqp3_as<float>(rng, names); else geqp3_as<double>(rng, names);
  } else {
    if (r == 14) gelsy_as<float>(rng, names); else gelsy_as<double>(rng, names);
  }
}

}  // namespace fuzz
