// Selected eigenpairs of symmetric and Hermitian matrices: ?syevr_, ?syevx_ (s, d) and ?heevr_,
// ?heevx_ (c, z). The reference routine's argument checks in the reference order; workspace
// queries and N <= 1 go to the CPU routine, whose answers they are; every other call is one
// routed call. The GPU path (impl/eigen/selected.h) solves the tridiagonal problem with the CPU
// LAPACK's xSTERF, xSTEMR, xSTEBZ and xSTEIN (or divide and conquer), called from here on
// capi/eigen_route.h's library of the entry's kind.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "capi/cpu_call.h"
#include "capi/eigen_route.h"
#include "capi/report.h"
#include "core/letter.h"
#include "core/routines.h"
#include "impl/eigen/selected.h"

namespace cudrop::capi {
namespace {

// The index arrays between the driver's int and the library's I.
template <class To, class From>
std::vector<To> converted(const From *from, int count) {
  return std::vector<To>(from, from + std::max(count, 0));
}

// impl::SelectedSolvers on the CPU LAPACK of the entry's own kind (a CPU run of row F pending,
// or null): each routine with the workspace it asks for or its documented minimum.
template <Family F, class T>
impl::SelectedSolvers<real_t<T>> selected_solvers(const cpu::EntryCpuCall *entry) {
  using R = real_t<T>;
  impl::SelectedSolvers<R> s;
  s.sterf = [entry](int n, R *d, R *e) { return tridiagonal_on_cpu<F, T>(entry, n, d, e, nullptr); };
  s.leaf = tridiagonal_solver<F, T>(entry);
  s.stemr = [entry](int n_, R *d, R *e, int *m, R *w, R *z, int ldz_, int *isuppz, bool *tryrac) {
    return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
      using I = decltype(index);
      const auto stemr = routine_in<Family::stemr, R, I>(library);
      if (stemr == nullptr) return -1;
      const I n = n_, ldz = ldz_, il = 1, iu = n_;
      const R vl = 0, vu = 0;
      I found = 0, info = 0, rac = *tryrac ? 1 : 0, isize = 0, lwork = -1, liwork = -1;
      R size = 0;
      std::vector<I> support(size_t(2) * size_t(n_));
      stemr("V", "A", &n, d, e, &vl, &vu, &il, &iu, &found, w, z, &ldz, &n, support.data(), &rac, &size, &lwork,
            &isize, &liwork, &info, 1, 1);
      if (info != 0) return int(info);
      lwork = std::max<I>(1, I(size));
      liwork = std::max<I>(1, isize);
      std::vector<R> work(static_cast<size_t>(lwork));
      std::vector<I> iwork(static_cast<size_t>(liwork));
      stemr("V", "A", &n, d, e, &vl, &vu, &il, &iu, &found, w, z, &ldz, &n, support.data(), &rac, work.data(),
            &lwork, iwork.data(), &liwork, &info, 1, 1);
      *m = int(found);
      std::copy(support.begin(), support.end(), isuppz);
      *tryrac = rac != 0;
      return int(info);
    });
  };
  s.stebz = [entry](Range range, bool by_block, int n_, R vl, R vu, int il_, int iu_, R abstol, const R *d,
                    const R *e, int *m, int *nsplit, R *w, int *iblock, int *isplit) {
    return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
      using I = decltype(index);
      const auto stebz = routine_in<Family::stebz, R, I>(library);
      if (stebz == nullptr) return -1;
      const I n = n_, il = il_, iu = iu_;
      I found = 0, blocks = 0, info = 0;
      const char letter = letter_of(range), order = by_block ? 'B' : 'E';
      std::vector<I> block(static_cast<size_t>(n_)), split(static_cast<size_t>(n_)), iwork(size_t(3) * size_t(n_));
      std::vector<R> work(size_t(4) * size_t(n_));
      stebz(&letter, &order, &n, &vl, &vu, &il, &iu, &abstol, d, e, &found, &blocks, w, block.data(), split.data(),
            work.data(), iwork.data(), &info, 1, 1);
      *m = int(found);
      *nsplit = int(blocks);
      std::copy(block.begin(), block.end(), iblock);
      std::copy(split.begin(), split.end(), isplit);
      return int(info);
    });
  };
  s.stein = [entry](int n_, const R *d, const R *e, int m_, const R *w, const int *iblock, const int *isplit, R *z,
                    int ldz_, int *ifail) {
    return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
      using I = decltype(index);
      const auto stein = routine_in<Family::stein, R, I>(library);
      if (stein == nullptr) return -1;
      const I n = n_, m = m_, ldz = ldz_;
      I info = 0;
      const std::vector<I> block = converted<I>(iblock, n_), split = converted<I>(isplit, n_);
      std::vector<I> iwork(static_cast<size_t>(n_)), failed(static_cast<size_t>(std::max(m_, 1)));
      std::vector<R> work(size_t(5) * size_t(n_));
      stein(&n, d, e, &m, w, block.data(), split.data(), z, &ldz, work.data(), iwork.data(), failed.data(), &info);
      std::copy(failed.begin(), failed.begin() + m_, ifail);
      return int(info);
    });
  };
  return s;
}

