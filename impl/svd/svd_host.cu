// xGESDD, xGESVD, xGELSD, xGELSS on the GPU (impl/svd/svd.h): the matrix up once, QR and the
// bidiagonal reduction and every back-transformation on the device, the bidiagonal problem by
// the caller's CPU solver (O(n^2) data each way), the results down once. A wide matrix's
// problem is its conjugate transpose's (A^H = V S U^H), transposed on the device both ways.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "core/layout.h"
#include "core/log.h"
#include "impl/context/gpu_context.cuh"
#include "impl/gemm/gemm.h"
#include "impl/qr/qr.h"
#include "impl/svd/svd.h"
#include "kernels/householder.cuh"
#include "kernels/svd_support.cuh"
#include "kernels/transpose.cuh"

namespace cudrop::impl {
namespace {

size_t after(size_t bytes) { return size_t(round_up(bytes, 256)); }

// Small results that come back in one copy: the largest |a| of A and of B (bits of a
// nonnegative double; NaN: all ones) and the reflector kernels' flag.
struct SvdFlags {
  unsigned long long magnitude[2];
  int special;
};

double magnitude_of(unsigned long long bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

Status read_back(GpuContext &ctx, void *host, const void *dev, size_t bytes, const char *what) {
  cudaError_t error = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  return check(error, what);
}

// xGESDD's crossover: a matrix with at least this many rows for n columns is reduced by QR
// first, the bidiagonal reduction then working on R alone.
int qr_crossover(int n) { return int(double(n) * 11.0 / 6.0); }

// out (cols x rows) := in^H, in (rows x cols).
template <class T>
Status conjugate_transpose(int rows, int cols, const T *in, size_t ld_in, T *out, size_t ld_out, cudaStream_t stream,
                           const char *what) {
  return check(kernels::launch_conjugate_transpose<T>(rows, cols, in, ld_in, out, ld_out, stream), what);
}

// svd_device's workspace: the flags, the bidiagonal and its reflectors' scalars, R (a tall
// matrix's QR path), the bidiagonal problem's real singular vectors on their way into complex T
// (two n x n), then what the phase running needs (the bidiagonal problem on the GPU too, when
// asked for).
template <class T>
struct SvdWork {
  bool qr = false;
  int rows = 0;
  size_t ldr = 0, ldz = 0;
  size_t d_at = 0, e_at = 0, tauq_at = 0, taup_at = 0, tau_at = 0, r_at = 0, z_at = 0, z2_at = 0, phase_at = 0,
         bytes = 0;
  SvdWork(SvdJob job, int m, int n, bool gpu_bidiagonal) {
    using R = real_t<T>;
    const size_t es = sizeof(T), rs = sizeof(R);
    qr = m >= qr_crossover(n) && m > n;
    rows = qr ? n : m;
    ldr = padded_ld(size_t(n), es);
    ldz = padded_ld(size_t(n), rs);
    d_at = after(sizeof(SvdFlags));
    e_at = after(d_at + size_t(n) * rs);
    tauq_at = after(e_at + size_t(n) * rs);
    taup_at = after(tauq_at + size_t(n) * es);
    tau_at = after(taup_at + size_t(n) * es);
    r_at = after(tau_at + size_t(n) * es);
    z_at = after(r_at + (qr ? ldr * size_t(n) * es : 0));
    const size_t zbytes = job != SvdJob::values && is_complex_v<T> ? ldz * size_t(n) * rs : 0;
    z2_at = after(z_at + zbytes);
    phase_at = after(z2_at + zbytes);
    size_t phase = gebrd_device_workspace<T>(rows, n);
    if (qr) phase = std::max(phase, geqrf_device_workspace<T>(m, n));
    if (gpu_bidiagonal) phase = std::max(phase, bidiagonal_svd_device_workspace<R>(n));
    if (job != SvdJob::values) {
      const int ucols = job == SvdJob::full ? m : n;
      phase = std::max({phase, ormqr_device_workspace<T>(Side::left, rows, qr ? n : ucols, n),
                        apply_p_device_workspace<T>(n, n)});
      if (qr) phase = std::max(phase, ormqr_device_workspace<T>(Side::left, m, ucols, n));
    }
    bytes = phase_at + phase;
  }
};

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

}  // namespace

template <class T>
size_t svd_device_workspace(SvdJob job, int m, int n, bool gpu_bidiagonal) {
  return SvdWork<T>(job, m, n, gpu_bidiagonal).bytes;
}

template <class T>
Status svd_device(GpuContext &ctx, SvdJob job, int m, int n, T *dA, size_t ldda, real_t<T> *s, T *dU, size_t lddu,
                  T *dVT, size_t lddvt, void *work, size_t work_bytes, const BidiagonalSolver<real_t<T>> &solve,
                  const TridiagonalSolver<real_t<T>> &leaf) {
  using R = real_t<T>;
  if (work == nullptr || m < n || n < 1) return Status::out_of_memory;
  const bool gpu_bidiagonal = work_bytes >= SvdWork<T>(job, m, n, true).bytes;
  const SvdWork<T> at(job, m, n, gpu_bidiagonal);
  if (work_bytes < at.bytes) return Status::out_of_memory;
  char *base = static_cast<char *>(work);
  auto *d_flags = reinterpret_cast<SvdFlags *>(base);
  auto *d_d = reinterpret_cast<R *>(base + at.d_at), *d_e = reinterpret_cast<R *>(base + at.e_at);
  auto *tauq = reinterpret_cast<T *>(base + at.tauq_at), *taup = reinterpret_cast<T *>(base + at.taup_at);
  auto *tau = reinterpret_cast<T *>(base + at.tau_at);
  void *phase = base + at.phase_at;
  const size_t phase_bytes = work_bytes - at.phase_at;
  cudaStream_t stream = ctx.stream;
  const Clock::time_point start = Clock::now();

  cudaError_t error = cudaMemsetAsync(d_flags, 0, sizeof(SvdFlags), stream);
  if (error == cudaSuccess)
    error = kernels::launch_largest_magnitude<T>(m, n, dA, ldda, &d_flags->magnitude[0], stream);
  Status st;
  if ((st = check(error, "svd: start")) != Status::ok) return st;
  // The matrix the bidiagonal reduction works on: R (n x n, zero below its diagonal) on the
  // QR path, A itself otherwise.
  T *B = dA;
  size_t ldb = ldda;
  if (at.qr) {
    if ((st = geqrf_device<T>(m, n, dA, ldda, tau, &d_flags->special, phase, phase_bytes, stream)) != Status::ok)
      return st;
    B = reinterpret_cast<T *>(base + at.r_at);
    ldb = at.ldr;
    if ((st = check(kernels::launch_upper_triangle_copy<T>(n, dA, ldda, B, ldb, stream), "svd: R")) != Status::ok)
      return st;
  }
  if ((st = gebrd_device<T>(at.rows, n, B, ldb, d_d, d_e, tauq, taup, &d_flags->special, phase, phase_bytes,
                            stream)) != Status::ok)
    return st;
  SvdFlags flags;
  if ((st = read_back(ctx, &flags, d_flags, sizeof flags, "svd: flags")) != Status::ok) return st;
  // xGESDD scales a matrix whose largest entry is outside [smlnum, bignum]; a zero matrix and
  // Inf or NaN (the reference's INFO = -4) are the CPU routine's too.
  const double eps = double(std::numeric_limits<R>::epsilon());
  const double smlnum = std::sqrt(double(std::numeric_limits<R>::min())) / eps, bignum = 1 / smlnum;
  const double anrm = magnitude_of(flags.magnitude[0]);
  if (flags.special != 0 || !(anrm >= smlnum && anrm <= bignum)) return Status::special_values;
  std::vector<R> d(static_cast<size_t>(n)), e(static_cast<size_t>(std::max(n, 1)));
  if ((st = read_back(ctx, d.data(), d_d, size_t(n) * sizeof(R), "svd: d")) != Status::ok) return st;
  if (n > 1 && (st = read_back(ctx, e.data(), d_e, size_t(n - 1) * sizeof(R), "svd: e")) != Status::ok) return st;
  const Clock::time_point reduced = Clock::now();

  // The bidiagonal problem: U_B into dU's leading n x n block (dU first made [0] or [I]), V_B^T
  // into dVT, through real matrices for complex T.
  const bool vectors = job != SvdJob::values;
  const int ucols = job == SvdJob::full ? m : n;
  const size_t es = sizeof(T);
  R *ub = nullptr, *vtb = nullptr;
  size_t ldub = at.ldz, ldvtb = at.ldz;
  if (vectors) {
    error = kernels::launch_fill<T>(m, ucols, dU, lddu, job == SvdJob::full ? T(1) : T(0), stream);
    if ((st = check(error, "svd: U")) != Status::ok) return st;
    if constexpr (is_complex_v<T>) {
      ub = reinterpret_cast<R *>(base + at.z_at);
      vtb = reinterpret_cast<R *>(base + at.z2_at);
    } else {
      ub = dU;
      ldub = lddu;
      vtb = dVT;
      ldvtb = lddvt;
    }
  }
  bool on_gpu = false;
  if (gpu_bidiagonal) {
    st = bidiagonal_svd_device<R>(ctx, n, d.data(), e.data(), s, ub, ldub, vtb, ldvtb, leaf, phase, phase_bytes);
    if (st == Status::ok) on_gpu = true;
    else if (st != Status::special_values) return st;
  }
  if (!on_gpu) {
    std::memcpy(s, d.data(), size_t(n) * sizeof(R));
    std::vector<R> uh, vth;
    if (vectors) {
      uh.resize(size_t(n) * n);
      vth.resize(size_t(n) * n);
    }
    if (solve(n, s, e.data(), vectors ? uh.data() : nullptr, vectors ? vth.data() : nullptr) != 0)
      return Status::special_values;
    if (vectors) {
      const size_t rs = sizeof(R);
      if ((st = upload_matrix(ctx, uh.data(), size_t(n) * rs, size_t(n) * rs, size_t(n), ub, ldub * rs)) != Status::ok)
        return st;
      if ((st = upload_matrix(ctx, vth.data(), size_t(n) * rs, size_t(n) * rs, size_t(n), vtb, ldvtb * rs)) !=
          Status::ok)
        return st;
      // The uploads read the host arrays until the stream gets there.
      if ((st = check(cudaStreamSynchronize(stream), "svd: bidiagonal vectors")) != Status::ok) return st;
    }
  }
  const Clock::time_point solved = Clock::now();
  if (!vectors) {
    log(2, "svd: %dx%d: %sbidiagonal reduction %.3f s, bidiagonal problem (%s) %.3f s", m, n, at.qr ? "QR and " : "",
        seconds(start, reduced), on_gpu ? "GPU" : "CPU", seconds(reduced, solved));
    return Status::ok;
  }
  if constexpr (is_complex_v<T>) {
    error = kernels::launch_real_to_matrix<T>(n, n, ub, ldub, dU, lddu, stream);
    if (error == cudaSuccess) error = kernels::launch_real_to_matrix<T>(n, n, vtb, ldvtb, dVT, lddvt, stream);
    if ((st = check(error, "svd: widen")) != Status::ok) return st;
  }

  // U = Q_R Q_B [U_B 0; 0 I] (full) or Q_R Q_B [U_B; 0] (thin); V^H = V_B^H P^H.
  if (at.qr) {
    if ((st = ormqr_device<T>(Side::left, Op::none, n, n, n, B, ldb, tauq, dU, lddu, phase, phase_bytes, stream)) !=
        Status::ok)
      return st;
    if ((st = ormqr_device<T>(Side::left, Op::none, m, ucols, n, dA, ldda, tau, dU, lddu, phase, phase_bytes,
                              stream)) != Status::ok)
      return st;
  } else if ((st = ormqr_device<T>(Side::left, Op::none, m, ucols, n, dA, ldda, tauq, dU, lddu, phase, phase_bytes,
                                   stream)) != Status::ok) {
    return st;
  }
  if ((st = apply_p_device<T>(n, n, B, ldb, taup, dVT, lddvt, phase, phase_bytes, stream)) != Status::ok) return st;
  if ((st = check(cudaStreamSynchronize(stream), "svd: back-transformation")) != Status::ok) return st;
  log(2, "svd: %dx%d: %sbidiagonal reduction %.3f s, bidiagonal problem (%s) %.3f s, back-transformation %.3f s", m,
      n, at.qr ? "QR and " : "", seconds(start, reduced), on_gpu ? "GPU" : "CPU", seconds(reduced, solved),
      seconds(solved, Clock::now()));
  (void)es;
  return Status::ok;
}

namespace {

// One SVD of the caller's m x n A on the device, in A's own orientation: after run(), U
// (m x ucols, ldu) and V^H (vtrows x n, ldvt) are device matrices (unless values alone) and
// values holds the min(m, n) singular values. A wide A runs as A^H's tall problem, its
// results transposed back. `full`: U m x m (tall A) or V^H n x n (wide A); otherwise
// min(m, n) of each.
template <class T>
class SvdRun {
 public:
  using R = real_t<T>;
  SvdRun(GpuContext &ctx, int m, int n) : ctx_(ctx), m_(m), n_(n) {}

