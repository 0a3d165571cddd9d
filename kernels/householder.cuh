#pragma once
// Householder QR kernels (impl/qr/qr_device.cu): the panel factorization (LAPACK xGEQR2 with
// xLARFG's reflectors) in one kernel, and the pieces of a block reflector H = I - V T V^H
// (xLARFT): V as an explicit unit lower trapezoid, its Gram matrix V^H V, and T from it.
//
// The panel is the `rows` x `cols` block A(first:m, first:first+cols). Its rows are split into
// contiguous ranges of rows_per_block, one per thread block; for each column k:
//   1. every block sums |a(r,k)|^2 over its rows r > k and takes their largest |a(r,k)|; the
//      block holding row k adds a(k,k) (alpha); all publish;
//   2. every block reads all the sums in block order (so every block gets the same bits),
//      forms beta, tau and 1/(alpha - beta) as xLARFG does, scales its part of the column into
//      v, and sums conj(v_r) a(r,j) over its rows for the columns j > k; all publish;
//   3. every block reads those sums in block order (y_j) and updates its rows:
//      a(r,j) -= conj(tau) v_r y_j (xLARF with conj(tau): H^H applied from the left).
// A publication is a block's values in its slot of a partials buffer, then one atomic add to
// an arrival counter; a block waits until the counter has reached the count of that step
// (acquire), then reads every slot from L2. The slots alternate between two buffers: a block
// writes step e+2's values only after every block has arrived at step e+1, which each did
// after reading step e's. The blocks wait for each other, so the launcher keeps the grid
// within what the GPU holds at once.
//
// The sum of squares is not scaled as xNRM2 scales it: a column whose sum would lose accuracy
// to underflow or overflow (or holds Inf or NaN), and a beta below xLARFG's safe minimum (where
// xLARFG rescales), set *flag and stop the factorization; the host interface then leaves the
// whole call to the CPU routine (docs/semantics.md). xLARFG's choices kept: x == 0 (and a real
// alpha) means tau = 0 and nothing changes; beta = -sign(Re alpha) |(alpha, x)|;
// tau = (beta - alpha) / beta; v = x / (alpha - beta) (complex: a division, as ZLADIV).
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"

namespace cudrop::kernels {

constexpr int kQrPanelThreads = 256;
constexpr int kQrPanelMaxCols = 128;
constexpr int kQrPanelMaxBlocks = 160;

// Values of one block's slot: sum of squares, largest modulus, alpha, then y_j for every
// panel column (those left of k unused).
constexpr int qr_slot_values(int cols) { return cols + 3; }

template <class T>
struct QrPanelArgs {
  T *A;          // A(first, first)
  size_t lda;
  int rows, cols;
  int rows_per_block;
  T *tau;        // tau[0..cols) of this panel
  T *partials;   // 2 * gridDim.x * qr_slot_values(cols) values
  unsigned long long *arrivals;  // the factorization's arrival counter
  unsigned long long base;       // its value when this panel starts
  int *flag;     // set to 1 when the CPU routine must take the call
};

// Sums of squares (accumulated in double) outside [tiny, huge] for a nonzero column would lose
// accuracy to underflow, or overflow, in the norm or beta.
template <class R> struct QrRange;
template <> struct QrRange<float> {
  static constexpr double tiny = 0x1p-240, huge = 0x1p250;
  static constexpr float safmin = FLT_MIN / (FLT_EPSILON * 0.5f);
};
template <> struct QrRange<double> {
  static constexpr double tiny = 0x1p-900, huge = 0x1p1000;
  static constexpr double safmin = DBL_MIN / (DBL_EPSILON * 0.5);
};

__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// The block's values are in its slot; returns once every block has published step `step`.
__device__ __forceinline__ void qr_arrive_and_wait(unsigned long long *arrivals, unsigned long long target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(arrivals, 1ull);
    while (load_acquire(arrivals) < target) __nanosleep(32);
  }
  __syncthreads();
}

template <class T>
__device__ __forceinline__ T load_l2(const T *p) {
  if constexpr (is_complex_v<T>) {
    return {__ldcg(&p->re), __ldcg(&p->im)};
  } else {
    return __ldcg(p);
  }
}

