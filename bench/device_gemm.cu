// Device-resident GEMM: cudrop's kernels (impl::gemm_device) against cuBLAS, same buffers,
// same run; plus the host->host "copy in + cuBLAS + copy out" peer on pageable memory.
// cuBLAS appears only here, as the reference we are measured against.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_common.cuh"
#include "impl/gemm/gemm.h"





template <class T> struct Cublas;
template <> struct Cublas<float> {
  static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                             const float *alpha, const float *A, int lda, const float *B, int ldb,
                             const float *beta, float *C, int ldc) {
    return cublasSgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
};
template <> struct Cublas<double> {
  static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                             const double *alpha, const double *A, int lda, const double *B, int ldb,
                             const double *beta, double *C, int ldc) {
    return cublasDgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
};

template <> struct Cublas<cudrop::Complex<float>> {
  using C = cudrop::Complex<float>;
  static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                             const C *alpha, const C *A, int lda, const C *B, int ldb, const C *beta, C *Cm,
                             int ldc) {
    return cublasCgemm(h, ta, tb, m, n, k, reinterpret_cast<const cuComplex *>(alpha),
                       reinterpret_cast<const cuComplex *>(A), lda, reinterpret_cast<const cuComplex *>(B), ldb,
                       reinterpret_cast<const cuComplex *>(beta), reinterpret_cast<cuComplex *>(Cm), ldc);
  }
};
template <> struct Cublas<cudrop::Complex<double>> {
  using C = cudrop::Complex<double>;
  static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                             const C *alpha, const C *A, int lda, const C *B, int ldb, const C *beta, C *Cm,
                             int ldc) {
    return cublasZgemm(h, ta, tb, m, n, k, reinterpret_cast<const cuDoubleComplex *>(alpha),
                       reinterpret_cast<const cuDoubleComplex *>(A), lda,
                       reinterpret_cast<const cuDoubleComplex *>(B), ldb,
                       reinterpret_cast<const cuDoubleComplex *>(beta), reinterpret_cast<cuDoubleComplex *>(Cm), ldc);
  }
};

// Real numbers in a T array (2 per complex element), for filling and comparing.
template <class T> constexpr size_t kParts = cudrop::is_complex_v<T> ? 2 : 1;
template <class T> double flops_per_fma() { return cudrop::is_complex_v<T> ? 8.0 : 2.0; }
static cublasOperation_t cublas_op(cudrop::Op op) {
  return !op ? CUBLAS_OP_N : op.conjugated() ? CUBLAS_OP_C : CUBLAS_OP_T;
}

// Median of `reps` runs after two warm-up runs.
template <class F>
static double time_ms(F &&f, int reps, cudaStream_t stream) {
  return bench::device_median_ms(stream, 2, reps, [] {}, f);
}

