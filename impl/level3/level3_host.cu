// The Level-3 BLAS beside GEMM, host interface (impl/level3/level3.h): transfers and chunking around
// the device interface (impl/level3/level3_device.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/layout.h"
#include "core/log.h"
#include "core/routines.h"
#include "core/tuning.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/small_call.h"
#include "impl/context/stream_scratch.h"
#include "impl/level3/level3.h"
#include "impl/level3/level3_device.h"
#include "kernels/triangular.cuh"

namespace cudrop::impl {
namespace {

template <class T>
const char *op_name(Family op) {
  const char *symbol = symbol_of<T>(op);
  return symbol != nullptr ? symbol : "?";
}

bool hermitian(Family op) { return op == Family::hemm || op == Family::herk || op == Family::her2k; }

double mib(size_t bytes) { return double(bytes) / 1048576.0; }

// A triangle (with its diagonal) goes through the device in column blocks of this width: only
// the rectangles that cover it cross the link, and a diagonal block comes back through a host
// copy so that nothing of the other triangle is written.
constexpr int64_t kTriangleCols = 512;

template <class T>
Status upload_triangle(GpuContext &ctx, bool lower, int64_t order, const T *host, size_t ld, T *dev, size_t ldd) {
  const size_t es = sizeof(T);
  for (int64_t j0 = 0; j0 < order; j0 += kTriangleCols) {
    const int64_t j1 = std::min(order, j0 + kTriangleCols);
    const int64_t r0 = lower ? j0 : 0, r1 = lower ? order : j1;
    if (Status s = upload_matrix(ctx, host + size_t(r0) + size_t(j0) * ld, ld * es, size_t(r1 - r0) * es,
                                 size_t(j1 - j0), dev + size_t(r0) + size_t(j0) * ldd, ldd * es);
        s != Status::ok)
      return s;
  }
  return Status::ok;
}

template <class T>
Status download_triangle(GpuContext &ctx, bool lower, int64_t order, const T *dev, size_t ldd, T *host, size_t ld) {
  const size_t es = sizeof(T);
  std::vector<T> block(size_t(std::min(order, kTriangleCols)) * size_t(std::min(order, kTriangleCols)));
  for (int64_t j0 = 0; j0 < order; j0 += kTriangleCols) {
    const int64_t j1 = std::min(order, j0 + kTriangleCols), w = j1 - j0;
    const int64_t r0 = lower ? j1 : 0, r1 = lower ? order : j0;  // the rectangle off the diagonal block
    if (r1 > r0) {
      if (Status s = download_matrix(ctx, dev + size_t(r0) + size_t(j0) * ldd, ldd * es, size_t(r1 - r0) * es,
                                     size_t(w), host + size_t(r0) + size_t(j0) * ld, ld * es);
          s != Status::ok)
        return s;
    }
    if (Status s = download_matrix(ctx, dev + size_t(j0) + size_t(j0) * ldd, ldd * es, size_t(w) * es, size_t(w),
                                   block.data(), size_t(w) * es);
        s != Status::ok)
      return s;
    for (int64_t j = 0; j < w; ++j)
      for (int64_t i = lower ? j : 0; i < (lower ? w : j + 1); ++i)
        host[size_t(j0 + i) + size_t(j0 + j) * ld] = block[size_t(i) + size_t(j) * size_t(w)];
  }
  return Status::ok;
}

// The reference TRMM, TRSM, SYRK, HERK, SYR2K and HER2K skip the products of zero entries (of
// B, or of A's column), and multiply by no entry outside a triangle, which GEMM-based code
// cannot promise: with an Inf or NaN among the factors (alpha, A's triangle, B) the two can
// differ, so such a call is left to the CPU routine (Status::special_values). Scalars are judged
// here; arrays on the device once uploaded, by a flag (kFlagBytes of device memory past the
// routine's workspace) that comes back through ctx.flag_word before each write to the caller's
// arrays (a side-L call whose later chunk holds one has its earlier columns written already:
// the CPU routine finishes the rest, as after a failure).
bool skips_zero_entries(Family op) { return op != Family::symm && op != Family::hemm; }
constexpr size_t kFlagBytes = 256;

template <class T>
bool finite_scalar(T x) {
  if constexpr (is_complex_v<T>) return std::isfinite(x.re) && std::isfinite(x.im);
  else return std::isfinite(x);
}

// The host's judgement of the same (kernels::flag_nonfinite's): whether an element of `part`
// of the m x n host array x is Inf or NaN, the diagonal left out with skip_diagonal.
template <class T>
bool host_nonfinite(kernels::Part part, bool skip_diagonal, int64_t m, int64_t n, const T *x, size_t ldx) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i)
      if (kernels::in_part(part, i, j) && !(skip_diagonal && i == j) && !finite_scalar(x[size_t(i) + size_t(j) * ldx]))
        return true;
  return false;
}

