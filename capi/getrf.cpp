// LU entry points: Fortran sgetrf_/dgetrf_/cgetrf_/zgetrf_. The reference routine's argument checks in the
// reference order, its quick return, then one routed call (GPU or the CPU LAPACK underneath).
// A = P*L*U with partial pivoting; IPIV 1-based; INFO = first exactly-zero U(i,i).
#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "capi/flops.h"
#include "capi/report.h"
#include "core/routines.h"
#include "impl/getrf/getrf.h"
#include "route/dispatch.h"

namespace cudrop::capi {
// The entry of ?getrf_ (capi/exports.cpp). caller: the program's return address (see
// cpu::find_for_illegal_call).
template <class T>
void getrf(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info, const void *caller) {
  constexpr const RoutineNames &names = routine_names<Family::getrf, T>;
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*lda < std::max(1, *m)) illegal = 4;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<Family::getrf, T>>(names, illegal, info, caller, m, n, a, lda, ipiv, info);
    return;
  }
  *info = 0;
  if (*m == 0 || *n == 0) return;

  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(m=%d,n=%d)", name, *m, *n);
    name = label;
  }
  route(name, Worth(std::min(*m, *n) >= settings().getrf_min_n, lu_flops<T>(*m, *n)), names.cpu,
        [&] { return impl::getrf_host<T>(*m, *n, a, *lda, ipiv, info); },
        [&] { cpu::routine<Family::getrf, T>()(m, n, a, lda, ipiv, info); });
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_getrf CUDROP_DEFINED
#include "capi/instantiate.h"
