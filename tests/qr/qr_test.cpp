// qr_test: ?geqrf_, ?ormqr_/?unmqr_, ?orgqr_/?ungqr_ and ?gels_ through the public symbols,
// in all four precisions, against the reference LAPACK (tests/harness/reference.h) given the
// same inputs.
//
// Every call (m x n, lda > m by 0..3 rows, the array one element off a 16-byte boundary):
//  * the padding rows (NaN-filled) are unchanged, bit for bit, and INFO is the reference's;
//  * geqrf: A (R and the reflectors) and tau within tol of the reference's, tol = 60 max(m,n)
//    eps relative to the largest entry of each (the reflector conventions are xLARFG's, so the
//    factors agree up to rounding);
//  * orgqr: Q from cudrop's factors within tol of the reference's from the same factors, and
//    max |Q^H Q - I| <= tol;
//  * ormqr: op(Q) C and C op(Q), every side and TRANS, within tol of the reference's;
//  * gels (m >= n: QR, m < n: LQ, lq_test's too): A and B out within 10 tol of the reference's;
//  * LWORK = -1 returns INFO = 0 and a WORK(1) at least the minimum.
// Matrices: random in [-1,1); a zero column (tau = 0 there); with --special also a matrix
// scaled near underflow (1e-300; float 1e-40), which the GPU path leaves to the CPU routine.
//
// Options: --max-n N (default 300), --big (also 1031 x 1031 and 2053 x 1024),
//   --prec sdcz, --seed N, --special, placement (--require-gpu, --expect-gpu, --expect-cpu), -v.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/clock.h"
#include "tests/harness/complex_check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

harness::FactorOptions opt;
bool special = false;
long calls = 0;

template <class T> struct Real { using type = T; };
template <class R> struct Real<std::complex<R>> { using type = R; };
template <class T> using real_of = typename Real<T>::type;
template <class T> constexpr bool is_complex = !std::is_same_v<T, real_of<T>>;

template <class T>
using geqrf_fn = void (*)(const int *, const int *, T *, const int *, T *, T *, const int *, int *);
template <class T>
using ormqr_fn = void (*)(const char *, const char *, const int *, const int *, const int *, const T *, const int *,
                          const T *, T *, const int *, T *, const int *, int *, size_t, size_t);
template <class T>
using orgqr_fn = void (*)(const int *, const int *, const int *, T *, const int *, const T *, T *, const int *, int *);
template <class T>
using gels_fn = void (*)(const char *, const int *, const int *, const int *, T *, const int *, T *, const int *, T *,
                         const int *, int *, size_t);

template <class T>
struct Routines {
  geqrf_fn<T> geqrf;
  ormqr_fn<T> ormqr;
  orgqr_fn<T> orgqr;
  gels_fn<T> gels;
};

template <class T>
void names(const char **geqrf, const char **ormqr, const char **orgqr, const char **gels) {
  if constexpr (std::is_same_v<T, float>) *geqrf = "sgeqrf_", *ormqr = "sormqr_", *orgqr = "sorgqr_", *gels = "sgels_";
  else if constexpr (std::is_same_v<T, double>)
    *geqrf = "dgeqrf_", *ormqr = "dormqr_", *orgqr = "dorgqr_", *gels = "dgels_";
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    *geqrf = "cgeqrf_", *ormqr = "cunmqr_", *orgqr = "cungqr_", *gels = "cgels_";
  else *geqrf = "zgeqrf_", *ormqr = "zunmqr_", *orgqr = "zungqr_", *gels = "zgels_";
}

template <class T>
Routines<T> cudrop_routines() {
  if constexpr (std::is_same_v<T, float>)
    return {reinterpret_cast<geqrf_fn<T>>(&sgeqrf_), reinterpret_cast<ormqr_fn<T>>(&sormqr_),
            reinterpret_cast<orgqr_fn<T>>(&sorgqr_), reinterpret_cast<gels_fn<T>>(&sgels_)};
  else if constexpr (std::is_same_v<T, double>)
    return {reinterpret_cast<geqrf_fn<T>>(&dgeqrf_), reinterpret_cast<ormqr_fn<T>>(&dormqr_),
            reinterpret_cast<orgqr_fn<T>>(&dorgqr_), reinterpret_cast<gels_fn<T>>(&dgels_)};
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return {reinterpret_cast<geqrf_fn<T>>(&cgeqrf_), reinterpret_cast<ormqr_fn<T>>(&cunmqr_),
            reinterpret_cast<orgqr_fn<T>>(&cungqr_), reinterpret_cast<gels_fn<T>>(&cgels_)};
  else
    return {reinterpret_cast<geqrf_fn<T>>(&zgeqrf_), reinterpret_cast<ormqr_fn<T>>(&zunmqr_),
            reinterpret_cast<orgqr_fn<T>>(&zungqr_), reinterpret_cast<gels_fn<T>>(&zgels_)};
}

