// The host interfaces of the column-pivoted QR (impl/qr/qr.h): xGEQP3 and xGELSY. Inputs up
// once, the O(m n^2) work on the device, results down once; nothing of the caller's changes
// before every GPU step has succeeded, and a write-back of A that fails part way puts A back
// (a copy taken on another thread while the GPU works), so any status but ok leaves the call
// to the CPU routine from the caller's own inputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <thread>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/level3/level3_device.h"
#include "impl/qr/qr.h"
#include "kernels/householder.cuh"
#include "kernels/pivoted_qr.cuh"

namespace cudrop::impl {
namespace {

size_t after256(size_t bytes) { return size_t(round_up(bytes, 256)); }

struct PivotFlags {
  unsigned long long magnitude[2];  // largest |a| of A, of B (bits of a double; NaN: all ones)
  int special;
};

// A host matrix's leading rows, copied on a thread of its own (while the GPU works), to be put
// back if its write-back fails part way.
template <class T>
class Backup {
 public:
  Backup(T *a, int rows, int cols, int ld) : a_(a), rows_(rows), cols_(cols), ld_(ld) {}
  ~Backup() { wait(); }
  bool start() {
    try {
      copy_.resize(size_t(rows_) * cols_);
      thread_ = std::thread([this] {
        for (int c = 0; c < cols_; ++c)
          std::memcpy(copy_.data() + size_t(c) * rows_, a_ + size_t(c) * ld_, size_t(rows_) * sizeof(T));
      });
    } catch (...) {
      return false;
    }
    return true;
  }
  void wait() {
    if (thread_.joinable()) thread_.join();
  }
  void restore(int cols) {
    wait();
    for (int c = 0; c < std::min(cols, cols_); ++c)
      std::memcpy(a_ + size_t(c) * ld_, copy_.data() + size_t(c) * rows_, size_t(rows_) * sizeof(T));
  }

