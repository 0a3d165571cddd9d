#pragma once
// What the eigensolver tests share: the element types, a random Hermitian matrix as a caller
// passes it (one triangle, the other and the padding rows NaN, the array one element off a
// 16-byte boundary) with its full copy in long double, and the checks of computed eigenpairs.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "tests/harness/rng.h"

namespace eigen_test {

template <class T> struct Real { using type = T; };
template <class R> struct Real<std::complex<R>> { using type = R; };
template <class T> using real_of = typename Real<T>::type;
template <class T> constexpr bool is_complex = !std::is_same_v<T, real_of<T>>;

template <class T>
T conjugate(T x) {
  if constexpr (is_complex<T>) return std::conj(x);
  else return x;
}

template <class T>
T random_value(Rng &rng) {
  if constexpr (is_complex<T>) return T(real_of<T>(rng.symmetric()), real_of<T>(rng.symmetric()));
  else return T(rng.symmetric());
}

// An n x n Hermitian matrix with entries of magnitude up to `scale`: storage (lda x n and one
// element either side, NaN) holds the triangle uplo names at a0 = storage + 1; full holds both
// triangles; amax is the largest |a|.
template <class T>
struct HermitianMatrix {
  int n, lda;
  std::vector<T> storage;
  T *a0;
  std::vector<std::complex<long double>> full;
  double amax = 0;
  HermitianMatrix(Rng &rng, int n_, int lda_, char uplo, double scale)
      : n(n_), lda(lda_), storage(size_t(lda_) * n_ + 2, T(std::numeric_limits<real_of<T>>::quiet_NaN())),
        a0(storage.data() + 1), full(size_t(n_) * n_) {
    using R = real_of<T>;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        T x = random_value<T>(rng) * R(scale);
        if (i == j) x = T(std::real(x));
        const bool lower = uplo == 'L';
        a0[(lower ? i : j) + size_t(lower ? j : i) * lda] = lower ? x : conjugate(x);
        full[i + size_t(j) * n] = std::complex<long double>(x);
        full[j + size_t(i) * n] = std::conj(std::complex<long double>(x));
        amax = std::max(amax, double(std::abs(x)));
      }
  }
};

// max |A z_j - w_j z_j| (res) and max |Z^H Z - I| (orth) over the first `cols` columns of Z
// (n rows, ldz), in long double.
template <class T, class R>
void eigenpair_errors(const HermitianMatrix<T> &m, const T *z, int ldz, const R *w, int cols, double *res,
                      double *orth) {
  using L = std::complex<long double>;
  const int n = m.n;
  *res = 0;
  *orth = 0;
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < n; ++i) {
      L s = 0;
      for (int k = 0; k < n; ++k) s += m.full[i + size_t(k) * n] * L(z[k + size_t(j) * ldz]);
      s -= (long double)w[j] * L(z[i + size_t(j) * ldz]);
      *res = std::max(*res, double(std::abs(s)));
    }
    for (int i = 0; i < cols; ++i) {
      L s = 0;
      for (int k = 0; k < n; ++k) s += std::conj(L(z[k + size_t(i) * ldz])) * L(z[k + size_t(j) * ldz]);
      *orth = std::max(*orth, double(std::abs(s - L(i == j ? 1 : 0))));
    }
  }
}

}  // namespace eigen_test
