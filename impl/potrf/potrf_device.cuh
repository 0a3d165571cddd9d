#pragma once
// What the Cholesky files share (internal to impl/potrf_*): the blocking, the two lanes and the
// device steps of potrf_schedule.
#include <algorithm>
#include <cstddef>

#include "core/env.h"
#include "core/layout.h"
#include "core/tuning.h"
#include "impl/gemm/gemm.h"
#include "impl/context/gpu_context.cuh"
#include "impl/potrf/potrf_plan.h"
#include "kernels/potrf_panel.cuh"

namespace cudrop::impl::potrf {

using PanelShape = kernels::PotrfPanelShape<float>;
static_assert(PanelShape::NB == kPotrfNb, "the panel kernel's block is the reference's NB");
static_assert(kernels::PotrfPanelShape<double>::NB == kPotrfNb, "the panel kernel's block is the reference's NB");

// Host-side copy granularity of the triangle's diagonal part (serial memcpy per column).
constexpr int kTriangleCopyCols = 256;
// Outer panels whose INFO may still be unknown while the host issues more work.
constexpr int kPollLag = 2, kPollRing = GpuContext::PotrfPoll::kRing;

// Blocking shared by the device and host interfaces. Tuning runs: CUDROP_POTRF_OUTER sets the
// outer panel width (the k of the big trailing GEMMs), CUDROP_POTRF_LOOKAHEAD=0 turns the
// look-ahead off.
inline PotrfBlocking base_blocking() {
  PotrfBlocking b;
  const env::Environment &e = env::environment();
  if (e.potrf_outer > 0) b.outer = e.potrf_outer;
  b.lookahead = e.potrf_lookahead;
  return b;
}

inline PotrfBlocking host_blocking(int n, size_t elem_size) {
  PotrfBlocking b = base_blocking();
  const env::Environment &e = env::environment();
  if (e.potrf_strip > 0) b.strip = e.potrf_strip;
  if (e.potrf_left_cols >= 0) b.left_cols = std::min(e.potrf_left_cols, n);
  // The left-looking phase runs while the rest of the matrix arrives, so it spans more columns
  // where the upload takes longer: a quarter in float, half in double. In float the width
  // hardly matters; in double n/2 hides more of the upload
  // (docs/perf/README.md, Cholesky left-looking columns).
  else b.left_cols = n >= tuning::kPotrfStreamMinN ? static_cast<int>(size_t(n) * elem_size / 16) : 0;
  return b;
}

template <class T>
T *at(T *a, size_t ld, long long row, long long col) {
  return a + size_t(row) + size_t(col) * ld;
}

// Panel kernel of the diagonal block at j0 and below it, on `stream`.
template <class T>
Status launch_panel(T *dA, size_t ldd, int n, int j0, int *d_info, unsigned *d_finished, cudaStream_t stream);

// Mirrors columns c0..c1-1 of the triangle into the other one (to_lower: upper -> lower).
template <class T>
Status launch_mirror(bool to_lower, T *dA, size_t ldd, int n, int c0, int c1, cudaStream_t stream);

// The two lanes of potrf_schedule's steps: 0 = the update lane, 1 = the panel lane.
struct Lanes {
  cudaStream_t stream[2];
  cudaEvent_t tail[2];
  // `waiter` waits for everything issued on `lane` so far.
  Status wait_for(int lane, cudaStream_t waiter) const {
    cudaError_t error = cudaEventRecord(tail[lane], stream[lane]);
    if (error == cudaSuccess) error = cudaStreamWaitEvent(waiter, tail[lane], 0);
    return check(error, "potrf lanes");
  }
};

// The update lane on `update`; the panel lane on the context's high-priority stream (so that
// its small kernels get SMs ahead of the big update's queued blocks), whose events link the two.
inline Lanes lanes_beside(cudaStream_t update, const GpuContext::PriorityLane &priority) {
  return {{update, priority.stream}, {priority.start, priority.panel_done}};
}

// Issues a step on its lane, after the other lane's work so far when the step says so.
template <class T>
Status issue_step(const PotrfStep &step, const Lanes &lanes, T *dA, size_t ldd, int n, int *d_info,
                  unsigned *d_finished);

}  // namespace cudrop::impl::potrf
