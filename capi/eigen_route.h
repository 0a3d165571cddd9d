#pragma once
// What the GPU eigenproblem drivers share (capi/syevd.cpp, capi/syevr.cpp, capi/sygvd.cpp): the
// CPU routines their GPU paths call for the tridiagonal problem (impl/eigen takes them as
// callbacks: impl does not reach the CPU library), found in the CPU LAPACK of the entry's own
// kind (the LP64 library for dsyevd_, the ILP64 one for dsyevd_64_, the wheel's own for
// scipy_dsyevd_64_) and called with that library's integers; xSYEVD's minimum workspace, which
// xSYGVD requires too; and the routed call.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/complex.h"
#include "core/routines.h"
#include "cpu/backend.h"
#include "impl/eigen/eigen.h"
#include "route/dispatch.h"

namespace cudrop::capi {

// A CPU library of an entry's kind: which of RoutineNames' four routines underneath (cpu, cpu64,
// cpu_wheel, cpu_wheel64) are its.
using Library = cpu::Routine RoutineNames::*;
inline bool ilp64(Library library) { return library == &RoutineNames::cpu64 || library == &RoutineNames::cpu_wheel64; }

// Row G's routine in precision T of `library`, typed with that library's integers I; null where
// the library lacks it.
template <Family G, class T, class I>
cpu::Fn<G, T, I> routine_in(Library library) {
  return reinterpret_cast<cpu::Fn<G, T, I>>(cpu::find(routine_names<G, T>.*library));
}

// Runs body(I{}, library) on the library of the pending CPU run `entry` of row F in precision T
// (null: an LP64 entry's), I its integer type (int or int64_t). Returns body's INFO, or -1 where
// the entry's library is none of the four. While it runs no entry's CPU run is pending: the
// routine's own BLAS calls that come back through cudrop are calls of their own.
template <Family F, class T, class Body>
int on_entry_library(const cpu::EntryCpuCall *entry, Body &&body) {
  constexpr const RoutineNames &self = routine_names<F, T>;
  Library library = nullptr;
  if (entry == nullptr) library = &RoutineNames::cpu;
  else if (entry->underneath == self.cpu64) library = &RoutineNames::cpu64;
  else if (entry->underneath == self.cpu_wheel64) library = &RoutineNames::cpu_wheel64;
  else if (entry->underneath == self.cpu_wheel) library = &RoutineNames::cpu_wheel;
  if (library == nullptr) return -1;
  // Put back however body leaves (route() turns a bad_alloc into a CPU run, which must be the
  // entry's own).
  struct Restore {
    cpu::EntryCpuCall *pending = cpu::entry_cpu_call;
    ~Restore() { cpu::entry_cpu_call = pending; }
  } restore;
  cpu::entry_cpu_call = nullptr;
  return ilp64(library) ? body(int64_t{}, library) : body(int{}, library);
}

// impl::TridiagonalSolver on xSTERF (z null) or xSTEDC 'I' of the entry's library (a CPU run of
// row F pending, or null). Returns its INFO, or -1 where that library lacks the routine (the
// whole call then goes to the CPU).
template <Family F, class T>
int tridiagonal_on_cpu(const cpu::EntryCpuCall *entry, int n_, real_t<T> *d, real_t<T> *e, real_t<T> *z) {
  using R = real_t<T>;
  return on_entry_library<F, T>(entry, [&](auto index, Library library) -> int {
    using I = decltype(index);
    I n = n_, info = 0;
    if (z == nullptr) {
      const auto sterf = routine_in<Family::sterf, R, I>(library);
      if (sterf == nullptr) return -1;
      sterf(&n, d, e, &info);
      return int(info);
    }
    const auto stedc = routine_in<Family::stedc, R, I>(library);
    if (stedc == nullptr) return -1;
    R size = 0;
    I isize = 0, lwork = -1, liwork = -1;
    stedc("I", &n, d, e, z, &n, &size, &lwork, &isize, &liwork, &info, 1);
    if (info != 0) return int(info);
    lwork = std::max<I>(1, I(size));
    liwork = std::max<I>(1, isize);
    std::vector<R> work(static_cast<size_t>(lwork));
    std::vector<I> iwork(static_cast<size_t>(liwork));
    stedc("I", &n, d, e, z, &n, work.data(), &lwork, iwork.data(), &liwork, &info, 1);
    return int(info);
  });
}

// tridiagonal_on_cpu as the impl::TridiagonalSolver of a GPU run of row F (entry: its pending
// CPU run, or null).
template <Family F, class T>
impl::TridiagonalSolver<real_t<T>> tridiagonal_solver(const cpu::EntryCpuCall *entry) {
  using R = real_t<T>;
  return [entry](int n, R *d, R *e, R *z) { return tridiagonal_on_cpu<F, T>(entry, n, d, e, z); };
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
// tridiagonal routines' library); gpu_attempt(entry) -> Status the GPU work, entry the pending
// CPU run of the entry's kind (null: an LP64 entry's) whose library its tridiagonal routines
// come from (tridiagonal_solver, on_entry_library); set_work() sets WORK(1)... after a GPU run,
// cpu_run() the whole call on the CPU. itype (0: none), jz, rg (0: none), ul: the call's
// options, for CUDROP_VERBOSE=2's line.
template <Family F, class T, class GpuAttempt, class SetWork, class CpuRun>
void route_eigen(int itype, char jz, char rg, char ul, int n, GpuAttempt &&gpu_attempt, SetWork &&set_work,
                 CpuRun &&cpu_run) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    char options[16];
    if (itype != 0) std::snprintf(options, sizeof options, "%d,%c", itype, jz);
    else std::snprintf(options, sizeof options, "%c", jz);
    if (rg != 0) std::snprintf(label, sizeof label, "%s(%s,%c,%c,n=%d)", name, options, rg, ul, n);
    else std::snprintf(label, sizeof label, "%s(%s,%c,n=%d)", name, options, ul, n);
    name = label;
  }
  route(name, n >= settings().eigen_min_n, names.cpu,
        [&] {
          const Status s = gpu_attempt(static_cast<const cpu::EntryCpuCall *>(cpu::entry_cpu_call));
          if (s == Status::ok) set_work();
          return s;
        },
        cpu_run);
}

}  // namespace cudrop::capi
