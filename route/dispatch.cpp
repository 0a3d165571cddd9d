#include "route/dispatch.h"

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <pthread.h>

#include "impl/context/gpu.h"
#include "cpu/origin.h"


// Calls that ran on the CPU, counted by each thread in its own slot: a locked add on one
// shared counter waits for the store buffer to drain, which right after a small GEMM can
// cost the whole 5% budget of a 16^3 sgemm (docs/perf/README.md, small CPU calls). A thread owns
// the slot its thread pointer (%fs:0) hashes to, claimed on its first counted call and given back, with
// its count folded into a total, when it exits. The owner alone writes its slot: the x86-64
// entry of sgemm_/dgemm_ (capi/gemm.cpp) increments it without a lock when the owner is the
// calling thread and otherwise takes the full path, which counts through count_cpu_call
// (a thread whose slot another thread holds counts under the mutex).
extern "C" {
struct alignas(64) CudropCallSlot {
  long cpu_calls;     // offset 0, incremented by the assembly entry
  const void *owner;  // offset 8: the owning thread's pointer, or null
  long inner_calls;   // offset 16: the same for inner calls (dispatch.h's inner_call)
};
__attribute__((visibility("hidden"))) CudropCallSlot cudrop_call_slots[256];
}
static_assert(offsetof(CudropCallSlot, cpu_calls) == 0 && offsetof(CudropCallSlot, owner) == 8 &&
                  offsetof(CudropCallSlot, inner_calls) == 16 &&
                  sizeof(CudropCallSlot) == 64 && sizeof cudrop_call_slots / sizeof(CudropCallSlot) == 256,
              "the x86-64 GEMM entry (capi/gemm.cpp) hashes into 256 slots of 64 bytes");

