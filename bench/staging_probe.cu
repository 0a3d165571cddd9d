// How fast pageable host memory moves to and from the GPU through pinned staging buffers, as
// a function of the staging buffer size, the number of buffers and the kind of CPU stores.
// The question behind it: a small staging buffer may stay in the host's last-level cache, so
// the DMA reads it (or writes it) there instead of in DRAM; whether that beats large buffers
// with streaming stores (what impl/context/host_copy.cpp does) is measured, not assumed.
//
// Streaming stores are the library's own (impl/context/host_copy.cpp). Measured on the lent H100's host:
// no geometry beat the library's two 32 MB buffers by more than run-to-run noise, and both
// directions at once share one host copy rate (docs/perf/README.md, host copies).
//
//   cudrop-staging-probe [--gib G] [--threads T] [--reps R]
// Prints one line per configuration: direction, buffer MB, buffers, stores, GB/s (median).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "impl/context/host_copy.h"

namespace {

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// A fixed team: run(count, task) runs task(0..count-1) on the team and the caller.
class Team {
 public:
  explicit Team(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~Team() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto &t : workers_) t.join();
  }
  void run(size_t count, const std::function<void(size_t)> &task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      next_.store(0);
      done_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    size_t mine = 0;
    for (size_t i = next_.fetch_add(1); i < count; i = next_.fetch_add(1), ++mine) task(i);
    std::unique_lock<std::mutex> lock(mutex_);
    done_ += mine;
    finished_.wait(lock, [&] { return done_ == count_ && busy_ == 0; });
    task_ = nullptr;
  }

 private:
  void work() {
    unsigned long seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || (generation_ != seen && task_ != nullptr); });
      if (stop_) return;
      seen = generation_;
      const auto *task = task_;
      const size_t count = count_;
      ++busy_;
      lock.unlock();
      size_t did = 0;
      for (size_t i = next_.fetch_add(1); i < count; i = next_.fetch_add(1), ++did) (*task)(i);
      lock.lock();
      done_ += did;
      --busy_;
      if (done_ == count_ && busy_ == 0) finished_.notify_all();
    }
  }
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(size_t)> *task_ = nullptr;
  size_t count_ = 0, done_ = 0;
  int busy_ = 0;
  unsigned long generation_ = 0;
  bool stop_ = false;
  std::atomic<size_t> next_{0};
};

void team_copy(Team &team, int threads, char *dst, const char *src, size_t bytes, bool streaming) {
  const size_t piece = std::clamp(bytes / size_t(threads), size_t(64) << 10, size_t(1) << 20);
  const size_t pieces = (bytes + piece - 1) / piece;
  team.run(pieces, [&](size_t p) {
    const size_t begin = p * piece, n = std::min(piece, bytes - begin);
    if (streaming) cudrop::impl::copy_streaming(dst + begin, src + begin, n);
    else std::memcpy(dst + begin, src + begin, n);
  });
}

