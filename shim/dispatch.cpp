#include "shim/dispatch.h"

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <pthread.h>

// Calls that ran on the CPU, counted by each thread in its own slot: a locked add on one
// shared counter waits for the store buffer to drain, 6-10 ns after a small GEMM on the H100
// host's Xeon, 5% of a 16^3 sgemm (.device/disp, 2026-11-22). The owner alone writes its
// slot (the x86-64 entry of sgemm_/dgemm_ in capi/gemm.cpp through a TLS descriptor, without
// a lock); counters() adds up the live threads' slots and what exited threads left. A thread
// registers on its first counted call (the assembly entry leaves unregistered ones to the
// full path, which counts through count_cpu_call) and folds its count in when it exits.
extern "C" {
struct CudropThreadCalls {
  long cpu_calls;  // offset 0, read by the assembly entry
  long registered; // offset 8, read by the assembly entry
  long exited;     // its exit handler ran: count into the exited total from then on
  CudropThreadCalls *next, *prev;
};
__attribute__((visibility("hidden"))) __thread CudropThreadCalls cudrop_thread_calls;
}
static_assert(offsetof(CudropThreadCalls, cpu_calls) == 0 && offsetof(CudropThreadCalls, registered) == 8,
              "the x86-64 GEMM entry (capi/gemm.cpp) reads these offsets");

namespace cudrop {
namespace {

double env_number(const char *name, double fallback) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char *end = nullptr;
  const double value = std::strtod(text, &end);
  return (end != text && value >= 0) ? value : fallback;
}

std::atomic<long> g_gpu_calls{0}, g_gpu_fallbacks{0};

std::mutex thread_calls_mutex;                 // guards the three below
CudropThreadCalls *thread_calls_head = nullptr;  // the registered, live threads
long exited_threads_cpu_calls = 0;
pthread_key_t thread_calls_exit_key;

void fold_in_exiting_thread(void *slot) {
  auto *calls = static_cast<CudropThreadCalls *>(slot);
  std::lock_guard<std::mutex> lock(thread_calls_mutex);
  exited_threads_cpu_calls += calls->cpu_calls;
  if (calls->prev) calls->prev->next = calls->next;
  else thread_calls_head = calls->next;
  if (calls->next) calls->next->prev = calls->prev;
  calls->next = calls->prev = nullptr;
  calls->cpu_calls = 0;
  __atomic_store_n(&calls->registered, 0, __ATOMIC_RELAXED);
  calls->exited = 1;
}

void register_thread_calls(CudropThreadCalls &calls) {
  static const bool key_ready = [] {
    // A child of fork() must not inherit the mutex held by a thread that is not there.
    pthread_atfork([] { thread_calls_mutex.lock(); }, [] { thread_calls_mutex.unlock(); },
                   [] { thread_calls_mutex.unlock(); });
    return pthread_key_create(&thread_calls_exit_key, fold_in_exiting_thread) == 0;
  }();
  if (!key_ready) return;  // no exit hook: keep counting under the mutex
  {
    std::lock_guard<std::mutex> lock(thread_calls_mutex);
    calls.prev = nullptr;
    calls.next = thread_calls_head;
    if (thread_calls_head) thread_calls_head->prev = &calls;
    thread_calls_head = &calls;
  }
  pthread_setspecific(thread_calls_exit_key, &calls);
  __atomic_store_n(&calls.registered, 1, __ATOMIC_RELAXED);
}

long cpu_call_total() {
  std::lock_guard<std::mutex> lock(thread_calls_mutex);
  long total = exited_threads_cpu_calls;
  for (const CudropThreadCalls *calls = thread_calls_head; calls != nullptr; calls = calls->next)
    total += __atomic_load_n(&calls->cpu_calls, __ATOMIC_RELAXED);
  return total;
}

const char *mode_name(Mode mode) {
  return mode == Mode::Gpu ? "gpu" : mode == Mode::Cpu ? "cpu" : "auto";
}

// One line at exit with CUDROP_VERBOSE>=1: the netlib harness reads it to prove that a
// forced-GPU run really ran on the GPU and never fell back.
__attribute__((destructor)) void print_summary() {
  if (settings().verbose >= 1)
    std::fprintf(stderr, "cudrop: summary: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld\n",
                 g_gpu_calls.load(), cpu_call_total(), g_gpu_fallbacks.load());
}

Settings read_settings() {
  Settings s;
  if (const char *mode = std::getenv("CUDROP_MODE")) {
    if (std::strcmp(mode, "gpu") == 0) s.mode = Mode::Gpu;
    else if (std::strcmp(mode, "cpu") == 0) s.mode = Mode::Cpu;
  }
  s.verbose = static_cast<int>(env_number("CUDROP_VERBOSE", 0));
  // Crossovers measured on the H100 machine against its CPU LAPACK/BLAS (OpenBLAS, 16 cores),
  // host->host through the public calls (gpu-check, 2026-11-21, docs/perf/): sgemm_ square is
  // faster on the GPU from n=384-512 in both runs; sgetrf_/dgetrf_ from 1024 (2048 clearly:
  // 14.8 vs 18.4 ms); spotrf_/dpotrf_ already at 512 (0.7 vs 1.7 ms). dgemm_ won from 768
  // then; with the FP64 tensor-core kernel it wins at 512 too (0.46 vs 0.98 ms, and 0.45 vs
  // 0.78 in medians of 21 calls, 2026-11-22), while at 384 the CPU won one of two runs.
  // Auto mode must never be much slower than the CPU, so each starts at a size that won.
  const double gemm_min_flops = env_number("CUDROP_GEMM_MIN_FLOPS", -1);
  s.gemm_min_flops_single = gemm_min_flops >= 0 ? gemm_min_flops : 2.0 * 512 * 512 * 512;
  s.gemm_min_flops_double = gemm_min_flops >= 0 ? gemm_min_flops : 2.0 * 512 * 512 * 512;
  s.gemm_min_intensity = env_number("CUDROP_GEMM_MIN_INTENSITY", 16);
  s.getrf_min_n = static_cast<int>(env_number("CUDROP_GETRF_MIN_N", 2048));
  s.potrf_min_n = static_cast<int>(env_number("CUDROP_POTRF_MIN_N", 512));
  // Device memory cap (bytes, suffixes K/M/G/T): the out-of-core GEMM tiles to fit it.
  if (const char *limit = std::getenv("CUDROP_GPU_MEM_LIMIT"); limit != nullptr && *limit != '\0') {
    if (!parse_byte_size(limit, &s.gpu_mem_limit)) {
      s.gpu_mem_limit = 0;
      // (log() would read these settings: not yet.)
      if (s.verbose >= 1)
        std::fprintf(stderr, "cudrop: CUDROP_GPU_MEM_LIMIT=%s is not a byte count (e.g. 300M, 2G); ignored\n", limit);
    }
  }
  return s;
}

}  // namespace

