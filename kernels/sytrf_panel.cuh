#pragma once
// The panel of the symmetric indefinite factorization (Bunch–Kaufman, xLASYF/xLAHEF's lower
// branch, column by column as the reference does it) in one cooperative grid: the pivot
// choices are data dependent, so the grid keeps them on the device. Each column is a fixed
// sequence of phases separated by grid-wide barriers: the updated column (and its maximum),
// the updated row of the pivot candidate (and its maximum) when the reference computes it,
// then the interchange and the store. Every block reduces the per-block maxima itself and so
// takes the same decisions as every other block.
//
// Logical coordinates: the kernel works on the trailing matrix A(k0:n, k0:n) in lower form. An
// upper factorization is the lower one of J A J (J the order-reversing permutation): logical
// (i, j) is the stored (n-1-i, n-1-j), and among equal maxima I?AMAX's first index is the
// largest logical one. W (the reference's work array, n x nb) is kept so that the trailing
// update reads it as a plain column-major operand in the stored orientation.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"

namespace cudrop::kernels {

constexpr int kSytrfThreads = 256;
constexpr int kSytrfMaxNb = 128;  // widest panel: W's row of multipliers lives in shared memory

template <class T>
struct SytrfPublished {
  T wkk;     // W(k, k) after the column's update
  T wik;     // W(imax, k)
  T wik1;    // W(imax, k+1), the candidate's diagonal after its update
};

template <class T>
struct SytrfPanel {
  T *a;
  size_t lda;
  T *w;
  size_t ldw;
  int n, k0, nb;  // order, the panel's first logical column, W's columns
  bool upper, hermitian, last;
  int *ipiv;  // the caller's numbering (1-based, stored orientation)
  int *info;
  int *local_ipiv;  // the panel's pivots in its own numbering (1-based, negative pairs)
  int *kb;          // columns the panel took
  real_t<T> *partial_value;  // 2 x gridDim.x
  int *partial_index;        // 2 x gridDim.x
  SytrfPublished<T> *published;