namespace cudrop {
namespace {

std::atomic<long> g_gpu_calls{0}, g_gpu_fallbacks{0}, g_inner_gpu_calls{0};

std::mutex call_slots_mutex;      // guards claiming, giving back and the two totals
long exited_threads_cpu_calls = 0;  // counts of given-back slots
long unslotted_cpu_calls = 0;       // calls of threads without a slot of their own
long exited_threads_inner_calls = 0, unslotted_inner_calls = 0;  // the same for inner calls
pthread_key_t call_slot_exit_key;

// This thread's pointer, as the assembly entry reads it (x86-64: %fs:0 holds its own address).
const void *thread_pointer() {
#if defined(__x86_64__)
  const void *tp;
  __asm__("movq %%fs:0, %0" : "=r"(tp));
  return tp;
#else
  return __builtin_thread_pointer();
#endif
}

// The same hash as the assembly entry: ((tp >> 12) ^ (tp >> 22)) mod 256.
CudropCallSlot &slot_of(const void *tp) {
  const auto bits = reinterpret_cast<uintptr_t>(tp);
  return cudrop_call_slots[((bits >> 12) ^ (bits >> 22)) & 255];
}

void give_back_call_slot(void *slot_pointer) {
  auto *slot = static_cast<CudropCallSlot *>(slot_pointer);
  std::lock_guard<std::mutex> lock(call_slots_mutex);
  exited_threads_cpu_calls += slot->cpu_calls;
  exited_threads_inner_calls += slot->inner_calls;
  __atomic_store_n(&slot->cpu_calls, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&slot->inner_calls, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&slot->owner, nullptr, __ATOMIC_RELEASE);
}

// Claims this thread's slot if it is free; false when another thread holds it (or there is no
// exit hook to give it back).
bool claim_call_slot(CudropCallSlot &slot, const void *tp) {
  static const bool exit_hook = [] {
    // A child of fork() must not inherit the mutex held by a thread that is not there.
    pthread_atfork([] { call_slots_mutex.lock(); }, [] { call_slots_mutex.unlock(); },
                   [] { call_slots_mutex.unlock(); });
    return pthread_key_create(&call_slot_exit_key, give_back_call_slot) == 0;
  }();
  if (!exit_hook) return false;
  {
    std::lock_guard<std::mutex> lock(call_slots_mutex);
    if (__atomic_load_n(&slot.owner, __ATOMIC_RELAXED) != nullptr) return false;
    __atomic_store_n(&slot.owner, tp, __ATOMIC_RELEASE);
  }
  pthread_setspecific(call_slot_exit_key, &slot);
  return true;
}

// One count of every slot (CudropCallSlot::cpu_calls or ::inner_calls) with the given-back
// slots' and the unslotted threads' share of it.
long slot_total(long CudropCallSlot::*count, long exited, long unslotted) {
  std::lock_guard<std::mutex> lock(call_slots_mutex);
  long total = exited + unslotted;
  for (const CudropCallSlot &slot : cudrop_call_slots) total += __atomic_load_n(&(slot.*count), __ATOMIC_RELAXED);
  return total;
}
long cpu_call_total() {
  return slot_total(&CudropCallSlot::cpu_calls, exited_threads_cpu_calls, unslotted_cpu_calls);
}
// Inner calls, on the CPU (the slots) or the GPU.
long inner_call_total() {
  return slot_total(&CudropCallSlot::inner_calls, exited_threads_inner_calls, unslotted_inner_calls) +
         g_inner_gpu_calls.load();
}

const char *mode_name(Mode mode) {
  return mode == Mode::Gpu ? "gpu" : mode == Mode::Cpu ? "cpu" : "auto";
}

// One line at exit with CUDROP_VERBOSE>=1: the netlib harness reads it to prove that a
// forced-GPU run really ran on the GPU and never fell back. Only from a process that made a
// call: under LD_PRELOAD every process a shell starts loads cudrop, and most call nothing.
// With it, at CUDROP_VERBOSE>=1, the OpenBLAS libraries loaded whose names cudrop does not
// serve (a PyPI wheel of a naming convention cudrop does not know): their calls never came.
__attribute__((destructor)) void print_summary() {
  const long gpu_calls = g_gpu_calls.load(), cpu_calls = cpu_call_total();
  const std::vector<std::string> unknown = cpu::unknown_blas_libraries();
  if (!unknown.empty() && settings().verbose >= 1)
    for (const std::string &file : unknown)
      std::fprintf(stderr,
                   "cudrop: %s: an OpenBLAS whose names cudrop does not serve (no dgemm_, dgemm_64_, "
                   "scipy_dgemm_ or scipy_dgemm_64_); its calls ran there, without cudrop\n",
                   file.c_str());
  const long inner = inner_call_total();
  if (gpu_calls + cpu_calls + inner == 0) return;
  if (settings().verbose < 1) return;
  // The inner calls (those the CPU library underneath made back into cudrop) only where there
  // were any: the line stays what it always was for a program that calls only what it calls.
  char inner_text[48] = "";
  if (inner > 0) std::snprintf(inner_text, sizeof inner_text, " inner_calls=%ld", inner);
  std::fprintf(stderr, "cudrop: summary: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld%s\n", gpu_calls, cpu_calls,
               g_gpu_fallbacks.load(), inner_text);
}

}  // namespace

namespace detail {

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

bool gpu_wanted(const char *routine, const Worth &worth, const CpuNeed &cpu_need) {
  const Mode mode = settings().mode;
  if (mode == Mode::Cpu) return false;
  const bool cpu_present = cpu_need.present();
  if (mode == Mode::Auto && worth.gpu == false && cpu_present) return false;
  if (impl::gpu_lease_held_here()) return false;  // a call from a CPU routine that a GPU path runs
  // The first calls that want the GPU start CUDA in the background; those the CPU finishes
  // sooner than the start run there meanwhile (forced GPU mode waits: it asks for the GPU).
  if (mode == Mode::Auto && cpu_present && worth.flops < settings().start_overlap_flops && impl::gpu_starting()) {
    log(2, "%s: on the CPU while the GPU starts", routine);
    return false;
  }
  if (impl::gpu_usable()) return true;
  static std::once_flag told;
  std::call_once(told, [&] {
    // Asked for the GPU by name, the user hears why it is not used whatever the verbosity.
    if (mode == Mode::Gpu)
      std::fprintf(stderr, "cudrop: CUDROP_MODE=gpu but no usable GPU (%s); running on the CPU\n",
                   impl::gpu_unusable_reason());
    else
      log(1, "no usable GPU (%s): %s and every later call run on the CPU (mode %s)", impl::gpu_unusable_reason(),
          routine, mode_name(mode));
  });
  return false;
}

thread_local bool inner_call = false;

void count_gpu(const char *routine, double seconds) {
  if (inner_call) {
    g_inner_gpu_calls.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  g_gpu_calls.fetch_add(1, std::memory_order_relaxed);
  log(2, "%s on GPU, %.3f ms", routine, seconds * 1e3);
}

void count_fallback(const char *routine, Status status) {
  g_gpu_fallbacks.fetch_add(1, std::memory_order_relaxed);
  log(1, "%s: GPU attempt failed (%s); computing it on the CPU", routine, status_text(status));
}

void count_partial_fallback(const char *routine, Status status, const char *detail) {
  g_gpu_fallbacks.fetch_add(1, std::memory_order_relaxed);
  log(1, "%s: GPU attempt failed (%s) %s; the rest is computed on the CPU", routine,
      status_text(status), detail);
}

void count_cpu_call() {
  const void *tp = thread_pointer();
  CudropCallSlot &slot = slot_of(tp);
  const bool inner = inner_call;
  if (__atomic_load_n(&slot.owner, __ATOMIC_RELAXED) == tp || claim_call_slot(slot, tp)) {
    long &count = inner ? slot.inner_calls : slot.cpu_calls;
    __atomic_store_n(&count, count + 1, __ATOMIC_RELAXED);
  } else {
    std::lock_guard<std::mutex> lock(call_slots_mutex);
    ++(inner ? unslotted_inner_calls : unslotted_cpu_calls);
  }
}

void count_cpu(const char *routine, double seconds) {
  count_cpu_call();
  if (!inner_call) log(2, "%s on CPU, %.3f ms", routine, seconds * 1e3);
}

}  // namespace detail

void counters(long *gpu_calls, long *cpu_calls, long *gpu_fallbacks) {
  if (gpu_calls) *gpu_calls = g_gpu_calls.load();
  if (cpu_calls) *cpu_calls = cpu_call_total();
  if (gpu_fallbacks) *gpu_fallbacks = g_gpu_fallbacks.load();
}

}  // namespace cudrop
