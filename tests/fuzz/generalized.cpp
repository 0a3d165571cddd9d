// ?sygvd_/?hegvd_, ?sygv_/?hegv_ (s, d, c, z): the argument checks in the reference's order
// (ITYPE, and the LWORK, LRWORK, LIWORK minima included), workspace queries, quick returns, and
// on the CPU path every output bit for bit: A, B, W, INFO (N + i for a B that is not positive
// definite) and WORK(1). Where calls may reach the GPU (--gpu, --bounds) only the calls that
// compute nothing are drawn; the computing calls' GPU results are judged by sygvd_test.
#include <algorithm>

#include "tests/fuzz/codes.h"
#include "tests/fuzz/drivers.h"
#include "tests/fuzz/factor.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

// ITYPE: mostly 1, 2 or 3, else one no routine takes.
int itype_value(Rng &rng) {
  if (rng.below(100) < 93) return 1 + int(rng.below(3));
  const int bad[] = {0, 4, -1, -3};
  return bad[rng.below(4)];
}

// The two Hermitian operands: A random or with special values, B positive definite, with a
// negative diagonal entry, random or with special values (factor.h's kinds).
template <class T> struct Pencil {
  Array<T> a, b;
  Pencil(Rng &rng, int n, int lda, int ldb, bool upper)
      : a(make_hermitian<T>(rng, n, lda, upper, rng.below(10) == 0 ? HermitianKind::Special : HermitianKind::Random)),
        b(make_hermitian<T>(rng, n, ldb, upper, pick_hermitian_kind(rng))) {}
};

