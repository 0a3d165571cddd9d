#include "impl/getrf/getrf.h"

#include <algorithm>

#include "core/layout.h"
#include "core/tuning.h"
#include "impl/context/device_info.h"
#include "impl/gemm/gemm.h"
#include "impl/context/gpu_context.cuh"
#include "kernels/getrf_panel.cuh"
#include "kernels/getrf_update.cuh"
#include "core/env.h"
#include "core/log.h"

namespace cudrop::impl {
namespace {

// The tuned values of one precision on one device (core/tuning.h): nb, the panel width
// (<= kPanelMaxCols); panel_rows, rows per thread block of the panel kernel when the panel
// fits in shared memory (one thread per row and column step, so up to kPanelThreads rows
// cost the same latency); for panels of at least tall_from rows, tall_panel_rows per block
// (as many as the shared memory holds up to that figure) in blocks of TallThreads<T> threads.
struct GetrfTune {
  int nb, panel_rows, tall_from, tall_panel_rows;
};
// c and z take the s and d columns: the panel plan derives its rows per block from the
// element size (plan_panel), so the same widths and row targets fit.
template <class T>
GetrfTune getrf_tune(const tuning::Table &t) {
  using R = real_t<T>;
  return {tuning::pick<R>(t.getrf_nb), tuning::pick<R>(t.getrf_panel_rows), tuning::pick<R>(t.getrf_tall_from),
          tuning::pick<R>(t.getrf_tall_panel_rows)};
}
template <class T>
constexpr int kTallThreads = tuning::pick<real_t<T>>(tuning::compiled::kGetrfTallThreads);

constexpr bool widths_fit() {
  for (const tuning::Table &t : tuning::kTables)
    if (t.getrf_nb.s > kernels::kPanelMaxCols || t.getrf_nb.d > kernels::kPanelMaxCols) return false;
  return true;
}
static_assert(widths_fit(), "every tuned panel width fits the panel kernel");
static_assert(tuning::compiled::kGetrfPanelThreads == kernels::kPanelThreads &&
                  (kTallThreads<float> == kernels::kPanelThreads || kTallThreads<float> == kernels::kPanelThreadsTall) &&
                  (kTallThreads<double> == kernels::kPanelThreads || kTallThreads<double> == kernels::kPanelThreadsTall),
              "the tuned thread counts are the panel kernel's");
static_assert(kernels::kPanelMaxCols <= kernels::kSwapMaxRows, "one swap launch per panel");
static_assert(kernels::kPanelMaxCols <= kernels::TrsmShape<float>::NB &&
              kernels::kPanelMaxCols <= kernels::TrsmShape<double>::NB, "one TRSM launch per panel");

using kernels::PanelKernel;

// What a factorization of precision T uses on the device: its facts and tuning column, the
// panel kernel's two instantiations ([0]: every panel, [1]: tall panels) and the context's
// priority lane (panels on its stream; the events link it to the caller's stream).
template <class T>
struct LuDevice {
  const DeviceInfo *info = nullptr;
  GetrfTune tune{};
  PanelKernel panel_kernel[2];
  GpuContext::PriorityLane *lane = nullptr;
};

template <class T>
Status lu_device(LuDevice<T> *out) {
  const DeviceInfo *info = nullptr;
  if (Status s = check(current_device_info(&info), "getrf: device attributes"); s != Status::ok) return s;
  if (info->smem_optin < kernels::TrsmShape<T>::smem_bytes()) {
    log(1, "getrf: the GPU has too little shared memory per block (%zu bytes); LU runs on the CPU", info->smem_optin);
    return Status::no_device;
  }
  GpuContext *ctx = nullptr;
  if (Status s = device_context(&ctx); s != Status::ok) return s;
  if (Status s = priority_lane(*ctx); s != Status::ok) return s;
  cudaError_t error = kernels::prepare_getrf_panel<T, kernels::kPanelThreads>(info->smem_optin, &out->panel_kernel[0]);
  if (error == cudaSuccess)
    error = kernels::prepare_getrf_panel<T, kTallThreads<T>>(info->smem_optin, &out->panel_kernel[1]);
  if (error == cudaSuccess) error = kernels::prepare_getrf_trsm<T>();
  if (Status s = check(error, "getrf: setup"); s != Status::ok) return s;
  out->info = info;
  out->tune = getrf_tune<T>(info->tuned());
  out->lane = &ctx->priority;
  return Status::ok;
}

// How one panel is spread over thread blocks (see kernels/getrf_panel.cuh).
struct PanelPlan {
  int blocks = 0, rows_per_block = 0, threads = 0;
  bool cache_rows = false;
  size_t smem = 0;
};

// ceil(a / b) as an int: the quotient of rows or columns fits one (b >= 1).
int ceil_div_int(long long a, long long b) { return static_cast<int>(ceil_div(a, b)); }

// The panel held in shared memory by blocks of `kernel` of about `target` rows each (or one
// block per SM if that is too few for a tall panel; the blocks wait for each other, so never
// more than the GPU holds at once). *fits: false when it does not fit (*plan unchanged).
Status plan_cached(const DeviceInfo &g, const PanelKernel &kernel, int rows, int cols, size_t elem_size, int target,
                   PanelPlan *plan, bool *fits) {
  *fits = false;
  const int most = std::min(g.sms, kernels::kPanelMaxBlocks);
  const int blocks = std::min(ceil_div_int(rows, target), most);
  const int per_block = ceil_div_int(rows, blocks);
  const size_t smem = size_t(per_block) * cols * elem_size;
  if (smem > kernel.dynamic_max) return Status::ok;
  int per_sm = 0;
  const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel.entry, kernel.threads, smem);
  if (Status s = check(error, "getrf: occupancy"); s != Status::ok) return s;
  if (std::min(per_sm * g.sms, kernels::kPanelMaxBlocks) < blocks) return Status::ok;
  *plan = PanelPlan{ceil_div_int(rows, per_block), per_block, kernel.threads, true, smem};
  *fits = true;
  return Status::ok;
}

template <class T>
Status plan_panel(const LuDevice<T> &lu, int rows, int cols, PanelPlan *plan) {
  const DeviceInfo &g = *lu.info;
  const PanelKernel *kernel = lu.panel_kernel;
  bool fits = false;
  if (rows >= lu.tune.tall_from) {
    const int fitting = static_cast<int>(kernel[1].dynamic_max / (size_t(cols) * sizeof(T)));
    const int target = std::min(lu.tune.tall_panel_rows, fitting);
    if (target > lu.tune.panel_rows) {
      if (Status s = plan_cached(g, kernel[1], rows, cols, sizeof(T), target, plan, &fits); s != Status::ok) return s;
      if (fits) return Status::ok;
    }
  }
  // The tuned row count, or as many as fit where 16-byte elements (double complex) would not.
  const int fitting = static_cast<int>(kernel[0].dynamic_max / (size_t(cols) * sizeof(T)));
  const int target = std::max(1, std::min(lu.tune.panel_rows, fitting));
  if (Status s = plan_cached(g, kernel[0], rows, cols, sizeof(T), target, plan, &fits); s != Status::ok || fits)
    return s;
  // In place in global memory (L2-resident for all but huge panels): as many blocks as fit.
  int per_sm = 0;
  const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel[0].entry, kernel[0].threads, 0);
  if (Status s = check(error, "getrf: occupancy"); s != Status::ok) return s;
  const int capacity = std::min(per_sm * g.sms, kernels::kPanelMaxBlocks);
  if (capacity < 1) return check(cudaErrorInvalidConfiguration, "getrf: panel occupancy");
  const int blocks = std::min(ceil_div_int(rows, lu.tune.panel_rows), capacity);
  const int per_block = ceil_div_int(rows, blocks);
  *plan = PanelPlan{ceil_div_int(rows, per_block), per_block, kernel[0].threads, false, 0};
  return Status::ok;
}

}  // namespace

