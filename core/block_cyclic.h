#pragma once
// ScaLAPACK's 2-D block-cyclic distribution: the array descriptor and where a global row or
// column lives. Pure host code (capi's checks, impl's distributed drivers, their unit test).
#include <cstdint>

namespace cudrop {

// DESC(1:9) of a dense matrix (DTYPE = 1).
struct Descriptor {
  int dtype, context, m, n, mb, nb, rsrc, csrc, lld;
  static Descriptor of(const int *desc) {
    return {desc[0], desc[1], desc[2], desc[3], desc[4], desc[5], desc[6], desc[7], desc[8]};
  }
};
constexpr int kBlockCyclic2D = 1;

// NUMROC: how many of the first n rows (columns), in blocks of nb dealt out from process src
// over procs processes, process p holds.
constexpr int64_t numroc(int64_t n, int64_t nb, int p, int src, int procs) {
  const int64_t distance = (procs + p - src) % procs;
  const int64_t blocks = n / nb, extra = blocks % procs;
  int64_t count = (blocks / procs) * nb;
  if (distance < extra) count += nb;
  else if (distance == extra) count += n % nb;
  return count;
}

// One dimension of the distribution as one process sees it.
struct BlockCyclic1D {
  int64_t n;   // global rows (columns)
  int64_t nb;  // block size
  int me, src, procs;
  int owner(int64_t block) const { return int((src + block) % procs); }
  int64_t local_count() const { return numroc(n, nb, me, src, procs); }
  // This process's local indices of the global ones before `global`.
  int64_t local_before(int64_t global) const { return numroc(global < n ? global : n, nb, me, src, procs); }
  // The global index of local index `local`.
  int64_t global_of(int64_t local) const {
    const int64_t distance = (procs + me - src) % procs;
    return ((local / nb) * procs + distance) * nb + local % nb;
  }
  int64_t blocks() const { return (n + nb - 1) / nb; }
};

}  // namespace cudrop
