#pragma once
// Which chunks of an operand shared by the devices of a call the first device has posted, and
// where (impl/context/shared_operand.h): host code only, tested without a GPU
// (tests/gemm/shared_operand_test.cpp).
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace cudrop::impl {

class ChunkBoard {
 public:
  struct Posted {
    const void *dev = nullptr;  // the chunk's first element in the leader's memory
    size_t ldd_bytes = 0;
  };
  explicit ChunkBoard(int chunks) : posted_(size_t(chunks > 0 ? chunks : 0)), has_(posted_.size(), false) {}
  int chunks() const { return int(posted_.size()); }
  // Chunk c is (or will be, once the leader's event for it completes) on the leader's device.
  // Ignored once closed, or for a chunk out of range.
  void post(int c, const Posted &where) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_ || c < 0 || c >= chunks()) return;
    posted_[size_t(c)] = where;
    has_[size_t(c)] = true;
    changed_.notify_all();
  }
  // No chunk is posted after this (idempotent).
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  // Waits until chunk c is posted (true, *out) or the board is closed without it (false).
  bool take(int c, Posted *out) {
    if (c < 0 || c >= chunks()) return false;
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return has_[size_t(c)] || closed_; });
    if (!has_[size_t(c)]) return false;
    *out = posted_[size_t(c)];
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Posted> posted_;
  std::vector<bool> has_;
  bool closed_ = false;
};

}  // namespace cudrop::impl
