#pragma once
// GEMM kernel family: C = alpha*op(A)*op(B) + beta*C, column-major, any size, any leading
// dimension, any alignment. Shared-memory tiles of op(A) (BM x BK) and op(B) (BK x BN),
// double-buffered with a register prefetch of the next tile; float multiplies with a TM x TN
// register block of C per thread, double on the FP64 tensor cores. Transposes are template parameters so every global load is coalesced
// along the dimension that is contiguous in memory.
#include <cuda_runtime.h>
#include <mma.h>

#include "kernels/gemm_ffma.cuh"

#include <cstddef>
#include <type_traits>

namespace cudrop::kernels {

template <class T, int BM_, int BN_, int BK_, int TM_, int TN_>
struct GemmShape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int threads = (BM / TM) * (BN / TN);
  // Rows of the shared tiles are padded so that the transposed-layout stores (consecutive
  // threads walking k) spread over the banks, while rows stay 16-byte (float4) and 32-byte
  // (DMMA fragment) aligned.
  static constexpr int pad = 4;
  static_assert(BM % TM == 0 && BN % TN == 0, "a thread's register block must tile the block tile");
  static_assert((BM * BK) % threads == 0 && (BN * BK) % threads == 0,
                "each thread must load the same number of A and B tile elements");
};

// Tile table of the double kernel (float has its own kernel, kernels/gemm_ffma.cuh).
template <class T> struct GemmTile;
// 256 threads = 8 warps as 4 (rows) x 2 (cols), each warp 32x32 of C = 4x4 DMMA fragments.
template <> struct GemmTile<double> { using shape = GemmShape<double, 128, 64, 8, 8, 4>; };

// Moves one BM x BK tile of op(A) and one BK x BN tile of op(B) from global memory into
// shared memory through registers, so the next tile's loads overlap the current tile's math.
// Element e of a thread's share is chosen so consecutive threads read consecutive addresses
// whatever the transposes; out-of-range elements read as zero.
template <class T, class S, bool TRANS_A, bool TRANS_B>
struct TileStager {
  static constexpr int BM = S::BM, BN = S::BN, BK = S::BK;
  static constexpr int A_PER_THREAD = BM * BK / S::threads;
  static constexpr int B_PER_THREAD = BN * BK / S::threads;
  T a_next[A_PER_THREAD], b_next[B_PER_THREAD];

  __device__ static void a_coord(int tid, int e, int &i, int &l) {
    const int idx = tid + e * S::threads;
    if (TRANS_A) { l = idx % BK; i = idx / BK; } else { i = idx % BM; l = idx / BM; }
  }
  __device__ static void b_coord(int tid, int e, int &l, int &j) {
    const int idx = tid + e * S::threads;
    if (TRANS_B) { j = idx % BN; l = idx / BN; } else { l = idx % BK; j = idx / BK; }
  }
  __device__ void load(int tid, int row0, int col0, int k0, int m, int n, int k, const T *__restrict__ A,
                       size_t lda, const T *__restrict__ B, size_t ldb) {
#pragma unroll
    for (int e = 0; e < A_PER_THREAD; ++e) {
      int i, l;
      a_coord(tid, e, i, l);
      const int gi = row0 + i, gl = k0 + l;
      const size_t offset = TRANS_A ? size_t(gl) + size_t(gi) * lda : size_t(gi) + size_t(gl) * lda;
      a_next[e] = (gi < m && gl < k) ? A[offset] : T(0);
    }
#pragma unroll
    for (int e = 0; e < B_PER_THREAD; ++e) {
      int l, j;
      b_coord(tid, e, l, j);
      const int gl = k0 + l, gj = col0 + j;
      const size_t offset = TRANS_B ? size_t(gj) + size_t(gl) * ldb : size_t(gl) + size_t(gj) * ldb;
      b_next[e] = (gl < k && gj < n) ? B[offset] : T(0);
    }
  }
  __device__ void store(int tid, T (*As)[BM + S::pad], T (*Bs)[BN + S::pad]) const {
#pragma unroll
    for (int e = 0; e < A_PER_THREAD; ++e) {
      int i, l;
      a_coord(tid, e, i, l);
      As[l][i] = a_next[e];
    }
#pragma unroll
    for (int e = 0; e < B_PER_THREAD; ++e) {
      int l, j;
      b_coord(tid, e, l, j);
      Bs[l][j] = b_next[e];
    }
  }
};

// Double precision on the FP64 tensor cores: each warp owns a 32x32 piece of the block tile
// as 4x4 accumulator fragments of 8x8 and walks k in steps of 4 (DMMA is IEEE FP64 FMA, so
// the result has the accuracy of the FFMA kernel). Same staging as gemm_tiled.
template <class S, bool TRANS_A, bool TRANS_B>
__global__ void __launch_bounds__(S::threads)
gemm_dmma(int m, int n, int k, double alpha, const double *__restrict__ A, size_t lda,
          const double *__restrict__ B, size_t ldb, double beta, double *__restrict__ C, size_t ldc) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  // No FP64 tensor cores before sm_80 (cudrop does not build for those by default): fail
  // the launch loudly, which sends the call to the CPU, rather than return a wrong C.
  __trap();
