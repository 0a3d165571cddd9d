#pragma once
// The two non-GEMM steps of a right-looking blocked LU, applied to a range of columns once a
// panel is factored:
//  * getrf_swap_rows: the panel's row interchanges (LAPACK xLASWP, forward order);
//  * getrf_trsm: U12 := inv(L11) * A12 with L11 the panel's unit lower triangle (xTRSM
//    'Left','Lower','No transpose','Unit').
// The trailing update A22 -= L21 * U12 is impl::gemm_device.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/layout.h"
#include "kernels/per_device_once.cuh"

namespace cudrop::kernels {

constexpr int kSwapThreads = 128;
constexpr int kSwapMaxRows = 128;  // interchanges applied by one launch

// For i = k1 .. k2-1 (k2 - k1 <= kSwapMaxRows): rows i and ipiv[i]-1 of every column of A
// (ncols columns, A = column 0 with row 0 = the matrix's row 0) are interchanged, in order.
// One thread per column walks the interchanges; rows k1..k2-1 are contiguous, so its
// accesses to them share cache lines.
template <class T>
__global__ void __launch_bounds__(kSwapThreads)
getrf_swap_rows(T *A, size_t lda, int ncols, const int *ipiv, int k1, int k2) {
  __shared__ int target[kSwapMaxRows];
  for (int i = threadIdx.x; i < k2 - k1; i += blockDim.x) target[i] = ipiv[k1 + i] - 1;
  __syncthreads();
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= ncols) return;
  T *column = A + size_t(c) * lda;
  for (int i = 0; i < k2 - k1; ++i) {
    const int r = k1 + i, t = target[i];
    if (t != r) {
      const T a = column[r];
      column[r] = column[t];
      column[t] = a;
    }
  }
}

// Triangular solve shape: L11 up to NB x NB; each block solves NC columns of B with NC*RG
// threads, thread (c, g) keeping rows g, g+RG, ... of column c in registers. L is staged
// through shared memory KC columns at a time (so double precision fits in under 70 KB and
// double complex in under 140 KB, which the caller checks against the device's limit).
template <class T>
struct TrsmShape {
  static constexpr int NB = 128, NC = 32, RG = 8, KC = 32;
  static constexpr int threads = NC * RG;
  static constexpr int R = NB / RG;   // rows per thread
  static constexpr int ldb = NB + 1;  // shared B tile: column-major, odd stride (no bank conflicts)
  static_assert(NB % RG == 0, "the rows must split evenly over the row groups");
  static_assert(KC % RG == 0 && NB % KC == 0, "an L chunk must hold whole register steps");
  static_assert(NC == 32, "a warp must be one row group across all NC columns (L reads broadcast)");
  static size_t smem_bytes() { return (size_t(KC) * NB + size_t(NC) * ldb + 2 * NC) * sizeof(T); }
};

