#pragma once
// Reduction of a symmetric (Hermitian) matrix to tridiagonal form, lower triangle, as LAPACK's
// xSYTRD/xHETRD with xLATRD's panels define it (impl/eigen/eigen_device.cu): the per-column kernels of
// a panel and the symmetric matrix-vector product over the trailing matrix.
//
// For panel column c (panel-local i, the panel starting at column j), W the panel's n x nb
// block of xLATRD, v = A(c+1:n, c) once reflected, m = n - c - 1, five launches, chained where
// the GPU allows (kernels/dependent_launch.cuh: each waits for the one before, then lets the next
// be scheduled):
//   column_update     A(c:n, c) -= A(c:n, j:c) conj(W(c, 0:i))^T + W(c:n, 0:i) conj(A(c, j:c))^T,
//                     A(c,c) real, a block per 256 rows, with the parts of the norm below;
//   column_reflector  (one block) xLARFG on A(c+1:n, c) (alpha = A(c+1,c)): tau[c], e[c] =
//                     beta, A(c+1,c) = 1 (the unit entry the products below read). A column
//                     needing xNRM2's scaling or xLARFG's rescaling sets *flag
//                     (kernels/householder.cuh's rule) and every later kernel of the reduction
//                     returns at once;
//   hemv_tiles        y = A22 v (A22 = A(c+1:n, c+1:n) Hermitian, its lower triangle read once,
//                     the diagonal's imaginary parts taken as zero): each 32 x 32 tile on or below
//                     the diagonal adds A_rt v_t to row block r and A_rt^H v_r to row block t
//                     into partials; one more block per row block sums its rows of
//                     p = W(:, 0:i)^H v and q = A(:, j:j+i)^H v;
//   hemv_correct      (a block per row block) y from the partials in a fixed order, p and q in
//                     full (each sum split over the block's warps), w = tau (y - A(:, j:j+i) p - W(:, 0:i) q) into W(c+1:n, i), and the
//                     row block's part of w^H v;
//   finish_w          w += alpha v, alpha = -tau/2 (w^H v) from those parts (every block sums
//                     them in the same order).
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"
#include "kernels/dependent_launch.cuh"
#include "kernels/householder.cuh"

namespace cudrop::kernels {

constexpr int kHemvTile = 32;

template <class T>
__device__ __forceinline__ T real_only(T a) {
  return T(real_part(a));
}

// Column c's update by the panel, over every SM: a block per kUpdateRows rows of A(c:n, c),
// each also leaving its rows' part of xLARFG's sum of squares and largest modulus (rows c+2
// on) in sum_part[block], max_part[block]: the loads of the panel's 2i columns are too many for
// one SM's bandwidth.
constexpr int kUpdateRows = 256;
template <class T>
__global__ void __launch_bounds__(kUpdateRows)
column_update(int n, int j, int i, T *__restrict__ a, size_t lda, const T *__restrict__ w, size_t ldw,
              double *__restrict__ sum_part, real_t<T> *__restrict__ max_part, const int *flag) {
  using R = real_t<T>;
  __shared__ T w_row[kQrPanelMaxCols], a_row[kQrPanelMaxCols];
  __shared__ double red_sum[kUpdateRows / 32];
  __shared__ R red_max[kUpdateRows / 32];
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(flag)) return;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, c = j + i;
  T *x = a + size_t(c) * lda;  // column c
  if (tid < i) {
    w_row[tid] = conj(w[size_t(c) + size_t(tid) * ldw]);
    a_row[tid] = conj(a[size_t(c) + size_t(j + tid) * lda]);
  }
  __syncthreads();
  const int r = c + blockIdx.x * kUpdateRows + tid;
  double sum = 0;
  R amax = 0;
  if (r < n) {
    T s = x[r];
    for (int l = 0; l < i; ++l) s -= a[size_t(r) + size_t(j + l) * lda] * w_row[l] + w[size_t(r) + size_t(l) * ldw] * a_row[l];
    x[r] = r == c ? real_only(s) : s;
    if (r >= c + 2) {
      sum = squared(s);
      amax = modulus(s);
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
    amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  }
  if (lane == 0) red_sum[warp] = sum, red_max[warp] = amax;
  __syncthreads();
  if (tid == 0) {
    for (int q = 1; q < kUpdateRows / 32; ++q) sum += red_sum[q], amax = fmax(amax, red_max[q]);
    sum_part[blockIdx.x] = sum;
    max_part[blockIdx.x] = amax;
  }
}

// xLARFG on alpha = A(c+1, c), A(c+2:n, c), from column_update's parts (`parts` of them, summed
// in order): tau[c], e[c] = beta, A(c+1,c) = 1 (the unit entry the products below read), the
// rest scaled. A column needing xNRM2's scaling or xLARFG's rescaling sets *flag
// (kernels/householder.cuh's rule) and every later kernel of the reduction returns at once.
// One block of kReflectorThreads.
constexpr int kReflectorThreads = 1024;
template <class T>
__global__ void __launch_bounds__(kReflectorThreads)
column_reflector(int n, int c, T *__restrict__ a, size_t lda, const double *__restrict__ sum_part,
                 const real_t<T> *__restrict__ max_part, int parts, T *__restrict__ tau, real_t<T> *__restrict__ e,
                 int *flag) {
  using R = real_t<T>;
  __shared__ double red_sum[kReflectorThreads / 32];
  __shared__ R red_max[kReflectorThreads / 32];
  __shared__ T s_scale;
  __shared__ int s_go;
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(flag) || c + 1 >= n) return;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  T *x = a + size_t(c) * lda;  // column c
  double sum = 0;
  R amax = 0;
  for (int q = tid; q < parts; q += kReflectorThreads) {
    sum += sum_part[q];
    amax = fmax(amax, max_part[q]);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
    amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  }
  if (lane == 0) red_sum[warp] = sum, red_max[warp] = amax;
  __syncthreads();
  if (tid == 0) {
    double total = 0;
    R biggest = 0;
    for (int q = 0; q < kReflectorThreads / 32; ++q) total += red_sum[q], biggest = fmax(biggest, red_max[q]);
    const Reflector<T> h = make_reflector(total, biggest, x[c + 1]);
    if (h.stop) *flag = 1;
    tau[c] = h.tau;
    e[c] = h.beta;
    x[c + 1] = T(1);
    s_scale = h.scale;
    s_go = !h.stop && h.tau != T(0);
  }
  __syncthreads();
  if (!s_go) return;
  const T scale = s_scale;
  for (int r = c + 2 + tid; r < n; r += kReflectorThreads) x[r] = x[r] * scale;
}

