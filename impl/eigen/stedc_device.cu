// The symmetric tridiagonal eigenproblem by divide and conquer with the eigenvectors on the
// device (impl/eigen/eigen.h).
#include <algorithm>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/eigen/eigen.h"

namespace cudrop::impl {

template <class R>
size_t stedc_device_workspace(int n) {
  return 256;
}

template <class R>
Status stedc_device(GpuContext &ctx, int n, R *d, R *e, R *dZ, size_t lddz, const TridiagonalSolver<R> &leaf,
                    void *work, size_t work_bytes) {
  std::vector<R> z(size_t(n) * n);
  if (leaf(n, d, e, z.data()) != 0) return Status::special_values;
  Status s = upload_matrix(ctx, z.data(), size_t(n) * sizeof(R), size_t(n) * sizeof(R), size_t(n), dZ,
                           lddz * sizeof(R));
  if (s != Status::ok) return s;
  return check(cudaStreamSynchronize(ctx.stream), "stedc: upload");
}

template size_t stedc_device_workspace<float>(int);
template size_t stedc_device_workspace<double>(int);
template Status stedc_device<float>(GpuContext &, int, float *, float *, float *, size_t, const TridiagonalSolver<float> &,
                                    void *, size_t);
template Status stedc_device<double>(GpuContext &, int, double *, double *, double *, size_t,
                                     const TridiagonalSolver<double> &, void *, size_t);

}  // namespace cudrop::impl
