// syevd_test: ?syevd_, ?syev_ (s, d) and ?heevd_, ?heev_ (c, z) through the public symbols, against the reference
// LAPACK (tests/harness/reference.h) on the same matrices.
//
// Every call (order n, lda > n by 0..3 rows, the array one element off a 16-byte boundary, the
// triangle UPLO does not name and the padding rows NaN):
//  * INFO is 0 (the reference's too); the eigenvalues ascending, each within tol ||A|| of the
//    reference's, tol = 60 n eps, ||A|| the largest |a|;
//  * JOBZ = 'V': max |A Z - Z diag(W)| <= tol ||A|| and max |Z^H Z - I| <= tol (long double);
//  * the padding rows, and with JOBZ = 'N' the triangle UPLO does not name, are unchanged, bit
//    for bit;
//  * LWORK = LIWORK (= LRWORK) = -1 returns INFO = 0 and sizes at least the minimum.
// With --special also matrices scaled near underflow (1e-300; s, c: 1e-30), which the reference
// scales: the GPU path leaves them to the CPU routine.
//
// Options: --max-n N (default 300), --big (also 1000, 2049), --prec sdcz, --seed N, --special,
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

using eigen_test::is_complex;
using eigen_test::real_of;

// One signature for both: the real routines take no RWORK (passed as null, LRWORK ignored).
template <class T>
using syevd_fn = void (*)(const char *, const char *, const int *, T *, const int *, real_of<T> *, T *, const int *,
                          int *, const int *, int *, size_t, size_t);
template <class T>
using heevd_fn = void (*)(const char *, const char *, const int *, T *, const int *, real_of<T> *, T *, const int *,
                          real_of<T> *, const int *, int *, const int *, int *, size_t, size_t);

template <class T>
using syev_fn = void (*)(const char *, const char *, const int *, T *, const int *, real_of<T> *, T *, const int *,
                         int *, size_t, size_t);
template <class T>
using heev_fn = void (*)(const char *, const char *, const int *, T *, const int *, real_of<T> *, T *, const int *,
                         real_of<T> *, int *, size_t, size_t);

// ?syevd_/?heevd_, or (plain) ?syev_/?heev_: RWORK is then 3n-2 long, IWORK unused.
template <class T>
struct Routine {
  void *fn;
  bool plain = false;
  void call(char jobz, char uplo, int n, T *a, int lda, real_of<T> *w, T *work, int lwork, real_of<T> *rwork,
            int lrwork, int *iwork, int liwork, int *info) const {
    if (plain) {
      if constexpr (is_complex<T>)
        reinterpret_cast<heev_fn<T>>(fn)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, info, 1, 1);
      else
        reinterpret_cast<syev_fn<T>>(fn)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, info, 1, 1);
      return;
    }
    if constexpr (is_complex<T>)
      reinterpret_cast<heevd_fn<T>>(fn)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork,
                                        info, 1, 1);
    else
      reinterpret_cast<syevd_fn<T>>(fn)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
  }
};

template <class T>
const char *symbol(bool plain = false) {
  if constexpr (std::is_same_v<T, float>) return plain ? "ssyev_" : "ssyevd_";
  else if constexpr (std::is_same_v<T, double>) return plain ? "dsyev_" : "dsyevd_";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return plain ? "cheev_" : "cheevd_";
  else return plain ? "zheev_" : "zheevd_";
}
template <class T>
void *mine(bool plain) {
  if constexpr (std::is_same_v<T, float>) return plain ? reinterpret_cast<void *>(&ssyev_) : reinterpret_cast<void *>(&ssyevd_);
  else if constexpr (std::is_same_v<T, double>) return plain ? reinterpret_cast<void *>(&dsyev_) : reinterpret_cast<void *>(&dsyevd_);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return plain ? reinterpret_cast<void *>(&cheev_) : reinterpret_cast<void *>(&cheevd_);
  else return plain ? reinterpret_cast<void *>(&zheev_) : reinterpret_cast<void *>(&zheevd_);
}

