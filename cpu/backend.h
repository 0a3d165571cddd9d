#pragma once
// The CPU BLAS/LAPACK underneath cudrop: resolved lazily, never to cudrop itself.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "core/routines.h"

namespace cudrop::cpu {

// Routine: the rows of routines.def found underneath (core/routines.h).

// Address of the routine underneath. If no CPU library provides it, prints what to
// install or set and aborts: a wrong answer is never an option.
void *require(Routine routine);
// Same, but returns nullptr instead of aborting (for probes and tests).
void *find(Routine routine);

// `symbol` from the CPU BLAS (lapack false) or LAPACK underneath, searched as find() searches
// (never cudrop itself), uncached: each forwarder of the complete library keeps its own slot.
void *find_by_name(const char *symbol, bool lapack);
// require()'s message on stderr (what to install or set), then abort.
[[noreturn]] void missing(const char *symbol, bool lapack);

// A routine of the CPU BLAS (lapack false) or LAPACK with 64-bit integers (ILP64), uncached:
// `suffixed` (dgemm_64_, cblas_dgemm64_: OpenBLAS's SYMBOLSUFFIX=64_ spelling, ILP64 wherever
// it is found) next in the lookup order or in an OpenBLAS built so; else `plain` (dgemm_) in a
// file known to be ILP64 (Debian's libblas64.so.3, liblapack64.so.3, libopenblas64.so.0).
// Never `plain` from the lookup order: the process may hold an LP64 libblas.so.3 too, and its
// dgemm_ would read half of each integer. Never a cudrop (of either ABI).
// deep_bind: where the process's global unsuffixed names are LP64 (the _64_ names of
// libcudrop_full, beside its LP64 ones), an ILP64 library with the unsuffixed names is opened
// RTLD_DEEPBIND, as libblastrampoline does: Debian's liblapack64 dgesv_ calls dgetrf_, which
// through the global scope would be an LP64 one. Deep-bound, its calls reach its own routines
// and its dependencies' (libblas64.so.3), its handlers and CBLAS variables too, not a
// program's own. Not for libcudrop64: there the global unsuffixed names are its own ILP64
// forwarders (a program's cblas_xerbla, RowMajorStrg must be reached, as the CBLAS testers
// demand). A library the process has already loaded keeps the binding it was loaded with.
void *find_by_name64(const char *suffixed, const char *plain, bool lapack, bool deep_bind);
// True in libcudrop64 (capi/exports64.cpp compiled so): the unsuffixed names this library
// exports, and the process's, take 64-bit integers; an LP64 routine underneath is never taken
// from the lookup order there.
extern const bool ilp64_names_are_global;

// The CPU run of the entry this thread is in when its CPU routine is not its row's LP64 one:
// an ILP64 entry's (capi/ilp64.h: the ILP64 routine with the caller's own 64-bit arguments) or
// a PyPI wheel's name (capi/exports_wheel.cpp: the wheel's own routine). route() and an illegal
// call take it instead of the LP64 routine the LP64 path underneath would call.
struct EntryCpuCall {
  void (*run)(void *context);
  void *context;
  bool taken;
  Routine underneath;  // the routine run() calls: which library, which integers
};
extern thread_local EntryCpuCall *entry_cpu_call;
// Runs the pending entry's CPU call, once, and returns true; false outside such an entry.
inline bool take_entry_cpu_call() {
  EntryCpuCall *call = entry_cpu_call;
  if (call == nullptr) return false;
  entry_cpu_call = nullptr;
  call->taken = true;
  call->run(call->context);
  return true;
}

// The executable code of the CPU libraries cudrop has found routines in, so that a call that
// one of them makes back into cudrop's exports (the reference LAPACK's dgetrf_ calling dgemm_
// through the global scope) is told apart from the program's own calls: it is counted as an
// inner call, not as one of the program's (route/dispatch.h). Filled as libraries are found;
// read without a lock: the x86-64 GEMM entry (capi/gemm_fast_entry.cpp) reads hi, then lo, and
// an entry is written lo first, so that a reader never sees a range from 0.
struct CodeRange {
  std::atomic<uintptr_t> lo, hi;
};
static_assert(sizeof(std::atomic<uintptr_t>) == 8, "the x86-64 GEMM entry reads lo at 0 and hi at 8");
constexpr int kCpuCodeRanges = 4;

// missing()'s message for an ILP64 routine, then abort.
[[noreturn]] void missing64(const char *symbol, bool lapack);

// Where an illegal call goes, so that the process sees what it would without cudrop: the
// routine underneath, whose own checks call the handler its own symbol binding gives; or
// nullptr, and capi reports it itself (capi/report.h). nullptr when the executable defines one
// of the `handlers` itself (it is called directly). Else the routine the calling object binds
// to within its own dependencies (e.g. the libblas.so.3 of a module loaded RTLD_LOCAL, like
// numpy's lapack_lite), never the caller's own definition (a wrapper's); else find()'s, unless
// a handler the caller would reach (global scope, then its own dependencies) is not the one
// that library reaches: a library loaded RTLD_LOCAL and linked against libcudrop alone that
// defines its own xerbla_. return_address: the caller's, taken in the exported entry.
void *find_for_illegal_call(Routine routine, const void *return_address,
                            std::initializer_list<const char *> handlers);
// `symbol` as the object holding `address` (a caller's return address) would bind it within
// its own dependencies (not the global scope), unless that is cudrop's own; nullptr if none.
void *find_in_scope_of(const void *address, const char *symbol);
// The first definition of `symbol` in the global lookup scope (the executable first), unless
// it is cudrop's own; nullptr if none.
void *find_global(const char *symbol);

namespace detail {
// Routines already resolved (null until then): small calls that stay on the CPU read this
// instead of taking find()'s once-guard, so that cudrop adds nanoseconds, not tens of them.
extern std::atomic<void *> resolved[static_cast<size_t>(Routine::count)];
}  // namespace detail

// The routine if a lookup has already resolved it, else null (never resolves: no lock, no
// library search).
inline void *resolved_already(Routine routine) {
  return detail::resolved[static_cast<size_t>(routine)].load(std::memory_order_acquire);
}
inline void *find_cached(Routine routine) {
  void *fn = resolved_already(routine);
  return fn != nullptr ? fn : find(routine);
}
inline void *require_cached(Routine routine) {
  void *fn = resolved_already(routine);
  return fn != nullptr ? fn : require(routine);
}

// The C type of row F's routine in precision T underneath (core/routines.h's Signature), with
// the integers I of its library (int64_t: an ILP64 one's).
template <Family F, class T, class I = int>
using Fn = typename Signature<F, T, I>::type;

// The CPU library's routine of row F in precision T (aborts, as require() does, when there is
// none); routine_cached() takes the lock-free lookup first, for calls on a hot path.
template <Family F, class T>
Fn<F, T> routine() {
  return reinterpret_cast<Fn<F, T>>(require(routine_names<F, T>.cpu));
}
template <Family F, class T>
Fn<F, T> routine_cached() {
  return reinterpret_cast<Fn<F, T>>(require_cached(routine_names<F, T>.cpu));
}

}  // namespace cudrop::cpu

extern "C" __attribute__((visibility("hidden"))) cudrop::cpu::CodeRange cudrop_cpu_code[cudrop::cpu::kCpuCodeRanges];

namespace cudrop::cpu {
// Whether return_address lies in a CPU library underneath (see CodeRange).
inline bool called_from_cpu_library(const void *return_address) {
  const auto address = reinterpret_cast<uintptr_t>(return_address);
  for (const CodeRange &r : cudrop_cpu_code) {
    const uintptr_t hi = r.hi.load(std::memory_order_acquire);
    if (hi == 0) break;
    if (address < hi && address >= r.lo.load(std::memory_order_relaxed)) return true;
  }
  return false;
}
}  // namespace cudrop::cpu
