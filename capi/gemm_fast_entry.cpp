// sgemm_ and dgemm_ as exported: the small-call fast entry. Contract: a call whose CPU routine
// an earlier full-path call has resolved (open_gemm_shortcut; never in gpu mode or with
// CUDROP_VERBOSE >= 2), whose arguments pass every one of the reference's checks, that takes
// none of the reference's own branches (m, n, k > 0, alpha != 0) and whose m*n*k is at most
// max_mnk (below what auto mode could send to the GPU; any size in cpu mode) is counted as one
// CPU call (or inner call: cpu/backend.h's CodeRange) in the calling thread's own slot
// (route/dispatch.cpp), if the thread owns it, and jumped to the CPU routine with the caller's
// registers and stack untouched: its result, handlers and return address are exactly the CPU
// library's. Every other call jumps to the full path, cudrop_[sd]gemm_full (capi/exports.cpp,
// then capi/gemm.cpp), which checks, reports and routes. Why: a small sgemm_ that stays on the
// CPU is a few hundred nanoseconds of work or less, and auto mode may add at most 5% to it.
#include "capi/gemm_fast_entry.h"

#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "core/env.h"
#include "core/routines.h"
#include "cpu/backend.h"

namespace cudrop::capi {
struct GemmShortcut {
  std::atomic<void *> target{nullptr};  // the CPU routine; null: always the full path
  std::atomic<long long> max_mnk{-1};   // largest m*n*k that surely stays on the CPU
};
static_assert(sizeof(std::atomic<void *>) == 8 && sizeof(std::atomic<long long>) == 8,
              "the x86-64 entry reads target at offset 0 and max_mnk at offset 8");
}  // namespace cudrop::capi

extern "C" {
__attribute__((visibility("hidden"))) cudrop::capi::GemmShortcut cudrop_sgemm_shortcut, cudrop_dgemm_shortcut;
}

namespace cudrop::capi {
namespace {

template <class T> GemmShortcut &shortcut() {
  return std::is_same_v<T, float> ? cudrop_sgemm_shortcut : cudrop_dgemm_shortcut;
}

}  // namespace

// Opens the short way once the full path has resolved the CPU routine. Auto mode keeps a call
// on the CPU for sure when 2*m*n*k < gemm_min_flops (gemm_worth_gpu's first test), i.e. for
// integer m*n*k up to ceil(min_flops / 2) - 1; bigger calls take the full path, which decides.
template <class T> void open_gemm_shortcut() {
  GemmShortcut &sc = shortcut<T>();
  if (sc.target.load(std::memory_order_relaxed) != nullptr) return;
  const env::Environment &s = settings();
  if (s.verbose >= 2 || s.mode == Mode::Gpu) return;
  void *fn = cpu::resolved_already(routine_names<Family::gemm, T>.cpu);
  if (fn == nullptr) return;
  long long max_mnk = std::numeric_limits<long long>::max();
  if (s.mode == Mode::Auto) {
    const double half = s.gemm_min_flops / 2;
    if (half < 9.0e18) max_mnk = static_cast<long long>(std::ceil(half)) - 1;
  }
  sc.max_mnk.store(max_mnk, std::memory_order_relaxed);
  sc.target.store(fn, std::memory_order_release);  // after max_mnk: x86 keeps the entry's loads in order
}

template void open_gemm_shortcut<float>();
template void open_gemm_shortcut<double>();

}  // namespace cudrop::capi

