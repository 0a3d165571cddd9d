// The rest of Level 3 (SYMM, SYRK, SYR2K, TRMM, TRSM) benchmark, one run, same matrices:
//  * cudrop host->host through the exported Fortran entries (pageable malloc'd arrays, wall
//    clock, transfers included; every call must have run on the GPU: checked on the counters);
//  * cudrop device-only (impl::*_device of impl/level3_device.h, CUDA events);
//  * cuBLAS device-only (cublas<t>symm ... cublas<t>trsm, CUDA events): the reference.
// Square problems: side L, uplo L, no transpose, non-unit diagonal; A diagonally dominant so
// that TRSM's solution stays bounded. Median of --reps (default 3) after one warm-up; flops:
// SYMM 2n^3, SYRK n^3, SYR2K 2n^3, TRMM n^3, TRSM n^3; ratio = cudrop device / cuBLAS time.
//   cudrop-level3-bench [--sizes 4096,8192] [--prec sd] [--reps 3] [--routines symm,syrk,syr2k,trmm,trsm]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_common.cuh"
#include "cudrop.h"
#include "impl/level3_device.h"

#define CHECK_CUBLAS(call)                                                      \
  do {                                                                          \
    cublasStatus_t s_ = (call);                                                 \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                          \
      std::fprintf(stderr, "%s:%d: cuBLAS error %d\n", __FILE__, __LINE__, int(s_)); \
      std::exit(2);                                                             \
    }                                                                           \
  } while (0)

namespace {

// Uniform in [-0.5, 0.5) from a hash of the index and seed; A's diagonal n (dominant).
template <class T>
void fill(std::vector<T> &v, int n, unsigned seed, bool dominant) {
  for (size_t i = 0; i < v.size(); ++i) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t(seed) << 32);
    x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 27;
    v[i] = T(double(x >> 11) / 9007199254740992.0 - 0.5);
    if (dominant && i % (size_t(n) + 1) == 0) v[i] = T(n);
  }
}

