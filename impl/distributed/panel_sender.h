#pragma once
// Sends finished column panels back to the caller's array on a worker thread, in order, while
// the calling thread keeps the GPU fed (and keeps uploading): copying a panel out of pinned
// memory takes the host about a millisecond per 40 MB, which the calling thread cannot spend
// without leaving the GPU idle. A job is a range of columns c0..c1-1 (of rows, for the LU's
// row blocks: impl/getrf/getrf_host.cu) that the GPU has finished or will have finished (the sender issues its own DMAs, on its own stream, after the right
// waits); contiguous jobs that wait together are sent as one.
// After a failed job the rest are skipped. Nothing throws out of it: the caller's array is
// already partly written when a job is submitted, so a job that cannot be queued (or a worker
// that cannot start, or a send that throws) is a failed job, reported by finish().
#include <cuda_runtime.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "impl/context/gpu.h"

namespace cudrop::impl {

class PanelSender {
 public:
  using Send = std::function<Status(int c0, int c1, int *written)>;
  // device: the CUDA device the worker thread works on (the current device is per thread).
  PanelSender(int device, Send send) : device_(device), send_(std::move(send)) {}
  PanelSender(const PanelSender &) = delete;
  PanelSender &operator=(const PanelSender &) = delete;
  ~PanelSender() {
    int ignored = 0;
    finish(&ignored);
  }
  void submit(int c0, int c1) noexcept {
    try {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        jobs_.emplace_back(c0, c1);
      }
      if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    } catch (...) {
      // This job's columns never go out: no later job may go either (written_ would claim them).
      std::lock_guard<std::mutex> lock(mutex_);
      lost_ = true;
    }
    wake_.notify_one();
  }
  // Waits for every job; *written: what the last successful job reported (for panels sent
  // left to right, the caller's array holds columns 0..*written-1).
  Status finish(int *written) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    wake_.notify_one();
    if (worker_.joinable()) worker_.join();
    if (lost_ && status_ == Status::ok) status_ = Status::out_of_memory;
    *written = written_;
    return status_;
  }

 private:
  void run() {
    if (cudaSetDevice(device_) != cudaSuccess) status_ = Status::cuda_error;
    for (;;) {
      std::pair<int, int> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return closing_ || lost_ || !jobs_.empty(); });
        if (jobs_.empty() || lost_) return;
        // Every job waiting now, merged while they are contiguous: a job's first piece has no
        // DMA to hide behind, so one long job beats several short ones (with a job per panel
        // a large download spends much of its time waiting for such DMAs:
        // docs/perf/README.md, Cholesky write-back).
        job = jobs_.front();
        jobs_.pop_front();
        while (!jobs_.empty() && jobs_.front().first == job.second) {
          job.second = jobs_.front().second;
          jobs_.pop_front();
        }
      }
      if (status_ != Status::ok) continue;
      try {
        status_ = send_(job.first, job.second, &written_);
      } catch (...) {  // (an exception would end the process on this thread)
        status_ = Status::out_of_memory;
      }
    }
  }
  int device_;
  Send send_;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<int, int>> jobs_;
  bool closing_ = false;
  bool lost_ = false;  // a job could not be queued or the worker could not start
  // Written by the worker only, read after the join.
  Status status_ = Status::ok;
  int written_ = 0;
};

}  // namespace cudrop::impl
