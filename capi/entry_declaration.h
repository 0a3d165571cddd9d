#pragma once
// capi::<routine><T>(parameters..., caller), the LP64 capi entry of a routines.def row, declared
// from the row (I, P: int) by the generated entries of capi/exports.cpp and capi/exports64.cpp.
#include "core/routines.h"

namespace cudrop::capi {
using I = int;
using P = int;
}  // namespace cudrop::capi

#define CUDROP_DECLARE_ENTRY(kind, stem, parameters)                             \
  namespace cudrop::capi {                                                       \
  template <class T>                                                             \
  void CUDROP_FAMILY(kind, stem)(CUDROP_UNPAREN parameters, const void *caller); \
  }
