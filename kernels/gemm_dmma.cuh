#pragma once
// Double-precision GEMM on the FP64 tensor cores (DMMA) through inline-PTX mma.sync.
// C = alpha*op(A)*op(B) + beta*C, column-major, any size, leading dimension and alignment
// (8-byte aligned doubles are enough); beta == 0 never reads C.
//
// Block tiles (DmmaShape, DmmaConfig; impl chooses one per shape, launch_gemm_dmma takes it): 128x128 with 8
// warps, 128x64 with 4, both of 64x32 warp tiles (4 x 4 accumulator tiles of 16x8, 64 doubles
// per lane); or 64x64 with 4 warps of 32x32. k is walked in slices of 16, one slice per
// pipeline stage, STAGES stages in flight. Tiles of op(A) and op(B)
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
// The multiply: on sm_90+ mma.sync.m16n8k4 .f64 (one DMMA.16x8x4 per 16x8x4 piece); on
// sm_80/86/89 two mma.sync.m8n8k4 .f64 for the same piece. Both read the same register
// fragments: a lane (g = lane/4, tig = lane%4) holds op(A) rows g and g+8 of its 16-row tile
// at k = tig + 4j, op(B) column g of its 8-column tile at k = tig + 4j, and C rows g, g+8 x
// columns 2*tig, 2*tig+1. DMMA is IEEE FP64 FMA. Fragments are double-buffered in registers
// by 4-deep groups (the next group loads while the current one multiplies); 8-deep groups
// (m16n8k8) need 48 more registers than the 255 a thread has, and spilled.
#include "kernels/per_device_once.cuh"
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/tuning.h"
#include "kernels/cp_async.cuh"
#include "kernels/gemm_part.cuh"

