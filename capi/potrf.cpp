// Cholesky entry points: Fortran spotrf_/dpotrf_/cpotrf_/zpotrf_. The reference routine's argument checks in
// the reference order, its quick return, then one routed call (GPU or the CPU LAPACK
// underneath). A = U^T U (UPLO='U') or A = L L^T (UPLO='L'), U^H U or L L^H for c and z (A Hermitian),
// only that triangle referenced.
#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "core/letter.h"
#include "capi/flops.h"
#include "capi/report.h"
#include "core/routines.h"
#include "impl/potrf/potrf.h"
#include "route/dispatch.h"
#include "route/finish_on_cpu.h"

namespace cudrop::capi {

// The entry of ?potrf_ (capi/exports.cpp). uplo_len: the hidden length, passed on
// unchanged with an illegal call. caller: the program's return address (see
// cpu::find_for_illegal_call).
template <class T>
void potrf(const char *uplo, const int *n, T *a, const int *lda, int *info, size_t uplo_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<Family::potrf, T>;
  const char u = upper(*uplo);
  int illegal = 0;
  if (u != 'U' && u != 'L') illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*lda < std::max(1, *n)) illegal = 4;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<Family::potrf, T>>(names, illegal, info, caller, uplo, n, a, lda, info, uplo_len);
    return;
  }
  *info = 0;
  if (*n == 0) return;

  char label[64];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(%c,n=%d)", name, u, *n);
    name = label;
  }
  route(name, Worth(*n >= settings().potrf_min_n, cholesky_flops<T>(*n)), names.cpu,
        [&](impl::PotrfProgress *progress) { return impl::potrf_host<T>(uplo_of(u), *n, a, *lda, info, progress); },
        [&] { cpu::routine<Family::potrf, T>()(uplo, n, a, lda, info, 1); },
        finish_on_cpu<impl::PotrfProgress>(names.symbol, [&](const impl::PotrfProgress &progress) {
          potrf_finish_on_cpu<T>(u == 'U', *n, a, *lda, progress, info);
        }));
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_potrf CUDROP_DEFINED
#include "capi/instantiate.h"