__device__ __forceinline__ double squared(float a) { return double(a) * double(a); }
__device__ __forceinline__ double squared(double a) { return a * a; }
template <class R>
__device__ __forceinline__ double squared(Complex<R> a) { return squared(a.re) + squared(a.im); }

template <class T>
__device__ __forceinline__ T times_real(T a, real_t<T> r) { return a * r; }

// xLARFG's reflector for alpha and x, from x's sum of squares (in double) and largest modulus:
// tau, the scale 1/(alpha - beta) of v = x/(alpha - beta), beta; tau = 0 (and beta = Re alpha)
// for x = 0 and a real alpha. stop: the values need the CPU routine (the rule above).
template <class T>
struct Reflector {
  T tau, scale;
  real_t<T> beta;
  bool stop;
};
template <class T>
__device__ Reflector<T> make_reflector(double total, real_t<T> biggest, T alpha) {
  using R = real_t<T>;
  const R ar = real_part(alpha), ai = imag_part(alpha);
  Reflector<T> h{T(0), T(1), ar, false};
  h.stop = !(isfinite(total) && isfinite(ar) && isfinite(ai)) || total > QrRange<R>::huge ||
           (biggest > 0 && total < QrRange<R>::tiny);
  if (h.stop || (biggest == 0 && ai == 0)) return h;
  const R xnorm = R(sqrt(total));
  const R w = fmax(fmax(fabs(ar), fabs(ai)), xnorm);
  const R ra = ar / w, ia = ai / w, xa = xnorm / w;
  const R beta = -copysign(w * sqrt(ra * ra + ia * ia + xa * xa), ar);
  if (!isfinite(beta) || fabs(beta) < QrRange<R>::safmin) {
    h.stop = true;
    return h;
  }
  if constexpr (is_complex_v<T>) h.tau = T((beta - ar) / beta, -ai / beta);
  else h.tau = (beta - ar) / beta;
  h.scale = divide(T(1), alpha - T(beta));
  h.beta = beta;
  return h;
}

// The flag above is set: a reduction's later kernels return at once (read past the cache, since
// another grid of the same reduction may have set it).
__device__ __forceinline__ bool stopped(const int *flag) { return *static_cast<const volatile int *>(flag) != 0; }

// The sum of a warp's values (a fixed tree: the same bits in every block for the same inputs).
template <class T>
__device__ __forceinline__ T warp_sum(T s) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    if constexpr (is_complex_v<T>) {
      s.re += __shfl_xor_sync(0xffffffffu, s.re, o);
      s.im += __shfl_xor_sync(0xffffffffu, s.im, o);
    } else {
      s += __shfl_xor_sync(0xffffffffu, s, o);
    }
  }
  return s;
}

