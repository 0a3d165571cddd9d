#pragma once
// Whether this process can use a GPU; what every device interface of impl/ returns.
#include "core/status.h"

namespace cudrop::impl {

using cudrop::Status;

// Starts CUDA on first use (once, thread-safe). False when no device can be used; the
// reason is then in gpu_unusable_reason().
bool gpu_usable();
const char *gpu_unusable_reason();

}  // namespace cudrop::impl
