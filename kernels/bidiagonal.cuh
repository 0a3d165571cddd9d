#pragma once
// Reduction of an m x n matrix (m >= n) to upper bidiagonal form, as LAPACK's xGEBRD with
// xLABRD's panels defines it (impl/svd/gebrd_device.cu): the per-column kernels of a panel.
//
// The panel starts at column j; column c = j + i (panel-local i). X (m x nb) and Y (n x nb) are
// xLABRD's, indexed by A's global rows (X) and columns (Y); UT (n x nb) holds the panel's rows as
// stored, transposed (UT(col, l) = A(j+l, col): conj(u_l) for complex), so that a thread per
// column reads them coalesced. v is column c's reflector (v(c) = 1), u row c's (u(c+1) = 1).
// Four launches per column, chained where the GPU allows (kernels/dependent_launch.cuh: each
// waits for the one before, then lets the next be scheduled):
//   column_dots    (blocks: 8 columns x a chunk of rows) xLARFG on A(c:m, c) from the norm's
//                  parts, the same bits in every block (block 0 stores tauq[c], d[c] = beta and
//                  the scale 1/(alpha - beta)); then the column dot products with v over rows
//                  c..m-1 of A(:, j:c) (t1), A(:, c+1:n) (y0) and X(:, 0:i) (t2), a partial
//                  sum per chunk of rows;
//   row_update     (a thread per column c+1..n-1) Y(col, i) = tauq (y0 - Y t1 - U^H t2), row c
//                  updated (A(c, :) -= V(c, :) Y^H + X(c, :) U^H), the parts of its norm; and
//                  column c scaled into v, A(c, c) = 1 (no block before this one reads v whole);
//   row_products   (blocks: 256 rows x a chunk of columns) xLARFG on conj(A(c, c+1:n)), again
//                  in every block (block 0 stores taup[c], e[c] and the scale); then
//                  A(j:m, c+1:n) u (rows j..c-1: t4; rows c+1..m-1: x0) and Y(c+1:n, 0:i+1)^H u
//                  (t3), partial sums per chunk of columns;
//   column_finish  (a thread per row c+1..m-1) X(r, i) = taup (x0 - V t3 - X t4); row c stored
//                  as conj(u) (A and UT); column c+1 updated by the panel (A(:, c+1) -= V
//                  Y(c+1, :)^H + X U(:, c+1)) with the parts of its norm for the next
//                  column_dots. At a panel's start the same kernel (no X) only takes the norm.
// A reflector needing xNRM2's scaling or xLARFG's rescaling (or meeting Inf/NaN) sets *flag
// (kernels/householder.cuh's rule) and every later kernel of the reduction returns at once.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"
#include "kernels/dependent_launch.cuh"
#include "kernels/householder.cuh"

