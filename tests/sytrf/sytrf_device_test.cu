// impl::sytrf_host, sytrs_host and sysv_host (impl/sytrf/sytrf.h), the symmetric indefinite
// factorization and solves on the GPU, against the reference LAPACK's xSYTRF/xHETRF and
// xSYTRS/xHETRS on the same matrices: s, d, c, z; symmetric and (complex) Hermitian; 'U' and
// 'L'; lda > n; host pointers one element off their allocation's alignment. For each case:
//   - INFO and IPIV exactly the reference's (the pivot choices), the factor within rounding;
//   - the other triangle and the padding rows of A untouched;
//   - X from sytrs_host with the GPU's factor against xSYTRS's with the CPU's, and the residual
//     ||A X - B|| / (||A|| ||X|| n eps);
//   - sysv_host: the factor, IPIV, INFO and X the same way.
// Matrices: random; with a tiny diagonal (2x2 pivots everywhere); zero (INFO = first column);
// singular in its second half (INFO > 0 part way).
// --max-n N bounds the orders (default 1007); --require-gpu fails instead of skipping without
// a GPU. The first failure of each kind is printed with its case and position.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/complex.h"
#include "core/options.h"
#include "impl/sytrf/sytrf.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

using cudrop::Complex;
using cudrop::real_t;
using cudrop::Uplo;
using cudrop::impl::Symmetry;

int checks = 0, failures = 0;
bool report(bool ok, const std::string &what) {
  ++checks;
  if (!ok) {
    ++failures;
    if (failures <= 40) std::printf("FAIL: %s\n", what.c_str());
  }
  return ok;
}

template <class T> const char *letter() {
  if constexpr (std::is_same_v<T, float>) return "s";
  else if constexpr (std::is_same_v<T, double>) return "d";
  else if constexpr (std::is_same_v<T, Complex<float>>) return "c";
  else return "z";
}

template <class T>
using TrfFn = void (*)(const char *, const int *, T *, const int *, int *, T *, const int *, int *, size_t);
template <class T>
using TrsFn = void (*)(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *,
                       int *, size_t);

template <class T>
struct Lapack {
  TrfFn<T> sytrf = nullptr, hetrf = nullptr;
  TrsFn<T> sytrs = nullptr, hetrs = nullptr;
};

template <class T>
Lapack<T> routines(const harness::ReferenceLapack &ref) {
  const std::string p = letter<T>();
  Lapack<T> l;
  l.sytrf = ref.symbol<TrfFn<T>>((p + "sytrf_").c_str());
  l.sytrs = ref.symbol<TrsFn<T>>((p + "sytrs_").c_str());
  if (cudrop::is_complex_v<T>) {
    l.hetrf = ref.symbol<TrfFn<T>>((p + "hetrf_").c_str());
    l.hetrs = ref.symbol<TrsFn<T>>((p + "hetrs_").c_str());
  }
  return l;
}

template <class T> T random_value(Rng &rng) {
  if constexpr (cudrop::is_complex_v<T>) return T(real_t<T>(rng.symmetric()), real_t<T>(rng.symmetric()));
  else return T(real_t<T>(rng.symmetric()));
}
template <class T> double magnitude(T v) {
  if constexpr (cudrop::is_complex_v<T>) return std::hypot(double(v.re), double(v.im));
  else return std::fabs(double(v));
}
template <class T> T conj_if(T v, bool herm) { return herm ? cudrop::conj(v) : v; }
template <class T> std::string show(T v) {
  char text[96];
  if constexpr (cudrop::is_complex_v<T>) std::snprintf(text, sizeof text, "(%.6g, %.6g)", double(v.re), double(v.im));
  else std::snprintf(text, sizeof text, "%.6g", double(v));
  return text;
}

enum class Kind { random, tiny_diagonal, zero, half_singular };
const char *kind_name(Kind k) {
  return k == Kind::random ? "random" : k == Kind::tiny_diagonal ? "tiny-diagonal" : k == Kind::zero ? "zero"
                                                                                                      : "half-singular";
}

