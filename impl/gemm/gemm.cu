#include "impl/gemm/gemm.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/env.h"
#include "core/layout.h"
#include "core/log.h"
#include "core/precision_split.h"
#include "core/routines.h"
#include "core/trace.h"
#include "impl/context/device_info.h"
#include "impl/context/device_split.h"
#include "impl/gemm/gemm_complex.h"
#include "impl/gemm/gemm_split_tf32.h"
#include "impl/gemm/gemm_config.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/small_call.h"
#include "impl/context/host_copy.h"
#include "impl/context/multi_device.h"
#include "impl/context/shared_operand.h"
#include "impl/distributed/panel_sender.h"
#include "impl/context/stream_scratch.h"
#include "kernels/gemm_tiled.cuh"
#include "kernels/transpose.cuh"

namespace cudrop::impl {
namespace {

// Column-panel width of the transfer/compute pipeline: about tuned.pipeline_panels panels,
// each at least a few kernel tiles wide; a call too small to gain from overlap gets one panel
// (= no pipeline).
int pipeline_panel_cols(int m, int n, int k, size_t element_size, const tuning::Table &tuned) {
  const double bytes = (double(m) * k + double(k) * n + double(m) * n) * element_size;
  if (bytes < tuned.pipeline_min_bytes || n < tuned.pipeline_min_n) return n;
  const long long part = ceil_div(n, tuned.pipeline_panels);
  return int(std::max<long long>(tuned.pipeline_min_panel, round_up(part, 128)));  // <= n: n >= pipeline_min_n
}

// The k width of the chunks A goes up in while the first panel of C accumulates them: the math
// starts after a fraction of A instead of all of it. Chunks of at least pipeline_a_chunk_k keep
// those GEMMs efficient.
long long pipeline_a_chunk_k(int k, const tuning::Table &tuned) {
  const int a_chunks = std::clamp(k / tuned.pipeline_a_chunk_k, 1, tuned.pipeline_a_chunks);
  return round_up(ceil_div(k, a_chunks), tuned.pipeline_a_chunk_round);
}

// Which device copy of an operand chunk to use: one already holding it, else the copy used
// least recently (to be refilled once the math that last read it is done).
struct OperandCopies {
  int count = 1;
  long tag[2] = {-1, -1};
  int last = 1;
  int take(long wanted, bool *fresh) {
    for (int c = 0; c < count; ++c)
      if (tag[c] == wanted) {
        last = c;
        *fresh = false;
        return c;
      }
    const int c = count == 1 ? 0 : 1 - last;
    tag[c] = wanted;
    last = c;
    *fresh = true;
    return c;
  }
};

// The steps of an out-of-core plan. Transfers go on ctx.stream, the math on ctx.compute:
// the next chunks of A and B (and C's next block) are sent while the current step is
// multiplied, and a finished block of C comes back while the next one is multiplied.
// written[b]: how many leading columns of block b hold their final values in the caller's C.
template <class T>
Status run_tiles(GpuContext &ctx, const GemmArgs<T> &g, const GemmTilePlan &p,
                 const std::vector<GemmBlock> &blocks, char *dA, char *dB, char *dC,
                 std::vector<int> &written) {
  const size_t es = sizeof(T);
  const bool reads_c = g.beta != T(0);
  // A resident C that is read is written back only once all the math has succeeded.
  const bool early_download = !(p.c_resident && reads_c);
  OperandCopies copies_a, copies_b;
  copies_a.count = p.a_buffers;
  copies_b.count = p.b_buffers;
  Status s = Status::ok;
  auto c_device = [&](size_t b) {
    const GemmBlock &blk = blocks[b];
    return p.c_resident ? dC + (size_t(blk.i0) + size_t(blk.j0) * p.ld_c) * es
                        : dC + (b % size_t(p.c_buffers)) * p.c_bytes;
  };
  auto download_block = [&](size_t b, bool wait) {
    const GemmBlock &blk = blocks[b];
    if (wait) {
      Status status = check(cudaStreamWaitEvent(ctx.stream, ctx.panel_done[b % 2], 0), "gemm tiles");
      if (status != Status::ok) return status;
    }
    size_t done = 0;
    Status status = download_matrix(ctx, c_device(b), p.ld_c * es, size_t(blk.rows) * es, size_t(blk.cols),
                                    g.c + size_t(blk.i0) + size_t(blk.j0) * size_t(g.ldc), size_t(g.ldc) * es, &done);
    written[b] = int(done);
    return status;
  };
  for (size_t b = 0; b < blocks.size(); ++b) {
    const GemmBlock &blk = blocks[b];
    char *c_dev = c_device(b);
    const long block_row = blk.i0 / p.mb, block_col = blk.j0 / p.nb;
    for (long long l = 0; l < p.kchunks; ++l) {
      const int l0 = int(l * p.kb), kl = std::min(p.kb, g.k - l0);  // l0 < k
      // op(A)(i0:i0+rows, l0:l0+kl): a block of A, or of A^T's rows.
      bool fresh = false;
      const int ca = copies_a.take(block_row * p.kchunks + l, &fresh);
      char *a_dev = dA + size_t(ca) * p.a_bytes;
      if (fresh) {
        const size_t rows = g.trans_a ? size_t(kl) : size_t(blk.rows), cols = g.trans_a ? size_t(blk.rows) : size_t(kl);
        const T *host = g.trans_a ? g.a + size_t(l0) + size_t(blk.i0) * size_t(g.lda)
                                  : g.a + size_t(blk.i0) + size_t(l0) * size_t(g.lda);
        if ((s = check(cudaStreamWaitEvent(ctx.stream, ctx.operand_done[ca], 0), "gemm tiles")) != Status::ok) return s;
        if ((s = upload_matrix(ctx, host, size_t(g.lda) * es, rows * es, cols, a_dev, p.ld_a * es)) != Status::ok) return s;
      }
      // op(B)(l0:l0+kl, j0:j0+cols): a block of B, or of B^T's rows.
      const int cb = copies_b.take(block_col * p.kchunks + l, &fresh);
      char *b_dev = dB + size_t(cb) * p.b_bytes;
      if (fresh) {
        const size_t rows = g.trans_b ? size_t(blk.cols) : size_t(kl), cols = g.trans_b ? size_t(kl) : size_t(blk.cols);
        const T *host = g.trans_b ? g.b + size_t(blk.j0) + size_t(l0) * size_t(g.ldb)
                                  : g.b + size_t(l0) + size_t(blk.j0) * size_t(g.ldb);
        if ((s = check(cudaStreamWaitEvent(ctx.stream, ctx.operand_done[2 + cb], 0), "gemm tiles")) != Status::ok) return s;
        if ((s = upload_matrix(ctx, host, size_t(g.ldb) * es, rows * es, cols, b_dev, p.ld_b * es)) != Status::ok) return s;
      }
      // C's block goes in before its first chunk only, and only when beta != 0: beta is
      // applied once, and beta == 0 never reads C. (A rotating copy of C was last used by
      // block b-2, whose download has completed by now.)
      if (l == 0 && reads_c) {
        const T *host = g.c + size_t(blk.i0) + size_t(blk.j0) * size_t(g.ldc);
        if ((s = upload_matrix(ctx, host, size_t(g.ldc) * es, size_t(blk.rows) * es, size_t(blk.cols), c_dev,
                               p.ld_c * es)) != Status::ok) return s;
      }
      cudaError_t error = cudaEventRecord(ctx.panel_ready, ctx.stream);
      if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx.compute, ctx.panel_ready, 0);
      if ((s = check(error, "gemm tiles")) != Status::ok) return s;
      s = gemm_device<T>(g.trans_a, g.trans_b, blk.rows, blk.cols, kl, g.alpha, reinterpret_cast<const T *>(a_dev),
                         p.ld_a, reinterpret_cast<const T *>(b_dev), p.ld_b, l == 0 ? g.beta : T(1),
                         reinterpret_cast<T *>(c_dev), p.ld_c, ctx.compute);
      if (s != Status::ok) return s;
      error = cudaEventRecord(ctx.operand_done[ca], ctx.compute);
      if (error == cudaSuccess) error = cudaEventRecord(ctx.operand_done[2 + cb], ctx.compute);
      if (error == cudaSuccess && l == p.kchunks - 1) error = cudaEventRecord(ctx.panel_done[b % 2], ctx.compute);
      if ((s = check(error, "gemm tiles")) != Status::ok) return s;
      // The previous block comes back while this one is multiplied.
      if (l == 0 && early_download && b > 0) {
        if ((s = download_block(b - 1, true)) != Status::ok) return s;
      }
    }
  }
  if ((s = check(cudaStreamSynchronize(ctx.compute), "gemm tiles")) != Status::ok) return s;
  if (early_download) return download_block(blocks.size() - 1, true);
  for (size_t b = 0; b < blocks.size(); ++b)
    if ((s = download_block(b, false)) != Status::ok) return s;
  return Status::ok;
}

// Out of core: A, B and C do not fit the cap together; the plan's tiles do.
template <class T>
Status gemm_out_of_core(GpuContext &ctx, const GemmArgs<T> &g, const GemmTilePlan &p, size_t cap,
                        GemmProgress *progress) {
  void *dA = nullptr, *dB = nullptr, *dC = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, p.a_bytes * size_t(p.a_buffers), &dA},
                                  {Slot::b, p.b_bytes * size_t(p.b_buffers), &dB},
                                  {Slot::c, p.c_bytes * size_t(p.c_buffers), &dC}});
  if (s != Status::ok) return s;
  log(2, "%s out of core: C in %lld x %lld blocks of %d x %d (%s), k in %lld chunk(s) of %d, %s outer, "
      "%.1f of %.1f MiB",
      routine_names<Family::gemm, T>.symbol, p.mblocks, p.nblocks, p.mb, p.nb, p.c_resident ? "C resident" : "C rotating",
      p.kchunks, p.kb, p.rows_outer ? "rows" : "columns", p.device_bytes / 1048576.0, cap / 1048576.0);
  progress->blocks = gemm_tile_blocks(p, g.m, g.n);
  progress->written.assign(progress->blocks.size(), 0);
  s = run_tiles(ctx, g, p, progress->blocks, static_cast<char *>(dA), static_cast<char *>(dB),
                static_cast<char *>(dC), progress->written);
  if (s == Status::ok) return s;
  // Let queued transfers and math drain (they only touch device and pinned buffers), so
  // that nothing of this call is still running when the next one reuses the buffers.
  cudaStreamSynchronize(ctx.compute);
  cudaStreamSynchronize(ctx.stream);
  cudaGetLastError();
  return s;
}

}  // namespace

