// The singular value decomposition and least squares by it: ?gesdd_, ?gesvd_, ?gelsd_, ?gelss_
// (s, d, c, z; the complex ones take RWORK, their rows are of precisions czown). The reference
// routine's argument checks in the reference order with its INFO numbers, LWORK's minimum as the
// reference computes it; workspace queries and min(m, n) = 0 go to the CPU routine, whose answers
// they are; every other call is one routed call. The GPU path (impl/svd/svd.h) takes the CPU
// LAPACK routines it calls from here, those of the entry's own library (impl does not reach the
// CPU library): xSTEDC for the leaves of the bidiagonal problem's divide and conquer on the GPU,
// and xBDSDC for the bidiagonal problems the GPU's result is refused for.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "capi/cpu_call.h"
#include "capi/eigen_route.h"
#include "capi/report.h"
#include "capi/svd_work.h"
#include "core/letter.h"
#include "core/routines.h"
#include "impl/svd/svd.h"

namespace cudrop::capi {

// ---- the GPU path's CPU piece and the routed call ----

// impl::BidiagonalSolver on xBDSDC ('U'; COMPQ 'N' with u and vt null, else 'I') of the entry's
// library (a CPU run of row F pending, or null). Returns its INFO, or -1 where that library lacks
// the routine (the whole call then goes to the CPU).
template <Family F, class T>
int bidiagonal_on_cpu(const cpu::EntryCpuCall *entry, int n_, real_t<T> *d, real_t<T> *e, real_t<T> *u,
                      real_t<T> *vt) {
  using R = real_t<T>;
  return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
    using I = decltype(index);
    const auto bdsdc = routine_in<Family::bdsdc, R, I>(library);
    if (bdsdc == nullptr) return -1;
    const bool vectors = u != nullptr;
    const size_t n = static_cast<size_t>(n_);
    // dbdsdc.f: WORK 4N (COMPQ 'N') or 3N**2 + 4N ('I'), IWORK 8N.
    std::vector<R> work(std::max<size_t>(1, vectors ? 3 * n * n + 4 * n : 4 * n));
    std::vector<I> iwork(std::max<size_t>(1, 8 * n));
    R unused = 0, q = 0;
    I order = n_, ld = vectors ? std::max<I>(1, order) : 1, iq = 0, info = 0;
    bdsdc("U", vectors ? "I" : "N", &order, d, e, vectors ? u : &unused, &ld, vectors ? vt : &unused, &ld, &q, &iq,
          work.data(), iwork.data(), &info, 1, 1);
    return int(info);
  });
}

template <Family F, class T>
impl::BidiagonalSolver<real_t<T>> bidiagonal_solver(const cpu::EntryCpuCall *entry) {
  using R = real_t<T>;
  return [entry](int n, R *d, R *e, R *u, R *vt) { return bidiagonal_on_cpu<F, T>(entry, n, d, e, u, vt); };
}

// The routed call of an SVD driver of row F: on the GPU from min(m, n) >= CUDROP_SVD_MIN_N
// (forced in gpu mode); gpu_attempt(entry) -> Status the GPU work, entry the pending CPU run of
// the entry's kind (null: an LP64 entry's) whose library its xBDSDC comes from; set_work() sets
// WORK(1)... after a GPU run, cpu_run() the whole call on the CPU. options: the job letters (or
// empty), nrhs < 0: none, for CUDROP_VERBOSE=2's line.
template <Family F, class T, class GpuAttempt, class SetWork, class CpuRun>
void route_svd(const char *options, int m, int n, int nrhs, GpuAttempt &&gpu_attempt, SetWork &&set_work,
               CpuRun &&cpu_run) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    if (nrhs >= 0) std::snprintf(label, sizeof label, "%s(m=%d,n=%d,nrhs=%d)", name, m, n, nrhs);
    else std::snprintf(label, sizeof label, "%s(%s,m=%d,n=%d)", name, options, m, n);
    name = label;
  }
  route(name, std::min(m, n) >= settings().svd_min_n, names.cpu,
        [&] {
          const Status s = gpu_attempt(static_cast<const cpu::EntryCpuCall *>(cpu::entry_cpu_call));
          if (s == Status::ok) set_work();
          return s;
        },
        cpu_run);
}

// ---- ?gesdd_ ----

