// Solve A X = B by LU with partial pivoting: Fortran ?gesv_. The reference routine's
// argument checks in the reference order, its quick return, then one routed call (GPU or the
// CPU LAPACK underneath). A is factored as xGETRF does (INFO = i > 0: U(i,i) exactly zero,
// and then B is left unsolved), and B overwritten by X as xGETRS does.
#include <algorithm>
#include <cstdio>

#include "capi/flops.h"
#include "capi/report.h"
#include "core/routines.h"
#include "impl/solve/solve.h"
#include "route/dispatch.h"
#include "route/finish_on_cpu.h"

namespace cudrop::capi {

// The entry of ?gesv_ (capi/exports.cpp). caller: the program's return address.
template <class T>
void gesv(const int *n, const int *nrhs, T *a, const int *lda, int *ipiv, T *b, const int *ldb, int *info,
          const void *caller) {
  constexpr const RoutineNames &names = routine_names<Family::gesv, T>;
  int illegal = 0;
  if (*n < 0) illegal = 1;
  else if (*nrhs < 0) illegal = 2;
  else if (*lda < std::max(1, *n)) illegal = 4;
  else if (*ldb < std::max(1, *n)) illegal = 7;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<Family::gesv, T>>(names, illegal, info, caller, n, nrhs, a, lda, ipiv, b, ldb, info);
    return;
  }
  *info = 0;
  // With NRHS = 0 the reference still factors A.
  if (*n == 0) return;

  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(n=%d,nrhs=%d)", name, *n, *nrhs);
    name = label;
  }
  route(name, Worth(*n >= settings().getrf_min_n, lu_flops<T>(*n, *n)), names.cpu,
        [&](impl::GesvProgress *progress) {
          return impl::gesv_host<T>(*n, *nrhs, a, *lda, ipiv, b, *ldb, info, progress);
        },
        [&] { cpu::routine<Family::gesv, T>()(n, nrhs, a, lda, ipiv, b, ldb, info); },
        finish_on_cpu<impl::GesvProgress>(names.symbol, [&](const impl::GesvProgress &progress) {
          gesv_finish_on_cpu<T>(*n, *nrhs, a, *lda, ipiv, b, *ldb, progress, info);
        }));
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_gesv CUDROP_DEFINED
#include "capi/instantiate.h"
