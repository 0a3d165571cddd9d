// cudrop-3xtf32-bench: CUDROP_SGEMM=3xtf32 (impl::split_tf32_gemm_device: split TF32 on the
// tensor cores, packing passes included) against cuBLAS sgemm (FP32, its default math mode),
// cudrop's FP32 kernel and, for scale, cuBLAS in TF32 mode (one TF32 product: not FP32
// accuracy), device-only, same buffers, same run.
//
// Accuracy: for uniform data in [-0.5, 0.5) and for data over a wide exponent range
// (u * 2^e, e uniform in [-24, 24]), each result is compared with a double product of the same
// float inputs (cuBLAS dgemm) entry by entry: err_ij / (|A||B|)_ij, its maximum and mean, and
// the norm-wise max|err| / max|Cref|. Lines:
//   split_tf32 NN n=4096 cublas_ms=... cudrop_fp32_ms=... split_ms=... cublas_tf32_ms=... split_tflops=... ratio=...
//   split_tf32_error uniform n=2048 <library> max=... mean=... norm=...
// ratio = cuBLAS sgemm time / split time (the goal: >= 1.5 at n >= 4096).
// Options: --sizes 4096,8192,16384  --trans-size 4096 (every transpose pair there; 0: none)
//          --error-size 2048 (0: none)  --reps 5
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/bench_common.cuh"
#include "impl/gemm/gemm.h"
#include "impl/gemm/gemm_split_tf32.h"


namespace {

// u * 2^e with u uniform in [-0.5, 0.5) and e uniform in [-24, 24] (wide) or 0.
__global__ void fill(float *p, size_t count, unsigned seed, bool wide) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    unsigned x = unsigned(i) * 2654435761u ^ (seed * 97u + unsigned(i >> 32));
    x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
    float u = float(x >> 8) / 16777216.0f - 0.5f;
    if (wide) u = ldexpf(u, int((x * 2246822519u) >> 16) % 49 - 24);
    p[i] = u;
  }
}
__global__ void widen(const float *in, double *out, size_t count, bool absolute) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    out[i] = absolute ? fabs(double(in[i])) : double(in[i]);
}

// With the workspace the library's host path gives it (gemm_device_workspace), allocated once.
void split_call(bool ta, bool tb, int n, const float *A, const float *B, float *C, cudaStream_t stream) {
  static void *work = nullptr;
  static size_t work_bytes = 0;
  if (const size_t need = cudrop::impl::split_tf32_workspace(n, n, n); need > work_bytes) {
    CHECK_CUDA(cudaFree(work));
    CHECK_CUDA(cudaMalloc(&work, need));
    work_bytes = need;
  }
  bool ran = false;
  if (cudrop::impl::split_tf32_gemm_device(cudrop::Op::transposed_if(ta), cudrop::Op::transposed_if(tb), n, n, n,
                                           1.0f, A, n, B, n, 0.0f, C, n, stream,
                                           cudrop::GemmPart{}, work, work_bytes, &ran) !=
          cudrop::Status::ok ||
      !ran) {
    std::fprintf(stderr, "split_tf32_gemm_device did not run (no sm_90a code for this device?)\n");
    std::exit(2);
  }
}
void fp32_call(bool ta, bool tb, int n, const float *A, const float *B, float *C, cudaStream_t stream) {
  if (cudrop::impl::gemm_device<float>(cudrop::Op::transposed_if(ta), cudrop::Op::transposed_if(tb), n, n, n, 1.0f, A,
                                       n, B, n, 0.0f, C, n, stream) != cudrop::Status::ok) {
    std::fprintf(stderr, "gemm_device failed\n");
    std::exit(2);
  }
}

void time_shape(bool ta, bool tb, int n, int reps, cublasHandle_t handle, cudaStream_t stream) {
  const size_t count = size_t(n) * n;
  float *A, *B, *C;
  CHECK_CUDA(cudaMalloc(&A, count * 4));
  CHECK_CUDA(cudaMalloc(&B, count * 4));
  CHECK_CUDA(cudaMalloc(&C, count * 4));
  fill<<<1024, 256, 0, stream>>>(A, count, 1, false);
  fill<<<1024, 256, 0, stream>>>(B, count, 2, false);
  const float one = 1, zero = 0;
  const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  auto cublas = [&](cublasMath_t mode) {
    CHECK_CUBLAS(cublasSetMathMode(handle, mode));
    return bench::device_median_ms(stream, 2, reps, [] {}, [&] {
      CHECK_CUBLAS(cublasSgemm(handle, oa, ob, n, n, n, &one, A, n, B, n, &zero, C, n));
    });
  };
  const double cublas_ms = cublas(CUBLAS_DEFAULT_MATH);
  const double tf32_ms = cublas(CUBLAS_TF32_TENSOR_OP_MATH);
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  const double fp32_ms = bench::device_median_ms(stream, 2, reps, [] {}, [&] { fp32_call(ta, tb, n, A, B, C, stream); });
  const double split_ms =
      bench::device_median_ms(stream, 2, reps, [] {}, [&] { split_call(ta, tb, n, A, B, C, stream); });
  const double flops = 2.0 * n * double(n) * n;
  char inf[64] = "";
  if (!ta && !tb && n <= 4096) {
    // One Inf in A: the packing notices it and the kernel takes its scalar FP32 path.
    const float infinity = INFINITY;
    CHECK_CUDA(cudaMemcpy(A, &infinity, sizeof(float), cudaMemcpyHostToDevice));
    const double inf_ms =
        bench::device_median_ms(stream, 1, 3, [] {}, [&] { split_call(ta, tb, n, A, B, C, stream); });
    std::snprintf(inf, sizeof inf, " split_with_inf_ms=%.3f", inf_ms);
  }
  std::printf("split_tf32 %c%c n=%d cublas_ms=%.3f cudrop_fp32_ms=%.3f split_ms=%.3f cublas_tf32_ms=%.3f "
              "cublas_tflops=%.1f split_tflops=%.1f ratio=%.2f%s\n",
              ta ? 'T' : 'N', tb ? 'T' : 'N', n, cublas_ms, fp32_ms, split_ms, tf32_ms, flops / cublas_ms / 1e9,
              flops / split_ms / 1e9, cublas_ms / split_ms, inf);
  std::fflush(stdout);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
}

