// Power-method benchmark (cudrop_spower_/dpower_/scsrpower_/dcsrpower_), one run, one line per
// case, key=value, starting with "power ":
//  * cudrop device-only: impl::power_dense_device / power_csr_device (the loop the public calls
//    run once the data is on the GPU: fused mat-vec + max-reduction, scale + convergence test,
//    batches checked by the host while the next runs), TOL = 0 so exactly MAXIT iterations,
//    GPU time of the loop (CUDA events) / iterations; median of 5 runs after a warm-up.
//  * peer, the "one sync per iteration" loop a cuBLAS/cuSPARSE user writes: cublas?gemv (dense)
//    or cusparseSpMV (CSR, CUSPARSE_SPMV_ALG_DEFAULT, preprocessed), then cublasI?amax (the
//    first index of the largest |y_i|, the same rule), a scale + test kernel, and a 16-byte
//    device->host copy of lambda and the flag that the host checks before the next iteration.
//    ratio = peer_ms_per_iter / cudrop_ms_per_iter (> 1: cudrop faster). Also the library's
//    mat-vec alone, back to back (peer_gemv_only_ms / peer_spmv_only_ms): a floor for any loop.
//  * CSR: format = the kernel the loop ran on (sell: the SELL copy the library makes when the
//    workspace has room for it, as the public calls give it; stream: the CSR-stream kernel).
//    The CSR-stream kernel alone, back to back (stream_matvec_ms: an iteration without its
//    scale/test launch; tpr = its lanes per row), with the scale/test launch
//    (stream_matvec_scale_ms) and that launch alone (scale_only_ms).
//  * for a few cases: the public call end to end (host arrays in and out, transfers included,
//    e2e_ms, CUDROP_POWER_MIN_BYTES=0 so it runs on the GPU: e2e_gpu=1 checks the counters)
//    and the CPU path (impl::power_*_cpu, what CUDROP_MODE=cpu runs, cpu_ms), same MAXIT.
// Bytes per iteration (gbps, copy_frac against a device-to-device cudaMemcpy, read + write):
// dense n^2 * size (A once); CSR "matrix + y": nnz * (size + 4) + 4 (n + 1) + n * size.
// Matrices (values uniform in [-0.5, 0.5), never all zero; rows of nnz_per_row/2 ..
// 3 nnz_per_row/2 entries, nnz_per_row on average, columns sorted within a row, duplicates
// possible and added):
//  * matrix=random: columns uniform over all n (no locality: every x gather is its own 32-byte
//    L2 sector, so the loop is bound by L2 sector traffic, nnz * 32 bytes, not by DRAM);
//  * matrix=local: columns uniform within +-1024 of the diagonal (mod n): a band, the locality
//    of a FEM mesh or a bandwidth-reduced (RCM-ordered) graph; x gathers mostly hit L1.
//   cudrop-power-bench [--quick] [--no-cpu]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#if !defined(POWER_BENCH_NO_CUSPARSE) && __has_include(<cusparse.h>)
#include <cusparse.h>
#define POWER_BENCH_CUSPARSE 1
#else
#define POWER_BENCH_CUSPARSE 0
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_common.cuh"
#include "cudrop.h"
#include "impl/power/power.h"
#include "cpu/power_loop.h"
#include "kernels/csr_power.cuh"

#define CHECK_CUSPARSE(x) do { int s_ = int(x); if (s_ != 0) { \
  std::fprintf(stderr, "%s:%d cusparse %d\n", __FILE__, __LINE__, s_); std::exit(2); } } while (0)
#define CHECK_STATUS(x) do { cudrop::impl::Status s_ = (x); if (s_ != cudrop::impl::Status::ok) { \
  std::fprintf(stderr, "%s:%d cudrop status %d\n", __FILE__, __LINE__, int(s_)); std::exit(2); } } while (0)


