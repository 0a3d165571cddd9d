// The ILP64 entries (64-bit integers) of routines.def's exported rows of kind blas, lapack and
// cblas: each hands the caller's arguments to capi::ilp64::call (capi/ilp64.h) with the LP64
// capi entry of the same routine. Compiled twice: in libcudrop and libcudrop_full under
// OpenBLAS's SYMBOLSUFFIX=64_ names (dgemm_64_, cblas_dgemm64_); with CUDROP_ILP64_PLAIN in
// libcudrop64 under the unsuffixed names (Debian's libblas64.so.3 ABI).
#include <cstddef>
#include <cstdint>

#include "capi/entry_declaration.h"
#include "capi/ilp64.h"
#include "core/routines.h"

namespace cudrop::cpu {
#if CUDROP_ILP64_PLAIN
const bool ilp64_names_are_global = true;
#else
const bool ilp64_names_are_global = false;
#endif
}  // namespace cudrop::cpu

#if CUDROP_ILP64_PLAIN
#define CUDROP_ILP64_NAME(kind, p, stem) CUDROP_SYMBOL(kind, p, stem)
// libcudrop64 has no LP64 sgemm_ entry, so no short way of one to open (capi/gemm_fast_entry.cpp).
namespace cudrop::capi {
template <class T> void open_gemm_shortcut() {}
template void open_gemm_shortcut<float>();
template void open_gemm_shortcut<double>();
}  // namespace cudrop::capi
#else
#define CUDROP_ILP64_NAME(kind, p, stem) CUDROP_SYMBOL64(kind, p, stem)
#endif

#define CUDROP_ENTRY64(p, T_, kind, stem, parameters, arguments)                                                   \
  namespace cudrop::exported64::precision_##p {                                                                  \
  using T = T_;                                                                                                  \
  using I = int64_t;                                                                                             \
  using P = cudrop::capi::ilp64::Pivot;                                                                          \
  CUDROP_EXPORT void CUDROP_ILP64_NAME(kind, p, stem) parameters {                                               \
    constexpr cudrop::Family F = cudrop::Family::CUDROP_FAMILY(kind, stem);                                     \
    const auto entry = static_cast<cudrop::capi::Entry<F, T>>(&cudrop::capi::CUDROP_FAMILY(kind, stem)<T>);        \
    cudrop::capi::ilp64::call<F, T>(cudrop::routine_names<F, T>.cpu64, entry, __builtin_return_address(0),         \
                                    CUDROP_UNPAREN arguments);                                                     \
  }                                                                                                              \
  }

#define CUDROP_ENTRIES64(kind, stem, precisions, parameters, arguments) \
  CUDROP_DECLARE_ENTRY(kind, stem, parameters)                         \
  CUDROP_EACH_PRECISION(precisions, CUDROP_ENTRY64, kind, stem, parameters, arguments)

#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  CUDROP_IF_ILP64(kind, entry)(CUDROP_ENTRIES64(kind, stem, precisions, parameters, arguments))
#include "routines.def"
#undef CUDROP_ROUTINE
