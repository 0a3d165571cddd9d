// Standalone check and benchmark of kernels/gemm_dmma.cuh (launch_gemm_dmma).
//   nvcc -std=c++17 -O3 -arch=sm_90a -I. bench/dmma_check.cu -lcublas -o /tmp/dmma_check
//   /tmp/dmma_check [--quiet] [--check-only | --bench-only]
// (1) Correctness against a naive GPU reference: all four transposes, m, n, k over a size
//     grid (k = 0 too), padded and odd leading dimensions, pointers one element off 16-byte
//     alignment, beta in {0 (C pre-filled with NaN), 1, -0.5}, alpha in {1, 0.3}; A and B
//     are NaN outside their op() region, and C outside m x n must stay bit-identical.
//     Also one product wider than 65535 block columns (the column-slab path).
// (2) Timing against cublasDgemm (CUDA events, 2 warm-ups, median of 5), plus variants of
//     the kernel (block tile, pipeline depth) on NN. Every block tile is checked.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/env.h"
#include "impl/gemm/gemm_config.h"
#include "kernels/gemm_dmma.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(2); } } while (0)
#define CKB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d cublas %d\n", __FILE__, __LINE__, int(s_)); std::exit(2); } } while (0)

using namespace cudrop::kernels;

__device__ double hash_value(size_t i, unsigned seed) {  // uniform in [-0.5, 0.5)
  unsigned x = unsigned(i) * 2654435761u ^ (seed * 97u + unsigned(i >> 32));
  x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
  return double(x) / 4294967296.0 - 0.5;
}
__global__ void fill_const(double *p, size_t count, double v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) p[i] = v;
}
// Random values in the rows x cols matrix at p with leading dimension ld (the rest untouched).
__global__ void fill_matrix(double *p, int rows, int cols, size_t ld, unsigned seed) {
  const size_t count = size_t(rows) * cols;
  for (size_t q = blockIdx.x * size_t(blockDim.x) + threadIdx.x; q < count; q += size_t(gridDim.x) * blockDim.x)
    p[q % rows + (q / rows) * ld] = hash_value(q, seed);
}
// R = alpha*op(A)*op(B) + beta*C0 (C0 not read when beta == 0), R and bound m x n with ld m;
// bound = |alpha| sum |a||b| + |beta c|, the scale of the rounding error.
__global__ void reference(bool ta, bool tb, int m, int n, int k, double alpha, const double *A, size_t lda,
                          const double *B, size_t ldb, double beta, const double *C0, size_t ldc, double *R,
                          double *bound) {
  const size_t count = size_t(m) * n;
  for (size_t q = blockIdx.x * size_t(blockDim.x) + threadIdx.x; q < count; q += size_t(gridDim.x) * blockDim.x) {
    const int i = int(q % m), j = int(q / m);
    double s = 0, sa = 0;
    for (int l = 0; l < k; ++l) {
      const double a = ta ? A[l + size_t(i) * lda] : A[i + size_t(l) * lda];
      const double b = tb ? B[j + size_t(l) * ldb] : B[l + size_t(j) * ldb];
      s = fma(a, b, s);
      sa += fabs(a * b);
    }
    double r = alpha * s, bd = fabs(alpha) * sa;
    if (beta != 0) { const double c = C0[i + size_t(j) * ldc]; r += beta * c; bd += fabs(beta * c); }
    R[q] = r;
    bound[q] = bd;
  }
}
// Scans buf[0, total): inside the m x n view at buf + off must match R, outside must be
// bit-identical to the original C0. Counts failures; keeps the worst err/tol ratio.
__global__ void compare(const double *buf, const double *orig, size_t total, size_t off, int m, int n, size_t ldc,
                        int k, const double *R, const double *bound, unsigned long long *bad,
                        unsigned long long *worst_bits) {
  for (size_t q = blockIdx.x * size_t(blockDim.x) + threadIdx.x; q < total; q += size_t(gridDim.x) * blockDim.x) {
    bool inside = false;
    size_t i = 0, j = 0;
    if (q >= off) { i = (q - off) % ldc; j = (q - off) / ldc; inside = i < size_t(m) && j < size_t(n); }
    if (inside) {
      const size_t r = i + j * size_t(m);
      const double tol = 4.0 * (k + 2) * 1.1102230246251565e-16 * bound[r] + 1e-300;
      const double ratio = fabs(buf[q] - R[r]) / tol;
      if (!(ratio <= 1.0)) atomicAdd(bad, 1ull);
      if (ratio == ratio) atomicMax(worst_bits, (unsigned long long)__double_as_longlong(ratio));
      else atomicMax(worst_bits, (unsigned long long)__double_as_longlong(1e300));
    } else if (__double_as_longlong(buf[q]) != __double_as_longlong(orig[q])) {
      atomicAdd(bad, 1ull);
    }
  }
}
__global__ void max_abs_diff(const double *x, const double *y, size_t count, unsigned long long *out) {
  for (size_t q = blockIdx.x * size_t(blockDim.x) + threadIdx.x; q < count; q += size_t(gridDim.x) * blockDim.x) {
    const double d = fabs(x[q] - y[q]);
    atomicMax(out, (unsigned long long)__double_as_longlong(d == d ? d : 1e300));
  }
}