namespace cudrop::kernels {

constexpr int kBdMaxNb = 64;            // panel width the shared arrays hold
constexpr int kBdDotWarps = 8;          // column_dots: a warp per column
constexpr int kBdDotChunkMax = 2048;    // column_dots: rows of v a block keeps in shared memory
constexpr int kBdRowThreads = 128;      // row_update
constexpr int kBdProductRows = 256;     // row_products: a thread per row
constexpr int kBdProductColsMax = 1024; // row_products: columns of u a block keeps
constexpr int kBdFinishThreads = 128;   // column_finish

template <class T>
struct BidiagonalArgs {
  int m, n, j, i, c, nb;
  T *a;
  size_t lda;
  T *x;
  size_t ldx;
  T *y;
  size_t ldy;
  T *ut;
  size_t ldut;
  T *tauq, *taup;
  real_t<T> *d, *e;
  T *scale;  // [0]: column c's 1/(alpha - beta), [1]: row c's
  // The norm's parts of the column being reduced (column_finish's blocks) and of row c (row_update's).
  double *col_sum;
  real_t<T> *col_max;
  int col_parts;
  double *row_sum;
  real_t<T> *row_max;
  int row_parts;
  // column_dots' partials: dots[chunk * dot_cols + k], k over A's columns j..c-1, c+1..n-1, X's 0..i-1.
  T *dots;
  int dot_cols, dot_chunk_rows, dot_chunks;
  // row_products' partials: xpart[chunk * x_rows + (r - j)], t3part[chunk * nb + l].
  T *xpart, *t3part;
  int x_rows, x_row_blocks, x_chunk_cols, x_chunks;
  // column_finish: X's column i to finish (has_x), the column to update and take the norm of
  // (next; -1: none).
  int next;
  bool has_x;
  int *flag;
};

// xLARFG's reflector of alpha and the vector whose parts of the sum of squares (in double) and
// largest modulus are sum_part[0..parts), max_part: the first warp sums them lane-strided, then
// by a fixed tree, so every block that calls this gets the same bits. Every thread returns it.
template <class T>
__device__ Reflector<T> reflector_from_parts(const double *__restrict__ sum_part,
                                             const real_t<T> *__restrict__ max_part, int parts, T alpha) {
  using R = real_t<T>;
  __shared__ Reflector<T> s_h;
  if (threadIdx.x < 32) {
    double sum = 0;
    R amax = 0;
    for (int q = threadIdx.x; q < parts; q += 32) {
      sum += sum_part[q];
      amax = fmax(amax, max_part[q]);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
      amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    }
    if (threadIdx.x == 0) s_h = make_reflector<T>(sum, amax, alpha);
  }
  __syncthreads();
  return s_h;
}

// The block's sum of squares and largest modulus into sum_part[blockIdx.x], max_part[...].
template <class T, int kThreads>
__device__ void block_norm_part(double sum, real_t<T> amax, double *__restrict__ sum_part,
                                real_t<T> *__restrict__ max_part) {
  using R = real_t<T>;
  __shared__ double red_sum[kThreads / 32];
  __shared__ R red_max[kThreads / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
    amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  }
  if (lane == 0) red_sum[warp] = sum, red_max[warp] = amax;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int q = 1; q < kThreads / 32; ++q) sum += red_sum[q], amax = fmax(amax, red_max[q]);
    sum_part[blockIdx.x] = sum;
    max_part[blockIdx.x] = amax;
  }
}

// Grid (ceil(dot_cols / kBdDotWarps), dot_chunks); one block when dot_cols is 0 (the last
// column: its reflector alone).
template <class T>
__global__ void __launch_bounds__(kBdDotWarps * 32) bidiagonal_column_dots(BidiagonalArgs<T> p) {
  __shared__ T v[kBdDotChunkMax];
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(p.flag)) return;
  const int c = p.c;
  const T *col_c = p.a + size_t(c) * p.lda;
  const Reflector<T> h = reflector_from_parts<T>(p.col_sum, p.col_max, p.col_parts, col_c[c]);
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) {
    if (h.stop) *p.flag = 1;
    p.tauq[c] = h.tau;
    p.d[c] = h.beta;
    p.scale[0] = h.scale;
    if (c == p.n - 1) p.taup[c] = T(0);
  }
  if (h.stop || p.dot_cols == 0) return;
  const int r0 = c + int(blockIdx.y) * p.dot_chunk_rows, r1 = min(p.m, r0 + p.dot_chunk_rows);
  for (int r = r0 + int(threadIdx.x); r < r1; r += kBdDotWarps * 32) v[r - r0] = r == c ? T(1) : col_c[r] * h.scale;
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, i = p.i, trailing = p.n - c - 1;
  const int k = int(blockIdx.x) * kBdDotWarps + warp;
  if (k >= p.dot_cols) return;
  const T *__restrict__ col = k < i              ? p.a + size_t(p.j + k) * p.lda
                              : k < i + trailing ? p.a + size_t(c + 1 + (k - i)) * p.lda
                                                 : p.x + size_t(k - i - trailing) * p.ldx;
  // Four loads in flight per lane: the trailing block streams from memory.
  T s0 = T(0), s1 = T(0), s2 = T(0), s3 = T(0);
  int r = r0 + lane;
  for (; r + 96 < r1; r += 128) {
    s0 += conj(col[r]) * v[r - r0];
    s1 += conj(col[r + 32]) * v[r + 32 - r0];
    s2 += conj(col[r + 64]) * v[r + 64 - r0];
    s3 += conj(col[r + 96]) * v[r + 96 - r0];
  }
  for (; r < r1; r += 32) s0 += conj(col[r]) * v[r - r0];
  const T s = warp_sum((s0 + s1) + (s2 + s3));
  if (lane == 0) p.dots[size_t(blockIdx.y) * p.dot_cols + k] = s;
}

