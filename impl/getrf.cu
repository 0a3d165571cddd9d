#include "impl/getrf.h"

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <vector>

#include "impl/gemm.h"
#include "impl/gpu_context.cuh"
#include "kernels/getrf_panel.cuh"
#include "kernels/getrf_update.cuh"
#include "core/env.h"
#include "core/log.h"

namespace cudrop::impl {
namespace {

// Tuning data. nb: panel width (<= kPanelMaxCols). panel_rows: rows per thread block of the
// panel kernel when the panel fits in shared memory (kernel: one thread per row and column
// step, so up to kPanelThreads rows cost the same latency). For panels of at least
// tall_from rows: tall_panel_rows per block (as many as the shared memory holds up to that
// figure), with tall_threads threads.
//
// The panel runs beside the look-ahead's trailing GEMM, and each of its blocks takes an SM's
// shared memory away from that GEMM while the panel lasts. Early on, while the GEMM is the
// longer of the two, fewer panel blocks pay; late, the panel is the critical path and more
// blocks (shorter reductions over fewer rows) pay. Taller panel blocks pay in double at large
// n (224 x 128 doubles is 224 KiB, all an H100 block may have). Float with 256 threads lost
// with more rows than threads, which doubles the per-column work, so its tall panels take
// 512 threads for 448 rows: the factorization gains although such a panel alone is slower
// (docs/perf/2026-11-22-h100-session18.md).
template <class T> struct GetrfTune;
template <> struct GetrfTune<float> {
  static constexpr int nb = 128, panel_rows = 256;
  static constexpr int tall_from = 8192, tall_panel_rows = 448, tall_threads = kernels::kPanelThreadsTall;
};
template <> struct GetrfTune<double> {
  static constexpr int nb = 128, panel_rows = 128;
  static constexpr int tall_from = 8192, tall_panel_rows = 224, tall_threads = kernels::kPanelThreads;
};

static_assert(GetrfTune<float>::nb <= kernels::kPanelMaxCols && GetrfTune<double>::nb <= kernels::kPanelMaxCols);
static_assert(kernels::kPanelMaxCols <= kernels::kSwapMaxRows, "one swap launch per panel");
static_assert(kernels::kPanelMaxCols <= kernels::TrsmShape<float>::NB &&
              kernels::kPanelMaxCols <= kernels::TrsmShape<double>::NB, "one TRSM launch per panel");

// Same padding as the GEMM path: every column starts on a 128-byte line.
size_t padded_ld(size_t rows, size_t element_size) {
  const size_t per_line = 128 / element_size;
  return (rows + per_line - 1) / per_line * per_line;
}

// What the factorization needs beyond GpuContext: a high-priority stream for the panels (so
// their blocks are scheduled ahead of the trailing GEMM's), the events linking it to the
// caller's stream, device limits, and the kernels' shared-memory opt-in. Made once; never
// destroyed (like the context).
// One instantiation of the panel kernel: its entry point, threads per block, and the dynamic
// shared memory a block of it may have.
struct PanelKernel {
  const void *entry = nullptr;
  int threads = 0;
  size_t dynamic_max = 0;
};

struct GetrfDevice {
  bool ready = false;
  int sms = 0;
  PanelKernel panel_kernel[2][2];  // [precision][0: every panel, 1: tall panels]
  cudaStream_t panel = nullptr;
  cudaEvent_t start = nullptr, panel_done = nullptr, next_ready = nullptr;
};

template <class T> constexpr int precision_index() { return std::is_same_v<T, float> ? 0 : 1; }

template <class T, int NT>
cudaError_t prepare_panel_kernel(size_t smem_optin, PanelKernel *kernel) {
  cudaFuncAttributes attributes{};
  cudaError_t error = cudaFuncGetAttributes(&attributes, kernels::getrf_panel<T, NT>);
  if (error != cudaSuccess) return error;
  const size_t dynamic_max = smem_optin > attributes.sharedSizeBytes ? smem_optin - attributes.sharedSizeBytes : 0;
  error = cudaFuncSetAttribute(kernels::getrf_panel<T, NT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(dynamic_max));
  *kernel = PanelKernel{reinterpret_cast<const void *>(kernels::getrf_panel<T, NT>), NT, dynamic_max};
  return error;
}

template <class T>
cudaError_t prepare_kernels(GetrfDevice &g, size_t smem_optin) {
  PanelKernel *kernel = g.panel_kernel[precision_index<T>()];
  cudaError_t error = prepare_panel_kernel<T, kernels::kPanelThreads>(smem_optin, &kernel[0]);
  if (error == cudaSuccess) error = prepare_panel_kernel<T, GetrfTune<T>::tall_threads>(smem_optin, &kernel[1]);
  if (error != cudaSuccess) return error;
  return cudaFuncSetAttribute(kernels::getrf_trsm<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kernels::TrsmShape<T>::smem_bytes()));
}

Status getrf_device_state(GetrfDevice **out) {
  static std::mutex mutex;
  static GetrfDevice *state = new GetrfDevice;
  std::lock_guard<std::mutex> lock(mutex);
  GetrfDevice &g = *state;
  if (!g.ready) {
    int device = 0, smem_optin = 0, low = 0, high = 0;
    cudaError_t error = cudaGetDevice(&device);
    if (error == cudaSuccess) error = cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, device);
    if (error == cudaSuccess) error = cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (Status s = check(error, "getrf: device attributes"); s != Status::ok) return s;
    if (size_t(smem_optin) < kernels::TrsmShape<double>::smem_bytes()) {
      log(1, "getrf: the GPU has too little shared memory per block (%d bytes); LU runs on the CPU", smem_optin);
      return Status::no_device;
    }
    error = cudaDeviceGetStreamPriorityRange(&low, &high);
    if (error == cudaSuccess && g.panel == nullptr)
      error = cudaStreamCreateWithPriority(&g.panel, cudaStreamNonBlocking, high);
    for (cudaEvent_t *event : {&g.start, &g.panel_done, &g.next_ready})
      if (error == cudaSuccess && *event == nullptr) error = cudaEventCreateWithFlags(event, cudaEventDisableTiming);
    if (error == cudaSuccess) error = prepare_kernels<float>(g, size_t(smem_optin));
    if (error == cudaSuccess) error = prepare_kernels<double>(g, size_t(smem_optin));
    if (Status s = check(error, "getrf: setup"); s != Status::ok) return s;
    g.ready = true;
  }
  *out = &g;
  return Status::ok;
}

