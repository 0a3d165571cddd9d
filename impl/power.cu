#include "impl/power.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "impl/gpu_context.cuh"
#include "kernels/csr_power.cuh"
#include "kernels/gemv_power.cuh"
#include "kernels/power.cuh"
#include "kernels/sell_power.cuh"
#include "core/env.h"
#include "core/log.h"

namespace cudrop::impl {
namespace {

using kernels::PowerState;
using kernels::kPowerThreads;

// ---- tuning data ----------------------------------------------------------------------------
// dense_blocks_per_sm: the dense grid aims at this many blocks per SM (about four waves of
// eight resident blocks, so the last, partial wave is short); min_chunk_cols: a block's column
// chunk is at least this wide (its partial sums cost 2*rows*sizeof(T) of traffic per chunk).
// max_batch: most iterations queued between two looks at the state (the adaptive schedule
// doubles from 2 to this); a look costs nothing while the next batch runs, and at most two
// batches of no-op launches (a few microseconds each) follow the stopping iteration.
struct PowerTune {
  static constexpr int dense_blocks_per_sm = 32;
  static constexpr int min_chunk_cols = 128;
  static constexpr int first_batch = 2;
  static constexpr int max_batch = 32;
};

// The SELL copy of a CSR matrix (kernels/sell_power.cuh): its mat-vec kernel's shape per
// precision, U entries per lane and round, P slices per warp at once, and its grid in waves.
// Each precision takes the fastest shape of the tuning probes; the others are clearly
// slower (docs/perf/2026-11-22-h100-session7.md). The copy is made only when its padded
// entries stay within kSellCapacityPercent of the CSR entries (a bounded workspace).
// near: whether the copy stores 16-bit column distances where every column allows it. In
// float the smaller copy is faster at every row length; in double every kernel shape loses
// with distances (docs/perf/2026-11-22-h100-session17.md), so double keeps 32 bits.
template <class T> struct SellTune;
template <> struct SellTune<float> {
  static constexpr int entries = 16, slices = 1, waves = 4;
  static constexpr bool near = true;
};
template <> struct SellTune<double> {
  static constexpr int entries = 8, slices = 2, waves = 1;
  static constexpr bool near = false;
};
constexpr long long kSellCapacityPercent = 125;
// Below this many entries per row on average the copy with 32-bit column indices is not made:
// at 8 per row (float) the loop on it is no faster than on the CSR-stream kernel with columns
// in a band and slower with random columns; from 16 per row it is faster in a band
// (docs/perf/2026-11-22-h100-session7.md).
constexpr long long kSellMinAverageRow = 12;
// With 16-bit distances (SellTune::near, every column near its row) the copy moves fewer bytes
// than the CSR arrays (6 instead of 8 per float entry, no row pointers). Float in a band: it
// overtakes the CSR-stream kernel between 6 and 8 entries per row
// (docs/perf/2026-11-22-h100-session17.md).
constexpr long long kSellNearMinAverageRow = 7;

constexpr size_t kAlign = 256;
size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Same padding as the GEMM path: every column of the device copy starts on a 128-byte line,
// so the vector loads of the dense kernel are aligned whatever the caller's LDA.
size_t padded_ld(size_t rows, size_t element_size) {
  const size_t per_line = 128 / element_size;
  return (rows + per_line - 1) / per_line * per_line;
}

// What the power method keeps beyond GpuContext: the SM count, pinned snapshots of the state
// (one per batch in flight, one for the end) and events. Made once; never destroyed (like the
// context). The mutex makes one device call at a time (the snapshots are shared).
struct PowerDevice {
  std::mutex mutex;
  bool ready = false;
  int device = -1;
  int sms = 0;
  void *snapshots = nullptr;  // 3 x sizeof(PowerState<double>), pinned
  void *sell_probe = nullptr; // SellStats + a stop code, pinned: whether the SELL copy is made
  cudaEvent_t batch_done[2] = {};
  cudaEvent_t loop_start = nullptr, loop_end = nullptr;
  bool chained = false;  // step kernels launched programmatically (launch_step)
  size_t l2_persist_max = 0;  // L2 that may be set aside for persisting lines (0: none)
  size_t l2_window_max = 0;   // largest access-policy window
};

// CUDROP_POWER_PDL=0: the loop's kernels are launched plainly even where programmatic
// launches are possible (a gpu test runs the power tests so, the path of pre-Hopper GPUs).
bool chained_launches_allowed() {
  return env::environment().power_pdl;
}

// CUDROP_POWER_L2=0: no L2 access-policy window around the CSR loop's vectors (L2Residency).
bool l2_window_allowed() {
  return env::environment().power_l2;
}

PowerDevice &power_device() {
  static PowerDevice *g = new PowerDevice;
  return *g;
}

// Needs the mutex held.
Status prepare(PowerDevice &g) {
  int device = 0;
  if (Status s = check(cudaGetDevice(&device), "power: device"); s != Status::ok) return s;
  if (g.ready && g.device == device) return Status::ok;
  if (g.ready) {
    // A benchmark switched devices: start again on this one (the old resources stay).
    g.ready = false;
    g.snapshots = nullptr;
    g.sell_probe = nullptr;
  }
  cudaError_t error = cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, device);
  if (error == cudaSuccess) error = cudaHostAlloc(&g.snapshots, 3 * sizeof(PowerState<double>), cudaHostAllocDefault);
  if (error == cudaSuccess) error = cudaHostAlloc(&g.sell_probe, sizeof(kernels::SellStats) + sizeof(int), cudaHostAllocDefault);
  for (cudaEvent_t &e : g.batch_done)
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  if (error == cudaSuccess) error = cudaEventCreate(&g.loop_start);
  if (error == cudaSuccess) error = cudaEventCreate(&g.loop_end);
  // Programmatic launches need the wait compiled into the kernels: code for sm_90 or later
  // (PTX of an older target JIT-compiled here would not wait).
  int major = 0;
  cudaFuncAttributes step{};
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (error == cudaSuccess) error = cudaFuncGetAttributes(&step, kernels::power_scale_check<float>);
  int persist_max = 0, window_max = 0;
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&persist_max, cudaDevAttrMaxPersistingL2CacheSize, device);
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, device);
  if (Status s = check(error, "power: setup"); s != Status::ok) return s;
  g.l2_persist_max = size_t(std::max(0, persist_max));
  g.l2_window_max = size_t(std::max(0, window_max));
  g.chained = major >= 9 && step.ptxVersion >= 90 && step.binaryVersion >= 90 && chained_launches_allowed();
  log(2, "power: programmatic launches %s (compute capability %d, kernels for %d from PTX %d)",
      g.chained ? "on" : "off", major, step.binaryVersion, step.ptxVersion);
  g.device = device;
  g.ready = true;
  return Status::ok;
}

