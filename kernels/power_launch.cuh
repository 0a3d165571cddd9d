#pragma once
// Launchers of the power method's kernels (kernels/power.cuh, csr_power.cuh, sell_power.cuh):
// each takes its grid and stream from the caller (impl/power_* chooses them), launches, and
// returns the launch's error. They hold no policy.
#include <cuda_runtime.h>

#include <utility>

#include "kernels/csr_power.cuh"
#include "kernels/power.cuh"
#include "kernels/sell_power.cuh"

namespace cudrop::kernels {

// A once-per-call kernel of kPowerThreads-thread blocks.
struct PowerLaunch {
  unsigned grid;
  cudaStream_t stream;
};

// One step of the iteration loop. chained: with programmatic stream serialization (the kernel
// may be scheduled while the one before it drains, and waits in wait_for_previous_kernel).
// window_bytes > 0: the launch carries an L2 access-policy window over window_base, lines hit
// with hit_ratio persisting, the others streaming.
struct PowerStepLaunch {
  unsigned grid;
  cudaStream_t stream;
  bool chained;
  void *window_base;
  size_t window_bytes;
  float hit_ratio;
};

template <class... Params, class... Args>
cudaError_t launch_power_step(const PowerStepLaunch &c, void (*kernel)(Params...), Args &&...args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(c.grid);
  config.blockDim = dim3(kPowerThreads);
  config.stream = c.stream;
  cudaLaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (c.chained) {
    attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[count].val.programmaticStreamSerializationAllowed = 1;
    ++count;
  }
  if (c.window_bytes > 0) {
    cudaAccessPolicyWindow &policy = attributes[count].val.accessPolicyWindow;
    attributes[count].id = cudaLaunchAttributeAccessPolicyWindow;
    policy.base_ptr = c.window_base;
    policy.num_bytes = c.window_bytes;
    policy.hitRatio = c.hit_ratio;
    policy.hitProp = cudaAccessPropertyPersisting;
    policy.missProp = cudaAccessPropertyStreaming;
    ++count;
  }
  config.attrs = attributes;
  config.numAttrs = count;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

template <class T>
cudaError_t launch_power_fill(const PowerLaunch &c, int n, T *x, T value) {
  power_fill<T><<<c.grid, kPowerThreads, 0, c.stream>>>(n, x, value);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_power_csr_validate(const PowerLaunch &c, int n, long long nnz, const int *rowptr,
                                      const int *colind, int base, PowerState<T> *state) {
  power_csr_validate<T><<<c.grid, kPowerThreads, 0, c.stream>>>(n, nnz, rowptr, colind, base, state);
  return cudaGetLastError();
}

// Each of `parts` blocks' first row, balanced by entries.
inline cudaError_t launch_power_csr_partition(const PowerLaunch &c, int n, long long nnz, const int *rowptr, int base,
                                              int parts, int *part_rows) {
  power_csr_partition<<<c.grid, kPowerThreads, 0, c.stream>>>(n, nnz, rowptr, base, parts, part_rows);
  return cudaGetLastError();
}

// The SELL copy's description: rows sorted by length within windows, the slices' widths and
// starts and, where reach_grid > 0, whether every column is near its row (stats->far).
inline cudaError_t launch_power_sell_describe(cudaStream_t stream, unsigned reach_grid, int n, long long nnz,
                                              const int *rowptr, const int *colind, int base, int *row_of,
                                              int *row_len, int *row_word, long long *slice_start,
                                              SellStats *stats) {
  const long long positions = sell_positions(n);
  power_sell_sort<<<unsigned(positions / kSellWindow), kSellWindow, 0, stream>>>(n, rowptr, row_of, row_len,
                                                                                 row_word);
  power_sell_widths<<<1, 1024, 0, stream>>>(sell_slices(n), row_len, slice_start, stats);
  if (reach_grid > 0)
    power_sell_reach<<<reach_grid, kPowerThreads, 0, stream>>>(n, nnz, colind, rowptr, base, stats);
  return cudaGetLastError();
}

// The SELL copy's entries (Col: int columns or short distances), then each of `parts` blocks'
// first slice (partition_grid blocks of kPowerThreads).
template <class T, class Col>
cudaError_t launch_power_sell_fill(cudaStream_t stream, unsigned partition_grid, int n, const T *val,
                                   const int *colind, const int *rowptr, int base, const int *row_of,
                                   const int *row_len, const long long *slice_start, T *sell_val, Col *sell_col,
                                   int parts, int *part) {
  const int slices = sell_slices(n);
  const unsigned fill_grid = unsigned((sell_positions(n) + kPowerThreads - 1) / kPowerThreads);
  power_sell_fill<T, Col><<<fill_grid, kPowerThreads, 0, stream>>>(n, slices, val, colind, rowptr, base, row_of,
                                                                   row_len, slice_start, sell_val, sell_col);
  power_sell_partition<<<partition_grid, kPowerThreads, 0, stream>>>(slices, slice_start, parts, part);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
