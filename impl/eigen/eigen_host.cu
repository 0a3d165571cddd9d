// The symmetric and Hermitian eigenproblem's reduction, back-transformation and xSYEVD/xHEEVD
// (impl/eigen/eigen.h). syevd_host: the matrix up once, the whole problem on the device (the
// tridiagonal problem's merges too: stedc_device), the eigenvectors back once.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/layout.h"
#include "core/log.h"
#include "impl/context/saved_matrix.h"
#include "impl/eigen/eigen.h"
#include "impl/context/gpu_context.cuh"
#include "impl/qr/qr.h"
#include "kernels/tridiagonal.cuh"

namespace cudrop::impl {
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

// tridiagonalize_device's workspace: sytrd's, then d, e and the flags on the device.
template <class T>
struct ReduceWork {
  size_t d_at, e_at, flags_at, bytes;
  explicit ReduceWork(int n) {
    d_at = after(sytrd_device_workspace<T>(n));
    e_at = after(d_at + size_t(n) * sizeof(real_t<T>));
    flags_at = after(e_at + size_t(n) * sizeof(real_t<T>));
    bytes = flags_at + sizeof(EigenFlags);
  }
};

// syevd_device's workspace: tau, then the real eigenvector matrix of the tridiagonal problem
// (but for real T with vectors, which uses dZ), then what the phase running needs. Eigenvalues
// alone go the same way, the eigenvectors of the tridiagonal left unused: the divide and
// conquer on the GPU takes a fraction of xSTERF's time on the CPU (one thread, O(n^2) divisions
// and square roots; docs/perf, the eigensolvers).
template <class T>
struct SyevdWork {
  size_t tau_at = 0, zreal_at = 0, phase_at = 0, bytes = 0;
  SyevdWork(Jobz jobz, int n) {
    using R = real_t<T>;
    zreal_at = after(size_t(n) * sizeof(T));
    phase_at = zreal_at;
    if (jobz == Jobz::values || is_complex_v<T>)
      phase_at = after(zreal_at + padded_ld(size_t(n), sizeof(R)) * size_t(n) * sizeof(R));
    size_t phase = std::max(tridiagonalize_device_workspace<T>(n), stedc_device_workspace<R>(n));
    if (jobz == Jobz::vectors) phase = std::max(phase, back_transform_device_workspace<T>(n, n));
    bytes = phase_at + phase;
  }
};

}  // namespace

template <class T>
size_t tridiagonalize_device_workspace(int n) {
  return ReduceWork<T>(n).bytes;
}

template <class T>
Status tridiagonalize_device(GpuContext &ctx, Uplo uplo, int n, T *dA, size_t ldda, T *d_tau, real_t<T> *d,
                             real_t<T> *e, double *anrm, void *work, size_t work_bytes) {
  using R = real_t<T>;
  const ReduceWork<T> at(n);
  if (work == nullptr || work_bytes < at.bytes) return Status::out_of_memory;
  char *base = static_cast<char *>(work);
  auto *d_flags = reinterpret_cast<EigenFlags *>(base + at.flags_at);
  auto *d_d = reinterpret_cast<R *>(base + at.d_at), *d_e = reinterpret_cast<R *>(base + at.e_at);
  cudaStream_t stream = ctx.stream;
  const dim3 grid(unsigned((n + 255) / 256), unsigned(n));
  if (uplo == Uplo::upper) kernels::mirror_upper_to_lower<T><<<grid, 256, 0, stream>>>(n, dA, ldda);
  cudaError_t error = cudaMemsetAsync(d_flags, 0, sizeof(EigenFlags), stream);
  if (error == cudaSuccess) {
    kernels::lower_largest_magnitude<T><<<grid, 256, 0, stream>>>(n, dA, ldda, &d_flags->magnitude);
    error = cudaGetLastError();
  }
  Status s;
  if ((s = check(error, "sytrd: start")) != Status::ok) return s;
  if ((s = sytrd_device<T>(n, dA, ldda, d_d, d_e, d_tau, &d_flags->special, work, at.d_at, stream)) != Status::ok)
    return s;
  EigenFlags flags;
  if ((s = read_back(ctx, &flags, d_flags, sizeof flags, "sytrd: flags")) != Status::ok) return s;
  std::memcpy(anrm, &flags.magnitude, sizeof *anrm);
  if (flags.special != 0 || *anrm != *anrm) return Status::special_values;
  if ((s = read_back(ctx, d, d_d, size_t(n) * sizeof(R), "sytrd: d")) != Status::ok) return s;
  if (n > 1) s = read_back(ctx, e, d_e, size_t(n - 1) * sizeof(R), "sytrd: e");
  return s;
}

