#pragma once
// --gpu: how the outputs of calls that ran on the GPU are judged, the netlib testers' bounds
// and LAPACK's test ratios (computed in long double):
//   products (GEMM and the rest of Level 3): entrywise |C - Cref| within the routine's bound;
//   LU         xGET01  ||P A - L U||_1 / (n ||A||_1 eps) < 30
//   Cholesky   xPOT01  ||A - U^H U||_1 / (n ||A||_1 eps) < 30 (L L^H likewise)
//   solutions  xGET02  ||op(A) X - B||_1 / (||A||_1 ||X||_1 n eps) < 30
#include <complex>
#include <vector>

#include "tests/fuzz/arrays.h"

namespace fuzz {

constexpr double kRatioBound = 30;

template <class T> using Wide = std::conditional_t<is_complex<T>, std::complex<long double>, long double>;
template <class T> Wide<T> widen(T x) {
  if constexpr (is_complex<T>) return {std::real(x), std::imag(x)}; else return x;
}
template <class W> W conj_of(W x) {
  if constexpr (std::is_same_v<W, long double>) return x; else return std::conj(x);
}
template <class W> long double magnitude(W x) { return std::abs(x); }

// Entry (i,j) of `got` against the reference's: within bound(i,j) where the reference's is
// finite; where it is not, got's must not be either when an infinity is among the inputs (the
// order of operations then decides between NaN and Inf), else the same. Entries the routine
// does not write (written(i,j) false) must keep the original's bits.
template <class T, class Bound, class Written>
void check_within(const char *what, const Array<T> &orig, const Array<T> &ref, const Array<T> &got, bool infinities,
                  Bound &&bound, Written &&written) {
  for (int j = 0; j < ref.cols; ++j)
    for (int i = 0; i < ref.rows; ++i) {
      const T r = ref.at(i, j), g = got.at(i, j);
      if (!written(i, j)) {
        if (!same_bits(orig.at(i, j), g)) {
          difference("%s(%d,%d) is not the routine's to write: was %s, cudrop %s", what, i + 1, j + 1,
                     show(orig.at(i, j)).c_str(), show(g).c_str());
          return;
        }
        continue;
      }
      if (!finite(r)) {
        if (infinities ? finite(g) : !same(r, g)) {
          difference("%s(%d,%d): reference %s, cudrop %s", what, i + 1, j + 1, show(r).c_str(), show(g).c_str());
          return;
        }
        continue;
      }
      const double b = bound(i, j);
      if (!finite(g) || mag(T(g - r)) > b) {
        difference("%s(%d,%d): reference %s, cudrop %s, |difference| > %s", what, i + 1, j + 1, show(r).c_str(),
                   show(g).c_str(), text(b).c_str());
        return;
      }
    }
}

// xGET01 with cudrop's own pivots (m x n, pivots min(m,n) 1-based).
template <class T> double lu_residual(const Array<T> &a0, const Array<T> &lu, const std::vector<int64_t> &ipiv, int m,
                                      int n) {
  using W = Wide<T>;
  const int mn = std::min(m, n);
  std::vector<W> pa(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) pa[i + size_t(j) * m] = widen(a0.at(i, j));
  for (int i = 0; i < mn; ++i) {
    const int p = int(ipiv[i]) - 1;
    if (p != i)
      for (int j = 0; j < n; ++j) std::swap(pa[i + size_t(j) * m], pa[p + size_t(j) * m]);
  }
  long double worst = 0, anorm = 0;
  for (int j = 0; j < n; ++j) {
    long double column = 0, acolumn = 0;
    for (int i = 0; i < m; ++i) {
      W s = 0;
      for (int l = 0; l <= std::min({i, j, mn - 1}); ++l) s += (l == i ? W(1) : widen(lu.at(i, l))) * widen(lu.at(l, j));
      column += magnitude(W(s - pa[i + size_t(j) * m]));
      acolumn += magnitude(widen(a0.at(i, j)));
    }
    worst = std::max(worst, column);
    anorm = std::max(anorm, acolumn);
  }
  if (anorm == 0) return worst == 0 ? 0 : 1 / epsilon<T>();
  return double(worst / n / anorm / epsilon<T>());
}

// A Hermitian (symmetric) matrix given by its `upper` or lower triangle, the other one and the
// imaginary parts of the diagonal ignored, entry (i,j).
template <class T> Wide<T> hermitian_at(const Array<T> &a, bool upper, int i, int j) {
  if (i == j) return Wide<T>(re(a.at(i, i)));
  const bool stored = upper ? i < j : i > j;
  return stored ? widen(a.at(i, j)) : conj_of(widen(a.at(j, i)));
}

// xPOT01 over the leading `order` columns: ||A - U^H U||_1 / (n ||A||_1 eps) (L L^H likewise).
template <class T> double cholesky_residual(const Array<T> &a0, const Array<T> &f, bool upper, int order) {
  using W = Wide<T>;
  long double worst = 0, anorm = 0;
  for (int j = 0; j < order; ++j) {
    long double column = 0, acolumn = 0;
    for (int i = 0; i < order; ++i) {
      W s = 0;  // (U^H U)(i,j) = sum_l conj(U(l,i)) U(l,j); (L L^H)(i,j) = sum_l L(i,l) conj(L(j,l))
      for (int l = 0; l <= std::min(i, j); ++l)
        s += upper ? conj_of(widen(f.at(l, i))) * widen(f.at(l, j)) : widen(f.at(i, l)) * conj_of(widen(f.at(j, l)));
      const W aij = hermitian_at(a0, upper, i, j);
      column += magnitude(W(s - aij));
      acolumn += magnitude(aij);
    }
    worst = std::max(worst, column);
    anorm = std::max(anorm, acolumn);
  }
  if (order == 0) return 0;
  if (anorm == 0) return worst == 0 ? 0 : 1 / epsilon<T>();
  return double(worst / order / anorm / epsilon<T>());
}

// xGET02: ||op(A) X - B||_1 / (||A||_1 ||X||_1 n eps), worst column; A n x n given by a(i,j),
// op 'N', 'T' or 'C'.
template <class T, class A>
double solve_residual(int n, int nrhs, A &&a, char op, const Array<T> &x, const Array<T> &b) {
  using W = Wide<T>;
  auto opa = [&](int i, int l) -> W { return op == 'N' ? a(i, l) : op == 'T' ? a(l, i) : conj_of(a(l, i)); };
  long double anorm = 0, worst = 0;
  for (int j = 0; j < n; ++j) {
    long double column = 0;
    for (int i = 0; i < n; ++i) column += magnitude(W(opa(i, j)));
    anorm = std::max(anorm, column);
  }
  for (int j = 0; j < nrhs; ++j) {
    long double rnorm = 0, xnorm = 0;
    for (int i = 0; i < n; ++i) {
      W s = -widen(b.at(i, j));
      for (int l = 0; l < n; ++l) s += opa(i, l) * widen(x.at(l, j));
      rnorm += magnitude(s);
      xnorm += magnitude(widen(x.at(i, j)));
    }
    if (rnorm == 0) continue;
    if (anorm == 0 || xnorm == 0) return 1 / epsilon<T>();
    worst = std::max(worst, rnorm / anorm / xnorm / n / epsilon<T>());
  }
  return double(worst);
}

}  // namespace fuzz