namespace {

// Float A^T B: both operands run along k, so the kernel stages both through four-byte copies
// that transpose them into shared memory, and it is the slowest of the four layouts. Repacking
// B as B^T (n x k, one read and one write of B) turns the call into A^T (B^T)^T, a faster
// layout; from m = 2048 on the repacking (2 n k words at memory bandwidth) is a small fraction
// of the product's 2 m n k flops (docs/perf/README.md, float A^T B repacking). The double
// kernel takes every layout through the same tensor-core loads: no repacking. The bytes of B^T
// (0: this shape runs unpacked).
template <class T>
size_t repack_workspace(Op trans_a, Op trans_b, int m, int n, int k) {
  if (!std::is_same_v<T, float> || !trans_a || trans_b || m < tuning::kSgemmRepackMinM ||
      n < tuning::kSgemmRepackMinNK || k < tuning::kSgemmRepackMinNK)
    return 0;
  return gemm_padded_ld(size_t(n), sizeof(T)) * size_t(k) * sizeof(T);
}

}  // namespace

template <class T>
size_t gemm_device_workspace(Op trans_a, Op trans_b, int m, int n, int k) {
  if constexpr (is_complex_v<T>) {
    return complex_gemm_workspace<real_t<T>>(trans_a, trans_b, m, n, k);
  } else {
    // CUDROP_SGEMM=3xtf32: the split operands; a device without that kernel repacks in the
    // same memory.
    const size_t repack = repack_workspace<T>(trans_a, trans_b, m, n, k);
    if (std::is_same_v<T, float> && settings().sgemm_3xtf32) return std::max(repack, split_tf32_workspace(m, n, k));
    return repack;
  }
}

