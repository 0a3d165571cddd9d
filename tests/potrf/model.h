#pragma once
// Reference LAPACK's Cholesky (lower), written out with the reference's operation order: what
// the tests expect a factored or a failed matrix to look like. Independent of cudrop's code
// (plan_test checks it bit for bit against liblapack.so.3's DPOTRF/DPOTRF2 when available).
#include <algorithm>
#include <cmath>
#include <cstddef>

namespace potrf_model {

constexpr int kNb = 64;  // ILAENV's block size for xPOTRF

// SPOTRF2 (lower), recursive. Returns INFO (1-based), leaves `a` as the reference does.
template <class R>
int potrf2_lower(int n, R *a, long lda) {
  auto A = [&](long i, long j) -> R & { return a[i + size_t(j) * lda]; };
  if (n == 0) return 0;
  if (n == 1) {
    if (!(A(0, 0) > R(0))) return 1;
    A(0, 0) = std::sqrt(A(0, 0));
    return 0;
  }
  const int n1 = n / 2, n2 = n - n1;
  if (int info = potrf2_lower(n1, a, lda)) return info;
  for (int k = 0; k < n1; ++k) {  // STRSM('R','L','T','N'): A21 := A21 L11^-T
    const R t = R(1) / A(k, k);
    for (int i = n1; i < n; ++i) A(i, k) *= t;
    for (int j = k + 1; j < n1; ++j)
      if (A(j, k) != R(0))
        for (int i = n1; i < n; ++i) A(i, j) -= A(j, k) * A(i, k);
  }
  for (int j = n1; j < n; ++j)  // SSYRK('L','N'): A22 := A22 - A21 A21^T
    for (int l = 0; l < n1; ++l) {
      const R t = -A(j, l);
      if (t != R(0))
        for (int i = j; i < n; ++i) A(i, j) += t * A(i, l);
    }
  if (int info = potrf2_lower(n2, &A(n1, n1), lda)) return info + n1;
  return 0;
}

// SPOTRF (lower), blocked with NB = 64: SSYRK + SPOTRF2 on the diagonal block, SGEMM + STRSM
// below it; stops at the first failing block.
template <class R>
int potrf_lower(int n, R *a, long lda) {
  auto A = [&](long i, long j) -> R & { return a[i + size_t(j) * lda]; };
  if (kNb >= n) return potrf2_lower(n, a, lda);
  for (int j = 0; j < n; j += kNb) {
    const int jb = std::min(kNb, n - j);
    for (int c = 0; c < jb; ++c)  // SSYRK('L','N', JB, J, -1, A(J,1), 1, A(J,J))
      for (int l = 0; l < j; ++l) {
        const R t = -A(j + c, l);
        if (t != R(0))
          for (int i = c; i < jb; ++i) A(j + i, j + c) += t * A(j + i, l);
      }
    if (int info = potrf2_lower(jb, &A(j, j), lda)) return info + j;
    if (j + jb < n) {
      for (int c = 0; c < jb; ++c)  // SGEMM('N','T', N-J-JB, JB, J, -1, A(J+JB,1), A(J,1), 1, A(J+JB,J))
        for (int l = 0; l < j; ++l) {
          const R t = -A(j + c, l);
          if (t != R(0))
            for (int i = j + jb; i < n; ++i) A(i, j + c) += t * A(i, l);
        }
      for (int k = 0; k < jb; ++k) {  // STRSM('R','L','T','N', N-J-JB, JB, 1, A(J,J), A(J+JB,J))
        const R t = R(1) / A(j + k, j + k);
        for (int i = j + jb; i < n; ++i) A(i, j + k) *= t;
        for (int c = k + 1; c < jb; ++c)
          if (A(j + c, j + k) != R(0))
            for (int i = j + jb; i < n; ++i) A(i, j + c) -= A(j + c, j + k) * A(i, j + k);
      }
    }
  }
  return 0;
}

}  // namespace potrf_model
