#pragma once
// What the solve entries share (capi/getrs.cpp, potrs.cpp, posv.cpp).
#include <algorithm>

#include "capi/level3.h"

namespace cudrop::capi {
// The argument checks xPOTRS and xPOSV share, in the reference order (their parameters are the
// same up to B): the number of the first illegal argument, or 0. u: UPLO in upper case.
inline int cholesky_solve_illegal_argument(char u, int n, int nrhs, int lda, int ldb) {
  if (u != 'U' && u != 'L') return 1;
  if (n < 0) return 2;
  if (nrhs < 0) return 3;
  if (lda < std::max(1, n)) return 5;
  if (ldb < std::max(1, n)) return 7;
  return 0;
}

// Auto mode's size test of ?getrs_/?potrs_ alone: 2*n*n*nrhs flops, in real flops as the
// Level-3 routines count them (four per complex multiply-add), so that one threshold serves
// every precision.
template <class T>
Worth solve_worth_gpu(int n, int nrhs) {
  const double flops = 2.0 * n * double(n) * nrhs * level3::real_flops_per_op<T>;
  return {flops >= settings().solve_min_flops, flops};
}
}  // namespace cudrop::capi
