// Cholesky on the GPU (spotrf_/dpotrf_). The device interface runs the blocked algorithm of
// impl/potrf_plan.h on a lower triangle: panel kernels (kernels/potrf_panel.cuh) and
// trailing-update GEMMs (impl::gemm_device, lower part only). The host interface streams the caller's
// triangle in (the first columns are factored while the rest is still in transfer),
// maps UPLO='U' onto the lower algorithm by mirroring the triangle on the device (U = L^T),
// and writes back only the referenced triangle: each outer panel as soon as it is final
// and its INFO is known to be 0 (while the GPU factors the columns to its right), the rest
// once the GPU has finished.
#include "impl/potrf.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "impl/gemm.h"
#include "impl/gpu_context.cuh"
#include "impl/panel_sender.h"
#include "impl/potrf_plan.h"
#include "kernels/potrf_panel.cuh"
#include "shim/cpu_backend.h"
#include "shim/dispatch.h"

namespace cudrop::impl {
namespace {

using PanelShape = kernels::PotrfPanelShape<float>;
static_assert(PanelShape::NB == kPotrfNb, "the panel kernel's block is the reference's NB");
static_assert(kernels::PotrfPanelShape<double>::NB == kPotrfNb, "the panel kernel's block is the reference's NB");

// Device copies are packed with columns padded to 128 bytes (as impl/gemm.cu does).
size_t padded_ld(size_t rows, size_t element_size) {
  const size_t per_line = 128 / element_size;
  return (rows + per_line - 1) / per_line * per_line;
}

// Below this order the whole matrix is sent before the factorization starts (the transfer
// is too short to be worth overlapping); from it on, the first columns (host_blocking) are
// factored left-looking while the rest arrives (CUDROP_POTRF_LEFT_COLS overrides the count).
constexpr int kStreamMinN = 4096;
// Host-side copy granularity of the triangle's diagonal part (serial memcpy per column).
constexpr int kTriangleCopyCols = 256;
// Outer panels whose INFO may still be unknown while the host issues more work.
constexpr int kPollLag = 2, kPollRing = 4;

// Blocking shared by the device and host interfaces. Tuning runs: CUDROP_POTRF_OUTER sets the
// outer panel width (the k of the big trailing GEMMs), CUDROP_POTRF_LOOKAHEAD=0 turns the
// look-ahead off.
PotrfBlocking base_blocking() {
  PotrfBlocking b;
  const env::Environment &e = env::environment();
  if (e.potrf_outer > 0) b.outer = e.potrf_outer;
  b.lookahead = e.potrf_lookahead;
  return b;
}

PotrfBlocking host_blocking(int n, size_t elem_size) {
  PotrfBlocking b = base_blocking();
  const env::Environment &e = env::environment();
  if (e.potrf_strip > 0) b.strip = e.potrf_strip;
  if (e.potrf_left_cols >= 0) b.left_cols = std::min(e.potrf_left_cols, n);
  // The left-looking phase runs while the rest of the matrix arrives, so it spans more columns
  // where the upload takes longer: a quarter in float, half in double. In float the width
  // hardly matters; in double n/2 hides more of the upload (docs/perf/2026-11-22-h100-session10.md).
  else b.left_cols = n >= kStreamMinN ? static_cast<int>(size_t(n) * elem_size / 16) : 0;
  return b;
}

int sm_count() {
  static const int count = [] {
    int device = 0, value = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
      cudaGetLastError();
      return 132;
    }
    return value;
  }();
  return count;
}

// Pinned words the host polls INFO through, and their events; the panel lane (a stream of
// the highest priority, so that its small kernels get SMs ahead of the big update's queued
// blocks) and an event per lane for cross-lane waits. Made once, used under the lease.
struct PollResources {
  int *words = nullptr;  // kPollRing ring slots + one for the final read
  cudaEvent_t done[kPollRing] = {};
  cudaStream_t panel_lane = nullptr;
  cudaEvent_t lane_tail[2] = {};
  cudaStream_t download_lane = nullptr;  // finished panels going back, from the sender thread
  cudaEvent_t uploaded = nullptr;        // the last upload DMA has read its staging buffer
};

Status poll_resources(PollResources **out) {
  static PollResources r;
  static bool ready = false;
  if (!ready) {
    cudaError_t error = cudaHostAlloc(reinterpret_cast<void **>(&r.words), (kPollRing + 1) * sizeof(int),
                                      cudaHostAllocDefault);
    for (int i = 0; i < kPollRing && error == cudaSuccess; ++i)
      error = cudaEventCreateWithFlags(&r.done[i], cudaEventDisableTiming);
    for (int i = 0; i < 2 && error == cudaSuccess; ++i)
      error = cudaEventCreateWithFlags(&r.lane_tail[i], cudaEventDisableTiming);
    int least = 0, greatest = 0;
    if (error == cudaSuccess) error = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (error == cudaSuccess) error = cudaStreamCreateWithPriority(&r.panel_lane, cudaStreamNonBlocking, greatest);
    if (error == cudaSuccess) error = cudaStreamCreateWithFlags(&r.download_lane, cudaStreamNonBlocking);
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&r.uploaded, cudaEventDisableTiming);
    if (Status s = check(error, "potrf setup"); s != Status::ok) return s;
    ready = true;
  }
  *out = &r;
  return Status::ok;
}

