// ?geqrf_, ?gels_, ?ormqr_/?unmqr_, ?orgqr_/?ungqr_, ?syevd_/?heevd_, ?syev_/?heev_,
// ?syevr_/?heevr_, ?syevx_/?heevx_ (s, d, c, z): the argument checks in the reference's order
// (LWORK and LIWORK/LRWORK minima included), workspace queries, quick returns, and on the CPU
// path every output bit for bit: A, TAU, B, W (Z, M, ISUPPZ, IFAIL) and the workspaces' first
// entries. Where calls may reach the GPU (--gpu, --bounds)
// only the calls that compute nothing are drawn (illegal arguments, queries, quick returns):
// their outputs stay exact everywhere, and the computing calls' GPU results are judged by
// qr_test, syevd_test and syevr_test.
#include <algorithm>
#include <climits>

#include "tests/fuzz/codes.h"
#include "tests/fuzz/drivers.h"
#include "tests/fuzz/factor.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

template <class T> void geqrf_as(Rng &rng, Names names) {
  int m = dimension(rng), n = dimension(rng);
  const int lda = leading_dimension(rng, m);
  int lwork = work_length(rng, std::max(1, n));
  const bool legal = m >= 0 && n >= 0 && lda >= std::max(1, m) &&
                     (lwork == -1 || (lwork > 0 && (m == 0 || lwork >= std::max(1, n))));
  const bool computes = legal && lwork != -1 && std::min(m, n) > 0;
  if (computes && !may_compute()) lwork = -1;  // the query instead
  const bool works = legal && lwork != -1 && std::min(m, n) > 0;
  const Array<T> a0 = make_array<T>(rng, m, n, lda, rng.below(10) == 0 ? Fill::Special : Fill::Random);
  char call[200];
  std::snprintf(call, sizeof call, "%s(m=%d, n=%d, lda=%d, lwork=%d)", symbol<T>(Kind::lapack, "geqrf", names).c_str(),
                m, n, lda, lwork);
  g_call = call;
  Args<T> args;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = lda;
  args.in[3] = lwork;
  const int mn = std::max(0, std::min(m, n));
  const Array<T> tau0 = make_array<T>(rng, mn, 1, std::max(mn, 1), Fill::Random);
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = tau0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    I info = I(kIntGuard);
    lib.get<sig::geqrf_lapack<T, I>>(symbol<T>(Kind::lapack, "geqrf", as))(&s.in[0], &s.in[1], out.a.p(), &s.in[2],
                                                                          out.b.p(), work.data(), &s.in[3], &info);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare(ref, got, true);
}

