// impl::gebrd_device and impl::apply_p_device (impl/svd/svd.h), the SVD's bidiagonal reduction
// on device arrays, against the reference LAPACK's xGEBRD and xORMBR/xUNMBR; s, d, c, z, m >= n,
// device leading dimensions past m (their padding rows must be unchanged). For each shape:
//   - d, e, tauq, taup and the factor (the reflectors' vectors, d and e in place) against the
//     CPU's xGEBRD on the same matrix, within 10 max(m, n) eps ||A||_F (the two round differently);
//   - ||A - Q B P^H||_F / (||A||_F max(m, n) eps) < 30, Q and P^H applied to B by the CPU's xORMBR
//     from the GPU's factor;
//   - apply_p_device (C := C P^H) and ormqr_device(left, none) on the factor as gebrd's Q (C := Q C),
//     against xORMBR('P', 'R', 'C'/'T') and xORMBR('Q', 'L', 'N') on the same factor;
//   - a matrix scaled near underflow sets the flag (the CPU routine's case) and returns.
// --big: 1007 x 1007 too.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/complex.h"
#include "core/options.h"
#include "impl/qr/qr.h"
#include "impl/svd/svd.h"
#include "tests/harness/check.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace {

using cudrop::Complex;
using cudrop::real_t;

template <class T> const char *letter() {
  if constexpr (std::is_same_v<T, float>) return "s";
  else if constexpr (std::is_same_v<T, double>) return "d";
  else if constexpr (std::is_same_v<T, Complex<float>>) return "c";
  else return "z";
}

template <class T>
using GebrdFn = void (*)(const int *, const int *, T *, const int *, real_t<T> *, real_t<T> *, T *, T *, T *,
                         const int *, int *);
template <class T>
using OrmbrFn = void (*)(const char *, const char *, const char *, const int *, const int *, const int *, const T *,
                         const int *, const T *, T *, const int *, T *, const int *, int *, size_t, size_t, size_t);

template <class T>
struct Lapack {
  GebrdFn<T> gebrd = nullptr;
  OrmbrFn<T> ormbr = nullptr;
};

template <class T>
Lapack<T> routines(const harness::ReferenceLapack &ref) {
  const bool cplx = cudrop::is_complex_v<T>;
  const std::string p = letter<T>();
  Lapack<T> l;
  l.gebrd = ref.symbol<GebrdFn<T>>((p + "gebrd_").c_str());
  l.ormbr = ref.symbol<OrmbrFn<T>>((p + (cplx ? "unmbr_" : "ormbr_")).c_str());
  return l;
}

template <class T> T random_value(Rng &rng) {
  if constexpr (cudrop::is_complex_v<T>) return T(real_t<T>(rng.symmetric()), real_t<T>(rng.symmetric()));
  else return T(rng.symmetric());
}
template <class T> double magnitude(T v) {
  if constexpr (cudrop::is_complex_v<T>) return std::hypot(double(v.re), double(v.im));
  else return std::fabs(double(v));
}
template <class T> double frobenius(const std::vector<T> &a, int rows, int cols, int ld) {
  double s = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) s += magnitude(a[size_t(i) + size_t(j) * ld]) * magnitude(a[size_t(i) + size_t(j) * ld]);
  return std::sqrt(s);
}
template <class T> double difference(const std::vector<T> &a, const std::vector<T> &b, int rows, int cols, int ld) {
  double s = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      const size_t e = size_t(i) + size_t(j) * ld;
      const double d = magnitude(a[e] - b[e]);
      s += d * d;
    }
  return std::sqrt(s);
}

// xORMBR on host arrays with its optimal workspace.
template <class T>
int ormbr(const Lapack<T> &l, char vect, char side, char trans, int m, int n, int k, const std::vector<T> &a, int lda,
          const std::vector<T> &tau, std::vector<T> &c, int ldc) {
  int info = 0, lwork = -1;
  T query = T(0);
  l.ormbr(&vect, &side, &trans, &m, &n, &k, a.data(), &lda, tau.data(), c.data(), &ldc, &query, &lwork, &info, 1, 1, 1);
  lwork = std::max(1, int(cudrop::real_part(query)));
  std::vector<T> work(static_cast<size_t>(lwork));
  l.ormbr(&vect, &side, &trans, &m, &n, &k, a.data(), &lda, tau.data(), c.data(), &ldc, work.data(), &lwork, &info, 1,
          1, 1);
  return info;
}