// B (jb x ncols, column stride ldb) := inv(L) * B, L = unit lower triangle of the jb x jb
// matrix at L (column stride ldl), jb <= NB. Forward substitution, one row of B per step:
// the owner of x_k shares it through shared memory, every thread updates its rows below k.
template <class T>
__global__ void __launch_bounds__(TrsmShape<T>::threads)
getrf_trsm(const T *__restrict__ L, size_t ldl, T *__restrict__ B, size_t ldb, int jb, int ncols) {
  using S = TrsmShape<T>;
  constexpr int NB = S::NB, NC = S::NC, RG = S::RG, R = S::R, KC = S::KC, NT = S::threads;
  extern __shared__ __align__(16) unsigned char trsm_smem[];
  T *Ls = reinterpret_cast<T *>(trsm_smem);  // Ls[kk * NB + i] = L(i, k0 + kk) for i > k, else 0
  T *Bs = Ls + KC * NB;                       // Bs[c * ldb + i] = B(i, col0 + c)
  T *xs = Bs + NC * S::ldb;                   // xs[parity * NC + c] = x_k of column c

  const int tid = threadIdx.x;
  const long long col0 = (long long)blockIdx.x * NC;
  const int nc = (int)min((long long)NC, ncols - col0);

  for (int e = tid; e < NB * NC; e += NT) {
    const int i = e % NB, cc = e / NB;
    Bs[cc * S::ldb + i] = (cc < nc && i < jb) ? B[size_t(i) + size_t(col0 + cc) * ldb] : T(0);
  }
  __syncthreads();

  const int c = tid % NC, g = tid / NC;
  T x[R];
#pragma unroll
  for (int r = 0; r < R; ++r) x[r] = Bs[c * S::ldb + g + RG * r];

  // Step k = r*RG + g2: x_k lives in register r of row group g2. Steps k >= jb-1 change nothing.
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (r * RG >= jb - 1) break;  // uniform over the block
    if ((r * RG) % KC == 0) {
      // Next chunk of L's columns; the previous chunk's last reads are behind this barrier.
      const int k0 = r * RG;
      __syncthreads();
      for (int e = tid; e < NB * KC; e += NT) {
        const int i = e % NB, kk = e / NB;
        Ls[e] = (i > k0 + kk && i < jb) ? L[size_t(i) + size_t(k0 + kk) * ldl] : T(0);
      }
      __syncthreads();
    }
    for (int g2 = 0; g2 < RG; ++g2) {
      const int k = r * RG + g2;
      if (k >= jb - 1) break;  // uniform over the block
      if (g == g2) xs[(k & 1) * NC + c] = x[r];
      __syncthreads();
      const T xk = xs[(k & 1) * NC + c];
      const T *Lk = Ls + (k % KC) * NB;
#pragma unroll
      for (int r2 = r; r2 < R; ++r2) {
        const int i = g + RG * r2;
        if (i > k) x[r2] -= Lk[i] * xk;
      }
    }
  }

  __syncthreads();  // every thread's last read of Bs (initial values) is done
#pragma unroll
  for (int r = 0; r < R; ++r) Bs[c * S::ldb + g + RG * r] = x[r];
  __syncthreads();
  for (int e = tid; e < NB * NC; e += NT) {
    const int i = e % NB, cc = e / NB;
    if (cc < nc && i < jb) B[size_t(i) + size_t(col0 + cc) * ldb] = Bs[cc * S::ldb + i];
  }
}

// ---- launchers: launch on `stream`, return the launch's error ----

// getrf_swap_rows over `ncols` columns from A: interchanges k1..k2-1 of ipiv.
template <class T>
cudaError_t launch_getrf_swap_rows(T *A, size_t lda, int ncols, const int *ipiv, int k1, int k2,
                                   cudaStream_t stream) {
  const unsigned blocks = unsigned(ceil_div(ncols, kSwapThreads));
  getrf_swap_rows<T><<<blocks, kSwapThreads, 0, stream>>>(A, lda, ncols, ipiv, k1, k2);
  return cudaGetLastError();
}

// Raises getrf_trsm's dynamic shared memory limit (more than the 48 KB default); per function
// and per device context, so once per device.
template <class T>
cudaError_t prepare_getrf_trsm() {
  static PerDeviceOnce once;
  return once_per_device(once, [] {
    return cudaFuncSetAttribute(getrf_trsm<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(TrsmShape<T>::smem_bytes()));
  });
}

// getrf_trsm over `ncols` columns of B (prepare_getrf_trsm first).
template <class T>
cudaError_t launch_getrf_trsm(const T *L, size_t ldl, T *B, size_t ldb, int jb, int ncols, cudaStream_t stream) {
  using S = TrsmShape<T>;
  getrf_trsm<T><<<unsigned(ceil_div(ncols, S::NC)), S::threads, S::smem_bytes(), stream>>>(L, ldl, B, ldb, jb, ncols);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