#if CUDROP_ASM_ENTRIES
static_assert(cudrop::cpu::kCpuCodeRanges == 4, "the assembly entry below checks four code ranges");
// The exported entries, in assembly. Written in C++, GCC 12 saves six registers and loads
// and stores back all nine stack arguments around the tail jump, several times the cost of
// this entry and too much of a small GEMM (docs/perf/README.md, small CPU calls). It uses
// only rax, r10 and r11, leaves the argument registers and the stack as the caller set them,
// and jumps. System V: rdi transa, rsi transb, rdx m, rcx n, r8 k, r9 alpha; 8(%rsp) a,
// 16 lda, 24 b, 32 ldb, 40 beta, 48 c, 56 ldc. The checks are the reference's
// (tests/gemm/gemm_args.c, the netlib testers in cpu mode).
__asm__(R"(
  .pushsection .text
  # Falls through when the TRANS character at (trans) is N, T or C in either case and the
  # leading dimension at ld_offset(%rsp) is at least the rows of that operand, stored at
  # (rows_if_n) or (rows_if_t); else jumps to 9 (the full path). Clobbers r10, r11.
  .macro CUDROP_GEMM_TRANS_LD trans, rows_if_n, rows_if_t, ld_offset
  movzbl (\trans), %r10d
  orl $0x20, %r10d
  movq \rows_if_n, %r11
  cmpl $0x6e, %r10d
  je 1f
  movq \rows_if_t, %r11
  cmpl $0x74, %r10d
  je 1f
  cmpl $0x63, %r10d
  jne 9f
1:
  movl (%r11), %r11d
  movq \ld_offset(%rsp), %r10
  cmpl %r11d, (%r10)
  jl 9f
  .endm

  # Jumps to 8 (an inner call) when the return address in r10 lies in range i of
  # cudrop_cpu_code (cpu/backend.h's CodeRange: hi read first, then lo; hi 0 matches nothing).
  .macro CUDROP_GEMM_INNER i
  cmpq cudrop_cpu_code+16*\i+8(%rip), %r10
  jae .Lcudrop_not_inner\@
  cmpq cudrop_cpu_code+16*\i(%rip), %r10
  jae 8f
.Lcudrop_not_inner\@:
  .endm

  .macro CUDROP_GEMM_ENTRY name, shortcut, full, alpha_mov, alpha_bits
  .globl \name
  .type \name, @function
  .p2align 4
\name:
  .cfi_startproc
  endbr64
  cmpq $0, \shortcut(%rip)
  je 9f
  # m, n, k > 0 and m*n*k <= max_mnk (a product that overflows is not small)
  movslq (%rdx), %r10
  testq %r10, %r10
  jle 9f
  movslq (%rcx), %r11
  testq %r11, %r11
  jle 9f
  imulq %r11, %r10
  movslq (%r8), %r11
  testq %r11, %r11
  jle 9f
  imulq %r11, %r10
  jo 9f
  cmpq \shortcut+8(%rip), %r10
  jg 9f
  # alpha != 0 (either sign of zero; a NaN is not zero)
  \alpha_mov (%r9), \alpha_bits
  add \alpha_bits, \alpha_bits
  jz 9f
  # transa in N/T/C, either case, and lda >= (transa == N ? m : k); transb likewise with
  # ldb >= (transb == N ? k : n)
  CUDROP_GEMM_TRANS_LD %rdi, %rdx, %r8, 16
  CUDROP_GEMM_TRANS_LD %rsi, %r8, %rcx, 32
  # ldc >= m
  movl (%rdx), %r11d
  movq 56(%rsp), %r10
  cmpl %r11d, (%r10)
  jl 9f
  # count the call in the slot of this thread (route/dispatch.cpp): the one its thread
  # pointer hashes to, ((tp >> 12) ^ (tp >> 22)) mod 256, if it owns it; else the full path
  movq %fs:0, %r11
  movq %r11, %r10
  shrq $12, %r10
  movq %r11, %rax
  shrq $22, %rax
  xorq %rax, %r10
  andq $255, %r10
  shlq $6, %r10
  leaq cudrop_call_slots(%rip), %rax
  addq %r10, %rax
  cmpq %r11, 8(%rax)
  jne 9f
  # the program's own call, or an inner one (made by a CPU library underneath) counted apart
  movq (%rsp), %r10
  CUDROP_GEMM_INNER 0
  CUDROP_GEMM_INNER 1
  CUDROP_GEMM_INNER 2
  CUDROP_GEMM_INNER 3
  incq (%rax)
  jmp *\shortcut(%rip)
8:
  incq 16(%rax)
  jmp *\shortcut(%rip)
9:
  jmp \full
  .cfi_endproc
  .size \name, .-\name
  .endm

  CUDROP_GEMM_ENTRY sgemm_, cudrop_sgemm_shortcut, cudrop_sgemm_full, movl, %r10d
  CUDROP_GEMM_ENTRY dgemm_, cudrop_dgemm_shortcut, cudrop_dgemm_full, movq, %r10
  .purgem CUDROP_GEMM_ENTRY
  .purgem CUDROP_GEMM_TRANS_LD
  .purgem CUDROP_GEMM_INNER
  .popsection
)");
#endif