template <class T>
struct Device {
  T *p = nullptr;
  explicit Device(size_t count) { cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T)); }
  ~Device() { cudaFree(p); }
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
};

// scale != 1: A scaled near underflow; only the flag is checked.
template <class T>
void run(const Lapack<T> &lapack, int m, int n, Rng &rng, double scale = 1) {
  using R = real_t<T>;
  const char *prec = letter<T>();
  const bool special = scale != 1;
  const int lda = m, ldda = m + 3;
  const double eps = sizeof(R) == 4 ? FLT_EPSILON : DBL_EPSILON;
  std::vector<T> a(size_t(lda) * n);
  for (T &v : a) v = random_value<T>(rng) * R(scale);
  const T pad = T(R(7));
  std::vector<T> padded(size_t(ldda) * n, pad);
  for (int j = 0; j < n; ++j)
    std::copy(a.begin() + size_t(j) * lda, a.begin() + size_t(j) * lda + m, padded.begin() + size_t(j) * ldda);

  Device<T> dA(padded.size()), tauq(n), taup(n);
  Device<R> d(n), e(n);
  Device<int> flag(1);
  const size_t work_bytes = cudrop::impl::gebrd_device_workspace<T>(m, n);
  Device<char> work(work_bytes);
  cudaMemcpy(dA.p, padded.data(), padded.size() * sizeof(T), cudaMemcpyHostToDevice);
  const cudrop::Status s = cudrop::impl::gebrd_device<T>(m, n, dA.p, size_t(ldda), d.p, e.p, tauq.p, taup.p, flag.p,
                                                         work.p, work_bytes, nullptr);
  cudaError_t error = cudaDeviceSynchronize();
  std::vector<T> got(padded.size()), gq(n), gp(n);
  std::vector<R> gd(n), ge(n);
  int gflag = -1;
  if (error == cudaSuccess) error = cudaMemcpy(got.data(), dA.p, got.size() * sizeof(T), cudaMemcpyDeviceToHost);
  if (error == cudaSuccess) error = cudaMemcpy(gq.data(), tauq.p, n * sizeof(T), cudaMemcpyDeviceToHost);
  if (error == cudaSuccess) error = cudaMemcpy(gp.data(), taup.p, n * sizeof(T), cudaMemcpyDeviceToHost);
  if (error == cudaSuccess) error = cudaMemcpy(gd.data(), d.p, n * sizeof(R), cudaMemcpyDeviceToHost);
  if (error == cudaSuccess && n > 1) error = cudaMemcpy(ge.data(), e.p, (n - 1) * sizeof(R), cudaMemcpyDeviceToHost);
  if (error == cudaSuccess) error = cudaMemcpy(&gflag, flag.p, sizeof(int), cudaMemcpyDeviceToHost);
  CHECK(s == cudrop::Status::ok && error == cudaSuccess, "%s m=%d n=%d: gebrd_device status %d, %s", prec, m, n,
        int(s), cudaGetErrorString(error));
  if (s != cudrop::Status::ok || error != cudaSuccess) return;
  if (special) {
    CHECK(gflag == 1, "%s m=%d n=%d scaled by %g: flag %d, want 1 (the CPU routine's case)", prec, m, n, scale, gflag);
    return;
  }
  CHECK(gflag == 0, "%s m=%d n=%d: flag %d, want 0", prec, m, n, gflag);
  long pad_changed = 0;
  for (int j = 0; j < n; ++j)
    for (int i = m; i < ldda; ++i) pad_changed += std::memcmp(&got[size_t(i) + size_t(j) * ldda], &pad, sizeof(T)) != 0;
  CHECK(pad_changed == 0, "%s m=%d n=%d: %ld padding elements changed", prec, m, n, pad_changed);
  // The GPU's factor with the reference's leading dimension.
  std::vector<T> f(size_t(lda) * n);
  for (int j = 0; j < n; ++j)
    std::copy(got.begin() + size_t(j) * ldda, got.begin() + size_t(j) * ldda + m, f.begin() + size_t(j) * lda);

  // The CPU's xGEBRD on the same matrix.
  std::vector<T> ra = a, rq(n), rp(n);
  std::vector<R> rd(n), re(std::max(1, n - 1));
  int info = 0, lwork = -1;
  T query = T(0);
  lapack.gebrd(&m, &n, ra.data(), &lda, rd.data(), re.data(), rq.data(), rp.data(), &query, &lwork, &info);
  lwork = std::max(1, int(cudrop::real_part(query)));
  std::vector<T> w(static_cast<size_t>(lwork));
  lapack.gebrd(&m, &n, ra.data(), &lda, rd.data(), re.data(), rq.data(), rp.data(), w.data(), &lwork, &info);
  CHECK(info == 0, "%s m=%d n=%d: reference gebrd info %d", prec, m, n, info);
  const double norm_a = frobenius(a, m, n, lda), unit = std::max(m, n) * eps * std::max(norm_a, 1e-300);
  double worst_de = 0, worst_tau = 0, worst_factor = 0;
  for (int i = 0; i < n; ++i) {
    worst_de = std::max(worst_de, std::fabs(double(gd[i]) - double(rd[i])));
    if (i + 1 < n) worst_de = std::max(worst_de, std::fabs(double(ge[i]) - double(re[i])));
    worst_tau = std::max({worst_tau, magnitude(gq[i] - rq[i]), magnitude(gp[i] - rp[i])});
  }
  for (size_t k = 0; k < f.size(); ++k) worst_factor = std::max(worst_factor, magnitude(f[k] - ra[k]));
  CHECK(worst_de <= 10 * unit, "%s m=%d n=%d: d, e differ from the reference by %.3g (%.3g max(m,n) eps ||A||)", prec,
        m, n, worst_de, worst_de / unit);
  CHECK(worst_tau <= 10 * unit, "%s m=%d n=%d: tauq, taup differ from the reference by %.3g (%.3g max(m,n) eps ||A||)",
        prec, m, n, worst_tau, worst_tau / unit);
  CHECK(worst_factor <= 10 * unit, "%s m=%d n=%d: the factor differs from the reference by %.3g (%.3g max(m,n) eps ||A||)",
        prec, m, n, worst_factor, worst_factor / unit);
  CHECK(magnitude(gp[n - 1]) == 0, "%s m=%d n=%d: taup(n) is not zero", prec, m, n);

  // A = Q B P^H from the GPU's factor.
  const char ct = cudrop::is_complex_v<T> ? 'C' : 'T';
  std::vector<T> b(size_t(m) * n, T(0));
  for (int i = 0; i < n; ++i) {
    b[size_t(i) + size_t(i) * m] = T(gd[i]);
    if (i + 1 < n) b[size_t(i) + size_t(i + 1) * m] = T(ge[i]);
  }
  int i1 = ormbr(lapack, 'Q', 'L', 'N', m, n, n, f, lda, gq, b, m);
  int i2 = ormbr(lapack, 'P', 'R', ct, m, n, m, f, lda, gp, b, m);
  const double backward = difference(a, b, m, n, m) / unit;
  CHECK(i1 == 0 && i2 == 0 && backward < 30, "%s m=%d n=%d: ||A - Q B P^H|| = %.3g max(m,n) eps ||A|| (ormbr info %d %d)",
        prec, m, n, backward, i1, i2);

  // apply_p_device: C (kc x n) := C P^H.
  {
    const int kc = n + 2, lddc = kc + 2;
    std::vector<T> c(size_t(lddc) * n);
    for (T &v : c) v = random_value<T>(rng);
    Device<T> dC(c.size());
    const size_t bytes = cudrop::impl::apply_p_device_workspace<T>(kc, n);
    Device<char> pw(bytes);
    cudaMemcpy(dC.p, c.data(), c.size() * sizeof(T), cudaMemcpyHostToDevice);
    const cudrop::Status sp = cudrop::impl::apply_p_device<T>(kc, n, dA.p, size_t(ldda), taup.p, dC.p, size_t(lddc),
                                                             pw.p, bytes, nullptr);
    std::vector<T> gc(c.size());
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaMemcpy(gc.data(), dC.p, gc.size() * sizeof(T), cudaMemcpyDeviceToHost);
    CHECK(sp == cudrop::Status::ok && err == cudaSuccess, "%s m=%d n=%d: apply_p_device status %d, %s", prec, m, n,
          int(sp), cudaGetErrorString(err));
    const double norm_c = frobenius(c, kc, n, lddc);
    const int ip = ormbr(lapack, 'P', 'R', ct, kc, n, m, f, lda, gp, c, lddc);
    const double ratio = difference(gc, c, kc, n, lddc) / (std::max(kc, n) * eps * norm_c);
    CHECK(ip == 0 && ratio < 10, "%s m=%d n=%d: apply_p_device vs ormbr('P','R','%c'): %.3g max(k,n) eps ||C||", prec, m,
          n, ct, ratio);
  }
  // ormqr_device as gebrd's Q: C (m x kq) := Q C.
  {
    const int kq = 5, lddc = m + 1;
    std::vector<T> c(size_t(lddc) * kq);
    for (T &v : c) v = random_value<T>(rng);
    Device<T> dC(c.size());
    const size_t bytes = cudrop::impl::ormqr_device_workspace<T>(cudrop::Side::left, m, kq, n);
    Device<char> qw(bytes);
    cudaMemcpy(dC.p, c.data(), c.size() * sizeof(T), cudaMemcpyHostToDevice);
    const cudrop::Status sq = cudrop::impl::ormqr_device<T>(cudrop::Side::left, cudrop::Op::none, m, kq, n, dA.p,
                                                           size_t(ldda), tauq.p, dC.p, size_t(lddc), qw.p, bytes, nullptr);
    std::vector<T> gc(c.size());
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaMemcpy(gc.data(), dC.p, gc.size() * sizeof(T), cudaMemcpyDeviceToHost);
    CHECK(sq == cudrop::Status::ok && err == cudaSuccess, "%s m=%d n=%d: ormqr_device status %d, %s", prec, m, n,
          int(sq), cudaGetErrorString(err));
    const double norm_c = frobenius(c, m, kq, lddc);
    const int iq = ormbr(lapack, 'Q', 'L', 'N', m, kq, n, f, lda, gq, c, lddc);
    const double ratio = difference(gc, c, m, kq, lddc) / (m * eps * norm_c);
    CHECK(iq == 0 && ratio < 10, "%s m=%d n=%d: ormqr_device as Q vs ormbr('Q','L','N'): %.3g m eps ||C||", prec, m, n,
          ratio);
  }
}

