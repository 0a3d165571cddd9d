// The host interface of the GPU LU (impl/getrf/getrf.h): the caller's matrix up, getrf_device, the
// factor back. Rows of the factor that are final go back while the GPU works on, so that only
// the last ones are left to copy when it is done; the caller's array is also the input of the
// CPU fallback, so the rows it held are kept on the host until the call has succeeded, and a
// failure puts them back.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/layout.h"
#include "core/tuning.h"
#include "core/trace.h"
#include "impl/context/device_split.h"
#include "impl/getrf/getrf.h"
#include "impl/getrf/getrf_several.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/host_copy.h"
#include "impl/distributed/panel_sender.h"

namespace cudrop::impl {
namespace {

// The caller's rows as they were before the call (rows [0, saved) of an m x n copy, ld m),
// saved in order by whichever thread needs them first: the sender before it overwrites a
// row block, the calling thread ahead of it while the GPU works.
class SavedRows {
 public:
  SavedRows(CopyPool *pool, char *a, size_t ld_bytes, int m, int n, size_t es)
      : pool_(pool), a_(a), ld_bytes_(ld_bytes), m_(m), n_(n), es_(es), bytes_(size_t(m) * size_t(n) * es) {}
  SavedRows(const SavedRows &) = delete;
  SavedRows &operator=(const SavedRows &) = delete;
  ~SavedRows() {
    if (copy_ != nullptr) munmap(copy_, bytes_);
  }
  // false: no memory for the copy (then nothing may be written early). The pages come as rows
  // are saved, huge pages where the system gives them (a fault per 4 KiB page would cost the
  // host more than the copy itself).
  bool allocate() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    // A copy of a matrix that is a large part of the memory would push the process into swap
    // (or, overcommitted, to the OOM killer) rather than fail here.
    if (pages <= 0 || page <= 0 || bytes_ > size_t(pages) * size_t(page) / 4) return false;
    void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    madvise(p, bytes_, MADV_HUGEPAGE);
    copy_ = static_cast<char *>(p);
    return true;
  }
  // Rows [0, rows) saved.
  Status ensure(int rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (rows <= saved_) return Status::ok;
    try {
      copy_columns(pool_, copy_ + size_t(saved_) * es_, size_t(m_) * es_, a_ + size_t(saved_) * es_,
                   ld_bytes_, size_t(rows - saved_) * es_, size_t(n_));
    } catch (...) {
      return Status::out_of_memory;
    }
    saved_ = rows;
    return Status::ok;
  }
  // Rows [0, rows) back in the caller's array as they were (rows <= saved); never throws.
  void restore(int rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    rows = std::min(rows, saved_);
    if (rows <= 0) return;
    const size_t row_bytes = size_t(rows) * es_;
    try {
      copy_columns(pool_, a_, ld_bytes_, copy_, size_t(m_) * es_, row_bytes, size_t(n_));
    } catch (...) {
      for (int j = 0; j < n_; ++j)
        std::memcpy(a_ + size_t(j) * ld_bytes_, copy_ + size_t(j) * m_ * es_, row_bytes);
    }
  }

 private:
  CopyPool *pool_;
  char *a_;
  size_t ld_bytes_;
  int m_, n_;
  size_t es_, bytes_;
  char *copy_ = nullptr;
  std::mutex mutex_;
  int saved_ = 0;
};

// One event per piece of rows, recorded on the work stream when its rows are final: all of
// them while the work is issued, before the first piece goes to the sender (which then only
// reads them, and looks a piece's event up by its last row).
class RowEvents {
 public:
  RowEvents() = default;
  RowEvents(const RowEvents &) = delete;
  RowEvents &operator=(const RowEvents &) = delete;
  ~RowEvents() {
    for (auto &e : events_) cudaEventDestroy(e.second);
  }
  Status record(int rows, cudaStream_t stream) {
    cudaEvent_t e = nullptr;
    cudaError_t error = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (error == cudaSuccess) {
      try {
        events_.emplace_back(rows, e);
      } catch (...) {
        cudaEventDestroy(e);
        return Status::out_of_memory;
      }
      error = cudaEventRecord(e, stream);
    }
    return check(error, "getrf write-back");
  }
  size_t size() const { return events_.size(); }
  int rows(size_t i) const { return events_[i].first; }
  cudaEvent_t event(size_t i) const { return events_[i].second; }
  cudaEvent_t at(int rows) const {
    for (auto &e : events_)
      if (e.first == rows) return e.second;
    return nullptr;
  }

