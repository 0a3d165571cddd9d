#pragma once
// The one CUDA context cudrop uses: started lazily, shared by every call, one call at a
// time. Holds the cached device buffers and pinned staging buffers so that no call pays
// for cudaMalloc/cudaHostAlloc after the first.
#include <cuda_runtime.h>

#include <cstddef>
#include <atomic>
#include <initializer_list>
#include <mutex>
#include <vector>

#include "impl/context/host_copy.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

// Cached device allocations, one per role in a call; each only grows.
enum class Slot { a, b, c, work, count };

struct GpuContext {
  int device = 0;
  cudaStream_t stream = nullptr;   // transfers (and the math of unpipelined calls)
  cudaStream_t compute = nullptr;  // math of pipelined calls, overlapping the transfers
  cudaEvent_t panel_ready = nullptr, panel_done[2] = {};
  // Out-of-core GEMM: the math that last read each rotating device copy of an operand
  // (A copies 0 and 1, then B copies 0 and 1) is done; a new upload into it waits for it.
  cudaEvent_t operand_done[4] = {};
  static constexpr int kStaging = 2;  // double buffering: host copy of one chunk overlaps DMA of the other
  void *staging[kStaging] = {};
  cudaEvent_t staging_free[kStaging] = {};
  int staging_turn = 0;  // the staging buffer the next upload chunk goes through
  size_t staging_bytes = 0;
  CopyPool *copier = nullptr;  // host threads for pageable <-> pinned copies
  // With several devices (CUDROP_DEVICES): this device's share of the host copy threads, what
  // `copier` is while a call runs on several devices at once; made with the other devices.
  CopyPool *shared_copier = nullptr;
  // A device other than the first that had a real CUDA failure: left out of later calls (the
  // first device's failure stops the whole GPU use, as with one device).
  std::atomic<bool> failed{false};
  // The return lane: downloads issued from a sender thread while the calling thread keeps
  // uploading, on their own stream and staging buffers (created on first use, return_lane()).
  cudaStream_t return_stream = nullptr;
  void *return_staging[kStaging] = {};
  cudaEvent_t return_free[kStaging] = {};
  // The one high-priority stream: panels of the look-ahead factorizations run on it, so that
  // their blocks are scheduled ahead of the trailing update's queued ones; with the events
  // that link it to the update's stream (created on first use, priority_lane()).
  struct PriorityLane {
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, panel_done = nullptr, next_ready = nullptr;
  } priority;
  // The Cholesky host driver's (impl/potrf/potrf_host.cu, created on first use under the lease):
  // pinned words the host polls INFO through (a ring of kRing slots and one for the final
  // read) with an event per slot, the stream finished panels go back on from the sender
  // thread, and the event that starts that stream after the upload's last DMA.
  struct PotrfPoll {
    static constexpr int kRing = 4;
    int *words = nullptr;
    cudaEvent_t done[kRing] = {};
    cudaStream_t download_lane = nullptr;
    cudaEvent_t uploaded = nullptr;
  } potrf_poll;
  // The power method's pinned snapshots of its state and its events, for the device they were
  // made on (the device interface runs on the caller's current device, which a benchmark may
  // switch); made on first use by power::begin_call (impl/power/power_device.cu). `busy`: one power
  // call at a time, leased or not, since the snapshots are shared.
  struct PowerLane {
    std::mutex busy;
    int device = -1;             // -1: not made (or not complete)
    void *snapshots = nullptr;   // 3 x sizeof(PowerState<double>), pinned
    void *sell_probe = nullptr;  // SellStats + a stop code, pinned: whether the SELL copy is made
    cudaEvent_t batch_done[2] = {};
    cudaEvent_t loop_start = nullptr, loop_end = nullptr;
    bool chained = false;  // step kernels launched programmatically (impl/power/power_loop.cuh)
  } power;
  // A pinned word a device flag is read back through (impl/level3/level3_host.cu: Inf or NaN among the
  // inputs of a routine that skips zero entries); made on first use under the lease.
  int *flag_word = nullptr;
  void *slot[static_cast<int>(Slot::count)] = {};
  size_t slot_bytes[static_cast<int>(Slot::count)] = {};
};

// Exclusive use of the GPU for one call. Check ok() before using ctx().
class GpuLease {
 public:
  GpuLease();
  ~GpuLease();
  GpuLease(const GpuLease &) = delete;
  GpuLease &operator=(const GpuLease &) = delete;
  bool ok() const { return context_ != nullptr; }
  GpuContext &ctx() { return *context_; }
  // Whether CUDROP_DEVICES gave more devices than ctx()'s (cheap: nothing is started).
  bool several_devices() const;
  // ctx() and the contexts of the other devices CUDROP_DEVICES gives that can be used (started
  // on the first call that asks, with their own streams, staging buffers and device buffers);
  // the calling thread's current device is ctx()'s on return.
  std::vector<GpuContext *> devices();

 private:
  std::unique_lock<std::mutex> lock_;
  GpuContext *context_ = nullptr;
};

// The context for device interfaces (impl::*_device) called without a lease, e.g. by the
// benchmarks: started if need be; Status::no_device when the GPU cannot be used. Its
// per-call buffers are the lease holder's; what such a caller may use is the priority lane. A
// thread working for one context of a call over several (WorkingOn) gets that context.
Status device_context(GpuContext **out);

// Creates ctx.priority on first use (safe without the lease: serialized here).
Status priority_lane(GpuContext &ctx);

