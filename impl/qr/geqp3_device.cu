// Column-pivoted QR on a device matrix (impl/qr/qr.h geqp3_device): xGEQP3's free columns by
// xLAQPS's panels (kernels/pivoted_qr.cuh), each panel's trailing update one gemm_device.
// The host waits once a panel: a panel ends early where a norm downdate lost its accuracy
// (xLAQPS's LSTICC), so the next panel's start and the update's width come from the device.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "core/env.h"
#include "core/layout.h"
#include "core/tuning.h"
#include "impl/context/gpu_context.cuh"
#include "impl/gemm/gemm.h"
#include "impl/qr/qr.h"
#include "kernels/pivoted_qr.cuh"

namespace cudrop::impl {
namespace {

int pivoted_panel_width() { return std::clamp(settings().qr_nb, 1, kernels::kPqrMaxNb); }

template <class T>
struct PqrWork {
  kernels::PqrState<T> *state = nullptr;
  real_t<T> *vn1 = nullptr, *vn2 = nullptr;
  int *marks = nullptr;
  T *f = nullptr;
  size_t ldf = 0;
  double *col_sum = nullptr, *col_max = nullptr;
  T *partials = nullptr;
  size_t ldp = 0;
  void *gemm = nullptr;
  size_t gemm_bytes = 0, bytes = 0;
};

template <class T>
PqrWork<T> carve_pqr(void *base, int m, int n) {
  using R = real_t<T>;
  const int nb = pivoted_panel_width();
  PqrWork<T> w;
  size_t at = 0;
  auto take = [&](size_t bytes) {
    char *p = base == nullptr ? nullptr : static_cast<char *>(base) + at;
    at += size_t(round_up(std::max<size_t>(bytes, 1), 256));
    return p;
  };
  const size_t es = sizeof(T);
  w.state = reinterpret_cast<kernels::PqrState<T> *>(take(sizeof(kernels::PqrState<T>)));
  w.vn1 = reinterpret_cast<R *>(take(size_t(n) * sizeof(R)));
  w.vn2 = reinterpret_cast<R *>(take(size_t(n) * sizeof(R)));
  w.marks = reinterpret_cast<int *>(take(size_t(n) * sizeof(int)));
  w.ldf = padded_ld(size_t(n), es);
  w.f = reinterpret_cast<T *>(take(w.ldf * nb * es));
  const size_t column_blocks = ceil_div(size_t(m), size_t(kernels::kPqrColumnRows));
  w.col_sum = reinterpret_cast<double *>(take(column_blocks * sizeof(double)));
  w.col_max = reinterpret_cast<double *>(take(column_blocks * sizeof(double)));
  w.ldp = padded_ld(size_t(n), es);
  w.partials = reinterpret_cast<T *>(take(ceil_div(size_t(m), size_t(kernels::kPqrChunk)) * w.ldp * es));
  w.gemm_bytes = gemm_device_workspace<T>(Op::none, Op::conj_trans, m, n, nb);
  w.gemm = take(w.gemm_bytes);
  w.bytes = at;
  return w;
}

template <class R>
R tol3z() {
  // sqrt of LAPACK's xLAMCH('Epsilon'), the relative machine precision (half the ulp of one).
  return std::sqrt(std::numeric_limits<R>::epsilon() * R(0.5));
}

}  // namespace

template <class T>
size_t geqp3_device_workspace(int m, int n) {
  return carve_pqr<T>(nullptr, std::max(m, 1), std::max(n, 1)).bytes;
}

template <class T>
Status geqp3_device(GpuContext &ctx, int m, int n, int first, T *dA, size_t ldda, int *d_jpvt, T *d_tau, int *d_flag,
                    void *d_work, size_t work_bytes) {
  using R = real_t<T>;
  const int mn = std::min(m, n);
  if (first >= mn) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const PqrWork<T> w = carve_pqr<T>(d_work, m, n);
  if (d_work == nullptr || work_bytes < w.bytes) return Status::out_of_memory;
  cudaStream_t stream = ctx.stream;
  const int nb = pivoted_panel_width();
  cudaError_t error = cudaMemsetAsync(d_flag, 0, sizeof(int), stream);
  if (error == cudaSuccess) error = cudaMemsetAsync(w.marks, 0, size_t(n) * sizeof(int), stream);
  // xGEQP3's initial norms: the free columns below the fixed ones' rows.
  if (error == cudaSuccess)
    error = kernels::launch_pqr_norms<T>(dA, ldda, m, first, first, n - first, w.vn1, w.vn2, nullptr, stream);
  if (Status s = check(error, "geqp3: norms"); s != Status::ok) return s;
  kernels::PqrArgs<T> p{};
  p.A = dA;
  p.lda = ldda;
  p.m = m;
  p.n = n;
  p.lastrk = mn;
  p.F = w.f;
  p.ldf = w.ldf;
  p.vn1 = w.vn1;
  p.vn2 = w.vn2;
  p.jpvt = d_jpvt;
  p.marks = w.marks;
  p.tau = d_tau;
  p.state = w.state;
  p.flag = d_flag;
  p.col_sum = w.col_sum;
  p.col_max = w.col_max;
  p.partials = w.partials;
  p.ldp = w.ldp;
  const R tol = tol3z<R>();
  for (int j = first; j < mn;) {
    const int jb = std::min(nb, mn - j);
    error = cudaMemsetAsync(w.state, 0, sizeof(kernels::PqrState<T>), stream);
    p.j = j;
    for (int k = j; k < j + jb && error == cudaSuccess; ++k) {
      p.k = k;
      p.chunks = int(ceil_div(m - k, kernels::kPqrChunk));
      error = kernels::launch_pqr_column_step<T>(p, tol, stream);
    }
    if (Status s = check(error, "geqp3: panel"); s != Status::ok) return s;
    kernels::PqrState<T> state;
    int flag = 0;
    error = cudaMemcpyAsync(&state, w.state, sizeof state, cudaMemcpyDeviceToHost, stream);
    if (error == cudaSuccess) error = cudaMemcpyAsync(&flag, d_flag, sizeof flag, cudaMemcpyDeviceToHost, stream);
    if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
    if (Status s = check(error, "geqp3: panel state"); s != Status::ok) return s;
    if (flag != 0) return Status::special_values;
    const int kb = state.kb, rk = j + kb;
    if (kb < 1 || kb > jb) return check(cudaErrorUnknown, "geqp3: panel count");
    // xLAQPS: A(rk:m, rk:n) -= A(rk:m, j:rk) F(rk:n, 0:kb)^H.
    if (rk < mn) {
      const Status s = gemm_device<T>(Op::none, Op::conj_trans, m - rk, n - rk, kb, T(-1), dA + size_t(rk) + size_t(j) * ldda,
                                      ldda, w.f + size_t(rk), w.ldf, T(1), dA + size_t(rk) + size_t(rk) * ldda, ldda,
                                      stream, {}, w.gemm, w.gemm_bytes);
      if (s != Status::ok) return s;
    }
    if (state.lsticc != 0 && rk < n) {
      error = kernels::launch_pqr_norms<T>(dA, ldda, m, rk, rk, n - rk, w.vn1, w.vn2, w.marks, stream);
      if (Status s = check(error, "geqp3: norms"); s != Status::ok) return s;
    }
    j = rk;
  }
  return Status::ok;
}

#define CUDROP_GEQP3_DEVICE(T)                                 \
  template size_t geqp3_device_workspace<T>(int, int);         \
  template Status geqp3_device<T>(GpuContext &, int, int, int, T *, size_t, int *, T *, int *, void *, size_t);
CUDROP_GEQP3_DEVICE(float)
CUDROP_GEQP3_DEVICE(double)
CUDROP_GEQP3_DEVICE(Complex<float>)
CUDROP_GEQP3_DEVICE(Complex<double>)
#undef CUDROP_GEQP3_DEVICE

}  // namespace cudrop::impl