// The tiles of the m x m Hermitian A22 (lower triangle) times v: one block per tile (r, t) with
// r >= t (a grid of tiles(tiles+1)/2 blocks).
// partials: row_part[r][t] (r >= t) and col_part[t][r] (r > t), kHemvTile values each, in
// tiles x tiles x kHemvTile arrays.
template <class T>
struct HemvArgs {
  int n, j, i, c, m, tiles, nb;
  const T *a;      // the matrix (A(0,0))
  size_t lda;
  T *w;            // W (W(0,0))
  size_t ldw;
  const T *tau;
  T *row_part, *col_part;  // tiles x tiles x kHemvTile each
  T *dot_part;             // tiles x 2 nb: a row block's sums of p (first nb) and q
  T *alpha_part;           // tiles: a row block's part of w^H v
  const int *flag;
};

template <class T>
__device__ void panel_dot_block(const HemvArgs<T> &h, int r) {
  // Rows [c+1 + 32 r, ...) of p_l = sum conj(W(row, l)) v_row and q_l = sum conj(A(row, j+l)) v_row.
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int first = h.c + 1 + r * kHemvTile, last = min(h.n, first + kHemvTile);
  const T *v = h.a + size_t(h.c) * h.lda;
  for (int k = warp; k < 2 * h.i; k += 8) {
    const int l = k % h.i;
    const T *col = k < h.i ? h.w + size_t(l) * h.ldw : h.a + size_t(h.j + l) * h.lda;
    const int row = first + lane;
    T s = row < last ? conj(col[row]) * v[row] : T(0);
    s = warp_sum(s);
    if (lane == 0) h.dot_part[size_t(r) * 2 * h.nb + (k < h.i ? l : h.nb + l)] = s;
  }
}