namespace {

using bench::fill_random;
using bench::median;
using bench::now;
using namespace cudrop::impl;
using cudrop::power_csr_cpu;
using cudrop::power_dense_cpu;

constexpr int kRuns = 5;  // timed runs (median) after one warm-up

bool g_quick = false, g_cpu = true, g_csr_only = false;
double g_copy_bw = 0;  // bytes/s, read + write
cudaStream_t g_stream = nullptr;
cublasHandle_t g_cublas = nullptr;

template <class T> const char *prec() { return sizeof(T) == 4 ? "s" : "d"; }

// `reps` calls of `matvec` back to back (the library mat-vec alone, or a device copy): ms per
// call, median of kRuns after a warm-up.
template <class MatVec>
double matvec_only(int reps, MatVec &&matvec) {
  return bench::device_median_ms(g_stream, 1, kRuns, [] {}, [&] {
           for (int i = 0; i < reps; ++i) matvec();
         }) / reps;
}

double copy_bandwidth() {
  const size_t bytes = size_t(1) << 30;
  void *a = nullptr, *b = nullptr;
  CHECK_CUDA(cudaMalloc(&a, bytes));
  CHECK_CUDA(cudaMalloc(&b, bytes));
  CHECK_CUDA(cudaMemset(a, 1, bytes));
  const double ms = matvec_only(4, [&] {
    CHECK_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g_stream));
  });
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  return 2.0 * bytes / (ms * 1e-3);
}

// ---- the peer's pieces ------------------------------------------------------------------------
template <class T>
struct PeerRecord {
  T lambda;
  int moved_at;  // last iteration in which some |y_i/lambda - x_i| >= tol
  int pad;
};

// x = y / y[idx - 1] (idx from cublasI?amax, 1-based), the flag, lambda for the host.
template <class T>
__global__ void peer_scale(int n, const T *__restrict__ y, T *__restrict__ x, const int *idx, T tol,
                           int iteration, PeerRecord<T> *record) {
  const T lambda = y[*idx - 1];
  bool moved = false;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < size_t(n); i += size_t(gridDim.x) * blockDim.x) {
    const T s = y[i] / lambda;
    if (!(fabs(s - x[i]) < tol)) moved = true;
    x[i] = s;
  }
  if (__syncthreads_or(moved) && threadIdx.x == 0) atomicMax(&record->moved_at, iteration);
  if (blockIdx.x == 0 && threadIdx.x == 0) record->lambda = lambda;
}

template <class T>
__global__ void fill_value(T *p, size_t count, T value) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) p[i] = value;
}

template <class T> struct Blas {
  static constexpr bool single = std::is_same_v<T, float>;
  static void gemv(int n, const T *one, const T *a, int lda, const T *x, const T *zero, T *y) {
    if constexpr (single) CHECK_CUBLAS(cublasSgemv(g_cublas, CUBLAS_OP_N, n, n, one, a, lda, x, 1, zero, y, 1));
    else CHECK_CUBLAS(cublasDgemv(g_cublas, CUBLAS_OP_N, n, n, one, a, lda, x, 1, zero, y, 1));
  }
  static void amax(int n, const T *y, int *idx) {
    if constexpr (single) CHECK_CUBLAS(cublasIsamax(g_cublas, n, y, 1, idx));
    else CHECK_CUBLAS(cublasIdamax(g_cublas, n, y, 1, idx));
  }
  static void cudrop_dense(const int *n, const T *a, const int *lda, T *lambda, T *x, const int *init, const T *tol,
                           int *maxit, int *info) {
    if constexpr (single) cudrop_spower_(n, a, lda, lambda, x, init, tol, maxit, info);
    else cudrop_dpower_(n, a, lda, lambda, x, init, tol, maxit, info);
  }
  static void cudrop_csr(const int *n, const T *val, const int *col, const int *row, const int *base, T *lambda, T *x,
                         const int *init, const T *tol, int *maxit, int *info) {
    if constexpr (single) cudrop_scsrpower_(n, val, col, row, base, lambda, x, init, tol, maxit, info);
    else cudrop_dcsrpower_(n, val, col, row, base, lambda, x, init, tol, maxit, info);
  }
};

