#pragma once
// Whether this process can use a GPU; what every device interface of impl/ returns.
#include "core/status.h"

namespace cudrop::impl {

using cudrop::Status;

// Starts CUDA on first use (once, thread-safe). False when no device can be used; the
// reason is then in gpu_unusable_reason().
bool gpu_usable();
const char *gpu_unusable_reason();
// Whether CUDA's start is under way in the background, without waiting for it: the first call
// (none yet has started it) begins it, in a thread that does the driver's part, and returns
// true. False once the start is done or cannot happen (gpu_usable() then answers at once or
// does the rest).
bool gpu_starting();
// Whether the calling thread holds the GPU lease (GpuLease): a BLAS call that a CPU routine run
// under the lease makes back into cudrop (an eigensolver's leaf xSTEDC calling DGEMM through the
// dynamic linker) must stay on the CPU, since the lease is not re-entrant.
bool gpu_lease_held_here();

}  // namespace cudrop::impl
