// The host interfaces of the GPU QR routines (impl/qr/qr.h): inputs up once, every step on the
// device, results down once. Nothing of the caller's changes before every GPU step has
// succeeded; a download that fails part way leaves what QrProgress says (or, where the rest
// could not be computed from there, puts the caller's inputs back first).
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/host_copy.h"
#include "impl/level3/level3_device.h"
#include "impl/qr/qr.h"
#include "kernels/householder.cuh"
#include "kernels/transpose.cuh"

namespace cudrop::impl {

void QrProgress::describe(char *text, size_t size) const {
  if (b_total == 0)
    std::snprintf(text, size, "after %d of %d columns were written back", a_columns, a_total);
  else
    std::snprintf(text, size, "after %d of %d factor columns and %d of %d solution columns were written back",
                  a_columns, a_total, b_columns, b_total);
}

namespace {

// A 256-byte aligned region after `bytes` bytes: the next one starts there.
size_t after(size_t bytes) { return size_t(round_up(bytes, 256)); }

// Bytes of device memory holding small results that come back in one copy: the panel kernel's
// flag, gels's magnitudes and first zero diagonal entry.
struct QrFlags {
  unsigned long long magnitude[2];  // largest |a| of A, of B (bits of a double; NaN: all ones)
  int special;                      // the panel kernel's flag
  int zero_diagonal;                // first 1-based i with R(i,i) == 0 (none: 0x7f7f7f7f)
};

// Columns [0, cols) of a host matrix, copied aside so that they can be put back.
class SavedColumns {
 public:
  SavedColumns(CopyPool *pool, void *a, size_t ld_bytes, size_t row_bytes, size_t cols)
      : pool_(pool), a_(a), ld_(ld_bytes), row_(row_bytes), cols_(cols) {}
  bool save() {
    copy_.reset(new (std::nothrow) unsigned char[std::max<size_t>(row_ * cols_, 1)]);
    if (!copy_) return false;
    copy_columns(pool_, copy_.get(), row_, a_, ld_, row_, cols_);
    return true;
  }
  void restore(size_t cols) {
    copy_columns(pool_, a_, ld_, copy_.get(), row_, row_, std::min(cols, cols_));
  }

 private:
  CopyPool *pool_;
  void *a_;
  size_t ld_, row_, cols_;
  std::unique_ptr<unsigned char[]> copy_;
};

Status read_back(GpuContext &ctx, void *host, const void *dev, size_t bytes, const char *what) {
  cudaError_t error = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  return check(error, what);
}

Status download_tracked(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes, int cols, void *host,
                        size_t ld_bytes, int *columns) {
  size_t done = 0;
  const Status s = download_matrix(ctx, dev, ldd_bytes, row_bytes, size_t(cols), host, ld_bytes, &done);
  *columns = int(done);
  return s;
}

// xGELS scales A and B into [smlnum, bignum] and handles A == 0 apart; R (L) with a zero on its
// diagonal of `order` entries is its INFO > 0. All of these are left to the CPU routine.
template <class T>
bool gels_needs_cpu(const QrFlags &flags, int order) {
  using R = real_t<T>;
  const double smlnum = double(std::numeric_limits<R>::min()) / double(std::numeric_limits<R>::epsilon());
  const double bignum = 1 / smlnum;
  auto magnitude = [](unsigned long long bits) {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  };
  const double anrm = magnitude(flags.magnitude[0]), bnrm = magnitude(flags.magnitude[1]);
  const bool a_scaled = !(anrm >= smlnum && anrm <= bignum);  // also zero and NaN
  const bool b_scaled = !(bnrm == 0 || (bnrm >= smlnum && bnrm <= bignum));
  return flags.special != 0 || a_scaled || b_scaled || flags.zero_diagonal <= order;
}

// A download of the caller's columns that puts them back when it fails part way.
Status download_all_or_nothing(GpuContext &ctx, const void *dev, size_t ldd_bytes, size_t row_bytes, int cols,
                               void *host, size_t ld_bytes, SavedColumns &saved) {
  int columns = 0;
  const Status s = download_tracked(ctx, dev, ldd_bytes, row_bytes, cols, host, ld_bytes, &columns);
  if (s != Status::ok) saved.restore(size_t(columns));
  return s;
}

}  // namespace

template <class T>
Status geqrf_host(int m, int n, T *a, int lda, T *tau, QrProgress *progress) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(m), es);
  const int mn = std::min(m, n);
  const size_t work = after(geqrf_device_workspace<T>(m, n)), tau_at = work, flags_at = after(tau_at + mn * es);
  void *dA = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA}, {Slot::work, flags_at + sizeof(QrFlags), &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  auto *d_flags = reinterpret_cast<QrFlags *>(static_cast<char *>(dW) + flags_at);
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  if ((s = geqrf_device<T>(m, n, static_cast<T *>(dA), ldda, d_tau, &d_flags->special, dW, work, ctx.stream)) !=
      Status::ok)
    return s;
  QrFlags flags;
  progress->tau.resize(size_t(mn) * es);
  progress->a_total = n;
  if ((s = read_back(ctx, progress->tau.data(), d_tau, size_t(mn) * es, "geqrf: tau")) != Status::ok) return s;
  if ((s = read_back(ctx, &flags, d_flags, sizeof flags, "geqrf: flag")) != Status::ok) return s;
  if (flags.special != 0) return Status::special_values;
  if ((s = download_tracked(ctx, dA, ldda * es, size_t(m) * es, n, a, size_t(lda) * es, &progress->a_columns)) !=
      Status::ok)
    return s;
  std::memcpy(tau, progress->tau.data(), size_t(mn) * es);
  return s;
}

