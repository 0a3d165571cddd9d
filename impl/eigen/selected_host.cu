// xSYEVR/xHEEVR and xSYEVX/xHEEVX host to host (impl/eigen/selected.h): the matrix up once, its
// reduction on the GPU, the tridiagonal problem by the reference's CPU routines, the selected
// eigenvectors back-transformed on the GPU and brought back once.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/eigen/selected.h"
#include "kernels/tridiagonal.cuh"

namespace cudrop::impl {
namespace {

size_t after(size_t bytes) { return size_t(round_up(bytes, 256)); }

// The device workspace: tau, the real eigenvectors (complex T only: real T takes them in dZ),
// then what the phase running needs.
template <class T>
struct SelectedWork {
  size_t zreal_at = 0, phase_at = 0, bytes = 0;
  SelectedWork(Jobz jobz, bool divide_and_conquer, int n, int max_m) {
    using R = real_t<T>;
    zreal_at = after(size_t(n) * sizeof(T));
    phase_at = zreal_at;
    size_t phase = tridiagonalize_device_workspace<T>(n);
    if (jobz == Jobz::vectors) {
      if constexpr (is_complex_v<T>)
        phase_at = after(zreal_at + padded_ld(size_t(n), sizeof(R)) * size_t(max_m) * sizeof(R));
      phase = std::max(phase, back_transform_device_workspace<T>(n, max_m));
      if (divide_and_conquer) phase = std::max(phase, stedc_device_workspace<R>(n));
    }
    bytes = phase_at + phase;
  }
};

// The tridiagonal problem's answer on the host: m eigenvalues, their real eigenvectors (n x m,
// ld n) unless they are on the device already, ISUPPZ and IFAIL where the reference sets them.
template <class R>
struct TridiagonalAnswer {
  int m = 0;
  std::vector<R> w, z;
  std::vector<int> isuppz, ifail;
  bool z_on_device = false;
};

// The reference's last step with vectors: a selection sort of w ascending, each exchange
// swapping the two columns of z (xSTEBZ's 'B' order lists the eigenvalues block by block).
// ISUPPZ moves with nothing, as in the reference.
template <class R>
void sort_as_the_reference(int n, TridiagonalAnswer<R> &t) {
  for (int j = 0; j + 1 < t.m; ++j) {
    int i = -1;
    R smallest = t.w[j];
    for (int jj = j + 1; jj < t.m; ++jj)
      if (t.w[jj] < smallest) {
        i = jj;
        smallest = t.w[jj];
      }
    if (i < 0) continue;
    t.w[i] = t.w[j];
    t.w[j] = smallest;
    std::swap_ranges(t.z.begin() + size_t(i) * n, t.z.begin() + size_t(i + 1) * n, t.z.begin() + size_t(j) * n);
  }
}

}  // namespace

template <class T>
Status selected_eigen_host(const SelectedProblem<real_t<T>> &p, const T *a, int lda, const SelectedResults<T> &out,
                           int *info, const SelectedSolvers<real_t<T>> &cpu) {
  using R = real_t<T>;
  const int n = p.n;
  const bool vectors = p.jobz == Jobz::vectors;
  const bool every = p.range == Range::all || (p.range == Range::indices && p.il == 1 && p.iu == n);
  // xSYEVR solves every eigenpair by xSTEMR where ILAENV(10) finds IEEE arithmetic with Inf and
  // NaN (IEEECK), xSYEVX by xSTERF or xSTEQR where ABSTOL <= 0; the GPU's divide and conquer
  // stands for xSTEQR (the same eigenpairs within the testers' bounds).
  constexpr bool ieee = std::numeric_limits<R>::is_iec559;
  const bool every_branch = every && (p.driver == SelectedDriver::syevr ? ieee : p.abstol <= 0);
  const bool divide_and_conquer = every_branch && vectors && p.driver == SelectedDriver::syevx;
  const int max_m = p.range == Range::indices ? p.iu - p.il + 1 : n;
  const size_t es = sizeof(T), ldd = padded_ld(size_t(n), es);

  GpuLease lease;
  if (!lease.ok()) return Status::no_device;
  GpuContext &ctx = lease.ctx();
  const SelectedWork<T> at(p.jobz, divide_and_conquer, n, max_m);
  void *dA = nullptr, *dZ = nullptr, *dW = nullptr;
  Status s = vectors ? device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA},
                                            {Slot::b, ldd * size_t(max_m) * es, &dZ},
                                            {Slot::work, at.bytes, &dW}})
                     : device_buffers(ctx, {{Slot::a, ldd * size_t(n) * es, &dA}, {Slot::work, at.bytes, &dW}});
  if (s != Status::ok) return s;
  DrainOnFailure drain{s, ctx};
  char *base = static_cast<char *>(dW);
  auto *d_tau = reinterpret_cast<T *>(base);
  void *phase = base + at.phase_at;
  const size_t phase_bytes = at.bytes - at.phase_at;
  if ((s = upload_matrix(ctx, a, size_t(lda) * es, size_t(n) * es, size_t(n), dA, ldd * es)) != Status::ok) return s;

  // d, e as xSYTRD leaves them; e has n entries (xSTEMR's workspace in the last).
  std::vector<R> d(static_cast<size_t>(n)), e(static_cast<size_t>(n), R(0));
  double anrm = 0;
  if ((s = tridiagonalize_device<T>(ctx, p.uplo, n, static_cast<T *>(dA), ldd, d_tau, d.data(), e.data(), &anrm,
                                    phase, phase_bytes)) != Status::ok)
    return s;
  // These drivers scale A whose largest entry is outside [rmin, rmax]: the CPU routine's call.
  const R safmin = std::numeric_limits<R>::min(), eps = std::numeric_limits<R>::epsilon();
  const R smlnum = safmin / eps, bignum = R(1) / smlnum;
  const R rmin = std::sqrt(smlnum), rmax = std::min(std::sqrt(bignum), R(1) / std::sqrt(std::sqrt(safmin)));
  if ((anrm > 0 && anrm < double(rmin)) || anrm > double(rmax)) return s = Status::special_values;

  R *z_real = nullptr;  // the real eigenvectors on the device
  size_t ldr = ldd;
  if constexpr (is_complex_v<T>) {
    z_real = reinterpret_cast<R *>(base + at.zreal_at);
    ldr = padded_ld(size_t(n), sizeof(R));
  } else {
    z_real = static_cast<R *>(dZ);
  }

  // Any INFO but 0 leaves the call to the CPU routine: the reference's results after a failure
  // (its fallback from xSTERF or xSTEMR to bisection over what they left in W and ISUPPZ, the
  // partial results of xSTEBZ or xSTEIN) are its own.
  TridiagonalAnswer<R> t;
  t.w.assign(size_t(n), R(0));
  if (every_branch) {
    std::vector<R> dd = d, ee = e;
    if (!vectors) {
      if (cpu.sterf(n, dd.data(), ee.data()) != 0) return s = Status::special_values;
      t.w = dd;
    } else if (p.driver == SelectedDriver::syevr) {
      t.z.assign(size_t(n) * n, R(0));
      t.isuppz.assign(size_t(2) * n, 0);
      bool tryrac = p.abstol <= R(2) * R(n) * eps;
      int m = 0;
      if (cpu.stemr(n, dd.data(), ee.data(), &m, t.w.data(), t.z.data(), n, t.isuppz.data(), &tryrac) != 0 || m != n)
        return s = Status::special_values;
    } else {
      t.w = dd;
      if ((s = stedc_device<R>(ctx, n, t.w.data(), ee.data(), z_real, ldr, cpu.leaf, phase, phase_bytes)) !=
          Status::ok)
        return s;
      t.z_on_device = true;
      t.ifail.assign(size_t(n), 0);
    }
    t.m = n;
  } else {
    // Bisection for the eigenvalues (by blocks when vectors follow), inverse iteration for the
    // vectors.
    std::vector<int> iblock(static_cast<size_t>(n)), isplit(static_cast<size_t>(n));
    int nsplit = 0;
    if (cpu.stebz(p.range, vectors, n, p.vl, p.vu, p.il, p.iu, p.abstol, d.data(), e.data(), &t.m, &nsplit,
                  t.w.data(), iblock.data(), isplit.data()) != 0 ||
        t.m < 0 || t.m > max_m)
      return s = Status::special_values;
    if (vectors && t.m > 0) {
      t.z.assign(size_t(n) * size_t(t.m), R(0));
      t.ifail.assign(size_t(t.m), 0);
      if (cpu.stein(n, d.data(), e.data(), t.m, t.w.data(), iblock.data(), isplit.data(), t.z.data(), n,
                    t.ifail.data()) != 0)
        return s = Status::special_values;
    }
  }

  const int m = t.m;
  if (vectors && m > 0) {
    if (!t.z_on_device) {
      sort_as_the_reference(n, t);
      if ((s = upload_matrix(ctx, t.z.data(), size_t(n) * sizeof(R), size_t(n) * sizeof(R), size_t(m), z_real,
                             ldr * sizeof(R))) != Status::ok)
        return s;
    }
    if constexpr (is_complex_v<T>) {
      // widen_real takes a column per grid row (blockIdx.y): at most 65535 of them a launch.
      for (int c = 0; c < m; c += 65535) {
        const int cols = std::min(65535, m - c);
        kernels::widen_real<R><<<dim3(unsigned((n + 255) / 256), unsigned(cols)), 256, 0, ctx.stream>>>(
            n, cols, z_real + size_t(c) * ldr, ldr, static_cast<T *>(dZ) + size_t(c) * ldd, ldd);
      }
      if ((s = check(cudaGetLastError(), "selected: widen")) != Status::ok) return s;
    }
    if ((s = back_transform_device<T>(n, m, static_cast<const T *>(dA), ldd, d_tau, static_cast<T *>(dZ), ldd, phase,
                                      phase_bytes, ctx.stream)) != Status::ok)
      return s;
    if ((s = check(cudaStreamSynchronize(ctx.stream), "selected: back-transformation")) != Status::ok) return s;
    // Z is output alone: a download that fails half way leaves the CPU routine to write it all.
    if ((s = download_matrix(ctx, dZ, ldd * es, size_t(n) * es, size_t(m), out.z, size_t(out.ldz) * es)) !=
        Status::ok)
      return s;
  }
  *out.m = m;
  if (m > 0) std::memcpy(out.w, t.w.data(), size_t(m) * sizeof(R));
  if (vectors && out.isuppz != nullptr && !t.isuppz.empty())
    std::memcpy(out.isuppz, t.isuppz.data(), size_t(2) * m * sizeof(int));
  if (vectors && out.ifail != nullptr && m > 0) std::memcpy(out.ifail, t.ifail.data(), size_t(m) * sizeof(int));
  *info = 0;
  return s;
}

#define CUDROP_SELECTED_HOST(T)                                                                                   \
  template Status selected_eigen_host<T>(const SelectedProblem<real_t<T>> &, const T *, int,                     \
                                         const SelectedResults<T> &, int *, const SelectedSolvers<real_t<T>> &);
CUDROP_SELECTED_HOST(float)
CUDROP_SELECTED_HOST(double)
CUDROP_SELECTED_HOST(Complex<float>)
CUDROP_SELECTED_HOST(Complex<double>)
#undef CUDROP_SELECTED_HOST

}  // namespace cudrop::impl