template <class T> void gels_as(Rng &rng, Names names) {
  const char t = option_letter(rng, is_complex<T> ? "NC" : "NT");
  int m = dimension(rng), n = dimension(rng), nrhs = dimension(rng);
  const int lda = leading_dimension(rng, m), ldb = leading_dimension(rng, std::max(m, n));
  const int mn = std::max(0, std::min(m, n));
  int lwork = work_length(rng, std::max(1, mn + std::max(mn, nrhs)));
  const bool trans_ok = letter_in(t, is_complex<T> ? "NC" : "NT");
  const bool legal = trans_ok && m >= 0 && n >= 0 && nrhs >= 0 && lda >= std::max(1, m) &&
                     ldb >= std::max({1, m, n}) && (lwork >= std::max(1, mn + std::max(mn, nrhs)) || lwork == -1);
  const bool computes = legal && lwork != -1 && mn > 0 && nrhs > 0;
  if (computes && !may_compute()) lwork = -1;
  // Quick returns go to the CPU routine without being counted.
  const bool works = legal && lwork != -1 && mn > 0 && nrhs > 0;
  const Array<T> a0 = make_array<T>(rng, m, n, lda, Fill::Random);
  const Array<T> b0 = make_array<T>(rng, std::max(m, n), nrhs, ldb, Fill::Random);
  char call[200];
  std::snprintf(call, sizeof call, "%s(%s, m=%d, n=%d, nrhs=%d, lda=%d, ldb=%d, lwork=%d)",
                symbol<T>(Kind::lapack, "gels", names).c_str(), letter_text(t).c_str(), m, n, nrhs, lda, ldb, lwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = t;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = nrhs;
  args.in[3] = lda;
  args.in[4] = ldb;
  args.in[5] = lwork;
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = b0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    I info = I(kIntGuard);
    lib.get<sig::gels_lapack<T, I>>(symbol<T>(Kind::lapack, "gels", as))(&s.ch[0], &s.in[0], &s.in[1], &s.in[2],
                                                                        out.a.p(), &s.in[3], out.b.p(), &s.in[4],
                                                                        work.data(), &s.in[5], &info, 1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare(ref, got, true);
}

// IWORK is an array of the index type; the ILP64 stand-ins (shim.cpp) narrow every integer
// pointer as INFO, one element: the 64-bit names' cases are drawn as the LP64 ones.
template <class T> void syevd_as(Rng &rng, Names names) {
  constexpr bool hermitian = is_complex<T>;
  if (wide(names)) names = Names::lp64;
  const char jobz = option_letter(rng, "VN"), uplo = option_letter(rng, "UL");
  int n = dimension(rng);
  const int lda = leading_dimension(rng, n);
  const bool vectors = is(jobz, 'V');
  const EigenMinimum least = divide_and_conquer_minimum(hermitian, vectors, n);
  const long long lw = least.lwork, lrw = least.lrwork, liw = least.liwork;
  int lwork = work_length(rng, lw), lrwork = hermitian ? work_length(rng, lrw) : 1, liwork = work_length(rng, liw);
  const bool query = lwork == -1 || liwork == -1 || (hermitian && lrwork == -1);
  const bool legal = letter_in(jobz, "VN") && letter_in(uplo, "UL") && n >= 0 && lda >= std::max(1, n) &&
                     (query || (lwork >= lw && (!hermitian || lrwork >= lrw) && liwork >= liw));
  if (legal && !query && n > 1 && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && liwork != -1 && !(hermitian && lrwork == -1) && n > 1;
  const Array<T> a0 = make_hermitian<T>(rng, n, lda, is(uplo, 'U'), HermitianKind::Random);
  const char *stem = hermitian ? "heevd" : "syevd";
  char call[200];
  std::snprintf(call, sizeof call, "%s(%s, %s, n=%d, lda=%d, lwork=%d, lrwork=%d, liwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), letter_text(jobz).c_str(), letter_text(uplo).c_str(), n,
                lda, lwork, lrwork, liwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = jobz;
  args.ch[1] = uplo;
  args.in[0] = n;
  args.in[1] = lda;
  args.in[2] = lwork;
  args.in[3] = lrwork;
  args.in[4] = liwork;
  const Array<real_t<T>> w0 = make_array<real_t<T>>(rng, n, 1, std::max(n, 1), Fill::Random);
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    using R = real_t<T>;
    out.a = a0;
    out.w = w0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    std::vector<R> rwork(size_t(std::max(lrwork, 1)) + 1, R(0));
    std::vector<I> iwork(size_t(std::max(liwork, 1)) + 1, I(0));
    I info = I(kIntGuard);
    if constexpr (hermitian)
      lib.get<sig::heevd_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(
          &s.ch[0], &s.ch[1], &s.in[0], out.a.p(), &s.in[1], out.w.p(), work.data(), &s.in[2], rwork.data(), &s.in[3],
          iwork.data(), &s.in[4], &info, 1, 1);
    else
      lib.get<sig::syevd_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(&s.ch[0], &s.ch[1], &s.in[0], out.a.p(),
                                                                         &s.in[1], out.w.p(), work.data(), &s.in[2],
                                                                         iwork.data(), &s.in[4], &info, 1, 1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare(ref, got, true);
}

// ?syevr_/?heevr_ (rrr) and ?syevx_/?heevx_: RANGE, VL/VU and IL/IU legal or not, and every
// output the reference defines (M, W, Z, ISUPPZ or IFAIL, WORK(1), IWORK(1) and RWORK(1) of
// xSYEVR) bit for bit. ISUPPZ, IFAIL and IWORK are index arrays: drawn as syevd_as draws them.
template <class T> void selected_as(Rng &rng, Names names, bool rrr) {
  using R = real_t<T>;
  constexpr bool hermitian = is_complex<T>;
  if (wide(names)) names = Names::lp64;
  const char jobz = option_letter(rng, "VN"), range = option_letter(rng, "AVI"), uplo = option_letter(rng, "UL");
  int n = dimension(rng);
  const int lda = leading_dimension(rng, n);
  const bool vectors = is(jobz, 'V');
  const int ldz = leading_dimension(rng, vectors ? n : 1);
  const long long nn = std::max(n, 0);
  const R vl = R(rng.symmetric() * 2), vu = rng.below(8) == 0 ? vl - R(rng.uniform()) : vl + R(3 * rng.uniform());
  const int il = int(rng.below(uint64_t(nn) + 3)) - 1, iu = il + int(rng.below(uint64_t(nn) + 3)) - 2;
  const uint64_t pick = rng.below(4);
  const R abstol = pick == 0 ? R(0) : pick == 1 ? R(-1) : R(1e-6 * rng.uniform());
  const long long lw = nn <= 1 ? 1 : (rrr ? (hermitian ? 2 : 26) : (hermitian ? 2 : 8)) * nn;
  const long long lrw = nn <= 1 ? 1 : 24 * nn, liw = nn <= 1 ? 1 : 10 * nn;
  int lwork = work_length(rng, lw), lrwork = rrr && hermitian ? work_length(rng, lrw) : 1,
      liwork = rrr ? work_length(rng, liw) : 1;
  const bool query = lwork == -1 || (rrr && (liwork == -1 || (hermitian && lrwork == -1)));
  bool legal = letter_in(jobz, "VN") && letter_in(range, "AVI") && letter_in(uplo, "UL") && n >= 0 &&
               lda >= std::max(1, n);
  if (legal && is(range, 'V')) legal = n == 0 || vu > vl;
  if (legal && is(range, 'I')) legal = il >= 1 && il <= std::max(1, n) && iu >= std::min(n, il) && iu <= n;
  legal = legal && ldz >= 1 && (!vectors || ldz >= n);
  legal = legal && (query || (lwork >= lw && (!rrr || ((!hermitian || lrwork >= lrw) && liwork >= liw))));
  if (legal && !query && n > 1 && !may_compute()) lwork = -1;
  const bool works = legal && n > 1 && lwork != -1 && !(rrr && (liwork == -1 || (hermitian && lrwork == -1)));
  const Array<T> a0 = make_hermitian<T>(rng, n, lda, is(uplo, 'U'), HermitianKind::Random);
  const Array<T> z0 = make_array<T>(rng, vectors ? n : 1, std::max(n, 1), ldz, Fill::Random);
  const char *stem = rrr ? (hermitian ? "heevr" : "syevr") : (hermitian ? "heevx" : "syevx");
  char call[240];
  std::snprintf(call, sizeof call,
                "%s(%s, %s, %s, n=%d, lda=%d, vl=%g, vu=%g, il=%d, iu=%d, abstol=%g, ldz=%d, lwork=%d, lrwork=%d, "
                "liwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), letter_text(jobz).c_str(), letter_text(range).c_str(),
                letter_text(uplo).c_str(), n, lda, double(vl), double(vu), il, iu, double(abstol), ldz, lwork, lrwork,
                liwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = jobz;
  args.ch[1] = range;
  args.ch[2] = uplo;
  args.in[0] = n;
  args.in[1] = lda;
  args.in[2] = il;
  args.in[3] = iu;
  args.in[4] = ldz;
  args.in[5] = lwork;
  args.in[6] = lrwork;
  args.in[7] = liwork;
  args.r[0] = vl;
  args.r[1] = vu;
  args.r[2] = abstol;
  const Array<R> w0 = make_array<R>(rng, std::max(n, 1), 1, std::max(n, 1), Fill::Random);
  struct Run {
    DriverRun<T> driver;  // a: A, b: Z, w: W, work: WORK(1)
    Pivots<int64_t> index;  // ISUPPZ or IFAIL
    int64_t m = kIntGuard, iwork1 = 0;
    R rwork1 = 0;
    std::vector<HandlerCall> handlers;
  } ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.driver.a = a0;
    out.driver.b = z0;
    out.driver.w = w0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    std::vector<R> rwork(size_t(std::max<long long>({lrwork, 7 * nn, 1})) + 1, R(0));
    std::vector<I> iwork(size_t(std::max<long long>({liwork, 5 * nn, 1})) + 1, I(0));
    Pivots<I> index = make_pivots<I>(int(std::max<long long>(2 * nn, 2)));
    I info = I(kIntGuard), m = I(kIntGuard);
    T *a = out.driver.a.p(), *z = out.driver.b.p();
    R *w = out.driver.w.p();
    const auto fn = symbol<T>(Kind::lapack, stem, as);
    if constexpr (hermitian) {
      if (rrr)
        lib.get<sig::heevr_lapack<T, I>>(fn)(&s.ch[0], &s.ch[1], &s.ch[2], &s.in[0], a, &s.in[1], &s.r[0], &s.r[1],
                                             &s.in[2], &s.in[3], &s.r[2], &m, w, z, &s.in[4], index.p(), work.data(),
                                             &s.in[5], rwork.data(), &s.in[6], iwork.data(), &s.in[7], &info, 1, 1, 1);
      else
        lib.get<sig::heevx_lapack<T, I>>(fn)(&s.ch[0], &s.ch[1], &s.ch[2], &s.in[0], a, &s.in[1], &s.r[0], &s.r[1],
                                             &s.in[2], &s.in[3], &s.r[2], &m, w, z, &s.in[4], work.data(), &s.in[5],
                                             rwork.data(), iwork.data(), index.p(), &info, 1, 1, 1);
    } else {
      if (rrr)
        lib.get<sig::syevr_lapack<T, I>>(fn)(&s.ch[0], &s.ch[1], &s.ch[2], &s.in[0], a, &s.in[1], &s.r[0], &s.r[1],
                                             &s.in[2], &s.in[3], &s.r[2], &m, w, z, &s.in[4], index.p(), work.data(),
                                             &s.in[5], iwork.data(), &s.in[7], &info, 1, 1, 1);
      else
        lib.get<sig::syevx_lapack<T, I>>(fn)(&s.ch[0], &s.ch[1], &s.ch[2], &s.in[0], a, &s.in[1], &s.r[0], &s.r[1],
                                             &s.in[2], &s.in[3], &s.r[2], &m, w, z, &s.in[4], work.data(), &s.in[5],
                                             iwork.data(), index.p(), &info, 1, 1, 1);
    }
    out.driver.work = one_entry(work[0]);
    out.driver.info = info;
    out.index = widened(index);
    out.m = m;
    out.iwork1 = rrr ? int64_t(iwork[0]) : 0;
    out.rwork1 = rrr && hermitian ? rwork[0] : R(0);
  });
  compare(ref.driver, got.driver, true);
  if (ref.m != got.m) difference("M: reference %lld, cudrop %lld", (long long)ref.m, (long long)got.m);
  if (ref.index.data != got.index.data) difference("%s differs from the reference's", rrr ? "ISUPPZ" : "IFAIL");
  if (ref.iwork1 != got.iwork1)
    difference("IWORK(1): reference %lld, cudrop %lld", (long long)ref.iwork1, (long long)got.iwork1);
  if (!same(ref.rwork1, got.rwork1)) difference("RWORK(1): reference %s, cudrop %s", show(ref.rwork1).c_str(),
                                                show(got.rwork1).c_str());
}

// ?ormqr_/?unmqr_: C (m x n) times Q from k reflectors of a random A (nq x k).
template <class T> void ormqr_as(Rng &rng, Names names) {
  const char side = option_letter(rng, "LR"), trans = option_letter(rng, is_complex<T> ? "NC" : "NT");
  int m = dimension(rng), n = dimension(rng), k = dimension(rng);
  const bool left = is(side, 'L');
  const int nq = left ? m : n, nw = std::max(1, left ? n : m);
  const int lda = leading_dimension(rng, nq), ldc = leading_dimension(rng, m);
  int lwork = work_length(rng, nw);
  const bool legal = letter_in(side, "LR") && letter_in(trans, is_complex<T> ? "NC" : "NT") && m >= 0 && n >= 0 &&
                     k >= 0 && k <= nq && lda >= std::max(1, nq) && ldc >= std::max(1, m) &&
                     (lwork == -1 || lwork >= nw);
  const bool computes = legal && lwork != -1 && m > 0 && n > 0 && k > 0;
  if (computes && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && m > 0 && n > 0 && k > 0;
  const Array<T> a0 = make_array<T>(rng, nq, k, lda, Fill::Random);
  const Array<T> c0 = make_array<T>(rng, m, n, ldc, Fill::Random);
  std::vector<T> tau(size_t(std::max(k, 1)));
  for (T &t : tau) t = random_value<T>(rng, Fill::Random);
  const char *stem = is_complex<T> ? "unmqr" : "ormqr";
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
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = c0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    I info = I(kIntGuard);
    auto fn = is_complex<T> ? lib.get<sig::unmqr_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))
                            : lib.get<sig::ormqr_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as));
    fn(&s.ch[0], &s.ch[1], &s.in[0], &s.in[1], &s.in[2], out.a.p(), &s.in[3], tau.data(), out.b.p(), &s.in[4],
       work.data(), &s.in[5], &info, 1, 1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  check_unchanged("A", a0, got.a);
  compare(ref, got, true);
}

// ?orgqr_/?ungqr_: Q (m x n) from k reflectors of a random A. WORK(1) is compared only where
// every argument but LWORK is legal: the reference sets it before its checks, from its block
// size, which cudrop asks of the CPU routine's query and cannot ask with illegal arguments.
template <class T> void orgqr_as(Rng &rng, Names names) {
  int m = dimension(rng), n = dimension(rng), k = dimension(rng);
  const int lda = leading_dimension(rng, m);
  int lwork = work_length(rng, std::max(1, n));
  const bool basic = m >= 0 && n >= 0 && n <= m && k >= 0 && k <= n && lda >= std::max(1, m);
  const bool legal = basic && (lwork == -1 || lwork >= std::max(1, n));
  const bool computes = legal && lwork != -1 && n > 0;
  if (computes && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && n > 0;
  const Array<T> a0 = make_array<T>(rng, m, n, lda, Fill::Random);
  std::vector<T> tau(size_t(std::max(k, 1)));
  for (T &t : tau) t = random_value<T>(rng, Fill::Random);
  const char *stem = is_complex<T> ? "ungqr" : "orgqr";
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
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    I info = I(kIntGuard);
    auto fn = is_complex<T> ? lib.get<sig::ungqr_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))
                            : lib.get<sig::orgqr_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as));
    fn(&s.in[0], &s.in[1], &s.in[2], out.a.p(), &s.in[3], tau.data(), work.data(), &s.in[4], &info);
    out.work = basic ? one_entry(work[0]) : Array<T>();
    out.info = info;
  });
  compare(ref, got, true);
}

