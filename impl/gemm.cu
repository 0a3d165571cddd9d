#include "impl/gemm.h"

#include <algorithm>

#include "impl/gpu_context.cuh"
#include "kernels/gemm_tiled.cuh"

namespace cudrop::impl {
namespace {

// Device copies are packed with columns padded to 128 bytes, so that every column starts
// on a coalescing boundary whatever the caller's LD or alignment was.
size_t padded_ld(size_t rows, size_t element_size) {
  const size_t per_line = 128 / element_size;
  return (rows + per_line - 1) / per_line * per_line;
}

// Column-panel width of the transfer/compute pipeline: about eight panels, each at least a
// few kernel tiles wide; a call too small to gain from overlap gets one panel (= no pipeline).
int pipeline_panel_cols(int m, int n, int k, size_t element_size) {
  const double bytes = (double(m) * k + double(k) * n + double(m) * n) * element_size;
  if (bytes < 48e6 || n < 1024) return n;
  const int eighth = (n + 7) / 8;
  return std::max(256, (eighth + 127) / 128 * 128);
}

}  // namespace

template <class T>
Status gemm_device(bool trans_a, bool trans_b, int m, int n, int k, T alpha, const T *dA,
                   size_t ldda, const T *dB, size_t lddb, T beta, T *dC, size_t lddc,
                   void *stream) {
  if (inject_fault("launch")) return Status::cuda_error;
  return check(kernels::launch_gemm_tiled(trans_a, trans_b, m, n, k, alpha, dA, ldda, dB, lddb,
                                          beta, dC, lddc, static_cast<cudaStream_t>(stream)),
               "gemm kernel launch");
}

template <class T>
Status gemm_host(const GemmArgs<T> &g) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T);
  // With alpha == 0 or k == 0 the product vanishes: A and B are not read at all.
  const bool uses_ab = g.alpha != T(0) && g.k > 0;
  const size_t rows_a = g.trans_a ? g.k : g.m, cols_a = g.trans_a ? g.m : g.k;
  const size_t rows_b = g.trans_b ? g.n : g.k, cols_b = g.trans_b ? g.k : g.n;
  const size_t ldda = padded_ld(rows_a, es), lddb = padded_ld(rows_b, es), lddc = padded_ld(g.m, es);

  void *dA = nullptr, *dB = nullptr, *dC = nullptr;
  Status s = Status::ok;
  if (uses_ab) {
    s = device_buffers(ctx, {{Slot::a, ldda * cols_a * es, &dA}, {Slot::b, lddb * cols_b * es, &dB},
                             {Slot::c, lddc * g.n * es, &dC}});
  } else {
    s = device_buffer(ctx, Slot::c, lddc * g.n * es, &dC);
  }
  if (s != Status::ok) return s;

  const int panel = pipeline_panel_cols(g.m, g.n, g.k, es);
  if (!uses_ab || panel >= g.n) {
    if (uses_ab) {
      if ((s = upload_matrix(ctx, g.a, g.lda * es, rows_a * es, cols_a, dA, ldda * es)) != Status::ok) return s;
      if ((s = upload_matrix(ctx, g.b, g.ldb * es, rows_b * es, cols_b, dB, lddb * es)) != Status::ok) return s;
    }
    // beta == 0: C is never read, so it is not even sent.
    if (g.beta != T(0)) {
      if ((s = upload_matrix(ctx, g.c, g.ldc * es, g.m * es, g.n, dC, lddc * es)) != Status::ok) return s;
    }
    s = gemm_device<T>(g.trans_a, g.trans_b, g.m, g.n, uses_ab ? g.k : 0, g.alpha,
                       static_cast<const T *>(dA), ldda, static_cast<const T *>(dB), lddb, g.beta,
                       static_cast<T *>(dC), lddc, ctx.stream);
    if (s != Status::ok) return s;
    // Everything must have succeeded before the first byte of the caller's C changes: a
    // failure after that point could not fall back to the CPU with C intact.
    if ((s = check(cudaStreamSynchronize(ctx.stream), "gemm")) != Status::ok) return s;
    return download_matrix(ctx, dC, lddc * es, g.m * es, g.n, g.c, g.ldc * es);
  }

  // Pipelined: A goes first; then column panels of B (and C) are sent while the previous
  // panel is multiplied on the compute stream, and finished panels of C come back while
  // later ones are multiplied. With beta != 0 the caller's C is the input of a CPU fallback,
  // so it is only written once every panel has succeeded.
  const bool early_download = g.beta == T(0);
  if ((s = upload_matrix(ctx, g.a, g.lda * es, rows_a * es, cols_a, dA, ldda * es)) != Status::ok) return s;
  auto *hc = reinterpret_cast<char *>(g.c);
  auto *c_dev = static_cast<char *>(dC);
  auto download_panel = [&](int first, int cols, int parity) {
    Status status = check(cudaStreamWaitEvent(ctx.stream, ctx.panel_done[parity], 0), "gemm pipeline");
    if (status != Status::ok) return status;
    return download_matrix(ctx, c_dev + size_t(first) * lddc * es, lddc * es, g.m * es, cols,
                           hc + size_t(first) * g.ldc * es, g.ldc * es);
  };
  for (int first = 0, index = 0; first < g.n; first += panel, ++index) {
    const int cols = std::min(panel, g.n - first);
    // op(B)(:, first:first+cols) is a block of columns of B, or a block of rows of B^T.
    const size_t b_host = g.trans_b ? size_t(first) : size_t(first) * g.ldb;
    const size_t b_dev = g.trans_b ? size_t(first) : size_t(first) * lddb;
    const size_t b_rows = g.trans_b ? size_t(cols) : size_t(g.k), b_cols = g.trans_b ? size_t(g.k) : size_t(cols);
    if ((s = upload_matrix(ctx, g.b + b_host, g.ldb * es, b_rows * es, b_cols,
                           static_cast<T *>(dB) + b_dev, lddb * es)) != Status::ok) return s;
    if (g.beta != T(0)) {
      if ((s = upload_matrix(ctx, g.c + size_t(first) * g.ldc, g.ldc * es, g.m * es, cols,
                             c_dev + size_t(first) * lddc * es, lddc * es)) != Status::ok) return s;
    }
    cudaError_t error = cudaEventRecord(ctx.panel_ready, ctx.stream);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx.compute, ctx.panel_ready, 0);
    if ((s = check(error, "gemm pipeline")) != Status::ok) return s;
    s = gemm_device<T>(g.trans_a, g.trans_b, g.m, cols, g.k, g.alpha, static_cast<const T *>(dA), ldda,
                       static_cast<const T *>(dB) + b_dev, lddb, g.beta,
                       reinterpret_cast<T *>(c_dev + size_t(first) * lddc * es), lddc, ctx.compute);
    if (s != Status::ok) return s;
    if ((s = check(cudaEventRecord(ctx.panel_done[index % 2], ctx.compute), "gemm pipeline")) != Status::ok) return s;
    // Bring the previous panel back while this one is multiplied.
    if (early_download && index > 0) {
      if ((s = download_panel(first - panel, panel, (index - 1) % 2)) != Status::ok) return s;
    }
  }
  if ((s = check(cudaStreamSynchronize(ctx.compute), "gemm")) != Status::ok) return s;
  if (early_download) {
    const int last = (g.n - 1) / panel * panel;
    return download_panel(last, g.n - last, ((g.n - 1) / panel) % 2);
  }
  return download_matrix(ctx, dC, lddc * es, g.m * es, g.n, g.c, g.ldc * es);
}

template Status gemm_host<float>(const GemmArgs<float> &);
template Status gemm_host<double>(const GemmArgs<double> &);
template Status gemm_device<float>(bool, bool, int, int, int, float, const float *, size_t,
                                   const float *, size_t, float, float *, size_t, void *);
template Status gemm_device<double>(bool, bool, int, int, int, double, const double *, size_t,
                                    const double *, size_t, double, double *, size_t, void *);

}  // namespace cudrop::impl