// What the CPU routine of the entry's own kind (a CPU run of row F pending, or null) answers a
// workspace query of the same call: WORK(1), and for ?syevr_/?heevr_ IWORK(1) and RWORK(1) (the
// reference's minima, those of N = 1 differing between LAPACK versions). WORK(1) depends on that
// library's block sizes. False, nothing written, where the library lacks the routine or the
// query fails. The query reads no array.
template <Family F, class T>
bool query_answers(const cpu::EntryCpuCall *entry, const char *jobz, const char *range, const char *uplo, int n_,
                   T *a, int lda_, const real_t<T> *vl, const real_t<T> *vu, int il_, int iu_,
                   const real_t<T> *abstol, real_t<T> *w, T *z, int ldz_, T *work1, int *iwork1,
                   real_t<T> *rwork1) {
  using R = real_t<T>;
  constexpr bool rrr = F == Family::syevr || F == Family::heevr;
  return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
           using I = decltype(index);
           const auto fn = routine_in<F, T, I>(library);
           if (fn == nullptr) return -1;
           const I n = n_, lda = lda_, il = il_, iu = iu_, ldz = ldz_, minus_one = -1;
           I m = 0, isize = 0, info = 0, unread[2] = {0, 0};
           T size = T(0);
           R rsize = R(0), runread[1] = {R(0)};
           if constexpr (F == Family::heevr)
             fn(jobz, range, uplo, &n, a, &lda, vl, vu, &il, &iu, abstol, &m, w, z, &ldz, unread, &size, &minus_one,
                &rsize, &minus_one, &isize, &minus_one, &info, 1, 1, 1);
           else if constexpr (F == Family::syevr)
             fn(jobz, range, uplo, &n, a, &lda, vl, vu, &il, &iu, abstol, &m, w, z, &ldz, unread, &size, &minus_one,
                &isize, &minus_one, &info, 1, 1, 1);
           else if constexpr (F == Family::heevx)
             fn(jobz, range, uplo, &n, a, &lda, vl, vu, &il, &iu, abstol, &m, w, z, &ldz, &size, &minus_one, runread,
                unread, unread, &info, 1, 1, 1);
           else
             fn(jobz, range, uplo, &n, a, &lda, vl, vu, &il, &iu, abstol, &m, w, z, &ldz, &size, &minus_one, unread,
                unread, &info, 1, 1, 1);
           if (info != 0) return int(info);
           *work1 = size;
           if constexpr (rrr) *iwork1 = int(isize);
           if constexpr (F == Family::heevr) *rwork1 = rsize;
           return 0;
         }) == 0;
}

