#pragma once
// TRSM's diagonal blocks as inverses (impl/level3/level3_device.cu): the inverses of the nb-wide
// diagonal blocks of a triangle, built from kTriNb-wide ones by doubling
//     inv([A11 0; A21 A22]) = [X11 0; -X22 A21 X11  X22]   (X = inv; upper: X12 = -X11 A12 X22),
// their 1-norm condition numbers, and the substitution that replaces the inverse's product for a
// block whose condition number is too large. Every kernel reads only the stored triangle (the
// diagonal taken as one for a unit triangle); past the order a block is the identity's, so that a
// last, partial block inverts and solves as a whole one.
//
// `inverse` holds block b of the triangle (rows [b nb, b nb + nb)) in rows [b nb, b nb + nb) and
// columns [0, nb): element (i, j) of the triangle's diagonal block b is inverse(b nb + i, j); the
// other triangle of each block is zero.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"
#include "kernels/triangular.cuh"

namespace cudrop::kernels {

// The inverse of every kTriNb-wide diagonal block of the triangle of order n (whole blocks up to
// `padded`, a multiple of nb), written into `inverse` (leading dimension ldi) where its nb-wide
// block keeps it: kTriNb / kTriSolveWarps CTAs a block, each loading the block and solving for
// kTriSolveWarps columns of its inverse, a warp a column (warp_substitute on a column of the
// identity).
template <class T>
__global__ void __launch_bounds__(32 * kTriSolveWarps)
invert_triangle_blocks(bool lower, bool unit, long long n, const T *__restrict__ a, size_t lda, T *__restrict__ inverse,
                       size_t ldi, int nb) {
  extern __shared__ __align__(16) unsigned char inverse_smem[];
  T(*tile)[kTriNb + 1] = reinterpret_cast<T(*)[kTriNb + 1]>(inverse_smem);
  constexpr int kParts = kTriNb / kTriSolveWarps;
  const long long b0 = (long long)(blockIdx.x / kParts) * kTriNb;
  load_system<T, 32 * kTriSolveWarps>(lower, unit, false, false, n, a, lda, b0, tile);
  __syncthreads();
  const int c = int(blockIdx.x % kParts) * kTriSolveWarps + int(threadIdx.x / 32);
  T *column = inverse + size_t(b0) + size_t(b0 % nb + c) * ldi;
  warp_substitute(lower, kTriNb, tile, [&](int i) { return i == c ? T(1) : T(0); },
                  [&](int i, T value) { column[i] = value; });
}

template <class T>
constexpr size_t invert_triangle_smem = triangle_solve_smem<T>;

template <class T>
cudaError_t launch_invert_triangle_blocks(bool lower, bool unit, long long n, long long padded, const T *a,
                                          size_t lda, T *inverse, size_t ldi, int nb, cudaStream_t stream) {
  if (padded <= 0) return cudaSuccess;
  const long long blocks = padded / kTriNb * (kTriNb / kTriSolveWarps);
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
  constexpr size_t smem = invert_triangle_smem<T>;
  if constexpr (smem > 48 * 1024) {
    static PerDeviceOnce once;
    const cudaError_t opt_in = once_per_device(once, [] {
      return cudaFuncSetAttribute(invert_triangle_blocks<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    });
    if (opt_in != cudaSuccess) return opt_in;
  }
  invert_triangle_blocks<T><<<unsigned(blocks), 32 * kTriSolveWarps, smem, stream>>>(lower, unit, n, a, lda, inverse,
                                                                                     ldi, nb);
  return cudaGetLastError();
}

// Where block z of a batch of s x s blocks lies in a matrix x (leading dimension ld): rows from
// row0 + z row_step, columns from col0 + (z mod group) col_step (group 0: z itself), so that the
// blocks of the nb-wide inverses, whose columns restart at each nb, are a batch too. Elements at
// or past (rows, cols) of x read as zero (the triangle's A past its order).
template <class X>
struct BatchBlocks {
  X *x;
  size_t ld;
  long long row0, row_step, col0, col_step, group, rows, cols;
  __device__ size_t offset(int z, long long i, long long j) const {
    const long long r = row0 + z * row_step + i, c = col0 + (group > 0 ? z % group : z) * col_step + j;
    return size_t(r) + size_t(c) * ld;
  }
  __device__ bool inside(int z, long long i, long long j) const {
    return row0 + z * row_step + i < rows && col0 + (group > 0 ? z % group : z) * col_step + j < cols;
  }
};

// out_z = scale * P_z Q_z for every block z of the batch (blockIdx.z), s x s blocks, s a
// multiple of 64; a CTA computes a 64 x 64 tile of one out_z, each of its 256 threads 4 x 4 of it.
template <class T>
__global__ void __launch_bounds__(256)
batched_block_product(int s, T scale, BatchBlocks<const T> p, BatchBlocks<const T> q, BatchBlocks<T> out) {
  constexpr int kTile = 64, kDepth = 16;
  __shared__ T ps[kDepth][kTile + 1], qs[kDepth][kTile + 1];
  const int z = blockIdx.z, tid = threadIdx.x;
  const long long i0 = (long long)blockIdx.x * kTile, j0 = (long long)blockIdx.y * kTile;
  const int ti = (tid % 16) * 4, tj = (tid / 16) * 4;
  T acc[4][4];
#pragma unroll
  for (int u = 0; u < 4; ++u)
#pragma unroll
    for (int v = 0; v < 4; ++v) acc[u][v] = T(0);
  for (int l0 = 0; l0 < s; l0 += kDepth) {
    for (int e = tid; e < kDepth * kTile; e += 256) {
      const int l = e / kTile, i = e % kTile;
      // P(i, l): consecutive threads walk a column of P; Q(l, j) is kept by j.
      ps[l][i] = p.inside(z, i0 + i, l0 + l) ? p.x[p.offset(z, i0 + i, l0 + l)] : T(0);
      qs[l][i] = q.inside(z, l0 + l, j0 + i) ? q.x[q.offset(z, l0 + l, j0 + i)] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < kDepth; ++l)
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[u][v] += ps[l][ti + u] * qs[l][tj + v];
    __syncthreads();
  }
#pragma unroll
  for (int v = 0; v < 4; ++v)
#pragma unroll
    for (int u = 0; u < 4; ++u) out.x[out.offset(z, i0 + ti + u, j0 + tj + v)] = scale * acc[u][v];
}

template <class T>
cudaError_t launch_batched_block_product(int s, long long count, T scale, const BatchBlocks<const T> &p,
                                         const BatchBlocks<const T> &q, const BatchBlocks<T> &out,
                                         cudaStream_t stream) {
  if (s <= 0 || count <= 0) return cudaSuccess;
  if (s % 64 != 0 || count > 65535) return cudaErrorInvalidValue;
  const dim3 grid(unsigned(s / 64), unsigned(s / 64), unsigned(count));
  batched_block_product<T><<<grid, 256, 0, stream>>>(s, scale, p, q, out);
  return cudaGetLastError();
}

// flags[b] = 1 when the 1-norm condition number of diagonal block b (nb wide, its inverse in
// `inverse`) exceeds max_condition, or is not a number (a zero or non-finite diagonal), else 0.
// One CTA a block, a thread a column. |x| is |re| + |im| for a complex x, as LAPACK's CABS1.
template <class T>
__device__ double magnitude1(T x) {
  if constexpr (is_complex_v<T>) return fabs(double(x.re)) + fabs(double(x.im));
  else return fabs(double(x));
}
template <class T>
__global__ void __launch_bounds__(256)
flag_conditions(bool lower, bool unit, long long n, const T *__restrict__ a, size_t lda, const T *__restrict__ inverse,
                size_t ldi, int nb, double max_condition, int *flags) {
  __shared__ double norm_a[256], norm_x[256];
  const long long b0 = (long long)blockIdx.x * nb;
  double col_a = 0, col_x = 0;
  for (int c = threadIdx.x; c < nb; c += 256) {
    double sa = 0, sx = 0;
    for (int i = 0; i < nb; ++i) {
      sa += magnitude1(triangle_element(lower, unit, n, a, lda, b0 + i, b0 + c));
      sx += magnitude1(inverse[size_t(b0 + i) + size_t(c) * ldi]);
    }
    // NaN stays NaN through max below (fmax would drop it)
    col_a = sa > col_a || sa != sa ? sa : col_a;
    col_x = sx > col_x || sx != sx ? sx : col_x;
  }
  norm_a[threadIdx.x] = col_a;
  norm_x[threadIdx.x] = col_x;
  __syncthreads();
  if (threadIdx.x == 0) {
    double ma = 0, mx = 0;
    for (int t = 0; t < 256; ++t) {
      ma = norm_a[t] > ma || norm_a[t] != norm_a[t] ? norm_a[t] : ma;
      mx = norm_x[t] > mx || norm_x[t] != norm_x[t] ? norm_x[t] : mx;
    }
    flags[blockIdx.x] = ma * mx <= max_condition ? 0 : 1;  // false for NaN and Inf
  }
}

template <class T>
cudaError_t launch_flag_conditions(bool lower, bool unit, long long n, long long blocks, const T *a, size_t lda,
                                   const T *inverse, size_t ldi, int nb, double max_condition, int *flags,
                                   cudaStream_t stream) {
  if (blocks <= 0) return cudaSuccess;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
  flag_conditions<T><<<unsigned(blocks), 256, 0, stream>>>(lower, unit, n, a, lda, inverse, ldi, nb, max_condition,
                                                           flags);
  return cudaGetLastError();
}

// The substitution for one block of the solve whose flag is set (and nothing when it is clear):
// the s x s system (s <= kMaxS) at `a` (op-free A_bb as stored; sys_trans, sys_conj as in
// triangle_solve_block), right-hand sides read from rhs (the block's values before the inverse's
// product) and the solutions written to b. One thread a right-hand side, x in local memory: slow,
// and only for blocks whose inverse would lose accuracy.
template <class T, int kMaxS>
__global__ void __launch_bounds__(64)
solve_flagged_block(const int *flag, bool left, bool lower, bool sys_trans, bool sys_conj, bool unit, int s,
                    const T *__restrict__ a, size_t lda, const T *__restrict__ rhs, size_t ldr, T *__restrict__ b,
                    size_t ldb, long long count) {
  if (*flag == 0) return;
  const long long v = (long long)blockIdx.x * 64 + threadIdx.x;
  if (v >= count) return;
  const T *in = left ? rhs + size_t(v) * ldr : rhs + size_t(v);
  T *out = left ? b + size_t(v) * ldb : b + size_t(v);
  const size_t in_step = left ? 1 : ldr, out_step = left ? 1 : ldb;
  auto sys = [&](int i, int k) {  // the system matrix's element (i, k)
    T e = sys_trans ? triangle_element(lower, unit, (long long)s, a, lda, k, i)
                    : triangle_element(lower, unit, (long long)s, a, lda, i, k);
    return sys_conj ? conj(e) : e;
  };
  const bool sys_lower = lower != sys_trans;
  T x[kMaxS];
  for (int step = 0; step < s; ++step) {
    const int i = sys_lower ? step : s - 1 - step;
    T t = in[size_t(i) * in_step];
    if (sys_lower)
      for (int k = 0; k < i; ++k) t -= sys(i, k) * x[k];
    else
      for (int k = i + 1; k < s; ++k) t -= sys(i, k) * x[k];
    x[i] = divide(t, sys(i, i));
  }
  for (int i = 0; i < s; ++i) out[size_t(i) * out_step] = x[i];
}

template <class T, int kMaxS>
cudaError_t launch_solve_flagged_block(const int *flag, bool left, bool lower, bool sys_trans, bool sys_conj, bool unit,
                                       int s, const T *a, size_t lda, const T *rhs, size_t ldr, T *b, size_t ldb,
                                       long long count, cudaStream_t stream) {
  if (s <= 0 || count <= 0) return cudaSuccess;
  if (s > kMaxS) return cudaErrorInvalidValue;
  const long long blocks = (count + 63) / 64;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
  solve_flagged_block<T, kMaxS><<<unsigned(blocks), 64, 0, stream>>>(flag, left, lower, sys_trans, sys_conj, unit, s,
                                                                     a, lda, rhs, ldr, b, ldb, count);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
