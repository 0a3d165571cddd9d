// Solve A X = B by Cholesky: Fortran ?posv_ (c, z: A Hermitian). The reference routine's
// argument checks in the reference order, its quick return, then one routed call (GPU or the
// CPU LAPACK underneath). A's UPLO triangle is factored as xPOTRF does (INFO = k > 0: the
// leading minor of order k is not positive definite, A left as the reference leaves it and B
// unsolved), and B overwritten by X as xPOTRS does.
#include <cstdio>

#include "core/letter.h"
#include "capi/flops.h"
#include "capi/report.h"
#include "capi/solve_checks.h"
#include "core/routines.h"
#include "impl/potrf/potrf.h"
#include "route/dispatch.h"
#include "route/finish_on_cpu.h"

namespace cudrop::capi {

// The entry of ?posv_ (capi/exports.cpp). uplo_len: the hidden length, passed on
// unchanged with an illegal call. caller: the program's return address.
template <class T>
void posv(const char *uplo, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb, int *info,
          size_t uplo_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<Family::posv, T>;
  const char u = upper(*uplo);
  if (const int illegal = cholesky_solve_illegal_argument(u, *n, *nrhs, *lda, *ldb); illegal != 0) {
    illegal_lapack_call<cpu::Fn<Family::posv, T>>(names, illegal, info, caller, uplo, n, nrhs, a, lda, b, ldb, info, uplo_len);
    return;
  }
  *info = 0;
  // With NRHS = 0 the reference still factors A.
  if (*n == 0) return;

  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(%c,n=%d,nrhs=%d)", name, u, *n, *nrhs);
    name = label;
  }
  const impl::PotrfRhs<T> rhs{*nrhs, b, *ldb};
  route(name, Worth(*n >= settings().potrf_min_n, cholesky_flops<T>(*n)), names.cpu,
        [&](impl::PotrfProgress *progress) { return impl::potrf_host<T>(uplo_of(u), *n, a, *lda, info, progress, &rhs); },
        [&] { cpu::routine<Family::posv, T>()(uplo, n, nrhs, a, lda, b, ldb, info, 1); },
        finish_on_cpu<impl::PotrfProgress>(names.symbol, [&](const impl::PotrfProgress &progress) {
          posv_finish_on_cpu<T>(u == 'U', *n, *nrhs, a, *lda, b, *ldb, progress, info);
        }));
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_posv CUDROP_DEFINED
#include "capi/instantiate.h"
