// The power method on a CSR matrix on the GPU: the device interface (impl/power/power.h). The
// structure check, then the loop on the SELL copy of the matrix where it suits, else on the
// CSR-stream kernel over the caller's arrays.
#include <cstdint>

#include "impl/power/power_loop.cuh"
#include "impl/power/power_plan.cuh"

namespace cudrop::impl {
namespace power {
namespace {

// Before either CSR loop: the state reset and the structure check.
template <class T>
Status csr_start(PowerCall &g, const CsrPlan<T> &p, int n, long long nnz, const int *dcolind, const int *drowptr,
                 int base, char *work, cudaStream_t stream, const PowerOptions &opt) {
  auto *state = reinterpret_cast<PowerState<T> *>(work + p.state);
  int check_wave = 0;
  Status s = one_wave(g, kernels::power_csr_validate<T>, &check_wave);
  if (s == Status::ok) s = start_state(state, stream);
  if (s != Status::ok || !opt.validate_csr) return s;
  const kernels::PowerLaunch config{unsigned(grid_for(std::max<long long>(n, nnz), check_wave)), stream};
  return check(kernels::launch_power_csr_validate<T>(config, n, nnz, drowptr, dcolind, base, state), "power: csr check");
}

// The SELL copy, when the matrix suits it: sorts each window's rows, sizes the slices and
// looks for columns too far from their rows for 16 bits, looks at the result (one wait for the
// GPU, once per call), then fills the copy and splits the slices among the blocks.
// *made = false leaves the CSR-stream kernel to run the loop: rows wider than kSellMaxWidth,
// padding beyond the capacity, far columns in a matrix with fewer than kSellMinAverageRow
// entries per row on average, or a structure the check rejected (the copy would follow its
// indices). *near: the copy holds 16-bit distances.
template <class T>
Status sell_copy(PowerCall &g, const CsrPlan<T> &p, int n, long long nnz, const T *dval, const int *dcolind,
                 const int *drowptr, int base, char *work, cudaStream_t stream, bool *made,
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
  int reach_wave = 0;
  Status s = one_wave(g, kernels::power_sell_reach, &reach_wave);
  if (s == Status::ok) s = check(cudaMemsetAsync(stats, 0, sizeof(SellStats), stream), "power: sell stats");
  if (s != Status::ok) return s;
  // Whether columns are near their rows is looked for only where SellTune says the copy may use it.
  const unsigned reach_grid = SellTune<T>::near ? unsigned(grid_for(n, reach_wave)) : 0;
  s = check(kernels::launch_power_sell_describe(stream, reach_grid, n, nnz, drowptr, dcolind, base, row_of, row_len,
                                                row_word, slice_start, stats),
            "power: sell sort");
  if (s != Status::ok) return s;
  auto *seen = static_cast<SellStats *>(g.lane->sell_probe);
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
  T *sell_val = reinterpret_cast<T *>(work + p.sell_val);
  auto *part = reinterpret_cast<int *>(work + p.sell_part);
  const unsigned partition_grid = unsigned(grid_for(p.sell_blocks + 1LL, 1024));
  bool filled_near = false;
  cudaError_t launch = cudaSuccess;
  if constexpr (SellTune<T>::near) {  // no short-index kernels for a precision that never uses them
    if (near_columns) {
      launch = kernels::launch_power_sell_fill<T, short>(stream, partition_grid, n, dval, dcolind, drowptr, base,
                                                         row_of, row_len, slice_start, sell_val,
                                                         reinterpret_cast<short *>(work + p.sell_col),
                                                         p.sell_blocks, part);
      filled_near = true;
    }
  }
  if (!filled_near)
    launch = kernels::launch_power_sell_fill<T, int>(stream, partition_grid, n, dval, dcolind, drowptr, base, row_of,
                                                     row_len, slice_start, sell_val,
                                                     reinterpret_cast<int *>(work + p.sell_col), p.sell_blocks, part);
  if ((s = check(launch, "power: sell copy")) != Status::ok) return s;
  log(2, "power: SELL copy, %lld entries with padding (%lld in CSR), widest row %d, %s column indices", seen->entries,
      nnz, seen->widest, near_columns ? "16-bit" : "32-bit");
  *made = true;
  *near = near_columns;
  return Status::ok;
}

template <class T, class Col>
Status sell_iterations(PowerCall &g, const CsrPlan<T> &p, int n, T *dx, T tol, int maxit, char *work,
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
  auto matvec = [&] {
    return launch_step(g, window, sell_kernel<T, Col>(), p.sell_blocks, stream, n, sell_val, sell_col, row_word,
                       slice_start, part, dx, y, slot_v, slot_i, state);
  };
  return iterate(g, window, stream, scale_grid, n, y, dx, tol, maxit, state, opt, matvec, result);
}

// The loop on the SELL copy, by its column index type (short only where SellTune<T>::near:
// no such kernels are made for the other precision).
template <class T>
Status sell_loop(bool near, PowerCall &g, const CsrPlan<T> &p, int n, T *dx, T tol, int maxit, char *work,
                 cudaStream_t stream, const L2Window &window, const PowerOptions &opt, PowerResult<T> *result) {
  if constexpr (SellTune<T>::near) {
    if (near) return sell_iterations<T, short>(g, p, n, dx, tol, maxit, work, stream, window, opt, result);
  }
  return sell_iterations<T, int>(g, p, n, dx, tol, maxit, work, stream, window, opt, result);
}

template <class T, int TPR>
Status csr_iterations(PowerCall &g, const CsrPlan<T> &p, int n, long long nnz, const T *dval,
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
  s = check(kernels::launch_power_csr_partition({unsigned(grid_for(p.blocks + 1LL, check_wave)), stream}, n, nnz,
                                                 drowptr, base, p.blocks, part_rows),
            "power: csr partition");
  if (s != Status::ok) return s;
  const int scale_grid = kernels::power_scale_blocks(n, scale_wave);
  // 16-byte loads of 4 entries when both arrays allow them (cudaMalloc'd arrays do).
  const bool vec = reinterpret_cast<uintptr_t>(dval) % 16 == 0 && reinterpret_cast<uintptr_t>(dcolind) % 16 == 0 &&
                   !csr_elementwise_forced();
  auto matvec = [&] {
    return launch_step(g, window, kernels::power_csr_max<T, TPR>, p.blocks, stream, n, nnz, dval, dcolind,
                       drowptr, base, vec, part_rows, dx, y, slot_v, slot_i, state);
  };
  return iterate(g, window, stream, scale_grid, n, y, dx, tol, maxit, state, opt, matvec, result);
}

}  // namespace
}  // namespace power

using namespace power;

template <class T>
Status power_csr_workspace(int n, long long nnz, size_t *bytes, size_t *bytes_with_copy) {
  PowerCall g;
  if (Status s = begin_call(&g); s != Status::ok) return s;
  CsrPlan<T> p;
  if (Status s = csr_plan<T>(g, n, nnz, &p); s != Status::ok) return s;
  *bytes = p.bytes;
  if (bytes_with_copy != nullptr) *bytes_with_copy = sell_may_pay<T>(n, nnz) ? p.sell_bytes : p.bytes;
  return Status::ok;
}

template <class T>
Status power_csr_device(int n, long long nnz, const T *dval, const int *dcolind, const int *drowptr,
                        int base, T *dx, T tol, int maxit, void *d_work, size_t work_bytes,
                        void *stream, const PowerOptions &opt, PowerResult<T> *result) {
  *result = PowerResult<T>{};
  if (inject_fault("launch")) return Status::cuda_error;
  if (n <= 0) return Status::ok;
  PowerCall g;
  if (Status s = begin_call(&g); s != Status::ok) return s;
  CsrPlan<T> p;
  if (Status s = csr_plan<T>(g, n, nnz, &p); s != Status::ok) return s;
  if (work_bytes < p.bytes || reinterpret_cast<uintptr_t>(d_work) % kAlign != 0) {
    log(1, "power: workspace of %zu bytes at %p is too small or misaligned (%zu needed)", work_bytes, d_work, p.bytes);
    return Status::cuda_error;
  }
  auto *work = static_cast<char *>(d_work);
  auto st = static_cast<cudaStream_t>(stream);
  Status s = csr_start<T>(g, p, n, nnz, dcolind, drowptr, base, work, st, opt);
  bool sell = false, near = false;
  if (s == Status::ok && work_bytes >= p.sell_bytes && sell_may_pay<T>(n, nnz))
    s = sell_copy<T>(g, p, n, nnz, dval, dcolind, drowptr, base, work, st, &sell, &near);
  if (s != Status::ok) return s;
  result->sell_copy = sell;
  result->sell_near = near;
  // The loop runs on the workspace's x, next to y (L2Residency); the caller's comes back at the end.
  T *xw = reinterpret_cast<T *>(work + p.x);
  const size_t vector_bytes = size_t(n) * sizeof(T);
  s = opt.start_ones ? fill_ones(g, n, xw, st)
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

template Status power_csr_workspace<float>(int, long long, size_t *, size_t *);
template Status power_csr_workspace<double>(int, long long, size_t *, size_t *);
template Status power_csr_device<float>(int, long long, const float *, const int *, const int *, int, float *,
                                        float, int, void *, size_t, void *, const PowerOptions &,
                                        PowerResult<float> *);
template Status power_csr_device<double>(int, long long, const double *, const int *, const int *, int, double *,
                                         double, int, void *, size_t, void *, const PowerOptions &,
                                         PowerResult<double> *);

}  // namespace cudrop::impl
