// Power-method entry points (cudrop extension, Fortran ABI): cudrop_spower_/cudrop_dpower_
// (dense, column-major) and cudrop_scsrpower_/cudrop_dcsrpower_ (CSR). Each is the argument
// checks in the documented order (include/cudrop.h, docs/power.md) -> the process's xerbla_, the quick
// return, the CSR row-pointer check, then one routed call (GPU, or the CPU loop).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "capi/report.h"
#include "core/routines.h"
#include "impl/power/power.h"
#include "route/dispatch.h"
#include "cpu/power_loop.h"

namespace cudrop::capi {
namespace {

// Reports argument `k` through the handler the process has (capi/report.h; no CPU library has
// these routines, and the caller's own dependencies are not searched), with the routine's
// whole name (longer than the reference's six characters).
void report(const RoutineNames &names, int k) { report_illegal_argument(names, k, nullptr); }

// The end of the argument checks, shared by both entries: an illegal argument is reported;
// N = 0 returns at once. True when the call is over.
template <class T>
bool checked_and_done(const RoutineNames &names, int n, int info, T *lambda, int *maxit) {
  if (info != 0) {
    report(names, -info);
    return true;
  }
  if (n == 0) {
    *lambda = T(0);
    *maxit = 0;
    return true;
  }
  return false;
}

// Auto mode: the GPU pays once one upload plus the iterations at GPU bandwidth beat the
// iterations at CPU bandwidth. The CPU path streams the matrix at a few GB/s per iteration,
// the upload runs at PCIe rate and an iteration on the GPU at device memory bandwidth, so
// even a single iteration wins from a few MB (docs/perf/README.md, auto-mode crossovers):
// CUDROP_POWER_MIN_BYTES, by default tuning::kPowerMinBytes (4 MiB, a margin above that).
bool power_worth_gpu(double matrix_bytes, int maxit) {
  return maxit > 0 && matrix_bytes >= env::environment().power_min_bytes;
}

}  // namespace

// The entry of cudrop_spower_/cudrop_dpower_ (capi/exports.cpp). The caller's return address
// is not used (report()).
template <class T>
void power(const int *n, const T *a, const int *lda, T *lambda, T *x, const int *init, const T *tol, int *maxit,
           int *info, const void * /*caller*/) {
  constexpr const RoutineNames &names = routine_names<Family::power, T>;
  *info = 0;
  if (*n < 0) *info = -1;
  else if (*lda < std::max(1, *n)) *info = -3;
  else if (*init != 0 && *init != 1) *info = -6;
  else if (!(*tol >= T(0))) *info = -7;  // negative or NaN
  else if (*maxit < 0) *info = -8;
  if (checked_and_done(names, *n, *info, lambda, maxit)) return;

  char label[96];
  const char *name = names.symbol;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(n=%d,maxit=%d)", name, *n, *maxit);
    name = label;
  }
  const bool ones = *init == 1;
  const double bytes = double(*n) * double(*n) * sizeof(T);
  route(name, power_worth_gpu(bytes, *maxit), CpuNeed::nothing(),
        [&] { return impl::power_dense_host<T>(*n, a, *lda, lambda, x, ones, *tol, maxit, info); },
        [&] { power_dense_cpu<T>(*n, a, *lda, lambda, x, ones, *tol, maxit, info); });
}


// The entry of cudrop_scsrpower_/cudrop_dcsrpower_ (capi/exports.cpp); the caller's return
// address is not used (report()).
template <class T>
void csrpower(const int *n, const T *val, const int *colind, const int *rowptr, const int *base, T *lambda, T *x,
              const int *init, const T *tol, int *maxit, int *info, const void * /*caller*/) {
  constexpr const RoutineNames &names = routine_names<Family::csrpower, T>;
  *info = 0;
  if (*n < 0) *info = -1;
  else if (*base != 0 && *base != 1) *info = -5;
  else if (*init != 0 && *init != 1) *info = -8;
  else if (!(*tol >= T(0))) *info = -9;  // negative or NaN
  else if (*maxit < 0) *info = -10;
  if (checked_and_done(names, *n, *info, lambda, maxit)) return;
  // The structure, before anything else of the matrix is read: row pointers here (INFO = -4,
  // no XERBLA: a data error, returned to the caller), column indices on the path that runs
  // (INFO = -3).
  if (!power_csr_rowptr_valid(*n, rowptr, *base)) {
    *info = -4;
    return;
  }

  char label[96];
  const char *name = names.symbol;
  const long long nnz = (long long)rowptr[*n] - *base;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(n=%d,nnz=%lld,maxit=%d)", name, *n, nnz, *maxit);
    name = label;
  }
  const bool ones = *init == 1;
  const double bytes = double(nnz) * double(sizeof(T) + sizeof(int)) + (double(*n) + 1) * sizeof(int);
  route(name, power_worth_gpu(bytes, *maxit), CpuNeed::nothing(),
        [&] { return impl::power_csr_host<T>(*n, val, colind, rowptr, *base, lambda, x, ones, *tol, maxit, info); },
        [&] { power_csr_cpu<T>(*n, val, colind, rowptr, *base, lambda, x, ones, *tol, maxit, info); });
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_power CUDROP_DEFINED
#define CUDROP_DEFINES_csrpower CUDROP_DEFINED
#include "capi/instantiate.h"
