#pragma once
// The argument checks xPOTRS and xPOSV share, in the reference order (their parameters are the
// same up to B): the number of the first illegal argument, or 0. u: UPLO in upper case.
#include <algorithm>

namespace cudrop::capi {
inline int cholesky_solve_illegal_argument(char u, int n, int nrhs, int lda, int ldb) {
  if (u != 'U' && u != 'L') return 1;
  if (n < 0) return 2;
  if (nrhs < 0) return 3;
  if (lda < std::max(1, n)) return 5;
  if (ldb < std::max(1, n)) return 7;
  return 0;
}
}  // namespace cudrop::capi
