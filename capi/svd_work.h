#pragma once
// The workspace minima of xGESDD, xGESVD, xGELSD and xGELSS as the reference computes them before
// it checks LWORK (dgesdd.f ... zgelss.f), with the letters upper case. Header-only and free of
// the library, so that tests/svd can check them against the CPU routine's own checks.
#include <algorithm>
#include <cmath>

namespace cudrop::capi {

// ILAENV(6, ...): the reference's SVD crossover, INT(REAL(MIN(M, N)) * 1.6E0) in single precision.
inline long long ilaenv_svd_crossover(long long m, long long n) {
  return static_cast<long long>(static_cast<float>(std::min(m, n)) * 1.6f);
}
// ILAENV(9, ...): the size of the divide and conquer's leaves (xGELSD, xGESDD).
constexpr long long kSmlsiz = 25;

// xGESDD's MINWRK (dgesdd.f, zgesdd.f); 1 for min(m, n) = 0.
template <bool complex>
long long gesdd_minimum(char jz, long long m, long long n) {
  const long long minmn = std::min(m, n);
  if (minmn == 0) return 1;
  // The wide case is the tall one with m and n exchanged, in both routines.
  const long long big = std::max(m, n), k = minmn;
  if (complex) {
    const long long mnthr1 = static_cast<long long>(minmn * 17.0 / 9.0);
    if (big >= mnthr1) {
      switch (jz) {
        case 'N': return 3 * k;
        case 'O': return 2 * k * k + 3 * k;
        case 'S': return k * k + 3 * k;
        default: return k * k + std::max(3 * k, k + big);
      }
    }
    return 2 * k + big + (jz == 'O' ? k * k : 0);
  }
  const long long mnthr = static_cast<long long>(minmn * 11.0 / 6.0);
  const long long bdspac = jz == 'N' ? 7 * k : 3 * k * k + 4 * k;
  if (big >= mnthr) {
    switch (jz) {
      case 'N': return bdspac + k;
      case 'O': return bdspac + 2 * k * k + 3 * k;
      case 'S': return bdspac + k * k + 3 * k;
      default: return k * k + std::max(3 * k + bdspac, k + big);
    }
  }
  if (jz == 'O') return 3 * k + std::max(big, k * k + bdspac);
  return 3 * k + std::max(big, bdspac);
}

// xGESVD's MINWRK (dgesvd.f, zgesvd.f); 1 for min(m, n) = 0. The reference's tall (wide) path
// without the smaller factor (U for m >= n, V^H for m < n) needs less.
template <bool complex>
long long gesvd_minimum(char ju, char jv, long long m, long long n) {
  const long long minmn = std::min(m, n);
  if (minmn == 0) return 1;
  const long long big = std::max(m, n), k = minmn;
  const bool tall = big >= ilaenv_svd_crossover(m, n);
  const bool none_small = (m >= n ? ju : jv) == 'N';
  if (complex) return tall && none_small ? 3 * k : 2 * k + big;
  const long long bdspac = 5 * k;
  return tall && none_small ? std::max(4 * k, bdspac) : std::max(3 * k + big, bdspac);
}

// xGELSD's MINWRK, LIWORK and (complex) LRWORK (dgelsd.f, zgelsd.f), as the reference computes
// them before it checks LWORK. The reference takes min(MINWRK, MAXWRK); MAXWRK, made of the same
// terms with block sizes of at least 1, is never the smaller.
struct LeastSquaresWork {
  long long lwork = 1, liwork = 1, lrwork = 1;
};
// single: sgelsd (like the complex ones) leaves its minima at 1 for min(m, n) = 0, dgelsd does not.
template <bool complex, bool single = false>
LeastSquaresWork gelsd_minimum(long long m, long long n, long long nrhs) {
  LeastSquaresWork least;
  const long long minmn0 = std::min(m, n);
  if ((complex || single) && minmn0 == 0) return least;
  // dgelsd computes its sizes for min(m, n) = 0 too, with MINMN = MAX(1, MINMN).
  const long long minmn = std::max(1LL, minmn0);
  const long long nlvl =
      std::max(static_cast<long long>(std::log(double(minmn) / double(kSmlsiz + 1)) / std::log(2.0)) + 1, 0LL);
  least.liwork = 3 * minmn * nlvl + 11 * minmn;
  const long long mnthr = ilaenv_svd_crossover(m, n);
  const long long mm = m >= n && m >= mnthr ? n : m;
  const long long k = m >= n ? n : m;  // xGELSD's N (m >= n) or M (n > m) in the formulas
  if (complex) {
    least.lrwork = 10 * k + 2 * k * kSmlsiz + 8 * k * nlvl + 3 * kSmlsiz * nrhs +
                   std::max((kSmlsiz + 1) * (kSmlsiz + 1), n * (1 + nrhs) + 2 * nrhs);
    least.lwork = m >= n ? std::max(2 * n + mm, 2 * n + n * nrhs) : std::max(2 * m + n, 2 * m + m * nrhs);
    return least;
  }
  const long long wlalsd = 9 * k + 2 * k * kSmlsiz + 8 * k * nlvl + k * nrhs + (kSmlsiz + 1) * (kSmlsiz + 1);
  least.lwork = m >= n ? std::max({3 * n + mm, 3 * n + nrhs, 3 * n + wlalsd})
                       : std::max({3 * m + nrhs, 3 * m + m, 3 * m + wlalsd});
  return least;
}

// xGELSS's MINWRK (dgelss.f, zgelss.f); 1 for min(m, n) = 0.
template <bool complex>
long long gelss_minimum(long long m, long long n, long long nrhs) {
  if (std::min(m, n) == 0) return 1;
  if (complex) return m >= n ? 2 * n + std::max(nrhs, m) : 2 * m + std::max(nrhs, n);
  if (m >= n) {
    const long long mm = m >= ilaenv_svd_crossover(m, n) ? n : m;
    return std::max({3 * n + mm, 3 * n + nrhs, std::max(1LL, 5 * n)});
  }
  return std::max({3 * m + nrhs, 3 * m + n, std::max(1LL, 5 * m)});
}

}  // namespace cudrop::capi
