#pragma once
// The rows of routines.def as C++: the routines (Family), the CPU routines underneath
// (cpu::Routine), and each routine's names (routine_names). Below every floor: any may name a
// routine without a list of its own.
#include <cstddef>
#include <type_traits>

#include "core/complex.h"
#include "core/routine_rows.h"

// The attribute of a name libcudrop.so exports (the rest is hidden by default).
#define CUDROP_EXPORT extern "C" __attribute__((visibility("default")))

// Rows whose entry is `asm` are exported by an assembly entry in capi/ where one is written
// (x86-64 ELF); it jumps to the generated cudrop_<symbol>full. Elsewhere the generated entry is
// the exported one.
#if defined(__x86_64__) && defined(__ELF__)
#define CUDROP_ASM_ENTRIES 1
#else
#define CUDROP_ASM_ENTRIES 0
#endif

namespace cudrop {

// A row of routines.def: one routine in every precision it has (gemm: sgemm_ and dgemm_).
enum class Family {
#define CUDROP_FAMILY_ENUMERATOR_sd(kind, stem) CUDROP_FAMILY(kind, stem),
#define CUDROP_FAMILY_ENUMERATOR_cz CUDROP_FAMILY_ENUMERATOR_sd
#define CUDROP_FAMILY_ENUMERATOR_sdcz CUDROP_FAMILY_ENUMERATOR_sd
#define CUDROP_FAMILY_ENUMERATOR_none CUDROP_FAMILY_ENUMERATOR_sd
#define CUDROP_FAMILY_ENUMERATOR_czown(kind, stem)  // its s and d row's
#define CUDROP_ROUTINE(kind, stem, precisions, ...) CUDROP_FAMILY_ENUMERATOR_##precisions(kind, stem)
#include "routines.def"
#undef CUDROP_ROUTINE
};

namespace cpu {
// A routine the CPU BLAS/LAPACK underneath may be asked for: each precision of the rows of
// kind blas, lapack and cblas, under its own symbol, with 64-bit integers under its suffixed
// one (dgemm_64_: cpu/backend.cpp resolves it in an ILP64 library), and under the two
// names of the PyPI wheels' OpenBLAS (scipy_dgemm_, scipy_dgemm_64_: only in a wheel's library
// the process has loaded).
enum class Routine {
#define CUDROP_CPU_ENUMERATOR(p, T, kind, stem)                                                 \
  CUDROP_SYMBOL(kind, p, stem), CUDROP_SYMBOL64(kind, p, stem), CUDROP_SYMBOL_WHEEL(kind, p, stem), \
      CUDROP_SYMBOL_WHEEL64(kind, p, stem),
#define CUDROP_ROUTINE(kind, stem, precisions, ...) \
  CUDROP_IF_UNDERNEATH(kind)(CUDROP_EACH_PRECISION(precisions, CUDROP_CPU_ENUMERATOR, kind, stem))
#include "routines.def"
#undef CUDROP_ROUTINE
#undef CUDROP_CPU_ENUMERATOR
  count
};
}  // namespace cpu

enum class RoutineKind { blas, lapack, cblas, ext, c, scalapack };

// The name an error handler gets, and its length (the Fortran interface passes it).
struct HandlerName {
  char text[24];  // NUL-terminated too: a longer name fails to compile (handler_name)
  size_t length;
};

// Reference Fortran routines give XERBLA their name in capitals, blank-padded to six characters
// ("SGEMM "); cudrop's own give the whole name ("CUDROP_SPOWER"); CBLAS routines, their symbol.
constexpr HandlerName handler_name(RoutineKind kind, const char *symbol) {
  HandlerName name{};
  size_t n = 0;
  for (; symbol[n] != '\0'; ++n) {
    const char c = symbol[n];
    name.text[n] = kind != RoutineKind::cblas && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  }
  if (kind == RoutineKind::cblas) {
    name.text[n] = '\0';
    name.length = n;
    return name;
  }
  if (n > 0 && name.text[n - 1] == '_') --n;
  while (n < 6) name.text[n++] = ' ';
  name.text[n] = '\0';
  name.length = n;
  return name;
}

struct RoutineNames {
  const char *symbol;   // the linker's name, also the label of a call in cudrop's log
  HandlerName handler;  // for the error handler (capi/report.h)
  cpu::Routine cpu;     // the same routine underneath; cpu::Routine::count if none
  cpu::Routine cpu64;   // the same with 64-bit integers (an ILP64 library's); count if none
  cpu::Routine cpu_wheel, cpu_wheel64;  // the same in the PyPI wheels' OpenBLAS; count if none
  // cblas: pairs of parameter numbers reference cblas_xerbla swaps for a row-major call, 0-ended
  int row_major_renumbering[8];
};

template <class T>
constexpr bool no_such_routine = false;

// routine_names<Family::getrf, float>: the names of sgetrf_. T is void for a routine of one
// precision (routine_names<Family::xerbla>).
template <Family F, class T = void>
inline constexpr RoutineNames routine_names = [] {
  static_assert(no_such_routine<T>, "routines.def has no such routine in this precision");
  return RoutineNames{};
}();

// The enumerator of a routine found underneath, or none (an empty argument list).
constexpr cpu::Routine cpu_routine_or_none(cpu::Routine routine) { return routine; }
constexpr cpu::Routine cpu_routine_or_none() { return cpu::Routine::count; }

#define CUDROP_NAMES(p, T, kind, stem, renumbering)                                                \
  template <>                                                                                      \
  inline constexpr RoutineNames routine_names<Family::CUDROP_FAMILY(kind, stem), T> = {            \
      CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem)),                                                 \
      handler_name(RoutineKind::kind, CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem))),                \
      cpu_routine_or_none(CUDROP_IF_UNDERNEATH(kind)(cpu::Routine::CUDROP_SYMBOL(kind, p, stem))),  \
      cpu_routine_or_none(CUDROP_IF_UNDERNEATH(kind)(cpu::Routine::CUDROP_SYMBOL64(kind, p, stem))), \
      cpu_routine_or_none(CUDROP_IF_UNDERNEATH(kind)(cpu::Routine::CUDROP_SYMBOL_WHEEL(kind, p, stem))), \
      cpu_routine_or_none(CUDROP_IF_UNDERNEATH(kind)(cpu::Routine::CUDROP_SYMBOL_WHEEL64(kind, p, stem))), \
      {CUDROP_UNPAREN renumbering}};