template <class T>
Status ormqr_host(Side side, Op trans, int m, int n, int k, const T *a, int lda, const T *tau, T *c, int ldc,
                  QrProgress *progress) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T);
  const int nq = side == Side::left ? m : n;
  const size_t ldda = padded_ld(size_t(nq), es), lddc = padded_ld(size_t(m), es);
  const size_t work = after(ormqr_device_workspace<T>(side, m, n, k)), tau_at = work;
  void *dA = nullptr, *dC = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(k) * es, &dA},
                                  {Slot::c, lddc * size_t(n) * es, &dC},
                                  {Slot::work, tau_at + size_t(k) * es, &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  progress->a_total = 0;
  progress->b_total = n;
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(nq) * es, size_t(k), dA, ldda * es)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, c, size_t(ldc) * es, size_t(m) * es, size_t(n), dC, lddc * es)) != Status::ok) return s;
  if ((s = check(cudaMemcpyAsync(d_tau, tau, size_t(k) * es, cudaMemcpyHostToDevice, ctx.stream), "ormqr: tau")) !=
      Status::ok)
    return s;
  // Applied from the right, every column of the result depends on every column of C: the
  // columns that came back before a failure could not be finished from, so C is kept aside.
  SavedColumns saved(ctx.copier, c, size_t(ldc) * es, size_t(m) * es, size_t(n));
  if (side == Side::right && !saved.save()) return s = Status::out_of_memory;
  if ((s = ormqr_device<T>(side, trans, m, n, k, static_cast<const T *>(dA), ldda, d_tau, static_cast<T *>(dC), lddc,
                           dW, work, ctx.stream)) != Status::ok)
    return s;
  if ((s = check(cudaStreamSynchronize(ctx.stream), "ormqr")) != Status::ok) return s;
  s = download_tracked(ctx, dC, lddc * es, size_t(m) * es, n, c, size_t(ldc) * es, &progress->b_columns);
  if (s != Status::ok && side == Side::right) {
    saved.restore(size_t(progress->b_columns));
    progress->b_columns = 0;
  }
  return s;
}

