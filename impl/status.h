#pragma once
// What the GPU layer reports back; only the dispatch layer turns it into a CPU fallback.
namespace cudrop::impl {

enum class Status {
  ok,
  no_device,      // no driver, no GPU, or CUDA could not start
  out_of_memory,  // device or pinned allocation failed: this call falls back, later ones retry
  cuda_error,     // a CUDA call or launch failed: the GPU is not used again by this process
};

const char *status_text(Status status);

// Starts CUDA on first use (once, thread-safe). False when no device can be used; the
// reason is then in gpu_unusable_reason().
bool gpu_usable();
const char *gpu_unusable_reason();

}  // namespace cudrop::impl