namespace {

template <class T>
Status real_gemm_device(Op trans_a, Op trans_b, int m, int n, int k, T alpha, const T *dA,
                        size_t ldda, const T *dB, size_t lddb, T beta, T *dC, size_t lddc,
                        void *stream, GemmPart part, void *workspace, size_t workspace_bytes) {
  if (inject_fault("launch")) return Status::cuda_error;
  // The launch is judged by cudaGetLastError, which also returns an error some earlier runtime
  // call left behind: clear it first (and say so) so the launch is not blamed for it.
  if (const cudaError_t stale = cudaGetLastError(); stale != cudaSuccess)
    log(1, "a CUDA error was pending before a GEMM launch: %s", cudaGetErrorString(stale));
  if constexpr (std::is_same_v<T, float>) {
    if (settings().sgemm_3xtf32) {
      bool ran = false;
      const Status s = split_tf32_gemm_device(trans_a, trans_b, m, n, k, alpha, dA, ldda, dB, lddb, beta, dC, lddc,
                                              stream, part, workspace, workspace_bytes, &ran);
      if (s != Status::ok || ran) return s;
    }
  }
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  if (gemm_runs_small(m, n, k, part.store == GemmStore::all && part.zeros == GemmZeros::none,
                      k > 0 && alpha != T(0)))
    return check(kernels::launch_gemm_small<T>(m, n, k, trans_a.transposed(), false, trans_b.transposed(), false,
                                               alpha, dA, ldda, dB, lddb, beta, dC, lddc, cuda_stream),
                 "small gemm");
  cudaError_t error = cudaSuccess;
  // The kernel configuration from the device's facts, its tuning column and the tuning
  // override; an empty C launches nothing and needs none.
  kernels::GemmKernelConfig config;
  if (m > 0 && n > 0) {
    const DeviceInfo *info = nullptr;
    error = current_device_info(&info);
    if (error == cudaSuccess)
      config = gemm_kernel_config<T>(m, n, k, info->sms, info->smem_optin, info->smem_per_sm, info->smem_reserved,
                                     settings().dmma_tile, info->tuned());
  }
  const size_t wanted = repack_workspace<T>(trans_a, trans_b, m, n, k);
  if (error != cudaSuccess) {
    // the device's facts could not be read: reported below as the launch's failure
  } else if (wanted > 0 && workspace != nullptr && workspace_bytes >= wanted) {
    // B (k x n) becomes B^T (n x k) in the workspace; the product then reads it as op(B) = (B^T)^T.
    // The kernel's sums run over k in the same order for every layout: the same bits as A^T B.
    T *packed = static_cast<T *>(workspace);
    const size_t ld_packed = gemm_padded_ld(size_t(n), sizeof(T));
    error = kernels::launch_transpose(k, n, dB, lddb, packed, ld_packed, cuda_stream);
    if (error == cudaSuccess)
      error = kernels::launch_gemm_tiled(config, true, true, m, n, k, alpha, dA, ldda,
                                         static_cast<const T *>(packed), ld_packed, beta, dC, lddc, cuda_stream,
                                         part);
  } else {
    error = kernels::launch_gemm_tiled(config, trans_a.transposed(), trans_b.transposed(), m, n, k, alpha, dA, ldda,
                                       dB, lddb, beta, dC, lddc, cuda_stream, part);
  }
  if (error == cudaSuccess) return Status::ok;
  char what[160];  // the shape goes into the (verbose) failure message
  std::snprintf(what, sizeof what, "gemm kernel launch (%c%c m=%d n=%d k=%d ld=%zu,%zu,%zu)", trans_a ? 'T' : 'N',
                trans_b ? 'T' : 'N', m, n, k, ldda, lddb, lddc);
  return check(error, what);
}

}  // namespace

