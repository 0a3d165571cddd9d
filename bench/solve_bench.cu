// Linear-solve drivers (xGESV, xPOSV) benchmark, one run, same matrices:
//  * cudrop host->host through the exported sgesv_/dgesv_, sposv_/dposv_ (pageable malloc'd A
//    and B, wall clock, transfers included; every call must have run on the GPU: checked on the
//    counters);
//  * cuSOLVER driven by hand from the same host arrays: pageable cudaMemcpy of A and B up,
//    getrf + getrs (potrf + potrs), A, IPIV, INFO and X back (wall clock; device buffers and
//    the cuSOLVER workspace allocated beforehand, untimed): what a program that ports its
//    xGESV call to cuSOLVER by hand gets, and the bar cudrop's goal is set against;
//  * cuSOLVER device-only (CUDA events): the math alone.
// Median of --reps (default 3) after one warm-up each. Spot check: the solution residual of
// B's first column, ||A x - b||_inf / (n ||A||_inf ||x||_inf eps), for cudrop and cuSOLVER.
//   cudrop-solve-bench [--sizes 8192,16384] [--nrhs 1,100,1000] [--prec sd] [--reps 3] [--routines gesv,posv]
// --routines getrs,potrs times the solves alone through the public entries instead (no
// cuSOLVER; run once more with CUDROP_MODE=cpu for the CPU LAPACK's time: the crossover of
// CUDROP_SOLVE_MIN_FLOPS).
// Output: one line per routine, precision, n and nrhs:
//   gesv d n=8192 nrhs1 cudrop_e2e_ms=.. cusolver_host_ms=.. cusolver_ms=.. speedup=.. ...
// (speedup: cusolver_host_ms / cudrop_e2e_ms.)
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_common.cuh"
#include "cudrop.h"

namespace {

template <class T> struct Api {
  static constexpr bool single = std::is_same_v<T, float>;
  static constexpr const char *prec = single ? "s" : "d";
  static void gesv(const int *n, const int *nrhs, T *a, const int *lda, int *ipiv, T *b, const int *ldb, int *info) {
    if constexpr (single) sgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
    else dgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
  }
  static void posv(const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb, int *info) {
    if constexpr (single) sposv_("L", n, nrhs, a, lda, b, ldb, info, 1);
    else dposv_("L", n, nrhs, a, lda, b, ldb, info, 1);
  }
  // The factorization alone (cudrop's), and the solve with it.
  static void factor(bool lu, const int *n, T *a, int *ipiv, int *info) {
    const int zero = 0;
    if (lu) gesv(n, &zero, a, n, ipiv, nullptr, n, info);
    else posv(n, &zero, a, n, nullptr, n, info);
  }
  static void solve_with(bool lu, const int *n, const int *nrhs, const T *a, const int *ipiv, T *b, int *info) {
    if constexpr (single) {
      if (lu) sgetrs_("N", n, nrhs, a, n, ipiv, b, n, info, 1);
      else spotrs_("L", n, nrhs, a, n, b, n, info, 1);
    } else {
      if (lu) dgetrs_("N", n, nrhs, a, n, ipiv, b, n, info, 1);
      else dpotrs_("L", n, nrhs, a, n, b, n, info, 1);
    }
  }
  static int lwork(cusolverDnHandle_t h, bool lu, int n, T *a) {
    int w = 0;
    if constexpr (single) {
      if (lu) CHECK_CUSOLVER(cusolverDnSgetrf_bufferSize(h, n, n, a, n, &w));
      else CHECK_CUSOLVER(cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, &w));
    } else {
      if (lu) CHECK_CUSOLVER(cusolverDnDgetrf_bufferSize(h, n, n, a, n, &w));
      else CHECK_CUSOLVER(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, &w));
    }
    return w;
  }
  // Factor and solve on the device: getrf + getrs, or potrf + potrs (lower).
  static void solve(cusolverDnHandle_t h, bool lu, int n, int nrhs, T *a, T *b, T *work, int lwork, int *ipiv,
                    int *info) {
    if constexpr (single) {
      if (lu) {
        CHECK_CUSOLVER(cusolverDnSgetrf(h, n, n, a, n, work, ipiv, info));
        CHECK_CUSOLVER(cusolverDnSgetrs(h, CUBLAS_OP_N, n, nrhs, a, n, ipiv, b, n, info));
      } else {
        CHECK_CUSOLVER(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, work, lwork, info));
        CHECK_CUSOLVER(cusolverDnSpotrs(h, CUBLAS_FILL_MODE_LOWER, n, nrhs, a, n, b, n, info));
      }
    } else {
      if (lu) {
        CHECK_CUSOLVER(cusolverDnDgetrf(h, n, n, a, n, work, ipiv, info));
        CHECK_CUSOLVER(cusolverDnDgetrs(h, CUBLAS_OP_N, n, nrhs, a, n, ipiv, b, n, info));
      } else {
        CHECK_CUSOLVER(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, work, lwork, info));
        CHECK_CUSOLVER(cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, nrhs, a, n, b, n, info));
      }
    }
  }
};