// How one panel is spread over thread blocks (see kernels/getrf_panel.cuh).
struct PanelPlan {
  int blocks = 0, rows_per_block = 0, threads = 0;
  bool cache_rows = false;
  size_t smem = 0;
};

// In 64 bits: a + b - 1 passes INT_MAX for a near it; the quotient fits an int (b >= 1).
int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// The panel held in shared memory by blocks of `kernel` of about `target` rows each (or one
// block per SM if that is too few for a tall panel; the blocks wait for each other, so never
// more than the GPU holds at once). *fits: false when it does not fit (*plan unchanged).
Status plan_cached(const GetrfDevice &g, const PanelKernel &kernel, int rows, int cols, size_t elem_size, int target,
                   PanelPlan *plan, bool *fits) {
  *fits = false;
  const int most = std::min(g.sms, kernels::kPanelMaxBlocks);
  const int blocks = std::min(ceil_div(rows, target), most);
  const int per_block = ceil_div(rows, blocks);
  const size_t smem = size_t(per_block) * cols * elem_size;
  if (smem > kernel.dynamic_max) return Status::ok;
  int per_sm = 0;
  const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel.entry, kernel.threads, smem);
  if (Status s = check(error, "getrf: occupancy"); s != Status::ok) return s;
  if (std::min(per_sm * g.sms, kernels::kPanelMaxBlocks) < blocks) return Status::ok;
  *plan = PanelPlan{ceil_div(rows, per_block), per_block, kernel.threads, true, smem};
  *fits = true;
  return Status::ok;
}