template <class T>
Status gemm_device(Op trans_a, Op trans_b, int m, int n, int k, T alpha, const T *dA,
                   size_t ldda, const T *dB, size_t lddb, T beta, T *dC, size_t lddc,
                   void *stream, GemmPart part, void *workspace, size_t workspace_bytes) {
  if constexpr (is_complex_v<T>)
    return complex_gemm_device<real_t<T>>(trans_a, trans_b, m, n, k, alpha, dA, ldda, dB, lddb, beta, dC, lddc,
                                          stream, part, workspace, workspace_bytes);
  else
    return real_gemm_device<T>(trans_a, trans_b, m, n, k, alpha, dA, ldda, dB, lddb, beta, dC, lddc, stream,
                               part, workspace, workspace_bytes);
}

namespace {

// C, computed whole on the device, into the caller's array: on a failure part way, *progress
// says how many leading columns arrived (with beta != 0 the rest must then be computed from the
// caller's C, which those columns no longer hold).
template <class T>
Status download_whole_c(GpuContext &ctx, const GemmArgs<T> &g, const void *dC, size_t lddc, GemmProgress *progress) {
  size_t done = 0;
  const Status s = download_matrix(ctx, dC, lddc * sizeof(T), g.m * sizeof(T), g.n, g.c, g.ldc * sizeof(T), &done);
  if (s != Status::ok && progress != nullptr && done > 0) {
    progress->blocks = {GemmBlock{0, g.m, 0, g.n}};
    progress->written = {int(done)};
  }
  return s;
}

// A small call (tuning::kSmallCallBytes, impl/context/small_call.h): op(A), op(B) and C (when
// read) in one transfer, the product, C back in one. False when the call is not small (*status
// untouched).
template <class T>
bool gemm_small(GpuContext &ctx, const GemmArgs<T> &g, Status *status) {
  const size_t es = sizeof(T);
  const size_t rows_a = g.trans_a ? g.k : g.m, cols_a = g.trans_a ? g.m : g.k;
  const size_t rows_b = g.trans_b ? g.n : g.k, cols_b = g.trans_b ? g.k : g.n;
  const size_t ldda = gemm_padded_ld(rows_a, es), lddb = gemm_padded_ld(rows_b, es), lddc = gemm_padded_ld(g.m, es);
  const size_t a_bytes = scratch_region(ldda * cols_a * es), b_bytes = scratch_region(lddb * cols_b * es);
  const size_t c_bytes = scratch_region(lddc * size_t(g.n) * es);
  const size_t sent = a_bytes + b_bytes + (g.beta != T(0) ? c_bytes : 0);
  const size_t work_bytes = gemm_device_workspace<T>(g.trans_a, g.trans_b, g.m, g.n, g.k);
  const size_t device_bytes = a_bytes + b_bytes + c_bytes + work_bytes;
  if (g.alpha == T(0) || g.k <= 0 || !SmallTransfer::small(ctx, device_bytes, sent, c_bytes)) return false;
  // CUDROP_GEMM_TRACE: where the call's time goes; it then waits for the GPU twice more, after
  // the upload and after the product, so that each one's own time shows.
  CallTrace trace(settings().gemm_trace ? 1 : 0);
  *status = [&] {
    SmallTransfer transfer(ctx);
    if (Status s = transfer.begin(device_bytes, "small gemm"); s != Status::ok) return s;
    char *d = transfer.device();
    trace.mark("staging_free");
    transfer.pack(0, g.a, size_t(g.lda) * es, rows_a * es, cols_a, ldda * es);
    transfer.pack(a_bytes, g.b, size_t(g.ldb) * es, rows_b * es, cols_b, lddb * es);
    if (g.beta != T(0)) transfer.pack(a_bytes + b_bytes, g.c, size_t(g.ldc) * es, size_t(g.m) * es, size_t(g.n), lddc * es);
    trace.mark("packed");
    if (Status s = transfer.send(sent, "small gemm"); s != Status::ok) return s;
    if (trace.on() && cudaStreamSynchronize(ctx.stream) == cudaSuccess) trace.mark("sent");
    T *dC = reinterpret_cast<T *>(d + a_bytes + b_bytes);
    Status s = gemm_device<T>(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, reinterpret_cast<const T *>(d), ldda,
                              reinterpret_cast<const T *>(d + a_bytes), lddb, g.beta, dC, lddc, ctx.stream, GemmPart{},
                              work_bytes > 0 ? d + a_bytes + b_bytes + c_bytes : nullptr, work_bytes);
    trace.mark("launched");
    if (trace.on() && s == Status::ok && cudaStreamSynchronize(ctx.stream) == cudaSuccess) trace.mark("gpu_done");
    if (s == Status::ok) s = transfer.receive(a_bytes + b_bytes, lddc * size_t(g.n) * es, "small gemm");
    if (s != Status::ok) return s;
    trace.mark("received");
    transfer.unpack(0, lddc * es, g.c, size_t(g.ldc) * es, size_t(g.m) * es, size_t(g.n));
    trace.mark("unpacked");
    return Status::ok;
  }();
  trace.report("%s small m=%d n=%d k=%d", routine_names<Family::gemm, T>.symbol, g.m, g.n, g.k);
  return true;
}

// In a call over several devices, the operand every region reads whole and how it is cut:
// op(A) in chunks of `chunk` k (C split by columns), or op(B) in chunks of `chunk` columns (C
// split by rows), each chunk read from the caller's array once (impl/context/shared_operand.h).
struct GemmShare {
  SharedOperand *operand = nullptr;
  bool a = true;
  long long chunk = 0;
};

// gemm_host on one device, ctx's, the calling thread's current device; `share`: this call is a
// region of a call over several devices whose shared operand goes through it.
template <class T>
Status gemm_on(GpuContext &ctx, const GemmArgs<T> &g, GemmProgress *progress, const GemmShare *share = nullptr) {
  if (Status small = Status::ok; gemm_small(ctx, g, &small)) return small;
  const size_t es = sizeof(T);
  // With alpha == 0 or k == 0 the product vanishes: A and B are not read at all.
  const bool uses_ab = g.alpha != T(0) && g.k > 0;
  const size_t rows_a = g.trans_a ? g.k : g.m, cols_a = g.trans_a ? g.m : g.k;
  const size_t rows_b = g.trans_b ? g.n : g.k, cols_b = g.trans_b ? g.k : g.n;
  const size_t ldda = gemm_padded_ld(rows_a, es), lddb = gemm_padded_ld(rows_b, es), lddc = gemm_padded_ld(g.m, es);

  const DeviceInfo *info = nullptr;
  Status s = check(device_info(ctx.device, &info), "device facts");
  if (s != Status::ok) return s;
  const tuning::Table &tuned = info->tuned();
  const bool share_a = share != nullptr && share->a, share_b = share != nullptr && !share->a;
  // A shared op(B) goes in the same panels on every device: they are its chunks.
  const int panel = share_b ? int(std::min<long long>(share->chunk, g.n)) : pipeline_panel_cols(g.m, g.n, g.k, es, tuned);
  // Workspace for a faster layout of each product (gemm_device_workspace), when it fits too.
  size_t work_bytes = 0;
  if (uses_ab) {
    // Larger than the device memory cudrop may use: out of core, in tiles.
    size_t cap = 0;
    if ((s = device_memory_cap(ctx, &cap)) != Status::ok) return s;
    const size_t max_block_rows = std::max<size_t>(128, ctx.staging_bytes / es / 128 * 128);
    GemmTilePlan plan = plan_gemm_tiles(g.trans_a, g.trans_b, g.m, g.n, g.k, es, g.beta != T(0), cap,
                                        max_block_rows);
    // Every product below spans at most `panel` columns of C and all of k.
    work_bytes = plan.in_core ? gemm_device_workspace<T>(g.trans_a, g.trans_b, g.m, std::min(panel, g.n), g.k) : 0;
    if (work_bytes > cap - std::min(cap, plan.device_bytes)) {
      work_bytes = 0;
      // A complex product cannot run without its workspace (about twice op(A)'s tile, plus
      // op(B)'s): out of core in a third of the cap, each tile's product taking its own.
      if constexpr (is_complex_v<T>)
        plan = plan_gemm_tiles(g.trans_a, g.trans_b, g.m, g.n, g.k, es, g.beta != T(0), cap / 3, max_block_rows);
    }
    if (!plan.fits) {
      log(1, "%s: not even the smallest tiles fit %.1f MiB of device memory", routine_names<Family::gemm, T>.symbol, cap / 1048576.0);
      return Status::out_of_memory;
    }
    if (!plan.in_core) {
      // Tiles rotate through the device buffers: nothing stays for the other devices to copy.
      if (share != nullptr && &ctx == &share->operand->leader()) share->operand->close();
      return gemm_out_of_core(ctx, g, plan, cap, progress);
    }
  }

  void *dA = nullptr, *dB = nullptr, *dC = nullptr, *dWork = nullptr;
  if (uses_ab && work_bytes > 0) {
    s = device_buffers(ctx, {{Slot::a, ldda * cols_a * es, &dA}, {Slot::b, lddb * cols_b * es, &dB},
                             {Slot::c, lddc * g.n * es, &dC}, {Slot::work, work_bytes, &dWork}});
    if (s == Status::out_of_memory) work_bytes = 0;  // the free memory moved: the plain layout needs less
  }
  if (uses_ab && work_bytes == 0) {
    dWork = nullptr;
    s = device_buffers(ctx, {{Slot::a, ldda * cols_a * es, &dA}, {Slot::b, lddb * cols_b * es, &dB},
                             {Slot::c, lddc * g.n * es, &dC}});
  } else if (!uses_ab) {
    s = device_buffer(ctx, Slot::c, lddc * g.n * es, &dC);
  }
  if (s != Status::ok) return s;

  // op(A)(:, l0:l0+kl), columns of A or rows of A^T, onto the device: chunk `index` of a shared
  // op(A), else from the caller's array.
  auto send_a = [&](long long index, long long l0, int kl) {
    const size_t a_host = g.trans_a ? size_t(l0) : size_t(l0) * g.lda, a_dev = g.trans_a ? size_t(l0) : size_t(l0) * ldda;
    const size_t a_rows = g.trans_a ? size_t(kl) : rows_a, a_cols = g.trans_a ? cols_a : size_t(kl);
    if (share_a)
      return share->operand->send(ctx, int(index), g.a + a_host, g.lda * es, a_rows * es, a_cols,
                                  static_cast<T *>(dA) + a_dev, ldda * es);
    return upload_matrix(ctx, g.a + a_host, g.lda * es, a_rows * es, a_cols, static_cast<T *>(dA) + a_dev, ldda * es);
  };
  // op(B)(:, first:first+cols), columns of B or rows of B^T, likewise.
  auto send_b = [&](long long index, long long first, int cols) {
    const size_t b_host = g.trans_b ? size_t(first) : size_t(first) * g.ldb;
    const size_t b_dev = g.trans_b ? size_t(first) : size_t(first) * lddb;
    const size_t b_rows = g.trans_b ? size_t(cols) : size_t(g.k), b_cols = g.trans_b ? size_t(g.k) : size_t(cols);
    if (share_b)
      return share->operand->send(ctx, int(index), g.b + b_host, g.ldb * es, b_rows * es, b_cols,
                                  static_cast<T *>(dB) + b_dev, lddb * es);
    return upload_matrix(ctx, g.b + b_host, g.ldb * es, b_rows * es, b_cols, static_cast<T *>(dB) + b_dev, lddb * es);
  };

  if (!uses_ab || panel >= g.n) {
    if (uses_ab) {
      // A shared operand in its chunks (the product is still one over all of k).
      const long long a_step = share_a ? share->chunk : g.k, b_step = share_b ? share->chunk : g.n;
      for (long long l0 = 0, index = 0; l0 < g.k; l0 += a_step, ++index)
        if ((s = send_a(index, l0, int(std::min<long long>(a_step, g.k - l0)))) != Status::ok) return s;
      for (long long first = 0, index = 0; first < g.n; first += b_step, ++index)
        if ((s = send_b(index, first, int(std::min<long long>(b_step, g.n - first)))) != Status::ok) return s;
    }
    // beta == 0: C is never read, so it is not even sent.
    if (g.beta != T(0)) {
      if ((s = upload_matrix(ctx, g.c, g.ldc * es, g.m * es, g.n, dC, lddc * es)) != Status::ok) return s;
    }
    s = gemm_device<T>(g.trans_a, g.trans_b, g.m, g.n, uses_ab ? g.k : 0, g.alpha,
                       static_cast<const T *>(dA), ldda, static_cast<const T *>(dB), lddb, g.beta,
                       static_cast<T *>(dC), lddc, ctx.stream, GemmPart{}, dWork, work_bytes);
    if (s != Status::ok) return s;
    // Everything must have succeeded before the first byte of the caller's C changes: a
    // failure after that point could not fall back to the CPU with C intact.
    if ((s = check(cudaStreamSynchronize(ctx.stream), "gemm")) != Status::ok) return s;
    return download_whole_c(ctx, g, dC, lddc, progress);
  }

  // Pipelined: the first column panel of B goes first, then A in k-chunks (the first panel
  // of C accumulating as they arrive), then the other panels of B (and C) while the previous
  // panel is multiplied on the compute stream. With beta == 0, finished panels of C go back
  // from a sender thread through the return lane while the calling thread keeps uploading,
  // so both directions of host copying and PCIe run at once. With beta != 0 the caller's C
  // is the input of a CPU fallback, so it is only written once every panel has succeeded.
  const bool early_download = g.beta == T(0);
  // CUDROP_GEMM_TRACE=1: one line per pipelined call on stderr with the host-side time (ms from
  // the call's start) at which each transfer step ended: where an end-to-end time goes.
  CallTrace trace(settings().gemm_trace ? 1 : 0);
  if (early_download && (s = return_lane(ctx)) != Status::ok) return s;
  // One end-of-math event per panel: the sender makes its stream wait on a panel's event
  // later than the calling thread records it, and by then a shared event could already
  // stand for a later panel.
  struct PanelEvents {
    std::vector<cudaEvent_t> events;
    ~PanelEvents() {
      for (cudaEvent_t e : events) cudaEventDestroy(e);
    }
  } panel_end;
  const long long panels = ceil_div(g.n, panel);
  for (long long i = 0; i < panels; ++i) {
    cudaEvent_t e = nullptr;
    if ((s = check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "gemm pipeline")) != Status::ok) return s;
    panel_end.events.push_back(e);
  }
  auto *hc = reinterpret_cast<char *>(g.c);
  auto *c_dev = static_cast<char *>(dC);
  // Declared after the events: its thread is joined before they are destroyed.
  // A job is the columns c0..c1-1 of C, one panel or several merged (the sender merges
  // contiguous jobs): the last panel's event covers the earlier ones, all on one stream.
  PanelSender sender(ctx.device, [&](int c0, int c1, int *) -> Status {
    Status status = check(cudaStreamWaitEvent(ctx.return_stream, panel_end.events[(c1 - 1) / panel], 0),
                          "gemm pipeline");
    if (status == Status::ok)
      status = download_matrix_returning(ctx, c_dev + size_t(c0) * lddc * es, lddc * es, g.m * es, c1 - c0,
                                         hc + size_t(c0) * g.ldc * es, g.ldc * es);
    trace.mark("c");
    return status;
  });
  // A goes up in k-chunks, and the first panel of C is accumulated chunk by chunk as they
  // arrive (a large A takes tens of milliseconds to upload); a shared op(A) in its own chunks.
  const long long kc = share_a ? share->chunk : pipeline_a_chunk_k(g.k, tuned);
  // first, l0: 64-bit, as the step past the last panel or chunk can pass INT_MAX.
  for (long long first = 0, index = 0; first < g.n; first += panel, ++index) {
    const int cols = int(std::min<long long>(panel, g.n - first));
    // op(B)(:, first:first+cols) is a block of columns of B, or a block of rows of B^T.
    const size_t b_dev = g.trans_b ? size_t(first) : size_t(first) * lddb;
    if ((s = send_b(index, first, cols)) != Status::ok) return s;
    trace.mark("b");
    if (g.beta != T(0)) {
      if ((s = upload_matrix(ctx, g.c + size_t(first) * g.ldc, g.ldc * es, g.m * es, cols,
                             c_dev + size_t(first) * lddc * es, lddc * es)) != Status::ok) return s;
    }
    // The first panel takes A in k-chunks (above); every later one multiplies the whole k.
    for (long long l0 = 0, a_index = 0; l0 < g.k; l0 += index == 0 ? kc : g.k, ++a_index) {
      const int kl = index == 0 ? int(std::min(kc, g.k - l0)) : g.k;
      // op(A)(:, l0:l0+kl): columns of A, or rows of A^T; op(B)(l0:l0+kl, panel) likewise.
      const size_t a_dev = g.trans_a ? size_t(l0) : size_t(l0) * ldda;
      const size_t b_chunk = b_dev + (g.trans_b ? size_t(l0) * lddb : size_t(l0));
      if (index == 0) {
        if ((s = send_a(a_index, l0, kl)) != Status::ok) return s;
        trace.mark("a");
      }
      cudaError_t error = cudaEventRecord(ctx.panel_ready, ctx.stream);
      if (error == cudaSuccess) error = cudaStreamWaitEvent(ctx.compute, ctx.panel_ready, 0);
      if ((s = check(error, "gemm pipeline")) != Status::ok) return s;
      s = gemm_device<T>(g.trans_a, g.trans_b, g.m, cols, kl, g.alpha, static_cast<const T *>(dA) + a_dev, ldda,
                         static_cast<const T *>(dB) + b_chunk, lddb, l0 == 0 ? g.beta : T(1),
                         reinterpret_cast<T *>(c_dev + size_t(first) * lddc * es), lddc, ctx.compute, GemmPart{},
                         dWork, work_bytes);
      if (s != Status::ok) return s;
    }
    if ((s = check(cudaEventRecord(panel_end.events[index], ctx.compute), "gemm pipeline")) != Status::ok) return s;
    if (early_download) sender.submit(int(first), int(first) + cols);
  }
  if ((s = check(cudaStreamSynchronize(ctx.compute), "gemm")) != Status::ok) return s;
  trace.mark("math");
  int ignored = 0;
  if ((s = sender.finish(&ignored)) != Status::ok) return s;
  if (!early_download) s = download_whole_c(ctx, g, dC, lddc, progress);
  trace.mark("end");
  trace.report("%s trace m=%d n=%d k=%d", routine_names<Family::gemm, T>.symbol, g.m, g.n, g.k);
  return s;
}

