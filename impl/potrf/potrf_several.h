#pragma once
// Cholesky over several devices (CUDROP_DEVICES): the lower triangle's block columns dealt out
// over the devices in turn (1-D block-cyclic), each device reading its own block columns from
// the caller's array once. Step k: the owner of block column k has factored it (its diagonal
// block and the rows below it); every other device copies those rows from the owner's memory
// (a peer copy) and updates its own block columns to the right. The owner of block column k+1
// updates that one first and factors it on a high-priority stream while the rest of step k's
// updates run (look-ahead). Block columns go back to the caller's array, in order, as soon as
// they are final, from the device that holds them.
#include <vector>

#include "impl/context/gpu_context.cuh"
#include "impl/potrf/potrf.h"

namespace cudrop::impl {

// The width of the block columns dealt out.
constexpr int kPotrfSeveralNb = 512;

// potrf_host's contract, lower triangle, over `devices` (the first the lease's): ok with *info
// set; special_values when a leading minor is not positive definite (or not finite), with
// *progress saying which leading columns of the factor are in the caller's array (the CPU
// routine then computes the rest and INFO; none: the caller's array untouched); any other
// failure likewise leaves *progress true.
template <class T>
Status potrf_several(const std::vector<GpuContext *> &devices, int n, T *a, int lda, int *info,
                     PotrfProgress *progress);

}  // namespace cudrop::impl
