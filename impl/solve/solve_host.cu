// Linear solves on the GPU, the host interfaces (impl/solve/solve.h). Inputs go up through the
// staging engine; the drivers keep A on the device from the factorization to the solve, and
// write the factor back while the GPU solves. Nothing of the caller's changes before every
// GPU step has succeeded, except what the progress records say.
#include <algorithm>
#include <vector>

#include "core/env.h"
#include "core/layout.h"
#include "core/log.h"
#include "impl/getrf/getrf.h"
#include "impl/context/gpu_context.cuh"
#include "impl/potrf/potrf_transfer.cuh"
#include "impl/solve/solve.h"

namespace cudrop::impl {
namespace {

// The points where the test hook CUDROP_TEST_FAULT_INJECT=solve-stage:N stops a GPU solve or
// driver (docs/tuning.md), each leaving the caller's arrays in another state.
enum class SolveStage {
  uploaded = kSolveStageUploaded,
  computed,
  pivots_back,
  factor_half_back,
  factor_back = kSolveStageFactorBack,
  solution_half_back = kSolveStageSolutionHalfBack,
};
bool stop_at(SolveStage stage) {
  const env::Environment &e = env::environment();
  return e.fault.kind == env::Fault::solve_stage && e.fault.from == long(stage);
}

}  // namespace

bool stop_at_solve_stage(int stage) { return stop_at(SolveStage(stage)); }

Status download_columns(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes, int cols, void *host,
                        size_t ld_bytes, int *columns, int half_stage) {
  const int first = stop_at_solve_stage(half_stage) ? cols / 2 : cols;
  size_t done = 0;
  const Status s = download_matrix(ctx, dev, ldd_bytes, row_bytes, size_t(first), host, ld_bytes, &done);
  *columns = static_cast<int>(done);
  if (s != Status::ok) return s;
  return first < cols ? Status::cuda_error : Status::ok;
}

template <class T>
Status getrs_host(Op trans, int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb,
                  SolveProgress *progress) {
  progress->nrhs = nrhs;
  std::vector<int> perm;
  if (!row_permutation(n, ipiv, &perm)) {
    log(1, "getrs: IPIV holds an entry outside 1..N; the CPU routine takes the call");
    return Status::no_device;
  }
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);
  // Work slot: the trsm workspace, then the row permutation.
  const size_t work_bytes = size_t(round_up(solve_device_workspace<T>(n, nrhs), 256));
  void *dA = nullptr, *dB = nullptr, *dX = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA},
                                  {Slot::b, ldd * size_t(nrhs) * es, &dB},
                                  {Slot::c, ldd * size_t(nrhs) * es, &dX},
                                  {Slot::work, work_bytes + size_t(n) * sizeof(int), &dW}});
  if (s != Status::ok) return s;
  void *d_perm = static_cast<char *>(dW) + work_bytes;
  DrainOnFailure drain{s, ctx};
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), dA, ldd * es)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, b, size_t(ldb) * es, size_t(n) * es, size_t(nrhs), dB, ldd * es)) != Status::ok)
    return s;
  s = check(cudaMemcpyAsync(d_perm, perm.data(), size_t(n) * sizeof(int), cudaMemcpyHostToDevice, ctx.stream),
            "getrs: upload");
  if (s != Status::ok) return s;
  if (stop_at(SolveStage::uploaded)) return s = Status::cuda_error;
  s = getrs_device<T>(trans, n, nrhs, static_cast<const T *>(dA), ldd, static_cast<const int *>(d_perm),
                      static_cast<T *>(dB), ldd, static_cast<T *>(dX), ldd, ctx.stream, dW, work_bytes);
  if (s == Status::ok) s = check(cudaStreamSynchronize(ctx.stream), "getrs");
  if (s != Status::ok) return s;
  if (stop_at(SolveStage::computed)) return s = Status::cuda_error;
  s = download_columns(ctx, dX, ldd * es, size_t(n) * es, nrhs, b, size_t(ldb) * es, &progress->columns,
                       int(SolveStage::solution_half_back));
  return s;
}

