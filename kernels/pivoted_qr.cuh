#pragma once
// Column-pivoted QR kernels (impl/qr/geqp3_device.cu): LAPACK xLAQPS's steps for one column k of
// a panel that starts at column (and row) j, with F (n x nb, row i for matrix column i) holding
// the panel's accumulated F = tau A^H v columns, as the reference keeps it:
//   pqr_pivot   (one block) ends the panel when the last column marked a norm (LSTICC) or a
//               reflector stopped; else picks the pivot (largest vn1, the first of equals, as
//               IxAMAX) and swaps vn1, vn2, JPVT and F's rows;
//   pqr_column  swaps A's columns (all rows), updates A(k:m, k) -= A(k:m, j:k) F(k, 0:kk)^H and
//               publishes each block's sum of squares and largest modulus below row k;
//   pqr_reflect every block forms xLARFG's reflector from those (in block order: the same bits
//               everywhere, kernels/householder.cuh's make_reflector and its stop rule) and
//               scales its part of v;
//   pqr_gemv    the memory-bound product y = A(k:m, j:n)^H v: partial sums per row chunk;
//   pqr_update  F(k+1:n, kk) = tau y - tau F(., 0:kk) A(k:m, j:k)^H v (the last from the same
//               y's panel part), the pivot row A(k, k+1:n) -= A(k, j:k+1) F(k+1:n, 0:kk+1)^H
//               (A(k, k) taken as one), and xLAQPS's norm downdate with its tol3z test, which
//               marks a column for recomputation and ends the panel after this column.
// Every kernel after pqr_pivot returns at once once the panel has ended (state->done) or a
// reflector stopped (*flag): the host launches a panel's columns without waiting and reads
// back how many were factored.
// pqr_norms: the columns' norms below a row, scaled as xNRM2 scales them (the initial norms and
// the marked columns' recomputation).
#include <cuda_runtime.h>

#include <cfloat>
#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"
#include "kernels/householder.cuh"

