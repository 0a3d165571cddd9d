// The CPU completions of GPU solves that stopped after writing part of the caller's arrays
// (shim/finish_on_cpu.h), run on the CPU LAPACK without a GPU: from each state a GPU attempt
// can leave (the GPU's pivots and its factor's first d columns, the rest of A original; or the
// whole factor and X's first k columns), the result must be the reference's answer: INFO, a
// valid factorization P A = L U with the given first pivots, and X solving A X = B.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "impl/potrf.h"
#include "impl/solve.h"
#include "shim/finish_on_cpu.h"
#include "tests/harness/check.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

using getrf_fn = void (*)(const int *, const int *, double *, const int *, int *, int *);
using gesv_fn = void (*)(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
using posv_fn = void (*)(const char *, const int *, const int *, double *, const int *, double *, const int *, int *,
                         size_t);
constexpr double kEps = 1.1102230246251565e-16;

// max over columns of |A X - B| / (||A|| ||X|| n eps), 1-norms.
double solve_ratio(int n, int nrhs, const std::vector<double> &a, const std::vector<double> &x,
                   const std::vector<double> &b) {
  double r = 0, an = 0, xn = 0;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += std::fabs(a[i + size_t(j) * n]);
    an = std::max(an, s);
  }
  for (int j = 0; j < nrhs; ++j) {
    double rs = 0, xs = 0;
    for (int i = 0; i < n; ++i) {
      double v = -b[i + size_t(j) * n];
      for (int k = 0; k < n; ++k) v += a[i + size_t(k) * n] * x[k + size_t(j) * n];
      rs += std::fabs(v);
      xs += std::fabs(x[i + size_t(j) * n]);
    }
    r = std::max(r, rs);
    xn = std::max(xn, xs);
  }
  return r / (an * xn * n * kEps);
}

// ||P A - L U||_1 / (n ||A||_1 eps).
double lu_ratio(int n, const std::vector<double> &a, const std::vector<double> &lu, const std::vector<int> &ipiv) {
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int k = 0; k < n; ++k) std::swap(perm[k], perm[ipiv[k] - 1]);
  double r = 0, an = 0;
  for (int j = 0; j < n; ++j) {
    double rs = 0, as = 0;
    for (int i = 0; i < n; ++i) {
      double v = 0;
      for (int k = 0; k <= std::min(i, j); ++k) v += (k == i ? 1.0 : lu[i + size_t(k) * n]) * lu[k + size_t(j) * n];
      rs += std::fabs(a[perm[i] + size_t(j) * n] - v);
      as += std::fabs(a[i + size_t(j) * n]);
    }
    r = std::max(r, rs);
    an = std::max(an, as);
  }
  return an == 0 ? (r == 0 ? 0 : 1e30) : r / (n * an * kEps);
}

}  // namespace

int main() {
  const harness::ReferenceLapack ref = harness::load_reference_lapack({"dgetrf_", "dgesv_", "dposv_"}, true);
  if (!ref) {
    std::printf("finish_test: SKIP: no reference LAPACK\n");
    return 77;
  }
  const auto getrf = ref.symbol<getrf_fn>("dgetrf_");
  const auto gesv = ref.symbol<gesv_fn>("dgesv_");
  const auto posv = ref.symbol<posv_fn>("dposv_");
  Rng rng(5);
  for (int n : {1, 5, 64, 200, 301}) {
    for (int zero : {-1, 0, n / 2, n - 1}) {
      const int nrhs = 3;
      std::vector<double> a(size_t(n) * n), b(size_t(n) * nrhs);
      for (double &v : a) v = rng.symmetric();
      for (double &v : b) v = rng.symmetric();
      if (zero >= 0)
        for (int i = 0; i < n; ++i) a[i + size_t(zero) * n] = 0;
      // What the GPU would have computed: the whole factorization.
      std::vector<double> lu = a;
      std::vector<int> gpu_piv(n);
      int gpu_info = 0;
      getrf(&n, &n, lu.data(), &n, gpu_piv.data(), &gpu_info);
      std::vector<double> ra = a, rb = b;
      std::vector<int> rpiv(n);
      int rinfo = 0;
      gesv(&n, &nrhs, ra.data(), &n, rpiv.data(), rb.data(), &n, &rinfo);
      for (int d : {0, 1, n / 3, n - 1, n}) {
        for (int x_done : {0, 2}) {
          if (x_done > 0 && (d < n || gpu_info != 0)) continue;
          if (d < 0 || d > n) continue;
          // The caller's arrays as a GPU attempt leaves them.
          std::vector<double> ca = a, cb = b;
          std::vector<int> cpiv = gpu_piv;
          for (size_t e = 0; e < size_t(d) * n; ++e) ca[e] = lu[e];
          for (size_t e = 0; e < size_t(x_done) * n; ++e) cb[e] = rb[e];
          cudrop::impl::GesvProgress p;
          p.n = n;
          p.nrhs = nrhs;
          p.ipiv_written = true;
          p.lu_columns = d;
          p.x_columns = x_done;
          p.info = gpu_info;
          int info = -99;
          cudrop::gesv_finish_on_cpu<double>(n, nrhs, ca.data(), n, cpiv.data(), cb.data(), n, p, &info);
          CHECK(info == rinfo, "gesv n=%d zero=%d d=%d x=%d: INFO %d, reference %d", n, zero, d, x_done, info, rinfo);
          bool first_kept = true;
          for (int k = 0; k < d; ++k) first_kept = first_kept && cpiv[k] == gpu_piv[k];
          CHECK(first_kept, "gesv n=%d d=%d: the GPU's first pivots changed", n, d);
          const double lr = lu_ratio(n, a, ca, cpiv);
          CHECK(lr < 30, "gesv n=%d zero=%d d=%d: factor ratio %.3g", n, zero, d, lr);
          if (info == 0) {
            const double xr = solve_ratio(n, nrhs, a, cb, b);
            CHECK(xr < 30, "gesv n=%d d=%d x=%d: solution ratio %.3g", n, d, x_done, xr);
          } else {
            CHECK(cb == b, "gesv n=%d zero=%d d=%d: B changed with INFO %d", n, zero, d, info);
          }
        }
      }
    }
    // posv: the whole factor back, X's first k columns back; the rest solved on the CPU.
    for (int x_done : {0, 1, 3}) {
      const int nrhs = 3;
      std::vector<double> a(size_t(n) * n), b(size_t(n) * nrhs);
      for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) a[i + size_t(j) * n] = a[j + size_t(i) * n] = i == j ? n + 1.0 : rng.symmetric();
      for (double &v : b) v = rng.symmetric();
      std::vector<double> ra = a, rb = b;
      int rinfo = 0;
      posv("L", &n, &nrhs, ra.data(), &n, rb.data(), &n, &rinfo, 1);
      std::vector<double> cb = b;
      for (size_t e = 0; e < size_t(x_done) * n; ++e) cb[e] = rb[e];
      cudrop::impl::PotrfProgress p;
      p.n = n;
      p.columns = n;
      p.x_columns = x_done;
      int info = -99;
      cudrop::posv_finish_on_cpu<double>(false, n, nrhs, ra.data(), n, cb.data(), n, p, &info);
      const double xr = solve_ratio(n, nrhs, a, cb, b);
      CHECK(info == 0 && xr < 30, "posv n=%d x=%d: INFO %d, solution ratio %.3g", n, x_done, info, xr);
    }
  }
  std::printf("finish_test: %d checks, %d failures\n%s\n", checks, failures, failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