template <class T>
__global__ void __launch_bounds__(kQrPanelThreads) qr_panel(QrPanelArgs<T> p) {
  using R = real_t<T>;
  __shared__ double red_sum[kQrPanelThreads / 32];
  __shared__ R red_max[kQrPanelThreads / 32];
  __shared__ T y[kQrPanelMaxCols];
  __shared__ T s_tau, s_scale;
  __shared__ int s_stop;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, warps = kQrPanelThreads / 32;
  const int P = gridDim.x, b = blockIdx.x, cols = p.cols;
  if (*static_cast<volatile int *>(p.flag) != 0) return;  // an earlier panel stopped
  const int r0 = b * p.rows_per_block, r1 = min(p.rows, r0 + p.rows_per_block);
  const int slot_values = qr_slot_values(cols);
  auto at = [&](int r, int c) -> T & { return p.A[size_t(r) + size_t(c) * p.lda]; };
  auto slot = [&](int step, int block) { return p.partials + (size_t(step & 1) * P + block) * slot_values; };
  unsigned long long target = p.base;

  for (int k = 0; k < cols; ++k) {
    // 1. This block's sum of squares and largest modulus of column k below row k.
    double sum = 0;
    R amax = 0;
    for (int r = max(r0, k + 1) + tid; r < r1; r += kQrPanelThreads) {
      const T a = at(r, k);
      sum += squared(a);
      amax = fmax(amax, modulus(a));
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
      amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    }
    if (lane == 0) red_sum[warp] = sum, red_max[warp] = amax;
    __syncthreads();
    if (tid == 0) {
      for (int w = 1; w < warps; ++w) red_sum[0] += red_sum[w], red_max[0] = fmax(red_max[0], red_max[w]);
      T *s = slot(2 * k, b);
      s[0] = T(R(red_sum[0]));
      s[1] = T(red_max[0]);
      if (r0 <= k && k < r1) s[2] = at(k, k);
    }
    target += P;
    qr_arrive_and_wait(p.arrivals, target);

    // 2. The reflector, the same in every block.
    if (warp == 0) {
      double total = 0;
      R biggest = 0;
      for (int q = lane; q < P; q += 32) {
        const T *s = slot(2 * k, q);
        total += double(real_part(load_l2(s)));
        biggest = fmax(biggest, real_part(load_l2(s + 1)));
      }
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        // A fixed tree: every block adds in the same order.
        total += __shfl_xor_sync(0xffffffffu, total, o);
        biggest = fmax(biggest, __shfl_xor_sync(0xffffffffu, biggest, o));
      }
      if (lane == 0) {
        const Reflector<T> h = make_reflector(total, biggest, load_l2(slot(2 * k, k / p.rows_per_block) + 2));
        if (!h.stop && h.tau != T(0) && r0 <= k && k < r1) at(k, k) = T(h.beta);
        if (h.stop && b == 0) *p.flag = 1;
        if (b == 0 && !h.stop) p.tau[k] = h.tau;
        s_stop = h.stop;
        s_tau = h.tau;
        s_scale = h.scale;
      }
    }
    __syncthreads();
    if (s_stop) return;  // every block stops at the same column
    const T tau = s_tau, scale = s_scale;
    const bool reflect = tau != T(0);
    if (reflect)
      for (int r = max(r0, k + 1) + tid; r < r1; r += kQrPanelThreads) at(r, k) = at(r, k) * scale;
    __syncthreads();
    // This block's y_j = sum over its rows r >= k of conj(v_r) a(r, j), j > k (v_k = 1).
    T *mine = slot(2 * k + 1, b);
    for (int j = k + 1 + warp; j < cols; j += warps) {
      T acc = T(0);
      if (reflect)
        for (int r = max(r0, k) + lane; r < r1; r += 32) {
          const T v = r == k ? T(1) : at(r, k);
          acc += conj(v) * at(r, j);
        }
      acc = warp_sum(acc);
      if (lane == 0) mine[3 + j] = acc;
    }
    target += P;
    qr_arrive_and_wait(p.arrivals, target);

    // 3. y in block order, then this block's rows of the columns right of k.
    if (!reflect) continue;
    for (int j = k + 1 + tid; j < cols; j += kQrPanelThreads) {
      T acc = T(0);
      for (int q = 0; q < P; ++q) acc += load_l2(slot(2 * k + 1, q) + 3 + j);
      y[j] = conj(tau) * acc;
    }
    __syncthreads();
    const int first_row = max(r0, k), count = r1 - first_row, width = cols - k - 1;
    if (count > 0)
      for (int e = tid; e < count * width; e += kQrPanelThreads) {
        const int r = first_row + e % count, j = k + 1 + e / count;
        const T v = r == k ? T(1) : at(r, k);
        at(r, j) -= v * y[j];
      }
    __syncthreads();
  }
}

// The arrival count a panel of `cols` columns on `blocks` blocks adds.
inline unsigned long long qr_panel_arrivals(int cols, int blocks) {
  return 2ull * (unsigned long long)cols * (unsigned long long)blocks;
}

