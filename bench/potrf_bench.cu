// Cholesky (xPOTRF) benchmark, one run, same matrices:
//  * cudrop host->host through the exported ?potrf_ (pageable malloc'd SPD/HPD matrix,
//    both triangles filled as a user would have it, wall clock, transfers included; the calls
//    must have run on the GPU: checked on the counters);
//  * cudrop device-only (impl::potrf_device, CUDA events), to separate transfers from math;
//  * cuSOLVER's device-only cusolverDnSpotrf/Dpotrf, cusolverDnXpotrf with CUDA_C_32F/C_64F
//    for c and z (CUDA events): the reference we are measured against (it appears only here);
//  * cuSOLVER driven by hand from the same host array (wall clock: upload, factor, download),
//    cudrop's host->host counterpart (ratio_h2h = its time / cudrop's).
// Median of --reps (default 3) after one warm-up each; flops = n^3/3 (4x for c and z); ratio = cuSOLVER device
// time / cudrop e2e time, higher is better (the goal: cudrop's host->host within 1.5x of cuSOLVER's device-only
// time at n=16384 in single precision, ratio >= 0.67). Spot check:
// cudrop's factor against cuSOLVER's (max |L - Lcusolver| / max |L|) and both INFOs.
//   cudrop-potrf-bench [--sizes 4096,8192,16384] [--prec sdcz] [--reps 3] [--uplo L|U]
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_common.cuh"
#include "bench/cusolver_work.cuh"
#include "cudrop.h"
#include "impl/potrf/potrf.h"


namespace {

using cudrop::Complex;

// Entry (i, j) of a symmetric (Hermitian) diagonally dominant, so positive definite, matrix:
// parts in [-0.5, 0.5) from a hash of (min, max), the imaginary part negated above the
// diagonal; A(i,i) = n.
template <class T>
T spd_entry(int i, int j, int n) {
  if (i == j) return T(n);
  const uint64_t lo = uint64_t(std::min(i, j)), hi = uint64_t(std::max(i, j));
  uint64_t x = (lo * 0x9E3779B97F4A7C15ull) ^ (hi + 0x632BE59BD9B4E019ull);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 27;
  const double re = double(x >> 11) / 9007199254740992.0 - 0.5;
  if constexpr (cudrop::is_complex_v<T>) {
    using R = cudrop::real_t<T>;
    x *= 0x94D049BB133111EBull; x ^= x >> 31;
    const double im = double(x >> 11) / 9007199254740992.0 - 0.5;
    return T(R(re), R(i > j ? im : -im));
  } else {
    return T(re);
  }
}
template <class T>
void fill_spd(T *a, int n) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a[size_t(i) + size_t(j) * n] = spd_entry<T>(i, j, n);
}

// cuSOLVER's Cholesky: the classic API for s and d, the 64-bit one (cusolverDnXpotrf) for c, z.
template <class T> struct Solver {
  static constexpr bool x_api = cudrop::is_complex_v<T>;
  static constexpr const char *prec = std::is_same_v<T, float> ? "s" : std::is_same_v<T, double> ? "d"
                                      : std::is_same_v<T, Complex<float>> ? "c" : "z";
  static void cudrop(const char *uplo, const int *n, T *a, const int *lda, int *info) {
    if constexpr (std::is_same_v<T, float>) spotrf_(uplo, n, a, lda, info, 1);
    else if constexpr (std::is_same_v<T, double>) dpotrf_(uplo, n, a, lda, info, 1);
    else if constexpr (std::is_same_v<T, Complex<float>>) cpotrf_(uplo, n, a, lda, info, 1);
    else zpotrf_(uplo, n, a, lda, info, 1);
  }
  cusolverDnHandle_t h;
  bench::CusolverWork w;
  Solver(cusolverDnHandle_t handle, int n, T *a) : h(handle) {
    if constexpr (x_api) {
      constexpr cudaDataType type = bench::kCusolverComplex<T>;
      CHECK_CUSOLVER(cusolverDnXpotrf_bufferSize(h, w.params, CUBLAS_FILL_MODE_LOWER, n, type, a, n, type,
                                                 &w.device_bytes, &w.host_bytes));
    } else {
      int lwork = 0;
      if constexpr (std::is_same_v<T, float>)
        CHECK_CUSOLVER(cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, &lwork));
      else CHECK_CUSOLVER(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, &lwork));
      w.device_bytes = size_t(lwork) * sizeof(T);
    }
    w.allocate();
  }
  void run(int n, T *a, int *info) {
    const int lwork = int(w.device_bytes / sizeof(T));
    if constexpr (x_api)
      CHECK_CUSOLVER(cusolverDnXpotrf(h, w.params, CUBLAS_FILL_MODE_LOWER, n, bench::kCusolverComplex<T>, a, n,
                                      bench::kCusolverComplex<T>, w.device, w.device_bytes, w.host.data(),
                                      w.host_bytes, info));
    else if constexpr (std::is_same_v<T, float>)
      CHECK_CUSOLVER(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, static_cast<T *>(w.device), lwork, info));
    else
      CHECK_CUSOLVER(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, static_cast<T *>(w.device), lwork, info));
  }
};