// ||A x - b||_inf / (n ||A||_inf ||x||_inf eps) for B's first column (A whole, both triangles).
template <class T>
double residual(int n, const std::vector<T> &a, const T *b, const T *x) {
  std::vector<double> r(n), rowsum(n, 0.0);
  for (int i = 0; i < n; ++i) r[i] = -double(b[i]);
  for (int j = 0; j < n; ++j) {
    const double xj = double(x[j]);
    const T *col = a.data() + size_t(j) * n;
    for (int i = 0; i < n; ++i) {
      r[i] += double(col[i]) * xj;
      rowsum[i] += std::fabs(double(col[i]));
    }
  }
  double rn = 0, an = 0, xn = 0;
  for (int i = 0; i < n; ++i) {
    rn = std::max(rn, std::fabs(r[i]));
    an = std::max(an, rowsum[i]);
    xn = std::max(xn, std::fabs(double(x[i])));
  }
  return rn / (double(n) * an * xn * std::numeric_limits<T>::epsilon());
}

// A random system: A uniform in [-0.5, 0.5) (xPOSV: symmetric with n on the diagonal, positive
// definite), B likewise, from a fixed seed.
template <class T>
void random_system(bool lu, int n, unsigned long long state, std::vector<T> *a, std::vector<T> *b) {
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return T(double(state >> 11) / 9007199254740992.0 - 0.5);
  };
  for (int j = 0; j < n; ++j)
    for (int i = lu ? 0 : j; i < n; ++i) {
      const T v = lu ? next() : (i == j ? T(n) : next());
      (*a)[size_t(i) + size_t(j) * n] = v;
      if (!lu) (*a)[size_t(j) + size_t(i) * n] = v;
    }
  for (T &v : *b) v = next();
}

