// Symmetric and Hermitian eigenproblem entry points: ?syevd_, ?syev_ (s, d) and ?heevd_, ?heev_ (c, z). The
// reference routine's argument checks in the reference order; workspace queries and N <= 1 go to
// the CPU routine, whose answers they are; every other call is one routed call. The GPU path
// (impl/eigen/eigen.h) solves the tridiagonal problem with the CPU LAPACK's xSTERF or xSTEDC, called
// from capi (capi/eigen_route.h: impl does not reach the CPU library).
#include <algorithm>

#include "capi/cpu_call.h"
#include "capi/eigen_route.h"
#include "capi/report.h"
#include "core/letter.h"
#include "core/routines.h"
#include "impl/eigen/eigen.h"

namespace cudrop::capi {

// The routed call of ?syevd_, ?syev_ and the like: set_work() sets WORK(1)... after a GPU run,
// cpu_run() the whole call on the CPU.
template <Family F, class T, class SetWork, class CpuRun>
void route_syevd(char jz, char ul, const int *n, T *a, const int *lda, real_t<T> *w, int *info, SetWork &&set_work,
                 CpuRun &&cpu_run) {
  route_eigen<F, T>(
      0, jz, 0, ul, *n,
      [&](const cpu::EntryCpuCall *entry) {
        return impl::syevd_host<T>(jobz_of(jz), uplo_of(ul), *n, a, *lda, w, info, tridiagonal_solver<F, T>(entry));
      },
      set_work, cpu_run);
}

// ?syevd_ (rwork null) and ?heevd_: one routine, two rows.
template <Family F, class T>
void symmetric_eigen(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, real_t<T> *w, T *work,
                     const int *lwork, real_t<T> *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
                     size_t jobz_len, size_t uplo_len, const void *caller) {
  using R = real_t<T>;
  constexpr bool hermitian = is_complex_v<T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char jz = upper(*jobz), ul = upper(*uplo);
  const bool vectors = jz == 'V';
  const bool query = *lwork == -1 || *liwork == -1 || (hermitian && *lrwork == -1);
  const EigenWorkMinimum least = divide_and_conquer_minimum<hermitian>(vectors, *n);
  const long long lwmin = least.lwork, lrwmin = least.lrwork, liwmin = least.liwork;
  int illegal = 0;
  if (!vectors && jz != 'N') illegal = 1;
  else if (ul != 'L' && ul != 'U') illegal = 2;
  else if (*n < 0) illegal = 3;
  else if (*lda < std::max(1, *n)) illegal = 5;
  else if (*lwork < lwmin && !query) illegal = 8;
  else if (hermitian && *lrwork < lrwmin && !query) illegal = 10;
  else if (*liwork < liwmin && !query) illegal = hermitian ? 12 : 10;
  // WORK(1), IWORK(1) (RWORK(1)) as the reference sets them: IWORK(1) and RWORK(1) are the
  // minimum lengths, WORK(1) the LP64 CPU routine's answer to the same call's query where this
  // library has one (it depends on the CPU library's block size).
  auto set_work = [&] {
    iwork[0] = int(liwmin);
    if constexpr (hermitian) rwork[0] = R(lrwmin);
    if (cpu::entry_cpu_call != nullptr || cpu::find(names.cpu) == nullptr) return;
    T size = T(0);
    R rsize = R(0);
    int isize = 0, minus_one = -1, qinfo = 0;
    if constexpr (hermitian)
      cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, &size, &minus_one, &rsize, &minus_one, &isize, &minus_one, &qinfo,
                           1, 1);
    else
      cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, &size, &minus_one, &isize, &minus_one, &qinfo, 1, 1);
    if (qinfo == 0) {
      work[0] = size;
      iwork[0] = isize;
      if constexpr (hermitian) rwork[0] = rsize;
    }
  };
  // The reference sets WORK(1), IWORK(1) (RWORK(1)) before it checks their lengths (in an ILP64
  // or wheel entry the entry's CPU routine takes the illegal call and sets them itself).
  if (illegal >= 8 && cpu::entry_cpu_call == nullptr) set_work();
  auto cpu_run = [&] {
    if constexpr (hermitian)
      cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, 1, 1);
    else
      cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, 1, 1);
  };
  if (illegal != 0) {
    if constexpr (hermitian)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, uplo, n, a, lda, w, work, lwork, rwork,
                                         lrwork, iwork, liwork, info, jobz_len, uplo_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, uplo, n, a, lda, w, work, lwork, iwork,
                                         liwork, info, jobz_len, uplo_len);
    return;
  }
  if (query || *n <= 1) {
    if constexpr (hermitian)
      return cpu_call<F, T>(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, jobz_len,
                            uplo_len);
    else
      return cpu_call<F, T>(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, jobz_len, uplo_len);
  }
  route_syevd<F, T>(jz, ul, n, a, lda, w, info, set_work, cpu_run);
}

