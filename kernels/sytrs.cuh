#pragma once
// The pieces of the solve with a symmetric indefinite factor (xSYTRS/xHETRS) beside the
// triangular solves and GEMMs: the factor's multipliers put into standard form within each
// panel of blocks, the panel's interchanges on the right-hand sides, and the solve with D's 1x1
// and 2x2 blocks.
//
// Blocks are listed in the order the reference's forward solve meets them (ascending for 'L',
// descending for 'U'), four ints each: first row p (0-based), size (1 or 2), the row the
// reference interchanges (r) and its partner (kp), both 0-based.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"

namespace cudrop::kernels {

constexpr int kSytrsThreads = 128;

struct SytrsBlock {
  int p, size, r, kp;
};

// The block's interchange on one column.
template <class T>
__device__ __forceinline__ void sytrs_interchange(const SytrsBlock &s, T *col) {
  if (s.r == s.kp) return;
  const T x = col[s.r];
  col[s.r] = col[s.kp];
  col[s.kp] = x;
}

// Column j of the multipliers gets the interchanges of the later blocks of its panel (as xLASYF
// held them while it factored the panel), and the off-diagonal entry of a 2x2 D block is zeroed,
// so that the panel's columns form a unit triangle. col_block[j]: j's block; panel_end[b]: one
// past the last block of b's panel.
template <class T>
__global__ void __launch_bounds__(kSytrsThreads)
sytrs_standard_form(int n, bool upper, const SytrsBlock *__restrict__ blocks, const int *__restrict__ col_block,
                    const int *__restrict__ panel_end, T *l, size_t ldl) {
  const int j = int(blockIdx.x) * kSytrsThreads + int(threadIdx.x);
  if (j >= n) return;
  const int b = col_block[j];
  const SytrsBlock own = blocks[b];
  if (own.size == 2 && j == (upper ? own.p + 1 : own.p)) {
    if (upper) l[size_t(own.p) + size_t(own.p + 1) * ldl] = T(0);
    else l[size_t(own.p + 1) + size_t(own.p) * ldl] = T(0);
  }
  const int end = panel_end[b];
  T *col = l + size_t(j) * ldl;
  for (int c = b + 1; c < end; ++c) sytrs_interchange(blocks[c], col);
}

// The interchanges of blocks [b0, b1) on B's rows, in list order (forward) or reversed.
template <class T>
__global__ void __launch_bounds__(kSytrsThreads)
sytrs_swap_rows(int nrhs, const SytrsBlock *__restrict__ blocks, int b0, int b1, bool forward, T *b, size_t ldb) {
  const int j = int(blockIdx.x) * kSytrsThreads + int(threadIdx.x);
  if (j >= nrhs) return;
  T *col = b + size_t(j) * ldb;
  for (int t = 0; t < b1 - b0; ++t) sytrs_interchange(blocks[forward ? b0 + t : b1 - 1 - t], col);
}

// B := D^-1 B as xSYTRS/xHETRS compute it, one thread per block and column.
template <class T>
__global__ void __launch_bounds__(kSytrsThreads)
sytrs_diagonal(int nblocks, int nrhs, bool upper, bool hermitian, const SytrsBlock *__restrict__ blocks,
               const T *__restrict__ a, size_t lda, T *b, size_t ldb) {
  using R = real_t<T>;
  const long long t = (long long)blockIdx.x * kSytrsThreads + threadIdx.x;
  if (t >= (long long)nblocks * nrhs) return;
  const int bi = int(t % nblocks), j = int(t / nblocks);
  const SytrsBlock s = blocks[bi];
  const bool herm = hermitian && is_complex_v<T>;
  T *col = b + size_t(j) * ldb;
  const int p = s.p;
  if (s.size == 1) {
    const T d = a[size_t(p) + size_t(p) * lda];
    const T scale = herm ? T(R(1) / real_part(d)) : divide(T(1), d);
    col[p] = herm ? T(col[p] * real_part(scale)) : col[p] * scale;
    return;
  }
  const int q = p + 1;
  const T o = upper ? a[size_t(p) + size_t(q) * lda] : a[size_t(q) + size_t(p) * lda];
  const T op = herm && !upper ? conj(o) : o, oq = herm && upper ? conj(o) : o;
  const T akm1 = divide(a[size_t(p) + size_t(p) * lda], op);
  const T ak = divide(a[size_t(q) + size_t(q) * lda], oq);
  const T denom = akm1 * ak - T(1);
  const T bkm1 = divide(col[p], op), bk = divide(col[q], oq);
  col[p] = divide(ak * bkm1 - bk, denom);
  col[q] = divide(akm1 * bk - bkm1, denom);
}

}  // namespace cudrop::kernels