namespace cudrop::kernels {

// Block tile BM x BN computed by WARPS_M x WARPS_N warps, each a WM x WN warp tile of
// MI x NI accumulator tiles of 16x8 (4 doubles per lane each).
template <int BM_, int BN_, int WARPS_M_, int WARPS_N_>
struct DmmaShape {
  static constexpr int BM = BM_, BN = BN_, BK = 16, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
  static constexpr int threads = 32 * WARPS_M * WARPS_N;
  static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile
  static constexpr int MI = WM / 16, NI = WN / 8;             // 16x8 accumulator tiles per warp
  static constexpr int sub_doubles = (BM + BN) * BK;          // one 16-deep k slice of both operands
  // Block rasterization: row tiles per group (core/tuning.h): the 128x128 tile (long k, many
  // waves: square products) has its own; the short-k tiles of the LU and Cholesky updates
  // another.
  static constexpr int group_m =
      BM_ == 128 && BN_ == 128 ? tuning::compiled::kDmma128x128Group : tuning::compiled::kDmmaShortGroup;
  static_assert(BK == 16, "the swizzle and the fragment code assume 16 doubles per tile row");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles start at multiples of 16 (the fragment swizzle table)");
};

// Pipeline configuration: STAGES buffers of one 16-deep k slice (a stage costs (BM + BN) / 8
// KiB), and the blocks per SM the register budget is cut for.
template <class SHAPE, int STAGES_, int BLOCKS_>
struct DmmaConfig {
  using Shape = SHAPE;
  static constexpr int STAGES = STAGES_, BLOCKS_PER_SM = BLOCKS_;
  static constexpr size_t smem_bytes = size_t(STAGES) * Shape::sub_doubles * sizeof(double);
  static_assert(STAGES >= 3, "the fragment double buffering reads slice t+1 while slice t-1 is refilled");
};
namespace tuned = tuning::compiled;
// 128x128 tiles of 8 warps (64x32 each), 4 stages (128 KiB), one block per SM: the least
// operand traffic per multiply, the fastest for long k on grids of many waves.
using DmmaConfig128x128 =
    DmmaConfig<DmmaShape<128, 128, 2, 4>, tuned::kDmma128x128Stages, tuned::kDmma128x128Blocks>;
// 128x64 tiles of 4 warps (64x32 each), 3 stages (72 KiB; two blocks fit per SM on sm_80 and
// sm_90, one on sm_86/89): while one block waits at its barrier or writes C the other keeps the
// tensor cores fed, which is what counts at short k (LU's and Cholesky's trailing updates).
// 3 stages beat 4 stages with __launch_bounds__ for two blocks.
using DmmaConfig128x64 = DmmaConfig<DmmaShape<128, 64, 2, 2>, tuned::kDmma128x64Stages, tuned::kDmma128x64Blocks>;
// 64x64 tiles of 4 warps (32x32 each), 4 stages (64 KiB), 3 blocks per SM (fits every sm_80+
// part): more blocks for grids too small to fill the GPU with the larger tiles.
using DmmaConfig64x64 = DmmaConfig<DmmaShape<64, 64, 2, 2>, tuned::kDmma64x64Stages, tuned::kDmma64x64Blocks>;
static_assert(DmmaConfig128x128::smem_bytes == 128 * 1024 && DmmaConfig128x64::smem_bytes == 72 * 1024 &&
                  DmmaConfig64x64::smem_bytes == 64 * 1024,
              "the shared memory the comments above state");

// The block tiles launch_gemm_dmma can run (impl/gemm/gemm_config.h chooses).
enum class DmmaTile { t128x128, t128x64, t64x64 };

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
#endif

// One 4-deep group j of a warp's fragments: a[mi][h] = op(A)(row wm0 + 16mi + 8h + g,
// k = tig + 4j), b[ni] = op(B)(that k, column wn0 + 8ni + g).
template <int MI, int NI>
struct DmmaFragments {
  double a[MI][2];
  double b[NI];
};

// One operand's share of an EXT x 16 tile for THREADS threads. The tile holds op(X)(i, l)
// for EXT values of i and 16 of l. ALONG_I: X's contiguous dimension is i (A not transposed,
// B transposed), threads walk i and a thread's elements are L_STEP apart along l; otherwise X
// is contiguous along l, threads walk l and the elements are I_STEP apart along i.
template <bool ALONG_I, int EXT, int THREADS>
struct Loader {
  static constexpr int L_STEP = ALONG_I ? THREADS / EXT : 1;
  static constexpr int I_STEP = ALONG_I ? 1 : THREADS / 16;
  static constexpr int COUNT = EXT * 16 / THREADS;  // elements per thread
  static_assert(!ALONG_I || (THREADS % EXT == 0 && 16 % L_STEP == 0), "whole columns of the tile per pass");
  static_assert(ALONG_I || (THREADS % 16 == 0 && I_STEP % 8 == 0 && EXT % I_STEP == 0),
                "rows I_STEP apart share the swizzle up to bit 1 (I_STEP a multiple of 8)");
  const double *ptr;     // this thread's element 0 at the current k slice
  size_t step;           // global distance between this thread's elements
  // Element e is in range along k while k0 + (ALONG_I ? L_STEP*e : 0) < k_lim. Unsigned: the
  // slices issued past the last one (zero-fill) start up to (STAGES-1)*16 past k, which may
  // pass INT_MAX, and still fit 32 unsigned bits.
  unsigned k_lim;
  unsigned smem_off;     // byte offset of element 0 within the operand's slice
  unsigned smem_off_odd; // !ALONG_I: the same for odd elements (their swizzle may differ)
  unsigned valid_i;      // !ALONG_I: bit e set when element e's i is in range

  // Global distance from one k slice to the next.
  __device__ size_t advance() const { return ALONG_I ? COUNT * step : size_t(16); }
  // Starts at k slice `slices` instead of 0: k offsets are counted from there on.
  __device__ void skip_slices(int slices) {
    ptr += size_t(slices) * advance();
    const unsigned skipped = unsigned(slices) * 16u;
    k_lim = k_lim > skipped ? k_lim - skipped : 0u;
  }

