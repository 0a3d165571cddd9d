#pragma once
// LU with partial pivoting over several devices (CUDROP_DEVICES), m >= n: the block columns
// dealt out over the devices in turn (1-D block-cyclic), each device reading its own, all m rows,
// from the caller's array once. Step k: the owner of block column k has factored it whole
// (getrf_device on its rows from the diagonal down: the pivot search runs over the whole
// column, which that device holds); every other device copies the factored panel and its pivots
// from the owner's memory (peer copies), interchanges the rows of its block columns to the
// right, solves their block row of U and updates below it. The owner of block column k+1 does
// that one first and factors it on a high-priority stream of its own (look-ahead). Later
// interchanges reach the columns to the left of each panel too: applied at the end, once every
// device has copied every panel. The factor goes back at the end, from every device at once.
#include <vector>

#include "impl/context/gpu_context.cuh"

namespace cudrop::impl {

constexpr int kGetrfSeveralNb = 512;

// getrf_host's contract over `devices` (the first the lease's), m >= n: on any status other than
// ok, a, ipiv and info hold what they held before the call (a write-back that fails part way puts
// the caller's matrix back from a copy kept meanwhile, when there was the memory for one).
template <class T>
Status getrf_several(const std::vector<GpuContext *> &devices, int m, int n, T *a, int lda, int *ipiv, int *info);

}  // namespace cudrop::impl