// Grid: enough kBdRowThreads blocks for max(n - c - 1, m - c - 1) threads.
template <class T>
__global__ void __launch_bounds__(kBdRowThreads) bidiagonal_row_update(BidiagonalArgs<T> p) {
  using R = real_t<T>;
  __shared__ T t1[kBdMaxNb], t2[kBdMaxNb], arow[kBdMaxNb], xrow[kBdMaxNb];
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(p.flag)) return;
  const int tid = threadIdx.x, g = int(blockIdx.x) * kBdRowThreads + tid, c = p.c, i = p.i;
  T *col_c = p.a + size_t(c) * p.lda;
  if (c + 1 + g < p.m) col_c[c + 1 + g] = col_c[c + 1 + g] * p.scale[0];
  if (g == 0) col_c[c] = T(1);
  const int trailing = p.n - c - 1;
  if (trailing <= 0) return;
  const int K = p.dot_cols, chunks = p.dot_chunks;
  for (int l = tid; l < 2 * i; l += kBdRowThreads) {
    const int k = l < i ? l : i + trailing + (l - i);
    T s = T(0);
    for (int q = 0; q < chunks; ++q) s += p.dots[size_t(q) * K + k];
    if (l < i) t1[l] = s;
    else t2[l - i] = s;
  }
  for (int l = tid; l < i; l += kBdRowThreads) {
    arow[l] = p.a[size_t(c) + size_t(p.j + l) * p.lda];
    xrow[l] = p.x[size_t(c) + size_t(l) * p.ldx];
  }
  __syncthreads();
  double sum = 0;
  R amax = 0;
  if (g < trailing) {
    const int col = c + 1 + g;
    T y = T(0);
    for (int q = 0; q < chunks; ++q) y += p.dots[size_t(q) * K + i + g];
    T a = p.a[size_t(c) + size_t(col) * p.lda];
    for (int l = 0; l < i; ++l) {
      const T yl = p.y[size_t(col) + size_t(l) * p.ldy], ul = p.ut[size_t(col) + size_t(l) * p.ldut];
      y -= yl * t1[l] + conj(ul) * t2[l];
      a -= conj(yl) * arow[l] + ul * xrow[l];
    }
    y = p.tauq[c] * y;
    p.y[size_t(col) + size_t(i) * p.ldy] = y;
    a -= conj(y);  // V(c, i) = 1
    p.a[size_t(c) + size_t(col) * p.lda] = a;
    if (col >= c + 2) {
      sum = squared(a);
      amax = modulus(a);
    }
  }
  block_norm_part<T, kBdRowThreads>(sum, amax, p.row_sum, p.row_max);
}

