#pragma once
// Where a call runs: GPU or the CPU library underneath, by CUDROP_MODE and by size,
// with every GPU failure turned into a CPU run of the same call.
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>

#include "core/env.h"
#include "core/log.h"
#include "core/status.h"
#include "shim/cpu_backend.h"

namespace cudrop {

// Runs one call: on the GPU when the mode and size say so and a GPU is usable, else (or
// when the GPU attempt fails) on the CPU. worth_gpu is the size test for auto mode.
// gpu_attempt() -> Status; cpu_run() -> void; both must compute the whole call.
// cpu_routine is what cpu_run() needs underneath: with no CPU library but a GPU, every
// call goes to the GPU rather than aborting.
template <class GpuAttempt, class CpuRun>
void route(const char *routine, bool worth_gpu, cpu::Routine cpu_routine,
           GpuAttempt &&gpu_attempt, CpuRun &&cpu_run);

namespace detail {
bool gpu_wanted(const char *routine, bool worth_gpu, cpu::Routine cpu_routine);
void count_gpu(const char *routine, double seconds);
void count_fallback(const char *routine, Status status);
// A GPU attempt that failed after part of its result had reached the caller, and whose rest
// was computed on the CPU by the GPU path itself (it then returns ok, so route() counts the
// call as a GPU call): counted as a fallback too, so that forced-GPU runs notice.
void count_partial_fallback(const char *routine, Status status, const char *detail);
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
  const env::Environment &s = settings();
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
  Status status = Status::no_device;
  try {
    if (detail::gpu_wanted(routine, worth_gpu, cpu_routine)) {
      attempted = true;
      status = gpu_attempt();
    }
  } catch (const std::exception &e) {
    log(1, "%s: exception on the GPU path: %s", routine, e.what());
    status = Status::out_of_memory;  // as for a failed allocation: later calls try again
  } catch (...) {
    log(1, "%s: exception on the GPU path", routine);
    status = Status::out_of_memory;
  }
  if (attempted) {
    if (status == Status::ok) {
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
