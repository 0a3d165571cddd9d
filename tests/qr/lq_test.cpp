// lq_test: ?gelqf_, ?ormlq_/?unmlq_, ?orglq_/?unglq_ and ?gels_ with M < N through the public
// symbols, in all four precisions, against the reference LAPACK (tests/harness/reference.h)
// given the same inputs.
//
// Every call (m x n, lda > m by 0..3 rows, the array one element off a 16-byte boundary):
//  * the padding rows (NaN-filled) are unchanged, bit for bit, and INFO is the reference's;
//  * gelqf: A (L and the rows' reflectors) and tau within tol of the reference's, tol = 60
//    max(m,n) eps relative to the largest entry of each (the reflectors are xLARFG's of the
//    conjugated rows, so the factors agree up to rounding);
//  * orglq: Q from cudrop's factors within tol of the reference's from the same factors (its
//    first min(m,n) rows, and all n rows of the square Q), and max |Q Q^H - I| <= tol;
//  * ormlq: op(Q) C and C op(Q), every SIDE and TRANS letter (upper and lower case), within tol
//    of the reference's;
//  * gels with M < N (and M >= N, which qr_test covers too), both TRANS: A (the LQ factor) and B
//    (the solution and the rows below it, all max(m,n) rows) within 10 tol of the reference's;
//  * LWORK = -1 returns INFO = 0 and a WORK(1) at least the minimum;
//  * each illegal argument in turn: INFO = -i and one call of the program's xerbla_ naming the
//    routine.
// Matrices: random in [-1,1); a zero row (tau = 0 there); with --special also a matrix scaled
// near underflow (1e-300; float 1e-40), which the GPU path leaves to the CPU routine.
//
// Options: --max-n N (default 300), --big (also 1031 x 1031 and 1024 x 2053),
//   --prec sdcz, --seed N, --special, placement (--require-gpu, --expect-gpu, --expect-cpu), -v.
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
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

template <class T> struct Real { using type = T; };
template <class R> struct Real<std::complex<R>> { using type = R; };
template <class T> using real_of = typename Real<T>::type;
template <class T> constexpr bool is_complex = !std::is_same_v<T, real_of<T>>;

template <class T>
using gelqf_fn = void (*)(const int *, const int *, T *, const int *, T *, T *, const int *, int *);
template <class T>
using ormlq_fn = void (*)(const char *, const char *, const int *, const int *, const int *, const T *, const int *,
                          const T *, T *, const int *, T *, const int *, int *, size_t, size_t);
template <class T>
using orglq_fn = void (*)(const int *, const int *, const int *, T *, const int *, const T *, T *, const int *, int *);
template <class T>
using gels_fn = void (*)(const char *, const int *, const int *, const int *, T *, const int *, T *, const int *, T *,
                         const int *, int *, size_t);

template <class T>
struct Routines {
  gelqf_fn<T> gelqf;
  ormlq_fn<T> ormlq;
  orglq_fn<T> orglq;
  gels_fn<T> gels;
};

// The routines' names, lower case with the underscore (the reference's symbols).
template <class T>
struct Names {
  const char *gelqf, *ormlq, *orglq, *gels;
};
template <class T>
Names<T> names() {
  if constexpr (std::is_same_v<T, float>) return {"sgelqf_", "sormlq_", "sorglq_", "sgels_"};
  else if constexpr (std::is_same_v<T, double>) return {"dgelqf_", "dormlq_", "dorglq_", "dgels_"};
  else if constexpr (std::is_same_v<T, std::complex<float>>) return {"cgelqf_", "cunmlq_", "cunglq_", "cgels_"};
  else return {"zgelqf_", "zunmlq_", "zunglq_", "zgels_"};
}

