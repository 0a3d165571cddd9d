#include "shim/dispatch.h"

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cudrop {
namespace {

double env_number(const char *name, double fallback) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char *end = nullptr;
  const double value = std::strtod(text, &end);
  return (end != text && value >= 0) ? value : fallback;
}

Settings read_settings() {
  Settings s;
  if (const char *mode = std::getenv("CUDROP_MODE")) {
    if (std::strcmp(mode, "gpu") == 0) s.mode = Mode::Gpu;
    else if (std::strcmp(mode, "cpu") == 0) s.mode = Mode::Cpu;
  }
  s.verbose = static_cast<int>(env_number("CUDROP_VERBOSE", 0));
  // Crossover measured on the H100 machine against its CPU BLAS (OpenBLAS, 16 cores): the
  // GPU path (transfers included) is slower at n=512 square in every run, faster at 1024 in
  // every run, and either between (OpenBLAS timings there vary by 2x from run to run). Auto
  // mode must never be much slower than the CPU, so it starts at 1024 (docs/perf/).
  s.gemm_min_flops = env_number("CUDROP_GEMM_MIN_FLOPS", 2.0 * 1024 * 1024 * 1024);
  s.gemm_min_intensity = env_number("CUDROP_GEMM_MIN_INTENSITY", 16);
  // LU: on the H100 machine a host->host sgetrf_ of order 4096 took 29 ms on the GPU, where
  // the 16-core CPU LAPACK runs at ~0.3 TFLOPS (~150 ms); smaller orders were not measured,
  // so auto mode starts at the smallest order known to win.
  s.getrf_min_n = static_cast<int>(env_number("CUDROP_GETRF_MIN_N", 4096));
  // Cholesky: its GPU path has not run on a GPU yet (the device time ran out), so auto mode
  // keeps it on the CPU LAPACK, in every mode, until its gpu-labelled tests pass on
  // hardware; setting a size here opts in.
  constexpr double kNotYetValidated = 2147483647.0;
  s.potrf_min_n = static_cast<int>(env_number("CUDROP_POTRF_MIN_N", kNotYetValidated));
  s.potrf_gpu_opted_in = std::getenv("CUDROP_POTRF_MIN_N") != nullptr;
  return s;
}

std::atomic<long> g_gpu_calls{0}, g_cpu_calls{0}, g_gpu_fallbacks{0};

const char *mode_name(Mode mode) {
  return mode == Mode::Gpu ? "gpu" : mode == Mode::Cpu ? "cpu" : "auto";
}

// One line at exit with CUDROP_VERBOSE>=1: the netlib harness reads it to prove that a
// forced-GPU run really ran on the GPU and never fell back.
__attribute__((destructor)) void print_summary() {
  if (settings().verbose >= 1)
    std::fprintf(stderr, "cudrop: summary: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld\n",
                 g_gpu_calls.load(), g_cpu_calls.load(), g_gpu_fallbacks.load());
}

}  // namespace

const Settings &settings() {
  static const Settings s = read_settings();
  return s;
}

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

void count_cpu(const char *routine, double seconds) {
  g_cpu_calls.fetch_add(1, std::memory_order_relaxed);
  log(2, "%s on CPU, %.3f ms", routine, seconds * 1e3);
}

}  // namespace detail

void counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks) {
  if (gpu_calls) *gpu_calls = g_gpu_calls.load();
  if (cpu_calls) *cpu_calls = g_cpu_calls.load();
  if (gpu_fallbacks) *gpu_fallbacks = g_gpu_fallbacks.load();
}

}  // namespace cudrop
