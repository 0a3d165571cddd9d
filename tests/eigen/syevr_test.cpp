// syevr_test: ?syevr_, ?syevx_ (s, d) and ?heevr_, ?heevx_ (c, z) through the public symbols,
// against the reference LAPACK (tests/harness/reference.h) on the same matrices.
//
// Every call (order n, lda and ldz > n by 0..3 rows, the arrays one element off a 16-byte
// boundary, A's triangle UPLO does not name and every padding row NaN; RANGE 'A', 'V' (an
// interval holding some eigenvalues, an empty one, one past them all), 'I' (IL = IU, a few, the
// whole range 1..N); JOBZ 'N' and 'V'; UPLO 'L' and 'U'; ABSTOL 0 and positive):
//  * INFO is 0 (the reference's too) and M the reference's;
//  * the M eigenvalues ascending, each within tol ||A|| of the reference's, tol = 60 n eps,
//    ||A|| the largest |a|;
//  * JOBZ = 'V': max |A Z - Z diag(W)| <= tol ||A|| and max |Z^H Z - I| <= tol (long double);
//    ISUPPZ written where the reference writes it (its xSTEMR path), each pair 1 <= lo <= hi <= N
//    and, for UPLO = 'L', row 1 of the eigenvector zero where lo > 1 (that back-transformation
//    leaves row 1 as the tridiagonal's eigenvector has it); IFAIL written where the reference
//    writes it, zeros;
//  * the padding rows of A, A's other triangle, and the entries of Z, ISUPPZ and IFAIL the
//    reference leaves alone, unchanged, bit for bit;
//  * WORK(1) at least the minimum LWORK, IWORK(1) (xSYEVR, xHEEVR) and RWORK(1) (xHEEVR) the
//    reference's; LWORK = -1 returns INFO = 0.
// With --special also matrices scaled near underflow (1e-300; s, c: 1e-30), which the reference
// scales: the GPU path leaves them to the CPU routine.
//
// Options: --max-n N (default 130), --big (also 600), --prec sdcz, --seed N, --special,
//   placement (--require-gpu, --expect-gpu, --expect-cpu, --expect-fallback), -v.
#include <algorithm>
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

