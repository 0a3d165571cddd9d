#pragma once
// cudrop's tuning table: every block size, crossover and model figure the library runs with,
// as data. One table per GPU generation, a column per precision (s d) where the two differ.
//
// Provenance: the figures were measured on H100 (sm_90); the runs behind them are recorded in
// docs/perf/, whose index docs/perf/README.md names the files behind each row (cited below as
// "docs/perf/README.md, topic"). The sm_80, sm_86 and sm_89 tables hold the sm_90 figures until
// a measurement on such a part changes them; a change to a figure goes with its run in
// docs/perf/ and its row of the index.
//
// Two kinds of rows:
//  - Table: values chosen at run time from the device's generation (core/device_info.h).
//  - namespace compiled: values that are template arguments of kernels (tile shapes, stages,
//    threads): one value for every generation, since each is a compiled instantiation; a
//    launcher picks among the compiled ones at run time from device facts.
#include <cstddef>
#include <type_traits>

namespace cudrop::tuning {

enum class Generation { sm80, sm86, sm89, sm90 };
constexpr int kGenerations = 4;

// The column a device of compute capability major.minor takes: its own generation, or the
// nearest one below it (sm_100 and later take sm_90's, anything before sm_86 sm_80's).
constexpr Generation generation_of(int major, int minor) {
  if (major >= 9) return Generation::sm90;
  if (major == 8 && minor >= 9) return Generation::sm89;
  if (major == 8 && minor >= 6) return Generation::sm86;
  return Generation::sm80;
}

// One row's s and d columns.
template <class V>
struct ByPrecision {
  V s, d;
};
template <class T, class V>
constexpr V pick(const ByPrecision<V> &row) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  return std::is_same_v<T, float> ? row.s : row.d;
}

// ---- values of one generation ----
struct Table {
  // ---- GETRF (impl/getrf/getrf.cu), docs/perf/README.md, LU panel ----
  // The panel runs beside the look-ahead's trailing GEMM and each of its blocks takes an SM's
  // shared memory from it: few, tall blocks while the panel is tall.
  //                                      s      d
  ByPrecision<int> getrf_nb{128, 128};            // panel width (<= kernels::kPanelMaxCols)
  ByPrecision<int> getrf_panel_rows{256, 128};    // rows per panel block (panel in shared memory)
  ByPrecision<int> getrf_tall_from{8192, 8192};   // panels of at least this many rows are "tall"
  ByPrecision<int> getrf_tall_panel_rows{448, 224};  // rows per block of a tall panel (at most)

  // ---- DMMA tile choice (kernels/gemm_dmma.cuh), docs/perf/README.md, DMMA kernel ----
  // 64x64 below one wave of two 128x64 blocks per SM; 128x64 up to this k or below this many
  // such waves; 128x128 beyond, where its lower operand traffic wins.
  int dmma_128x64_max_k = 1024;
  long long dmma_128x128_min_waves = 6;

  // ---- host GEMM pipeline (impl/gemm/gemm.cu), docs/perf/README.md, host GEMM pipeline ----
  // Column panels of about n / pipeline_panels, at least pipeline_min_panel wide, once the
  // operands pass pipeline_min_bytes and n pipeline_min_n; the first panel takes A in chunks of
  // at least pipeline_a_chunk_k (at most pipeline_a_chunks, rounded to pipeline_a_chunk_round).
  double pipeline_min_bytes = 48e6;
  int pipeline_min_n = 1024;
  int pipeline_panels = 8;
  int pipeline_min_panel = 256;
  int pipeline_a_chunk_k = 1024;
  int pipeline_a_chunks = 8;
  int pipeline_a_chunk_round = 256;

  // ---- out-of-core GEMM model (impl/gemm/gemm.h), only to rank plans ----
  // PCIe bandwidth, GEMM rate once the GPU is full (about two 128 x 128 tiles of C per SM),
  // cost of one tile step (launch, events); a resident C is kept when it costs at most
  // resident_slack times the best plan.
  double link_bytes_per_second = 20e9;
  double flops_per_second = 40e12;
  double full_tiles = 264;
  double step_seconds = 30e-6;
  double resident_slack = 1.25;