template <class T>
Status potrs_host(Uplo uplo, int n, int nrhs, const T *a, int lda, T *b, int ldb, SolveProgress *progress) {
  const bool upper = uplo == Uplo::upper;
  progress->nrhs = nrhs;
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);
  const size_t work_bytes = solve_device_workspace<T>(n, nrhs);
  void *dA = nullptr, *dB = nullptr, *dW = nullptr;
  Status s = priority_lane(ctx);
  if (s != Status::ok) return s;
  if ((s = device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA},
                                {Slot::b, ldd * size_t(nrhs) * es, &dB},
                                {Slot::work, work_bytes, &dW}})) != Status::ok)
    return s;
  DrainOnFailure drain{s, ctx};
  // Only the factor's triangle goes up (the Cholesky's upload, which also mirrors U into the
  // lower triangle; the solve reads U itself, as the reference does, so that a diagonal with
  // imaginary parts is taken as the reference takes it).
  const potrf::Lanes lanes = potrf::lanes_beside(ctx.compute, ctx.priority);
  potrf::TriangleUpload<T> upload(ctx, lanes, upper, n, a, lda, static_cast<T *>(dA), ldd);
  int arrived = 0;
  while (!upload.done())
    if ((s = upload.next(&arrived)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, b, size_t(ldb) * es, size_t(n) * es, size_t(nrhs), dB, ldd * es)) != Status::ok)
    return s;
  cudaError_t error = cudaEventRecord(ctx.panel_ready, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx.compute, ctx.panel_ready, 0);
  if ((s = check(error, "potrs: upload")) != Status::ok) return s;
  if (stop_at(SolveStage::uploaded)) return s = Status::cuda_error;
  s = potrs_device<T>(uplo, n, nrhs, static_cast<const T *>(dA), ldd, static_cast<T *>(dB), ldd, ctx.compute, dW,
                      work_bytes);
  if (s == Status::ok) s = check(cudaStreamSynchronize(ctx.compute), "potrs");
  if (s != Status::ok) return s;
  if (stop_at(SolveStage::computed)) return s = Status::cuda_error;
  s = download_columns(ctx, dB, ldd * es, size_t(n) * es, nrhs, b, size_t(ldb) * es, &progress->columns,
                       int(SolveStage::solution_half_back));
  return s;
}

