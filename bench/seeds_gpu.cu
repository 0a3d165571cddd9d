// The GPU side of the seeds experiments (bench/cudrop-bench --seeds, docs/seeds.md): the
// experiments cudrop started from, rerun on today's GPU with cudrop's own routines.
//
//   cudrop-seeds-gpu power s|d ROWS PER_ROW TOL MAXIT [REPS]
//     cudrop's power method (docs/power.md) on bench/seeds_matrix.h's CSR matrix, from x = ones,
//     until convergence: device-only (impl::power_csr_device on the uploaded matrix, wall clock
//     of the call, which returns once the loop has stopped) and host->host through the public
//     cudrop_?csrpower_ (CUDROP_POWER_MIN_BYTES=0: on the GPU; on_gpu=1 when cudrop's counters
//     say so). Median of REPS (default 3) after one warm-up. Lines "seeds_power ... impl=...".
//   cudrop-seeds-gpu lu s|d N[,N...] [REPS]
//     impl::getrf_device blocked (nb=tuned, the library's panel width) against unblocked (nb=1:
//     one column per panel, so every update is a rank-1 GEMM), device-only, CUDA events,
//     median of REPS (default 3) after one warm-up; residual ||PAx - LUx|| / (n ||A|| ||x|| eps).
//   cudrop-seeds-gpu chol s|d N[,N...] NB[,NB...] [REPS]
//     Blocked Cholesky (lower) of block width NB, left-looking and right-looking, by this
//     file's driver over the library's device building blocks (the Cholesky panel kernel on the
//     NB x NB diagonal block, trsm_device, syr2k_device as SYRK, gemm_device); and, once per n,
//     the library's own impl::potrf_device (order=library). Residual ||Ax - LL^Tx|| / (n ||A||
//     ||x|| eps) of each. Matrix: symmetric, entries uniform in [-0.5, 0.5), diagonal + n.
// Without a usable GPU: "seeds bench: no usable GPU", exit 77.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_common.cuh"
#include "bench/factor_check.cuh"
#include "bench/seeds_matrix.h"
#include "cudrop.h"
#include "impl/gemm/gemm.h"
#include "impl/getrf/getrf.h"
#include "impl/level3/level3_device.h"
#include "impl/potrf/potrf.h"
#include "impl/potrf/potrf_plan.h"
#include "impl/power/power.h"
#include "kernels/potrf_panel.cuh"

namespace {

using namespace cudrop::impl;
using cudrop::Op;

#define CHECK_STATUS(x) do { Status s_ = (x); if (s_ != Status::ok) { \
  std::fprintf(stderr, "%s:%d cudrop status %d\n", __FILE__, __LINE__, int(s_)); std::exit(2); } } while (0)

cudaStream_t g_stream = nullptr;

template <class T> char prec() { return sizeof(T) == 4 ? 's' : 'd'; }