#else
  using namespace nvcuda;
  constexpr int BM = S::BM, BN = S::BN, BK = S::BK;
  constexpr int WARP_M = 32, WARP_N = 32, FM = WARP_M / 8, FN = WARP_N / 8;
  constexpr int WARPS_M = BM / WARP_M;
  static_assert(S::threads == 32 * (BM / WARP_M) * (BN / WARP_N), "one warp per 32x32 piece of the tile");
  static_assert(BK % 4 == 0 && (BM + S::pad) % 4 == 0 && (BN + S::pad) % 4 == 0,
                "fragment loads need 32-byte aligned rows");
  __shared__ __align__(32) double As[2][BK][BM + S::pad];
  __shared__ __align__(32) double Bs[2][BK][BN + S::pad];
  __shared__ __align__(32) double scratch[S::threads / 32][8 * 8];

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int row0 = blockIdx.x * BM, col0 = blockIdx.y * BN;
  const int warp_row = (warp % WARPS_M) * WARP_M, warp_col = (warp / WARPS_M) * WARP_N;
  TileStager<double, S, TRANS_A, TRANS_B> stager;

  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[FM][FN];
#pragma unroll
  for (int a = 0; a < FM; ++a)
#pragma unroll
    for (int b = 0; b < FN; ++b) wmma::fill_fragment(acc[a][b], 0.0);

  const int tiles = (k + BK - 1) / BK;
  if (tiles > 0) {
    stager.load(tid, row0, col0, 0, m, n, k, A, lda, B, ldb);
    stager.store(tid, As[0], Bs[0]);
    __syncthreads();
  }
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    if (t + 1 < tiles) stager.load(tid, row0, col0, (t + 1) * BK, m, n, k, A, lda, B, ldb);
#pragma unroll
    for (int l = 0; l < BK; l += 4) {
      // As[l][i] holds op(A)(i, l): an 8x4 piece is column-major with ld BM+pad; Bs[l][j]
      // holds op(B)(l, j): a 4x8 piece is row-major with ld BN+pad.
      wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> a_frag[FM];
      wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> b_frag[FN];
#pragma unroll
      for (int a = 0; a < FM; ++a) wmma::load_matrix_sync(a_frag[a], &As[buf][l][warp_row + 8 * a], BM + S::pad);
#pragma unroll
      for (int b = 0; b < FN; ++b) wmma::load_matrix_sync(b_frag[b], &Bs[buf][l][warp_col + 8 * b], BN + S::pad);
#pragma unroll
      for (int a = 0; a < FM; ++a)
#pragma unroll
        for (int b = 0; b < FN; ++b) wmma::mma_sync(acc[a][b], a_frag[a], b_frag[b], acc[a][b]);
    }
    if (t + 1 < tiles) stager.store(tid, As[buf ^ 1], Bs[buf ^ 1]);
    __syncthreads();
  }

  // Fragments go through a per-warp 8x8 scratch so the alpha/beta update and the bounds
  // checks are per element; beta == 0 never reads C.
  const bool read_c = beta != 0.0;
  double *mine = scratch[warp];
#pragma unroll
  for (int a = 0; a < FM; ++a)
#pragma unroll
    for (int b = 0; b < FN; ++b) {
      wmma::store_matrix_sync(mine, acc[a][b], 8, wmma::mem_col_major);
      __syncwarp();
#pragma unroll
      for (int e = lane; e < 64; e += 32) {
        const int gi = row0 + warp_row + 8 * a + e % 8, gj = col0 + warp_col + 8 * b + e / 8;
        if (gi < m && gj < n) {
          double *p = C + size_t(gi) + size_t(gj) * ldc;
          const double value = alpha * mine[e];
          *p = read_c ? value + beta * *p : value;
        }
      }
      __syncwarp();
    }
#endif
}

// Picks the tile for T and the instantiation for the transposes; launches on `stream`.
template <class T>
cudaError_t launch_gemm_tiled(bool trans_a, bool trans_b, int m, int n, int k, T alpha,
                              const T *A, size_t lda, const T *B, size_t ldb, T beta, T *C,
                              size_t ldc, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float>) {
    return launch_gemm_ffma(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  } else {
  using S = typename GemmTile<T>::shape;
  const unsigned grid_rows = (unsigned(m) + S::BM - 1) / S::BM;
  // gridDim.y is limited to 65535: very wide products are launched in column slabs.
  constexpr int kMaxSlabCols = 65535 * S::BN;
  const dim3 block(S::threads);
  for (long long col = 0; col < n; col += kMaxSlabCols) {
    const int cols = static_cast<int>(n - col < kMaxSlabCols ? n - col : kMaxSlabCols);
    const dim3 grid(grid_rows, (unsigned(cols) + S::BN - 1) / S::BN);
    const T *B_slab = B + (trans_b ? size_t(col) : size_t(col) * ldb);
    T *C_slab = C + size_t(col) * ldc;
    if (!trans_a && !trans_b)
      gemm_dmma<S, false, false><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
    else if (!trans_a && trans_b)
      gemm_dmma<S, false, true><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
    else if (trans_a && !trans_b)
      gemm_dmma<S, true, false><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
    else
      gemm_dmma<S, true, true><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
  }
  return cudaGetLastError();
  }
}

}  // namespace cudrop::kernels