static const int kGrid = 1024, kBlock = 256;
static double *dA, *dB, *dC, *dC0, *dR, *dBound;
static unsigned long long *dStats;
static const size_t kA = 1100000, kB = 17000000, kC = 8500000;  // doubles per buffer

// The block tile impl::gemm_device would choose for this shape on the current device
// (CUDROP_DMMA_TILE honoured), then that tile's launch.
static cudaError_t launch_gemm_dmma_chosen(bool ta, bool tb, int m, int n, int k, double alpha, const double *A,
                                           size_t lda, const double *B, size_t ldb, double beta, double *C,
                                           size_t ldc, cudaStream_t stream, cudrop::GemmPart part) {
  static int sms = 0, optin = 0, major = 0, minor = 0;
  if (sms == 0) {
    int device = 0;
    CK(cudaGetDevice(&device));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  }
  const cudrop::tuning::Table &tuned = cudrop::tuning::table(cudrop::tuning::generation_of(major, minor));
  const DmmaTile tile =
      cudrop::impl::choose_dmma_tile(m, n, k, sms, size_t(optin), cudrop::env::environment().dmma_tile, tuned);
  return launch_gemm_dmma(tile, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream, part);
}

using Launcher = cudaError_t (*)(bool, bool, int, int, int, double, const double *, size_t, const double *, size_t,
                                 double, double *, size_t, cudaStream_t, cudrop::GemmPart);
static Launcher g_launch = launch_gemm_dmma_chosen;  // the configuration under check

// One case; returns true on pass.
static bool run_case(bool ta, bool tb, int m, int n, int k, size_t lda, size_t ldb, size_t ldc, size_t off,
                     double alpha, double beta, unsigned seed, bool quiet) {
  const int a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
  const size_t a_total = off + lda * a_cols + 1, b_total = off + ldb * b_cols + 1, c_total = off + ldc * n + 1;
  if (a_total > kA || b_total > kB || c_total > kC || size_t(m) * n > kC) { std::fprintf(stderr, "case too big\n"); std::exit(2); }
  const double nan = std::nan("");
  fill_const<<<kGrid, kBlock>>>(dA, a_total, nan);
  fill_const<<<kGrid, kBlock>>>(dB, b_total, nan);
  fill_matrix<<<kGrid, kBlock>>>(dA + off, a_rows, a_cols, lda, seed);
  fill_matrix<<<kGrid, kBlock>>>(dB + off, b_rows, b_cols, ldb, seed + 1);
  if (beta == 0) fill_const<<<kGrid, kBlock>>>(dC0, c_total, nan);
  else {
    fill_const<<<kGrid, kBlock>>>(dC0, c_total, -7.0);
    fill_matrix<<<kGrid, kBlock>>>(dC0 + off, m, n, ldc, seed + 2);
  }
  CK(cudaMemcpy(dC, dC0, c_total * sizeof(double), cudaMemcpyDeviceToDevice));
  reference<<<kGrid, kBlock>>>(ta, tb, m, n, k, alpha, dA + off, lda, dB + off, ldb, beta, dC0 + off, ldc, dR, dBound);
  CK(cudaGetLastError());
  CK(g_launch(ta, tb, m, n, k, alpha, dA + off, lda, dB + off, ldb, beta, dC + off, ldc, 0, cudrop::GemmPart{}));
  CK(cudaMemset(dStats, 0, 2 * sizeof(unsigned long long)));
  compare<<<kGrid, kBlock>>>(dC, dC0, c_total, off, m, n, ldc, k, dR, dBound, dStats, dStats + 1);
  unsigned long long stats[2];
  CK(cudaMemcpy(stats, dStats, sizeof(stats), cudaMemcpyDeviceToHost));
  double worst;
  std::memcpy(&worst, &stats[1], sizeof(worst));
  const bool pass = stats[0] == 0;
  if (!pass || !quiet)
    std::printf("%s op=%c%c m=%d n=%d k=%d lda=%zu ldb=%zu ldc=%zu off=%zu alpha=%g beta=%g bad=%llu err/tol=%.3g\n",
                pass ? "PASS" : "FAIL", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, lda, ldb, ldc, off, alpha, beta,
                stats[0], worst);
  return pass;
}

