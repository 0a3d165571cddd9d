// The generalized symmetric-definite eigenproblem, xSYGVD/xHEGVD (impl/eigen/generalized.h):
// A and B up once, the Cholesky factor, the reduction, the standard problem and the
// back-transformation on the device, the eigenvectors and the factor back once.
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/eigen/generalized.h"
#include "impl/level3/level3_device.h"
#include "impl/potrf/potrf.h"
#include "kernels/triangular.cuh"

namespace cudrop::impl {
namespace {

size_t after(size_t bytes) { return size_t(round_up(bytes, 256)); }

// sygvd_device's workspace: potrf's two ints, L (the factor, lower, with potrf's scratch above
// it), C (the standard problem's matrix, also a product's out-of-place target), then what the
// phase running needs: the Level-3 products' workspace or syevd_device's.
template <class T>
struct SygvdWork {
  size_t ld = 0, l_at = 0, c_at = 0, phase_at = 0, bytes = 0;
  SygvdWork(Jobz jobz, int n) {
    const size_t matrix = padded_ld(size_t(n), sizeof(T)) * size_t(n) * sizeof(T);
    ld = padded_ld(size_t(n), sizeof(T));
    l_at = after(2 * sizeof(int));
    c_at = after(l_at + matrix);
    phase_at = after(c_at + matrix);
    size_t phase = syevd_device_workspace<T>(jobz, n);
    for (Side side : {Side::left, Side::right})
      phase = std::max({phase, trsm_device_workspace<T>(side, n, n), trmm_device_workspace<T>(side, n, n)});
    bytes = phase_at + phase;
  }
};

}  // namespace

template <class T>
size_t sygvd_device_workspace(Jobz jobz, int n) {
  return SygvdWork<T>(jobz, n).bytes;
}

template <class T>
Status sygvd_device(GpuContext &ctx, Itype itype, Jobz jobz, Uplo uplo, int n, T *dA, size_t ldda, T *dB,
                    size_t lddb, real_t<T> *w, void *work, size_t work_bytes,
                    const TridiagonalSolver<real_t<T>> &solve) {
  constexpr bool hermitian = is_complex_v<T>;
  const SygvdWork<T> at(jobz, n);
  if (work == nullptr || work_bytes < at.bytes) return Status::out_of_memory;
  char *base = static_cast<char *>(work);
  int *d_info = reinterpret_cast<int *>(base);
  T *dL = reinterpret_cast<T *>(base + at.l_at), *dC = reinterpret_cast<T *>(base + at.c_at);
  void *phase = base + at.phase_at;
  const size_t phase_bytes = work_bytes - at.phase_at, ld = at.ld;
  cudaStream_t stream = ctx.stream;
  const bool lower = uplo == Uplo::lower;
  Status s;

  // B = L L^H on the whole Hermitian B (an upper triangle's U^H U is the same L L^H, U = L^H).
  if ((s = check(kernels::launch_symmetrize<T>(lower, n, dB, lddb, dL, ld, stream, hermitian), "sygvd: B")) !=
      Status::ok)
    return s;
  if ((s = potrf_device<T>(n, dL, ld, d_info, stream)) != Status::ok) return s;
  int failed_column = 0;
  cudaError_t error = cudaMemcpyAsync(&failed_column, d_info, sizeof failed_column, cudaMemcpyDeviceToHost, stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
  if ((s = check(error, "sygvd: potrf")) != Status::ok) return s;
  // Not positive definite: the reference returns INFO = N + i with its own factorization's
  // partial state, which only the CPU routine reproduces.
  if (failed_column != 0) return Status::special_values;

  // The factor into B's triangle as xPOTRF leaves it ('U': U = L^H, through C as the whole L + L^H).
  const T one = T(1);
  if (lower) {
    error = kernels::launch_axpby<T>(kernels::Part::lower, n, n, one, dL, ld, T(0), dB, lddb, stream);
  } else {
    error = kernels::launch_symmetrize<T>(true, n, dL, ld, dC, ld, stream, hermitian);
    if (error == cudaSuccess)
      error = kernels::launch_axpby<T>(kernels::Part::upper, n, n, one, dC, ld, T(0), dB, lddb, stream);
  }
  if ((s = check(error, "sygvd: factor")) != Status::ok) return s;

  // C: xSYGST's standard problem, from the whole Hermitian A.
  if ((s = check(kernels::launch_symmetrize<T>(lower, n, dA, ldda, dC, ld, stream, hermitian), "sygvd: A")) !=
      Status::ok)
    return s;
  if (itype == Itype::a_x_is_lambda_b_x) {
    // C = inv(L) A inv(L)^H.
    if ((s = trsm_device<T>(Side::left, Uplo::lower, Op::none, Diag::non_unit, n, n, one, dL, ld, dC, ld, stream,
                            phase, phase_bytes)) != Status::ok ||
        (s = trsm_device<T>(Side::right, Uplo::lower, Op::conj_trans, Diag::non_unit, n, n, one, dL, ld, dC, ld,
                            stream, phase, phase_bytes)) != Status::ok)
      return s;
  } else {
    // C = L^H (A L), A L in dA (A's triangle is in C already).
    if ((s = trmm_device<T>(Side::right, Uplo::lower, Op::none, Diag::non_unit, n, n, one, dL, ld, dC, ld, dA, ldda,
                            stream, phase, phase_bytes)) != Status::ok ||
        (s = trmm_device<T>(Side::left, Uplo::lower, Op::conj_trans, Diag::non_unit, n, n, one, dL, ld, dA, ldda, dC,
                            ld, stream, phase, phase_bytes)) != Status::ok)
      return s;
  }
  // The products leave rounding in the imaginary parts of C's diagonal; a Hermitian C has none
  // (xHEGST sets them to zero).
  if (hermitian &&
      (s = check(kernels::launch_axpby<T>(kernels::Part::lower, n, n, one, dC, ld, T(0), dC, ld, stream, true),
                 "sygvd: C")) != Status::ok)
    return s;

  // The standard problem: its eigenvectors Y into dA.
  if ((s = syevd_device<T>(ctx, jobz, Uplo::lower, n, dC, ld, w, dA, ldda, phase, phase_bytes, solve)) != Status::ok)
    return s;
  if (jobz == Jobz::values) return Status::ok;

  // The back-transformation: x = inv(L)^H y (itypes 1, 2), x = L y (3).
  if (itype == Itype::b_a_x_is_lambda_x) {
    if ((s = trmm_device<T>(Side::left, Uplo::lower, Op::none, Diag::non_unit, n, n, one, dL, ld, dA, ldda, dC, ld,
                            stream, phase, phase_bytes)) != Status::ok)
      return s;
    error = cudaMemcpy2DAsync(dA, ldda * sizeof(T), dC, ld * sizeof(T), size_t(n) * sizeof(T), size_t(n),
                              cudaMemcpyDeviceToDevice, stream);
    if ((s = check(error, "sygvd: X")) != Status::ok) return s;
  } else if ((s = trsm_device<T>(Side::left, Uplo::lower, Op::conj_trans, Diag::non_unit, n, n, one, dL, ld, dA,
                                 ldda, stream, phase, phase_bytes)) != Status::ok) {
    return s;
  }
  return check(cudaStreamSynchronize(stream), "sygvd: back-transformation");
}

template <class T>
Status sygvd_host(Itype itype, Jobz jobz, Uplo uplo, int n, T *a, int lda, T *b, int ldb, real_t<T> *w, int *info,
                  const TridiagonalSolver<real_t<T>> &solve) {
  const bool vectors = jobz == Jobz::vectors;
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es), nn = size_t(n);
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t work = sygvd_device_workspace<T>(jobz, n);
  void *dA = nullptr, *dB = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldd * nn * es, &dA}, {Slot::b, ldd * nn * es, &dB}, {Slot::work, work, &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, nn * es, nn, dA, ldd * es)) != Status::ok ||
      (s = upload_matrix(ctx, b, size_t(ldb) * es, nn * es, nn, dB, ldd * es)) != Status::ok)
    return s;
  // Copies of the caller's B (and A, which the eigenvectors replace), made while the GPU works:
  // a failure while the results are written back puts them back, so the CPU routine starts
  // from the caller's inputs.
  std::vector<T> saved_a, saved_b(nn * nn);
  if (vectors) saved_a.resize(nn * nn);
  std::thread saver([&] {
    for (size_t j = 0; j < nn; ++j) {
      std::memcpy(saved_b.data() + j * nn, b + j * size_t(ldb), nn * es);
      if (vectors) std::memcpy(saved_a.data() + j * nn, a + j * size_t(lda), nn * es);
    }
  });
  struct Join {
    std::thread &t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{saver};
  std::vector<real_t<T>> values(nn);
  if ((s = sygvd_device<T>(ctx, itype, jobz, uplo, n, static_cast<T *>(dA), ldd, static_cast<T *>(dB), ldd,
                           values.data(), dW, work, solve)) != Status::ok)
    return s;
  saver.join();
  auto restore = [&](T *to, size_t ld, const std::vector<T> &from, size_t columns) {
    for (size_t j = 0; j < columns; ++j) std::memcpy(to + j * ld, from.data() + j * nn, nn * es);
  };
  size_t done = 0;
  // B's other triangle went up and comes back unchanged with the factor's columns.
  if ((s = download_matrix(ctx, dB, ldd * es, nn * es, nn, b, size_t(ldb) * es, &done)) != Status::ok) {
    restore(b, size_t(ldb), saved_b, done);
    return s;
  }
  if (vectors && (s = download_matrix(ctx, dA, ldd * es, nn * es, nn, a, size_t(lda) * es, &done)) != Status::ok) {
    restore(b, size_t(ldb), saved_b, nn);
    restore(a, size_t(lda), saved_a, done);
    return s;
  }
  std::memcpy(w, values.data(), nn * sizeof(real_t<T>));
  *info = 0;
  return Status::ok;
}

#define CUDROP_GENERALIZED_HOST(T)                                                                                 \
  template size_t sygvd_device_workspace<T>(Jobz, int);                                                            \
  template Status sygvd_device<T>(GpuContext &, Itype, Jobz, Uplo, int, T *, size_t, T *, size_t, real_t<T> *,      \
                                  void *, size_t, const TridiagonalSolver<real_t<T>> &);                           \
  template Status sygvd_host<T>(Itype, Jobz, Uplo, int, T *, int, T *, int, real_t<T> *, int *,                     \
                                const TridiagonalSolver<real_t<T>> &);
CUDROP_GENERALIZED_HOST(float)
CUDROP_GENERALIZED_HOST(double)
CUDROP_GENERALIZED_HOST(Complex<float>)
CUDROP_GENERALIZED_HOST(Complex<double>)
#undef CUDROP_GENERALIZED_HOST

}  // namespace cudrop::impl