template <class T>
void run_potrf(int n, int reps, const char *uplo, cusolverDnHandle_t handle, cudaStream_t stream) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(T);
  T *orig = static_cast<T *>(std::malloc(bytes)), *work = static_cast<T *>(std::malloc(bytes));
  if (!orig || !work) { std::fprintf(stderr, "out of host memory at n=%d\n", n); std::exit(2); }
  fill_spd(orig, n);
  const double flops = (cudrop::is_complex_v<T> ? 4.0 : 1.0) * double(n) * n * n / 3.0;
  const bool upper = uplo[0] == 'U' || uplo[0] == 'u';

  // cudrop host->host: a fresh copy of A before each call (untimed), the call timed.
  int info = -1;
  bool on_gpu = false;
  const double ms = bench::host_median_ms(
      reps, [&] { std::memcpy(work, orig, bytes); },
      [&] {
        Solver<T>::cudrop(uplo, &n, work, &n, &info);
        if (info != 0) {
          std::fprintf(stderr, "cudrop %spotrf n=%d: INFO %d\n", Solver<T>::prec, n, info);
          std::exit(2);
        }
      },
      &on_gpu);

  // Device-only: cudrop's device interface and cuSOLVER on the same matrix, CUDA events.
  T *dA0, *dA;
  int *dInfo, *dOurs;
  CHECK_CUDA(cudaMalloc(&dA0, bytes));
  CHECK_CUDA(cudaMalloc(&dA, bytes));
  CHECK_CUDA(cudaMalloc(&dInfo, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dOurs, 2 * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(dA0, orig, bytes, cudaMemcpyHostToDevice));
  Solver<T> solver(handle, n, dA);
  auto time_device = [&](auto &&run) {
    return bench::device_median_ms(
        stream, 1, reps, [&] { CHECK_CUDA(cudaMemcpyAsync(dA, dA0, bytes, cudaMemcpyDeviceToDevice, stream)); }, run);
  };
  const double ours_ms = time_device([&] {
    if (cudrop::impl::potrf_device<T>(n, dA, size_t(n), dOurs, stream) != cudrop::impl::Status::ok) {
      std::fprintf(stderr, "potrf_device failed\n");
      std::exit(2);
    }
  });
  int ours_info = -1;
  CHECK_CUDA(cudaMemcpy(&ours_info, dOurs, sizeof(int), cudaMemcpyDeviceToHost));
  const double cusolver_ms = time_device([&] { solver.run(n, dA, dInfo); });
  int cusolver_info = -1;
  CHECK_CUDA(cudaMemcpy(&cusolver_info, dInfo, sizeof(int), cudaMemcpyDeviceToHost));

  // Spot check: the host->host factor against cuSOLVER's (lower; U = L^T, L^H).
  std::vector<T> ref(count);
  CHECK_CUDA(cudaMemcpy(ref.data(), dA, bytes, cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const std::complex<double> mine = upper ? std::conj(bench::widen(work[size_t(j) + size_t(i) * n]))
                                              : bench::widen(work[size_t(i) + size_t(j) * n]);
      const std::complex<double> theirs = bench::widen(ref[size_t(i) + size_t(j) * n]);
      diff = std::max(diff, std::abs(mine - theirs));
      norm = std::max(norm, std::abs(theirs));
    }

  // cuSOLVER by hand from the host array (lower): upload, factor, download.
  bool no_cudrop_call = false;  // (host_median_ms's counter check is for cudrop's calls)
  const double h2h_ms = bench::host_median_ms(
      reps, [&] { std::memcpy(work, orig, bytes); },
      [&] {
        CHECK_CUDA(cudaMemcpyAsync(dA, work, bytes, cudaMemcpyHostToDevice, stream));
        solver.run(n, dA, dInfo);
        CHECK_CUDA(cudaMemcpyAsync(work, dA, bytes, cudaMemcpyDeviceToHost, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
      },
      &no_cudrop_call);

  std::printf("potrf %s n=%d cudrop_e2e_ms=%.2f cudrop_tflops=%.2f cusolver_ms=%.2f cusolver_tflops=%.2f ratio=%.2f "
              "cusolver_h2h_ms=%.2f ratio_h2h=%.2f cudrop_dev_ms=%.2f cudrop_dev_tflops=%.2f maxdiff_rel=%.1e "
              "info=%d/%d/%d uplo=%c%s\n",
              Solver<T>::prec, n, ms, flops / ms / 1e9, cusolver_ms, flops / cusolver_ms / 1e9, cusolver_ms / ms,
              h2h_ms, h2h_ms / ms, ours_ms, flops / ours_ms / 1e9, diff / std::max(norm, 1e-300), info, ours_info,
              cusolver_info, upper ? 'U' : 'L', on_gpu ? "" : " (WARNING: not every cudrop call ran on the GPU)");
  std::fflush(stdout);
  cudaFree(dA0); cudaFree(dA); cudaFree(dInfo); cudaFree(dOurs);
  std::free(orig);
  std::free(work);
}


}  // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {4096, 8192, 16384};
  std::string prec = "sd", uplo = "L";
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sizes")) sizes = bench::parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--prec")) prec = argv[i + 1];
    else if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--uplo")) uplo = argv[i + 1];
  }
  if (!bench::gpu_present("potrf")) return 77;
  const cudaStream_t stream = bench::open_device(cudaStreamNonBlocking);
  cusolverDnHandle_t handle;
  CHECK_CUSOLVER(cusolverDnCreate(&handle));
  CHECK_CUSOLVER(cusolverDnSetStream(handle, stream));
  for (int n : sizes) {
    if (prec.find('s') != std::string::npos) run_potrf<float>(n, reps, uplo.c_str(), handle, stream);
    if (prec.find('d') != std::string::npos) run_potrf<double>(n, reps, uplo.c_str(), handle, stream);
    if (prec.find('c') != std::string::npos) run_potrf<Complex<float>>(n, reps, uplo.c_str(), handle, stream);
    if (prec.find('z') != std::string::npos) run_potrf<Complex<double>>(n, reps, uplo.c_str(), handle, stream);
  }
  cusolverDnDestroy(handle);
  return 0;
}
