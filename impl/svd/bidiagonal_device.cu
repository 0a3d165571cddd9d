// The bidiagonal SVD on the device (impl/svd/svd.h): the n x n upper bidiagonal B's singular
// triplets from the symmetric tridiagonal eigenproblem of its Golub-Kahan form, the order-2n
// matrix with zero diagonal and off-diagonal (d1, e1, d2, e2, ..., dn), whose eigenvalues are
// +-sigma and whose eigenvector of +sigma interleaves (v1, u1, v2, u2, ...)/sqrt(2). That
// problem goes to the GPU's divide and conquer (stedc_device): the CPU's xBDSDC took most of a
// GPU SVD's time (docs/perf, the SVD record).
//
// Where the form is weak: the eigenvectors of +sigma and -sigma mix when sigma is small next to
// ||B||, and then u and v lose their norms and, inside clusters of small singular values, their
// orthogonality. So every result is checked on the device before it is used: max |U^T U - I|,
// max |V^T V - I| and max |B V - U S| against bounds of a few n eps (|B|); a result outside them is
// refused (Status::special_values) and the caller solves the problem with the CPU's xBDSDC, which
// is what happens for a B with zero or tiny singular values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/layout.h"
#include "impl/context/gpu_context.cuh"
#include "impl/gemm/gemm.h"
#include "impl/svd/svd.h"
#include "kernels/svd_support.cuh"
#include "kernels/transpose.cuh"