// The peer's loop: `matvec()` queues y = A x; then amax, scale, a 16-byte copy and a wait.
// Returns ms per iteration (median of kRuns) and the last lambda.
template <class T, class MatVec>
double peer_loop(int n, int maxit, T *dx, T *dy, MatVec &&matvec, T *lambda_out) {
  int *d_idx = nullptr;
  PeerRecord<T> *d_rec = nullptr, *h_rec = nullptr;
  CHECK_CUDA(cudaMalloc(&d_idx, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_rec, sizeof(PeerRecord<T>)));
  CHECK_CUDA(cudaHostAlloc(&h_rec, sizeof(PeerRecord<T>), cudaHostAllocDefault));
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = int(std::min<long long>((n + 255) / 256, 8LL * sms));
  // The runs are alike (same start, TOL = 0), so each makes the same number of iterations.
  int done = 0;
  const double ms = bench::device_median_ms(
      g_stream, 1, kRuns,
      [&] {
        fill_value<<<1024, 256, 0, g_stream>>>(dx, size_t(n), T(1));
        CHECK_CUDA(cudaMemsetAsync(d_rec, 0, sizeof(PeerRecord<T>), g_stream));
      },
      [&] {
        for (int it = 1; it <= maxit; ++it) {
          matvec();
          Blas<T>::amax(n, dy, d_idx);
          peer_scale<T><<<grid, 256, 0, g_stream>>>(n, dy, dx, d_idx, T(0), it, d_rec);
          CHECK_CUDA(cudaMemcpyAsync(h_rec, d_rec, sizeof(PeerRecord<T>), cudaMemcpyDeviceToHost, g_stream));
          CHECK_CUDA(cudaStreamSynchronize(g_stream));
          done = it;
          if (h_rec->moved_at != it) break;  // converged (never with TOL = 0)
        }
      });
  *lambda_out = h_rec->lambda;
  CHECK_CUDA(cudaFree(d_idx));
  CHECK_CUDA(cudaFree(d_rec));
  CHECK_CUDA(cudaFreeHost(h_rec));
  return ms / done;
}

// cudrop's device loop, kRuns + 1 times: ms per iteration (median), lambda, INFO, whether x and
// lambda came out bit-identical in every run.
template <class T>
struct CudropTiming {
  double ms_per_iter = 0;
  T lambda = 0;
  int info = 0, iterations = 0;
  bool repeatable = true;
  bool sell_copy = false, sell_near = false;
};

// How the benchmark runs cudrop's device loop: from x = ones, the loop alone timed.
PowerOptions timed_from_ones() {
  PowerOptions opt;
  opt.start_ones = true;
  opt.time_loop = true;
  return opt;
}

template <class T, class Run>
CudropTiming<T> cudrop_loop(int n, T *dx, Run &&run) {
  CudropTiming<T> out;
  std::vector<T> first(static_cast<size_t>(n)), again(static_cast<size_t>(n));
  std::vector<double> per;
  for (int r = 0; r <= kRuns; ++r) {
    PowerResult<T> res;
    run(&res);
    if (r > 0) per.push_back(double(res.loop_ms) / std::max(1, res.iterations));
    CHECK_CUDA(cudaMemcpy(r == 0 ? first.data() : again.data(), dx, size_t(n) * sizeof(T), cudaMemcpyDeviceToHost));
    if (r == 0) {
      out.lambda = res.lambda;
      out.info = res.info;
      out.iterations = res.iterations;
      out.sell_copy = res.sell_copy;
      out.sell_near = res.sell_near;
    } else if (std::memcmp(first.data(), again.data(), size_t(n) * sizeof(T)) != 0 ||
               std::memcmp(&out.lambda, &res.lambda, sizeof(T)) != 0 || res.iterations != out.iterations) {
      out.repeatable = false;
    }
  }
  out.ms_per_iter = median(per);
  return out;
}

double rel_diff(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b)); }

// cudrop's public call, host arrays in and out (public_call(&lambda, &maxit, &info)), against
// this program's CPU loop (cpu_call, the same arguments), 10 iterations each from x = ones:
// prints the e2e fields of the benchmark's line.
template <class T, class PublicCall, class CpuCall>
void e2e_against_cpu(PublicCall &&public_call, CpuCall &&cpu_call) {
  const int e2e_maxit = 10;
  T lambda = 0;
  int info = 0, iterations = 0;
  bool on_gpu = false;
  const double e2e_ms = bench::host_median_ms(
      kRuns, [&] { iterations = e2e_maxit; }, [&] { public_call(&lambda, &iterations, &info); }, &on_gpu);
  int it = e2e_maxit, cinfo = 0;
  T clambda = 0;
  const double t0 = now();
  cpu_call(&clambda, &it, &cinfo);
  const double cpu_ms = (now() - t0) * 1e3;
  std::printf(" e2e_maxit=%d e2e_ms=%.1f e2e_gpu=%d cpu_ms=%.1f speedup_vs_cpu=%.1f cpu_lambda_rel_diff=%.1e", e2e_maxit,
              e2e_ms, int(on_gpu), cpu_ms, cpu_ms / e2e_ms, rel_diff(double(lambda), double(clambda)));
}

