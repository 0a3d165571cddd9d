// sygvd_test: ?sygvd_, ?sygv_ (s, d) and ?hegvd_, ?hegv_ (c, z) through the public symbols, against
// the reference LAPACK (tests/harness/reference.h) on the same matrices.
//
// Every call (ITYPE 1, 2, 3; JOBZ N and V; UPLO L and U; order n; lda, ldb > n by 0..3 rows; the
// arrays one real element off a 16-byte boundary; the triangle UPLO does not name and the padding
// rows NaN; B = a random Hermitian matrix with entries up to 0.5 plus (n + 1) I, positive definite):
//  * INFO is the reference's (0);
//  * the eigenvalues ascending, each within tol max|w| of the reference's, tol = 60 n eps;
//  * B's triangle: the Cholesky factor, within tol max|factor| of the reference's;
//  * JOBZ = 'V': LAPACK's test ratio (TESTING/EIG/dsgt01.f) |A Z - B Z D|_1 / ((|A|_1 + |B|_1
//    max|d|) |Z|_1 n eps) for ITYPE 1, |A B Z - Z D|_1 (2) or |B A Z - Z D|_1 (3) over |A|_1
//    |B|_1 |Z|_1 n eps, at most 60; and max |Z^H B Z - I| (ITYPE 1, 2) or max |Z^H inv(B) Z - I|
//    (3) at most tol (long double);
//  * the padding rows, the triangle UPLO does not name of B, and with JOBZ = 'N' that of A,
//    unchanged, bit for bit (JOBZ = 'V' writes the whole of A's n x n).
// Illegal arguments: INFO and the program's xerbla_ as the reference's order of checks says.
// Also, outside forced-GPU runs (the GPU path leaves them to the CPU routine): a B that is not
// positive definite (a negative diagonal entry): INFO = N + i as the reference's; and order 1
// and the workspace queries (INFO = 0, sizes at least the minimum), the CPU routine's own calls.
//
// With --special also an A scaled near underflow (1e-300; s, c: 1e-30), whose standard problem
// the reference's xSYEVD scales: the GPU path leaves it to the CPU routine.
//
// Options: --max-n N (default 300), --big (also 1000), --prec sdcz, --seed N, --special,
//   placement (--require-gpu, --expect-gpu, --expect-cpu, --expect-fallback), -v.
#include <algorithm>
#include <cctype>
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
#include "tests/eigen/hermitian.h"
#include "tests/harness/check.h"
#include "tests/harness/clock.h"
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

using eigen_test::is_complex;
using eigen_test::real_of;
using Cld = std::complex<long double>;

template <class T>
using sygvd_fn = void (*)(const int *, const char *, const char *, const int *, T *, const int *, T *, const int *,
                          real_of<T> *, T *, const int *, int *, const int *, int *, size_t, size_t);
template <class T>
using hegvd_fn = void (*)(const int *, const char *, const char *, const int *, T *, const int *, T *, const int *,
                          real_of<T> *, T *, const int *, real_of<T> *, const int *, int *, const int *, int *, size_t,
                          size_t);
template <class T>
using sygv_fn = void (*)(const int *, const char *, const char *, const int *, T *, const int *, T *, const int *,
                         real_of<T> *, T *, const int *, int *, size_t, size_t);
template <class T>
using hegv_fn = void (*)(const int *, const char *, const char *, const int *, T *, const int *, T *, const int *,
                         real_of<T> *, T *, const int *, real_of<T> *, int *, size_t, size_t);

