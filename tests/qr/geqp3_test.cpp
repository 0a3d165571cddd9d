// geqp3_test: ?geqp3_ and ?gelsy_ (s, d: the c and z entries are not exported yet) through the
// public symbols against the reference LAPACK (tests/harness/reference.h) given the same inputs.
//
// geqp3 (m x n, lda > m by 0..3 rows, padding rows NaN):
//  * matrices whose columns' norms are well apart (a random matrix, column j scaled by
//    1.6^-rank(j) in a random order): JPVT equal to the reference's;
//  * || A P - Q R || / (|| A || max(m, n) eps) small (Q applied to R by ?ormqr_), |R(i,i)|
//    non-increasing, tau within tolerance of the reference's where the pivots agree;
//  * fixed columns (some JPVT(j) != 0 on entry): the fixed ones in front, in the reference's
//    order, and the rest as above;
//  * the padding rows unchanged, INFO 0.
// gelsy: X within tolerance of the reference's and RANK equal, for a full-rank matrix and a
// clearly rank-deficient one (a product through an inner dimension r, rcond 1e-5 (float 1e-3));
// illegal arguments each in turn: INFO and the program's xerbla_ as the reference orders its
// checks.
//
// Options: --max-n N (default 300), --big (also 1007 x 1007 and 3000 x 300), --prec sd
//   (complex precisions are skipped), --seed N, --special, placement flags, -v.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/complex_check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"
#include "tests/harness/xerbla_capture.h"