// Grid (x_row_blocks + 1, x_chunks): the last row of blocks sums t3.
template <class T>
__global__ void __launch_bounds__(kBdProductRows) bidiagonal_row_products(BidiagonalArgs<T> p) {
  __shared__ T u[kBdProductColsMax];
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(p.flag)) return;
  const int c = p.c, tid = threadIdx.x;
  const size_t lda = p.lda;
  const T *__restrict__ row_c = p.a + size_t(c);
  const Reflector<T> h = reflector_from_parts<T>(p.row_sum, p.row_max, p.row_parts, conj(row_c[size_t(c + 1) * lda]));
  if (blockIdx.x == 0 && blockIdx.y == 0 && tid == 0) {
    if (h.stop) *p.flag = 1;
    p.taup[c] = h.tau;
    p.e[c] = h.beta;
    p.scale[1] = h.scale;
  }
  if (h.stop) return;
  const int col0 = c + 1 + int(blockIdx.y) * p.x_chunk_cols, col1 = min(p.n, col0 + p.x_chunk_cols);
  for (int col = col0 + tid; col < col1; col += kBdProductRows)
    u[col - col0] = col == c + 1 ? T(1) : conj(row_c[size_t(col) * lda]) * h.scale;
  __syncthreads();
  if (int(blockIdx.x) < p.x_row_blocks) {
    const int r = p.j + int(blockIdx.x) * kBdProductRows + tid;
    if (r >= p.m) return;
    const T *__restrict__ ar = p.a + size_t(r);
    T s0 = T(0), s1 = T(0), s2 = T(0), s3 = T(0);
    int col = col0;
    for (; col + 3 < col1; col += 4) {
      s0 += ar[size_t(col) * lda] * u[col - col0];
      s1 += ar[size_t(col + 1) * lda] * u[col + 1 - col0];
      s2 += ar[size_t(col + 2) * lda] * u[col + 2 - col0];
      s3 += ar[size_t(col + 3) * lda] * u[col + 3 - col0];
    }
    for (; col < col1; ++col) s0 += ar[size_t(col) * lda] * u[col - col0];
    p.xpart[size_t(blockIdx.y) * p.x_rows + (r - p.j)] = (s0 + s1) + (s2 + s3);
    return;
  }
  // t3(l) = sum conj(Y(col, l)) u(col), l = 0..i: a warp per l, lanes along the columns.
  const int warp = tid >> 5, lane = tid & 31;
  for (int l = warp; l <= p.i; l += kBdProductRows / 32) {
    const T *yl = p.y + size_t(l) * p.ldy;
    T s = T(0);
    for (int col = col0 + lane; col < col1; col += 32) s += conj(yl[col]) * u[col - col0];
    s = warp_sum(s);
    if (lane == 0) p.t3part[size_t(blockIdx.y) * p.nb + l] = s;
  }
}