template <class T>
cudaError_t launch_qr_panel(int blocks, const QrPanelArgs<T> &args, cudaStream_t stream) {
  qr_panel<T><<<blocks, kQrPanelThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

// V (rows x cols, ldv) := the unit lower trapezoid of A's block: A below the diagonal, one on
// it, zero above.
template <class T>
__global__ void unit_lower_copy(int rows, int cols, const T *__restrict__ a, size_t lda, T *__restrict__ v,
                                size_t ldv) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
  if (r >= rows) return;
  v[size_t(r) + size_t(c) * ldv] = r > c ? a[size_t(r) + size_t(c) * lda] : r == c ? T(1) : T(0);
}
template <class T>
cudaError_t launch_unit_lower_copy(int rows, int cols, const T *a, size_t lda, T *v, size_t ldv, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  unit_lower_copy<T><<<dim3(unsigned((rows + 255) / 256), unsigned(cols)), 256, 0, s>>>(rows, cols, a, lda, v, ldv);
  return cudaGetLastError();
}

// The Gram matrix V^H V of a rows x cols V (cols <= kQrPanelMaxCols), upper triangle, in two
// steps: each block sums one chunk of kGramChunk rows for one 32 x 32 tile of it into its
// partial (partials: chunks x cols x cols), then gram_sum adds the chunks in order.
constexpr int kGramTile = 32, kGramChunk = 512;
inline int gram_chunks(int rows) { return (rows + kGramChunk - 1) / kGramChunk; }

template <class T>
__global__ void __launch_bounds__(256) gram_partial(int rows, int cols, const T *__restrict__ v, size_t ldv,
                                                    T *__restrict__ partials) {
  __shared__ T left[kGramTile][kGramTile + 1], right[kGramTile][kGramTile + 1];
  const int ti = blockIdx.x, tj = blockIdx.y, chunk = blockIdx.z;
  if (ti > tj) return;
  const int tid = threadIdx.x, i0 = ti * kGramTile, j0 = tj * kGramTile;
  const int row_begin = chunk * kGramChunk, row_end = min(rows, row_begin + kGramChunk);
  // Thread: column jj of the tile, rows ii, ii+8, ii+16, ii+24.
  const int jj = tid & 31, ii = tid >> 5;
  T acc[4] = {T(0), T(0), T(0), T(0)};
  for (int r = row_begin; r < row_end; r += kGramTile) {
    for (int e = tid; e < kGramTile * kGramTile; e += 256) {
      const int rr = e & 31, cc = e >> 5, row = r + rr;
      const bool in = row < row_end;
      left[cc][rr] = in && i0 + cc < cols ? v[size_t(row) + size_t(i0 + cc) * ldv] : T(0);
      right[cc][rr] = in && j0 + cc < cols ? v[size_t(row) + size_t(j0 + cc) * ldv] : T(0);
    }
    __syncthreads();
#pragma unroll 8
    for (int rr = 0; rr < kGramTile; ++rr) {
      const T x = right[jj][rr];
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[q] += conj(left[ii + 8 * q][rr]) * x;
    }
    __syncthreads();
  }
  T *out = partials + size_t(chunk) * cols * cols;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int i = i0 + ii + 8 * q, j = j0 + jj;
    if (i < cols && j < cols && i <= j) out[i + size_t(j) * cols] = acc[q];
  }
}

template <class T>
__global__ void gram_sum(int cols, int chunks, const T *__restrict__ partials, T *__restrict__ g) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= cols * cols) return;
  const int i = e % cols, j = e / cols;
  if (i > j) return;
  T acc = T(0);
  for (int c = 0; c < chunks; ++c) acc += partials[size_t(c) * cols * cols + e];
  g[e] = acc;
}

// T (cols x cols, ldt; upper triangular, zero below) from G = V^H V and tau, as xLARFT
// ('F', 'C') defines it: T(i,i) = tau_i, T(0:i,i) = T(0:i,0:i) (-tau_i G(0:i,i)). One block.
template <class T>
__global__ void __launch_bounds__(kQrPanelMaxCols) form_t(int cols, const T *__restrict__ g, const T *__restrict__ tau,
                                                          T *__restrict__ t, size_t ldt) {
  __shared__ T z[kQrPanelMaxCols];
  const int l = threadIdx.x;
  for (int i = 0; i < cols; ++i) {
    const T ti = tau[i];
    if (l < i) z[l] = -ti * g[l + size_t(i) * cols];
    __syncthreads();
    if (l < cols) {
      T acc = T(0);
      if (l < i)
        for (int q = l; q < i; ++q) acc += t[l + size_t(q) * ldt] * z[q];
      t[l + size_t(i) * ldt] = l < i ? acc : l == i ? ti : T(0);
    }
    __syncthreads();
  }
}