template <class T>
T *at(T *a, size_t ld, long long row, long long col) {
  return a + size_t(row) + size_t(col) * ld;
}

// ---- device steps -----------------------------------------------------------------------

template <class T>
Status launch_panel(T *dA, size_t ldd, int n, int j0, int *d_info, unsigned *d_finished,
                    cudaStream_t stream) {
  using S = kernels::PotrfPanelShape<T>;
  const long long rows = (long long)n - j0 - std::min(S::NB, n - j0);
  const long long chunks = (rows + S::ROWS - 1) / S::ROWS;
  // Enough blocks to cover the panel in about one wave; each factors the diagonal block once.
  const int blocks = static_cast<int>(std::max(1LL, std::min(chunks, 4LL * sm_count())));
  kernels::potrf_panel<T, S><<<blocks, S::THREADS, 0, stream>>>(dA, ldd, n, j0, d_info, d_finished);
  return check(cudaGetLastError(), "potrf panel kernel launch");
}

template <class T>
Status launch_mirror(bool to_lower, T *dA, size_t ldd, int n, int c0, int c1, cudaStream_t stream) {
  constexpr long long kTile = 32, kMaxSlab = 65535 * kTile;  // gridDim.y <= 65535
  for (long long s0 = c0; s0 < c1; s0 += kMaxSlab) {
    const int s1 = static_cast<int>(std::min<long long>(c1, s0 + kMaxSlab));
    const dim3 block(32, 8);
    const dim3 grid(static_cast<unsigned>((n - s0 + kTile - 1) / kTile),
                    static_cast<unsigned>((s1 - s0 + kTile - 1) / kTile));
    if (to_lower) kernels::potrf_mirror<T, true><<<grid, block, 0, stream>>>(dA, ldd, n, int(s0), s1);
    else kernels::potrf_mirror<T, false><<<grid, block, 0, stream>>>(dA, ldd, n, int(s0), s1);
    if (Status s = check(cudaGetLastError(), "potrf mirror kernel launch"); s != Status::ok) return s;
  }
  return Status::ok;
}

// The two lanes of potrf_schedule's steps: 0 = the update lane, 1 = the panel lane.
struct Lanes {
  cudaStream_t stream[2];
  cudaEvent_t tail[2];
  // `waiter` waits for everything issued on `lane` so far.
  Status wait_for(int lane, cudaStream_t waiter) const {
    cudaError_t error = cudaEventRecord(tail[lane], stream[lane]);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(waiter, tail[lane], 0);
    return check(error, "potrf lanes");
  }
};

template <class T>
Status run_step(const PotrfStep &step, T *dA, size_t ldd, int n, int *d_info, unsigned *d_finished,
                cudaStream_t stream);

// Issues a step on its lane, after the other lane's work so far when the step says so.
template <class T>
Status issue_step(const PotrfStep &step, const Lanes &lanes, T *dA, size_t ldd, int n, int *d_info,
                  unsigned *d_finished) {
  if (step.wait_other) {
    if (Status s = lanes.wait_for(1 - step.lane, lanes.stream[step.lane]); s != Status::ok) return s;
  }
  return run_step(step, dA, ldd, n, d_info, d_finished, lanes.stream[step.lane]);
}