namespace detail {
const Settings &read_settings_once() {
  static const Settings s = read_settings();
  settings_read.store(&s, std::memory_order_release);
  return s;
}
}  // namespace detail

void log(int level, const char *format, ...) {
  if (settings().verbose < level) return;
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  std::fprintf(stderr, "cudrop: %s\n", line);
}

namespace detail {

std::atomic<const Settings *> settings_read{nullptr};

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

bool gpu_wanted(const char *routine, bool worth_gpu, cpu::Routine cpu_routine) {
  const Mode mode = settings().mode;
  if (mode == Mode::Cpu) return false;
  const bool cpu_present = cpu::find(cpu_routine) != nullptr;
  if (mode == Mode::Auto && worth_gpu == false && cpu_present) return false;
  if (impl::gpu_usable()) return true;
  static std::once_flag told;
  std::call_once(told, [&] {
    log(1, "no usable GPU (%s): %s and every later call run on the CPU (mode %s)",
        impl::gpu_unusable_reason(), routine, mode_name(mode));
  });
  return false;
}

void count_gpu(const char *routine, double seconds) {
  g_gpu_calls.fetch_add(1, std::memory_order_relaxed);
  log(2, "%s on GPU, %.3f ms", routine, seconds * 1e3);
}

void count_fallback(const char *routine, impl::Status status) {
  g_gpu_fallbacks.fetch_add(1, std::memory_order_relaxed);
  log(1, "%s: GPU attempt failed (%s); computing it on the CPU", routine, impl::status_text(status));
}

void count_partial_fallback(const char *routine, impl::Status status, const char *detail) {
  g_gpu_fallbacks.fetch_add(1, std::memory_order_relaxed);
  log(1, "%s: GPU attempt failed (%s) %s; the rest is computed on the CPU", routine,
      impl::status_text(status), detail);
}

void count_cpu_call() {
  CudropThreadCalls &calls = cudrop_thread_calls;
  if (!calls.registered && !calls.exited) register_thread_calls(calls);
  if (calls.registered) {
    __atomic_store_n(&calls.cpu_calls, calls.cpu_calls + 1, __ATOMIC_RELAXED);
  } else {  // exiting (or no exit hook): the shared total
    std::lock_guard<std::mutex> lock(thread_calls_mutex);
    ++exited_threads_cpu_calls;
  }
}

void count_cpu(const char *routine, double seconds) {
  count_cpu_call();
  log(2, "%s on CPU, %.3f ms", routine, seconds * 1e3);
}

}  // namespace detail

void counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks) {
  if (gpu_calls) *gpu_calls = g_gpu_calls.load();
  if (cpu_calls) *cpu_calls = cpu_call_total();
  if (gpu_fallbacks) *gpu_fallbacks = g_gpu_fallbacks.load();
}

}  // namespace cudrop