void error_stats(bool wide, int n, cublasHandle_t handle, cudaStream_t stream) {
  const size_t count = size_t(n) * n;
  float *A, *B, *C;
  double *Ad, *Bd, *Ref, *Abs;
  CHECK_CUDA(cudaMalloc(&A, count * 4));
  CHECK_CUDA(cudaMalloc(&B, count * 4));
  CHECK_CUDA(cudaMalloc(&C, count * 4));
  CHECK_CUDA(cudaMalloc(&Ad, count * 8));
  CHECK_CUDA(cudaMalloc(&Bd, count * 8));
  CHECK_CUDA(cudaMalloc(&Ref, count * 8));
  CHECK_CUDA(cudaMalloc(&Abs, count * 8));
  fill<<<1024, 256, 0, stream>>>(A, count, 11, wide);
  fill<<<1024, 256, 0, stream>>>(B, count, 12, wide);
  const double done = 1, dzero = 0;
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  widen<<<1024, 256, 0, stream>>>(A, Ad, count, false);
  widen<<<1024, 256, 0, stream>>>(B, Bd, count, false);
  CHECK_CUBLAS(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &done, Ad, n, Bd, n, &dzero, Ref, n));
  widen<<<1024, 256, 0, stream>>>(A, Ad, count, true);
  widen<<<1024, 256, 0, stream>>>(B, Bd, count, true);
  CHECK_CUBLAS(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &done, Ad, n, Bd, n, &dzero, Abs, n));
  std::vector<double> ref(count), abs(count);
  CHECK_CUDA(cudaMemcpy(ref.data(), Ref, count * 8, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(abs.data(), Abs, count * 8, cudaMemcpyDeviceToHost));
  double ref_max = 0;
  for (double r : ref) ref_max = std::max(ref_max, std::fabs(r));
  std::vector<float> got(count);
  auto report = [&](const char *library) {
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(got.data(), C, count * 4, cudaMemcpyDeviceToHost));
    double max_rel = 0, sum_rel = 0, max_err = 0;
    for (size_t i = 0; i < count; ++i) {
      const double err = std::fabs(double(got[i]) - ref[i]);
      const double rel = abs[i] > 0 ? err / abs[i] : 0;
      max_rel = std::max(max_rel, rel);
      sum_rel += rel;
      max_err = std::max(max_err, err);
    }
    std::printf("split_tf32_error %s n=%d %s max=%.3e mean=%.3e norm=%.3e\n", wide ? "wide" : "uniform", n, library,
                max_rel, sum_rel / count, max_err / ref_max);
    std::fflush(stdout);
  };
  const float one = 1, zero = 0;
  CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n));
  report("cublas_sgemm");
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
  CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n));
  report("cublas_tf32");
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  fp32_call(false, false, n, A, B, C, stream);
  report("cudrop_fp32");
  split_call(false, false, n, A, B, C, stream);
  report("cudrop_3xtf32");
  for (void *p : {(void *)A, (void *)B, (void *)C, (void *)Ad, (void *)Bd, (void *)Ref, (void *)Abs}) cudaFree(p);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {4096, 8192, 16384};
  int trans_size = 4096, error_size = 2048, reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sizes")) sizes = bench::parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--trans-size")) trans_size = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--error-size")) error_size = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: cudrop-3xtf32-bench [--sizes a,b] [--trans-size n] [--error-size n] [--reps r]\n");
      return 2;
    }
  }
  if (!bench::gpu_present("3xtf32")) return 0;
  cudaStream_t stream = bench::open_device(cudaStreamNonBlocking);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, stream));
  if (error_size > 0) {
    error_stats(false, error_size, handle, stream);
    error_stats(true, error_size, handle, stream);
  }
  for (int n : sizes) time_shape(false, false, n, reps, handle, stream);
  if (trans_size > 0)
    for (int t = 1; t < 4; ++t) time_shape(t & 1, t & 2, trans_size, reps, handle, stream);
  cublasDestroy(handle);
  return 0;
}
