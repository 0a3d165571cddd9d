// xSYTRD/xHETRD ('L') on device arrays (impl/eigen/eigen.h): xLATRD's panels with the per-column
// kernels of kernels/tridiagonal.cuh, the trailing matrix updated by syr2k_device/her2k_device.
#include <algorithm>

#include "core/layout.h"
#include "core/tuning.h"
#include "impl/eigen/eigen.h"
#include "impl/context/gpu_context.cuh"
#include "impl/level3/level3_device.h"
#include "kernels/tridiagonal.cuh"

namespace cudrop::impl {
namespace {

constexpr int kNb = tuning::kSytrdNb;

template <class T>
struct SytrdWork {
  T *w = nullptr, *row_part = nullptr, *col_part = nullptr, *dot_part = nullptr, *alpha_part = nullptr;
  double *sum_part = nullptr;  // column_update's parts of the norm
  real_t<T> *max_part = nullptr;
  size_t ldw = 0;
  void *rank2k = nullptr;
  size_t rank2k_bytes = 0, bytes = 0;
};

template <class T>
SytrdWork<T> carve(void *base, int n) {
  SytrdWork<T> s;
  size_t at = 0;
  auto take = [&](size_t bytes) {
    char *p = base == nullptr ? nullptr : static_cast<char *>(base) + at;
    at += size_t(round_up(std::max<size_t>(bytes, 1), 256));
    return p;
  };
  const size_t es = sizeof(T), tiles = size_t(ceil_div(n, kernels::kHemvTile));
  s.ldw = padded_ld(size_t(n), es);
  s.w = reinterpret_cast<T *>(take(s.ldw * kNb * es));
  s.dot_part = reinterpret_cast<T *>(take(tiles * 2 * kNb * es));
  s.alpha_part = reinterpret_cast<T *>(take(tiles * es));
  s.row_part = reinterpret_cast<T *>(take(tiles * tiles * kernels::kHemvTile * es));
  s.col_part = reinterpret_cast<T *>(take(tiles * tiles * kernels::kHemvTile * es));
  const size_t parts = size_t(ceil_div(n, kernels::kUpdateRows));
  s.sum_part = reinterpret_cast<double *>(take(parts * sizeof(double)));
  s.max_part = reinterpret_cast<real_t<T> *>(take(parts * sizeof(real_t<T>)));
  s.rank2k_bytes = syr2k_device_workspace<T>(Op::none, n, kNb);
  s.rank2k = take(s.rank2k_bytes);
  s.bytes = at;
  return s;
}

// Chained launches (kernels/dependent_launch.cuh) need the wait compiled into the kernels: code
// for sm_90 or later running on such a GPU (PTX of an older target JIT-compiled here would not
// wait).
template <class T>
bool chained_launches() {
  cudaFuncAttributes attributes{};
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaFuncGetAttributes(&attributes, kernels::column_reflector<T>) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major >= 9 && attributes.ptxVersion >= 90 && attributes.binaryVersion >= 90;
}

unsigned blocks_for(int rows, int threads) { return unsigned(std::max(1, (rows + threads - 1) / threads)); }

}  // namespace

template <class T>
size_t sytrd_device_workspace(int n) {
  return carve<T>(nullptr, n).bytes;
}

template <class T>
Status sytrd_device(int n, T *dA, size_t ldda, real_t<T> *d_d, real_t<T> *d_e, T *d_tau, int *d_flag, void *d_work,
                    size_t work_bytes, void *stream_) {
  if (n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const SytrdWork<T> s = carve<T>(d_work, n);
  if (d_work == nullptr || work_bytes < s.bytes) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  auto at = [&](int r, int c) { return dA + size_t(r) + size_t(c) * ldda; };
  if (Status st = check(cudaMemsetAsync(d_flag, 0, sizeof(int), stream), "sytrd: start"); st != Status::ok) return st;
  const bool chained = chained_launches<T>();
  cudaError_t error = cudaSuccess;
  for (int j = 0; j < n && error == cudaSuccess; j += kNb) {
    const int jb = std::min(kNb, n - j);
    for (int i = 0; i < jb && error == cudaSuccess; ++i) {
      const int c = j + i;
      const int parts = int(ceil_div(n - c, kernels::kUpdateRows));
      error = kernels::launch_chained(chained, dim3(unsigned(parts)), dim3(kernels::kUpdateRows), stream,
                                      kernels::column_update<T>, n, j, i, dA, ldda, s.w, s.ldw, s.sum_part, s.max_part,
                                      d_flag);
      if (error == cudaSuccess)
        error = kernels::launch_chained(chained, dim3(1), dim3(kernels::kReflectorThreads), stream,
                                        kernels::column_reflector<T>, n, c, dA, ldda, s.sum_part, s.max_part, parts,
                                        d_tau, d_e, d_flag);
      if (c + 1 >= n || error != cudaSuccess) continue;
      const int m = n - c - 1, tiles = int(ceil_div(m, kernels::kHemvTile));
      const kernels::HemvArgs<T> h{n, j, i, c, m, tiles, kNb, dA, ldda, s.w, s.ldw, d_tau, s.row_part, s.col_part,
                                   s.dot_part, s.alpha_part, d_flag};
      const size_t tile_blocks = size_t(tiles) * (tiles + 1) / 2 + (i > 0 ? tiles : 0);
      error = kernels::launch_chained(chained, dim3(unsigned(tile_blocks)), dim3(256), stream, kernels::hemv_tiles<T>, h);
      if (error == cudaSuccess)
        error = kernels::launch_chained(chained, dim3(unsigned(tiles)), dim3(kernels::kCorrectThreads), stream,
                                        kernels::hemv_correct<T>, h);
      if (error == cudaSuccess)
        error = kernels::launch_chained(chained, dim3(blocks_for(m, 256)), dim3(256), stream, kernels::finish_w<T>, h);
    }
    if (Status st = check(error != cudaSuccess ? error : cudaGetLastError(), "sytrd: panel"); st != Status::ok)
      return st;
    if (j + jb < n) {
      // A22 -= V W^H + W V^H (V: the panel's reflectors with their unit entries in place).
      const int m2 = n - j - jb;
      Status st;
      if constexpr (is_complex_v<T>)
        st = her2k_device<T>(Uplo::lower, Op::none, m2, jb, T(-1), at(j + jb, j), ldda, s.w + size_t(j + jb), s.ldw,
                             real_t<T>(1), at(j + jb, j + jb), ldda, stream, s.rank2k, s.rank2k_bytes);
      else
        st = syr2k_device<T>(Uplo::lower, Op::none, m2, jb, T(-1), at(j + jb, j), ldda, s.w + size_t(j + jb), s.ldw,
                             T(1), at(j + jb, j + jb), ldda, stream, s.rank2k, s.rank2k_bytes);
      if (st != Status::ok) return st;
    }
    kernels::panel_restore<T><<<1, kNb, 0, stream>>>(j, jb, n, dA, ldda, d_e, d_d);
    if (Status st = check(cudaGetLastError(), "sytrd: restore"); st != Status::ok) return st;
  }
  return Status::ok;
}

#define CUDROP_SYTRD(T)                                      \
  template size_t sytrd_device_workspace<T>(int);            \
  template Status sytrd_device<T>(int, T *, size_t, real_t<T> *, real_t<T> *, T *, int *, void *, size_t, void *);
CUDROP_SYTRD(float)
CUDROP_SYTRD(double)
CUDROP_SYTRD(Complex<float>)
CUDROP_SYTRD(Complex<double>)
#undef CUDROP_SYTRD

}  // namespace cudrop::impl