template <class T>
Status gesv_host(int n, int nrhs, T *a, int lda, int *ipiv, T *b, int ldb, int *info, GesvProgress *progress) {
  progress->n = n;
  progress->nrhs = nrhs;
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);
  const size_t exchange_bytes = getrf_device_workspace<T>(n, n);
  if (exchange_bytes == 0) return Status::no_device;
  // Work slot: the LU's exchange buffers, then IPIV and INFO (one copy brings both back) and
  // the row permutation, then the trsm workspace.
  const size_t pivots_offset = size_t(round_up(exchange_bytes, 256));
  const size_t trsm_offset = size_t(round_up(pivots_offset + (2 * size_t(n) + 1) * sizeof(int), 256));
  const size_t trsm_bytes = solve_device_workspace<T>(n, nrhs);
  void *dA = nullptr, *dB = nullptr, *dX = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA},
                                  {Slot::b, ldd * size_t(nrhs) * es, &dB},
                                  {Slot::c, ldd * size_t(nrhs) * es, &dX},
                                  {Slot::work, trsm_offset + trsm_bytes, &dW}});
  if (s != Status::ok) return s;
  int *d_ipiv = reinterpret_cast<int *>(static_cast<char *>(dW) + pivots_offset);
  int *d_perm = d_ipiv + n + 1;
  DrainOnFailure drain{s, ctx};
  std::vector<int> pivots(size_t(n) + 1), perm;
  perm.reserve(size_t(n));  // now: no allocation once the caller's arrays start to change

  // A goes up, the GPU factors it on the compute stream while B goes up on the transfer stream.
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), dA, ldd * es)) != Status::ok) return s;
  cudaError_t error = cudaEventRecord(ctx.panel_ready, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx.compute, ctx.panel_ready, 0);
  if ((s = check(error, "gesv: upload")) != Status::ok) return s;
  T *const lu = static_cast<T *>(dA);
  if ((s = getrf_device<T>(n, n, lu, ldd, d_ipiv, d_ipiv + n, dW, ctx.compute)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, b, size_t(ldb) * es, size_t(n) * es, size_t(nrhs), dB, ldd * es)) != Status::ok)
    return s;
  if ((s = check(cudaEventRecord(ctx.panel_done[1], ctx.stream), "gesv: upload")) != Status::ok) return s;
  if (stop_at(SolveStage::uploaded)) return s = Status::cuda_error;
  // The pivots and INFO: the solve's permutation is made from them on the host.
  error = cudaMemcpyAsync(pivots.data(), d_ipiv, pivots.size() * sizeof(int), cudaMemcpyDeviceToHost, ctx.compute);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.compute);
  if ((s = check(error, "gesv: factorization")) != Status::ok) return s;
  const int gpu_info = pivots[size_t(n)];
  if (!row_permutation(n, pivots.data(), &perm)) return s = check(cudaErrorUnknown, "gesv: pivots");
  if (stop_at(SolveStage::computed)) return s = Status::cuda_error;
  // Singular U: the reference does not solve, and B stays as it is.
  const bool solve = gpu_info == 0 && nrhs > 0;
  if (solve) {
    error = cudaMemcpyAsync(d_perm, perm.data(), size_t(n) * sizeof(int), cudaMemcpyHostToDevice, ctx.compute);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx.compute, ctx.panel_done[1], 0);
    if ((s = check(error, "gesv: solve")) != Status::ok) return s;
    s = getrs_device<T>(Op::none, n, nrhs, lu, ldd, d_perm, static_cast<T *>(dB), ldd, static_cast<T *>(dX), ldd,
                        ctx.compute, static_cast<char *>(dW) + trsm_offset, trsm_bytes);
    if (s == Status::ok) s = check(cudaEventRecord(ctx.panel_done[0], ctx.compute), "gesv: solve");
    if (s != Status::ok) return s;
  }
  // The factor goes back while the GPU solves; the pivots first, so that a failure part way
  // can be finished on the CPU from the factor's first columns.
  std::copy(pivots.begin(), pivots.begin() + n, ipiv);
  progress->ipiv_written = true;
  progress->info = gpu_info;
  if (stop_at(SolveStage::pivots_back)) return s = Status::cuda_error;
  s = download_columns(ctx, lu, ldd * es, size_t(n) * es, n, a, size_t(lda) * es, &progress->lu_columns,
                       int(SolveStage::factor_half_back));
  if (s != Status::ok) return s;
  if (stop_at(SolveStage::factor_back)) return s = Status::cuda_error;
  if (solve) {
    if ((s = check(cudaStreamWaitEvent(ctx.stream, ctx.panel_done[0], 0), "gesv: solve")) != Status::ok) return s;
    s = download_columns(ctx, dX, ldd * es, size_t(n) * es, nrhs, b, size_t(ldb) * es, &progress->x_columns,
                         int(SolveStage::solution_half_back));
    if (s != Status::ok) return s;
  }
  *info = gpu_info;
  return s;
}

#define CUDROP_SOLVE_HOST_INSTANCES(T)                                                                 \
  template Status getrs_host<T>(Op, int, int, const T *, int, const int *, T *, int, SolveProgress *); \
  template Status potrs_host<T>(Uplo, int, int, const T *, int, T *, int, SolveProgress *);            \
  template Status gesv_host<T>(int, int, T *, int, int *, T *, int, int *, GesvProgress *);
CUDROP_SOLVE_HOST_INSTANCES(float)
CUDROP_SOLVE_HOST_INSTANCES(double)
CUDROP_SOLVE_HOST_INSTANCES(Complex<float>)
CUDROP_SOLVE_HOST_INSTANCES(Complex<double>)
#undef CUDROP_SOLVE_HOST_INSTANCES

}  // namespace cudrop::impl
