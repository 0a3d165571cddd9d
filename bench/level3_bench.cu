// The rest of Level 3 (SYMM, SYRK, SYR2K, TRMM, TRSM; for c and z also GEMM, HEMM, HERK, HER2K)
// benchmark, one run, same matrices:
//  * cudrop host->host through the exported Fortran entries (pageable malloc'd arrays, wall
//    clock, transfers included; every call must have run on the GPU: checked on the counters);
//    s and d only;
//  * cudrop device-only (impl::*_device of impl/level3/level3_device.h, impl::gemm_device, CUDA events);
//  * cuBLAS device-only (cublas<t>symm ... cublas<t>trsm, CUDA events): the reference.
// Square problems: side L, uplo L, no transpose, non-unit diagonal; A diagonally dominant so
// that TRSM's solution stays bounded. Median of --reps (default 3) after one warm-up; flops
// (real ones: a complex multiply-add counts 4): SYMM, HEMM, SYR2K, HER2K, GEMM 2n^3; SYRK, HERK,
// TRMM, TRSM n^3; ratio = cuBLAS time / cudrop device time (higher is better: > 1, cudrop faster).
//   cudrop-level3-bench [--sizes 4096,8192] [--prec sdcz] [--reps 3]
//                       [--routines gemm,symm,hemm,syrk,herk,syr2k,her2k,trmm,trsm]
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
#include "core/complex.h"
#include "cudrop.h"
#include "impl/gemm/gemm.h"
#include "impl/level3/level3_device.h"


namespace {

using cudrop::Complex;

// Uniform in [-0.5, 0.5) from a hash of the index and seed (both parts of a complex element);
// A's diagonal n (dominant).
double hashed(size_t i, unsigned seed) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t(seed) << 32);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 27;
  return double(x >> 11) / 9007199254740992.0 - 0.5;
}
template <class T>
void fill(std::vector<T> &v, int n, unsigned seed, bool dominant) {
  using R = cudrop::real_t<T>;
  for (size_t i = 0; i < v.size(); ++i) {
    if constexpr (cudrop::is_complex_v<T>) v[i] = T(R(hashed(i, seed)), R(hashed(i + v.size(), seed)));
    else v[i] = T(hashed(i, seed));
    if (dominant && i % (size_t(n) + 1) == 0) v[i] = T(R(n));
  }
}

