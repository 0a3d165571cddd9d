#pragma once
// What the distributed drivers share (internal to impl/distributed_*.cu): host buffers kept
// between calls, the agreement on a call's outcome, row copies by column ranges.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/layout.h"
#include "core/log.h"
#include "impl/distributed/distributed.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/host_copy.h"
#include "kernels/transpose.cuh"

namespace cudrop::impl::distributed {

// Wall-clock marks of a call's phases, logged at CUDROP_VERBOSE=2 (where a distributed call's
// time goes: set-up and upload, the steps, the way back).
class PhaseClock {
 public:
  PhaseClock() : last_(std::chrono::steady_clock::now()) {}
  // Milliseconds since the previous mark.
  double mark() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_;
};

using Scope = GridComm::Scope;

using Scope = GridComm::Scope;

// Host memory a distributed call keeps for the next one (the first call of a size pays for
// pinning and first touch, the next ones do not); used under the GPU lease only. Never freed:
// the process's end returns it.
class HostScratch {
 public:
  explicit HostScratch(bool pinned) : pinned_(pinned) {}
  // At least `bytes` (rounded up to 8, GridComm's room), contents undefined.
  Status reserve(size_t bytes) {
    bytes = size_t(round_up(std::max<size_t>(bytes, 1), 8));
    if (bytes <= bytes_) return Status::ok;
    release();
    if (pinned_) {
      if (Status s = check(cudaMallocHost(&data_, bytes), "distributed: pinned buffer"); s != Status::ok) {
        data_ = nullptr;
        return s;
      }
    } else if ((data_ = std::malloc(bytes)) == nullptr) {
      return Status::out_of_memory;
    }
    bytes_ = bytes;
    return Status::ok;
  }
  template <class T>
  T *as() const {
    return static_cast<T *>(data_);
  }

 private:
  void release() {
    if (data_ != nullptr) pinned_ ? (void)cudaFreeHost(data_) : std::free(data_);
    data_ = nullptr;
    bytes_ = 0;
  }
  bool pinned_;
  void *data_ = nullptr;
  size_t bytes_ = 0;
};

struct HostBuffers {
  HostScratch diag{true}, panel{true}, pack{true}, word{true}, rows{true};
  HostScratch result{true};  // the local part on its way back (one DMA), before the processes agree
};
inline HostBuffers &host_buffers() {
  static HostBuffers *buffers = new HostBuffers;
  return *buffers;
}

// Copies rows [first, last) of local columns [c0, c1) of `from` (leading dimension ld_from) to
// `to` (ld_to), where first and last are functions of the column: the rows every column has as
// one parallel rectangle, the rest column by column.
template <class T, class First, class Last>
void copy_rows(CopyPool *pool, T *to, size_t ld_to, const T *from, size_t ld_from, int64_t c0, int64_t c1,
               First first, Last last) {
  int64_t common_first = 0, common_last = INT64_MAX;
  for (int64_t c = c0; c < c1; ++c) {
    common_first = std::max(common_first, first(c));
    common_last = std::min(common_last, last(c));
  }
  if (common_last > common_first)
    copy_columns(pool, to + size_t(common_first) + size_t(c0) * ld_to, ld_to * sizeof(T),
                 from + size_t(common_first) + size_t(c0) * ld_from, ld_from * sizeof(T),
                 size_t(common_last - common_first) * sizeof(T), size_t(c1 - c0));
  else
    common_first = common_last = INT64_MAX;
  for (int64_t c = c0; c < c1; ++c) {
    const int64_t lo = first(c), hi = last(c);
    auto piece = [&](int64_t a, int64_t b) {
      if (b > a)
        std::memcpy(to + size_t(a) + size_t(c) * ld_to, from + size_t(a) + size_t(c) * ld_from,
                    size_t(b - a) * sizeof(T));
    };
    if (common_first == INT64_MAX) {
      piece(lo, hi);
    } else {
      piece(lo, std::min(hi, common_first));
      piece(std::max(lo, common_last), hi);
    }
  }
}

template <class T>
T *at(T *a, size_t ld, int64_t row, int64_t col) {
  return a + size_t(row) + size_t(col) * ld;
}

// The outcome every process agrees on: the first failure anywhere, else special_values where
// any process found what only the CPU routine's own handling gives (a matrix not positive
// definite, a zero pivot: its INFO and the partial result it defines), else ok.
inline Status agree(GridComm &comm, Status mine, bool needs_cpu) {
  int values[2] = {mine == Status::ok || mine == Status::special_values ? 0 : static_cast<int>(mine),
                   needs_cpu || mine == Status::special_values ? 1 : 0};
  comm.max_over_grid(values, 2);
  if (values[0] != 0) return static_cast<Status>(values[0]);
  return values[1] != 0 ? Status::special_values : Status::ok;
}

// A process's GPU work during the steps, on one stream: after its first failure nothing more
// is issued (status() keeps it), while the messages go on as if it had not failed.
class StepStream {
 public:
  StepStream(Status &status, cudaStream_t stream) : s_(status), stream_(stream) {}
  bool ok() const { return s_ == Status::ok; }
  cudaStream_t stream() const { return stream_; }
  // Issues f() -> Status unless a step failed before.
  template <class F>
  void issue(F &&f) {
    if (s_ == Status::ok) s_ = f();
  }
  // A rows x cols copy; one from or to host memory waits for its end (the host buffer is sent
  // next, or receives the next message).
  template <class T>
  void copy(T *to, size_t ld_to, const T *from, size_t ld_from, int64_t rows, int64_t cols, cudaMemcpyKind kind) {
    if (s_ != Status::ok || rows == 0 || cols == 0) return;
    cudaError_t error = cudaMemcpy2DAsync(to, ld_to * sizeof(T), from, ld_from * sizeof(T), size_t(rows) * sizeof(T),
                                          size_t(cols), kind, stream_);
    if (error == cudaSuccess && kind != cudaMemcpyDeviceToDevice) error = cudaStreamSynchronize(stream_);
    s_ = check(error, "distributed: copy");
  }
  void wait() {
    if (s_ == Status::ok) s_ = check(cudaStreamSynchronize(stream_), "distributed: steps");
  }

 private:
  Status &s_;
  cudaStream_t stream_;
};

template <class T>
Status transpose(const T *in, size_t ld_in, int64_t rows, int64_t cols, T *out, size_t ld_out, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return Status::ok;
  const dim3 grid(unsigned(ceil_div(rows, kernels::kTransposeTile)),
                  unsigned(std::min<int64_t>(ceil_div(cols, kernels::kTransposeTile), 65535)));
  kernels::transpose_matrix<T><<<grid, kernels::kTransposeTile * kernels::kTransposeRowsPerPass, 0, stream>>>(
      int(rows), int(cols), in, ld_in, out, ld_out);
  return check(cudaGetLastError(), "distributed: transpose");
}


}  // namespace cudrop::impl::distributed