template <class T>
size_t getrf_device_workspace(int, int) {
  return kernels::PanelExchange<T>::bytes;
}

template <class T>
Status getrf_device(int m, int n, T *dA, size_t ldda, int *d_ipiv, int *d_info, void *d_work,
                    void *stream, int nb, const RowsFinal *rows_final) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  if (d_work == nullptr || ldda < size_t(m)) return Status::no_device;
  LuDevice<T> lu;
  if (Status s = lu_device(&lu); s != Status::ok) return s;
  GpuContext::PriorityLane &lane = *lu.lane;
  cudaStream_t work = static_cast<cudaStream_t>(stream);  // swaps, TRSM, GEMM
  if (nb <= 0) nb = lu.tune.nb;
  nb = std::min(nb, kernels::kPanelMaxCols);
  const int mn = std::min(m, n);
  auto *exchange = static_cast<unsigned long long *>(d_work);
  auto at = [&](int row, int col) { return dA + size_t(row) + size_t(col) * ldda; };

  // Panel [j, j+jb): factored on the panel stream.
  auto factor_panel = [&](int j, int jb) {
    PanelPlan plan;
    if (Status s = plan_panel<T>(lu, m - j, jb, &plan); s != Status::ok) return s;
    const kernels::PanelArgs<T> args{at(j, j), ldda, m - j, jb, j, plan.rows_per_block,
                                     plan.cache_rows ? 1 : 0, d_ipiv, d_info, exchange};
    cudaError_t error = kernels::launch_getrf_panel<T, kTallThreads<T>>(
        kernels::PanelLaunch{plan.blocks, plan.threads, plan.smem}, args, lane.stream);
    if (error == cudaSuccess) error = cudaEventRecord(lane.panel_done, lane.stream);
    return check(error, "getrf: panel");
  };
  // Columns [c0, c0+w) after panel [j, j+jb): interchanges, U12 = inv(L11) A12, A22 -= L21 U12.
  auto update = [&](int j, int jb, int c0, int w) {
    if (w <= 0) return Status::ok;
    cudaError_t error = kernels::launch_getrf_swap_rows(at(0, c0), ldda, w, d_ipiv, j, j + jb, work);
    if (error == cudaSuccess && jb > 1) error = kernels::launch_getrf_trsm(at(j, j), ldda, at(j, c0), ldda, jb, w, work);
    if (Status s = check(error, "getrf: swap/trsm"); s != Status::ok) return s;
    if (m - j - jb <= 0) return Status::ok;
    return gemm_device<T>(cudrop::Op::none, cudrop::Op::none, m - j - jb, w, jb, T(-1), at(j + jb, j), ldda, at(j, c0), ldda,
                          T(1), at(j + jb, c0), ldda, work);
  };

  auto run = [&]() {
    cudaError_t error = cudaMemsetAsync(d_info, 0, sizeof(int), work);
    if (error == cudaSuccess) error = cudaMemsetAsync(exchange, 0, kernels::PanelExchange<T>::bytes, work);
    if (error == cudaSuccess) error = cudaEventRecord(lane.start, work);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(lane.stream, lane.start, 0);
    if (Status s = check(error, "getrf: start"); s != Status::ok) return s;
    if (Status s = factor_panel(0, std::min(nb, mn)); s != Status::ok) return s;
    for (int j = 0; j < mn; j += nb) {
      const int jb = std::min(nb, mn - j);
      if (Status s = check(cudaStreamWaitEvent(work, lane.panel_done, 0), "getrf: wait panel"); s != Status::ok) return s;
      // Look-ahead: the next panel's columns first, then its factorization (panel stream)
      // overlaps the update of everything right of it (this stream).
      const int next = j + jb, next_jb = std::min(nb, mn - next);
      if (next_jb > 0) {
        if (Status s = update(j, jb, next, next_jb); s != Status::ok) return s;
        error = cudaEventRecord(lane.next_ready, work);
        if (error == cudaSuccess) error = cudaStreamWaitEvent(lane.stream, lane.next_ready, 0);
        if (Status s = check(error, "getrf: look-ahead"); s != Status::ok) return s;
        if (Status s = factor_panel(next, next_jb); s != Status::ok) return s;
      }
      const int rest = next + std::max(next_jb, 0);
      if (Status s = update(j, jb, rest, n - rest); s != Status::ok) return s;
      // The interchanges also apply to the columns of L left of the panel.
      if (j > 0) {
        const cudaError_t swapped = kernels::launch_getrf_swap_rows(at(0, 0), ldda, j, d_ipiv, j, j + jb, work);
        if (Status s = check(swapped, "getrf: swap"); s != Status::ok) return s;
      }
      // Rows [j, j+jb) are final now: the panels below only interchange rows below them.
      if (rows_final != nullptr) {
        if (Status s = (*rows_final)(j + jb); s != Status::ok) return s;
      }
    }
    return Status::ok;
  };
  const Status status = run();
  if (status != Status::ok) {
    // Nothing may still be running on these buffers when the caller falls back or retries.
    cudaStreamSynchronize(lane.stream);
    cudaStreamSynchronize(work);
  }
  return status;
}

#define CUDROP_GETRF_INSTANCES(T)                                                          \
  template size_t getrf_device_workspace<T>(int, int);                                     \
  template Status getrf_device<T>(int, int, T *, size_t, int *, int *, void *, void *, int, const RowsFinal *);
CUDROP_GETRF_INSTANCES(float)
CUDROP_GETRF_INSTANCES(double)
CUDROP_GETRF_INSTANCES(Complex<float>)
CUDROP_GETRF_INSTANCES(Complex<double>)
#undef CUDROP_GETRF_INSTANCES

}  // namespace cudrop::impl