// Turns a CUDA result into a Status; a real failure (not an allocation failure) stops
// the process from using the GPU again, since the context may be unusable: the calling thread's
// current device only, when that is one of several other than the first (GpuLease::devices).
Status check(cudaError_t error, const char *what);

// Device buffers of at least the requested sizes for these slots (contents undefined), all
// or none: when the GPU is short of memory every cached buffer is released and the whole set
// is asked for once more, so no pointer handed out earlier in the set can dangle.
// With CUDROP_GPU_MEM_LIMIT set, all slots together never hold more than that: slots not in
// the request are released (and the growth headroom dropped) to make room, and a request
// larger than the limit by itself fails with out_of_memory without touching the GPU.
struct BufferRequest {
  Slot slot;
  size_t bytes;
  void **out;
};
Status device_buffers(GpuContext &ctx, std::initializer_list<BufferRequest> requests);
inline Status device_buffer(GpuContext &ctx, Slot slot, size_t bytes, void **out) {
  return device_buffers(ctx, {{slot, bytes, out}});
}

// Bytes the cached device buffers hold now.
size_t held_device_bytes(const GpuContext &ctx);

// The device memory one call may plan to hold in its buffers: the free device memory plus
// what cudrop's buffers already hold, less a safety margin (1/32 of the device, at least
// 256 MiB), and never more than CUDROP_GPU_MEM_LIMIT when that is set.
Status device_memory_cap(GpuContext &ctx, size_t *cap);

// How the GPU reaches a caller's array of `span` bytes from `first`: pageable host memory
// (malloc's) only through the staging buffers; pinned or registered host memory
// (cudaMallocHost, cudaHostRegister), managed memory (cudaMallocManaged) and device memory by
// DMA or on the device as it is, read (and written, unless registered read-only) where the
// driver says the current device may. Asked of the driver on every call for the first and the
// last byte (two queries, cheap beside any copy): an allocation can be freed and its addresses
// handed out again by malloc, so no answer is kept from one call to the next.
struct CallerMemory {
  bool readable = false, writable = false;  // false, false: pageable (or not known to CUDA)
  bool managed = false;
};
CallerMemory caller_memory(const void *first, size_t span);
// The bytes a column-major array spans: from its first element to the last of its last column.
inline size_t array_span(size_t ld_bytes, size_t row_bytes, size_t cols) {
  return cols == 0 || row_bytes == 0 ? 0 : (cols - 1) * ld_bytes + row_bytes;
}

// Host (pageable) matrix <-> device matrix, column-major, through the pinned staging
// buffers; memory the GPU reaches itself (caller_memory) in one direct copy instead. Sizes in
// bytes: row_bytes = rows*elem, ld_bytes = ld*elem. Upload is asynchronous on ctx.stream (a
// direct one reads the caller's array when the stream gets there: nothing may write that
// array before); download returns when the host copy is complete.
// cols_done (optional): how many leading columns of the host matrix hold their final
// values, also when the download fails part way (every other column is then untouched,
// as long as rows fit a staging buffer, row_bytes <= ctx.staging_bytes; a direct download
// is one copy, after the math it waits for has succeeded: only the copy engine failing in
// its middle could leave some of its columns written with none reported).
Status upload_matrix(GpuContext &ctx, const void *host, size_t ld_bytes, size_t row_bytes,
                     size_t cols, void *dev, size_t ldd_bytes);
Status download_matrix(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes,
                       size_t cols, void *host, size_t ld_bytes, size_t *cols_done = nullptr);

// The same download through the return lane (on ctx.return_stream, which must first be
// made to wait for whatever produced the data), so that it can run on another host thread
// beside uploads. Creates the lane on first use.
Status download_matrix_returning(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes,
                                 size_t cols, void *host, size_t ld_bytes);
Status return_lane(GpuContext &ctx);

// On a failure (status not ok when it goes out of scope), what is queued on the GPU drains
// before the lease is given up: the next call reuses the buffers.
struct DrainOnFailure {
  const Status &status;
  GpuContext &ctx;
  ~DrainOnFailure() {
    if (status == Status::ok) return;
    for (cudaStream_t stream : {ctx.compute, ctx.stream, ctx.priority.stream})
      if (stream != nullptr) cudaStreamSynchronize(stream);
    cudaGetLastError();
  }
};

// The context the calling thread works for during a call over several devices (run_on_devices
// sets it on each of the call's threads): when a CUDA step fails there, check() leaves that
// context out of later calls instead of judging by the current device, which twins
// (CUDROP_TEST_DEVICE_TWINS) share; and under twins, CUDROP_TEST_FAULT_INJECT's @D names the
// context by its place in the call (0: the first).
class WorkingOn {
 public:
  explicit WorkingOn(GpuContext *ctx);
  ~WorkingOn();
  WorkingOn(const WorkingOn &) = delete;
  WorkingOn &operator=(const WorkingOn &) = delete;

 private:
  GpuContext *previous_;
};

// Bytes of callers' arrays that upload_matrix has sent to any device since the process
// started: what a call read of its operands (a call over several devices reads each once).
unsigned long long uploaded_bytes();

// Test hook (CUDROP_TEST_FAULT_INJECT=alloc|launch|launch:N): pretend GPU allocations or launches
// fail (every one; with launch:N, the N-th launch of the process and every later one, so a
// long call can fail part way). With @D, only on CUDA device D (the calling thread's current
// device; under CUDROP_TEST_DEVICE_TWINS the D-th context of a call over several, WorkingOn),
// and N counts that device's attempts.
bool inject_fault(const char *kind);

}  // namespace cudrop::impl