template <class T>
Status run_step(const PotrfStep &step, T *dA, size_t ldd, int n, int *d_info, unsigned *d_finished,
                cudaStream_t stream) {
  if (step.kind == PotrfStep::Panel) return launch_panel(dA, ldd, n, step.c0, d_info, d_finished, stream);
  // A(c0:n, c0:c1) -= A(c0:n, k0:k1) * A(c0:c1, k0:k1)^T
  const T *source = at<T>(dA, ldd, step.c0, step.k0);
  // Only the target's part on and below its diagonal is needed (the rest is the scratch upper
  // triangle), so the kernel may skip the tiles above it.
  return gemm_device<T>(false, true, n - step.c0, step.c1 - step.c0, step.k1 - step.k0, T(-1), source, ldd,
                        source, ldd, T(1), at<T>(dA, ldd, step.c0, step.c0), ldd, stream, /*lower_only=*/true);
}

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
      // The DMA that last read this staging buffer must be finished before we refill it.
      const auto t0 = std::chrono::steady_clock::now();
      if (stats_.pieces == 0) stats_.first = t0;
      if (Status s = check(cudaEventSynchronize(ctx_.staging_free[buffer_]), "potrf upload"); s != Status::ok) return s;
      const auto t1 = std::chrono::steady_clock::now();
      void *stage = ctx_.staging[buffer_];
      copy_columns(ctx_.copier, stage, p.rows * es, src, lda_ * es, p.rows * es, p.cols);
      stats_.add_copy(t0, t1, std::chrono::steady_clock::now(), double(p.rows * p.cols * es));
      error = cudaMemcpy2DAsync(dst, ldd_ * es, stage, p.rows * es, p.rows * es, p.cols, cudaMemcpyHostToDevice,
                                ctx_.stream);
      if (error == cudaSuccess) error = cudaEventRecord(ctx_.staging_free[buffer_], ctx_.stream);
      buffer_ ^= 1;
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
  int next_ = 0, buffer_ = 0;
  TransferStats stats_;
};

// Device -> caller's array for the triangle's columns c0..c1-1 (download_pieces in
// impl/potrf_plan.h; for 'U' the device's upper triangle must hold the mirror of lower rows
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
  auto issue = [&](size_t i) {
    const TrianglePiece &p = pieces[i];
    cudaError_t error = cudaSuccess;
    if (p.direct) {
      // A column longer than a staging buffer: straight into the caller's array, column by
      // column, exactly the piece's part.
      for (int j = p.c0; j < p.c0 + int(p.cols) && error == cudaSuccess; ++j) {
        int r0 = 0, r1 = 0;
        triangle_rows(upper, n, j, &r0, &r1);
        error = cudaMemcpyAsync(at(a, lda, r0, j), at(dA, ldd, r0, j), size_t(r1 - r0) * es,
                                cudaMemcpyDeviceToHost, stream);
      }
    } else {
      error = cudaMemcpy2DAsync(ctx.staging[i % 2], p.rows * es, at(dA, ldd, p.r0, p.c0), ldd * es, p.rows * es,
                                p.cols, cudaMemcpyDeviceToHost, stream);
    }
    if (error == cudaSuccess) error = cudaEventRecord(ctx.staging_free[i % 2], stream);
    return check(error, "potrf download");
  };
  auto copy = [&](void *dst, size_t dst_ld, const void *src, size_t src_ld, size_t row_bytes, size_t cols) {
    copy_columns(ctx.copier, dst, dst_ld, src, src_ld, row_bytes, cols);
  };
  if (pieces.empty()) return Status::ok;
  if (stats != nullptr && stats->pieces == 0) stats->first = std::chrono::steady_clock::now();
  if (Status s = issue(0); s != Status::ok) return s;
  for (size_t i = 0; i < pieces.size(); ++i) {
    // The next piece's DMA goes into the other buffer while this one is copied out.
    if (i + 1 < pieces.size()) {
      if (Status s = issue(i + 1); s != Status::ok) return s;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (Status s = check(cudaEventSynchronize(ctx.staging_free[i % 2]), "potrf download"); s != Status::ok) return s;
    const auto t1 = std::chrono::steady_clock::now();
    if (!pieces[i].direct)
      copy_piece_out(upper, n, pieces[i], static_cast<const T *>(ctx.staging[i % 2]), a, lda, kTriangleCopyCols, copy);
    if (stats != nullptr)
      stats->add_copy(t0, t1, std::chrono::steady_clock::now(), double(pieces[i].rows * pieces[i].cols * es));
    *written = pieces[i].c0 + static_cast<int>(pieces[i].cols);
  }
  return Status::ok;
}