// The reference's checks of these drivers up to LDZ (their numbers agree): JOBZ 1, RANGE 2,
// UPLO 3, N 4, LDA 6, VL/VU 8, IL 9, IU 10, LDZ 15. 0 when legal. VL and VU are read only for
// RANGE = 'V', IL and IU only for 'I', as the reference reads them.
template <class R>
int selected_checks(char jz, char rg, char ul, int n, int lda, const R *vl, const R *vu, const int *il,
                    const int *iu, int ldz) {
  if (jz != 'V' && jz != 'N') return 1;
  if (rg != 'A' && rg != 'V' && rg != 'I') return 2;
  if (ul != 'L' && ul != 'U') return 3;
  if (n < 0) return 4;
  if (lda < std::max(1, n)) return 6;
  if (rg == 'V' && n > 0 && *vu <= *vl) return 8;
  if (rg == 'I') {
    if (*il < 1 || *il > std::max(1, n)) return 9;
    if (*iu < std::min(n, *il) || *iu > n) return 10;
  }
  if (ldz < 1 || (jz == 'V' && ldz < n)) return 15;
  return 0;
}

// The problem of a legal call of N >= 2.
template <class R>
impl::SelectedProblem<R> selected_problem(impl::SelectedDriver driver, char jz, char rg, char ul, int n, const R *vl,
                                          const R *vu, const int *il, const int *iu, const R *abstol) {
  const bool values = rg == 'V', indices = rg == 'I';
  return {driver, jobz_of(jz), range_of(rg), uplo_of(ul), n, values ? *vl : R(0), values ? *vu : R(0),
          indices ? *il : 1, indices ? *iu : n, *abstol};
}

// The routed call of a driver of selected eigenpairs (route_eigen): set_work() sets WORK(1)...
// after a GPU run, cpu_run() the whole call on the CPU.
template <Family F, class T, class SetWork, class CpuRun>
void route_selected(const impl::SelectedProblem<real_t<T>> &problem, char jz, char rg, char ul, const T *a, int lda,
                    const impl::SelectedResults<T> &results, int *info, SetWork &&set_work, CpuRun &&cpu_run) {
  route_eigen<F, T>(
      0, jz, rg, ul, problem.n,
      [&](const cpu::EntryCpuCall *entry) {
        return impl::selected_eigen_host<T>(problem, a, lda, results, info, selected_solvers<F, T>(entry));
      },
      set_work, cpu_run);
}

}  // namespace

