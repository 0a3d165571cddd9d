/* The complete libraries' forwarders (libcudrop_full, libcudrop64; x86-64 only): one exported function per
   name of forwarded.def (every BLAS/CBLAS/LAPACK function cudrop does not define itself, see
   cmake/forwarders.cmake), each a single `jmp *slot(%rip)` into the CPU library underneath, as
   libblastrampoline does: a load and a jump, the caller's arguments and stack untouched.
   A slot starts at its symbol's lazy stub, which puts the index in %r11 (no argument register)
   and jumps to one common resolver: it saves every register that can carry an argument (%rax
   too: a variadic call such as cblas_xerbla's passes the number of vector registers in %al),
   calls cudrop_forward_resolve (abi/forward.cpp), which finds the symbol underneath and
   stores it in the slot, restores them and jumps there; later calls go straight through. */
#define CUDROP_STUB(k) .Lstub_##k

/* The forwarders. */
#define CUDROP_FORWARD(k, name, ...)                                      \
  .globl name; .type name, @function; .p2align 4; name: .cfi_startproc;   \
  jmp *cudrop_forward_slots + 8 * k(%rip); .cfi_endproc; .size name, . - name;
  .text
#include "forwarded.def"

/* The lazy stubs. */
#undef CUDROP_FORWARD
#define CUDROP_FORWARD(k, name, ...)                                      \
  CUDROP_STUB(k): .cfi_startproc; movl $k, %r11d; jmp cudrop_forward_common; .cfi_endproc;
#include "forwarded.def"

/* Entered with the stack as at the forwarder's entry (the return address on top, so %rsp is
   8 past a multiple of 16); the frame below keeps the call 16-byte aligned. */
  .p2align 4
  .type cudrop_forward_common, @function
cudrop_forward_common:
  .cfi_startproc
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $192, %rsp
  movq %rdi, 0(%rsp)
  movq %rsi, 8(%rsp)
  movq %rdx, 16(%rsp)
  movq %rcx, 24(%rsp)
  movq %r8, 32(%rsp)
  movq %r9, 40(%rsp)
  movq %rax, 48(%rsp)
  movq %r10, 56(%rsp)
  movdqa %xmm0, 64(%rsp)
  movdqa %xmm1, 80(%rsp)
  movdqa %xmm2, 96(%rsp)
  movdqa %xmm3, 112(%rsp)
  movdqa %xmm4, 128(%rsp)
  movdqa %xmm5, 144(%rsp)
  movdqa %xmm6, 160(%rsp)
  movdqa %xmm7, 176(%rsp)
  movl %r11d, %edi
  call cudrop_forward_resolve
  movq %rax, %r11
  movq 0(%rsp), %rdi
  movq 8(%rsp), %rsi
  movq 16(%rsp), %rdx
  movq 24(%rsp), %rcx
  movq 32(%rsp), %r8
  movq 40(%rsp), %r9
  movq 48(%rsp), %rax
  movq 56(%rsp), %r10
  movdqa 64(%rsp), %xmm0
  movdqa 80(%rsp), %xmm1
  movdqa 96(%rsp), %xmm2
  movdqa 112(%rsp), %xmm3
  movdqa 128(%rsp), %xmm4
  movdqa 144(%rsp), %xmm5
  movdqa 160(%rsp), %xmm6
  movdqa 176(%rsp), %xmm7
  leave
  .cfi_def_cfa %rsp, 8
  jmp *%r11
  .cfi_endproc
  .size cudrop_forward_common, . - cudrop_forward_common

/* The slots: written once each by cudrop_forward_resolve (an aligned 8-byte store, atomic on
   x86-64), read by the forwarders. */
#undef CUDROP_FORWARD
#define CUDROP_FORWARD(k, ...) .quad CUDROP_STUB(k);
  .data
  .p2align 6
  .globl cudrop_forward_slots
  .hidden cudrop_forward_slots
  .type cudrop_forward_slots, @object
cudrop_forward_slots:
#include "forwarded.def"
  .size cudrop_forward_slots, . - cudrop_forward_slots

  .section .note.GNU-stack, "", @progbits