namespace {

harness::FactorOptions opt;
bool special = false;
long calls = 0;
constexpr int kUnset = -7;  // an ISUPPZ or IFAIL entry nobody wrote

using eigen_test::is_complex;
using eigen_test::real_of;

template <class T, class R = real_of<T>>
using syevr_fn = void (*)(const char *, const char *, const char *, const int *, T *, const int *, const R *,
                          const R *, const int *, const int *, const R *, int *, R *, T *, const int *, int *, T *,
                          const int *, int *, const int *, int *, size_t, size_t, size_t);
template <class T, class R = real_of<T>>
using heevr_fn = void (*)(const char *, const char *, const char *, const int *, T *, const int *, const R *,
                          const R *, const int *, const int *, const R *, int *, R *, T *, const int *, int *, T *,
                          const int *, R *, const int *, int *, const int *, int *, size_t, size_t, size_t);
template <class T, class R = real_of<T>>
using syevx_fn = void (*)(const char *, const char *, const char *, const int *, T *, const int *, const R *,
                          const R *, const int *, const int *, const R *, int *, R *, T *, const int *, T *,
                          const int *, int *, int *, int *, size_t, size_t, size_t);
template <class T, class R = real_of<T>>
using heevx_fn = void (*)(const char *, const char *, const char *, const int *, T *, const int *, const R *,
                          const R *, const int *, const int *, const R *, int *, R *, T *, const int *, T *,
                          const int *, R *, int *, int *, int *, size_t, size_t, size_t);

// One call's arguments and outputs.
template <class T>
struct Call {
  using R = real_of<T>;
  char jobz = 'N', range = 'A', uplo = 'L';
  int n = 0, lda = 1, ldz = 1, il = 1, iu = 0, m = -1, info = -99;
  R vl = 0, vu = 0, abstol = 0;
  T *a = nullptr, *z = nullptr;
  std::vector<R> w;
  std::vector<int> isuppz, ifail, iwork;
  std::vector<T> work;
  std::vector<R> rwork;
};

// ?syevr_/?heevr_ (rrr) or ?syevx_/?heevx_.
template <class T>
struct Routine {
  void *fn;
  bool rrr;
  // lwork, lrwork, liwork: -1 for a query.
  void call(Call<T> &c, int lwork, int lrwork, int liwork) const {
    using R = real_of<T>;
    T *work = c.work.data();
    R *rwork = c.rwork.data();
    int *iwork = c.iwork.data();
    if (rrr) {
      if constexpr (is_complex<T>)
        reinterpret_cast<heevr_fn<T>>(fn)(&c.jobz, &c.range, &c.uplo, &c.n, c.a, &c.lda, &c.vl, &c.vu, &c.il, &c.iu,
                                          &c.abstol, &c.m, c.w.data(), c.z, &c.ldz, c.isuppz.data(), work, &lwork,
                                          rwork, &lrwork, iwork, &liwork, &c.info, 1, 1, 1);
      else
        reinterpret_cast<syevr_fn<T>>(fn)(&c.jobz, &c.range, &c.uplo, &c.n, c.a, &c.lda, &c.vl, &c.vu, &c.il, &c.iu,
                                          &c.abstol, &c.m, c.w.data(), c.z, &c.ldz, c.isuppz.data(), work, &lwork,
                                          iwork, &liwork, &c.info, 1, 1, 1);
      return;
    }
    if constexpr (is_complex<T>)
      reinterpret_cast<heevx_fn<T>>(fn)(&c.jobz, &c.range, &c.uplo, &c.n, c.a, &c.lda, &c.vl, &c.vu, &c.il, &c.iu,
                                        &c.abstol, &c.m, c.w.data(), c.z, &c.ldz, work, &lwork, rwork, iwork,
                                        c.ifail.data(), &c.info, 1, 1, 1);
    else
      reinterpret_cast<syevx_fn<T>>(fn)(&c.jobz, &c.range, &c.uplo, &c.n, c.a, &c.lda, &c.vl, &c.vu, &c.il, &c.iu,
                                        &c.abstol, &c.m, c.w.data(), c.z, &c.ldz, work, &lwork, iwork, c.ifail.data(),
                                        &c.info, 1, 1, 1);
  }
};

template <class T>
const char *symbol(bool rrr) {
  if constexpr (std::is_same_v<T, float>) return rrr ? "ssyevr_" : "ssyevx_";
  else if constexpr (std::is_same_v<T, double>) return rrr ? "dsyevr_" : "dsyevx_";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return rrr ? "cheevr_" : "cheevx_";
  else return rrr ? "zheevr_" : "zheevx_";
}
template <class T>
void *mine(bool rrr) {
  if constexpr (std::is_same_v<T, float>)
    return rrr ? reinterpret_cast<void *>(&ssyevr_) : reinterpret_cast<void *>(&ssyevx_);
  else if constexpr (std::is_same_v<T, double>)
    return rrr ? reinterpret_cast<void *>(&dsyevr_) : reinterpret_cast<void *>(&dsyevx_);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return rrr ? reinterpret_cast<void *>(&cheevr_) : reinterpret_cast<void *>(&cheevx_);
  else return rrr ? reinterpret_cast<void *>(&zheevr_) : reinterpret_cast<void *>(&zheevx_);
}

// The workspace the routine asks for, then the call. The output arrays start as kUnset / NaN.
template <class T>
void run(const Routine<T> &r, Call<T> &c) {
  using R = real_of<T>;
  const int n = c.n;
  c.w.assign(size_t(std::max(n, 1)), std::numeric_limits<R>::quiet_NaN());
  c.isuppz.assign(size_t(2) * std::max(n, 1), kUnset);
  c.ifail.assign(size_t(std::max(n, 1)), kUnset);
  c.work.assign(1, T(0));
  c.rwork.assign(size_t(std::max(7 * n, 1)), R(0));  // xHEEVX's RWORK is 7N, not asked for
  c.iwork.assign(1, 0);
  r.call(c, -1, -1, -1);
  CHECK(c.info == 0, "%s query: info %d", symbol<T>(r.rrr), c.info);
  const int lwork = std::max(1, int(std::real(c.work[0])));
  const int liwork = r.rrr ? std::max(1, c.iwork[0]) : std::max(1, 5 * n);
  const int lrwork = r.rrr && is_complex<T> ? std::max(1, int(c.rwork[0])) : std::max(1, 7 * n);
  c.work.assign(size_t(lwork), T(0));
  c.iwork.assign(size_t(liwork), 0);
  c.rwork.assign(size_t(std::max(lrwork, 7 * n)), R(0));
  c.m = -1;
  c.info = -99;
  r.call(c, lwork, lrwork, liwork);
}

struct Selection {
  char range;
  int il, iu;
  int lo, hi;  // RANGE = 'V': (VL, VU] between eigenvalues lo-1, lo and hi, hi+1 (0-based; -1, n past them)
  const char *what;
};

template <class T>
void run_case(const Routine<T> &me, const Routine<T> &ref, int n, char jobz, char uplo, const Selection &sel,
              bool positive_abstol, bool tiny, Rng &rng) {
  using R = real_of<T>;
  const double eps = std::numeric_limits<R>::epsilon(), tol = 60.0 * n * eps;
  const int lda = n + int(rng.below(4)), ldz = jobz == 'V' ? n + int(rng.below(4)) : 1 + int(rng.below(2));
  const R nan = std::numeric_limits<R>::quiet_NaN();
  const double scale = tiny ? (std::is_same_v<R, float> ? 1e-30 : 1e-300) : 1.0;
  const eigen_test::HermitianMatrix<T> matrix(rng, n, lda, uplo, scale);
  const std::vector<T> &storage = matrix.storage;
  const T *a0 = matrix.a0;
  const double amax = matrix.amax;
  const int zcols = std::max(n, 1);
  std::vector<T> zstore(size_t(ldz) * zcols + 2, T(nan));

  Call<T> c;
  c.jobz = jobz;
  c.uplo = uplo;
  c.n = n;
  c.lda = lda;
  c.ldz = ldz;
  c.range = sel.range;
  c.il = sel.il;
  c.iu = sel.iu;
  c.abstol = positive_abstol ? R(4 * n * eps * amax) : R(0);
  if (sel.range == 'V') {
    // The interval's ends halfway between the reference's eigenvalues (all of them first).
    Call<T> all = c;
    std::vector<T> copy = storage, zdummy(2);
    all.jobz = 'N';
    all.range = 'A';
    all.ldz = 1;
    all.a = copy.data() + 1;
    all.z = zdummy.data();
    run(ref, all);
    const std::vector<R> &w = all.w;
    auto between = [&](int k) {  // between eigenvalues k-1 and k
      if (k <= 0) return w[0] - R(1 + amax);
      if (k >= n) return w[n - 1] + R(1 + amax);
      return (w[k - 1] + w[k]) / 2;
    };
    c.vl = between(sel.lo);
    if (sel.lo >= n) c.vu = c.vl + R(1);
    else if (sel.hi < sel.lo) c.vu = c.vl + (w[sel.lo] - c.vl) / 2;  // short of eigenvalue lo: empty
    else c.vu = between(sel.hi + 1);
  }
  char where[192];
  std::snprintf(where, sizeof where, "%s n=%d lda=%d ldz=%d jobz=%c uplo=%c range=%c(%s) abstol=%s%s",
                symbol<T>(me.rrr), n, lda, ldz, jobz, uplo, sel.range, sel.what, positive_abstol ? "+" : "0",
                tiny ? " tiny" : "");
  if (opt.verbose) std::printf("%s\n", where);
  std::vector<T> mine_a = storage, ref_a = storage, mine_z = zstore, ref_z = zstore;
  Call<T> cm = c, cr = c;
  cm.a = mine_a.data() + 1;
  cm.z = mine_z.data() + 1;
  cr.a = ref_a.data() + 1;
  cr.z = ref_z.data() + 1;
  run(me, cm);
  run(ref, cr);
  if (n > 1) ++calls;
  CHECK(cm.info == 0 && cr.info == 0, "%s: info %d (reference %d)", where, cm.info, cr.info);
  CHECK(cm.m == cr.m, "%s: m %d (reference %d)", where, cm.m, cr.m);
  if (cm.info != 0 || cm.m != cr.m || cm.m < 0) return;
  const int m = cm.m;
  const T *a = mine_a.data() + 1, *z = mine_z.data() + 1, *z0 = zstore.data() + 1;
  bool intact = true;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < lda; ++i) {
      const bool padding = i >= n, other = uplo == 'L' ? i < j : i > j;
      if ((padding || other) && std::memcmp(&a[i + size_t(j) * lda], &a0[i + size_t(j) * lda], sizeof(T)) != 0)
        intact = false;
    }
  CHECK(intact, "%s: A's padding rows or other triangle changed", where);
  // Outside Z's first M columns the reference writes Z(1, 1) = 1 alone (N = 1 with vectors).
  const T *zr = ref_z.data() + 1;
  bool z_intact = true;
  for (int j = 0; j < zcols; ++j)
    for (int i = 0; i < ldz; ++i) {
      const size_t at = i + size_t(j) * ldz;
      const bool outside = jobz != 'V' || i >= n || j >= m;
      const bool ref_left = std::memcmp(&zr[at], &z0[at], sizeof(T)) == 0;
      if (outside && ref_left && std::memcmp(&z[at], &z0[at], sizeof(T)) != 0) z_intact = false;
    }
  CHECK(z_intact, "%s: Z changed where the reference leaves it", where);
  double dw = 0;
  for (int i = 0; i < m; ++i) {
    dw = std::max(dw, std::fabs(double(cm.w[i]) - double(cr.w[i])));
    if (i > 0) CHECK(cm.w[i] >= cm.w[i - 1], "%s: eigenvalues not ascending at %d", where, i);
  }
  CHECK(dw <= tol * amax || (amax == 0 && dw == 0), "%s: |w - w_ref| %.3g (tol %.3g)", where,
        dw / std::max(amax, 1e-300), tol);
  // ISUPPZ and IFAIL: written where the reference writes them.
  bool same_written = true;
  for (size_t i = 0; i < cm.isuppz.size(); ++i)
    same_written = same_written && (cm.isuppz[i] == kUnset) == (cr.isuppz[i] == kUnset);
  for (size_t i = 0; i < cm.ifail.size(); ++i)
    same_written = same_written && (cm.ifail[i] == kUnset) == (cr.ifail[i] == kUnset);
  CHECK(same_written, "%s: ISUPPZ or IFAIL written elsewhere than the reference writes them", where);
  const int liwmin = n <= 1 ? 1 : 10 * n;
  if (me.rrr && n > 1) CHECK(cm.iwork[0] == liwmin, "%s: IWORK(1) %d, expected %d", where, cm.iwork[0], liwmin);
  if (me.rrr && is_complex<T>)
    CHECK(cm.rwork[0] == cr.rwork[0], "%s: RWORK(1) %g (reference %g)", where, double(cm.rwork[0]),
          double(cr.rwork[0]));
  const double lwmin = n <= 1 ? 1 : me.rrr ? (is_complex<T> ? 2 : 26) * n : (is_complex<T> ? 2 : 8) * n;
  CHECK(std::real(cm.work[0]) >= lwmin, "%s: WORK(1) %g below the minimum %g", where, double(std::real(cm.work[0])),
        lwmin);
  if (jobz != 'V') return;
  for (int j = 0; j < m; ++j) {
    if (!me.rrr && cm.ifail[j] != kUnset) CHECK(cm.ifail[j] == 0, "%s: IFAIL(%d) = %d", where, j + 1, cm.ifail[j]);
    if (me.rrr && cm.isuppz[2 * j] != kUnset) {
      const int lo = cm.isuppz[2 * j], hi = cm.isuppz[2 * j + 1];
      CHECK(1 <= lo && lo <= hi && hi <= n, "%s: ISUPPZ of column %d: %d..%d", where, j + 1, lo, hi);
      // UPLO = 'L': every reduction leaves row 1 alone (for 'U' the reference's leaves row N).
      if (lo > 1 && uplo == 'L')
        CHECK(z[size_t(j) * ldz] == T(0), "%s: column %d nonzero in row 1 outside ISUPPZ %d..%d", where, j + 1, lo,
              hi);
    }
  }
  // Residual and orthogonality on at most 64 columns past n = 300.
  const int cols = n <= 300 ? m : std::min(m, 64);
  double res = 0, orth = 0;
  eigen_test::eigenpair_errors(matrix, z, ldz, cm.w.data(), cols, &res, &orth);
  CHECK(res <= tol * std::max(amax, 1e-300) && orth <= tol, "%s: |AZ - ZW| %.3g, |Z^H Z - I| %.3g (tol %.3g)", where,
        res / std::max(amax, 1e-300), orth, tol);
}

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  for (bool rrr : {true, false}) {
    const Routine<T> me{mine<T>(rrr), rrr}, ref{lib.symbol<void *>(symbol<T>(rrr)), rrr};
    if (ref.fn == nullptr) {
      CHECK(false, "the reference lacks %s", symbol<T>(rrr));
      return;
    }
    Rng rng(opt.seed + sizeof(T) * 13 + rrr);
    std::vector<int> sizes = {1, 2, 7, 33, 130};
    if (opt.big) sizes.push_back(600);
    for (int n : sizes) {
      if (n > opt.max && !(opt.big && n == 600)) continue;
      const int third = std::max(1, n / 3), k = std::max(1, int(rng.below(n)) + 1);
      const std::vector<Selection> selections = {
          {'A', 1, n, 0, 0, "all"},
          {'I', 1, n, 0, 0, "1..n"},
          {'I', k, k, 0, 0, "il=iu"},
          {'I', third, std::min(n, third + 4), 0, 0, "a few"},
          {'V', 1, n, std::min(third, n - 1), std::min(n - 1, 2 * third), "some"},
          {'V', 1, n, third, third - 1, "empty"},
          {'V', 1, n, n, n, "past them"},
      };
      for (const Selection &sel : selections)
        for (char jobz : {'N', 'V'})
          for (char uplo : {'L', 'U'})
            for (bool positive : {false, true}) {
              if (positive && sel.range == 'V' && jobz == 'N') continue;  // the same bisection as 'I'
              run_case<T>(me, ref, n, jobz, uplo, sel, positive, false, rng);
            }
      if (special && n > 1)
        for (char jobz : {'N', 'V'}) {
          run_case<T>(me, ref, n, jobz, 'L', selections[0], false, true, rng);
          run_case<T>(me, ref, n, jobz, 'U', selections[3], false, true, rng);
        }
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  opt.max = 130;
  return harness::lapack_test_main(argc, argv, "syevr_test", opt, &special,
                                   {"dsyevr_", "zheevr_", "dsyevx_", "zheevx_"}, &calls,
                                   [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
