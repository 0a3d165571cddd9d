#pragma once
// Single-precision GEMM on the FP32 pipes (no TF32: the netlib thresholds forbid it).
// C = alpha*op(A)*op(B) + beta*C, column-major, any size, leading dimension and alignment.
//
// Block tile 128x128, k in steps of 16, 256 threads each owning an 8x8 piece of C. Tiles of
// op(A) and op(B) reach shared memory through a multi-stage cp.async pipeline, one 4-byte
// copy per element: consecutive threads read consecutive global addresses whichever
// dimension is contiguous (so every transpose and every alignment is coalesced), and the
// copy lands directly in the k-major layout the multiply wants. Out-of-range elements are
// zero-filled by the copy itself (src-size 0), so borders need no separate code path.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cp_async.cuh"
#include "kernels/gemm_part.cuh"

namespace cudrop::kernels {

// BN = 128: each thread owns 8x8 of C (two blocks per SM); BN = 256: 8x16 (one block per
// SM, a third fewer shared-memory reads per multiply-add). Measured on the H100 (NN 8192):
// 44.6 vs 44.0 TFLOPS, so the shared-memory reads are not what limits the kernel; 128 stays.
template <int BK_ = 16, int STAGES_ = 4, int BN_ = 128>
struct FfmaShapeT {
  static constexpr int BM = 128, BN = BN_, BK = BK_, threads = 256, stages = STAGES_;
  static constexpr int TM = 8, TN = BN / 16;  // a thread's piece of C
  static constexpr int blocks_per_sm = BN == 128 ? 2 : 1;
  // Row pad of the k-major shared tiles: keeps rows 16-byte aligned for the float4 reads
  // and spreads the transposing writes (consecutive threads walking k) over the banks.
  static constexpr int pad = 4;
  static constexpr int row_a = BM + pad, row_b = BN + pad;
  static constexpr size_t stage_floats = size_t(BK) * (row_a + row_b);
  static constexpr size_t smem_bytes = stages * stage_floats * sizeof(float);
};
using FfmaShape = FfmaShapeT<>;

__device__ __forceinline__ void cp_async_f32(float *smem, const float *global, bool valid) {
  async_copy::to_shared<4>(async_copy::shared_address(smem), global, valid ? 4 : 0);
}
using async_copy::commit;
using async_copy::wait;

// One operand's share of a BK x 128 tile per thread. The tile holds op(X)(i, l) for 128
// values of i (rows of op(A) or columns of op(B)) and BK values of l (the k index), stored
// shared[l][i]. ALONG_I: X's contiguous dimension is i (A not transposed, B transposed);
// otherwise it is l. Either way element e of a thread is base + e*step in global memory.
template <class S, int TILE, bool ALONG_I>
struct OperandLoader {
  static constexpr int BK = S::BK, threads = S::threads, ROW = TILE + S::pad;
  static constexpr int per_thread = TILE * BK / threads;              // 8
  static constexpr int fixed_span = ALONG_I ? TILE : BK;               // threads along the contiguous dim
  static constexpr int moving_stride = threads / fixed_span;           // spacing of e in the other dim
  const float *ptr;      // element 0 of this thread at the current k tile
  size_t step;           // global distance between this thread's elements
  size_t tile_advance;   // global distance from one k tile to the next
  int i0, l0;            // element 0 position in the tile
  int i_limit, l_limit;  // valid while i < i_limit and l < l_limit (relative to the tile)

  __device__ OperandLoader(const float *X, size_t ld, int first, int extent, int k, int tid) {
    if (ALONG_I) {
      i0 = tid % TILE;
      l0 = tid / TILE;
      ptr = X + size_t(first + i0) + size_t(l0) * ld;
      step = size_t(moving_stride) * ld;
      tile_advance = size_t(BK) * ld;
    } else {
      l0 = tid % BK;
      i0 = tid / BK;
      ptr = X + size_t(l0) + size_t(first + i0) * ld;
      step = size_t(moving_stride) * ld;
      tile_advance = BK;
    }
    i_limit = extent - first;
    l_limit = k;
  }