template <class T>
// accumulate: C = C - A B on a random C (beta = 1, as LU's and Cholesky's trailing updates);
// otherwise C = A B (beta = 0). Both libraries run the same number of times from the same C.
static void bench_device(const char *prec, int m, int n, int k, cudrop::Op ta, cudrop::Op tb, int reps, cublasHandle_t handle,
                         cudaStream_t stream, bool accumulate = false) {
  const size_t rows_a = ta ? k : m, cols_a = ta ? m : k, rows_b = tb ? n : k, cols_b = tb ? k : n;
  T *dA, *dB, *dC, *dRef;
  CHECK_CUDA(cudaMalloc(&dA, rows_a * cols_a * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dB, rows_b * cols_b * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dC, size_t(m) * n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dRef, size_t(m) * n * sizeof(T)));
  using R = cudrop::real_t<T>;
  constexpr size_t parts = kParts<T>;
  bench::fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<R *>(dA), rows_a * cols_a * parts, 1);
  bench::fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<R *>(dB), rows_b * cols_b * parts, 2);
  if (accumulate) {
    bench::fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<R *>(dC), size_t(m) * n * parts, 3);
    bench::fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<R *>(dRef), size_t(m) * n * parts, 3);
  }
  // The workspace the library's host path gives gemm_device for this shape (repacking B for
  // float A^T B): its time is inside cudrop_ms. The call without it is timed too (direct_ms).
  const size_t work_bytes = cudrop::impl::gemm_device_workspace<T>(ta, tb, m, n, k);
  void *work = nullptr;
  if (work_bytes > 0) CHECK_CUDA(cudaMalloc(&work, work_bytes));
  const T alpha = accumulate ? T(-1) : T(1), beta = accumulate ? T(1) : T(0);
  auto run = [&](T *c, void *w, size_t bytes) {
    if (cudrop::impl::gemm_device<T>(ta, tb, m, n, k, alpha, dA, rows_a, dB, rows_b, beta, c, m, stream,
                                     cudrop::GemmPart{}, w, bytes) != cudrop::impl::Status::ok) {
      std::fprintf(stderr, "cudrop gemm_device failed\n");
      std::exit(2);
    }
  };
  auto ours = [&] { run(dC, work, work_bytes); };
  auto theirs = [&] {
    CHECK_CUBLAS(Cublas<T>::gemm(handle, cublas_op(ta), cublas_op(tb), m, n, k,
                                 &alpha, dA, int(rows_a), dB, int(rows_b), &beta, dRef, m));
  };
  const double ms_ours = time_ms(ours, reps, stream);
  const double ms_cublas = time_ms(theirs, reps, stream);
  char direct[96] = "";
  if (work_bytes > 0) {
    // The direct kernel into dRef's place would lose cuBLAS's result: use a third buffer.
    T *dDirect = nullptr;
    CHECK_CUDA(cudaMalloc(&dDirect, size_t(m) * n * sizeof(T)));
    const double ms_direct = time_ms([&] { run(dDirect, nullptr, 0); }, reps, stream);
    std::vector<T> x(size_t(m) * n), y(size_t(m) * n);
    CHECK_CUDA(cudaMemcpy(x.data(), dC, x.size() * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(y.data(), dDirect, y.size() * sizeof(T), cudaMemcpyDeviceToHost));
    const bool same = std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
    std::snprintf(direct, sizeof direct, " workspace_mb=%.0f direct_ms=%.3f direct_ratio=%.2f same_bits=%d",
                  work_bytes / 1048576.0, ms_direct, ms_cublas / ms_direct, int(same));
    cudaFree(dDirect);
  }
  // Agreement with cuBLAS, relative to the size of the result.
  std::vector<R> c(size_t(m) * n * parts), ref(size_t(m) * n * parts);
  CHECK_CUDA(cudaMemcpy(c.data(), dC, c.size() * sizeof(R), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(ref.data(), dRef, ref.size() * sizeof(R), cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    diff = std::max(diff, double(std::fabs(c[i] - ref[i])));
    norm = std::max(norm, double(std::fabs(ref[i])));
  }
  const double flops = flops_per_fma<T>() * m * n * k;
  std::printf("device_gemm %s %c%c m=%d n=%d k=%d beta=%d cudrop_ms=%.3f cudrop_tflops=%.2f cublas_ms=%.3f cublas_tflops=%.2f "
              "ratio=%.2f maxdiff_rel=%.1e%s\n",
              prec, ta.letter(), tb.letter(), m, n, k, int(accumulate), ms_ours, flops / ms_ours / 1e9, ms_cublas,
              flops / ms_cublas / 1e9, ms_cublas / ms_ours, diff / norm, direct);
  std::fflush(stdout);
  cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dRef); cudaFree(work);
}

// Host->host peer: pageable arrays, cudaMemcpy in, cuBLAS, cudaMemcpy out (wall clock).
template <class T>
static void bench_copy_cublas(const char *prec, int n, int reps, cublasHandle_t handle) {
  using R = cudrop::real_t<T>;
  const size_t count = size_t(n) * n;
  std::vector<T> a(count), b(count), c(count);
  R *ar = reinterpret_cast<R *>(a.data()), *br = reinterpret_cast<R *>(b.data());
  for (size_t i = 0; i < count * kParts<T>; ++i) {
    ar[i] = R((i * 7919) % 1000) / 1000 - R(0.5);
    br[i] = R((i * 104729) % 997) / 997 - R(0.5);
  }
  T *dA, *dB, *dC;
  CHECK_CUDA(cudaMalloc(&dA, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dB, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dC, count * sizeof(T)));
  const T one = 1, zero = 0;
  std::vector<double> times;
  for (int r = 0; r < reps + 1; ++r) {
    cudaDeviceSynchronize();
    const double t0 = bench::now();
    CHECK_CUDA(cudaMemcpy(dA, a.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, b.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUBLAS(Cublas<T>::gemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dA, n, dB, n, &zero, dC, n));
    CHECK_CUDA(cudaMemcpy(c.data(), dC, count * sizeof(T), cudaMemcpyDeviceToHost));
    const double t = bench::now() - t0;
    if (r > 0) times.push_back(t);  // the first run is warm-up
  }
  const double s = bench::median(times);
  std::printf("host_copy_cublas %s n=%d seconds=%.4f tflops=%.2f\n", prec, n, s,
              flops_per_fma<T>() * n * n * double(n) / s / 1e12);
  std::fflush(stdout);
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
}


int main(int argc, char **argv) {
  std::vector<int> sizes = {4096, 8192}, host_sizes = {4096, 8192}, trans_sizes;
  int reps = 7, update_n = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sizes")) sizes = bench::parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--host-sizes")) host_sizes = bench::parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--trans-sizes")) trans_sizes = bench::parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--update-n")) update_n = std::atoi(argv[i + 1]);
  }
  const cudaStream_t stream = bench::open_device(cudaStreamDefault);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, stream));
  using cudrop::Complex;
  using cudrop::Op;
  for (int n : sizes) {
    bench_device<float>("s", n, n, n, Op::none, Op::none, reps, handle, stream);
    bench_device<double>("d", n, n, n, Op::none, Op::none, reps, handle, stream);
    bench_device<Complex<float>>("c", n, n, n, Op::none, Op::none, reps, handle, stream);
    bench_device<Complex<double>>("z", n, n, n, Op::none, Op::none, reps, handle, stream);
  }
  // Complex with conjugation, at the first size.
  if (!sizes.empty()) {
    const int n = sizes.front();
    bench_device<Complex<float>>("c", n, n, n, Op::conj_trans, Op::none, reps, handle, stream);
    bench_device<Complex<double>>("z", n, n, n, Op::conj_trans, Op::none, reps, handle, stream);
    bench_device<Complex<float>>("c", n, n, n, Op::none, Op::conj_trans, reps, handle, stream);
    bench_device<Complex<double>>("z", n, n, n, Op::none, Op::conj_trans, reps, handle, stream);
  }
  // The transposed float cases: at --trans-sizes, or else at the first size only.
  if (trans_sizes.empty() && !sizes.empty()) trans_sizes.push_back(sizes.front());
  for (int n : trans_sizes) {
    bench_device<float>("s", n, n, n, Op::trans, Op::none, reps, handle, stream);
    bench_device<float>("s", n, n, n, Op::none, Op::trans, reps, handle, stream);
    bench_device<float>("s", n, n, n, Op::trans, Op::trans, reps, handle, stream);
  }
  if (!sizes.empty()) {
    const int n = sizes.front();
    // The skinny shapes of the LU and Cholesky trailing updates.
    bench_device<float>("s", 4 * n, 4 * n, 256, Op::none, Op::none, reps, handle, stream);
    bench_device<float>("s", 4 * n, 4 * n, 512, Op::none, Op::none, reps, handle, stream);
  }
  // The trailing updates themselves (C -= A B): LU's k = 128 (NN) and Cholesky's k = 512 (NT),
  // at --update-n (0: none).
  if (update_n > 0) {
    bench_device<float>("s", update_n, update_n, 128, Op::none, Op::none, reps, handle, stream, true);
    bench_device<double>("d", update_n, update_n, 128, Op::none, Op::none, reps, handle, stream, true);
    bench_device<float>("s", update_n, update_n, 512, Op::none, Op::trans, reps, handle, stream, true);
    bench_device<double>("d", update_n, update_n, 512, Op::none, Op::trans, reps, handle, stream, true);
  }
  CHECK_CUBLAS(cublasSetStream(handle, nullptr));
  for (int n : host_sizes) {
    bench_copy_cublas<float>("s", n, 3, handle);
    bench_copy_cublas<double>("d", n, 3, handle);
    bench_copy_cublas<Complex<float>>("c", n, 3, handle);
    bench_copy_cublas<Complex<double>>("z", n, 3, handle);
  }
  cublasDestroy(handle);
  return 0;
}
