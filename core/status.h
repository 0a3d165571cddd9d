#pragma once
// What a GPU attempt reports back; only the dispatch layer turns it into a CPU fallback.
namespace cudrop {

enum class Status {
  ok,
  no_device,      // no driver, no GPU, or CUDA could not start
  out_of_memory,  // device or pinned allocation failed: this call falls back, later ones retry
  cuda_error,     // a CUDA call or launch failed: the GPU is not used again by this process
  // Not a failure: the inputs need the CPU routine's exact handling: Inf or NaN where the
  // reference skips zero entries (TRMM, TRSM, SYRK and the like: its answer depends on which
  // products it leaves out), or values the reference scales (QR: xNRM2, xLARFG, xGELS); the
  // CPU routine computes the call, and nothing of the caller's was written.
  special_values,
};

inline const char *status_text(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::no_device: return "no usable GPU";
    case Status::out_of_memory: return "GPU memory allocation failed";
    case Status::cuda_error: return "CUDA error";
    case Status::special_values: return "values the CPU routine handles (Inf or NaN, or scaling)";
  }
  return "?";
}

}  // namespace cudrop