// One routine for both rows: rwork null for s and d.
template <class T>
void gesdd_entry(const char *jobz, const int *m, const int *n, T *a, const int *lda, real_t<T> *s, T *u,
                 const int *ldu, T *vt, const int *ldvt, T *work, const int *lwork, real_t<T> *rwork, int *iwork,
                 int *info, size_t jobz_len, const void *caller) {
  using R = real_t<T>;
  constexpr bool complex = is_complex_v<T>;
  constexpr Family F = Family::gesdd;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char jz = upper(*jobz);
  const bool wntqa = jz == 'A', wntqs = jz == 'S', wntqo = jz == 'O', wntqas = wntqa || wntqs;
  const bool query = *lwork == -1;
  const int minmn = std::min(*m, *n);
  int illegal = 0;
  if (!wntqa && !wntqs && !wntqo && jz != 'N') illegal = 1;
  else if (*m < 0) illegal = 2;
  else if (*n < 0) illegal = 3;
  else if (*lda < std::max(1, *m)) illegal = 5;
  else if (*ldu < 1 || (wntqas && *ldu < *m) || (wntqo && *m < *n && *ldu < *m)) illegal = 8;
  else if (*ldvt < 1 || (wntqa && *ldvt < *n) || (wntqs && *ldvt < minmn) || (wntqo && *m >= *n && *ldvt < *n))
    illegal = 10;
  else if (*lwork < gesdd_minimum<complex>(jz, *m, *n) && !query) illegal = 12;
  // WORK(1) as the reference sets it: the LP64 CPU routine's answer to the same call's query (it
  // depends on the CPU library's block sizes).
  auto set_work = [&] {
    if (cpu::entry_cpu_call != nullptr || cpu::find(names.cpu) == nullptr) return;
    T size = T(0);
    R rdummy = 0;
    int idummy = 0, minus_one = -1, qinfo = 0;
    if constexpr (complex)
      cpu::routine<F, T>()(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, &size, &minus_one, &rdummy, &idummy, &qinfo, 1);
    else cpu::routine<F, T>()(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, &size, &minus_one, &idummy, &qinfo, 1);
    if (qinfo == 0) work[0] = size;
  };
  // The reference sets WORK(1) before it checks LWORK.
  if (illegal == 12 && cpu::entry_cpu_call == nullptr) set_work();
  if (illegal != 0) {
    if constexpr (complex)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work,
                                         lwork, rwork, iwork, info, jobz_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work,
                                         lwork, iwork, info, jobz_len);
    return;
  }
  if (query || minmn == 0) {
    if constexpr (complex)
      return cpu_call<F, T>(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, jobz_len);
    else return cpu_call<F, T>(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, jobz_len);
  }
  auto cpu_run = [&] {
    if constexpr (complex)
      cpu::routine<F, T>()(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);
    else cpu::routine<F, T>()(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
  };
  const char options[2] = {jz, '\0'};
  route_svd<F, T>(
      options, *m, *n, -1,
      [&](const cpu::EntryCpuCall *entry) {
        return impl::gesdd_host<T>(jz, *m, *n, a, *lda, s, u, *ldu, vt, *ldvt, info, bidiagonal_solver<F, T>(entry),
                                   tridiagonal_solver<F, T>(entry));
      },
      set_work, cpu_run);
}

template <class T>
void gesdd(const char *jobz, const int *m, const int *n, T *a, const int *lda, T *s, T *u, const int *ldu, T *vt,
           const int *ldvt, T *work, const int *lwork, int *iwork, int *info, size_t jobz_len, const void *caller) {
  gesdd_entry<T>(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, nullptr, iwork, info, jobz_len, caller);
}
template <class T>
void gesdd(const char *jobz, const int *m, const int *n, T *a, const int *lda, real_t<T> *s, T *u, const int *ldu,
           T *vt, const int *ldvt, T *work, const int *lwork, real_t<T> *rwork, int *iwork, int *info,
           size_t jobz_len, const void *caller) {
  gesdd_entry<T>(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, jobz_len, caller);
}

// ---- ?gesvd_ ----