  Status run(SvdJob job, const T *a, int lda, const BidiagonalSolver<R> &solve, const TridiagonalSolver<R> &leaf) {
    const size_t es = sizeof(T);
    const bool wide = m_ < n_;
    const int M = wide ? n_ : m_, N = wide ? m_ : n_;  // the tall problem
    const int tall_ucols = job == SvdJob::full ? M : N;
    const size_t ld_tall = padded_ld(size_t(M), es), ld_orig = padded_ld(size_t(m_), es);
    const size_t ld_vt_tall = padded_ld(size_t(N), es);
    // Slot a: the tall matrix (destroyed), then a wide A's U; slot b: the tall problem's U (and
    // first a wide A as given); slot c: the tall problem's V^H, then a wide A's V^H.
    size_t a_bytes = ld_tall * size_t(N) * es, b_bytes = ld_tall * size_t(tall_ucols) * es,
           c_bytes = ld_vt_tall * size_t(N) * es;
    if (wide) {
      b_bytes = std::max(b_bytes, ld_orig * size_t(n_) * es);
      a_bytes = std::max(a_bytes, ld_orig * size_t(m_) * es);
      c_bytes = std::max(c_bytes, padded_ld(size_t(tall_ucols), es) * size_t(n_) * es);
    }
    size_t work = svd_device_workspace<T>(job, M, N, true), cap = 0;
    // The bidiagonal problem on the GPU needs about 4 (2n)^2 reals more: where that does not fit
    // beside the rest, the CPU's solver takes it.
    if (device_memory_cap(ctx_, &cap) == Status::ok && a_bytes + b_bytes + c_bytes + work > cap)
      work = svd_device_workspace<T>(job, M, N, false);
    void *dA = nullptr, *dB = nullptr, *dC = nullptr, *dW = nullptr;
    Status s = job == SvdJob::values && !wide
                   ? device_buffers(ctx_, {{Slot::a, a_bytes, &dA}, {Slot::work, work, &dW}})
                   : device_buffers(ctx_, {{Slot::a, a_bytes, &dA},
                                           {Slot::b, b_bytes, &dB},
                                           {Slot::c, c_bytes, &dC},
                                           {Slot::work, work, &dW}});
    if (s != Status::ok) return s;
    auto *A = static_cast<T *>(dA), *TU = static_cast<T *>(dB), *TVT = static_cast<T *>(dC);
    cudaStream_t stream = ctx_.stream;
    if (wide) {
      if ((s = upload_matrix(ctx_, a, size_t(lda) * es, size_t(m_) * es, size_t(n_), TU, ld_orig * es)) != Status::ok)
        return s;
      if ((s = conjugate_transpose<T>(m_, n_, TU, ld_orig, A, ld_tall, stream, "svd: A^H")) != Status::ok) return s;
    } else if ((s = upload_matrix(ctx_, a, size_t(lda) * es, size_t(m_) * es, size_t(n_), A, ld_tall * es)) !=
               Status::ok) {
      return s;
    }
    values.resize(size_t(N));
    if ((s = svd_device<T>(ctx_, job, M, N, A, ld_tall, values.data(), TU, ld_tall, TVT, ld_vt_tall, dW, work,
                           solve, leaf)) != Status::ok)
      return s;
    if (job == SvdJob::values) return Status::ok;
    if (!wide) {
      U = TU;
      ldu = ld_tall;
      ucols = tall_ucols;
      VT = TVT;
      ldvt = ld_vt_tall;
      vtrows = N;
      return Status::ok;
    }
    // A = (A^H)^H = (U' S V'^H)^H: U = V'^H^H (m x m) into slot a, V^H = U'^H into slot c.
    U = A;
    ldu = ld_orig;
    ucols = m_;
    if ((s = conjugate_transpose<T>(N, N, TVT, ld_vt_tall, U, ldu, stream, "svd: U")) != Status::ok) return s;
    VT = TVT;
    vtrows = tall_ucols;
    ldvt = padded_ld(size_t(vtrows), es);
    if ((s = conjugate_transpose<T>(M, tall_ucols, TU, ld_tall, VT, ldvt, stream, "svd: V^H")) != Status::ok) return s;
    return check(cudaStreamSynchronize(stream), "svd: transposes");
  }

