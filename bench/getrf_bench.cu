// LU (xGETRF) benchmark, one run, same matrices:
//  * cudrop host->host through the exported ?getrf_ (pageable malloc'd matrix, wall clock,
//    transfers included; the call must have run on the GPU: checked on the counters);
//  * cudrop device-only (impl::getrf_device, CUDA events), to separate transfers from math;
//  * cuSOLVER's device-only cusolverDnSgetrf/Dgetrf, cusolverDnXgetrf with CUDA_C_32F/C_64F for
//    c and z (CUDA events): the reference we are measured against (it appears only here);
//  * cuSOLVER driven by hand from the same host array (wall clock: upload, factor, download of
//    the factor and the pivots), cudrop's host->host counterpart.
// Median of --reps (default 3) after one warm-up each; flops = 2/3 n^3. A spot check of each
// cudrop result: ||P A x - L (U x)||_inf / (n ||A||_inf ||x||_inf eps) for a random x, INFO,
// and how many leading pivots agree with cuSOLVER's (they may part at a near tie).
//   cudrop-getrf-bench [--sizes 4096,8192,16384] [--big] [--prec sdcz] [--reps 3] [--nb NB]
//                      [--panels 16384,4096]
//   --big adds n=32768 for single precision. --panels times cudrop's device-only LU of m x nb
//   matrices (one panel: the per-column latency of the panel kernel) instead.
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
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_common.cuh"
#include "bench/cusolver_work.cuh"
#include "bench/factor_check.cuh"
#include "cudrop.h"
#include "impl/gemm/gemm.h"
#include "impl/getrf/getrf.h"


