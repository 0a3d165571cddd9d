// The symmetric indefinite entries: ?sytrf_ (s, d, c, z) and ?hetrf_ (c, z), A = U*D*U^T or
// L*D*L^T (^H) by Bunch-Kaufman diagonal pivoting; their solves ?sytrs_/?hetrs_; the drivers
// ?sysv_/?hesv_. The reference routine's argument checks in the reference order with its INFO
// numbers; workspace queries and N = 0 go to the CPU routine, whose answers they are; every
// other call is one routed call (impl/sytrf/sytrf.h). The GPU needs no host workspace: after a
// GPU run WORK(1) holds the optimal LWORK the CPU routine reports, as the reference leaves it
// (LWKOPT, from ILAENV's block size; docs/semantics.md).
#include <algorithm>
#include <cstdio>

#include "capi/cpu_call.h"
#include "capi/flops.h"
#include "capi/report.h"
#include "capi/solve_checks.h"
#include "core/letter.h"
#include "core/log.h"
#include "core/routines.h"
#include "impl/sytrf/sytrf.h"
#include "route/dispatch.h"

namespace cudrop::capi {
namespace {

const char *labelled(const RoutineNames &names, char *label, size_t size, char uplo, int n, int nrhs) {
  if (settings().verbose < 2) return names.symbol;
  if (nrhs < 0) std::snprintf(label, size, "%s(%c,n=%d)", names.symbol, uplo, n);
  else std::snprintf(label, size, "%s(%c,n=%d,nrhs=%d)", names.symbol, uplo, n, nrhs);
  return label;
}

// The checks xSYTRS and xSYSV share, in the reference order (their parameters are the same up
// to B): the number of the first illegal argument, or 0. u: UPLO in upper case.
int solve_illegal_argument(char u, int n, int nrhs, int lda, int ldb) {
  if (u != 'U' && u != 'L') return 1;
  if (n < 0) return 2;
  if (nrhs < 0) return 3;
  if (lda < std::max(1, n)) return 5;
  if (ldb < std::max(1, n)) return 8;
  return 0;
}

// ?sytrf_ and ?hetrf_: one routine, two rows.
template <Family F, impl::Symmetry S, class T>
void factor(const char *uplo, const int *n, T *a, const int *lda, int *ipiv, T *work, const int *lwork, int *info,
            size_t uplo_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char u = upper(*uplo);
  const bool query = *lwork == -1;
  int illegal = 0;
  if (u != 'U' && u != 'L') illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*lda < std::max(1, *n)) illegal = 4;
  else if (*lwork < 1 && !query) illegal = 7;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, uplo, n, a, lda, ipiv, work, lwork, info,
                                       uplo_len);
    return;
  }
  // The reference has no quick return for N = 0: WORK(1) = 1 from its query's formula.
  if (query || *n == 0) return cpu_call<F, T>(uplo, n, a, lda, ipiv, work, lwork, info, uplo_len);
  char label[96];
  route(labelled(names, label, sizeof label, u, *n, -1), Worth(*n >= settings().sytrf_min_n, cholesky_flops<T>(*n)), names.cpu,
        [&] {
          const Status s = impl::sytrf_host<T>(S, uplo_of(u), *n, a, *lda, ipiv, info);
          if (s == Status::ok)
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(uplo, n, a, lda, ipiv, w, lw, i, 1); });
          return s;
        },
        [&] { cpu::routine<F, T>()(uplo, n, a, lda, ipiv, work, lwork, info, 1); });
}

// ?sytrs_ and ?hetrs_.
template <Family F, impl::Symmetry S, class T>
void solve(const char *uplo, const int *n, const int *nrhs, const T *a, const int *lda, const int *ipiv, T *b,
           const int *ldb, int *info, size_t uplo_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char u = upper(*uplo);
  const int illegal = solve_illegal_argument(u, *n, *nrhs, *lda, *ldb);
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, uplo, n, nrhs, a, lda, ipiv, b, ldb, info,
                                       uplo_len);
    return;
  }
  *info = 0;
  if (*n == 0 || *nrhs == 0) return;
  // Each column of B is solved on its own, so the CPU routine finishes from any column.
  const auto cpu_solve = [&](int done) {
    const int left = *nrhs - done;
    cpu::routine<F, T>()(uplo, n, &left, a, lda, ipiv, b + size_t(done) * size_t(*ldb), ldb, info, 1);
  };
  char label[96];
  route(labelled(names, label, sizeof label, u, *n, *nrhs), solve_worth_gpu<T>(*n, *nrhs), names.cpu,
        [&](impl::SolveProgress *progress) {
          return impl::sytrs_host<T>(S, uplo_of(u), *n, *nrhs, a, *lda, ipiv, b, *ldb, progress);
        },
        [&] { cpu_solve(0); },
        finish_on_cpu<impl::SolveProgress>(names.symbol,
                                           [&](const impl::SolveProgress &progress) { cpu_solve(progress.columns); }));
}