static int check(bool quiet) {
  CK(cudaMalloc(&dA, kA * 8)); CK(cudaMalloc(&dB, kB * 8)); CK(cudaMalloc(&dC, kC * 8));
  CK(cudaMalloc(&dC0, kC * 8)); CK(cudaMalloc(&dR, kC * 8)); CK(cudaMalloc(&dBound, kC * 8));
  CK(cudaMalloc(&dStats, 2 * sizeof(unsigned long long)));
  const int sizes[] = {1, 7, 33, 64, 128, 129, 1007};
  const int ks[] = {0, 1, 7, 33, 64, 128, 129, 1007};
  const double betas[] = {0.0, 1.0, -0.5}, alphas[] = {1.0, 0.3};
  const int pads[] = {0, 3, 1};
  int cases = 0, failures = 0;
  // Every block tile the dispatcher may pick, each over the whole grid of cases.
  int optin = 0;
  CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  std::vector<Launcher> configs = {launch_gemm_dmma_cfg<DmmaConfig128x64>, launch_gemm_dmma_cfg<DmmaConfig64x64>};
  if (size_t(optin) >= DmmaConfig128x128::smem_bytes) configs.push_back(launch_gemm_dmma_cfg<DmmaConfig128x128>);
  for (Launcher config : configs) {
  g_launch = config;
  for (int op = 0; op < 4; ++op)
    for (int m : sizes)
      for (int n : sizes)
        for (int k : ks) {
          const bool ta = op & 2, tb = op & 1;
          const int c = cases;
          const double beta = betas[c % 3], alpha = alphas[(c / 3) % 2];
          const int pad = pads[(c / 6) % 3];
          const size_t off = (c / 2) % 2;
          const size_t lda = size_t(std::max(ta ? k : m, 1)) + pad, ldb = size_t(std::max(tb ? n : k, 1)) + pad,
                       ldc = size_t(m) + pads[(c / 7) % 3];
          failures += !run_case(ta, tb, m, n, k, lda, ldb, ldc, off, alpha, beta, 1000u + c, quiet);
          ++cases;
        }
  // Column slabs: more than 65535 block columns of 128 (or 64).
  const int wide = 65535 * 128 + 77;
  failures += !run_case(false, false, 1, wide, 2, 1, 2, 1, 1, 0.3, -0.5, 7u, quiet); ++cases;
  failures += !run_case(false, true, 1, wide, 2, 1, size_t(wide), 1, 0, 1.0, 0.0, 8u, quiet); ++cases;
  }
  g_launch = launch_gemm_dmma_chosen;
  std::printf("dmma_check: %d cases, %d failures\n", cases, failures);
  cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dC0); cudaFree(dR); cudaFree(dBound); cudaFree(dStats);
  return failures;
}

template <class F>
static double time_ms(F &&f) {
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start)); CK(cudaEventCreate(&stop));
  f(); f();
  CK(cudaDeviceSynchronize());
  std::vector<double> times;
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(start)); f(); CK(cudaEventRecord(stop)); CK(cudaEventSynchronize(stop));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  cudaEventDestroy(start); cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[2];
}

