// Symmetric indefinite factorization and solves on the GPU, the host interfaces
// (impl/sytrf/sytrf.h): A goes up whole (one staged transfer), the factorization and solves run
// on the device, and only the factor's triangle, IPIV, INFO and X come back. Nothing of the
// caller's changes before every GPU step has succeeded, except what the progress records say.
#include <algorithm>
#include <optional>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/saved_matrix.h"
#include "impl/potrf/potrf_transfer.cuh"
#include "impl/sytrf/sytrf.h"

namespace cudrop::impl {
namespace {

// The factorization's device state: A, then in the work slot the factorization's workspace,
// IPIV and INFO (one copy brings both back), and the solve's workspace.
template <class T>
struct SytrfBuffers {
  T *a = nullptr, *b = nullptr;
  char *work = nullptr;
  int *ipiv = nullptr;  // n + 1: INFO after IPIV
  size_t ldd = 0, solve_offset = 0, solve_bytes = 0;
};

template <class T>
Status sytrf_buffers(GpuContext &ctx, int n, int nrhs, SytrfBuffers<T> *out) {
  const size_t es = sizeof(T);
  out->ldd = padded_ld(size_t(n), es);
  const size_t factor_bytes = size_t(round_up(sytrf_device_workspace<T>(n), 256));
  const size_t pivots_bytes = size_t(round_up((size_t(n) + 1) * sizeof(int), 256));
  out->solve_offset = factor_bytes + pivots_bytes;
  out->solve_bytes = nrhs > 0 ? sytrs_device_workspace<T>(n, nrhs) : 0;
  void *dA = nullptr, *dB = nullptr, *dW = nullptr;
  const Status s = device_buffers(ctx, {{Slot::a, out->ldd * size_t(n) * es, &dA},
                                        {Slot::b, out->ldd * size_t(std::max(nrhs, 1)) * es, &dB},
                                        {Slot::work, out->solve_offset + out->solve_bytes, &dW}});
  if (s != Status::ok) return s;
  out->a = static_cast<T *>(dA);
  out->b = static_cast<T *>(dB);
  out->work = static_cast<char *>(dW);
  out->ipiv = reinterpret_cast<int *>(out->work + factor_bytes);
  return s;
}

// The factor's triangle into the caller's a: columns before *written hold it, also after a
// failure part way, which puts back the columns it had written from `saved` (the caller's A,
// copied while the GPU worked) and leaves *written 0, so that the CPU routine starts from the
// caller's inputs. Without the memory for that copy nothing is written.
template <class T>
Status download_factor(GpuContext &ctx, Uplo uplo, int n, const SytrfBuffers<T> &d, T *a, int lda,
                       SavedMatrix<T> &saved, int *written) {
  *written = 0;
  if (!saved.ready()) return Status::out_of_memory;
  const Status s = potrf::download_factored<T>(ctx, ctx.stream, uplo == Uplo::upper, n, 0, n, d.a, d.ldd, a,
                                               size_t(lda), written);
  if (s != Status::ok) {
    saved.restore(a, size_t(lda), size_t(*written));
    *written = 0;
  }
  return s;
}

// Uploads A, factors it on ctx.stream and brings IPIV and INFO back into pivots (n + 1). The
// copy of the caller's A starts into `saved` once the upload has read A (the two would share
// the host's memory bandwidth), and is made while the GPU factors.
template <class T>
Status factor_on_device(GpuContext &ctx, Symmetry symmetry, Uplo uplo, int n, const T *a, int lda,
                        const SytrfBuffers<T> &d, std::vector<int> *pivots, std::optional<SavedMatrix<T>> *saved) {
  const size_t es = sizeof(T);
  Status s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), d.a, d.ldd * es);
  if (s != Status::ok) return s;
  saved->emplace(a, size_t(lda), size_t(n), size_t(n),
                 uplo == Uplo::upper ? SavedMatrix<T>::Part::upper : SavedMatrix<T>::Part::lower);
  if ((s = sytrf_device<T>(symmetry, uplo, n, d.a, d.ldd, d.ipiv, d.ipiv + n, d.work, ctx.stream)) != Status::ok)
    return s;
  cudaError_t error =
      cudaMemcpyAsync(pivots->data(), d.ipiv, size_t(n + 1) * sizeof(int), cudaMemcpyDeviceToHost, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  return check(error, "sytrf: factorization");
}

// Runs body(ctx, buffers) under the GPU lease with the buffers for order n and nrhs right-hand
// sides; on a failure what was queued drains before the lease goes.
template <class T, class Body>
Status on_device(int n, int nrhs, Body body) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  SytrfBuffers<T> d;
  Status s = sytrf_buffers<T>(ctx, n, nrhs, &d);
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  return s = body(ctx, d);
}

// Uploads B (on ctx.stream) and solves with the factor already in d.a (ipiv on the host) on
// `stream`, asynchronously.
template <class T>
Status solve_on_device(GpuContext &ctx, Symmetry symmetry, Uplo uplo, int n, int nrhs, const int *ipiv, const T *b,
                       int ldb, const SytrfBuffers<T> &d, cudaStream_t stream) {
  const size_t es = sizeof(T);
  Status s = upload_matrix(ctx, b, size_t(ldb) * es, size_t(n) * es, size_t(nrhs), d.b, d.ldd * es);
  if (s != Status::ok) return s;
  if (stream != ctx.stream) {
    cudaError_t error = cudaEventRecord(ctx.panel_ready, ctx.stream);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(stream, ctx.panel_ready, 0);
    if ((s = check(error, "sytrs: upload")) != Status::ok) return s;
  }
  if (stop_at_solve_stage(kSolveStageUploaded)) return Status::cuda_error;
  return sytrs_device<T>(symmetry, uplo, n, nrhs, d.a, d.ldd, ipiv, d.b, d.ldd, d.work + d.solve_offset, d.solve_bytes,
                         stream);
}

}  // namespace