  // Copies the tile at k offset k0 into shared[BK][row]; `fallback` is any valid address.
  __device__ void issue(float *shared, int k0, const float *fallback) const {
#pragma unroll
    for (int e = 0; e < per_thread; ++e) {
      const int i = ALONG_I ? i0 : i0 + e * moving_stride;
      const int l = ALONG_I ? l0 + e * moving_stride : l0;
      const bool valid = i < i_limit && k0 + l < l_limit;
      cp_async_f32(shared + l * ROW + i, valid ? ptr + e * step : fallback, valid);
    }
  }
};

template <bool TRANS_A, bool TRANS_B, class S = FfmaShape>
__global__ void __launch_bounds__(S::threads, S::blocks_per_sm)
gemm_ffma(int m, int n, int k, float alpha, const float *__restrict__ A, size_t lda,
          const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C, size_t ldc,
          GemmPart part) {
  if (part.skips((long long)blockIdx.x * S::BM, S::BM, (long long)blockIdx.y * S::BN)) return;
  constexpr int BK = S::BK, STAGES = S::stages, TM = S::TM, TN = S::TN;
  extern __shared__ __align__(16) float smem[];
  auto a_stage = [&](int s) { return smem + s * S::stage_floats; };
  auto b_stage = [&](int s) { return smem + s * S::stage_floats + BK * S::row_a; };

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int row0 = blockIdx.x * S::BM, col0 = blockIdx.y * S::BN;
  // 8 warps as 2 (rows) x 4 (cols), each 64 x BN/4 of C; a lane owns rows {r, r+32} + 0..3
  // and columns {c, c+16, ...} + 0..3 of its warp's piece, so a warp's float4 reads of one k
  // row of the A tile cover 128 contiguous bytes and of the B tile 64 (conflict-free, broadcast).
  const int thread_row = (warp % 2) * 64 + (lane % 8) * 4;
  const int thread_col = (warp / 2) * (S::BN / 4) + (lane / 8) * 4;

  OperandLoader<S, S::BM, !TRANS_A> a_load(A, lda, row0, m, k, tid);
  OperandLoader<S, S::BN, TRANS_B> b_load(B, ldb, col0, n, k, tid);

  float acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0.f;

  const int tiles = (k + BK - 1) / BK;
  // Prologue: the first STAGES-1 tiles in flight. A commit per stage even when there is no
  // tile keeps the group count uniform, so wait_group<STAGES-2> always means "tile t landed".
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) {
      a_load.issue(a_stage(s), s * BK, A);
      b_load.issue(b_stage(s), s * BK, B);
      a_load.ptr += a_load.tile_advance;
      b_load.ptr += b_load.tile_advance;
    }
    commit();
  }

  for (int t = 0; t < tiles; ++t) {
    wait<STAGES - 2>();
    __syncthreads();
    // The stage refilled now was read in iteration t-1, which every thread has finished.
    const int next = t + STAGES - 1;
    if (next < tiles) {
      a_load.issue(a_stage(next % STAGES), next * BK, A);
      b_load.issue(b_stage(next % STAGES), next * BK, B);
      a_load.ptr += a_load.tile_advance;
      b_load.ptr += b_load.tile_advance;
    }
    commit();

    const float *As = a_stage(t % STAGES), *Bs = b_stage(t % STAGES);
#pragma unroll
    for (int l = 0; l < BK; ++l) {
      float a[TM], b[TN];
#pragma unroll
      for (int g = 0; g < TM / 4; ++g) {
        const float4 v = *reinterpret_cast<const float4 *>(As + l * S::row_a + thread_row + 32 * g);
        a[4 * g] = v.x, a[4 * g + 1] = v.y, a[4 * g + 2] = v.z, a[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < TN / 4; ++g) {
        const float4 v = *reinterpret_cast<const float4 *>(Bs + l * S::row_b + thread_col + 16 * g);
        b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
    }
  }
  wait<0>();

  // beta == 0 means C is output only: it is never read (a NaN there must not survive).
  // C is read a few columns at a time, every load issued before the first store (the compiler
  // may not move a load of C above a store to C, so load-update-store per element would pay
  // one memory latency per element).
  const bool read_c = beta != 0.f;
  constexpr int C_CHUNK = 2;  // columns per chunk: 2 * TM registers
  static_assert(TN % C_CHUNK == 0, "whole chunks");
#pragma unroll
  for (int c0 = 0; c0 < TN; c0 += C_CHUNK) {
    float old_c[C_CHUNK][TM];
#pragma unroll
    for (int q = 0; q < C_CHUNK; ++q) {
      const int c = c0 + q, gj = col0 + thread_col + (c / 4) * 16 + c % 4;
#pragma unroll
      for (int r = 0; r < TM; ++r) {
        const int gi = row0 + thread_row + (r / 4) * 32 + r % 4;
        old_c[q][r] = read_c && gj < n && gi < m ? C[size_t(gi) + size_t(gj) * ldc] : 0.f;
      }
    }
#pragma unroll
    for (int q = 0; q < C_CHUNK; ++q) {
      const int c = c0 + q, gj = col0 + thread_col + (c / 4) * 16 + c % 4;
      if (gj >= n) continue;
#pragma unroll
      for (int r = 0; r < TM; ++r) {
        const int gi = row0 + thread_row + (r / 4) * 32 + r % 4;
        if (gi >= m) continue;
        const float value = alpha * acc[r][c];
        C[size_t(gi) + size_t(gj) * ldc] = read_c ? value + beta * old_c[q][r] : value;
      }
    }
  }
}

// Enables the dynamic shared memory the pipeline needs (more than the 48 KB default) once
// per instantiation; cudaFuncSetAttribute is per function and per device context.
template <bool TRANS_A, bool TRANS_B>
cudaError_t prepare_gemm_ffma() {
  static const cudaError_t status = cudaFuncSetAttribute(
      gemm_ffma<TRANS_A, TRANS_B>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(FfmaShape::smem_bytes));
  return status;
}

template <bool TRANS_A, bool TRANS_B>
cudaError_t launch_gemm_ffma_t(dim3 grid, int m, int n, int k, float alpha, const float *A, size_t lda,
                               const float *B, size_t ldb, float beta, float *C, size_t ldc,
                               GemmPart part, cudaStream_t stream) {
  const cudaError_t prepared = prepare_gemm_ffma<TRANS_A, TRANS_B>();
  if (prepared != cudaSuccess) return prepared;
  gemm_ffma<TRANS_A, TRANS_B><<<grid, FfmaShape::threads, FfmaShape::smem_bytes, stream>>>(
      m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, part);
  return cudaGetLastError();
}

inline cudaError_t launch_gemm_ffma(bool trans_a, bool trans_b, int m, int n, int k, float alpha,
                                    const float *A, size_t lda, const float *B, size_t ldb, float beta,
                                    float *C, size_t ldc, cudaStream_t stream, bool lower_only = false) {
  using S = FfmaShape;
  if (m <= 0 || n <= 0) return cudaSuccess;  // nothing to compute (and no empty grid to launch)
  const unsigned grid_rows = (unsigned(m) + S::BM - 1) / S::BM;
  return for_each_column_slab<S::BN>(n, trans_b, B, ldb, C, ldc, [&](long long col, int cols, const float *B_slab,
                                                                    float *C_slab) {
    const dim3 grid(grid_rows, (unsigned(cols) + S::BN - 1) / S::BN);
    const GemmPart part{lower_only, col};
    if (!trans_a && !trans_b)
      return launch_gemm_ffma_t<false, false>(grid, m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc, part, stream);
    if (!trans_a && trans_b)
      return launch_gemm_ffma_t<false, true>(grid, m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc, part, stream);
    if (trans_a && !trans_b)
      return launch_gemm_ffma_t<true, false>(grid, m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc, part, stream);
    return launch_gemm_ffma_t<true, true>(grid, m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc, part, stream);
  });
}

}  // namespace cudrop::kernels