  __device__ __forceinline__ T &at(int i, int j) const {  // logical, within A(k0:n, k0:n)
    const long long gi = (long long)k0 + i, gj = (long long)k0 + j;
    return upper ? a[size_t(n - 1 - gi) + size_t(n - 1 - gj) * lda] : a[size_t(gi) + size_t(gj) * lda];
  }
  __device__ __forceinline__ T &wat(int i, int c) const {
    const int m = n - k0;
    return upper ? w[size_t(m - 1 - i) + size_t(nb - 1 - c) * ldw] : w[size_t(i) + size_t(c) * ldw];
  }
};

template <class R>
__device__ __forceinline__ R sy_real(R x) { return x; }
template <class R>
__device__ __forceinline__ Complex<R> sy_real(Complex<R> x) { return {x.re, R(0)}; }

// (v1, i1) beats (v2, i2) as I?AMAX's choice: the larger, the first of equal ones in the
// reference's order (logical order for lower, reversed for upper).
template <class R>
__device__ __forceinline__ bool sy_better(R v1, int i1, R v2, int i2, bool reversed) {
  return v1 > v2 || (v1 == v2 && i1 >= 0 && (i2 < 0 || (reversed ? i1 > i2 : i1 < i2)));
}

// The block's best (value, index) into shared memory; every thread returns it.
template <class R>
__device__ __forceinline__ void sy_block_best(R *v, int *i, bool reversed, R *sv, int *si) {
  for (int off = 16; off > 0; off >>= 1) {
    const R ov = __shfl_down_sync(0xffffffffu, *v, off);
    const int oi = __shfl_down_sync(0xffffffffu, *i, off);
    if (sy_better(ov, oi, *v, *i, reversed)) *v = ov, *i = oi;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) sv[warp] = *v, si[warp] = *i;
  __syncthreads();
  if (warp == 0) {
    *v = lane < kSytrfThreads / 32 ? sv[lane] : R(-1);
    *i = lane < kSytrfThreads / 32 ? si[lane] : -1;
    for (int off = 16; off > 0; off >>= 1) {
      const R ov = __shfl_down_sync(0xffffffffu, *v, off);
      const int oi = __shfl_down_sync(0xffffffffu, *i, off);
      if (sy_better(ov, oi, *v, *i, reversed)) *v = ov, *i = oi;
    }
    if (lane == 0) sv[0] = *v, si[0] = *i;
  }
  __syncthreads();
  *v = sv[0];
  *i = si[0];
  __syncthreads();
}

// The grid's best from the blocks' partials (every block reads them all).
template <class R>
__device__ __forceinline__ void sy_grid_best(const R *pv, const int *pi, bool reversed, R *sv, int *si, R *v,
                                             int *i) {
  R bv = R(-1);
  int bi = -1;
  for (int b = threadIdx.x; b < int(gridDim.x); b += kSytrfThreads) {
    const R ov = pv[b];
    const int oi = pi[b];
    if (sy_better(ov, oi, bv, bi, reversed)) bv = ov, bi = oi;
  }
  sy_block_best(&bv, &bi, reversed, sv, si);
  *v = bv;
  *i = bi;
}

template <class T>
__global__ void __launch_bounds__(kSytrfThreads, 1) sytrf_panel(SytrfPanel<T> p) {
  using R = real_t<T>;
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  __shared__ T wrow[kSytrfMaxNb];
  __shared__ R sv[kSytrfThreads / 32];
  __shared__ int si[kSytrfThreads / 32];
  const int m = p.n - p.k0;
  const bool herm = p.hermitian && is_complex_v<T>;
  const bool reversed = p.upper;
  const int stride = int(gridDim.x) * kSytrfThreads;
  const int gtid = int(blockIdx.x) * kSytrfThreads + int(threadIdx.x);
  const R alpha = (R(1) + sqrt(R(17))) / R(8);
  // |d| as the reference measures a diagonal entry: the real part's modulus for xHETRF.
  auto diag_abs = [&](T d) { return herm ? R(fabs(real_part(d))) : abs1(d); };
  auto cj = [&](T x) { return herm ? conj(x) : x; };
  int k = 0;
  while (!((!p.last && k >= p.nb - 1) || k >= m)) {
    // ---- the column k, updated: W(k:m, k) = A(k:m, k) - A(k:m, 0:k) W(k, 0:k)^T
    for (int j = threadIdx.x; j < k; j += kSytrfThreads) wrow[j] = p.wat(k, j);
    __syncthreads();
    R best = R(-1);
    int besti = -1;
    for (int i = gtid; i < m; i += stride) {
      if (i < k) continue;
      T v = p.at(i, k);
      if (herm && i == k) v = sy_real(v);
      for (int j = 0; j < k; ++j) v -= p.at(i, j) * wrow[j];
      if (herm && i == k) v = sy_real(v);
      p.wat(i, k) = v;
      if (i == k) p.published->wkk = v;
      else if (sy_better(abs1(v), i, best, besti, reversed)) best = abs1(v), besti = i;
    }
    sy_block_best(&best, &besti, reversed, sv, si);
    if (threadIdx.x == 0) p.partial_value[blockIdx.x] = best, p.partial_index[blockIdx.x] = besti;
    grid.sync();
    R colmax;
    int imax;
    sy_grid_best(p.partial_value, p.partial_index, reversed, sv, si, &colmax, &imax);
    if (imax < 0) colmax = R(0);
    const T wkk = p.published->wkk;
    const R absakk = diag_abs(wkk);
    int kstep = 1, kp = k;
    bool copy = false;
    if (fmax(absakk, colmax) == R(0) || (p.last && isnan(absakk))) {
      // A zero column: INFO, no interchange. The unblocked routine (the last panel) has the
      // updated column in A already; the blocked one leaves A's column as it was.
      for (int i = gtid; i < m; i += stride) {
        if (i < k) continue;
        if (p.last) p.at(i, k) = p.wat(i, k);
        else if (herm && i == k) p.at(k, k) = sy_real(p.at(k, k));
      }
      if (gtid == 0) {
        const int gk = p.k0 + k;
        if (*p.info == 0) *p.info = p.upper ? p.n - gk : gk + 1;
        p.local_ipiv[k] = k + 1;
        p.ipiv[p.upper ? p.n - 1 - gk : gk] = p.upper ? p.n - gk : gk + 1;
      }
      k += 1;
      grid.sync();
      continue;
    }
    if (!(absakk >= alpha * colmax)) {
      // ---- the candidate's row, updated: W(k:m, k+1) = A(imax, k:m) - A(k:m, 0:k) W(imax, 0:k)^T
      __syncthreads();
      for (int j = threadIdx.x; j < k; j += kSytrfThreads) wrow[j] = p.wat(imax, j);
      __syncthreads();
      R rbest = R(-1);
      int rbesti = -1;
      for (int i = gtid; i < m; i += stride) {
        if (i < k) continue;
        T v = i < imax ? cj(p.at(imax, i)) : i == imax ? p.at(imax, imax) : p.at(i, imax);
        if (herm && i == imax) v = sy_real(v);
        for (int j = 0; j < k; ++j) v -= p.at(i, j) * wrow[j];
        if (herm && i == imax) v = sy_real(v);
        p.wat(i, k + 1) = v;
        if (i == imax) {
          p.published->wik = p.wat(i, k);
          p.published->wik1 = v;
        } else if (abs1(v) > rbest) {
          rbest = abs1(v), rbesti = i;
        }
      }
      sy_block_best(&rbest, &rbesti, reversed, sv, si);
      if (threadIdx.x == 0)
        p.partial_value[gridDim.x + blockIdx.x] = rbest, p.partial_index[gridDim.x + blockIdx.x] = rbesti;
      grid.sync();
      R rowmax;
      int jmax;
      sy_grid_best(p.partial_value + gridDim.x, p.partial_index + gridDim.x, reversed, sv, si, &rowmax, &jmax);
      if (jmax < 0) rowmax = R(0);
      const T wik1 = p.published->wik1;
      if (absakk >= alpha * colmax * (colmax / rowmax)) {
        kp = k;
      } else if (diag_abs(wik1) >= alpha * rowmax) {
        kp = imax;
        copy = true;
      } else {
        kp = imax;
        kstep = 2;
      }
    }
    // ---- the interchange of kk and kp, and the store of column k (and k+1)
    const int kk = k + kstep - 1;
    const bool swap = kp != kk;
    // D's entries after the interchange (the published values are the pre-interchange ones).
    T r1 = T(1), d11 = T(0), d22 = T(0), d21 = T(0);
    if (kstep == 1) {
      const T d = copy ? p.published->wik1 : wkk;
      if (herm) r1 = T(R(1) / real_part(d));
      else r1 = divide(T(1), d);
    } else {
      const T w21 = p.published->wik, w22 = p.published->wik1;
      d21 = w21;
      d11 = divide(w22, d21);
      d22 = divide(wkk, cj(d21));
      if (herm) {
        const R t = R(1) / (real_part(d11 * d22) - R(1));
        d21 = divide(T(t), d21);
      } else {
        const T t = divide(T(1), d11 * d22 - T(1));
        d21 = divide(t, d21);
      }
    }
    for (int i = gtid; i < m; i += stride) {
      if (i <= kk || (swap && i == kp)) continue;
      if (swap) {
        const T akk = p.at(i, kk);
        if (i < kp) p.at(kp, i) = cj(akk);
        else p.at(i, kp) = akk;
      }
      if (kstep == 1) {
        const T wv = p.wat(i, copy ? k + 1 : k);
        p.at(i, k) = wv * r1;
        p.wat(i, k) = cj(wv);
      } else {
        const T w1 = p.wat(i, k), w2 = p.wat(i, k + 1);
        p.at(i, k) = cj(d21) * (d11 * w1 - w2);
        p.at(i, k + 1) = d21 * (d22 * w2 - w1);
        p.wat(i, k) = cj(w1);
        p.wat(i, k + 1) = cj(w2);
      }
    }
    if (blockIdx.x == 0 && swap)
      for (int j = threadIdx.x; j < k; j += kSytrfThreads) {
        const T x = p.at(kk, j);
        p.at(kk, j) = p.at(kp, j);
        p.at(kp, j) = x;
        const T y = p.wat(kk, j);
        p.wat(kk, j) = p.wat(kp, j);
        p.wat(kp, j) = y;
      }
    if (gtid == 0) {
      // The rows k..kk and kp: W's interchanged entries in columns k..kk, then their store.
      // wpost[r][c]: W(k + r, k + c) after the interchange; wkp[c]: W(kp, k + c).
      const int src0 = swap && kk == k ? kp : k, src1 = swap ? kp : k + 1;
      const int col0 = copy ? k + 1 : k;
      const T wpost[2][2] = {{p.wat(src0, col0), kstep == 2 ? p.wat(src0, k + 1) : T(0)},
                             {kstep == 2 ? p.wat(src1, k) : T(0), kstep == 2 ? p.wat(src1, k + 1) : T(0)}};
      const T wkp[2] = {swap ? p.wat(kk, col0) : T(0), swap && kstep == 2 ? p.wat(kk, k + 1) : T(0)};
      if (swap) p.at(kp, kp) = herm ? sy_real(p.at(kk, kk)) : p.at(kk, kk);
      if (kstep == 1) {
        p.at(k, k) = wpost[0][0];
        p.wat(k, k) = wpost[0][0];
        if (swap) {
          p.at(kp, k) = wkp[0] * r1;
          p.wat(kp, k) = cj(wkp[0]);
        }
      } else {
        p.at(k, k) = wpost[0][0];
        p.at(k + 1, k) = wpost[1][0];
        p.at(k + 1, k + 1) = wpost[1][1];
        p.wat(k, k) = wpost[0][0];
        p.wat(k, k + 1) = wpost[0][1];
        p.wat(k + 1, k) = cj(wpost[1][0]);
        p.wat(k + 1, k + 1) = wpost[1][1];
        if (swap) {
          const T w1 = wkp[0], w2 = wkp[1];
          p.at(kp, k) = cj(d21) * (d11 * w1 - w2);
          p.at(kp, k + 1) = d21 * (d22 * w2 - w1);
          p.wat(kp, k) = cj(w1);
          p.wat(kp, k + 1) = cj(w2);
        }
      }
      const int gk = p.k0 + k, gp = p.k0 + kp + 1;  // gp: 1-based logical
      const int piv = p.upper ? p.n - gp + 1 : gp;
      if (kstep == 1) {
        p.local_ipiv[k] = kp + 1;
        p.ipiv[p.upper ? p.n - 1 - gk : gk] = piv;
      } else {
        p.local_ipiv[k] = p.local_ipiv[k + 1] = -(kp + 1);
        p.ipiv[p.upper ? p.n - 1 - gk : gk] = -piv;
        p.ipiv[p.upper ? p.n - 2 - gk : gk + 1] = -piv;
      }
    }
    k += kstep;
    grid.sync();
  }
  if (gtid == 0) *p.kb = k;
}

// The panel's interchanges undone in its own earlier columns (xLASYF's last loop), after the
// trailing update has used them: one thread per panel column replays the swaps that reach it.
template <class T>
__global__ void sytrf_panel_unswap(SytrfPanel<T> p) {
  const int kb = *p.kb;
  const int c = int(blockIdx.x) * blockDim.x + threadIdx.x;  // 0-based panel column
  if (c >= kb) return;
  int j = kb;  // 1-based, as the reference's J = K - 1
  while (true) {
    const int jj = j;
    int jp = p.local_ipiv[j - 1];
    if (jp < 0) {
      jp = -jp;
      --j;
    }
    --j;
    if (jp != jj && j >= 1 && c + 1 <= j) {
      T &x = p.at(jp - 1, c), &y = p.at(jj - 1, c);
      const T t = x;
      x = y;
      y = t;
    }
    if (j <= 1) break;
  }
}

template <class T>
int sytrf_panel_blocks(int sms, int m) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sytrf_panel<T>, kSytrfThreads, 0) != cudaSuccess ||
      per_sm < 1)
    per_sm = 1;
  const int want = (m + kSytrfThreads - 1) / kSytrfThreads;
  const int most = sms * per_sm;
  return want < 1 ? 1 : want < most ? want : most;
}

template <class T>
cudaError_t launch_sytrf_panel(const SytrfPanel<T> &p, int blocks, cudaStream_t stream) {
  SytrfPanel<T> args = p;
  void *params[] = {&args};
  cudaError_t e = cudaLaunchCooperativeKernel((const void *)sytrf_panel<T>, dim3(blocks), dim3(kSytrfThreads), params,
                                              0, stream);
  return e;
}

template <class T>
cudaError_t launch_sytrf_panel_unswap(const SytrfPanel<T> &p, cudaStream_t stream) {
  sytrf_panel_unswap<T><<<1, kSytrfMaxNb, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
