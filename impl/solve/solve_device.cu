// Linear solves on the GPU, the device interfaces (impl/solve/solve.h): IPIV's row permutation in one
// pass, then the two triangular solves of impl::trsm_device.
#include <utility>

#include "impl/context/gpu_context.cuh"
#include "impl/level3/level3_device.h"
#include "impl/solve/solve.h"
#include "kernels/solve_permute.cuh"

namespace cudrop::impl {

bool row_permutation(int n, const int *ipiv, std::vector<int> *perm) {
  perm->resize(size_t(n));
  for (int i = 0; i < n; ++i) (*perm)[size_t(i)] = i;
  for (int i = 0; i < n; ++i) {
    const int p = ipiv[i] - 1;
    if (p < 0 || p >= n) return false;
    std::swap((*perm)[size_t(i)], (*perm)[size_t(p)]);
  }
  return true;
}

template <class T>
size_t solve_device_workspace(int n, int nrhs) {
  return trsm_device_workspace<T>(Side::left, n, nrhs);
}

template <class T>
Status getrs_device(Op trans, int n, int nrhs, const T *dLU, size_t ldda, const int *d_perm, T *dB, size_t lddb, T *dX,
                    size_t lddx, void *stream, void *d_work, size_t work_bytes) {
  if (n <= 0 || nrhs <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  auto s = static_cast<cudaStream_t>(stream);
  if (!trans) {
    // X = U^-1 L^-1 P B: the interchanges forward, as the reference's xLASWP(.., 1, N, IPIV, 1).
    Status st = check(kernels::launch_permute_rows(n, nrhs, d_perm, false, dB, lddb, dX, lddx, s), "getrs: permute");
    if (st == Status::ok)
      st = trsm_device<T>(Side::left, Uplo::lower, Op::none, Diag::unit, n, nrhs, T(1), dLU, ldda, dX, lddx, stream,
                          d_work, work_bytes);
    if (st == Status::ok)
      st = trsm_device<T>(Side::left, Uplo::upper, Op::none, Diag::non_unit, n, nrhs, T(1), dLU, ldda, dX, lddx, stream,
                          d_work, work_bytes);
    return st;
  }
  // X = P^T L^-T U^-T B ('T'), P^T L^-H U^-H B ('C'): the interchanges backward, as
  // xLASWP(.., 1, N, IPIV, -1).
  Status st = trsm_device<T>(Side::left, Uplo::upper, trans, Diag::non_unit, n, nrhs, T(1), dLU, ldda, dB, lddb, stream,
                             d_work, work_bytes);
  if (st == Status::ok)
    st = trsm_device<T>(Side::left, Uplo::lower, trans, Diag::unit, n, nrhs, T(1), dLU, ldda, dB, lddb, stream, d_work,
                        work_bytes);
  if (st == Status::ok)
    st = check(kernels::launch_permute_rows(n, nrhs, d_perm, true, dB, lddb, dX, lddx, s), "getrs: permute");
  return st;
}

template <class T>
Status potrs_device(Uplo uplo, int n, int nrhs, const T *dA, size_t ldda, T *dB, size_t lddb, void *stream,
                    void *d_work, size_t work_bytes) {
  if (n <= 0 || nrhs <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  // The reference's two solves: U^H Y = B, then U X = Y; or L Y = B, then L^H X = Y ('C' is
  // the transpose for a real T).
  const bool upper = uplo == Uplo::upper;
  const Op first = upper ? Op::conj_trans : Op::none, second = upper ? Op::none : Op::conj_trans;
  Status st = trsm_device<T>(Side::left, uplo, first, Diag::non_unit, n, nrhs, T(1), dA, ldda, dB, lddb, stream, d_work,
                             work_bytes);
  if (st == Status::ok)
    st = trsm_device<T>(Side::left, uplo, second, Diag::non_unit, n, nrhs, T(1), dA, ldda, dB, lddb, stream, d_work,
                        work_bytes);
  return st;
}

#define CUDROP_SOLVE_DEVICE_INSTANCES(T)                                                                          \
  template size_t solve_device_workspace<T>(int, int);                                                            \
  template Status getrs_device<T>(Op, int, int, const T *, size_t, const int *, T *, size_t, T *, size_t, void *, \
                                  void *, size_t);                                                                \
  template Status potrs_device<T>(Uplo, int, int, const T *, size_t, T *, size_t, void *, void *, size_t);
CUDROP_SOLVE_DEVICE_INSTANCES(float)
CUDROP_SOLVE_DEVICE_INSTANCES(double)
CUDROP_SOLVE_DEVICE_INSTANCES(Complex<float>)
CUDROP_SOLVE_DEVICE_INSTANCES(Complex<double>)
#undef CUDROP_SOLVE_DEVICE_INSTANCES

}  // namespace cudrop::impl