struct NonfiniteFlag {
  GpuContext &ctx;
  int *device = nullptr;
  Status start(void *at) {
    device = static_cast<int *>(at);
    if (ctx.flag_word == nullptr) {
      void *word = nullptr;
      if (Status s = check(cudaHostAlloc(&word, sizeof(int), cudaHostAllocDefault), "level3 flag"); s != Status::ok)
        return s;
      ctx.flag_word = static_cast<int *>(word);
    }
    return check(cudaMemsetAsync(device, 0, sizeof(int), ctx.stream), "level3 flag");
  }
  template <class T>
  Status scan(kernels::Part part, bool skip_diagonal, int64_t m, int64_t n, const T *x, size_t ldx) {
    return check(kernels::launch_flag_nonfinite(part, skip_diagonal, m, n, x, ldx, device, ctx.stream), "level3 flag");
  }
  Status send_back() {
    return check(cudaMemcpyAsync(ctx.flag_word, device, sizeof(int), cudaMemcpyDeviceToHost, ctx.stream), "level3 flag");
  }
  // After ctx.stream has passed send_back().
  bool raised() const { return *ctx.flag_word != 0; }
};

// The device's rank update on the call's operands (A, B: A's layout; C).
template <class T>
Status rank_update_on_device(const Level3Args<T> &g, const T *dA, const T *dB, size_t ldda, T *dC, size_t lddc,
                             cudaStream_t stream, void *work, size_t work_bytes) {
  if constexpr (is_complex_v<T>) {
    if (hermitian(g.op))
      return her2k_device<T>(g.uplo, g.trans, g.n, g.k, g.alpha, dA, ldda, dB, ldda, real_part(g.beta), dC, lddc,
                             stream, work, work_bytes);
  }
  return syr2k_device<T>(g.uplo, g.trans, g.n, g.k, g.alpha, dA, ldda, dB, ldda, g.beta, dC, lddc, stream, work,
                         work_bytes);
}

