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

// Runs body(I{}, find) on the library of the pending CPU run `entry` of row F in precision T
// (null: an LP64 entry's): I its integer type (int or int64_t), find(names) the address of
// routine `names` there (null where that library lacks it). Returns body's INFO, or -1 where
// the entry's library is none of the four. While it runs no entry's CPU run is pending: the
// routine's own BLAS calls that come back through cudrop are calls of their own.
template <Family F, class T, class Body>
int on_entry_library(const cpu::EntryCpuCall *entry, Body &&body) {
  using Library = cpu::Routine RoutineNames::*;
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
  const auto find = [library](const RoutineNames &names) { return cpu::find(names.*library); };
  if (library == &RoutineNames::cpu64 || library == &RoutineNames::cpu_wheel64) return body(int64_t{}, find);
  return body(int{}, find);
}

// impl::TridiagonalSolver on xSTERF (z null) or xSTEDC 'I' of the entry's library (a CPU run of
// row F pending, or null). Returns its INFO, or -1 where that library lacks the routine (the
// whole call then goes to the CPU).
template <Family F, class T>
int tridiagonal_on_cpu(const cpu::EntryCpuCall *entry, int n_, real_t<T> *d, real_t<T> *e, real_t<T> *z) {
  using R = real_t<T>;
  return on_entry_library<F, T>(entry, [&](auto index, auto find) -> int {
    using I = decltype(index);
    I n = n_, info = 0;
    if (z == nullptr) {
      void *sterf = find(routine_names<Family::sterf, R>);
      if (sterf == nullptr) return -1;
      reinterpret_cast<void (*)(const I *, R *, R *, I *)>(sterf)(&n, d, e, &info);
      return int(info);
    }
    void *stedc = find(routine_names<Family::stedc, R>);
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
  });
}

}  // namespace cudrop::capi