template <class T>
T *upload(const std::vector<T> &host) {
  T *d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, host.size() * sizeof(T) + 1));
  CHECK_CUDA(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// ---- power method ---------------------------------------------------------------------------

void csr_power(const int *n, const float *val, const int *colind, const int *rowptr, const int *base, float *lambda,
               float *x, const int *init, const float *tol, int *maxit, int *info) {
  cudrop_scsrpower_(n, val, colind, rowptr, base, lambda, x, init, tol, maxit, info);
}
void csr_power(const int *n, const double *val, const int *colind, const int *rowptr, const int *base, double *lambda,
               double *x, const int *init, const double *tol, int *maxit, int *info) {
  cudrop_dcsrpower_(n, val, colind, rowptr, base, lambda, x, init, tol, maxit, info);
}

template <class T>
void run_power(int rows, int per_row, double tol, int maxit, int reps) {
  const long long nnz = (long long)rows * per_row;
  std::vector<int> rowptr(static_cast<size_t>(rows) + 1), colind(static_cast<size_t>(nnz));
  std::vector<double> wide(static_cast<size_t>(nnz));
  seeds_csr(rows, per_row, rowptr.data(), colind.data(), wide.data());
  std::vector<T> val(wide.begin(), wide.end());
  wide = std::vector<double>();
  T *dval = upload(val), *dx = nullptr;
  int *dcol = upload(colind), *drow = upload(rowptr);
  CHECK_CUDA(cudaMalloc(&dx, size_t(rows) * sizeof(T)));
  size_t bytes = 0, with_copy = 0;
  CHECK_STATUS(power_csr_workspace<T>(rows, nnz, &bytes, &with_copy));
  void *dwork = nullptr;
  CHECK_CUDA(cudaMalloc(&dwork, with_copy));  // room for the SELL copy, as the public calls give it
  PowerOptions opt;
  opt.start_ones = true;
  PowerResult<T> res;
  std::vector<double> times;
  for (int r = 0; r <= reps; ++r) {
    const double t0 = bench::now();
    CHECK_STATUS(power_csr_device<T>(rows, nnz, dval, dcol, drow, 0, dx, T(tol), maxit, dwork, with_copy, g_stream,
                                     opt, &res));
    if (r > 0) times.push_back((bench::now() - t0) * 1e3);
  }
  std::printf("seeds_power %c rows=%d per_row=%d nnz=%lld impl=cudrop_device reps=%d ms=%.3f iters=%d lambda=%.12e "
              "info=%d format=%s\n", prec<T>(), rows, per_row, nnz, reps, bench::median(times), res.iterations,
              double(res.lambda), res.info, res.sell_copy ? "sell" : "stream");
  std::fflush(stdout);
  CHECK_CUDA(cudaFree(dval)); CHECK_CUDA(cudaFree(dcol)); CHECK_CUDA(cudaFree(drow));
  CHECK_CUDA(cudaFree(dx)); CHECK_CUDA(cudaFree(dwork));

  // The public call, host arrays in and out.
  std::vector<T> x(rows);
  T lambda = 0;
  const T ttol = T(tol);
  const int init = 1, base = 0;
  int iters = 0, info = 0;
  bool on_gpu = false;
  const double e2e_ms = bench::host_median_ms(
      reps, [&] { iters = maxit; },
      [&] { csr_power(&rows, val.data(), colind.data(), rowptr.data(), &base, &lambda, x.data(), &init, &ttol, &iters,
                      &info); },
      &on_gpu);
  std::printf("seeds_power %c rows=%d per_row=%d nnz=%lld impl=cudrop_e2e reps=%d ms=%.3f iters=%d lambda=%.12e "
              "info=%d on_gpu=%d\n", prec<T>(), rows, per_row, nnz, reps, e2e_ms, iters, double(lambda), info,
              int(on_gpu));
  std::fflush(stdout);
}

// ---- dense factorizations -------------------------------------------------------------------

template <class T>
__global__ void fill_spd(T *a, int n, unsigned seed) {
  // symmetric: entry (i, j) from the hash of (min, max); diagonal + n, so positive definite
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < size_t(n) * n; e += size_t(gridDim.x) * blockDim.x) {
    const unsigned i = unsigned(e % n), j = unsigned(e / n), lo = i < j ? i : j, hi = i < j ? j : i;
    unsigned x = (lo * 2654435761u) ^ (hi * 40503u + seed * 97u);
    x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
    a[e] = T(x) / T(4294967296.0) - T(0.5) + (i == j ? T(n) : T(0));
  }
}

