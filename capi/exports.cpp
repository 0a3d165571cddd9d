// The exported entries of routines.def's rows of entry `thunk` and `asm`: each takes the
// program's return address (where an illegal call's handler is looked up,
// cpu::find_for_illegal_call; whether the call is the program's or an inner one, CallerScope)
// and calls capi::<routine><T>, which capi/<routine>.cpp defines and
// instantiates for each precision. No policy here: an entry is a call.
#include <cstddef>
#include <cstdint>

#include "core/routines.h"
#include "route/dispatch.h"
// The public prototypes, so that an entry that differs from its declaration fails to compile.
// Not the CBLAS ones: they take enums where the entries take int (the same ABI; an int holds
// the illegal values that the checks must see).
#define CBLAS_H
#define CUDROP_COMPLEX_FLOAT cudrop::Complex<float>
#define CUDROP_COMPLEX_DOUBLE cudrop::Complex<double>
#include "cudrop.h"
#undef CBLAS_H

#include "capi/entry_declaration.h"

// One precision's entry. T names the element type in the row's parameters. `name` is the
// symbol itself, or for an `asm` row on a machine with assembly entries the hidden
// cudrop_<symbol>full that its assembly entry jumps to: the return address is the program's.
#define CUDROP_ENTRY(p, T_, kind, stem, entry, parameters, arguments)                                 \
  namespace cudrop::exported::precision_##p {                                                         \
  using T = T_;                                                                                       \
  using I = int;                                                                                      \
  using P = int;                                                                                      \
  CUDROP_ENTRY_LINKAGE_##entry(p) void CUDROP_ENTRY_NAME_##entry(p, CUDROP_SYMBOL(kind, p, stem)) parameters { \
    const cudrop::CallerScope scope(__builtin_return_address(0));                                      \
    cudrop::capi::CUDROP_FAMILY(kind, stem)<T>(CUDROP_UNPAREN arguments, __builtin_return_address(0));  \
  }                                                                                                   \
  }

#define CUDROP_ENTRY_LINKAGE_thunk(p) CUDROP_EXPORT
#define CUDROP_ENTRY_NAME_thunk(p, symbol) symbol
// The assembly entries are sgemm_'s and dgemm_'s (capi/gemm_fast_entry.cpp): an `asm` row's
// other precisions are exported as a `thunk` row's are.
#if CUDROP_ASM_ENTRIES
#define CUDROP_ENTRY_LINKAGE_asm(p) CUDROP_ASM_LINKAGE_##p
#define CUDROP_ENTRY_NAME_asm(p, symbol) CUDROP_ASM_NAME_##p(symbol)
#define CUDROP_ASM_LINKAGE_s extern "C" __attribute__((visibility("hidden")))
#define CUDROP_ASM_LINKAGE_d CUDROP_ASM_LINKAGE_s
#define CUDROP_ASM_LINKAGE_c CUDROP_EXPORT
#define CUDROP_ASM_LINKAGE_z CUDROP_EXPORT
#define CUDROP_ASM_NAME_s(symbol) CUDROP_ASM_TARGET(symbol)
#define CUDROP_ASM_NAME_d(symbol) CUDROP_ASM_TARGET(symbol)
#define CUDROP_ASM_NAME_c(symbol) symbol
#define CUDROP_ASM_NAME_z(symbol) symbol
#define CUDROP_ASM_TARGET(symbol) cudrop_##symbol##full
#else
#define CUDROP_ENTRY_LINKAGE_asm(p) CUDROP_EXPORT
#define CUDROP_ENTRY_NAME_asm(p, symbol) symbol
#endif

#define CUDROP_ENTRIES_thunk(kind, stem, precisions, entry, parameters, arguments) \
  CUDROP_DECLARE_ENTRY(kind, stem, parameters)                                     \
  CUDROP_EACH_PRECISION(precisions, CUDROP_ENTRY, kind, stem, entry, parameters, arguments)
#define CUDROP_ENTRIES_asm CUDROP_ENTRIES_thunk
#define CUDROP_ENTRIES_own(...)
#define CUDROP_ENTRIES_under(...)

#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  CUDROP_ENTRIES_##entry(kind, stem, precisions, entry, parameters, arguments)
#include "routines.def"
#undef CUDROP_ROUTINE
