#pragma once
// Small kernels around the Level-3 BLAS built on GEMM (impl/level3/level3_device.cu): the diagonal
// blocks of a triangle solved by substitution (TRSM), a triangle mirrored into a full square
// (SYMM) or copied into one with zeros (TRMM), scalings of a block or a triangle, and the scan
// for Inf and NaN.
// Each reads only the triangle its caller names, so the other one may hold anything (NaN).
#include <cuda_runtime.h>

#include <cstddef>

#include "core/complex.h"
#include "kernels/per_device_once.cuh"
#include "kernels/complex_scalar.cuh"  // divide(): complex division as the reference's compiler divides

namespace cudrop::kernels {

// The diagonal blocks' order (a masked block: one CTA of kTriNb threads, a thread a column; a
// solve: a warp a right-hand side, warp_substitute).
constexpr int kTriNb = 64;

// Element (i, j) of a triangular block as op-free TRSM/TRMM see it: the stored triangle, the
// other one zero, the diagonal one when unit; outside the n x n matrix, the identity (so that
// a partial last block solves and multiplies as a whole one).
template <class T>
__device__ T triangle_element(bool lower, bool unit, long long n, const T *a, size_t lda, long long i, long long j) {
  if (i >= n || j >= n) return i == j ? T(1) : T(0);
  if (i == j) return unit ? T(1) : a[size_t(i) + size_t(j) * lda];
  return (lower ? i > j : i < j) ? a[size_t(i) + size_t(j) * lda] : T(0);
}

// triangle_element's value with the load outside any branch: an element outside the stored
// triangle loads a[0] (the first diagonal element, always there) and drops it. Behind
// triangle_element's branches each load of an unrolled loop waits for the one before (a block's
// 64 loads, 64 memory latencies); as selects, they are all in flight at once.
template <class T>
__device__ __forceinline__ T triangle_element_flat(bool lower, bool unit, long long n, const T *a, size_t lda,
                                                   long long i, long long j) {
  // (bitwise, not short-circuit: no branches)
  const bool stored = (i < n) & (j < n) & (((i == j) & !unit) | ((i != j) & (lower ? i > j : i < j)));
  const T loaded = a[stored ? size_t(i) + size_t(j) * lda : 0];
  return stored ? loaded : (i == j ? T(1) : T(0));
}

// A value of lane `src` of the warp, for every lane (a complex one as its two parts).
template <class R>
__device__ __forceinline__ R warp_value(R v, int src) {
  return __shfl_sync(0xffffffffu, v, src);
}
template <class R>
__device__ __forceinline__ Complex<R> warp_value(Complex<R> v, int src) {
  return {__shfl_sync(0xffffffffu, v.re, src), __shfl_sync(0xffffffffu, v.im, src)};
}

// The warp's one right-hand side x := the solution of tile x = x, the leading s x s of the
// kTriNb x kTriNb system `tile` (shared memory) lower or upper triangular: column by column, as
// the reference's TRSM, x(k) divided by its diagonal element, then every later x(i) loses
// tile(i, k) x(k), each x(i) seeing the same operations in the same order as in the reference.
// Steps run in elimination order p = 0 .. s-1 (row p when lower, s-1-p when upper); lane l holds
// the unknowns of positions l and l + 32. A step's division is the dependent chain's only long
// link: every lane divides its own (the owner's is kept and sent to all by a shuffle), then each
// lane updates its later unknowns. The loop over steps stays rolled: unrolled, a substitution is
// several thousand instructions, and a block's few warps then wait mostly for instruction fetch.
// load(row) gives x's initial value, store(row, value) takes the solution.
template <class T, class Load, class Store>
__device__ __forceinline__ void warp_substitute(bool lower, int s, const T (*tile)[kTriNb + 1], Load &&load,
                                                Store &&store) {
  static_assert(kTriNb == 64, "two unknowns a lane");
  const int lane = threadIdx.x & 31;
  auto row_of = [&](int position) { return lower ? position : s - 1 - position; };
  T x[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int q = lane + 32 * r;
    x[r] = q < s ? load(row_of(q)) : T(0);
  }
  for (int p = 0; p < s; ++p) {
    const int k = row_of(p), owner = p & 31;
    const bool second = p >= 32;
    const T solved = warp_value(divide(second ? x[1] : x[0], tile[k][k]), owner);
    if (lane == owner) {
      if (second) x[1] = solved;
      else x[0] = solved;
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int q = lane + 32 * r;
      if (q > p && q < s) x[r] -= tile[row_of(q)][k] * solved;
    }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int q = lane + 32 * r;
    if (q < s) store(row_of(q), x[r]);
  }
}

// The kTriNb x kTriNb system of a diagonal block into shared memory by all of a block's threads:
// tile(i, j) = op(A_bb)(i, j), A_bb the stored block at `a` (s x s, the identity past it), its
// element (i, j) read as tile(j, i) when sys_trans, conjugated when sys_conj. Consecutive threads
// read consecutive elements of the stored block, kTriNb x kTriNb / threads loads each, all in
// flight at once (triangle_element_flat).
template <class T, int kThreads>
__device__ __forceinline__ void load_system(bool lower, bool unit, bool sys_trans, bool sys_conj, long long s,
                                            const T *a, size_t lda, long long i0, T (*tile)[kTriNb + 1]) {
  static_assert(kTriNb * kTriNb % kThreads == 0, "whole rounds");
#pragma unroll
  for (int q = 0; q < kTriNb * kTriNb / kThreads; ++q) {
    const int e = int(threadIdx.x) + q * kThreads;
    const int i = e % kTriNb, j = e / kTriNb;  // element (i0 + i, i0 + j) of the stored triangle
    T v = triangle_element_flat(lower, unit, s, a, lda, i0 + i, i0 + j);
    if (sys_conj) v = conj(v);
    if (sys_trans) tile[j][i] = v;
    else tile[i][j] = v;
  }
}

// TRSM's diagonal blocks, solved in place by substitution as the reference solves them (so with
// its backward stability, whatever the block's condition): the s x s system matrix (s <= kTriNb)
// is op(A_bb) on the left, op(A_bb)^T on the right (a row x of B solves x op(A) = b as
// op(A)^T x = b); sys_trans: it is A_bb^T; sys_conj: its elements are conjugated (op 'C' on the
// left, and on the right, where op(A)^T = conj(A)). One warp per right-hand side (a column of
// B's s-row block on the left, a row of its s-column block on the right), kTriSolveWarps of them
// a block sharing the system matrix in dynamic shared memory (triangle_solve_smem bytes: more
// than the 48 KiB of a static array for Complex<double>).
constexpr int kTriSolveWarps = 8;
template <class T>
constexpr size_t triangle_solve_smem = sizeof(T) * kTriNb * (kTriNb + 1);

template <class T>
__global__ void __launch_bounds__(32 * kTriSolveWarps)
triangle_solve_block(bool left, bool lower, bool sys_trans, bool sys_conj, bool unit, int s, const T *__restrict__ a,
                     size_t lda, T *__restrict__ b, size_t ldb, long long count) {
  extern __shared__ __align__(16) unsigned char solve_smem[];
  T(*tile)[kTriNb + 1] = reinterpret_cast<T(*)[kTriNb + 1]>(solve_smem);
  load_system<T, 32 * kTriSolveWarps>(lower, unit, sys_trans, sys_conj, s, a, lda, 0, tile);
  __syncthreads();
  const long long v = (long long)blockIdx.x * kTriSolveWarps + threadIdx.x / 32;
  if (v >= count) return;
  T *rhs = left ? b + size_t(v) * ldb : b + size_t(v);
  const size_t step = left ? 1 : ldb;
  warp_substitute(lower != sys_trans, s, tile, [&](int i) { return rhs[size_t(i) * step]; },
                  [&](int i, T value) { rhs[size_t(i) * step] = value; });
}

// a: A_bb (the block's first element); b: the block's first element of B (row r0 on the left,
// column r0 on the right); count: n on the left, m on the right.
template <class T>
cudaError_t launch_triangle_solve_block(bool left, bool lower, bool sys_trans, bool sys_conj, bool unit, int s,
                                        const T *a, size_t lda, T *b, size_t ldb, long long count,
                                        cudaStream_t stream) {
  if (s <= 0 || count <= 0) return cudaSuccess;
  if (s > kTriNb) return cudaErrorInvalidValue;
  const long long blocks = (count + kTriSolveWarps - 1) / kTriSolveWarps;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
  constexpr size_t smem = triangle_solve_smem<T>;
  if constexpr (smem > 48 * 1024) {
    // Past 48 KiB a kernel's dynamic shared memory needs the opt-in, set once per device.
    static PerDeviceOnce once;
    const cudaError_t opt_in = once_per_device(once, [] {
      return cudaFuncSetAttribute(triangle_solve_block<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    });
    if (opt_in != cudaSuccess) return opt_in;
  }
  triangle_solve_block<T><<<unsigned(blocks), 32 * kTriSolveWarps, smem, stream>>>(
      left, lower, sys_trans, sys_conj, unit, s, a, lda, b, ldb, count);
  return cudaGetLastError();
}

// What an element-wise kernel does to the part of an m x n block it covers.
enum class Part { all, lower, upper };
__host__ __device__ inline bool in_part(Part part, long long i, long long j) {
  return part == Part::all || (part == Part::lower ? i >= j : i <= j);
}

// y(i, j) = alpha * x(i, j) + beta * y(i, j) on `part`, without reading x when alpha == 0 and
// y when beta == 0 (so NaN there does not spread); the rest of y untouched. real_diagonal (a
// Hermitian update, alpha and beta real): on the diagonal only the real parts of x and y are
// read and the imaginary part written is zero, as the reference's CHERK and CHER2K do.
template <class T>
__global__ void axpby_matrix(Part part, long long m, long long n, T alpha, const T *x, size_t ldx,
                             T beta, T *y, size_t ldy, bool real_diagonal) {  // x may be y
  for (long long j = blockIdx.y; j < n; j += gridDim.y)
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
      if (!in_part(part, i, j)) continue;
      if (real_diagonal && i == j) {
        using R = real_t<T>;
        R v = alpha == T(0) ? R(0) : real_part(alpha) * real_part(x[size_t(i) + size_t(j) * ldx]);
        if (beta != T(0)) v += real_part(beta) * real_part(y[size_t(i) + size_t(j) * ldy]);
        y[size_t(i) + size_t(j) * ldy] = T(v);
        continue;
      }
      T v = alpha == T(0) ? T(0) : alpha * x[size_t(i) + size_t(j) * ldx];
      if (beta != T(0)) v += beta * y[size_t(i) + size_t(j) * ldy];
      y[size_t(i) + size_t(j) * ldy] = v;
    }
}

template <class T>
cudaError_t launch_axpby(Part part, long long m, long long n, T alpha, const T *x, size_t ldx, T beta, T *y,
                         size_t ldy, cudaStream_t stream, bool real_diagonal = false) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  const long long bx = (m + 255) / 256;
  const dim3 grid(unsigned(bx < 1024 ? bx : 1024), unsigned(n < 65535 ? n : 65535));
  axpby_matrix<T><<<grid, 256, 0, stream>>>(part, m, n, alpha, x, ldx, beta, y, ldy, real_diagonal);
  return cudaGetLastError();
}