template <class T>
void gesvd_entry(const char *jobu, const char *jobvt, const int *m, const int *n, T *a, const int *lda,
                 real_t<T> *s, T *u, const int *ldu, T *vt, const int *ldvt, T *work, const int *lwork,
                 real_t<T> *rwork, int *info, size_t jobu_len, size_t jobvt_len, const void *caller) {
  constexpr bool complex = is_complex_v<T>;
  constexpr Family F = Family::gesvd;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char ju = upper(*jobu), jv = upper(*jobvt);
  const auto legal = [](char c) { return c == 'A' || c == 'S' || c == 'O' || c == 'N'; };
  const bool query = *lwork == -1;
  const int minmn = std::min(*m, *n);
  int illegal = 0;
  if (!legal(ju)) illegal = 1;
  else if (!legal(jv) || (jv == 'O' && ju == 'O')) illegal = 2;
  else if (*m < 0) illegal = 3;
  else if (*n < 0) illegal = 4;
  else if (*lda < std::max(1, *m)) illegal = 6;
  else if (*ldu < 1 || ((ju == 'A' || ju == 'S') && *ldu < *m)) illegal = 9;
  else if (*ldvt < 1 || (jv == 'A' && *ldvt < *n) || (jv == 'S' && *ldvt < minmn)) illegal = 11;
  else if (*lwork < gesvd_minimum<complex>(ju, jv, *m, *n) && !query) illegal = 13;
  auto set_work = [&] {
    if (cpu::entry_cpu_call != nullptr || cpu::find(names.cpu) == nullptr) return;
    T size = T(0);
    int minus_one = -1, qinfo = 0;
    if constexpr (complex)
      cpu::routine<F, T>()(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, &size, &minus_one, rwork, &qinfo, 1, 1);
    else cpu::routine<F, T>()(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, &size, &minus_one, &qinfo, 1, 1);
    if (qinfo == 0) work[0] = size;
  };
  // The reference sets WORK(1) before it checks LWORK.
  if (illegal == 13 && cpu::entry_cpu_call == nullptr) set_work();
  if (illegal != 0) {
    if constexpr (complex)
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt,
                                         work, lwork, rwork, info, jobu_len, jobvt_len);
    else
      illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt,
                                         work, lwork, info, jobu_len, jobvt_len);
    return;
  }
  if (query || minmn == 0) {
    if constexpr (complex)
      return cpu_call<F, T>(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, jobu_len,
                            jobvt_len);
    else
      return cpu_call<F, T>(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, jobu_len, jobvt_len);
  }
  auto cpu_run = [&] {
    if constexpr (complex)
      cpu::routine<F, T>()(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, 1, 1);
    else cpu::routine<F, T>()(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, 1, 1);
  };
  const char options[4] = {ju, ',', jv, '\0'};
  route_svd<F, T>(
      options, *m, *n, -1,
      [&](const cpu::EntryCpuCall *entry) {
        return impl::gesvd_host<T>(ju, jv, *m, *n, a, *lda, s, u, *ldu, vt, *ldvt, info,
                                   bidiagonal_solver<F, T>(entry), tridiagonal_solver<F, T>(entry));
      },
      set_work, cpu_run);
}

template <class T>
void gesvd(const char *jobu, const char *jobvt, const int *m, const int *n, T *a, const int *lda, T *s, T *u,
           const int *ldu, T *vt, const int *ldvt, T *work, const int *lwork, int *info, size_t jobu_len,
           size_t jobvt_len, const void *caller) {
  gesvd_entry<T>(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, nullptr, info, jobu_len, jobvt_len,
                 caller);
}
template <class T>
void gesvd(const char *jobu, const char *jobvt, const int *m, const int *n, T *a, const int *lda, real_t<T> *s, T *u,
           const int *ldu, T *vt, const int *ldvt, T *work, const int *lwork, real_t<T> *rwork, int *info,
           size_t jobu_len, size_t jobvt_len, const void *caller) {
  gesvd_entry<T>(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, jobu_len, jobvt_len,
                 caller);
}

// ---- ?gelsd_ and ?gelss_ ----

