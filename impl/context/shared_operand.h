#pragma once
// An operand that every device of a call over several reads whole (GEMM's op(A) when C is split
// by columns, op(B) when by rows), read from the caller's memory once. The first device of the
// call, the leader, uploads it chunk by chunk as its own work reaches each chunk and posts the
// chunk; every other device, reaching the same chunk, waits for that post and copies the chunk
// from the leader's memory (peer to peer over NVLink or PCIe where the two devices reach each
// other, else staged by the driver) instead of reading the caller's array again. A chunk the
// leader will not post (its work ended, failed, or went a way that does not upload it) is read
// from the caller's array by the device that needs it: never a wait that cannot end.
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <vector>

#include "impl/context/chunk_board.h"
#include "impl/context/gpu_context.cuh"

namespace cudrop::impl {

// The board with the leader's events (one per chunk, made on the leader's device, the calling
// thread's current one at construction) and the copies. ok() false: no events could be made;
// then the call reads the operand once per device, as without sharing.
class SharedOperand {
 public:
  SharedOperand(GpuContext &leader, int chunks);
  ~SharedOperand();
  SharedOperand(const SharedOperand &) = delete;
  SharedOperand &operator=(const SharedOperand &) = delete;
  bool ok() const { return ok_; }
  GpuContext &leader() const { return leader_; }
  int chunks() const { return board_.chunks(); }
  // Chunk c (rows of row_bytes, cols columns at `host`, ld_bytes apart) onto ctx's device at
  // `dev`, ldd_bytes apart, on ctx.stream: the leader uploads it from the caller's array and
  // posts it; another device copies the leader's posted chunk, or uploads it from the caller's
  // array when none is posted.
  Status send(GpuContext &ctx, int c, const void *host, size_t ld_bytes, size_t row_bytes, size_t cols, void *dev,
              size_t ldd_bytes);
  // The leader's work on the operand has ended: nothing more will be posted.
  void close() { board_.close(); }
  // Bytes other devices copied from the leader's memory.
  unsigned long long forwarded_bytes() const { return forwarded_.load(); }

 private:
  GpuContext &leader_;
  ChunkBoard board_;
  std::vector<cudaEvent_t> ready_;
  bool ok_ = false;
  std::atomic<unsigned long long> forwarded_{0};
};

}  // namespace cudrop::impl