// SYRK, SYR2K, HERK, HER2K small: A (and B) and C whole in one transfer, Inf and NaN among A
// and B judged on the host, C's square back in one, its triangle into the caller's. False when
// the call is not small (*status untouched).
template <class T>
bool rank_update_small(GpuContext &ctx, const Level3Args<T> &g, Status *status) {
  const size_t es = sizeof(T);
  const bool two = g.op == Family::syr2k || g.op == Family::her2k, lower = g.uplo == Uplo::lower;
  const size_t rows_a = g.trans ? size_t(g.k) : size_t(g.n), cols_a = g.trans ? size_t(g.n) : size_t(g.k);
  const size_t ldda = padded_ld(rows_a, es), lddc = padded_ld(size_t(g.n), es);
  const size_t a_bytes = scratch_region(ldda * cols_a * es), c_bytes = scratch_region(lddc * size_t(g.n) * es);
  const size_t b_bytes = two ? a_bytes : 0;
  const size_t work_bytes = syr2k_device_workspace<T>(g.trans, g.n, g.k);
  const size_t sent = a_bytes + b_bytes + (g.beta != T(0) ? c_bytes : 0);
  if (!SmallTransfer::small(ctx, a_bytes + b_bytes + c_bytes + work_bytes, sent, c_bytes)) return false;
  *status = [&] {
    if (host_nonfinite(kernels::Part::all, false, int64_t(rows_a), int64_t(cols_a), g.a, size_t(g.lda)) ||
        (two && host_nonfinite(kernels::Part::all, false, int64_t(rows_a), int64_t(cols_a), g.b, size_t(g.ldb))))
      return Status::special_values;
    SmallTransfer transfer(ctx);
    if (Status s = transfer.begin(a_bytes + b_bytes + c_bytes + work_bytes, "small rank update"); s != Status::ok) return s;
    char *d = transfer.device();
    transfer.pack(0, g.a, size_t(g.lda) * es, rows_a * es, cols_a, ldda * es);
    if (two) transfer.pack(a_bytes, g.b, size_t(g.ldb) * es, rows_a * es, cols_a, ldda * es);
    // C's square: for n up to a triangle block (kTriangleCols), what upload_triangle sends too.
    if (g.beta != T(0)) transfer.pack(a_bytes + b_bytes, g.c, size_t(g.ldc) * es, size_t(g.n) * es, size_t(g.n), lddc * es);
    if (Status s = transfer.send(sent, "small rank update"); s != Status::ok) return s;
    const T *dA = reinterpret_cast<const T *>(d);
    const T *dB = two ? reinterpret_cast<const T *>(d + a_bytes) : nullptr;
    T *dC = reinterpret_cast<T *>(d + a_bytes + b_bytes);
    Status s = rank_update_on_device(g, dA, dB, ldda, dC, lddc, ctx.stream,
                                     work_bytes > 0 ? d + a_bytes + b_bytes + c_bytes : nullptr, work_bytes);
    if (s == Status::ok) s = transfer.receive(a_bytes + b_bytes, lddc * size_t(g.n) * es, "small rank update");
    if (s != Status::ok) return s;
    // Only uplo's triangle is the caller's to write.
    for (int64_t j = 0; j < g.n; ++j) {
      const int64_t i0 = lower ? j : 0, i1 = lower ? g.n : j + 1;
      transfer.unpack((size_t(i0) + size_t(j) * lddc) * es, lddc * es, g.c + size_t(i0) + size_t(j) * g.ldc,
                      size_t(g.ldc) * es, size_t(i1 - i0) * es, 1);
    }
    return Status::ok;
  }();
  return true;
}