namespace {

harness::FactorOptions opt;
bool special = false;
long calls = 0;

template <class T>
using geqp3_fn = void (*)(const int *, const int *, T *, const int *, int *, T *, T *, const int *, int *);
template <class T>
using gelsy_fn = void (*)(const int *, const int *, const int *, T *, const int *, T *, const int *, int *, const T *,
                          int *, T *, const int *, int *);
template <class T>
using ormqr_fn = void (*)(const char *, const char *, const int *, const int *, const int *, const T *, const int *,
                          const T *, T *, const int *, T *, const int *, int *, size_t, size_t);

template <class T>
struct Routines {
  geqp3_fn<T> geqp3;
  gelsy_fn<T> gelsy;
  ormqr_fn<T> ormqr;
};

template <class T>
Routines<T> cudrop_routines() {
  if constexpr (std::is_same_v<T, float>)
    return {&sgeqp3_, &sgelsy_, reinterpret_cast<ormqr_fn<T>>(&sormqr_)};
  else
    return {&dgeqp3_, &dgelsy_, reinterpret_cast<ormqr_fn<T>>(&dormqr_)};
}

template <class T>
Routines<T> reference_routines(const harness::ReferenceLapack &ref) {
  const bool s = std::is_same_v<T, float>;
  return {ref.symbol<geqp3_fn<T>>(s ? "sgeqp3_" : "dgeqp3_"), ref.symbol<gelsy_fn<T>>(s ? "sgelsy_" : "dgelsy_"),
          ref.symbol<ormqr_fn<T>>(s ? "sormqr_" : "dormqr_")};
}

template <class T>
struct Matrix {
  int rows, cols, ld;
  std::vector<T> storage;
  T *data;
  Matrix(int r, int c, int l) : rows(r), cols(c), ld(l), storage(size_t(l) * std::max(c, 1) + 2) {
    data = storage.data() + 1;
    for (auto &v : storage) v = std::numeric_limits<T>::quiet_NaN();
    for (int j = 0; j < c; ++j)
      for (int i = 0; i < r; ++i) at(i, j) = T(0);
  }
  Matrix(const Matrix &o) : rows(o.rows), cols(o.cols), ld(o.ld), storage(o.storage) { data = storage.data() + 1; }
  Matrix &operator=(const Matrix &o) {
    rows = o.rows, cols = o.cols, ld = o.ld, storage = o.storage;
    data = storage.data() + 1;
    return *this;
  }
  T &at(int i, int j) { return data[size_t(i) + size_t(j) * ld]; }
  const T &at(int i, int j) const { return data[size_t(i) + size_t(j) * ld]; }
};

template <class T>
bool padding_intact(const Matrix<T> &a) {
  for (int j = 0; j < a.cols; ++j)
    for (int i = a.rows; i < a.ld; ++i)
      if (!std::isnan(a.at(i, j))) return false;
  return true;
}

template <class T>
double max_abs(const Matrix<T> &a, int rows, int cols) {
  double m = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m = std::max(m, double(std::abs(a.at(i, j))));
  return m;
}

// A random m x n matrix with column j scaled by 1.6^-order[j] (order a random permutation).
template <class T>
Matrix<T> separated(Rng &rng, int m, int n, int lda) {
  Matrix<T> a(m, n, lda);
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (int j = n - 1; j > 0; --j) std::swap(order[size_t(j)], order[size_t(rng.below(uint64_t(j) + 1))]);
  for (int j = 0; j < n; ++j) {
    const double scale = std::pow(1.6, -double(order[size_t(j)] % 60));
    for (int i = 0; i < m; ++i) a.at(i, j) = T(rng.symmetric() * scale);
  }
  return a;
}

template <class T>
void geqp3_case(const Routines<T> &mine, const Routines<T> &ref, int m, int n, bool fixed, Rng &rng) {
  const int lda = m + int(rng.below(4)), mn = std::min(m, n);
  const Matrix<T> a0 = separated<T>(rng, m, n, lda);
  Matrix<T> a = a0, a_ref = a0;
  std::vector<int> jpvt(size_t(n), 0), jpvt_ref;
  if (fixed)
    for (int j = 0; j < n; j += 3) jpvt[size_t(j)] = 1;
  jpvt_ref = jpvt;
  std::vector<T> tau(size_t(std::max(mn, 1))), tau_ref(tau.size());
  int info = -1, info_ref = -1, lw = -1;
  T size = 0;
  mine.geqp3(&m, &n, a.data, &lda, jpvt.data(), tau.data(), &size, &lw, &info);
  CHECK(info == 0 && int(size) >= 3 * n + 1, "geqp3 query %dx%d: info %d, work %g", m, n, info, double(size));
  lw = std::max(1, int(size));
  std::vector<T> work(static_cast<size_t>(lw));
  mine.geqp3(&m, &n, a.data, &lda, jpvt.data(), tau.data(), work.data(), &lw, &info);
  ref.geqp3(&m, &n, a_ref.data, &lda, jpvt_ref.data(), tau_ref.data(), work.data(), &lw, &info_ref);
  ++calls;
  char where[96];
  std::snprintf(where, sizeof where, "%s geqp3 %dx%d lda %d%s", std::is_same_v<T, float> ? "s" : "d", m, n, lda,
                fixed ? " fixed" : "");
  CHECK(info == 0 && info_ref == 0, "%s: info %d (reference %d)", where, info, info_ref);
  CHECK(padding_intact(a), "%s: padding rows changed", where);
  CHECK(jpvt == jpvt_ref, "%s: JPVT differs from the reference's", where);
  // |R(i,i)| non-increasing over the free columns (the fixed ones are not pivoted).
  int nfxd = 0;
  if (fixed) nfxd = (n + 2) / 3;
  bool decreasing = true;
  for (int i = std::min(nfxd, mn) + 1; i < mn; ++i)
    decreasing = decreasing && std::abs(a.at(i, i)) <= std::abs(a.at(i - 1, i - 1)) * (1 + 1e-3);
  CHECK(decreasing, "%s: |R(i,i)| increases", where);
  // A P - Q R: R (upper trapezoid, m x n), Q R by ?ormqr_.
  Matrix<T> qr(m, n, m);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= std::min(j, m - 1); ++i) qr.at(i, j) = a.at(i, j);
  int one = 1, ldq = m, lwq = -1, infoq = 0;
  T wsize = 0;
  mine.ormqr("L", "N", &m, &n, &mn, a.data, &lda, tau.data(), qr.data, &ldq, &wsize, &lwq, &infoq, 1, 1);
  lwq = std::max({1, n, int(wsize)});
  std::vector<T> wq(static_cast<size_t>(lwq));
  mine.ormqr("L", "N", &m, &n, &mn, a.data, &lda, tau.data(), qr.data, &ldq, wq.data(), &lwq, &infoq, 1, 1);
  (void)one;
  double diff = 0;
  bool perm_ok = true;
  for (int j = 0; j < n; ++j) {
    const int c = jpvt[size_t(j)] - 1;
    if (c < 0 || c >= n) {
      perm_ok = false;
      break;
    }
    for (int i = 0; i < m; ++i) diff = std::max(diff, double(std::abs(qr.at(i, j) - a0.at(i, c))));
  }
  const double eps = std::numeric_limits<T>::epsilon();
  const double residual = diff / (std::max(max_abs(a0, m, n), 1e-300) * std::max(m, n) * eps);
  CHECK(perm_ok && residual <= 10, "%s: ||A P - Q R|| / (||A|| max(m,n) eps) = %.3g", where, residual);
  if (jpvt == jpvt_ref) {
    double dt = 0;
    for (int i = 0; i < mn; ++i) dt = std::max(dt, double(std::abs(tau[size_t(i)] - tau_ref[size_t(i)])));
    CHECK(dt <= 100 * std::max(m, n) * eps, "%s: tau differs from the reference's by %.3g", where, dt);
  }
}

