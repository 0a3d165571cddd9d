#pragma once
// Double-precision GEMM on the FP64 tensor cores (DMMA) through inline-PTX mma.sync.
// C = alpha*op(A)*op(B) + beta*C, column-major, any size, leading dimension and alignment
// (8-byte aligned doubles are enough); beta == 0 never reads C.
//
// Block tile 128x128, 256 threads = 8 warps as 2 (rows) x 4 (cols), each warp 64x32 of C
// (4 x 4 accumulator tiles of 16x8, 64 doubles per lane), 1 block per SM; or 64x64, 128
// threads = 2 x 2 warps of 32x32, 3 blocks per SM (DmmaShape). k is walked in
// slices of 16; a pipeline stage holds KSUB slices (one barrier per stage), and STAGES stages
// are in flight (DmmaConfig; 128 KiB on Hopper and A100, 96 KiB elsewhere). Tiles of op(A) and op(B)
// reach shared memory through the cp.async pipeline, one 8-byte copy per element: consecutive
// threads read consecutive global addresses whichever dimension is contiguous (every
// transpose and every alignment is coalesced), and out-of-range elements are zero-filled by
// the copy itself (src-size 0), so borders need no separate code path.
//
// Shared layout: both operands are stored "k-contiguous", tile[i][l] with 16 doubles per
// row i (i = row of op(A) or column of op(B), l = k index), and the element goes to position
// l ^ swz(i) of its row, swz(i) = ((i & 3) << 2) | ((i >> 2) & 3). That XOR swizzle makes
//  - the fragment reads (a half warp reads rows g = 0..3, k = tig + 4j) hit 16 different
//    bank pairs, i.e. conflict-free 64-bit loads;
//  - the cp.async writes conflict-free for both global layouts: 32 consecutive i at one l
//    (swz is a bijection on 16 consecutive i) or 16 consecutive l of two rows.
//
// The multiply: on sm_90+ mma.sync.m16n8k16 .f64 (Hopper's DMMA shape, one instruction per
// 16x8x16 piece); on sm_80/86/89 eight mma.sync.m8n8k4 .f64 for the same piece. Both read
// the same register fragments: a lane (g = lane/4, tig = lane%4) holds op(A) rows g and g+8
// of its 16-row tile at k = tig + 4j (j = 0..3), op(B) column g of its 8-column tile at
// k = tig + 4j, and C rows g, g+8 x columns 2*tig, 2*tig+1. DMMA is IEEE FP64 FMA.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "kernels/cp_async.cuh"
#include "kernels/gemm_part.cuh"

