#pragma once
// The Level-3 BLAS beside GEMM on the GPU, host interface: host arrays in and out, what
// ?symm_ ... ?trsm_ and ?hemm_, ?herk_, ?her2k_ use. One orchestration for the five (impl/level3/level3_host.cu) over the device
// interface of impl/level3/level3_device.h.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "core/options.h"
#include "core/routines.h"
#include "impl/context/gpu.h"

namespace cudrop {

// One checked, non-trivial call (alpha != 0; k > 0 for SYRK/SYR2K), column-major, its options
// typed (core/options.h). SYMM: C = alpha A B + beta C (side left) or alpha B A + beta C; HEMM
// the same with A Hermitian. SYRK/SYR2K: uplo's triangle of C (n x n) from op(A) (n x k) and
// op(B); m unused; HERK/HER2K: the Hermitian updates (trans none or conj_trans; beta, and HERK's
// alpha, real: imaginary parts zero). TRMM/TRSM: B (m x n) := alpha op(A) B, alpha op(A)^-1 B,
// or from the right (conj_trans: the conjugate transpose); c == b, beta unused.
template <class T>
struct Level3Args {
  Family op;  // symm, syrk, syr2k, trmm, trsm, hemm, herk or her2k
  Side side;
  Uplo uplo;
  Op trans;
  Diag diag;
  int m, n, k;
  T alpha, beta;
  const T *a;
  int lda;
  const T *b;
  int ldb;
  T *c;
  int ldc;
};

// How far a call that failed on the GPU had written the caller's output: its leading `columns`
// columns (of C, or of B for TRMM/TRSM) hold their results, the rest are the caller's
// originals. Nonzero only for side 'L' calls of SYMM/TRMM/TRSM, whose columns are independent
// and go back to the caller chunk by chunk.
struct Level3Progress {
  int64_t columns = 0;
  int64_t total = 0;
  bool any_written() const { return columns > 0; }
  void describe(char *text, size_t size) const {
    std::snprintf(text, size, "after %lld of %lld columns were written back", (long long)columns, (long long)total);
  }
};

namespace impl {

// Copies in only what the routine reads (the stored triangle of A; C only when beta != 0),
// computes, copies out only what it writes (for SYRK/SYR2K, uplo's triangle of C). Side 'L'
// calls of SYMM/TRMM/TRSM go through the device in chunks of columns of B and C, the upload of
// the next overlapping the math of the current one, each chunk written back when done
// (*progress says how far); every other call writes nothing of the caller's until all its math
// has succeeded. out_of_memory (for the CPU to run the call) when A, or a whole call that cannot
// be cut in chunks, does not fit the device memory cap (device_memory_cap, CUDROP_GPU_MEM_LIMIT).
template <class T>
Status level3_host(const Level3Args<T> &args, Level3Progress *progress);

}  // namespace impl
}  // namespace cudrop