template <class T>
bool run_precision(const harness::ReferenceLapack &ref, bool big, Rng &rng) {
  const Lapack<T> l = routines<T>(ref);
  if (l.gebrd == nullptr || l.ormbr == nullptr) {
    std::printf("gebrd_device_test: the reference LAPACK lacks %sgebrd_ or its xORMBR\n", letter<T>());
    return false;
  }
  const int shapes[][2] = {{1, 1}, {7, 7}, {33, 7}, {64, 64}, {100, 37}, {257, 129}, {1007, 1007}};
  for (const auto &shape : shapes) {
    if (shape[0] > 300 && !big) continue;
    run<T>(l, shape[0], shape[1], rng);
  }
  // Squares near underflow: xLARFG would rescale (kernels/householder.cuh's rule).
  run<T>(l, 33, 7, rng, sizeof(real_t<T>) == 4 ? 1e-37 : 1e-140);
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  bool big = false;
  for (int k = 1; k < argc; ++k) big = big || std::strcmp(argv[k], "--big") == 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("gebrd_device_test: SKIP: no usable GPU\n");
    return 77;  // ctest's SKIP_RETURN_CODE
  }
  const harness::ReferenceLapack ref =
      harness::load_reference_lapack({"dgebrd_", "sgebrd_", "cgebrd_", "zgebrd_", "dormbr_", "sormbr_", "cunmbr_", "zunmbr_"},
                                     true);
  if (!ref) {
    std::printf("gebrd_device_test: SKIP: no reference LAPACK to compare with\n");
    return 77;
  }
  std::printf("reference: %s\n", ref.how.c_str());
  Rng rng(11);
  bool complete = run_precision<float>(ref, big, rng);
  complete = run_precision<double>(ref, big, rng) && complete;
  complete = run_precision<Complex<float>>(ref, big, rng) && complete;
  complete = run_precision<Complex<double>>(ref, big, rng) && complete;
  CHECK(complete, "a precision's reference routines are missing");
  std::printf("gebrd_device_test: %d checks, %d failures\n%s\n", checks, failures, failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