namespace cudrop::kernels {

// Which mma.sync shape the sm_90+ code uses (sm_80/86/89 always use m8n8k4).
enum class DmmaInstr { m8n8k4, m16n8k4, m16n8k8, m16n8k16 };

// Block tile TILE x TILE with 2*TILE threads: 128 (8 warps of 64x32, 64 accumulators per
// lane, one block per SM) or 64 (4 warps of 32x32, 32 accumulators per lane, several blocks
// per SM). With one block per SM, every SM reads and writes its C tile at the same moment
// while the tensor cores idle; at small k (LU's and Cholesky's trailing updates, k = 128..256)
// that epilogue is a large share of the time, and resident neighbours hide it.
template <int TILE>
struct DmmaShape {
  static constexpr int BM = TILE, BN = TILE, BK = 16, threads = 2 * TILE;
  static constexpr int WM = TILE / 2, WN = 32;      // warp tile
  static constexpr int WARPS_M = BM / WM;           // 2 (x BN/WN along n)
  static constexpr int MI = WM / 16, NI = WN / 8;   // 16x8 accumulator tiles per warp
  static constexpr int sub_doubles = (BM + BN) * BK;  // one 16-deep k slice of both operands
  static constexpr int group_m = 16;                // block rasterization: 16 row tiles per group
  static_assert(BK == 16, "the swizzle and the fragment code assume 16 doubles per tile row");
  static_assert(threads == 32 * (BM / WM) * (BN / WN), "one warp per warp tile");
  static_assert(TILE == 128 || TILE == 64, "the loaders cover 128- or 64-wide tiles with 2*TILE threads");
};

// Pipeline configuration: STAGES buffers of KSUB k slices of 16 (a stage covers 16*KSUB of
// k and costs KSUB * TILE/4 KiB), the mma.sync shape used on sm_90+, the block tile, and the
// blocks per SM the register budget is cut for.
template <int STAGES_, int KSUB_, DmmaInstr INSTR_, int TILE_ = 128, int BLOCKS_ = 1>
struct DmmaConfig {
  using Shape = DmmaShape<TILE_>;
  static constexpr int STAGES = STAGES_, KSUB = KSUB_, BLOCKS_PER_SM = BLOCKS_;
  static constexpr DmmaInstr INSTR = INSTR_;
  static constexpr size_t smem_bytes = size_t(STAGES) * KSUB * Shape::sub_doubles * sizeof(double);
  static_assert(STAGES >= 2 && KSUB >= 1, "at least double buffering");
};
// Hopper-class devices (>= 128 KiB of shared memory per block): 4 stages of 16 k = 128 KiB.
// Measured on the H100 (NN, TFLOPS, 2026-11-21): 4096: 42.4 (3 stages x 32 k: 41.4),
// 8192: 45.4 (3 x 32: 42.4; 6 x 16: 45.3; m16n8k8: 43.9; m16n8k4: 44.1; m8n8k4: 27.0).
using DmmaConfigLarge = DmmaConfig<4, 1, DmmaInstr::m16n8k16>;
// Everything else (A100 163 KiB, sm_86/89 99 KiB): 3 stages of 16 k = 96 KiB.
using DmmaConfigSmall = DmmaConfig<3, 1, DmmaInstr::m16n8k16>;
// 64x64 tiles, 4 stages of 16 k (64 KiB), 3 blocks per SM (fits every sm_80+ part).
using DmmaConfigTile64 = DmmaConfig<4, 1, DmmaInstr::m16n8k16, 64, 3>;
// The 64-wide tiles win up to k = 1024 (where C's read and write are a large share of the
// work) and on grids of fewer than ~16 waves of 128-wide tiles (the last wave's idle SMs);
// the 128-wide ones from 8192^3 on. Measured on an H200, NT beta = 1, TFLOPS tile128/tile64:
// 8192^2 x 256 31.3/38.4, x 1024 39.5/43.0, 4096^3 38.7/44.7, 8192^3 43.0/40.2 (2026-11-21).
constexpr int kDmmaTile64MaxK = 1024;
constexpr long long kDmmaTile64MaxTiles128 = 16LL * 132;

namespace dmma_detail {

__device__ __forceinline__ int swz(int i) { return ((i & 3) << 2) | ((i >> 2) & 3); }

__device__ __forceinline__ void cp_async_f64(unsigned dst, const double *src, bool valid) {
  async_copy::to_shared<8>(dst, src, valid ? 8 : 0);
}
using async_copy::commit;
using async_copy::wait;

__device__ __forceinline__ void mma_m8n8k4(double &d0, double &d1, double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
      : "+d"(d0), "+d"(d1)
      : "d"(a), "d"(b));
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void mma_m16n8k4(double (&d)[4], double a0, double a1, double b0) {
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64.rn {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(b0));
}
__device__ __forceinline__ void mma_m16n8k8(double (&d)[4], double a0, double a1, double a2, double a3,
                                            double b0, double b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64.rn {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
}
__device__ __forceinline__ void mma_m16n8k16(double (&d)[4], const double (&a)[4][2], const double (&b)[4]) {
  // a[j][h]: row g + 8h, k = tig + 4j  ==  PTX a_v with v = 2j + h; b[j] == PTX b_j.
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64.rn {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0][0]), "d"(a[0][1]), "d"(a[1][0]), "d"(a[1][1]), "d"(a[2][0]), "d"(a[2][1]), "d"(a[3][0]),
        "d"(a[3][1]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#endif

// One operand's share of an EXT x 16 tile per thread (8 elements; 2*EXT threads). The tile
// holds op(X)(i, l) for EXT values of i and 16 of l. ALONG_I: X's contiguous dimension is i
// (A not transposed, B transposed), threads walk i and each thread's 8 elements are 2 l
// apart; otherwise X is contiguous along l, threads walk l and the elements are EXT/8 i apart.
template <bool ALONG_I, int EXT>
struct Loader {
  static constexpr int I_STRIDE = EXT / 8;  // !ALONG_I: i distance between a thread's elements
  const double *ptr;     // this thread's element 0 at the current k slice
  size_t step;           // global distance between this thread's elements
  int k_lim;             // element e is in range along k while k0 + (ALONG_I ? 2e : 0) < k_lim
  unsigned smem_off;     // byte offset of element 0 within the operand's slice
  unsigned smem_off_odd; // !ALONG_I: the same for odd elements (their swizzle may differ)
  unsigned valid_i;      // !ALONG_I: bit e set when element e's i is in range

  // Global distance from one k slice to the next.
  __device__ size_t advance() const { return ALONG_I ? 8 * step : size_t(16); }

  __device__ Loader(const double *X, size_t ld, int first, int extent, int k, int tid) {
    int i0, l0;
    if (ALONG_I) {
      i0 = tid % EXT;
      l0 = tid / EXT;
      ptr = X + size_t(first + i0) + size_t(l0) * ld;
      step = 2 * ld;
      valid_i = 0;
      k_lim = first + i0 < extent ? k - l0 : -2147483647 - 1;  // a row out of range: never valid
    } else {
      l0 = tid % 16;
      i0 = tid / 16;
      ptr = X + size_t(l0) + size_t(first + i0) * ld;
      step = I_STRIDE * ld;
      k_lim = k - l0;
      valid_i = 0;
#pragma unroll
      for (int e = 0; e < 8; ++e) valid_i |= (first + i0 + I_STRIDE * e < extent ? 1u : 0u) << e;
    }
    smem_off = unsigned(i0 * 16) * 8u;
    // ALONG_I: element e sits at l = l0 + 2e, whose swizzled column (l0 + 2e) ^ s is
    // (l0 ^ (s & 1)) + ((2e) ^ (s & 14)): the first part is kept here, the rest in issue().
    // Otherwise every element has l = l0; i0 + 16e has the swizzle of i0, and i0 + 8e (EXT
    // 64) that of i0 with bit 1 flipped for odd e ((x + 2) & 3 == x ^ 2 for the (i >> 2) part).
    const int s = swz(i0);
    smem_off_odd = smem_off + unsigned(ALONG_I ? 0 : l0 ^ s ^ (I_STRIDE == 8 ? 2 : 0)) * 8u;
    smem_off += unsigned(ALONG_I ? l0 ^ (s & 1) : l0 ^ s) * 8u;
  }

  // Copies the slice at k offset k0 (ptr already points at it) to the operand slice at
  // shared address `tile` (bytes); `fallback` is any valid global address.
  __device__ void issue(unsigned tile, int k0, const double *fallback, int tid) const {
    if (ALONG_I) {
      const int s_hi = swz(tid % EXT) & 14;
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const bool valid = k0 + 2 * e < k_lim;
        const unsigned col_hi = unsigned((2 * e) ^ s_hi) * 8u;
        cp_async_f64(tile + smem_off + col_hi, valid ? ptr + e * step : fallback, valid);
      }
    } else {
      const bool k_ok = k0 < k_lim;
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const bool valid = k_ok && ((valid_i >> e) & 1u);
        const unsigned off = (e & 1) ? smem_off_odd : smem_off;
        cp_async_f64(tile + off + unsigned(e * I_STRIDE * 16 * 8), valid ? ptr + e * step : fallback, valid);
      }
    }
  }
};

}  // namespace dmma_detail

template <bool TRANS_A, bool TRANS_B, class CFG>
__global__ void __launch_bounds__(CFG::Shape::threads, CFG::BLOCKS_PER_SM)
gemm_dmma_kernel(int m, int n, int k, double alpha, const double *__restrict__ A, size_t lda,
                 const double *__restrict__ B, size_t ldb, double beta, double *__restrict__ C, size_t ldc,
                 GemmPart part) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  // No FP64 tensor cores before sm_80: fail the launch loudly rather than return a wrong C.
  __trap();
#else
  using S = typename CFG::Shape;
  using namespace dmma_detail;
  constexpr int BM = S::BM, BK = S::BK, MI = S::MI, NI = S::NI;
  constexpr int STAGES = CFG::STAGES, KSUB = CFG::KSUB, KSTAGE = BK * KSUB;
  extern __shared__ __align__(128) double dmma_smem[];
  const unsigned smem_base = static_cast<unsigned>(__cvta_generic_to_shared(dmma_smem));

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, tig = lane % 4;

