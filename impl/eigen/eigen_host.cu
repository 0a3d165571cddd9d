// xSYEVD/xHEEVD host to host (impl/eigen/eigen.h). Three phases: the reduction on the GPU (the matrix
// up once; back come d, e, tau and, for vectors, the reflectors); the tridiagonal problem by the
// CPU LAPACK, with the GPU given back meanwhile (xSTEDC's products reach cudrop only where that
// library calls its BLAS through the dynamic linker); the back-transformation on the GPU, the eigenvectors written once into the caller's A.
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "core/layout.h"
#include "impl/eigen/eigen.h"
#include "impl/context/gpu_context.cuh"
#include "impl/qr/qr.h"
#include "kernels/householder.cuh"
#include "kernels/tridiagonal.cuh"

namespace cudrop::impl {

template <class T>
void EigenProgress<T>::describe(char *text, size_t size) const {
  std::snprintf(text, size, "after %d of %d eigenvector columns were written back", columns, n);
}

namespace {

size_t after(size_t bytes) { return size_t(round_up(bytes, 256)); }

struct EigenFlags {
  unsigned long long magnitude;
  int special;
};

Status read_back(GpuContext &ctx, void *host, const void *dev, size_t bytes, const char *what) {
  cudaError_t error = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  return check(error, what);
}

}  // namespace

template <class T>
Status syevd_host(Jobz jobz, Uplo uplo, int n, T *a, int lda, real_t<T> *w, int *info,
                  const TridiagonalSolver<real_t<T>> &solve, EigenProgress<T> *progress) {
  const bool vectors = jobz == Jobz::vectors, upper = uplo == Uplo::upper;
  using R = real_t<T>;
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);
  std::vector<R> d(static_cast<size_t>(n)), e(static_cast<size_t>(std::max(n, 1)));
  std::vector<T> &tau = progress->tau;
  tau.resize(size_t(std::max(n, 1)));
  progress->n = n;
  Status s = Status::ok;
  {
    GpuLease lease;
    if (!lease.ok()) return Status::no_device;
    GpuContext &ctx = lease.ctx();
    const size_t work = after(sytrd_device_workspace<T>(n));
    const size_t d_at = work, e_at = after(d_at + n * sizeof(R)), tau_at = after(e_at + n * sizeof(R)),
                 flags_at = after(tau_at + n * es);
    void *dA = nullptr, *dW = nullptr;
    if ((s = device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA}, {Slot::work, flags_at + sizeof(EigenFlags), &dW}})) !=
        Status::ok)
      return s;
    DrainOnFailure drain{s, ctx};
    char *base = static_cast<char *>(dW);
    auto *A = static_cast<T *>(dA);
    auto *d_flags = reinterpret_cast<EigenFlags *>(base + flags_at);
    if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), dA, ldd * es)) != Status::ok) return s;
    cudaStream_t stream = ctx.stream;
    const dim3 grid(unsigned((n + 255) / 256), unsigned(n));
    if (upper) kernels::mirror_upper_to_lower<T><<<grid, 256, 0, stream>>>(n, A, ldd);
    cudaError_t error = cudaMemsetAsync(d_flags, 0, sizeof(EigenFlags), stream);
    if (error == cudaSuccess) {
      kernels::lower_largest_magnitude<T><<<grid, 256, 0, stream>>>(n, A, ldd, &d_flags->magnitude);
      error = cudaGetLastError();
    }
    if ((s = check(error, "syevd: start")) != Status::ok) return s;
    if ((s = sytrd_device<T>(n, A, ldd, reinterpret_cast<R *>(base + d_at), reinterpret_cast<R *>(base + e_at),
                             reinterpret_cast<T *>(base + tau_at), &d_flags->special, dW, work, stream)) != Status::ok)
      return s;
    EigenFlags flags;
    if ((s = read_back(ctx, &flags, d_flags, sizeof flags, "syevd: flags")) != Status::ok) return s;
    double anrm;
    std::memcpy(&anrm, &flags.magnitude, sizeof anrm);
    // xSYEVD scales a matrix whose largest entry is outside [rmin, rmax]: the CPU routine's.
    const double smlnum = double(std::numeric_limits<R>::min()) / double(std::numeric_limits<R>::epsilon());
    const double rmin = std::sqrt(smlnum), rmax = std::sqrt(1 / smlnum);
    if (flags.special != 0 || anrm != anrm || (anrm > 0 && anrm < rmin) || anrm > rmax)
      return s = Status::special_values;
    if ((s = read_back(ctx, d.data(), base + d_at, n * sizeof(R), "syevd: d")) != Status::ok) return s;
    if (n > 1 && (s = read_back(ctx, e.data(), base + e_at, (n - 1) * sizeof(R), "syevd: e")) != Status::ok) return s;
    if (n > 1 && (s = read_back(ctx, tau.data(), base + tau_at, (n - 1) * es, "syevd: tau")) != Status::ok) return s;
    if (vectors) {
      progress->reflectors.resize(size_t(n) * n);
      if ((s = download_matrix(ctx, dA, ldd * es, size_t(n) * es, size_t(n), progress->reflectors.data(),
                               size_t(n) * es)) != Status::ok)
        return s;
    }
  }
  // The GPU is free while the CPU solves the tridiagonal problem.
  if (vectors) progress->z.assign(size_t(n) * n, R(0));
  const int tinfo = solve(n, d.data(), e.data(), vectors ? progress->z.data() : nullptr);
  if (tinfo != 0) return Status::special_values;  // the CPU routine meets the same failure and reports it
  if (!vectors) {
    std::memcpy(w, d.data(), size_t(n) * sizeof(R));
    *info = 0;
    return Status::ok;
  }
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t work = after(ormqr_device_workspace<T>(Side::left, std::max(n - 1, 1), n, std::max(n - 1, 1)));
  const size_t tau_at = work;
  void *dA = nullptr, *dZ = nullptr, *dReal = nullptr, *dW = nullptr;
  if ((s = device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA},
                                {Slot::b, ldd * size_t(n) * es, &dZ},
                                {Slot::c, ldd * size_t(n) * sizeof(R), &dReal},
                                {Slot::work, tau_at + size_t(n) * es, &dW}})) != Status::ok)
    return s;
  DrainOnFailure drain{s, ctx};
  cudaStream_t stream = ctx.stream;
  auto *Z = static_cast<T *>(dZ);
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  if ((s = upload_matrix(ctx, progress->reflectors.data(), size_t(n) * es, size_t(n) * es, size_t(n), dA, ldd * es)) !=
      Status::ok)
    return s;
  if constexpr (is_complex_v<T>) {
    if ((s = upload_matrix(ctx, progress->z.data(), size_t(n) * sizeof(R), size_t(n) * sizeof(R), size_t(n), dReal,
                           ldd * sizeof(R))) != Status::ok)
      return s;
    kernels::widen_real<R><<<dim3(unsigned((n + 255) / 256), unsigned(n)), 256, 0, stream>>>(
        n, n, static_cast<const R *>(dReal), ldd, Z, ldd);
    if ((s = check(cudaGetLastError(), "heevd: widen")) != Status::ok) return s;
  } else {
    if ((s = upload_matrix(ctx, progress->z.data(), size_t(n) * es, size_t(n) * es, size_t(n), dZ, ldd * es)) !=
        Status::ok)
      return s;
  }
  if (n > 1) {
    if ((s = check(cudaMemcpyAsync(d_tau, tau.data(), size_t(n - 1) * es, cudaMemcpyHostToDevice, stream),
                   "syevd: tau")) != Status::ok)
      return s;
    // Q = H(1) ... H(n-1), the vectors below the subdiagonal: xORMQR on rows 2..n (xORMTR 'L').
    if ((s = ormqr_device<T>(Side::left, Op::none, n - 1, n, n - 1, static_cast<const T *>(dA) + 1, ldd, d_tau, Z + 1,
                             ldd, dW, work, stream)) != Status::ok)
      return s;
  }
  if ((s = check(cudaStreamSynchronize(stream), "syevd: back-transformation")) != Status::ok) return s;
  std::memcpy(w, d.data(), size_t(n) * sizeof(R));
  *info = 0;
  size_t done = 0;
  s = download_matrix(ctx, dZ, ldd * es, size_t(n) * es, size_t(n), a, size_t(lda) * es, &done);
  progress->columns = int(done);
  return s;
}

#define CUDROP_EIGEN_HOST(T)                                                                                   \
  template struct EigenProgress<T>;                                                                            \
  template Status syevd_host<T>(Jobz, Uplo, int, T *, int, real_t<T> *, int *, const TridiagonalSolver<real_t<T>> &, \
                                EigenProgress<T> *);
CUDROP_EIGEN_HOST(float)
CUDROP_EIGEN_HOST(double)
CUDROP_EIGEN_HOST(Complex<float>)
CUDROP_EIGEN_HOST(Complex<double>)
#undef CUDROP_EIGEN_HOST

}  // namespace cudrop::impl