// Blocks of `kernel` (kPowerThreads each) resident on the whole GPU: the size of a
// grid-stride grid that fills it once.
template <class Kernel>
Status one_wave(const PowerDevice &g, Kernel kernel, int *blocks) {
  int per_sm = 0;
  const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kPowerThreads, 0);
  if (Status s = check(error, "power: occupancy"); s != Status::ok) return s;
  *blocks = std::max(1, per_sm) * std::max(1, g.sms);
  return Status::ok;
}

int grid_for(long long items, int cap) {
  const long long blocks = (items + kPowerThreads - 1) / kPowerThreads;
  return int(std::max(1LL, std::min<long long>(blocks, cap)));
}

// ---- plans: launch shapes and workspace layout ---------------------------------------------
template <class T>
struct DensePlan {
  int vec = 1;  // V of the kernel
  int tiles = 0, chunks = 0, chunk_cols = 0;
  size_t y = 0, partial = 0, slot_v = 0, slot_i = 0, arrivals = 0, state = 0, bytes = 0;
};

template <class T>
DensePlan<T> dense_plan(int n, int sms, int vec) {
  DensePlan<T> p;
  p.vec = vec;
  const int rows = 32 * vec;
  p.tiles = int((n + (rows - 1LL)) / rows);  // n + rows - 1 may pass INT_MAX
  const long long target = (long long)std::max(1, sms) * PowerTune::dense_blocks_per_sm;
  const long long most = std::max(1LL, (n + (PowerTune::min_chunk_cols - 1LL)) / PowerTune::min_chunk_cols);
  long long chunks = std::min(most, std::max(1LL, (target + p.tiles - 1) / p.tiles));
  chunks = std::min<long long>(chunks, std::max(1, 2147483647 / p.tiles));  // grid <= 2^31 - 1
  p.chunk_cols = int((n + chunks - 1) / chunks);
  p.chunks = int((n + (p.chunk_cols - 1LL)) / p.chunk_cols);  // no empty chunk
  size_t at = 0;
  auto take = [&](size_t bytes) { const size_t here = at; at += align_up(bytes); return here; };
  p.y = take(size_t(n) * sizeof(T));
  p.partial = take(size_t(p.chunks) * size_t(n) * sizeof(T));
  p.slot_v = take(size_t(p.tiles) * sizeof(T));
  p.slot_i = take(size_t(p.tiles) * sizeof(int));
  p.arrivals = take(size_t(p.tiles) * sizeof(unsigned));
  p.state = take(sizeof(PowerState<T>));
  p.bytes = at;
  return p;
}

template <class T> constexpr int dense_vec() { return int(16 / sizeof(T)); }

// bytes: what the CSR-stream kernel needs; sell_bytes: with room for the SELL copy after it.
template <class T>
struct CsrPlan {
  int tpr = 1;
  int blocks = 0;        // CSR-stream grid: one wave, each block a contiguous range of rows
  int sell_blocks = 0;   // SELL grid: SellTune waves, each block a contiguous range of slices
  long long sell_capacity = 0;  // padded entries the copy may have
  size_t x = 0, y = 0, part_rows = 0, slot_v = 0, slot_i = 0, state = 0, bytes = 0;
  size_t row_of = 0, row_len = 0, row_word = 0, slice_start = 0, sell_part = 0, sell_val = 0, sell_col = 0,
         sell_stats = 0, sell_bytes = 0;
};

// Col: int column indices, or short distances from the row (kernels/sell_power.cuh).
template <class T, class Col = int>
auto sell_kernel() {
  return kernels::power_sell_max<T, Col, SellTune<T>::entries, SellTune<T>::slices>;
}

template <class T, int TPR>
Status csr_blocks(const PowerDevice &g, int n, int *blocks) {
  int wave = 0;
  if (Status s = one_wave(g, kernels::power_csr_max<T, TPR>, &wave); s != Status::ok) return s;
  const long long rows_per_block = (long long)kernels::kPowerWarps * kernels::csr_rows_per_warp<TPR>();
  *blocks = int(std::max(1LL, std::min<long long>(wave, (n + rows_per_block - 1) / rows_per_block)));
  return Status::ok;
}

template <class T>
Status csr_plan(const PowerDevice &g, int n, long long nnz, CsrPlan<T> *out) {
  CsrPlan<T> p;
  p.tpr = kernels::csr_lanes_per_row(n, nnz);
  Status s = Status::ok;
  switch (p.tpr) {
    case 1: s = csr_blocks<T, 1>(g, n, &p.blocks); break;
    case 2: s = csr_blocks<T, 2>(g, n, &p.blocks); break;
    case 4: s = csr_blocks<T, 4>(g, n, &p.blocks); break;
    case 8: s = csr_blocks<T, 8>(g, n, &p.blocks); break;
    case 16: s = csr_blocks<T, 16>(g, n, &p.blocks); break;
    default: s = csr_blocks<T, 32>(g, n, &p.blocks); break;
  }
  if (s != Status::ok) return s;
  int sell_wave = 0;
  if ((s = one_wave(g, sell_kernel<T>(), &sell_wave)) != Status::ok) return s;
  const int slices = kernels::sell_slices(n);
  p.sell_blocks = std::max(1, std::min(slices, SellTune<T>::waves * sell_wave));
  p.sell_capacity = nnz * kSellCapacityPercent / 100 + kernels::kSellLanes;
  const int candidates = std::max(p.blocks, p.sell_blocks);
  size_t at = 0;
  auto take = [&](size_t bytes) { const size_t here = at; at += align_up(bytes); return here; };
  p.x = take(size_t(n) * sizeof(T));  // x and y adjacent: one L2 window covers both
  p.y = take(size_t(n) * sizeof(T));
  p.part_rows = take((size_t(p.blocks) + 1) * sizeof(int));
  p.slot_v = take(size_t(candidates) * sizeof(T));
  p.slot_i = take(size_t(candidates) * sizeof(int));
  p.state = take(sizeof(PowerState<T>));
  p.bytes = at;
  const size_t positions = size_t(kernels::sell_positions(n));
  p.row_of = take(positions * sizeof(int));
  p.row_len = take(positions * sizeof(int));
  p.row_word = take(positions * sizeof(int));
  p.slice_start = take((size_t(slices) + 1) * sizeof(long long));
  p.sell_part = take((size_t(p.sell_blocks) + 1) * sizeof(int));
  p.sell_stats = take(sizeof(kernels::SellStats));
  p.sell_val = take(size_t(p.sell_capacity) * sizeof(T));
  p.sell_col = take(size_t(p.sell_capacity) * sizeof(int));
  p.sell_bytes = at;
  *out = p;
  return Status::ok;
}

