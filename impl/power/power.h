#pragma once
// The power method (cudrop_spower_/dpower_/scsrpower_/dcsrpower_): dominant eigenvalue and
// eigenvector of a dense (column-major) or CSR matrix. Two layers, as for GEMM:
//  * host interface (*_host): host arrays in and out; the matrix crosses PCIe once, the whole
//    iteration runs on the GPU, x comes back once. What the entry points route to the GPU.
//  * device interface (*_device): arrays already on the GPU; what a benchmark times.
// The CPU path, the same iteration with plain loops, is cpu/power_loop.h.
//
// The iteration, identical on every path (docs/power.md):
//   x_0 = X (INIT = 0) or ones (INIT = 1); for k = 1 .. MAXIT:
//     y = A x;  p = first index of the largest |y_i|;  lambda = y_p  (signed);
//     lambda == 0           -> stop, INFO = 2, lambda = 0, x kept (A x = 0);
//     lambda Inf or NaN     -> stop, INFO = 3, lambda = y_p, x kept;
//     x_new = y / lambda;   converged = all |x_new_i - x_i| < tol;   x = x_new;
//     converged             -> stop, INFO = 0;
//   after MAXIT iterations: INFO = 1 (x, lambda of the last iteration).
//   MAXIT out = iterations done. MAXIT = 0: INFO = 1, lambda = 0, x = x_0.
// CSR structure errors: INFO = -4 (ROWPTR: rowptr[0] != base, or decreasing) or -3 (COLIND:
// an index outside [base, base + n)); then only INFO is written.
//
// GPU iteration: two launches per iteration (fused mat-vec + max-reduction; scale + convergence
// flag + iteration count), queued in batches; the host reads the 32-byte state once per batch
// while the next batch runs, and launches queued after the stopping iteration are no-ops
// (kernels/power.cuh), so the result is exactly that of checking after every iteration.
#include <cstddef>

#include "impl/context/gpu.h"

namespace cudrop::impl {

template <class T>
struct PowerResult {
  T lambda = T(0);
  int iterations = 0;  // iterations done (MAXIT out)
  int info = 0;        // 0, 1, 2, 3 as above; -3/-4 for CSR structure errors
  bool sell_copy = false; // CSR: the loop ran on the SELL copy (else the CSR-stream kernel)
  bool sell_near = false; // ... with 16-bit column distances (kernels/sell_power.cuh)
  float loop_ms = 0;   // with PowerOptions::time_loop: GPU time from the first iteration's
                       // launch to the end of the last queued one (no-ops included)
};

struct PowerOptions {
  bool start_ones = false;  // x_0 = ones (dx is then only written); else dx holds x_0
  int check_every = 0;      // iterations queued between looks at the state; 0 = adaptive
                            // (2, 4, ... up to 32); a benchmark with tol = 0 may pass MAXIT
                            // to queue every iteration at once
  bool time_loop = false;   // fill PowerResult::loop_ms (CUDA events around the iterations)
  bool validate_csr = true; // check the CSR structure on the GPU first (INFO -3/-4); false
                            // only for structures known to be valid (benchmarks)
};

// ---- host interface (host arrays; n >= 1, arguments checked, CSR row pointers valid) ----
// On Status::ok: *lambda, x, *maxit (in: limit, out: iterations done) and *info as above
// (INFO -3: only *info written). On any other status nothing of the caller's has been
// written, so the CPU path can run the same call.
template <class T>
Status power_dense_host(int n, const T *a, int lda, T *lambda, T *x, bool start_ones, T tol,
                        int *maxit, int *info);
template <class T>
Status power_csr_host(int n, const T *val, const int *colind, const int *rowptr, int base,
                      T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info);

// ---- device interface ----
// Workspace (bytes, 256-byte aligned pointer) the device calls need for this n (and nnz):
// y (CSR: and the copy of x the loop runs on), the partial sums and candidates of the fused
// reduction, and the state. Depends on the current device (its SM count); Status::no_device
// etc. when CUDA cannot answer.
// bytes_with_copy (CSR): a workspace at least this large also holds the SELL copy of the
// matrix (kernels/sell_power.cuh, ~1.0-1.25x the matrix), which power_csr_device then makes
// for matrices that suit it; with less, it runs the CSR-stream kernel on the caller's arrays.
// Equal to *bytes for shapes that never get the copy (under 12 entries per row on average).
template <class T>
Status power_dense_workspace(int n, size_t *bytes);
template <class T>
Status power_csr_workspace(int n, long long nnz, size_t *bytes, size_t *bytes_with_copy = nullptr);

// dA: n x n, column-major, leading dimension ldda >= n (in elements; a multiple of 16/sizeof(T)
// with dA 16-byte aligned takes the vector loads). dx: n elements, x_0 in (unless
// opt.start_ones), the last iterate out. maxit >= 0, tol >= 0. Runs on `stream` (a
// cudaStream_t; nullptr = the legacy default stream) and returns once the results are in
// *result and dx (it synchronizes the stream). One call at a time per process.
template <class T>
Status power_dense_device(int n, const T *dA, size_t ldda, T *dx, T tol, int maxit,
                          void *d_work, size_t work_bytes, void *stream,
                          const PowerOptions &opt, PowerResult<T> *result);

// CSR on the device: dval/dcolind nnz entries, drowptr n + 1 entries, indices offset by base
// (0 or 1), nnz = rowptr[n] - base. With opt.validate_csr a bad structure gives
// result->info = -4/-3 and no iteration (dx untouched).
template <class T>
Status power_csr_device(int n, long long nnz, const T *dval, const int *dcolind,
                        const int *drowptr, int base, T *dx, T tol, int maxit, void *d_work,
                        size_t work_bytes, void *stream, const PowerOptions &opt,
                        PowerResult<T> *result);

}  // namespace cudrop::impl