struct Stager {
  int buffers;
  size_t bytes;
  std::vector<char *> stage;
  std::vector<cudaEvent_t> free;
  cudaStream_t stream;
  Stager(int k, size_t s) : buffers(k), bytes(s), stage(k), free(k) {
    for (int i = 0; i < k; ++i) {
      CHECK(cudaHostAlloc(reinterpret_cast<void **>(&stage[i]), s, cudaHostAllocDefault));
      CHECK(cudaEventCreateWithFlags(&free[i], cudaEventDisableTiming));
    }
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~Stager() {
    for (int i = 0; i < buffers; ++i) {
      cudaFreeHost(stage[i]);
      cudaEventDestroy(free[i]);
    }
    cudaStreamDestroy(stream);
  }
};

void upload(Team &team, int threads, Stager &st, const char *src, char *dev, size_t total, bool streaming) {
  const size_t pieces = (total + st.bytes - 1) / st.bytes;
  for (size_t i = 0; i < pieces; ++i) {
    const int b = int(i % st.buffers);
    const size_t off = i * st.bytes, n = std::min(st.bytes, total - off);
    CHECK(cudaEventSynchronize(st.free[b]));
    team_copy(team, threads, st.stage[b], src + off, n, streaming);
    CHECK(cudaMemcpyAsync(dev + off, st.stage[b], n, cudaMemcpyHostToDevice, st.stream));
    CHECK(cudaEventRecord(st.free[b], st.stream));
  }
  CHECK(cudaStreamSynchronize(st.stream));
}

void download(Team &team, int threads, Stager &st, const char *dev, char *dst, size_t total, bool streaming) {
  const size_t pieces = (total + st.bytes - 1) / st.bytes;
  auto issue = [&](size_t i) {
    const int b = int(i % st.buffers);
    const size_t off = i * st.bytes, n = std::min(st.bytes, total - off);
    CHECK(cudaMemcpyAsync(st.stage[b], dev + off, n, cudaMemcpyDeviceToHost, st.stream));
    CHECK(cudaEventRecord(st.free[b], st.stream));
  };
  for (size_t i = 0; i < pieces && i < size_t(st.buffers); ++i) issue(i);
  for (size_t i = 0; i < pieces; ++i) {
    const int b = int(i % st.buffers);
    const size_t off = i * st.bytes, n = std::min(st.bytes, total - off);
    CHECK(cudaEventSynchronize(st.free[b]));
    team_copy(team, threads, dst + off, st.stage[b], n, streaming);
    if (i + st.buffers < pieces) issue(i + st.buffers);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  double gib = 1.0;
  int threads = 16, reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--gib") gib = std::atof(argv[i + 1]);
    else if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
  }
  const size_t total = size_t(gib * double(1ull << 30));
  // Pageable, touched, non-zero (as a caller's matrix is).
  char *src = static_cast<char *>(std::malloc(total));
  char *dst = static_cast<char *>(std::malloc(total));
  char *src2 = static_cast<char *>(std::malloc(total));
  char *dst2 = static_cast<char *>(std::malloc(total));
  {
    Team fill(threads);
    const size_t chunk = 16 << 20;
    fill.run((total + chunk - 1) / chunk, [&](size_t c) {
      const size_t off = c * chunk, n = std::min(chunk, total - off);
      for (size_t i = 0; i < n; i += 4096) {
        src[off + i] = char(i * 7 + c);
        src2[off + i] = char(i * 3 + c);
      }
      std::memset(src + off, int(c % 251) + 1, n / 2);
      std::memset(src2 + off, int(c % 241) + 1, n / 2);
      std::memset(dst + off, 1, n);
      std::memset(dst2 + off, 1, n);
    });
  }
  char *dev = nullptr, *dev2 = nullptr;
  CHECK(cudaMalloc(&dev, total));
  CHECK(cudaMalloc(&dev2, total));
  CHECK(cudaMemset(dev, 3, total));
  CHECK(cudaMemset(dev2, 5, total));

  Team team(threads);
  std::printf("staging-probe: %.2f GiB, %d host threads, median of %d\n", gib, threads, reps);
  const size_t sizes_mb[] = {2, 4, 8, 16, 32};
  const int counts[] = {2, 4};
  for (int dir = 0; dir < 2; ++dir)
    for (size_t mb : sizes_mb)
      for (int k : counts)
        for (int streaming = 0; streaming < 2; ++streaming) {
          Stager st(k, mb << 20);
          std::vector<double> rates;
          for (int r = 0; r <= reps; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            if (dir == 0) upload(team, threads, st, src, dev, total, streaming);
            else download(team, threads, st, dev, dst, total, streaming);
            const double s = seconds_since(t0);
            if (r > 0) rates.push_back(double(total) / s / 1e9);
          }
          std::printf("%s MB=%zu buffers=%d stores=%s GBps=%.1f\n", dir == 0 ? "h2d" : "d2h", mb, k,
                      streaming ? "stream" : "temporal", median(rates));
          std::fflush(stdout);
        }
  if (std::memcmp(dst, src, 64) == 0) std::printf("(unexpected: dst equals src)\n");

  // Both directions at once, each with its own half of the threads, buffers and stream.
  for (size_t mb : {size_t(4), size_t(32)})
    for (int mode = 0; mode < 3; ++mode) {
      const bool up_stream = mode != 1, down_stream = mode != 0;
      const int half = std::max(1, threads / 2);
      Team up_team(half), down_team(half);
      Stager up(4, mb << 20), down(4, mb << 20);
      std::vector<double> rates;
      for (int r = 0; r <= reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        std::thread t([&] { upload(up_team, half, up, src2, dev2, total, up_stream); });
        download(down_team, half, down, dev, dst2, total, down_stream);
        t.join();
        const double s = seconds_since(t0);
        if (r > 0) rates.push_back(2.0 * double(total) / s / 1e9);
      }
      std::printf("both MB=%zu buffers=4 up_stores=%s down_stores=%s threads=%d+%d GBps_total=%.1f\n", mb,
                  up_stream ? "stream" : "temporal", down_stream ? "stream" : "temporal", half, half, median(rates));
      std::fflush(stdout);
    }

  // The check that the data arrived: the device copy of src and dst after a download agree.
  {
    Stager st(2, 8 << 20);
    upload(team, threads, st, src, dev, total, true);
    download(team, threads, st, dev, dst, total, false);
    std::printf("round trip %s\n", std::memcmp(src, dst, total) == 0 ? "exact" : "MISMATCH");
  }
  return 0;
}
