// replay_complex_test: impl::potrf_replay_lower for Complex<float> and Complex<double> (what
// the GPU Cholesky leaves in a failing 64-column block of cpotrf_/zpotrf_) against the
// reference's own CPOTRF2/ZPOTRF2 (liblapack.so.3, not OpenBLAS's), bit for bit, on Hermitian
// blocks that fail at the first, a third, half way and the last column, with the imaginary
// parts of the diagonal NaN (never to be read; the reference leaves the first one when the
// first column fails). Needs neither a GPU nor cudrop; skipped without a reference LAPACK.
#include <dlfcn.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "impl/potrf/potrf_plan.h"
#include "tests/harness/check.h"
#include "tests/harness/rng.h"

namespace {

using cudrop::Complex;

template <class R>
using potrf2_fn = void (*)(const char *, const int *, Complex<R> *, const int *, int *, size_t);

template <class R>
long differing(const std::vector<Complex<R>> &x, const std::vector<Complex<R>> &y) {
  long count = 0;
  auto same = [](R a, R b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); };
  for (size_t e = 0; e < x.size(); ++e)
    if (!same(x[e].re, y[e].re) || !same(x[e].im, y[e].im)) ++count;
  return count;
}

template <class R>
void compare(potrf2_fn<R> reference, const char *name) {
  const R nan = std::numeric_limits<R>::quiet_NaN();
  for (int n = 1; n <= 64; ++n)
    for (int k : {-1, 0, n / 3, n / 2, n - 1}) {
      Rng rng(uint64_t(1000 * n + k + 7));
      std::vector<Complex<R>> a(size_t(n) * n, Complex<R>(nan, nan));
      for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i)
          a[i + size_t(j) * n] = i == j ? Complex<R>(R(n + rng.uniform()), nan)
                                        : Complex<R>(R(rng.symmetric()), R(rng.symmetric()));
      if (k >= 0) a[k + size_t(k) * n] = Complex<R>(R(-0.5), nan);
      std::vector<Complex<R>> mine = a, theirs = a;
      const int info = cudrop::impl::potrf_replay_lower<Complex<R>>(n, mine.data(), n, -1);
      int their_info = -1;
      reference("L", &n, theirs.data(), &n, &their_info, 1);
      CHECK(info == their_info && info == k + 1, "%s n=%d k=%d: info %d, reference %d", name, n, k, info, their_info);
      const long differ = differing(mine, theirs);
      CHECK(differ == 0, "%s n=%d k=%d: %ld elements differ", name, n, k, differ);
    }
}

}  // namespace

int main() {
  for (const char *library : {"/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3", "liblapack.so.3"}) {
    void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (h == nullptr || dlsym(h, "openblas_get_config") != nullptr) continue;
    auto c = reinterpret_cast<potrf2_fn<float>>(dlsym(h, "cpotrf2_"));
    auto z = reinterpret_cast<potrf2_fn<double>>(dlsym(h, "zpotrf2_"));
    if (c == nullptr || z == nullptr) continue;
    std::printf("reference LAPACK: %s\n", library);
    compare<float>(c, "cpotrf2");
    compare<double>(z, "zpotrf2");
    std::printf("replay_complex_test: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
  }
  std::printf("replay_complex_test: SKIP: no reference LAPACK with CPOTRF2\n");
  return 77;  // ctest: skipped
}