// Both routines, both rows: gelss selects the routine; rwork null for s and d; iwork null for
// ?gelss_.
template <Family F, class T>
void least_squares(const int *m, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb,
                   real_t<T> *s, const real_t<T> *rcond, int *rank, T *work, const int *lwork, real_t<T> *rwork,
                   int *iwork, int *info, const void *caller) {
  using R = real_t<T>;
  constexpr bool complex = is_complex_v<T>;
  constexpr bool gelss = F == Family::gelss;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const bool query = *lwork == -1;
  const int minmn = std::min(*m, *n);
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*nrhs < 0) illegal = 3;
  else if (*lda < std::max(1, *m)) illegal = 5;
  else if (*ldb < std::max({1, *m, *n})) illegal = 7;
  LeastSquaresWork least;
  if (illegal == 0) {
    if constexpr (gelss) least.lwork = gelss_minimum<complex>(*m, *n, *nrhs);
    else least = gelsd_minimum<complex, std::is_same_v<T, float>>(*m, *n, *nrhs);
    if (*lwork < least.lwork && !query) illegal = 12;
  }
  // WORK(1) (xGELSD: IWORK(1), and RWORK(1) for c and z) as the reference sets them: the minimum
  // lengths, WORK(1) the LP64 CPU routine's answer to the same call's query where this library
  // has one (it depends on the CPU library's block sizes).
  auto set_work = [&] {
    if constexpr (!gelss) {
      iwork[0] = int(least.liwork);
      if constexpr (complex) rwork[0] = R(least.lrwork);
    }
    if (cpu::entry_cpu_call != nullptr || cpu::find(names.cpu) == nullptr) return;
    T size = T(0);
    R rsize = R(0);
    int isize = 0, qrank = 0, minus_one = -1, qinfo = 0;
    if constexpr (gelss && complex)
      cpu::routine<F, T>()(m, n, nrhs, a, lda, b, ldb, s, rcond, &qrank, &size, &minus_one, &rsize, &qinfo);
    else if constexpr (gelss)
      cpu::routine<F, T>()(m, n, nrhs, a, lda, b, ldb, s, rcond, &qrank, &size, &minus_one, &qinfo);
    else if constexpr (complex)
      cpu::routine<F, T>()(m, n, nrhs, a, lda, b, ldb, s, rcond, &qrank, &size, &minus_one, &rsize, &isize, &qinfo);
    else cpu::routine<F, T>()(m, n, nrhs, a, lda, b, ldb, s, rcond, &qrank, &size, &minus_one, &isize, &qinfo);
    if (qinfo != 0) return;
    work[0] = size;
    if constexpr (!gelss) {
      iwork[0] = isize;
      if constexpr (complex) rwork[0] = rsize;
    }
  };
  // The reference sets them before it checks LWORK.
  if (illegal == 12 && cpu::entry_cpu_call == nullptr) set_work();
  auto run = [&](auto &&fn) {
    if constexpr (gelss && complex) fn(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, info);
    else if constexpr (gelss) fn(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, info);
    else if constexpr (complex) fn(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
    else fn(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
  };
  if (illegal != 0) {
    run([&](auto... args) { illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, args...); });
    return;
  }
  // xGELSD with NRHS = 0 is the CPU routine's: the reference's xLALSD reports it as illegal.
  if (query || minmn == 0 || (!gelss && *nrhs == 0)) {
    run([](auto... args) { cpu_call<F, T>(args...); });
    return;
  }
  auto cpu_run = [&] { run([](auto... args) { cpu::routine<F, T>()(args...); }); };
  route_svd<F, T>(
      "", *m, *n, *nrhs,
      [&](const cpu::EntryCpuCall *entry) {
        return impl::gelsd_host<T>(gelss, *m, *n, *nrhs, a, *lda, b, *ldb, s, *rcond, rank, info,
                                   bidiagonal_solver<F, T>(entry), tridiagonal_solver<F, T>(entry));
      },
      set_work, cpu_run);
}

template <class T>
void gelsd(const int *m, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb, T *s,
           const T *rcond, int *rank, T *work, const int *lwork, int *iwork, int *info, const void *caller) {
  least_squares<Family::gelsd, T>(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, nullptr, iwork, info,
                                  caller);
}
template <class T>
void gelsd(const int *m, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb, real_t<T> *s,
           const real_t<T> *rcond, int *rank, T *work, const int *lwork, real_t<T> *rwork, int *iwork, int *info,
           const void *caller) {
  least_squares<Family::gelsd, T>(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info,
                                  caller);
}
template <class T>
void gelss(const int *m, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb, T *s,
           const T *rcond, int *rank, T *work, const int *lwork, int *info, const void *caller) {
  least_squares<Family::gelss, T>(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, nullptr, nullptr, info,
                                  caller);
}
template <class T>
void gelss(const int *m, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb, real_t<T> *s,
           const real_t<T> *rcond, int *rank, T *work, const int *lwork, real_t<T> *rwork, int *info,
           const void *caller) {
  least_squares<Family::gelss, T>(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, nullptr, info,
                                  caller);
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_gesdd CUDROP_DEFINED
#define CUDROP_DEFINES_gesvd CUDROP_DEFINED
#define CUDROP_DEFINES_gelsd CUDROP_DEFINED
#define CUDROP_DEFINES_gelss CUDROP_DEFINED
#include "capi/instantiate.h"
