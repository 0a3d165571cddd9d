// cudrop's own exported queries (routines.def rows of entry `own`).
#include "core/routines.h"
#include "impl/gpu.h"
#include "shim/dispatch.h"

CUDROP_EXPORT const char *cudrop_version(void) { return CUDROP_VERSION_STRING; }

// Starting CUDA builds strings and may throw (std::bad_alloc): no exception crosses the entry.
CUDROP_EXPORT int cudrop_gpu_available(void) {
  try {
    return cudrop::impl::gpu_usable() ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

CUDROP_EXPORT void cudrop_counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks) {
  cudrop::counters(gpu_calls, cpu_calls, gpu_fallbacks);
}
