// Solves with a symmetric indefinite factor on the GPU, the device interface (impl/sytrf/sytrf.h).
// The reference's xSYTRS walks the factor one block at a time; here the blocks are grouped in
// panels of about kSytrsNb columns (never splitting a 2x2 block). Within a panel, the later
// interchanges are applied to the earlier multipliers (a copy of the factor: it is read only), so
// that the panel is a unit triangle after its interchanges, as xLASYF held it: each panel is then
// its swaps, one triangular solve and one GEMM, forward and backward, with D's blocks between.
#include <algorithm>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/gemm/gemm.h"
#include "impl/level3/level3_device.h"
#include "impl/sytrf/sytrf.h"
#include "kernels/sytrs.cuh"

namespace cudrop::impl {
namespace {

constexpr int kSytrsNb = 64;

struct SytrsLayout {
  size_t l_offset, meta_offset, trsm_offset, trsm_bytes, bytes;
};

template <class T>
SytrsLayout sytrs_layout(int n, int nrhs) {
  SytrsLayout l{};
  const size_t ldl = padded_ld(size_t(std::max(n, 1)), sizeof(T));
  l.l_offset = 0;
  l.meta_offset = size_t(round_up(ldl * size_t(std::max(n, 1)) * sizeof(T), 256));
  // blocks (4 ints each, at most n), col_block (n), panel_end (n)
  l.trsm_offset = size_t(round_up(l.meta_offset + 6 * size_t(std::max(n, 1)) * sizeof(int), 256));
  l.trsm_bytes = trsm_device_workspace<T>(Side::left, std::min(n, 2 * kSytrsNb), std::max(nrhs, 1));
  l.bytes = l.trsm_offset + size_t(round_up(l.trsm_bytes, 256));
  return l;
}

// The blocks in the order of the forward solve, each block's panel end, and the panels.
struct SytrsPlan {
  std::vector<kernels::SytrsBlock> blocks;
  std::vector<int> col_block, panel_end;
  std::vector<std::pair<int, int>> panels;  // [b0, b1) in block order
};

bool sytrs_plan(bool upper, int n, const int *ipiv, SytrsPlan *plan) {
  plan->col_block.assign(size_t(n), 0);
  for (int step = 0; step < n;) {
    const int k = upper ? n - 1 - step : step;  // the block's column the reference meets first
    kernels::SytrsBlock b{};
    if (ipiv[k] > 0) {
      b = {k, 1, k, ipiv[k] - 1};
    } else {
      const int other = upper ? k - 1 : k + 1;
      if (other < 0 || other >= n) return false;
      const int first = std::min(k, other);
      // The interchanged row: the second for 'L', the first for 'U' (xSYTRS).
      b = {first, 2, upper ? first : first + 1, -ipiv[k] - 1};
    }
    if (b.kp < 0 || b.kp >= n) return false;
    plan->col_block[size_t(b.p)] = int(plan->blocks.size());
    if (b.size == 2) plan->col_block[size_t(b.p + 1)] = int(plan->blocks.size());
    plan->blocks.push_back(b);
    step += b.size;
  }
  const int nblocks = int(plan->blocks.size());
  plan->panel_end.assign(size_t(nblocks), 0);
  for (int b0 = 0; b0 < nblocks;) {
    int b1 = b0, cols = 0;
    while (b1 < nblocks && (cols == 0 || cols + plan->blocks[size_t(b1)].size <= kSytrsNb))
      cols += plan->blocks[size_t(b1++)].size;
    for (int b = b0; b < b1; ++b) plan->panel_end[size_t(b)] = b1;
    plan->panels.push_back({b0, b1});
    b0 = b1;
  }
  return true;
}

}  // namespace

template <class T>
size_t sytrs_device_workspace(int n, int nrhs) {
  return sytrs_layout<T>(n, nrhs).bytes;
}

template <class T>
Status sytrs_device(Symmetry symmetry, Uplo uplo, int n, int nrhs, const T *dA, size_t ldda, const int *ipiv, T *dB,
                    size_t lddb, void *d_work, size_t work_bytes, void *stream_ptr) {
  if (n <= 0 || nrhs <= 0) return Status::ok;
  const SytrsLayout lay = sytrs_layout<T>(n, nrhs);
  if (work_bytes < lay.bytes || d_work == nullptr) return Status::out_of_memory;
  if (inject_fault("launch")) return Status::cuda_error;
  const bool upper = uplo == Uplo::upper, herm = symmetry == Symmetry::hermitian && is_complex_v<T>;
  SytrsPlan plan;
  if (!sytrs_plan(upper, n, ipiv, &plan)) return Status::no_device;
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  char *work = static_cast<char *>(d_work);
  T *dL = reinterpret_cast<T *>(work + lay.l_offset);
  const size_t ldl = padded_ld(size_t(n), sizeof(T));
  auto *d_blocks = reinterpret_cast<kernels::SytrsBlock *>(work + lay.meta_offset);
  int *d_col_block = reinterpret_cast<int *>(d_blocks + n);
  int *d_panel_end = d_col_block + n;
  void *trsm_work = work + lay.trsm_offset;
  const int nblocks = int(plan.blocks.size());
  // The plan goes up from pageable memory: each copy returns once its source has been staged.
  cudaError_t error = cudaMemcpyAsync(d_blocks, plan.blocks.data(), size_t(nblocks) * sizeof(kernels::SytrsBlock),
                                      cudaMemcpyHostToDevice, stream);
  if (error == cudaSuccess)
    error = cudaMemcpyAsync(d_col_block, plan.col_block.data(), size_t(n) * sizeof(int), cudaMemcpyHostToDevice, stream);
  if (error == cudaSuccess)
    error = cudaMemcpyAsync(d_panel_end, plan.panel_end.data(), size_t(nblocks) * sizeof(int), cudaMemcpyHostToDevice,
                            stream);
  if (error == cudaSuccess)
    error = cudaMemcpy2DAsync(dL, ldl * sizeof(T), dA, ldda * sizeof(T), size_t(n) * sizeof(T), size_t(n),
                              cudaMemcpyDeviceToDevice, stream);
  if (error == cudaSuccess) {
    kernels::sytrs_standard_form<T><<<unsigned((n + kernels::kSytrsThreads - 1) / kernels::kSytrsThreads),
                                      kernels::kSytrsThreads, 0, stream>>>(n, upper, d_blocks, d_col_block,
                                                                           d_panel_end, dL, ldl);
    error = cudaGetLastError();
  }
  Status s = check(error, "sytrs: setup");
  const unsigned rhs_blocks = unsigned((nrhs + kernels::kSytrsThreads - 1) / kernels::kSytrsThreads);
  auto swaps = [&](int b0, int b1, bool forward) {
    kernels::sytrs_swap_rows<T><<<rhs_blocks, kernels::kSytrsThreads, 0, stream>>>(nrhs, d_blocks, b0, b1, forward,
                                                                                   dB, lddb);
    return check(cudaGetLastError(), "sytrs: interchanges");
  };
  auto cols_of = [&](const std::pair<int, int> &pn, int *c0, int *c1) {
    const kernels::SytrsBlock &a = plan.blocks[size_t(pn.first)], &b = plan.blocks[size_t(pn.second - 1)];
    *c0 = std::min(a.p, b.p);
    *c1 = std::max(a.p + a.size, b.p + b.size);
  };
  const T *L = dL;
  auto at = [&](int i, int j) { return L + size_t(i) + size_t(j) * ldl; };
  auto bat = [&](int i) { return dB + size_t(i); };
  const Op back = herm ? Op::conj_trans : Op::trans;
  // Forward: B := L^-1 P B (U^-1 P B), panel by panel in the reference's order.
  for (size_t t = 0; t < plan.panels.size() && s == Status::ok; ++t) {
    int c0, c1;
    cols_of(plan.panels[t], &c0, &c1);
    const int w = c1 - c0;
    if ((s = swaps(plan.panels[t].first, plan.panels[t].second, true)) != Status::ok) break;
    s = trsm_device<T>(Side::left, uplo, Op::none, Diag::unit, w, nrhs, T(1), at(c0, c0), ldl, bat(c0), lddb, stream,
                       trsm_work, lay.trsm_bytes);
    if (s != Status::ok) break;
    if (!upper && c1 < n)
      s = gemm_device<T>(Op::none, Op::none, n - c1, nrhs, w, T(-1), at(c1, c0), ldl, bat(c0), lddb, T(1), bat(c1),
                         lddb, stream);
    if (upper && c0 > 0)
      s = gemm_device<T>(Op::none, Op::none, c0, nrhs, w, T(-1), at(0, c0), ldl, bat(c0), lddb, T(1), bat(0), lddb,
                         stream);
  }
  if (s == Status::ok) {
    const long long threads = (long long)nblocks * nrhs;
    kernels::sytrs_diagonal<T><<<unsigned((threads + kernels::kSytrsThreads - 1) / kernels::kSytrsThreads),
                                 kernels::kSytrsThreads, 0, stream>>>(nblocks, nrhs, upper, herm, d_blocks, dA, ldda,
                                                                      dB, lddb);
    s = check(cudaGetLastError(), "sytrs: diagonal");
  }
  // Backward: B := P^T L^-T B (^H for xHETRS), the panels in reverse.
  for (size_t t = plan.panels.size(); t-- > 0 && s == Status::ok;) {
    int c0, c1;
    cols_of(plan.panels[t], &c0, &c1);
    const int w = c1 - c0;
    if (!upper && c1 < n)
      s = gemm_device<T>(back, Op::none, w, nrhs, n - c1, T(-1), at(c1, c0), ldl, bat(c1), lddb, T(1), bat(c0), lddb,
                         stream);
    if (upper && c0 > 0)
      s = gemm_device<T>(back, Op::none, w, nrhs, c0, T(-1), at(0, c0), ldl, bat(0), lddb, T(1), bat(c0), lddb, stream);
    if (s != Status::ok) break;
    s = trsm_device<T>(Side::left, uplo, back, Diag::unit, w, nrhs, T(1), at(c0, c0), ldl, bat(c0), lddb, stream,
                       trsm_work, lay.trsm_bytes);
    if (s == Status::ok) s = swaps(plan.panels[t].first, plan.panels[t].second, false);
  }
  return s;
}

#define CUDROP_SYTRS_DEVICE_INSTANCES(T)            \
  template size_t sytrs_device_workspace<T>(int, int); \
  template Status sytrs_device<T>(Symmetry, Uplo, int, int, const T *, size_t, const int *, T *, size_t, void *, \
                                  size_t, void *);
CUDROP_SYTRS_DEVICE_INSTANCES(float)
CUDROP_SYTRS_DEVICE_INSTANCES(double)
CUDROP_SYTRS_DEVICE_INSTANCES(Complex<float>)
CUDROP_SYTRS_DEVICE_INSTANCES(Complex<double>)
#undef CUDROP_SYTRS_DEVICE_INSTANCES

}  // namespace cudrop::impl
