#pragma once
// Single-precision GEMM at FP32 accuracy on Hopper's TF32 tensor cores ("3xTF32", opt-in:
// CUDROP_SGEMM=3xtf32). C = alpha*op(A)*op(B) + beta*C, column-major; beta == 0 never reads C.
//
// Every float x is split into two TF32 numbers, big = rn_tf32(x) and small = rn_tf32(x - big)
// (x - big is exact and has at most 12 significant bits, so x = big + small within 2^-24 |x|).
// The product is then
//     op(A) op(B) ~ As*Bb + Ab*Bs + Ab*Bb
// leaving out As*Bs (at most 2^-22 |ab|, and of random sign over a sum): three TF32
// tensor-core products accumulated in FP32, as CUTLASS's 3xTF32 does. Where that is and is not
// FP32-equivalent: docs/sgemm-3xtf32.md.
//
// Two kernels:
// - pack_split_tf32 reads op(X) (any transpose, leading dimension and alignment) and writes
//   its big and small parts, zero-padded to whole tiles, in exactly the order the multiply's
//   shared memory wants them: tile by tile (ROWS x 32 along k, big then small), each tile in
//   the 128-byte-swizzled K-major layout of hopper::k_major_sw128_desc. So one tile is one
//   contiguous run of global memory that the copy engine moves verbatim.
// - split_tf32_gemm multiplies the packed operands: block tile BM x BN, k in slices of 32; one
//   producer warp streams each slice's four tiles (A big/small, B big/small) with bulk copies
//   into STAGES shared buffers (mbarriers: `full` when a slice has landed, `empty` when both
//   consumer warpgroups are done with it); two consumer warpgroups each own 64 rows of C and
//   issue the three wgmma products per k step of 8. Padding makes every load whole: only the
//   epilogue tests bounds.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gemm_part.cuh"
#include "kernels/per_device_once.cuh"
#include "kernels/wgmma_tf32.cuh"

namespace cudrop::kernels {

constexpr int kSplitBK = 32;  // floats along k per tile row: one 128-byte swizzle row

// Block tile 128 x 128: two consumer warpgroups of 64 x 128 (m64n128k8), three 64 KB stages.
// Each consumer keeps two accumulator arrays: the tensor cores add into their FP32 accumulator
// by truncation, not by rounding to nearest, so an accumulator that took all 3k/8 wgmma steps
// would carry an error that grows with k in one direction. Instead every k slice (12 steps)
// starts a fresh tensor-core sum, and the slice sums are added into the total by ordinary
// rounded FP32 adds. A 128 x 256 tile has no registers for the second array (measurements of
// both: docs/perf/README.md, 3xTF32 kernel).
struct SplitTf32Shape {
  static constexpr int BM = 128, BN = 128, BK = kSplitBK, stages = 3;
  static constexpr int consumers = 2;                       // warpgroups of 64 rows of C
  static constexpr int threads = 128 * consumers + 32;      // + the producer warp
  static constexpr int acc = BN / 2;                        // accumulator floats per consumer thread
  static constexpr uint32_t a_pair_bytes = 2u * BM * BK * 4, b_pair_bytes = 2u * BN * BK * 4;
  static constexpr uint32_t stage_bytes = a_pair_bytes + b_pair_bytes;
  // The swizzle needs 1024-byte aligned tiles: the dynamic buffer is aligned by hand.
  static constexpr size_t smem_bytes = size_t(stages) * stage_bytes + 1024 + 2 * stages * sizeof(uint64_t);
};

// Where op(X)(r, l) of a packed operand lies, in floats from the start of its tile pair:
// 16-byte chunk l/4 of row r moved to chunk (l/4) ^ (r % 8).
__host__ __device__ constexpr size_t split_tile_offset(int r, int l) {
  return size_t(r) * kSplitBK + size_t(((l >> 2) ^ (r & 7)) << 2) + size_t(l & 3);
}

__device__ __forceinline__ float round_tf32(float x) {
  uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

// x = big + small. Infinities and NaNs go whole into big (small = 0, never Inf - Inf); a
// finite x whose rounding would overflow to infinity is truncated instead.
__device__ __forceinline__ void split_tf32(float x, float *big, float *small) {
  if (!isfinite(x)) {
    *big = x;
    *small = 0.0f;
    return;
  }
  float b = round_tf32(x);
  if (!isfinite(b)) b = __uint_as_float(__float_as_uint(x) & 0xFFFFE000u);
  *big = b;
  *small = round_tf32(x - b);
}

// op(X) is rows x cols (cols along k): element (r, l) = X[r + l*ldx] (ROWS_CONTIGUOUS: A not
// transposed, B transposed) or X[l + r*ldx]. A block packs a 32 x 32 piece through shared
// memory (read along X's contiguous dimension, written along k); grid: x over row pieces of
// the padded rows, y over k pieces of this call's [0, kp) after the source offset. An Inf or
// NaN anywhere sets *nonfinite (see split_tf32_gemm).
template <int TILE_ROWS, bool ROWS_CONTIGUOUS>
__global__ void __launch_bounds__(256) pack_split_tf32(const float *__restrict__ x, size_t ldx, long long rows,
                                                       int cols, int kp, float *__restrict__ out,
                                                       int *nonfinite) {
  __shared__ float piece[32][33];
  const long long r0 = (long long)blockIdx.x * 32;
  const int l0 = blockIdx.y * 32;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;  // 8 rows of 32 threads
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int slow = ty + 8 * i;
    // ROWS_CONTIGUOUS: tx walks rows, slow walks k; else tx walks k, slow walks rows.
    const long long r = r0 + (ROWS_CONTIGUOUS ? tx : slow);
    const int l = l0 + (ROWS_CONTIGUOUS ? slow : tx);
    float v = 0.0f;
    if (r < rows && l < cols) v = ROWS_CONTIGUOUS ? x[size_t(r) + size_t(l) * ldx] : x[size_t(l) + size_t(r) * ldx];
    if (ROWS_CONTIGUOUS)
      piece[tx][slow] = v;  // piece[row][k]
    else
      piece[slow][tx] = v;
  }
  __syncthreads();
  // One 16-byte chunk (4 consecutive k of one row) of big and of small per thread.
  const int row = threadIdx.x >> 3, chunk = threadIdx.x & 7;
  float big[4], small[4];
  bool finite = true;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float v = piece[row][chunk * 4 + e];
    finite &= isfinite(v);
    split_tf32(v, &big[e], &small[e]);
  }
  if (!finite) *nonfinite = 1;
  const long long r = r0 + row;
  const int l = l0 + chunk * 4;
  const size_t tile = size_t(r / TILE_ROWS) * size_t(kp / kSplitBK) + size_t(l / kSplitBK);
  float *pair = out + tile * 2 * TILE_ROWS * kSplitBK;
  const size_t at = split_tile_offset(int(r % TILE_ROWS), l % kSplitBK);
  *reinterpret_cast<float4 *>(pair + at) = make_float4(big[0], big[1], big[2], big[3]);
  *reinterpret_cast<float4 *>(pair + TILE_ROWS * kSplitBK + at) = make_float4(small[0], small[1], small[2], small[3]);
}

