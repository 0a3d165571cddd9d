#pragma once
// Workspace of a device routine that runs in stream order: the caller's when large enough,
// else memory of its own taken (cudaMallocAsync) and given back (cudaFreeAsync) on the same
// stream. An allocation failure is out_of_memory (test hook: CUDROP_TEST_FAULT_INJECT=alloc).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "impl/context/gpu_context.cuh"

namespace cudrop::impl {

// A workspace region's size rounded up to whole 256-byte lines, so that the next region starts on
// its own; saturating, as gemm_bytes is: a count near SIZE_MAX must not wrap to a small one
// (the allocation then fails and the call runs on the CPU).
constexpr size_t kScratchAlign = 256;
inline size_t scratch_region(size_t bytes) {
  return bytes > SIZE_MAX - kScratchAlign ? SIZE_MAX : (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
}

class StreamScratch {
 public:
  StreamScratch(cudaStream_t stream, const char *what) : stream_(stream), what_(what) {}
  StreamScratch(const StreamScratch &) = delete;
  StreamScratch &operator=(const StreamScratch &) = delete;
  ~StreamScratch() {
    if (owned_ != nullptr) cudaFreeAsync(owned_, stream_);
  }
  Status get(size_t bytes, void *workspace, size_t workspace_bytes, char **out) {
    if (workspace != nullptr && workspace_bytes >= bytes) {
      *out = static_cast<char *>(workspace);
      return Status::ok;
    }
    if (inject_fault("alloc")) return Status::out_of_memory;
    if (Status s = check(cudaMallocAsync(&owned_, std::max<size_t>(bytes, 1), stream_), what_); s != Status::ok) {
      owned_ = nullptr;
      return s;
    }
    *out = static_cast<char *>(owned_);
    return Status::ok;
  }

 private:
  cudaStream_t stream_;
  const char *what_;
  void *owned_ = nullptr;
};

}  // namespace cudrop::impl
