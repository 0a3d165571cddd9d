#include "impl/potrf/potrf_several.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>

#include "core/layout.h"
#include "core/log.h"
#include "core/routines.h"
#include "impl/context/multi_device.h"
#include "impl/context/chunk_board.h"
#include "impl/gemm/gemm.h"
#include "impl/level3/level3_device.h"

namespace cudrop::impl {
namespace {

// The lower triangle's block columns and who holds each.
struct Blocks {
  int n, nb, devices;
  int count() const { return int(ceil_div(n, nb)); }
  int owner(int j) const { return j % devices; }
  int first(int j) const { return j * nb; }
  int width(int j) const { return std::min(nb, n - j * nb); }
};

// One device's part of a call.
template <class T>
struct Member {
  GpuContext *ctx = nullptr;
  int me = 0;                // place in the call
  T *local = nullptr;        // its block columns side by side, each all n rows (those above the block unused)
  size_t ldl = 0;
  T *panel[2] = {};          // other devices' factored block columns, by step parity, rows as in A
  int *d_info = nullptr;     // two ints per block column it holds (potrf_device's d_work)
  void *trsm_work = nullptr;
  size_t trsm_bytes = 0;
  cudaStream_t lane = nullptr, copies = nullptr;  // factoring (high priority), peer copies
  cudaEvent_t uploaded = nullptr;
  std::vector<cudaEvent_t> copied, updated, ahead;  // per step
  std::vector<bool> ahead_recorded;
  Status status = Status::ok;
  T *block(const Blocks &b, int j) const { return local + size_t(j / b.devices) * size_t(b.nb) * ldl; }
  int *info(const Blocks &b, int j) const { return d_info + 2 * (j / b.devices); }
};

// What the devices' threads and the writer share.
template <class T>
struct Call {
  Blocks b;
  T *a;
  int lda;
  std::vector<Member<T>> members;
  std::vector<cudaEvent_t> ready;  // ready[j]: block column j factored (made by its owner)
  ChunkBoard board;                // block column j's rows below its diagonal block, on its owner
  Call(const Blocks &blocks, T *array, int ld) : b(blocks), a(array), lda(ld), ready(size_t(blocks.count())),
                                                 board(blocks.count()) {}
};

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
  Status s = potrf_device<T>(jb, diag, m.ldl, m.info(b, j), m.lane);
  if (s == Status::ok && below > 0)
    s = trsm_device<T>(Side::right, Uplo::lower, Op::conj_trans, Diag::non_unit, below, jb, T(1), diag, m.ldl,
                       diag + jb, m.ldl, m.lane, m.trsm_work, m.trsm_bytes);
  if (s == Status::ok) s = check(cudaEventRecord(c.ready[size_t(j)], m.lane), "potrf several");
  if (s == Status::ok) c.board.post(j, {diag + jb, m.ldl * sizeof(T)});
  return s;
}

// Buffers, streams, events and this device's block columns uploaded.
template <class T>
Status set_up(Call<T> &c, Member<T> &m) {
  const Blocks &b = c.b;
  const size_t es = sizeof(T);
  int held = 0;
  for (int j = m.me; j < b.count(); j += b.devices) ++held;
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
  int low = 0, high = 0;
  cudaError_t error = cudaDeviceGetStreamPriorityRange(&low, &high);
  if (error == cudaSuccess) error = cudaStreamCreateWithPriority(&m.lane, cudaStreamNonBlocking, high);
  if (error == cudaSuccess) error = cudaStreamCreateWithFlags(&m.copies, cudaStreamNonBlocking);
  auto event = [&](cudaEvent_t *e) {
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(e, cudaEventDisableTiming);
  };
  event(&m.uploaded);
  std::vector<cudaEvent_t> *const lists[] = {&m.copied, &m.updated, &m.ahead};
  for (std::vector<cudaEvent_t> *list : lists) {
    list->assign(size_t(b.count()), nullptr);
    for (cudaEvent_t &e : *list) event(&e);
  }
  m.ahead_recorded.assign(size_t(b.count()), false);
  for (int j = m.me; j < b.count(); j += b.devices) event(&c.ready[size_t(j)]);
  if ((s = check(error, "potrf several: streams and events")) != Status::ok) return s;
  if ((s = return_lane(*m.ctx)) != Status::ok) return s;
  if ((s = check(cudaMemsetAsync(m.d_info, 0, info_bytes, m.ctx->stream), "potrf several")) != Status::ok) return s;
  // Each block column from its diagonal down, read from the caller's array by this device only.
  for (int j = m.me; j < b.count(); j += b.devices) {
    const int g0 = b.first(j);
    s = upload_matrix(*m.ctx, c.a + size_t(g0) + size_t(g0) * size_t(c.lda), size_t(c.lda) * es,
                      size_t(b.n - g0) * es, size_t(b.width(j)), m.block(b, j) + g0, m.ldl * es);
    if (s != Status::ok) return s;
  }
  error = cudaEventRecord(m.uploaded, m.ctx->stream);
  if (error == cudaSuccess) error = cudaStreamWaitEvent(m.lane, m.uploaded, 0);
  if (error == cudaSuccess) error = cudaStreamWaitEvent(m.ctx->compute, m.uploaded, 0);
  return check(error, "potrf several");
}

// One device's steps. Stops at its first failure, or when the board closes (another device or
// the writer stopped): nothing it waits for can then be missing for ever.
template <class T>
Status run_member(Call<T> &c, Member<T> &m) {
  const Blocks &b = c.b;
  const size_t es = sizeof(T);
  Status s = set_up(c, m);
  if (s == Status::ok && m.me == b.owner(0)) s = factor_block(c, m, 0);
  for (int k = 0; s == Status::ok && k + 1 < b.count(); ++k) {
    // Block columns of this device that step k updates: after k; the next one first.
    int first_held = k + 1;
    while (first_held < b.count() && b.owner(first_held) != m.me) ++first_held;
    if (first_held >= b.count()) break;  // none left: this device's part is done
    const int g1 = b.first(k) + b.width(k), kb = b.width(k);
    const T *p = nullptr;
    cudaEvent_t have = nullptr;
    if (b.owner(k) == m.me) {
      p = m.block(b, k);
      have = c.ready[size_t(k)];
    } else {
      ChunkBoard::Posted where;
      if (!c.board.take(k, &where)) return Status::ok;  // stopped elsewhere
      T *into = m.panel[k % 2];
      cudaError_t error = cudaStreamWaitEvent(m.copies, c.ready[size_t(k)], 0);
      // The panel buffer's last readers: step k-2's updates.
      if (error == cudaSuccess && k >= 2) error = cudaStreamWaitEvent(m.copies, m.updated[size_t(k - 2)], 0);
      if (error == cudaSuccess && k >= 2 && m.ahead_recorded[size_t(k - 2)])
        error = cudaStreamWaitEvent(m.copies, m.ahead[size_t(k - 2)], 0);
      const GpuContext &owner = *c.members[size_t(b.owner(k))].ctx;
      if (error == cudaSuccess) {
        if (owner.device == m.ctx->device) {
          error = cudaMemcpy2DAsync(into + g1, m.ldl * es, where.dev, where.ldd_bytes, size_t(b.n - g1) * es,
                                    size_t(kb), cudaMemcpyDeviceToDevice, m.copies);
        } else {
          cudaMemcpy3DPeerParms copy = {};
          copy.srcPtr = make_cudaPitchedPtr(const_cast<void *>(where.dev), where.ldd_bytes, size_t(b.n - g1) * es, kb);
          copy.srcDevice = owner.device;
          copy.dstPtr = make_cudaPitchedPtr(into + g1, m.ldl * es, size_t(b.n - g1) * es, kb);
          copy.dstDevice = m.ctx->device;
          copy.extent = make_cudaExtent(size_t(b.n - g1) * es, size_t(kb), 1);
          error = cudaMemcpy3DPeerAsync(&copy, m.copies);
        }
      }
      if (error == cudaSuccess) error = cudaEventRecord(m.copied[size_t(k)], m.copies);
      if ((s = check(error, "potrf several: panel copy")) != Status::ok) break;
      p = into;
      have = m.copied[size_t(k)];
    }
    // Look-ahead: the next block column, when this device holds it, updated and factored on the
    // high-priority lane while the rest of this step's updates run.
    int rest_from = first_held;
    if (first_held == k + 1) {
      cudaError_t error = cudaStreamWaitEvent(m.lane, have, 0);
      // Its updates of the steps before, on the update stream.
      if (error == cudaSuccess && k >= 1) error = cudaStreamWaitEvent(m.lane, m.updated[size_t(k - 1)], 0);
      if ((s = check(error, "potrf several")) != Status::ok) break;
      if ((s = update_block(b, m, k, p, m.ldl, k + 1, m.lane)) != Status::ok) break;
      if ((s = check(cudaEventRecord(m.ahead[size_t(k)], m.lane), "potrf several")) != Status::ok) break;
      m.ahead_recorded[size_t(k)] = true;
      if ((s = factor_block(c, m, k + 1)) != Status::ok) break;
      rest_from = k + 1 + b.devices;
    }
    if ((s = check(cudaStreamWaitEvent(m.ctx->compute, have, 0), "potrf several")) != Status::ok) break;
    for (int j = rest_from; s == Status::ok && j < b.count(); j += b.devices) s = update_block(b, m, k, p, m.ldl, j, m.ctx->compute);
    if (s == Status::ok) s = check(cudaEventRecord(m.updated[size_t(k)], m.ctx->compute), "potrf several");
  }
  return s;
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
  const Blocks b{n, kPotrfSeveralNb, int(std::min<size_t>(devices.size(), size_t(ceil_div(n, kPotrfSeveralNb))))};
  Call<T> c(b, a, lda);
  c.members.resize(size_t(b.devices));
  for (int d = 0; d < b.devices; ++d) {
    c.members[size_t(d)].ctx = devices[size_t(d)];
    c.members[size_t(d)].me = d;
  }
  // The diagonal block (an int for INFO ahead of it, in a T's room) through pinned memory.
  T *pinned = nullptr;
  Status s = check(cudaMallocHost(reinterpret_cast<void **>(&pinned), (size_t(b.nb) * b.nb + 1) * sizeof(T)),
                   "potrf several: pinned buffer");
  if (s != Status::ok) return s;
  log(2, "%s over %d devices: block columns of %d dealt out in turn", routine_names<Family::potrf, T>.symbol, b.devices,
      b.nb);
  SharedCopier shared(*devices[0]);
  std::vector<std::thread> threads;
  for (Member<T> &m : c.members) {
    try {
      threads.emplace_back([&c, &m] {
        WorkingOn working(m.ctx);
        if (cudaSetDevice(m.ctx->device) != cudaSuccess) {
          cudaGetLastError();
          m.status = Status::cuda_error;
        } else {
          try {
            m.status = run_member(c, m);
          } catch (...) {
            m.status = Status::out_of_memory;
          }
        }
        if (m.status != Status::ok) c.board.close();
      });
    } catch (const std::exception &) {
      m.status = Status::out_of_memory;
      c.board.close();
    }
  }
  bool not_definite = false;
  Status written = write_back(c, pinned, progress, &not_definite);
  c.board.close();
  for (std::thread &t : threads) t.join();
  // Everything queued drains before the buffers, streams and events go (peer copies may read
  // another device's buffers).
  for (Member<T> &m : c.members) {
    if (cudaSetDevice(m.ctx->device) != cudaSuccess) continue;
    const cudaStream_t streams[] = {m.lane, m.copies, m.ctx->compute, m.ctx->stream, m.ctx->return_stream};
    for (cudaStream_t stream : streams)
      if (stream != nullptr) cudaStreamSynchronize(stream);
  }
  for (Member<T> &m : c.members) {
    if (cudaSetDevice(m.ctx->device) != cudaSuccess) continue;
    if (m.lane != nullptr) cudaStreamDestroy(m.lane);
    if (m.copies != nullptr) cudaStreamDestroy(m.copies);
    if (m.uploaded != nullptr) cudaEventDestroy(m.uploaded);
    std::vector<cudaEvent_t> *const lists[] = {&m.copied, &m.updated, &m.ahead};
    for (std::vector<cudaEvent_t> *list : lists)
      for (cudaEvent_t e : *list)
        if (e != nullptr) cudaEventDestroy(e);
    for (int j = m.me; j < b.count(); j += b.devices)
      if (c.ready[size_t(j)] != nullptr) cudaEventDestroy(c.ready[size_t(j)]);
  }
  cudaFreeHost(pinned);
  cudaSetDevice(devices[0]->device);
  cudaGetLastError();
  if (written != Status::ok) return written;
  for (const Member<T> &m : c.members)
    if (m.status != Status::ok) return m.status;
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
