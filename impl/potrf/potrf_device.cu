// Cholesky on the GPU, the device interface (impl/potrf/potrf.h): the blocked algorithm of
// impl/potrf/potrf_plan.h on a lower triangle, as panel kernels (kernels/potrf_panel.cuh) and
// trailing-update GEMMs (impl::gemm_device, lower part only) on two lanes.
#include "impl/potrf/potrf_device.cuh"

#include "impl/context/device_info.h"

namespace cudrop::impl {
namespace potrf {

// ---- device steps -----------------------------------------------------------------------

template <class T>
Status launch_panel(T *dA, size_t ldd, int n, int j0, int *d_info, unsigned *d_finished,
                    cudaStream_t stream) {
  using S = kernels::PotrfPanelShape<T>;
  const long long rows = (long long)n - j0 - std::min(S::NB, n - j0);
  const long long chunks = ceil_div(rows, S::ROWS);
  const DeviceInfo *device = nullptr;
  if (Status s = check(current_device_info(&device), "potrf device"); s != Status::ok) return s;
  // Enough blocks to cover the panel in about one wave; each factors the diagonal block once.
  const int blocks = static_cast<int>(std::max(1LL, std::min(chunks, 4LL * device->sms)));
  return check(kernels::launch_potrf_panel<T, S>({blocks, stream}, dA, ldd, n, j0, d_info, d_finished),
               "potrf panel kernel launch");
}

template <class T>
Status launch_mirror(bool to_lower, T *dA, size_t ldd, int n, int c0, int c1, cudaStream_t stream) {
  return check(kernels::launch_potrf_mirror(to_lower, stream, dA, ldd, n, c0, c1), "potrf mirror kernel launch");
}

template <class T>
Status run_step(const PotrfStep &step, T *dA, size_t ldd, int n, int *d_info, unsigned *d_finished,
                cudaStream_t stream);

// Issues a step on its lane, after the other lane's work so far when the step says so.
template <class T>
Status issue_step(const PotrfStep &step, const Lanes &lanes, T *dA, size_t ldd, int n, int *d_info,
                  unsigned *d_finished) {
  if (step.wait_other) {
    if (Status s = lanes.wait_for(1 - step.lane, lanes.stream[step.lane]); s != Status::ok) return s;
  }
  return run_step(step, dA, ldd, n, d_info, d_finished, lanes.stream[step.lane]);
}

template <class T>
Status run_step(const PotrfStep &step, T *dA, size_t ldd, int n, int *d_info, unsigned *d_finished,
                cudaStream_t stream) {
  if (step.kind == PotrfStep::Panel) return launch_panel(dA, ldd, n, step.c0, d_info, d_finished, stream);
  // A(c0:n, c0:c1) -= A(c0:n, k0:k1) * A(c0:c1, k0:k1)^H (^T for a real T)
  const T *source = at<T>(dA, ldd, step.c0, step.k0);
  // Only the target's part on and below its diagonal is needed (the rest is the scratch upper
  // triangle), so the kernel may skip the tiles above it.
  return gemm_device<T>(Op::none, Op::conj_trans, n - step.c0, step.c1 - step.c0, step.k1 - step.k0, T(-1), source, ldd,
                        source, ldd, T(1), at<T>(dA, ldd, step.c0, step.c0), ldd, stream, GemmStore::lower_tiles);
}

#define CUDROP_POTRF_STEP_INSTANCES(T)                                                                  \
  template Status issue_step<T>(const PotrfStep &, const Lanes &, T *, size_t, int, int *, unsigned *); \
  template Status launch_mirror<T>(bool, T *, size_t, int, int, int, cudaStream_t);
CUDROP_POTRF_STEP_INSTANCES(float)
CUDROP_POTRF_STEP_INSTANCES(double)
CUDROP_POTRF_STEP_INSTANCES(Complex<float>)
CUDROP_POTRF_STEP_INSTANCES(Complex<double>)
#undef CUDROP_POTRF_STEP_INSTANCES

}  // namespace potrf

using namespace potrf;

template <class T>
Status potrf_device(int n, T *dA, size_t ldda, int *d_work, void *stream_ptr) {
  if (inject_fault("launch")) return Status::cuda_error;
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (Status s = check(cudaMemsetAsync(d_work, 0, 2 * sizeof(int), stream), "potrf"); s != Status::ok) return s;
  auto *finished = reinterpret_cast<unsigned *>(d_work + 1);
  GpuContext *ctx = nullptr;
  if (Status s = device_context(&ctx); s != Status::ok) return s;
  if (Status s = priority_lane(*ctx); s != Status::ok) return s;
  const Lanes lanes = lanes_beside(stream, ctx->priority);
  // The panel lane's first steps wait for nothing on the update lane (potrf_plan.h), so it
  // first waits for what the caller queued on `stream` before this call (the matrix's upload
  // or last update) and for INFO's reset above.
  if (Status s = lanes.wait_for(0, lanes.stream[1]); s != Status::ok) return s;
  for (const PotrfStep &step : potrf_schedule(n, base_blocking())) {
    if (Status s = issue_step(step, lanes, dA, ldda, n, d_work, finished); s != Status::ok) return s;
  }
  return lanes.wait_for(1, stream);  // the caller's stream sees the whole factorization
}

template Status potrf_device<float>(int, float *, size_t, int *, void *);
template Status potrf_device<double>(int, double *, size_t, int *, void *);
template Status potrf_device<Complex<float>>(int, Complex<float> *, size_t, int *, void *);
template Status potrf_device<Complex<double>>(int, Complex<double> *, size_t, int *, void *);

}  // namespace cudrop::impl