// Looks at the INFO words of the outer panels that have finished. blocking: first wait
// until at most kPollLag outer panels are still running (the host must not run further
// ahead while it has nothing else to do, or a failure early on would be noticed only after
// every later panel's GEMMs had run on garbage).
Status poll_info(PollResources &r, int recorded, bool blocking, int *failed) {
  if (blocking && recorded > kPollLag) {
    const int slot = (recorded - 1 - kPollLag) % kPollRing;
    if (Status s = check(cudaEventSynchronize(r.done[slot]), "potrf poll"); s != Status::ok) return s;
  }
  for (int slot = 0; slot < kPollRing && slot < recorded; ++slot) {
    const cudaError_t state = cudaEventQuery(r.done[slot]);
    if (state == cudaErrorNotReady) {
      cudaGetLastError();  // not an error: only a panel still running
      continue;
    }
    if (Status s = check(state, "potrf poll"); s != Status::ok) return s;
    const int value = reinterpret_cast<volatile int *>(r.words)[slot];
    if (value != 0) *failed = value;
  }
  return Status::ok;
}

// CUDROP_POTRF_TRACE=1: one line per host call on stderr with the host-side phase times
// (when the upload ended, the last step was issued, the GPU finished, the call returned) and
// how many columns went back before the GPU finished: where an end-to-end time goes.
// CUDROP_POTRF_TRACE=2 adds the GPU timeline: per outer panel, when its last step was issued
// and when it finished on the GPU, and the GPU time of panel kernels and GEMMs in it (events
// after every step; the events themselves cost a little). CUDROP_POTRF_TRACE=3 adds a line on
// the upload's host side (UploadStats).
struct PhaseTrace {
  const int level = env::environment().potrf_trace;
  const bool on = level > 0;
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double upload_ms = -1, issued_ms = -1, gpu_ms = -1;
  struct Mark {
    cudaEvent_t done;
    double issued_ms;
    int arrived;
    const PotrfStep *step;
  };
  cudaEvent_t origin = nullptr;
  std::vector<Mark> marks;
  double now_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  void begin(cudaStream_t stream) {
    if (level < 2 || cudaEventCreate(&origin) != cudaSuccess) return;
    cudaEventRecord(origin, stream);
  }
  void step_issued(const PotrfStep &step, cudaStream_t stream, int arrived) {
    if (origin == nullptr) return;
    Mark m{nullptr, now_ms(), arrived, &step};
    if (cudaEventCreate(&m.done) != cudaSuccess) return;
    try {  // a trace must not fail the call
      if (cudaEventRecord(m.done, stream) == cudaSuccess) marks.push_back(m);
      else cudaEventDestroy(m.done);
    } catch (const std::bad_alloc &) {
      cudaEventDestroy(m.done);
    }
  }
  ~PhaseTrace() {
    for (Mark &m : marks) cudaEventDestroy(m.done);
    if (origin != nullptr) cudaEventDestroy(origin);
  }
  void report(int n, bool upper, int early_cols) const {
    if (!on) return;
    std::fprintf(stderr,
                 "cudrop: potrf trace n=%d uplo=%c upload_done_ms=%.2f issued_ms=%.2f gpu_done_ms=%.2f "
                 "total_ms=%.2f early_cols=%d\n",
                 n, upper ? 'U' : 'L', upload_ms, issued_ms, gpu_ms, now_ms(), early_cols);
    if (origin == nullptr) return;
    // Per group of steps ending at a group_end: its GPU end time, and the time of its panel
    // kernels and GEMMs, each step counted as its end minus the previous end on its lane (so
    // time a lane spent waiting for the upload or the other lane is counted in too).
    float last_end[2] = {0, 0};
    double panel_ms = 0, gemm_ms = 0;
    int steps = 0, group_c0 = -1;  // group_c0: the group's first panel
    for (const Mark &m : marks) {
      float end = 0;
      if (cudaEventElapsedTime(&end, origin, m.done) != cudaSuccess) return;
      const int lane = m.step->lane;
      const float took = end - last_end[lane];
      last_end[lane] = end;
      (m.step->kind == PotrfStep::Panel ? panel_ms : gemm_ms) += took;
      if (m.step->kind == PotrfStep::Panel && group_c0 < 0) group_c0 = m.step->c0;
      ++steps;
      if (m.step->group_end) {
        std::fprintf(stderr,
                     "cudrop: potrf timeline cols=%d..%d issued_ms=%.2f arrived=%d gpu_end_ms=%.2f lane=%d "
                     "steps=%d panel_ms=%.2f update_ms=%.2f\n",
                     group_c0, m.step->c1, m.issued_ms, m.arrived, end, lane, steps, panel_ms, gemm_ms);
        panel_ms = gemm_ms = 0;
        group_c0 = -1;
        steps = 0;
      } else if (m.step->kind == PotrfStep::Update && m.step->k0 == 0 && m.step->c0 > m.step->k1) {
        // Columns brought up to date by all of 0..k-1 at once (the catch-up after the
        // left-looking phase).
        std::fprintf(stderr, "cudrop: potrf timeline update-from-0 cols=%d..%d k=%d issued_ms=%.2f arrived=%d gpu_end_ms=%.2f took=%.2f\n",
                     m.step->c0, m.step->c1, m.step->k1, m.issued_ms, m.arrived, end, took);
        gemm_ms = 0;
        steps = 0;
      }
    }
  }
};

