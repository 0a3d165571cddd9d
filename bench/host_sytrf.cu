// The symmetric indefinite factorization and solve host to host: impl::sytrf_host / sysv_host
// (host arrays in and out, as the Fortran entries will call them) against the CPU LAPACK's
// xSYTRF/xHETRF/xSYSV called directly (BENCH_LAPACK names the library; else OpenBLAS, else
// liblapack.so.3). One warm-up call each, then the median of `reps`; one line per case:
//   dsytrf n=8192 uplo=U: gpu 0.123 s  cpu 1.234 s  10.0x
// Usage: cudrop-host-sytrf [n [reps]]  (default: the cases below at n = 8192, reps 3)
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench/host_timing.h"
#include "core/complex.h"
#include "impl/sytrf/sytrf.h"

namespace {

using cudrop::Complex;
using cudrop::Uplo;
using cudrop::impl::Symmetry;

template <class T>
using TrfFn = void (*)(const char *, const int *, T *, const int *, int *, T *, const int *, int *, size_t);
template <class T>
using SvFn = void (*)(const char *, const int *, const int *, T *, const int *, int *, T *, const int *, T *,
                      const int *, int *, size_t);

void *cpu_library() {
  static void *handle = [] {
    const char *named = std::getenv("BENCH_LAPACK");
    std::vector<const char *> candidates;
    if (named && *named) candidates = {named};
    else candidates = {"libopenblas.so.0", "liblapack.so.3"};
    for (const char *library : candidates)
      if (void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) {
        std::printf("cpu: %s\n", library);
        return h;
      }
    std::fprintf(stderr, "no CPU LAPACK (set BENCH_LAPACK)\n");
    std::exit(2);
  }();
  return handle;
}
template <class Fn>
Fn cpu_symbol(const char *name) {
  auto fn = reinterpret_cast<Fn>(dlsym(cpu_library(), name));
  if (fn == nullptr) {
    std::fprintf(stderr, "the CPU LAPACK has no %s\n", name);
    std::exit(2);
  }
  return fn;
}

template <class T> T value(unsigned long long &s) {
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return double(s >> 11) * (1.0 / 9007199254740992.0) * 2 - 1;
  };
  if constexpr (cudrop::is_complex_v<T>) {
    using R = cudrop::real_t<T>;
    const R re = R(next());
    return T(re, R(next()));
  } else {
    return T(next());
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// what: "trf" or "sv"; the CPU routine's name.
template <class T>
void run(const char *routine, bool solve, Symmetry symmetry, Uplo uplo, int n, int reps) {
  const int lda = n, nrhs = 1;
  std::vector<T> a0(size_t(lda) * n), b0(size_t(n) * nrhs);
  unsigned long long seed = 12345;
  for (T &v : a0) v = value<T>(seed);
  for (T &v : b0) v = value<T>(seed);
  std::vector<T> a(a0.size()), b(b0.size());
  std::vector<int> ipiv(static_cast<size_t>(n));
  const char u = uplo == Uplo::upper ? 'U' : 'L';
  // The CPU's optimal workspace.
  int info = 0, lwork = -1;
  T query = T(0);
  std::string name = std::string(routine) + "_";
  if (!solve) {
    auto fn = cpu_symbol<TrfFn<T>>(name.c_str());
    fn(&u, &n, a.data(), &lda, ipiv.data(), &query, &lwork, &info, 1);
  } else {
    auto fn = cpu_symbol<SvFn<T>>(name.c_str());
    fn(&u, &n, &nrhs, a.data(), &lda, ipiv.data(), b.data(), &n, &query, &lwork, &info, 1);
  }
  lwork = std::max(1, int(cudrop::real_part(query)));
  std::vector<T> work(static_cast<size_t>(lwork));
  auto cpu = [&] {
    a = a0;
    b = b0;
    const double t0 = now_seconds();
    if (!solve)
      cpu_symbol<TrfFn<T>>(name.c_str())(&u, &n, a.data(), &lda, ipiv.data(), work.data(), &lwork, &info, 1);
    else
      cpu_symbol<SvFn<T>>(name.c_str())(&u, &n, &nrhs, a.data(), &lda, ipiv.data(), b.data(), &n, work.data(), &lwork,
                                        &info, 1);
    return now_seconds() - t0;
  };
  cudrop::Status status = cudrop::Status::ok;
  auto gpu = [&] {
    a = a0;
    b = b0;
    const double t0 = now_seconds();
    if (!solve) {
      status = cudrop::impl::sytrf_host<T>(symmetry, uplo, n, a.data(), lda, ipiv.data(), &info);
    } else {
      cudrop::impl::SysvProgress progress;
      status = cudrop::impl::sysv_host<T>(symmetry, uplo, n, nrhs, a.data(), lda, ipiv.data(), b.data(), n, &info,
                                          &progress);
    }
    return now_seconds() - t0;
  };
  std::vector<double> g, c;
  gpu();
  if (status != cudrop::Status::ok) {
    std::printf("%s n=%d uplo=%c: the GPU call failed (status %d)\n", routine, n, u, int(status));
    return;
  }
  std::vector<int> gpu_ipiv = ipiv;
  const int gpu_info = info;
  cpu();
  const bool same = gpu_ipiv == ipiv && gpu_info == info;
  for (int r = 0; r < reps; ++r) g.push_back(gpu());
  for (int r = 0; r < reps; ++r) c.push_back(cpu());
  const double tg = median(g), tc = median(c);
  // The factorization alone on device arrays (CUDA events), what the host-to-host time adds to.
  double td = 0;
  if (!solve) {
    T *dA = nullptr;
    int *d_ipiv = nullptr;
    void *d_work = nullptr;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> d;
    if (cudaMalloc(&dA, a0.size() * sizeof(T)) == cudaSuccess &&
        cudaMalloc(&d_ipiv, (size_t(n) + 1) * sizeof(int)) == cudaSuccess &&
        cudaMalloc(&d_work, cudrop::impl::sytrf_device_workspace<T>(n)) == cudaSuccess) {
      for (int r = 0; r <= reps; ++r) {
        cudaMemcpy(dA, a0.data(), a0.size() * sizeof(T), cudaMemcpyHostToDevice);
        cudaEventRecord(e0, nullptr);
        cudrop::impl::sytrf_device<T>(symmetry, uplo, n, dA, size_t(lda), d_ipiv, d_ipiv + n, d_work, nullptr);
        cudaEventRecord(e1, nullptr);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r > 0) d.push_back(ms / 1e3);
      }
      td = median(d);
    }
    cudaFree(dA);
    cudaFree(d_ipiv);
    cudaFree(d_work);
  }
  std::printf("%s n=%d uplo=%c: gpu %.3f s  cpu %.3f s  %.1fx%s", routine, n, u, tg, tc, tc / tg,
              same ? "" : "  (IPIV or INFO differ from the CPU's!)");
  if (td > 0) std::printf("  (device only %.3f s)", td);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  if (n < 1 || reps < 1) {
    std::fprintf(stderr, "usage: %s [n [reps]]\n", argv[0]);
    return 2;
  }
  run<double>("dsytrf", false, Symmetry::symmetric, Uplo::upper, n, reps);
  run<double>("dsytrf", false, Symmetry::symmetric, Uplo::lower, n, reps);
  run<double>("dsysv", true, Symmetry::symmetric, Uplo::upper, n, reps);
  run<float>("ssytrf", false, Symmetry::symmetric, Uplo::lower, n, reps);
  run<Complex<double>>("zhetrf", false, Symmetry::hermitian, Uplo::upper, n / 2, reps);
  run<Complex<double>>("zsytrf", false, Symmetry::symmetric, Uplo::lower, n / 2, reps);
  return 0;
}