// ---- dense ---------------------------------------------------------------------------------
template <class T>
double bench_dense(int n, int maxit, bool e2e) {
  const int lda = (n + 31) / 32 * 32;
  const size_t count = size_t(lda) * size_t(n);
  T *dA = nullptr, *dx = nullptr, *dy = nullptr, *dconst = nullptr;
  void *dw = nullptr;
  CHECK_CUDA(cudaMalloc(&dA, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dx, size_t(n) * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dy, size_t(n) * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dconst, 2 * sizeof(T)));
  fill_random<<<2048, 256, 0, g_stream>>>(dA, count, 7u + unsigned(n));
  const T consts[2] = {T(1), T(0)};
  CHECK_CUDA(cudaMemcpy(dconst, consts, sizeof consts, cudaMemcpyHostToDevice));
  size_t wb = 0;
  CHECK_STATUS(power_dense_workspace<T>(n, &wb));
  CHECK_CUDA(cudaMalloc(&dw, wb));
  CHECK_CUDA(cudaStreamSynchronize(g_stream));

  const CudropTiming<T> ours = cudrop_loop<T>(n, dx, [&](PowerResult<T> *res) {
    const PowerOptions opt = timed_from_ones();
    CHECK_STATUS(power_dense_device<T>(n, dA, size_t(lda), dx, T(0), maxit, dw, wb, g_stream, opt, res));
  });
  auto gemv = [&] { Blas<T>::gemv(n, dconst, dA, lda, dx, dconst + 1, dy); };
  T peer_lambda = 0;
  const double peer_ms = peer_loop<T>(n, maxit, dx, dy, gemv, &peer_lambda);
  const double gemv_ms = matvec_only(maxit, gemv);

  const double bytes = double(n) * n * sizeof(T);
  const double bw = bytes / (ours.ms_per_iter * 1e-3);
  std::printf("power dense %s n=%d maxit=%d bytes=%.0f cudrop_ms_per_iter=%.4f gbps=%.0f copy_frac=%.3f info=%d "
              "repeatable=%d peer=cublas_%sgemv peer_ms_per_iter=%.4f ratio=%.2f peer_gemv_only_ms=%.4f "
              "peer_gemv_only_frac=%.3f lambda_rel_diff=%.1e",
              prec<T>(), n, maxit, bytes, ours.ms_per_iter, bw / 1e9, bw / g_copy_bw, ours.info, int(ours.repeatable),
              prec<T>(), peer_ms, peer_ms / ours.ms_per_iter, gemv_ms, bytes / (gemv_ms * 1e-3) / g_copy_bw,
              rel_diff(double(ours.lambda), double(peer_lambda)));
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dconst));
  CHECK_CUDA(cudaFree(dw));

  if (e2e && g_cpu) {
    // Host matrix (LDA = n), pageable, as a caller has it.
    std::vector<T> a(static_cast<size_t>(n) * n), x(static_cast<size_t>(n));
    CHECK_CUDA(cudaMemcpy2D(a.data(), size_t(n) * sizeof(T), dA, size_t(lda) * sizeof(T), size_t(n) * sizeof(T), size_t(n),
                            cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(dA));
    dA = nullptr;
    const int init = 1;
    const T tol = T(0);
    e2e_against_cpu<T>(
        [&](T *lambda, int *iterations, int *info) {
          Blas<T>::cudrop_dense(&n, a.data(), &n, lambda, x.data(), &init, &tol, iterations, info);
        },
        [&](T *lambda, int *iterations, int *info) {
          power_dense_cpu<T>(n, a.data(), n, lambda, x.data(), true, tol, iterations, info);
        });
  }
  std::printf("\n");
  std::fflush(stdout);
  if (dA) CHECK_CUDA(cudaFree(dA));
  CHECK_CUDA(cudaFree(dx));
  return ours.ms_per_iter;
}

