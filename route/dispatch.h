#pragma once
// Where a call runs: GPU or the CPU library underneath, by CUDROP_MODE and by size,
// with every GPU failure turned into a CPU run of the same call.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <type_traits>
#include <utility>

#include "core/env.h"
#include "core/log.h"
#include "core/status.h"
#include "cpu/backend.h"

namespace cudrop {

// What a call's CPU run needs underneath: a routine of the CPU library, or nothing at all (a
// loop of cudrop's own, as the power method's). With no CPU library but a GPU, a call whose CPU
// run needs a routine goes to the GPU rather than aborting.
class CpuNeed {
 public:
  constexpr CpuNeed(cpu::Routine routine) : routine_(routine), needs_routine_(true) {}  // NOLINT: implicit
  static constexpr CpuNeed nothing() { return CpuNeed(); }
  // Whether the CPU run can go ahead (find_cached: the hot path's lock-free lookup).
  // In an ILP64 or wheel-name entry the CPU run is that entry's routine (required when it runs).
  bool present() const {
    return !needs_routine_ || cpu::entry_cpu_call != nullptr || cpu::find(routine_) != nullptr;
  }
  bool present_cached() const {
    return !needs_routine_ || cpu::entry_cpu_call != nullptr || cpu::find_cached(routine_) != nullptr;
  }

 private:
  constexpr CpuNeed() : routine_(cpu::Routine::count), needs_routine_(false) {}
  cpu::Routine routine_;
  bool needs_routine_;
};

// Auto mode's verdict on a call's size (gpu: worth the GPU), and its work in real flops. While
// CUDA starts in the background (the process's first calls that want the GPU), a call of fewer
// than CUDROP_START_OVERLAP_FLOPS runs on the CPU rather than wait for the start; one without
// a figure waits.
struct Worth {
  bool gpu;
  double flops = HUGE_VAL;
  Worth(bool worth_gpu) : gpu(worth_gpu) {}  // NOLINT: implicit: a call that gives no figure
  Worth(bool worth_gpu, double work_flops) : gpu(worth_gpu), flops(work_flops) {}
};

// How a GPU attempt that stopped after writing part of the caller's output is finished on the
// CPU. Progress is impl's record of how far the output was written, with
// `bool any_written() const` (some of it already holds GPU results) and
// `void describe(char *text, size_t size) const` (the log's "after N of M ..."); finish(progress)
// computes the rest from that state. routine: the name the log line carries.
template <class Progress, class Finish>
struct FinishOnCpu {
  const char *routine;
  Finish finish;
};
template <class Progress, class Finish>
FinishOnCpu<Progress, std::decay_t<Finish>> finish_on_cpu(const char *routine, Finish &&finish) {
  return {routine, std::forward<Finish>(finish)};
}

// Runs one call: on the GPU when the mode and size say so and a GPU is usable, else (or
// when the GPU attempt fails) on the CPU. worth is the size test for auto mode.
// gpu_attempt(Progress *) -> Status; cpu_run() -> void; both must compute the whole call.
// A GPU attempt that fails after part of its result has reached the caller's arrays (as its
// Progress says) is finished by finish_on_cpu from there, counted as a fallback and as a GPU
// call (so that forced-GPU runs notice); one that fails before is run whole by cpu_run().
// In an ILP64 or wheel-name entry (cpu::entry_cpu_call) the CPU run is that entry's routine
// instead; a finish_on_cpu stays on the LP64 routines (the call's sizes fit an int there).
// A GPU attempt that returns Status::special_values (nothing written) is no failure: the call
// runs on the CPU, counted as a CPU call.
// This is the only place that counts calls, logs fallbacks and completes half-written calls.
template <class Progress, class Finish, class GpuAttempt, class CpuRun>
void route(const char *routine, Worth worth, CpuNeed cpu_need, GpuAttempt &&gpu_attempt, CpuRun &&cpu_run,
           const FinishOnCpu<Progress, Finish> &finish_on_cpu);

// The same for a call whose GPU attempt writes nothing of the caller's before it has
// succeeded: gpu_attempt() -> Status.
template <class GpuAttempt, class CpuRun>
void route(const char *routine, Worth worth, CpuNeed cpu_need, GpuAttempt &&gpu_attempt, CpuRun &&cpu_run);

// A call that every process of a group makes together (a ScaLAPACK driver on each rank of its
// grid), so that all of them must take the same path. candidate: whether the mode and the call's
// global arguments, the same on every process, make it one for the GPU (else it goes to the CPU
// routine with nothing exchanged). Then fit (this process's own part: its GPU, its local
// arguments) is put to the group: agree_max(values, count) leaves each value the group's
// largest. gpu_attempt() -> Status agrees its own outcome with the group before it writes
// anything and returns the group's, so that either every process has its result, or none has
// written anything and every one runs cpu_run() (special_values: counted as a CPU call; any
// other failure: a fallback on every process). No process is left waiting for another.
template <class AgreeMax, class GpuAttempt, class CpuRun>
void route_collective(const char *routine, bool candidate, bool fit, AgreeMax &&agree_max, GpuAttempt &&gpu_attempt,
                      CpuRun &&cpu_run);

namespace detail {
// Whether the call this thread is in was made by a CPU library underneath (an inner call, such
// as the reference LAPACK's dgemm_ inside a dgetrf_ the program called): counted apart from the
// program's own calls, and without CUDROP_VERBOSE=2's line. Set by CallerScope.
extern thread_local bool inner_call;
}  // namespace detail

// Each exported entry's call, for the counters: where it came from (the caller's return
// address), for as long as the entry runs; the outer call's state again afterwards.
class CallerScope {
 public:
  explicit CallerScope(const void *return_address) : outer_(detail::inner_call) {
    detail::inner_call = cpu::called_from_cpu_library(return_address);
  }
  ~CallerScope() { detail::inner_call = outer_; }
  CallerScope(const CallerScope &) = delete;
  CallerScope &operator=(const CallerScope &) = delete;

