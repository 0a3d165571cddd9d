#pragma once
// The power method's iteration loop, shared by the dense and CSR paths: the launch of one
// step (programmatic, with an L2 window), the L2 set-aside around the CSR loop, and the
// batched queue of iterations with its looks at the state.
#include <algorithm>
#include <utility>

#include "impl/power/power_device.cuh"
#include "kernels/power_launch.cuh"

namespace cudrop::impl::power {

// An L2 access-policy window over the loop's vectors (L2Residency); bytes = 0: none.
struct L2Window {
  void *base = nullptr;
  size_t bytes = 0;
  float hit_ratio = 0;
};

// One launch of an iteration's kernels. Where the lane is chained, with programmatic stream
// serialization: the kernel may be scheduled while the one before it in the stream drains,
// and waits (wait_for_previous_kernel) before it reads what the loop writes. That hides the
// launch gap, which counts most where an iteration is short (docs/power.md,
// docs/perf/README.md, power launches).
// With a window (L2Residency), the launch also carries it as its access policy.
template <class... Params, class... Args>
Status launch_step(const PowerCall &g, const L2Window &window, void (*kernel)(Params...), unsigned grid,
                   cudaStream_t stream, Args &&...args) {
  const kernels::PowerStepLaunch config{grid, stream, g.lane->chained, window.base, window.bytes, window.hit_ratio};
  return check(kernels::launch_power_step(config, kernel, std::forward<Args>(args)...), "power: iteration");
}

// Keeps the CSR loop's x and y in L2 while the matrix streams past: part of L2 is set aside
// for persisting lines while the loop runs, and every step launch carries a window over the
// two vectors. The matrix loads are already evict-first (kernels/power.cuh), but without the
// set-aside x and y still lost lines to them. A window that covers x and y whole gains; a
// hit ratio just under 1 loses most of that, and setting aside all that may be set aside
// leaves too little L2 for the rest (docs/perf/README.md, power L2 window). Hence the
// whole window up to 5/8 of what may be set aside, and a hit ratio for the rest.
// The set-aside is a device-wide limit: the previous value is put back and the persisting
// lines are made normal again when the loop is over. Where the limit cannot be set (before
// compute capability 8.0, MIG, MPS) there is no window; CUDROP_TEST_POWER_L2=0 turns it off.
class L2Residency {
 public:
  L2Residency(const PowerCall &g, void *base, size_t bytes) {
    if (!l2_window_allowed() || g.info->l2_persist_max == 0 || g.info->l2_window_max == 0 || bytes == 0) return;
    if (cudaDeviceGetLimit(&previous_, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    bytes = std::min(bytes, g.info->l2_window_max);
    const size_t set_aside = std::min(bytes, g.info->l2_persist_max / 8 * 5);
    if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside) != cudaSuccess) {
      (void)cudaGetLastError();
      log(2, "power: no L2 window (the persisting set-aside cannot be set)");
      return;
    }
    window_.base = base;
    window_.bytes = bytes;
    window_.hit_ratio = float(std::min(1.0, double(set_aside) / double(bytes)));
    log(2, "power: L2 window of %zu bytes, %zu set aside", bytes, set_aside);
  }
  ~L2Residency() {
    if (window_.bytes == 0) return;
    // Cache state only: errors here cannot change a result.
    if (cudaCtxResetPersistingL2Cache() != cudaSuccess) (void)cudaGetLastError();
    if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, previous_) != cudaSuccess) (void)cudaGetLastError();
  }
  L2Residency(const L2Residency &) = delete;
  L2Residency &operator=(const L2Residency &) = delete;
  const L2Window &window() const { return window_; }

 private:
  L2Window window_;
  size_t previous_ = 0;
};