template <class T>
Routines<T> reference_routines(const harness::ReferenceLapack &ref) {
  const char *g, *m, *o, *l;
  names<T>(&g, &m, &o, &l);
  return {ref.symbol<geqrf_fn<T>>(g), ref.symbol<ormqr_fn<T>>(m), ref.symbol<orgqr_fn<T>>(o),
          ref.symbol<gels_fn<T>>(l)};
}

template <class T>
T random_value(Rng &rng) {
  if constexpr (is_complex<T>) return T(real_of<T>(rng.symmetric()), real_of<T>(rng.symmetric()));
  else return T(rng.symmetric());
}

// A matrix of rows x cols at a leading dimension ld, one element past a 16-byte boundary,
// padding rows NaN.
template <class T>
struct Matrix {
  int rows, cols, ld;
  std::vector<T> storage;
  T *data;
  Matrix(int r, int c, int l) : rows(r), cols(c), ld(l), storage(size_t(l) * std::max(c, 1) + 2) {
    data = storage.data() + 1;
    const real_of<T> nan = std::numeric_limits<real_of<T>>::quiet_NaN();
    for (auto &v : storage) v = T(nan);
  }
  Matrix(const Matrix &o) : rows(o.rows), cols(o.cols), ld(o.ld), storage(o.storage), data(storage.data() + 1) {}
  Matrix &operator=(const Matrix &) = delete;
  T &at(int i, int j) { return data[i + size_t(j) * ld]; }
  T at(int i, int j) const { return data[i + size_t(j) * ld]; }
};

template <class T>
bool padding_intact(const Matrix<T> &a, const Matrix<T> &before) {
  for (int j = 0; j < a.cols; ++j)
    for (int i = a.rows; i < a.ld; ++i)
      if (std::memcmp(&a.data[i + size_t(j) * a.ld], &before.data[i + size_t(j) * a.ld], sizeof(T)) != 0) return false;
  return true;
}

// max |x - y| over rows x cols, relative to the largest |y| (1 when that is below 1e-30).
template <class T>
double difference(const Matrix<T> &x, const Matrix<T> &y, int rows, int cols) {
  double d = 0, scale = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      d = std::max(d, double(std::abs(x.at(i, j) - y.at(i, j))));
      scale = std::max(scale, double(std::abs(y.at(i, j))));
      if (std::isnan(double(std::abs(x.at(i, j))))) return INFINITY;
    }
  return d / std::max(scale, 1e-300);
}

template <class T>
int query(geqrf_fn<T> f, int m, int n, T *a, int lda, T *tau) {
  T size;
  int lwork = -1, info = 0;
  f(&m, &n, a, &lda, tau, &size, &lwork, &info);
  CHECK(info == 0 && double(std::real(size)) >= std::max(1, n), "geqrf query: info %d work %g", info,
        double(std::real(size)));
  return std::max(1, int(std::real(size)));
}

enum Kind { random_kind, zero_column, tiny_scale };
const char *kind_name[] = {"random", "zero-column", "tiny"};