template <class T>
size_t back_transform_device_workspace(int n, int m) {
  return ormqr_device_workspace<T>(Side::left, std::max(n - 1, 1), std::max(m, 1), std::max(n - 1, 1));
}

template <class T>
Status back_transform_device(int n, int m, const T *dA, size_t ldda, const T *d_tau, T *dZ, size_t lddz, void *work,
                             size_t work_bytes, void *stream) {
  if (n <= 1 || m <= 0) return Status::ok;
  // Q = H(1) ... H(n-1), the vectors below the subdiagonal: xORMQR on rows 2..n (xORMTR 'L').
  return ormqr_device<T>(Side::left, Op::none, n - 1, m, n - 1, dA + 1, ldda, d_tau, dZ + 1, lddz, work, work_bytes,
                         stream);
}

template <class T>
size_t syevd_device_workspace(Jobz jobz, int n) {
  return SyevdWork<T>(jobz, n).bytes;
}

template <class T>
Status syevd_device(GpuContext &ctx, Jobz jobz, Uplo uplo, int n, T *dA, size_t ldda, real_t<T> *w, T *dZ,
                    size_t lddz, void *work, size_t work_bytes, const TridiagonalSolver<real_t<T>> &solve) {
  using R = real_t<T>;
  const SyevdWork<T> at(jobz, n);
  if (work == nullptr || work_bytes < at.bytes) return Status::out_of_memory;
  char *base = static_cast<char *>(work);
  auto *d_tau = reinterpret_cast<T *>(base + at.tau_at);
  void *phase = base + at.phase_at;
  const size_t phase_bytes = work_bytes - at.phase_at;
  std::vector<R> e(size_t(std::max(n, 1)));
  double anrm = 0;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Status s = tridiagonalize_device<T>(ctx, uplo, n, dA, ldda, d_tau, w, e.data(), &anrm, phase, phase_bytes);
  if (s != Status::ok) return s;
  // xSYEVD scales a matrix whose largest entry is outside [rmin, rmax]: the CPU routine's.
  const double smlnum = double(std::numeric_limits<R>::min()) / double(std::numeric_limits<R>::epsilon());
  const double rmin = std::sqrt(smlnum), rmax = std::sqrt(1 / smlnum);
  if ((anrm > 0 && anrm < rmin) || anrm > rmax) return Status::special_values;
  R *z = reinterpret_cast<R *>(base + at.zreal_at);
  size_t ldz = padded_ld(size_t(n), sizeof(R));
  if constexpr (!is_complex_v<T>) {
    if (jobz == Jobz::vectors) {
      z = dZ;
      ldz = lddz;
    }
  }
  const Clock::time_point reduced = Clock::now();
  if ((s = stedc_device<R>(ctx, n, w, e.data(), z, ldz, solve, phase, phase_bytes)) != Status::ok) return s;
  const Clock::time_point solved = Clock::now();
  auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  if (jobz == Jobz::values) {
    log(2, "syevd: n=%d: reduction %.3f s, tridiagonal problem %.3f s", n, seconds(start, reduced),
        seconds(reduced, solved));
    return Status::ok;
  }
  if constexpr (is_complex_v<T>) {
    kernels::widen_real<R><<<dim3(unsigned((n + 255) / 256), unsigned(n)), 256, 0, ctx.stream>>>(n, n, z, ldz, dZ,
                                                                                                 lddz);
    if ((s = check(cudaGetLastError(), "heevd: widen")) != Status::ok) return s;
  }
  if ((s = back_transform_device<T>(n, n, dA, ldda, d_tau, dZ, lddz, phase, phase_bytes, ctx.stream)) != Status::ok)
    return s;
  if ((s = check(cudaStreamSynchronize(ctx.stream), "syevd: back-transformation")) != Status::ok) return s;
  log(2, "syevd: n=%d: reduction %.3f s, tridiagonal problem %.3f s, back-transformation %.3f s", n,
      seconds(start, reduced), seconds(reduced, solved), seconds(solved, Clock::now()));
  return Status::ok;
}

