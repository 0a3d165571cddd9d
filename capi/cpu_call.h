#pragma once
// A call that is the CPU routine's own (a workspace query, a quick return): made on the entry's
// CPU routine (an ILP64 or wheel-name entry's, with the caller's own arguments) or else on the
// LP64 routine underneath, uncounted, never on the GPU.
#include "core/routines.h"
#include "cpu/backend.h"

namespace cudrop::capi {

template <Family F, class T, class... Args>
void cpu_call(Args... args) {
  if (!cpu::take_entry_cpu_call()) cpu::routine<F, T>()(args...);
}

// WORK(1) after a GPU run, and before an illegal LWORK is reported (the reference sets it before
// that check): the LP64 CPU routine's answer to the same call's query, where this library has
// one; query(fn, work, lwork, info) makes that call. In an ILP64 or wheel entry (other integers)
// the entry's CPU routine takes an illegal call itself, and WORK(1) is left as it was after a
// GPU run.
template <Family F, class T, class Query>
void set_optimal_work(T *work, Query query) {
  if (cpu::entry_cpu_call != nullptr || cpu::find(routine_names<F, T>.cpu) == nullptr) return;
  T optimal = T(0);
  int minus_one = -1, info = 0;
  query(cpu::routine<F, T>(), &optimal, &minus_one, &info);
  if (info == 0) work[0] = optimal;
}

}  // namespace cudrop::capi