  // The device block (rows x cols, ldd) into the caller's host matrix: through a host copy
  // when `dst` is A (an input a failed download must not leave half written).
  Status fetch(const T *dev, size_t ldd, int rows, int cols, T *dst, int ld, bool through_copy) {
    const size_t es = sizeof(T);
    if (rows <= 0 || cols <= 0) return Status::ok;
    if (!through_copy)
      return download_matrix(ctx_, dev, ldd * es, size_t(rows) * es, size_t(cols), dst, size_t(ld) * es);
    std::unique_ptr<T[]> copy(new (std::nothrow) T[size_t(rows) * cols]);
    if (copy == nullptr) return Status::out_of_memory;
    const Status s =
        download_matrix(ctx_, dev, ldd * es, size_t(rows) * es, size_t(cols), copy.get(), size_t(rows) * es);
    if (s != Status::ok) return s;
    for (int j = 0; j < cols; ++j) std::memcpy(dst + size_t(j) * ld, copy.get() + size_t(j) * rows, size_t(rows) * es);
    return s;
  }

  std::vector<R> values;
  T *U = nullptr, *VT = nullptr;
  size_t ldu = 0, ldvt = 0;
  int ucols = 0, vtrows = 0;

 private:
  GpuContext &ctx_;
  int m_, n_;
};

}  // namespace

template <class T>
Status gesdd_host(char jobz, int m, int n, T *a, int lda, real_t<T> *s, T *u, int ldu, T *vt, int ldvt, int *info,
                  const BidiagonalSolver<real_t<T>> &solve, const TridiagonalSolver<real_t<T>> &leaf) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const SvdJob job = jobz == 'N' ? SvdJob::values : jobz == 'A' ? SvdJob::full : SvdJob::thin;
  const int k = std::min(m, n);
  SvdRun<T> run(ctx, m, n);
  Status st = run.run(job, a, lda, solve, leaf);
  DrainOnFailure drain{st, ctx};
  if (st != Status::ok) return st;
  if (job != SvdJob::values) {
    // 'O': the min(m, n) vectors of the longer side overwrite A, the others go to U or VT.
    const bool over_u = jobz == 'O' && m >= n, over_vt = jobz == 'O' && m < n;
    if ((st = run.fetch(run.U, run.ldu, m, run.ucols, over_u ? a : u, over_u ? lda : ldu, over_u)) != Status::ok)
      return st;
    if ((st = run.fetch(run.VT, run.ldvt, run.vtrows, n, over_vt ? a : vt, over_vt ? lda : ldvt, over_vt)) !=
        Status::ok)
      return st;
  }
  std::memcpy(s, run.values.data(), size_t(k) * sizeof(real_t<T>));
  *info = 0;
  return Status::ok;
}

template <class T>
Status gesvd_host(char jobu, char jobvt, int m, int n, T *a, int lda, real_t<T> *s, T *u, int ldu, T *vt, int ldvt,
                  int *info, const BidiagonalSolver<real_t<T>> &solve, const TridiagonalSolver<real_t<T>> &leaf) {
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const int k = std::min(m, n);
  SvdJob job = SvdJob::thin;
  if (jobu == 'N' && jobvt == 'N') job = SvdJob::values;
  else if ((m >= n && jobu == 'A') || (m < n && jobvt == 'A')) job = SvdJob::full;
  SvdRun<T> run(ctx, m, n);
  Status st = run.run(job, a, lda, solve, leaf);
  DrainOnFailure drain{st, ctx};
  if (st != Status::ok) return st;
  // U's columns: m for 'A', min(m, n) for 'S' and 'O'; V^H's rows: n for 'A', min(m, n) else.
  // 'O' overwrites A's leading columns (U) or rows (V^H), the last write.
  if (jobu == 'S' || jobu == 'A') {
    if ((st = run.fetch(run.U, run.ldu, m, jobu == 'A' ? m : k, u, ldu, false)) != Status::ok) return st;
  }
  if (jobvt == 'S' || jobvt == 'A') {
    if ((st = run.fetch(run.VT, run.ldvt, jobvt == 'A' ? n : k, n, vt, ldvt, false)) != Status::ok) return st;
  }
  if (jobu == 'O' && (st = run.fetch(run.U, run.ldu, m, k, a, lda, true)) != Status::ok) return st;
  if (jobvt == 'O' && (st = run.fetch(run.VT, run.ldvt, k, n, a, lda, true)) != Status::ok) return st;
  std::memcpy(s, run.values.data(), size_t(k) * sizeof(real_t<T>));
  *info = 0;
  return Status::ok;
}

namespace {

// gelsd_host's device memory: slot a the tall matrix (A, or A^H for a wide A) and its QR
// factor; slot b the right-hand sides (max(m, n) rows); slot c the k x k core matrix, its
// singular vectors, U^H C and, first, a wide A as given (or, for xGELSS of a wide A, V's
// columns on their way to A); slot work the flags, tau, the pseudo-inverse's scales and the
// phase's workspace.
template <class T>
struct LeastSquaresPlan {
  size_t ld_tall, ldk, ldw, ld_orig;
  size_t k_at, u_at, vt_at, w_at, z_at, c_bytes;
  size_t tau_at, scale_at, phase_at, work_bytes;
  LeastSquaresPlan(bool gelss, int m, int n, int nrhs, bool gpu_bidiagonal) {
    using R = real_t<T>;
    const size_t es = sizeof(T);
    const int k = std::min(m, n), M = std::max(m, n);
    ld_tall = padded_ld(size_t(M), es);
    ldk = padded_ld(size_t(k), es);
    ldw = ldk;
    ld_orig = padded_ld(size_t(m), es);
    k_at = 0;
    u_at = after(ldk * size_t(k) * es);
    vt_at = after(u_at + ldk * size_t(k) * es);
    w_at = after(vt_at + ldk * size_t(k) * es);
    // A wide A as given, and xGELSS's V^H of it, at the start of the slot (over the core's
    // matrices, which are made after the first and read before the second); V's columns past both.
    z_at = after(std::max(w_at + ldw * size_t(nrhs) * es, m < n ? ld_orig * size_t(n) * es : 0));
    c_bytes = z_at + (gelss && m < n ? ld_tall * size_t(k) * es : 0);
    tau_at = after(sizeof(SvdFlags));
    scale_at = after(tau_at + size_t(k) * es);
    phase_at = after(scale_at + size_t(k) * sizeof(R));
    size_t phase = svd_device_workspace<T>(SvdJob::thin, k, k, gpu_bidiagonal);
    if (m != n)
      phase = std::max({phase, geqrf_device_workspace<T>(M, k), ormqr_device_workspace<T>(Side::left, M, nrhs, k),
                        ormqr_device_workspace<T>(Side::left, M, k, k)});
    work_bytes = phase_at + phase;
  }
};

}  // namespace

template <class T>
Status gelsd_host(bool gelss, int m, int n, int nrhs, T *a, int lda, T *b, int ldb, real_t<T> *s, real_t<T> rcond,
                  int *rank, int *info, const BidiagonalSolver<real_t<T>> &solve,
                  const TridiagonalSolver<real_t<T>> &leaf) {
  using R = real_t<T>;
  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const size_t es = sizeof(T);
  const bool wide = m < n;
  const int k = std::min(m, n), M = std::max(m, n);
  size_t cap = 0;
  LeastSquaresPlan<T> p(gelss, m, n, nrhs, true);
  if (device_memory_cap(ctx, &cap) == Status::ok &&
      p.ld_tall * size_t(k + nrhs) * es + p.c_bytes + p.work_bytes > cap)
    p = LeastSquaresPlan<T>(gelss, m, n, nrhs, false);
  void *dA = nullptr, *dB = nullptr, *dC = nullptr, *dW = nullptr;
  Status st = device_buffers(ctx, {{Slot::a, p.ld_tall * size_t(k) * es, &dA},
                                   {Slot::b, p.ld_tall * size_t(nrhs) * es, &dB},
                                   {Slot::c, p.c_bytes, &dC},
                                   {Slot::work, p.work_bytes, &dW}});
  if (st != Status::ok) return st;
  DrainOnFailure drain{st, ctx};
  cudaStream_t stream = ctx.stream;
  char *cbase = static_cast<char *>(dC), *wbase = static_cast<char *>(dW);
  auto *A = static_cast<T *>(dA), *B = static_cast<T *>(dB);
  auto *K = reinterpret_cast<T *>(cbase + p.k_at), *U = reinterpret_cast<T *>(cbase + p.u_at);
  auto *VT = reinterpret_cast<T *>(cbase + p.vt_at), *W = reinterpret_cast<T *>(cbase + p.w_at);
  auto *d_flags = reinterpret_cast<SvdFlags *>(wbase);
  auto *tau = reinterpret_cast<T *>(wbase + p.tau_at);
  auto *scale = reinterpret_cast<R *>(wbase + p.scale_at);
  void *phase = wbase + p.phase_at;
  const size_t phase_bytes = p.work_bytes - p.phase_at;
  const size_t ld = p.ld_tall, ldk = p.ldk;

  // A (or A^H) and B up; their largest entries decide the reference's scaling.
  if (wide) {
    if ((st = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), dC, p.ld_orig * es)) != Status::ok)
      return st;
    if ((st = conjugate_transpose<T>(m, n, static_cast<T *>(dC), p.ld_orig, A, ld, stream, "gelsd: A^H")) !=
        Status::ok)
      return st;
  } else if ((st = upload_matrix(ctx, a, size_t(lda) * es, size_t(m) * es, size_t(n), A, ld * es)) != Status::ok) {
    return st;
  }
  if ((st = upload_matrix(ctx, b, size_t(ldb) * es, size_t(m) * es, size_t(nrhs), B, ld * es)) != Status::ok) return st;
  cudaError_t error = cudaMemsetAsync(d_flags, 0, sizeof(SvdFlags), stream);
  if (error == cudaSuccess) error = kernels::launch_largest_magnitude<T>(M, k, A, ld, &d_flags->magnitude[0], stream);
  if (error == cudaSuccess)
    error = kernels::launch_largest_magnitude<T>(m, nrhs, B, ld, &d_flags->magnitude[1], stream);
  if ((st = check(error, "gelsd: checks")) != Status::ok) return st;

  // The k x k core: R of the tall matrix's QR (R^H for a wide A: A = R^H Q^H), or A itself.
  const Op ctrans = is_complex_v<T> ? Op::conj_trans : Op::trans;
  if (m != n) {
    if ((st = geqrf_device<T>(M, k, A, ld, tau, &d_flags->special, phase, phase_bytes, stream)) != Status::ok)
      return st;
    if (wide) {
      if ((st = check(kernels::launch_upper_triangle_copy<T>(k, A, ld, U, ldk, stream), "gelsd: R")) != Status::ok)
        return st;
      if ((st = conjugate_transpose<T>(k, k, U, ldk, K, ldk, stream, "gelsd: R^H")) != Status::ok) return st;
    } else {
      if ((st = check(kernels::launch_upper_triangle_copy<T>(k, A, ld, K, ldk, stream), "gelsd: R")) != Status::ok)
        return st;
      // C = Q^H B: its first n rows are solved for, the rest is the residual.
      if (nrhs > 0 && (st = ormqr_device<T>(Side::left, ctrans, m, nrhs, n, A, ld, tau, B, ld, phase, phase_bytes,
                                            stream)) != Status::ok)
        return st;
    }
  } else if ((st = check(cudaMemcpy2DAsync(K, ldk * es, A, ld * es, size_t(k) * es, size_t(k), cudaMemcpyDeviceToDevice,
                                           stream),
                         "gelsd: core")) != Status::ok) {
    return st;
  }
  SvdFlags flags;
  if ((st = read_back(ctx, &flags, d_flags, sizeof flags, "gelsd: flags")) != Status::ok) return st;
  // xGELSD/xGELSS scale A and B into [smlnum, bignum] and answer a zero A apart: the CPU
  // routine's calls.
  const double eps = double(std::numeric_limits<R>::epsilon());
  const double smlnum = double(std::numeric_limits<R>::min()) / eps, bignum = 1 / smlnum;
  const double anrm = magnitude_of(flags.magnitude[0]), bnrm = magnitude_of(flags.magnitude[1]);
  if (flags.special != 0 || !(anrm >= smlnum && anrm <= bignum) || !(bnrm == 0 || (bnrm >= smlnum && bnrm <= bignum)))
    return st = Status::special_values;

  std::vector<R> sigma(static_cast<size_t>(k));
  if ((st = svd_device<T>(ctx, SvdJob::thin, k, k, K, ldk, sigma.data(), U, ldk, VT, ldk, phase, phase_bytes, solve,
                          leaf)) != Status::ok)
    return st;
  // The effective rank: xGELSD (xLALSD) drops sigma <= rcnd * sigma_1, rcnd = eps/2 unless
  // 0 < rcond < 1; xGELSS keeps sigma > max(rcond * sigma_1, safmin), eps for rcond < 0.
  std::vector<R> inverse(static_cast<size_t>(k));
  double threshold;
  if (gelss) {
    const double r = rcond < 0 ? eps : double(rcond);
    threshold = std::max(r * double(sigma[0]), double(std::numeric_limits<R>::min()));
  } else {
    const double r = (rcond <= 0 || rcond >= 1) ? eps / 2 : double(rcond);
    threshold = r * double(sigma[0]);
  }
  int r = 0;
  for (int i = 0; i < k; ++i) {
    const bool kept = double(sigma[i]) > threshold;
    inverse[size_t(i)] = kept ? R(1) / sigma[size_t(i)] : R(0);
    r += kept ? 1 : 0;
  }
  if ((st = check(cudaMemcpyAsync(scale, inverse.data(), size_t(k) * sizeof(R), cudaMemcpyHostToDevice, stream),
                  "gelsd: scales")) != Status::ok)
    return st;
  // X = V S^+ U^H C: W = U^H C(1:k), its rows scaled, then V W over C's first k rows. (xGELSS
  // takes NRHS = 0: the singular values and V^H alone.)
  if (nrhs > 0) {
    if ((st = gemm_device<T>(ctrans, Op::none, k, nrhs, k, T(1), U, ldk, B, ld, T(0), W, p.ldw, stream)) != Status::ok)
      return st;
    if ((st = check(kernels::launch_scale_rows<T>(k, nrhs, scale, W, p.ldw, stream), "gelsd: S^+")) != Status::ok)
      return st;
    if ((st = gemm_device<T>(ctrans, Op::none, k, nrhs, k, T(1), VT, ldk, W, p.ldw, T(0), B, ld, stream)) != Status::ok)
      return st;
    if (wide) {
      // X = Q [Y; 0].
      if ((st = check(kernels::launch_fill<T>(n - m, nrhs, B + m, ld, T(0), stream), "gelsd: zero")) != Status::ok)
        return st;
      if ((st = ormqr_device<T>(Side::left, Op::none, n, nrhs, m, A, ld, tau, B, ld, phase, phase_bytes, stream)) !=
          Status::ok)
        return st;
    }
  }
  // xGELSS: A's first k rows := A's V^H: the core's V^H for a tall or square A, (Q V)^H for a
  // wide one. xGELSD destroys A: its leading k x k block gets the factor the reference leaves
  // there in kind (R of the QR, L of the LQ, the bidiagonal reduction of a square A), so that A
  // is overwritten as with the reference, without moving the whole matrix back.
  T *vta = VT;
  size_t ldvta = ldk;
  int a_cols = n;
  if (!gelss) {
    a_cols = k;
    if (m > n) {
      vta = A;
      ldvta = ld;
    } else if (wide) {
      if ((st = conjugate_transpose<T>(k, k, A, ld, U, ldk, stream, "gelsd: L")) != Status::ok) return st;
      vta = U;
    } else {
      vta = K;
    }
  }
  if (gelss && wide) {
    auto *Z = reinterpret_cast<T *>(cbase + p.z_at);
    if ((st = check(kernels::launch_fill<T>(n, m, Z, ld, T(0), stream), "gelss: V")) != Status::ok) return st;
    if ((st = conjugate_transpose<T>(k, k, VT, ldk, Z, ld, stream, "gelss: V")) != Status::ok) return st;
    if ((st = ormqr_device<T>(Side::left, Op::none, n, m, m, A, ld, tau, Z, ld, phase, phase_bytes, stream)) !=
        Status::ok)
      return st;
    vta = static_cast<T *>(dC);
    ldvta = p.ld_orig;
    if ((st = conjugate_transpose<T>(n, m, Z, ld, vta, ldvta, stream, "gelss: V^H")) != Status::ok) return st;
  }
  if ((st = check(cudaStreamSynchronize(stream), "gelsd")) != Status::ok) return st;

  // B and A through host copies: a failed download leaves the caller's inputs.
  const int brows = std::max(m, n);
  std::unique_ptr<T[]> xb(new (std::nothrow) T[size_t(brows) * nrhs]);
  if (xb == nullptr) return st = Status::out_of_memory;
  if ((st = download_matrix(ctx, B, ld * es, size_t(brows) * es, size_t(nrhs), xb.get(), size_t(brows) * es)) !=
      Status::ok)
    return st;
  std::unique_ptr<T[]> xa(new (std::nothrow) T[size_t(k) * a_cols]);
  if (xa == nullptr) return st = Status::out_of_memory;
  if ((st = download_matrix(ctx, vta, ldvta * es, size_t(k) * es, size_t(a_cols), xa.get(), size_t(k) * es)) !=
      Status::ok)
    return st;
  for (int j = 0; j < a_cols; ++j) std::memcpy(a + size_t(j) * lda, xa.get() + size_t(j) * k, size_t(k) * es);
  for (int j = 0; j < nrhs; ++j) std::memcpy(b + size_t(j) * ldb, xb.get() + size_t(j) * brows, size_t(brows) * es);
  std::memcpy(s, sigma.data(), size_t(k) * sizeof(R));
  *rank = r;
  *info = 0;
  return Status::ok;
}

