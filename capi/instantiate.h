// The explicit instantiations of the capi entries (capi::<family><T>, which the generated
// entries of capi/exports*.cpp call) that one capi file defines, one per precision of its
// routines.def row, so that no file lists precisions by hand. At the end of the file, outside
// any namespace, name each family the file defines, then include this header:
//   #define CUDROP_DEFINES_potrf CUDROP_DEFINED
//   #include "capi/instantiate.h"
// Only rows whose entry calls capi (thunk, asm) are instantiated.
#include "capi/entry_declaration.h"
#include "core/routine_rows.h"

#define CUDROP_DEFINED ~, CUDROP_KEEP

// CUDROP_IF_DEFINES(family)(x): x where CUDROP_DEFINES_<family> is CUDROP_DEFINED, else nothing.
#define CUDROP_IF_DEFINES(family) CUDROP_IF_DEFINES_(family)
#define CUDROP_IF_DEFINES_(family) CUDROP_SECOND_(CUDROP_DEFINES_##family, CUDROP_DROP, ~)
#define CUDROP_SECOND_(...) CUDROP_SECOND_II_(__VA_ARGS__)
#define CUDROP_SECOND_II_(a, b, ...) b

#define CUDROP_IF_CAPI_ENTRY(entry) CUDROP_CAPI_ENTRY_##entry
#define CUDROP_CAPI_ENTRY_thunk CUDROP_KEEP
#define CUDROP_CAPI_ENTRY_asm CUDROP_KEEP
#define CUDROP_CAPI_ENTRY_own CUDROP_DROP
#define CUDROP_CAPI_ENTRY_under CUDROP_DROP

// The entry's function type: from the row's signature where it has one (which picks the
// overload of a stem whose rows differ by precision, precisions czown), else the template's own.
#define CUDROP_ENTRY_TYPE(kind, family, T_) CUDROP_ENTRY_TYPE_##kind(family, T_)
#define CUDROP_ENTRY_TYPE_blas(family, T_) std::remove_pointer_t<cudrop::capi::Entry<cudrop::Family::family, T_>>
#define CUDROP_ENTRY_TYPE_lapack CUDROP_ENTRY_TYPE_blas
#define CUDROP_ENTRY_TYPE_cblas CUDROP_ENTRY_TYPE_blas
#define CUDROP_ENTRY_TYPE_scalapack CUDROP_ENTRY_TYPE_blas
#define CUDROP_ENTRY_TYPE_ext(family, T_) decltype(cudrop::capi::family<T_>)
#define CUDROP_ENTRY_TYPE_c CUDROP_ENTRY_TYPE_ext

#define CUDROP_INSTANTIATE_ONE(p, T_, family, kind) \
  template CUDROP_ENTRY_TYPE(kind, family, T_) cudrop::capi::family<T_>;
#define CUDROP_INSTANTIATE_ROW(family, kind, precisions, entry)                                 \
  CUDROP_IF_DEFINES(family)(CUDROP_IF_CAPI_ENTRY(entry)(                                      \
      CUDROP_EACH_PRECISION(precisions, CUDROP_INSTANTIATE_ONE, family, kind)))

#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  CUDROP_INSTANTIATE_ROW(CUDROP_FAMILY(kind, stem), kind, precisions, entry)
#include "routines.def"
#undef CUDROP_ROUTINE
