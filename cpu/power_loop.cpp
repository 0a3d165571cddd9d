#include "cpu/power_loop.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <new>

#include "core/log.h"
#include "core/power_rule.h"

namespace cudrop {
namespace {

// ---- the iteration ----------------------------------------------------------------------
// The iteration of impl/power/power.h with plain loops; matvec(x, y) computes y = A x.
template <class T, class MatVec>
void iterate_cpu(int n, MatVec &&matvec, T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info) {
  // Allocated before anything of the caller's is written, so that a failure leaves all but
  // INFO untouched; nothrow: no exception may leave here.
  std::unique_ptr<T[]> y(new (std::nothrow) T[static_cast<size_t>(n)]);
  if (y == nullptr) {
    log(1, "power: the CPU iteration cannot allocate %zu bytes (INFO = %d)", static_cast<size_t>(n) * sizeof(T),
        kPowerInfoOutOfMemory);
    *info = kPowerInfoOutOfMemory;
    return;
  }
  if (start_ones) std::fill(x, x + n, T(1));
  const int limit = *maxit;
  *lambda = T(0);
  for (int k = 1; k <= limit; ++k) {
    matvec(x, y.get());
    int p = 0;
    for (int i = 1; i < n; ++i)
      if (kernels::power_better(y[i], i, y[p], p)) p = i;
    const T lam = y[p];
    if (kernels::power_magnitude_bits(lam) == 0) {
      *lambda = T(0);
      *maxit = k;
      *info = 2;
      return;
    }
    if (!std::isfinite(lam)) {
      *lambda = lam;
      *maxit = k;
      *info = 3;
      return;
    }
    bool moved = false;
    for (int i = 0; i < n; ++i) {
      const T scaled = y[i] / lam;
      if (!(std::fabs(scaled - x[i]) < tol)) moved = true;
      x[i] = scaled;
    }
    *lambda = lam;
    if (!moved) {
      *maxit = k;
      *info = 0;
      return;
    }
  }
  *maxit = limit;
  *info = 1;
}

}  // namespace

bool power_csr_rowptr_valid(int n, const int *rowptr, int base) {
  if (rowptr[0] != base) return false;
  for (int i = 0; i < n; ++i)
    if (rowptr[i + 1] < rowptr[i]) return false;
  return true;
}

template <class T>
void power_dense_cpu(int n, const T *a, int lda, T *lambda, T *x, bool start_ones, T tol,
                     int *maxit, int *info) {
  // Columns in order, each an axpy: y = sum_j A(:,j) x_j, with IEEE semantics for every
  // product (no column is skipped when x_j = 0, so a NaN or Inf in A shows as on the GPU).
  auto matvec = [&](const T *xv, T *y) {
    std::fill(y, y + n, T(0));
    for (int j = 0; j < n; ++j) {
      const T xj = xv[j];
      const T *column = a + size_t(j) * size_t(lda);
      for (int i = 0; i < n; ++i) y[i] += column[i] * xj;
    }
  };
  iterate_cpu(n, matvec, lambda, x, start_ones, tol, maxit, info);
}

template <class T>
void power_csr_cpu(int n, const T *val, const int *colind, const int *rowptr, int base,
                   T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info) {
  // The row pointers were checked by the entry point; the column indices are checked here,
  // before any is followed.
  const long long nnz = (long long)rowptr[n] - base;
  const long long limit = (long long)base + n;
  for (long long k = 0; k < nnz; ++k)
    if (colind[k] < base || colind[k] >= limit) {
      *info = -3;
      return;
    }
  auto matvec = [&](const T *xv, T *y) {
    for (int i = 0; i < n; ++i) {
      T s = T(0);
      for (long long k = (long long)rowptr[i] - base; k < (long long)rowptr[i + 1] - base; ++k)
        s += val[k] * xv[colind[k] - base];
      y[i] = s;
    }
  };
  iterate_cpu(n, matvec, lambda, x, start_ones, tol, maxit, info);
}

template void power_dense_cpu<float>(int, const float *, int, float *, float *, bool, float, int *, int *);
template void power_dense_cpu<double>(int, const double *, int, double *, double *, bool, double, int *, int *);
template void power_csr_cpu<float>(int, const float *, const int *, const int *, int, float *, float *, bool, float,
                                   int *, int *);
template void power_csr_cpu<double>(int, const double *, const int *, const int *, int, double *, double *, bool,
                                    double, int *, int *);

}  // namespace cudrop