// Queues the iterations in batches: each batch ends with a copy of the state into a pinned
// snapshot and an event; the host waits for batch b only after queuing batch b+1, so the GPU
// never waits for the host. `iteration()` queues one iteration's launches.
template <class T, class Iteration>
Status run_iterations(PowerCall &g, cudaStream_t stream, PowerState<T> *d_state, int maxit,
                      const PowerOptions &opt, Iteration &&iteration, PowerResult<T> *result) {
  auto *snapshot = static_cast<PowerState<T> *>(g.lane->snapshots);
  const int fixed = opt.check_every > 0 ? opt.check_every : 0;
  int batch = fixed ? fixed : PowerTune::first_batch;
  int issued = 0, batches_issued = 0, batches_seen = 0;
  Status s = Status::ok;
  if (opt.time_loop && (s = check(cudaEventRecord(g.lane->loop_start, stream), "power: event")) != Status::ok) return s;
  auto issue_batch = [&]() -> Status {
    const int k = std::min(batch, maxit - issued);
    for (int j = 0; j < k; ++j) {
      if (Status st = iteration(); st != Status::ok) return st;
    }
    issued += k;
    if (!fixed) batch = std::min(2 * batch, PowerTune::max_batch);
    const int slot = batches_issued % 2;
    cudaError_t error = cudaMemcpyAsync(&snapshot[slot], d_state, sizeof(PowerState<T>),
                                        cudaMemcpyDeviceToHost, stream);
    if (error == cudaSuccess) error = cudaEventRecord(g.lane->batch_done[slot], stream);
    ++batches_issued;
    return check(error, "power: batch");
  };
  if (maxit > 0 && (s = issue_batch()) != Status::ok) return s;
  while (batches_seen < batches_issued) {
    // Keep the GPU busy: queue the next batch before looking at the previous one. Its slot is
    // the one read in the last round, so that snapshot is no longer needed.
    if (issued < maxit && (s = issue_batch()) != Status::ok) return s;
    const int slot = batches_seen % 2;
    if ((s = check(cudaEventSynchronize(g.lane->batch_done[slot]), "power: wait")) != Status::ok) return s;
    ++batches_seen;
    if (snapshot[slot].stop != kernels::kRunning) break;
  }
  if (opt.time_loop && (s = check(cudaEventRecord(g.lane->loop_end, stream), "power: event")) != Status::ok) return s;
  // The final state, once everything queued (no-ops included) has run.
  cudaError_t error = cudaMemcpyAsync(&snapshot[2], d_state, sizeof(PowerState<T>), cudaMemcpyDeviceToHost, stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
  if ((s = check(error, "power: result")) != Status::ok) return s;
  const PowerState<T> final_state = snapshot[2];
  result->lambda = final_state.lambda;
  result->iterations = final_state.iterations;
  result->info = info_of(final_state.stop);
  if (opt.time_loop) {
    if ((s = check(cudaEventElapsedTime(&result->loop_ms, g.lane->loop_start, g.lane->loop_end), "power: timing")) != Status::ok) return s;
  }
  return Status::ok;
}

// The loop of every format: each iteration the format's mat-vec (`matvec()` queues it), then
// the scale and convergence check.
template <class T, class MatVec>
Status iterate(PowerCall &g, const L2Window &window, cudaStream_t stream, int scale_grid, int n, T *y, T *dx, T tol,
               int maxit, PowerState<T> *state, const PowerOptions &opt, MatVec &&matvec, PowerResult<T> *result) {
  auto iteration = [&]() -> Status {
    if (Status st = matvec(); st != Status::ok) return st;
    return launch_step(g, window, kernels::power_scale_check<T>, scale_grid, stream, n, y, dx, tol, maxit, state);
  };
  return run_iterations(g, stream, state, maxit, opt, iteration, result);
}

template <class T>
Status start_state(PowerState<T> *d_state, cudaStream_t stream) {
  return check(cudaMemsetAsync(d_state, 0, sizeof(PowerState<T>), stream), "power: state");
}

template <class T>
Status fill_ones(const PowerCall &g, int n, T *dx, cudaStream_t stream) {
  int wave = 0;
  if (Status s = one_wave(g, kernels::power_fill<T>, &wave); s != Status::ok) return s;
  return check(kernels::launch_power_fill<T>({unsigned(grid_for(n, wave)), stream}, n, dx, T(1)), "power: fill");
}

}  // namespace cudrop::impl::power