  // ---- device memory (impl/context/gpu_context.cu) ----
  // Left free for the runtime and other users: 1/device_margin_divisor of the device, at
  // least device_margin_min.
  size_t device_margin_min = size_t(256) << 20;
  size_t device_margin_divisor = 32;
};

// The sm_90 (H100) figures, measured; the other generations take them until measured.
inline constexpr Table kTables[kGenerations] = {Table{}, Table{}, Table{}, Table{}};

constexpr const Table &table(Generation g) { return kTables[static_cast<int>(g)]; }

// Host-side defaults that do not depend on the GPU generation.
// Pinned staging buffers of each direction (CUDROP_STAGING_MB's default), MiB.
constexpr int kStagingMiB = 32;
// A GEMM whose operands (A, B and C, with the complex product's workspace) take at most this many
// bytes crosses the link in one piece each way, through the staging buffers, with one
// synchronization: its fixed cost, not its bytes, is what such a call pays (impl/gemm/gemm.cu).
constexpr size_t kSmallCallBytes = size_t(1) << 20;
// Pageable <-> pinned host copies (impl/context/host_copy.cpp; docs/perf/README.md, host copies): streaming
// stores from this many bytes on; a copy cut in one piece per thread, pieces between these sizes.
constexpr size_t kStreamingCopyFrom = 16384;
constexpr size_t kCopyPieceMin = size_t(128) << 10, kCopyPieceMax = size_t(1) << 20;
// Auto mode's GEMM and GETRF crossovers (defaults of CUDROP_GEMM_MIN_FLOPS,
// CUDROP_GEMM_MIN_INTENSITY, CUDROP_GETRF_MIN_N), host->host against a 16-core OpenBLAS host
// (docs/perf/README.md, auto-mode crossovers): each starts at a size where the GPU won every time.
// Float A^T B repacks B as B^T first from this m on, n and k at least kSgemmRepackMinNK
// (docs/perf/README.md, float A^T B repacking). A rule of gemm_device_workspace, which
// callers ask without a device: one value for every generation.
constexpr int kSgemmRepackMinM = 2048, kSgemmRepackMinNK = 128;
// CUDROP_SGEMM=3xtf32 (impl/gemm/gemm_split_tf32.cu): the split operands of one pass over k take at
// most this much device memory (k is cut into passes to fit; each pass after the first adds to
// C with beta = 1), and consecutive blocks walk this many row tiles of C down a column of tiles.
constexpr size_t kSplitTf32WorkspaceMiB = 768;
constexpr int kSplitTf32GroupM = 8;
// A device GEMM of at most kGemmSmallMacs multiply-adds (m n k), k at most kGemmSmallMaxK, runs as
// one small-tile kernel (kernels/gemm_small.cuh) in every precision (docs/perf/README.md, small
// calls): below it the tiled kernels fill few SMs and the complex product's widening pass costs
// more than its math; its k tiles run unpipelined, so k is bounded.
constexpr long long kGemmSmallMacs = 1LL << 21;
constexpr int kGemmSmallMaxK = 512;
constexpr double kGemmMinFlops = 2.0 * 512 * 512 * 512;
constexpr double kGemmMinIntensity = 16;
constexpr int kGetrfMinN = 2048;
// Auto mode's QR crossover (CUDROP_QR_MIN_N: ?geqrf_, ?ormqr_/?unmqr_, ?orgqr_/?ungqr_, ?gels_,
// and the LQ routines ?gelqf_, ?ormlq_/?unmlq_, ?orglq_/?unglq_).
constexpr int kQrMinN = 512;
// The GPU QR's panel width (CUDROP_QR_NB) and the rows each block of its panel kernel takes.
constexpr int kQrNb = 64;
constexpr int kQrPanelRows = 64;
// Auto mode's symmetric eigenproblem crossover (CUDROP_EIGEN_MIN_N: ?syevd_, ?heevd_, ?syev_,
// ?heev_), and the panel width of the GPU tridiagonal reduction (xLATRD's NB). The crossover
// comes from docs/perf/README.md, eigensolvers: measured for z, estimated for d from the
// reduction's cost per column.
constexpr int kEigenMinN = 2048;
// Auto mode's SVD crossover (CUDROP_SVD_MIN_N: ?gesdd_, ?gesvd_, ?gelsd_, ?gelss_, by min(m, n)).
// Not measured yet: QR's, whose reduction (xGEBRD's two GEMMs per panel) has the same shape.
constexpr int kSvdMinN = 512;
// Auto mode's symmetric indefinite crossover (CUDROP_SYTRF_MIN_N: ?sytrf_, ?hetrf_, ?sysv_,
// ?hesv_, by n). Not measured yet: between QR's and LU's, the factorization's panels being
// column by column as LU's with half its flops.
constexpr int kSytrfMinN = 1024;
// Auto mode's crossover for ScaLAPACK's distributed drivers (CUDROP_SCALAPACK_MIN_N: the order
// of p?potrf_, min(m, n) of p?getrf_). Not measured yet: the order where one rank's local part alone passes
// CUDROP_POTRF_MIN_N several times over on a 2 x 2 grid.
constexpr int kScalapackMinN = 4096;
constexpr int kSytrdNb = 32;
// The GPU bidiagonal reduction (xGEBRD on the device, impl/svd/gebrd_device.cu): xLABRD's panel
// width, as the tridiagonal one's (per column, two passes over the trailing block either way;
// a wider panel moves more of it into the two GEMMs but lengthens every column's corrections);
// the warps its A^H v product aims to spread over and the blocks its A u product aims for
// (several waves of the largest GPUs, so that the trailing block streams at full bandwidth).
constexpr int kGebrdNb = 32;
constexpr int kGebrdDotWarps = 8192;
constexpr int kGebrdProductBlocks = 1024;
// The GPU tridiagonal divide and conquer's leaves: subproblems at most this long are solved on
// the host (the caller's xSTEDC), the merges above them on the device.
constexpr int kStedcLeaf = 64;
// Auto mode's Cholesky crossover (CUDROP_POTRF_MIN_N, also ?posv_'s): ?potrf_ on the GPU from
// this order on.
constexpr int kPotrfMinN = 512;
// Auto mode's power-method crossover (CUDROP_POWER_MIN_BYTES): a matrix of at least this many
// bytes goes to the GPU. One iteration there wins from a few MB already (capi/power.cpp;
// docs/perf/README.md, auto-mode crossovers); this keeps a margin.
constexpr size_t kPowerMinBytes = size_t(4) << 20;
// A host->host LU writes finished rows of the factor back while the GPU works on, in pieces of
// at least this many bytes (CUDROP_GETRF_WRITEBACK): a 2D copy of a few rows per column moves
// slowly, and each piece's first DMA has nothing to hide behind.
constexpr size_t kGetrfWritebackBytes = size_t(64) << 20;
// Meanwhile the caller's rows are copied aside (to be put back if the call fails) this many
// bytes at a time, between looks at whether the next piece is finished.
constexpr size_t kGetrfSaveBytes = size_t(16) << 20;
// Auto mode's crossovers of the other Level-3 routines (defaults of CUDROP_SYMM_MIN_FLOPS ...
// CUDROP_TRSM_MIN_FLOPS, docs/tuning.md), in each routine's own flops (SYMM 2*m*m*n, SYRK n*n*k,
// SYR2K 2*n*n*k, TRMM/TRSM m*m*n on the left): GEMM's, until measured; the intensity test is
// GEMM's too (CUDROP_GEMM_MIN_INTENSITY).
constexpr double kSymmMinFlops = kGemmMinFlops, kSyrkMinFlops = kGemmMinFlops, kSyr2kMinFlops = kGemmMinFlops;
constexpr double kTrmmMinFlops = kGemmMinFlops, kTrsmMinFlops = kGemmMinFlops;
// TRSM of order past kTrsmInverseNb solves its nb-wide diagonal blocks as products with their
// inverses (GEMMs, built by doubling kernels::kTriNb-wide ones: a power-of-two multiple of it),
// except a block whose 1-norm condition number passes kTrsmInverseMaxCondition, which is solved by
// substitution: an inverse's product can leave a residual about that factor larger than
// substitution's (docs/semantics.md, TRSM).
constexpr int kTrsmInverseNb = 256;
constexpr double kTrsmInverseMaxCondition = 1000;
// Side 'L' SYMM/TRMM/TRSM go through the device in about this many chunks of columns of B
// (the next chunk's upload overlapping the math), none narrower than kLevel3MinChunkCols.
constexpr int kLevel3Chunks = 4;
constexpr int kLevel3MinChunkCols = 512;
// Auto mode's crossover of ?getrs_/?potrs_ alone (CUDROP_SOLVE_MIN_FLOPS): 2*n*n*nrhs, the two
// triangular solves' flops. The factor crosses PCIe for O(n^2 nrhs) work, so only many
// right-hand sides pay for it: the default asks for the work a 16-core CPU needs about as long
// for as the factor's transfer takes, until a measurement moves it (bench/solve_bench.cu).
constexpr double kSolveMinFlops = 2.0 * 4096 * 4096 * 64;
// While CUDA starts (the driver's part, a few tenths of a second), a call of fewer real flops
// than this runs on the CPU instead of waiting: about what 16 cores do in that time
// (CUDROP_START_OVERLAP_FLOPS's default; docs/perf/README.md, CUDA's start).
constexpr double kStartOverlapFlops = 1e11;
// Several devices (CUDROP_DEVICES): a GEMM is split over as many of them as give each at least
// this many flops (CUDROP_GEMM_DEVICE_MIN_FLOPS), since each device added uploads its own copy
// of the operand it shares and costs a thread start; an estimate, to be replaced by the
// crossover bench/multi_gemm.c measures. Block edges fall on multiples of the kernels' tiles.
constexpr double kGemmDeviceMinFlops = 2.0 * 4096 * 4096 * 4096;
constexpr int kDeviceSplitAlign = 128;
// Host copy threads per device when CUDROP_COPY_THREADS is unset (and never more than cores);
// a set CUDROP_COPY_THREADS is the total, shared out among the devices of a call.
constexpr int kCopyThreadsPerDevice = 16;
// A ?copy_ (capi/copy.cpp) is split over the copy threads from kCopyVectorMinN elements on
// (CUDROP_COPY_SPLIT_N) when x's or y's increment is at least kCopyVectorMinStrideBytes
// (CUDROP_COPY_SPLIT_STRIDE): each element of such a copy misses the cache, and the TLB too
// once it lies a page from the last, so one thread waits on memory while several overlap their
// misses (docs/perf/README.md, strided ?copy_). Each thread takes at least
// kCopyVectorPerThread elements (two threads at the least), so that its share outweighs the
// hand-off, and the workers spin kCopySpinMicroseconds for the next call before they sleep:
// numpy's linalg makes one such call per row, back to back.
constexpr int kCopyVectorMinN = 1024;
constexpr size_t kCopyVectorMinStrideBytes = 4096;
constexpr int kCopyVectorPerThread = 128;
constexpr int kCopySpinMicroseconds = 200;

