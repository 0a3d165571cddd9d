#include "impl/context/host_copy.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

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
  // As many workers as the system gives, up to threads - 1: a pool of fewer still copies.
  explicit CopyPool(int threads) : boxes_(new Mailbox[size_t(threads)]) {
    try {
      for (int i = 1; i < threads; ++i, ++workers_) std::thread([this, i] { work(i); }).detach();
    } catch (const std::system_error &) {
    }
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

  // Runs task(part) for every part in [0, parts), parts at most threads(): part 0 on the calling
  // thread, part k on worker k every time, so that successive calls over the same arrays find
  // them in the same thread's cache and TLB. The workers spin a while for the next such call
  // before they sleep. false, nothing run, while another thread's run_each has the pool.
  bool run_each(int parts, const std::function<void(int)> &task) {
    if (each_busy_.exchange(true, std::memory_order_acquire)) return false;
    parts = std::min(parts, threads());
    each_left_.store(parts - 1, std::memory_order_relaxed);
    bool asleep = false;
    for (int k = 1; k < parts; ++k) {
      boxes_[k].task = &task;
      boxes_[k].posted.fetch_add(1, std::memory_order_seq_cst);
      asleep = asleep || boxes_[k].asleep.load(std::memory_order_seq_cst);
    }
    // A worker that said it sleeps has checked its box under the mutex, or is about to: taking
    // the mutex before the notification means it cannot miss it.
    if (asleep) {
      { std::lock_guard<std::mutex> lock(mutex_); }
      wake_.notify_all();
    }
    task(0);
    while (each_left_.load(std::memory_order_acquire) != 0) pause();
    each_busy_.store(false, std::memory_order_release);
    return true;
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

  // A worker's part of run_each: posted counts the calls handed to it, asleep says it waits
  // on wake_ (each on its own cache line: the caller and the worker write them).
  struct alignas(64) Mailbox {
    std::atomic<uint64_t> posted{0};
    std::atomic<bool> asleep{false};
    const std::function<void(int)> *task = nullptr;
  };

  static void pause() {
#if defined(__x86_64__) || defined(_M_X64)
    _mm_pause();
#endif
  }

  // Runs the run_each parts posted to worker `index` since `seen`, then spins for the next
  // until kCopySpinMicroseconds have passed without one.
  void serve_parts(int index, uint64_t &seen) {
    Mailbox &box = boxes_[index];
    auto last = std::chrono::steady_clock::now();
    for (unsigned spins = 0;; ++spins) {
      const uint64_t posted = box.posted.load(std::memory_order_acquire);
      if (posted != seen) {
        seen = posted;
        (*box.task)(index);
        each_left_.fetch_sub(1, std::memory_order_acq_rel);
        last = std::chrono::steady_clock::now();
        spins = 0;
        continue;
      }
      if (spins % 256 == 255 &&
          std::chrono::steady_clock::now() - last > std::chrono::microseconds(tuning::kCopySpinMicroseconds))
        return;
      pause();
    }
  }

  void work(int index) {
    Mailbox &box = boxes_[index];
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      Job *job = nullptr;
      box.asleep.store(true, std::memory_order_seq_cst);
      wake_.wait(lock, [&] {
        return box.posted.load(std::memory_order_seq_cst) != seen || (job = busiest()) != nullptr;
      });
      box.asleep.store(false, std::memory_order_relaxed);
      if (box.posted.load(std::memory_order_acquire) != seen) {
        lock.unlock();
        serve_parts(index, seen);
        lock.lock();
        continue;
      }
      ++job->helpers;
      lock.unlock();
      const size_t did = job->drain();
      lock.lock();
      job->done += did;
      --job->helpers;
      if (job->done == job->count && job->helpers == 0) finished_.notify_all();
    }
  }

  std::unique_ptr<Mailbox[]> boxes_;  // run_each's, one per worker (index 0 unused)
  std::atomic<bool> each_busy_{false};
  std::atomic<int> each_left_{0};  // parts of the current run_each still running on workers
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

namespace {

// The pool of copy_vector, made on its first call. A child of fork() has none of its parent's
// threads: it forgets the pool (the parent's stays with the parent) and makes its own.
std::atomic<CopyPool *> vector_pool{nullptr};
std::mutex vector_pool_mutex;

CopyPool *the_vector_pool(int threads_setting) {
  if (CopyPool *pool = vector_pool.load(std::memory_order_acquire)) return pool;
  std::lock_guard<std::mutex> lock(vector_pool_mutex);
  if (CopyPool *pool = vector_pool.load(std::memory_order_relaxed)) return pool;
  static const bool registered = [] {
    pthread_atfork([] { vector_pool_mutex.lock(); }, [] { vector_pool_mutex.unlock(); },
                   [] {
                     vector_pool.store(nullptr, std::memory_order_relaxed);
                     vector_pool_mutex.unlock();
                   });
    return true;
  }();
  (void)registered;
  // One per core the process may run on: its workers spin, so more than that only waits.
  cpu_set_t allowed;
  const int cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0
                        ? CPU_COUNT(&allowed)
                        : int(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = threads_setting > 0 ? threads_setting : std::clamp(cores, 1, tuning::kCopyThreadsPerDevice);
  CopyPool *pool = nullptr;
  try {
    pool = new CopyPool(threads);
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
  vector_pool.store(pool, std::memory_order_release);
  return pool;
}

// Elements of `bytes` bytes moved as integers of that size, so that every bit is kept (a
// signalling NaN too).
template <size_t bytes>
struct Element {
  uint64_t word[bytes / 8];
};
template <>
struct Element<4> {
  uint32_t word;
};

template <size_t bytes>
void copy_elements(char *y, ptrdiff_t incy, const char *x, ptrdiff_t incx, size_t begin, size_t end) {
  using E = Element<bytes>;
  static_assert(sizeof(E) == bytes, "an element is moved whole");
  for (size_t i = begin; i < end; ++i) {
    E e;
    std::memcpy(&e, x + ptrdiff_t(i) * incx, bytes);
    std::memcpy(y + ptrdiff_t(i) * incy, &e, bytes);
  }
}

// The bytes [lo, hi) that n elements from `start` at `inc` bytes apart cover.
void extent(const char *start, ptrdiff_t inc, size_t n, size_t elem_bytes, uintptr_t *lo, uintptr_t *hi) {
  const auto first = reinterpret_cast<uintptr_t>(start);
  const uintptr_t span = uintptr_t(n - 1) * uintptr_t(inc < 0 ? -inc : inc);
  *lo = inc < 0 ? first - span : first;
  *hi = (inc < 0 ? first : first + span) + elem_bytes;
}

}  // namespace

bool copy_vector(int64_t n, const void *x, int64_t incx, void *y, int64_t incy, size_t elem_bytes, int threads) {
  if (n < 2 || incx == 0 || incy == 0 || (elem_bytes != 4 && elem_bytes != 8 && elem_bytes != 16)) return false;
  // At least two parts: the caller decided the copy is worth threads (CUDROP_COPY_SPLIT_N).
  const int64_t most_parts = std::max<int64_t>(2, n / tuning::kCopyVectorPerThread);
  // The reference's element i of x is x(1 + i*incx), or x(1 + (n-1-i)*|incx|) for incx < 0.
  const ptrdiff_t step_x = ptrdiff_t(incx) * ptrdiff_t(elem_bytes), step_y = ptrdiff_t(incy) * ptrdiff_t(elem_bytes);
  const char *x0 = static_cast<const char *>(x) + (incx < 0 ? -(n - 1) * step_x : 0);
  char *y0 = static_cast<char *>(y) + (incy < 0 ? -(n - 1) * step_y : 0);
  uintptr_t x_lo, x_hi, y_lo, y_hi;
  extent(x0, step_x, size_t(n), elem_bytes, &x_lo, &x_hi);
  extent(y0, step_y, size_t(n), elem_bytes, &y_lo, &y_hi);
  // Overlapping arrays keep the reference's order: element by element, on the CPU library.
  if (x_lo < y_hi && y_lo < x_hi) return false;
  CopyPool *pool = the_vector_pool(threads);
  if (pool == nullptr || pool->threads() < 2) return false;
  const int parts = int(std::min<int64_t>(most_parts, pool->threads()));
  void (*copy)(char *, ptrdiff_t, const char *, ptrdiff_t, size_t, size_t) =
      elem_bytes == 4 ? copy_elements<4> : elem_bytes == 8 ? copy_elements<8> : copy_elements<16>;
  const size_t count = size_t(n);
  return pool->run_each(parts, [&](int part) {
    copy(y0, step_y, x0, step_x, count * size_t(part) / size_t(parts), count * size_t(part + 1) / size_t(parts));
  });
}

}  // namespace cudrop::impl