// Also instantiated for c and z, whose device paths ComplexBlas shares: functions, not data
// members, so that the real-only ones draw no "never referenced" warning there.
template <class T> struct Blas {
  static constexpr bool single() { return std::is_same_v<T, float>; }
  static constexpr const char *prec() { return single() ? "s" : "d"; }
  // cudrop's exported entry for routine r on n x n operands.
  static void host(const std::string &r, int n, const T *a, const T *b, T *c, T *bw) {
    const T one = 1, beta = 0.5;
    if (r == "symm") call_symm(n, &one, a, b, &beta, c);
    else if (r == "syrk") call_syrk(n, &one, a, &beta, c);
    else if (r == "syr2k") call_syr2k(n, &one, a, b, &beta, c);
    else call_tr(r == "trmm", n, &one, a, bw);
  }
  static void call_symm(int n, const T *al, const T *a, const T *b, const T *be, T *c) {
    if constexpr (single()) ssymm_("L", "L", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
    else dsymm_("L", "L", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
  }
  static void call_syrk(int n, const T *al, const T *a, const T *be, T *c) {
    if constexpr (single()) ssyrk_("L", "N", &n, &n, al, a, &n, be, c, &n, 1, 1);
    else dsyrk_("L", "N", &n, &n, al, a, &n, be, c, &n, 1, 1);
  }
  static void call_syr2k(int n, const T *al, const T *a, const T *b, const T *be, T *c) {
    if constexpr (single()) ssyr2k_("L", "N", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
    else dsyr2k_("L", "N", &n, &n, al, a, &n, b, &n, be, c, &n, 1, 1);
  }
  static void call_tr(bool mm, int n, const T *al, const T *a, T *b) {
    if constexpr (single()) (mm ? strmm_ : strsm_)("L", "L", "N", "N", &n, &n, al, a, &n, b, &n, 1, 1, 1, 1);
    else (mm ? dtrmm_ : dtrsm_)("L", "L", "N", "N", &n, &n, al, a, &n, b, &n, 1, 1, 1, 1);
  }
  static void cublas(cublasHandle_t h, const std::string &r, int n, const T *a, const T *b, T *c, T *bw) {
    const T one = 1, beta = 0.5;
    const auto L = CUBLAS_SIDE_LEFT;
    const auto lo = CUBLAS_FILL_MODE_LOWER;
    const auto N = CUBLAS_OP_N;
    const auto nu = CUBLAS_DIAG_NON_UNIT;
    if constexpr (single()) {
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
    if (r == "symm")
      return symm_device<T>(cudrop::Side::left, cudrop::Uplo::lower, n, n, T(1), a, n, b, n, T(0.5), c, n, s, work,
                            work_bytes);
    if (r == "syrk")
      return syr2k_device<T>(cudrop::Uplo::lower, cudrop::Op::none, n, n, T(1), a, n, nullptr, n, T(0.5), c, n, s, work,
                             work_bytes);
    if (r == "syr2k")
      return syr2k_device<T>(cudrop::Uplo::lower, cudrop::Op::none, n, n, T(1), a, n, b, n, T(0.5), c, n, s, work,
                             work_bytes);
    if (r == "trmm")
      return trmm_device<T>(cudrop::Side::left, cudrop::Uplo::lower, cudrop::Op::none, cudrop::Diag::non_unit, n, n,
                            T(1), a, n, b, n, c, n, s, work, work_bytes);
    return trsm_device<T>(cudrop::Side::left, cudrop::Uplo::lower, cudrop::Op::none, cudrop::Diag::non_unit, n, n, T(1),
                          a, n, bw, n, s, work, work_bytes);
  }
};

// c and z, device-only: cuBLAS's complex routines on cuComplex/cuDoubleComplex (the same layout
// as cudrop::Complex) against cudrop's device functions.
template <class T> struct ComplexBlas {
  static constexpr bool single = std::is_same_v<T, Complex<float>>;
  static constexpr const char *prec() { return single ? "c" : "z"; }
  using R = cudrop::real_t<T>;
  using Cu = std::conditional_t<single, cuComplex, cuDoubleComplex>;
  static const Cu *cu(const T *p) { return reinterpret_cast<const Cu *>(p); }
  static Cu *cu(T *p) { return reinterpret_cast<Cu *>(p); }
  static void host(const std::string &, int, const T *, const T *, T *, T *) {}
  static void cublas(cublasHandle_t h, const std::string &r, int n, const T *a, const T *b, T *c, T *bw) {
    const T one_t(1), beta_t(R(0.5));
    const Cu *one = cu(&one_t), *beta = cu(&beta_t);
    const R rone = 1, rbeta = 0.5;
    const auto L = CUBLAS_SIDE_LEFT;
    const auto lo = CUBLAS_FILL_MODE_LOWER;
    const auto N = CUBLAS_OP_N;
    const auto nu = CUBLAS_DIAG_NON_UNIT;
    if constexpr (single) {
      if (r == "gemm") CHECK_CUBLAS(cublasCgemm(h, N, N, n, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "symm") CHECK_CUBLAS(cublasCsymm(h, L, lo, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "hemm") CHECK_CUBLAS(cublasChemm(h, L, lo, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "syrk") CHECK_CUBLAS(cublasCsyrk(h, lo, N, n, n, one, cu(a), n, beta, cu(c), n));
      else if (r == "herk") CHECK_CUBLAS(cublasCherk(h, lo, N, n, n, &rone, cu(a), n, &rbeta, cu(c), n));
      else if (r == "syr2k") CHECK_CUBLAS(cublasCsyr2k(h, lo, N, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "her2k") CHECK_CUBLAS(cublasCher2k(h, lo, N, n, n, one, cu(a), n, cu(b), n, &rbeta, cu(c), n));
      else if (r == "trmm") CHECK_CUBLAS(cublasCtrmm(h, L, lo, N, nu, n, n, one, cu(a), n, cu(b), n, cu(c), n));
      else CHECK_CUBLAS(cublasCtrsm(h, L, lo, N, nu, n, n, one, cu(a), n, cu(bw), n));
    } else {
      if (r == "gemm") CHECK_CUBLAS(cublasZgemm(h, N, N, n, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "symm") CHECK_CUBLAS(cublasZsymm(h, L, lo, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "hemm") CHECK_CUBLAS(cublasZhemm(h, L, lo, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "syrk") CHECK_CUBLAS(cublasZsyrk(h, lo, N, n, n, one, cu(a), n, beta, cu(c), n));
      else if (r == "herk") CHECK_CUBLAS(cublasZherk(h, lo, N, n, n, &rone, cu(a), n, &rbeta, cu(c), n));
      else if (r == "syr2k") CHECK_CUBLAS(cublasZsyr2k(h, lo, N, n, n, one, cu(a), n, cu(b), n, beta, cu(c), n));
      else if (r == "her2k") CHECK_CUBLAS(cublasZher2k(h, lo, N, n, n, one, cu(a), n, cu(b), n, &rbeta, cu(c), n));
      else if (r == "trmm") CHECK_CUBLAS(cublasZtrmm(h, L, lo, N, nu, n, n, one, cu(a), n, cu(b), n, cu(c), n));
      else CHECK_CUBLAS(cublasZtrsm(h, L, lo, N, nu, n, n, one, cu(a), n, cu(bw), n));
    }
  }
  static cudrop::Status device(const std::string &r, int n, const T *a, const T *b, T *c, T *bw, cudaStream_t s,
                               void *work, size_t work_bytes) {
    using namespace cudrop::impl;
    const T one(1), beta(R(0.5));
    if (r == "gemm")
      return gemm_device<T>(cudrop::Op::none, cudrop::Op::none, n, n, n, one, a, n, b, n, beta, c, n, s,
                            cudrop::GemmPart{}, work, work_bytes);
    if (r == "hemm")
      return hemm_device<T>(cudrop::Side::left, cudrop::Uplo::lower, n, n, one, a, n, b, n, beta, c, n, s, work,
                            work_bytes);
    if (r == "herk")
      return her2k_device<T>(cudrop::Uplo::lower, cudrop::Op::none, n, n, one, a, n, nullptr, n, R(0.5), c, n, s, work,
                             work_bytes);
    if (r == "her2k")
      return her2k_device<T>(cudrop::Uplo::lower, cudrop::Op::none, n, n, one, a, n, b, n, R(0.5), c, n, s, work,
                             work_bytes);
    return Blas<T>::device(r, n, a, b, c, bw, s, work, work_bytes);
  }
};
template <class T>
using BlasOf = std::conditional_t<cudrop::is_complex_v<T>, ComplexBlas<T>, Blas<T>>;

double flops_of(const std::string &r, double n, bool complex) {
  const bool two = r == "symm" || r == "hemm" || r == "syr2k" || r == "her2k" || r == "gemm";
  return (two ? 2 : 1) * n * n * n * (complex ? 4 : 1);
}

template <class T>
void run(const std::string &r, int n, int reps, cublasHandle_t handle, cudaStream_t stream) {
  constexpr bool complex = cudrop::is_complex_v<T>;
  const size_t count = size_t(n) * n, bytes = count * sizeof(T);
  std::vector<T> a(count), b(count), c(count), bw(count), cw(count);
  fill(a, n, 1, true);
  fill(b, n, 2, false);
  fill(c, n, 3, false);
  bool on_gpu = true;
  const double e2e = complex ? 0.0 : bench::host_median_ms(
      reps, [&] { std::memcpy(bw.data(), b.data(), bytes); std::memcpy(cw.data(), c.data(), bytes); },
      [&] { BlasOf<T>::host(r, n, a.data(), b.data(), cw.data(), bw.data()); }, &on_gpu);
  T *dA, *dB, *dC, *dBw;
  void *work;
  size_t work_bytes = std::max({cudrop::impl::trsm_device_workspace<T>(cudrop::Side::left, n, n),
                                cudrop::impl::symm_device_workspace<T>(cudrop::Side::left, n, n),
                                cudrop::impl::syr2k_device_workspace<T>(cudrop::Op::none, n, n)});
  if (complex && r == "gemm") work_bytes = cudrop::impl::gemm_device_workspace<T>(cudrop::Op::none, cudrop::Op::none, n, n, n);
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
    if (BlasOf<T>::device(r, n, dA, dB, dC, dBw, stream, work, work_bytes) != cudrop::Status::ok) {
      std::fprintf(stderr, "%s_device failed\n", r.c_str());
      std::exit(2);
    }
  });
  const double theirs =
      bench::device_median_ms(stream, 1, reps, restore, [&] { BlasOf<T>::cublas(handle, r, n, dA, dB, dC, dBw); });
  const double flops = flops_of(r, n, complex);
  std::printf("%s %s n=%d cudrop_e2e_ms=%.2f cudrop_e2e_tflops=%.2f cudrop_dev_ms=%.2f cudrop_dev_tflops=%.2f "
              "cublas_ms=%.2f cublas_tflops=%.2f ratio=%.2f%s\n",
              r.c_str(), BlasOf<T>::prec(), n, e2e, e2e > 0 ? flops / e2e / 1e9 : 0.0, ours, flops / ours / 1e9, theirs,
              flops / theirs / 1e9, theirs / ours, on_gpu ? "" : " (WARNING: not every cudrop call ran on the GPU)");
  std::fflush(stdout);
  cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dBw); cudaFree(work);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {4096, 8192};
  std::string prec = "sdcz", routines = "gemm,symm,hemm,syrk,herk,syr2k,her2k,trmm,trsm";
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
  for (const char *r : {"gemm", "symm", "hemm", "syrk", "herk", "syr2k", "her2k", "trmm", "trsm"}) {
    if ((',' + routines + ',').find(std::string(",") + r + ",") == std::string::npos) continue;
    // GEMM and the Hermitian routines for c and z only (sgemm/dgemm: cudrop-device-bench).
    const bool complex_only = r[0] == 'g' || r[0] == 'h';
    for (int n : sizes) {
      if (!complex_only && prec.find('s') != std::string::npos) run<float>(r, n, reps, handle, stream);
      if (!complex_only && prec.find('d') != std::string::npos) run<double>(r, n, reps, handle, stream);
      if (prec.find('c') != std::string::npos) run<Complex<float>>(r, n, reps, handle, stream);
      if (prec.find('z') != std::string::npos) run<Complex<double>>(r, n, reps, handle, stream);
    }
  }
  cublasDestroy(handle);
  return 0;
}