// ?sygvd_/?hegvd_, or (plain) ?sygv_/?hegv_: RWORK is then 3n-2 long, IWORK unused.
template <class T>
struct Routine {
  void *fn;
  bool plain = false;
  void call(int itype, char jobz, char uplo, int n, T *a, int lda, T *b, int ldb, real_of<T> *w, T *work, int lwork,
            real_of<T> *rwork, int lrwork, int *iwork, int liwork, int *info) const {
    if (plain) {
      if constexpr (is_complex<T>)
        reinterpret_cast<hegv_fn<T>>(fn)(&itype, &jobz, &uplo, &n, a, &lda, b, &ldb, w, work, &lwork, rwork, info, 1,
                                         1);
      else
        reinterpret_cast<sygv_fn<T>>(fn)(&itype, &jobz, &uplo, &n, a, &lda, b, &ldb, w, work, &lwork, info, 1, 1);
      return;
    }
    if constexpr (is_complex<T>)
      reinterpret_cast<hegvd_fn<T>>(fn)(&itype, &jobz, &uplo, &n, a, &lda, b, &ldb, w, work, &lwork, rwork, &lrwork,
                                        iwork, &liwork, info, 1, 1);
    else
      reinterpret_cast<sygvd_fn<T>>(fn)(&itype, &jobz, &uplo, &n, a, &lda, b, &ldb, w, work, &lwork, iwork, &liwork,
                                        info, 1, 1);
  }
};

template <class T>
const char *symbol(bool plain = false) {
  if constexpr (std::is_same_v<T, float>) return plain ? "ssygv_" : "ssygvd_";
  else if constexpr (std::is_same_v<T, double>) return plain ? "dsygv_" : "dsygvd_";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return plain ? "chegv_" : "chegvd_";
  else return plain ? "zhegv_" : "zhegvd_";
}
template <class T>
void *mine(bool plain) {
  if constexpr (std::is_same_v<T, float>)
    return plain ? reinterpret_cast<void *>(&ssygv_) : reinterpret_cast<void *>(&ssygvd_);
  else if constexpr (std::is_same_v<T, double>)
    return plain ? reinterpret_cast<void *>(&dsygv_) : reinterpret_cast<void *>(&dsygvd_);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return plain ? reinterpret_cast<void *>(&chegv_) : reinterpret_cast<void *>(&chegvd_);
  else return plain ? reinterpret_cast<void *>(&zhegv_) : reinterpret_cast<void *>(&zhegvd_);
}

// Minimum workspace lengths of the reference (LWORK, LRWORK, LIWORK).
struct MinWork {
  long long lwork, lrwork, liwork;
};
template <class T>
MinWork minimum_work(bool plain, char jobz, int n) {
  const long long nn = n;
  const bool v = jobz == 'V';
  if (plain) return {std::max(1LL, (is_complex<T> ? 2 : 3) * nn - 1), std::max(1LL, 3 * nn - 2), 1};
  if (n <= 1) return {1, 1, 1};
  if (is_complex<T>) return {v ? 2 * nn + nn * nn : nn + 1, v ? 1 + 5 * nn + 2 * nn * nn : nn, v ? 3 + 5 * nn : 1};
  return {v ? 1 + 6 * nn + 2 * nn * nn : 2 * nn + 1, 1, v ? 3 + 5 * nn : 1};
}