// ---- power method (impl/power_*): one value for every generation ----
// dense_blocks_per_sm: the dense grid aims at this many blocks per SM (about four waves of
// eight resident blocks, so the last, partial wave is short); min_chunk_cols: a block's column
// chunk is at least this wide (its partial sums cost 2*rows*sizeof(T) of traffic per chunk).
// max_batch: most iterations queued between two looks at the state (the adaptive schedule
// doubles from 2 to this); a look costs nothing while the next batch runs, and at most two
// batches of no-op launches (a few microseconds each) follow the stopping iteration.
struct PowerTune {
  static constexpr int dense_blocks_per_sm = 32;
  static constexpr int min_chunk_cols = 128;
  static constexpr int first_batch = 2;
  static constexpr int max_batch = 32;
};

// The SELL copy of a CSR matrix (kernels/sell_power.cuh; its kernel shape: compiled::SellTune
// below) is made only when its padded entries stay within kSellCapacityPercent of the CSR
// entries (a bounded workspace).
constexpr long long kSellCapacityPercent = 125;
// Below this many entries per row on average the copy with 32-bit column indices is not made:
// at 8 per row (float) the loop on it is no faster than on the CSR-stream kernel with columns
// in a band and slower with random columns; from 16 per row it is faster in a band
// (docs/perf/README.md, SELL power copy).
constexpr long long kSellMinAverageRow = 12;
// With 16-bit distances (SellTune::near, every column near its row) the copy moves fewer bytes
// than the CSR arrays (6 instead of 8 per float entry, no row pointers). Float in a band: it
// overtakes the CSR-stream kernel between 6 and 8 entries per row
// (docs/perf/README.md, SELL power copy).
constexpr long long kSellNearMinAverageRow = 7;

