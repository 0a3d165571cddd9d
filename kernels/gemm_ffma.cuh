#pragma once
// Single-precision GEMM on the FP32 pipes (no TF32: the netlib thresholds forbid it).
// C = alpha*op(A)*op(B) + beta*C, column-major, any size, leading dimension and alignment.
//
// Block tile 128x128, k in steps of 32 (sm_90) or 16, 256 threads each owning an 8x8 piece
// of C. Tiles of op(A) and op(B) reach shared memory through a multi-stage cp.async
// pipeline: consecutive threads read consecutive global addresses whichever dimension is
// contiguous (so every transpose and every alignment is coalesced), and the copies land
// directly in the k-major layout the multiply wants. An operand along the tile's 128 that is
// 16-byte aligned takes 16-byte copies, the rest 4-byte ones.
//
// The kernel is bound by instruction issue: every slot not spent on an FFMA is lost. So
// tiles that lie wholly inside the matrices (nearly all of them) are copied without
// predicates, one multiply-add per address; only border tiles test each element, and their
// out-of-range elements are zero-filled by the copy itself (src-size 0). Predicates and
// addresses per element in every tile would make a much larger share of the issued
// instructions non-FFMA than in cuBLAS's kernel (docs/perf/README.md, FFMA kernel).
#include "kernels/per_device_once.cuh"
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/tuning.h"
#include "kernels/cp_async.cuh"
#include "kernels/gemm_part.cuh"

namespace cudrop::kernels {

// BN = 128: each thread owns 8x8 of C (two blocks per SM); BN = 256: 8x16 (one block per
// SM, a third fewer shared-memory reads per multiply-add). 256 is no faster, so the
// shared-memory reads are not what limits the kernel; 128 stays
// (docs/perf/README.md, FFMA kernel).
template <int BK_ = 16, int STAGES_ = 4, int BN_ = 128>
struct FfmaShapeT {
  static constexpr int BM = 128, BN = BN_, BK = BK_, threads = 256, stages = STAGES_;
  static constexpr int TM = 8, TN = BN / 16;  // a thread's piece of C
  static constexpr int blocks_per_sm = BN == 128 ? 2 : 1;
  // Row pad of the k-major shared tiles: keeps rows 16-byte aligned for the float4 reads
  // and puts the 8 k rows a warp writes at once (operands along k) 4 banks apart.
  static constexpr int pad = 4;
  static constexpr int row_a = BM + pad, row_b = BN + pad;
  static constexpr size_t stage_floats = size_t(BK) * (row_a + row_b);
  static constexpr size_t smem_bytes = stages * stage_floats * sizeof(float);
};
// k steps of 32 in 3 stages halve the barriers and the per-tile work of k 16 and are faster
// for every transpose (docs/perf/README.md, FFMA kernel), but two such blocks need
// 2 x 99 KB of shared memory per SM: only sm_90 has it. Other GPUs run k 16 in 4 stages (66 KB).
// The caller knows the device: it says which shape (ffma_deep_fits).
using FfmaShapeDeep = FfmaShapeT<tuning::compiled::kFfmaDeepBK, tuning::compiled::kFfmaDeepStages>;
using FfmaShape = FfmaShapeT<tuning::compiled::kFfmaBK, tuning::compiled::kFfmaStages>;

// Whether a device holds two blocks of the deep shape per SM, from its opt-in shared memory
// per block, shared memory per SM and the system's reservation per block.
constexpr bool ffma_deep_fits(size_t per_block_optin, size_t per_sm, size_t reserved_per_block) {
  return per_block_optin >= FfmaShapeDeep::smem_bytes && per_sm >= 2 * (FfmaShapeDeep::smem_bytes + reserved_per_block);
}

using async_copy::commit;
using async_copy::wait;

// One operand's share of a BK x 128 tile per thread. The tile holds op(X)(i, l) for 128
// values of i (rows of op(A) or columns of op(B)) and BK values of l (the k index), stored
// shared[l][i]. ALONG_I: X's contiguous dimension is i (A not transposed, B transposed);
// otherwise it is l. Either way consecutive threads read consecutive global addresses:
// - ALONG_I: a thread's elements come in runs along i (4 long with VEC, i.e. X 16-byte
//   aligned with ld a multiple of 4: one 16-byte copy per run; else 1 long), runs `moving`
//   apart in l.
// - not ALONG_I: a warp takes 8 consecutive l of 4 consecutive i, so one copy instruction
//   reads four whole 32-byte sectors and writes 32 distinct banks (a warp walking 16 l of
//   one column would write each bank twice). A thread's elements are 8 apart in l and 32
//   apart in i: one address per 32-column group, the rest immediate offsets.
// Element e lies at ptr + contiguous(e) + group(e) * (global distance between groups).
template <class S, int TILE, bool ALONG_I, bool VEC>
struct OperandLoader {
  static_assert(ALONG_I || !VEC, "16-byte runs need i to be the contiguous dimension");
  static_assert(ALONG_I || (TILE == 128 && S::threads == 256 && S::BK % 8 == 0), "the l-contiguous layout");
  static constexpr int BK = S::BK, threads = S::threads, ROW = TILE + S::pad;
  static constexpr int per_thread = TILE * BK / threads;
  static constexpr int run = VEC ? 4 : 1;                 // ALONG_I: elements per run
  static constexpr int span = TILE / run;                 // ALONG_I: threads along i
  static constexpr int moving = threads / span;           // ALONG_I: l distance between runs
  static constexpr int l_parts = BK / 8;                  // not ALONG_I: elements per column
  static constexpr int groups = ALONG_I ? per_thread / run : per_thread / l_parts;
  __host__ __device__ static constexpr int group_of(int e) { return ALONG_I ? e / run : e / l_parts; }
  __host__ __device__ static constexpr int contiguous(int e) { return ALONG_I ? e % run : 8 * (e % l_parts); }
  __host__ __device__ static constexpr int di(int e) { return ALONG_I ? e % run : 32 * (e / l_parts); }
  __host__ __device__ static constexpr int dl(int e) { return ALONG_I ? (e / run) * moving : 8 * (e % l_parts); }
  __host__ __device__ static constexpr int shared_offset(int e) { return dl(e) * ROW + di(e); }