// out (n x n, full) = the triangle a holds (`lower`, else upper), zeros outside it, ones on the
// diagonal for a unit one (whose diagonal is never read): TRMM's operand for one GEMM.
template <class T>
__global__ void triangle_square(bool lower, bool unit, long long n, const T *__restrict__ a, size_t lda,
                                T *__restrict__ out, size_t ldo) {
  for (long long j = blockIdx.y; j < n; j += gridDim.y)
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
      out[size_t(i) + size_t(j) * ldo] = triangle_element(lower, unit, n, a, lda, i, j);
}

template <class T>
cudaError_t launch_triangle_square(bool lower, bool unit, long long n, const T *a, size_t lda, T *out, size_t ldo,
                                   cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const long long bx = (n + 255) / 256;
  const dim3 grid(unsigned(bx < 1024 ? bx : 1024), unsigned(n < 65535 ? n : 65535));
  triangle_square<T><<<grid, 256, 0, stream>>>(lower, unit, n, a, lda, out, ldo);
  return cudaGetLastError();
}

// *flag = 1 when an element of `part` of the m x n matrix x is Inf or NaN (the diagonal left out
// with skip_diagonal: a unit triangle's is never read); *flag is zeroed by the caller. The
// routines whose reference skips zero entries (impl/level3/level3_host.cu) send such calls to the CPU.
template <class T>
__device__ bool finite_element(T v) {
  if constexpr (is_complex_v<T>) return isfinite(v.re) && isfinite(v.im);
  else return isfinite(v);
}
template <class T>
__global__ void flag_nonfinite(Part part, bool skip_diagonal, long long m, long long n, const T *__restrict__ x,
                               size_t ldx, int *flag) {
  bool finite = true;
  for (long long j = blockIdx.y; j < n; j += gridDim.y)
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x)
      if (in_part(part, i, j) && !(skip_diagonal && i == j)) finite &= finite_element(x[size_t(i) + size_t(j) * ldx]);
  if (!finite) *flag = 1;
}

