// Cholesky entry points: Fortran spotrf_/dpotrf_. The reference routine's argument checks in
// the reference order, its quick return, then one routed call (GPU or the CPU LAPACK
// underneath). A = U^T U (UPLO='U') or A = L L^T (UPLO='L'), only that triangle referenced.
#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "capi/report.h"
#include "impl/potrf.h"
#include "shim/dispatch.h"
#include "shim/finish_on_cpu.h"

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

// uplo_len: the hidden length, passed on unchanged with an illegal call. caller: the
// program's return address (see cpu::find_for_illegal_call).
template <class T>
void potrf(const char *uplo, const int *n, T *a, const int *lda, int *info, size_t uplo_len, const void *caller) {
  const char u = upper(*uplo);
  int illegal = 0;
  if (u != 'U' && u != 'L') illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*lda < std::max(1, *n)) illegal = 4;
  if (illegal != 0) {
    // The CPU routine's own checks set INFO and call the handler the process would call.
    if (auto cpu_potrf = reinterpret_cast<cpu::potrf_fn<T>>(cpu::find_for_illegal_call(PotrfNames<T>::routine, caller, {"xerbla_"}))) {
      cpu_potrf(uplo, n, a, lda, info, uplo_len);
      return;
    }
    *info = -illegal;
    report_illegal_argument(PotrfNames<T>::fortran, illegal, 6, caller);
    return;
  }
  *info = 0;
  if (*n == 0) return;

  char label[64];
  const char *name = PotrfNames<T>::label;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(%c,n=%d)", name, u, *n);
    name = label;
  }
  route(name, *n >= settings().potrf_min_n, PotrfNames<T>::routine,
        [&](impl::PotrfProgress *progress) { return impl::potrf_host<T>(u == 'U', *n, a, *lda, info, progress); },
        [&] { cpu::potrf<T>()(uplo, n, a, lda, info, 1); },
        finish_on_cpu<impl::PotrfProgress>(PotrfNames<T>::label, [&](const impl::PotrfProgress &progress) {
          potrf_finish_on_cpu<T>(u == 'U', *n, a, *lda, progress, info);
        }));
}

}  // namespace
}  // namespace cudrop::capi

using cudrop::capi::potrf;

CUDROP_EXPORT void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t uplo_len) {
  potrf(uplo, n, a, lda, info, uplo_len, __builtin_return_address(0));
}

CUDROP_EXPORT void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len) {
  potrf(uplo, n, a, lda, info, uplo_len, __builtin_return_address(0));
}