template <class T>
Status plan_panel(const GetrfDevice &g, int rows, int cols, PanelPlan *plan) {
  const PanelKernel *kernel = g.panel_kernel[precision_index<T>()];
  bool fits = false;
  if (rows >= GetrfTune<T>::tall_from) {
    const int fitting = static_cast<int>(kernel[1].dynamic_max / (size_t(cols) * sizeof(T)));
    const int target = std::min(GetrfTune<T>::tall_panel_rows, fitting);
    if (target > GetrfTune<T>::panel_rows) {
      if (Status s = plan_cached(g, kernel[1], rows, cols, sizeof(T), target, plan, &fits); s != Status::ok) return s;
      if (fits) return Status::ok;
    }
  }
  if (Status s = plan_cached(g, kernel[0], rows, cols, sizeof(T), GetrfTune<T>::panel_rows, plan, &fits);
      s != Status::ok || fits)
    return s;
  // In place in global memory (L2-resident for all but huge panels): as many blocks as fit.
  int per_sm = 0;
  const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel[0].entry, kernel[0].threads, 0);
  if (Status s = check(error, "getrf: occupancy"); s != Status::ok) return s;
  const int capacity = std::min(per_sm * g.sms, kernels::kPanelMaxBlocks);
  if (capacity < 1) return check(cudaErrorInvalidConfiguration, "getrf: panel occupancy");
  const int blocks = std::min(ceil_div(rows, GetrfTune<T>::panel_rows), capacity);
  const int per_block = ceil_div(rows, blocks);
  *plan = PanelPlan{ceil_div(rows, per_block), per_block, kernel[0].threads, false, 0};
  return Status::ok;
}

}  // namespace

template <class T>
size_t getrf_device_workspace(int, int) {
  return kernels::PanelExchange<T>::bytes;
}

template <class T>
Status getrf_device(int m, int n, T *dA, size_t ldda, int *d_ipiv, int *d_info, void *d_work,
                    void *stream, int nb) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  if (d_work == nullptr || ldda < size_t(m)) return Status::no_device;
  GetrfDevice *gp = nullptr;
  if (Status s = getrf_device_state(&gp); s != Status::ok) return s;
  GetrfDevice &g = *gp;
  cudaStream_t work = static_cast<cudaStream_t>(stream);  // swaps, TRSM, GEMM
  if (nb <= 0) nb = GetrfTune<T>::nb;
  nb = std::min(nb, kernels::kPanelMaxCols);
  const int mn = std::min(m, n);
  auto *exchange = static_cast<unsigned long long *>(d_work);
  auto at = [&](int row, int col) { return dA + size_t(row) + size_t(col) * ldda; };

  // Panel [j, j+jb): factored on the panel stream.
  auto factor_panel = [&](int j, int jb) {
    PanelPlan plan;
    if (Status s = plan_panel<T>(g, m - j, jb, &plan); s != Status::ok) return s;
    const kernels::PanelArgs<T> args{at(j, j), ldda, m - j, jb, j, plan.rows_per_block,
                                     plan.cache_rows ? 1 : 0, d_ipiv, d_info, exchange};
    if (plan.threads == kernels::kPanelThreads)
      kernels::getrf_panel<T, kernels::kPanelThreads><<<plan.blocks, plan.threads, plan.smem, g.panel>>>(args);
    else
      kernels::getrf_panel<T, GetrfTune<T>::tall_threads><<<plan.blocks, plan.threads, plan.smem, g.panel>>>(args);
    cudaError_t error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaEventRecord(g.panel_done, g.panel);
    return check(error, "getrf: panel");
  };
  // Columns [c0, c0+w) after panel [j, j+jb): interchanges, U12 = inv(L11) A12, A22 -= L21 U12.
  auto update = [&](int j, int jb, int c0, int w) {
    if (w <= 0) return Status::ok;
    const unsigned swap_blocks = unsigned(ceil_div(w, kernels::kSwapThreads));
    kernels::getrf_swap_rows<T><<<swap_blocks, kernels::kSwapThreads, 0, work>>>(at(0, c0), ldda, w, d_ipiv, j, j + jb);
    using TS = kernels::TrsmShape<T>;
    if (jb > 1)
      kernels::getrf_trsm<T><<<unsigned(ceil_div(w, TS::NC)), TS::threads, TS::smem_bytes(), work>>>(
          at(j, j), ldda, at(j, c0), ldda, jb, w);
    if (Status s = check(cudaGetLastError(), "getrf: swap/trsm"); s != Status::ok) return s;
    if (m - j - jb <= 0) return Status::ok;
    return gemm_device<T>(false, false, m - j - jb, w, jb, T(-1), at(j + jb, j), ldda, at(j, c0), ldda,
                          T(1), at(j + jb, c0), ldda, work);
  };

  auto run = [&]() {
    cudaError_t error = cudaMemsetAsync(d_info, 0, sizeof(int), work);
    if (error == cudaSuccess) error = cudaMemsetAsync(exchange, 0, kernels::PanelExchange<T>::bytes, work);
    if (error == cudaSuccess) error = cudaEventRecord(g.start, work);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(g.panel, g.start, 0);
    if (Status s = check(error, "getrf: start"); s != Status::ok) return s;
    if (Status s = factor_panel(0, std::min(nb, mn)); s != Status::ok) return s;
    for (int j = 0; j < mn; j += nb) {
      const int jb = std::min(nb, mn - j);
      if (Status s = check(cudaStreamWaitEvent(work, g.panel_done, 0), "getrf: wait panel"); s != Status::ok) return s;
      // Look-ahead: the next panel's columns first, then its factorization (panel stream)
      // overlaps the update of everything right of it (this stream).
      const int next = j + jb, next_jb = std::min(nb, mn - next);
      if (next_jb > 0) {
        if (Status s = update(j, jb, next, next_jb); s != Status::ok) return s;
        error = cudaEventRecord(g.next_ready, work);
        if (error == cudaSuccess) error = cudaStreamWaitEvent(g.panel, g.next_ready, 0);
        if (Status s = check(error, "getrf: look-ahead"); s != Status::ok) return s;
        if (Status s = factor_panel(next, next_jb); s != Status::ok) return s;
      }
      const int rest = next + std::max(next_jb, 0);
      if (Status s = update(j, jb, rest, n - rest); s != Status::ok) return s;
      // The interchanges also apply to the columns of L left of the panel.
      if (j > 0) {
        kernels::getrf_swap_rows<T><<<unsigned(ceil_div(j, kernels::kSwapThreads)),
                                      kernels::kSwapThreads, 0, work>>>(at(0, 0), ldda, j, d_ipiv, j, j + jb);
        if (Status s = check(cudaGetLastError(), "getrf: swap"); s != Status::ok) return s;
      }
    }
    return Status::ok;
  };
  const Status status = run();
  if (status != Status::ok) {
    // Nothing may still be running on these buffers when the caller falls back or retries.
    cudaStreamSynchronize(g.panel);
    cudaStreamSynchronize(work);
  }
  return status;
}