// ---- CSR -----------------------------------------------------------------------------------
__device__ inline unsigned mix(unsigned long long k, unsigned seed) {
  unsigned x = unsigned(k) * 2654435761u ^ (seed * 97u + unsigned(k >> 32) * 40503u);
  x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
  return x;
}

// Row i's columns: uniform over [0, n) (band = 0) or within +-band of i (mod n); sorted.
__global__ void make_columns(int n, const int *__restrict__ rowptr, int *__restrict__ col, int band, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const int s = rowptr[i], e = rowptr[i + 1];
    int c[96];
    const int len = min(e - s, 96);
    for (int k = 0; k < len; ++k) {
      const unsigned h = mix((unsigned long long)(s + k), seed);
      long long v = band > 0 ? i + (long long)(h % unsigned(2 * band + 1)) - band : (long long)(h % unsigned(n));
      v %= n;
      if (v < 0) v += n;
      c[k] = int(v);
    }
    for (int k = 1; k < len; ++k) {  // insertion sort
      const int v = c[k];
      int j = k - 1;
      while (j >= 0 && c[j] > v) { c[j + 1] = c[j]; --j; }
      c[j + 1] = v;
    }
    for (int k = 0; k < len; ++k) col[s + k] = c[k];
  }
}

// The library's mat-vec kernel alone (fused max-reduction included, no scale/test launch),
// back to back, with the library's lanes-per-row rule and a grid of one wave; then with the
// scale/test launch, and that alone. ms per launch (median).
template <class Kernel>
int wave_of(Kernel kernel) {
  int per_sm = 0, sms = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, cudrop::kernels::kPowerThreads, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return std::max(1, per_sm) * sms;
}

