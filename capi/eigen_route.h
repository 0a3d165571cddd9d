#pragma once
// What the GPU eigenproblem drivers share (capi/syevd.cpp, capi/sygvd.cpp): the tridiagonal
// problem on the CPU LAPACK of the entry's own kind, which impl/eigen takes as a
// TridiagonalSolver (impl does not reach the CPU library), and the routed call.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/routines.h"
#include "cpu/backend.h"
#include "impl/eigen/eigen.h"
#include "route/dispatch.h"

namespace cudrop::capi {

// The tridiagonal problem on the CPU LAPACK of the entry's own kind (the LP64 library, an ILP64
// one, a PyPI wheel's): xSTERF (z null) or xSTEDC 'I'. Returns its INFO, or -1 when that library
// lacks the routine (the whole call then goes to the CPU). While it runs no entry's CPU run is
// pending: its own BLAS calls that come back through cudrop are calls of their own.
template <class I, class R>
int tridiagonal_with(void *sterf, void *stedc, int n_, R *d, R *e, R *z) {
  I n = n_, info = 0;
  if (z == nullptr) {
    if (sterf == nullptr) return -1;
    reinterpret_cast<void (*)(const I *, R *, R *, I *)>(sterf)(&n, d, e, &info);
    return int(info);
  }
  if (stedc == nullptr) return -1;
  const auto fn = reinterpret_cast<void (*)(const char *, const I *, R *, R *, R *, const I *, R *, const I *, I *,
                                            const I *, I *, size_t)>(stedc);
  R size = 0;
  I isize = 0, lwork = -1, liwork = -1;
  fn("I", &n, d, e, z, &n, &size, &lwork, &isize, &liwork, &info, 1);
  if (info != 0) return int(info);
  lwork = std::max<I>(1, I(size));
  liwork = std::max<I>(1, isize);
  std::vector<R> work(static_cast<size_t>(lwork));
  std::vector<I> iwork(static_cast<size_t>(liwork));
  fn("I", &n, d, e, z, &n, work.data(), &lwork, iwork.data(), &liwork, &info, 1);
  return int(info);
}

template <Family F, class T>
int tridiagonal_on_cpu(const cpu::EntryCpuCall *entry, int n, real_t<T> *d, real_t<T> *e, real_t<T> *z) {
  using R = real_t<T>;
  constexpr const RoutineNames &self = routine_names<F, T>, &sterf = routine_names<Family::sterf, R>,
                                &stedc = routine_names<Family::stedc, R>;
  cpu::EntryCpuCall *const pending = cpu::entry_cpu_call;
  cpu::entry_cpu_call = nullptr;
  int info = -1;
  auto find = [](cpu::Routine r) { return cpu::find(r); };
  if (entry == nullptr)
    info = tridiagonal_with<int, R>(find(sterf.cpu), find(stedc.cpu), n, d, e, z);
  else if (entry->underneath == self.cpu64)
    info = tridiagonal_with<int64_t, R>(find(sterf.cpu64), find(stedc.cpu64), n, d, e, z);
  else if (entry->underneath == self.cpu_wheel64)
    info = tridiagonal_with<int64_t, R>(find(sterf.cpu_wheel64), find(stedc.cpu_wheel64), n, d, e, z);
  else if (entry->underneath == self.cpu_wheel)
    info = tridiagonal_with<int, R>(find(sterf.cpu_wheel), find(stedc.cpu_wheel), n, d, e, z);
  cpu::entry_cpu_call = pending;
  return info;
}

// The minimum LWORK, LRWORK (complex), LIWORK of xSYEVD/xHEEVD for order n, which
// xSYGVD/xHEGVD require too.
struct EigenWorkMinimum {
  long long lwork = 1, lrwork = 1, liwork = 1;
};
template <bool hermitian>
EigenWorkMinimum divide_and_conquer_minimum(bool vectors, long long n) {
  EigenWorkMinimum least;
  if (n <= 1) return least;
  if (hermitian) {
    least.lwork = vectors ? 2 * n + n * n : n + 1;
    least.lrwork = vectors ? 1 + 5 * n + 2 * n * n : n;
  } else {
    least.lwork = vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1;
  }
  least.liwork = vectors ? 3 + 5 * n : 1;
  return least;
}

// The routed call of a GPU eigenproblem driver: F the entry's row (its CPU routine, its
// tridiagonal solver's library); gpu_attempt(solve) -> Status the GPU work given the entry's
// CPU tridiagonal solver; set_work() sets WORK(1)... after a GPU run, cpu_run() the whole call
// on the CPU. itype (0: none), jz, ul: the call's options, for CUDROP_VERBOSE=2's line.
template <Family F, class T, class GpuAttempt, class SetWork, class CpuRun>
void route_eigen(int itype, char jz, char ul, int n, GpuAttempt &&gpu_attempt, SetWork &&set_work,
                 CpuRun &&cpu_run) {
  using R = real_t<T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    if (itype != 0) std::snprintf(label, sizeof label, "%s(%d,%c,%c,n=%d)", name, itype, jz, ul, n);
    else std::snprintf(label, sizeof label, "%s(%c,%c,n=%d)", name, jz, ul, n);
    name = label;
  }
  route(name, n >= settings().eigen_min_n, names.cpu,
        [&] {
          const cpu::EntryCpuCall *entry = cpu::entry_cpu_call;
          const impl::TridiagonalSolver<R> solve = [entry](int order, R *d, R *e, R *z) {
            return tridiagonal_on_cpu<F, T>(entry, order, d, e, z);
          };
          const Status s = gpu_attempt(solve);
          if (s == Status::ok) set_work();
          return s;
        },
        cpu_run);
}

}  // namespace cudrop::capi