// A host array placed one element past its allocation's start (an unaligned pointer).
template <class T>
struct Offset {
  std::vector<T> storage;
  explicit Offset(size_t count) : storage(count + 1) {}
  T *data() { return storage.data() + 1; }
  const T *data() const { return storage.data() + 1; }
  T &operator[](size_t i) { return storage[i + 1]; }
  const T &operator[](size_t i) const { return storage[i + 1]; }
};

// Element (i, j) of the full matrix the `upper` triangle of a (ld) stands for.
template <class T>
T full(const T *a, int ld, bool upper, bool herm, int i, int j) {
  const bool stored = upper ? i <= j : i >= j;
  T v = stored ? a[size_t(i) + size_t(j) * ld] : conj_if(a[size_t(j) + size_t(i) * ld], herm);
  if (herm && i == j) v = T(cudrop::real_part(v));
  return v;
}

template <class T>
void run(const Lapack<T> &l, Symmetry symmetry, Uplo uplo, int n, Kind kind, Rng &rng) {
  using R = real_t<T>;
  const bool herm = symmetry == Symmetry::hermitian, upper = uplo == Uplo::upper;
  const char u = upper ? 'U' : 'L';
  char name[160];
  std::snprintf(name, sizeof name, "%s%s n=%d uplo=%c %s", letter<T>(), herm ? "hetrf" : "sytrf", n, u,
                kind_name(kind));
  const int lda = n + 3, ldb = n + 2, nrhs = 3;
  const double eps = sizeof(R) == 4 ? FLT_EPSILON : DBL_EPSILON;
  Offset<T> a0(size_t(lda) * n);
  for (size_t e = 0; e < size_t(lda) * n; ++e) a0[e] = random_value<T>(rng);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      T &v = a0[size_t(i) + size_t(j) * lda];
      const bool stored = upper ? i <= j : i >= j;
      if (!stored) continue;
      if (kind == Kind::tiny_diagonal && i == j) v = v * R(1e-4);
      if (kind == Kind::zero || (kind == Kind::half_singular && (i >= n / 2 || j >= n / 2))) v = T(0);
    }
  Offset<T> b0(size_t(ldb) * nrhs);
  for (size_t e = 0; e < size_t(ldb) * nrhs; ++e) b0[e] = random_value<T>(rng);

  // The reference.
  TrfFn<T> trf = herm ? l.hetrf : l.sytrf;
  TrsFn<T> trs = herm ? l.hetrs : l.sytrs;
  std::vector<T> ref_a(a0.storage.begin() + 1, a0.storage.end());
  std::vector<int> ref_ipiv(static_cast<size_t>(n));
  int ref_info = 0, lwork = -1;
  T query = T(0);
  trf(&u, &n, ref_a.data(), &lda, ref_ipiv.data(), &query, &lwork, &ref_info, 1);
  lwork = std::max(1, int(cudrop::real_part(query)));
  std::vector<T> work(static_cast<size_t>(lwork));
  trf(&u, &n, ref_a.data(), &lda, ref_ipiv.data(), work.data(), &lwork, &ref_info, 1);
  std::vector<T> ref_x(b0.storage.begin() + 1, b0.storage.end());
  int ref_solve_info = 0;
  if (ref_info == 0) trs(&u, &n, &nrhs, ref_a.data(), &lda, ref_ipiv.data(), ref_x.data(), &ldb, &ref_solve_info, 1);

  // Compares a GPU factor with the reference's; false at the first difference of kind.
  double amax = 0;
  for (int j = 0; j < n; ++j)
    for (int i = upper ? 0 : j; i < (upper ? j + 1 : n); ++i) amax = std::max(amax, magnitude(ref_a[size_t(i) + size_t(j) * lda]));
  auto compare_factor = [&](const char *who, const Offset<T> &got, const std::vector<int> &ipiv, int info) {
    if (!report(info == ref_info, std::string(name) + " " + who + ": INFO " + std::to_string(info) + ", reference " +
                                      std::to_string(ref_info)))
      return false;
    for (int k = 0; k < n; ++k)
      if (!report(ipiv[size_t(k)] == ref_ipiv[size_t(k)],
                  std::string(name) + " " + who + ": IPIV(" + std::to_string(k + 1) + ") = " +
                      std::to_string(ipiv[size_t(k)]) + ", reference " + std::to_string(ref_ipiv[size_t(k)])))
        return false;
    double worst = 0;
    int wi = 0, wj = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < lda; ++i) {
        const size_t e = size_t(i) + size_t(j) * lda;
        const bool stored = i < n && (upper ? i <= j : i >= j);
        if (!stored) {
          if (!report(std::memcmp(&got[e], &a0[e], sizeof(T)) == 0,
                      std::string(name) + " " + who + ": A(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                          ") outside the triangle changed"))
            return false;
          continue;
        }
        const double d = magnitude(got[e] - ref_a[e]);
        if (!(d <= worst)) worst = d, wi = i, wj = j;
      }
    const double tol = 50.0 * std::max(1, n) * eps * std::max(1.0, amax);
    return report(worst <= tol, std::string(name) + " " + who + ": factor differs at (" + std::to_string(wi + 1) + "," +
                                    std::to_string(wj + 1) + "): " + show(got[size_t(wi) + size_t(wj) * lda]) +
                                    ", reference " + show(ref_a[size_t(wi) + size_t(wj) * lda]) + " (tolerance " +
                                    std::to_string(tol) + ")");
  };
  // X against the reference's and the residual with the original A.
  auto compare_x = [&](const char *who, const Offset<T> &x) {
    double anorm = 0, xnorm = 0, rnorm = 0, dx = 0, rx = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) anorm = std::max(anorm, magnitude(full(a0.data(), lda, upper, herm, i, j)));
    for (int c = 0; c < nrhs; ++c)
      for (int i = 0; i < n; ++i) {
        const size_t e = size_t(i) + size_t(c) * ldb;
        xnorm = std::max(xnorm, magnitude(x[e]));
        rx = std::max(rx, magnitude(ref_x[e]));
        dx = std::max(dx, magnitude(x[e] - ref_x[e]));
        T r = b0[e];
        for (int k = 0; k < n; ++k) r = r - full(a0.data(), lda, upper, herm, i, k) * x[size_t(k) + size_t(c) * ldb];
        rnorm = std::max(rnorm, magnitude(r));
      }
    const double residual = rnorm / (std::max(anorm * xnorm, 1e-300) * std::max(1, n) * eps);
    bool ok = report(residual < 100, std::string(name) + " " + who + ": residual " + std::to_string(residual));
    // X's difference is bounded by the condition number: loose, against gross errors only.
    ok = report(dx <= 1e-2 * std::max(rx, 1e-300) || residual < 100,
                std::string(name) + " " + who + ": X differs from the reference's by " + std::to_string(dx)) && ok;
    for (int c = 0; c < nrhs; ++c)
      for (int i = n; i < ldb; ++i) {
        const size_t e = size_t(i) + size_t(c) * ldb;
        if (!report(std::memcmp(&x[e], &b0[e], sizeof(T)) == 0, std::string(name) + " " + who + ": B's padding changed"))
          return false;
      }
    return ok;
  };

  // sytrf_host, then sytrs_host on its factor.
  Offset<T> a = a0;
  std::vector<int> ipiv(size_t(n), -12345);
  int info = -1;
  cudrop::Status s = cudrop::impl::sytrf_host<T>(symmetry, uplo, n, a.data(), lda, ipiv.data(), &info);
  if (!report(s == cudrop::Status::ok, std::string(name) + ": sytrf_host status " + std::to_string(int(s)))) return;
  compare_factor("sytrf_host", a, ipiv, info);
  if (ref_info == 0) {
    Offset<T> x = b0;
    cudrop::impl::SolveProgress progress;
    s = cudrop::impl::sytrs_host<T>(symmetry, uplo, n, nrhs, a.data(), lda, ipiv.data(), x.data(), ldb, &progress);
    if (report(s == cudrop::Status::ok, std::string(name) + ": sytrs_host status " + std::to_string(int(s))))
      compare_x("sytrs_host", x);
  }
  // sysv_host.
  Offset<T> av = a0, xv = b0;
  std::vector<int> ipv(size_t(n), -12345);
  int infov = -1;
  cudrop::impl::SysvProgress progress;
  s = cudrop::impl::sysv_host<T>(symmetry, uplo, n, nrhs, av.data(), lda, ipv.data(), xv.data(), ldb, &infov,
                                 &progress);
  if (!report(s == cudrop::Status::ok, std::string(name) + ": sysv_host status " + std::to_string(int(s)))) return;
  compare_factor("sysv_host", av, ipv, infov);
  if (ref_info == 0) compare_x("sysv_host", xv);
  else
    report(std::memcmp(xv.storage.data(), b0.storage.data(), b0.storage.size() * sizeof(T)) == 0,
           std::string(name) + " sysv_host: B changed although INFO > 0");
}