template <class T, int TPR>
void csr_kernels_only(int n, long long nnz, const T *dv, const int *dc, const int *dr, const T *dx, T *dy, int reps,
                      double *matvec_ms, double *pair_ms, double *scale_ms) {
  using namespace cudrop::kernels;
  const long long per_block = (long long)kPowerWarps * csr_rows_per_warp<TPR>();
  const int grid = int(std::max(1LL, std::min<long long>(wave_of(power_csr_max<T, TPR>), (n + per_block - 1) / per_block)));
  T *slot_v = nullptr;
  int *slot_i = nullptr, *parts = nullptr;
  PowerState<T> *state = nullptr;
  CHECK_CUDA(cudaMalloc(&slot_v, size_t(grid) * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&slot_i, size_t(grid) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&parts, (size_t(grid) + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&state, sizeof(PowerState<T>)));
  CHECK_CUDA(cudaMemsetAsync(state, 0, sizeof(PowerState<T>), g_stream));
  power_csr_partition<<<(grid + kPowerThreads) / kPowerThreads, kPowerThreads, 0, g_stream>>>(n, nnz, dr, 0, grid, parts);
  const bool vec = reinterpret_cast<uintptr_t>(dv) % 16 == 0 && reinterpret_cast<uintptr_t>(dc) % 16 == 0;
  auto matvec = [&] {
    power_csr_max<T, TPR><<<grid, kPowerThreads, 0, g_stream>>>(n, nnz, dv, dc, dr, 0, vec, parts, dx, dy, slot_v, slot_i, state);
  };
  *matvec_ms = matvec_only(reps, matvec);
  // The whole iteration's two launches without the host's batching: what the loop costs on
  // top of the mat-vec. x is scaled in place here (its values stay those of an iterate).
  int scale_per_sm = 0, sms = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&scale_per_sm, power_scale_check<T>, kPowerThreads, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int scale_grid = power_scale_blocks(n, scale_per_sm * sms);
  T *dx_mutable = const_cast<T *>(dx);
  *pair_ms = matvec_only(reps, [&] {
    matvec();
    power_scale_check<T><<<scale_grid, kPowerThreads, 0, g_stream>>>(n, dy, dx_mutable, T(0), INT_MAX, state);
  });
  *scale_ms = matvec_only(reps, [&] {
    power_scale_check<T><<<scale_grid, kPowerThreads, 0, g_stream>>>(n, dy, dx_mutable, T(0), INT_MAX, state);
  });
  CHECK_CUDA(cudaGetLastError());
  PowerState<T> h{};
  CHECK_CUDA(cudaMemcpy(&h, state, sizeof h, cudaMemcpyDeviceToHost));
  if (h.stop != kRunning) std::fprintf(stderr, "kernels_only: stop %d\n", h.stop);
  CHECK_CUDA(cudaFree(slot_v));
  CHECK_CUDA(cudaFree(slot_i));
  CHECK_CUDA(cudaFree(parts));
  CHECK_CUDA(cudaFree(state));
}

template <class T>
void csr_kernels_only(int n, long long nnz, const T *dv, const int *dc, const int *dr, const T *dx, T *dy, int reps,
                      double *matvec_ms, double *pair_ms, double *scale_ms) {
  switch (cudrop::kernels::csr_lanes_per_row(n, nnz)) {
    case 1: return csr_kernels_only<T, 1>(n, nnz, dv, dc, dr, dx, dy, reps, matvec_ms, pair_ms, scale_ms);
    case 2: return csr_kernels_only<T, 2>(n, nnz, dv, dc, dr, dx, dy, reps, matvec_ms, pair_ms, scale_ms);
    case 4: return csr_kernels_only<T, 4>(n, nnz, dv, dc, dr, dx, dy, reps, matvec_ms, pair_ms, scale_ms);
    case 8: return csr_kernels_only<T, 8>(n, nnz, dv, dc, dr, dx, dy, reps, matvec_ms, pair_ms, scale_ms);
    case 16: return csr_kernels_only<T, 16>(n, nnz, dv, dc, dr, dx, dy, reps, matvec_ms, pair_ms, scale_ms);
    default: return csr_kernels_only<T, 32>(n, nnz, dv, dc, dr, dx, dy, reps, matvec_ms, pair_ms, scale_ms);
  }
}

template <class T>
void bench_csr(int n, int per_row, bool local, int maxit, bool e2e) {
  // POWER_BENCH_CSR=s16local (precision, nnz per row, matrix): that case only (profiling runs).
  if (const char *only = std::getenv("POWER_BENCH_CSR"); only != nullptr && *only != '\0') {
    char name[32];
    std::snprintf(name, sizeof name, "%s%d%s", prec<T>(), per_row, local ? "local" : "random");
    if (std::strcmp(only, name) != 0) return;
  }
  // Row lengths per_row/2 .. per_row/2 + per_row (mean per_row).
  std::vector<int> rowptr(static_cast<size_t>(n) + 1);
  rowptr[0] = 0;
  unsigned s = 12345u + unsigned(per_row);
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    rowptr[i + 1] = rowptr[i] + per_row / 2 + int((s >> 8) % unsigned(per_row + 1));
  }
  const long long nnz = rowptr[n];
  T *dv = nullptr, *dx = nullptr, *dy = nullptr;
  int *dc = nullptr, *dr = nullptr;
  void *dw = nullptr;
  CHECK_CUDA(cudaMalloc(&dv, size_t(nnz) * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dc, size_t(nnz) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dr, (size_t(n) + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dx, size_t(n) * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dy, size_t(n) * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(dr, rowptr.data(), (size_t(n) + 1) * sizeof(int), cudaMemcpyHostToDevice));
  fill_random<<<2048, 256, 0, g_stream>>>(dv, size_t(nnz), 3u + unsigned(per_row));
  make_columns<<<1024, 256, 0, g_stream>>>(n, dr, dc, local ? 1024 : 0, 99u + unsigned(per_row));
  CHECK_CUDA(cudaGetLastError());
  size_t wb = 0, stream_wb = 0;  // the workspace with room for the SELL copy, as the public calls
  CHECK_STATUS(power_csr_workspace<T>(n, nnz, &stream_wb, &wb));
  CHECK_CUDA(cudaMalloc(&dw, wb));
  CHECK_CUDA(cudaStreamSynchronize(g_stream));

  const CudropTiming<T> ours = cudrop_loop<T>(n, dx, [&](PowerResult<T> *res) {
    const PowerOptions opt = timed_from_ones();
    CHECK_STATUS(power_csr_device<T>(n, nnz, dv, dc, dr, 0, dx, T(0), maxit, dw, wb, g_stream, opt, res));
  });
  const double bytes = double(nnz) * (sizeof(T) + 4) + 4.0 * (double(n) + 1) + double(n) * sizeof(T);
  const double bw = bytes / (ours.ms_per_iter * 1e-3);
  std::printf("power csr %s rows=%d nnz_per_row=%d matrix=%s nnz=%lld maxit=%d bytes=%.0f cudrop_ms_per_iter=%.4f "
              "gbps=%.0f copy_frac=%.3f info=%d repeatable=%d format=%s",
              prec<T>(), n, per_row, local ? "local" : "random", nnz, maxit, bytes, ours.ms_per_iter, bw / 1e9,
              bw / g_copy_bw, ours.info, int(ours.repeatable), ours.sell_copy ? (ours.sell_near ? "sell16" : "sell") : "stream");
  {
    double matvec_ms = 0, pair_ms = 0, scale_ms = 0;
    csr_kernels_only<T>(n, nnz, dv, dc, dr, dx, dy, maxit, &matvec_ms, &pair_ms, &scale_ms);
    std::printf(" tpr=%d stream_matvec_ms=%.4f stream_matvec_frac=%.3f stream_matvec_scale_ms=%.4f scale_only_ms=%.4f",
                cudrop::kernels::csr_lanes_per_row(n, nnz), matvec_ms, bytes / (matvec_ms * 1e-3) / g_copy_bw,
                pair_ms, scale_ms);
  }
#if POWER_BENCH_CUSPARSE
  {
    cusparseHandle_t sp = nullptr;
    CHECK_CUSPARSE(cusparseCreate(&sp));
    CHECK_CUSPARSE(cusparseSetStream(sp, g_stream));
    const cudaDataType dt = sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F;
    cusparseSpMatDescr_t mat = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    CHECK_CUSPARSE(cusparseCreateCsr(&mat, n, n, nnz, dr, dc, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, dt));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vx, n, dx, dt));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vy, n, dy, dt));
    const T one = T(1), zero = T(0);
    size_t buffer_bytes = 0;
    CHECK_CUSPARSE(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, dt,
                                           CUSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes));
    void *buffer = nullptr;
    CHECK_CUDA(cudaMalloc(&buffer, std::max<size_t>(buffer_bytes, 256)));