// ---- the iteration loop, shared by both formats ---------------------------------------------
int info_of(int stop) {
  switch (stop) {
    case kernels::kConverged: return 0;
    case kernels::kLimit: return 1;
    case kernels::kZero: return 2;
    case kernels::kNonFinite: return 3;
    case kernels::kBadColind: return -3;
    case kernels::kBadRowptr: return -4;
    default: return 1;  // kRunning: MAXIT = 0, no iteration done
  }
}

Status launched(const char *what) { return check(cudaGetLastError(), what); }

// An L2 access-policy window over the loop's vectors (L2Residency); bytes = 0: none.
struct L2Window {
  void *base = nullptr;
  size_t bytes = 0;
  float hit_ratio = 0;
};

// One launch of an iteration's kernels. Where g.chained, with programmatic stream
// serialization: the kernel may be scheduled while the one before it in the stream drains,
// and waits (power_wait_for_previous) before it reads what the loop writes. That hides the
// launch gap, which counts most where an iteration is short (docs/power.md,
// docs/perf/2026-11-22-h100-session15.md).
// With a window (L2Residency), the launch also carries it as its access policy.
template <class... Params, class... Args>
Status launch_step(const PowerDevice &g, const L2Window &window, void (*kernel)(Params...), unsigned grid,
                   cudaStream_t stream, Args &&...args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(kPowerThreads);
  config.stream = stream;
  cudaLaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (g.chained) {
    attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[count].val.programmaticStreamSerializationAllowed = 1;
    ++count;
  }
  if (window.bytes > 0) {
    cudaAccessPolicyWindow &policy = attributes[count].val.accessPolicyWindow;
    attributes[count].id = cudaLaunchAttributeAccessPolicyWindow;
    policy.base_ptr = window.base;
    policy.num_bytes = window.bytes;
    policy.hitRatio = window.hit_ratio;
    policy.hitProp = cudaAccessPropertyPersisting;
    policy.missProp = cudaAccessPropertyStreaming;
    ++count;
  }
  config.attrs = attributes;
  config.numAttrs = count;
  return check(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), "power: iteration");
}