template <class T>
Routines<T> cudrop_routines() {
  if constexpr (std::is_same_v<T, float>)
    return {&sgelqf_, &sormlq_, &sorglq_, &sgels_};
  else if constexpr (std::is_same_v<T, double>)
    return {&dgelqf_, &dormlq_, &dorglq_, &dgels_};
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return {reinterpret_cast<gelqf_fn<T>>(&cgelqf_), reinterpret_cast<ormlq_fn<T>>(&cunmlq_),
            reinterpret_cast<orglq_fn<T>>(&cunglq_), reinterpret_cast<gels_fn<T>>(&cgels_)};
  else
    return {reinterpret_cast<gelqf_fn<T>>(&zgelqf_), reinterpret_cast<ormlq_fn<T>>(&zunmlq_),
            reinterpret_cast<orglq_fn<T>>(&zunglq_), reinterpret_cast<gels_fn<T>>(&zgels_)};
}

template <class T>
Routines<T> reference_routines(const harness::ReferenceLapack &ref) {
  const Names<T> n = names<T>();
  return {ref.symbol<gelqf_fn<T>>(n.gelqf), ref.symbol<ormlq_fn<T>>(n.ormlq), ref.symbol<orglq_fn<T>>(n.orglq),
          ref.symbol<gels_fn<T>>(n.gels)};
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
      if (std::isnan(double(std::abs(x.at(i, j))))) return INFINITY;
      d = std::max(d, double(std::abs(x.at(i, j) - y.at(i, j))));
      scale = std::max(scale, double(std::abs(y.at(i, j))));
    }
  return d / std::max(scale, 1e-300);
}

template <class T>
int query(gelqf_fn<T> f, int m, int n, T *a, int lda, T *tau) {
  T size;
  int lwork = -1, info = 0;
  f(&m, &n, a, &lda, tau, &size, &lwork, &info);
  CHECK(info == 0 && double(std::real(size)) >= std::max(1, m), "gelqf query: info %d work %g", info,
        double(std::real(size)));
  return std::max(1, int(std::real(size)));
}

enum Kind { random_kind, zero_row, tiny_scale };
const char *kind_name[] = {"random", "zero-row", "tiny"};

template <class T>
const char *precision_name() {
  using R = real_of<T>;
  return is_complex<T> ? (sizeof(R) == 4 ? "c" : "z") : (sizeof(R) == 4 ? "s" : "d");
}