  // Rasterization: consecutive blocks walk groups of group_m row tiles column by column, so
  // a wave of resident blocks shares few A and B panels in L2.
  int tile_m, tile_n;
  {
    const long long pid = (long long)blockIdx.y * gridDim.x + blockIdx.x;
    const long long per_group = (long long)S::group_m * gridDim.y;
    const long long group = pid / per_group;
    const int first_m = int(group * S::group_m);
    const int group_rows = min(int(gridDim.x) - first_m, S::group_m);
    const long long r = pid - group * per_group;
    tile_m = first_m + int(r % group_rows);
    tile_n = int(r / group_rows);
  }
  const int row0 = tile_m * BM, col0 = tile_n * S::BN;
  if (part.skips(row0, BM, col0)) return;
  const int wm0 = (warp % S::WARPS_M) * S::WM, wn0 = (warp / S::WARPS_M) * S::WN;

  Loader<!TRANS_A, S::BM> a_load(A, lda, row0, m, k, tid);
  Loader<TRANS_B, S::BN> b_load(B, ldb, col0, n, k, tid);

  // Fragment read offsets (doubles, within a k slice): row part + swizzled column. Rows
  // wm0 + 16*mi + 8*h + g (A) and wn0 + 8*ni + g (B) have (row >> 2) & 3 equal to
  // (2h + g/4) & 3 and (2(ni&1) + g/4) & 3, so one table pos[j][p] serves both.
  int pos[4][2];
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int p = 0; p < 2; ++p) pos[j][p] = ((j ^ (g & 3)) << 2) | (tig ^ ((2 * p + (g >> 2)) & 3));
  const int a_row = (wm0 + g) * BK, b_row = BM * BK + (wn0 + g) * BK;

  double acc[MI][NI][4];
