// cudrop-managed-program: a CUDA program that calls the BLAS and LAPACK on memory the GPU
// reaches itself, as CUDA Fortran and OpenACC programs built for unified memory do. Its arrays
// come from cudaMallocManaged (filled and read back by its own kernels, so they live on the
// GPU between the calls) or from cudaMallocHost; between its kernels it calls dgemm_ and dgetrf_
// from whatever BLAS the process has (run it plain for the CPU BLAS, under
// LD_PRELOAD=libcudrop.so for cudrop). Each step is timed whole, with the program's kernel that
// consumes the result: what the program waits for.
//   usage: cudrop-managed-program [n (8192)] [managed|pinned|both] [reps (3)]
// prints per memory kind and step the median seconds and a checksum the runs must share.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/harness/cuda_check.h"

namespace {

using Dgemm = void (*)(const char *, const char *, const int *, const int *, const int *, const double *,
                       const double *, const int *, const double *, const int *, const double *, double *, const int *,
                       size_t, size_t);
using Dgetrf = void (*)(const int *, const int *, double *, const int *, int *, int *);

void *routine(const char *name) {
  void *fn = dlsym(RTLD_DEFAULT, name);
  if (fn == nullptr) {
    const char *lib = std::getenv("BENCH_LAPACK") ? std::getenv("BENCH_LAPACK") : "liblapack.so.3";
    if (void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL)) fn = dlsym(h, name);
  }
  if (fn == nullptr) {
    std::fprintf(stderr, "no %s: preload a library that has it or install liblapack.so.3\n", name);
    std::exit(2);
  }
  return fn;
}

// x[i] in [-0.5, 0.5) from a hash of (seed, i); `boost` added to the diagonal of an n x n matrix.
__global__ void fill(double *x, size_t count, unsigned seed, int n, double boost) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed * 40503u ^ unsigned(i >> 32) * 97u;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    double v = h / 4294967296.0 - 0.5;
    if (boost != 0 && i % (size_t(n) + 1) == 0) v += boost;
    x[i] = v;
  }
}

// The program's use of a result: a sum of every 97th entry, on the GPU.
__global__ void sample_sum(const double *x, size_t count, double *out) {
  double s = 0;
  for (size_t i = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) * 97; i < count; i += size_t(gridDim.x) * blockDim.x * 97)
    s += x[i];
  atomicAdd(out, s);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void run(const char *kind, int n, int reps, Dgemm dgemm, Dgetrf dgetrf) {
  const bool managed = std::strcmp(kind, "managed") == 0;
  const size_t count = size_t(n) * n, bytes = count * sizeof(double);
  double *a = nullptr, *b = nullptr, *c = nullptr, *sum = nullptr;
  for (double **p : {&a, &b, &c}) {
    if (managed) CHECK_CUDA(cudaMallocManaged(p, bytes));
    else CHECK_CUDA(cudaMallocHost(p, bytes));
  }
  CHECK_CUDA(cudaMallocManaged(&sum, sizeof(double)));
  std::vector<int> ipiv(n);
  std::vector<double> gemm_s, getrf_s;
  double gemm_check = 0, getrf_check = 0;
  for (int r = 0; r < reps; ++r) {
    fill<<<1024, 256>>>(a, count, 1, n, 0.0);
    fill<<<1024, 256>>>(b, count, 2, n, 0.0);
    CHECK_CUDA(cudaDeviceSynchronize());
    // C = A B, then the program's kernel reads C.
    auto t0 = std::chrono::steady_clock::now();
    const double one = 1.0, zero = 0.0;
    dgemm("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    *sum = 0;
    sample_sum<<<1024, 256>>>(c, count, sum);
    CHECK_CUDA(cudaDeviceSynchronize());
    gemm_s.push_back(seconds_since(t0));
    gemm_check = *sum;
    // LU of a diagonally boosted A made on the GPU, then the program's kernel reads the factor.
    fill<<<1024, 256>>>(a, count, 3, n, double(n) / 8);
    CHECK_CUDA(cudaDeviceSynchronize());
    t0 = std::chrono::steady_clock::now();
    int info = 0;
    dgetrf(&n, &n, a, &n, ipiv.data(), &info);
    *sum = 0;
    sample_sum<<<1024, 256>>>(a, count, sum);
    CHECK_CUDA(cudaDeviceSynchronize());
    getrf_s.push_back(seconds_since(t0));
    getrf_check = *sum + info;
  }
  std::printf("managed_program memory=%s n=%d step=dgemm seconds=%.4f checksum=%.9e\n", kind, n, median(gemm_s),
              gemm_check);
  std::printf("managed_program memory=%s n=%d step=dgetrf seconds=%.4f checksum=%.9e\n", kind, n, median(getrf_s),
              getrf_check);
  std::fflush(stdout);
  for (double *p : {a, b, c}) {
    if (managed) CHECK_CUDA(cudaFree(p));
    else CHECK_CUDA(cudaFreeHost(p));
  }
  CHECK_CUDA(cudaFree(sum));
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  const std::string kinds = argc > 2 ? argv[2] : "both";
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  if (n <= 0 || reps <= 0 || (kinds != "managed" && kinds != "pinned" && kinds != "both")) {
    std::fprintf(stderr, "usage: %s [n] [managed|pinned|both] [reps]\n", argv[0]);
    return 2;
  }
  const auto dgemm = reinterpret_cast<Dgemm>(routine("dgemm_"));
  const auto dgetrf = reinterpret_cast<Dgetrf>(routine("dgetrf_"));
  const auto t0 = std::chrono::steady_clock::now();
  if (kinds != "pinned") run("managed", n, reps, dgemm, dgetrf);
  if (kinds != "managed") run("pinned", n, reps, dgemm, dgetrf);
  std::printf("managed_program total_seconds=%.3f\n", seconds_since(t0));
  return 0;
}