// The part of a GEMM that writes `region` of C: the same call on sub-blocks of its arrays.
template <class T>
GemmArgs<T> gemm_region(const GemmArgs<T> &g, const GemmBlock &region) {
  GemmArgs<T> r = g;
  r.m = region.rows;
  r.n = region.cols;
  r.a = g.trans_a ? g.a + size_t(region.i0) * size_t(g.lda) : g.a + size_t(region.i0);
  r.b = g.trans_b ? g.b + size_t(region.j0) : g.b + size_t(region.j0) * size_t(g.ldb);
  r.c = g.c + size_t(region.i0) + size_t(region.j0) * size_t(g.ldc);
  return r;
}

// Over several devices (CUDROP_DEVICES), when the call is worth it: C in one region per device,
// proportional to their SM counts, each region a GEMM of its own on its device. False: one
// device does it all.
template <class T>
bool gemm_several(GpuLease &lease, const GemmArgs<T> &g, GemmProgress *progress, Status *status) {
  if (!lease.several_devices() || g.alpha == T(0) || g.k <= 0) return false;
  const double flops = 2.0 * g.m * double(g.n) * g.k;
  const double min_share = settings().gemm_device_min_flops;
  if (flops < 2 * min_share) return false;  // not worth even two: nothing started
  std::vector<GpuContext *> devices = lease.devices();
  devices.resize(size_t(devices_worth(flops, int(devices.size()), min_share)));
  if (devices.size() < 2) return false;
  std::vector<double> weights;
  for (GpuContext *ctx : devices) {
    const DeviceInfo *info = nullptr;
    weights.push_back(device_info(ctx->device, &info) == cudaSuccess ? double(info->sms) : 1.0);
  }
  const bool by_rows = split_rows(g.m, g.n);
  const std::vector<GemmBlock> regions = split_for_devices(g.m, g.n, by_rows, weights, tuning::kDeviceSplitAlign);
  if (regions.size() < 2) return false;
  // The operand every region reads whole (op(A) by columns, op(B) by rows) is read from the
  // caller's array once, by the first device, and forwarded to the others; its chunks are those
  // the first device's pipeline uploads it in.
  const DeviceInfo *leader_info = nullptr;
  GemmShare share;
  share.a = !by_rows;
  if (device_info(devices[0]->device, &leader_info) == cudaSuccess) {
    const tuning::Table &tuned = leader_info->tuned();
    share.chunk = share.a ? pipeline_a_chunk_k(g.k, tuned)
                          : pipeline_panel_cols(regions[0].rows, g.n, g.k, sizeof(T), tuned);
  }
  const long long extent = share.a ? g.k : g.n;
  std::unique_ptr<SharedOperand> operand;
  if (share.chunk > 0) {
    operand = std::make_unique<SharedOperand>(*devices[0], int(ceil_div(extent, share.chunk)));
    if (operand->ok()) share.operand = operand.get();
  }
  log(2, "%s over %zu devices, C split by %s; op(%c) %s", routine_names<Family::gemm, T>.symbol, regions.size(),
      by_rows ? "rows" : "columns", share.a ? 'A' : 'B',
      share.operand != nullptr ? "read once, forwarded from the first device" : "read by each device");
  const unsigned long long read_before = uploaded_bytes();
  GpuContext *leader = devices[0];
  *status = run_on_devices(devices, regions, [&](GpuContext &ctx, const GemmBlock &region, GemmProgress *own,
                                                 bool redone) {
    // A region redone after a failure reads the caller's arrays: it may be part of a region,
    // and the leader's buffers may be in use for another.
    if (redone || share.operand == nullptr) return gemm_on(ctx, gemm_region(g, region), own);
    const Status s = gemm_on(ctx, gemm_region(g, region), own, &share);
    if (&ctx == leader) {
      share.operand->close();  // what it did not post, the others read themselves
    } else if (s != Status::ok) {
      // Copies from the leader's memory may still be queued: they end before this region is
      // given up (the leader's buffers are reused once the call's threads are done).
      for (cudaStream_t stream : {ctx.stream, ctx.compute}) cudaStreamSynchronize(stream);
      cudaGetLastError();
    }
    return s;
  }, progress);
  const double operands = (double(g.m) * g.k + double(g.k) * g.n + (g.beta != T(0) ? double(g.m) * g.n : 0)) * sizeof(T);
  log(2, "%s over %zu devices: %.1f MiB read from the caller's arrays (operands %.1f MiB), %.1f MiB forwarded",
      routine_names<Family::gemm, T>.symbol, regions.size(), (uploaded_bytes() - read_before) / 1048576.0,
      operands / 1048576.0, operand != nullptr ? operand->forwarded_bytes() / 1048576.0 : 0.0);
  return true;
}

}  // namespace

template <class T>
Status gemm_host(const GemmArgs<T> &g, GemmProgress *progress) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  Status status = Status::ok;
  if (gemm_several(lease, g, progress, &status)) return status;
  return gemm_on(lease.ctx(), g, progress);
}

#define CUDROP_GEMM_INSTANCES(T)                                                                             \
  template Status gemm_host<T>(const GemmArgs<T> &, GemmProgress *);                                        \
  template Status gemm_device<T>(Op, Op, int, int, int, T, const T *, size_t, const T *, size_t, T, T *, size_t, \
                                 void *, GemmPart, void *, size_t);                                              \
  template size_t gemm_device_workspace<T>(Op, Op, int, int, int);
CUDROP_IF_s(CUDROP_GEMM_INSTANCES(float))
CUDROP_IF_d(CUDROP_GEMM_INSTANCES(double))
CUDROP_IF_c(CUDROP_GEMM_INSTANCES(Complex<float>))
CUDROP_IF_z(CUDROP_GEMM_INSTANCES(Complex<double>))
#undef CUDROP_GEMM_INSTANCES

}  // namespace cudrop::impl