#pragma unroll
  for (int a = 0; a < MI; ++a)
#pragma unroll
    for (int b = 0; b < NI; ++b)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[a][b][v] = 0.0;

  const int tiles = (k + KSTAGE - 1) / KSTAGE;
  constexpr unsigned sub_bytes = S::sub_doubles * 8u, b_bytes = BM * BK * 8u;
  constexpr unsigned stage_bytes = KSUB * sub_bytes;
  auto issue_stage = [&](int stage, int tile) {
#pragma unroll
    for (int sub = 0; sub < KSUB; ++sub) {
      const unsigned dst = smem_base + stage * stage_bytes + sub * sub_bytes;
      a_load.issue(dst, tile * KSTAGE + sub * BK, A, tid);
      b_load.issue(dst + b_bytes, tile * KSTAGE + sub * BK, B, tid);
      a_load.ptr += a_load.advance();
      b_load.ptr += b_load.advance();
    }
  };
  // Prologue: the first STAGES-1 tiles in flight. A commit per stage even without a tile
  // keeps the group count uniform, so wait<STAGES-2> always means "tile t has landed".
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) issue_stage(s, s);
    commit();
  }

  int read_stage = 0, write_stage = STAGES - 1;
  for (int t = 0; t < tiles; ++t) {
    wait<STAGES - 2>();
    __syncthreads();
    // The stage refilled now was read in iteration t-1, which every thread has finished.
    if (t + STAGES - 1 < tiles) issue_stage(write_stage, t + STAGES - 1);
    commit();

    // Not unrolled: keeping one slice's fragments live at a time is what fits in 255 registers.
#pragma unroll 1
    for (int sub = 0; sub < KSUB; ++sub) {
      const double *tile = dmma_smem + (read_stage * KSUB + sub) * S::sub_doubles;
      double bf[NI][4];  // bf[ni][j]: op(B)(k = tig + 4j, column wn0 + 8ni + g)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int j = 0; j < 4; ++j) bf[ni][j] = tile[b_row + ni * 8 * BK + pos[j][ni & 1]];
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        double af[4][2];  // af[j][h]: op(A)(row wm0 + 16mi + 8h + g, k = tig + 4j)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) af[j][h] = tile[a_row + (16 * mi + 8 * h) * BK + pos[j][h]];
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
          if constexpr (CFG::INSTR == DmmaInstr::m16n8k16) {
            mma_m16n8k16(acc[mi][ni], af, bf[ni]);
          } else if constexpr (CFG::INSTR == DmmaInstr::m16n8k8) {
            mma_m16n8k8(acc[mi][ni], af[0][0], af[0][1], af[1][0], af[1][1], bf[ni][0], bf[ni][1]);
            mma_m16n8k8(acc[mi][ni], af[2][0], af[2][1], af[3][0], af[3][1], bf[ni][2], bf[ni][3]);
          } else if constexpr (CFG::INSTR == DmmaInstr::m16n8k4) {
#pragma unroll
            for (int j = 0; j < 4; ++j) mma_m16n8k4(acc[mi][ni], af[j][0], af[j][1], bf[ni][j]);
          } else
#endif
          {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              mma_m8n8k4(acc[mi][ni][0], acc[mi][ni][1], af[j][0], bf[ni][j]);
              mma_m8n8k4(acc[mi][ni][2], acc[mi][ni][3], af[j][1], bf[ni][j]);
            }
          }
        }
      }
    }
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  }
  wait<0>();

  // beta == 0 means C is output only: it is never read (a NaN there must not survive).
  // C is read in chunks of whole accumulator columns, every load of a chunk issued before its
  // first store: the compiler may not move a load of C above a store to C (it cannot prove
  // they differ), so load-update-store per element would pay one memory latency per element.
  const bool read_c = beta != 0.0;
  constexpr int kChunkValues = 16;  // doubles of C in registers at a time
  constexpr int NI_CHUNK = kChunkValues / (MI * 4) < 1 ? 1 : kChunkValues / (MI * 4);
  static_assert(NI % NI_CHUNK == 0, "whole chunks");
