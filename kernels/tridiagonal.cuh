#pragma once
// Reduction of a symmetric (Hermitian) matrix to tridiagonal form, lower triangle, as LAPACK's
// xSYTRD/xHETRD with xLATRD's panels define it (impl/eigen_device.cu): the per-column kernels of
// a panel and the symmetric matrix-vector product over the trailing matrix.
//
// For panel column c (panel-local i, the panel starting at column j), W the panel's n x nb
// block of xLATRD:
//   column_update   A(c:n, c) -= A(c:n, j:c) conj(W(c, 0:i))^T + W(c:n, 0:i) conj(A(c, j:c))^T,
//                   A(c,c) real;
//   reflector       xLARFG on A(c+1:n, c) (alpha = A(c+1,c)): tau[c], e[c] = beta, A(c+1,c) = 1
//                   (the unit entry the products below read); a column needing xNRM2's scaling
//                   or xLARFG's rescaling sets *flag (kernels/householder.cuh's rule) and every
//                   later kernel of the reduction returns at once;
//   hemv_tiles +    y = A22 v (A22 = A(c+1:n, c+1:n) Hermitian, its lower triangle read once,
//   hemv_sum        imaginary parts of the diagonal taken as zero): each 32 x 32 tile below the
//                   diagonal adds A_rt v_t to row block r and A_rt^H v_r to row block t into
//                   partials, summed in a fixed order;
//   panel_dots      p = W(c+1:n, 0:i)^H v, q = A(c+1:n, j:j+i)^H v;
//   panel_correct   w = tau (y - A(c+1:n, j:j+i) p - W(c+1:n, 0:i) q);
//   finish_w        w += alpha v, alpha = -tau/2 (w^H v) (one block).
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"
#include "kernels/householder.cuh"