template <class T>
Status orgqr_host(int m, int n, int k, T *a, int lda, const T *tau, QrProgress *progress) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldd = padded_ld(size_t(m), es);
  const size_t work = after(orgqr_device_workspace<T>(m, n, k)), tau_at = work;
  void *dA = nullptr, *dQ = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldd * size_t(std::max(k, 1)) * es, &dA},
                                  {Slot::c, ldd * size_t(n) * es, &dQ},
                                  {Slot::work, tau_at + size_t(std::max(k, 1)) * es, &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  progress->a_total = n;
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(k), dA, ldd * es)) != Status::ok) return s;
  if (k > 0 &&
      (s = check(cudaMemcpyAsync(d_tau, tau, size_t(k) * es, cudaMemcpyHostToDevice, ctx.stream), "orgqr: tau")) !=
          Status::ok)
    return s;
  // Q overwrites the reflectors it is made from: they are kept aside (while the GPU works) to
  // be put back if the download fails part way, for the CPU routine to start over.
  SavedColumns saved(ctx.copier, a, size_t(lda) * es, size_t(m) * es, size_t(k));
  if ((s = orgqr_device<T>(m, n, k, static_cast<const T *>(dA), ldd, d_tau, static_cast<T *>(dQ), ldd, dW, work,
                           ctx.stream)) != Status::ok)
    return s;
  if (!saved.save()) return s = Status::out_of_memory;
  if ((s = check(cudaStreamSynchronize(ctx.stream), "orgqr")) != Status::ok) return s;
  int columns = 0;
  s = download_tracked(ctx, dQ, ldd * es, size_t(m) * es, n, a, size_t(lda) * es, &columns);
  if (s != Status::ok) saved.restore(size_t(columns));
  return s;
}

template <class T>
Status gelqf_host(int m, int n, T *a, int lda, T *tau) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(m), es);
  const int mn = std::min(m, n);
  const size_t work = after(gelqf_device_workspace<T>(m, n)), tau_at = work, flags_at = after(tau_at + mn * es);
  void *dA = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA},
                                  {Slot::work, flags_at + sizeof(QrFlags), &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  auto *d_flags = reinterpret_cast<QrFlags *>(static_cast<char *>(dW) + flags_at);
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  if ((s = gelqf_device<T>(m, n, static_cast<T *>(dA), ldda, d_tau, &d_flags->special, dW, work, ctx.stream)) !=
      Status::ok)
    return s;
  // A is kept aside (while the GPU works) to be put back if the download fails part way.
  SavedColumns saved(ctx.copier, a, size_t(lda) * es, size_t(m) * es, size_t(n));
  if (!saved.save()) return s = Status::out_of_memory;
  std::vector<T> tau_out(static_cast<size_t>(mn));
  QrFlags flags;
  if ((s = read_back(ctx, tau_out.data(), d_tau, size_t(mn) * es, "gelqf: tau")) != Status::ok) return s;
  if ((s = read_back(ctx, &flags, d_flags, sizeof flags, "gelqf: flag")) != Status::ok) return s;
  if (flags.special != 0) return Status::special_values;
  if ((s = download_all_or_nothing(ctx, dA, ldda * es, size_t(m) * es, n, a, size_t(lda) * es, saved)) != Status::ok)
    return s;
  std::memcpy(tau, tau_out.data(), size_t(mn) * es);
  return s;
}

template <class T>
Status ormlq_host(Side side, Op trans, int m, int n, int k, const T *a, int lda, const T *tau, T *c, int ldc) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T);
  const int nq = side == Side::left ? m : n;
  const size_t ldda = padded_ld(size_t(k), es), lddc = padded_ld(size_t(m), es);
  const size_t work = after(ormlq_device_workspace<T>(side, m, n, k)), tau_at = work;
  void *dA = nullptr, *dC = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(nq) * es, &dA},
                                  {Slot::c, lddc * size_t(n) * es, &dC},
                                  {Slot::work, tau_at + size_t(k) * es, &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(k) * es, size_t(nq), dA, ldda * es)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, c, size_t(ldc) * es, size_t(m) * es, size_t(n), dC, lddc * es)) != Status::ok) return s;
  if ((s = check(cudaMemcpyAsync(d_tau, tau, size_t(k) * es, cudaMemcpyHostToDevice, ctx.stream), "ormlq: tau")) !=
      Status::ok)
    return s;
  if ((s = ormlq_device<T>(side, trans, m, n, k, static_cast<const T *>(dA), ldda, d_tau, static_cast<T *>(dC), lddc,
                           dW, work, ctx.stream)) != Status::ok)
    return s;
  SavedColumns saved(ctx.copier, c, size_t(ldc) * es, size_t(m) * es, size_t(n));
  if (!saved.save()) return s = Status::out_of_memory;
  if ((s = check(cudaStreamSynchronize(ctx.stream), "ormlq")) != Status::ok) return s;
  return s = download_all_or_nothing(ctx, dC, lddc * es, size_t(m) * es, n, c, size_t(ldc) * es, saved);
}