// Runs one routine with the workspace its query asks for (checked against the minimum).
template <class T>
int run(const Routine<T> &r, int itype, char jobz, char uplo, int n, T *a, int lda, T *b, int ldb,
        std::vector<real_of<T>> &w) {
  T size = T(0);
  real_of<T> rsize = 0;
  int isize = 0, info = -99;
  r.call(itype, jobz, uplo, n, a, lda, b, ldb, w.data(), &size, -1, &rsize, -1, &isize, -1, &info);
  const MinWork least = minimum_work<T>(r.plain, jobz, n);
  CHECK(info == 0, "%s query: info %d", symbol<T>(r.plain), info);
  CHECK(std::real(size) >= real_of<T>(least.lwork) &&
            (r.plain || (isize >= least.liwork && (!is_complex<T> || rsize >= real_of<T>(least.lrwork)))),
        "%s query n=%d: sizes %g %g %d below the minimum", symbol<T>(r.plain), n, double(std::real(size)),
        double(rsize), isize);
  const int lwork = std::max(1, int(std::real(size))), liwork = std::max(1, isize);
  const int lrwork = r.plain ? std::max(1, 3 * n - 2) : std::max(1, int(rsize));
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<real_of<T>> rwork(static_cast<size_t>(lrwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  r.call(itype, jobz, uplo, n, a, lda, b, ldb, w.data(), work.data(), lwork, rwork.data(), lrwork, iwork.data(),
         liwork, &info);
  return info;
}

// A matrix of T in a buffer of NaN, one real element past a 16-byte boundary.
template <class T>
struct Placed {
  std::vector<double> storage;  // 8-byte aligned: the offset is the real element's size
  int ld = 0, cols = 0;
  Placed(int ld_, int n) : ld(ld_), cols(std::max(n, 1)) {
    storage.assign((size_t(ld) * size_t(cols) * sizeof(T) + 32) / sizeof(double) + 4, 0.0);
    for (size_t k = 0; k < size_t(ld) * size_t(cols); ++k)
      data()[k] = T(std::numeric_limits<real_of<T>>::quiet_NaN());
  }
  Placed(const Placed &other) : Placed(other.ld, other.cols) {
    std::memcpy(data(), other.data(), size_t(ld) * size_t(cols) * sizeof(T));
  }
  Placed &operator=(const Placed &) = delete;
  T *data() const {
    auto base = reinterpret_cast<uintptr_t>(storage.data());
    base = (base + 15) & ~uintptr_t(15);
    return reinterpret_cast<T *>(base + sizeof(real_of<T>));
  }
  T &operator()(int i, int j) const { return data()[i + size_t(j) * ld]; }
};

// x = inv(B) y for the Hermitian positive definite full matrix B (n x n, long double), by
// Cholesky: the reference for ITYPE 3's Z^H inv(B) Z = I.
struct CholeskyLd {
  int n;
  std::vector<Cld> l;
  explicit CholeskyLd(const std::vector<Cld> &b, int n_) : n(n_), l(b) {
    for (int j = 0; j < n; ++j) {
      long double d = std::real(l[j + size_t(j) * n]);
      for (int k = 0; k < j; ++k) d -= std::norm(l[j + size_t(k) * n]);
      d = std::sqrt(d);
      l[j + size_t(j) * n] = d;
      for (int i = j + 1; i < n; ++i) {
        Cld s = l[i + size_t(j) * n];
        for (int k = 0; k < j; ++k) s -= l[i + size_t(k) * n] * std::conj(l[j + size_t(k) * n]);
        l[i + size_t(j) * n] = s / d;
      }
    }
  }
  void solve(std::vector<Cld> &x) const {
    for (int i = 0; i < n; ++i) {
      Cld s = x[i];
      for (int k = 0; k < i; ++k) s -= l[i + size_t(k) * n] * x[k];
      x[i] = s / l[i + size_t(i) * n];
    }
    for (int i = n - 1; i >= 0; --i) {
      Cld s = x[i];
      for (int k = i + 1; k < n; ++k) s -= std::conj(l[k + size_t(i) * n]) * x[k];
      x[i] = s / l[i + size_t(i) * n];
    }
  }
};

long double norm1(const std::vector<Cld> &m, int rows, int cols) {
  long double best = 0;
  for (int j = 0; j < cols; ++j) {
    long double s = 0;
    for (int i = 0; i < rows; ++i) s += std::abs(m[i + size_t(j) * rows]);
    best = std::max(best, s);
  }
  return best;
}

// y = M x for a full n x n M and the first `cols` columns of X (n x cols), long double.
std::vector<Cld> product(const std::vector<Cld> &m, const std::vector<Cld> &x, int n, int cols) {
  std::vector<Cld> y(size_t(n) * cols);
  for (int j = 0; j < cols; ++j)
    for (int k = 0; k < n; ++k) {
      const Cld xk = x[k + size_t(j) * n];
      for (int i = 0; i < n; ++i) y[i + size_t(j) * n] += m[i + size_t(k) * n] * xk;
    }
  return y;
}

// A random Hermitian matrix (tests/eigen/hermitian.h: entries up to `scale`, `diagonal` added to
// its diagonal) as Placed's triangle UPLO names, the rest NaN; full: both triangles.
template <class T>
void fill_hermitian(Placed<T> &p, std::vector<Cld> &full, int n, char uplo, Rng &rng, real_of<T> scale,
                    real_of<T> diagonal) {
  eigen_test::HermitianMatrix<T> m(rng, n, p.ld, uplo, double(scale));
  for (int i = 0; i < n; ++i) {
    T &d = m.a0[i + size_t(i) * p.ld];
    d = T(std::real(d) + diagonal);
    m.full[i + size_t(i) * n] = Cld(std::complex<real_of<T>>(d));
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) p(i, j) = m.a0[i + size_t(j) * p.ld];
  full = std::move(m.full);
}

// The padding rows unchanged, bit for bit, and (other_triangle) the triangle UPLO does not name.
template <class T>
bool intact(const Placed<T> &now, const Placed<T> &before, int n, char uplo, bool other_triangle) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < now.ld; ++i) {
      const bool checked = i >= n || (other_triangle && (uplo == 'L' ? i < j : i > j));
      if (checked && std::memcmp(&now(i, j), &before(i, j), sizeof(T)) != 0) return false;
    }
  return true;
}

