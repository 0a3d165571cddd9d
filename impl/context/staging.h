#pragma once
// The one staging engine: every transfer between a caller's pageable array and the device goes
// through two pinned buffers in turn, so that the host copy of one piece overlaps the DMA of
// the other. Used by the matrix uploads and downloads (impl/context/gpu_context.cu) and by Cholesky's
// triangle transfers (impl/potrf/potrf_transfer.cuh); they differ only in how a piece is cut and
// copied.
#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>

#include "impl/context/gpu_context.cuh"

namespace cudrop::impl {

using StagingClock = std::chrono::steady_clock;

// Two staging buffers and, for each, the event recorded after the last DMA that used it.
struct StagingPair {
  void *const *buffer;
  const cudaEvent_t *free;
};
inline StagingPair calling_thread_staging(const GpuContext &ctx) { return {ctx.staging, ctx.staging_free}; }
inline StagingPair return_lane_staging(const GpuContext &ctx) { return {ctx.return_staging, ctx.return_free}; }

// One piece of an upload, through the context's staging buffer whose turn it is (the turn
// alternates across calls, so that a series of small uploads overlaps as one large one does):
// waits until the DMA that last read the buffer is done, then fill(stage, waited_from) copies
// the piece into it on the host (waited_from: when the wait began), dma(stage) -> cudaError_t
// enqueues its DMA on `stream`, and the buffer's event is recorded there.
template <class Fill, class Dma>
Status upload_staged_piece(GpuContext &ctx, cudaStream_t stream, const char *what, Fill &&fill, Dma &&dma) {
  const int buffer = ctx.staging_turn;
  ctx.staging_turn ^= 1;
  const StagingClock::time_point waited_from = StagingClock::now();
  if (Status s = check(cudaEventSynchronize(ctx.staging_free[buffer]), what); s != Status::ok) return s;
  fill(ctx.staging[buffer], waited_from);
  cudaError_t error = dma(ctx.staging[buffer]);
  if (error == cudaSuccess) error = cudaEventRecord(ctx.staging_free[buffer], stream);
  return check(error, what);
}

// A download of `pieces` pieces on `stream` through `pair`: dma(i, stage) -> cudaError_t
// enqueues piece i's DMA into stage (or elsewhere, not using it); copy_out(i, stage,
// waited_from) runs on the host once that DMA is done (waited_from: when the wait for it
// began). Piece i + 1's DMA is enqueued before piece i is copied out. A failure returns at
// once: pieces before it have been copied out, none after.
template <class Dma, class CopyOut>
Status download_staged(cudaStream_t stream, StagingPair pair, size_t pieces, const char *what, Dma &&dma,
                       CopyOut &&copy_out) {
  auto issue = [&](size_t i) {
    cudaError_t error = dma(i, pair.buffer[i % 2]);
    if (error == cudaSuccess) error = cudaEventRecord(pair.free[i % 2], stream);
    return check(error, what);
  };
  if (pieces == 0) return Status::ok;
  if (Status s = issue(0); s != Status::ok) return s;
  for (size_t i = 0; i < pieces; ++i) {
    if (i + 1 < pieces) {
      if (Status s = issue(i + 1); s != Status::ok) return s;
    }
    const StagingClock::time_point waited_from = StagingClock::now();
    if (Status s = check(cudaEventSynchronize(pair.free[i % 2]), what); s != Status::ok) return s;
    copy_out(i, pair.buffer[i % 2], waited_from);
  }
  return Status::ok;
}

}  // namespace cudrop::impl