// Keeps the CSR loop's x and y in L2 while the matrix streams past: part of L2 is set aside
// for persisting lines while the loop runs, and every step launch carries a window over the
// two vectors. The matrix loads are already evict-first (kernels/power.cuh), but without the
// set-aside x and y still lost lines to them. A window that covers x and y whole gains; a
// hit ratio just under 1 loses most of that, and setting aside all that may be set aside
// leaves too little L2 for the rest (docs/perf/2026-11-22-h100-session16.md). Hence the
// whole window up to 5/8 of what may be set aside, and a hit ratio for the rest.
// The set-aside is a device-wide limit: the previous value is put back and the persisting
// lines are made normal again when the loop is over. Where the limit cannot be set (before
// compute capability 8.0, MIG, MPS) there is no window; CUDROP_POWER_L2=0 turns it off.
class L2Residency {
 public:
  L2Residency(const PowerDevice &g, void *base, size_t bytes) {
    if (!l2_window_allowed() || g.l2_persist_max == 0 || g.l2_window_max == 0 || bytes == 0) return;
    if (cudaDeviceGetLimit(&previous_, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    bytes = std::min(bytes, g.l2_window_max);
    const size_t set_aside = std::min(bytes, g.l2_persist_max / 8 * 5);
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
Status run_iterations(PowerDevice &g, cudaStream_t stream, PowerState<T> *d_state, int maxit,
                      const PowerOptions &opt, Iteration &&iteration, PowerResult<T> *result) {
  auto *snapshot = static_cast<PowerState<T> *>(g.snapshots);
  const int fixed = opt.check_every > 0 ? opt.check_every : 0;
  int batch = fixed ? fixed : PowerTune::first_batch;
  int issued = 0, batches_issued = 0, batches_seen = 0;
  Status s = Status::ok;
  if (opt.time_loop && (s = check(cudaEventRecord(g.loop_start, stream), "power: event")) != Status::ok) return s;
  auto issue_batch = [&]() -> Status {
    const int k = std::min(batch, maxit - issued);
    for (int j = 0; j < k; ++j) {
      if (Status st = iteration(); st != Status::ok) return st;
      result->launches += 2;
    }
    issued += k;
    if (!fixed) batch = std::min(2 * batch, PowerTune::max_batch);
    const int slot = batches_issued % 2;
    cudaError_t error = cudaMemcpyAsync(&snapshot[slot], d_state, sizeof(PowerState<T>),
                                        cudaMemcpyDeviceToHost, stream);
    if (error == cudaSuccess) error = cudaEventRecord(g.batch_done[slot], stream);
    ++batches_issued;
    return check(error, "power: batch");
  };
  if (maxit > 0 && (s = issue_batch()) != Status::ok) return s;
  while (batches_seen < batches_issued) {
    // Keep the GPU busy: queue the next batch before looking at the previous one. Its slot is
    // the one read in the last round, so that snapshot is no longer needed.
    if (issued < maxit && (s = issue_batch()) != Status::ok) return s;
    const int slot = batches_seen % 2;
    if ((s = check(cudaEventSynchronize(g.batch_done[slot]), "power: wait")) != Status::ok) return s;
    ++batches_seen;
    ++result->host_checks;
    if (snapshot[slot].stop != kernels::kRunning) break;
  }
  if (opt.time_loop && (s = check(cudaEventRecord(g.loop_end, stream), "power: event")) != Status::ok) return s;
  // The final state, once everything queued (no-ops included) has run.
  cudaError_t error = cudaMemcpyAsync(&snapshot[2], d_state, sizeof(PowerState<T>), cudaMemcpyDeviceToHost, stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
  if ((s = check(error, "power: result")) != Status::ok) return s;
  const PowerState<T> final_state = snapshot[2];
  result->lambda = final_state.lambda;
  result->iterations = final_state.iterations;
  result->info = info_of(final_state.stop);
  if (opt.time_loop) {
    if ((s = check(cudaEventElapsedTime(&result->loop_ms, g.loop_start, g.loop_end), "power: timing")) != Status::ok) return s;
  }
  return Status::ok;
}

template <class T>
Status start_state(PowerState<T> *d_state, cudaStream_t stream) {
  return check(cudaMemsetAsync(d_state, 0, sizeof(PowerState<T>), stream), "power: state");
}

template <class T>
Status fill_ones(const PowerDevice &g, int n, T *dx, cudaStream_t stream, PowerResult<T> *result) {
  int wave = 0;
  if (Status s = one_wave(g, kernels::power_fill<T>, &wave); s != Status::ok) return s;
  kernels::power_fill<T><<<grid_for(n, wave), kPowerThreads, 0, stream>>>(n, dx, T(1));
  ++result->launches;
  return launched("power: fill");
}

template <class T, int V>
Status dense_iterations(PowerDevice &g, const DensePlan<T> &p, int n, const T *dA, size_t ldda,
                        T *dx, T tol, int maxit, char *work, cudaStream_t stream,
                        const PowerOptions &opt, PowerResult<T> *result) {
  T *y = reinterpret_cast<T *>(work + p.y);
  T *partial = reinterpret_cast<T *>(work + p.partial);
  T *slot_v = reinterpret_cast<T *>(work + p.slot_v);
  int *slot_i = reinterpret_cast<int *>(work + p.slot_i);
  auto *arrivals = reinterpret_cast<unsigned *>(work + p.arrivals);
  auto *state = reinterpret_cast<PowerState<T> *>(work + p.state);
  int scale_wave = 0;
  Status s = one_wave(g, kernels::power_scale_check<T>, &scale_wave);
  if (s == Status::ok) s = start_state(state, stream);
  if (s == Status::ok) s = check(cudaMemsetAsync(arrivals, 0, size_t(p.tiles) * sizeof(unsigned), stream), "power: counters");
  if (s == Status::ok && opt.start_ones) s = fill_ones(g, n, dx, stream, result);
  if (s != Status::ok) return s;
  const unsigned grid = unsigned(p.tiles) * unsigned(p.chunks);
  const int scale_grid = kernels::power_scale_blocks(n, scale_wave);
  auto iteration = [&]() -> Status {
    Status st = launch_step(g, L2Window{}, kernels::power_gemv_max<T, V>, grid, stream, n, dA, ldda, dx, y, partial,
                            p.chunks, p.chunk_cols, slot_v, slot_i, arrivals, state);
    if (st != Status::ok) return st;
    return launch_step(g, L2Window{}, kernels::power_scale_check<T>, scale_grid, stream, n, y, dx, tol, maxit,
                       state);
  };
  return run_iterations(g, stream, state, maxit, opt, iteration, result);
}

// CUDROP_POWER_CSR_ELEMENTWISE=1: the kernel loads one element at a time even from aligned
// arrays, the path of device arrays that are not 16-byte aligned, which the public calls
// (always aligned) never take otherwise; a gpu test runs the power tests with it.
bool csr_elementwise_forced() {
  return env::environment().power_csr_elementwise;
}

// CUDROP_POWER_CSR_FORMAT=stream: never the SELL copy, so that a gpu test covers the
// CSR-stream kernel on matrices the copy would take (the elementwise hook implies it too).
bool csr_stream_forced() {
  return csr_elementwise_forced() || env::environment().power_csr_format == env::CsrFormat::stream;
}

// CUDROP_POWER_CSR_FORMAT=wide: the SELL copy keeps 32-bit column indices even where 16-bit
// distances would do, so that a gpu test covers that copy on the small matrices of the tests
// (with n <= 65536 every distance fits).
bool sell_wide_forced() {
  return env::environment().power_csr_format == env::CsrFormat::wide;
}

// Whether the SELL copy may be worth its workspace for this shape (it may still not be made:
// rows too long or too uneven, or below kSellMinAverageRow columns too far for 16 bits, which
// only the GPU sees).
template <class T>
bool sell_may_pay(int n, long long nnz) {
  const bool near = SellTune<T>::near && !sell_wide_forced();
  return nnz >= (near ? kSellNearMinAverageRow : kSellMinAverageRow) * n && !csr_stream_forced();
}

// Before either CSR loop: the state reset and the structure check.
template <class T>
Status csr_start(PowerDevice &g, const CsrPlan<T> &p, int n, long long nnz, const int *dcolind, const int *drowptr,
                 int base, char *work, cudaStream_t stream, const PowerOptions &opt, PowerResult<T> *result) {
  auto *state = reinterpret_cast<PowerState<T> *>(work + p.state);
  int check_wave = 0;
  Status s = one_wave(g, kernels::power_csr_validate<T>, &check_wave);
  if (s == Status::ok) s = start_state(state, stream);
  if (s != Status::ok || !opt.validate_csr) return s;
  kernels::power_csr_validate<T><<<grid_for(std::max<long long>(n, nnz), check_wave), kPowerThreads, 0, stream>>>(
      n, nnz, drowptr, dcolind, base, state);
  ++result->launches;
  return launched("power: csr check");
}

// The SELL copy, when the matrix suits it: sorts each window's rows, sizes the slices and
// looks for columns too far from their rows for 16 bits, looks at the result (one wait for the
// GPU, once per call), then fills the copy and splits the slices among the blocks.
// *made = false leaves the CSR-stream kernel to run the loop: rows wider than kSellMaxWidth,
// padding beyond the capacity, far columns in a matrix with fewer than kSellMinAverageRow
// entries per row on average, or a structure the check rejected (the copy would follow its
// indices). *near: the copy holds 16-bit distances.
template <class T>
Status sell_copy(PowerDevice &g, const CsrPlan<T> &p, int n, long long nnz, const T *dval, const int *dcolind,
                 const int *drowptr, int base, char *work, cudaStream_t stream, PowerResult<T> *result, bool *made,
                 bool *near) {
  using kernels::SellStats;
  *made = false;
  *near = false;
  auto *state = reinterpret_cast<PowerState<T> *>(work + p.state);
  auto *row_of = reinterpret_cast<int *>(work + p.row_of);
  auto *row_len = reinterpret_cast<int *>(work + p.row_len);
  auto *row_word = reinterpret_cast<int *>(work + p.row_word);
  auto *slice_start = reinterpret_cast<long long *>(work + p.slice_start);
  auto *stats = reinterpret_cast<SellStats *>(work + p.sell_stats);
  const int slices = kernels::sell_slices(n);
  const long long positions = kernels::sell_positions(n);
  int reach_wave = 0;
  Status s = one_wave(g, kernels::power_sell_reach, &reach_wave);
  if (s == Status::ok) s = check(cudaMemsetAsync(stats, 0, sizeof(SellStats), stream), "power: sell stats");
  if (s != Status::ok) return s;
  kernels::power_sell_sort<<<unsigned(positions / kernels::kSellWindow), kernels::kSellWindow, 0, stream>>>(
      n, drowptr, row_of, row_len, row_word);
  kernels::power_sell_widths<<<1, 1024, 0, stream>>>(slices, row_len, slice_start, stats);
  if constexpr (SellTune<T>::near) {
    kernels::power_sell_reach<<<grid_for(n, reach_wave), kPowerThreads, 0, stream>>>(n, nnz, dcolind, drowptr, base,
                                                                                     stats);
    ++result->launches;
  }
  result->launches += 2;
  if ((s = launched("power: sell sort")) != Status::ok) return s;
  auto *seen = static_cast<SellStats *>(g.sell_probe);
  auto *seen_stop = reinterpret_cast<int *>(seen + 1);
  cudaError_t error = cudaMemcpyAsync(seen, stats, sizeof(SellStats), cudaMemcpyDeviceToHost, stream);
  if (error == cudaSuccess) error = cudaMemcpyAsync(seen_stop, &state->stop, sizeof(int), cudaMemcpyDeviceToHost, stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
  if ((s = check(error, "power: sell sizes")) != Status::ok) return s;
  const bool near_columns = SellTune<T>::near && seen->far == 0 && !sell_wide_forced();
  if (*seen_stop != kernels::kRunning || seen->entries > p.sell_capacity || seen->widest > kernels::kSellMaxWidth ||
      (!near_columns && nnz < kSellMinAverageRow * n)) {
    log(2, "power: CSR-stream kernel (SELL copy not made: %lld padded entries for capacity %lld, widest row %d%s)",
        seen->entries, p.sell_capacity, seen->widest,
        SellTune<T>::near ? (seen->far ? ", columns too far for 16 bits" : ", near columns") : "");
    return Status::ok;
  }
  const unsigned fill_grid = unsigned((positions + kPowerThreads - 1) / kPowerThreads);
  T *sell_val = reinterpret_cast<T *>(work + p.sell_val);
  bool filled_near = false;
  if constexpr (SellTune<T>::near) {  // no short-index kernels for a precision that never uses them
    if (near_columns) {
      kernels::power_sell_fill<T, short><<<fill_grid, kPowerThreads, 0, stream>>>(
          n, slices, dval, dcolind, drowptr, base, row_of, row_len, slice_start, sell_val,
          reinterpret_cast<short *>(work + p.sell_col));
      filled_near = true;
    }
  }
  if (!filled_near)
    kernels::power_sell_fill<T, int><<<fill_grid, kPowerThreads, 0, stream>>>(
        n, slices, dval, dcolind, drowptr, base, row_of, row_len, slice_start, sell_val,
        reinterpret_cast<int *>(work + p.sell_col));
  kernels::power_sell_partition<<<grid_for(p.sell_blocks + 1LL, 1024), kPowerThreads, 0, stream>>>(
      slices, slice_start, p.sell_blocks, reinterpret_cast<int *>(work + p.sell_part));
  result->launches += 2;
  if ((s = launched("power: sell copy")) != Status::ok) return s;
  log(2, "power: SELL copy, %lld entries with padding (%lld in CSR), widest row %d, %s column indices", seen->entries,
      nnz, seen->widest, near_columns ? "16-bit" : "32-bit");
  *made = true;
  *near = near_columns;
  return Status::ok;
}

template <class T, class Col>
Status sell_iterations(PowerDevice &g, const CsrPlan<T> &p, int n, T *dx, T tol, int maxit, char *work,
                       cudaStream_t stream, const L2Window &window, const PowerOptions &opt,
                       PowerResult<T> *result) {
  T *y = reinterpret_cast<T *>(work + p.y);
  T *slot_v = reinterpret_cast<T *>(work + p.slot_v);
  int *slot_i = reinterpret_cast<int *>(work + p.slot_i);
  auto *state = reinterpret_cast<PowerState<T> *>(work + p.state);
  const auto *sell_val = reinterpret_cast<const T *>(work + p.sell_val);
  const auto *sell_col = reinterpret_cast<const Col *>(work + p.sell_col);
  const auto *row_word = reinterpret_cast<const int *>(work + p.row_word);
  const auto *slice_start = reinterpret_cast<const long long *>(work + p.slice_start);
  const auto *part = reinterpret_cast<const int *>(work + p.sell_part);
  int scale_wave = 0;
  if (Status s = one_wave(g, kernels::power_scale_check<T>, &scale_wave); s != Status::ok) return s;
  const int scale_grid = kernels::power_scale_blocks(n, scale_wave);
  const auto matvec = sell_kernel<T, Col>();
  auto iteration = [&]() -> Status {
    Status st = launch_step(g, window, matvec, p.sell_blocks, stream, n, sell_val, sell_col, row_word, slice_start,
                            part, dx, y, slot_v, slot_i, state);
    if (st != Status::ok) return st;
    return launch_step(g, window, kernels::power_scale_check<T>, scale_grid, stream, n, y, dx, tol, maxit,
                       state);
  };
  return run_iterations(g, stream, state, maxit, opt, iteration, result);
}

// The loop on the SELL copy, by its column index type (short only where SellTune<T>::near:
// no such kernels are made for the other precision).
template <class T>
Status sell_loop(bool near, PowerDevice &g, const CsrPlan<T> &p, int n, T *dx, T tol, int maxit, char *work,
                 cudaStream_t stream, const L2Window &window, const PowerOptions &opt, PowerResult<T> *result) {
  if constexpr (SellTune<T>::near) {
    if (near) return sell_iterations<T, short>(g, p, n, dx, tol, maxit, work, stream, window, opt, result);
  }
  return sell_iterations<T, int>(g, p, n, dx, tol, maxit, work, stream, window, opt, result);
}

template <class T, int TPR>
Status csr_iterations(PowerDevice &g, const CsrPlan<T> &p, int n, long long nnz, const T *dval,
                      const int *dcolind, const int *drowptr, int base, T *dx, T tol, int maxit,
                      char *work, cudaStream_t stream, const L2Window &window, const PowerOptions &opt,
                      PowerResult<T> *result) {
  T *y = reinterpret_cast<T *>(work + p.y);
  int *part_rows = reinterpret_cast<int *>(work + p.part_rows);
  T *slot_v = reinterpret_cast<T *>(work + p.slot_v);
  int *slot_i = reinterpret_cast<int *>(work + p.slot_i);
  auto *state = reinterpret_cast<PowerState<T> *>(work + p.state);
  int scale_wave = 0, check_wave = 0;
  Status s = one_wave(g, kernels::power_scale_check<T>, &scale_wave);
  if (s == Status::ok) s = one_wave(g, kernels::power_csr_validate<T>, &check_wave);
  if (s != Status::ok) return s;
  // Each block's rows, balanced by entries: once per call (a binary search per block).
  kernels::power_csr_partition<<<grid_for(p.blocks + 1LL, check_wave), kPowerThreads, 0, stream>>>(
      n, nnz, drowptr, base, p.blocks, part_rows);
  ++result->launches;
  if ((s = launched("power: csr partition")) != Status::ok) return s;
  const int scale_grid = kernels::power_scale_blocks(n, scale_wave);
  // 16-byte loads of 4 entries when both arrays allow them (cudaMalloc'd arrays do).
  const bool vec = reinterpret_cast<uintptr_t>(dval) % 16 == 0 && reinterpret_cast<uintptr_t>(dcolind) % 16 == 0 &&
                   !csr_elementwise_forced();
  auto iteration = [&]() -> Status {
    Status st = launch_step(g, window, kernels::power_csr_max<T, TPR>, p.blocks, stream, n, nnz, dval, dcolind,
                            drowptr, base, vec, part_rows, dx, y, slot_v, slot_i, state);
    if (st != Status::ok) return st;
    return launch_step(g, window, kernels::power_scale_check<T>, scale_grid, stream, n, y, dx, tol, maxit,
                       state);
  };
  return run_iterations(g, stream, state, maxit, opt, iteration, result);
}

// ---- host <-> device vectors through the staging buffers ------------------------------------
constexpr size_t kVectorColumn = size_t(1) << 20;  // a long vector is staged as 1 MiB columns

Status upload_vector(GpuContext &ctx, const void *host, size_t bytes, void *dev) {
  const size_t cols = bytes / kVectorColumn, rest = bytes % kVectorColumn;
  Status s = Status::ok;
  if (cols > 0) s = upload_matrix(ctx, host, kVectorColumn, kVectorColumn, cols, dev, kVectorColumn);
  if (s == Status::ok && rest > 0)
    s = upload_matrix(ctx, static_cast<const char *>(host) + cols * kVectorColumn, rest, rest, 1,
                      static_cast<char *>(dev) + cols * kVectorColumn, rest);
  return s;
}

Status download_vector(GpuContext &ctx, const void *dev, size_t bytes, void *host) {
  const size_t cols = bytes / kVectorColumn, rest = bytes % kVectorColumn;
  Status s = Status::ok;
  if (cols > 0) s = download_matrix(ctx, dev, kVectorColumn, kVectorColumn, cols, host, kVectorColumn);
  if (s == Status::ok && rest > 0)
    s = download_matrix(ctx, static_cast<const char *>(dev) + cols * kVectorColumn, rest, rest, 1,
                        static_cast<char *>(host) + cols * kVectorColumn, rest);
  return s;
}

// The caller's outputs, written only now that the GPU work has succeeded: x comes back into a
// host copy first, so that a failed download leaves the caller's x (the CPU fallback's x_0)
// untouched.
template <class T>
Status deliver(GpuContext &ctx, const PowerResult<T> &r, int n, const T *dx, T *lambda, T *x,
               int *maxit, int *info) {
  if (r.info < 0) {  // bad CSR structure: only INFO
    *info = r.info;
    return Status::ok;
  }
  std::vector<T> result;
  try {
    result.resize(size_t(n));
  } catch (const std::bad_alloc &) {
    return Status::out_of_memory;
  }
  if (Status s = download_vector(ctx, dx, size_t(n) * sizeof(T), result.data()); s != Status::ok) return s;
  std::memcpy(x, result.data(), size_t(n) * sizeof(T));
  *lambda = r.lambda;
  *maxit = r.iterations;
  *info = r.info;
  return Status::ok;
}

// ---- the CPU path ---------------------------------------------------------------------------
// The iteration of power.h with plain loops; matvec(x, y) computes y = A x.
template <class T, class MatVec>
void iterate_cpu(int n, MatVec &&matvec, T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info) {
  if (start_ones) std::fill(x, x + n, T(1));
  std::vector<T> y(static_cast<size_t>(n));
  const int limit = *maxit;
  *lambda = T(0);
  for (int k = 1; k <= limit; ++k) {
    matvec(x, y.data());
    int p = 0;
    for (int i = 1; i < n; ++i)
      if (kernels::power_better(y[i], i, y[p], p)) p = i;
    const T lam = y[p];
    if (kernels::power_magnitude_bits(lam) == 0) {
      *lambda = T(0);
      *maxit = k;
      *info = 2;
      return;
    }
    if (!std::isfinite(lam)) {
      *lambda = lam;
      *maxit = k;
      *info = 3;
      return;
    }
    bool moved = false;
    for (int i = 0; i < n; ++i) {
      const T scaled = y[i] / lam;
      if (!(std::fabs(scaled - x[i]) < tol)) moved = true;
      x[i] = scaled;
    }
    *lambda = lam;
    if (!moved) {
      *maxit = k;
      *info = 0;
      return;
    }
  }
  *maxit = limit;
  *info = 1;
}

}  // namespace

// ---- public (inside the library) functions ---------------------------------------------------

bool power_csr_rowptr_valid(int n, const int *rowptr, int base) {
  if (rowptr[0] != base) return false;
  for (int i = 0; i < n; ++i)
    if (rowptr[i + 1] < rowptr[i]) return false;
  return true;
}

template <class T>
void power_dense_cpu(int n, const T *a, int lda, T *lambda, T *x, bool start_ones, T tol,
                     int *maxit, int *info) {
  // Columns in order, each an axpy: y = sum_j A(:,j) x_j, with IEEE semantics for every
  // product (no column is skipped when x_j = 0, so a NaN or Inf in A shows as on the GPU).
  auto matvec = [&](const T *xv, T *y) {
    std::fill(y, y + n, T(0));
    for (int j = 0; j < n; ++j) {
      const T xj = xv[j];
      const T *column = a + size_t(j) * size_t(lda);
      for (int i = 0; i < n; ++i) y[i] += column[i] * xj;
    }
  };
  iterate_cpu(n, matvec, lambda, x, start_ones, tol, maxit, info);
}

template <class T>
void power_csr_cpu(int n, const T *val, const int *colind, const int *rowptr, int base,
                   T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info) {
  // The row pointers were checked by the entry point; the column indices are checked here,
  // before any is followed.
  const long long nnz = (long long)rowptr[n] - base;
  const long long limit = (long long)base + n;
  for (long long k = 0; k < nnz; ++k)
    if (colind[k] < base || colind[k] >= limit) {
      *info = -3;
      return;
    }
  auto matvec = [&](const T *xv, T *y) {
    for (int i = 0; i < n; ++i) {
      T s = T(0);
      for (long long k = (long long)rowptr[i] - base; k < (long long)rowptr[i + 1] - base; ++k)
        s += val[k] * xv[colind[k] - base];
      y[i] = s;
    }
  };
  iterate_cpu(n, matvec, lambda, x, start_ones, tol, maxit, info);
}

template <class T>
Status power_dense_workspace(int n, size_t *bytes) {
  PowerDevice &g = power_device();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (Status s = prepare(g); s != Status::ok) return s;
  *bytes = std::max(dense_plan<T>(n, g.sms, 1).bytes, dense_plan<T>(n, g.sms, dense_vec<T>()).bytes);
  return Status::ok;
}

template <class T>
Status power_csr_workspace(int n, long long nnz, size_t *bytes, size_t *bytes_with_copy) {
  PowerDevice &g = power_device();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (Status s = prepare(g); s != Status::ok) return s;
  CsrPlan<T> p;
  if (Status s = csr_plan<T>(g, n, nnz, &p); s != Status::ok) return s;
  *bytes = p.bytes;
  if (bytes_with_copy != nullptr) *bytes_with_copy = sell_may_pay<T>(n, nnz) ? p.sell_bytes : p.bytes;
  return Status::ok;
}

template <class T>
Status power_dense_device(int n, const T *dA, size_t ldda, T *dx, T tol, int maxit, void *d_work,
                          size_t work_bytes, void *stream, const PowerOptions &opt,
                          PowerResult<T> *result) {
  *result = PowerResult<T>{};
  if (inject_fault("launch")) return Status::cuda_error;
  if (n <= 0) return Status::ok;
  PowerDevice &g = power_device();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (Status s = prepare(g); s != Status::ok) return s;
  constexpr int V = dense_vec<T>();
  const bool vectors = reinterpret_cast<uintptr_t>(dA) % 16 == 0 && ldda % V == 0;
  const DensePlan<T> p = dense_plan<T>(n, g.sms, vectors ? V : 1);
  if (work_bytes < p.bytes || reinterpret_cast<uintptr_t>(d_work) % kAlign != 0) {
    log(1, "power: workspace of %zu bytes at %p is too small or misaligned (%zu needed)", work_bytes, d_work, p.bytes);
    return Status::cuda_error;
  }
  auto *work = static_cast<char *>(d_work);
  auto s_ = static_cast<cudaStream_t>(stream);
  return vectors ? dense_iterations<T, V>(g, p, n, dA, ldda, dx, tol, maxit, work, s_, opt, result)
                 : dense_iterations<T, 1>(g, p, n, dA, ldda, dx, tol, maxit, work, s_, opt, result);
}

template <class T>
Status power_csr_device(int n, long long nnz, const T *dval, const int *dcolind, const int *drowptr,
                        int base, T *dx, T tol, int maxit, void *d_work, size_t work_bytes,
                        void *stream, const PowerOptions &opt, PowerResult<T> *result) {
  *result = PowerResult<T>{};
  if (inject_fault("launch")) return Status::cuda_error;
  if (n <= 0) return Status::ok;
  PowerDevice &g = power_device();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (Status s = prepare(g); s != Status::ok) return s;
  CsrPlan<T> p;
  if (Status s = csr_plan<T>(g, n, nnz, &p); s != Status::ok) return s;
  if (work_bytes < p.bytes || reinterpret_cast<uintptr_t>(d_work) % kAlign != 0) {
    log(1, "power: workspace of %zu bytes at %p is too small or misaligned (%zu needed)", work_bytes, d_work, p.bytes);
    return Status::cuda_error;
  }
  auto *work = static_cast<char *>(d_work);
  auto st = static_cast<cudaStream_t>(stream);
  Status s = csr_start<T>(g, p, n, nnz, dcolind, drowptr, base, work, st, opt, result);
  bool sell = false, near = false;
  if (s == Status::ok && work_bytes >= p.sell_bytes && sell_may_pay<T>(n, nnz))
    s = sell_copy<T>(g, p, n, nnz, dval, dcolind, drowptr, base, work, st, result, &sell, &near);
  if (s != Status::ok) return s;
  result->sell_copy = sell;
  result->sell_near = near;
  // The loop runs on the workspace's x, next to y (L2Residency); the caller's comes back at the end.
  T *xw = reinterpret_cast<T *>(work + p.x);
  const size_t vector_bytes = size_t(n) * sizeof(T);
  s = opt.start_ones ? fill_ones(g, n, xw, st, result)
                     : check(cudaMemcpyAsync(xw, dx, vector_bytes, cudaMemcpyDeviceToDevice, st), "power: x in");
  if (s != Status::ok) return s;
  {
    const L2Residency l2(g, xw, p.y + vector_bytes - p.x);
    const L2Window &w = l2.window();
    if (sell) {
      s = sell_loop<T>(near, g, p, n, xw, tol, maxit, work, st, w, opt, result);
    } else {
      switch (p.tpr) {
        case 1: s = csr_iterations<T, 1>(g, p, n, nnz, dval, dcolind, drowptr, base, xw, tol, maxit, work, st, w, opt, result); break;
        case 2: s = csr_iterations<T, 2>(g, p, n, nnz, dval, dcolind, drowptr, base, xw, tol, maxit, work, st, w, opt, result); break;
        case 4: s = csr_iterations<T, 4>(g, p, n, nnz, dval, dcolind, drowptr, base, xw, tol, maxit, work, st, w, opt, result); break;
        case 8: s = csr_iterations<T, 8>(g, p, n, nnz, dval, dcolind, drowptr, base, xw, tol, maxit, work, st, w, opt, result); break;
        case 16: s = csr_iterations<T, 16>(g, p, n, nnz, dval, dcolind, drowptr, base, xw, tol, maxit, work, st, w, opt, result); break;
        default: s = csr_iterations<T, 32>(g, p, n, nnz, dval, dcolind, drowptr, base, xw, tol, maxit, work, st, w, opt, result); break;
      }
    }
    if (s != Status::ok || result->info < 0) return s;  // a bad structure leaves dx untouched
    cudaError_t error = cudaMemcpyAsync(dx, xw, vector_bytes, cudaMemcpyDeviceToDevice, st);
    if (error == cudaSuccess) error = cudaStreamSynchronize(st);
    s = check(error, "power: x out");
  }
  return s;
}

template <class T>
Status power_dense_host(int n, const T *a, int lda, T *lambda, T *x, bool start_ones, T tol,
                        int *maxit, int *info) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(n), es);
  size_t work_bytes = 0;
  if (Status s = power_dense_workspace<T>(n, &work_bytes); s != Status::ok) return s;
  const size_t x_bytes = align_up(size_t(n) * es);
  void *dA = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA}, {Slot::work, x_bytes + work_bytes, &dW}});
  if (s != Status::ok) return s;
  T *dx = static_cast<T *>(dW);
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  if (!start_ones && (s = upload_vector(ctx, x, size_t(n) * es, dx)) != Status::ok) return s;
  PowerOptions opt;
  opt.start_ones = start_ones;
  PowerResult<T> r;
  if ((s = power_dense_device<T>(n, static_cast<const T *>(dA), ldda, dx, tol, *maxit,
                                 static_cast<char *>(dW) + x_bytes, work_bytes, ctx.stream, opt, &r)) != Status::ok)
    return s;
  return deliver(ctx, r, n, dx, lambda, x, maxit, info);
}