#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  CUDROP_EACH_PRECISION(precisions, CUDROP_NAMES, kind, stem, renumbering)
#include "routines.def"
#undef CUDROP_ROUTINE
#undef CUDROP_NAMES

// The symbol of row `family` in precision T at run time (a log line's label); null for a row
// without that precision.
template <class T>
const char *symbol_of(Family family) {
#define CUDROP_SYMBOL_OF(p, T_, kind, stem)                   \
  if constexpr (std::is_same_v<T, T_>)                        \
    if (family == Family::CUDROP_FAMILY(kind, stem)) return CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem));
#define CUDROP_ROUTINE(kind, stem, precisions, ...) CUDROP_EACH_PRECISION(precisions, CUDROP_SYMBOL_OF, kind, stem)
#include "routines.def"
#undef CUDROP_ROUTINE
#undef CUDROP_SYMBOL_OF
  return nullptr;
}

// Signature<F, T>::type: the C function type of row F's routine in precision T, its parameters
// as the row writes them with int sizes (I = P = int): how cudrop calls the routine underneath
// (cpu::Fn, cpu::routine) or ScaLAPACK's, and how capi's LP64 entry takes its arguments.
// Signature<F, T, int64_t>: the same routine of an ILP64 library (I = P = int64_t).
template <Family F, class T, class Index = int>
struct Signature {
  static_assert(no_such_routine<T>, "routines.def has no such routine underneath in this precision");
};
#define CUDROP_SIGNATURE(p, T_, kind, stem, parameters)            \
  template <class Index>                                            \
  struct Signature<Family::CUDROP_FAMILY(kind, stem), T_, Index> {  \
    using T = T_;                                                   \
    using I = Index;                                                \
    using P = Index;                                                \
    using type = void(*) parameters;                                \
  };
#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  CUDROP_IF_CPU_ROUTINE(kind)(CUDROP_EACH_PRECISION(precisions, CUDROP_SIGNATURE, kind, stem, parameters))
#include "routines.def"
#undef CUDROP_ROUTINE
#undef CUDROP_SIGNATURE

}  // namespace cudrop