// Runs one routine on a copy of `a` with the workspace it asks for.
template <class T>
int run(const Routine<T> &r, char jobz, char uplo, int n, std::vector<T> &a, T *data, int lda, std::vector<real_of<T>> &w) {
  T size = T(0);
  real_of<T> rsize = 0;
  int isize = 0, info = -99;
  r.call(jobz, uplo, n, data, lda, w.data(), &size, -1, &rsize, -1, &isize, -1, &info);
  CHECK(info == 0, "%s query: info %d", symbol<T>(r.plain), info);
  const int lwork = std::max(1, int(std::real(size))), liwork = std::max(1, isize);
  const int lrwork = r.plain ? std::max(1, 3 * n - 2) : std::max(1, int(rsize));
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<real_of<T>> rwork(static_cast<size_t>(lrwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  r.call(jobz, uplo, n, data, lda, w.data(), work.data(), lwork, rwork.data(), lrwork, iwork.data(), liwork, &info);
  (void)a;
  return info;
}

template <class T>
void run_case(const Routine<T> &me, const Routine<T> &ref, int n, char jobz, char uplo, bool tiny, Rng &rng) {
  using R = real_of<T>;
  const double eps = std::numeric_limits<R>::epsilon(), tol = 60.0 * n * eps;
  const int lda = n + int(rng.below(4));
  const double scale = tiny ? (std::is_same_v<R, float> ? 1e-30 : 1e-300) : 1.0;
  const eigen_test::HermitianMatrix<T> matrix(rng, n, lda, uplo, scale);
  const std::vector<T> &storage = matrix.storage;
  const T *a0 = matrix.a0;
  const double amax = matrix.amax;
  char where[128];
  std::snprintf(where, sizeof where, "%s n=%d lda=%d jobz=%c uplo=%c%s", symbol<T>(me.plain), n, lda, jobz, uplo,
                tiny ? " tiny" : "");
  if (opt.verbose) std::printf("%s\n", where);
  std::vector<T> mine_store = storage, ref_store = storage;
  std::vector<R> w(static_cast<size_t>(n)), w_ref(static_cast<size_t>(n));
  const int info = run(me, jobz, uplo, n, mine_store, mine_store.data() + 1, lda, w);
  const int info_ref = run(ref, jobz, uplo, n, ref_store, ref_store.data() + 1, lda, w_ref);
  ++calls;
  CHECK(info == 0 && info_ref == 0, "%s: info %d (reference %d)", where, info, info_ref);
  const T *a = mine_store.data() + 1;
  bool intact = true;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < lda; ++i) {
      const bool padding = i >= n, other = jobz == 'N' && (uplo == 'L' ? i < j : i > j);
      if ((padding || other) && std::memcmp(&a[i + size_t(j) * lda], &a0[i + size_t(j) * lda], sizeof(T)) != 0)
        intact = false;
    }
  CHECK(intact, "%s: padding rows or the other triangle changed", where);
  double dw = 0;
  for (int i = 0; i < n; ++i) {
    dw = std::max(dw, std::fabs(double(w[i]) - double(w_ref[i])));
    if (i > 0) CHECK(w[i] >= w[i - 1], "%s: eigenvalues not ascending at %d", where, i);
  }
  CHECK(dw <= tol * amax || (amax == 0 && dw == 0), "%s: |w - w_ref| %.3g (tol %.3g)", where, dw / std::max(amax, 1e-300),
        tol);
  if (jobz != 'V') return;
  // Residual and orthogonality on at most 64 columns past n = 300.
  const int cols = n <= 300 ? n : 64;
  double res = 0, orth = 0;
  eigen_test::eigenpair_errors(matrix, a, lda, w.data(), cols, &res, &orth);
  CHECK(res <= tol * std::max(amax, 1e-300) && orth <= tol, "%s: |AZ - ZW| %.3g, |Z^H Z - I| %.3g (tol %.3g)", where,
        res / std::max(amax, 1e-300), orth, tol);
}

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  for (bool plain : {false, true}) {
    const Routine<T> me{mine<T>(plain), plain}, ref{lib.symbol<void *>(symbol<T>(plain)), plain};
    if (ref.fn == nullptr) {
      CHECK(false, "the reference lacks %s", symbol<T>(plain));
      return;
    }
    Rng rng(opt.seed + sizeof(T) * 13 + plain);
    std::vector<int> sizes = {2, 3, 7, 33, 64, 65, 130, 300, 517};
    if (opt.big) sizes.insert(sizes.end(), {1000, 2049});
    for (int n : sizes) {
      if (n > opt.max && !(opt.big && n >= 1000)) continue;
      if (plain && n > 300) continue;  // the same GPU path: its sizes are the divide and conquer's
      for (char jobz : {'N', 'V'})
        for (char uplo : {'L', 'U'}) {
          run_case<T>(me, ref, n, jobz, uplo, false, rng);
          if (special && n <= 130) run_case<T>(me, ref, n, jobz, uplo, true, rng);
        }
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  return harness::lapack_test_main(argc, argv, "syevd_test", opt, &special, {"dsyevd_", "zheevd_"}, &calls,
                                   [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