// ?syevr_ (rwork null) and ?heevr_: one routine, two rows.
template <Family F, class T>
void selected_rrr(const char *jobz, const char *range, const char *uplo, const int *n, T *a, const int *lda,
                  const real_t<T> *vl, const real_t<T> *vu, const int *il, const int *iu, const real_t<T> *abstol,
                  int *m, real_t<T> *w, T *z, const int *ldz, int *isuppz, T *work, const int *lwork,
                  real_t<T> *rwork, const int *lrwork, int *iwork, const int *liwork, int *info, size_t jobz_len,
                  size_t range_len, size_t uplo_len, const void *caller) {
  using R = real_t<T>;
  constexpr bool hermitian = is_complex_v<T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char jz = upper(*jobz), rg = upper(*range), ul = upper(*uplo);
  const bool query = *lwork == -1 || *liwork == -1 || (hermitian && *lrwork == -1);
  const long long nn = *n;
  const long long lwmin = nn <= 1 ? 1 : (hermitian ? 2 : 26) * nn, lrwmin = nn <= 1 ? 1 : 24 * nn,
                  liwmin = nn <= 1 ? 1 : 10 * nn;
  int illegal = selected_checks<R>(jz, rg, ul, *n, *lda, vl, vu, il, iu, *ldz);
  // The lengths of N <= 1 are the CPU routine's to check: LAPACK 3.11's xHEEVR asks 2N, 24N and
  // 10N there, 3.12's 1.
  if (illegal == 0 && *n > 1) {
    if (*lwork < lwmin && !query) illegal = 18;
    else if (hermitian && *lrwork < lrwmin && !query) illegal = 20;
    else if (*liwork < liwmin && !query) illegal = hermitian ? 22 : 20;
  }
  // WORK(1), IWORK(1) (RWORK(1)) as the reference sets them: the optimal LWORK and the minimum
  // LIWORK (LRWORK), as the CPU routine of the entry's kind answers the same call's query.
  auto set_work = [&] {
    iwork[0] = int(liwmin);
    if constexpr (hermitian) rwork[0] = R(lrwmin);
    query_answers<F, T>(cpu::entry_cpu_call, jobz, range, uplo, *n, a, *lda, vl, vu, rg == 'I' ? *il : 1,
                        rg == 'I' ? *iu : *n, abstol, w, z, *ldz, work, iwork, rwork);
  };
  // SSYEVR, CHEEVR and ZHEEVR set WORK(1), IWORK(1) (RWORK(1)) before they check the lengths,
  // DSYEVR only after (in an ILP64 or wheel-name entry the entry's CPU routine takes the
  // illegal call and sets them).
  constexpr bool set_before_checks = hermitian || std::is_same_v<T, float>;
  if (set_before_checks && illegal >= 18 && cpu::entry_cpu_call == nullptr) set_work();
  auto cpu_run = [&] {
    if constexpr (hermitian)
      cpu::routine<F, T>()(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork,
                           rwork, lrwork, iwork, liwork, info, 1, 1, 1);
    else
      cpu::routine<F, T>()(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork,
                           iwork, liwork, info, 1, 1, 1);
  };
  if (illegal != 0) {
    if constexpr (hermitian)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, range, uplo, n, a, lda, vl, vu, il, iu,
                                         abstol, m, w, z, ldz, isuppz, work, lwork, rwork, lrwork, iwork, liwork, info,
                                         jobz_len, range_len, uplo_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, range, uplo, n, a, lda, vl, vu, il, iu,
                                         abstol, m, w, z, ldz, isuppz, work, lwork, iwork, liwork, info, jobz_len,
                                         range_len, uplo_len);
    return;
  }
  if (query || *n <= 1) {
    if constexpr (hermitian)
      return cpu_call<F, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork,
                            rwork, lrwork, iwork, liwork, info, jobz_len, range_len, uplo_len);
    else
      return cpu_call<F, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork,
                            iwork, liwork, info, jobz_len, range_len, uplo_len);
  }
  const auto problem = selected_problem<R>(impl::SelectedDriver::syevr, jz, rg, ul, *n, vl, vu, il, iu, abstol);
  route_selected<F, T>(problem, jz, rg, ul, a, *lda, impl::SelectedResults<T>{m, w, z, *ldz, isuppz, nullptr}, info,
                       set_work, cpu_run);
}

// ?syevx_ (rwork null) and ?heevx_.
template <Family F, class T>
void selected_bisection(const char *jobz, const char *range, const char *uplo, const int *n, T *a, const int *lda,
                        const real_t<T> *vl, const real_t<T> *vu, const int *il, const int *iu,
                        const real_t<T> *abstol, int *m, real_t<T> *w, T *z, const int *ldz, T *work,
                        const int *lwork, real_t<T> *rwork, int *iwork, int *ifail, int *info, size_t jobz_len,
                        size_t range_len, size_t uplo_len, const void *caller) {
  using R = real_t<T>;
  constexpr bool hermitian = is_complex_v<T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char jz = upper(*jobz), rg = upper(*range), ul = upper(*uplo);
  const bool query = *lwork == -1;
  const long long lwmin = *n <= 1 ? 1 : (hermitian ? 2LL : 8LL) * *n;
  int illegal = selected_checks<R>(jz, rg, ul, *n, *lda, vl, vu, il, iu, *ldz);
  if (illegal == 0 && *lwork < lwmin && !query) illegal = 17;
  // WORK(1): the optimal LWORK, as the CPU routine of the entry's kind answers the same call's
  // query.
  auto set_work = [&] {
    query_answers<F, T>(cpu::entry_cpu_call, jobz, range, uplo, *n, a, *lda, vl, vu, rg == 'I' ? *il : 1,
                        rg == 'I' ? *iu : *n, abstol, w, z, *ldz, work, nullptr, nullptr);
  };
  // The reference sets WORK(1) before it checks LWORK.
  if (illegal == 17 && cpu::entry_cpu_call == nullptr) set_work();
  auto cpu_run = [&] {
    if constexpr (hermitian)
      cpu::routine<F, T>()(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork, rwork,
                           iwork, ifail, info, 1, 1, 1);
    else
      cpu::routine<F, T>()(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork, iwork,
                           ifail, info, 1, 1, 1);
  };
  if (illegal != 0) {
    if constexpr (hermitian)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, range, uplo, n, a, lda, vl, vu, il, iu,
                                         abstol, m, w, z, ldz, work, lwork, rwork, iwork, ifail, info, jobz_len,
                                         range_len, uplo_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, range, uplo, n, a, lda, vl, vu, il, iu,
                                         abstol, m, w, z, ldz, work, lwork, iwork, ifail, info, jobz_len, range_len,
                                         uplo_len);
    return;
  }
  if (query || *n <= 1) {
    if constexpr (hermitian)
      return cpu_call<F, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork, rwork,
                            iwork, ifail, info, jobz_len, range_len, uplo_len);
    else
      return cpu_call<F, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork, iwork,
                            ifail, info, jobz_len, range_len, uplo_len);
  }
  const auto problem = selected_problem<R>(impl::SelectedDriver::syevx, jz, rg, ul, *n, vl, vu, il, iu, abstol);
  route_selected<F, T>(problem, jz, rg, ul, a, *lda, impl::SelectedResults<T>{m, w, z, *ldz, nullptr, ifail}, info,
                       set_work, cpu_run);
}

