#pragma once
// Where a call runs: GPU or the CPU library underneath, by CUDROP_MODE and by size,
// with every GPU failure turned into a CPU run of the same call.
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>

#include "impl/status.h"
#include "shim/cpu_backend.h"
#include "shim/env.h"

namespace cudrop {

struct Settings {
  Mode mode = Mode::Auto;
  int verbose = 0;
  // auto mode: a GEMM goes to the GPU when it does at least this many flops and at least
  // this many flops per byte it must move over PCIe (both measured crossovers, see README).
  double gemm_min_flops_single = 0, gemm_min_flops_double = 0;
  double gemm_min_intensity = 0;
  // auto mode: a Cholesky (xPOTRF) goes to the GPU when n is at least this.
  int potrf_min_n = 1024;
  // auto mode: an LU (xGETRF) goes to the GPU when min(m, n) is at least this.
  int getrf_min_n = 1024;
  // CUDROP_GPU_MEM_LIMIT: most bytes of device memory cudrop's buffers may hold together
  // (0 = no explicit limit: the free device memory less a safety margin, see
  // impl::device_memory_cap). Pinned host staging buffers are not counted.
  size_t gpu_mem_limit = 0;
};

// "300M", "2G", "1.5GiB", "65536", "64mb": a byte count with an optional binary suffix
// (K, M, G, T = 2^10 .. 2^40; "B", "iB" after it ignored; case-insensitive). False when the
// text is not such a number.
inline bool parse_byte_size(const char *text, size_t *bytes) {
  if (text == nullptr) return false;
  char *end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || !(value >= 0)) return false;
  double scale = 1;
  switch (*end) {
    case 'k': case 'K': scale = 1024.0; ++end; break;
    case 'm': case 'M': scale = 1024.0 * 1024; ++end; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; ++end; break;
    case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; ++end; break;
    default: break;
  }
  if (scale > 1 && (*end == 'i' || *end == 'I')) ++end;
  if (*end == 'b' || *end == 'B') ++end;
  if (*end != '\0') return false;
  const double total = value * scale;
  if (!(total < 1.8e19)) return false;
  *bytes = static_cast<size_t>(total);
  return true;
}

// The settings, read from the environment once. Inline: small CPU calls read them every time.
namespace detail {
// The settings once read, else null: lets a hot path test them without a call (a call, even a
// cold one, makes the compiler save the caller's registers on every pass).
extern std::atomic<const Settings *> settings_read;
const Settings &read_settings_once();
}  // namespace detail
inline const Settings &settings() {
  if (const Settings *s = detail::settings_read.load(std::memory_order_acquire)) return *s;
  return detail::read_settings_once();
}

// printf-style line "cudrop: ..." on stderr when CUDROP_VERBOSE >= level.
void log(int level, const char *format, ...) __attribute__((format(printf, 2, 3)));

// Runs one call: on the GPU when the mode and size say so and a GPU is usable, else (or
// when the GPU attempt fails) on the CPU. worth_gpu is the size test for auto mode.
// gpu_attempt() -> impl::Status; cpu_run() -> void; both must compute the whole call.
// cpu_routine is what cpu_run() needs underneath: with no CPU library but a GPU, every
// call goes to the GPU rather than aborting.
template <class GpuAttempt, class CpuRun>
void route(const char *routine, bool worth_gpu, cpu::Routine cpu_routine,
           GpuAttempt &&gpu_attempt, CpuRun &&cpu_run);

namespace detail {
bool gpu_wanted(const char *routine, bool worth_gpu, cpu::Routine cpu_routine);
void count_gpu(const char *routine, double seconds);
void count_fallback(const char *routine, impl::Status status);
// A GPU attempt that failed after part of its result had reached the caller, and whose rest
// was computed on the CPU by the GPU path itself (it then returns ok, so route() counts the
// call as a GPU call): counted as a fallback too, so that forced-GPU runs notice.
void count_partial_fallback(const char *routine, impl::Status status, const char *detail);
void count_cpu(const char *routine, double seconds);
double now_seconds();
// One more call that ran on the CPU, counted in this thread's own slot (shim/dispatch.cpp).
void count_cpu_call();
}  // namespace detail

template <class GpuAttempt, class CpuRun>
void route(const char *routine, bool worth_gpu, cpu::Routine cpu_routine,
           GpuAttempt &&gpu_attempt, CpuRun &&cpu_run) {
  // A call that stays on the CPU goes the shortest way (no clock, no out-of-line checks):
  // a small CPU GEMM is a few hundred nanoseconds or less, and auto mode may add at most 5%.
  const Settings &s = settings();
  const bool cpu_only = s.mode == Mode::Cpu ||
                        (s.mode == Mode::Auto && !worth_gpu && cpu::find_cached(cpu_routine) != nullptr);
  if (cpu_only && s.verbose < 2) {
    cpu_run();
    detail::count_cpu_call();
    return;
  }
  const double start = detail::now_seconds();
  // No C++ exception may cross the exported entry: one thrown on the way to or during the GPU
  // attempt (std::bad_alloc for a host-side plan, std::system_error for a thread) makes it a
  // failed attempt like any other. The GPU paths throw only before the first byte of the
  // caller's arrays changes (past that point they catch their own), so the CPU run below
  // starts from the caller's inputs.
  bool attempted = false;
  impl::Status status = impl::Status::no_device;
  try {
    if (detail::gpu_wanted(routine, worth_gpu, cpu_routine)) {
      attempted = true;
      status = gpu_attempt();
    }
  } catch (const std::exception &e) {
    log(1, "%s: exception on the GPU path: %s", routine, e.what());
    status = impl::Status::out_of_memory;  // as for a failed allocation: later calls try again
  } catch (...) {
    log(1, "%s: exception on the GPU path", routine);
    status = impl::Status::out_of_memory;
  }
  if (attempted) {
    if (status == impl::Status::ok) {
      detail::count_gpu(routine, detail::now_seconds() - start);
      return;
    }
    detail::count_fallback(routine, status);
  }
  cpu_run();
  detail::count_cpu(routine, detail::now_seconds() - start);
}

}  // namespace cudrop

namespace cudrop {
void counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks);
}
