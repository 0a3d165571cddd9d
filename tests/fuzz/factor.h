#pragma once
// What the factorizations (factor.cpp) and the drivers that factor (solve.cpp: ?gesv_, ?posv_)
// share: their matrices, the record of a run, and its comparisons.
#include "tests/fuzz/bounds.h"
#include "tests/fuzz/handlers.h"

namespace fuzz {

// What one library's factorization gave (IPIV: LU only, as 64-bit values).
template <class T> struct FactorRun {
  Array<T> a;
  Pivots<int64_t> ipiv;
  int64_t info = 0;
  std::vector<HandlerCall> handlers;
};

// Hermitian (symmetric) matrices for Cholesky: SPD (B B^H + n I: INFO 0), SPD but for one
// clearly negative diagonal entry (INFO = that index), random (some INFO > 0), SPD with
// special values.
enum class HermitianKind { Spd, Negative, Random, Special };
inline HermitianKind pick_hermitian_kind(Rng &rng) {
  const uint64_t r = rng.below(100);
  return r < 45 ? HermitianKind::Spd : r < 65 ? HermitianKind::Negative : r < 85 ? HermitianKind::Random
                                                                                 : HermitianKind::Special;
}
inline const char *describe(HermitianKind kind) {
  const char *names[] = {"SPD", "negative-diagonal", "random Hermitian", "special-valued"};
  return names[int(kind)];
}

// The triangle `upper` does not name and, where `hermitian`, the imaginary parts of the
// diagonal: junk (NaN included), which a routine of a symmetric or Hermitian matrix must not
// read.
template <class T> void fill_junk(Rng &rng, Array<T> &a, bool upper, bool hermitian) {
  auto junk = [&] { return rng.below(8) == 0 ? std::numeric_limits<real_t<T>>::quiet_NaN() : real_t<T>(rng.symmetric() * 1e3); };
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) {
      if (upper ? i > j : i < j) a.at(i, j) = make<T>(junk(), junk());
      else if (i == j && hermitian && is_complex<T>) a.at(i, i) = make<T>(re(a.at(i, i)), junk());
    }
}

// One to three special values (special()) in the triangle `upper` names.
template <class T> void put_specials(Rng &rng, Array<T> &a, bool upper) {
  if (a.rows == 0) return;
  const int count = 1 + int(rng.below(3));
  for (int s = 0; s < count; ++s) {
    int i = int(rng.below(a.rows)), j = int(rng.below(a.rows));
    if (upper ? i > j : i < j) std::swap(i, j);
    a.at(i, j) = special<T>(rng);
  }
}

// The triangle `upper` names holds the matrix; the other one, and the imaginary parts of the
// diagonal, junk (NaN included) that the routine must neither read nor write.
template <class T> Array<T> make_hermitian(Rng &rng, int n, int lda, bool upper, HermitianKind kind) {
  Array<T> a = make_array<T>(rng, n, n, lda, Fill::Random);
  const int order = a.rows;
  if (kind != HermitianKind::Random) {
    std::vector<T> b(size_t(order) * order);
    for (T &x : b) x = random_value<T>(rng, Fill::Random);
    for (int j = 0; j < order; ++j)
      for (int i = 0; i < order; ++i) {
        Wide<T> s = i == j ? order : 0;
        for (int l = 0; l < order; ++l) s += widen(b[i + size_t(l) * order]) * conj_of(widen(b[j + size_t(l) * order]));
        a.at(i, j) = make<T>(real_t<T>(std::real(s)), real_t<T>(std::imag(s)));
      }
  }
  if (kind == HermitianKind::Negative && order > 0) {
    const int at = int(rng.below(order));
    a.at(at, at) = T(-1 - rng.uniform() * order);
  }
  if (kind == HermitianKind::Special) put_specials(rng, a, upper);
  fill_junk(rng, a, upper, true);
  return a;
}

// The CPU path: INFO, the first `pivots` IPIV entries and A, all exact.
template <class T> void check_same_factor(const FactorRun<T> &ref, const FactorRun<T> &got, int pivots) {
  if (ref.info != got.info) difference("INFO: reference %lld, cudrop %lld", (long long)ref.info, (long long)got.info);
  for (int i = 0; i < pivots; ++i)
    if (ref.ipiv.at(i) != got.ipiv.at(i)) {
      difference("IPIV(%d): reference %lld, cudrop %lld", i + 1, (long long)ref.ipiv.at(i), (long long)got.ipiv.at(i));
      break;
    }
  check_same_entries("A", ref.a, got.a);
}