namespace {

using bench::fill_random;
using cudrop::Complex;

// Random entries in [-0.5, 0.5), both parts of a complex one.
template <class T>
void fill(T *p, size_t count, unsigned seed, cudaStream_t stream) {
  using R = cudrop::real_t<T>;
  fill_random<<<2048, 256, 0, stream>>>(reinterpret_cast<R *>(p), count * (sizeof(T) / sizeof(R)), seed);
  CHECK_CUDA(cudaGetLastError());
}

// cuSOLVER's LU: the classic API for s and d, the 64-bit one (cusolverDnXgetrf) for c and z.
// Workspace in bytes; ipiv of 64-bit integers for the 64-bit API (converted by `pivots`).
template <class T> struct Solver {
  static constexpr bool x_api = cudrop::is_complex_v<T>;
  static constexpr const char *prec = std::is_same_v<T, float> ? "s" : std::is_same_v<T, double> ? "d"
                                      : std::is_same_v<T, Complex<float>> ? "c" : "z";
  static void cudrop(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info) {
    if constexpr (std::is_same_v<T, float>) sgetrf_(m, n, a, lda, ipiv, info);
    else if constexpr (std::is_same_v<T, double>) dgetrf_(m, n, a, lda, ipiv, info);
    else if constexpr (std::is_same_v<T, Complex<float>>) cgetrf_(m, n, a, lda, ipiv, info);
    else zgetrf_(m, n, a, lda, ipiv, info);
  }
  cusolverDnHandle_t h;
  bench::CusolverWork w;
  Solver(cusolverDnHandle_t handle, int n, T *a) : h(handle) {
    if constexpr (x_api) {
      constexpr cudaDataType type = bench::kCusolverComplex<T>;
      CHECK_CUSOLVER(cusolverDnXgetrf_bufferSize(h, w.params, n, n, type, a, n, type, &w.device_bytes, &w.host_bytes));
    } else {
      int lwork = 0;
      if constexpr (std::is_same_v<T, float>) CHECK_CUSOLVER(cusolverDnSgetrf_bufferSize(h, n, n, a, n, &lwork));
      else CHECK_CUSOLVER(cusolverDnDgetrf_bufferSize(h, n, n, a, n, &lwork));
      w.device_bytes = size_t(lwork) * sizeof(T);
    }
    w.allocate();
  }
  // ipiv: n int32 (s, d) or n int64 (c, z) of device memory.
  void run(int n, T *a, void *ipiv, int *info) {
    if constexpr (x_api)
      CHECK_CUSOLVER(cusolverDnXgetrf(h, w.params, n, n, bench::kCusolverComplex<T>, a, n, static_cast<int64_t *>(ipiv),
                                      bench::kCusolverComplex<T>, w.device, w.device_bytes, w.host.data(),
                                      w.host_bytes, info));
    else if constexpr (std::is_same_v<T, float>)
      CHECK_CUSOLVER(cusolverDnSgetrf(h, n, n, a, n, static_cast<T *>(w.device), static_cast<int *>(ipiv), info));
    else CHECK_CUSOLVER(cusolverDnDgetrf(h, n, n, a, n, static_cast<T *>(w.device), static_cast<int *>(ipiv), info));
  }
  static size_t pivot_bytes() { return x_api ? sizeof(int64_t) : sizeof(int); }
  // The pivots from the device, as int.
  static std::vector<int> pivots(const void *d_ipiv, int n) {
    std::vector<int> out(n);
    if constexpr (x_api) {
      std::vector<int64_t> wide(n);
      CHECK_CUDA(cudaMemcpy(wide.data(), d_ipiv, size_t(n) * sizeof(int64_t), cudaMemcpyDeviceToHost));
      for (int i = 0; i < n; ++i) out[i] = int(wide[i]);
    } else {
      CHECK_CUDA(cudaMemcpy(out.data(), d_ipiv, size_t(n) * sizeof(int), cudaMemcpyDeviceToHost));
    }
    return out;
  }
};

template <class T>
void run_getrf(int n, int reps, int nb, cusolverDnHandle_t handle, cudaStream_t stream) {
  const size_t count = size_t(n) * n;
  // Real flops: a complex multiply-add is four real ones.
  const double flops = (cudrop::is_complex_v<T> ? 4.0 : 1.0) * 2.0 / 3.0 * double(n) * n * n;
  T *dPristine = nullptr, *dA = nullptr, *dOurWork = nullptr;
  int *dIpiv = nullptr, *dInfo = nullptr;
  void *dSolverIpiv = nullptr;
  CHECK_CUDA(cudaMalloc(&dPristine, count * sizeof(T)));
  fill(dPristine, count, 7u + unsigned(n), stream);
  std::vector<T> pristine(count), a(count);
  CHECK_CUDA(cudaMemcpyAsync(pristine.data(), dPristine, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<int> ipiv(n);
  int info = -1;

  // cudrop, host->host through the public symbol.
  bool on_gpu = false;
  const double e2e_ms = bench::host_median_ms(
      reps, [&] { std::memcpy(a.data(), pristine.data(), count * sizeof(T)); },
      [&] { Solver<T>::cudrop(&n, &n, a.data(), &n, ipiv.data(), &info); }, &on_gpu);
  const double resid = bench::lu_spot_check<T>(n, pristine.data(), a.data(), ipiv.data());
  const int cudrop_info = info;

  // cuSOLVER and cudrop device-only on the same device matrix.
  CHECK_CUDA(cudaMalloc(&dA, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dIpiv, (size_t(n) + 1) * sizeof(int)));
  dInfo = dIpiv + n;
  CHECK_CUDA(cudaMalloc(&dSolverIpiv, size_t(n) * Solver<T>::pivot_bytes()));
  Solver<T> solver(handle, n, dA);
  const size_t our_work = cudrop::impl::getrf_device_workspace<T>(n, n);
  CHECK_CUDA(cudaMalloc(&dOurWork, std::max<size_t>(256, our_work)));
  auto timed = [&](auto &&factor) {
    return bench::device_median_ms(
        stream, 1, reps,
        [&] { CHECK_CUDA(cudaMemcpyAsync(dA, dPristine, count * sizeof(T), cudaMemcpyDeviceToDevice, stream)); },
        factor);
  };
  const double dev_ms = timed([&] {
    if (cudrop::impl::getrf_device<T>(n, n, dA, size_t(n), dIpiv, dInfo, dOurWork, stream, nb) !=
        cudrop::impl::Status::ok) {
      std::fprintf(stderr, "cudrop getrf_device failed\n");
      std::exit(2);
    }
  });
  // The floor of this design with cudrop's GEMM: the trailing updates A22 -= L21 U12 alone.
  const int panel = nb > 0 ? nb : 128;
  const double gemm_ms = timed([&] {
    for (int j = 0; j + panel < n; j += panel) {
      const int rest = n - j - panel;
      if (cudrop::impl::gemm_device<T>(cudrop::Op::none, cudrop::Op::none, rest, rest, panel, T(-1), dA + j + panel + size_t(j) * n,
                                       size_t(n), dA + j + size_t(j + panel) * n, size_t(n), T(1),
                                       dA + j + panel + size_t(j + panel) * n, size_t(n), stream) !=
          cudrop::impl::Status::ok) {
        std::fprintf(stderr, "cudrop gemm_device failed\n");
        std::exit(2);
      }
    }
  });
  CHECK_CUSOLVER(cusolverDnSetStream(handle, stream));
  const double solver_ms = timed([&] { solver.run(n, dA, dSolverIpiv, dInfo); });
  std::vector<int> solver_ipiv = Solver<T>::pivots(dSolverIpiv, n);
  int solver_info = -1;
  CHECK_CUDA(cudaMemcpy(&solver_info, dInfo, sizeof(int), cudaMemcpyDeviceToHost));
  // cuSOLVER by hand from the host array: upload, factor, factor and pivots back.
  std::vector<int64_t> host_ipiv(n);
  bool no_cudrop_call = false;  // (host_median_ms's counter check is for cudrop's calls)
  const double solver_h2h_ms = bench::host_median_ms(
      reps, [&] { std::memcpy(a.data(), pristine.data(), count * sizeof(T)); },
      [&] {
        CHECK_CUDA(cudaMemcpyAsync(dA, a.data(), count * sizeof(T), cudaMemcpyHostToDevice, stream));
        solver.run(n, dA, dSolverIpiv, dInfo);
        CHECK_CUDA(cudaMemcpyAsync(a.data(), dA, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
        CHECK_CUDA(cudaMemcpyAsync(host_ipiv.data(), dSolverIpiv, size_t(n) * Solver<T>::pivot_bytes(),
                                   cudaMemcpyDeviceToHost, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
      },
      &no_cudrop_call);
  int agree = 0;
  while (agree < n && solver_ipiv[agree] == ipiv[agree]) ++agree;

  std::printf("getrf %s n=%d cudrop_e2e_ms=%.2f cudrop_tflops=%.2f cudrop_dev_ms=%.2f cudrop_dev_tflops=%.2f "
              "updates_gemm_ms=%.2f cusolver_ms=%.2f cusolver_tflops=%.2f ratio=%.2f cusolver_h2h_ms=%.2f "
              "ratio_h2h=%.2f on_gpu=%s resid=%.2g info=%d/%d ipiv_agree=%d/%d\n",
              Solver<T>::prec, n, e2e_ms, flops / e2e_ms / 1e9, dev_ms, flops / dev_ms / 1e9, gemm_ms, solver_ms,
              flops / solver_ms / 1e9, solver_ms / e2e_ms, solver_h2h_ms, solver_h2h_ms / e2e_ms,
              on_gpu ? "yes" : "NO", resid, cudrop_info, solver_info, agree, n);
  std::fflush(stdout);
  cudaFree(dPristine); cudaFree(dA); cudaFree(dIpiv); cudaFree(dSolverIpiv); cudaFree(dOurWork);
}

// One panel alone: m x nb, device-only, CUDA events.
template <class T>
void bench_panel(int m, int nb, int reps, cudaStream_t stream) {
  if (nb <= 0) nb = 128;
  const size_t count = size_t(m) * nb;
  T *dPristine = nullptr, *dA = nullptr;
  void *dWork = nullptr;
  int *dIpiv = nullptr;
  CHECK_CUDA(cudaMalloc(&dPristine, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dA, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dIpiv, (size_t(nb) + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dWork, std::max<size_t>(256, cudrop::impl::getrf_device_workspace<T>(m, nb))));
  fill(dPristine, count, 11u, stream);
  const double ms = bench::device_median_ms(
      stream, 1, reps,
      [&] { CHECK_CUDA(cudaMemcpyAsync(dA, dPristine, count * sizeof(T), cudaMemcpyDeviceToDevice, stream)); },
      [&] {
        if (cudrop::impl::getrf_device<T>(m, nb, dA, size_t(m), dIpiv, dIpiv + nb, dWork, stream, nb) !=
            cudrop::impl::Status::ok) {
          std::fprintf(stderr, "cudrop getrf_device failed\n");
          std::exit(2);
        }
      });
  std::printf("getrf_panel %s m=%d nb=%d ms=%.3f us_per_col=%.2f\n", Solver<T>::prec, m, nb, ms, ms * 1e3 / nb);
  std::fflush(stdout);
  cudaFree(dPristine); cudaFree(dA); cudaFree(dIpiv); cudaFree(dWork);
}


}  // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {4096, 8192, 16384}, panels;
  std::string prec = "sd";
  int reps = 3, nb = 0;
  bool big = false;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--sizes") && has_value) sizes = bench::parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--prec") && has_value) prec = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && has_value) reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--nb") && has_value) nb = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--panels") && has_value) panels = bench::parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--big")) big = true;
    else {
      std::fprintf(stderr, "usage: %s [--sizes a,b,c] [--big] [--prec sdcz] [--reps N] [--nb NB] [--panels m1,m2]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!bench::gpu_present("getrf")) return 0;
  const cudaStream_t stream = bench::open_device(cudaStreamNonBlocking);
  cusolverDnHandle_t handle;
  CHECK_CUSOLVER(cusolverDnCreate(&handle));
  if (!panels.empty()) {
    for (char p : prec)
      for (int m : panels) {
        if (p == 's') bench_panel<float>(m, nb, reps, stream);
        else if (p == 'd') bench_panel<double>(m, nb, reps, stream);
        else if (p == 'c') bench_panel<Complex<float>>(m, nb, reps, stream);
        else if (p == 'z') bench_panel<Complex<double>>(m, nb, reps, stream);
      }
    return 0;
  }
  for (char p : prec) {
    std::vector<int> list = sizes;
    if (big && p == 's') list.push_back(32768);
    for (int n : list) {
      if (p == 's') run_getrf<float>(n, reps, nb, handle, stream);
      else if (p == 'd') run_getrf<double>(n, reps, nb, handle, stream);
      else if (p == 'c') run_getrf<Complex<float>>(n, reps, nb, handle, stream);
      else if (p == 'z') run_getrf<Complex<double>>(n, reps, nb, handle, stream);
    }
  }
  cusolverDnDestroy(handle);
  return 0;
}
