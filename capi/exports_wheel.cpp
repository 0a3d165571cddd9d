// The entries under the names of the OpenBLAS that PyPI's numpy and scipy wheels bundle
// (core/routine_rows.h): scipy_dgemm_64_ and scipy_cblas_dgemm64_ with 64-bit integers (numpy
// 2.x), scipy_dgemm_ and scipy_cblas_dgemm with int (scipy), for every row that has ILP64
// entries. A wheel's extension modules call these names; preloaded, cudrop's come first in the
// lookup order. Each runs the routine's LP64 capi entry (checks, GPU or CPU) with its CPU run,
// illegal calls included, on the wheel's own routine, so that small calls, handlers and
// results are the wheel's OpenBLAS's, and a process that loads no wheel never meets them.
#include <cstddef>
#include <cstdint>

#include "capi/entry_declaration.h"
#include "capi/ilp64.h"
#include "core/routines.h"

#define CUDROP_WHEEL_ENTRIES(p, T_, kind, stem, parameters, arguments)                                          \
  namespace cudrop::exported_wheel::precision_##p {                                                              \
  using T = T_;                                                                                                  \
  namespace ilp64 {                                                                                              \
  using I = int64_t;                                                                                             \
  using P = cudrop::capi::ilp64::Pivot;                                                                          \
  CUDROP_EXPORT void CUDROP_SYMBOL_WHEEL64(kind, p, stem) parameters {                                           \
    constexpr cudrop::Family F = cudrop::Family::CUDROP_FAMILY(kind, stem);                                     \
    const auto entry = static_cast<cudrop::capi::Entry<F, T>>(&cudrop::capi::CUDROP_FAMILY(kind, stem)<T>);        \
    cudrop::capi::ilp64::call<F, T>(cudrop::routine_names<F, T>.cpu_wheel64, entry, __builtin_return_address(0),   \
                                    CUDROP_UNPAREN arguments);                                                   \
  }                                                                                                              \
  }                                                                                                              \
  namespace lp64 {                                                                                               \
  using I = int;                                                                                                 \
  using P = int;                                                                                                 \
  CUDROP_EXPORT void CUDROP_SYMBOL_WHEEL(kind, p, stem) parameters {                                             \
    constexpr cudrop::Family F = cudrop::Family::CUDROP_FAMILY(kind, stem);                                     \
    const auto entry = static_cast<cudrop::capi::Entry<F, T>>(&cudrop::capi::CUDROP_FAMILY(kind, stem)<T>);        \
    cudrop::capi::ilp64::call_lp64(cudrop::routine_names<F, T>.cpu_wheel, entry, __builtin_return_address(0),      \
                                   CUDROP_UNPAREN arguments);                                                      \
  }                                                                                                              \
  }                                                                                                              \
  }

#define CUDROP_WHEEL_ROW(kind, stem, precisions, parameters, arguments) \
  CUDROP_DECLARE_ENTRY(kind, stem, parameters)                         \
  CUDROP_EACH_PRECISION(precisions, CUDROP_WHEEL_ENTRIES, kind, stem, parameters, arguments)

#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  CUDROP_IF_ILP64(kind, entry)(CUDROP_WHEEL_ROW(kind, stem, precisions, parameters, arguments))
#include "routines.def"
#undef CUDROP_ROUTINE