template <class T>
cudaError_t launch_form_t(int rows, int cols, const T *v, size_t ldv, const T *tau, T *partials, T *g, T *t,
                          size_t ldt, cudaStream_t s) {
  const int tiles = (cols + kGramTile - 1) / kGramTile, chunks = gram_chunks(rows);
  gram_partial<T><<<dim3(unsigned(tiles), unsigned(tiles), unsigned(chunks)), 256, 0, s>>>(rows, cols, v, ldv,
                                                                                         partials);
  gram_sum<T><<<unsigned((cols * cols + 255) / 256), 256, 0, s>>>(cols, chunks, partials, g);
  form_t<T><<<1, kQrPanelMaxCols, 0, s>>>(cols, g, tau, t, ldt);
  return cudaGetLastError();
}

// C (rows x cols) := the identity's block at rows/cols offset 0.
template <class T>
__global__ void set_identity(int rows, int cols, T *c, size_t ldc) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (r < rows) c[size_t(r) + size_t(j) * ldc] = r == j ? T(1) : T(0);
}
template <class T>
cudaError_t launch_set_identity(int rows, int cols, T *c, size_t ldc, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  set_identity<T><<<dim3(unsigned((rows + 255) / 256), unsigned(cols)), 256, 0, s>>>(rows, cols, c, ldc);
  return cudaGetLastError();
}

// rows x cols of C set to zero (gels: B's rows below N before Q is applied).
template <class T>
__global__ void set_zero(int rows, int cols, T *c, size_t ldc) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (r < rows) c[size_t(r) + size_t(j) * ldc] = T(0);
}
template <class T>
cudaError_t launch_set_zero(int rows, int cols, T *c, size_t ldc, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  set_zero<T><<<dim3(unsigned((rows + 255) / 256), unsigned(cols)), 256, 0, s>>>(rows, cols, c, ldc);
  return cudaGetLastError();
}

// xGELS's checks on the GPU: flags[0] = the largest |a| of A (rows x cols) as the bits of a
// nonnegative real (NaN: all bits set), flags[1] the same for B, flags[2] = the first
// 1-based i with R(i,i) exactly zero (none: INT_MAX). Reduced with atomicMax on the bits, which
// order as the values for nonnegative reals.
template <class T>
__device__ __forceinline__ unsigned long long magnitude_bits(T a) {
  const double m = double(modulus(a));
  return m != m ? ~0ull : static_cast<unsigned long long>(__double_as_longlong(m));
}
template <class T>
__global__ void largest_magnitude(int rows, int cols, const T *__restrict__ a, size_t lda, unsigned long long *out) {
  unsigned long long best = 0;
  const long long total = (long long)rows * cols;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x)
    best = max(best, magnitude_bits(a[size_t(e % rows) + size_t(e / rows) * lda]));
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, o));
  if ((threadIdx.x & 31) == 0 && best != 0) atomicMax(out, best);
}
template <class T>
cudaError_t launch_largest_magnitude(int rows, int cols, const T *a, size_t lda, unsigned long long *out,
                                     cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  const long long total = (long long)rows * cols;
  const unsigned blocks = unsigned(std::min<long long>((total + 255) / 256, 4096));
  largest_magnitude<T><<<blocks, 256, 0, s>>>(rows, cols, a, lda, out);
  return cudaGetLastError();
}

template <class T>
__global__ void first_zero_diagonal(int n, const T *__restrict__ a, size_t lda, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[size_t(i) + size_t(i) * lda] == T(0)) atomicMin(out, i + 1);
}
template <class T>
cudaError_t launch_first_zero_diagonal(int n, const T *a, size_t lda, int *out, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  first_zero_diagonal<T><<<unsigned((n + 255) / 256), 256, 0, s>>>(n, a, lda, out);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