// ?syev_/?heev_ (RWORK: 3n-2 reals, not checked by the reference).
template <class T> void syev_as(Rng &rng, Names names) {
  constexpr bool hermitian = is_complex<T>;
  const char jobz = option_letter(rng, "VN"), uplo = option_letter(rng, "UL");
  const int n = dimension(rng);
  const int lda = leading_dimension(rng, n);
  const long long lw = std::max(1LL, (hermitian ? 2LL : 3LL) * std::max(n, 0) - 1);
  int lwork = work_length(rng, lw);
  const bool legal = letter_in(jobz, "VN") && letter_in(uplo, "UL") && n >= 0 && lda >= std::max(1, n) &&
                     (lwork == -1 || lwork >= lw);
  if (legal && lwork != -1 && n > 1 && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && n > 1;
  const Array<T> a0 = make_hermitian<T>(rng, n, lda, is(uplo, 'U'), HermitianKind::Random);
  const Array<real_t<T>> w0 = make_array<real_t<T>>(rng, n, 1, std::max(n, 1), Fill::Random);
  const char *stem = hermitian ? "heev" : "syev";
  char call[200];
  std::snprintf(call, sizeof call, "%s(%s, %s, n=%d, lda=%d, lwork=%d)", symbol<T>(Kind::lapack, stem, names).c_str(),
                letter_text(jobz).c_str(), letter_text(uplo).c_str(), n, lda, lwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = jobz;
  args.ch[1] = uplo;
  args.in[0] = n;
  args.in[1] = lda;
  args.in[2] = lwork;
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    using R = real_t<T>;
    out.a = a0;
    out.w = w0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    std::vector<R> rwork(size_t(std::max(3 * n - 2, 1)) + 1, R(0));
    I info = I(kIntGuard);
    if constexpr (hermitian)
      lib.get<sig::heev_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(&s.ch[0], &s.ch[1], &s.in[0], out.a.p(),
                                                                        &s.in[1], out.w.p(), work.data(), &s.in[2],
                                                                        rwork.data(), &info, 1, 1);
    else
      lib.get<sig::syev_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(&s.ch[0], &s.ch[1], &s.in[0], out.a.p(),
                                                                        &s.in[1], out.w.p(), work.data(), &s.in[2],
                                                                        &info, 1, 1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare(ref, got, true);
}

}  // namespace

void qr_case(Rng &rng, Names names) {
  const uint64_t routine = rng.below(8);
  for_precision(rng.below(4), [&](auto zero) {
    using T = decltype(zero);
    if (routine == 0) geqrf_as<T>(rng, names);
    else if (routine == 1) gels_as<T>(rng, names);
    else if (routine == 2) ormqr_as<T>(rng, names);
    else if (routine == 3) orgqr_as<T>(rng, names);
    else if (routine == 4) syevd_as<T>(rng, names);
    else if (routine == 5) syev_as<T>(rng, names);
    else selected_as<T>(rng, names, routine == 6);
  });
}

}  // namespace fuzz