// How far the factorization is known to be finished and sound: the end column of the newest
// outer panel (of the last kPollRing recorded) whose INFO word has arrived as 0 (INFO is
// sticky, so it vouches for every earlier panel too); 0 and group -1 when none has.
Status finished_columns(PollResources &r, const std::vector<int> &group_end_col, int *columns, int *group) {
  *columns = 0;
  *group = -1;
  const int recorded = static_cast<int>(group_end_col.size());
  for (int d = recorded - 1; d >= 0 && d >= recorded - kPollRing; --d) {
    const cudaError_t state = cudaEventQuery(r.done[d % kPollRing]);
    if (state == cudaErrorNotReady) {
      cudaGetLastError();  // not an error: that panel is still running
      continue;
    }
    if (Status s = check(state, "potrf poll"); s != Status::ok) return s;
    if (reinterpret_cast<volatile int *>(r.words)[d % kPollRing] == 0) {
      *columns = group_end_col[size_t(d)];
      *group = d;
    }
    return Status::ok;
  }
  return Status::ok;
}

}  // namespace

template <class T>
Status potrf_device(int n, T *dA, size_t ldda, int *d_work, void *stream_ptr) {
  if (inject_fault("launch")) return Status::cuda_error;
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (Status s = check(cudaMemsetAsync(d_work, 0, 2 * sizeof(int), stream), "potrf"); s != Status::ok) return s;
  auto *finished = reinterpret_cast<unsigned *>(d_work + 1);
  PollResources *r = nullptr;
  if (Status s = poll_resources(&r); s != Status::ok) return s;
  const Lanes lanes{{stream, r->panel_lane}, {r->lane_tail[0], r->lane_tail[1]}};
  for (const PotrfStep &step : potrf_schedule(n, base_blocking())) {
    if (Status s = issue_step(step, lanes, dA, ldda, n, d_work, finished); s != Status::ok) return s;
  }
  return lanes.wait_for(1, stream);  // the caller's stream sees the whole factorization
}

// What the caller's array already holds of the factor when a GPU attempt stops: the triangle's
// columns 0..columns-1, and ('U') rows 0..columns-1 of the next u12_columns columns too.
struct HostProgress {
  int columns = 0;
  int u12_columns = 0;
};

// Test hook: CUDROP_FAULT_INJECT=potrf-step:N makes the N-th step (1-based) of every GPU
// Cholesky fail, after earlier panels may have gone back: the CPU must finish the call.
bool inject_step_fault(size_t index) {
  const env::Environment &e = env::environment();
  return e.fault == env::Fault::potrf_step && long(index) + 1 == e.fault_from;
}

