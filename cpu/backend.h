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

template <class T>
using gemm_fn = void (*)(const char *, const char *, const int *, const int *, const int *,
                         const T *, const T *, const int *, const T *, const int *, const T *,
                         T *, const int *, size_t, size_t);

template <class T>
gemm_fn<T> gemm() {
  return reinterpret_cast<gemm_fn<T>>(require_cached(routine_names<Family::gemm, T>.cpu));
}

template <class T>
using syrk_fn = void (*)(const char *, const char *, const int *, const int *, const T *, const T *, const int *,
                         const T *, T *, const int *, size_t, size_t);
template <class T>
using trsm_fn = void (*)(const char *, const char *, const char *, const char *, const int *, const int *,
                         const T *, const T *, const int *, T *, const int *, size_t, size_t, size_t, size_t);
template <class T>
using symm_fn = void (*)(const char *, const char *, const int *, const int *, const T *, const T *, const int *,
                         const T *, const int *, const T *, T *, const int *, size_t, size_t);
// ?herk_: alpha and beta real (COMPLEX's REAL).
template <class T>
using herk_fn = void (*)(const char *, const char *, const int *, const int *, const real_t<T> *, const T *,
                         const int *, const real_t<T> *, T *, const int *, size_t, size_t);
template <class T>
using syr2k_fn = void (*)(const char *, const char *, const int *, const int *, const T *, const T *, const int *,
                          const T *, const int *, const T *, T *, const int *, size_t, size_t);
template <class T>
using trmm_fn = trsm_fn<T>;
template <class T>
using potrf_fn = void (*)(const char *, const int *, T *, const int *, int *, size_t);

template <class T>
using getrf_fn = void (*)(const int *, const int *, T *, const int *, int *, int *);
template <class T>
using laswp_fn = void (*)(const int *, T *, const int *, const int *, const int *, const int *, const int *);
template <class T>
using getrs_fn = void (*)(const char *, const int *, const int *, const T *, const int *, const int *, T *,
                          const int *, int *, size_t);
template <class T>
using potrs_fn = void (*)(const char *, const int *, const int *, const T *, const int *, T *, const int *, int *,
                          size_t);
template <class T>
using gesv_fn = void (*)(const int *, const int *, T *, const int *, int *, T *, const int *, int *);
template <class T>
using posv_fn = void (*)(const char *, const int *, const int *, T *, const int *, T *, const int *, int *, size_t);

// The CPU library's routine of row F in precision T, as a function of type Fn (aborts, as
// require() does, when there is none).
template <Family F, class T, class Fn>
Fn routine() {
  return reinterpret_cast<Fn>(require(routine_names<F, T>.cpu));
}

template <class T>
syrk_fn<T> syrk() {
  return reinterpret_cast<syrk_fn<T>>(require(routine_names<Family::syrk, T>.cpu));
}
template <class T>
trsm_fn<T> trsm() {
  return reinterpret_cast<trsm_fn<T>>(require(routine_names<Family::trsm, T>.cpu));
}
template <class T>
symm_fn<T> symm() {
  return reinterpret_cast<symm_fn<T>>(require(routine_names<Family::symm, T>.cpu));
}
template <class T>
syr2k_fn<T> syr2k() {
  return reinterpret_cast<syr2k_fn<T>>(require(routine_names<Family::syr2k, T>.cpu));
}
template <class T>
trmm_fn<T> trmm() {
  return reinterpret_cast<trmm_fn<T>>(require(routine_names<Family::trmm, T>.cpu));
}
template <class T>
potrf_fn<T> potrf() {
  return reinterpret_cast<potrf_fn<T>>(require(routine_names<Family::potrf, T>.cpu));
}

}  // namespace cudrop::cpu