template <class T>
Status power_csr_host(int n, const T *val, const int *colind, const int *rowptr, int base,
                      T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T);
  const long long nnz = (long long)rowptr[n] - base;  // rowptr checked by the entry point
  size_t work_bytes = 0, with_copy = 0;
  if (Status s = power_csr_workspace<T>(n, nnz, &work_bytes, &with_copy); s != Status::ok) return s;
  const size_t x_bytes = align_up(size_t(n) * es);
  // Slots as GEMM uses them: a = values, b = column indices, c = row pointers, work = x + work,
  // with room for the SELL copy when the GPU has it (the matrix twice), else without.
  void *dval = nullptr, *dcol = nullptr, *drow = nullptr, *dW = nullptr;
  Status s = Status::out_of_memory;
  for (size_t work : {with_copy, work_bytes}) {
    s = device_buffers(ctx, {{Slot::a, std::max<size_t>(1, size_t(nnz) * es), &dval},
                             {Slot::b, std::max<size_t>(1, size_t(nnz) * sizeof(int)), &dcol},
                             {Slot::c, (size_t(n) + 1) * sizeof(int), &drow},
                             {Slot::work, x_bytes + work, &dW}});
    if (s != Status::out_of_memory) {
      work_bytes = work;
      break;
    }
  }
  if (s != Status::ok) return s;
  T *dx = static_cast<T *>(dW);
  if ((s = upload_vector(ctx, val, size_t(nnz) * es, dval)) != Status::ok) return s;
  if ((s = upload_vector(ctx, colind, size_t(nnz) * sizeof(int), dcol)) != Status::ok) return s;
  if ((s = upload_vector(ctx, rowptr, (size_t(n) + 1) * sizeof(int), drow)) != Status::ok) return s;
  if (!start_ones && (s = upload_vector(ctx, x, size_t(n) * es, dx)) != Status::ok) return s;
  PowerOptions opt;
  opt.start_ones = start_ones;
  PowerResult<T> r;
  if ((s = power_csr_device<T>(n, nnz, static_cast<const T *>(dval), static_cast<const int *>(dcol),
                               static_cast<const int *>(drow), base, dx, tol, *maxit,
                               static_cast<char *>(dW) + x_bytes, work_bytes, ctx.stream, opt, &r)) != Status::ok)
    return s;
  return deliver(ctx, r, n, dx, lambda, x, maxit, info);
}

