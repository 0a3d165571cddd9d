#pragma once
// How capi reports an illegal argument. cudrop defines no error handler of its own (one
// exported would replace the process's). An entry hands an illegal call to the CPU routine
// underneath where it can (cpu::find_for_illegal_call): its checks call the handler the
// process would call without cudrop. These report the others. caller: the program's return
// address, taken in the exported entry, or nullptr.
#include <cstddef>
#include <initializer_list>

#include "core/routines.h"
#include "cpu/backend.h"

namespace cudrop::capi {
// Fortran interface: the program's xerbla_ (global scope, the executable first; then the
// calling object's own dependencies), else the CPU library's, else the reference LAPACK
// XERBLA's text on stdout and exit(0) (Fortran STOP). The handler gets routine.handler
// ("SGEMM ", 6: the reference's own padding).
void report_illegal_argument(const RoutineNames &routine, int info, const void *caller);

// A call with an illegal argument, handed whole to the CPU routine underneath (a function of
// type Fn, called with args), whose own checks call the handler the process would call
// (`handlers`: the names they call, {"xerbla_"}, and "cblas_xerbla" for CBLAS); in an ILP64 or
// wheel-name entry (cpu::entry_cpu_call) to that entry's routine instead. False when no routine takes it:
// the caller reports it itself.
template <class Fn, class... Args>
bool cpu_takes_illegal_call(const RoutineNames &routine, const void *caller,
                            std::initializer_list<const char *> handlers, Args... args) {
  if (cpu::take_entry_cpu_call()) return true;
  if (auto cpu_routine = reinterpret_cast<Fn>(cpu::find_for_illegal_call(routine.cpu, caller, handlers))) {
    cpu_routine(args...);
    return true;
  }
  return false;
}

// A Fortran LAPACK call with an illegal argument (parameter number `illegal`): to the CPU
// routine as above, whose own checks set INFO; without one, INFO = -illegal (set before the
// handler gets its positive number, as the reference does) and report_illegal_argument.
template <class Fn, class... Args>
void illegal_lapack_call(const RoutineNames &routine, int illegal, int *info, const void *caller, Args... args) {
  if (cpu_takes_illegal_call<Fn>(routine, caller, {"xerbla_"}, args...)) return;
  *info = -illegal;
  report_illegal_argument(routine, illegal, caller);
}

// CBLAS interface, numbered like reference CBLAS (the layout argument is parameter 1).
// cblas: the CBLAS routine's names. info: the CBLAS parameter number of a CBLAS-level check
// (layout, TransA, TransB), reported with `what` and `value` as "Illegal <what> setting,
// <value>". row_major: RowMajor layout.
void report_illegal_cblas_argument(const RoutineNames &cblas, int info, bool row_major, const char *what, int value,
                                   const void *caller);
// A check of the Fortran routine underneath failed: fortran_info is the Fortran parameter
// number of the call reference CBLAS makes to `fortran` (row-major: the swapped one).
void report_illegal_cblas_fortran_argument(const RoutineNames &cblas, const RoutineNames &fortran, int fortran_info,
                                           bool row_major, const void *caller);
}  // namespace cudrop::capi
