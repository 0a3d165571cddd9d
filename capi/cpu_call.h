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

}  // namespace cudrop::capi