#pragma unroll
  for (int n0 = 0; n0 < NI; n0 += NI_CHUNK) {
    double old_c[NI_CHUNK][2][MI][2];  // [ni - n0][c][mi][h]
#pragma unroll
    for (int q = 0; q < NI_CHUNK; ++q)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int gj = col0 + wn0 + 8 * (n0 + q) + 2 * tig + c;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int gi = row0 + wm0 + 16 * mi + 8 * h + g;
            old_c[q][c][mi][h] = read_c && gj < n && gi < m ? C[size_t(gi) + size_t(gj) * ldc] : 0.0;
          }
      }
#pragma unroll
    for (int q = 0; q < NI_CHUNK; ++q)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int gj = col0 + wn0 + 8 * (n0 + q) + 2 * tig + c;
        if (gj >= n) continue;
        double *column = C + size_t(gj) * ldc;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int gi = row0 + wm0 + 16 * mi + 8 * h + g;
            if (gi >= m) continue;
            const double value = alpha * acc[mi][n0 + q][2 * h + c];
            column[gi] = read_c ? value + beta * old_c[q][c][mi][h] : value;
          }
      }
  }
#endif
}

// Enables the dynamic shared memory the pipeline needs (more than the 48 KB default) once
// per instantiation; cudaFuncSetAttribute is per function and per device context.
template <bool TRANS_A, bool TRANS_B, class CFG>
cudaError_t prepare_gemm_dmma() {
  static const cudaError_t status = cudaFuncSetAttribute(
      gemm_dmma_kernel<TRANS_A, TRANS_B, CFG>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(CFG::smem_bytes));
  return status;
}