  const float *ptr;      // element 0 of this thread at the current k tile
  unsigned step;         // global distance between groups (used only when `interior`)
  size_t wide_step;      // the same, for tiles at the border
  size_t tile_advance;   // global distance from one k tile to the next
  int i0, l0;            // element 0 position in the tile
  int i_limit, l_limit;  // valid while i < i_limit and l < l_limit (relative to the tile)
  bool interior;         // every i of the tile is inside X, and step fits in 32 bits

  __device__ OperandLoader(const float *X, size_t ld, int first, int extent, int k, int tid) {
    if (ALONG_I) {
      i0 = (tid % span) * run;
      l0 = tid / span;
      ptr = X + size_t(first + i0) + size_t(l0) * ld;
      wide_step = size_t(moving) * ld;
      tile_advance = size_t(BK) * ld;
    } else {
      l0 = tid % 8;
      i0 = (tid / 8) % 4 + 4 * (tid / 32);
      ptr = X + size_t(l0) + size_t(first + i0) * ld;
      wide_step = 32 * ld;
      tile_advance = BK;
    }
    step = static_cast<unsigned>(wide_step);
    i_limit = extent - first;
    l_limit = k;
    interior = i_limit >= TILE && wide_step <= 0xffffffffu;
  }

  // Copies the tile at k offset k0 (< k) into shared[BK][row]; `fallback` is any valid address.
  // The k tests compare against l_limit - k0 (in 1..k): k0 + BK may pass INT_MAX.
  __device__ void issue(float *shared, int k0, const float *fallback) const {
    const unsigned dst = async_copy::shared_address(shared + l0 * ROW + i0);
    const int k_left = l_limit - k0;
    if (interior && k_left >= BK) {
      // No element can be outside X: no predicates, one multiply-add per group's address.
#pragma unroll
      for (int g = 0; g < groups; ++g) {
        const float *source = ptr + size_t(step) * g;
        if constexpr (VEC) {
          async_copy::to_shared_whole<16>(dst + 4u * shared_offset(g * run), source);
        } else {
#pragma unroll
          for (int e = 0; e < per_thread; ++e)
            if (group_of(e) == g) async_copy::to_shared_whole<4>(dst + 4u * shared_offset(e), source + contiguous(e));
        }
      }
      return;
    }
#pragma unroll
    for (int e = 0; e < per_thread; ++e) {
      const bool valid = i0 + di(e) < i_limit && l0 + dl(e) < k_left;
      const float *source = ptr + contiguous(e) + group_of(e) * wide_step;
      async_copy::to_shared<4>(dst + 4u * shared_offset(e), valid ? source : fallback, valid ? 4 : 0);
    }
  }
};

// VEC_A / VEC_B: the operand runs along i (A not transposed, B transposed) and is 16-byte
// loadable (16-byte aligned, leading dimension a multiple of 4), so its copies are 16 bytes.
template <bool TRANS_A, bool TRANS_B, bool VEC_A = false, bool VEC_B = false, class S = FfmaShape>
__global__ void __launch_bounds__(S::threads, S::blocks_per_sm)
gemm_ffma(int m, int n, int k, float alpha, const float *__restrict__ A, size_t lda,
          const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C, size_t ldc,
          GemmPart part, int raster_group) {
  // Blocks start in launch order (x fastest). With raster_group > 0, consecutive blocks walk
  // groups of raster_group tile rows column by column, so the blocks resident at one time
  // share fewer rows of A and columns of B and more of their reads hit L2.
  int tile_row = blockIdx.x, tile_col = blockIdx.y;
  if (raster_group > 0) {
    const int rows = gridDim.x, per_group = raster_group * gridDim.y;
    const long long id = blockIdx.x + (long long)blockIdx.y * rows;
    const int group_first = int(id / per_group) * raster_group;
    const int group_rows = min(rows - group_first, raster_group);
    const int in_group = int(id % per_group);
    tile_row = group_first + in_group % group_rows;
    tile_col = in_group / group_rows;
  }
  if (part.skips((long long)tile_row * S::BM, S::BM, (long long)tile_col * S::BN, S::BN)) return;
  const bool masked = part.crosses((long long)tile_row * S::BM, S::BM, (long long)tile_col * S::BN, S::BN);
  constexpr int BK = S::BK, STAGES = S::stages, TM = S::TM, TN = S::TN;
  extern __shared__ __align__(16) float smem[];
  auto a_stage = [&](int s) { return smem + s * S::stage_floats; };
  auto b_stage = [&](int s) { return smem + s * S::stage_floats + BK * S::row_a; };

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int row0 = tile_row * S::BM, col0 = tile_col * S::BN;
  // 8 warps as 2 (rows) x 4 (cols), each 64 x BN/4 of C; a lane owns rows {r, r+32} + 0..3
  // and columns {c, c+16, ...} + 0..3 of its warp's piece, so a warp's float4 reads of one k
  // row of the A tile cover 128 contiguous bytes and of the B tile 64 (conflict-free, broadcast).
  const int thread_row = (warp % 2) * 64 + (lane % 8) * 4;
  const int thread_col = (warp / 2) * (S::BN / 4) + (lane / 8) * 4;

  OperandLoader<S, S::BM, !TRANS_A, VEC_A> a_load(A, lda, row0, m, k, tid);
  OperandLoader<S, S::BN, TRANS_B, VEC_B> b_load(B, ldb, col0, n, k, tid);

  float acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0.f;

  // The k tiles this tile of C multiplies: all of them, or (a triangular operand, part.zeros)
  // those where it can be nonzero. k + BK - 1 may pass INT_MAX.
  long long k_begin = 0, k_end = k;
  part.k_range(row0, S::BM, col0, S::BN, k, &k_begin, &k_end);
  const int first_tile = int(k_begin / BK), tiles = int((k_end + (BK - 1LL)) / BK) - first_tile;
  a_load.ptr += size_t(first_tile) * a_load.tile_advance;
  b_load.ptr += size_t(first_tile) * b_load.tile_advance;
  // Prologue: the first STAGES-1 tiles in flight. A commit per stage even when there is no
  // tile keeps the group count uniform, so wait_group<STAGES-2> always means "tile t landed".
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) {
      a_load.issue(a_stage(s), (first_tile + s) * BK, A);
      b_load.issue(b_stage(s), (first_tile + s) * BK, B);
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
      a_load.issue(a_stage(next % STAGES), (first_tile + next) * BK, A);
      b_load.issue(b_stage(next % STAGES), (first_tile + next) * BK, B);
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
    int diagonal[C_CHUNK];  // each column's diagonal row (core/gemm_part.h), -1 unmasked
#pragma unroll
    for (int q = 0; q < C_CHUNK; ++q) {
      const int c = c0 + q, gj = col0 + thread_col + (c / 4) * 16 + c % 4;
      diagonal[q] = part.diagonal_row(masked, gj);
#pragma unroll
      for (int r = 0; r < TM; ++r) {
        const int gi = row0 + thread_row + (r / 4) * 32 + r % 4;
        const bool stored = gj < n && gi < m && part.row_in(diagonal[q], gi);
        old_c[q][r] = read_c && stored ? C[size_t(gi) + size_t(gj) * ldc] : 0.f;
      }
    }
#pragma unroll
    for (int q = 0; q < C_CHUNK; ++q) {
      const int c = c0 + q, gj = col0 + thread_col + (c / 4) * 16 + c % 4;
      if (gj >= n) continue;
#pragma unroll
      for (int r = 0; r < TM; ++r) {
        const int gi = row0 + thread_row + (r / 4) * 32 + r % 4;
        if (gi >= m || !part.row_in(diagonal[q], gi)) continue;
        const float value = alpha * acc[r][c];
        C[size_t(gi) + size_t(gj) * ldc] =
            part.row_zeroed(diagonal[q], gi) ? 0.f : read_c ? value + beta * old_c[q][r] : value;
      }
    }
  }
}