template <class T>
void run_case(const Routine<T> &me, const Routine<T> &ref, int itype, int n, char jobz, char uplo, bool definite,
              bool tiny, Rng &rng) {
  using R = real_of<T>;
  const double eps = std::numeric_limits<R>::epsilon(), tol = 60.0 * std::max(n, 1) * eps;
  const int lda = n + int(rng.below(4)), ldb = n + int(rng.below(4));
  Placed<T> a0(lda, n), b0(ldb, n);
  std::vector<Cld> fa(size_t(n) * n), fb(size_t(n) * n);
  const R a_scale = tiny ? R(std::is_same_v<R, float> ? 1e-30 : 1e-300) : R(1);
  fill_hermitian(a0, fa, n, uplo, rng, a_scale, R(0));
  fill_hermitian(b0, fb, n, uplo, rng, R(0.5), R(n + 1));
  if (!definite) {
    const int k = n / 2;
    b0(k, k) = T(-1);
    fb[k + size_t(k) * n] = -1;
  }
  char where[160];
  std::snprintf(where, sizeof where, "%s itype=%d n=%d lda=%d ldb=%d jobz=%c uplo=%c%s%s", symbol<T>(me.plain), itype,
                n, lda, ldb, jobz, uplo, definite ? "" : " indefinite B", tiny ? " tiny A" : "");
  if (opt.verbose) std::printf("%s\n", where);
  Placed<T> a = a0, b = b0, a_ref = a0, b_ref = b0;
  std::vector<R> w(size_t(std::max(n, 1))), w_ref(size_t(std::max(n, 1)));
  const int info = run(me, itype, jobz, uplo, n, a.data(), lda, b.data(), ldb, w);
  const int info_ref = run(ref, itype, jobz, uplo, n, a_ref.data(), lda, b_ref.data(), ldb, w_ref);
  if (definite && !tiny && n > 1) ++calls;
  CHECK(info == info_ref && (definite ? info == 0 : info > n), "%s: info %d (reference %d)", where, info, info_ref);
  CHECK(intact(b, b0, n, uplo, true), "%s: padding rows or B's other triangle changed", where);
  CHECK(intact(a, a0, n, uplo, jobz == 'N' || info != 0), "%s: padding rows or A's other triangle changed", where);
  if (info != 0 || info_ref != 0) return;
  // B's factor.
  double db = 0, lmax = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (uplo == 'L' ? i >= j : i <= j) {
        db = std::max(db, double(std::abs(std::complex<R>(b(i, j)) - std::complex<R>(b_ref(i, j)))));
        lmax = std::max(lmax, double(std::abs(std::complex<R>(b_ref(i, j)))));
      }
  CHECK(db <= tol * lmax, "%s: |factor - reference's| %.3g (tol %.3g)", where, db / std::max(lmax, 1e-300), tol);
  // The eigenvalues.
  double dw = 0, wmax = 0;
  for (int i = 0; i < n; ++i) {
    dw = std::max(dw, std::fabs(double(w[i]) - double(w_ref[i])));
    wmax = std::max(wmax, std::fabs(double(w_ref[i])));
    if (i > 0) CHECK(w[i] >= w[i - 1], "%s: eigenvalues not ascending at %d", where, i);
  }
  CHECK(dw <= tol * wmax || (wmax == 0 && dw == 0), "%s: |w - w_ref| %.3g (tol %.3g)", where,
        dw / std::max(wmax, 1e-300), tol);
  if (jobz != 'V') return;
  // Residual and B-orthonormality on at most 64 columns past n = 130.
  const int cols = n <= 130 ? n : 64;
  std::vector<Cld> z(size_t(n) * cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < n; ++i) z[i + size_t(j) * n] = Cld(std::complex<R>(a(i, j)));
  std::vector<Cld> zw = z;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < n; ++i) zw[i + size_t(j) * n] *= (long double)w[j];
  std::vector<Cld> r;
  const long double na = norm1(fa, n, n), nb = norm1(fb, n, n), nz = norm1(z, n, cols);
  long double scale;
  if (itype == 1) {
    r = product(fa, z, n, cols);
    const std::vector<Cld> bzw = product(fb, zw, n, cols);
    for (size_t k = 0; k < r.size(); ++k) r[k] -= bzw[k];
    scale = (na + nb * (long double)wmax) * nz;
  } else {
    r = product(itype == 2 ? fa : fb, product(itype == 2 ? fb : fa, z, n, cols), n, cols);
    for (size_t k = 0; k < r.size(); ++k) r[k] -= zw[k];
    scale = na * nb * nz;
  }
  const double ratio = double(norm1(r, n, cols) / (std::max(scale, std::numeric_limits<long double>::min()) * n * eps));
  std::vector<Cld> mz;  // B Z, or inv(B) Z
  if (itype == 3) {
    const CholeskyLd chol(fb, n);
    mz = z;
    std::vector<Cld> x(n);
    for (int j = 0; j < cols; ++j) {
      std::copy(z.begin() + size_t(j) * n, z.begin() + size_t(j + 1) * n, x.begin());
      chol.solve(x);
      std::copy(x.begin(), x.end(), mz.begin() + size_t(j) * n);
    }
  } else {
    mz = product(fb, z, n, cols);
  }
  double orth = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < cols; ++i) {
      Cld s = 0;
      for (int k = 0; k < n; ++k) s += std::conj(z[k + size_t(i) * n]) * mz[k + size_t(j) * n];
      orth = std::max(orth, double(std::abs(s - Cld(i == j ? 1 : 0))));
    }
  CHECK(ratio <= 60 && orth <= tol, "%s: residual ratio %.3g (at most 60), |Z^H %sZ - I| %.3g (tol %.3g)", where,
        ratio, itype == 3 ? "inv(B) " : "B ", orth, tol);
}

