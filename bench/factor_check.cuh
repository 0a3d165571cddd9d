#pragma once
// Residual checks of factorizations on the host, in double, O(n^2): what the LU benchmarks
// (getrf_bench.cu, seeds_gpu.cu) and the Cholesky one (seeds_gpu.cu) print beside their times.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "bench/cusolver_work.cuh"

namespace bench {

// ||P A x - L (U x)||_inf / (n ||A||_inf ||x||_inf eps), x random +-1, in double.
template <class T>
double lu_spot_check(int n, const T *a, const T *lu, const int *ipiv) {
  using C = std::complex<double>;
  std::vector<C> x(n), ax(n, 0.0), ux(n, 0.0), lux(n, 0.0);
  unsigned s = 12345;
  for (C &v : x) { s = s * 1664525u + 1013904223u; v = (s >> 31) ? 1.0 : -1.0; }
  double anorm = 0;
  std::vector<double> rowsum(n, 0.0);
  for (int j = 0; j < n; ++j) {
    const T *aj = a + size_t(j) * n, *luj = lu + size_t(j) * n;
    for (int i = 0; i < n; ++i) { ax[i] += widen(aj[i]) * x[j]; rowsum[i] += std::abs(widen(aj[i])); }
    for (int k = 0; k <= j; ++k) ux[k] += widen(luj[k]) * x[j];
  }
  for (double r : rowsum) anorm = std::max(anorm, r);
  for (int k = 0; k < n; ++k) {
    const T *lk = lu + size_t(k) * n;
    lux[k] += ux[k];
    for (int i = k + 1; i < n; ++i) lux[i] += widen(lk[i]) * ux[k];
  }
  for (int k = 0; k < n; ++k) std::swap(ax[k], ax[ipiv[k] - 1]);  // P A x
  double err = 0;
  for (int i = 0; i < n; ++i) err = std::max(err, std::abs(ax[i] - lux[i]));
  return err / (double(n) * anorm * std::numeric_limits<cudrop::real_t<T>>::epsilon() / 2);
}

// ||A x - L (L^H x)||_inf / (n ||A||_inf ||x||_inf eps), x random +-1, in double: A Hermitian,
// given by its lower triangle (a), L the lower triangle of l.
template <class T>
double chol_spot_check(int n, const T *a, const T *l) {
  using C = std::complex<double>;
  std::vector<C> x(n), ax(n, 0.0), lhx(n, 0.0), llhx(n, 0.0);
  unsigned s = 12345;
  for (C &v : x) { s = s * 1664525u + 1013904223u; v = (s >> 31) ? 1.0 : -1.0; }
  std::vector<double> rowsum(n, 0.0);
  for (int j = 0; j < n; ++j) {
    const T *aj = a + size_t(j) * n, *lj = l + size_t(j) * n;
    for (int i = j; i < n; ++i) {
      const C v = widen(aj[i]);
      ax[i] += v * x[j];
      rowsum[i] += std::abs(v);
      if (i != j) { ax[j] += std::conj(v) * x[i]; rowsum[j] += std::abs(v); }
      lhx[j] += std::conj(widen(lj[i])) * x[i];  // (L^H x)_j = sum_i conj(L(i,j)) x_i
    }
  }
  for (int j = 0; j < n; ++j) {
    const T *lj = l + size_t(j) * n;
    for (int i = j; i < n; ++i) llhx[i] += widen(lj[i]) * lhx[j];
  }
  double anorm = 0, err = 0;
  for (double r : rowsum) anorm = std::max(anorm, r);
  for (int i = 0; i < n; ++i) err = std::max(err, std::abs(ax[i] - llhx[i]));
  return err / (double(n) * anorm * std::numeric_limits<cudrop::real_t<T>>::epsilon() / 2);
}

}  // namespace bench