template <class T>
Status orglq_host(int m, int n, int k, T *a, int lda, const T *tau) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(std::max(k, 1)), es), ldq = padded_ld(size_t(m), es);
  const size_t work = after(orglq_device_workspace<T>(m, n, k)), tau_at = work;
  void *dA = nullptr, *dQ = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA},
                                  {Slot::c, ldq * size_t(n) * es, &dQ},
                                  {Slot::work, tau_at + size_t(std::max(k, 1)) * es, &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  if (k > 0) {
    if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(k) * es, size_t(n), dA, ldda * es)) != Status::ok)
      return s;
    if ((s = check(cudaMemcpyAsync(d_tau, tau, size_t(k) * es, cudaMemcpyHostToDevice, ctx.stream), "orglq: tau")) !=
        Status::ok)
      return s;
  }
  if ((s = orglq_device<T>(m, n, k, static_cast<const T *>(dA), ldda, d_tau, static_cast<T *>(dQ), ldq, dW, work,
                           ctx.stream)) != Status::ok)
    return s;
  // Q overwrites the reflectors it is made from: they are put back if the download fails.
  SavedColumns saved(ctx.copier, a, size_t(lda) * es, size_t(m) * es, size_t(n));
  if (!saved.save()) return s = Status::out_of_memory;
  if ((s = check(cudaStreamSynchronize(ctx.stream), "orglq")) != Status::ok) return s;
  return s = download_all_or_nothing(ctx, dQ, ldq * es, size_t(m) * es, n, a, size_t(lda) * es, saved);
}

