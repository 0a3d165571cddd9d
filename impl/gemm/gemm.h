#pragma once
// GEMM on the GPU: the host interface (host arrays in and out, what sgemm_ uses) over the
// device interface (arrays already on the GPU, what benchmarks and blocked LAPACK use).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/complex.h"
#include "core/options.h"
#include "core/gemm_part.h"
#include "core/layout.h"
#include "core/tuning.h"
#include "impl/context/gpu.h"

namespace cudrop {

// One column-major GEMM call as the Fortran routine received it (checked, non-trivial).
template <class T>
struct GemmArgs {
  Op trans_a, trans_b;
  int m, n, k;
  T alpha;
  const T *a;
  int lda;
  const T *b;
  int ldb;
  T beta;
  T *c;
  int ldc;
};

namespace impl {

// Host arrays: copies op-sized blocks of A and B (and C unless beta == 0) in, runs the
// kernel, copies C's m x n block out. Never touches anything else of the caller's arrays.
// When A, B and C do not fit the device memory cap (device_memory_cap: CUDROP_GPU_MEM_LIMIT,
// else the free memory less a margin), the call runs out of core by plan_gemm_tiles: C in
// blocks, k in chunks if need be. A GPU failure leaves the caller's C unchanged (so that
// the whole call can go to the CPU) as long as no block of C has been written back: always
// when C stays whole on the device and is read (beta != 0), since it is then written back
// only once all the math has succeeded. When C's blocks go through the device in turn, each
// is written back as it finishes; a failure after the first write-back returns the failure
// with *progress saying which columns of C hold their results (A, B and the other columns of
// C are still the caller's originals), for the dispatch layer to finish on the CPU.
struct GemmProgress;
template <class T>
Status gemm_host(const GemmArgs<T> &args, GemmProgress *progress);

// Device arrays (column-major, leading dimensions in elements), on the given stream
// (a cudaStream_t; nullptr = the legacy default stream). Asynchronous. part: which part of C
// is computed and written (core/gemm_part.h): all of it, the tiles reaching the lower triangle
// (Cholesky's trailing updates), or exactly the lower or upper triangle (SYRK-like updates).
// Every GEMM kernel launch of the library goes through here: the kernels' shared-memory
// attributes are set once per process, for the kernels of this translation unit only.
// workspace (optional, device memory of workspace_bytes, used in stream order): with at
// least gemm_device_workspace(...) bytes, shapes that run faster on a repacked operand use it,
// and so do the split operands of CUDROP_SGEMM=3xtf32 (without it, they take their own).
// T: float, double, Complex<float>, Complex<double> (core/complex.h). A complex product runs as
// one real product of twice the size (impl/gemm/gemm_complex.cu) and needs workspace for it: with
// less than gemm_device_workspace(...) bytes it takes its own in stream order (cudaMallocAsync).
template <class T>
Status gemm_device(Op trans_a, Op trans_b, int m, int n, int k, T alpha, const T *dA,
                   size_t ldda, const T *dB, size_t lddb, T beta, T *dC, size_t lddc,
                   void *stream, GemmPart part = {}, void *workspace = nullptr,
                   size_t workspace_bytes = 0);

// Bytes of workspace that gemm_device can use to run this shape faster (0: none).
template <class T>
size_t gemm_device_workspace(Op trans_a, Op trans_b, int m, int n, int k);

// ---- out-of-core tiling plan (pure host code, unit-tested without a GPU) ----

// Device copies of GEMM operands: columns padded to 128-byte lines, a column shorter than
// one line packed tight (core/layout.h).
inline size_t gemm_padded_ld(size_t rows, size_t element_size) { return padded_ld(rows, element_size, true); }

// Byte counts of the plan saturate at SIZE_MAX instead of wrapping: at dimensions near
// INT_MAX a product like ld * cols * 8 can pass 2^64, and a wrapped count could look small
// enough to fit.
inline size_t gemm_bytes(size_t ld, size_t cols, size_t element_size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(ld, cols, &bytes) || __builtin_mul_overflow(bytes, element_size, &bytes))
    return SIZE_MAX;
  return bytes;
}
inline size_t gemm_bytes_sum(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

// How one GEMM (column-major, as gemm_host sees it) is cut to fit `cap` bytes of device
// memory. C is cut into mb x nb blocks (the last block row / column holds the remainder),
// k into chunks of kb; every size is the whole dimension or a multiple of 128. The blocks are
// computed in gemm_tile_blocks order, each with its k chunks in order (the first with the
// caller's beta, the others with beta = 1). A and B chunks go through a_buffers / b_buffers
// rotating device copies (1 when one copy holds all of op(A) / op(B)); C either stays whole
// on the device (c_resident: blocks are views of it) or goes through c_buffers rotating
// block copies.
struct GemmTilePlan {
  bool fits = false;     // false: not even the smallest tiles fit the cap
  bool in_core = false;  // A, B and C whole on the device: the untiled path
  int mb = 0, nb = 0, kb = 0;
  long long mblocks = 0, nblocks = 0, kchunks = 0;  // ceil(m / mb) ...: as large as m, n, k
  bool rows_outer = true;   // block order: all blocks of a block row, then the next row
  bool c_resident = false;  // C whole on the device
  int a_buffers = 0, b_buffers = 0, c_buffers = 0;
  size_t ld_a = 0, ld_b = 0, ld_c = 0;         // device leading dimensions, elements
  size_t a_bytes = 0, b_bytes = 0, c_bytes = 0;  // one device copy each (c: all of C when resident)
  size_t device_bytes = 0;                       // a_buffers*a_bytes + b_buffers*b_bytes + c_buffers*c_bytes
  double traffic_bytes = 0;                      // host <-> device, all transfers
  double seconds = 0;                            // the model's estimate (for choosing only)
};

struct GemmBlock {
  int i0, rows, j0, cols;
};

inline long long gemm_tile_block_count(const GemmTilePlan &p) {
  return p.mb <= 0 || p.nb <= 0 ? 0 : p.mblocks * p.nblocks;
}

// Block `index` (0 <= index < gemm_tile_block_count) of C in the plan's order.
inline GemmBlock gemm_tile_block(const GemmTilePlan &p, int m, int n, long long index) {
  const long long inner = p.rows_outer ? p.nblocks : p.mblocks;
  const long long o = index / inner, q = index % inner;
  const long long bi = p.rows_outer ? o : q, bj = p.rows_outer ? q : o;
  // i0 < m and j0 < n: each fits an int, and so do the differences below.
  const int i0 = int(bi * p.mb), j0 = int(bj * p.nb);
  return {i0, std::min(p.mb, m - i0), j0, std::min(p.nb, n - j0)};
}

// The blocks of C in the plan's order; together they cover the m x n block exactly once.
inline std::vector<GemmBlock> gemm_tile_blocks(const GemmTilePlan &p, int m, int n) {
  std::vector<GemmBlock> blocks;
  const long long count = gemm_tile_block_count(p);
  blocks.reserve(size_t(count));
  for (long long b = 0; b < count; ++b) blocks.push_back(gemm_tile_block(p, m, n, b));
  return blocks;
}

// How far a GEMM that failed on the GPU had written the caller's C: written[b] leading columns
// of blocks[b] hold their final values, every other column of C is the caller's original.
// Empty unless the call ran out of core.
struct GemmProgress {
  std::vector<GemmBlock> blocks;
  std::vector<int> written;
  bool any_written() const {
    for (int columns : written)
      if (columns > 0) return true;
    return false;
  }
  // For the log: "after N of M blocks of C were written back".
  void describe(char *text, size_t size) const {
    size_t whole = 0;
    for (size_t b = 0; b < blocks.size(); ++b) whole += written[b] == blocks[b].cols;
    std::snprintf(text, size, "after %zu of %zu blocks of C were written back", whole, blocks.size());
  }
};

namespace tiling {

inline long round_up_128(long x) { return long(round_up(x, 128)); }

// Block sizes worth trying along a dimension d: d itself (when at most `limit`), then
// balanced multiples of 128 for 2, 3, ... blocks, geometrically sparser, down to 128.
inline std::vector<int> block_sizes(int d, long limit) {
  std::vector<int> sizes;
  const long cap = std::max(128L, limit / 128 * 128);
  if (d <= limit) sizes.push_back(d);
  for (long parts = 2;; parts = parts < 16 ? parts + 1 : parts + parts / 4) {
    const long size = std::min(round_up_128(long(ceil_div(d, parts))), cap);
    if (size < d && (sizes.empty() || size < sizes.back())) sizes.push_back(int(size));
    if (size <= 128) break;
  }
  return sizes;
}

// The model's figures (core/tuning.h): rough H100-class rates, only to rank plans. The plan
// is pure host code, so it takes the sm_90 column whatever the device.
inline constexpr const tuning::Table &kModel = tuning::table(tuning::Generation::sm90);
constexpr double kLinkBytesPerSecond = kModel.link_bytes_per_second;
constexpr double kFlopsPerSecond = kModel.flops_per_second;
constexpr double kFullTiles = kModel.full_tiles;
constexpr double kStepSeconds = kModel.step_seconds;

// The plan for given block sizes and order, with the largest k chunk that fits (k whole if
// possible). fits == false when nothing does.
inline GemmTilePlan evaluate(Op trans_a, Op trans_b, int m, int n, int k, size_t es,
                             bool reads_c, size_t cap, int mb, int nb, bool rows_outer,
                             bool resident) {
  GemmTilePlan p;
  p.mb = mb;
  p.nb = nb;
  p.rows_outer = rows_outer;
  p.mblocks = ceil_div(m, mb);
  p.nblocks = ceil_div(n, nb);
  const bool single = p.mblocks == 1 && p.nblocks == 1;
  p.c_resident = resident || single;
  if (p.c_resident) {
    p.ld_c = gemm_padded_ld(size_t(m), es);
    p.c_bytes = gemm_bytes(p.ld_c, size_t(n), es);
    p.c_buffers = 1;
  } else {
    p.ld_c = gemm_padded_ld(size_t(mb), es);
    p.c_bytes = gemm_bytes(p.ld_c, size_t(nb), es);
    p.c_buffers = 2;
  }
  const size_t c_total = gemm_bytes(p.c_bytes, size_t(p.c_buffers), 1);
  if (c_total >= cap) return p;
  auto size_chunks = [&](int kb) {
    p.kb = kb;
    p.kchunks = ceil_div(k, kb);
    const size_t rows_a = trans_a ? size_t(kb) : size_t(mb), cols_a = trans_a ? size_t(mb) : size_t(kb);
    const size_t rows_b = trans_b ? size_t(nb) : size_t(kb), cols_b = trans_b ? size_t(kb) : size_t(nb);
    p.ld_a = gemm_padded_ld(rows_a, es);
    p.ld_b = gemm_padded_ld(rows_b, es);
    p.a_bytes = gemm_bytes(p.ld_a, cols_a, es);
    p.b_bytes = gemm_bytes(p.ld_b, cols_b, es);
    p.a_buffers = p.mblocks == 1 && p.kchunks == 1 ? 1 : 2;
    p.b_buffers = p.nblocks == 1 && p.kchunks == 1 ? 1 : 2;
    p.device_bytes = gemm_bytes_sum(gemm_bytes_sum(gemm_bytes(p.a_bytes, size_t(p.a_buffers), 1),
                                                   gemm_bytes(p.b_bytes, size_t(p.b_buffers), 1)),
                                    c_total);
    return p.device_bytes <= cap;
  };
  if (!size_chunks(k)) {
    // Split k: two copies of each chunk; per unit of kb an A copy takes padded(mb) (or mb,
    // transposed: kb is a multiple of 128 and so needs no padding), a B copy nb (padded(nb)).
    const size_t per_kb = 2 * es * ((trans_a ? size_t(mb) : gemm_padded_ld(mb, es)) +
                                    (trans_b ? gemm_padded_ld(nb, es) : size_t(nb)));
    const long kb_max = long((cap - c_total) / per_kb) / 128 * 128;
    if (kb_max < 128) return p;
    const long chunks = std::max(2L, long(ceil_div(k, kb_max)));
    const long kb = std::min(kb_max, round_up_128(long(ceil_div(k, chunks))));
    if (kb >= k || !size_chunks(int(kb))) return p;
  }
  // Transfers: A and B once each when they stay put, else once per block column / row they
  // are needed in; C in (when read) and out once.
  const double a_total = double(m) * k * es, b_total = double(k) * n * es, c_total_bytes = double(m) * n * es;
  double a_traffic, b_traffic;
  if (p.kchunks == 1 && rows_outer) {
    a_traffic = a_total;
    b_traffic = p.nblocks == 1 ? b_total : b_total * p.mblocks;
  } else if (p.kchunks == 1) {
    b_traffic = b_total;
    a_traffic = p.mblocks == 1 ? a_total : a_total * p.nblocks;
  } else {
    a_traffic = a_total * p.nblocks;
    b_traffic = b_total * p.mblocks;
  }
  p.traffic_bytes = a_traffic + b_traffic + c_total_bytes * (reads_c ? 2 : 1);
  const double tiles = double(ceil_div(mb, 128)) * double(ceil_div(nb, 128));
  const double use = std::min(1.0, tiles / kFullTiles);
  const double compute = 2.0 * m * n * double(k) / (kFlopsPerSecond * use);
  const double steps = double(p.mblocks) * p.nblocks * p.kchunks;
  // A resident C read by the math is written back only at the end (not overlapped).
  const double tail = p.c_resident && reads_c ? c_total_bytes / kLinkBytesPerSecond : 0;
  p.seconds = std::max(p.traffic_bytes / kLinkBytesPerSecond, compute) + steps * kStepSeconds + tail;
  p.fits = true;
  return p;
}

}  // namespace tiling

// The plan for C = alpha op(A) op(B) + beta C (reads_c: beta != 0) under `cap` bytes of
// device memory; max_block_rows bounds mb (a column of a C block must fit a staging buffer).
// in_core when A, B and C fit whole; else the fitting tiling the model finds fastest, with
// C kept whole on the device when C is read and that costs at most 25% more (C then stays
// intact until the end, whatever fails).
inline GemmTilePlan plan_gemm_tiles(Op trans_a, Op trans_b, int m, int n, int k,
                                    size_t es, bool reads_c, size_t cap, size_t max_block_rows) {
  GemmTilePlan whole;
  whole.mb = m;
  whole.nb = n;
  whole.kb = k;
  whole.mblocks = whole.nblocks = whole.kchunks = 1;
  whole.c_resident = true;
  whole.a_buffers = whole.b_buffers = whole.c_buffers = 1;
  whole.ld_a = gemm_padded_ld(trans_a ? size_t(k) : size_t(m), es);
  whole.ld_b = gemm_padded_ld(trans_b ? size_t(n) : size_t(k), es);
  whole.ld_c = gemm_padded_ld(size_t(m), es);
  whole.a_bytes = gemm_bytes(whole.ld_a, trans_a ? size_t(m) : size_t(k), es);
  whole.b_bytes = gemm_bytes(whole.ld_b, trans_b ? size_t(k) : size_t(n), es);
  whole.c_bytes = gemm_bytes(whole.ld_c, size_t(n), es);
  whole.device_bytes = gemm_bytes_sum(gemm_bytes_sum(whole.a_bytes, whole.b_bytes), whole.c_bytes);
  whole.traffic_bytes = (double(m) * k + double(k) * n + double(m) * n * (reads_c ? 2 : 1)) * es;
  if (m <= 0 || n <= 0 || k <= 0 || whole.device_bytes <= cap) {
    whole.fits = whole.in_core = true;
    return whole;
  }
  const long row_limit = long(std::min<size_t>(max_block_rows, size_t(1) << 30));
  const std::vector<int> mbs = tiling::block_sizes(m, std::max(128L, row_limit));
  const std::vector<int> nbs = tiling::block_sizes(n, long(n));
  GemmTilePlan best, best_resident;
  for (int mb : mbs)
    for (int nb : nbs)
      for (bool rows_outer : {true, false})
        for (bool resident : {false, true}) {
          const GemmTilePlan p = tiling::evaluate(trans_a, trans_b, m, n, k, es, reads_c, cap, mb,
                                                  nb, rows_outer, resident);
          if (!p.fits) continue;
          if (!best.fits || p.seconds < best.seconds) best = p;
          if (p.c_resident && (!best_resident.fits || p.seconds < best_resident.seconds)) best_resident = p;
        }
  if (reads_c && best_resident.fits && best_resident.seconds <= tiling::kModel.resident_slack * best.seconds) return best_resident;
  return best;
}

}  // namespace impl
}  // namespace cudrop