template <class T>
Status potrf_host_gpu(bool upper, int n, T *a, int lda, int *info, HostProgress *progress) {
  if (inject_fault("launch")) return Status::cuda_error;
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);
  PollResources *poll = nullptr;
  void *d_matrix = nullptr;
  Status s = Status::ok;
  if ((s = poll_resources(&poll)) != Status::ok) return s;
  // One allocation: the matrix, then INFO and the panel kernel's counter. (A second slot
  // could be freed again by device_buffer's release-everything retry of the first.)
  const size_t matrix_bytes = (ldd * size_t(n) * es + 255) / 256 * 256;
  if ((s = device_buffer(ctx, Slot::a, matrix_bytes + 256, &d_matrix)) != Status::ok) return s;
  T *dA = static_cast<T *>(d_matrix);
  int *d_info = reinterpret_cast<int *>(static_cast<char *>(d_matrix) + matrix_bytes);
  auto *d_finished = reinterpret_cast<unsigned *>(d_info + 1);
  for (int i = 0; i <= kPollRing; ++i) poll->words[i] = 0;  // nothing of ours is in flight
  if ((s = check(cudaMemsetAsync(d_info, 0, 2 * sizeof(int), ctx.compute), "potrf")) != Status::ok) return s;

  const Lanes lanes{{ctx.compute, poll->panel_lane}, {poll->lane_tail[0], poll->lane_tail[1]}};
  PhaseTrace trace;
  // On a failure, what is queued on the GPU drains before the lease is given up (it only
  // touches device and pinned memory, but the next call reuses both). Declared before the
  // sender, so that the sender's thread has stopped first.
  struct DrainOnFailure {
    const Status &status;
    GpuContext &ctx;
    PollResources &poll;
    ~DrainOnFailure() {
      if (status == Status::ok) return;
      for (cudaStream_t stream : {ctx.compute, ctx.stream, poll.panel_lane, poll.download_lane}) cudaStreamSynchronize(stream);
      cudaGetLastError();
    }
  } drain{s, ctx, *poll};
  // Finished outer panels go back while the GPU works on the columns to their right (once the
  // upload is over: the sender uses the staging buffers). 'U': the mirror runs beside the
  // trailing updates; it writes upper rows c0..c1-1 (of every column right of them), which no
  // later step reads or writes, and with the rows mirrored before, upper columns c0..c1-1 are
  // whole.
  TransferStats sent_stats;  // the sender's downloads (its thread writes them until finish())
  PanelSender sender(ctx.device, [&](int c0, int c1, int *written) -> Status {
    if (upper) {
      if (Status st = launch_mirror(false, dA, ldd, n, c0, c1, poll->download_lane); st != Status::ok) return st;
    }
    return download_factored(ctx, poll->download_lane, upper, n, c0, c1, dA, ldd, a, size_t(lda), written,
                             &sent_stats);
  });
  int submitted = 0;  // columns handed to the sender

  // Issues the steps in order; each waits for the columns it needs, sending more of the
  // matrix when they have not been sent yet. INFO is looked at between outer panels.
  const std::vector<PotrfStep> steps = potrf_schedule(n, host_blocking(n, es));
  auto factor = [&]() -> Status {
    TriangleUpload<T> upload(ctx, lanes, upper, n, a, lda, dA, ldd);
    trace.begin(ctx.compute);
    int arrived = 0, recorded = 0, failed = 0;
    std::vector<int> group_end_col;
    group_end_col.reserve(steps.size());  // now, before the sender writes any of the caller's A
    // Hands the sender the outer panels known to be finished with INFO 0 since the last call.
    auto send_finished = [&]() -> Status {
      int columns = 0, group = -1;
      if (Status st = finished_columns(*poll, group_end_col, &columns, &group); st != Status::ok) return st;
      if (columns <= submitted) return Status::ok;
      if (submitted == 0) {
        // The sender's DMAs refill the staging buffers the upload's last DMAs read from.
        cudaError_t error = cudaEventRecord(poll->uploaded, ctx.stream);
        if (error == cudaSuccess) error = cudaStreamWaitEvent(poll->download_lane, poll->uploaded, 0);
        if (Status st = check(error, "potrf download"); st != Status::ok) return st;
      }
      sender.submit(submitted, columns);
      submitted = columns;
      return Status::ok;
    };
    for (size_t i = 0; i < steps.size() && failed == 0; ++i) {
      const PotrfStep &step = steps[i];
      Status st = Status::ok;
      while (arrived < step.needs) {
        if ((st = upload.next(&arrived)) != Status::ok) return st;
        if (upload.done()) trace.upload_ms = trace.now_ms();
      }
      if (i > 0 && steps[i - 1].group_end) {
        // While pieces are still to be sent, the host must not block on the GPU.
        if ((st = poll_info(*poll, recorded, upload.done(), &failed)) != Status::ok) return st;
        if (failed != 0) break;
      }
      if (inject_step_fault(i)) return Status::cuda_error;
      if ((st = issue_step(step, lanes, dA, ldd, n, d_info, d_finished)) != Status::ok) return st;
      trace.step_issued(step, lanes.stream[step.lane], arrived);
      if (i > 0 && steps[i - 1].group_end && upload.done()) {
        if ((st = send_finished()) != Status::ok) return st;
      }
      if (step.group_end) {
        const int slot = recorded % kPollRing;
        cudaStream_t lane = lanes.stream[step.lane];
        cudaError_t error = cudaMemcpyAsync(poll->words + slot, d_info, sizeof(int), cudaMemcpyDeviceToHost, lane);
        if (error == cudaSuccess) error = cudaEventRecord(poll->done[slot], lane);
        if ((st = check(error, "potrf poll")) != Status::ok) return st;
        ++recorded;
        group_end_col.push_back(step.c1);
      }
    }
    trace.issued_ms = trace.now_ms();
    if (trace.level >= 3) upload.stats().print("upload", trace.start);
    // Everything is issued: the last outer panels go back one by one as the GPU finishes them,
    // so that only the last one is left to copy when the GPU is done; sent all at the end, they
    // would be a copy on the critical path (docs/perf/2026-11-22-h100-session11.md).
    if (failed == 0 && upload.done()) {
      for (int d = std::max(0, recorded - kPollRing); d < recorded; ++d) {
        if (Status st = check(cudaEventSynchronize(poll->done[d % kPollRing]), "potrf poll"); st != Status::ok) return st;
        if (Status st = send_finished(); st != Status::ok) return st;
      }
    }
    return Status::ok;
  };
  s = factor();
  int sent = 0;
  const Status sent_status = sender.finish(&sent);
  progress->columns = sent;
  if (s == Status::ok) s = sent_status;
  if (s != Status::ok) return s;
  const int downloaded = sent;  // == submitted

  // The final verdict, once everything issued has run (uploads included).
  int *final_word = poll->words + kPollRing;
  if ((s = lanes.wait_for(1, ctx.compute)) != Status::ok) return s;
  cudaError_t error = cudaMemcpyAsync(final_word, d_info, sizeof(int), cudaMemcpyDeviceToHost, ctx.compute);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.compute);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  if ((s = check(error, "potrf")) != Status::ok) return s;
  const int gpu_info = *reinterpret_cast<volatile int *>(final_word);
  trace.gpu_ms = trace.now_ms();

  if (gpu_info == 0) {
    if (upper) {
      if ((s = launch_mirror(false, dA, ldd, n, downloaded, n, ctx.compute)) != Status::ok) return s;
      if ((s = check(cudaStreamSynchronize(ctx.compute), "potrf")) != Status::ok) return s;
    }
    TransferStats tail_stats;
    s = download_factored(ctx, ctx.stream, upper, n, downloaded, n, dA, ldd, a, size_t(lda), &progress->columns,
                          &tail_stats);
    if (s != Status::ok) return s;
    if (trace.level >= 3) {
      sent_stats.print("download-early", trace.start);
      tail_stats.print("download-tail", trace.start);
    }
    *info = 0;
    trace.report(n, upper, downloaded);
    return Status::ok;
  }

  // Not positive definite: leave A as reference SPOTRF does. Its 64-column block j0 failed
  // in SPOTRF2; columns before it are factored (the device has them), the block's lower
  // triangle is SPOTRF2's partial work on the SSYRK-updated block (the device holds that
  // block as it was before the panel kernel: replay SPOTRF2 on it here), and everything
  // else keeps the caller's values, which is simply not writing it.
  const int column = gpu_info - 1;
  const int j0 = column / kPotrfNb * kPotrfNb, jb = std::min(kPotrfNb, n - j0);
  // Earlier panels may be in the caller's array already: no exception from here on.
  std::unique_ptr<T[]> block(new (std::nothrow) T[size_t(jb) * jb]);
  if (block == nullptr) return Status::out_of_memory;
  error = cudaMemcpy2DAsync(block.get(), size_t(jb) * es, at<T>(dA, ldd, j0, j0), ldd * es, size_t(jb) * es,
                            size_t(jb), cudaMemcpyDeviceToHost, ctx.compute);
  if (error == cudaSuccess && upper && j0 > downloaded) {
    if ((s = launch_mirror(false, dA, ldd, n, downloaded, j0, ctx.compute)) != Status::ok) return s;
  }
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.compute);
  if ((s = check(error, "potrf")) != Status::ok) return s;
  const int block_info = potrf_replay_lower<T>(jb, block.get(), jb, column - j0);
  // Earlier finished panels may be in the caller's array already; never one at or after j0.
  if (j0 > downloaded) {
    s = download_factored(ctx, ctx.stream, upper, n, downloaded, j0, dA, ldd, a, size_t(lda), &progress->columns);
    if (s != Status::ok) return s;
  }
  if (upper && j0 > 0) {  // rows 0..j0-1 of the columns right of the factored part
    size_t cols_done = 0;
    s = download_matrix(ctx, at<T>(dA, ldd, 0, j0), ldd * es, size_t(j0) * es, size_t(n - j0),
                        at(a, size_t(lda), 0, j0), size_t(lda) * es, &cols_done);
    progress->u12_columns = static_cast<int>(cols_done);
    if (s != Status::ok) return s;
  }
  for (int j = 0; j < jb; ++j)
    for (int i = j; i < jb; ++i) {
      const T value = block[size_t(i) + size_t(j) * jb];
      if (upper) *at(a, size_t(lda), j0 + j, j0 + i) = value;
      else *at(a, size_t(lda), j0 + i, j0 + j) = value;
    }
  *info = j0 + block_info;
  return Status::ok;
}