// Grid: enough kBdFinishThreads blocks for the rows from c + 1 (has_x) or from next (a panel's
// first column) to m - 1.
template <class T>
__global__ void __launch_bounds__(kBdFinishThreads) bidiagonal_column_finish(BidiagonalArgs<T> p) {
  using R = real_t<T>;
  __shared__ T t3[kBdMaxNb], t4[kBdMaxNb], ycoef[kBdMaxNb], ucoef[kBdMaxNb];
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(p.flag)) return;
  const int tid = threadIdx.x, g = int(blockIdx.x) * kBdFinishThreads + tid, c = p.c, i = p.i, j = p.j;
  const size_t lda = p.lda, ldx = p.ldx;
  const bool finish = p.has_x, update = p.has_x && p.next >= 0;
  const int first = finish ? c + 1 : p.next;
  if (finish) {
    for (int l = tid; l <= i; l += kBdFinishThreads) {
      T s = T(0);
      for (int q = 0; q < p.x_chunks; ++q) s += p.t3part[size_t(q) * p.nb + l];
      t3[l] = s;
    }
    for (int l = tid; l < i; l += kBdFinishThreads) {
      T s = T(0);
      for (int q = 0; q < p.x_chunks; ++q) s += p.xpart[size_t(q) * p.x_rows + l];
      t4[l] = s;
    }
    // Row c as the reference stores it: conj(u), its unit entry at c + 1 (m >= n: the rows
    // cover the columns).
    const int col = c + 1 + g;
    if (col < p.n) {
      const T stored = col == c + 1 ? T(1) : p.a[size_t(c) + size_t(col) * lda] * conj(p.scale[1]);
      p.a[size_t(c) + size_t(col) * lda] = stored;
      p.ut[size_t(col) + size_t(i) * p.ldut] = stored;
    }
  }
  if (update)
    for (int l = tid; l <= i; l += kBdFinishThreads) {
      ycoef[l] = conj(p.y[size_t(p.next) + size_t(l) * p.ldy]);
      ucoef[l] = l == i ? T(1) : p.a[size_t(j + l) + size_t(p.next) * lda];  // U(c, c+1) = 1
    }
  __syncthreads();
  const int r = first + g;
  double sum = 0;
  R amax = 0;
  if (r < p.m) {
    T val = p.next >= 0 ? p.a[size_t(r) + size_t(p.next) * lda] : T(0);
    if (finish) {
      T s = T(0);
      for (int q = 0; q < p.x_chunks; ++q) s += p.xpart[size_t(q) * p.x_rows + (r - j)];
      for (int l = 0; l < i; ++l) {
        const T arl = p.a[size_t(r) + size_t(j + l) * lda], xrl = p.x[size_t(r) + size_t(l) * ldx];
        s -= arl * t3[l] + xrl * t4[l];
        if (update) val -= arl * ycoef[l] + xrl * ucoef[l];
      }
      const T arc = p.a[size_t(r) + size_t(c) * lda];
      s -= arc * t3[i];
      const T xi = p.taup[c] * s;
      p.x[size_t(r) + size_t(i) * ldx] = xi;
      if (update) {
        val -= arc * ycoef[i] + xi;
        p.a[size_t(r) + size_t(p.next) * lda] = val;
      }
    }
    if (p.next >= 0 && r > p.next) {
      sum = squared(val);
      amax = modulus(val);
    }
  }
  block_norm_part<T, kBdFinishThreads>(sum, amax, p.col_sum, p.col_max);
}

// After a panel (and its trailing update): A(c, c) = d[c], A(c, c+1) = e[c] for its columns.
template <class T>
__global__ void bidiagonal_restore(int j, int jb, int n, T *__restrict__ a, size_t lda, const real_t<T> *__restrict__ d,
                                   const real_t<T> *__restrict__ e) {
  const int c = j + int(threadIdx.x);
  if (int(threadIdx.x) >= jb) return;
  a[size_t(c) + size_t(c) * lda] = T(d[c]);
  if (c + 1 < n) a[size_t(c) + size_t(c + 1) * lda] = T(e[c]);
}

// W ((n-1) x (n-1), ldw) := P's vectors as xGEQRF stores its own: W(q, i) = u_i(q+1) =
// conj(A(i, q+1)) below the diagonal (q > i); the diagonal and above are not written (the
// unit diagonal is implied). 32 x 32 tiles through shared memory: A's rows read along its
// columns, W's columns written along themselves. Grid (tiles, tiles), 32 x 8 threads.
template <class T>
__global__ void __launch_bounds__(256) p_vectors(int n, const T *__restrict__ a, size_t lda, T *__restrict__ w,
                                                 size_t ldw) {
  __shared__ T tile[32][33];
  const int qt = blockIdx.x, it = blockIdx.y;
  if (qt < it) return;  // wholly above W's diagonal
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5, size = n - 1;
  for (int p = ty; p < 32; p += 8) {
    const int i = it * 32 + tx, q = qt * 32 + p;  // read A(i, q+1): lanes along i
    if (i < size && q < size && q > i) tile[p][tx] = conj(a[size_t(i) + size_t(q + 1) * lda]);
  }
  __syncthreads();
  for (int p = ty; p < 32; p += 8) {
    const int q = qt * 32 + tx, i = it * 32 + p;  // write W(q, i): lanes along q
    if (i < size && q < size && q > i) w[size_t(q) + size_t(i) * ldw] = tile[tx][p];
  }
}

}  // namespace cudrop::kernels