template <class T>
Status sytrf_host(Symmetry symmetry, Uplo uplo, int n, T *a, int lda, int *ipiv, int *info) {
  return on_device<T>(n, 0, [&](GpuContext &ctx, const SytrfBuffers<T> &d) {
    std::vector<int> pivots(size_t(n) + 1);
    std::optional<SavedMatrix<T>> saved;
    Status s = factor_on_device<T>(ctx, symmetry, uplo, n, a, lda, d, &pivots, &saved);
    if (s != Status::ok) return s;
    int written = 0;
    if ((s = download_factor<T>(ctx, uplo, n, d, a, lda, *saved, &written)) != Status::ok) return s;
    std::copy(pivots.begin(), pivots.begin() + n, ipiv);
    *info = pivots[size_t(n)];
    return s;
  });
}

template <class T>
Status sytrs_host(Symmetry symmetry, Uplo uplo, int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb,
                  SolveProgress *progress) {
  progress->nrhs = nrhs;
  return on_device<T>(n, nrhs, [&](GpuContext &ctx, const SytrfBuffers<T> &d) {
    const size_t es = sizeof(T);
    Status s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), d.a, d.ldd * es);
    if (s == Status::ok) s = solve_on_device<T>(ctx, symmetry, uplo, n, nrhs, ipiv, b, ldb, d, ctx.stream);
    if (s == Status::ok) s = check(cudaStreamSynchronize(ctx.stream), "sytrs");
    if (s != Status::ok) return s;
    return download_columns(ctx, d.b, d.ldd * es, size_t(n) * es, nrhs, b, size_t(ldb) * es, &progress->columns,
                            kSolveStageSolutionHalfBack);
  });
}

template <class T>
Status sysv_host(Symmetry symmetry, Uplo uplo, int n, int nrhs, T *a, int lda, int *ipiv, T *b, int ldb, int *info,
                 SysvProgress *progress) {
  progress->n = n;
  progress->nrhs = nrhs;
  return on_device<T>(n, nrhs, [&](GpuContext &ctx, const SytrfBuffers<T> &d) {
    const size_t es = sizeof(T);
    std::vector<int> pivots(size_t(n) + 1);
    std::optional<SavedMatrix<T>> saved;
    Status s = factor_on_device<T>(ctx, symmetry, uplo, n, a, lda, d, &pivots, &saved);
    if (s != Status::ok) return s;
    const int gpu_info = pivots[size_t(n)];
    // A singular D: the reference does not solve, and B stays as it is.
    const bool solve = gpu_info == 0 && nrhs > 0;
    // The solve runs on the compute stream while the factor goes back.
    if (solve) {
      s = solve_on_device<T>(ctx, symmetry, uplo, n, nrhs, pivots.data(), b, ldb, d, ctx.compute);
      if (s == Status::ok) s = check(cudaEventRecord(ctx.panel_done[0], ctx.compute), "sysv: solve");
      if (s != Status::ok) return s;
    }
    // The factor whole or not at all (a Bunch-Kaufman factor cannot be finished from part of
    // it), then the pivots: from there a failure is finished on the CPU from the factor.
    if ((s = download_factor<T>(ctx, uplo, n, d, a, lda, *saved, &progress->factor_columns)) != Status::ok) return s;
    std::copy(pivots.begin(), pivots.begin() + n, ipiv);
    progress->ipiv_written = true;
    progress->info = gpu_info;
    if (stop_at_solve_stage(kSolveStageFactorBack)) return Status::cuda_error;
    if (solve) {
      if ((s = check(cudaStreamWaitEvent(ctx.stream, ctx.panel_done[0], 0), "sysv: solve")) != Status::ok) return s;
      s = download_columns(ctx, d.b, d.ldd * es, size_t(n) * es, nrhs, b, size_t(ldb) * es, &progress->x_columns,
                           kSolveStageSolutionHalfBack);
      if (s != Status::ok) return s;
    }
    *info = gpu_info;
    return s;
  });
}

#define CUDROP_SYTRF_HOST_INSTANCES(T)                                                                      \
  template Status sytrf_host<T>(Symmetry, Uplo, int, T *, int, int *, int *);                               \
  template Status sytrs_host<T>(Symmetry, Uplo, int, int, const T *, int, const int *, T *, int,            \
                                SolveProgress *);                                                           \
  template Status sysv_host<T>(Symmetry, Uplo, int, int, T *, int, int *, T *, int, int *, SysvProgress *);
CUDROP_SYTRF_HOST_INSTANCES(float)
CUDROP_SYTRF_HOST_INSTANCES(double)
CUDROP_SYTRF_HOST_INSTANCES(Complex<float>)
CUDROP_SYTRF_HOST_INSTANCES(Complex<double>)
#undef CUDROP_SYTRF_HOST_INSTANCES

}  // namespace cudrop::impl