// One transpose pair and configuration; same contract as launch_gemm_dmma.
template <bool TRANS_A, bool TRANS_B, class CFG>
cudaError_t launch_gemm_dmma_t(int m, int n, int k, double alpha, const double *A, size_t lda,
                               const double *B, size_t ldb, double beta, double *C, size_t ldc,
                               cudaStream_t stream, bool lower_only = false) {
  using S = typename CFG::Shape;
  if (m <= 0 || n <= 0) return cudaSuccess;
  const cudaError_t prepared = prepare_gemm_dmma<TRANS_A, TRANS_B, CFG>();
  if (prepared != cudaSuccess) return prepared;
  const unsigned grid_rows = (unsigned(m) + S::BM - 1) / S::BM;
  return for_each_column_slab<S::BN>(n, TRANS_B, B, ldb, C, ldc, [&](long long col, int cols, const double *B_slab,
                                                                    double *C_slab) {
    const dim3 grid(grid_rows, (unsigned(cols) + S::BN - 1) / S::BN);
    gemm_dmma_kernel<TRANS_A, TRANS_B, CFG><<<grid, S::threads, CFG::smem_bytes, stream>>>(
        m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc, GemmPart{lower_only, col});
    return cudaGetLastError();
  });
}

template <class CFG>
cudaError_t launch_gemm_dmma_cfg(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double *A,
                                 size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc,
                                 cudaStream_t stream, bool lower_only = false) {
  if (!trans_a && !trans_b) return launch_gemm_dmma_t<false, false, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, lower_only);
  if (!trans_a && trans_b) return launch_gemm_dmma_t<false, true, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, lower_only);
  if (trans_a && !trans_b) return launch_gemm_dmma_t<true, false, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, lower_only);
  return launch_gemm_dmma_t<true, true, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, lower_only);
}

// Which block tile a shape gets. CUDROP_DMMA_TILE=64 or 128 forces one (tuning runs).
inline bool use_dmma_tile64(int m, int n, int k) {
  static const int forced = [] {
    const char *text = std::getenv("CUDROP_DMMA_TILE");
    return text != nullptr ? std::atoi(text) : 0;
  }();
  if (forced == 64 || forced == 128) return forced == 64;
  const long long tiles128 = ((m + 127LL) / 128) * ((n + 127LL) / 128);
  return k <= kDmmaTile64MaxK || tiles128 < kDmmaTile64MaxTiles128;
}

// C = alpha*op(A)*op(B) + beta*C on `stream`; the semantics of launch_gemm_tiled<double>.
// The configuration follows the current device's opt-in shared memory per block.
inline cudaError_t launch_gemm_dmma(bool trans_a, bool trans_b, int m, int n, int k, double alpha,
                                    const double *A, size_t lda, const double *B, size_t ldb, double beta,
                                    double *C, size_t ldc, cudaStream_t stream, bool lower_only = false) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  int device = 0, optin = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (error != cudaSuccess) return error;
  if (use_dmma_tile64(m, n, k))
    return launch_gemm_dmma_cfg<DmmaConfigTile64>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, lower_only);
  if (size_t(optin) >= DmmaConfigLarge::smem_bytes)
    return launch_gemm_dmma_cfg<DmmaConfigLarge>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, lower_only);
  return launch_gemm_dmma_cfg<DmmaConfigSmall>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, lower_only);
}

}  // namespace cudrop::kernels