template <class T> struct Blas {
  static constexpr bool single = std::is_same_v<T, float>;
  static constexpr const char *prec = single ? "s" : "d";
  // cudrop's exported entry for routine r on n x n operands.
  static void host(const std::string &r, int n, const T *a, const T *b, T *c, T *bw) {
    const T one = 1, beta = 0.5;
    if (r == "symm") call_symm(n, &one, a, b, &beta, c);
    else if (r == "syrk") call_syrk(n, &one, a, &beta, c);
    else if (r == "syr2k") call_syr2k(n, &one, a, b, &beta, c);
    else call_tr(r == "trmm", n, &one, a, bw);
  }
  static void call_symm(int n, const T *al, const T *a, const T *b, const T *be, T *c) {
    if constexpr (single) ssymm_("L", "L", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
    else dsymm_("L", "L", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
  }
  static void call_syrk(int n, const T *al, const T *a, const T *be, T *c) {
    if constexpr (single) ssyrk_("L", "N", &n, &n, al, a, &n, be, c, &n, 1, 1);
    else dsyrk_("L", "N", &n, &n, al, a, &n, be, c, &n, 1, 1);
  }
  static void call_syr2k(int n, const T *al, const T *a, const T *b, const T *be, T *c) {
    if constexpr (single) ssyr2k_("L", "N", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
    else dsyr2k_("L", "N", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
  }
  static void call_tr(bool mm, int n, const T *al, const T *a, T *b) {
    if constexpr (single) (mm ? strmm_ : strsm_)("L", "L", "N", "N", &n, &n, al, a, &n, b, &n, 1, 1, 1, 1);
    else (mm ? dtrmm_ : dtrsm_)("L", "L", "N", "N", &n, &n, al, a, &n, b, &n, 1, 1, 1, 1);
  }
  static void cublas(cublasHandle_t h, const std::string &r, int n, const T *a, const T *b, T *c, T *bw) {
    const T one = 1, beta = 0.5;
    const auto L = CUBLAS_SIDE_LEFT;
    const auto lo = CUBLAS_FILL_MODE_LOWER;
    const auto N = CUBLAS_OP_N;
    const auto nu = CUBLAS_DIAG_NON_UNIT;
    if constexpr (single) {
      if (r == "symm") CHECK_CUBLAS(cublasSsymm(h, L, lo, n, n, &one, a, n, b, n, &beta, c, n));
      else if (r == "syrk") CHECK_CUBLAS(cublasSsyrk(h, lo, N, n, n, &one, a, n, &beta, c, n));
      else if (r == "syr2k") CHECK_CUBLAS(cublasSsyr2k(h, lo, N, n, n, &one, a, n, b, n, &beta, c, n));
      else if (r == "trmm") CHECK_CUBLAS(cublasStrmm(h, L, lo, N, nu, n, n, &one, a, n, b, n, c, n));
      else CHECK_CUBLAS(cublasStrsm(h, L, lo, N, nu, n, n, &one, a, n, bw, n));
    } else {
      if (r == "symm") CHECK_CUBLAS(cublasDsymm(h, L, lo, n, n, &one, a, n, b, n, &beta, c, n));
      else if (r == "syrk") CHECK_CUBLAS(cublasDsyrk(h, lo, N, n, n, &one, a, n, &beta, c, n));
      else if (r == "syr2k") CHECK_CUBLAS(cublasDsyr2k(h, lo, N, n, n, &one, a, n, b, n, &beta, c, n));
      else if (r == "trmm") CHECK_CUBLAS(cublasDtrmm(h, L, lo, N, nu, n, n, &one, a, n, b, n, c, n));
      else CHECK_CUBLAS(cublasDtrsm(h, L, lo, N, nu, n, n, &one, a, n, bw, n));
    }
  }
  static cudrop::Status device(const std::string &r, int n, const T *a, const T *b, T *c, T *bw, cudaStream_t s,
                               void *work, size_t work_bytes) {
    using namespace cudrop::impl;
    if (r == "symm") return symm_device<T>('L', 'L', n, n, T(1), a, n, b, n, T(0.5), c, n, s, work, work_bytes);
    if (r == "syrk") return syr2k_device<T>('L', 'N', n, n, T(1), a, n, nullptr, n, T(0.5), c, n, s, work, work_bytes);
    if (r == "syr2k") return syr2k_device<T>('L', 'N', n, n, T(1), a, n, b, n, T(0.5), c, n, s, work, work_bytes);
    if (r == "trmm") return trmm_device<T>('L', 'L', 'N', 'N', n, n, T(1), a, n, b, n, c, n, s, work, work_bytes);
    return trsm_device<T>('L', 'L', 'N', 'N', n, n, T(1), a, n, bw, n, s, work, work_bytes);
  }
};

double flops_of(const std::string &r, double n) {
  return (r == "symm" || r == "syr2k" ? 2 : 1) * n * n * n;
}

template <class T>
void run(const std::string &r, int n, int reps, cublasHandle_t handle, cudaStream_t stream) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(T);
  std::vector<T> a(count), b(count), c(count), bw(count), cw(count);
  fill(a, n, 1, true);
  fill(b, n, 2, false);
  fill(c, n, 3, false);
  bool on_gpu = false;
  const double e2e = bench::host_median_ms(
      reps, [&] { std::memcpy(bw.data(), b.data(), bytes); std::memcpy(cw.data(), c.data(), bytes); },
      [&] { Blas<T>::host(r, n, a.data(), b.data(), cw.data(), bw.data()); }, &on_gpu);
  T *dA, *dB, *dC, *dBw;
  void *work;
  const size_t work_bytes = std::max({cudrop::impl::trsm_device_workspace<T>('L', n, n),
                                      cudrop::impl::symm_device_workspace<T>('L', n, n),
                                      cudrop::impl::syr2k_device_workspace<T>(n)});
  CHECK_CUDA(cudaMalloc(&dA, bytes));
  CHECK_CUDA(cudaMalloc(&dB, bytes));
  CHECK_CUDA(cudaMalloc(&dC, bytes));
  CHECK_CUDA(cudaMalloc(&dBw, bytes));
  CHECK_CUDA(cudaMalloc(&work, work_bytes));
  CHECK_CUDA(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dC, c.data(), bytes, cudaMemcpyHostToDevice));
  auto restore = [&] { CHECK_CUDA(cudaMemcpyAsync(dBw, dB, bytes, cudaMemcpyDeviceToDevice, stream)); };
  const double ours = bench::device_median_ms(stream, 1, reps, restore, [&] {
    if (Blas<T>::device(r, n, dA, dB, dC, dBw, stream, work, work_bytes) != cudrop::Status::ok) {
      std::fprintf(stderr, "%s_device failed\n", r.c_str());
      std::exit(2);
    }
  });
  const double theirs =
      bench::device_median_ms(stream, 1, reps, restore, [&] { Blas<T>::cublas(handle, r, n, dA, dB, dC, dBw); });
  const double flops = flops_of(r, n);
  std::printf("%s %s n=%d cudrop_e2e_ms=%.2f cudrop_e2e_tflops=%.2f cudrop_dev_ms=%.2f cudrop_dev_tflops=%.2f "
              "cublas_ms=%.2f cublas_tflops=%.2f ratio=%.2f%s\n",
              r.c_str(), Blas<T>::prec, n, e2e, flops / e2e / 1e9, ours, flops / ours / 1e9, theirs,
              flops / theirs / 1e9, ours / theirs, on_gpu ? "" : " (WARNING: not every cudrop call ran on the GPU)");
  std::fflush(stdout);
  cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dBw); cudaFree(work);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {4096, 8192};
  std::string prec = "sd", routines = "symm,syrk,syr2k,trmm,trsm";
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sizes")) sizes = bench::parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--prec")) prec = argv[i + 1];
    else if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--routines")) routines = argv[i + 1];
  }
  if (!bench::gpu_present("level3")) return 77;
  const cudaStream_t stream = bench::open_device(cudaStreamNonBlocking);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, stream));
  for (const char *r : {"symm", "syrk", "syr2k", "trmm", "trsm"}) {
    if ((',' + routines + ',').find(std::string(",") + r + ",") == std::string::npos) continue;
    for (int n : sizes) {
      if (prec.find('s') != std::string::npos) run<float>(r, n, reps, handle, stream);
      if (prec.find('d') != std::string::npos) run<double>(r, n, reps, handle, stream);
    }
  }
  cublasDestroy(handle);
  return 0;
}