// LU on the GPU: pivots in range, then the factor judged by its residual (pivots may differ on
// near ties); INFO exact where the matrix makes it so (info_exact). True when the factor passed
// (the caller may go on to judge a solution).
template <class T>
bool check_lu_bounds(const Array<T> &a0, const FactorRun<T> &ref, const FactorRun<T> &got, int m, int n, bool special,
                     bool info_exact) {
  const int mn = std::min(m, n);
  for (int i = 0; i < mn; ++i)
    if (got.ipiv.at(i) < i + 1 || got.ipiv.at(i) > m) {
      difference("IPIV(%d) = %lld outside [%d, %d]", i + 1, (long long)got.ipiv.at(i), i + 1, m);
      return false;
    }
  if (got.info < 0 || got.info > mn) difference("INFO %lld outside [0, %d]", (long long)got.info, mn);
  if (special) {
    if (any_nonfinite(ref.a, m, n) != any_nonfinite(got.a, m, n))
      difference("non-finite entries: reference %s, cudrop %s", any_nonfinite(ref.a, m, n) ? "some" : "none",
                 any_nonfinite(got.a, m, n) ? "some" : "none");
    return false;
  }
  if (info_exact && ref.info != got.info) {
    difference("INFO: reference %lld, cudrop %lld", (long long)ref.info, (long long)got.info);
    return false;
  }
  // Small integer matrices are often singular in exact arithmetic: whether a pivot comes out
  // as exactly 0 (INFO > 0, no division) or as a rounding error (huge multipliers) depends on
  // the order of operations. Judged only when neither side met a zero pivot, and then against
  // the reference's own residual as well.
  if (!info_exact && (ref.info != 0 || got.info != 0)) return false;
  const std::vector<int64_t> pivots(got.ipiv.p(), got.ipiv.p() + mn), ref_pivots(ref.ipiv.p(), ref.ipiv.p() + mn);
  const double resid = lu_residual(a0, got.a, pivots, m, n);
  const double ref_resid = info_exact ? 0 : lu_residual(a0, ref.a, ref_pivots, m, n);
  if (!(resid < kRatioBound) && !(resid <= 4 * ref_resid)) {
    difference("||P A - L U|| / (n ||A|| eps) = %s >= 30 (reference: %s)", text(resid).c_str(), text(ref_resid).c_str());
    return false;
  }
  return got.info == 0;
}

// The triangle UPLO excludes must keep its bits; false, with the difference reported, where
// it did not.
template <class T> bool check_other_triangle(const Array<T> &a0, const Array<T> &got, bool upper) {
  for (int j = 0; j < a0.rows; ++j)
    for (int i = 0; i < a0.rows; ++i)
      if ((upper ? i > j : i < j) && !same_bits(a0.at(i, j), got.at(i, j))) {
        difference("the triangle UPLO excludes was written at (%d,%d)", i + 1, j + 1);
        return false;
      }
  return true;
}

// Cholesky on the GPU: the other triangle exactly untouched, INFO exact where the matrix
// decides it, the factor judged by its residual, its diagonal real. True when the factor
// passed with INFO 0.
template <class T>
bool check_cholesky_bounds(const Array<T> &a0, const FactorRun<T> &ref, const FactorRun<T> &got, bool upper,
                           HermitianKind kind) {
  const int order = a0.rows;
  if (!check_other_triangle(a0, got.a, upper)) return false;
  if (got.info < 0 || got.info > order) difference("INFO %lld outside [0, %d]", (long long)got.info, order);
  if (kind == HermitianKind::Special || kind == HermitianKind::Random) return false;
  if (ref.info != got.info) {
    difference("INFO: reference %lld, cudrop %lld", (long long)ref.info, (long long)got.info);
    return false;
  }
  const int factored = got.info == 0 ? order : int(got.info) - 1;
  for (int i = 0; i < factored; ++i)
    if (im(got.a.at(i, i)) != 0) {
      difference("the factor's diagonal (%d,%d) is not real: %s", i + 1, i + 1, show(got.a.at(i, i)).c_str());
      return false;
    }
  const double resid = cholesky_residual(a0, got.a, upper, factored);
  if (!(resid < kRatioBound)) {
    difference("||A - U^H U|| / (n ||A|| eps) = %s >= 30 over order %d", text(resid).c_str(), factored);
    return false;
  }
  return got.info == 0;
}

}  // namespace fuzz
