#include "impl/gemm.h"

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
    if ((s = device_buffer(ctx, Slot::a, ldda * cols_a * es, &dA)) != Status::ok) return s;
    if ((s = device_buffer(ctx, Slot::b, lddb * cols_b * es, &dB)) != Status::ok) return s;
  }
  if ((s = device_buffer(ctx, Slot::c, lddc * g.n * es, &dC)) != Status::ok) return s;

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

template Status gemm_host<float>(const GemmArgs<float> &);
template Status gemm_host<double>(const GemmArgs<double> &);
template Status gemm_device<float>(bool, bool, int, int, int, float, const float *, size_t,
                                   const float *, size_t, float, float *, size_t, void *);
template Status gemm_device<double>(bool, bool, int, int, int, double, const double *, size_t,
                                    const double *, size_t, double, double *, size_t, void *);

}  // namespace cudrop::impl
