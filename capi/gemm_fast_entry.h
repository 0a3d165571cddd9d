#pragma once
// The small-call fast entry of sgemm_/dgemm_ (capi/gemm_fast_entry.cpp). The full path it
// falls back to, cudrop_[sd]gemm_full, is routines.def's generated entry (capi/exports.cpp).
#include <cstddef>

namespace cudrop::capi {
// Opens the fast entry for T once the full path has resolved the CPU routine (a no-op until
// then, and in gpu mode or with CUDROP_VERBOSE >= 2).
template <class T> void open_gemm_shortcut();
}  // namespace cudrop::capi
