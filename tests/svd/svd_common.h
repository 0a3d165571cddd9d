#pragma once
// What the SVD tests share: the element types, a random m x n matrix of a chosen kind as a
// caller passes it (lda >= m, the padding rows NaN, one element off a 16-byte boundary), norms,
// and the checks of computed singular vectors, which are only defined up to a sign (c, z: a
// phase) per pair: never compared elementwise, only through A = U S V^H and orthogonality.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "tests/eigen/hermitian.h"
#include "tests/harness/rng.h"

namespace svd_test {

using eigen_test::conjugate;
using eigen_test::is_complex;
using eigen_test::random_value;
using eigen_test::real_of;

// random: entries in [-1, 1]; zero_columns: random with every third column zero; repeated: the
// first columns repeated (rank about n/2); graded: columns scaled from 1 down to 1e-3 times
// (well conditioned enough to compare); zero: the zero matrix.
enum class Kind { random, zero_columns, repeated, graded, zero };
inline const char *kind_name(Kind k) {
  switch (k) {
    case Kind::random: return "random";
    case Kind::zero_columns: return "zero-columns";
    case Kind::repeated: return "repeated-columns";
    case Kind::graded: return "graded";
    default: return "zero";
  }
}

template <class T>
struct Matrix {
  int m, n, lda;
  std::vector<T> storage;  // lda x n and one element either side
  T *a0;
  double norm = 0;  // max |a|
  double fro = 0;   // Frobenius norm
  Matrix(Rng &rng, int m_, int n_, int lda_, Kind kind)
      : m(m_), n(n_), lda(lda_), storage(size_t(lda_) * std::max(n_, 1) + 2, T(std::numeric_limits<real_of<T>>::quiet_NaN())),
        a0(storage.data() + 1) {
    using R = real_of<T>;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        T x = random_value<T>(rng);
        if (kind == Kind::zero || (kind == Kind::zero_columns && j % 3 == 1)) x = T(0);
        if (kind == Kind::graded) x *= R(std::pow(1e-3, n > 1 ? double(j) / (n - 1) : 0.0));
        if (kind == Kind::repeated && j >= (n + 1) / 2) x = a0[i + size_t(j - (n + 1) / 2) * lda];
        a0[i + size_t(j) * lda] = x;
      }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        const double v = std::abs(a0[i + size_t(j) * lda]);
        norm = std::max(norm, v);
        fro += v * v;
      }
    fro = std::sqrt(fro);
  }
};

// Accumulation: long double up to this many multiply-adds per product, double past it.
constexpr double kLongDoubleWork = 4e7;

// max over (i, j) |A - U S VT| for U (m x k, ldu), VT (k x n, ldvt), S k values.
template <class T, class R>
double reconstruction_error(const Matrix<T> &a, const T *u, int ldu, const R *s, const T *vt, int ldvt, int k) {
  const int m = a.m, n = a.n;
  const bool wide = double(m) * n * k > kLongDoubleWork;
  double err = 0;
  std::vector<std::complex<long double>> us(size_t(m) * k);
  for (int p = 0; p < k; ++p)
    for (int i = 0; i < m; ++i) us[i + size_t(p) * m] = std::complex<long double>(u[i + size_t(p) * ldu]) * (long double)s[p];
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      std::complex<long double> sum = 0;
      if (wide) {
        std::complex<double> d = 0;
        for (int p = 0; p < k; ++p)
          d += std::complex<double>(us[i + size_t(p) * m]) * std::complex<double>(vt[p + size_t(j) * ldvt]);
        sum = d;
      } else {
        for (int p = 0; p < k; ++p) sum += us[i + size_t(p) * m] * std::complex<long double>(vt[p + size_t(j) * ldvt]);
      }
      err = std::max(err, double(std::abs(std::complex<long double>(a.a0[i + size_t(j) * a.lda]) - sum)));
    }
  return err;
}

// max |Q^H Q - I| over the c columns of Q (r rows, ldq; rows: Q^H's columns are Q's rows when
// `rows` is set: max |Q Q^H - I| over its c rows of length r).
template <class T>
double orthogonality_error(const T *q, int ldq, int r, int c, bool rows) {
  auto at = [&](int i, int p) {  // element i of vector p
    return std::complex<long double>(rows ? q[p + size_t(i) * ldq] : q[i + size_t(p) * ldq]);
  };
  const bool wide = double(c) * c * r > kLongDoubleWork;
  double err = 0;
  for (int p = 0; p < c; ++p)
    for (int q2 = p; q2 < c; ++q2) {
      std::complex<long double> sum = 0;
      if (wide) {
        std::complex<double> d = 0;
        for (int i = 0; i < r; ++i) d += std::conj(std::complex<double>(at(i, p))) * std::complex<double>(at(i, q2));
        sum = d;
      } else {
        for (int i = 0; i < r; ++i) sum += std::conj(at(i, p)) * at(i, q2);
      }
      err = std::max(err, double(std::abs(sum - std::complex<long double>(p == q2 ? 1 : 0))));
    }
  return err;
}

// For a U without V (or V without U): max_j | ||A^H u_j|| - s_j | (or | ||A v_j|| - s_j |, v_j the
// j-th row of VT conjugated).
template <class T, class R>
double one_sided_error(const Matrix<T> &a, const T *q, int ldq, const R *s, int k, bool left) {
  const int m = a.m, n = a.n;
  double err = 0;
  for (int p = 0; p < k; ++p) {
    long double norm2 = 0;
    for (int o = 0; o < (left ? n : m); ++o) {
      std::complex<long double> sum = 0;
      for (int i = 0; i < (left ? m : n); ++i) {
        if (left)
          sum += std::conj(std::complex<long double>(a.a0[i + size_t(o) * a.lda])) *
                 std::complex<long double>(q[i + size_t(p) * ldq]);
        else
          sum += std::complex<long double>(a.a0[o + size_t(i) * a.lda]) *
                 std::conj(std::complex<long double>(q[p + size_t(i) * ldq]));
      }
      norm2 += std::norm(sum);
    }
    err = std::max(err, std::fabs(double(std::sqrt(norm2)) - double(s[p])));
  }
  return err;
}

}  // namespace svd_test