template <class T>
__global__ void __launch_bounds__(256) hemv_tiles(HemvArgs<T> h) {
  __shared__ T tile[kHemvTile][kHemvTile + 1];
  __shared__ T vt[kHemvTile], vr[kHemvTile];
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(h.flag)) return;
  const long long tile_blocks = (long long)h.tiles * (h.tiles + 1) / 2;
  if (blockIdx.x >= tile_blocks) {
    panel_dot_block(h, int(blockIdx.x - tile_blocks));
    return;
  }
  const int m = h.m, tiles = h.tiles;
  const T *a = h.a + size_t(h.c + 1) + size_t(h.c + 1) * h.lda, *v = h.a + size_t(h.c + 1) + size_t(h.c) * h.lda;
  const size_t lda = h.lda;
  T *row_part = h.row_part, *col_part = h.col_part;
  // Block L of the tiles(tiles+1)/2 on and below the diagonal, row by row: (r, t), t <= r.
  const long long L = blockIdx.x;
  int r = int((sqrt(8.0 * double(L) + 1.0) - 1.0) / 2.0);
  while ((long long)(r + 1) * (r + 2) / 2 <= L) ++r;
  while ((long long)r * (r + 1) / 2 > L) --r;
  const int t = int(L - (long long)r * (r + 1) / 2);
  const int tid = threadIdx.x, r0 = r * kHemvTile, c0 = t * kHemvTile;
  for (int e = tid; e < kHemvTile * kHemvTile; e += 256) {
    const int rr = e % kHemvTile, cc = e / kHemvTile, row = r0 + rr, col = c0 + cc;
    T x = T(0);
    if (row < m && col < m && (r > t || rr >= cc)) x = a[size_t(row) + size_t(col) * lda];
    if (r == t && rr == cc) x = real_only(x);
    tile[rr][cc] = x;
  }
  if (tid < kHemvTile) {
    vt[tid] = c0 + tid < m ? v[c0 + tid] : T(0);
    vr[tid] = r0 + tid < m ? v[r0 + tid] : T(0);
  }
  __syncthreads();
  const size_t slot_rt = (size_t(r) * tiles + t) * kHemvTile, slot_tr = (size_t(t) * tiles + r) * kHemvTile;
  // Row `lane` of this tile times v_t (the diagonal tile: the whole Hermitian block) and column
  // `lane`, conjugated, times v_r, each in eight parts of four terms (every warp busy, not two
  // threads' chains of 32), then summed in order.
  constexpr int kParts = 256 / kHemvTile, kTerms = kHemvTile / kParts;
  __shared__ T row_sum[kParts][kHemvTile], col_sum[kParts][kHemvTile];
  const int lane = tid % kHemvTile, part = tid / kHemvTile;
  T rs = T(0), cs = T(0);
#pragma unroll
  for (int q = 0; q < kTerms; ++q) {
    const int b = part * kTerms + q;
    rs += (r > t || b <= lane ? tile[lane][b] : conj(tile[b][lane])) * vt[b];
    if (r > t) cs += conj(tile[b][lane]) * vr[b];
  }
  row_sum[part][lane] = rs;
  col_sum[part][lane] = cs;
  __syncthreads();
  if (tid < kHemvTile) {
    T sum = T(0);
    for (int q = 0; q < kParts; ++q) sum += row_sum[q][tid];
    row_part[slot_rt + tid] = sum;
  } else if (tid < 2 * kHemvTile && r > t) {
    const int cc = tid - kHemvTile;
    T sum = T(0);
    for (int q = 0; q < kParts; ++q) sum += col_sum[q][cc];
    col_part[slot_tr + cc] = sum;
  }
}

// Row block r (kCorrectThreads threads; its rows are the lanes of each warp): y from the
// partials (t <= r: row_part[r][t], t > r: col_part[r][t]), p and q summed over the row
// blocks, each sum split over the block's warps (by one thread, a sum over n / 32 partials is a
// chain of dependent loads that grows with the matrix), in the same order in every run; then w = tau (y - A_panel p - W_panel q) and this block's part of
// w^H v.
constexpr int kCorrectThreads = 256;
template <class T>
__global__ void __launch_bounds__(kCorrectThreads) hemv_correct(HemvArgs<T> h) {
  constexpr int kGroups = kCorrectThreads / kHemvTile, kPqParts = 4;
  __shared__ T pq[2 * kQrPanelMaxCols];
  __shared__ T pq_part[kPqParts][2 * kQrPanelMaxCols];
  __shared__ T y_part[kGroups][kHemvTile];
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(h.flag)) return;
  const int r = blockIdx.x, tid = threadIdx.x, k = tid % kHemvTile, g = tid / kHemvTile, tiles = h.tiles;
  const int span = kCorrectThreads / kPqParts, part = tid / span;
  for (int l = tid % span; l < 2 * h.i; l += span) {
    const int at = l < h.i ? l : h.nb + (l - h.i);
    T s = T(0);
    for (int q = part; q < tiles; q += kPqParts) s += h.dot_part[size_t(q) * 2 * h.nb + at];
    pq_part[part][at] = s;
  }
  const int local = r * kHemvTile + k, row = h.c + 1 + local;
  T y = T(0);
  if (local < h.m)
    for (int t = g; t < tiles; t += kGroups)
      y += t <= r ? h.row_part[(size_t(r) * tiles + t) * kHemvTile + k] : h.col_part[(size_t(r) * tiles + t) * kHemvTile + k];
  y_part[g][k] = y;
  __syncthreads();
  for (int l = tid; l < 2 * h.i; l += kCorrectThreads) {
    const int at = l < h.i ? l : h.nb + (l - h.i);
    T s = T(0);
    for (int q = 0; q < kPqParts; ++q) s += pq_part[q][at];
    pq[at] = s;
  }
  __syncthreads();
  if (g != 0) return;
  T part_wv = T(0);
  if (local < h.m) {
    y = T(0);
    for (int q = 0; q < kGroups; ++q) y += y_part[q][k];
    for (int l = 0; l < h.i; ++l)
      y -= h.a[size_t(row) + size_t(h.j + l) * h.lda] * pq[l] + h.w[size_t(row) + size_t(l) * h.ldw] * pq[h.nb + l];
    const T wv = h.tau[h.c] * y;
    h.w[size_t(row) + size_t(h.i) * h.ldw] = wv;
    part_wv = conj(wv) * h.a[size_t(row) + size_t(h.c) * h.lda];
  }
  part_wv = warp_sum(part_wv);
  if (k == 0) h.alpha_part[r] = part_wv;
}

