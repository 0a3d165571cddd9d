// xGEBRD (m >= n) and xORMBR 'P' on device arrays (impl/svd/svd.h): xLABRD's panels with the
// per-column kernels of kernels/bidiagonal.cuh, the trailing matrix updated by two gemm_device
// products (A22 -= V Y^H + X U^H, as xGEBRD does); P^H applied by the QR family's ormqr_device
// on P's vectors laid out as xGEQRF's.
#include <algorithm>

#include "core/layout.h"
#include "core/tuning.h"
#include "impl/context/gpu_context.cuh"
#include "impl/gemm/gemm.h"
#include "impl/qr/qr.h"
#include "impl/svd/svd.h"
#include "kernels/bidiagonal.cuh"

namespace cudrop::impl {
namespace {

constexpr int kNb = tuning::kGebrdNb;
static_assert(kNb >= 1 && kNb <= kernels::kBdMaxNb, "the per-column kernels hold a panel's coefficients in shared arrays");

// column_dots' grid for column c (panel-local i): its columns (A's j..c-1, c+1..n-1, X's
// 0..i-1; none for the last column) and the chunks of rows c..m-1: enough warps to stream the
// trailing block (tuning::kGebrdDotWarps), no chunk shorter than kMinRows nor longer than the
// rows of v a block keeps.
struct DotPlan {
  int cols = 0, chunk_rows = 1, chunks = 1;
};
DotPlan dot_plan(int m, int n, int c, int i) {
  constexpr long long kMinRows = 256;
  DotPlan p;
  const int trailing = n - c - 1, rows = m - c;
  if (trailing <= 0) return p;
  p.cols = 2 * i + trailing;
  long long chunks = std::clamp<long long>(ceil_div(tuning::kGebrdDotWarps, p.cols), 1, ceil_div(rows, kMinRows));
  chunks = std::max<long long>(chunks, ceil_div(rows, kernels::kBdDotChunkMax));
  p.chunk_rows = int(std::min<long long>(round_up(ceil_div(rows, chunks), 32), kernels::kBdDotChunkMax));
  p.chunks = int(ceil_div(rows, p.chunk_rows));
  return p;
}

// row_products' grid for column c < n-1 of the panel at j: blocks of kBdProductRows rows of
// j..m-1 by chunks of the columns c+1..n-1, about tuning::kGebrdProductBlocks blocks, no chunk
// narrower than kMinCols nor wider than the u a block keeps.
struct ProductPlan {
  int rows = 0, row_blocks = 0, chunk_cols = 1, chunks = 1;
};
ProductPlan product_plan(int m, int n, int j, int c) {
  constexpr long long kMinCols = 32;
  ProductPlan p;
  const int cols = n - c - 1;
  p.rows = m - j;
  p.row_blocks = int(ceil_div(p.rows, kernels::kBdProductRows));
  long long chunks = std::clamp<long long>(ceil_div(tuning::kGebrdProductBlocks, p.row_blocks), 1, ceil_div(cols, kMinCols));
  chunks = std::max<long long>(chunks, ceil_div(cols, kernels::kBdProductColsMax));
  p.chunk_cols = int(ceil_div(cols, chunks));
  p.chunks = int(ceil_div(cols, p.chunk_cols));
  return p;
}

int blocks_for(int count, int threads) { return std::max(1, int(ceil_div(std::max(count, 0), threads))); }

template <class T>
struct GebrdWork {
  T *x = nullptr, *y = nullptr, *ut = nullptr, *scale = nullptr, *dots = nullptr, *xpart = nullptr, *t3part = nullptr;
  size_t ldx = 0, ldy = 0;
  double *col_sum = nullptr, *row_sum = nullptr;
  real_t<T> *col_max = nullptr, *row_max = nullptr;
  void *gemm = nullptr;
  size_t gemm_bytes = 0, bytes = 0;
};

template <class T>
GebrdWork<T> carve(void *base, int m, int n) {
  GebrdWork<T> s;
  size_t at = 0;
  auto take = [&](size_t bytes) {
    char *p = base == nullptr ? nullptr : static_cast<char *>(base) + at;
    at += size_t(round_up(std::max<size_t>(bytes, 1), 256));
    return p;
  };
  const size_t es = sizeof(T);
  // The largest partial arrays any column's grid asks for.
  size_t dots = 1, xpart = 1, chunks = 1;
  for (int c = 0; c < n; ++c) {
    const int j = c - c % kNb;
    const DotPlan d = dot_plan(m, n, c, c - j);
    dots = std::max(dots, size_t(d.chunks) * size_t(d.cols));
    if (c + 1 < n) {
      const ProductPlan p = product_plan(m, n, j, c);
      xpart = std::max(xpart, size_t(p.chunks) * size_t(p.rows));
      chunks = std::max(chunks, size_t(p.chunks));
    }
  }
  const size_t parts = size_t(blocks_for(m, std::min(kernels::kBdRowThreads, kernels::kBdFinishThreads)));
  s.ldx = padded_ld(size_t(m), es);
  s.ldy = padded_ld(size_t(n), es);
  s.x = reinterpret_cast<T *>(take(s.ldx * kNb * es));
  s.y = reinterpret_cast<T *>(take(s.ldy * kNb * es));
  s.ut = reinterpret_cast<T *>(take(s.ldy * kNb * es));
  s.scale = reinterpret_cast<T *>(take(2 * es));
  s.dots = reinterpret_cast<T *>(take(dots * es));
  s.xpart = reinterpret_cast<T *>(take(xpart * es));
  s.t3part = reinterpret_cast<T *>(take(chunks * kNb * es));
  s.col_sum = reinterpret_cast<double *>(take(parts * sizeof(double)));
  s.row_sum = reinterpret_cast<double *>(take(parts * sizeof(double)));
  s.col_max = reinterpret_cast<real_t<T> *>(take(parts * sizeof(real_t<T>)));
  s.row_max = reinterpret_cast<real_t<T> *>(take(parts * sizeof(real_t<T>)));
  if (n > kNb)
    s.gemm_bytes = std::max(gemm_device_workspace<T>(Op::none, Op::conj_trans, m - kNb, n - kNb, kNb),
                            gemm_device_workspace<T>(Op::none, Op::none, m - kNb, n - kNb, kNb));
  s.gemm = take(s.gemm_bytes);
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
      cudaFuncGetAttributes(&attributes, kernels::bidiagonal_column_dots<T>) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major >= 9 && attributes.ptxVersion >= 90 && attributes.binaryVersion >= 90;
}

}  // namespace

template <class T>
size_t gebrd_device_workspace(int m, int n) {
  if (m <= 0 || n <= 0) return 256;
  return carve<T>(nullptr, m, n).bytes;
}

template <class T>
Status gebrd_device(int m, int n, T *dA, size_t ldda, real_t<T> *d_d, real_t<T> *d_e, T *d_tauq, T *d_taup,
                    int *d_flag, void *d_work, size_t work_bytes, void *stream_) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (m < n) return Status::special_values;  // upper bidiagonal only: the CPU routine's case
  if (inject_fault("launch")) return Status::cuda_error;
  const GebrdWork<T> s = carve<T>(d_work, m, n);
  if (d_work == nullptr || work_bytes < s.bytes) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  auto at = [&](int r, int c) { return dA + size_t(r) + size_t(c) * ldda; };
  if (Status st = check(cudaMemsetAsync(d_flag, 0, sizeof(int), stream), "gebrd: start"); st != Status::ok) return st;
  const bool chained = chained_launches<T>();
  kernels::BidiagonalArgs<T> p{};
  p.m = m;
  p.n = n;
  p.nb = kNb;
  p.a = dA;
  p.lda = ldda;
  p.x = s.x;
  p.ldx = s.ldx;
  p.y = s.y;
  p.ldy = s.ldy;
  p.ut = s.ut;
  p.ldut = s.ldy;
  p.tauq = d_tauq;
  p.taup = d_taup;
  p.d = d_d;
  p.e = d_e;
  p.scale = s.scale;
  p.col_sum = s.col_sum;
  p.col_max = s.col_max;
  p.row_sum = s.row_sum;
  p.row_max = s.row_max;
  p.dots = s.dots;
  p.xpart = s.xpart;
  p.t3part = s.t3part;
  p.flag = d_flag;
  cudaError_t error = cudaSuccess;
  for (int j = 0; j < n; j += kNb) {
    const int jb = std::min(kNb, n - j);
    // The panel's first column is up to date (the trailing update): its norm's parts alone.
    p.j = j;
    p.i = 0;
    p.c = j;
    p.has_x = false;
    p.next = j;
    p.col_parts = blocks_for(m - j, kernels::kBdFinishThreads);
    error = kernels::launch_chained(chained, dim3(unsigned(p.col_parts)), dim3(kernels::kBdFinishThreads), stream,
                                    kernels::bidiagonal_column_finish<T>, p);
    for (int i = 0; i < jb && error == cudaSuccess; ++i) {
      const int c = j + i;
      p.i = i;
      p.c = c;
      const DotPlan dp = dot_plan(m, n, c, i);
      p.dot_cols = dp.cols;
      p.dot_chunk_rows = dp.chunk_rows;
      p.dot_chunks = dp.chunks;
      error = kernels::launch_chained(
          chained, dim3(unsigned(blocks_for(dp.cols, kernels::kBdDotWarps)), unsigned(dp.chunks)),
          dim3(kernels::kBdDotWarps * 32), stream, kernels::bidiagonal_column_dots<T>, p);
      p.row_parts = blocks_for(std::max(n, m) - c - 1, kernels::kBdRowThreads);
      if (error == cudaSuccess)
        error = kernels::launch_chained(chained, dim3(unsigned(p.row_parts)), dim3(kernels::kBdRowThreads), stream,
                                        kernels::bidiagonal_row_update<T>, p);
      if (c + 1 >= n || error != cudaSuccess) continue;
      const ProductPlan pp = product_plan(m, n, j, c);
      p.x_rows = pp.rows;
      p.x_row_blocks = pp.row_blocks;
      p.x_chunk_cols = pp.chunk_cols;
      p.x_chunks = pp.chunks;
      error = kernels::launch_chained(chained, dim3(unsigned(pp.row_blocks + 1), unsigned(pp.chunks)),
                                      dim3(kernels::kBdProductRows), stream, kernels::bidiagonal_row_products<T>, p);
      // X's column i; the next column of the panel updated, with its norm's parts.
      p.has_x = true;
      p.next = i + 1 < jb ? c + 1 : -1;
      p.col_parts = blocks_for(m - c - 1, kernels::kBdFinishThreads);
      if (error == cudaSuccess)
        error = kernels::launch_chained(chained, dim3(unsigned(p.col_parts)), dim3(kernels::kBdFinishThreads), stream,
                                        kernels::bidiagonal_column_finish<T>, p);
    }
    if (Status st = check(error != cudaSuccess ? error : cudaGetLastError(), "gebrd: panel"); st != Status::ok)
      return st;
    if (j + jb < n) {
      // A22 -= V Y^H + X U^H: V the panel's column reflectors below it, U^H its rows as stored
      // (the unit entries in place until the restore below).
      const int m2 = m - j - jb, n2 = n - j - jb;
      Status st = gemm_device<T>(Op::none, Op::conj_trans, m2, n2, jb, T(-1), at(j + jb, j), ldda, s.y + size_t(j + jb),
                                 s.ldy, T(1), at(j + jb, j + jb), ldda, stream, {}, s.gemm, s.gemm_bytes);
      if (st == Status::ok)
        st = gemm_device<T>(Op::none, Op::none, m2, n2, jb, T(-1), s.x + size_t(j + jb), s.ldx, at(j, j + jb), ldda,
                            T(1), at(j + jb, j + jb), ldda, stream, {}, s.gemm, s.gemm_bytes);
      if (st != Status::ok) return st;
    }
    kernels::bidiagonal_restore<T><<<1, kNb, 0, stream>>>(j, jb, n, dA, ldda, d_d, d_e);
    if (Status st = check(cudaGetLastError(), "gebrd: restore"); st != Status::ok) return st;
  }
  return Status::ok;
}