namespace cudrop::impl {
namespace {

size_t after(size_t bytes) { return size_t(round_up(std::max<size_t>(bytes, 1), 256)); }

// The workspace: the form's eigenvectors Z (2n x 2n), V (n x n) before its transpose, the
// Gram matrix of the checks (n x n), B's diagonals and the singular values, the checks' results,
// then stedc_device's own.
template <class R>
struct GkWork {
  size_t ldz = 0, ld = 0, z_at = 0, v_at = 0, g_at = 0, d_at = 0, e_at = 0, s_at = 0, flags_at = 0, dc_at = 0,
         bytes = 0;
  explicit GkWork(int n) {
    const size_t rs = sizeof(R), nn = size_t(n), n2 = 2 * nn;
    ldz = padded_ld(n2, rs);
    ld = padded_ld(nn, rs);
    v_at = after(ldz * n2 * rs);
    g_at = after(v_at + ld * nn * rs);
    d_at = after(g_at + ld * nn * rs);
    e_at = after(d_at + nn * rs);
    s_at = after(e_at + nn * rs);
    flags_at = after(s_at + nn * rs);
    dc_at = after(flags_at + 4 * sizeof(unsigned long long));
    bytes = dc_at + stedc_device_workspace<R>(2 * n);
  }
};

double from_bits(unsigned long long bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace

template <class R>
size_t bidiagonal_svd_device_workspace(int n) {
  return GkWork<R>(n).bytes;
}

template <class R>
Status bidiagonal_svd_device(GpuContext &ctx, int n, const R *d, const R *e, R *s, R *dU, size_t lddu, R *dVT,
                             size_t lddvt, const TridiagonalSolver<R> &leaf, void *work, size_t work_bytes) {
  const GkWork<R> at(n);
  if (n < 1 || work == nullptr || work_bytes < at.bytes) return Status::out_of_memory;
  const int n2 = 2 * n;
  char *base = static_cast<char *>(work);
  R *Z = reinterpret_cast<R *>(base), *V = reinterpret_cast<R *>(base + at.v_at);
  R *G = reinterpret_cast<R *>(base + at.g_at);
  auto *flags = reinterpret_cast<unsigned long long *>(base + at.flags_at);
  cudaStream_t stream = ctx.stream;

  // The Golub-Kahan form: zero diagonal, off-diagonal d1, e1, d2, ..., dn.
  std::vector<R> diag(static_cast<size_t>(n2), R(0)), off(static_cast<size_t>(n2));
  for (int k = 0; k < n; ++k) {
    off[size_t(2 * k)] = d[k];
    if (k + 1 < n) off[size_t(2 * k + 1)] = e[k];
  }
  Status st = stedc_device<R>(ctx, n2, diag.data(), off.data(), Z, at.ldz, leaf, base + at.dc_at,
                              work_bytes - at.dc_at);
  if (st != Status::ok) return st;
  // Eigenvalues ascending: the n largest, from the top, are the singular values. Where sigma is
  // at rounding level its sign can come out wrong, and |.| can then break the order: sorted
  // again (values alone; with vectors such a B is refused below).
  for (int i = 0; i < n; ++i) s[i] = std::fabs(diag[size_t(n2 - 1 - i)]);
  if (dU == nullptr) {
    std::sort(s, s + n, [](R a, R b) { return a > b; });
    return Status::ok;
  }
  // A zero (or sign-flipped) singular value: the pair +-sigma is not resolved.
  if (!(diag[size_t(n)] > 0)) return Status::special_values;

  // u_i, v_i from the eigenvector of +sigma_i (column 2n-1-i), each scaled to unit length.
  cudaError_t error = kernels::launch_golub_kahan_vectors<R>(n, Z, at.ldz, dU, lddu, V, at.ld, stream);
  if (error == cudaSuccess) error = kernels::launch_transpose<R>(n, n, V, at.ld, dVT, lddvt, stream);
  if ((st = check(error, "bidiagonal svd: vectors")) != Status::ok) return st;

  // The checks: U^T U and V^T V against I, B V - U S.
  R *dd = reinterpret_cast<R *>(base + at.d_at), *de = reinterpret_cast<R *>(base + at.e_at);
  R *ds = reinterpret_cast<R *>(base + at.s_at);
  error = cudaMemsetAsync(flags, 0, 4 * sizeof(unsigned long long), stream);
  if (error == cudaSuccess) error = cudaMemcpyAsync(dd, d, size_t(n) * sizeof(R), cudaMemcpyHostToDevice, stream);
  if (error == cudaSuccess && n > 1)
    error = cudaMemcpyAsync(de, e, size_t(n - 1) * sizeof(R), cudaMemcpyHostToDevice, stream);
  if (error == cudaSuccess) error = cudaMemcpyAsync(ds, s, size_t(n) * sizeof(R), cudaMemcpyHostToDevice, stream);
  if ((st = check(error, "bidiagonal svd: checks")) != Status::ok) return st;
  if ((st = gemm_device<R>(Op::trans, Op::none, n, n, n, R(1), dU, lddu, dU, lddu, R(0), G, at.ld, stream)) !=
      Status::ok)
    return st;
  error = kernels::launch_identity_distance<R>(n, G, at.ld, &flags[0], stream);
  if ((st = check(error, "bidiagonal svd: U^T U")) != Status::ok) return st;
  if ((st = gemm_device<R>(Op::trans, Op::none, n, n, n, R(1), V, at.ld, V, at.ld, R(0), G, at.ld, stream)) !=
      Status::ok)
    return st;
  error = kernels::launch_identity_distance<R>(n, G, at.ld, &flags[1], stream);
  if (error == cudaSuccess)
    error = kernels::launch_bidiagonal_residual<R>(n, dd, de, ds, dU, lddu, V, at.ld, &flags[2], stream);
  if ((st = check(error, "bidiagonal svd: residual")) != Status::ok) return st;
  unsigned long long result[3];
  error = cudaMemcpyAsync(result, flags, sizeof result, cudaMemcpyDeviceToHost, stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
  if ((st = check(error, "bidiagonal svd: checks")) != Status::ok) return st;
  const double eps = double(std::numeric_limits<R>::epsilon()), bound = eps * std::max(64.0, 2.0 * n);
  const double orthogonality = std::max(from_bits(result[0]), from_bits(result[1]));
  const double residual = from_bits(result[2]);
  if (!(orthogonality <= bound) || !(residual <= bound * double(s[0]))) return Status::special_values;
  return Status::ok;
}

#define CUDROP_BIDIAGONAL_SVD(R)                                                                                \
  template size_t bidiagonal_svd_device_workspace<R>(int);                                                      \
  template Status bidiagonal_svd_device<R>(GpuContext &, int, const R *, const R *, R *, R *, size_t, R *, size_t, \
                                           const TridiagonalSolver<R> &, void *, size_t);
CUDROP_BIDIAGONAL_SVD(float)
CUDROP_BIDIAGONAL_SVD(double)
#undef CUDROP_BIDIAGONAL_SVD

}  // namespace cudrop::impl