// Reference SPOTRF's blocked loop (block 64) on the CPU BLAS/LAPACK, from the state it has
// after `progress`: 'L' with columns 0..d-1 factored and the rest as on entry; 'U' likewise
// with rows 0..d-1 factored in every column, of which the columns d..d+u12-1 the GPU already
// wrote and the others are solved here first (U12 = U11^-T A12). A failure leaves A as the
// reference leaves it.
template <class T>
void potrf_finish_on_cpu(bool upper, int n, T *a, int lda, const HostProgress &progress, int *info) {
  const auto syrk = cpu::syrk<T>();
  const auto trsm = cpu::trsm<T>();
  const auto gemm = cpu::gemm<T>();
  const auto potrf = cpu::potrf<T>();
  const T one = T(1), minus_one = T(-1);
  auto A = [&](int i, int j) { return a + size_t(i) + size_t(j) * size_t(lda); };
  const int d = progress.columns;
  if (upper && d > 0 && d + progress.u12_columns < n) {
    const int cols = n - d - progress.u12_columns;
    trsm("L", "U", "T", "N", &d, &cols, &one, a, &lda, A(0, d + progress.u12_columns), &lda, 1, 1, 1, 1);
  }
  *info = 0;
  for (int j = d; j < n; j += kPotrfNb) {
    const int jb = std::min(kPotrfNb, n - j), rest = n - j - jb;
    int block_info = 0;
    if (upper) {
      syrk("U", "T", &jb, &j, &minus_one, A(0, j), &lda, &one, A(j, j), &lda, 1, 1);
      potrf("U", &jb, A(j, j), &lda, &block_info, 1);
      if (block_info != 0) {
        *info = j + block_info;
        return;
      }
      if (rest > 0) {
        gemm("T", "N", &jb, &rest, &j, &minus_one, A(0, j), &lda, A(0, j + jb), &lda, &one, A(j, j + jb), &lda, 1, 1);
        trsm("L", "U", "T", "N", &jb, &rest, &one, A(j, j), &lda, A(j, j + jb), &lda, 1, 1, 1, 1);
      }
    } else {
      syrk("L", "N", &jb, &j, &minus_one, A(j, 0), &lda, &one, A(j, j), &lda, 1, 1);
      potrf("L", &jb, A(j, j), &lda, &block_info, 1);
      if (block_info != 0) {
        *info = j + block_info;
        return;
      }
      if (rest > 0) {
        gemm("N", "T", &rest, &jb, &j, &minus_one, A(j + jb, 0), &lda, A(j, 0), &lda, &one, A(j + jb, j), &lda, 1, 1);
        trsm("R", "L", "T", "N", &rest, &jb, &one, A(j, j), &lda, A(j + jb, j), &lda, 1, 1, 1, 1);
      }
    }
  }
}

template <class T>
Status potrf_host(bool upper, int n, T *a, int lda, int *info) {
  HostProgress progress;
  const Status s = potrf_host_gpu(upper, n, a, lda, info, &progress);
  if (s == Status::ok || (progress.columns == 0 && progress.u12_columns == 0)) return s;
  // Part of the factor is in the caller's array already, so the call can no longer start
  // over on the CPU: finish it from there on the CPU.
  char detail[96];
  std::snprintf(detail, sizeof detail, "after %d of %d columns were written back", progress.columns, n);
  cudrop::detail::count_partial_fallback(std::is_same_v<T, float> ? "spotrf_" : "dpotrf_", s, detail);
  potrf_finish_on_cpu(upper, n, a, lda, progress, info);
  return Status::ok;
}

template Status potrf_host<float>(bool, int, float *, int, int *);
template Status potrf_host<double>(bool, int, double *, int, int *);
template Status potrf_device<float>(int, float *, size_t, int *, void *);
template Status potrf_device<double>(int, double *, size_t, int *, void *);

}  // namespace cudrop::impl