  __device__ Loader(const double *X, size_t ld, int first, int extent, int k, int tid) {
    int i0, l0;
    if (ALONG_I) {
      i0 = tid % EXT;
      l0 = tid / EXT;
      ptr = X + size_t(first + i0) + size_t(l0) * ld;
      step = L_STEP * ld;
      valid_i = 0;
      k_lim = first + i0 < extent && k > l0 ? unsigned(k - l0) : 0u;  // a row out of range: never valid
    } else {
      l0 = tid % 16;
      i0 = tid / 16;
      ptr = X + size_t(l0) + size_t(first + i0) * ld;
      step = I_STEP * ld;
      k_lim = k > l0 ? unsigned(k - l0) : 0u;
      valid_i = 0;
#pragma unroll
      for (int e = 0; e < COUNT; ++e) valid_i |= (first + i0 + I_STEP * e < extent ? 1u : 0u) << e;
    }
    smem_off = unsigned(i0 * 16) * 8u;
    // ALONG_I: element e sits at l = l0 + L_STEP*e (l0 < L_STEP, a power of 2), whose
    // swizzled column (l0 + L_STEP*e) ^ s is (l0 ^ (s & (L_STEP-1))) + ((L_STEP*e) ^ (s & ~(L_STEP-1))):
    // the first part is kept here, the rest in issue(). Otherwise every element has l = l0;
    // i0 + 16e has the swizzle of i0, and i0 + 8e that of i0 with bit 1 flipped for odd e
    // ((x + 2) & 3 == x ^ 2 for the (i >> 2) part).
    const int s = swz(i0);
    smem_off_odd = smem_off + unsigned(ALONG_I ? 0 : l0 ^ s ^ ((I_STEP / 8) % 2 ? 2 : 0)) * 8u;
    smem_off += unsigned(ALONG_I ? l0 ^ (s & (L_STEP - 1)) : l0 ^ s) * 8u;
  }

  // Copies the slice at k offset k0 (ptr already points at it) to the operand slice at
  // shared address `tile` (bytes); `fallback` is any valid global address. A slice at or past
  // k is all zero-fill and reads nothing.
  __device__ void issue(unsigned tile, unsigned k0, const double *fallback, int tid) const {
    const double *p = ptr;
    if (ALONG_I) {
      const int s_hi = swz(tid % EXT) & (15 & ~(L_STEP - 1));
#pragma unroll
      for (int e = 0; e < COUNT; ++e, p += step) {
        const bool valid = k0 + unsigned(L_STEP * e) < k_lim;
        const unsigned col_hi = unsigned((L_STEP * e) ^ s_hi) * 8u;
        cp_async_f64(tile + smem_off + col_hi, valid ? p : fallback, valid);
      }
    } else {
      const bool k_ok = k0 < k_lim;
#pragma unroll
      for (int e = 0; e < COUNT; ++e, p += step) {
        const bool valid = k_ok && ((valid_i >> e) & 1u);
        const unsigned off = (e & 1) ? smem_off_odd : smem_off;
        cp_async_f64(tile + off + unsigned(e * I_STEP * 16 * 8), valid ? p : fallback, valid);
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
  constexpr int BM = S::BM, BK = S::BK, MI = S::MI, NI = S::NI, STAGES = CFG::STAGES;
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
  if (part.skips(row0, BM, col0, S::BN)) return;
  const int wm0 = (warp % S::WARPS_M) * S::WM, wn0 = (warp / S::WARPS_M) * S::WN;

  Loader<!TRANS_A, S::BM, S::threads> a_load(A, lda, row0, m, k, tid);
  Loader<TRANS_B, S::BN, S::threads> b_load(B, ldb, col0, n, k, tid);

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

  // The k slices this tile of C multiplies: all of them, or (a triangular operand, part.zeros)
  // those where it can be nonzero. k + BK - 1 may pass INT_MAX.
  long long k_begin = 0, k_end = k;
  part.k_range(row0, BM, col0, S::BN, k, &k_begin, &k_end);
  const int first_tile = int(k_begin / BK), tiles = int((k_end + (BK - 1LL)) / BK) - first_tile;
  a_load.skip_slices(first_tile);  // k offsets are then counted from there (none stays live)
  b_load.skip_slices(first_tile);
  constexpr unsigned stage_bytes = S::sub_doubles * 8u, b_bytes = BM * BK * 8u;
  auto issue_stage = [&](int stage, int tile) {
    const unsigned dst = smem_base + stage * stage_bytes;
    a_load.issue(dst, unsigned(tile) * BK, A, tid);  // unsigned: see Loader::k_lim
    b_load.issue(dst + b_bytes, unsigned(tile) * BK, B, tid);
    a_load.ptr += a_load.advance();
    b_load.ptr += b_load.advance();
  };
  constexpr int GROUPS = BK / 4;
  using Fragments = DmmaFragments<MI, NI>;
  auto load_group = [&](Fragments &f, int stage, int group) {
    const double *tile = dmma_smem + stage * S::sub_doubles;
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) f.b[ni] = tile[b_row + ni * 8 * BK + pos[group][ni & 1]];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) f.a[mi][h] = tile[a_row + (16 * mi + 8 * h) * BK + pos[group][h]];
  };
  auto multiply = [&](const Fragments &f) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        mma_m16n8k4(acc[mi][ni], f.a[mi][0], f.a[mi][1], f.b[ni]);
#else
        mma_m8n8k4(acc[mi][ni][0], acc[mi][ni][1], f.a[mi][0], f.b[ni]);
        mma_m8n8k4(acc[mi][ni][2], acc[mi][ni][3], f.a[mi][1], f.b[ni]);
#endif
      }
  };

