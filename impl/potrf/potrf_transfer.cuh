#pragma once
// Transfers of the caller's triangle to and from the device's lower layout, for the Cholesky
// host driver (impl/potrf/potrf_host.cu): staged in pieces through the context's two buffers.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <vector>

#include "impl/potrf/potrf_device.cuh"
#include "impl/context/staging.h"

namespace cudrop::impl::potrf {

// ---- transfers of one triangle ------------------------------------------------------------

// Host side of the staged transfers (CUDROP_POTRF_TRACE=3): time waiting for a staging buffer
// (upload: its last DMA; download: the DMA filling it), time copying between it and the
// caller's array (the pageable rate that bounds the transfer), and for the download the span
// from its first piece's issue to its last piece's copy (steady_clock, milliseconds).
struct TransferStats {
  double wait_ms = 0, copy_ms = 0, copy_max_ms = 0, bytes = 0;
  int pieces = 0;
  std::chrono::steady_clock::time_point first{}, last{};
  void add_copy(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1,
                std::chrono::steady_clock::time_point t2, double piece_bytes) {
    const double copy = std::chrono::duration<double, std::milli>(t2 - t1).count();
    wait_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    copy_ms += copy;
    copy_max_ms = std::max(copy_max_ms, copy);
    bytes += piece_bytes;
    ++pieces;
    last = t2;
  }
  void print(const char *what, std::chrono::steady_clock::time_point origin) const {
    auto since = [&](std::chrono::steady_clock::time_point t) {
      return pieces == 0 ? 0.0 : std::chrono::duration<double, std::milli>(t - origin).count();
    };
    std::fprintf(stderr,
                 "cudrop: potrf %s pieces=%d MB=%.1f wait_ms=%.2f copy_ms=%.2f copy_max_ms=%.2f copy_GBps=%.1f "
                 "from_ms=%.2f to_ms=%.2f\n",
                 what, pieces, bytes / 1e6, wait_ms, copy_ms, copy_max_ms, bytes / 1e6 / std::max(copy_ms, 1e-3),
                 since(first), since(last));
  }
};

// Sends the referenced triangle to the device in pieces, in column order of the lower
// layout: for 'L', column blocks (rows c0..n-1 of columns c0..c1-1); for 'U', row blocks
// (rows r0..r1-1 of columns r0..n-1), mirrored on the compute stream into lower columns
// r0..r1-1. After each piece, the compute stream waits for it: next() returns how many
// leading columns of the lower layout the compute stream may now use. The other triangle's
// entries inside a piece's diagonal block are read too (harmless) and land in device scratch.
template <class T>
class TriangleUpload {
 public:
  // lanes: the compute lanes that wait for each piece (stream[0] is ctx.compute).
  TriangleUpload(GpuContext &ctx, const Lanes &lanes, bool upper, int n, const T *a, int lda, T *dA, size_t ldd)
      : ctx_(ctx), lanes_(lanes), upper_(upper), n_(n), a_(a), lda_(size_t(lda)), dA_(dA), ldd_(ldd) {}
  bool done() const { return next_ >= n_; }
  const TransferStats &stats() const { return stats_; }

  Status next(int *arrived) {
    const size_t es = sizeof(T);
    const int first = next_;
    int last = first;
    const TrianglePiece p = upload_piece(upper_, n_, first, es, ctx_.staging_bytes, &last);
    const T *src = at(a_, lda_, p.r0, p.c0);
    T *dst = at(dA_, ldd_, p.r0, p.c0);
    cudaError_t error = cudaSuccess;
    if (p.direct) {
      // A single line longer than a staging buffer: let the driver stage it.
      error = cudaMemcpy2DAsync(dst, ldd_ * es, src, lda_ * es, p.rows * es, p.cols, cudaMemcpyHostToDevice,
                                ctx_.stream);
    } else {
      const Status s = upload_staged_piece(
          ctx_, ctx_.stream, "potrf upload",
          [&](void *stage, StagingClock::time_point waited_from) {
            if (stats_.pieces == 0) stats_.first = waited_from;
            const auto copy_from = StagingClock::now();
            copy_columns(ctx_.copier, stage, p.rows * es, src, lda_ * es, p.rows * es, p.cols);
            stats_.add_copy(waited_from, copy_from, StagingClock::now(), double(p.rows * p.cols * es));
          },
          [&](const void *stage) {
            return cudaMemcpy2DAsync(dst, ldd_ * es, stage, p.rows * es, p.rows * es, p.cols,
                                     cudaMemcpyHostToDevice, ctx_.stream);
          });
      if (s != Status::ok) return s;
    }
    if (error == cudaSuccess) error = cudaEventRecord(ctx_.panel_ready, ctx_.stream);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx_.compute, ctx_.panel_ready, 0);
    if (Status s = check(error, "potrf upload"); s != Status::ok) return s;
    if (upper_) {
      if (Status s = launch_mirror(true, dA_, ldd_, n_, first, last, ctx_.compute); s != Status::ok) return s;
    }
    if (Status s = lanes_.wait_for(0, lanes_.stream[1]); s != Status::ok) return s;  // the piece, mirrored
    next_ = last;
    *arrived = last;
    return Status::ok;
  }