// ---- Cholesky (impl/potrf/potrf_plan.h, impl/potrf/potrf_device.cuh) ----
// Columns per outer panel (multiple of 64): the k of the big GEMMs. 512 is the fastest of 256,
// 384 and 512 in both precisions (docs/perf/README.md, Cholesky blocking).
constexpr int kPotrfOuter = 512;
// Columns per GEMM of the left-looking catch-up (the upper halves of its tiles are skipped):
// narrower starts as soon as fewer columns have arrived, wider keeps more SMs busy; 2048 beats
// both 512 and the whole width (docs/perf/README.md, Cholesky blocking).
constexpr int kPotrfStrip = 2048;
// Below this order the whole matrix is sent before the factorization starts (the transfer is
// too short to be worth overlapping); from it on, the first columns are factored left-looking
// while the rest arrives.
constexpr int kPotrfStreamMinN = 4096;

// ---- compiled: template arguments of kernels, one value for every generation ----
namespace compiled {
// GETRF panel kernel threads per block: every panel, and tall panels (s d). Float with 256
// threads loses on more rows than threads, so its tall panels take 512
// (docs/perf/README.md, LU panel).
constexpr int kGetrfPanelThreads = 256;
constexpr ByPrecision<int> kGetrfTallThreads{512, 256};

// FFMA (float) shapes: BK x stages. The deep shape where two blocks of it fit an SM, the
// other elsewhere; 8 tile rows per rasterization group (docs/perf/README.md, FFMA kernel).
constexpr int kFfmaDeepBK = 32, kFfmaDeepStages = 3;
constexpr int kFfmaBK = 16, kFfmaStages = 4;
constexpr int kFfmaRasterGroup = 8;

// DMMA (double) configurations: stages and blocks per SM of each tile
// (docs/perf/README.md, DMMA kernel), and the rasterization group of row tiles: 8 for 128x128,
// 16 for the short-k tiles of the LU and Cholesky updates.
constexpr int kDmma128x128Stages = 4, kDmma128x128Blocks = 1, kDmma128x128Group = 8;
constexpr int kDmma128x64Stages = 3, kDmma128x64Blocks = 1;
constexpr int kDmma64x64Stages = 4, kDmma64x64Blocks = 3;
constexpr int kDmmaShortGroup = 16;

// The SELL copy of a CSR matrix (kernels/sell_power.cuh): its mat-vec kernel's shape per
// precision, U entries per lane and round, P slices per warp at once, and its grid in waves.
// Each precision takes the fastest shape of the tuning probes; the others are clearly
// slower (docs/perf/README.md, SELL power copy). near: whether the copy stores 16-bit
// column distances where every column allows it. In float the smaller copy is faster at every
// row length; in double every kernel shape loses with distances
// (docs/perf/README.md, SELL power copy), so double keeps 32 bits.
template <class T> struct SellTune;
template <> struct SellTune<float> {
  static constexpr int entries = 16, slices = 1, waves = 4;
  static constexpr bool near = true;
};
template <> struct SellTune<double> {
  static constexpr int entries = 8, slices = 2, waves = 1;
  static constexpr bool near = false;
};
}  // namespace compiled

}  // namespace cudrop::tuning