// orglq: rows qm of Q (n x n) from k of cudrop's reflectors (rows of a), by both.
template <class T>
void orglq_case(const Routines<T> &mine, const Routines<T> &ref, const Matrix<T> &a, const std::vector<T> &tau, int qm,
                int k, const char *where, double tol) {
  const int n = a.cols, ldq = qm + 2;
  Matrix<T> q(qm, n, ldq), q_ref(qm, n, ldq);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < qm; ++i) q.at(i, j) = q_ref.at(i, j) = i < k ? a.at(i, j) : T(real_of<T>(i + j));
  const Matrix<T> q0 = q;
  int lw = std::max(1, qm) * 64, info = -99, info_ref = -99;
  std::vector<T> w(static_cast<size_t>(lw));
  mine.orglq(&qm, &n, &k, q.data, &ldq, tau.data(), w.data(), &lw, &info);
  ref.orglq(&qm, &n, &k, q_ref.data, &ldq, tau.data(), w.data(), &lw, &info_ref);
  ++calls;
  CHECK(info == 0 && info_ref == 0, "%s orglq %dx%d k=%d: info %d (reference %d)", where, qm, n, k, info, info_ref);
  CHECK(padding_intact(q, q0), "%s orglq %dx%d k=%d: padding rows changed", where, qm, n, k);
  const double d_q = difference(q, q_ref, qm, n);
  // Q Q^H on the first rows only past ~1e8 products (long double).
  const int orows = double(n) * qm * qm <= 1e8 ? qm : std::min(qm, 32);
  double orth = 0;
  for (int i = 0; i < orows; ++i)
    for (int r = 0; r < orows; ++r) {
      std::complex<long double> s = 0;
      for (int j = 0; j < n; ++j)
        s += std::complex<long double>(q.at(i, j)) * std::conj(std::complex<long double>(q.at(r, j)));
      orth = std::max(orth, double(std::abs(s - std::complex<long double>(i == r ? 1 : 0))));
    }
  CHECK(d_q <= tol && orth <= tol, "%s orglq %dx%d k=%d: |Q - Q_ref| %.3g, |Q Q^H - I| %.3g (tol %.3g)", where, qm, n,
        k, d_q, orth, tol);
}

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
  if (kind == zero_row && m > 1)
    for (int j = 0; j < n; ++j) a0.at(m / 2, j) = T(0);
  char where[160];
  std::snprintf(where, sizeof where, "%s m=%d n=%d lda=%d %s", precision_name<T>(), m, n, lda, kind_name[kind]);
  if (opt.verbose) std::printf("%s\n", where);

  // gelqf.
  Matrix<T> a = a0, a_ref = a0;
  std::vector<T> tau(size_t(std::max(mn, 1)) + 1), tau_ref(tau.size());
  const int lwork = query<T>(mine.gelqf, m, n, a.data, lda, tau.data());
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<T> work_ref(size_t(query<T>(ref.gelqf, m, n, a_ref.data, lda, tau_ref.data())));
  int info = -99, info_ref = -99, lwork_ref = int(work_ref.size());
  mine.gelqf(&m, &n, a.data, &lda, tau.data(), work.data(), &lwork, &info);
  ref.gelqf(&m, &n, a_ref.data, &lda, tau_ref.data(), work_ref.data(), &lwork_ref, &info_ref);
  ++calls;
  CHECK(info == 0 && info_ref == 0, "%s gelqf: info %d (reference %d)", where, info, info_ref);
  CHECK(padding_intact(a, a0), "%s gelqf: padding rows changed", where);
  const double d_a = difference(a, a_ref, m, n);
  double d_tau = 0;
  for (int i = 0; i < mn; ++i) d_tau = std::max(d_tau, double(std::abs(tau[i] - tau_ref[i])));
  CHECK(d_a <= tol && d_tau <= tol, "%s gelqf: |A - A_ref| %.3g, |tau - tau_ref| %.3g (tol %.3g)", where, d_a, d_tau,
        tol);
  if (kind == tiny_scale) return;

  // orglq: Q's first mn rows from mn reflectors; the whole n x n Q; half the reflectors.
  orglq_case<T>(mine, ref, a, tau, mn, mn, where, tol);
  if (n <= 300 && n != mn) orglq_case<T>(mine, ref, a, tau, n, mn, where, tol);
  if (mn > 1) orglq_case<T>(mine, ref, a, tau, mn, mn / 2, where, tol);

  // ormlq: k = mn reflectors of cudrop's factors (k x n), C with 5 rows (columns) beside Q.
  const int k = mn;
  const char conj_letter = is_complex<T> ? 'C' : 'T';
  for (char side : {'L', 'R', 'l', 'r'})
    for (char trans : {'N', conj_letter, char(std::tolower('N')), char(std::tolower(conj_letter))}) {
      const bool upper_case = std::isupper(static_cast<unsigned char>(side)) != 0;
      if (upper_case != (std::isupper(static_cast<unsigned char>(trans)) != 0)) continue;  // both cases, fewer calls
      const bool left = side == 'L' || side == 'l';
      const int cm = left ? n : 5, cn = left ? 5 : n, ldc = cm + 1;
      Matrix<T> c(cm, cn, ldc);
      for (int j = 0; j < cn; ++j)
        for (int i = 0; i < cm; ++i) c.at(i, j) = random_value<T>(rng);
      const Matrix<T> c0 = c;
      Matrix<T> c_ref = c;
      int lw = 64 * std::max(cm, cn);
      std::vector<T> w(static_cast<size_t>(lw));
      mine.ormlq(&side, &trans, &cm, &cn, &k, a.data, &lda, tau.data(), c.data, &ldc, w.data(), &lw, &info, 1, 1);
      ref.ormlq(&side, &trans, &cm, &cn, &k, a.data, &lda, tau.data(), c_ref.data, &ldc, w.data(), &lw, &info_ref, 1,
                1);
      ++calls;
      CHECK(info == 0 && info_ref == 0, "%s ormlq %c%c: info %d (reference %d)", where, side, trans, info, info_ref);
      CHECK(padding_intact(c, c0), "%s ormlq %c%c: padding rows changed", where, side, trans);
      const double d_c = difference(c, c_ref, cm, cn);
      CHECK(d_c <= tol, "%s ormlq %c%c: |C - C_ref| %.3g (tol %.3g)", where, side, trans, d_c, tol);
    }

  // gels, both TRANS, 3 right-hand sides.
  for (char trans : {'N', conj_letter}) {
    if (kind == zero_row) break;  // rank deficient: INFO > 0 (CPU), compared elsewhere
    const int nrhs = 3, ldb = std::max(m, n) + 2, brows = trans == 'N' ? m : n, rows = std::max(m, n);
    Matrix<T> g = a0, g_ref = a0, b(rows, nrhs, ldb);
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < rows; ++i) b.at(i, j) = i < brows ? random_value<T>(rng) : T(R(i - j));
    Matrix<T> b_ref = b;
    const Matrix<T> b0 = b;
    int lw = -1;
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