// SYRK, SYR2K, HERK, HER2K: A (and B), C's triangle when read, on the device whole.
template <class T>
Status rank_update_host(GpuContext &ctx, const Level3Args<T> &g, size_t cap) {
  const size_t es = sizeof(T);
  const bool two = g.op == Family::syr2k || g.op == Family::her2k, notrans = !g.trans, lower = g.uplo == Uplo::lower;
  const size_t rows_a = notrans ? size_t(g.n) : size_t(g.k), cols_a = notrans ? size_t(g.k) : size_t(g.n);
  const size_t ldda = padded_ld(rows_a, es), lddc = padded_ld(size_t(g.n), es);
  const size_t a_bytes = ldda * cols_a * es, c_bytes = lddc * size_t(g.n) * es;
  const size_t work_bytes = syr2k_device_workspace<T>(g.trans, g.n, g.k);
  const size_t flag_at = round_up(work_bytes, kFlagBytes);
  const size_t total = a_bytes * (two ? 2 : 1) + c_bytes + flag_at + kFlagBytes;
  if (total > cap) {
    log(1, "%s: its operands (%.1f MiB) do not fit %.1f MiB of device memory: the call runs on the CPU",
        op_name<T>(g.op), mib(total), mib(cap));
    return Status::out_of_memory;
  }
  void *dA = nullptr, *dB = nullptr, *dC = nullptr, *dWork = nullptr;
  if (Status s = device_buffers(ctx, {{Slot::a, a_bytes, &dA}, {Slot::b, two ? a_bytes : 0, &dB},
                                      {Slot::c, c_bytes, &dC}, {Slot::work, flag_at + kFlagBytes, &dWork}});
      s != Status::ok)
    return s;
  NonfiniteFlag special{ctx};
  Status s = special.start(static_cast<char *>(dWork) + flag_at);
  if (s == Status::ok) s = upload_matrix(ctx, g.a, size_t(g.lda) * es, rows_a * es, cols_a, dA, ldda * es);
  if (s == Status::ok) s = special.scan(kernels::Part::all, false, rows_a, cols_a, static_cast<const T *>(dA), ldda);
  if (s == Status::ok && two) s = upload_matrix(ctx, g.b, size_t(g.ldb) * es, rows_a * es, cols_a, dB, ldda * es);
  if (s == Status::ok && two) s = special.scan(kernels::Part::all, false, rows_a, cols_a, static_cast<const T *>(dB), ldda);
  if (s == Status::ok) s = special.send_back();
  if (s == Status::ok && g.beta != T(0))
    s = upload_triangle(ctx, lower, g.n, static_cast<const T *>(g.c), size_t(g.ldc), static_cast<T *>(dC), lddc);
  if (s == Status::ok)
    s = rank_update_on_device(g, static_cast<const T *>(dA), two ? static_cast<const T *>(dB) : nullptr, ldda,
                              static_cast<T *>(dC), lddc, ctx.stream, dWork, work_bytes);
  // Everything must have succeeded before the first byte of the caller's C changes.
  if (s == Status::ok) s = check(cudaStreamSynchronize(ctx.stream), "syrk");
  if (s != Status::ok) return s;
  if (special.raised()) return Status::special_values;
  return download_triangle(ctx, lower, g.n, static_cast<const T *>(dC), lddc, g.c, size_t(g.ldc));
}

// lean: TRSM's workspace without its products' (which then take their own).
template <class T>
size_t side_workspace(const Level3Args<T> &g, int64_t cols, bool lean) {
  switch (g.op) {
    case Family::trsm: return trsm_device_workspace<T>(g.side, g.m, cols, lean);
    case Family::trmm: return trmm_device_workspace<T>(g.side, g.m, cols);
    default: return symm_device_workspace<T>(g.side, g.m, cols);
  }
}

// The device's SYMM, HEMM, TRMM or TRSM on `cols` columns of B (and C), the call's A.
template <class T>
Status side_on_device(const Level3Args<T> &g, int64_t cols, const T *dA, size_t ldda, T *dB, T *dC, size_t lddb,
                      cudaStream_t stream, void *work, size_t work_bytes) {
  switch (g.op) {
    case Family::trsm:
      return trsm_device<T>(g.side, g.uplo, g.trans, g.diag, g.m, cols, g.alpha, dA, ldda, dB, lddb, stream, work,
                            work_bytes);
    case Family::trmm:
      return trmm_device<T>(g.side, g.uplo, g.trans, g.diag, g.m, cols, g.alpha, dA, ldda, dB, lddb, dC, lddb, stream,
                            work, work_bytes);
    case Family::hemm:
      if constexpr (is_complex_v<T>)
        return hemm_device<T>(g.side, g.uplo, g.m, cols, g.alpha, dA, ldda, dB, lddb, g.beta, dC, lddb, stream, work,
                              work_bytes);
      [[fallthrough]];  // a real Hermitian matrix is symmetric
    default:
      return symm_device<T>(g.side, g.uplo, g.m, cols, g.alpha, dA, ldda, dB, lddb, g.beta, dC, lddb, stream, work,
                            work_bytes);
  }
}

