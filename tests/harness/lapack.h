#pragma once
// cudrop's public GEMM, LU and Cholesky entry points by element type, for tests written once
// for float and double (LU and Cholesky: std::complex<float> and std::complex<double> too).
#include <complex>
#include <cstring>
#include <type_traits>

#include "cudrop.h"

namespace harness {

template <class T>
void gemm(const char *ta, const char *tb, const int *m, const int *n, const int *k, const T *alpha, const T *a,
          const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc) {
  if constexpr (std::is_same_v<T, float>) sgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  else dgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}

template <class T>
void getrf(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info) {
  if constexpr (std::is_same_v<T, float>) sgetrf_(m, n, a, lda, ipiv, info);
  else if constexpr (std::is_same_v<T, double>) dgetrf_(m, n, a, lda, ipiv, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>) cgetrf_(m, n, a, lda, ipiv, info);
  else zgetrf_(m, n, a, lda, ipiv, info);
}

// uplo may be a whole word ("Upper"): its hidden length is the word's.
template <class T>
void potrf(const char *uplo, const int *n, T *a, const int *lda, int *info) {
  if constexpr (std::is_same_v<T, float>) spotrf_(uplo, n, a, lda, info, std::strlen(uplo));
  else if constexpr (std::is_same_v<T, double>) dpotrf_(uplo, n, a, lda, info, std::strlen(uplo));
  else if constexpr (std::is_same_v<T, std::complex<float>>) cpotrf_(uplo, n, a, lda, info, std::strlen(uplo));
  else zpotrf_(uplo, n, a, lda, info, std::strlen(uplo));
}

}  // namespace harness