template <class T>
void run_case(const Routines<T> &mine, const Routines<T> &ref, int m, int n, Kind kind, Rng &rng) {
  using R = real_of<T>;
  const double eps = std::numeric_limits<R>::epsilon();
  const double tol = 60.0 * std::max({m, n, 1}) * eps;
  const int mn = std::min(m, n), lda = m + int(rng.below(4));
  Matrix<T> a0(m, n, lda);
  const double scale = kind == tiny_scale ? (std::is_same_v<R, float> ? 1e-40 : 1e-300) : 1.0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) a0.at(i, j) = random_value<T>(rng) * R(scale);
  if (kind == zero_column && n > 1)
    for (int i = 0; i < m; ++i) a0.at(i, n / 2) = T(0);
  char where[160];
  std::snprintf(where, sizeof where, "%s m=%d n=%d lda=%d %s", is_complex<T> ? (sizeof(R) == 4 ? "c" : "z")
                : (sizeof(R) == 4 ? "s" : "d"), m, n, lda, kind_name[kind]);
  if (opt.verbose) std::printf("%s\n", where);

  // geqrf.
  Matrix<T> a = a0, a_ref = a0;
  std::vector<T> tau(size_t(std::max(mn, 1)) + 1), tau_ref(tau.size());
  const int lwork = query<T>(mine.geqrf, m, n, a.data, lda, tau.data());
  std::vector<T> work(static_cast<size_t>(lwork)), work_ref(size_t(query<T>(ref.geqrf, m, n, a_ref.data, lda, tau_ref.data())));
  int info = -99, info_ref = -99, lwork_ref = int(work_ref.size());
  mine.geqrf(&m, &n, a.data, &lda, tau.data(), work.data(), &lwork, &info);
  ref.geqrf(&m, &n, a_ref.data, &lda, tau_ref.data(), work_ref.data(), &lwork_ref, &info_ref);
  ++calls;
  CHECK(info == 0 && info_ref == 0, "%s geqrf: info %d (reference %d)", where, info, info_ref);
  CHECK(padding_intact(a, a0), "%s geqrf: padding rows changed", where);
  const double d_a = difference(a, a_ref, m, n);
  double d_tau = 0;
  for (int i = 0; i < mn; ++i) d_tau = std::max(d_tau, double(std::abs(tau[i] - tau_ref[i])));
  CHECK(d_a <= tol && d_tau <= tol, "%s geqrf: |A - A_ref| %.3g, |tau - tau_ref| %.3g (tol %.3g)", where, d_a, d_tau,
        tol);
  if (kind == tiny_scale) return;

  // orgqr: Q (m x mn) from cudrop's factors, by both.
  {
    const int qn = mn, k = mn;
    Matrix<T> q(m, std::max(qn, 1), lda), q_ref(m, std::max(qn, 1), lda);
    for (int j = 0; j < qn; ++j)
      for (int i = 0; i < m; ++i) q.at(i, j) = q_ref.at(i, j) = a.at(i, j);
    const Matrix<T> q0 = q;
    int lw = std::max(1, qn) * 64;
    std::vector<T> w(static_cast<size_t>(lw));
    mine.orgqr(&m, &qn, &k, q.data, &lda, tau.data(), w.data(), &lw, &info);
    ref.orgqr(&m, &qn, &k, q_ref.data, &lda, tau.data(), w.data(), &lw, &info_ref);
    ++calls;
    CHECK(info == 0 && info_ref == 0, "%s orgqr: info %d (reference %d)", where, info, info_ref);
    CHECK(padding_intact(q, q0), "%s orgqr: padding rows changed", where);
    const double d_q = difference(q, q_ref, m, qn);
    // Q^H Q on the first columns only past ~1e8 products (long double).
    const int oc = double(m) * qn * qn <= 1e8 ? qn : std::min(qn, 32);
    double orth = 0;
    for (int j = 0; j < oc; ++j)
      for (int i = 0; i < oc; ++i) {
        std::complex<long double> s = 0;
        for (int r = 0; r < m; ++r)
          s += std::conj(std::complex<long double>(q.at(r, i))) * std::complex<long double>(q.at(r, j));
        orth = std::max(orth, double(std::abs(s - std::complex<long double>(i == j ? 1 : 0))));
      }
    CHECK(d_q <= tol && orth <= tol, "%s orgqr: |Q - Q_ref| %.3g, |Q^H Q - I| %.3g (tol %.3g)", where, d_q, orth, tol);
  }

  // ormqr: k = mn reflectors of cudrop's factors, C with 5 columns (rows) beside Q.
  const int k = mn;
  for (char side : {'L', 'R'})
    for (char trans : {'N', is_complex<T> ? 'C' : 'T'}) {
      const int cm = side == 'L' ? m : 5, cn = side == 'L' ? 5 : m, ldc = cm + 1;
      Matrix<T> c(cm, cn, ldc);
      for (int j = 0; j < cn; ++j)
        for (int i = 0; i < cm; ++i) c.at(i, j) = random_value<T>(rng);
      const Matrix<T> c0 = c;
      Matrix<T> c_ref = c;
      int lw = 64 * std::max(cm, cn);
      std::vector<T> w(static_cast<size_t>(lw));
      mine.ormqr(&side, &trans, &cm, &cn, &k, a.data, &lda, tau.data(), c.data, &ldc, w.data(), &lw, &info, 1, 1);
      ref.ormqr(&side, &trans, &cm, &cn, &k, a.data, &lda, tau.data(), c_ref.data, &ldc, w.data(), &lw, &info_ref, 1,
                1);
      ++calls;
      CHECK(info == 0 && info_ref == 0, "%s ormqr %c%c: info %d (reference %d)", where, side, trans, info, info_ref);
      CHECK(padding_intact(c, c0), "%s ormqr %c%c: padding rows changed", where, side, trans);
      const double d_c = difference(c, c_ref, cm, cn);
      CHECK(d_c <= tol, "%s ormqr %c%c: |C - C_ref| %.3g (tol %.3g)", where, side, trans, d_c, tol);
    }

  // gels, both TRANS, 3 right-hand sides.
  for (char trans : {'N', is_complex<T> ? 'C' : 'T'}) {
    if (kind == zero_column) break;  // rank deficient: INFO > 0 (CPU), compared elsewhere
    const int nrhs = 3, ldb = std::max(m, n) + 2, brows = trans == 'N' ? m : n;
    Matrix<T> g = a0, g_ref = a0, b(std::max(m, n), nrhs, ldb);
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < brows; ++i) b.at(i, j) = random_value<T>(rng);
    Matrix<T> b_ref = b;
    const Matrix<T> b0 = b;
    int lw = -1, rows = std::max(m, n);
    T size;
    mine.gels(&trans, &m, &n, &nrhs, g.data, &lda, b.data, &ldb, &size, &lw, &info, 1);
    CHECK(info == 0 && std::real(size) >= std::max(1, mn + std::max(mn, nrhs)), "%s gels query: info %d", where, info);
    lw = std::max(1, int(std::real(size)));
    std::vector<T> w(static_cast<size_t>(lw));
    mine.gels(&trans, &m, &n, &nrhs, g.data, &lda, b.data, &ldb, w.data(), &lw, &info, 1);
    ref.gels(&trans, &m, &n, &nrhs, g_ref.data, &lda, b_ref.data, &ldb, w.data(), &lw, &info_ref, 1);
    ++calls;
    CHECK(info == info_ref, "%s gels %c: info %d (reference %d)", where, trans, info, info_ref);
    CHECK(padding_intact(g, a0) && padding_intact(b, b0), "%s gels %c: padding rows changed", where, trans);
    const double d_g = difference(g, g_ref, m, n), d_b = difference(b, b_ref, rows, nrhs);
    CHECK(d_g <= tol && d_b <= 10 * tol, "%s gels %c: |A - A_ref| %.3g, |B - B_ref| %.3g (tol %.3g)", where, trans,
          d_g, d_b, tol);
  }
}

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  const Routines<T> mine = cudrop_routines<T>(), ref = reference_routines<T>(lib);
  if (!ref.geqrf || !ref.ormqr || !ref.orgqr || !ref.gels) {
    CHECK(false, "the reference lacks a QR routine");
    return;
  }
  Rng rng(opt.seed + sizeof(T) * 7);
  std::vector<std::pair<int, int>> shapes = {{1, 1}, {7, 1}, {1, 7}, {7, 7}, {33, 17}, {17, 33}, {64, 64},
                                             {65, 64}, {130, 129}, {200, 70}, {70, 200}, {300, 300}, {513, 100}};
  if (opt.big) {
    shapes.push_back({1031, 1031});
    shapes.push_back({2053, 1024});
  }
  for (auto [m, n] : shapes) {
    if (std::max(m, n) > opt.max && !(opt.big && std::max(m, n) > 1000)) continue;
    run_case<T>(mine, ref, m, n, random_kind, rng);
    if (std::max(m, n) <= 300) run_case<T>(mine, ref, m, n, zero_column, rng);
    if (special && std::max(m, n) <= 300) run_case<T>(mine, ref, m, n, tiny_scale, rng);
  }
}

}  // namespace

int main(int argc, char **argv) {
  return harness::lapack_test_main(argc, argv, "qr_test", opt, &special,
                                   {"dgeqrf_", "zunmqr_", "sorgqr_", "cgels_"}, &calls,
                                   [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
