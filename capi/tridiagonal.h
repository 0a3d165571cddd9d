#pragma once
// The CPU routines the eigenproblem drivers' GPU paths call for their tridiagonal problem
// (impl/eigen: impl does not reach the CPU library): found in the CPU LAPACK of the entry's own
// kind, the LP64 library for dsyevd_, the ILP64 one for dsyevd_64_, the wheel's own for
// scipy_dsyevd_64_, and called with that library's integers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/complex.h"
#include "core/routines.h"
#include "cpu/backend.h"

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

}  // namespace cudrop::capi