struct SplitTf32Args {
  const float *a_packed, *b_packed;
  int k_slices;          // kp / 32
  int m, n;              // C's extent (the packed operands are padded beyond it)
  int m_tiles, n_tiles;  // of BM x BN
  int group_m;           // row tiles per rasterization group
  float alpha, beta;
  float *c;
  size_t ldc;
  GemmPart part;
  const int *nonfinite;  // set by the packing: an operand holds Inf or NaN
};

// The scalar path of split_tf32_gemm (operands with Inf or NaN): one k slice of a consumer
// thread's entries of C by FP32 FMAs on big + small, read from the stage at `a` (A big, A small,
// B big, B small).
template <class S>
__device__ __forceinline__ void scalar_slice(const float *a, int wg, int w, int lane, float (&sum)[S::acc]) {
  const float *b = a + 2 * S::BM * S::BK;
  for (int l = 0; l < S::BK; ++l) {
    float av[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const size_t at = split_tile_offset(64 * wg + 16 * w + (lane >> 2) + 8 * h, l);
      av[h] = a[at] + a[S::BM * S::BK + at];
    }
#pragma unroll
    for (int j = 0; j < S::BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const size_t at = split_tile_offset(8 * j + 2 * (lane & 3) + e, l);
        const float bv = b[at] + b[S::BN * S::BK + at];
        sum[4 * j + e] = fmaf(av[0], bv, sum[4 * j + e]);
        sum[4 * j + 2 + e] = fmaf(av[1], bv, sum[4 * j + 2 + e]);
      }
    }
  }
}