namespace cudrop::kernels {

constexpr int kHemvTile = 32;

template <class T>
__device__ __forceinline__ T real_only(T a) {
  return T(real_part(a));
}

__device__ __forceinline__ bool stopped(const int *flag) { return *static_cast<const volatile int *>(flag) != 0; }

template <class T>
__global__ void column_update(int n, int j, int i, T *__restrict__ a, size_t lda, const T *__restrict__ w, size_t ldw,
                              const int *flag) {
  if (stopped(flag)) return;
  const int c = j + i, r = c + blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  T s = a[size_t(r) + size_t(c) * lda];
  for (int l = 0; l < i; ++l)
    s -= a[size_t(r) + size_t(j + l) * lda] * conj(w[size_t(c) + size_t(l) * ldw]) +
         w[size_t(r) + size_t(l) * ldw] * conj(a[size_t(c) + size_t(j + l) * lda]);
  a[size_t(r) + size_t(c) * lda] = r == c ? real_only(s) : s;
}

// One block of kReflectorThreads.
constexpr int kReflectorThreads = 1024;
template <class T>
__global__ void __launch_bounds__(kReflectorThreads)
tridiagonal_reflector(int n, int c, T *__restrict__ a, size_t lda, T *__restrict__ tau, real_t<T> *__restrict__ e,
                      int *flag) {
  using R = real_t<T>;
  __shared__ double red_sum[kReflectorThreads / 32];
  __shared__ R red_max[kReflectorThreads / 32];
  __shared__ T s_scale;
  __shared__ int s_go;
  if (stopped(flag)) return;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  T *x = a + size_t(c) * lda;  // column c; alpha at row c+1, x at rows c+2..n-1
  double sum = 0;
  R amax = 0;
  for (int r = c + 2 + tid; r < n; r += kReflectorThreads) {
    sum += squared(x[r]);
    amax = fmax(amax, modulus(x[r]));
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
    for (int w = 0; w < kReflectorThreads / 32; ++w) total += red_sum[w], biggest = fmax(biggest, red_max[w]);
    const T alpha = x[c + 1];
    const R ar = real_part(alpha), ai = imag_part(alpha);
    T t = T(0), scale = T(1);
    R beta = ar;
    int stop = !(isfinite(total) && isfinite(ar) && isfinite(ai)) || total > QrRange<R>::huge ||
               (biggest > 0 && total < QrRange<R>::tiny);
    if (!stop && !(biggest == 0 && ai == 0)) {
      const R xnorm = R(sqrt(total));
      const R wmax = fmax(fmax(fabs(ar), fabs(ai)), xnorm);
      const R ra = ar / wmax, ia = ai / wmax, xa = xnorm / wmax;
      beta = -copysign(wmax * sqrt(ra * ra + ia * ia + xa * xa), ar);
      if (!isfinite(beta) || fabs(beta) < QrRange<R>::safmin) {
        stop = 1;
      } else {
        if constexpr (is_complex_v<T>) t = T((beta - ar) / beta, -ai / beta);
        else t = (beta - ar) / beta;
        scale = divide(T(1), alpha - T(beta));
      }
    }
    if (stop) *flag = 1;
    tau[c] = t;
    e[c] = beta;
    x[c + 1] = T(1);
    s_scale = scale;
    s_go = !stop && t != T(0);
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
__global__ void __launch_bounds__(256) hemv_tiles(int m, const T *__restrict__ a, size_t lda, const T *__restrict__ v,
                                                  T *__restrict__ row_part, T *__restrict__ col_part, int tiles,
                                                  const int *flag) {
  __shared__ T tile[kHemvTile][kHemvTile + 1];
  __shared__ T vt[kHemvTile], vr[kHemvTile];
  if (stopped(flag)) return;
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
  if (tid < kHemvTile) {
    // Row tid of this tile times v_t (the diagonal tile: the whole Hermitian block).
    T s = T(0);
    if (r > t) {
      for (int b = 0; b < kHemvTile; ++b) s += tile[tid][b] * vt[b];
    } else {
      for (int b = 0; b < kHemvTile; ++b) s += (b <= tid ? tile[tid][b] : conj(tile[b][tid])) * vt[b];
    }
    row_part[slot_rt + tid] = s;
  } else if (tid < 2 * kHemvTile && r > t) {
    // Column cc of this tile, conjugated, times v_r.
    const int cc = tid - kHemvTile;
    T s = T(0);
    for (int a2 = 0; a2 < kHemvTile; ++a2) s += conj(tile[a2][cc]) * vr[a2];
    col_part[slot_tr + cc] = s;
  }
}

// y[r0 + k] = sum over t <= r of row_part[r][t][k] + sum over r' > r of col_part[r][r'][k].
template <class T>
__global__ void hemv_sum(int m, const T *__restrict__ row_part, const T *__restrict__ col_part, int tiles,
                         T *__restrict__ y, const int *flag) {
  if (stopped(flag)) return;
  const int r = blockIdx.x, k = threadIdx.x, row = r * kHemvTile + k;
  if (row >= m) return;
  T s = T(0);
  for (int t = 0; t <= r; ++t) s += row_part[(size_t(r) * tiles + t) * kHemvTile + k];
  for (int q = r + 1; q < tiles; ++q) s += col_part[(size_t(r) * tiles + q) * kHemvTile + k];
  y[row] = s;
}

// dots[l] = sum_r conj(W(r, l)) v_r, dots[nb + l] = sum_r conj(A(r, j + l)) v_r over rows
// [c+1, n), l < i: one block per output.
template <class T>
__global__ void __launch_bounds__(256) panel_dots(int n, int j, int i, const T *__restrict__ a, size_t lda,
                                                  const T *__restrict__ w, size_t ldw, T *__restrict__ dots, int nb,
                                                  const int *flag) {
  __shared__ T red[8];
  if (stopped(flag)) return;
  const int c = j + i, l = blockIdx.x % i, which = blockIdx.x / i;
  const T *col = which == 0 ? w + size_t(l) * ldw : a + size_t(j + l) * lda;
  const T *v = a + size_t(c) * lda;
  T s = T(0);
  for (int r = c + 1 + threadIdx.x; r < n; r += 256) s += conj(col[r]) * v[r];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    if constexpr (is_complex_v<T>) {
      s.re += __shfl_xor_sync(0xffffffffu, s.re, o);
      s.im += __shfl_xor_sync(0xffffffffu, s.im, o);
    } else {
      s += __shfl_xor_sync(0xffffffffu, s, o);
    }
  }
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T total = T(0);
    for (int q = 0; q < 8; ++q) total += red[q];
    dots[which * nb + l] = total;
  }
}

// W(c+1:n, i) = tau_c (y - A(:, j:j+i) p - W(:, 0:i) q), y already in W(c+1:n, i).
template <class T>
__global__ void panel_correct(int n, int j, int i, const T *__restrict__ a, size_t lda, T *__restrict__ w,
                              size_t ldw, const T *__restrict__ dots, int nb, const T *__restrict__ tau,
                              const int *flag) {
  if (stopped(flag)) return;
  const int c = j + i, r = c + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  T s = w[size_t(r) + size_t(i) * ldw];
  for (int l = 0; l < i; ++l)
    s -= a[size_t(r) + size_t(j + l) * lda] * dots[l] + w[size_t(r) + size_t(l) * ldw] * dots[nb + l];
  w[size_t(r) + size_t(i) * ldw] = tau[c] * s;
}

// alpha = -tau/2 (w^H v), then w += alpha v: one block.
template <class T>
__global__ void __launch_bounds__(1024) finish_w(int n, int c, const T *__restrict__ a, size_t lda, T *__restrict__ w,
                                                 const T *__restrict__ tau, const int *flag) {
  __shared__ T red[32];
  __shared__ T s_alpha;
  if (stopped(flag)) return;
  const T *v = a + size_t(c) * lda;
  T s = T(0);
  for (int r = c + 1 + threadIdx.x; r < n; r += 1024) s += conj(w[r]) * v[r];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    if constexpr (is_complex_v<T>) {
      s.re += __shfl_xor_sync(0xffffffffu, s.re, o);
      s.im += __shfl_xor_sync(0xffffffffu, s.im, o);
    } else {
      s += __shfl_xor_sync(0xffffffffu, s, o);
    }
  }
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T total = T(0);
    for (int q = 0; q < 32; ++q) total += red[q];
    s_alpha = T(real_t<T>(-0.5)) * tau[c] * total;
  }
  __syncthreads();
  const T alpha = s_alpha;
  for (int r = c + 1 + threadIdx.x; r < n; r += 1024) w[r] += alpha * v[r];
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