// One illegal call: INFO = -param and one xerbla_ call with the routine's name and param.
void expect_illegal(const char *routine, int param, int info) {
  std::string name(routine);
  name = name.substr(0, name.size() - 1);  // the underscore
  for (char &ch : name) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  while (name.size() < 6) name += ' ';
  CHECK(info == -param && harness::xerbla.calls == 1 && harness::xerbla.info == param &&
            name == harness::xerbla.name,
        "%s illegal parameter %d: info %d, xerbla %d call(s) '%s' %d", routine, param, info, harness::xerbla.calls,
        harness::xerbla.name, harness::xerbla.info);
}

// Each illegal parameter in turn, in the reference's order of checks.
template <class T>
void illegal_arguments(const Routines<T> &mine) {
  const Names<T> nm = names<T>();
  std::vector<T> a(256, T(1)), b(256, T(1)), w(256), tau(16, T(0));
  struct Dims {
    int m, n, k, lda, ldb, lwork, param;
  };
  // gelqf (M, N, A, LDA, TAU, WORK, LWORK, INFO).
  for (const Dims &c : {Dims{-1, 2, 0, 2, 0, 20, 1}, Dims{2, -1, 0, 2, 0, 20, 2}, Dims{3, 2, 0, 2, 0, 20, 4},
                        Dims{3, 4, 0, 3, 0, 2, 7}, Dims{3, 4, 0, 3, 0, 0, 7}}) {
    harness::xerbla.clear();
    int info = 0;
    mine.gelqf(&c.m, &c.n, a.data(), &c.lda, tau.data(), w.data(), &c.lwork, &info);
    expect_illegal(nm.gelqf, c.param, info);
  }
  // ormlq (SIDE, TRANS, M, N, K, A, LDA, TAU, C, LDC, WORK, LWORK, INFO).
  struct Multiply {
    char side, trans;
    int m, n, k, lda, ldc, lwork, param;
  };
  const char conj_letter = is_complex<T> ? 'C' : 'T', wrong_trans = is_complex<T> ? 'T' : 'C';
  const Multiply multiply_cases[] = {
      {'X', 'N', 4, 3, 2, 2, 4, 20, 1},  {'L', wrong_trans, 4, 3, 2, 2, 4, 20, 2}, {'L', 'N', -1, 3, 2, 2, 4, 20, 3},
      {'R', conj_letter, 4, -1, 2, 2, 4, 20, 4}, {'L', 'N', 4, 3, 5, 5, 4, 20, 5}, {'R', 'N', 4, 3, 4, 4, 4, 20, 5},
      {'L', 'N', 4, 3, -1, 2, 4, 20, 5}, {'L', 'N', 4, 3, 3, 2, 4, 20, 7},  {'R', 'N', 4, 3, 2, 2, 3, 20, 10},
      {'L', 'N', 4, 3, 2, 2, 4, 2, 12},  {'R', 'N', 4, 3, 2, 2, 4, 3, 12}};
  for (const Multiply &c : multiply_cases) {
    harness::xerbla.clear();
    int info = 0;
    mine.ormlq(&c.side, &c.trans, &c.m, &c.n, &c.k, a.data(), &c.lda, tau.data(), b.data(), &c.ldc, w.data(), &c.lwork,
               &info, 1, 1);
    expect_illegal(nm.ormlq, c.param, info);
  }
  // orglq (M, N, K, A, LDA, TAU, WORK, LWORK, INFO).
  for (const Dims &c : {Dims{-1, 2, 0, 2, 0, 20, 1}, Dims{3, 2, 0, 3, 0, 20, 2}, Dims{2, 3, -1, 2, 0, 20, 3},
                        Dims{2, 3, 3, 2, 0, 20, 3}, Dims{3, 4, 2, 2, 0, 20, 5}, Dims{3, 4, 2, 3, 0, 2, 8}}) {
    harness::xerbla.clear();
    int info = 0;
    mine.orglq(&c.m, &c.n, &c.k, a.data(), &c.lda, tau.data(), w.data(), &c.lwork, &info);
    expect_illegal(nm.orglq, c.param, info);
  }
  // gels (TRANS, M, N, NRHS, A, LDA, B, LDB, WORK, LWORK, INFO), M < N where it matters.
  struct Solve {
    char trans;
    int m, n, nrhs, lda, ldb, lwork, param;
  };
  for (const Solve &c : {Solve{wrong_trans, 2, 4, 1, 2, 4, 20, 1}, Solve{'N', -1, 4, 1, 2, 4, 20, 2},
                         Solve{'N', 2, -1, 1, 2, 4, 20, 3}, Solve{'N', 2, 4, -1, 2, 4, 20, 4},
                         Solve{'N', 3, 4, 1, 2, 4, 20, 6}, Solve{conj_letter, 2, 4, 1, 2, 3, 20, 8},
                         Solve{'N', 2, 4, 3, 2, 4, 4, 10}}) {
    harness::xerbla.clear();
    int info = 0;
    mine.gels(&c.trans, &c.m, &c.n, &c.nrhs, a.data(), &c.lda, b.data(), &c.ldb, w.data(), &c.lwork, &info, 1);
    expect_illegal(nm.gels, c.param, info);
  }
}

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  const Routines<T> mine = cudrop_routines<T>(), ref = reference_routines<T>(lib);
  if (!ref.gelqf || !ref.ormlq || !ref.orglq || !ref.gels) {
    CHECK(false, "the reference lacks an LQ routine");
    return;
  }
  Rng rng(opt.seed + sizeof(T) * 13);
  std::vector<std::pair<int, int>> shapes = {{1, 1},   {1, 7},    {7, 1},    {7, 7},    {17, 33},  {33, 17},
                                             {33, 100}, {64, 65}, {65, 64}, {100, 33}, {129, 130}, {70, 200},
                                             {200, 70}, {300, 300}, {100, 513}};
  if (opt.big) {
    shapes.push_back({1031, 1031});
    shapes.push_back({1024, 2053});
  }
  for (auto [m, n] : shapes) {
    if (std::max(m, n) > opt.max && !(opt.big && std::max(m, n) > 1000)) continue;
    run_case<T>(mine, ref, m, n, random_kind, rng);
    if (std::max(m, n) <= 300) run_case<T>(mine, ref, m, n, zero_row, rng);
    if (special && std::max(m, n) <= 300) run_case<T>(mine, ref, m, n, tiny_scale, rng);
  }
  illegal_arguments<T>(mine);
}

}  // namespace

int main(int argc, char **argv) {
  return harness::lapack_test_main(argc, argv, "lq_test", opt, &special, {"dgelqf_", "zunmlq_", "sorglq_", "cgels_"},
                                   &calls, [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
