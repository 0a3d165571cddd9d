// xGEBRD (m >= n) and xORMBR 'P' on device arrays (impl/svd/svd.h). Placeholder: every call
// reports no device until the kernels land.
#include "impl/svd/svd.h"

namespace cudrop::impl {

template <class T>
size_t gebrd_device_workspace(int, int) {
  return 256;
}
template <class T>
Status gebrd_device(int, int, T *, size_t, real_t<T> *, real_t<T> *, T *, T *, int *, void *, size_t, void *) {
  return Status::no_device;
}
template <class T>
size_t apply_p_device_workspace(int, int) {
  return 256;
}
template <class T>
Status apply_p_device(int, int, const T *, size_t, const T *, T *, size_t, void *, size_t, void *) {
  return Status::no_device;
}

#define CUDROP_GEBRD(T)                                                                                           \
  template size_t gebrd_device_workspace<T>(int, int);                                                            \
  template Status gebrd_device<T>(int, int, T *, size_t, real_t<T> *, real_t<T> *, T *, T *, int *, void *, size_t, \
                                  void *);                                                                        \
  template size_t apply_p_device_workspace<T>(int, int);                                                          \
  template Status apply_p_device<T>(int, int, const T *, size_t, const T *, T *, size_t, void *, size_t, void *);
CUDROP_GEBRD(float)
CUDROP_GEBRD(double)
CUDROP_GEBRD(Complex<float>)
CUDROP_GEBRD(Complex<double>)
#undef CUDROP_GEBRD

}  // namespace cudrop::impl