template <class T>
void syevr(const char *jobz, const char *range, const char *uplo, const int *n, T *a, const int *lda, const T *vl,
           const T *vu, const int *il, const int *iu, const T *abstol, int *m, T *w, T *z, const int *ldz,
           int *isuppz, T *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len,
           size_t range_len, size_t uplo_len, const void *caller) {
  selected_rrr<Family::syevr, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work,
                                 lwork, nullptr, nullptr, iwork, liwork, info, jobz_len, range_len, uplo_len, caller);
}
template <class T>
void heevr(const char *jobz, const char *range, const char *uplo, const int *n, T *a, const int *lda,
           const real_t<T> *vl, const real_t<T> *vu, const int *il, const int *iu, const real_t<T> *abstol, int *m,
           real_t<T> *w, T *z, const int *ldz, int *isuppz, T *work, const int *lwork, real_t<T> *rwork,
           const int *lrwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t range_len,
           size_t uplo_len, const void *caller) {
  selected_rrr<Family::heevr, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work,
                                 lwork, rwork, lrwork, iwork, liwork, info, jobz_len, range_len, uplo_len, caller);
}
template <class T>
void syevx(const char *jobz, const char *range, const char *uplo, const int *n, T *a, const int *lda, const T *vl,
           const T *vu, const int *il, const int *iu, const T *abstol, int *m, T *w, T *z, const int *ldz, T *work,
           const int *lwork, int *iwork, int *ifail, int *info, size_t jobz_len, size_t range_len, size_t uplo_len,
           const void *caller) {
  selected_bisection<Family::syevx, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork,
                                       nullptr, iwork, ifail, info, jobz_len, range_len, uplo_len, caller);
}
template <class T>
void heevx(const char *jobz, const char *range, const char *uplo, const int *n, T *a, const int *lda,
           const real_t<T> *vl, const real_t<T> *vu, const int *il, const int *iu, const real_t<T> *abstol, int *m,
           real_t<T> *w, T *z, const int *ldz, T *work, const int *lwork, real_t<T> *rwork, int *iwork, int *ifail,
           int *info, size_t jobz_len, size_t range_len, size_t uplo_len, const void *caller) {
  selected_bisection<Family::heevx, T>(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork,
                                       rwork, iwork, ifail, info, jobz_len, range_len, uplo_len, caller);
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_syevr CUDROP_DEFINED
#define CUDROP_DEFINES_heevr CUDROP_DEFINED
#define CUDROP_DEFINES_syevx CUDROP_DEFINED
#define CUDROP_DEFINES_heevx CUDROP_DEFINED
#include "capi/instantiate.h"
