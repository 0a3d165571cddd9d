#include "impl/getrf/getrf_several.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/layout.h"
#include "core/log.h"
#include "core/routines.h"
#include "impl/context/chunk_board.h"
#include "impl/context/multi_device.h"
#include "impl/context/saved_matrix.h"
#include "impl/context/step_lanes.h"
#include "impl/gemm/gemm.h"
#include "impl/getrf/getrf.h"
#include "impl/level3/level3_device.h"
#include "kernels/getrf_update.cuh"

namespace cudrop::impl {
namespace {

// The block columns (each one step's panel: m >= n) and who holds each.
using Blocks = ColumnBlocks;

// One device's part of a call.
template <class T>
struct Member : ColumnMember<T> {
  int *d_piv = nullptr;   // every step's pivots (step k's at [first(k), first(k) + width(k)), from its first row, 1-based)
  int *d_info = nullptr;  // one int per block column it holds (getrf_device's INFO)
  void *getrf_work = nullptr;
  void *trsm_work[2] = {};  // the update stream's, the lane's (both solve at once)
  size_t trsm_bytes = 0;
  int *info(const Blocks &b, int j) const { return d_info + j / b.devices; }
};

template <class T>
using Call = ColumnCall<Member<T>, T>;

// Rows first..first+rows-1 of the ncols columns at `col` interchanged as the step's pivots say
// (relative to `first`), in order.
template <class T>
Status swap_rows(T *col, size_t ld, int ncols, const int *piv, int rows, cudaStream_t stream) {
  cudaError_t error = cudaSuccess;
  for (int r = 0; r < rows && error == cudaSuccess; r += kernels::kSwapMaxRows)
    error = kernels::launch_getrf_swap_rows(col, ld, ncols, piv, r, std::min(rows, r + kernels::kSwapMaxRows), stream);
  return check(error, "getrf several: interchanges");
}

// Step k applied to `cols` local columns from block column j > k on (this device's block columns
// lie side by side, every one with all m rows, so those after k are one matrix): their rows
// interchanged, their block row of U solved with L11, the rows below updated with L21 U12, one
// launch each. p: the factored panel k, rows as in A. On the lane (the look-ahead's block
// column) or the update stream (the rest), each with its own TRSM workspace.
template <class T>
Status update_columns(const Blocks &b, Member<T> &m, int k, const T *p, size_t ldp, int j, int cols, bool on_lane) {
  const cudaStream_t stream = on_lane ? m.lanes.lane : m.ctx->compute;
  const int g0 = b.first(k), kb = b.width(k), g1 = g0 + kb, jb = cols;
  T *col = m.block(b, j);
  Status s = swap_rows(col + g0, m.ldl, jb, m.d_piv + g0, kb, stream);
  if (s == Status::ok)
    s = trsm_device<T>(Side::left, Uplo::lower, Op::none, Diag::unit, kb, jb, T(1), p + g0, ldp, col + g0, m.ldl, stream,
                       m.trsm_work[on_lane ? 1 : 0], m.trsm_bytes);
  if (s == Status::ok && b.rows > g1)
    s = gemm_device<T>(Op::none, Op::none, b.rows - g1, jb, kb, T(-1), p + g1, ldp, col + g0, m.ldl, T(1), col + g1, m.ldl,
                       stream);
  return s;
}

// Panel j, updated by every step before it, factored on the lane; ready[j] recorded, posted.
template <class T>
Status factor_panel(Call<T> &c, Member<T> &m, int j) {
  const Blocks &b = c.b;
  const int g0 = b.first(j);
  T *panel = m.block(b, j) + g0;
  Status s = getrf_device<T>(b.rows - g0, b.width(j), panel, m.ldl, m.d_piv + g0, m.info(b, j), m.getrf_work, m.lanes.lane);
  if (s == Status::ok) s = check(cudaEventRecord(c.ready[size_t(j)], m.lanes.lane), "getrf several");
  if (s == Status::ok) c.board.post(j, {panel, m.ldl * sizeof(T)});
  return s;
}

template <class T>
Status set_up(Call<T> &c, Member<T> &m) {
  const Blocks &b = c.b;
  const size_t es = sizeof(T);
  const int held = b.held(m.me);
  m.ldl = padded_ld(size_t(b.rows), es);
  m.trsm_bytes = size_t(round_up(trsm_device_workspace<T>(Side::left, b.nb, b.nb), 256));
  const size_t getrf_bytes = size_t(round_up(getrf_device_workspace<T>(b.rows, b.nb), 256));
  const size_t piv_bytes = size_t(round_up(sizeof(int) * size_t(b.n + held), 256));
  void *local = nullptr, *panels = nullptr, *small = nullptr;
  Status s = device_buffers(*m.ctx, {{Slot::a, m.ldl * size_t(b.nb) * size_t(std::max(held, 1)) * es, &local},
                                     {Slot::b, 2 * m.ldl * size_t(b.nb) * es, &panels},
                                     {Slot::c, getrf_bytes + 2 * m.trsm_bytes + piv_bytes, &small}});
  if (s != Status::ok) return s;
  m.local = static_cast<T *>(local);
  m.panel[0] = static_cast<T *>(panels);
  m.panel[1] = m.panel[0] + m.ldl * size_t(b.nb);
  auto *bytes = static_cast<char *>(small);
  m.getrf_work = bytes;
  for (int w = 0; w < 2; ++w) m.trsm_work[w] = m.trsm_bytes > 0 ? bytes + getrf_bytes + w * m.trsm_bytes : nullptr;
  m.d_piv = reinterpret_cast<int *>(bytes + getrf_bytes + 2 * m.trsm_bytes);
  m.d_info = m.d_piv + b.n;
  cudaError_t error = c.make_lanes(m);
  if (error == cudaSuccess) error = cudaMemsetAsync(m.d_info, 0, sizeof(int) * size_t(std::max(held, 1)), m.ctx->stream);
  if ((s = check(error, "getrf several: streams and events")) != Status::ok) return s;
  return c.upload_held(m, b.rows, false);
}

// Step k on one device (run_column_steps): every step's pivots reach it (the interchanges at
// the end need them), the panel, from its diagonal block down, only while it holds block
// columns after it; the step is applied to all of its block columns after it at once.
template <class T>
struct LuSteps {
  Call<T> &c;
  Member<T> &m;
  bool every_step = true;
  cudaError_t copy_panel(int k, const ChunkBoard::Posted &where, bool whole, const T **p) const {
    const Blocks &b = c.b;
    const int g0 = b.first(k), kb = b.width(k);
    const Member<T> &owner = c.members[size_t(b.owner(k))];
    T *into = m.panel[k % 2];
    *p = into;
    cudaError_t error = copy_between_devices(m.d_piv + g0, m.ctx->device, sizeof(int) * size_t(kb), owner.d_piv + g0,
                                             owner.ctx->device, sizeof(int) * size_t(kb), sizeof(int) * size_t(kb), 1,
                                             m.lanes.copies);
    if (error == cudaSuccess && whole)
      error = copy_between_devices(into + g0, m.ctx->device, m.ldl * sizeof(T), where.dev, owner.ctx->device,
                                   where.ldd_bytes, size_t(b.rows - g0) * sizeof(T), size_t(kb), m.lanes.copies);
    return error;
  }
  Status update(int k, const T *p, int first, bool on_lane) const {
    const int cols = on_lane ? c.b.width(first) : c.b.columns_held_from(m.me, first);
    return update_columns(c.b, m, k, p, m.ldl, first, cols, on_lane);
  }
  Status factor(int j) const { return factor_panel(c, m, j); }
};

// One device's steps; returns once everything it queued is done.
template <class T>
Status run_member(Call<T> &c, Member<T> &m) {
  Status s = set_up(c, m);
  LuSteps<T> steps{c, m};
  if (s == Status::ok) s = run_column_steps(c, m, steps);
  const cudaStream_t streams[] = {m.lanes.lane, m.lanes.copies, m.ctx->compute, m.ctx->stream};
  for (cudaStream_t stream : streams)
    if (s == Status::ok && stream != nullptr) s = check(cudaStreamSynchronize(stream), "getrf several");
  return s;
}

// After every device's steps: each step's interchanges applied to this device's block columns
// before it (side by side from its first: one launch a step); they then go back to the
// caller's array.
template <class T>
Status finish_member(Call<T> &c, Member<T> &m) {
  const Blocks &b = c.b;
  Status s = Status::ok;
  for (int k = 1; s == Status::ok && k < b.count(); ++k) {
    const int before = b.columns_held_from(m.me, 0) - b.columns_held_from(m.me, k);
    if (before > 0)
      s = swap_rows(m.local + size_t(b.first(k)), m.ldl, before, m.d_piv + b.first(k), b.width(k), m.ctx->compute);
  }
  if (s == Status::ok) s = check(cudaStreamSynchronize(m.ctx->compute), "getrf several");
  for (int j = m.me; s == Status::ok && j < b.count(); j += b.devices)
    s = download_matrix(*m.ctx, m.block(b, j), m.ldl * sizeof(T), size_t(b.rows) * sizeof(T), size_t(b.width(j)),
                        c.a + size_t(b.first(j)) * size_t(c.lda), size_t(c.lda) * sizeof(T));
  return s;
}

}  // namespace

template <class T>
Status getrf_several(const std::vector<GpuContext *> &devices, int m, int n, T *a, int lda, int *ipiv, int *info) {
  const Blocks b{m, n, kGetrfSeveralNb, int(std::min<size_t>(devices.size(), size_t(ceil_div(n, kGetrfSeveralNb))))};
  Call<T> c(b, a, lda, devices);
  log(2, "%s over %d devices: block columns of %d dealt out in turn", routine_names<Family::getrf, T>.symbol,
      b.devices, b.nb);
  // The caller's matrix, kept while the devices work: the write-back writes over it from every
  // device at once, and one that fails part way must be able to put it back.
  SavedMatrix<T> saved(a, size_t(lda), size_t(m), size_t(n));
  SharedCopier shared(*devices[0]);
  std::vector<Status> status;
  auto failed = [&] {
    for (Status st : status)
      if (st != Status::ok) return st;
    return Status::ok;
  };
  run_device_threads(
      c.used, [&](int d) { return run_member(c, c.members[size_t(d)]); }, status, [&] { c.board.close(); }, [] {});
  Status s = failed();
  // Every step's pivots and INFO, before anything is written.
  std::vector<int> pivots(static_cast<size_t>(n), 0), infos(static_cast<size_t>(b.count()), 0);
  if (s == Status::ok) {
    s = check(cudaSetDevice(c.used[0]->device), "getrf several");
    if (s == Status::ok)
      s = check(cudaMemcpy(pivots.data(), c.members[0].d_piv, sizeof(int) * size_t(n), cudaMemcpyDeviceToHost),
                "getrf several: pivots");
    for (int k = 0; s == Status::ok && k < b.count(); ++k) {
      const Member<T> &owner = c.members[size_t(b.owner(k))];
      s = check(cudaSetDevice(owner.ctx->device), "getrf several");
      if (s == Status::ok)
        s = check(cudaMemcpy(&infos[size_t(k)], owner.info(b, k), sizeof(int), cudaMemcpyDeviceToHost),
                  "getrf several: info");
    }
  }
  if (s == Status::ok) {
    const bool kept = saved.ready();
    run_device_threads(c.used, [&](int d) { return finish_member(c, c.members[size_t(d)]); }, status, [] {}, [] {});
    s = failed();
    if (s != Status::ok && kept) saved.restore(a, size_t(lda), size_t(n));
    else if (s != Status::ok) log(1, "%s: a write-back over several devices failed with no copy of the matrix kept",
                                  routine_names<Family::getrf, T>.symbol);
  }
  c.release();
  cudaSetDevice(devices[0]->device);
  cudaGetLastError();
  if (s != Status::ok) return s;
  int first_zero = 0;
  for (int k = 0; k < b.count(); ++k) {
    const int g0 = b.first(k);
    for (int i = 0; i < b.width(k); ++i) ipiv[g0 + i] = g0 + pivots[size_t(g0 + i)];
    if (first_zero == 0 && infos[size_t(k)] > 0) first_zero = g0 + infos[size_t(k)];
  }
  *info = first_zero;
  return Status::ok;
}

#define CUDROP_GETRF_SEVERAL_INSTANCE(T) \
  template Status getrf_several<T>(const std::vector<GpuContext *> &, int, int, T *, int, int *, int *);
CUDROP_GETRF_SEVERAL_INSTANCE(float)
CUDROP_GETRF_SEVERAL_INSTANCE(double)
CUDROP_GETRF_SEVERAL_INSTANCE(Complex<float>)
CUDROP_GETRF_SEVERAL_INSTANCE(Complex<double>)
#undef CUDROP_GETRF_SEVERAL_INSTANCE

}  // namespace cudrop::impl