  // Prologue: the first STAGES-1 slices in flight. A commit per stage even without a slice
  // keeps the group count uniform, so wait<STAGES-2> in iteration t means "slice t+1 has
  // landed" (STAGES-1 + t+1 groups committed by then).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) issue_stage(s, s);
    commit();
  }
  wait<STAGES - 2>();
  __syncthreads();

  // Fragments are double-buffered by 4-deep groups: each group's multiplies run while the
  // next group's fragments load, and the barrier comes before a slice's last group, so a warp
  // arrives with that group's fragments already loaded and resumes multiplying at once.
  Fragments frag[2];
  if (tiles > 0) load_group(frag[0], 0, 0);
  int read_stage = 0, write_stage = STAGES - 1;
  for (int t = 0; t < tiles; ++t) {
#pragma unroll
    for (int group = 0; group < GROUPS; ++group) {
      if (group + 1 < GROUPS) {
        load_group(frag[(group + 1) % 2], read_stage, group + 1);
      } else {
        wait<STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
        if (t + 1 < tiles) load_group(frag[(group + 1) % 2], read_stage, 0);
      }
      if (group == 0) {
        // Slice t-1's stage was last read (its last group) before the previous barrier. Past
        // the last slice the copies are zero-fills that read nothing: without a branch here
        // the compiler interleaves the copies with the multiplies; with
        // `if (t + STAGES - 1 < tiles)` it does not, and the kernel is slower
        // (docs/perf/README.md, DMMA kernel).
        issue_stage(write_stage, t + STAGES - 1);
        commit();
      }
      multiply(frag[group % 2]);
    }
  }
  wait<0>();

  // beta == 0 means C is output only: it is never read (a NaN there must not survive).
  // C is read in chunks of whole accumulator columns, every load of a chunk issued before its
  // first store: the compiler may not move a load of C above a store to C (it cannot prove
  // they differ), so load-update-store per element would pay one memory latency per element.
  const bool read_c = beta != 0.0;
  const bool masked = part.crosses(row0, BM, col0, S::BN);  // stores tested per element
  constexpr int kChunkValues = 16;  // doubles of C in registers at a time
  constexpr int NI_CHUNK = kChunkValues / (MI * 4) < 1 ? 1 : kChunkValues / (MI * 4);
  static_assert(NI % NI_CHUNK == 0, "whole chunks");
#pragma unroll
  for (int n0 = 0; n0 < NI; n0 += NI_CHUNK) {
    double old_c[NI_CHUNK][2][MI][2];  // [ni - n0][c][mi][h]
    int first_row[NI_CHUNK][2], end_row[NI_CHUNK][2], zero_row[NI_CHUNK][2];  // a column's rows in the part
#pragma unroll
    for (int q = 0; q < NI_CHUNK; ++q)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int gj = col0 + wn0 + 8 * (n0 + q) + 2 * tig + c;
        part.column_rows(masked, gj, gj < n ? m : 0, &first_row[q][c], &end_row[q][c], &zero_row[q][c]);
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int gi = row0 + wm0 + 16 * mi + 8 * h + g;
            const bool stored = gi >= first_row[q][c] && gi < end_row[q][c];
            old_c[q][c][mi][h] = read_c && stored ? C[size_t(gi) + size_t(gj) * ldc] : 0.0;
          }
      }
