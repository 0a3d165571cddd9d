// Generalized symmetric-definite eigenproblem entry points: ?sygvd_, ?sygv_ (s, d) and ?hegvd_,
// ?hegv_ (c, z). The reference routine's argument checks in the reference order; workspace
// queries and N <= 1 go to the CPU routine, whose answers they are; every other call is one
// routed call (impl/eigen/generalized.h), whose tridiagonal problem the CPU LAPACK of the
// entry's kind solves (capi/eigen_route.h).
#include <algorithm>
#include <limits>

#include "capi/cpu_call.h"
#include "capi/eigen_route.h"
#include "capi/report.h"
#include "core/letter.h"
#include "core/routines.h"
#include "impl/eigen/generalized.h"

namespace cudrop::capi {
namespace {

// A workspace length as the reference's xROUNDUP_LWORK stores it in a real WORK(1): never
// read back as less than the length.
template <class R>
R roundup_lwork(long long length) {
  R r = R(length);
  if (static_cast<long long>(r) < length) r *= R(1) + std::numeric_limits<R>::epsilon();
  return r;
}

}  // namespace

// The routed call of ?sygvd_, ?sygv_ and the like: set_work() sets WORK(1)... after a GPU run,
// cpu_run() the whole call on the CPU.
template <Family F, class T, class SetWork, class CpuRun>
void route_sygvd(const int *itype, char jz, char ul, const int *n, T *a, const int *lda, T *b, const int *ldb,
                 real_t<T> *w, int *info, SetWork &&set_work, CpuRun &&cpu_run) {
  route_eigen<F, T>(
      *itype, jz, 0, ul, *n,
      [&](const cpu::EntryCpuCall *entry) {
        return impl::sygvd_host<T>(impl::itype_of(*itype), jobz_of(jz), uplo_of(ul), *n, a, *lda, b, *ldb, w, info,
                                   tridiagonal_solver<F, T>(entry));
      },
      set_work, cpu_run);
}

// ?sygvd_ (rwork null) and ?hegvd_: one routine, two rows.
template <Family F, class T>
void generalized_eigen(const int *itype, const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *b,
                       const int *ldb, real_t<T> *w, T *work, const int *lwork, real_t<T> *rwork, const int *lrwork,
                       int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len,
                       const void *caller) {
  using R = real_t<T>;
  constexpr bool hermitian = is_complex_v<T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  // The standard problem's routine: its optimal sizes enter WORK(1)... after a run.
  constexpr Family standard = hermitian ? Family::heevd : Family::syevd;
  const char jz = upper(*jobz), ul = upper(*uplo);
  const bool vectors = jz == 'V';
  const bool query = *lwork == -1 || *liwork == -1 || (hermitian && *lrwork == -1);
  const EigenWorkMinimum least = divide_and_conquer_minimum<hermitian>(vectors, *n);
  const long long lwmin = least.lwork, lrwmin = least.lrwork, liwmin = least.liwork;
  int illegal = 0;
  if (*itype < 1 || *itype > 3) illegal = 1;
  else if (!vectors && jz != 'N') illegal = 2;
  else if (ul != 'L' && ul != 'U') illegal = 3;
  else if (*n < 0) illegal = 4;
  else if (*lda < std::max(1, *n)) illegal = 6;
  else if (*ldb < std::max(1, *n)) illegal = 8;
  else if (*lwork < lwmin && !query) illegal = 11;
  else if (hermitian && *lrwork < lrwmin && !query) illegal = 13;
  else if (*liwork < liwmin && !query) illegal = hermitian ? 15 : 13;
  // WORK(1), IWORK(1) (RWORK(1)) as the reference sets them: the minimum lengths before it
  // checks them; after a run, at least the standard problem's routine's optimal sizes too (the
  // LP64 CPU routine's answer to that query where this library has one: it depends on the CPU
  // library's block size).
  auto set_minimum = [&] {
    work[0] = T(roundup_lwork<R>(lwmin));
    iwork[0] = int(liwmin);
    if constexpr (hermitian) rwork[0] = roundup_lwork<R>(lrwmin);
  };
  auto set_work = [&] {
    set_minimum();
    if (cpu::entry_cpu_call != nullptr || cpu::find(routine_names<standard, T>.cpu) == nullptr) return;
    T size = T(0);
    R rsize = R(0);
    int isize = 0, minus_one = -1, qinfo = 0;
    if constexpr (hermitian)
      cpu::routine<standard, T>()(jobz, uplo, n, a, lda, w, &size, &minus_one, &rsize, &minus_one, &isize, &minus_one,
                                  &qinfo, 1, 1);
    else
      cpu::routine<standard, T>()(jobz, uplo, n, a, lda, w, &size, &minus_one, &isize, &minus_one, &qinfo, 1, 1);
    if (qinfo != 0) return;
    if (lwmin < static_cast<long long>(real_part(size))) work[0] = T(roundup_lwork<R>((long long)real_part(size)));
    iwork[0] = std::max(iwork[0], isize);
    if constexpr (hermitian)
      if (lrwmin < static_cast<long long>(rsize)) rwork[0] = roundup_lwork<R>((long long)rsize);
  };
  // In an ILP64 or wheel entry the entry's CPU routine takes the illegal call and sets them itself.
  if (illegal >= 11 && cpu::entry_cpu_call == nullptr) set_minimum();
  auto cpu_run = [&] {
    if constexpr (hermitian)
      cpu::routine<F, T>()(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, lrwork, iwork, liwork, info,
                           1, 1);
    else
      cpu::routine<F, T>()(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, iwork, liwork, info, 1, 1);
  };
  if (illegal != 0) {
    if constexpr (hermitian)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, itype, jobz, uplo, n, a, lda, b, ldb, w, work,
                                         lwork, rwork, lrwork, iwork, liwork, info, jobz_len, uplo_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, itype, jobz, uplo, n, a, lda, b, ldb, w, work,
                                         lwork, iwork, liwork, info, jobz_len, uplo_len);
    return;
  }
  if (query || *n <= 1) {
    if constexpr (hermitian)
      return cpu_call<F, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, lrwork, iwork, liwork, info,
                            jobz_len, uplo_len);
    else
      return cpu_call<F, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, iwork, liwork, info, jobz_len,
                            uplo_len);
  }
  route_sygvd<F, T>(itype, jz, ul, n, a, lda, b, ldb, w, info, set_work, cpu_run);
}