template <class T>
cudaError_t launch_flag_nonfinite(Part part, bool skip_diagonal, long long m, long long n, const T *x, size_t ldx,
                                  int *flag, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  const long long bx = (m + 255) / 256;
  const dim3 grid(unsigned(bx < 1024 ? bx : 1024), unsigned(n < 65535 ? n : 65535));
  flag_nonfinite<T><<<grid, 256, 0, stream>>>(part, skip_diagonal, m, n, x, ldx, flag);
  return cudaGetLastError();
}

// out (n x n, full) = the symmetric matrix whose `lower` (else upper) triangle a holds; with
// `hermitian`, the Hermitian one: the mirrored elements conjugated, the diagonal's imaginary
// part taken as zero (never read into the result, as the reference's CHEMM never reads it).
template <class T>
__global__ void symmetrize_matrix(bool lower, bool hermitian, long long n, const T *__restrict__ a, size_t lda,
                                  T *__restrict__ out, size_t ldo) {
  for (long long j = blockIdx.y; j < n; j += gridDim.y)
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
      const bool stored = lower ? i >= j : i <= j;
      T v = stored ? a[size_t(i) + size_t(j) * lda] : a[size_t(j) + size_t(i) * lda];
      if (hermitian && i == j) v = T(real_part(v));
      else if (hermitian && !stored) v = conj(v);
      out[size_t(i) + size_t(j) * ldo] = v;
    }
}

template <class T>
cudaError_t launch_symmetrize(bool lower, long long n, const T *a, size_t lda, T *out, size_t ldo,
                              cudaStream_t stream, bool hermitian = false) {
  if (n <= 0) return cudaSuccess;
  const long long bx = (n + 255) / 256;
  const dim3 grid(unsigned(bx < 1024 ? bx : 1024), unsigned(n < 65535 ? n : 65535));
  symmetrize_matrix<T><<<grid, 256, 0, stream>>>(lower, hermitian, n, a, lda, out, ldo);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
