// Cholesky on the GPU, the host interface (?potrf_, impl/potrf/potrf.h). It streams the caller's
// triangle in (the first columns are factored while the rest is still in transfer), maps
// UPLO='U' onto the lower algorithm by mirroring the triangle on the device (U = L^T; L^H,
// conjugated, for a complex T),
// and writes back only the referenced triangle: each outer panel as soon as it is final
// and its INFO is known to be 0 (while the GPU factors the columns to its right), the rest
// once the GPU has finished.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "core/env.h"
#include "core/trace.h"
#include "impl/distributed/panel_sender.h"
#include "impl/context/device_split.h"
#include "impl/potrf/potrf.h"
#include "impl/potrf/potrf_several.h"
#include "impl/potrf/potrf_transfer.cuh"
#include "impl/solve/solve.h"

namespace cudrop::impl {

using namespace potrf;

namespace {

// Looks at the INFO words of the outer panels that have finished. blocking: first wait
// until at most kPollLag outer panels are still running (the host must not run further
// ahead while it has nothing else to do, or a failure early on would be noticed only after
// every later panel's GEMMs had run on garbage).
Status poll_info(const GpuContext::PotrfPoll &r, int recorded, bool blocking, int *failed) {
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
// after every step; the events themselves cost a little). CUDROP_POTRF_TRACE=3 adds lines on
// the transfers' host side (TransferStats). The host side is core/trace.h's CallTrace; the GPU
// timeline (CUDA events) is this trace's own.
struct PhaseTrace {
  CallTrace call{env::environment().potrf_trace};
  double upload_ms = -1, issued_ms = -1, gpu_ms = -1;
  struct Mark {
    cudaEvent_t done;
    double issued_ms;
    int arrived;
    const PotrfStep *step;
  };
  cudaEvent_t origin = nullptr;
  std::vector<Mark> marks;
  double now_ms() const { return call.now_ms(); }
  void begin(cudaStream_t stream) {
    if (call.level() < 2 || cudaEventCreate(&origin) != cudaSuccess) return;
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
    if (!call.on()) return;
    call.report("potrf trace n=%d uplo=%c upload_done_ms=%.2f issued_ms=%.2f gpu_done_ms=%.2f total_ms=%.2f "
                "early_cols=%d",
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
Status finished_columns(const GpuContext::PotrfPoll &r, const std::vector<int> &group_end_col, int *columns, int *group) {
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

// Creates ctx.potrf_poll on first use; the lease serializes it.
Status potrf_poll(GpuContext &ctx) {
  GpuContext::PotrfPoll &r = ctx.potrf_poll;
  cudaError_t error = cudaSuccess;
  if (r.words == nullptr) {
    void *words = nullptr;
    error = cudaHostAlloc(&words, (kPollRing + 1) * sizeof(int), cudaHostAllocDefault);
    if (error == cudaSuccess) r.words = static_cast<int *>(words);
  }
  for (cudaEvent_t &event : r.done)
    if (error == cudaSuccess && event == nullptr) error = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (error == cudaSuccess && r.download_lane == nullptr)
    error = cudaStreamCreateWithFlags(&r.download_lane, cudaStreamNonBlocking);
  if (error == cudaSuccess && r.uploaded == nullptr) error = cudaEventCreateWithFlags(&r.uploaded, cudaEventDisableTiming);
  return check(error, "potrf setup");
}

// Test hook: CUDROP_TEST_FAULT_INJECT=potrf-step:N makes the N-th step (1-based) of every GPU
// Cholesky fail, after earlier panels may have gone back: the CPU must finish the call.
bool inject_step_fault(size_t index) {
  const env::Environment &e = env::environment();
  return e.fault.kind == env::Fault::potrf_step && long(index) + 1 == e.fault.from;
}

}  // namespace

template <class T>
Status potrf_host(Uplo uplo, int n, T *a, int lda, int *info, PotrfProgress *progress, const PotrfRhs<T> *rhs) {
  const bool upper = uplo == Uplo::upper;
  progress->n = n;
  if (inject_fault("launch")) return Status::cuda_error;
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  // Over several devices (CUDROP_DEVICES), when the call is worth two or more: the lower
  // triangle's block columns dealt out over them (impl/potrf/potrf_several.h).
  if (!upper && rhs == nullptr && n > kPotrfSeveralNb && lease.several_devices()) {
    const double flops = double(n) * n * n / 3, min_share = settings().gemm_device_min_flops;
    if (flops >= 2 * min_share) {
      std::vector<GpuContext *> devices = lease.devices();
      devices.resize(size_t(devices_worth(flops, int(devices.size()), min_share)));
      if (devices.size() >= 2) {
        const Status several = potrf_several<T>(devices, n, a, lda, info, progress);
        // Not positive definite within the first block column, nothing written: the one device
        // below gives INFO and the state the reference leaves.
        if (several != Status::special_values || progress->any_written()) return several;
      }
    }
  }
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);
  void *d_matrix = nullptr, *d_rhs = nullptr, *d_work = nullptr;
  Status s = Status::ok;
  if ((s = priority_lane(ctx)) != Status::ok) return s;
  if ((s = potrf_poll(ctx)) != Status::ok) return s;
  GpuContext::PotrfPoll *poll = &ctx.potrf_poll;
  // One allocation: the matrix, then INFO and the panel kernel's counter. (A second slot
  // could be freed again by device_buffer's release-everything retry of the first.)
  const size_t matrix_bytes = size_t(round_up(ldd * size_t(n) * es, 256));
  // xPOSV: B and the solve's workspace too (other slots a call does not ask for may be released
  // under CUDROP_GPU_MEM_LIMIT, so a plain Cholesky asks for its own only).
  if (rhs == nullptr) s = device_buffer(ctx, Slot::a, matrix_bytes + 256, &d_matrix);
  else
    s = device_buffers(ctx, {{Slot::a, matrix_bytes + 256, &d_matrix},
                             {Slot::b, ldd * size_t(rhs->nrhs) * es, &d_rhs},
                             {Slot::work, solve_device_workspace<T>(n, rhs->nrhs), &d_work}});
  if (s != Status::ok) return s;
  T *dA = static_cast<T *>(d_matrix);
  int *d_info = reinterpret_cast<int *>(static_cast<char *>(d_matrix) + matrix_bytes);
  auto *d_finished = reinterpret_cast<unsigned *>(d_info + 1);
  for (int i = 0; i <= kPollRing; ++i) poll->words[i] = 0;  // nothing of ours is in flight
  if ((s = check(cudaMemsetAsync(d_info, 0, 2 * sizeof(int), ctx.compute), "potrf")) != Status::ok) return s;

  const Lanes lanes = lanes_beside(ctx.compute, ctx.priority);
  PhaseTrace trace;
  // On a failure, what is queued on the GPU drains before the lease is given up (it only
  // touches device and pinned memory, but the next call reuses both). Declared before the
  // sender, so that the sender's thread has stopped first.
  struct DrainOnFailure {
    const Status &status;
    GpuContext &ctx;
    ~DrainOnFailure() {
      if (status == Status::ok) return;
      for (cudaStream_t stream : {ctx.compute, ctx.stream, ctx.priority.stream, ctx.potrf_poll.download_lane})
        cudaStreamSynchronize(stream);
      cudaGetLastError();
    }
  } drain{s, ctx};
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
        if (upload.done() && rhs != nullptr) {
          // xPOSV's B, behind the triangle and ahead of the first write-back's use of the
          // staging buffers; the solve waits for ctx.panel_done[1].
          st = upload_matrix(ctx, rhs->b, size_t(rhs->ldb) * es, size_t(n) * es, size_t(rhs->nrhs), d_rhs, ldd * es);
          if (st == Status::ok) st = check(cudaEventRecord(ctx.panel_done[1], ctx.stream), "posv upload");
          if (st != Status::ok) return st;
        }
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
    if (trace.call.level() >= 3) upload.stats().print("upload", trace.call.start());
    // Everything is issued: the last outer panels go back one by one as the GPU finishes them,
    // so that only the last one is left to copy when the GPU is done; sent all at the end, they
    // would be a copy on the critical path (docs/perf/README.md, Cholesky write-back).
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
    // xPOSV: the solve (on the lower factor, which the mirror leaves alone) runs while the
    // factor's last columns go back.
    const bool solve = rhs != nullptr && rhs->nrhs > 0;
    if (solve) {
      if (stop_at_solve_stage(kSolveStageUploaded)) return s = Status::cuda_error;
      if ((s = check(cudaStreamWaitEvent(ctx.compute, ctx.panel_done[1], 0), "posv")) != Status::ok) return s;
      s = potrs_device<T>(Uplo::lower, n, rhs->nrhs, dA, ldd, static_cast<T *>(d_rhs), ldd, ctx.compute, d_work,
                          solve_device_workspace<T>(n, rhs->nrhs));
      if (s == Status::ok) s = check(cudaEventRecord(ctx.panel_done[0], ctx.compute), "posv");
      if (s != Status::ok) return s;
    }
    TransferStats tail_stats;
    s = download_factored(ctx, ctx.stream, upper, n, downloaded, n, dA, ldd, a, size_t(lda), &progress->columns,
                          &tail_stats);
    if (s != Status::ok) return s;
    if (trace.call.level() >= 3) {
      sent_stats.print("download-early", trace.call.start());
      tail_stats.print("download-tail", trace.call.start());
    }
    if (solve) {
      if (stop_at_solve_stage(kSolveStageFactorBack)) return s = Status::cuda_error;
      if ((s = check(cudaStreamWaitEvent(ctx.stream, ctx.panel_done[0], 0), "posv")) != Status::ok) return s;
      s = download_columns(ctx, d_rhs, ldd * es, size_t(n) * es, rhs->nrhs, rhs->b, size_t(rhs->ldb) * es,
                           &progress->x_columns, kSolveStageSolutionHalfBack);
      if (s != Status::ok) return s;
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
  // CPOTRF's CHERK made the block's diagonal real (the device's GEMMs leave its imaginary
  // parts, which nothing reads, as they were).
  if (is_complex_v<T> && j0 > 0)
    for (int j = 0; j < jb; ++j) block[size_t(j) * (jb + 1)] = T(real_part(block[size_t(j) * (jb + 1)]));
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
      if (upper) *at(a, size_t(lda), j0 + j, j0 + i) = i == j ? value : conj(value);
      else *at(a, size_t(lda), j0 + i, j0 + j) = value;
    }
  *info = j0 + block_info;
  return Status::ok;
}

template Status potrf_host<float>(Uplo, int, float *, int, int *, PotrfProgress *, const PotrfRhs<float> *);
template Status potrf_host<double>(Uplo, int, double *, int, int *, PotrfProgress *, const PotrfRhs<double> *);
template Status potrf_host<Complex<float>>(Uplo, int, Complex<float> *, int, int *, PotrfProgress *,
                                           const PotrfRhs<Complex<float>> *);
template Status potrf_host<Complex<double>>(Uplo, int, Complex<double> *, int, int *, PotrfProgress *,
                                            const PotrfRhs<Complex<double>> *);

}  // namespace cudrop::impl