// A SYMM, HEMM, TRMM or TRSM call's shape on the device: A's square of `order`, B (and C) m
// rows at lddb.
struct SideLayout {
  bool left, lower;
  bool has_c;    // TRMM goes out of place: B in, the result out
  bool reads_c;  // SYMM, HEMM with beta != 0
  int64_t order;
  size_t ldda, lddb;
};
template <class T>
SideLayout side_layout(const Level3Args<T> &g) {
  const bool left = g.side == Side::left;
  const int64_t order = left ? g.m : g.n;
  return {left, g.uplo == Uplo::lower, g.op != Family::trsm,
          (g.op == Family::symm || g.op == Family::hemm) && g.beta != T(0), order,
          padded_ld(size_t(order), sizeof(T)), padded_ld(size_t(g.m), sizeof(T))};
}

// SYMM, HEMM, TRMM, TRSM small: A's square (for orders up to a triangle block, kTriangleCols,
// what upload_triangle sends too), B (and C) in one transfer, Inf and NaN among A's triangle
// and B judged on the host, the result back in one. False when the call is not small
// (*status untouched).
template <class T>
bool side_small(GpuContext &ctx, const Level3Args<T> &g, Status *status) {
  const size_t es = sizeof(T);
  const SideLayout layout = side_layout(g);  // (named copies: lambdas below cannot capture structured bindings)
  const bool lower = layout.lower, has_c = layout.has_c, reads_c = layout.reads_c;
  const int64_t order = layout.order;
  const size_t ldda = layout.ldda, lddb = layout.lddb;
  const size_t a_bytes = scratch_region(ldda * size_t(order) * es), b_bytes = scratch_region(lddb * size_t(g.n) * es);
  const size_t c_bytes = has_c ? b_bytes : 0;
  const size_t work_bytes = side_workspace(g, g.n, false);
  const size_t sent = a_bytes + b_bytes + (reads_c ? c_bytes : 0), result_at = has_c ? a_bytes + b_bytes : a_bytes;
  if (!SmallTransfer::small(ctx, a_bytes + b_bytes + c_bytes + work_bytes, sent, b_bytes)) return false;
  *status = [&] {
    if (skips_zero_entries(g.op) &&
        (host_nonfinite(lower ? kernels::Part::lower : kernels::Part::upper, g.diag == Diag::unit, order, order, g.a,
                        size_t(g.lda)) ||
         host_nonfinite(kernels::Part::all, false, g.m, g.n, g.b, size_t(g.ldb))))
      return Status::special_values;
    SmallTransfer transfer(ctx);
    if (Status s = transfer.begin(a_bytes + b_bytes + c_bytes + work_bytes, "small level 3"); s != Status::ok) return s;
    char *d = transfer.device();
    transfer.pack(0, g.a, size_t(g.lda) * es, size_t(order) * es, size_t(order), ldda * es);
    transfer.pack(a_bytes, g.b, size_t(g.ldb) * es, size_t(g.m) * es, size_t(g.n), lddb * es);
    if (reads_c) transfer.pack(a_bytes + b_bytes, g.c, size_t(g.ldc) * es, size_t(g.m) * es, size_t(g.n), lddb * es);
    if (Status s = transfer.send(sent, "small level 3"); s != Status::ok) return s;
    Status s = side_on_device(g, g.n, reinterpret_cast<const T *>(d), ldda, reinterpret_cast<T *>(d + a_bytes),
                              has_c ? reinterpret_cast<T *>(d + a_bytes + b_bytes) : nullptr, lddb, ctx.stream,
                              work_bytes > 0 ? d + a_bytes + b_bytes + c_bytes : nullptr, work_bytes);
    if (s == Status::ok) s = transfer.receive(result_at, lddb * size_t(g.n) * es, "small level 3");
    if (s != Status::ok) return s;
    transfer.unpack(0, lddb * es, g.c, size_t(g.ldc) * es, size_t(g.m) * es, size_t(g.n));
    return Status::ok;
  }();
  return true;
}

