// Cholesky entry points: Fortran spotrf_/dpotrf_. The reference routine's argument checks in
// the reference order, its quick return, then one routed call (GPU or the CPU LAPACK
// underneath). A = U^T U (UPLO='U') or A = L L^T (UPLO='L'), only that triangle referenced.
#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "capi/report.h"
#include "impl/potrf.h"
#include "shim/dispatch.h"

#define CUDROP_EXPORT extern "C" __attribute__((visibility("default")))

namespace cudrop::capi {
namespace {

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

template <class T> struct PotrfNames;
template <> struct PotrfNames<float> {
  static constexpr const char *fortran = "SPOTRF";
  static constexpr const char *label = "spotrf_";
  static constexpr cpu::Routine routine = cpu::Routine::spotrf_;
};
template <> struct PotrfNames<double> {
  static constexpr const char *fortran = "DPOTRF";
  static constexpr const char *label = "dpotrf_";
  static constexpr cpu::Routine routine = cpu::Routine::dpotrf_;
};

template <class T>
void potrf(const char *uplo, const int *n, T *a, const int *lda, int *info) {
  const char u = upper(*uplo);
  *info = 0;
  if (u != 'U' && u != 'L') *info = -1;
  else if (*n < 0) *info = -2;
  else if (*lda < std::max(1, *n)) *info = -4;
  if (*info != 0) {
    report_illegal_argument(PotrfNames<T>::fortran, -*info);
    return;
  }
  if (*n == 0) return;

  char label[64];
  const char *name = PotrfNames<T>::label;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(%c,n=%d)", name, u, *n);
    name = label;
  }
  auto on_cpu = [&] { cpu::potrf<T>()(uplo, n, a, lda, info, 1); };
  route(name, *n >= settings().potrf_min_n, PotrfNames<T>::routine,
        [&] { return impl::potrf_host<T>(u == 'U', *n, a, *lda, info); }, on_cpu);
}

}  // namespace
}  // namespace cudrop::capi

using cudrop::capi::potrf;

CUDROP_EXPORT void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t) {
  potrf(uplo, n, a, lda, info);
}

CUDROP_EXPORT void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t) {
  potrf(uplo, n, a, lda, info);
}