// Enables the dynamic shared memory the pipeline needs (more than the 48 KB default) once
// per instantiation and device; cudaFuncSetAttribute is per function and per device context.
template <bool TRANS_A, bool TRANS_B, bool VEC_A, bool VEC_B, class S>
cudaError_t prepare_gemm_ffma() {
  static PerDeviceOnce once;
  return once_per_device(once, [] {
    return cudaFuncSetAttribute(gemm_ffma<TRANS_A, TRANS_B, VEC_A, VEC_B, S>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, int(S::smem_bytes));
  });
}

template <bool TRANS_A, bool TRANS_B, bool VEC_A, bool VEC_B, class S>
cudaError_t launch_gemm_ffma_t(dim3 grid, int m, int n, int k, float alpha, const float *A, size_t lda,
                               const float *B, size_t ldb, float beta, float *C, size_t ldc,
                               GemmPart part, cudaStream_t stream) {
  const cudaError_t prepared = prepare_gemm_ffma<TRANS_A, TRANS_B, VEC_A, VEC_B, S>();
  if (prepared != cudaSuccess) return prepared;
  gemm_ffma<TRANS_A, TRANS_B, VEC_A, VEC_B, S><<<grid, S::threads, S::smem_bytes, stream>>>(
      m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, part, tuning::compiled::kFfmaRasterGroup);
  return cudaGetLastError();
}

