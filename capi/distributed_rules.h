#pragma once
// Which ScaLAPACK calls take the GPU path (capi/scalapack.cpp), as pure functions of the call and
// the process's place in the grid (tests/scalapack/decision_test.cpp checks them). A call every
// process of the grid makes must be decided alike everywhere, so `candidate` reads only what is
// the same on every process of a legal call (the mode, the global arguments, the descriptor's
// global entries, the grid's shape); `fit` adds what is this process's own (its LLD). Every
// other call goes unchanged to ScaLAPACK's routine.
#include <algorithm>
#include <cstdint>

#include "core/block_cyclic.h"
#include "core/env.h"

namespace cudrop::capi {

struct DistributedCall {
  Mode mode;
  int min_order;   // CUDROP_SCALAPACK_MIN_N (auto mode)
  bool covered;    // the driver's own arguments are ones the GPU path computes (*_covered below)
  int64_t order;   // what min_order is compared with
  Descriptor desc;
  int nprow, npcol, myrow, mycol;  // blacs_gridinfo of desc.context (-1: not in the grid)
};

inline bool distributed_candidate(const DistributedCall &c) {
  const Descriptor &d = c.desc;
  const bool member = c.myrow >= 0 && c.myrow < c.nprow && c.mycol >= 0 && c.mycol < c.npcol;
  return c.mode != Mode::Cpu && c.covered && member && d.dtype == kBlockCyclic2D && d.mb == d.nb && d.nb >= 1 &&
         d.rsrc >= 0 && d.rsrc < c.nprow && d.csrc >= 0 && d.csrc < c.npcol &&
         (c.mode == Mode::Gpu || c.order >= c.min_order);
}

inline bool distributed_fit(const DistributedCall &c) {
  return distributed_candidate(c) &&
         c.desc.lld >= std::max<int64_t>(1, numroc(c.desc.m, c.desc.mb, c.myrow, c.desc.rsrc, c.nprow));
}

// P?POTRF: A(1:n, 1:n) of the whole matrix (IA = JA = 1), either triangle.
inline bool potrf_covered(char uplo, int n, int ia, int ja, const Descriptor &d) {
  return (uplo == 'U' || uplo == 'L') && n >= 1 && ia == 1 && ja == 1 && d.m >= n && d.n >= n;
}

// P?GETRF: A(1:m, 1:n) (IA = JA = 1).
inline bool getrf_covered(int m, int n, int ia, int ja, const Descriptor &d) {
  return m >= 1 && n >= 1 && ia == 1 && ja == 1 && d.m >= m && d.n >= n;
}

}  // namespace cudrop::capi
