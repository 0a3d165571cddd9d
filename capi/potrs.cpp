// Solve with a Cholesky factorization: Fortran ?potrs_. The reference routine's argument
// checks in the reference order, its quick return, then one routed call (GPU or the CPU LAPACK
// underneath). B := A^-1 B with A = U^H U (UPLO='U') or L L^H from xPOTRF (U^T U, L L^T for s
// and d); only that triangle of A is read.
#include <cstdio>

#include "core/letter.h"
#include "capi/report.h"
#include "capi/solve_checks.h"
#include "core/routines.h"
#include "impl/solve/solve.h"
#include "route/dispatch.h"

namespace cudrop::capi {

// The entry of ?potrs_ (capi/exports.cpp). uplo_len: the hidden length, passed on
// unchanged with an illegal call. caller: the program's return address.
template <class T>
void potrs(const char *uplo, const int *n, const int *nrhs, const T *a, const int *lda, T *b, const int *ldb,
           int *info, size_t uplo_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<Family::potrs, T>;
  const char u = upper(*uplo);
  if (const int illegal = cholesky_solve_illegal_argument(u, *n, *nrhs, *lda, *ldb); illegal != 0) {
    illegal_lapack_call<cpu::Fn<Family::potrs, T>>(names, illegal, info, caller, uplo, n, nrhs, a, lda, b, ldb, info, uplo_len);
    return;
  }
  *info = 0;
  if (*n == 0 || *nrhs == 0) return;

  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(%c,n=%d,nrhs=%d)", name, u, *n, *nrhs);
    name = label;
  }
  const auto cpu_potrs = [&](int done) {
    const int left = *nrhs - done;
    cpu::routine<Family::potrs, T>()(uplo, n, &left, a, lda,
                                                                 b + size_t(done) * size_t(*ldb), ldb, info, 1);
  };
  route(name, solve_worth_gpu<T>(*n, *nrhs), names.cpu,
        [&](impl::SolveProgress *progress) {
          return impl::potrs_host<T>(uplo_of(u), *n, *nrhs, a, *lda, b, *ldb, progress);
        },
        [&] { cpu_potrs(0); },
        finish_on_cpu<impl::SolveProgress>(names.symbol,
                                           [&](const impl::SolveProgress &progress) { cpu_potrs(progress.columns); }));
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_potrs CUDROP_DEFINED
#include "capi/instantiate.h"