// IWORK is an array of the index type; the ILP64 stand-ins (shim.cpp) narrow every integer
// pointer as INFO, one element: the 64-bit names' cases are drawn as the LP64 ones.
template <class T> void sygvd_as(Rng &rng, Names names) {
  constexpr bool hermitian = is_complex<T>;
  if (wide(names)) names = Names::lp64;
  const int itype = itype_value(rng);
  const char jobz = option_letter(rng, "VN"), uplo = option_letter(rng, "UL");
  const int n = dimension(rng);
  const int lda = leading_dimension(rng, n), ldb = leading_dimension(rng, n);
  const bool vectors = is(jobz, 'V');
  const EigenMinimum least = divide_and_conquer_minimum(hermitian, vectors, n);
  const long long lw = least.lwork, lrw = least.lrwork, liw = least.liwork;
  int lwork = work_length(rng, lw), lrwork = hermitian ? work_length(rng, lrw) : 1, liwork = work_length(rng, liw);
  const bool query = lwork == -1 || liwork == -1 || (hermitian && lrwork == -1);
  const bool legal = itype >= 1 && itype <= 3 && letter_in(jobz, "VN") && letter_in(uplo, "UL") && n >= 0 &&
                     lda >= std::max(1, n) && ldb >= std::max(1, n) &&
                     (query || (lwork >= lw && (!hermitian || lrwork >= lrw) && liwork >= liw));
  if (legal && !query && n > 1 && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && liwork != -1 && !(hermitian && lrwork == -1) && n > 1;
  const Pencil<T> p0(rng, n, lda, ldb, is(uplo, 'U'));
  const char *stem = hermitian ? "hegvd" : "sygvd";
  char call[240];
  std::snprintf(call, sizeof call, "%s(itype=%d, %s, %s, n=%d, lda=%d, ldb=%d, lwork=%d, lrwork=%d, liwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), itype, letter_text(jobz).c_str(),
                letter_text(uplo).c_str(), n, lda, ldb, lwork, lrwork, liwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = jobz;
  args.ch[1] = uplo;
  args.in[0] = n;
  args.in[1] = lda;
  args.in[2] = lwork;
  args.in[3] = lrwork;
  args.in[4] = liwork;
  args.in[5] = itype;
  args.in[6] = ldb;
  const Array<real_t<T>> w0 = make_array<real_t<T>>(rng, n, 1, std::max(n, 1), Fill::Random);
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    using R = real_t<T>;
    out.a = p0.a;
    out.b = p0.b;
    out.w = w0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    std::vector<R> rwork(size_t(std::max(lrwork, 1)) + 1, R(0));
    std::vector<I> iwork(size_t(std::max(liwork, 1)) + 1, I(0));
    I info = I(kIntGuard);
    if constexpr (hermitian)
      lib.get<sig::hegvd_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(
          &s.in[5], &s.ch[0], &s.ch[1], &s.in[0], out.a.p(), &s.in[1], out.b.p(), &s.in[6], out.w.p(), work.data(),
          &s.in[2], rwork.data(), &s.in[3], iwork.data(), &s.in[4], &info, 1, 1);
    else
      lib.get<sig::sygvd_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(
          &s.in[5], &s.ch[0], &s.ch[1], &s.in[0], out.a.p(), &s.in[1], out.b.p(), &s.in[6], out.w.p(), work.data(),
          &s.in[2], iwork.data(), &s.in[4], &info, 1, 1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare(ref, got, true);
}

// ?sygv_/?hegv_ (RWORK: 3n-2 reals, not checked by the reference).
template <class T> void sygv_as(Rng &rng, Names names) {
  constexpr bool hermitian = is_complex<T>;
  const int itype = itype_value(rng);
  const char jobz = option_letter(rng, "VN"), uplo = option_letter(rng, "UL");
  const int n = dimension(rng);
  const int lda = leading_dimension(rng, n), ldb = leading_dimension(rng, n);
  const long long lw = std::max(1LL, (hermitian ? 2LL : 3LL) * std::max(n, 0) - 1);
  int lwork = work_length(rng, lw);
  const bool legal = itype >= 1 && itype <= 3 && letter_in(jobz, "VN") && letter_in(uplo, "UL") && n >= 0 &&
                     lda >= std::max(1, n) && ldb >= std::max(1, n) && (lwork == -1 || lwork >= lw);
  if (legal && lwork != -1 && n > 1 && !may_compute()) lwork = -1;
  const bool works = legal && lwork != -1 && n > 1;
  const Pencil<T> p0(rng, n, lda, ldb, is(uplo, 'U'));
  const Array<real_t<T>> w0 = make_array<real_t<T>>(rng, n, 1, std::max(n, 1), Fill::Random);
  const char *stem = hermitian ? "hegv" : "sygv";
  char call[240];
  std::snprintf(call, sizeof call, "%s(itype=%d, %s, %s, n=%d, lda=%d, ldb=%d, lwork=%d)",
                symbol<T>(Kind::lapack, stem, names).c_str(), itype, letter_text(jobz).c_str(),
                letter_text(uplo).c_str(), n, lda, ldb, lwork);
  g_call = call;
  Args<T> args;
  args.ch[0] = jobz;
  args.ch[1] = uplo;
  args.in[0] = n;
  args.in[1] = lda;
  args.in[2] = lwork;
  args.in[5] = itype;
  args.in[6] = ldb;
  DriverRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, DriverRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    using R = real_t<T>;
    out.a = p0.a;
    out.b = p0.b;
    out.w = w0;
    std::vector<T> work(size_t(std::max(lwork, 1)) + 1, T(0));
    std::vector<R> rwork(size_t(std::max(3 * n - 2, 1)) + 1, R(0));
    I info = I(kIntGuard);
    if constexpr (hermitian)
      lib.get<sig::hegv_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(
          &s.in[5], &s.ch[0], &s.ch[1], &s.in[0], out.a.p(), &s.in[1], out.b.p(), &s.in[6], out.w.p(), work.data(),
          &s.in[2], rwork.data(), &info, 1, 1);
    else
      lib.get<sig::sygv_lapack<T, I>>(symbol<T>(Kind::lapack, stem, as))(
          &s.in[5], &s.ch[0], &s.ch[1], &s.in[0], out.a.p(), &s.in[1], out.b.p(), &s.in[6], out.w.p(), work.data(),
          &s.in[2], &info, 1, 1);
    out.work = one_entry(work[0]);
    out.info = info;
  });
  compare(ref, got, true);
}

}  // namespace

void generalized_case(Rng &rng, Names names) {
  const bool divide_and_conquer = rng.below(2) == 0;
  for_precision(rng.below(4), [&](auto zero) {
    using T = decltype(zero);
    if (divide_and_conquer) sygvd_as<T>(rng, names);
    else sygv_as<T>(rng, names);
  });
}

}  // namespace fuzz
