// The power method on a dense matrix on the GPU: the device interface (impl/power/power.h).
#include <cstdint>

#include "impl/power/power_loop.cuh"
#include "impl/power/power_plan.cuh"
#include "kernels/gemv_power.cuh"

namespace cudrop::impl {
namespace power {
namespace {

template <class T, int V>
Status dense_iterations(PowerCall &g, const DensePlan<T> &p, int n, const T *dA, size_t ldda,
                        T *dx, T tol, int maxit, char *work, cudaStream_t stream,
                        const PowerOptions &opt, PowerResult<T> *result) {
  T *y = reinterpret_cast<T *>(work + p.y);
  T *partial = reinterpret_cast<T *>(work + p.partial);
  T *slot_v = reinterpret_cast<T *>(work + p.slot_v);
  int *slot_i = reinterpret_cast<int *>(work + p.slot_i);
  auto *arrivals = reinterpret_cast<unsigned *>(work + p.arrivals);
  auto *state = reinterpret_cast<PowerState<T> *>(work + p.state);
  int scale_wave = 0;
  Status s = one_wave(g, kernels::power_scale_check<T>, &scale_wave);
  if (s == Status::ok) s = start_state(state, stream);
  if (s == Status::ok) s = check(cudaMemsetAsync(arrivals, 0, size_t(p.tiles) * sizeof(unsigned), stream), "power: counters");
  if (s == Status::ok && opt.start_ones) s = fill_ones(g, n, dx, stream);
  if (s != Status::ok) return s;
  const unsigned grid = unsigned(p.tiles) * unsigned(p.chunks);
  const int scale_grid = kernels::power_scale_blocks(n, scale_wave);
  auto matvec = [&] {
    return launch_step(g, L2Window{}, kernels::power_gemv_max<T, V>, grid, stream, n, dA, ldda, dx, y, partial,
                       p.chunks, p.chunk_cols, slot_v, slot_i, arrivals, state);
  };
  return iterate(g, L2Window{}, stream, scale_grid, n, y, dx, tol, maxit, state, opt, matvec, result);
}

}  // namespace
}  // namespace power

using namespace power;

template <class T>
Status power_dense_workspace(int n, size_t *bytes) {
  PowerCall g;
  if (Status s = begin_call(&g); s != Status::ok) return s;
  *bytes = std::max(dense_plan<T>(n, g.info->sms, 1).bytes, dense_plan<T>(n, g.info->sms, dense_vec<T>()).bytes);
  return Status::ok;
}

template <class T>
Status power_dense_device(int n, const T *dA, size_t ldda, T *dx, T tol, int maxit, void *d_work,
                          size_t work_bytes, void *stream, const PowerOptions &opt,
                          PowerResult<T> *result) {
  *result = PowerResult<T>{};
  if (inject_fault("launch")) return Status::cuda_error;
  if (n <= 0) return Status::ok;
  PowerCall g;
  if (Status s = begin_call(&g); s != Status::ok) return s;
  constexpr int V = dense_vec<T>();
  const bool vectors = reinterpret_cast<uintptr_t>(dA) % 16 == 0 && ldda % V == 0;
  const DensePlan<T> p = dense_plan<T>(n, g.info->sms, vectors ? V : 1);
  if (work_bytes < p.bytes || reinterpret_cast<uintptr_t>(d_work) % kAlign != 0) {
    log(1, "power: workspace of %zu bytes at %p is too small or misaligned (%zu needed)", work_bytes, d_work, p.bytes);
    return Status::cuda_error;
  }
  auto *work = static_cast<char *>(d_work);
  auto s_ = static_cast<cudaStream_t>(stream);
  return vectors ? dense_iterations<T, V>(g, p, n, dA, ldda, dx, tol, maxit, work, s_, opt, result)
                 : dense_iterations<T, 1>(g, p, n, dA, ldda, dx, tol, maxit, work, s_, opt, result);
}

template Status power_dense_workspace<float>(int, size_t *);
template Status power_dense_workspace<double>(int, size_t *);
template Status power_dense_device<float>(int, const float *, size_t, float *, float, int, void *, size_t, void *,
                                          const PowerOptions &, PowerResult<float> *);
template Status power_dense_device<double>(int, const double *, size_t, double *, double, int, void *, size_t,
                                           void *, const PowerOptions &, PowerResult<double> *);

}  // namespace cudrop::impl