// w += alpha v, alpha = -tau/2 (w^H v): every block sums the row blocks' parts the same way
// (the first warp, lane-strided, then across the warp).
template <class T>
__global__ void __launch_bounds__(256) finish_w(HemvArgs<T> h) {
  __shared__ T s_alpha;
  wait_for_previous_kernel();
  let_next_kernel_start();
  if (stopped(h.flag)) return;
  if (threadIdx.x < 32) {
    T total = T(0);
    for (int q = threadIdx.x; q < h.tiles; q += 32) total += h.alpha_part[q];
    total = warp_sum(total);
    if (threadIdx.x == 0) s_alpha = T(real_t<T>(-0.5)) * h.tau[h.c] * total;
  }
  __syncthreads();
  const int local = blockIdx.x * 256 + threadIdx.x, row = h.c + 1 + local;
  if (local < h.m) h.w[size_t(row) + size_t(h.i) * h.ldw] += s_alpha * h.a[size_t(row) + size_t(h.c) * h.lda];
}

// After a panel: A(c+1, c) = e[c] and d[c] = Re A(c,c) for its columns.
template <class T>
__global__ void panel_restore(int j, int jb, int n, T *__restrict__ a, size_t lda, const real_t<T> *__restrict__ e,
                              real_t<T> *__restrict__ d) {
  const int c = j + threadIdx.x;
  if (threadIdx.x >= jb) return;
  if (c + 1 < n) a[size_t(c + 1) + size_t(c) * lda] = T(e[c]);
  d[c] = real_part(a[size_t(c) + size_t(c) * lda]);
}

// The lower triangle := the conjugate transpose of the upper one (a Hermitian matrix given by
// its upper triangle, reduced from its lower one).
template <class T>
__global__ void mirror_upper_to_lower(int n, T *a, size_t lda) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
  if (r < n && r > c) a[size_t(r) + size_t(c) * lda] = conj(a[size_t(c) + size_t(r) * lda]);
}

// The largest |a| of the lower triangle (xLANSY/xLANHE 'M': the diagonal's real parts for a
// Hermitian matrix), as magnitude_bits (NaN: all ones), into *out by atomicMax.
template <class T>
__global__ void lower_largest_magnitude(int n, const T *__restrict__ a, size_t lda, unsigned long long *out) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
  unsigned long long best = 0;
  if (r < n && r >= c) {
    const T x = a[size_t(r) + size_t(c) * lda];
    best = magnitude_bits(r == c ? T(real_part(x)) : x);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, o));
  if ((threadIdx.x & 31) == 0 && best != 0) atomicMax(out, best);
}

// A complex matrix from a real one (the tridiagonal's eigenvectors, xSTEDC's Z).
template <class R>
__global__ void widen_real(int n, int cols, const R *__restrict__ z, size_t ldz, Complex<R> *__restrict__ out,
                           size_t ldo) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
  if (r < n) out[size_t(r) + size_t(c) * ldo] = Complex<R>(z[size_t(r) + size_t(c) * ldz], R(0));
}

}  // namespace cudrop::kernels