 private:
  T *a_;
  int rows_, cols_, ld_;
  std::vector<T> copy_;
  std::thread thread_;
};

Status read_small(GpuContext &ctx, void *host, const void *dev, size_t bytes, const char *what) {
  cudaError_t error = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  return check(error, what);
}

// xGEQP3's handling of JPVT on entry: the columns with JPVT(j) != 0 swapped to the front in
// the reference's order. swaps: the (j, nfxd) pairs of column swaps, 0-based; jpvt := the
// permutation so far (1-based). Returns the number of fixed columns.
int fixed_columns(int n, int *jpvt, std::vector<std::pair<int, int>> *swaps) {
  int nfxd = 0;
  for (int j = 0; j < n; ++j) {
    if (jpvt[j] != 0) {
      if (j != nfxd) {
        swaps->emplace_back(j, nfxd);
        jpvt[j] = jpvt[nfxd];
        jpvt[nfxd] = j + 1;
      } else {
        jpvt[j] = j + 1;
      }
      ++nfxd;
    } else {
      jpvt[j] = j + 1;
    }
  }
  return nfxd;
}

template <class T>
size_t factor_workspace(int m, int n, int nfxd) {
  const int na = std::min(m, nfxd);
  size_t bytes = geqp3_device_workspace<T>(m, n);
  if (na > 0) {
    bytes = std::max(bytes, geqrf_device_workspace<T>(m, na));
    if (na < n) bytes = std::max(bytes, ormqr_device_workspace<T>(Side::left, m, n - na, na));
  }
  return bytes;
}

// dA := A P's pivoted QR as xGEQP3 computes it; jpvt (host) in: the caller's, out: P.
template <class T>
Status pivoted_factor(GpuContext &ctx, int m, int n, T *dA, size_t ldda, int *jpvt, int *d_jpvt, T *d_tau,
                      int *d_flag, void *dW, size_t work) {
  cudaStream_t stream = ctx.stream;
  const int mn = std::min(m, n);
  std::vector<std::pair<int, int>> swaps;
  const int nfxd = fixed_columns(n, jpvt, &swaps);
  cudaError_t error = cudaSuccess;
  for (const auto &[j, f] : swaps)
    if (error == cudaSuccess)
      error = kernels::launch_swap_columns<T>(m, dA + size_t(j) * ldda, dA + size_t(f) * ldda, stream);
  if (Status s = check(error, "geqp3: fixed columns"); s != Status::ok) return s;
  if (nfxd > 0) {
    const int na = std::min(m, nfxd);
    if (Status s = geqrf_device<T>(m, na, dA, ldda, d_tau, d_flag, dW, work, stream); s != Status::ok) return s;
    if (na < n) {
      const Op ctrans = is_complex_v<T> ? Op::conj_trans : Op::trans;
      if (Status s = ormqr_device<T>(Side::left, ctrans, m, n - na, na, dA, ldda, d_tau, dA + size_t(na) * ldda, ldda,
                                     dW, work, stream);
          s != Status::ok)
        return s;
    }
    int flag = 0;
    if (Status s = read_small(ctx, &flag, d_flag, sizeof flag, "geqp3: fixed flag"); s != Status::ok) return s;
    if (flag != 0) return Status::special_values;
  }
  if (nfxd < mn) {
    if (Status s = check(cudaMemcpyAsync(d_jpvt, jpvt, size_t(n) * sizeof(int), cudaMemcpyHostToDevice, stream),
                         "geqp3: jpvt");
        s != Status::ok)
      return s;
    if (Status s = geqp3_device<T>(ctx, m, n, nfxd, dA, ldda, d_jpvt, d_tau, d_flag, dW, work); s != Status::ok)
      return s;
    if (Status s = read_small(ctx, jpvt, d_jpvt, size_t(n) * sizeof(int), "geqp3: jpvt"); s != Status::ok) return s;
  }
  return Status::ok;
}

double magnitude_of(unsigned long long bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace

template <class T>
Status geqp3_host(int m, int n, T *a, int lda, int *jpvt, T *tau) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(m), es);
  const int mn = std::min(m, n);
  std::vector<int> perm;
  try {
    perm.assign(jpvt, jpvt + n);
  } catch (const std::bad_alloc &) {
    return Status::out_of_memory;
  }
  std::vector<std::pair<int, int>> unused;
  std::vector<int> probe(perm);
  const int nfxd = fixed_columns(n, probe.data(), &unused);
  const size_t work = after256(factor_workspace<T>(m, n, nfxd)), tau_at = work,
               jpvt_at = after256(tau_at + size_t(mn) * es), flags_at = after256(jpvt_at + size_t(n) * sizeof(int));
  void *dA = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA}, {Slot::work, flags_at + sizeof(PivotFlags), &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *base = static_cast<char *>(dW);
  auto *d_tau = reinterpret_cast<T *>(base + tau_at);
  auto *d_jpvt = reinterpret_cast<int *>(base + jpvt_at);
  auto *d_flags = reinterpret_cast<PivotFlags *>(base + flags_at);
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  Backup<T> backup(a, m, n, lda);
  if (!backup.start()) return s = Status::out_of_memory;
  if ((s = pivoted_factor<T>(ctx, m, n, static_cast<T *>(dA), ldda, perm.data(), d_jpvt, d_tau, &d_flags->special, dW,
                             work)) != Status::ok)
    return s;
  std::vector<T> tau_h(static_cast<size_t>(mn));
  if ((s = read_small(ctx, tau_h.data(), d_tau, size_t(mn) * es, "geqp3: tau")) != Status::ok) return s;
  backup.wait();
  size_t done = 0;
  if ((s = download_matrix(ctx, dA, ldda * es, size_t(m) * es, size_t(n), a, size_t(lda) * es, &done)) != Status::ok) {
    backup.restore(int(done));
    return s;
  }
  std::copy(perm.begin(), perm.end(), jpvt);
  std::copy(tau_h.begin(), tau_h.end(), tau);
  return s;
}

template <class T>
Status gelsy_host(int m, int n, int nrhs, T *a, int lda, T *b, int ldb, int *jpvt, real_t<T> rcond, int *rank,
                  const GelsyCpuRoutines<T> &cpu) {
  using R = real_t<T>;
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T), ldda = padded_ld(size_t(m), es);
  const int mn = std::min(m, n), mx = std::max(m, n);
  std::vector<int> perm, probe;
  std::vector<T> rtop, xh, tau_rz, xmin, xmax, column;
  try {
    perm.assign(jpvt, jpvt + n);
    probe = perm;
    rtop.resize(size_t(mn) * n);
    xh.resize(size_t(mx) * nrhs);
    tau_rz.resize(size_t(mn));
    xmin.resize(size_t(mn));
    xmax.resize(size_t(mn));
    column.resize(size_t(n));
  } catch (const std::bad_alloc &) {
    return Status::out_of_memory;
  }
  std::vector<std::pair<int, int>> unused;
  const int nfxd = fixed_columns(n, probe.data(), &unused);
  const size_t work = after256(std::max({factor_workspace<T>(m, n, nfxd),
                                         ormqr_device_workspace<T>(Side::left, m, nrhs, mn),
                                         trsm_device_workspace<T>(Side::left, mn, nrhs)})),
               tau_at = work, jpvt_at = after256(tau_at + size_t(mn) * es),
               flags_at = after256(jpvt_at + size_t(n) * sizeof(int));
  void *dA = nullptr, *dB = nullptr, *dW = nullptr;
  Status s = device_buffers(ctx, {{Slot::a, ldda * size_t(n) * es, &dA},
                                  {Slot::b, ldda * size_t(nrhs) * es, &dB},
                                  {Slot::work, flags_at + sizeof(PivotFlags), &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  auto *base = static_cast<char *>(dW);
  auto *d_tau = reinterpret_cast<T *>(base + tau_at);
  auto *d_jpvt = reinterpret_cast<int *>(base + jpvt_at);
  auto *d_flags = reinterpret_cast<PivotFlags *>(base + flags_at);
  auto *A = static_cast<T *>(dA), *B = static_cast<T *>(dB);
  cudaStream_t stream = ctx.stream;
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dA, ldda * es)) != Status::ok) return s;
  if ((s = upload_matrix(ctx, b, size_t(ldb) * es, size_t(m) * es, size_t(nrhs), dB, ldda * es)) != Status::ok)
    return s;
  // xGELSY scales A and B into [smlnum, bignum] and returns a zero X for a zero A: left to the
  // CPU routine, as Inf and NaN.
  cudaError_t error = cudaMemsetAsync(d_flags, 0, sizeof(PivotFlags), stream);
  if (error == cudaSuccess) error = kernels::launch_largest_magnitude<T>(m, n, A, ldda, &d_flags->magnitude[0], stream);
  if (error == cudaSuccess)
    error = kernels::launch_largest_magnitude<T>(m, nrhs, B, ldda, &d_flags->magnitude[1], stream);
  if ((s = check(error, "gelsy: checks")) != Status::ok) return s;
  PivotFlags flags;
  if ((s = read_small(ctx, &flags, d_flags, sizeof flags, "gelsy: checks")) != Status::ok) return s;
  const double smlnum = double(std::numeric_limits<R>::min()) / double(std::numeric_limits<R>::epsilon());
  const double bignum = 1 / smlnum;
  const double anrm = magnitude_of(flags.magnitude[0]), bnrm = magnitude_of(flags.magnitude[1]);
  if (!(anrm >= smlnum && anrm <= bignum) || !(bnrm == 0 || (bnrm >= smlnum && bnrm <= bignum)))
    return s = Status::special_values;
  Backup<T> backup(a, m, n, lda);
  if (!backup.start()) return s = Status::out_of_memory;
  if ((s = pivoted_factor<T>(ctx, m, n, A, ldda, perm.data(), d_jpvt, d_tau, &d_flags->special, dW, work)) !=
      Status::ok)
    return s;
  // B := Q^H B on the device while R's leading rows come down.
  const Op ctrans = is_complex_v<T> ? Op::conj_trans : Op::trans;
  if ((s = ormqr_device<T>(Side::left, ctrans, m, nrhs, mn, A, ldda, d_tau, B, ldda, dW, work, stream)) != Status::ok)
    return s;
  if ((s = download_matrix(ctx, dA, ldda * es, size_t(mn) * es, size_t(n), rtop.data(), size_t(mn) * es)) !=
      Status::ok)
    return s;
  auto r_at = [&](int i, int j) -> T & { return rtop[size_t(i) + size_t(j) * mn]; };
  // The rank by incremental condition estimation (xGELSY's loop, xLAIC1 underneath).
  constexpr int imax = 1, imin = 2;
  R smax;
  if constexpr (is_complex_v<T>) smax = std::hypot(r_at(0, 0).re, r_at(0, 0).im);
  else smax = std::abs(r_at(0, 0));
  R smin = smax;
  if (smax == R(0)) return s = Status::special_values;
  int r = 1;
  xmin[0] = T(1);
  xmax[0] = T(1);
  while (r < mn) {
    R sminpr = 0, smaxpr = 0;
    T s1, c1, s2, c2;
    if (cpu.laic1(imin, r, xmin.data(), smin, &r_at(0, r), r_at(r, r), &sminpr, &s1, &c1) != 0 ||
        cpu.laic1(imax, r, xmax.data(), smax, &r_at(0, r), r_at(r, r), &smaxpr, &s2, &c2) != 0)
      return s = Status::special_values;
    if (!(smaxpr * rcond <= sminpr)) break;
    for (int i = 0; i < r; ++i) xmin[size_t(i)] = s1 * xmin[size_t(i)], xmax[size_t(i)] = s2 * xmax[size_t(i)];
    xmin[size_t(r)] = c1;
    xmax[size_t(r)] = c2;
    smin = sminpr;
    smax = smaxpr;
    ++r;
  }
  // [R11 R12] = [T11 0] Z (xTZRZF) on the host, T11 back up for the solve.
  if (r < n) {
    if (cpu.tzrzf(r, n, rtop.data(), mn, tau_rz.data()) != 0) return s = Status::special_values;
    if ((s = upload_matrix(ctx, rtop.data(), size_t(mn) * es, size_t(r) * es, size_t(n), dA, ldda * es)) != Status::ok)
      return s;
  }
  if ((s = trsm_device<T>(Side::left, Uplo::upper, Op::none, Diag::non_unit, r, nrhs, T(1), A, ldda, B, ldda, stream,
                          dW, work)) != Status::ok)
    return s;
  if ((s = download_matrix(ctx, dB, ldda * es, size_t(m) * es, size_t(nrhs), xh.data(), size_t(mx) * es)) !=
      Status::ok)
    return s;
  for (int c = 0; c < nrhs; ++c)
    for (int i = r; i < n; ++i) xh[size_t(i) + size_t(c) * mx] = T(0);
  if (r < n && cpu.ormrz(n, nrhs, r, n - r, rtop.data(), mn, tau_rz.data(), xh.data(), mx) != 0)
    return s = Status::special_values;
  for (int c = 0; c < nrhs; ++c) {
    T *x = xh.data() + size_t(c) * mx;
    for (int i = 0; i < n; ++i) column[size_t(perm[size_t(i)] - 1)] = x[i];
    std::copy(column.begin(), column.end(), x);
  }
  // A: the reflectors below, T11 and Z's vectors (uploaded) above, R22 as the QR left it.
  backup.wait();
  size_t done = 0;
  if ((s = download_matrix(ctx, dA, ldda * es, size_t(m) * es, size_t(n), a, size_t(lda) * es, &done)) != Status::ok) {
    backup.restore(int(done));
    return s;
  }
  for (int c = 0; c < nrhs; ++c)
    std::memcpy(b + size_t(c) * ldb, xh.data() + size_t(c) * mx, size_t(mx) * es);
  std::copy(perm.begin(), perm.end(), jpvt);
  *rank = r;
  return s;
}

#define CUDROP_PIVOTED_QR_HOST(T)                                                                          \
  template Status geqp3_host<T>(int, int, T *, int, int *, T *);                                           \
  template Status gelsy_host<T>(int, int, int, T *, int, T *, int, int *, real_t<T>, int *,               \
                                const GelsyCpuRoutines<T> &);
CUDROP_PIVOTED_QR_HOST(float)
CUDROP_PIVOTED_QR_HOST(double)
CUDROP_PIVOTED_QR_HOST(Complex<float>)
CUDROP_PIVOTED_QR_HOST(Complex<double>)
#undef CUDROP_PIVOTED_QR_HOST

}  // namespace cudrop::impl