namespace cudrop::kernels {

constexpr int kPqrThreads = 256;
constexpr int kPqrMaxNb = 64;
constexpr int kPqrColumnRows = 1024;  // rows a block of pqr_column / pqr_reflect
constexpr int kPqrGemvCols = kPqrThreads / 32;  // columns a block of pqr_gemv (a warp each)
constexpr int kPqrChunk = 2048;       // rows a block of pqr_gemv
constexpr int kPqrPivotThreads = 1024;

template <class T>
struct PqrState {
  T alpha;      // A(k, k) after the column update
  T tau;        // this column's tau
  int pivot;    // this column's pivot
  int kb;       // columns factored in this panel
  int lsticc;   // a norm was marked: the panel ends after this column
  int done;     // the panel has ended
};

template <class T>
struct PqrArgs {
  T *A;
  size_t lda;
  int m, n;
  int j, k;       // the panel's first column, this column (global, 0-based; row k is its pivot row)
  int lastrk;     // min(m, n): no downdate from the last row on
  T *F;
  size_t ldf;
  real_t<T> *vn1, *vn2;
  int *jpvt, *marks;
  T *tau;
  PqrState<T> *state;
  int *flag;
  double *col_sum, *col_max;  // pqr_column's per-block partials
  T *partials;                // pqr_gemv's, chunk c at partials + c * ldp
  size_t ldp;
  int chunks;
};

template <class T>
__device__ __forceinline__ T pqr_load(const T *p) {
  return load_l2(p);
}

template <class T>
__global__ void __launch_bounds__(kPqrPivotThreads) pqr_pivot(PqrArgs<T> p) {
  using R = real_t<T>;
  __shared__ R best_v[kPqrPivotThreads / 32];
  __shared__ int best_i[kPqrPivotThreads / 32];
  __shared__ int s_pivot;
  PqrState<T> *st = p.state;
  if (st->done) return;
  if (st->lsticc != 0 || *static_cast<volatile int *>(p.flag) != 0) {
    if (threadIdx.x == 0) st->done = 1;
    return;
  }
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  R bv = R(-1);
  int bi = p.n;
  for (int i = p.k + tid; i < p.n; i += kPqrPivotThreads) {
    const R v = p.vn1[i];
    if (v > bv) bv = v, bi = i;  // increasing i per thread: the first of equals stays
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const R ov = __shfl_xor_sync(0xffffffffu, bv, o);
    const int oi = __shfl_xor_sync(0xffffffffu, bi, o);
    if (ov > bv || (ov == bv && oi < bi)) bv = ov, bi = oi;
  }
  if (lane == 0) best_v[warp] = bv, best_i[warp] = bi;
  __syncthreads();
  if (tid == 0) {
    for (int w = 1; w < kPqrPivotThreads / 32; ++w)
      if (best_v[w] > bv || (best_v[w] == bv && best_i[w] < bi)) bv = best_v[w], bi = best_i[w];
    if (bi >= p.n) bi = p.k;  // every norm NaN: IxAMAX's first
    s_pivot = bi;
    st->pivot = bi;
    st->kb = p.k - p.j + 1;
    if (bi != p.k) {
      const R v1 = p.vn1[bi], v2 = p.vn2[bi];
      p.vn1[bi] = p.vn1[p.k];
      p.vn2[bi] = p.vn2[p.k];
      p.vn1[p.k] = v1;
      p.vn2[p.k] = v2;
      const int t = p.jpvt[bi];
      p.jpvt[bi] = p.jpvt[p.k];
      p.jpvt[p.k] = t;
    }
  }
  __syncthreads();
  const int pv = s_pivot, kk = p.k - p.j;
  if (pv != p.k && tid < kk) {
    T &a = p.F[size_t(pv) + size_t(tid) * p.ldf];
    T &b = p.F[size_t(p.k) + size_t(tid) * p.ldf];
    const T t = a;
    a = b;
    b = t;
  }
}

template <class T>
__device__ __forceinline__ bool pqr_skip(const PqrArgs<T> &p) {
  return *static_cast<volatile int *>(&p.state->done) != 0 || *static_cast<volatile int *>(p.flag) != 0;
}

template <class T>
__global__ void __launch_bounds__(kPqrThreads) pqr_column(PqrArgs<T> p) {
  using R = real_t<T>;
  __shared__ T fr[kPqrMaxNb];
  __shared__ double red_sum[kPqrThreads / 32];
  __shared__ R red_max[kPqrThreads / 32];
  if (pqr_skip(p)) return;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int k = p.k, kk = k - p.j, pv = p.state->pivot;
  if (tid < kk) fr[tid] = conj(p.F[size_t(k) + size_t(tid) * p.ldf]);
  __syncthreads();
  auto at = [&](int r, int c) -> T & { return p.A[size_t(r) + size_t(c) * p.lda]; };
  const int r0 = blockIdx.x * kPqrColumnRows, r1 = min(p.m, r0 + kPqrColumnRows);
  double sum = 0;
  R amax = 0;
  for (int r = r0 + tid; r < r1; r += kPqrThreads) {
    T a = at(r, k);
    if (pv != k) {
      const T b = at(r, pv);
      at(r, pv) = a;
      a = b;
    }
    if (r >= k) {
      for (int l = 0; l < kk; ++l) a -= at(r, p.j + l) * fr[l];
      if (r > k) sum += squared(a), amax = fmax(amax, modulus(a));
      else p.state->alpha = a;
    }
    at(r, k) = a;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
    amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  }
  if (lane == 0) red_sum[warp] = sum, red_max[warp] = amax;
  __syncthreads();
  if (tid == 0) {
    for (int w = 1; w < kPqrThreads / 32; ++w) red_sum[0] += red_sum[w], red_max[0] = fmax(red_max[0], red_max[w]);
    p.col_sum[blockIdx.x] = red_sum[0];
    p.col_max[blockIdx.x] = double(red_max[0]);
  }
}

template <class T>
__global__ void __launch_bounds__(kPqrThreads) pqr_reflect(PqrArgs<T> p) {
  using R = real_t<T>;
  __shared__ T s_scale;
  __shared__ int s_go;
  // pqr_column's flag test saw this column's start; a block here may see block 0's *flag of
  // this very kernel, which stops it at the same place as the rest.
  if (pqr_skip(p)) return;
  const int tid = threadIdx.x, k = p.k;
  if (tid == 0) {
    double total = 0, biggest = 0;
    for (int q = 0; q < gridDim.x; ++q) total += p.col_sum[q], biggest = fmax(biggest, p.col_max[q]);
    const Reflector<T> h = make_reflector<T>(total, R(biggest), p.state->alpha);
    s_go = !h.stop && h.tau != T(0);
    s_scale = h.scale;
    const int r0 = blockIdx.x * kPqrColumnRows;
    if (h.stop) {
      if (blockIdx.x == 0) *p.flag = 1;
    } else {
      if (h.tau != T(0) && r0 <= k && k < r0 + kPqrColumnRows) p.A[size_t(k) + size_t(k) * p.lda] = T(h.beta);
      if (blockIdx.x == 0) p.tau[k] = h.tau, p.state->tau = h.tau;
    }
  }
  __syncthreads();
  if (!s_go) return;
  const T scale = s_scale;
  const int r0 = blockIdx.x * kPqrColumnRows, r1 = min(p.m, r0 + kPqrColumnRows);
  for (int r = max(r0, k + 1) + tid; r < r1; r += kPqrThreads) {
    T &a = p.A[size_t(r) + size_t(k) * p.lda];
    a = a * scale;
  }
}

// grid (column groups of kPqrGemvCols over [j, n), row chunks of kPqrChunk over [k, m)).
template <class T>
__global__ void __launch_bounds__(kPqrThreads) pqr_gemv(PqrArgs<T> p) {
  if (pqr_skip(p)) return;
  if (p.state->tau == T(0)) return;  // pqr_update reads no partials then
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, k = p.k;
  const int col = p.j + blockIdx.x * kPqrGemvCols + warp;
  if (col >= p.n || col == k) return;
  const int r0 = k + blockIdx.y * kPqrChunk, r1 = min(p.m, r0 + kPqrChunk);
  const T *a = p.A + size_t(col) * p.lda;
  const T *v = p.A + size_t(k) * p.lda;
  T acc0 = T(0), acc1 = T(0);
  int r = r0 + lane;
  for (; r + 32 < r1; r += 64) {
    const T v0 = r == k ? T(1) : v[r], v1 = v[r + 32];
    acc0 += conj(a[r]) * v0;
    acc1 += conj(a[r + 32]) * v1;
  }
  if (r < r1) acc0 += conj(a[r]) * (r == k ? T(1) : v[r]);
  acc0 = warp_sum(acc0 + acc1);
  if (lane == 0) p.partials[size_t(blockIdx.y) * p.ldp + col] = acc0;
}

// grid over the columns i in (k, n), one thread each.
template <class T>
__global__ void __launch_bounds__(kPqrThreads) pqr_update(PqrArgs<T> p, real_t<T> tol3z) {
  using R = real_t<T>;
  __shared__ T auxv[kPqrMaxNb], arow[kPqrMaxNb];
  if (pqr_skip(p)) return;
  const int tid = threadIdx.x, k = p.k, kk = k - p.j;
  const T tau = p.state->tau;
  const bool reflect = tau != T(0);
  if (tid < kk) {
    T s = T(0);
    if (reflect)
      for (int c = 0; c < p.chunks; ++c) s += p.partials[size_t(c) * p.ldp + p.j + tid];
    auxv[tid] = -tau * s;
    arow[tid] = p.A[size_t(k) + size_t(p.j + tid) * p.lda];
  }
  __syncthreads();
  const int i = k + 1 + blockIdx.x * kPqrThreads + tid;
  if (i >= p.n) return;
  T y = T(0);
  if (reflect)
    for (int c = 0; c < p.chunks; ++c) y += p.partials[size_t(c) * p.ldp + i];
  T f = tau * y;
  T *frow = p.F + size_t(i);
  for (int l = 0; l < kk; ++l) f += frow[size_t(l) * p.ldf] * auxv[l];
  frow[size_t(kk) * p.ldf] = f;
  T &ai = p.A[size_t(k) + size_t(i) * p.lda];
  T a = ai;
  for (int l = 0; l < kk; ++l) a -= arow[l] * conj(frow[size_t(l) * p.ldf]);
  a -= conj(f);
  ai = a;
  if (k >= p.lastrk - 1) return;
  const R v1 = p.vn1[i];
  if (v1 == R(0)) return;
  R temp = modulus(a) / v1;
  temp = fmax(R(0), (R(1) + temp) * (R(1) - temp));
  const R ratio = v1 / p.vn2[i];
  const R temp2 = temp * (ratio * ratio);
  if (temp2 <= tol3z) {
    p.marks[i] = 1;
    p.state->lsticc = 1;
  } else {
    p.vn1[i] = v1 * sqrt(temp);
  }
}

// One block a column: vn1 = vn2 = || A(row0:m, col) ||, for the columns col0 + blockIdx.x
// (marks non-null: only the marked ones, unmarked after). The sum of squares of the column
// scaled by its largest component, as xNRM2 guards against overflow and underflow.
template <class T>
__global__ void __launch_bounds__(kPqrThreads) pqr_norms(const T *__restrict__ A, size_t lda, int m, int row0, int col0,
                                                         real_t<T> *vn1, real_t<T> *vn2, int *marks) {
  using R = real_t<T>;
  __shared__ double red[kPqrThreads / 32];
  __shared__ double s_big;
  const int col = col0 + blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (marks != nullptr && marks[col] == 0) return;
  const T *a = A + size_t(col) * lda;
  double big = 0;
  for (int r = row0 + tid; r < m; r += kPqrThreads) {
    const T x = a[r];
    big = fmax(big, double(fmax(fabs(real_part(x)), fabs(imag_part(x)))));
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) big = fmax(big, __shfl_xor_sync(0xffffffffu, big, o));
  if (lane == 0) red[warp] = big;
  __syncthreads();
  if (tid == 0) {
    for (int w = 1; w < kPqrThreads / 32; ++w) red[0] = fmax(red[0], red[w]);
    s_big = red[0];
  }
  __syncthreads();
  big = s_big;
  R norm = 0;
  if (big > 0 && isfinite(big)) {
    const double inv = 1 / big;
    double sum = 0;
    for (int r = row0 + tid; r < m; r += kPqrThreads) {
      const T x = a[r];
      const double re = double(real_part(x)) * inv, im = double(imag_part(x)) * inv;
      sum += re * re + im * im;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    __syncthreads();
    if (lane == 0) red[warp] = sum;
    __syncthreads();
    if (tid == 0) {
      for (int w = 1; w < kPqrThreads / 32; ++w) red[0] += red[w];
      norm = R(big * sqrt(red[0]));
    }
  } else if (big != 0) {
    norm = R(big);  // Inf or NaN: the reflector's stop rule takes the call to the CPU
  }
  if (tid == 0) {
    vn1[col] = norm;
    vn2[col] = norm;
    if (marks != nullptr) marks[col] = 0;
  }
}

// Swap columns a and b (rows entries each).
template <class T>
__global__ void swap_columns(int rows, T *a, T *b) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const T t = a[r];
  a[r] = b[r];
  b[r] = t;
}

template <class T>
cudaError_t launch_pqr_column_step(const PqrArgs<T> &p, real_t<T> tol3z, cudaStream_t s) {
  const unsigned column_blocks = unsigned((p.m + kPqrColumnRows - 1) / kPqrColumnRows);
  pqr_pivot<T><<<1, kPqrPivotThreads, 0, s>>>(p);
  pqr_column<T><<<column_blocks, kPqrThreads, 0, s>>>(p);
  pqr_reflect<T><<<column_blocks, kPqrThreads, 0, s>>>(p);
  const unsigned groups = unsigned((p.n - p.j + kPqrGemvCols - 1) / kPqrGemvCols);
  pqr_gemv<T><<<dim3(groups, unsigned(p.chunks)), kPqrThreads, 0, s>>>(p);
  const int right = p.n - p.k - 1;
  pqr_update<T><<<unsigned(right > 0 ? (right + kPqrThreads - 1) / kPqrThreads : 1), kPqrThreads, 0, s>>>(p, tol3z);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_pqr_norms(const T *A, size_t lda, int m, int row0, int col0, int cols, real_t<T> *vn1,
                             real_t<T> *vn2, int *marks, cudaStream_t s) {
  if (cols <= 0) return cudaSuccess;
  pqr_norms<T><<<unsigned(cols), kPqrThreads, 0, s>>>(A, lda, m, row0, col0, vn1, vn2, marks);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_swap_columns(int rows, T *a, T *b, cudaStream_t s) {
  if (rows <= 0 || a == b) return cudaSuccess;
  swap_columns<T><<<unsigned((rows + 255) / 256), 256, 0, s>>>(rows, a, b);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
