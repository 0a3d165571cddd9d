// The power method's host interface (impl/power/power.h): the matrix crosses PCIe once, the whole
// iteration runs on the device interface, x comes back once.
#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/power/power.h"
#include "impl/power/power_device.cuh"

namespace cudrop::impl {
namespace {

using power::align_up;

// ---- host <-> device vectors through the staging buffers ------------------------------------
constexpr size_t kVectorColumn = size_t(1) << 20;  // a long vector is staged as 1 MiB columns

// Calls move(offset, column_bytes, columns) for the whole 1 MiB columns of a vector of
// `bytes`, then for the rest as one shorter column.
template <class Move>
Status by_columns(size_t bytes, Move &&move) {
  const size_t cols = bytes / kVectorColumn, rest = bytes % kVectorColumn;
  Status s = Status::ok;
  if (cols > 0) s = move(size_t(0), kVectorColumn, cols);
  if (s == Status::ok && rest > 0) s = move(cols * kVectorColumn, rest, size_t(1));
  return s;
}

Status upload_vector(GpuContext &ctx, const void *host, size_t bytes, void *dev) {
  return by_columns(bytes, [&](size_t at, size_t column, size_t cols) {
    return upload_matrix(ctx, static_cast<const char *>(host) + at, column, column, cols,
                         static_cast<char *>(dev) + at, column);
  });
}

Status download_vector(GpuContext &ctx, const void *dev, size_t bytes, void *host) {
  return by_columns(bytes, [&](size_t at, size_t column, size_t cols) {
    return download_matrix(ctx, static_cast<const char *>(dev) + at, column, column, cols,
                           static_cast<char *>(host) + at, column);
  });
}

// The caller's outputs, written only now that the GPU work has succeeded: x comes back into a
// host copy first, so that a failed download leaves the caller's x (the CPU fallback's x_0)
// untouched.
template <class T>
Status deliver(GpuContext &ctx, const PowerResult<T> &r, int n, const T *dx, T *lambda, T *x,
               int *maxit, int *info) {
  if (r.info < 0) {  // bad CSR structure: only INFO
    *info = r.info;
    return Status::ok;
  }
  std::vector<T> result;
  try {
    result.resize(size_t(n));
  } catch (const std::bad_alloc &) {
    return Status::out_of_memory;
  }
  if (Status s = download_vector(ctx, dx, size_t(n) * sizeof(T), result.data()); s != Status::ok) return s;
  std::memcpy(x, result.data(), size_t(n) * sizeof(T));
  *lambda = r.lambda;
  *maxit = r.iterations;
  *info = r.info;
  return Status::ok;
}

}  // namespace

template <class T>
Status power_dense_host(int n, const T *a, int lda, T *lambda, T *x, bool start_ones, T tol,
                        int *maxit, int *info) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(n), es);
  size_t work_bytes = 0;
  if (Status s = power_dense_workspace<T>(n, &work_bytes); s != Status::ok) return s;
  const size_t x_bytes = align_up(size_t(n) * es);
  void *dA = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA}, {Slot::work, x_bytes + work_bytes, &dW}});
  if (s != Status::ok) return s;
  T *dx = static_cast<T *>(dW);
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  if (!start_ones && (s = upload_vector(ctx, x, size_t(n) * es, dx)) != Status::ok) return s;
  PowerOptions opt;
  opt.start_ones = start_ones;
  PowerResult<T> r;
  if ((s = power_dense_device<T>(n, static_cast<const T *>(dA), ldda, dx, tol, *maxit,
                                 static_cast<char *>(dW) + x_bytes, work_bytes, ctx.stream, opt, &r)) != Status::ok)
    return s;
  return deliver(ctx, r, n, dx, lambda, x, maxit, info);
}

template <class T>
Status power_csr_host(int n, const T *val, const int *colind, const int *rowptr, int base,
                      T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T);
  const long long nnz = (long long)rowptr[n] - base;  // rowptr checked by the entry point
  size_t work_bytes = 0, with_copy = 0;
  if (Status s = power_csr_workspace<T>(n, nnz, &work_bytes, &with_copy); s != Status::ok) return s;
  const size_t x_bytes = align_up(size_t(n) * es);
  // Slots as GEMM uses them: a = values, b = column indices, c = row pointers, work = x + work,
  // with room for the SELL copy when the GPU has it (the matrix twice), else without.
  void *dval = nullptr, *dcol = nullptr, *drow = nullptr, *dW = nullptr;
  Status s = Status::out_of_memory;
  for (size_t work : {with_copy, work_bytes}) {
    s = device_buffers(ctx, {{Slot::a, std::max<size_t>(1, size_t(nnz) * es), &dval},
                             {Slot::b, std::max<size_t>(1, size_t(nnz) * sizeof(int)), &dcol},
                             {Slot::c, (size_t(n) + 1) * sizeof(int), &drow},
                             {Slot::work, x_bytes + work, &dW}});
    if (s != Status::out_of_memory) {
      work_bytes = work;
      break;
    }
  }
  if (s != Status::ok) return s;
  T *dx = static_cast<T *>(dW);
  if ((s = upload_vector(ctx, val, size_t(nnz) * es, dval)) != Status::ok) return s;
  if ((s = upload_vector(ctx, colind, size_t(nnz) * sizeof(int), dcol)) != Status::ok) return s;
  if ((s = upload_vector(ctx, rowptr, (size_t(n) + 1) * sizeof(int), drow)) != Status::ok) return s;
  if (!start_ones && (s = upload_vector(ctx, x, size_t(n) * es, dx)) != Status::ok) return s;
  PowerOptions opt;
  opt.start_ones = start_ones;
  PowerResult<T> r;
  if ((s = power_csr_device<T>(n, nnz, static_cast<const T *>(dval), static_cast<const int *>(dcol),
                               static_cast<const int *>(drow), base, dx, tol, *maxit,
                               static_cast<char *>(dW) + x_bytes, work_bytes, ctx.stream, opt, &r)) != Status::ok)
    return s;
  return deliver(ctx, r, n, dx, lambda, x, maxit, info);
}

template Status power_dense_host<float>(int, const float *, int, float *, float *, bool, float, int *, int *);
template Status power_dense_host<double>(int, const double *, int, double *, double *, bool, double, int *, int *);
template Status power_csr_host<float>(int, const float *, const int *, const int *, int, float *, float *, bool,
                                      float, int *, int *);
template Status power_csr_host<double>(int, const double *, const int *, const int *, int, double *, double *,
                                       bool, double, int *, int *);

}  // namespace cudrop::impl
