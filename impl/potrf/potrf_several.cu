#include "impl/potrf/potrf_several.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "core/layout.h"
#include "core/log.h"
#include "core/routines.h"
#include "impl/context/multi_device.h"
#include "impl/context/step_lanes.h"
#include "impl/context/chunk_board.h"
#include "impl/gemm/gemm.h"
#include "impl/level3/level3_device.h"

namespace cudrop::impl {
namespace {

using Blocks = ColumnBlocks;  // rows == n

// One device's part of a call.
template <class T>
struct Member : ColumnMember<T> {
  int *d_info = nullptr;  // two ints per block column it holds (potrf_device's d_work)
  void *trsm_work = nullptr;
  size_t trsm_bytes = 0;
  int *info(const Blocks &b, int j) const { return d_info + 2 * (j / b.devices); }
};

// What the devices' threads and the writer share.
template <class T>
using Call = ColumnCall<Member<T>, T>;

// A - P P^H on block column j's rows from its diagonal down, P the factored block column k (rows
// as in A, leading dimension ldp).
template <class T>
Status update_block(const Blocks &b, Member<T> &m, int k, const T *p, size_t ldp, int j, cudaStream_t stream) {
  const int gj = b.first(j);
  return gemm_device<T>(Op::none, Op::conj_trans, b.n - gj, b.width(j), b.width(k), T(-1), p + gj, ldp, p + gj, ldp,
                        T(1), m.block(b, j) + gj, m.ldl, stream);
}

// Block column j, updated by every step before it: its diagonal block factored, the rows below
// solved with it; ready[j] recorded and the rows below posted for the other devices.
template <class T>
Status factor_block(Call<T> &c, Member<T> &m, int j) {
  const Blocks &b = c.b;
  const int g0 = b.first(j), jb = b.width(j), below = b.n - g0 - jb;
  T *diag = m.block(b, j) + g0;
  Status s = potrf_device<T>(jb, diag, m.ldl, m.info(b, j), m.lanes.lane);
  if (s == Status::ok && below > 0)
    s = trsm_device<T>(Side::right, Uplo::lower, Op::conj_trans, Diag::non_unit, below, jb, T(1), diag, m.ldl,
                       diag + jb, m.ldl, m.lanes.lane, m.trsm_work, m.trsm_bytes);
  if (s == Status::ok) s = check(cudaEventRecord(c.ready[size_t(j)], m.lanes.lane), "potrf several");
  if (s == Status::ok) c.board.post(j, {diag + jb, m.ldl * sizeof(T)});
  return s;
}

// Buffers, streams, events and this device's block columns uploaded.
template <class T>
Status set_up(Call<T> &c, Member<T> &m) {
  const Blocks &b = c.b;
  const size_t es = sizeof(T);
  const int held = b.held(m.me);
  m.ldl = padded_ld(size_t(b.n), es);
  m.trsm_bytes = trsm_device_workspace<T>(Side::right, b.n, b.nb);
  const size_t info_bytes = size_t(round_up(2 * sizeof(int) * size_t(std::max(held, 1)), 256));
  void *local = nullptr, *panels = nullptr, *small = nullptr;
  Status s = device_buffers(*m.ctx, {{Slot::a, m.ldl * size_t(b.nb) * size_t(std::max(held, 1)) * es, &local},
                                     {Slot::b, 2 * m.ldl * size_t(b.nb) * es, &panels},
                                     {Slot::c, info_bytes + m.trsm_bytes, &small}});
  if (s != Status::ok) return s;
  m.local = static_cast<T *>(local);
  m.panel[0] = static_cast<T *>(panels);
  m.panel[1] = m.panel[0] + m.ldl * size_t(b.nb);
  m.d_info = static_cast<int *>(small);
  m.trsm_work = m.trsm_bytes > 0 ? static_cast<char *>(small) + info_bytes : nullptr;
  cudaError_t error = c.make_lanes(m);
  if ((s = check(error, "potrf several: streams and events")) != Status::ok) return s;
  if ((s = return_lane(*m.ctx)) != Status::ok) return s;
  if ((s = check(cudaMemsetAsync(m.d_info, 0, info_bytes, m.ctx->stream), "potrf several")) != Status::ok) return s;
  return c.upload_held(m, b.n, true);
}

// Step k on one device (run_column_steps): the rows below panel k's diagonal block are what the
// other devices copy, into one of two panel buffers by step parity; each block column it updates
// is one GEMM from its diagonal down.
template <class T>
struct CholeskySteps {
  Call<T> &c;
  Member<T> &m;
  bool every_step = false;
  cudaError_t copy_panel(int k, const ChunkBoard::Posted &where, bool, const T **p) const {
    const Blocks &b = c.b;
    const int g1 = b.first(k) + b.width(k);
    T *into = m.panel[k % 2];
    *p = into;
    return copy_between_devices(into + g1, m.ctx->device, m.ldl * sizeof(T), where.dev,
                                c.members[size_t(b.owner(k))].ctx->device, where.ldd_bytes,
                                size_t(b.n - g1) * sizeof(T), size_t(b.width(k)), m.lanes.copies);
  }
  Status update(int k, const T *p, int first, bool on_lane) const {
    if (on_lane) return update_block(c.b, m, k, p, m.ldl, first, m.lanes.lane);
    Status s = Status::ok;
    for (int j = first; s == Status::ok && j < c.b.count(); j += c.b.devices)
      s = update_block(c.b, m, k, p, m.ldl, j, m.ctx->compute);
    return s;
  }
  Status factor(int j) const { return factor_block(c, m, j); }
};

template <class T>
Status run_member(Call<T> &c, Member<T> &m) {
  Status s = set_up(c, m);
  if (s != Status::ok) return s;
  CholeskySteps<T> steps{c, m};
  return run_column_steps(c, m, steps);
}

// The writer: block column j into the caller's array once factored, in order, from its owner
// (rows below the diagonal block in one download, the diagonal block's lower triangle through
// pinned memory). Stops at a failure or a leading minor not positive definite.
template <class T>
Status write_back(Call<T> &c, T *pinned, PotrfProgress *progress, bool *not_definite) {
  const Blocks &b = c.b;
  const size_t es = sizeof(T);
  for (int j = 0; j < b.count(); ++j) {
    ChunkBoard::Posted where;
    if (!c.board.take(j, &where)) return Status::ok;  // a device stopped: its own status says why
    Member<T> &m = c.members[size_t(b.owner(j))];
    WorkingOn working(m.ctx);
    const int g0 = b.first(j), jb = b.width(j), g1 = g0 + jb;
    int info = 0;
    Status s = check(cudaSetDevice(m.ctx->device), "potrf several: write-back");
    if (s == Status::ok) s = check(cudaStreamWaitEvent(m.ctx->return_stream, c.ready[size_t(j)], 0), "potrf several");
    if (s == Status::ok)
      s = check(cudaMemcpyAsync(pinned, m.info(b, j), sizeof(int), cudaMemcpyDeviceToHost, m.ctx->return_stream),
                "potrf several: info");
    if (s == Status::ok)
      s = check(cudaMemcpy2DAsync(pinned + 1, size_t(jb) * es, m.block(b, j) + g0, m.ldl * es, size_t(jb) * es,
                                  size_t(jb), cudaMemcpyDeviceToHost, m.ctx->return_stream),
                "potrf several: diagonal block");
    if (s == Status::ok) s = check(cudaStreamSynchronize(m.ctx->return_stream), "potrf several: write-back");
    if (s != Status::ok) return s;
    std::memcpy(&info, pinned, sizeof(int));
    if (info != 0) {
      *not_definite = true;
      return Status::ok;
    }
    if (g1 < b.n) {
      s = download_matrix_returning(*m.ctx, m.block(b, j) + g1, m.ldl * es, size_t(b.n - g1) * es, size_t(jb),
                                    c.a + size_t(g1) + size_t(g0) * size_t(c.lda), size_t(c.lda) * es);
      if (s != Status::ok) return s;  // the block's columns may be written in part: not counted
    }
    const T *diag = pinned + 1;
    for (int col = 0; col < jb; ++col)
      std::memcpy(c.a + size_t(g0 + col) + size_t(g0 + col) * size_t(c.lda), diag + size_t(col) + size_t(col) * jb,
                  size_t(jb - col) * es);
    progress->columns = g1;
  }
  return Status::ok;
}

}  // namespace

template <class T>
Status potrf_several(const std::vector<GpuContext *> &devices, int n, T *a, int lda, int *info,
                     PotrfProgress *progress) {
  const Blocks b{n, n, kPotrfSeveralNb, int(std::min<size_t>(devices.size(), size_t(ceil_div(n, kPotrfSeveralNb))))};
  Call<T> c(b, a, lda, devices);
  // The diagonal block (an int for INFO ahead of it, in a T's room) through pinned memory.
  T *pinned = nullptr;
  Status s = check(cudaMallocHost(reinterpret_cast<void **>(&pinned), (size_t(b.nb) * b.nb + 1) * sizeof(T)),
                   "potrf several: pinned buffer");
  if (s != Status::ok) return s;
  log(2, "%s over %d devices: block columns of %d dealt out in turn", routine_names<Family::potrf, T>.symbol, b.devices,
      b.nb);
  SharedCopier shared(*devices[0]);
  std::vector<Status> status;
  bool not_definite = false;
  Status written = Status::ok;
  run_device_threads(
      c.used, [&](int d) { return run_member(c, c.members[size_t(d)]); }, status, [&] { c.board.close(); },
      [&] {
        written = write_back(c, pinned, progress, &not_definite);
        c.board.close();
      });
  c.release();
  cudaFreeHost(pinned);
  cudaSetDevice(devices[0]->device);
  cudaGetLastError();
  if (written != Status::ok) return written;
  for (Status st : status)
    if (st != Status::ok) return st;
  if (not_definite) return Status::special_values;
  if (progress->columns != n) return Status::cuda_error;  // stopped without a failure said: not expected
  *info = 0;
  return Status::ok;
}

template Status potrf_several<float>(const std::vector<GpuContext *> &, int, float *, int, int *, PotrfProgress *);
template Status potrf_several<double>(const std::vector<GpuContext *> &, int, double *, int, int *, PotrfProgress *);
template Status potrf_several<Complex<float>>(const std::vector<GpuContext *> &, int, Complex<float> *, int, int *,
                                              PotrfProgress *);
template Status potrf_several<Complex<double>>(const std::vector<GpuContext *> &, int, Complex<double> *, int, int *,
                                               PotrfProgress *);

}  // namespace cudrop::impl