template <class T>
void run(bool lu, int n, int nrhs, int reps, cusolverDnHandle_t handle, cudaStream_t stream) {
  const size_t count = size_t(n) * n, bcount = size_t(n) * nrhs;
  std::vector<T> pristine(count), a(count), b0(bcount), b(bcount);
  random_system(lu, n, 12345 + n + nrhs, &pristine, &b0);
  std::vector<int> ipiv(n);
  int info = 0;
  bool on_gpu = false;
  const double e2e_ms = bench::host_median_ms(
      reps,
      [&] {
        std::memcpy(a.data(), pristine.data(), count * sizeof(T));
        std::memcpy(b.data(), b0.data(), bcount * sizeof(T));
      },
      [&] {
        if (lu) Api<T>::gesv(&n, &nrhs, a.data(), &n, ipiv.data(), b.data(), &n, &info);
        else Api<T>::posv(&n, &nrhs, a.data(), &n, b.data(), &n, &info);
      },
      &on_gpu);
  const double ours = residual<T>(n, pristine, b0.data(), b.data());
  const int our_info = info;

  // cuSOLVER from the same host arrays, by hand.
  T *dA = nullptr, *dB = nullptr, *dWork = nullptr, *dPristine = nullptr, *dB0 = nullptr;
  int *dIpiv = nullptr;
  CHECK_CUDA(cudaMalloc(&dA, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dPristine, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dB, bcount * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dB0, bcount * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dIpiv, (size_t(n) + 1) * sizeof(int)));
  int *dInfo = dIpiv + n;
  CHECK_CUSOLVER(cusolverDnSetStream(handle, stream));
  const int lwork = Api<T>::lwork(handle, lu, n, dA);
  CHECK_CUDA(cudaMalloc(&dWork, std::max<size_t>(1, size_t(lwork)) * sizeof(T)));
  std::vector<double> host_times;
  for (int r = 0; r <= reps; ++r) {
    std::memcpy(a.data(), pristine.data(), count * sizeof(T));
    std::memcpy(b.data(), b0.data(), bcount * sizeof(T));
    const double t0 = bench::now();
    CHECK_CUDA(cudaMemcpy(dA, a.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, b.data(), bcount * sizeof(T), cudaMemcpyHostToDevice));
    Api<T>::solve(handle, lu, n, nrhs, dA, dB, dWork, lwork, dIpiv, dInfo);
    CHECK_CUDA(cudaMemcpy(a.data(), dA, count * sizeof(T), cudaMemcpyDeviceToHost));
    if (lu) CHECK_CUDA(cudaMemcpy(ipiv.data(), dIpiv, size_t(n) * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&info, dInfo, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(b.data(), dB, bcount * sizeof(T), cudaMemcpyDeviceToHost));
    if (r > 0) host_times.push_back((bench::now() - t0) * 1e3);
  }
  const double host_ms = bench::median(host_times);
  const double theirs = residual<T>(n, pristine, b0.data(), b.data());

  CHECK_CUDA(cudaMemcpy(dPristine, pristine.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB0, b0.data(), bcount * sizeof(T), cudaMemcpyHostToDevice));
  const double dev_ms = bench::device_median_ms(
      stream, 1, reps,
      [&] {
        CHECK_CUDA(cudaMemcpyAsync(dA, dPristine, count * sizeof(T), cudaMemcpyDeviceToDevice, stream));
        CHECK_CUDA(cudaMemcpyAsync(dB, dB0, bcount * sizeof(T), cudaMemcpyDeviceToDevice, stream));
      },
      [&] { Api<T>::solve(handle, lu, n, nrhs, dA, dB, dWork, lwork, dIpiv, dInfo); });

  const double flops = (lu ? 2.0 / 3.0 : 1.0 / 3.0) * double(n) * n * n + 2.0 * double(n) * n * nrhs;
  std::printf("%s %s n=%d nrhs%d nrhs=%d cudrop_e2e_ms=%.2f cudrop_tflops=%.2f cusolver_host_ms=%.2f "
              "cusolver_ms=%.2f cusolver_tflops=%.2f speedup=%.2f on_gpu=%s resid=%.2g cusolver_resid=%.2g "
              "info=%d/%d\n",
              lu ? "gesv" : "posv", Api<T>::prec, n, nrhs, nrhs, e2e_ms, flops / e2e_ms / 1e9, host_ms, dev_ms,
              flops / dev_ms / 1e9, host_ms / e2e_ms, on_gpu ? "yes" : "NO", ours, theirs, our_info, info);
  std::fflush(stdout);
  cudaFree(dA); cudaFree(dPristine); cudaFree(dB); cudaFree(dB0); cudaFree(dIpiv); cudaFree(dWork);
}

// ?getrs_/?potrs_ alone, host->host through the public entry (the factor made once by cudrop,
// untimed): with CUDROP_MODE=cpu the same line gives the CPU LAPACK's time, the crossover that
// CUDROP_SOLVE_MIN_FLOPS sets.
template <class T>
void run_solve(bool lu, int n, int nrhs, int reps) {
  const size_t count = size_t(n) * n, bcount = size_t(n) * nrhs;
  std::vector<T> a(count), b0(bcount), b(bcount);
  random_system(lu, n, 777 + n + nrhs, &a, &b0);
  std::vector<int> ipiv(n);
  int info = 0;
  Api<T>::factor(lu, &n, a.data(), ipiv.data(), &info);
  bool on_gpu = false;
  const double ms = bench::host_median_ms(
      reps, [&] { std::memcpy(b.data(), b0.data(), bcount * sizeof(T)); },
      [&] { Api<T>::solve_with(lu, &n, &nrhs, a.data(), ipiv.data(), b.data(), &info); }, &on_gpu);
  std::printf("%s %s n=%d nrhs%d nrhs=%d cudrop_e2e_ms=%.2f solve_flops=%.3g on_gpu=%s info=%d\n",
              lu ? "getrs" : "potrs", Api<T>::prec, n, nrhs, nrhs, ms, 2.0 * double(n) * n * nrhs,
              on_gpu ? "yes" : "no", info);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {8192, 16384}, rhs = {1, 100, 1000};
  std::string prec = "sd", routines = "gesv,posv";
  int reps = 3;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--sizes") && has_value) sizes = bench::parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--nrhs") && has_value) rhs = bench::parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--prec") && has_value) prec = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && has_value) reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--routines") && has_value) routines = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--sizes a,b] [--nrhs 1,100,1000] [--prec sd] [--reps N] [--routines gesv,posv]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!bench::gpu_present("solve")) return 0;
  const cudaStream_t stream = bench::open_device(cudaStreamNonBlocking);
  cusolverDnHandle_t handle;
  CHECK_CUSOLVER(cusolverDnCreate(&handle));
  for (const char *routine : {"gesv", "posv", "getrs", "potrs"}) {
    if (routines.find(routine) == std::string::npos) continue;
    const bool lu = routine[0] == 'g', driver = std::strlen(routine) == 4;
    for (char p : prec)
      for (int n : sizes)
        for (int nrhs : rhs) {
          if (driver && p == 's') run<float>(lu, n, nrhs, reps, handle, stream);
          else if (driver && p == 'd') run<double>(lu, n, nrhs, reps, handle, stream);
          else if (p == 's') run_solve<float>(lu, n, nrhs, reps);
          else if (p == 'd') run_solve<double>(lu, n, nrhs, reps);
        }
  }
  cusolverDnDestroy(handle);
  return 0;
}
