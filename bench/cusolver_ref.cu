// cuSOLVER's geqrf, syevd/heevd (vectors, lower) and gesvd (JOBU = JOBVT = 'S', m >= n) on device
// arrays: the references the GPU QR, eigensolver and SVD are measured against. CUDA events, one untimed call, median of reps. Built by
// scripts/gpu-check with nvcc against the toolkit's cuSOLVER (never part of the library).
// usage: cusolver-ref geqrf|syevd d|z n[,n...] [reps]; cusolver-ref gesvd d|z MxN[,MxN...] [reps];
// cusolver-ref sytrf d n[,n...] [reps] (Bunch-Kaufman, lower, a random symmetric matrix)
#include <cuda_runtime.h>
#include <cuComplex.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

// The median time of run() over reps timed calls after one untimed one, CUDA events on the
// default stream; reset() (untimed) restores the input before each call.
template <class Reset, class Run>
static double median_seconds(int reps, Reset reset, Run run) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int r = 0; r <= reps; ++r) {
    reset();
    cudaEventRecord(e0);
    run();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    if (r > 0) ms.push_back(t);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1e-3;
}

// gesvd 'S', 'S' of each MxN, device arrays, CUDA events, one untimed call, median of reps.
static int gesvd(bool z, char *sizes, int reps) {
  cusolverDnHandle_t h;
  cusolverDnCreate(&h);
  for (char *s = std::strtok(sizes, ","); s; s = std::strtok(nullptr, ",")) {
    const int m = std::atoi(s), n = std::strchr(s, 'x') ? std::atoi(std::strchr(s, 'x') + 1) : m;
    const size_t es = z ? 16 : 8;
    std::vector<double> host(size_t(m) * n * (z ? 2 : 1));
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto &v : host) v = u(rng);
    void *a0, *a, *sv, *uu, *vt, *work;
    double *rwork;
    int *info;
    cudaMalloc(&a0, size_t(m) * n * es);
    cudaMalloc(&a, size_t(m) * n * es);
    cudaMalloc(&sv, size_t(n) * 8);
    cudaMalloc(&uu, size_t(m) * n * es);
    cudaMalloc(&vt, size_t(n) * n * es);
    cudaMalloc(&rwork, size_t(n) * 8);
    cudaMalloc(&info, sizeof(int));
    cudaMemcpy(a0, host.data(), size_t(m) * n * es, cudaMemcpyHostToDevice);
    int lwork = 0;
    if (z) cusolverDnZgesvd_bufferSize(h, m, n, &lwork);
    else cusolverDnDgesvd_bufferSize(h, m, n, &lwork);
    cudaMalloc(&work, size_t(lwork) * es);
    const double median = median_seconds(
        reps, [&] { cudaMemcpy(a, a0, size_t(m) * n * es, cudaMemcpyDeviceToDevice); },
        [&] {
          if (z)
            cusolverDnZgesvd(h, 'S', 'S', m, n, (cuDoubleComplex *)a, m, (double *)sv, (cuDoubleComplex *)uu, m,
                             (cuDoubleComplex *)vt, n, (cuDoubleComplex *)work, lwork, rwork, info);
          else
            cusolverDnDgesvd(h, 'S', 'S', m, n, (double *)a, m, (double *)sv, (double *)uu, m, (double *)vt, n,
                             (double *)work, lwork, rwork, info);
        });
    std::printf("cusolver %cgesvd %dx%d jobu=jobvt=S: median %.4f s (device only)\n", z ? 'z' : 'd', m, n, median);
    cudaFree(a0), cudaFree(a), cudaFree(sv), cudaFree(uu), cudaFree(vt), cudaFree(rwork), cudaFree(info),
        cudaFree(work);
  }
  cusolverDnDestroy(h);
  return 0;
}

