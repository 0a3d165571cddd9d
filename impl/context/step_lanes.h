#pragma once
// What the factorizations over several devices share (impl/potrf/potrf_several.cu,
// impl/getrf/getrf_several.cu): a thread per device, each device's own streams and per-step
// events, the copies of a factored panel from the device that holds it to the others, and the
// step loop itself.
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "core/layout.h"
#include "impl/context/chunk_board.h"
#include "impl/context/gpu_context.cuh"

namespace cudrop::impl {

// A row_bytes x cols block from src (on src_device, src_pitch bytes between columns) to dst (on
// dst_device) on `stream`: a peer copy between two devices (over NVLink or PCIe where peer access
// is on, else staged by the driver), a plain device copy within one (twins).
cudaError_t copy_between_devices(void *dst, int dst_device, size_t dst_pitch, const void *src, int src_device,
                                 size_t src_pitch, size_t row_bytes, size_t cols, cudaStream_t stream);

// One device's streams and events for a factorization over several: `lane`, high priority (the
// next panel factored ahead of the updates), `copies` (panels from the other devices), the event
// after its own block columns were uploaded, and per step: its panel copied, its updates done,
// the look-ahead's update done.
struct StepLanes {
  cudaStream_t lane = nullptr, copies = nullptr;
  cudaEvent_t uploaded = nullptr;
  std::vector<cudaEvent_t> copied, updated, ahead;
  std::vector<bool> ahead_recorded;
  // Made on the calling thread's current device.
  cudaError_t create(int steps);
  // The device's block columns are queued for upload on ctx.stream: the lane and the update
  // stream (ctx.compute) start after them.
  Status after_uploads(GpuContext &ctx);
  // What is queued on them and on ctx's streams drains, then they go (ctx's device current).
  void drain_and_destroy(GpuContext &ctx);
};

// work(i) for each device i on a thread of its own, working for devices[i] (WorkingOn, its
// device current): a thread that cannot start, or whose work throws, fails with out_of_memory,
// one that cannot move to its device with cuda_error;
// a failure calls stop() (from that thread) so that the others stop waiting. writer() runs on
// the calling thread meanwhile; returns once every thread has ended.
void run_device_threads(const std::vector<GpuContext *> &devices, const std::function<Status(int)> &work,
                        std::vector<Status> &status, const std::function<void()> &stop,
                        const std::function<void()> &writer);

// A rows x n matrix's block columns of nb dealt out over `devices` devices in turn.
struct ColumnBlocks {
  int rows, n, nb, devices;
  int count() const { return int(ceil_div(n, nb)); }
  int owner(int j) const { return j % devices; }
  int first(int j) const { return j * nb; }
  int width(int j) const { return std::min(nb, n - j * nb); }
  // How many block columns device `me` holds.
  int held(int me) const { return me < count() ? int(ceil_div(count() - me, devices)) : 0; }
  // Columns of the block columns device `me` holds from block column j on.
  int columns_held_from(int me, int j) const {
    int cols = 0;
    for (int i = j; i < count(); ++i)
      if (owner(i) == me) cols += width(i);
    return cols;
  }
};

// One device's part of a factorization: its block columns side by side in its memory, each with
// all the rows (ldl apart), two buffers for the other devices' panels (by step parity, rows as in
// A), its streams and events.
template <class T>
struct ColumnMember {
  GpuContext *ctx = nullptr;
  int me = 0;  // place in the call
  T *local = nullptr;
  size_t ldl = 0;
  T *panel[2] = {};
  StepLanes lanes;
  T *block(const ColumnBlocks &b, int j) const { return local + size_t(j / b.devices) * size_t(b.nb) * ldl; }
};

// A factorization's state that its devices' threads and the writer share: the block columns
// (ColumnBlocks), the caller's array, each device's part (a ColumnMember),
// the event after each panel (made by its owner) and the board the panels are posted on.
template <class Member, class T>
struct ColumnCall {
  ColumnBlocks b;
  T *a;
  int lda;
  std::vector<Member> members;
  std::vector<cudaEvent_t> ready;
  ChunkBoard board;
  std::vector<GpuContext *> used;  // the devices' contexts, member i's first
  // Member i on devices[i], for the first blocks.devices of them.
  ColumnCall(const ColumnBlocks &blocks, T *array, int ld, const std::vector<GpuContext *> &devices)
      : b(blocks), a(array), lda(ld), members(size_t(blocks.devices)), ready(size_t(blocks.count())),
        board(blocks.count()), used(devices.begin(), devices.begin() + blocks.devices) {
    for (int d = 0; d < blocks.devices; ++d) {
      members[size_t(d)].ctx = used[size_t(d)];
      members[size_t(d)].me = d;
    }
  }
  // m's streams and events, and the events after the panels it owns (on its device, current).
  cudaError_t make_lanes(Member &m) {
    cudaError_t error = m.lanes.create(b.count());
    for (int j = m.me; j < b.count(); j += b.devices)
      if (error == cudaSuccess) error = cudaEventCreateWithFlags(&ready[size_t(j)], cudaEventDisableTiming);
    return error;
  }
  // m's block columns from the caller's array, each by this device only (all `rows` rows, or
  // from its diagonal down), into m.block(b, j) at the same rows; the lane and the update
  // stream then wait for them.
  Status upload_held(Member &m, int rows, bool from_diagonal) {
    const size_t es = sizeof(T);
    for (int j = m.me; j < b.count(); j += b.devices) {
      const int g0 = b.first(j), r0 = from_diagonal ? g0 : 0;
      const Status s = upload_matrix(*m.ctx, a + size_t(r0) + size_t(g0) * size_t(lda), size_t(lda) * es,
                                     size_t(rows - r0) * es, size_t(b.width(j)), m.block(b, j) + r0, m.ldl * es);
      if (s != Status::ok) return s;
    }
    return m.lanes.after_uploads(*m.ctx);
  }
  // Everything queued drains first (peer copies may read another device's buffers and wait on
  // its events), then the streams and events go.
  void release() {
    for (Member &m : members)
      if (cudaSetDevice(m.ctx->device) == cudaSuccess) m.lanes.drain_and_destroy(*m.ctx);
    for (Member &m : members) {
      if (cudaSetDevice(m.ctx->device) != cudaSuccess) continue;
      for (int j = m.me; j < b.count(); j += b.devices)
        if (ready[size_t(j)] != nullptr) cudaEventDestroy(ready[size_t(j)]);
    }
    cudaGetLastError();
  }
};

// The step loop of a right-looking factorization whose block columns are dealt out over the
// devices in turn (block column j on device j % devices), run by the thread of device m (`c`: a
// ColumnCall; m.block(c.b, j): block column j in m's memory, rows as in A). Step k: panel k,
// factored by its owner and posted on the board (c.ready[k] recorded after it), is copied by every
// other device that holds block columns after k, or that needs every step (the LU's pivots); the
// owner of k+1 applies step k to that block column first and factors it on its lane (look-ahead)
// while the rest of step k runs on the update stream. Stops at the first failure, or when the
// board closes (another device or the writer stopped): nothing it waits for can then be missing
// for ever. What the factorization supplies, `f`:
//   bool every_step
//   cudaError_t copy_panel(int k, const ChunkBoard::Posted &where, bool whole, const T **p)
//                                           what of panel k this device needs, queued on
//                                           m.lanes.copies (all of it when `whole`); *p: the copy
//   Status update(int k, const T *p, int first, bool on_lane)   step k on this device's block
//                                           columns from `first` on (on the lane: that one only)
//   Status factor(int j)                    panel j factored on the lane, ready[j], posted
template <class Call, class Member, class Steps>
Status run_column_steps(Call &c, Member &m, Steps &f) {
  const int count = c.b.count(), devices = c.b.devices, me = m.me;
  ChunkBoard &board = c.board;
  const std::vector<cudaEvent_t> &ready = c.ready;
  StepLanes &lanes = m.lanes;
  GpuContext &ctx = *m.ctx;
  Status s = me == 0 ? f.factor(0) : Status::ok;
  for (int k = 0; s == Status::ok && k < count; ++k) {
    int first_held = k + 1;
    while (first_held < count && first_held % devices != me) ++first_held;
    const bool updates = first_held < count;
    if (!updates && !f.every_step) break;
    const auto *p = m.block(c.b, 0);
    cudaEvent_t have = nullptr;
    if (k % devices == me) {
      p = m.block(c.b, k);
      have = ready[size_t(k)];
    } else {
      ChunkBoard::Posted where;
      if (!board.take(k, &where)) break;
      cudaError_t error = cudaStreamWaitEvent(lanes.copies, ready[size_t(k)], 0);
      // The panel buffer's last readers: step k-2's updates.
      if (error == cudaSuccess && updates && k >= 2)
        error = cudaStreamWaitEvent(lanes.copies, lanes.updated[size_t(k - 2)], 0);
      if (error == cudaSuccess && updates && k >= 2 && lanes.ahead_recorded[size_t(k - 2)])
        error = cudaStreamWaitEvent(lanes.copies, lanes.ahead[size_t(k - 2)], 0);
      if (error == cudaSuccess) error = f.copy_panel(k, where, updates, &p);
      if (error == cudaSuccess) error = cudaEventRecord(lanes.copied[size_t(k)], lanes.copies);
      if ((s = check(error, "several devices: panel copy")) != Status::ok) break;
      have = lanes.copied[size_t(k)];
    }
    if (!updates) continue;
    int rest_from = first_held;
    if (first_held == k + 1) {
      // Block column k+1's updates of the steps before ran on the update stream.
      cudaError_t error = cudaStreamWaitEvent(lanes.lane, have, 0);
      if (error == cudaSuccess && k >= 1) error = cudaStreamWaitEvent(lanes.lane, lanes.updated[size_t(k - 1)], 0);
      if ((s = check(error, "several devices")) != Status::ok) break;
      if ((s = f.update(k, p, k + 1, true)) != Status::ok) break;
      if ((s = check(cudaEventRecord(lanes.ahead[size_t(k)], lanes.lane), "several devices")) != Status::ok) break;
      lanes.ahead_recorded[size_t(k)] = true;
      if ((s = f.factor(k + 1)) != Status::ok) break;
      rest_from = k + 1 + devices;
    }
    if ((s = check(cudaStreamWaitEvent(ctx.compute, have, 0), "several devices")) != Status::ok) break;
    if (rest_from < count) s = f.update(k, p, rest_from, false);
    if (s == Status::ok) s = check(cudaEventRecord(lanes.updated[size_t(k)], ctx.compute), "several devices");
  }
  return s;
}

}  // namespace cudrop::impl
