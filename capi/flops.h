#pragma once
// The real flops of the factorizations, as route()'s Worth carries them (while CUDA starts, a
// call the CPU finishes sooner runs there): LAPACK's operation counts (xGETRF 2/3 n^3 for a
// square matrix, xPOTRF n^3/3), four per complex multiply-add as the Level-3 routines count.
#include <algorithm>

#include "capi/level3.h"

namespace cudrop::capi {

template <class T>
double lu_flops(int m, int n) {
  const double k = std::min(m, n), mm = m, nn = n;
  return (2.0 * mm * nn * k - (mm + nn) * k * k + 2.0 * k * k * k / 3.0) * level3::real_flops_per_op<T>;
}

template <class T>
double cholesky_flops(int n) {
  return double(n) * n * n / 3.0 * level3::real_flops_per_op<T>;
}

}  // namespace cudrop::capi
