// Single-precision GEMM by split TF32 (impl/gemm/gemm_split_tf32.h): packs op(A) and op(B) into
// their big and small TF32 parts, tile by tile as the kernel's shared memory wants them, then
// multiplies them on the tensor cores (kernels/gemm_split_tf32.cuh). Include that header here
// only: the shared-memory limits are raised for this translation unit's kernels.
#include "impl/gemm/gemm_split_tf32.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>

#include "core/env.h"
#include "core/log.h"
#include "core/tuning.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/stream_scratch.h"
#include "kernels/gemm_split_tf32.cuh"

namespace cudrop::impl {
namespace {

using Shape = kernels::SplitTf32Shape;

// Whether the calling thread's device runs split_tf32_gemm, asked once per device: a probe
// kernel compiled like it says whether this build holds sm_90a code for the device (another
// architecture, or a build without sm_90a, would run an empty kernel). The same once raises
// the kernels' shared-memory limits.
cudaError_t device_runs_split_tf32(cudaStream_t stream, bool *runs) {
  static kernels::PerDeviceOnce once;
  static std::atomic<bool> supported[kernels::PerDeviceOnce::kDevices];
  int device = 0;
  if (cudaError_t error = cudaGetDevice(&device); error != cudaSuccess) return error;
  if (device < 0 || device >= kernels::PerDeviceOnce::kDevices) {
    *runs = false;
    return cudaSuccess;
  }
  const cudaError_t error = kernels::once_per_device(once, [&] {
    int *flag = nullptr, answer = 0;
    cudaError_t e = cudaMallocAsync(&flag, sizeof(int), stream);
    if (e != cudaSuccess) return e;
    kernels::split_tf32_probe<<<1, 1, 0, stream>>>(flag);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemcpyAsync(&answer, flag, sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaFreeAsync(flag, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e == cudaSuccess && answer == 1) {
      e = cudaFuncSetAttribute(kernels::split_tf32_gemm<Shape>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(Shape::smem_bytes));
      // A device without that much shared memory per block: not this kernel's device.
      if (e == cudaErrorInvalidValue) {
        cudaGetLastError();
        answer = 0;
        e = cudaSuccess;
      }
    }
    supported[device].store(e == cudaSuccess && answer == 1, std::memory_order_release);
    return e;
  });
  *runs = error == cudaSuccess && supported[device].load(std::memory_order_acquire);
  return error;
}

size_t round_up(size_t value, size_t step) { return (value + step - 1) / step * step; }

// Packs op(X) (rows x cols along k, the k range this pass covers) into `out`.
template <int TILE_ROWS>
cudaError_t pack(bool rows_contiguous, const float *x, size_t ldx, long long rows, int cols, int kp, float *out,
                 int *nonfinite, cudaStream_t stream) {
  const dim3 grid(unsigned(round_up(size_t(rows), TILE_ROWS) / 32), unsigned(kp / 32));
  if (rows_contiguous)
    kernels::pack_split_tf32<TILE_ROWS, true><<<grid, 256, 0, stream>>>(x, ldx, rows, cols, kp, out, nonfinite);
  else
    kernels::pack_split_tf32<TILE_ROWS, false><<<grid, 256, 0, stream>>>(x, ldx, rows, cols, kp, out, nonfinite);
  return cudaGetLastError();
}

// The packed operands of an m x n x k product: padded extents, k per pass, and where the
// Inf/NaN flag lies after them (bytes from the workspace's start).
struct SplitLayout {
  size_t mp = 0, np = 0, pass_k = 0, flag_at = 0;
  size_t bytes() const { return flag_at + sizeof(int); }
};
SplitLayout split_layout(int m, int n, int k) {
  using S = Shape;
  SplitLayout l;
  l.mp = round_up(size_t(m), S::BM);
  l.np = round_up(size_t(n), S::BN);
  // k in passes whose split operands fit the workspace budget: 8 bytes per element of each
  // (and at most 65535 slices of 32: the packing grid's y extent).
  const size_t per_k = (l.mp + l.np) * 8;
  const size_t fit = std::max<size_t>(kernels::kSplitBK, (tuning::kSplitTf32WorkspaceMiB << 20) / per_k /
                                                             kernels::kSplitBK * kernels::kSplitBK);
  l.pass_k = std::min({round_up(size_t(k), kernels::kSplitBK), fit, size_t(65535) * kernels::kSplitBK});
  if (const int forced = settings().split_tf32_pass_k; forced > 0)
    l.pass_k = std::min(l.pass_k, round_up(size_t(forced), kernels::kSplitBK));
  l.flag_at = scratch_region(per_k * l.pass_k);
  return l;
}

Status run(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float *dA, size_t ldda,
           const float *dB, size_t lddb, float beta, float *dC, size_t lddc, cudaStream_t stream, GemmPart part,
           void *workspace, size_t workspace_bytes, bool *ran) {
  using S = Shape;
  const SplitLayout layout = split_layout(m, n, k);
  const size_t mp = layout.mp, pass_k = layout.pass_k;
  const long long m_tiles = (long long)(mp / S::BM), n_tiles = (long long)(layout.np / S::BN);
  if (m_tiles * n_tiles > INT_MAX) return Status::ok;  // more blocks than one launch takes: the FP32 kernel
  StreamScratch scratch(stream, "3xtf32 gemm workspace");
  char *work = nullptr;
  if (Status s = scratch.get(layout.bytes(), workspace, workspace_bytes, &work); s != Status::ok) {
    cudaGetLastError();  // an allocation failure is not a sticky error: the FP32 kernel runs instead
    log(2, "sgemm 3xtf32: no %.1f MiB workspace; the FP32 kernel runs", layout.bytes() / 1048576.0);
    return Status::ok;
  }
  float *a_packed = reinterpret_cast<float *>(work);
  float *b_packed = a_packed + mp * pass_k * 2;
  int *nonfinite = reinterpret_cast<int *>(work + layout.flag_at);
  cudaError_t error = cudaSuccess;
  for (size_t k0 = 0; k0 < size_t(k) && error == cudaSuccess; k0 += pass_k) {
    const int cols = int(std::min(pass_k, size_t(k) - k0));
    const int kp = int(round_up(size_t(cols), kernels::kSplitBK));
    // op(A)(i, l): A(i, l) (rows contiguous) or A(l, i); op(B)(l, j) as rows j: B(l, j) or B(j, l).
    error = cudaMemsetAsync(nonfinite, 0, sizeof(int), stream);
    if (error == cudaSuccess)
      error = pack<S::BM>(!trans_a, trans_a ? dA + k0 : dA + k0 * ldda, ldda, m, cols, kp, a_packed, nonfinite,
                          stream);
    if (error == cudaSuccess)
      error = pack<S::BN>(trans_b, trans_b ? dB + k0 * lddb : dB + k0, lddb, n, cols, kp, b_packed, nonfinite,
                          stream);
    if (error != cudaSuccess) break;
    kernels::SplitTf32Args args{};
    args.a_packed = a_packed;
    args.b_packed = b_packed;
    args.k_slices = kp / kernels::kSplitBK;
    args.m = m;
    args.n = n;
    args.m_tiles = int(m_tiles);
    args.n_tiles = int(n_tiles);
    args.group_m = tuning::kSplitTf32GroupM;
    args.alpha = alpha;
    args.beta = k0 == 0 ? beta : 1.0f;
    args.c = dC;
    args.ldc = lddc;
    args.part = part;
    args.nonfinite = nonfinite;
    kernels::split_tf32_gemm<S><<<unsigned(m_tiles * n_tiles), S::threads, S::smem_bytes, stream>>>(args);
    error = cudaGetLastError();
  }
  if (error != cudaSuccess) {
    char what[128];
    std::snprintf(what, sizeof what, "3xtf32 gemm (%c%c m=%d n=%d k=%d)", trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m,
                  n, k);
    return check(error, what);
  }
  *ran = true;
  return Status::ok;
}

}  // namespace

size_t split_tf32_workspace(int m, int n, int k) {
  return m > 0 && n > 0 && k > 0 ? split_layout(m, n, k).bytes() : 0;
}

Status split_tf32_gemm_device(Op trans_a, Op trans_b, int m, int n, int k, float alpha, const float *dA,
                              size_t ldda, const float *dB, size_t lddb, float beta, float *dC, size_t lddc,
                              void *stream, GemmPart part, void *workspace, size_t workspace_bytes, bool *ran) {
  *ran = false;
  if (m <= 0 || n <= 0 || k <= 0) return Status::ok;
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  bool runs = false;
  if (Status s = check(device_runs_split_tf32(cuda_stream, &runs), "3xtf32 probe"); s != Status::ok) return s;
  if (!runs) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) log(1, "CUDROP_SGEMM=3xtf32: this device or build has no sm_90a code; FP32 kernels run");
    return Status::ok;
  }
  return run(trans_a.transposed(), trans_b.transposed(), m, n, k, alpha, dA, ldda, dB, lddb, beta, dC, lddc, cuda_stream, part, workspace,
             workspace_bytes, ran);
}

}  // namespace cudrop::impl