#define CUDROP_POWER_INSTANTIATE(T)                                                                   \
  template void power_dense_cpu<T>(int, const T *, int, T *, T *, bool, T, int *, int *);            \
  template void power_csr_cpu<T>(int, const T *, const int *, const int *, int, T *, T *, bool, T,   \
                                 int *, int *);                                                     \
  template Status power_dense_workspace<T>(int, size_t *);                                           \
  template Status power_csr_workspace<T>(int, long long, size_t *, size_t *);                        \
  template Status power_dense_device<T>(int, const T *, size_t, T *, T, int, void *, size_t, void *, \
                                        const PowerOptions &, PowerResult<T> *);                     \
  template Status power_csr_device<T>(int, long long, const T *, const int *, const int *, int, T *, \
                                      T, int, void *, size_t, void *, const PowerOptions &,          \
                                      PowerResult<T> *);                                             \
  template Status power_dense_host<T>(int, const T *, int, T *, T *, bool, T, int *, int *);         \
  template Status power_csr_host<T>(int, const T *, const int *, const int *, int, T *, T *, bool,   \
                                    T, int *, int *);
CUDROP_POWER_INSTANTIATE(float)
CUDROP_POWER_INSTANTIATE(double)
#undef CUDROP_POWER_INSTANTIATE

}  // namespace cudrop::impl
