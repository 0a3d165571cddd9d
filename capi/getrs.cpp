// Solve with an LU factorization: Fortran sgetrs_/dgetrs_. The reference routine's argument
// checks in the reference order, its quick return, then one routed call (GPU or the CPU
// LAPACK underneath). B := op(A)^-1 B with A = P*L*U from xGETRF; TRANS 'N', 'T' or 'C'.
#include <algorithm>
#include <cstdio>

#include "core/letter.h"
#include "capi/report.h"
#include "capi/solve_checks.h"
#include "core/routines.h"
#include "impl/solve/solve.h"
#include "route/dispatch.h"

namespace cudrop::capi {

// The entry of ?getrs_ (capi/exports.cpp). trans_len: the hidden length, passed on
// unchanged with an illegal call. caller: the program's return address.
template <class T>
void getrs(const char *trans, const int *n, const int *nrhs, const T *a, const int *lda, const int *ipiv, T *b,
           const int *ldb, int *info, size_t trans_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<Family::getrs, T>;
  const char t = upper(*trans);
  int illegal = 0;
  if (t != 'N' && t != 'T' && t != 'C') illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*nrhs < 0) illegal = 3;
  else if (*lda < std::max(1, *n)) illegal = 5;
  else if (*ldb < std::max(1, *n)) illegal = 8;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<Family::getrs, T>>(names, illegal, info, caller, trans, n, nrhs, a, lda, ipiv, b, ldb, info, trans_len);
    return;
  }
  *info = 0;
  if (*n == 0 || *nrhs == 0) return;

  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(%c,n=%d,nrhs=%d)", name, t, *n, *nrhs);
    name = label;
  }
  const auto cpu_getrs = [&](int done) {
    const int left = *nrhs - done;
    cpu::routine<Family::getrs, T>()(trans, n, &left, a, lda, ipiv,
                                                                 b + size_t(done) * size_t(*ldb), ldb, info, 1);
  };
  route(name, solve_worth_gpu<T>(*n, *nrhs), names.cpu,
        [&](impl::SolveProgress *progress) {
          return impl::getrs_host<T>(Op::from_letter(t), *n, *nrhs, a, *lda, ipiv, b, *ldb, progress);
        },
        [&] { cpu_getrs(0); },
        finish_on_cpu<impl::SolveProgress>(names.symbol,
                                           [&](const impl::SolveProgress &progress) { cpu_getrs(progress.columns); }));
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_getrs CUDROP_DEFINED
#include "capi/instantiate.h"