template <class T>
bool run_precision(const harness::ReferenceLapack &ref, int max_n, Rng &rng) {
  const Lapack<T> l = routines<T>(ref);
  if (l.sytrf == nullptr || l.sytrs == nullptr || (cudrop::is_complex_v<T> && (l.hetrf == nullptr || l.hetrs == nullptr))) {
    std::printf("sytrf_device_test: the reference LAPACK lacks %ssytrf_ or a sibling\n", letter<T>());
    return false;
  }
  const int sizes[] = {1, 2, 3, 7, 33, 64, 65, 100, 130, 257, 1007};
  const int before = failures;
  for (Symmetry sym : {Symmetry::symmetric, Symmetry::hermitian}) {
    if (sym == Symmetry::hermitian && !cudrop::is_complex_v<T>) continue;
    for (Uplo uplo : {Uplo::lower, Uplo::upper})
      for (int n : sizes) {
        if (n > max_n) continue;
        for (Kind kind : {Kind::random, Kind::tiny_diagonal, Kind::zero, Kind::half_singular}) {
          if (kind == Kind::zero && n > 100) continue;
          run<T>(l, sym, uplo, n, kind, rng);
        }
      }
  }
  std::printf("%s: %s\n", letter<T>(), failures == before ? "ok" : "FAILURES");
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  bool require = false;
  int max_n = 1007;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--require-gpu") == 0) require = true;
    else if (std::strcmp(argv[k], "--max-n") == 0 && k + 1 < argc) max_n = std::atoi(argv[++k]);
    else if (std::strcmp(argv[k], "--big") == 0) max_n = std::max(max_n, 1007);
    else {
      std::printf("usage: %s [--require-gpu] [--max-n N] [--big]\n", argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("sytrf_device_test: %s: no usable GPU\n", require ? "FAIL" : "SKIP");
    return require ? 1 : 77;  // ctest's SKIP_RETURN_CODE
  }
  const harness::ReferenceLapack ref = harness::load_reference_lapack(
      {"dsytrf_", "ssytrf_", "csytrf_", "zsytrf_", "chetrf_", "zhetrf_", "dsytrs_", "zhetrs_"}, true);
  if (!ref) {
    std::printf("sytrf_device_test: SKIP: no reference LAPACK to compare with\n");
    return 77;
  }
  std::printf("reference: %s\n", ref.how.c_str());
  Rng rng(17);
  bool complete = run_precision<double>(ref, max_n, rng);
  complete = run_precision<float>(ref, max_n, rng) && complete;
  complete = run_precision<Complex<double>>(ref, max_n, rng) && complete;
  complete = run_precision<Complex<float>>(ref, max_n, rng) && complete;
  report(complete, "a precision's reference routines are missing");
  std::printf("sytrf_device_test: %d checks, %d failures\n%s\n", checks, failures, failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