#if CUSPARSE_VERSION >= 12400
    CHECK_CUSPARSE(cusparseSpMV_preprocess(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, dt,
                                           CUSPARSE_SPMV_ALG_DEFAULT, buffer));
#endif
    auto spmv = [&] {
      CHECK_CUSPARSE(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, dt,
                                  CUSPARSE_SPMV_ALG_DEFAULT, buffer));
    };
    T peer_lambda = 0;
    const double peer_ms = peer_loop<T>(n, maxit, dx, dy, spmv, &peer_lambda);
    const double spmv_ms = matvec_only(maxit, spmv);
    std::printf(" peer=cusparse_spmv peer_ms_per_iter=%.4f ratio=%.2f peer_spmv_only_ms=%.4f peer_spmv_only_frac=%.3f "
                "lambda_rel_diff=%.1e",
                peer_ms, peer_ms / ours.ms_per_iter, spmv_ms, bytes / (spmv_ms * 1e-3) / g_copy_bw,
                rel_diff(double(ours.lambda), double(peer_lambda)));
    CHECK_CUDA(cudaFree(buffer));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vx));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vy));
    CHECK_CUSPARSE(cusparseDestroySpMat(mat));
    CHECK_CUSPARSE(cusparseDestroy(sp));
  }
#else
  std::printf(" peer=none");