 private:
  std::vector<std::pair<int, cudaEvent_t>> events_;
};

// Test hook (CUDROP_TEST_FAULT_INJECT=getrf-writeback:N): every GPU LU fails right after the
// write-back that took its N-th piece (pieces_before < N <= pieces_after; the sender may merge
// several finished pieces into one write-back).
bool inject_writeback_fault(int pieces_before, int pieces_after) {
  const env::Environment &e = env::environment();
  return e.fault.kind == env::Fault::getrf_writeback && pieces_before < e.fault.from && e.fault.from <= pieces_after;
}

}  // namespace

template <class T>
Status getrf_host(int m, int n, T *a, int lda, int *ipiv, int *info) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  // Over several devices (CUDROP_DEVICES), when the call is worth two or more: the block
  // columns dealt out over them (impl/getrf/getrf_several.h); wide matrices stay on one.
  if (m >= n && n > kGetrfSeveralNb && lease.several_devices()) {
    const double flops = double(m) * n * n - double(n) * n * n / 3, min_share = settings().gemm_device_min_flops;
    if (flops >= 2 * min_share) {
      std::vector<GpuContext *> devices = lease.devices();
      devices.resize(size_t(devices_worth(flops, int(devices.size()), min_share)));
      if (devices.size() >= 2) return getrf_several<T>(devices, m, n, a, lda, ipiv, info);
    }
  }
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(m), es);
  const int mn = std::min(m, n);
  const size_t exchange_bytes = getrf_device_workspace<T>(m, n);
  if (exchange_bytes == 0) return Status::no_device;
  // Work slot: the exchange buffers, then IPIV and INFO (adjacent: one copy brings both back).
  const size_t pivots_offset = size_t(round_up(exchange_bytes, 256));
  void *dA = nullptr, *dW = nullptr;
  Status s = Status::ok;
  if ((s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA},
                                {Slot::work, pivots_offset + (size_t(mn) + 1) * sizeof(int), &dW}})) != Status::ok)
    return s;
  int *d_ipiv = reinterpret_cast<int *>(static_cast<char *>(dW) + pivots_offset);
  std::vector<int> pivots(size_t(mn) + 1);
  CallTrace trace(settings().getrf_trace ? 1 : 0);

  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  trace.mark("upload");
  // Rows go back early in pieces of at least CUDROP_GETRF_WRITEBACK bytes, when there is more
  // than one such piece and the memory to keep the caller's rows; not into memory the device
  // writes itself (caller_memory), which takes the factor in one direct copy, and whose rows
  // the host would have to read to keep them (pulling managed pages back from the device).
  const size_t writeback = settings().getrf_writeback_bytes, row_bytes = size_t(n) * es;
  const bool reachable = caller_memory(a, array_span(size_t(lda) * es, size_t(m) * es, size_t(n))).writable;
  const int piece_rows = writeback == 0 || reachable
                             ? m
                             : int(std::min<size_t>(ceil_div(writeback, row_bytes), size_t(m)));
  auto *host = reinterpret_cast<char *>(a);
  SavedRows saved(ctx.copier, host, size_t(lda) * es, m, n, es);
  const bool early = piece_rows < mn && (s = return_lane(ctx)) == Status::ok && saved.allocate();
  if (s != Status::ok) return s;
  size_t early_bytes = 0;
  auto read_pivots = [&]() {
    cudaError_t error = cudaMemcpyAsync(pivots.data(), d_ipiv, pivots.size() * sizeof(int), cudaMemcpyDeviceToHost,
                                        ctx.stream);
    if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
    return check(error, "getrf");
  };
  if (!early) {
    // Everything must have succeeded before the first byte of the caller's arrays changes: they
    // are the input of the CPU fallback.
    if ((s = getrf_device<T>(m, n, static_cast<T *>(dA), ldda, d_ipiv, d_ipiv + mn, dW, ctx.stream)) != Status::ok)
      return s;
    if ((s = read_pivots()) != Status::ok) return s;
    trace.mark("gpu");
    if ((s = download_matrix(ctx, dA, ldda * es, size_t(m) * es, size_t(n), a, size_t(lda) * es)) != Status::ok)
      return s;
  } else {
    RowEvents events;
    // On a failure (or an exception): once the sender has stopped (declared before it, so
    // destroyed after it), the rows it began to write get their original contents back, and
    // what is queued on the GPU drains before the lease is given up (the next call reuses the
    // buffers).
    int begun = 0;  // rows [0, begun) may have been written (the sender's, read after its join)
    bool succeeded = false;
    struct Undo {
      const bool &succeeded;
      SavedRows &saved;
      const int &begun;
      GpuContext &ctx;
      ~Undo() {
        if (succeeded) return;
        saved.restore(begun);
        for (cudaStream_t stream : {ctx.stream, ctx.priority.stream, ctx.return_stream})
          if (stream != nullptr) cudaStreamSynchronize(stream);
        cudaGetLastError();
      }
    } undo{succeeded, saved, begun, ctx};
    std::atomic<int> written{0};
    int pieces = 0;
    auto *dev = static_cast<const char *>(dA);
    PanelSender sender(ctx.device, [&](int r0, int r1, int *done) -> Status {
      begun = r1;
      Status st = saved.ensure(r1);
      cudaEvent_t ready = st == Status::ok ? events.at(r1) : nullptr;
      if (st == Status::ok && ready == nullptr) st = Status::out_of_memory;
      if (st == Status::ok) st = check(cudaStreamWaitEvent(ctx.return_stream, ready, 0), "getrf write-back");
      if (st == Status::ok)
        st = download_matrix_returning(ctx, dev + size_t(r0) * es, ldda * es, size_t(r1 - r0) * es, size_t(n),
                                       host + size_t(r0) * es, size_t(lda) * es);
      if (st != Status::ok) return st;
      written.store(r1);
      *done = r1;
      trace.mark("piece");
      const int before = pieces;
      for (size_t i = 0; i < events.size(); ++i) pieces += events.rows(i) > r0 && events.rows(i) <= r1;
      return inject_writeback_fault(before, pieces) ? Status::cuda_error : Status::ok;
    });
    // Pieces go to the sender only once the GPU has finished them: it merges the pieces waiting
    // for it into one, which must not wait for rows the GPU has yet to finish.
    int recorded = 0;
    const RowsFinal rows_final = [&](int rows) -> Status {
      if (rows >= m || rows - recorded < piece_rows) return Status::ok;
      recorded = rows;
      return events.record(rows, ctx.stream);
    };
    s = getrf_device<T>(m, n, static_cast<T *>(dA), ldda, d_ipiv, d_ipiv + mn, dW, ctx.stream, 0, &rows_final);
    if (s == Status::ok) s = events.record(m, ctx.stream);
    trace.mark("issued");
    // While waiting for the next piece, the caller's rows are saved ahead of the sender, about
    // kGetrfSaveBytes at a time: a finished piece waits for one such copy at most.
    const int save_rows = int(std::min<size_t>(ceil_div(tuning::kGetrfSaveBytes, row_bytes), size_t(m)));
    int saved_ahead = 0;
    for (size_t i = 0, first = 0; i < events.size() && s == Status::ok;) {
      const cudaError_t state = cudaEventQuery(events.event(i));
      if (state == cudaErrorNotReady) cudaGetLastError();  // not an error: the piece is still running
      if (state == cudaSuccess) {
        sender.submit(int(first), events.rows(i));
        first = size_t(events.rows(i));
        ++i;
      } else if (state != cudaErrorNotReady) {
        s = check(state, "getrf write-back");
      } else if (saved_ahead < m) {
        saved_ahead = std::min(m, saved_ahead + save_rows);
        s = saved.ensure(saved_ahead);
        if (saved_ahead == m) trace.mark("saved");
      } else {
        s = check(cudaEventSynchronize(events.event(i)), "getrf write-back");
      }
    }
    if (s == Status::ok) s = read_pivots();
    trace.mark("gpu");
    const int before_end = written.load();
    int done = 0;
    const Status sent = sender.finish(&done);
    trace.mark("sent");
    if (s == Status::ok) s = sent;
    if (s != Status::ok) return s;
    succeeded = true;
    early_bytes = size_t(before_end) * row_bytes;
  }
  std::copy(pivots.begin(), pivots.begin() + mn, ipiv);
  *info = pivots[mn];
  trace.mark("return");
  trace.report("getrf trace m=%d n=%d piece_rows=%d written_before_gpu_end_bytes=%zu", m, n, early ? piece_rows : 0,
               early_bytes);
  return Status::ok;
}

#define CUDROP_GETRF_HOST_INSTANCE(T) template Status getrf_host<T>(int, int, T *, int, int *, int *);
CUDROP_GETRF_HOST_INSTANCE(float)
CUDROP_GETRF_HOST_INSTANCE(double)
CUDROP_GETRF_HOST_INSTANCE(Complex<float>)
CUDROP_GETRF_HOST_INSTANCE(Complex<double>)
#undef CUDROP_GETRF_HOST_INSTANCE

}  // namespace cudrop::impl