#pragma unroll
    for (int q = 0; q < NI_CHUNK; ++q)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int gj = col0 + wn0 + 8 * (n0 + q) + 2 * tig + c;
        double *column = C + size_t(gj) * ldc;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int gi = row0 + wm0 + 16 * mi + 8 * h + g;
            if (gi < first_row[q][c] || gi >= end_row[q][c]) continue;
            const double value = alpha * acc[mi][n0 + q][2 * h + c];
            column[gi] = gi == zero_row[q][c] ? 0.0 : read_c ? value + beta * old_c[q][c][mi][h] : value;
          }
      }
  }
#endif
}

// Enables the dynamic shared memory the pipeline needs (more than the 48 KB default) once
// per instantiation and device; cudaFuncSetAttribute is per function and per device context.
template <bool TRANS_A, bool TRANS_B, class CFG>
cudaError_t prepare_gemm_dmma() {
  static PerDeviceOnce once;
  return once_per_device(once, [] {
    return cudaFuncSetAttribute(gemm_dmma_kernel<TRANS_A, TRANS_B, CFG>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(CFG::smem_bytes));
  });
}

// One transpose pair and configuration; same contract as launch_gemm_dmma.
template <bool TRANS_A, bool TRANS_B, class CFG>
cudaError_t launch_gemm_dmma_t(int m, int n, int k, double alpha, const double *A, size_t lda,
                               const double *B, size_t ldb, double beta, double *C, size_t ldc,
                               cudaStream_t stream, GemmPart part = {}) {
  using S = typename CFG::Shape;
  if (m <= 0 || n <= 0) return cudaSuccess;
  const cudaError_t prepared = prepare_gemm_dmma<TRANS_A, TRANS_B, CFG>();
  if (prepared != cudaSuccess) return prepared;
  const unsigned grid_rows = (unsigned(m) + S::BM - 1) / S::BM;
  return for_each_column_slab<S::BN>(n, TRANS_B, B, ldb, C, ldc, [&](long long col, int cols, const double *B_slab,
                                                                    double *C_slab) {
    const dim3 grid(grid_rows, (unsigned(cols) + S::BN - 1) / S::BN);
    gemm_dmma_kernel<TRANS_A, TRANS_B, CFG><<<grid, S::threads, CFG::smem_bytes, stream>>>(
        m, cols, k, alpha, A, lda, B_slab, ldb, beta, C_slab, ldc, part.from_column(col));
    return cudaGetLastError();
  });
}

template <class CFG>
cudaError_t launch_gemm_dmma_cfg(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double *A,
                                 size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc,
                                 cudaStream_t stream, GemmPart part = {}) {
  if (!trans_a && !trans_b) return launch_gemm_dmma_t<false, false, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
  if (!trans_a && trans_b) return launch_gemm_dmma_t<false, true, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
  if (trans_a && !trans_b) return launch_gemm_dmma_t<true, false, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
  return launch_gemm_dmma_t<true, true, CFG>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
}

// C = alpha*op(A)*op(B) + beta*C on `stream` with block tile `tile`; the semantics of
// launch_gemm_tiled<double>. t128x128 needs DmmaConfig128x128::smem_bytes of opt-in shared
// memory per block (the caller chose it knowing the device).
inline cudaError_t launch_gemm_dmma(DmmaTile tile, bool trans_a, bool trans_b, int m, int n, int k, double alpha,
                                    const double *A, size_t lda, const double *B, size_t ldb, double beta,
                                    double *C, size_t ldc, cudaStream_t stream, GemmPart part = {}) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  if (tile == DmmaTile::t64x64)
    return launch_gemm_dmma_cfg<DmmaConfig64x64>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
  if (tile == DmmaTile::t128x128)
    return launch_gemm_dmma_cfg<DmmaConfig128x128>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
  return launch_gemm_dmma_cfg<DmmaConfig128x64>(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
}

}  // namespace cudrop::kernels