// SYMM, TRMM, TRSM: the triangle of A whole on the device; B (and C) in chunks of columns on
// the left side (one chunk on the right, where every column of the result needs all of B's).
template <class T>
Status side_host(GpuContext &ctx, const Level3Args<T> &g, size_t cap, Level3Progress *progress) {
  const size_t es = sizeof(T);
  const SideLayout layout = side_layout(g);  // (named copies: lambdas below cannot capture structured bindings)
  const bool left = layout.left, lower = layout.lower, has_c = layout.has_c, reads_c = layout.reads_c;
  const int64_t order = layout.order;
  const size_t ldda = layout.ldda, lddb = layout.lddb;
  const size_t a_bytes = ldda * size_t(order) * es;
  bool lean = false;  // TRSM's products without their workspace (side_workspace)
  auto device_bytes = [&](int64_t cols, int buffers) {
    return a_bytes + size_t(buffers) * lddb * size_t(cols) * es * (has_c ? 2 : 1) + side_workspace(g, cols, lean);
  };
  // Columns per chunk: a few chunks, so that uploads overlap the math, none too thin for it;
  // lean only when nothing fits otherwise.
  int64_t chunk = g.n;
  auto plan_chunk = [&] {
    chunk = g.n;
    if (left && g.n > 2 * tuning::kLevel3MinChunkCols)
      chunk = std::max<int64_t>(tuning::kLevel3MinChunkCols, round_up(ceil_div(g.n, tuning::kLevel3Chunks), 64));
    while (left && chunk > 64 && device_bytes(chunk, chunk < g.n ? 2 : 1) > cap)
      chunk = round_up(ceil_div(chunk, 2), 64);
    return device_bytes(chunk, chunk < g.n ? 2 : 1) <= cap;
  };
  if (!plan_chunk() && g.op == Family::trsm) {
    lean = true;
    plan_chunk();
  }
  const int buffers = chunk < g.n ? 2 : 1;
  if (device_bytes(chunk, buffers) > cap) {
    log(1, "%s: %s (%.1f MiB) does not fit %.1f MiB of device memory: the call runs on the CPU",
        op_name<T>(g.op), left ? "A with a chunk of B" : "A with B", mib(device_bytes(chunk, buffers)),
        mib(cap));
    return Status::out_of_memory;
  }
  const size_t chunk_bytes = lddb * size_t(chunk) * es, work_bytes = side_workspace(g, chunk, lean);
  const size_t flag_at = round_up(work_bytes, kFlagBytes);
  void *a_dev = nullptr, *b_dev = nullptr, *c_dev = nullptr, *work = nullptr;
  if (Status s = device_buffers(ctx, {{Slot::a, a_bytes, &a_dev}, {Slot::b, chunk_bytes * buffers, &b_dev},
                                      {Slot::c, has_c ? chunk_bytes * buffers : 0, &c_dev},
                                      {Slot::work, flag_at + kFlagBytes, &work}});
      s != Status::ok)
    return s;
  const T *dA = static_cast<const T *>(a_dev);
  const bool scans = skips_zero_entries(g.op);
  NonfiniteFlag special{ctx};
  if (scans) {
    if (Status s = special.start(static_cast<char *>(work) + flag_at); s != Status::ok) return s;
  }
  if (Status s = upload_triangle(ctx, lower, order, g.a, size_t(g.lda), static_cast<T *>(a_dev), ldda); s != Status::ok)
    return s;
  if (scans) {
    if (Status s = special.scan(lower ? kernels::Part::lower : kernels::Part::upper, g.diag == Diag::unit, order, order,
                                dA, ldda);
        s != Status::ok)
      return s;
  }
  const size_t chunk_elems = lddb * size_t(chunk);
  auto dB = [&](int64_t i) { return static_cast<T *>(b_dev) + size_t(i % buffers) * chunk_elems; };
  auto dC = [&](int64_t i) { return static_cast<T *>(c_dev) + size_t(i % buffers) * chunk_elems; };
  auto upload_chunk = [&](int64_t i) {
    const int64_t c0 = i * chunk, cols = std::min<int64_t>(chunk, g.n - c0);
    Status s = upload_matrix(ctx, g.b + size_t(c0) * g.ldb, size_t(g.ldb) * es, size_t(g.m) * es, size_t(cols),
                             dB(i), lddb * es);
    if (s == Status::ok && scans) s = special.scan(kernels::Part::all, false, g.m, cols, dB(i), lddb);
    if (s == Status::ok && scans) s = special.send_back();
    if (s == Status::ok && reads_c)
      s = upload_matrix(ctx, g.c + size_t(c0) * g.ldc, size_t(g.ldc) * es, size_t(g.m) * es, size_t(cols), dC(i),
                        lddb * es);
    if (s == Status::ok) s = check(cudaEventRecord(ctx.panel_ready, ctx.stream), "level3 upload");
    return s;
  };
  auto compute_chunk = [&](int64_t i, int64_t cols) {
    return side_on_device(g, cols, dA, ldda, dB(i), has_c ? dC(i) : nullptr, lddb, ctx.compute, work, work_bytes);
  };
  const int64_t chunks = ceil_div(g.n, chunk);
  if (Status s = upload_chunk(0); s != Status::ok) return s;
  for (int64_t i = 0; i < chunks; ++i) {
    const int64_t c0 = i * chunk, cols = std::min<int64_t>(chunk, g.n - c0);
    Status s = check(cudaStreamWaitEvent(ctx.compute, ctx.panel_ready, 0), "level3 pipeline");
    if (s == Status::ok) s = compute_chunk(i, cols);
    if (s == Status::ok) s = check(cudaEventRecord(ctx.panel_done[0], ctx.compute), "level3 pipeline");
    // The next chunk goes up while this one is computed (its buffer's last reader, the
    // download two chunks back, has finished: downloads return when done).
    if (s == Status::ok && i + 1 < chunks) s = upload_chunk(i + 1);
    if (s == Status::ok) s = check(cudaStreamWaitEvent(ctx.stream, ctx.panel_done[0], 0), "level3 pipeline");
    // The chunk's flag (A's, and B's chunks so far) is back once ctx.stream has passed its copy;
    // the download below waits for that stream anyway.
    if (s == Status::ok && scans) s = check(cudaStreamSynchronize(ctx.stream), "level3 flag");
    if (s != Status::ok) return s;
    if (scans && special.raised()) return Status::special_values;
    size_t done = 0;
    const T *result = has_c ? dC(i) : dB(i);
    s = download_matrix(ctx, result, lddb * es, size_t(g.m) * es, size_t(cols), g.c + size_t(c0) * g.ldc,
                        size_t(g.ldc) * es, &done);
    // Columns of the result are independent only on the left; on the right a download that
    // stopped part way cannot be finished by the CPU from the columns written.
    if (left) progress->columns = c0 + int64_t(done);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

}  // namespace

template <class T>
Status level3_host(const Level3Args<T> &g, Level3Progress *progress) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  progress->total = g.n;
  if (skips_zero_entries(g.op) && !finite_scalar(g.alpha)) return Status::special_values;
  const bool rank_update =
      g.op == Family::syrk || g.op == Family::syr2k || g.op == Family::herk || g.op == Family::her2k;
  Status small = Status::ok;
  if (rank_update ? rank_update_small(ctx, g, &small) : side_small(ctx, g, &small)) return small;
  size_t cap = 0;
  if (Status s = device_memory_cap(ctx, &cap); s != Status::ok) return s;
  return rank_update ? rank_update_host(ctx, g, cap) : side_host(ctx, g, cap, progress);
}

template Status level3_host<float>(const Level3Args<float> &, Level3Progress *);
template Status level3_host<double>(const Level3Args<double> &, Level3Progress *);
template Status level3_host<Complex<float>>(const Level3Args<Complex<float>> &, Level3Progress *);
template Status level3_host<Complex<double>>(const Level3Args<Complex<double>> &, Level3Progress *);

}  // namespace cudrop::impl
