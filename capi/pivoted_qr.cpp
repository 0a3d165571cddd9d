// Column-pivoted QR entry points: ?geqp3_ and ?gelsy_ (s, d). The reference routine's argument
// checks in the reference order, its LWORK minima; workspace queries and quick returns go to the
// CPU routine, whose answers they are; every other call is one routed call (GPU or the CPU LAPACK
// underneath), on the GPU from min(m, n) >= CUDROP_QR_MIN_N as the rest of the QR family. The
// GPU path of ?gelsy_ calls the CPU LAPACK's xLAIC1, xTZRZF and xORMRZ/xUNMRZ (of the entry's own
// library: capi/eigen_route.h) for its O(n^2)-per-column parts; impl takes them as callbacks.
// The c and z entries (ZGEQP3 and ZGELSY take RWORK, which routines.def's one row per stem cannot
// say beside the real routines' parameters) are not exported yet; impl has every precision.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "capi/cpu_call.h"
#include "capi/eigen_route.h"
#include "capi/report.h"
#include "core/routines.h"
#include "impl/qr/qr.h"
#include "route/dispatch.h"

namespace cudrop::capi {
namespace {

// xLAIC1, xTZRZF, xORMRZ/xUNMRZ of the library of the entry's pending CPU run (null: LP64).
template <Family F, class T>
impl::GelsyCpuRoutines<T> gelsy_cpu_routines(const cpu::EntryCpuCall *entry) {
  using R = real_t<T>;
  impl::GelsyCpuRoutines<T> r;
  r.laic1 = [entry](int job, int j, const T *x, R sest, const T *w, T gamma, R *sestpr, T *s, T *c) {
    return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
      using I = decltype(index);
      const auto laic1 = routine_in<Family::laic1, T, I>(library);
      if (laic1 == nullptr) return -1000;
      const I job_ = job, j_ = j;
      laic1(&job_, &j_, x, &sest, w, &gamma, sestpr, s, c);
      return 0;
    });
  };
  r.tzrzf = [entry](int m, int n, T *a, int lda, T *tau) {
    return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
      using I = decltype(index);
      const auto tzrzf = routine_in<Family::tzrzf, T, I>(library);
      if (tzrzf == nullptr) return -1000;
      const I m_ = m, n_ = n, lda_ = lda;
      I lwork = -1, info = 0;
      T size = T(0);
      tzrzf(&m_, &n_, a, &lda_, tau, &size, &lwork, &info);
      if (info != 0) return int(info);
      lwork = std::max<I>({I(1), I(m), I(real_part(size))});
      std::vector<T> work(static_cast<size_t>(lwork));
      tzrzf(&m_, &n_, a, &lda_, tau, work.data(), &lwork, &info);
      return int(info);
    });
  };
  r.ormrz = [entry](int m, int n, int k, int l, const T *a, int lda, const T *tau, T *c, int ldc) {
    return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
      using I = decltype(index);
      constexpr Family G = is_complex_v<T> ? Family::unmrz : Family::ormrz;
      const auto ormrz = routine_in<G, T, I>(library);
      if (ormrz == nullptr) return -1000;
      const char *trans = is_complex_v<T> ? "C" : "T";
      const I m_ = m, n_ = n, k_ = k, l_ = l, lda_ = lda, ldc_ = ldc;
      I lwork = -1, info = 0;
      T size = T(0);
      ormrz("L", trans, &m_, &n_, &k_, &l_, a, &lda_, tau, c, &ldc_, &size, &lwork, &info, 1, 1);
      if (info != 0) return int(info);
      lwork = std::max<I>({I(1), I(n), I(real_part(size))});
      std::vector<T> work(static_cast<size_t>(lwork));
      ormrz("L", trans, &m_, &n_, &k_, &l_, a, &lda_, tau, c, &ldc_, work.data(), &lwork, &info, 1, 1);
      return int(info);
    });
  };
  return r;
}

const char *labelled(const RoutineNames &names, char *label, size_t size, const char *format, int a, int b, int c) {
  if (settings().verbose < 2) return names.symbol;
  std::snprintf(label, size, format, names.symbol, a, b, c);
  return label;
}

}  // namespace

template <class T>
void geqp3(const int *m, const int *n, T *a, const int *lda, int *jpvt, T *tau, T *work, const int *lwork, int *info,
           const void *caller) {
  constexpr Family F = Family::geqp3;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const bool query = *lwork == -1;
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*lda < std::max(1, *m)) illegal = 4;
  // IWS: 3n + 1 (real), n + 1 (complex); 1 for an empty matrix. The reference sets WORK(1) first.
  else if (!query && *lwork < (std::min(*m, *n) == 0 ? 1 : (is_complex_v<T> ? 1 : 3) * *n + 1)) illegal = 8;
  if (illegal == 8)
    set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, a, lda, jpvt, tau, w, lw, i); });
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, m, n, a, lda, jpvt, tau, work, lwork, info);
    return;
  }
  if (query || std::min(*m, *n) == 0) return cpu_call<F, T>(m, n, a, lda, jpvt, tau, work, lwork, info);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d)", *m, *n, 0), std::min(*m, *n) >= settings().qr_min_n,
        names.cpu,
        [&] {
          const Status s = impl::geqp3_host<T>(*m, *n, a, *lda, jpvt, tau);
          if (s == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, a, lda, jpvt, tau, w, lw, i); });
          }
          return s;
        },
        [&] { cpu::routine<F, T>()(m, n, a, lda, jpvt, tau, work, lwork, info); });
}

template <class T>
void gelsy(const int *m, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb, int *jpvt,
           const T *rcond, int *rank, T *work, const int *lwork, int *info, const void *caller) {
  constexpr Family F = Family::gelsy;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const bool query = *lwork == -1;
  const int mn = std::min(*m, *n);
  // LWKMIN: 1 for an empty problem (the real routines), else mn + max(2 mn, n + 1, mn + nrhs).
  const long long lwkmin = (!is_complex_v<T> && (mn == 0 || *nrhs == 0))
                               ? 1
                               : mn + std::max({2LL * mn, (long long)*n + 1, (long long)mn + *nrhs});
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*nrhs < 0) illegal = 3;
  else if (*lda < std::max(1, *m)) illegal = 5;
  else if (*ldb < std::max({1, *m, *n})) illegal = 7;
  else if (*lwork < lwkmin && !query) illegal = 12;
  if (illegal == 12)
    set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) {
      fn(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, w, lw, i);
    });
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank,
                                       work, lwork, info);
    return;
  }
  if (query || mn == 0 || *nrhs == 0)
    return cpu_call<F, T>(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, work, lwork, info);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d,nrhs=%d)", *m, *n, *nrhs), mn >= settings().qr_min_n,
        names.cpu,
        [&] {
          const cpu::EntryCpuCall *entry = cpu::entry_cpu_call;
          const Status s =
              impl::gelsy_host<T>(*m, *n, *nrhs, a, *lda, b, *ldb, jpvt, *rcond, rank, gelsy_cpu_routines<F, T>(entry));
          if (s == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) {
              fn(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, w, lw, i);
            });
          }
          return s;
        },
        [&] { cpu::routine<F, T>()(m, n, nrhs, a, lda, b, ldb, jpvt, rcond, rank, work, lwork, info); });
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_geqp3 CUDROP_DEFINED
#define CUDROP_DEFINES_gelsy CUDROP_DEFINED
#include "capi/instantiate.h"