// dsytrf 'L' of each n, device arrays, CUDA events, one untimed call, median of reps.
static int sytrf(char *sizes, int reps) {
  cusolverDnHandle_t h;
  cusolverDnCreate(&h);
  for (char *s = std::strtok(sizes, ","); s; s = std::strtok(nullptr, ",")) {
    const int n = std::atoi(s);
    std::vector<double> host(size_t(n) * n);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) host[i + size_t(j) * n] = host[j + size_t(i) * n] = u(rng);
    double *a0, *a, *work;
    int *ipiv, *info, lwork = 0;
    cudaMalloc(&a0, host.size() * 8);
    cudaMalloc(&a, host.size() * 8);
    cudaMalloc(&ipiv, size_t(n) * sizeof(int));
    cudaMalloc(&info, sizeof(int));
    cudaMemcpy(a0, host.data(), host.size() * 8, cudaMemcpyHostToDevice);
    cusolverDnDsytrf_bufferSize(h, n, a, n, &lwork);
    cudaMalloc(&work, size_t(lwork) * 8);
    const double median =
        median_seconds(reps, [&] { cudaMemcpy(a, a0, host.size() * 8, cudaMemcpyDeviceToDevice); },
                       [&] { cusolverDnDsytrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, ipiv, work, lwork, info); });
    std::printf("cusolver dsytrf n=%d uplo=L: median %.4f s (device only)\n", n, median);
    cudaFree(a0), cudaFree(a), cudaFree(ipiv), cudaFree(info), cudaFree(work);
  }
  cusolverDnDestroy(h);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s geqrf|syevd d|z n[,n...] [reps]\n", argv[0]);
    return 2;
  }
  const bool eigen = std::strcmp(argv[1], "syevd") == 0;
  if (std::strcmp(argv[1], "gesvd") == 0) return gesvd(argv[2][0] == 'z', argv[3], argc > 4 ? std::atoi(argv[4]) : 3);
  if (std::strcmp(argv[1], "sytrf") == 0) return sytrf(argv[3], argc > 4 ? std::atoi(argv[4]) : 3);
  ++argv;
  const bool z = argv[1][0] == 'z';
  const int reps = argc > 4 ? std::atoi(argv[3]) : 5;
  cusolverDnHandle_t h;
  cusolverDnCreate(&h);
  for (char *s = std::strtok(argv[2], ","); s; s = std::strtok(nullptr, ",")) {
    const int n = std::atoi(s);
    const size_t es = z ? 16 : 8, bytes = size_t(n) * n * es;
    std::vector<double> host(size_t(n) * n * (z ? 2 : 1));
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto &v : host) v = u(rng);
    void *a0, *a, *tau, *work;
    int *info;
    cudaMalloc(&a0, bytes);
    cudaMalloc(&a, bytes);
    cudaMalloc(&tau, size_t(n) * es);
    cudaMalloc(&info, sizeof(int));
    if (eigen)  // symmetric (Hermitian): the lower triangle is what syevd reads
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i)
          for (int p = 0; p < (z ? 2 : 1); ++p)
            host[(size_t(i) + size_t(j) * n) * (z ? 2 : 1) + p] = host[(size_t(j) + size_t(i) * n) * (z ? 2 : 1) + p];
    cudaMemcpy(a0, host.data(), bytes, cudaMemcpyHostToDevice);
    int lwork = 0;
    const cusolverEigMode_t jobz = CUSOLVER_EIG_MODE_VECTOR;
    const cublasFillMode_t lower = CUBLAS_FILL_MODE_LOWER;
    if (eigen && z) cusolverDnZheevd_bufferSize(h, jobz, lower, n, (cuDoubleComplex *)a, n, (double *)tau, &lwork);
    else if (eigen) cusolverDnDsyevd_bufferSize(h, jobz, lower, n, (double *)a, n, (double *)tau, &lwork);
    else if (z) cusolverDnZgeqrf_bufferSize(h, n, n, (cuDoubleComplex *)a, n, &lwork);
    else cusolverDnDgeqrf_bufferSize(h, n, n, (double *)a, n, &lwork);
    cudaMalloc(&work, size_t(lwork) * es);
    const double median = median_seconds(
        reps, [&] { cudaMemcpy(a, a0, bytes, cudaMemcpyDeviceToDevice); },
        [&] {
          if (eigen && z)
            cusolverDnZheevd(h, jobz, lower, n, (cuDoubleComplex *)a, n, (double *)tau, (cuDoubleComplex *)work,
                             lwork, info);
          else if (eigen)
            cusolverDnDsyevd(h, jobz, lower, n, (double *)a, n, (double *)tau, (double *)work, lwork, info);
          else if (z)
            cusolverDnZgeqrf(h, n, n, (cuDoubleComplex *)a, n, (cuDoubleComplex *)tau, (cuDoubleComplex *)work, lwork,
                             info);
          else cusolverDnDgeqrf(h, n, n, (double *)a, n, (double *)tau, (double *)work, lwork, info);
        });
    const double flops = (z ? 4 : 1) * 4.0 / 3.0 * double(n) * n * n;
    if (eigen)
      std::printf("cusolver %s n=%d: median %.4f s (device only)\n", z ? "zheevd" : "dsyevd", n, median);
    else
      std::printf("cusolver %cgeqrf n=%d: median %.4f s (%.1f GFLOP/s, device only)\n", z ? 'z' : 'd', n,
                  median, flops / median * 1e-9);
    cudaFree(a0), cudaFree(a), cudaFree(tau), cudaFree(info), cudaFree(work);
  }
  cusolverDnDestroy(h);
  return 0;
}