// ?sygv_ (rwork null) and ?hegv_: the same GPU path (the standard problem by divide and
// conquer where the reference iterates QR: the same eigenpairs within the testers' bounds).
template <Family F, class T>
void generalized_eigen_qr(const int *itype, const char *jobz, const char *uplo, const int *n, T *a, const int *lda,
                          T *b, const int *ldb, real_t<T> *w, T *work, const int *lwork, real_t<T> *rwork, int *info,
                          size_t jobz_len, size_t uplo_len, const void *caller) {
  constexpr bool hermitian = is_complex_v<T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char jz = upper(*jobz), ul = upper(*uplo);
  const bool query = *lwork == -1;
  const long long lwmin = std::max(1LL, (hermitian ? 2LL : 3LL) * *n - 1);
  int illegal = 0;
  if (*itype < 1 || *itype > 3) illegal = 1;
  else if (jz != 'V' && jz != 'N') illegal = 2;
  else if (ul != 'L' && ul != 'U') illegal = 3;
  else if (*n < 0) illegal = 4;
  else if (*lda < std::max(1, *n)) illegal = 6;
  else if (*ldb < std::max(1, *n)) illegal = 8;
  else if (*lwork < lwmin && !query) illegal = 11;
  // WORK(1): the CPU routine's answer to the same call's query (the reference's optimal LWORK,
  // from the CPU library's block size), before LWORK is checked and after a run.
  auto set_work = [&] {
    if (cpu::entry_cpu_call != nullptr || cpu::find(names.cpu) == nullptr) return;
    T size = T(0);
    int minus_one = -1, qinfo = 0;
    if constexpr (hermitian)
      cpu::routine<F, T>()(itype, jobz, uplo, n, a, lda, b, ldb, w, &size, &minus_one, rwork, &qinfo, 1, 1);
    else
      cpu::routine<F, T>()(itype, jobz, uplo, n, a, lda, b, ldb, w, &size, &minus_one, &qinfo, 1, 1);
    if (qinfo == 0) work[0] = size;
  };
  if (illegal == 11) set_work();
  if (illegal != 0) {
    if constexpr (hermitian)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, itype, jobz, uplo, n, a, lda, b, ldb, w, work,
                                         lwork, rwork, info, jobz_len, uplo_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, itype, jobz, uplo, n, a, lda, b, ldb, w, work,
                                         lwork, info, jobz_len, uplo_len);
    return;
  }
  auto cpu_run = [&] {
    if constexpr (hermitian)
      cpu::routine<F, T>()(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, info, 1, 1);
    else
      cpu::routine<F, T>()(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, info, 1, 1);
  };
  if (query || *n <= 1) {
    if constexpr (hermitian)
      return cpu_call<F, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, info, jobz_len, uplo_len);
    else
      return cpu_call<F, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, info, jobz_len, uplo_len);
  }
  route_sygvd<F, T>(itype, jz, ul, n, a, lda, b, ldb, w, info, set_work, cpu_run);
}

template <class T>
void sygvd(const int *itype, const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *b,
           const int *ldb, T *w, T *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len,
           size_t uplo_len, const void *caller) {
  generalized_eigen<Family::sygvd, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, nullptr, nullptr, iwork,
                                      liwork, info, jobz_len, uplo_len, caller);
}
template <class T>
void hegvd(const int *itype, const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *b,
           const int *ldb, real_t<T> *w, T *work, const int *lwork, real_t<T> *rwork, const int *lrwork, int *iwork,
           const int *liwork, int *info, size_t jobz_len, size_t uplo_len, const void *caller) {
  generalized_eigen<Family::hegvd, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, lrwork, iwork,
                                      liwork, info, jobz_len, uplo_len, caller);
}

template <class T>
void sygv(const int *itype, const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *b,
          const int *ldb, T *w, T *work, const int *lwork, int *info, size_t jobz_len, size_t uplo_len,
          const void *caller) {
  generalized_eigen_qr<Family::sygv, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, nullptr, info, jobz_len,
                                        uplo_len, caller);
}
template <class T>
void hegv(const int *itype, const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *b,
          const int *ldb, real_t<T> *w, T *work, const int *lwork, real_t<T> *rwork, int *info, size_t jobz_len,
          size_t uplo_len, const void *caller) {
  generalized_eigen_qr<Family::hegv, T>(itype, jobz, uplo, n, a, lda, b, ldb, w, work, lwork, rwork, info, jobz_len,
                                        uplo_len, caller);
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_sygvd CUDROP_DEFINED
#define CUDROP_DEFINES_hegvd CUDROP_DEFINED
#define CUDROP_DEFINES_sygv CUDROP_DEFINED
#define CUDROP_DEFINES_hegv CUDROP_DEFINED
#include "capi/instantiate.h"