// ?sysv_ and ?hesv_ (Solve: their xSYTRS/xHETRS row, which finishes a GPU attempt that stopped
// after the whole factor was back).
template <Family F, Family Solve, impl::Symmetry S, class T>
void driver(const char *uplo, const int *n, const int *nrhs, T *a, const int *lda, int *ipiv, T *b, const int *ldb,
            T *work, const int *lwork, int *info, size_t uplo_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char u = upper(*uplo);
  const bool query = *lwork == -1;
  int illegal = solve_illegal_argument(u, *n, *nrhs, *lda, *ldb);
  if (illegal == 0 && *lwork < 1 && !query) illegal = 10;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, uplo, n, nrhs, a, lda, ipiv, b, ldb, work,
                                       lwork, info, uplo_len);
    return;
  }
  // With NRHS = 0 the reference still factors A; N = 0 leaves WORK(1) = 1.
  if (query || *n == 0) return cpu_call<F, T>(uplo, n, nrhs, a, lda, ipiv, b, ldb, work, lwork, info, uplo_len);
  const auto set_work = [&] {
    set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) {
      fn(uplo, n, nrhs, a, lda, ipiv, b, ldb, w, lw, i, 1);
    });
  };
  const auto cpu_run = [&] { cpu::routine<F, T>()(uplo, n, nrhs, a, lda, ipiv, b, ldb, work, lwork, info, 1); };
  char label[96];
  route(labelled(names, label, sizeof label, u, *n, *nrhs), Worth(*n >= settings().sytrf_min_n, cholesky_flops<T>(*n)), names.cpu,
        [&](impl::SysvProgress *progress) {
          const Status s = impl::sysv_host<T>(S, uplo_of(u), *n, *nrhs, a, *lda, ipiv, b, *ldb, info, progress);
          if (s == Status::ok) set_work();
          return s;
        },
        cpu_run,
        finish_on_cpu<impl::SysvProgress>(names.symbol, [&](const impl::SysvProgress &progress) {
          if (progress.ipiv_written && progress.factor_columns == *n) {
            // The whole factor and its pivots are the GPU's: B's columns from x_columns on are
            // solved with them by the CPU xSYTRS/xHETRS, as the reference's INFO = 0 does.
            *info = progress.info;
            if (*info == 0 && progress.x_columns < *nrhs) {
              const int done = progress.x_columns, left = *nrhs - done;
              int solve_info = 0;
              cpu::routine<Solve, T>()(uplo, n, &left, a, lda, ipiv, b + size_t(done) * size_t(*ldb), ldb,
                                       &solve_info, 1);
            }
            set_work();
            return;
          }
          // A is still the caller's (no factor column came back): the whole call again on the
          // CPU, which rewrites IPIV. sysv_host's factor goes back whole or not at all: a factor
          // only partly back leaves A with neither the caller's matrix nor its factorization.
          if (progress.factor_columns != 0)
            log(1, "%s: the GPU attempt stopped with %d of %d factor columns written back", names.symbol,
                progress.factor_columns, *n);
          cpu_run();
        }));
}

}  // namespace

template <class T>
void sytrf(const char *uplo, const int *n, T *a, const int *lda, int *ipiv, T *work, const int *lwork, int *info,
           size_t uplo_len, const void *caller) {
  factor<Family::sytrf, impl::Symmetry::symmetric, T>(uplo, n, a, lda, ipiv, work, lwork, info, uplo_len, caller);
}
template <class T>
void hetrf(const char *uplo, const int *n, T *a, const int *lda, int *ipiv, T *work, const int *lwork, int *info,
           size_t uplo_len, const void *caller) {
  factor<Family::hetrf, impl::Symmetry::hermitian, T>(uplo, n, a, lda, ipiv, work, lwork, info, uplo_len, caller);
}
template <class T>
void sytrs(const char *uplo, const int *n, const int *nrhs, const T *a, const int *lda, const int *ipiv, T *b,
           const int *ldb, int *info, size_t uplo_len, const void *caller) {
  solve<Family::sytrs, impl::Symmetry::symmetric, T>(uplo, n, nrhs, a, lda, ipiv, b, ldb, info, uplo_len, caller);
}
template <class T>
void hetrs(const char *uplo, const int *n, const int *nrhs, const T *a, const int *lda, const int *ipiv, T *b,
           const int *ldb, int *info, size_t uplo_len, const void *caller) {
  solve<Family::hetrs, impl::Symmetry::hermitian, T>(uplo, n, nrhs, a, lda, ipiv, b, ldb, info, uplo_len, caller);
}
template <class T>
void sysv(const char *uplo, const int *n, const int *nrhs, T *a, const int *lda, int *ipiv, T *b, const int *ldb,
          T *work, const int *lwork, int *info, size_t uplo_len, const void *caller) {
  driver<Family::sysv, Family::sytrs, impl::Symmetry::symmetric, T>(uplo, n, nrhs, a, lda, ipiv, b, ldb, work, lwork,
                                                                     info, uplo_len, caller);
}
template <class T>
void hesv(const char *uplo, const int *n, const int *nrhs, T *a, const int *lda, int *ipiv, T *b, const int *ldb,
          T *work, const int *lwork, int *info, size_t uplo_len, const void *caller) {
  driver<Family::hesv, Family::hetrs, impl::Symmetry::hermitian, T>(uplo, n, nrhs, a, lda, ipiv, b, ldb, work, lwork,
                                                                     info, uplo_len, caller);
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_sytrf CUDROP_DEFINED
#define CUDROP_DEFINES_hetrf CUDROP_DEFINED
#define CUDROP_DEFINES_sytrs CUDROP_DEFINED
#define CUDROP_DEFINES_hetrs CUDROP_DEFINED
#define CUDROP_DEFINES_sysv CUDROP_DEFINED
#define CUDROP_DEFINES_hesv CUDROP_DEFINED
#include "capi/instantiate.h"