template <class T>
void gelsy_case(const Routines<T> &mine, const Routines<T> &ref, int m, int n, int r, Rng &rng) {
  const int lda = m + int(rng.below(3)), nrhs = 3, ldb = std::max(m, n) + 1;
  Matrix<T> a0(m, n, lda);
  if (r >= std::min(m, n)) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) a0.at(i, j) = T(rng.symmetric());
  } else {
    std::vector<T> left(size_t(m) * r), right(size_t(r) * n);
    for (auto &v : left) v = T(rng.symmetric());
    for (auto &v : right) v = T(rng.symmetric());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        T s = 0;
        for (int l = 0; l < r; ++l) s += left[size_t(i) + size_t(l) * m] * right[size_t(l) + size_t(j) * r];
        a0.at(i, j) = s;
      }
  }
  Matrix<T> b0(std::max(m, n), nrhs, ldb);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < m; ++i) b0.at(i, j) = T(rng.symmetric());
  Matrix<T> a = a0, a_ref = a0, b = b0, b_ref = b0;
  std::vector<int> jpvt(size_t(n), 0), jpvt_ref(size_t(n), 0);
  const T rcond = std::is_same_v<T, float> ? T(1e-3) : T(1e-5);
  int rank = -1, rank_ref = -2, info = -1, info_ref = -1, lw = -1;
  T size = 0;
  mine.gelsy(&m, &n, &nrhs, a.data, &lda, b.data, &ldb, jpvt.data(), &rcond, &rank, &size, &lw, &info);
  const int mn = std::min(m, n);
  CHECK(info == 0 && int(size) >= mn + std::max({2 * mn, n + 1, mn + nrhs}), "gelsy query %dx%d: info %d", m, n, info);
  lw = std::max(1, int(size));
  std::vector<T> work(static_cast<size_t>(lw));
  mine.gelsy(&m, &n, &nrhs, a.data, &lda, b.data, &ldb, jpvt.data(), &rcond, &rank, work.data(), &lw, &info);
  ref.gelsy(&m, &n, &nrhs, a_ref.data, &lda, b_ref.data, &ldb, jpvt_ref.data(), &rcond, &rank_ref, work.data(), &lw,
            &info_ref);
  ++calls;
  char where[96];
  std::snprintf(where, sizeof where, "%s gelsy %dx%d rank %d", std::is_same_v<T, float> ? "s" : "d", m, n, r);
  CHECK(info == 0 && info_ref == 0, "%s: info %d (reference %d)", where, info, info_ref);
  CHECK(rank == rank_ref && rank == std::min(r, mn), "%s: RANK %d (reference %d)", where, rank, rank_ref);
  CHECK(padding_intact(a), "%s: padding rows changed", where);
  double dx = 0;
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) dx = std::max(dx, double(std::abs(b.at(i, j) - b_ref.at(i, j))));
  const double scale = std::max(max_abs(b_ref, n, nrhs), 1.0);
  const double eps = std::numeric_limits<T>::epsilon();
  CHECK(dx <= 1e4 * std::max(m, n) * eps * scale, "%s: |X - X_ref| %.3g", where, dx);
}

