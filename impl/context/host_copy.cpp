#include "impl/context/host_copy.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/tuning.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define CUDROP_STREAMING_STORES 1
#endif

namespace cudrop::impl {

// Several threads may hand the pool a job at once (the calling thread uploading while a
// sender thread downloads): every job is listed, idle workers join the one with the most
// pieces left, and each caller works on its own job until it is finished.
class CopyPool {
 public:
  explicit CopyPool(int threads) {
    for (int i = 1; i < threads; ++i) std::thread([this] { work(); }).detach();
    workers_ = threads - 1;
  }

  int threads() const { return workers_ + 1; }

  // Runs task(i) for every i in [0, count) and returns when all are done.
  void run(size_t count, const std::function<void(size_t)> &task) {
    if (workers_ == 0 || count <= 1) {
      for (size_t i = 0; i < count; ++i) task(i);
      return;
    }
    Job job{&task, count};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(&job);
    }
    // Wake only as many workers as there are items beyond the caller's own: a small copy
    // should not pay for waking the whole pool.
    for (size_t i = 1; i < count && i <= size_t(workers_); ++i) wake_.notify_one();
    const size_t mine = job.drain();
    std::unique_lock<std::mutex> lock(mutex_);
    job.done += mine;
    // A worker that joined holds the job until it has reported back, even with nothing left
    // to take, so the job outlives every worker that saw it.
    finished_.wait(lock, [&] { return job.done == count && job.helpers == 0; });
    jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
  }

 private:
  struct Job {
    const std::function<void(size_t)> *task;
    size_t count;
    std::atomic<size_t> next{0};
    size_t done = 0;  // items finished, under the pool's mutex
    int helpers = 0;  // workers inside drain(), under the pool's mutex
    Job(const std::function<void(size_t)> *t, size_t c) : task(t), count(c) {}
    size_t left() const {
      const size_t taken = next.load(std::memory_order_relaxed);
      return taken < count ? count - taken : 0;
    }
    // Takes items until none are left; returns how many this thread did.
    size_t drain() {
      size_t did = 0;
      for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1), ++did) (*task)(i);
      return did;
    }
  };

  Job *busiest() const {
    Job *best = nullptr;
    for (Job *job : jobs_)
      if (job->left() > 0 && (best == nullptr || job->left() > best->left())) best = job;
    return best;
  }

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      Job *job = nullptr;
      wake_.wait(lock, [&] { return (job = busiest()) != nullptr; });
      ++job->helpers;
      lock.unlock();
      const size_t did = job->drain();
      lock.lock();
      job->done += did;
      --job->helpers;
      if (job->done == job->count && job->helpers == 0) finished_.notify_all();
    }
  }

  int workers_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::vector<Job *> jobs_;
};

CopyPool *make_copy_pool(int threads) { return new CopyPool(std::max(1, threads)); }

void copy_streaming(void *dst_bytes, const void *src_bytes, size_t bytes) {
#ifdef CUDROP_STREAMING_STORES
  auto *dst = static_cast<char *>(dst_bytes);
  const auto *src = static_cast<const char *>(src_bytes);
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 48), d);
  }
  std::memcpy(dst + i, src + i, bytes - i);
  _mm_sfence();
#else
  std::memcpy(dst_bytes, src_bytes, bytes);
#endif
}

namespace {

// Large copies use streaming (non-temporal) stores: the destination is not read first and
// does not evict the cache, so a pageable<->pinned copy moves 2 bytes of DRAM traffic per
// byte instead of 3, which makes the pool's copies markedly faster in both directions
// (docs/perf/README.md, host copies).
void copy_bytes(char *dst, const char *src, size_t bytes) {
  if (bytes >= tuning::kStreamingCopyFrom) copy_streaming(dst, src, bytes);
  else std::memcpy(dst, src, bytes);
}

}  // namespace

void copy_columns(CopyPool *pool, void *dst, size_t dst_ld, const void *src, size_t src_ld,
                  size_t row_bytes, size_t cols) {
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  // One thread copies pageable memory at only a few GB/s (latency-bound), so a copy must be
  // cut into at least one piece per thread to reach the pool's rate (fixed 1 MiB pieces leave
  // threads idle on copies of a few MiB); pieces stay between 128 KiB and 1 MiB, small
  // enough to balance, large enough to amortize the hand-off.
  const size_t total = row_bytes * cols;
  const size_t piece = std::clamp(total / size_t(pool->threads()), tuning::kCopyPieceMin, tuning::kCopyPieceMax);
  if (dst_ld == row_bytes && src_ld == row_bytes) {
    const size_t pieces = (total + piece - 1) / piece;
    pool->run(pieces, [&](size_t p) {
      const size_t begin = p * piece, bytes = std::min(piece, total - begin);
      copy_bytes(d + begin, s + begin, bytes);
    });
    return;
  }
  const size_t cols_per_piece = std::max<size_t>(1, piece / std::max<size_t>(row_bytes, 1));
  const size_t pieces = (cols + cols_per_piece - 1) / cols_per_piece;
  pool->run(pieces, [&](size_t p) {
    const size_t first = p * cols_per_piece, last = std::min(cols, first + cols_per_piece);
    for (size_t j = first; j < last; ++j) copy_bytes(d + j * dst_ld, s + j * src_ld, row_bytes);
  });
}

}  // namespace cudrop::impl
