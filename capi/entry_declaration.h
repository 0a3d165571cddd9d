#pragma once
// capi::<routine><T>(parameters..., caller), the LP64 capi entry of a routines.def row, declared
// from the row (I, P: int) by the generated entries of capi/exports.cpp and capi/exports64.cpp.
#include <type_traits>

#include "core/routines.h"

namespace cudrop::capi {
using I = int;
using P = int;

// The type of row F's LP64 capi entry in precision T: the routine's parameters with int sizes,
// then the caller. Names one overload where a stem's rows differ by precision (precisions
// czown: capi::gesdd<T> of the s and d row and of the c and z row).
template <class Fn>
struct WithCaller;
template <class... A>
struct WithCaller<void (*)(A...)> {
  using type = void (*)(A..., const void *);
};
template <Family F, class T>
using Entry = typename WithCaller<typename Signature<F, T, int>::type>::type;
}  // namespace cudrop::capi

#define CUDROP_DECLARE_ENTRY(kind, stem, parameters)                             \
  namespace cudrop::capi {                                                       \
  template <class T>                                                             \
  void CUDROP_FAMILY(kind, stem)(CUDROP_UNPAREN parameters, const void *caller); \
  }