#define CUDROP_SVD_HOST(T)                                                                                          \
  template size_t svd_device_workspace<T>(SvdJob, int, int, bool);                                                  \
  template Status svd_device<T>(GpuContext &, SvdJob, int, int, T *, size_t, real_t<T> *, T *, size_t, T *, size_t,  \
                                void *, size_t, const BidiagonalSolver<real_t<T>> &,                                \
                                const TridiagonalSolver<real_t<T>> &);                                              \
  template Status gesdd_host<T>(char, int, int, T *, int, real_t<T> *, T *, int, T *, int, int *,                    \
                                const BidiagonalSolver<real_t<T>> &, const TridiagonalSolver<real_t<T>> &);         \
  template Status gesvd_host<T>(char, char, int, int, T *, int, real_t<T> *, T *, int, T *, int, int *,              \
                                const BidiagonalSolver<real_t<T>> &, const TridiagonalSolver<real_t<T>> &);         \
  template Status gelsd_host<T>(bool, int, int, int, T *, int, T *, int, real_t<T> *, real_t<T>, int *, int *,       \
                                const BidiagonalSolver<real_t<T>> &, const TridiagonalSolver<real_t<T>> &);
CUDROP_SVD_HOST(float)
CUDROP_SVD_HOST(double)
CUDROP_SVD_HOST(Complex<float>)
CUDROP_SVD_HOST(Complex<double>)
#undef CUDROP_SVD_HOST

}  // namespace cudrop::impl
