#pragma once
// Where a call runs: GPU or the CPU library underneath, by CUDROP_MODE and by size,
// with every GPU failure turned into a CPU run of the same call.
#include "impl/status.h"
#include "shim/cpu_backend.h"

namespace cudrop {

enum class Mode { Auto, Gpu, Cpu };

struct Settings {
  Mode mode = Mode::Auto;
  int verbose = 0;
  // auto mode: a GEMM goes to the GPU when it does at least this many flops and at least
  // this many flops per byte it must move over PCIe (both measured on the H100, see README).
  double gemm_min_flops = 0;
  double gemm_min_intensity = 0;
  // auto mode: a Cholesky (xPOTRF) goes to the GPU when n is at least this.
  int potrf_min_n = 1024;
  // The GPU Cholesky has not yet passed its tests on hardware: it is used only when the user
  // asks for it by setting CUDROP_POTRF_MIN_N (in any mode, CUDROP_MODE=gpu included).
  bool potrf_gpu_opted_in = false;
  // auto mode: an LU (xGETRF) goes to the GPU when min(m, n) is at least this.
  int getrf_min_n = 1024;
};

const Settings &settings();

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
void count_cpu(const char *routine, double seconds);
double now_seconds();
}  // namespace detail

template <class GpuAttempt, class CpuRun>
void route(const char *routine, bool worth_gpu, cpu::Routine cpu_routine,
           GpuAttempt &&gpu_attempt, CpuRun &&cpu_run) {
  const double start = detail::now_seconds();
  if (detail::gpu_wanted(routine, worth_gpu, cpu_routine)) {
    const impl::Status status = gpu_attempt();
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
