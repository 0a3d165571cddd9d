#pragma once
// GEMM kernel family: C = alpha*op(A)*op(B) + beta*C, column-major, any size, any leading
// dimension, any alignment. Shared-memory tiles of op(A) (BM x BK) and op(B) (BK x BN),
// double-buffered with a register prefetch of the next tile, and a TM x TN register block
// of C per thread. Transposes are template parameters so every global load is coalesced
// along the dimension that is contiguous in memory.
#include <cuda_runtime.h>

#include <cstddef>

namespace cudrop::kernels {

template <class T, int BM_, int BN_, int BK_, int TM_, int TN_>
struct GemmShape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int threads = (BM / TM) * (BN / TN);
  // Rows of the shared tiles are padded so that the transposed-layout stores (consecutive
  // threads walking k) land in distinct banks, while rows stay 16-byte aligned.
  static constexpr int pad = 16 / sizeof(T);
  static_assert(BM % TM == 0 && BN % TN == 0, "a thread's register block must tile the block tile");
  static_assert((BM * BK) % threads == 0 && (BN * BK) % threads == 0,
                "each thread must load the same number of A and B tile elements");
};

// Tile tables per precision (tuning is data, the kernel owns no policy).
template <class T> struct GemmTile;
template <> struct GemmTile<float> { using shape = GemmShape<float, 128, 128, 8, 8, 8>; };
template <> struct GemmTile<double> { using shape = GemmShape<double, 64, 64, 8, 4, 4>; };

template <class T, class S, bool TRANS_A, bool TRANS_B>
__global__ void __launch_bounds__(S::threads)
gemm_tiled(int m, int n, int k, T alpha, const T *__restrict__ A, size_t lda,
           const T *__restrict__ B, size_t ldb, T beta, T *__restrict__ C, size_t ldc) {
  constexpr int BM = S::BM, BN = S::BN, BK = S::BK, TM = S::TM, TN = S::TN;
  constexpr int A_PER_THREAD = BM * BK / S::threads;
  constexpr int B_PER_THREAD = BN * BK / S::threads;
  __shared__ __align__(16) T As[2][BK][BM + S::pad];
  __shared__ __align__(16) T Bs[2][BK][BN + S::pad];

  const int tid = threadIdx.x;
  const int row0 = blockIdx.x * BM;
  const int col0 = blockIdx.y * BN;
  // This thread's TM x TN block of C inside the tile.
  const int thread_row = (tid % (BM / TM)) * TM;
  const int thread_col = (tid / (BM / TM)) * TN;

  T a_next[A_PER_THREAD], b_next[B_PER_THREAD];

  // Element e of this thread's share of a tile: (tile row, tile k) for A, (tile k, tile col)
  // for B, chosen so that consecutive threads read consecutive addresses.
  auto a_coord = [&](int e, int &i, int &l) {
    const int idx = tid + e * S::threads;
    if (TRANS_A) { l = idx % BK; i = idx / BK; } else { i = idx % BM; l = idx / BM; }
  };
  auto b_coord = [&](int e, int &l, int &j) {
    const int idx = tid + e * S::threads;
    if (TRANS_B) { j = idx % BN; l = idx / BN; } else { l = idx % BK; j = idx / BK; }
  };
  auto load_tiles = [&](int k0) {
#pragma unroll
    for (int e = 0; e < A_PER_THREAD; ++e) {
      int i, l;
      a_coord(e, i, l);
      const int gi = row0 + i, gl = k0 + l;
      const bool inside = gi < m && gl < k;
      const size_t offset = TRANS_A ? size_t(gl) + size_t(gi) * lda : size_t(gi) + size_t(gl) * lda;
      a_next[e] = inside ? A[offset] : T(0);
    }
#pragma unroll
    for (int e = 0; e < B_PER_THREAD; ++e) {
      int l, j;
      b_coord(e, l, j);
      const int gl = k0 + l, gj = col0 + j;
      const bool inside = gl < k && gj < n;
      const size_t offset = TRANS_B ? size_t(gj) + size_t(gl) * ldb : size_t(gl) + size_t(gj) * ldb;
      b_next[e] = inside ? B[offset] : T(0);
    }
  };
  auto store_tiles = [&](int buf) {
#pragma unroll
    for (int e = 0; e < A_PER_THREAD; ++e) {
      int i, l;
      a_coord(e, i, l);
      As[buf][l][i] = a_next[e];
    }
#pragma unroll
    for (int e = 0; e < B_PER_THREAD; ++e) {
      int l, j;
      b_coord(e, l, j);
      Bs[buf][l][j] = b_next[e];
    }
  };

  T acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = T(0);

  const int tiles = (k + BK - 1) / BK;
  if (tiles > 0) {
    load_tiles(0);
    store_tiles(0);
    __syncthreads();
  }
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    // Fetch the next tile into registers while this one is multiplied from shared memory.
    if (t + 1 < tiles) load_tiles((t + 1) * BK);
#pragma unroll
    for (int l = 0; l < BK; ++l) {
      T a_frag[TM], b_frag[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) a_frag[r] = As[buf][l][thread_row + r];
#pragma unroll
      for (int c = 0; c < TN; ++c) b_frag[c] = Bs[buf][l][thread_col + c];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] += a_frag[r] * b_frag[c];
    }
    // The other buffer was last read before the previous barrier, so it is free to fill.
    if (t + 1 < tiles) store_tiles(buf ^ 1);
    __syncthreads();
  }

  // beta == 0 means C is output only: it is never read (a NaN there must not survive).
  const bool read_c = beta != T(0);
#pragma unroll
  for (int c = 0; c < TN; ++c) {
    const int gj = col0 + thread_col + c;
    if (gj >= n) continue;
#pragma unroll
    for (int r = 0; r < TM; ++r) {
      const int gi = row0 + thread_row + r;
      if (gi >= m) continue;
      T *p = C + size_t(gi) + size_t(gj) * ldc;
      const T value = alpha * acc[r][c];
      *p = read_c ? value + beta * *p : value;
    }
  }
}

// Picks the tile for T and the instantiation for the transposes; launches on `stream`.
template <class T>
cudaError_t launch_gemm_tiled(bool trans_a, bool trans_b, int m, int n, int k, T alpha,
                              const T *A, size_t lda, const T *B, size_t ldb, T beta, T *C,
                              size_t ldc, cudaStream_t stream) {
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
      gemm_tiled<T, S, false, false><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
    else if (!trans_a && trans_b)
      gemm_tiled<T, S, false, true><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
    else if (trans_a && !trans_b)
      gemm_tiled<T, S, true, false><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
    else
      gemm_tiled<T, S, true, true><<<grid, block, 0, stream>>>(m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc);
  }
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