// 16-byte copies need every column (or row) of the operand to start on a 16-byte boundary.
inline bool vector_loadable(const float *X, size_t ld) {
  return reinterpret_cast<uintptr_t>(X) % 16 == 0 && ld % 4 == 0;
}

template <class S>
cudaError_t launch_gemm_ffma_shape(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float *A,
                                  size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc,
                                  cudaStream_t stream, GemmPart whole_part) {
  const unsigned grid_rows = (unsigned(m) + S::BM - 1) / S::BM;
  const bool vec_a = !trans_a && vector_loadable(A, lda);
  return for_each_column_slab<S::BN>(n, trans_b, B, ldb, C, ldc, [&](long long col, int cols, const float *B_slab,
                                                                    float *C_slab) {
    const dim3 grid(grid_rows, (unsigned(cols) + S::BN - 1) / S::BN);
    const GemmPart part = whole_part.from_column(col);
    const bool vec_b = trans_b && vector_loadable(B_slab, ldb);
    // Only an operand along i can take 16-byte copies: instantiate just those combinations.
    auto launch = [&](auto trans_a_c, auto trans_b_c, auto vec_a_c, auto vec_b_c) {
      constexpr bool TA = decltype(trans_a_c)::value, TB = decltype(trans_b_c)::value;
      constexpr bool VA = decltype(vec_a_c)::value && !TA, VB = decltype(vec_b_c)::value && TB;
      return launch_gemm_ffma_t<TA, TB, VA, VB, S>(grid, m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc,
                                                   part, stream);
    };
    auto with_vectors = [&](auto trans_a_c, auto trans_b_c) {
      using No = std::false_type;
      using Yes = std::true_type;
      if (vec_a && vec_b) return launch(trans_a_c, trans_b_c, Yes{}, Yes{});
      if (vec_a) return launch(trans_a_c, trans_b_c, Yes{}, No{});
      if (vec_b) return launch(trans_a_c, trans_b_c, No{}, Yes{});
      return launch(trans_a_c, trans_b_c, No{}, No{});
    };
    if (!trans_a && !trans_b) return with_vectors(std::false_type{}, std::false_type{});
    if (!trans_a && trans_b) return with_vectors(std::false_type{}, std::true_type{});
    if (trans_a && !trans_b) return with_vectors(std::true_type{}, std::false_type{});
    return with_vectors(std::true_type{}, std::true_type{});
  });
}

// deep: FfmaShapeDeep (the device holds two blocks of it per SM: ffma_deep_fits), else FfmaShape.
inline cudaError_t launch_gemm_ffma(bool deep, bool trans_a, bool trans_b, int m, int n, int k, float alpha,
                                    const float *A, size_t lda, const float *B, size_t ldb, float beta,
                                    float *C, size_t ldc, cudaStream_t stream, GemmPart part = {}) {
  if (m <= 0 || n <= 0) return cudaSuccess;  // nothing to compute (and no empty grid to launch)
  if (deep)
    return launch_gemm_ffma_shape<FfmaShapeDeep>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                 stream, part);
  return launch_gemm_ffma_shape<FfmaShape>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream,
                                           part);
}

}  // namespace cudrop::kernels