template <class T>
Status getrf_host(int m, int n, T *a, int lda, int *ipiv, int *info) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(m), es);
  const int mn = std::min(m, n);
  const size_t exchange_bytes = getrf_device_workspace<T>(m, n);
  if (exchange_bytes == 0) return Status::no_device;
  // Work slot: the exchange buffers, then IPIV and INFO (adjacent: one copy brings both back).
  const size_t pivots_offset = (exchange_bytes + 255) / 256 * 256;
  void *dA = nullptr, *dW = nullptr;
  Status s = Status::ok;
  if ((s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA},
                                {Slot::work, pivots_offset + (size_t(mn) + 1) * sizeof(int), &dW}})) != Status::ok)
    return s;
  int *d_ipiv = reinterpret_cast<int *>(static_cast<char *>(dW) + pivots_offset);

  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  if ((s = getrf_device<T>(m, n, static_cast<T *>(dA), ldda, d_ipiv, d_ipiv + mn, dW, ctx.stream)) != Status::ok)
    return s;
  // Everything must have succeeded before the first byte of the caller's arrays changes: they
  // are the input of the CPU fallback.
  std::vector<int> pivots(size_t(mn) + 1);
  cudaError_t error = cudaMemcpyAsync(pivots.data(), d_ipiv, pivots.size() * sizeof(int),
                                      cudaMemcpyDeviceToHost, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  if ((s = check(error, "getrf")) != Status::ok) return s;
  if ((s = download_matrix(ctx, dA, ldda * es, size_t(m) * es, size_t(n), a, size_t(lda) * es)) != Status::ok)
    return s;
  std::copy(pivots.begin(), pivots.begin() + mn, ipiv);
  *info = pivots[mn];
  return Status::ok;
}

template Status getrf_host<float>(int, int, float *, int, int *, int *);
template Status getrf_host<double>(int, int, double *, int, int *, int *);
template size_t getrf_device_workspace<float>(int, int);
template size_t getrf_device_workspace<double>(int, int);
template Status getrf_device<float>(int, int, float *, size_t, int *, int *, void *, void *, int);
template Status getrf_device<double>(int, int, double *, size_t, int *, int *, void *, void *, int);

}  // namespace cudrop::impl
