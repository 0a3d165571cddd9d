// TEMPORARY: impl/sytrf/sytrf.h's functions, each reporting no GPU, so that the entries link
// before the GPU algorithm is merged (that merge removes this file and its CMakeLists line).
#include "core/complex.h"
#include "impl/sytrf/sytrf.h"

namespace cudrop::impl {

template <class T>
Status sytrf_host(Symmetry, Uplo, int, T *, int, int *, int *) {
  return Status::no_device;
}
template <class T>
Status sytrs_host(Symmetry, Uplo, int, int, const T *, int, const int *, T *, int, SolveProgress *) {
  return Status::no_device;
}
template <class T>
Status sysv_host(Symmetry, Uplo, int, int, T *, int, int *, T *, int, int *, SysvProgress *) {
  return Status::no_device;
}
template <class T>
size_t sytrf_device_workspace(int) {
  return 0;
}
template <class T>
Status sytrf_device(Symmetry, Uplo, int, T *, size_t, int *, int *, void *, void *) {
  return Status::no_device;
}
template <class T>
size_t sytrs_device_workspace(int, int) {
  return 0;
}
template <class T>
Status sytrs_device(Symmetry, Uplo, int, int, const T *, size_t, const int *, T *, size_t, void *, size_t, void *) {
  return Status::no_device;
}

#define CUDROP_SYTRF_STUB_INSTANCES(T)                                                                       \
  template Status sytrf_host<T>(Symmetry, Uplo, int, T *, int, int *, int *);                                \
  template Status sytrs_host<T>(Symmetry, Uplo, int, int, const T *, int, const int *, T *, int, SolveProgress *); \
  template Status sysv_host<T>(Symmetry, Uplo, int, int, T *, int, int *, T *, int, int *, SysvProgress *);  \
  template size_t sytrf_device_workspace<T>(int);                                                            \
  template Status sytrf_device<T>(Symmetry, Uplo, int, T *, size_t, int *, int *, void *, void *);           \
  template size_t sytrs_device_workspace<T>(int, int);                                                       \
  template Status sytrs_device<T>(Symmetry, Uplo, int, int, const T *, size_t, const int *, T *, size_t, void *, \
                                  size_t, void *);
CUDROP_SYTRF_STUB_INSTANCES(float)
CUDROP_SYTRF_STUB_INSTANCES(double)
CUDROP_SYTRF_STUB_INSTANCES(Complex<float>)
CUDROP_SYTRF_STUB_INSTANCES(Complex<double>)
#undef CUDROP_SYTRF_STUB_INSTANCES

}  // namespace cudrop::impl