template <class S>
__global__ void __launch_bounds__(S::threads, 1) split_tf32_gemm(const SplitTf32Args args) {
#ifdef CUDROP_HAS_WGMMA
  using namespace hopper;
  // Rasterization: consecutive blocks walk group_m row tiles down one column of tiles, so a
  // wave shares its B tiles and a few A tiles in L2.
  const int per_group = args.group_m * args.n_tiles;
  const int group = blockIdx.x / per_group, first_m = group * args.group_m;
  const int group_rows = min(args.m_tiles - first_m, args.group_m);
  const int in_group = blockIdx.x % per_group;
  const int mt = first_m + in_group % group_rows, nt = in_group / group_rows;
  if (args.part.skips((long long)mt * S::BM, S::BM, (long long)nt * S::BN, S::BN)) return;
  const bool masked = args.part.crosses((long long)mt * S::BM, S::BM, (long long)nt * S::BN, S::BN);

  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t bars = base + uint32_t(S::stages) * S::stage_bytes;  // full[s], then empty[s]
  auto full = [&](int s) { return bars + 8u * uint32_t(s); };
  auto empty = [&](int s) { return bars + 8u * uint32_t(S::stages + s); };
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S::stages; ++s) {
      mbarrier_init(full(s), 1);
      mbarrier_init(empty(s), 4 * S::consumers);  // one arrival per consumer warp
    }
  }
  __syncthreads();

  if (warp == 4 * S::consumers) {  // the producer
    if (lane != 0) return;
    const char *a_src = reinterpret_cast<const char *>(args.a_packed) + size_t(mt) * args.k_slices * S::a_pair_bytes;
    const char *b_src = reinterpret_cast<const char *>(args.b_packed) + size_t(nt) * args.k_slices * S::b_pair_bytes;
    for (int kt = 0; kt < args.k_slices; ++kt) {
      const int s = kt % S::stages;
      if (kt >= S::stages) mbarrier_wait(empty(s), uint32_t((kt / S::stages - 1) & 1));
      const uint32_t stage = base + uint32_t(s) * S::stage_bytes;
      mbarrier_arrive_expect_tx(full(s), S::stage_bytes);
      bulk_copy_to_shared(stage, a_src + size_t(kt) * S::a_pair_bytes, S::a_pair_bytes, full(s));
      bulk_copy_to_shared(stage + S::a_pair_bytes, b_src + size_t(kt) * S::b_pair_bytes, S::b_pair_bytes, full(s));
    }
    return;
  }

  // A consumer warpgroup: rows [64 wg, 64 wg + 64) of the block tile. acc: the tensor cores'
  // sum of one k slice; total: the slices' sums added by rounded FP32 adds.
  const int wg = warp >> 2, w = warp & 3;
  float acc[S::acc], total[S::acc];
#pragma unroll
  for (int i = 0; i < S::acc; ++i) acc[i] = total[i] = 0.0f;
  constexpr uint32_t a_tile = S::BM * S::BK * 4, b_tile = S::BN * S::BK * 4;
  // With an Inf or NaN among the operands the split products would not keep IEEE semantics
  // (Inf times a zero small part is NaN where FP32 gives Inf; big and small parts of one value
  // may differ in sign): the block then multiplies big + small (x itself for Inf and NaN,
  // within 2^-24 |x| otherwise) by scalar FP32 FMAs instead, slowly but with FP32's answer.
  const bool scalar = *args.nonfinite != 0;
  for (int kt = 0; kt < args.k_slices; ++kt) {
    const int s = kt % S::stages;
    mbarrier_wait(full(s), uint32_t((kt / S::stages) & 1));
    const uint32_t stage = base + uint32_t(s) * S::stage_bytes;
    if (scalar) {
      scalar_slice<S>(reinterpret_cast<const float *>(smem_raw + (stage - raw)), wg, w, lane, total);
      fence_proxy_async_shared();  // these reads before the producer's next bulk copy into the stage
    } else {
      const uint32_t a_big = stage + uint32_t(wg) * 64 * S::BK * 4, a_small = a_big + a_tile;
      const uint32_t b_big = stage + S::a_pair_bytes, b_small = b_big + b_tile;
      fence_registers(acc);
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < S::BK / 8; ++k) {
        const uint32_t step = uint32_t(k) * 32;  // 8 floats along k
        // The small terms first, while the sum is small; the slice's first step starts it afresh.
        wgmma_m64n128k8_tf32(acc, k_major_sw128_desc(a_small + step), k_major_sw128_desc(b_big + step), k > 0);
        wgmma_m64n128k8_tf32(acc, k_major_sw128_desc(a_big + step), k_major_sw128_desc(b_small + step));
        wgmma_m64n128k8_tf32(acc, k_major_sw128_desc(a_big + step), k_major_sw128_desc(b_big + step));
      }
      wgmma_commit();
      wgmma_wait<0>();
      fence_registers(acc);
    }
    // The slice is used up: its buffer back to the producer, its sum into the total.
    __syncwarp();
    if (lane == 0) mbarrier_arrive(empty(s));
    if (!scalar) {
#pragma unroll
      for (int i = 0; i < S::acc; ++i) total[i] += acc[i];
    }
  }

  // Epilogue: d[4j + 2h + e] is row 16 w + lane/4 + 8h, column 8j + 2 (lane%4) + e.
  const long long row0 = (long long)mt * S::BM + 64 * wg + 16 * w + (lane >> 2);
  const long long col0 = (long long)nt * S::BN + 2 * (lane & 3);
#pragma unroll
  for (int j = 0; j < S::BN / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const long long row = row0 + 8 * h, col = col0 + 8 * j + e;
        if (row >= args.m || col >= args.n || (masked && !args.part.holds(row, col))) continue;
        float *c = args.c + size_t(row) + size_t(col) * args.ldc;
        const float value = args.alpha * total[4 * j + 2 * h + e];
        *c = masked && args.part.zeroes(row, col) ? 0.0f : args.beta == 0.0f ? value : value + args.beta * *c;
      }
    }
  }
#endif
}

// Writes 1 to *out when this build holds the sm_90a code of split_tf32_gemm for the device it
// runs on (a device of another architecture, or a build without sm_90a, writes 0).
__global__ void split_tf32_probe(int *out) {
#ifdef CUDROP_HAS_WGMMA
  *out = 1;
#else
  *out = 0;
#endif
}

}  // namespace cudrop::kernels