static void bench() {
  const int nmax = 8192;
  const size_t count = size_t(nmax) * nmax;
  double *A, *B, *C, *Cref;
  unsigned long long *d;
  CK(cudaMalloc(&A, count * 8)); CK(cudaMalloc(&B, count * 8)); CK(cudaMalloc(&C, count * 8));
  CK(cudaMalloc(&Cref, count * 8)); CK(cudaMalloc(&d, sizeof(unsigned long long)));
  fill_matrix<<<kGrid, kBlock>>>(A, nmax, nmax, nmax, 11u);
  fill_matrix<<<kGrid, kBlock>>>(B, nmax, nmax, nmax, 12u);
  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  const double alpha = 1.0, beta = 0.0;
  struct Run { int n; int op; };
  const Run runs[] = {{4096, 0}, {4096, 1}, {4096, 2}, {4096, 3}, {8192, 0}};
  for (const Run &r : runs) {
    const int n = r.n;
    const bool ta = r.op & 2, tb = r.op & 1;
    const double flops = 2.0 * n * double(n) * n;
    const double t_mine = time_ms([&] { CK(launch_gemm_dmma_chosen(ta, tb, n, n, n, alpha, A, n, B, n, beta, C, n, 0, cudrop::GemmPart{})); });
    const double t_cublas = time_ms([&] {
      CKB(cublasDgemm(handle, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, n, n, n, &alpha, A, n,
                      B, n, &beta, Cref, n));
    });
    CK(cudaMemset(d, 0, sizeof(*d)));
    max_abs_diff<<<kGrid, kBlock>>>(C, Cref, size_t(n) * n, d);
    unsigned long long bits;
    CK(cudaMemcpy(&bits, d, sizeof(bits), cudaMemcpyDeviceToHost));
    double diff;
    std::memcpy(&diff, &bits, sizeof(diff));
    std::printf("dmma m=%d n=%d k=%d op=%c%c cudrop_tflops=%.2f cublas_tflops=%.2f ratio=%.3f maxdiff_vs_cublas=%.2e\n", n,
                n, n, ta ? 'T' : 'N', tb ? 'T' : 'N', flops / t_mine * 1e-9, flops / t_cublas * 1e-9,
                t_cublas / t_mine, diff);
  }
  // Block tiles against cuBLAS on the shapes of LU's and Cholesky's trailing updates
  // (beta = 1, small k) and square ones.
  struct Shape { int m, n, k; };
  for (const Shape &sh : {Shape{2048, 2048, 2048}, Shape{3072, 3072, 3072}, Shape{4096, 4096, 256},
                          Shape{8192, 8192, 128}, Shape{8192, 8192, 256}, Shape{8192, 8192, 512},
                          Shape{8192, 8192, 1024}, Shape{4096, 4096, 4096}, Shape{8192, 8192, 8192}}) {
    const double flops = 2.0 * sh.m * double(sh.n) * sh.k, one = 1.0;
    auto tflops = [&](auto launch) {
      return flops / time_ms([&] { CK(launch(false, true, sh.m, sh.n, sh.k, -1.0, A, size_t(sh.m), B, size_t(sh.n), one, C, size_t(sh.m), cudaStream_t(0), cudrop::GemmPart{})); }) * 1e-9;
    };
    const double minus = -1.0;
    const double t_cublas = time_ms([&] {
      CKB(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, sh.m, sh.n, sh.k, &minus, A, sh.m, B, sh.n, &one, Cref, sh.m));
    });
    std::printf("dmma_tiles m=%d n=%d k=%d op=NT beta=1 t128x128=%.2f t128x64=%.2f t64x64=%.2f "
                "auto=%.2f cublas=%.2f\n",
                sh.m, sh.n, sh.k, tflops(launch_gemm_dmma_cfg<DmmaConfig128x128>), tflops(launch_gemm_dmma_cfg<DmmaConfig128x64>),
                tflops(launch_gemm_dmma_cfg<DmmaConfig64x64>),
                tflops(launch_gemm_dmma_chosen), flops / t_cublas * 1e-9);
  }
  // Kernel variants, NN: block tile and pipeline depth.
  for (int n : {4096, 8192}) {
    const double flops = 2.0 * n * double(n) * n;
    auto report = [&](const char *name, auto launch) {
      const double t = time_ms([&] { CK(launch(n, n, n, alpha, A, size_t(n), B, size_t(n), beta, C, size_t(n), cudaStream_t(0), cudrop::GemmPart{})); });
      std::printf("variant n=%d %s tflops=%.2f\n", n, name, flops / t * 1e-9);
    };
    report("128x128 stages=4 (dispatched)", launch_gemm_dmma_t<false, false, DmmaConfig128x128>);
    report("128x128 stages=3", launch_gemm_dmma_t<false, false, DmmaConfig<DmmaShape<128, 128, 2, 4>, 3, 1>>);
    report("128x64 stages=3 (dispatched)", launch_gemm_dmma_t<false, false, DmmaConfig128x64>);
    report("128x64 stages=4 bounds for 2/SM", launch_gemm_dmma_t<false, false, DmmaConfig<DmmaShape<128, 64, 2, 2>, 4, 2>>);
    report("64x128 stages=4 bounds for 2/SM", launch_gemm_dmma_t<false, false, DmmaConfig<DmmaShape<64, 128, 1, 4>, 4, 2>>);
    report("64x64 stages=4 (dispatched)", launch_gemm_dmma_t<false, false, DmmaConfig64x64>);
  }
  cublasDestroy(handle);
  cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(Cref); cudaFree(d);
}

int main(int argc, char **argv) {
  bool quiet = false, do_check = true, do_bench = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quiet")) quiet = true;
    else if (!std::strcmp(argv[i], "--check-only")) do_bench = false;
    else if (!std::strcmp(argv[i], "--bench-only")) do_check = false;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("dmma_check: no usable GPU (skipped)\n");
    return 77;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  const int failures = do_check ? check(quiet) : 0;
  if (do_bench) bench();
  return failures ? 1 : 0;
}
