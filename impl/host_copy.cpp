#include "impl/host_copy.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cudrop::impl {

class CopyPool {
 public:
  explicit CopyPool(int threads) {
    for (int i = 1; i < threads; ++i) std::thread([this] { work(); }).detach();
    workers_ = threads - 1;
  }

  // Runs task(i) for every i in [0, count) and returns when all are done.
  void run(size_t count, const std::function<void(size_t)> &task) {
    if (workers_ == 0 || count <= 1) {
      for (size_t i = 0; i < count; ++i) task(i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      next_.store(0);
      done_ = 0;
      ++generation_;
    }
    // Wake only as many workers as there are items beyond the caller's own: a small copy
    // should not pay for waking the whole pool.
    for (size_t i = 1; i < count && i <= size_t(workers_); ++i) wake_.notify_one();
    const size_t mine = drain();
    std::unique_lock<std::mutex> lock(mutex_);
    done_ += mine;
    finished_.wait(lock, [&] { return done_ == count_; });
    task_ = nullptr;
  }

 private:
  // Takes items until none are left; returns how many this thread did.
  size_t drain() {
    size_t did = 0;
    for (size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1), ++did) (*task_)(i);
    return did;
  }

  void work() {
    unsigned long seen = 0;
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_ != seen && task_ != nullptr; });
      seen = generation_;
      lock.unlock();
      const size_t did = drain();
      lock.lock();
      done_ += did;
      if (done_ == count_) finished_.notify_all();
    }
  }

  int workers_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(size_t)> *task_ = nullptr;
  size_t count_ = 0, done_ = 0;
  std::atomic<size_t> next_{0};
  unsigned long generation_ = 0;
};

CopyPool *make_copy_pool(int threads) { return new CopyPool(std::max(1, threads)); }

void copy_columns(CopyPool *pool, void *dst, size_t dst_ld, const void *src, size_t src_ld,
                  size_t row_bytes, size_t cols) {
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  // Pieces of about 1 MiB: small enough to balance, large enough to amortize the hand-off.
  constexpr size_t kPiece = size_t(1) << 20;
  if (dst_ld == row_bytes && src_ld == row_bytes) {
    const size_t total = row_bytes * cols, pieces = (total + kPiece - 1) / kPiece;
    pool->run(pieces, [&](size_t p) {
      const size_t begin = p * kPiece, bytes = std::min(kPiece, total - begin);
      std::memcpy(d + begin, s + begin, bytes);
    });
    return;
  }
  const size_t cols_per_piece = std::max<size_t>(1, kPiece / std::max<size_t>(row_bytes, 1));
  const size_t pieces = (cols + cols_per_piece - 1) / cols_per_piece;
  pool->run(pieces, [&](size_t p) {
    const size_t first = p * cols_per_piece, last = std::min(cols, first + cols_per_piece);
    for (size_t j = first; j < last; ++j) std::memcpy(d + j * dst_ld, s + j * src_ld, row_bytes);
  });
}

}  // namespace cudrop::impl