 private:
  bool outer_;
};

namespace detail {
bool gpu_wanted(const char *routine, const Worth &worth, const CpuNeed &cpu_need);
void count_gpu(const char *routine, double seconds);
void count_fallback(const char *routine, Status status);
// A GPU attempt that failed after part of its result had reached the caller, and whose rest
// finish_on_cpu computed: counted as a fallback (route() then counts it as a GPU call too).
void count_partial_fallback(const char *routine, Status status, const char *detail);
// Progress of a GPU attempt that writes nothing of the caller's before it has succeeded.
struct NoProgress {
  bool any_written() const { return false; }
  void describe(char *, size_t) const {}
};
void count_cpu(const char *routine, double seconds);
double now_seconds();
// One more call that ran on the CPU, counted in this thread's own slot (route/dispatch.cpp).
void count_cpu_call();
}  // namespace detail

template <class Progress, class Finish, class GpuAttempt, class CpuRun>
void route(const char *routine, Worth worth, CpuNeed cpu_need, GpuAttempt &&gpu_attempt, CpuRun &&cpu_run,
           const FinishOnCpu<Progress, Finish> &finish_on_cpu) {
  // A call that stays on the CPU goes the shortest way (no clock, no out-of-line checks):
  // a small CPU GEMM is a few hundred nanoseconds or less, and auto mode may add at most 5%.
  const env::Environment &s = settings();
  const bool cpu_only = s.mode == Mode::Cpu || (s.mode == Mode::Auto && !worth.gpu && cpu_need.present_cached());
  if (cpu_only && s.verbose < 2) {
    if (!cpu::take_entry_cpu_call()) cpu_run();
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
  Progress progress;
  try {
    if (detail::gpu_wanted(routine, worth, cpu_need)) {
      attempted = true;
      status = gpu_attempt(&progress);
    }
  } catch (const std::exception &e) {
    log(1, "%s: exception on the GPU path: %s", routine, e.what());
    status = Status::out_of_memory;  // as for a failed allocation: later calls try again
  } catch (...) {
    log(1, "%s: exception on the GPU path", routine);
    status = Status::out_of_memory;
  }
  if (attempted) {
    if (status != Status::ok && progress.any_written()) {
      // Part of the result is in the caller's arrays already, so the call can no longer start
      // over on the CPU: finish it from there.
      char detail[160];
      progress.describe(detail, sizeof detail);
      if (status == Status::special_values)
        log(2, "%s: %s %s: the CPU routine computes the rest", routine, status_text(status), detail);
      else
        detail::count_partial_fallback(finish_on_cpu.routine, status, detail);
      finish_on_cpu.finish(progress);
      status = Status::ok;
    }
    if (status == Status::ok) {
      detail::count_gpu(routine, detail::now_seconds() - start);
      return;
    }
    if (status == Status::special_values) log(2, "%s: %s: the CPU routine computes it", routine, status_text(status));
    else detail::count_fallback(routine, status);
  }
  if (!cpu::take_entry_cpu_call()) cpu_run();
  detail::count_cpu(routine, detail::now_seconds() - start);
}

template <class GpuAttempt, class CpuRun>
void route(const char *routine, Worth worth, CpuNeed cpu_need, GpuAttempt &&gpu_attempt, CpuRun &&cpu_run) {
  route(routine, worth, cpu_need, [&](detail::NoProgress *) { return gpu_attempt(); }, cpu_run,
        finish_on_cpu<detail::NoProgress>(routine, [](const detail::NoProgress &) {}));
}

// A call that never goes to the GPU (?copy_): run() computes it, by the CPU library underneath
// or a loop of cudrop's own; counted as a CPU call, logged as one at CUDROP_VERBOSE=2.
template <class Run>
void route_cpu(const char *routine, Run &&run) {
  if (settings().verbose < 2) {
    run();
    detail::count_cpu_call();
    return;
  }
  const double start = detail::now_seconds();
  run();
  detail::count_cpu(routine, detail::now_seconds() - start);
}

template <class AgreeMax, class GpuAttempt, class CpuRun>
void route_collective(const char *routine, bool candidate, bool fit, AgreeMax &&agree_max, GpuAttempt &&gpu_attempt,
                      CpuRun &&cpu_run) {
  if (!candidate) {
    cpu_run();
    detail::count_cpu_call();
    return;
  }
  const double start = detail::now_seconds();
  int unfit = fit && detail::gpu_wanted(routine, true, CpuNeed::nothing()) ? 0 : 1;
  agree_max(&unfit, 1);
  if (unfit != 0) {
    log(2, "%s: a process of the grid cannot take the GPU path: the CPU routine computes it", routine);
    cpu_run();
    detail::count_cpu(routine, detail::now_seconds() - start);
    return;
  }
  // The distributed drivers take their buffers before their first message and report a failure
  // to get them as a Status, which the processes agree on; only the LU's per-step index lists
  // (a few KiB) are allocated between messages, where bad_alloc on one process would leave the
  // others waiting.
  Status status;
  try {
    status = gpu_attempt();
  } catch (...) {
    status = Status::out_of_memory;
  }
  if (status == Status::ok) {
    detail::count_gpu(routine, detail::now_seconds() - start);
    return;
  }
  if (status == Status::special_values) log(2, "%s: %s: the CPU routine computes it", routine, status_text(status));
  else detail::count_fallback(routine, status);
  cpu_run();
  detail::count_cpu(routine, detail::now_seconds() - start);
}

}  // namespace cudrop

namespace cudrop {
// The program's own calls (inner calls apart: CallerScope) and every fallback.
void counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks);
}