// P^H from the right: W's columns are P's vectors (kernels::p_vectors), P = G(1) ... G(n-1) is
// then xGEQRF's Q of W, applied to C's columns 1..n-1 (xORMBR through xORMLQ does the same
// with the rows as stored).
template <class T>
size_t apply_p_device_workspace(int k, int n) {
  if (k <= 0 || n <= 1) return 256;
  const size_t ldw = padded_ld(size_t(n - 1), sizeof(T));
  return size_t(round_up(ldw * size_t(n - 1) * sizeof(T), 256)) +
         ormqr_device_workspace<T>(Side::right, k, n - 1, n - 1);
}

template <class T>
Status apply_p_device(int k, int n, const T *dA, size_t ldda, const T *d_taup, T *dC, size_t lddc, void *d_work,
                      size_t work_bytes, void *stream_) {
  if (k <= 0 || n <= 1) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const size_t ldw = padded_ld(size_t(n - 1), sizeof(T));
  const size_t w_bytes = size_t(round_up(ldw * size_t(n - 1) * sizeof(T), 256));
  if (d_work == nullptr || work_bytes < apply_p_device_workspace<T>(k, n)) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  T *w = static_cast<T *>(d_work);
  const unsigned tiles = unsigned(ceil_div(n - 1, 32));
  kernels::p_vectors<T><<<dim3(tiles, tiles), 256, 0, stream>>>(n, dA, ldda, w, ldw);
  if (Status st = check(cudaGetLastError(), "apply_p: vectors"); st != Status::ok) return st;
  return ormqr_device<T>(Side::right, Op::conj_trans, k, n - 1, n - 1, w, ldw, d_taup, dC + lddc, lddc,
                         static_cast<char *>(d_work) + w_bytes, work_bytes - w_bytes, stream);
}

#define CUDROP_GEBRD(T)                                                                                           \
  template size_t gebrd_device_workspace<T>(int, int);                                                            \
  template Status gebrd_device<T>(int, int, T *, size_t, real_t<T> *, real_t<T> *, T *, T *, int *, void *, size_t, \
                                  void *);                                                                        \
  template size_t apply_p_device_workspace<T>(int, int);                                                          \
  template Status apply_p_device<T>(int, int, const T *, size_t, const T *, T *, size_t, void *, size_t, void *);
CUDROP_GEBRD(float)
CUDROP_GEBRD(double)
CUDROP_GEBRD(Complex<float>)
CUDROP_GEBRD(Complex<double>)
#undef CUDROP_GEBRD

}  // namespace cudrop::impl