// ?syev_ (rwork null) and ?heev_: the same GPU path (the tridiagonal problem by divide and
// conquer where the reference iterates QR: the same eigenpairs within the testers' bounds).
template <Family F, class T>
void symmetric_eigen_qr(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, real_t<T> *w, T *work,
                        const int *lwork, real_t<T> *rwork, int *info, size_t jobz_len, size_t uplo_len,
                        const void *caller) {
  constexpr bool hermitian = is_complex_v<T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char jz = upper(*jobz), ul = upper(*uplo);
  const bool query = *lwork == -1;
  const long long lwmin = std::max(1LL, (hermitian ? 2LL : 3LL) * *n - 1);
  int illegal = 0;
  if (jz != 'V' && jz != 'N') illegal = 1;
  else if (ul != 'L' && ul != 'U') illegal = 2;
  else if (*n < 0) illegal = 3;
  else if (*lda < std::max(1, *n)) illegal = 5;
  else if (*lwork < lwmin && !query) illegal = 8;
  auto set_work = [&] {
    if (cpu::entry_cpu_call != nullptr || cpu::find(names.cpu) == nullptr) return;
    T size = T(0);
    int minus_one = -1, qinfo = 0;
    if constexpr (hermitian) cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, &size, &minus_one, rwork, &qinfo, 1, 1);
    else cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, &size, &minus_one, &qinfo, 1, 1);
    if (qinfo == 0) work[0] = size;
  };
  // The reference sets WORK(1) before it checks LWORK.
  if (illegal == 8) set_work();
  if (illegal != 0) {
    if constexpr (hermitian)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, uplo, n, a, lda, w, work, lwork, rwork,
                                         info, jobz_len, uplo_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, uplo, n, a, lda, w, work, lwork, info,
                                         jobz_len, uplo_len);
    return;
  }
  auto cpu_run = [&] {
    if constexpr (hermitian) cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, work, lwork, rwork, info, 1, 1);
    else cpu::routine<F, T>()(jobz, uplo, n, a, lda, w, work, lwork, info, 1, 1);
  };
  if (query || *n <= 1) {
    if constexpr (hermitian)
      return cpu_call<F, T>(jobz, uplo, n, a, lda, w, work, lwork, rwork, info, jobz_len, uplo_len);
    else
      return cpu_call<F, T>(jobz, uplo, n, a, lda, w, work, lwork, info, jobz_len, uplo_len);
  }
  route_syevd<F, T>(jz, ul, n, a, lda, w, info, set_work, cpu_run);
}

template <class T>
void syevd(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *w, T *work, const int *lwork,
           int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len, const void *caller) {
  symmetric_eigen<Family::syevd, T>(jobz, uplo, n, a, lda, w, work, lwork, nullptr, nullptr, iwork, liwork, info,
                                    jobz_len, uplo_len, caller);
}
template <class T>
void heevd(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, real_t<T> *w, T *work,
           const int *lwork, real_t<T> *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
           size_t jobz_len, size_t uplo_len, const void *caller) {
  symmetric_eigen<Family::heevd, T>(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info,
                                    jobz_len, uplo_len, caller);
}

template <class T>
void syev(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *w, T *work, const int *lwork,
          int *info, size_t jobz_len, size_t uplo_len, const void *caller) {
  symmetric_eigen_qr<Family::syev, T>(jobz, uplo, n, a, lda, w, work, lwork, nullptr, info, jobz_len, uplo_len, caller);
}
template <class T>
void heev(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, real_t<T> *w, T *work,
          const int *lwork, real_t<T> *rwork, int *info, size_t jobz_len, size_t uplo_len, const void *caller) {
  symmetric_eigen_qr<Family::heev, T>(jobz, uplo, n, a, lda, w, work, lwork, rwork, info, jobz_len, uplo_len, caller);
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_syevd CUDROP_DEFINED
#define CUDROP_DEFINES_heevd CUDROP_DEFINED
#define CUDROP_DEFINES_syev CUDROP_DEFINED
#define CUDROP_DEFINES_heev CUDROP_DEFINED
#include "capi/instantiate.h"