namespace {

// xGELS for m < n on A = L Q, computed as the QR of A^H = Q' R (L = R^H, Q = Q'^H): trans none,
// the minimum-norm solution of A X = B: R^H Y = B(1:m), Y's rows below m zero, X = Q' Y
// (xUNMLQ 'L', 'C'); trans conj_trans, the least squares of A^H X = B: B := Q'^H B (xUNMLQ
// 'L', 'N'), then R X = B(1:m). Every step before the checks come back; nothing of the caller's
// is written unless all succeeded.
template <class T>
Status gels_lq_host(Op trans, int m, int n, int nrhs, T *a, int lda, T *b, int ldb) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(m), es), ldt = padded_ld(size_t(n), es);
  const bool notrans = !trans;
  const size_t work =
      after(std::max({geqrf_device_workspace<T>(n, m), ormqr_device_workspace<T>(Side::left, n, nrhs, m),
                      trsm_device_workspace<T>(Side::left, m, nrhs)}));
  const size_t tau_at = work, flags_at = after(tau_at + size_t(m) * es);
  void *dA = nullptr, *dAt = nullptr, *dB = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA},
                                  {Slot::b, ldt * size_t(nrhs) * es, &dB},
                                  {Slot::c, ldt * size_t(m) * es, &dAt},
                                  {Slot::work, flags_at + sizeof(QrFlags), &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  auto *d_flags = reinterpret_cast<QrFlags *>(static_cast<char *>(dW) + flags_at);
  auto *A = static_cast<T *>(dA), *At = static_cast<T *>(dAt), *B = static_cast<T *>(dB);
  const int brows = notrans ? m : n;
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, b, size_t(ldb) * es, size_t(brows) * es, size_t(nrhs), dB, ldt * es)) != Status::ok)
    return s;
  cudaStream_t stream = ctx.stream;
  cudaError_t error = cudaMemsetAsync(d_flags, 0, sizeof(QrFlags), stream);
  if (error == cudaSuccess) error = cudaMemsetAsync(&d_flags->zero_diagonal, 0x7f, sizeof(int), stream);
  if (error == cudaSuccess) error = kernels::launch_largest_magnitude<T>(m, n, A, ldda, &d_flags->magnitude[0], stream);
  if (error == cudaSuccess)
    error = kernels::launch_largest_magnitude<T>(brows, nrhs, B, ldt, &d_flags->magnitude[1], stream);
  if (error == cudaSuccess) error = kernels::launch_conjugate_transpose<T>(m, n, A, ldda, At, ldt, stream);
  if ((s = check(error, "gels: checks")) != Status::ok) return s;
  if ((s = geqrf_device<T>(n, m, At, ldt, d_tau, &d_flags->special, dW, work, stream)) != Status::ok) return s;
  if ((s = check(kernels::launch_first_zero_diagonal<T>(m, At, ldt, &d_flags->zero_diagonal, stream), "gels: L")) !=
      Status::ok)
    return s;
  const Op ctrans = is_complex_v<T> ? Op::conj_trans : Op::trans;
  if (notrans) {
    if ((s = trsm_device<T>(Side::left, Uplo::upper, ctrans, Diag::non_unit, m, nrhs, T(1), At, ldt, B, ldt, stream,
                            dW, work)) != Status::ok)
      return s;
    if ((s = check(kernels::launch_set_zero<T>(n - m, nrhs, B + m, ldt, stream), "gels: zero")) != Status::ok)
      return s;
    if ((s = ormqr_device<T>(Side::left, Op::none, n, nrhs, m, At, ldt, d_tau, B, ldt, dW, work, stream)) != Status::ok)
      return s;
  } else {
    if ((s = ormqr_device<T>(Side::left, Op::conj_trans, n, nrhs, m, At, ldt, d_tau, B, ldt, dW, work, stream)) !=
        Status::ok)
      return s;
    if ((s = trsm_device<T>(Side::left, Uplo::upper, Op::none, Diag::non_unit, m, nrhs, T(1), At, ldt, B, ldt, stream,
                            dW, work)) != Status::ok)
      return s;
  }
  if ((s = check(kernels::launch_conjugate_transpose<T>(n, m, At, ldt, A, ldda, stream), "gels: L")) != Status::ok)
    return s;
  QrFlags flags;
  if ((s = read_back(ctx, &flags, d_flags, sizeof flags, "gels: checks")) != Status::ok) return s;
  if (gels_needs_cpu<T>(flags, m)) return Status::special_values;
  // A and B are kept aside to be put back if a download fails part way.
  SavedColumns saved_a(ctx.copier, a, size_t(lda) * es, size_t(m) * es, size_t(n));
  SavedColumns saved_b(ctx.copier, b, size_t(ldb) * es, size_t(n) * es, size_t(nrhs));
  if (!saved_a.save() || !saved_b.save()) return s = Status::out_of_memory;
  if ((s = download_all_or_nothing(ctx, dA, ldda * es, size_t(m) * es, n, a, size_t(lda) * es, saved_a)) !=
      Status::ok)
    return s;
  if ((s = download_all_or_nothing(ctx, dB, ldt * es, size_t(n) * es, nrhs, b, size_t(ldb) * es, saved_b)) !=
      Status::ok)
    saved_a.restore(size_t(n));
  return s;
}

}  // namespace