 private:
  GpuContext &ctx_;
  const Lanes &lanes_;
  const bool upper_;
  const int n_;
  const T *a_;
  const size_t lda_;
  T *dA_;
  const size_t ldd_;
  int next_ = 0;
  TransferStats stats_;
};

// Device -> caller's array for the triangle's columns c0..c1-1 (download_pieces in
// impl/potrf/potrf_plan.h; for 'U' the device's upper triangle must hold the mirror of lower rows
// c0..c1-1 up to their diagonal); no other element of the caller's array is written.
// Runs on `stream`. Pieces go through the two staging buffers (the DMA of the next overlaps
// the host copy of this one). *written: columns c0..*written-1 are in the caller's array,
// also when a piece fails part way (a piece is written only once its DMA has succeeded).
// stats (may be null): adds this download's host side.
template <class T>
Status download_factored(GpuContext &ctx, cudaStream_t stream, bool upper, int n, int c0, int c1, const T *dA,
                         size_t ldd, T *a, size_t lda, int *written, TransferStats *stats = nullptr) {
  const size_t es = sizeof(T);
  // Earlier columns may be in the caller's array already: a failure here must be a Status.
  std::vector<TrianglePiece> pieces;
  try {
    pieces = download_pieces(upper, n, c0, c1, es, ctx.staging_bytes);
  } catch (const std::bad_alloc &) {
    return Status::out_of_memory;
  }
  if (pieces.empty()) return Status::ok;
  if (stats != nullptr && stats->pieces == 0) stats->first = StagingClock::now();
  return download_staged(
      stream, calling_thread_staging(ctx), pieces.size(), "potrf download",
      [&](size_t i, void *stage) {
        const TrianglePiece &p = pieces[i];
        if (!p.direct)
          return cudaMemcpy2DAsync(stage, p.rows * es, at(dA, ldd, p.r0, p.c0), ldd * es, p.rows * es, p.cols,
                                   cudaMemcpyDeviceToHost, stream);
        // A column longer than a staging buffer: straight into the caller's array, column by
        // column, exactly the piece's part.
        cudaError_t error = cudaSuccess;
        for (int j = p.c0; j < p.c0 + int(p.cols) && error == cudaSuccess; ++j) {
          int r0 = 0, r1 = 0;
          triangle_rows(upper, n, j, &r0, &r1);
          error = cudaMemcpyAsync(at(a, lda, r0, j), at(dA, ldd, r0, j), size_t(r1 - r0) * es,
                                  cudaMemcpyDeviceToHost, stream);
        }
        return error;
      },
      [&](size_t i, const void *stage, StagingClock::time_point waited_from) {
        const TrianglePiece &p = pieces[i];
        const auto copy_from = StagingClock::now();
        if (!p.direct) {
          copy_piece_out(upper, n, p, static_cast<const T *>(stage), a, lda, kTriangleCopyCols,
                         [&](void *dst, size_t dst_ld, const void *src, size_t src_ld, size_t row_bytes, size_t cols) {
                           copy_columns(ctx.copier, dst, dst_ld, src, src_ld, row_bytes, cols);
                         });
        }
        if (stats != nullptr) stats->add_copy(waited_from, copy_from, StagingClock::now(), double(p.rows * p.cols * es));
        *written = p.c0 + static_cast<int>(p.cols);
      });
}

}  // namespace cudrop::impl::potrf
