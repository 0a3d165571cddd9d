// Cholesky (xPOTRF) benchmark, one run, same matrices:
//  * cudrop host->host through the exported spotrf_/dpotrf_ (pageable malloc'd SPD matrix,
//    both triangles filled as a user would have it, wall clock, transfers included; the calls
//    must have run on the GPU: checked on the counters);
//  * cudrop device-only (impl::potrf_device, CUDA events), to separate transfers from math;
//  * cuSOLVER's device-only cusolverDnSpotrf/Dpotrf (CUDA events): the reference we are
//    measured against (it appears only here).
// Median of --reps (default 3) after one warm-up each; flops = n^3/3; ratio = cudrop e2e time
// / cuSOLVER device time (the goal: <= 1.5 at n=16384 in single precision). Spot check:
// cudrop's factor against cuSOLVER's (max |L - Lcusolver| / max |L|) and both INFOs.
//   cudrop-potrf-bench [--sizes 4096,8192,16384] [--prec sd] [--reps 3] [--uplo L|U]
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_common.cuh"
#include "cudrop.h"
#include "impl/potrf.h"


namespace {

using bench::fill_random;

// A symmetric, diagonally dominant (so positive definite) matrix: A(i,j) = A(j,i) in
// [-0.5, 0.5) from a hash of (min, max), A(i,i) = n.
template <class T>
void fill_spd(T *a, int n) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const uint64_t lo = uint64_t(std::min(i, j)), hi = uint64_t(std::max(i, j));
      uint64_t x = (lo * 0x9E3779B97F4A7C15ull) ^ (hi + 0x632BE59BD9B4E019ull);
      x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 27;
      a[size_t(i) + size_t(j) * n] = i == j ? T(n) : T(double(x >> 11) / 9007199254740992.0 - 0.5);
    }
}

template <class T> struct Solver {
  static constexpr bool single = std::is_same_v<T, float>;
  static constexpr const char *prec = single ? "s" : "d";
  static void cudrop(const char *uplo, const int *n, T *a, const int *lda, int *info) {
    if constexpr (single) spotrf_(uplo, n, a, lda, info, 1);
    else dpotrf_(uplo, n, a, lda, info, 1);
  }
  static int buffer(cusolverDnHandle_t h, int n, T *a) {
    int lwork = 0;
    if constexpr (single) CHECK_CUSOLVER(cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, &lwork));
    else CHECK_CUSOLVER(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, &lwork));
    return lwork;
  }
  static void run(cusolverDnHandle_t h, int n, T *a, T *work, int lwork, int *info) {
    if constexpr (single) CHECK_CUSOLVER(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, work, lwork, info));
    else CHECK_CUSOLVER(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, work, lwork, info));
  }
};

template <class T>
void run_potrf(int n, int reps, const char *uplo, cusolverDnHandle_t handle, cudaStream_t stream) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(T);
  T *orig = static_cast<T *>(std::malloc(bytes)), *work = static_cast<T *>(std::malloc(bytes));
  if (!orig || !work) { std::fprintf(stderr, "out of host memory at n=%d\n", n); std::exit(2); }
  fill_spd(orig, n);
  const double flops = double(n) * n * n / 3.0;
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
  T *dA0, *dA, *dWork;
  int *dInfo, *dOurs;
  CHECK_CUDA(cudaMalloc(&dA0, bytes));
  CHECK_CUDA(cudaMalloc(&dA, bytes));
  CHECK_CUDA(cudaMalloc(&dInfo, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dOurs, 2 * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(dA0, orig, bytes, cudaMemcpyHostToDevice));
  const int lwork = Solver<T>::buffer(handle, n, dA);
  CHECK_CUDA(cudaMalloc(&dWork, size_t(std::max(1, lwork)) * sizeof(T)));
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
  const double cusolver_ms = time_device([&] { Solver<T>::run(handle, n, dA, dWork, lwork, dInfo); });
  int cusolver_info = -1;
  CHECK_CUDA(cudaMemcpy(&cusolver_info, dInfo, sizeof(int), cudaMemcpyDeviceToHost));

  // Spot check: the host->host factor against cuSOLVER's (lower; U = L^T).
  std::vector<T> ref(count);
  CHECK_CUDA(cudaMemcpy(ref.data(), dA, bytes, cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const double mine = upper ? double(work[size_t(j) + size_t(i) * n]) : double(work[size_t(i) + size_t(j) * n]);
      const double theirs = double(ref[size_t(i) + size_t(j) * n]);
      diff = std::max(diff, std::fabs(mine - theirs));
      norm = std::max(norm, std::fabs(theirs));
    }

  std::printf("potrf %s n=%d cudrop_e2e_ms=%.2f cudrop_tflops=%.2f cusolver_ms=%.2f cusolver_tflops=%.2f ratio=%.2f "
              "cudrop_dev_ms=%.2f cudrop_dev_tflops=%.2f maxdiff_rel=%.1e info=%d/%d/%d uplo=%c%s\n",
              Solver<T>::prec, n, ms, flops / ms / 1e9, cusolver_ms, flops / cusolver_ms / 1e9, ms / cusolver_ms,
              ours_ms, flops / ours_ms / 1e9, diff / std::max(norm, 1e-300), info, ours_info, cusolver_info,
              upper ? 'U' : 'L', on_gpu ? "" : " (WARNING: not every cudrop call ran on the GPU)");
  std::fflush(stdout);
  cudaFree(dA0); cudaFree(dA); cudaFree(dWork); cudaFree(dInfo); cudaFree(dOurs);
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
  }
  cusolverDnDestroy(handle);
  return 0;
}