template <class T>
Status gels_host(Op trans, int m, int n, int nrhs, T *a, int lda, T *b, int ldb, QrProgress *progress) {
  if (m < n) return gels_lq_host<T>(trans, m, n, nrhs, a, lda, b, ldb);
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldd = padded_ld(size_t(m), es);
  const bool notrans = !trans;
  const size_t work =
      after(std::max({geqrf_device_workspace<T>(m, n), ormqr_device_workspace<T>(Side::left, m, nrhs, n),
                      trsm_device_workspace<T>(Side::left, n, nrhs)}));
  const size_t tau_at = work, flags_at = after(tau_at + size_t(n) * es);
  void *dA = nullptr, *dB = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA},
                                  {Slot::b, ldd * size_t(nrhs) * es, &dB},
                                  {Slot::work, flags_at + sizeof(QrFlags), &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *d_tau = reinterpret_cast<T *>(static_cast<char *>(dW) + tau_at);
  auto *d_flags = reinterpret_cast<QrFlags *>(static_cast<char *>(dW) + flags_at);
  auto *A = static_cast<T *>(dA), *B = static_cast<T *>(dB);
  const int brows = notrans ? m : n;
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldd * es)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, b, size_t(ldb) * es, size_t(brows) * es, size_t(nrhs), dB, ldd * es)) != Status::ok)
    return s;
  cudaStream_t stream = ctx.stream;
  // Everything runs before the checks come back: a call the CPU routine must take only wastes
  // the GPU's work.
  cudaError_t error = cudaMemsetAsync(d_flags, 0, sizeof(QrFlags), stream);
  if (error == cudaSuccess) error = cudaMemsetAsync(&d_flags->zero_diagonal, 0x7f, sizeof(int), stream);
  if (error == cudaSuccess) error = kernels::launch_largest_magnitude<T>(m, n, A, ldd, &d_flags->magnitude[0], stream);
  if (error == cudaSuccess)
    error = kernels::launch_largest_magnitude<T>(brows, nrhs, B, ldd, &d_flags->magnitude[1], stream);
  if ((s = check(error, "gels: checks")) != Status::ok) return s;
  if ((s = geqrf_device<T>(m, n, A, ldd, d_tau, &d_flags->special, dW, work, stream)) != Status::ok) return s;
  if ((s = check(kernels::launch_first_zero_diagonal<T>(n, A, ldd, &d_flags->zero_diagonal, stream), "gels: R")) !=
      Status::ok)
    return s;
  const Op ctrans = is_complex_v<T> ? Op::conj_trans : Op::trans;
  if (notrans) {
    if ((s = ormqr_device<T>(Side::left, ctrans, m, nrhs, n, A, ldd, d_tau, B, ldd, dW, work, stream)) != Status::ok)
      return s;
    if ((s = trsm_device<T>(Side::left, Uplo::upper, Op::none, Diag::non_unit, n, nrhs, T(1), A, ldd, B, ldd, stream,
                            dW, work)) != Status::ok)
      return s;
  } else {
    if ((s = trsm_device<T>(Side::left, Uplo::upper, ctrans, Diag::non_unit, n, nrhs, T(1), A, ldd, B, ldd, stream, dW,
                            work)) != Status::ok)
      return s;
    if ((s = check(kernels::launch_set_zero<T>(m - n, nrhs, B + n, ldd, stream), "gels: zero")) != Status::ok)
      return s;
    if ((s = ormqr_device<T>(Side::left, Op::none, m, nrhs, n, A, ldd, d_tau, B, ldd, dW, work, stream)) != Status::ok)
      return s;
  }
  QrFlags flags;
  progress->tau.resize(size_t(n) * es);
  progress->a_total = n;
  progress->b_total = nrhs;
  if ((s = read_back(ctx, progress->tau.data(), d_tau, size_t(n) * es, "gels: tau")) != Status::ok) return s;
  if ((s = read_back(ctx, &flags, d_flags, sizeof flags, "gels: checks")) != Status::ok) return s;
  if (gels_needs_cpu<T>(flags, n)) return Status::special_values;
  if ((s = download_tracked(ctx, dA, ldd * es, size_t(m) * es, n, a, size_t(lda) * es, &progress->a_columns)) !=
      Status::ok)
    return s;
  s = download_tracked(ctx, dB, ldd * es, size_t(m) * es, nrhs, b, size_t(ldb) * es, &progress->b_columns);
  return s;
}

#define CUDROP_QR_HOST(T)                                                                                    \
  template Status geqrf_host<T>(int, int, T *, int, T *, QrProgress *);                                      \
  template Status ormqr_host<T>(Side, Op, int, int, int, const T *, int, const T *, T *, int, QrProgress *); \
  template Status orgqr_host<T>(int, int, int, T *, int, const T *, QrProgress *);                           \
  template Status gels_host<T>(Op, int, int, int, T *, int, T *, int, QrProgress *);                       \
  template Status gelqf_host<T>(int, int, T *, int, T *);                                                    \
  template Status ormlq_host<T>(Side, Op, int, int, int, const T *, int, const T *, T *, int);               \
  template Status orglq_host<T>(int, int, int, T *, int, const T *);
CUDROP_QR_HOST(float)
CUDROP_QR_HOST(double)
CUDROP_QR_HOST(Complex<float>)
CUDROP_QR_HOST(Complex<double>)
#undef CUDROP_QR_HOST

}  // namespace cudrop::impl