// Each illegal parameter in turn: INFO = -i and one xerbla_ call naming the routine.
template <class T>
void illegal_arguments(const Routines<T> &mine) {
  const bool s = std::is_same_v<T, float>;
  std::vector<T> a(64, T(1)), b(64, T(1)), w(64), tau(8);
  std::vector<int> jpvt(8, 0);
  struct Case {
    int m, n, nrhs, lda, ldb, lwork, param;
  };
  const Case geqp3_cases[] = {{-1, 2, 0, 2, 0, 20, 1}, {2, -1, 0, 2, 0, 20, 2}, {3, 2, 0, 2, 0, 20, 4},
                              {3, 2, 0, 3, 0, 6, 8}};
  for (const Case &c : geqp3_cases) {
    harness::xerbla.clear();
    int info = 0;
    mine.geqp3(&c.m, &c.n, a.data(), &c.lda, jpvt.data(), tau.data(), w.data(), &c.lwork, &info);
    const std::string name = s ? "SGEQP3" : "DGEQP3";
    CHECK(info == -c.param && harness::xerbla.calls == 1 && harness::xerbla.info == c.param &&
              name == harness::xerbla.name,
          "%s illegal parameter %d: info %d, xerbla %d call(s) '%s' %d", name.c_str(), c.param, info,
          harness::xerbla.calls, harness::xerbla.name, harness::xerbla.info);
  }
  const T rcond = T(1e-5);
  int rank = 0;
  const Case gelsy_cases[] = {{-1, 2, 1, 2, 2, 20, 1}, {2, -1, 1, 2, 2, 20, 2}, {2, 2, -1, 2, 2, 20, 3},
                              {3, 2, 1, 2, 3, 20, 5},  {2, 3, 1, 2, 2, 20, 7},  {3, 3, 1, 3, 3, 6, 12}};
  for (const Case &c : gelsy_cases) {
    harness::xerbla.clear();
    int info = 0;
    mine.gelsy(&c.m, &c.n, &c.nrhs, a.data(), &c.lda, b.data(), &c.ldb, jpvt.data(), &rcond, &rank, w.data(),
               &c.lwork, &info);
    const std::string name = s ? "SGELSY" : "DGELSY";
    CHECK(info == -c.param && harness::xerbla.calls == 1 && harness::xerbla.info == c.param &&
              name == harness::xerbla.name,
          "%s illegal parameter %d: info %d, xerbla %d call(s) '%s' %d", name.c_str(), c.param, info,
          harness::xerbla.calls, harness::xerbla.name, harness::xerbla.info);
  }
}

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return;  // ?geqp3_ and ?gelsy_ are exported for s and d only
  } else {
    const Routines<T> mine = cudrop_routines<T>(), ref = reference_routines<T>(lib);
    if (!ref.geqp3 || !ref.gelsy || !ref.ormqr) {
      CHECK(false, "the reference lacks ?geqp3_, ?gelsy_ or ?ormqr_");
      return;
    }
    Rng rng(opt.seed + sizeof(T) * 11);
    std::vector<std::pair<int, int>> shapes = {{1, 1}, {7, 1}, {1, 7}, {7, 7}, {33, 17}, {17, 33},
                                               {33, 33}, {100, 100}, {130, 129}, {200, 70}, {70, 200}, {300, 300}};
    if (opt.big) {
      shapes.push_back({1007, 1007});
      shapes.push_back({3000, 300});
    }
    for (auto [m, n] : shapes) {
      if (std::max(m, n) > opt.max && !(opt.big && std::max(m, n) > 1000)) continue;
      geqp3_case<T>(mine, ref, m, n, false, rng);
      if (std::max(m, n) <= 300) geqp3_case<T>(mine, ref, m, n, true, rng);
      gelsy_case<T>(mine, ref, m, n, std::min(m, n), rng);
      if (std::min(m, n) >= 7) gelsy_case<T>(mine, ref, m, n, std::min(m, n) / 2, rng);
    }
    illegal_arguments<T>(mine);
  }
}

}  // namespace

int main(int argc, char **argv) {
  return harness::lapack_test_main(argc, argv, "geqp3_test", opt, &special, {"dgeqp3_", "sgelsy_", "dormqr_"},
                                   &calls, [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