// Illegal arguments: the program's own xerbla_ gets the routine's name (hidden length 6) and
// the parameter the reference's order of checks names first, INFO = -that, and before an
// illegal LWORK, LRWORK or LIWORK (?sygvd_, ?hegvd_) WORK(1), RWORK(1), IWORK(1) hold the
// minimum lengths.
template <class T>
void check_arguments(const Routine<T> &me) {
  using R = real_of<T>;
  const int n = 4;
  const MinWork least = minimum_work<T>(me.plain, 'V', n);
  std::string name = symbol<T>(me.plain);
  name.pop_back();
  for (char &c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  name.resize(6, ' ');
  struct Bad {
    int itype;
    char jobz, uplo;
    int n, lda, ldb;
    long long lwork, lrwork, liwork;
    int param;
  };
  const long long lw = least.lwork, lr = least.lrwork, li = least.liwork;
  std::vector<Bad> bad = {{0, 'v', 'l', n, n, n, lw, lr, li, 1},  {4, 'V', 'U', n, n, n, lw, lr, li, 1},
                          {1, 'X', 'L', n, n, n, lw, lr, li, 2},  {2, 'N', 'X', n, n, n, lw, lr, li, 3},
                          {3, 'V', 'u', -1, n, n, lw, lr, li, 4}, {1, 'V', 'L', n, n - 1, n, lw, lr, li, 6},
                          {1, 'V', 'L', n, n, n - 1, lw, lr, li, 8}, {1, 'V', 'L', n, n, n, lw - 1, lr, li, 11}};
  if (!me.plain) {
    if (is_complex<T>) bad.push_back({1, 'V', 'L', n, n, n, lw, lr - 1, li, 13});
    bad.push_back({1, 'V', 'L', n, n, n, lw, lr, li - 1, is_complex<T> ? 15 : 13});
  }
  std::vector<T> a(size_t(n) * n, T(1)), b(size_t(n) * n, T(1)), work(size_t(lw) + 1, T(-7));
  std::vector<R> w(n, R(-7)), rwork(size_t(lr) + 1, R(-7));
  std::vector<int> iwork(size_t(li) + 1, -7);
  for (const Bad &x : bad) {
    const std::vector<T> a0 = a, b0 = b;
    work[0] = T(-7);
    rwork[0] = R(-7);
    iwork[0] = -7;
    int info = 99;
    harness::xerbla.clear();
    me.call(x.itype, x.jobz, x.uplo, x.n, a.data(), x.lda, b.data(), x.ldb, w.data(), work.data(), int(x.lwork),
            rwork.data(), int(x.lrwork), iwork.data(), int(x.liwork), &info);
    CHECK(info == -x.param && harness::xerbla.calls == 1 && harness::xerbla.info == x.param &&
              harness::xerbla.length == 6 && name == harness::xerbla.name,
          "%s illegal parameter %d: info %d, xerbla %d call(s) with '%s' (length %zu) and %d", name.c_str(), x.param,
          info, harness::xerbla.calls, harness::xerbla.name, harness::xerbla.length, harness::xerbla.info);
    CHECK(std::memcmp(a.data(), a0.data(), a.size() * sizeof(T)) == 0 &&
              std::memcmp(b.data(), b0.data(), b.size() * sizeof(T)) == 0,
          "%s illegal parameter %d: A or B changed", name.c_str(), x.param);
    if (x.param >= 11) {
      const bool sizes = std::real(work[0]) >= R(least.lwork) &&
                         (me.plain || (iwork[0] == int(least.liwork) && (!is_complex<T> || rwork[0] == R(lr))));
      CHECK(sizes, "%s illegal parameter %d: WORK(1) %g, RWORK(1) %g, IWORK(1) %d (minimum %lld, %lld, %lld)",
            name.c_str(), x.param, double(std::real(work[0])), double(rwork[0]), iwork[0], lw, lr, li);
    }
  }
}

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  for (bool plain : {false, true}) {
    const Routine<T> me{mine<T>(plain), plain}, ref{lib.symbol<void *>(symbol<T>(plain)), plain};
    if (ref.fn == nullptr) {
      CHECK(false, "the reference lacks %s", symbol<T>(plain));
      return;
    }
    check_arguments<T>(me);
    Rng rng(opt.seed + sizeof(T) * 17 + plain);
    std::vector<int> sizes = {1, 2, 7, 33, 100, 130, 300};
    if (opt.big) sizes.push_back(1000);
    for (int n : sizes) {
      if (n > opt.max && !(opt.big && n >= 1000)) continue;
      if (plain && n > 130) continue;  // the same GPU path: its sizes are ?sygvd_'s
      // Order 1 and a B that is not positive definite are the CPU routine's calls.
      const bool cpu_calls = !opt.placement.expect_gpu && !opt.placement.expect_fallback;
      if (n == 1 && !cpu_calls) continue;
      for (int itype : {1, 2, 3})
        for (char jobz : {'N', 'V'})
          for (char uplo : {'L', 'U'}) {
            if (n >= 1000 && (jobz == 'N' || uplo == 'U')) continue;
            run_case<T>(me, ref, itype, n, jobz, uplo, true, false, rng);
            if (cpu_calls && n > 1 && n <= 130) run_case<T>(me, ref, itype, n, jobz, uplo, false, false, rng);
            if (special && n > 1 && n <= 130) run_case<T>(me, ref, itype, n, jobz, uplo, true, true, rng);
          }
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  return harness::lapack_test_main(argc, argv, "sygvd_test", opt, &special, {"dsygvd_", "zhegvd_", "dsygv_", "zhegv_"},
                                   &calls, [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
