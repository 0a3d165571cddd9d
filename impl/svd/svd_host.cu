// xGESDD, xGESVD, xGELSD, xGELSS on the GPU (impl/svd/svd.h). Placeholder: every call reports no
// device until the drivers land.
#include "impl/svd/svd.h"

namespace cudrop::impl {

template <class T>
size_t svd_device_workspace(SvdJob, int, int) {
  return 256;
}
template <class T>
Status svd_device(GpuContext &, SvdJob, int, int, T *, size_t, real_t<T> *, T *, size_t, T *, size_t, void *, size_t,
                  const BidiagonalSolver<real_t<T>> &) {
  return Status::no_device;
}
template <class T>
Status gesdd_host(char, int, int, T *, int, real_t<T> *, T *, int, T *, int, int *,
                  const BidiagonalSolver<real_t<T>> &) {
  return Status::no_device;
}
template <class T>
Status gesvd_host(char, char, int, int, T *, int, real_t<T> *, T *, int, T *, int, int *,
                  const BidiagonalSolver<real_t<T>> &) {
  return Status::no_device;
}
template <class T>
Status gelsd_host(bool, int, int, int, T *, int, T *, int, real_t<T> *, real_t<T>, int *, int *,
                  const BidiagonalSolver<real_t<T>> &) {
  return Status::no_device;
}

#define CUDROP_SVD_HOST(T)                                                                                          \
  template size_t svd_device_workspace<T>(SvdJob, int, int);                                                        \
  template Status svd_device<T>(GpuContext &, SvdJob, int, int, T *, size_t, real_t<T> *, T *, size_t, T *, size_t,  \
                                void *, size_t, const BidiagonalSolver<real_t<T>> &);                               \
  template Status gesdd_host<T>(char, int, int, T *, int, real_t<T> *, T *, int, T *, int, int *,                    \
                                const BidiagonalSolver<real_t<T>> &);                                               \
  template Status gesvd_host<T>(char, char, int, int, T *, int, real_t<T> *, T *, int, T *, int, int *,              \
                                const BidiagonalSolver<real_t<T>> &);                                               \
  template Status gelsd_host<T>(bool, int, int, int, T *, int, T *, int, real_t<T> *, real_t<T>, int *, int *,       \
                                const BidiagonalSolver<real_t<T>> &);
CUDROP_SVD_HOST(float)
CUDROP_SVD_HOST(double)
CUDROP_SVD_HOST(Complex<float>)
CUDROP_SVD_HOST(Complex<double>)
#undef CUDROP_SVD_HOST

}  // namespace cudrop::impl