template <class T>
std::vector<T> download(const T *d, size_t count) {
  std::vector<T> h(count);
  CHECK_CUDA(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <class T>
void run_lu(int n, int reps) {
  const size_t count = size_t(n) * n;
  T *dPristine = nullptr, *dA = nullptr;
  int *dIpiv = nullptr;
  void *dWork = nullptr;
  CHECK_CUDA(cudaMalloc(&dPristine, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dA, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dIpiv, (size_t(n) + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dWork, std::max<size_t>(256, getrf_device_workspace<T>(n, n))));
  bench::fill_random<<<2048, 256, 0, g_stream>>>(dPristine, count, 11u + unsigned(n));
  CHECK_CUDA(cudaGetLastError());
  const std::vector<T> pristine = download(dPristine, count);
  for (int nb : {0, 1}) {
    auto factor = [&] { CHECK_STATUS(getrf_device<T>(n, n, dA, size_t(n), dIpiv, dIpiv + n, dWork, g_stream, nb)); };
    const double ms = bench::device_median_ms(
        g_stream, 1, reps,
        [&] { CHECK_CUDA(cudaMemcpyAsync(dA, dPristine, count * sizeof(T), cudaMemcpyDeviceToDevice, g_stream)); },
        factor);
    CHECK_CUDA(cudaMemcpyAsync(dA, dPristine, count * sizeof(T), cudaMemcpyDeviceToDevice, g_stream));
    factor();
    CHECK_CUDA(cudaStreamSynchronize(g_stream));
    const std::vector<T> lu = download(dA, count);
    const std::vector<int> ipiv = download(dIpiv, size_t(n) + 1);
    const double resid = bench::lu_spot_check<T>(n, pristine.data(), lu.data(), ipiv.data());
    std::printf("seeds_lu %c n=%d variant=%s nb=%s ms=%.3f gflops=%.1f resid=%.3g info=%d ok=%d\n", prec<T>(), n,
                nb ? "unblocked" : "blocked", nb ? "1" : "tuned", ms, 2.0 / 3.0 * double(n) * n * n / ms / 1e6, resid,
                ipiv[n], int(resid < 30 && ipiv[n] == 0));
    std::fflush(stdout);
  }
  CHECK_CUDA(cudaFree(dPristine)); CHECK_CUDA(cudaFree(dA)); CHECK_CUDA(cudaFree(dIpiv)); CHECK_CUDA(cudaFree(dWork));
}

// Blocked lower Cholesky of width nb over the library's device functions (bench only: the
// library's potrf_device has its own schedule, impl/potrf/potrf_plan.h). d_work: two ints (the panel
// kernel's INFO and its finished-block counter), zeroed by the caller. INFO of a block is
// relative to that block: nonzero means not positive definite somewhere. scratch: SYRK's
// workspace (syr2k_device_workspace bytes), so that no step allocates its own.
template <class T>
void chol_blocked(int n, T *dA, size_t ld, int nb, bool left, int *d_work, void *scratch, size_t scratch_bytes,
                  cudaStream_t stream) {
  auto at = [&](int i, int j) { return dA + size_t(i) + size_t(j) * ld; };
  auto *finished = reinterpret_cast<unsigned *>(d_work + 1);
  for (int j = 0; j < n; j += nb) {
    const int jb = std::min(nb, n - j), rest = n - j - jb;
    if (left && j > 0) {  // this block column receives every earlier column's update
      CHECK_STATUS(syr2k_device<T>(cudrop::Uplo::lower, cudrop::Op::none, jb, j, T(-1), at(j, 0), ld, nullptr, 0, T(1),
                                   at(j, j), ld, stream, scratch, scratch_bytes));
      if (rest > 0)
        CHECK_STATUS(gemm_device<T>(Op::none, Op::trans, rest, jb, j, T(-1), at(j + jb, 0), ld, at(j, 0), ld, T(1),
                                    at(j + jb, j), ld, stream));
    }
    // the diagonal block alone: the panel kernel on a jb x jb matrix factors it and solves nothing
    CHECK_CUDA(cudrop::kernels::launch_potrf_panel<T>({1, stream}, at(j, j), ld, jb, 0, d_work, finished));
    if (rest == 0) break;
    CHECK_STATUS(trsm_device<T>(cudrop::Side::right, cudrop::Uplo::lower, cudrop::Op::trans, cudrop::Diag::non_unit,
                                rest, jb, T(1), at(j, j), ld, at(j + jb, j), ld, stream));
    if (!left)  // the trailing matrix receives this block column's update at once
      CHECK_STATUS(syr2k_device<T>(cudrop::Uplo::lower, cudrop::Op::none, rest, jb, T(-1), at(j + jb, j), ld, nullptr,
                                   0, T(1), at(j + jb, j + jb), ld, stream, scratch, scratch_bytes));
  }
}

template <class T>
void run_chol(int n, const std::vector<int> &nbs, int reps) {
  const size_t count = size_t(n) * n;
  T *dPristine = nullptr, *dA = nullptr;
  int *dWork = nullptr;
  CHECK_CUDA(cudaMalloc(&dPristine, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dA, count * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dWork, 256));
  const size_t scratch_bytes = syr2k_device_workspace<T>(cudrop::Op::none, n, n);
  void *dScratch = nullptr;
  CHECK_CUDA(cudaMalloc(&dScratch, std::max<size_t>(256, scratch_bytes)));
  fill_spd<<<2048, 256, 0, g_stream>>>(dPristine, n, 5u + unsigned(n));
  CHECK_CUDA(cudaGetLastError());
  const std::vector<T> pristine = download(dPristine, count);
  struct Variant { const char *order; int nb; };
  std::vector<Variant> variants{{"library", 0}};
  for (const char *order : {"left", "right"})
    for (int nb : nbs) variants.push_back({order, nb});
  for (const Variant &v : variants) {
    auto factor = [&] {
      if (v.nb == 0) CHECK_STATUS(potrf_device<T>(n, dA, size_t(n), dWork, g_stream));
      else chol_blocked<T>(n, dA, size_t(n), v.nb, std::strcmp(v.order, "left") == 0, dWork, dScratch, scratch_bytes,
                           g_stream);
    };
    auto restore = [&] {
      CHECK_CUDA(cudaMemcpyAsync(dA, dPristine, count * sizeof(T), cudaMemcpyDeviceToDevice, g_stream));
      CHECK_CUDA(cudaMemsetAsync(dWork, 0, 2 * sizeof(int), g_stream));
    };
    const double ms = bench::device_median_ms(g_stream, 1, reps, restore, factor);
    restore();
    factor();
    CHECK_CUDA(cudaStreamSynchronize(g_stream));
    const std::vector<T> l = download(dA, count);
    const std::vector<int> info = download(dWork, 1);
    const double resid = bench::chol_spot_check<T>(n, pristine.data(), l.data());
    std::printf("seeds_chol %c n=%d order=%s nb=%s ms=%.3f gflops=%.1f resid=%.3g info=%d ok=%d\n", prec<T>(), n,
                v.order, v.nb ? std::to_string(v.nb).c_str() : "tuned", ms, double(n) * n * n / 3.0 / ms / 1e6, resid,
                info[0], int(resid < 30 && info[0] == 0));
    std::fflush(stdout);
  }
  CHECK_CUDA(cudaFree(dPristine)); CHECK_CUDA(cudaFree(dA)); CHECK_CUDA(cudaFree(dWork)); CHECK_CUDA(cudaFree(dScratch));
}

int usage(const char *me) {
  std::fprintf(stderr, "usage: %s power s|d ROWS PER_ROW TOL MAXIT [REPS]\n       %s lu s|d N[,N...] [REPS]\n"
                       "       %s chol s|d N[,N...] NB[,NB...] [REPS]\n", me, me, me);
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 4) return usage(argv[0]);
  const std::string what = argv[1];
  const bool dbl = argv[2][0] == 'd';
  // The public calls read it once, at their first call: the host->host power runs on the GPU.
  setenv("CUDROP_POWER_MIN_BYTES", "0", 1);
  if (what == "power" && argc >= 7) {
    if (!bench::gpu_present("seeds")) return 77;
    g_stream = bench::open_device(cudaStreamNonBlocking);
    const int reps = argc > 7 ? std::max(1, std::atoi(argv[7])) : 3;
    if (dbl) run_power<double>(std::atoi(argv[3]), std::atoi(argv[4]), std::atof(argv[5]), std::atoi(argv[6]), reps);
    else run_power<float>(std::atoi(argv[3]), std::atoi(argv[4]), std::atof(argv[5]), std::atoi(argv[6]), reps);
    return 0;
  }
  if (what == "lu" || (what == "chol" && argc >= 5)) {
    const std::vector<int> ns = bench::parse_list(argv[3]);
    const std::vector<int> nbs = what == "chol" ? bench::parse_list(argv[4]) : std::vector<int>{};
    const int at = what == "chol" ? 5 : 4;
    const int reps = argc > at ? std::max(1, std::atoi(argv[at])) : 3;
    for (int nb : nbs)
      if (nb > kPotrfNb) { std::fprintf(stderr, "chol: NB at most %d (the panel kernel's block)\n", kPotrfNb); return 2; }
    if (!bench::gpu_present("seeds")) return 77;
    g_stream = bench::open_device(cudaStreamNonBlocking);
    for (int n : ns) {
      if (what == "lu") dbl ? run_lu<double>(n, reps) : run_lu<float>(n, reps);
      else dbl ? run_chol<double>(n, nbs, reps) : run_chol<float>(n, nbs, reps);
    }
    return 0;
  }
  return usage(argv[0]);
}