template <class T>
Status syevd_host(Jobz jobz, Uplo uplo, int n, T *a, int lda, real_t<T> *w, int *info,
                  const TridiagonalSolver<real_t<T>> &solve) {
  const bool vectors = jobz == Jobz::vectors;
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t work = syevd_device_workspace<T>(jobz, n);
  void *dA = nullptr, *dZ = nullptr, *dW = nullptr;
  Status s = vectors ? device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA},
                                            {Slot::b, ldd * size_t(n) * es, &dZ},
                                            {Slot::work, work, &dW}})
                     : device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA}, {Slot::work, work, &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), dA, ldd * es)) != Status::ok) return s;
  // A copy of the caller's A, made while the GPU works: a failure while the eigenvectors are
  // written back puts it back, so the CPU routine starts from the caller's inputs.
  std::unique_ptr<SavedMatrix<T>> saved;
  if (vectors) saved = std::make_unique<SavedMatrix<T>>(a, size_t(lda), size_t(n), size_t(n));
  std::vector<real_t<T>> values(static_cast<size_t>(n));
  if ((s = syevd_device<T>(ctx, jobz, uplo, n, static_cast<T *>(dA), ldd, values.data(), static_cast<T *>(dZ), ldd,
                           dW, work, solve)) != Status::ok)
    return s;
  if (vectors) {
    if (!saved->ready()) return s = Status::out_of_memory;
    size_t done = 0;
    s = download_matrix(ctx, dZ, ldd * es, size_t(n) * es, size_t(n), a, size_t(lda) * es, &done);
    if (s != Status::ok) {
      saved->restore(a, size_t(lda), done);
      return s;
    }
  }
  std::memcpy(w, values.data(), size_t(n) * sizeof(real_t<T>));
  *info = 0;
  return Status::ok;
}

#define CUDROP_EIGEN_HOST(T)                                                                                        \
  template size_t tridiagonalize_device_workspace<T>(int);                                                          \
  template Status tridiagonalize_device<T>(GpuContext &, Uplo, int, T *, size_t, T *, real_t<T> *, real_t<T> *,      \
                                           double *, void *, size_t);                                               \
  template size_t back_transform_device_workspace<T>(int, int);                                                     \
  template Status back_transform_device<T>(int, int, const T *, size_t, const T *, T *, size_t, void *, size_t,      \
                                           void *);                                                                 \
  template size_t syevd_device_workspace<T>(Jobz, int);                                                             \
  template Status syevd_device<T>(GpuContext &, Jobz, Uplo, int, T *, size_t, real_t<T> *, T *, size_t, void *,      \
                                  size_t, const TridiagonalSolver<real_t<T>> &);                                    \
  template Status syevd_host<T>(Jobz, Uplo, int, T *, int, real_t<T> *, int *, const TridiagonalSolver<real_t<T>> &);
CUDROP_EIGEN_HOST(float)
CUDROP_EIGEN_HOST(double)
CUDROP_EIGEN_HOST(Complex<float>)
CUDROP_EIGEN_HOST(Complex<double>)
#undef CUDROP_EIGEN_HOST

}  // namespace cudrop::impl