#endif
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dw));

  if (e2e && g_cpu) {
    std::vector<T> val(static_cast<size_t>(nnz)), x(static_cast<size_t>(n));
    std::vector<int> col(static_cast<size_t>(nnz));
    CHECK_CUDA(cudaMemcpy(val.data(), dv, size_t(nnz) * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(col.data(), dc, size_t(nnz) * sizeof(int), cudaMemcpyDeviceToHost));
    const int init = 1, base = 0;
    const T tol = T(0);
    e2e_against_cpu<T>(
        [&](T *lambda, int *iterations, int *info) {
          Blas<T>::cudrop_csr(&n, val.data(), col.data(), rowptr.data(), &base, lambda, x.data(), &init, &tol,
                              iterations, info);
        },
        [&](T *lambda, int *iterations, int *info) {
          power_csr_cpu<T>(n, val.data(), col.data(), rowptr.data(), 0, lambda, x.data(), true, tol, iterations, info);
        });
  }
  std::printf("\n");
  std::fflush(stdout);
  CHECK_CUDA(cudaFree(dv));
  CHECK_CUDA(cudaFree(dc));
  CHECK_CUDA(cudaFree(dr));
  CHECK_CUDA(cudaFree(dx));
}

}  // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) g_quick = true;
    else if (std::strcmp(argv[i], "--no-cpu") == 0) g_cpu = false;
    else if (std::strcmp(argv[i], "--csr-only") == 0) g_csr_only = true;
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--no-cpu] [--csr-only]\n", argv[0]);
      return 2;
    }
  }
  // The public calls read these once, at their first call: every e2e call on the GPU.
  setenv("CUDROP_POWER_MIN_BYTES", "0", 1);
  const double t_start = now();
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  CHECK_CUDA(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  CHECK_CUBLAS(cublasCreate(&g_cublas));
  CHECK_CUBLAS(cublasSetStream(g_cublas, g_stream));
  CHECK_CUBLAS(cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_DEVICE));
  g_copy_bw = copy_bandwidth();
  std::printf("# device=\"%s\" sms=%d l2_mb=%.0f copy_gbps=%.0f (cudaMemcpy D2D, read+write)\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize / 1048576.0, g_copy_bw / 1e9);
  std::printf("# ratio = peer_ms_per_iter / cudrop_ms_per_iter (>1: cudrop faster); CSR bytes = matrix + y\n");
  std::fflush(stdout);

  const int rows = g_quick ? 1 << 18 : 1 << 21;
  // Dense: three sizes of one precision show the fixed cost per iteration (intercept).
  // Dense: sizes past the L2 (n >= 4096 in single precision) give the fixed cost per
  // iteration as the intercept of time against bytes (n = 2048, 16 MB, stays in L2).
  if (!g_csr_only) {
    bench_dense<float>(2048, 200, false);
    const int n1 = 4096, n2 = g_quick ? 8192 : 16384;
    const double t1 = bench_dense<float>(n1, 100, false);
    if (!g_quick) bench_dense<float>(8192, 50, false);
    const double t2 = bench_dense<float>(n2, 30, true);
    {
      const double b1 = 4.0 * n1 * n1, b2 = 4.0 * n2 * n2;
      const double per_byte = (t2 - t1) / (b2 - b1);  // ms per byte
      std::printf("power dense_fit s n1=%d n2=%d fixed_us_per_iter=%.1f stream_gbps=%.0f stream_copy_frac=%.3f\n", n1, n2,
                  (t1 - per_byte * b1) * 1e3, 1e-6 / per_byte, 1e-6 / per_byte * 1e9 / g_copy_bw);
    }
    bench_dense<double>(g_quick ? 4096 : 16384, 20, false);
  }
  // POWER_BENCH_PER_ROW=4,8: these float cases instead of 8, 16, 32 (threshold probes).
  std::vector<int> per_rows{8, 16, 32};
  if (const char *list = std::getenv("POWER_BENCH_PER_ROW"); list != nullptr && *list != '\0') {
    per_rows.clear();
    for (const char *c = list; *c != '\0';) {
      char *end = nullptr;
      const long v = std::strtol(c, &end, 10);
      if (end == c) break;
      if (v > 0 && v <= 1024) per_rows.push_back(int(v));
      c = *end == ',' ? end + 1 : end;
    }
  }
  for (int per_row : per_rows)
    for (bool local : {false, true}) bench_csr<float>(rows, per_row, local, 50, per_row == 16);
  for (bool local : {false, true}) bench_csr<double>(rows, 16, local, 50, false);
  std::printf("# total %.1f s\n", now() - t_start);
  CHECK_CUBLAS(cublasDestroy(g_cublas));
  CHECK_CUDA(cudaStreamDestroy(g_stream));
  return 0;
}
