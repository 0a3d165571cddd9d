// The Level-3 BLAS beside GEMM, device interface (impl/level3_device.h). Each algorithm is a
// recursion that halves the triangle at multiples of kernels::kTriNb, so that the work off the
// diagonal goes to a few large GEMMs (k up to half the order) and only the kTriNb-wide
// diagonal blocks need kernels of their own (kernels/triangular.cuh): TRSM solves them by
// substitution (backward stable as the reference, whatever their condition, where multiplying
// by inverted blocks is not), TRMM multiplies by masked copies of them.
#include "impl/level3_device.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "core/layout.h"
#include "core/letter.h"
#include "core/precision_split.h"
#include "impl/gemm.h"
#include "impl/gpu_context.cuh"
#include "impl/stream_scratch.h"
#include "kernels/triangular.cuh"

namespace cudrop::impl {
namespace {

using kernels::kTriNb;
using kernels::Part;

// 'N', 'T', 'C' (conjugate transpose; a transpose for real T).
Op op_of(char trans) { return Op::from_letter(upper(trans)); }

// Where the diagonal blocks of a triangle of order `order` go: ceil(order / kTriNb) squares.
template <class T>
size_t diagonal_blocks_bytes(int64_t order) {
  return scratch_region(size_t(ceil_div(order, kTriNb)) * kTriNb * kTriNb * sizeof(T));
}

// Blocks of op(A) for the GEMMs: the block at (r0, c0) of op(A) and how GEMM applies it.
template <class T>
struct OpA {
  const T *a;
  size_t lda;
  Op trans;
  const T *at(int64_t r0, int64_t c0) const {
    return trans ? a + size_t(c0) + size_t(r0) * lda : a + size_t(r0) + size_t(c0) * lda;
  }
};

// Where a range [r0, r1) of more than one diagonal block splits: the half rounded up to whole
// blocks (always inside the range).
int64_t split(int64_t r0, int64_t r1) { return r0 + round_up((r1 - r0) / 2, kTriNb); }

Status launched(cudaError_t error, const char *what) { return check(error, what); }

// The recursion of TRSM and TRMM over [r0, r1) of the triangle's order. left: A acts from the
// left (ranges are rows of B), else from the right (columns). forward: the solve runs from
// the range's start (op(A) lower on the left, upper on the right).
template <class T>
struct Triangular {
  bool left, forward, lower, unit;  // lower, unit: A's stored triangle and diagonal
  OpA<T> A;
  int m, n;              // B and C
  const T *blocks;       // TRMM: the masked diagonal blocks
  T alpha;
  cudaStream_t stream;
  const T *block(int64_t r0) const { return blocks + size_t(r0 / kTriNb) * kTriNb * kTriNb; }

  // out = scale * op(diagonal block) * in[range] (left) or in[range] * op(block) (right); `out`
  // points at the range's first row (left) or column (right) of its matrix.
  Status diagonal(int64_t r0, int64_t r1, T scale, const T *in, size_t ldi, T *out, size_t ldo) const {
    const int s = int(r1 - r0);
    if (left) return gemm_device<T>(A.trans, false, s, n, s, scale, block(r0), kTriNb, in + r0, ldi, T(0), out, ldo, stream);
    return gemm_device<T>(false, A.trans, m, s, s, scale, in + size_t(r0) * ldi, ldi, block(r0), kTriNb, T(0), out,
                          ldo, stream);
  }
  // out[to] = out[to] + scale * op(A)(to, from) in[from] (left) or + scale * in[from] op(A)(from, to).
  Status update(int64_t t0, int64_t t1, int64_t f0, int64_t f1, T scale, const T *in, size_t ldi, T *out,
                size_t ldo) const {
    if (left)
      return gemm_device<T>(A.trans, false, int(t1 - t0), n, int(f1 - f0), scale, A.at(t0, f0), A.lda, in + f0, ldi,
                            T(1), out + t0, ldo, stream);
    return gemm_device<T>(false, A.trans, m, int(t1 - t0), int(f1 - f0), scale, in + size_t(f0) * ldi, ldi,
                          A.at(f0, t0), A.lda, T(1), out + size_t(t0) * ldo, ldo, stream);
  }

  // B[range] := X solving the triangular system in place (B already scaled by alpha). On the
  // right a row x of the block solves x op(A_bb) = b, that is op(A_bb)^T x = b.
  Status solve(int64_t r0, int64_t r1, T *b, size_t ldb) const {
    if (r1 - r0 <= kTriNb)
      return launched(kernels::launch_triangle_solve_block(left, lower, left ? bool(A.trans) : !A.trans,
                                                           A.trans.conjugated(), unit, int(r1 - r0),
                                                           A.a + size_t(r0) + size_t(r0) * A.lda, A.lda,
                                                           left ? b + r0 : b + size_t(r0) * ldb, ldb,
                                                           left ? (long long)n : (long long)m, stream),
                      "trsm diagonal block");
    const int64_t mid = split(r0, r1);
    const int64_t a0 = forward ? r0 : mid, a1 = forward ? mid : r1;  // solved first
    const int64_t z0 = forward ? mid : r0, z1 = forward ? r1 : mid;  // then updated and solved
    if (Status s = solve(a0, a1, b, ldb); s != Status::ok) return s;
    if (Status s = update(z0, z1, a0, a1, T(-1), b, ldb, b, ldb); s != Status::ok) return s;
    return solve(z0, z1, b, ldb);
  }

  // C[range] = alpha * (op(A) B)[range] (or (B op(A))[range]), B untouched.
  Status multiply(int64_t r0, int64_t r1, const T *b, size_t ldb, T *c, size_t ldc) const {
    if (r1 - r0 <= kTriNb) return diagonal(r0, r1, alpha, b, ldb, left ? c + r0 : c + size_t(r0) * ldc, ldc);
    const int64_t mid = split(r0, r1);
    if (Status s = multiply(r0, mid, b, ldb, c, ldc); s != Status::ok) return s;
    if (Status s = multiply(mid, r1, b, ldb, c, ldc); s != Status::ok) return s;
    // The block of op(A) off the diagonal: below it when the solve runs forward (lower on the
    // left, upper on the right), the sums reaching from the first half into the second.
    if (forward) return update(mid, r1, r0, mid, alpha, b, ldb, c, ldc);
    return update(r0, mid, mid, r1, alpha, b, ldb, c, ldc);
  }
};

// The recursion's description for side/uplo/trans.
template <class T>
Triangular<T> triangular(char side, char uplo, char trans, char diag, int64_t m, int64_t n, T alpha, const T *dA,
                         size_t ldda, const T *blocks, cudaStream_t stream) {
  Triangular<T> t;
  t.left = upper(side) == 'L';
  t.A = {dA, ldda, op_of(trans)};
  const bool op_lower = (upper(uplo) == 'L') != t.A.trans;
  t.forward = t.left ? op_lower : !op_lower;
  t.lower = upper(uplo) == 'L';
  t.unit = upper(diag) == 'U';
  t.m = int(m);
  t.n = int(n);
  t.blocks = blocks;
  t.alpha = alpha;
  t.stream = stream;
  return t;
}

}  // namespace

template <class T>
size_t trsm_device_workspace(char, int64_t, int64_t) {
  return 0;  // the diagonal blocks are solved in place
}

template <class T>
Status trsm_device(char side, char uplo, char trans, char diag, int64_t m, int64_t n, T alpha, const T *dA,
                   size_t ldda, T *dB, size_t lddb, void *stream_ptr, void *, size_t) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (alpha == T(0))
    return launched(kernels::launch_axpby(Part::all, m, n, T(0), dB, lddb, T(0), dB, lddb, stream), "trsm zero");
  if (alpha != T(1)) {
    if (Status s = launched(kernels::launch_axpby(Part::all, m, n, alpha, dB, lddb, T(0), dB, lddb, stream), "trsm scale");
        s != Status::ok)
      return s;
  }
  const int64_t order = upper(side) == 'L' ? m : n;
  return triangular(side, uplo, trans, diag, m, n, T(1), dA, ldda, static_cast<const T *>(nullptr), stream)
      .solve(0, order, dB, lddb);
}

template <class T>
size_t trmm_device_workspace(char side, int64_t m, int64_t n) {
  return diagonal_blocks_bytes<T>(upper(side) == 'L' ? m : n);
}

template <class T>
Status trmm_device(char side, char uplo, char trans, char diag, int64_t m, int64_t n, T alpha, const T *dA,
                   size_t ldda, const T *dB, size_t lddb, T *dC, size_t lddc, void *stream_ptr, void *workspace,
                   size_t workspace_bytes) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (alpha == T(0))
    return launched(kernels::launch_axpby(Part::all, m, n, T(0), dC, lddc, T(0), dC, lddc, stream), "trmm zero");
  const int64_t order = upper(side) == 'L' ? m : n;
  StreamScratch scratch(stream, "level3 workspace");
  char *ws = nullptr;
  if (Status s = scratch.get(trmm_device_workspace<T>(side, m, n), workspace, workspace_bytes, &ws); s != Status::ok)
    return s;
  T *blocks = reinterpret_cast<T *>(ws);
  if (Status s = launched(kernels::launch_triangle_blocks(upper(uplo) == 'L', upper(diag) == 'U', order, dA,
                                                          ldda, blocks, stream),
                          "trmm diagonal blocks");
      s != Status::ok)
    return s;
  return triangular(side, uplo, trans, diag, m, n, alpha, dA, ldda, static_cast<const T *>(blocks), stream)
      .multiply(0, order, dB, lddb, dC, lddc);
}

template <class T>
size_t symm_device_workspace(char side, int64_t m, int64_t n) {
  const int64_t order = upper(side) == 'L' ? m : n;
  return scratch_region(padded_ld(size_t(order), sizeof(T)) * size_t(order) * sizeof(T));
}

namespace {
// SYMM, or HEMM with `hermitian`: A mirrored into a full square, then one GEMM.
template <class T>
Status symmetric_product(bool hermitian, char side, char uplo, int64_t m, int64_t n, T alpha, const T *dA,
                         size_t ldda, const T *dB, size_t lddb, T beta, T *dC, size_t lddc, void *stream_ptr,
                         void *workspace, size_t workspace_bytes) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (alpha == T(0))
    return beta == T(1) ? Status::ok
                        : launched(kernels::launch_axpby(Part::all, m, n, T(0), dC, lddc, beta, dC, lddc, stream),
                                   "symm scale");
  const bool left = upper(side) == 'L';
  const int64_t order = left ? m : n;
  StreamScratch scratch(stream, "level3 workspace");
  char *ws = nullptr;
  if (Status s = scratch.get(symm_device_workspace<T>(side, m, n), workspace, workspace_bytes, &ws); s != Status::ok)
    return s;
  T *full = reinterpret_cast<T *>(ws);
  const size_t ldf = padded_ld(size_t(order), sizeof(T));
  if (Status s = launched(kernels::launch_symmetrize(upper(uplo) == 'L', order, dA, ldda, full, ldf, stream,
                                                    hermitian),
                          "symm symmetrize");
      s != Status::ok)
    return s;
  if (left) return gemm_device<T>(false, false, int(m), int(n), int(m), alpha, full, ldf, dB, lddb, beta, dC, lddc, stream);
  return gemm_device<T>(false, false, int(m), int(n), int(n), alpha, dB, lddb, full, ldf, beta, dC, lddc, stream);
}
}  // namespace

template <class T>
Status symm_device(char side, char uplo, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda, const T *dB,
                   size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace, size_t workspace_bytes) {
  return symmetric_product<T>(false, side, uplo, m, n, alpha, dA, ldda, dB, lddb, beta, dC, lddc, stream, workspace,
                              workspace_bytes);
}
template <class T>
Status hemm_device(char side, char uplo, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda, const T *dB,
                   size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace, size_t workspace_bytes) {
  return symmetric_product<T>(true, side, uplo, m, n, alpha, dA, ldda, dB, lddb, beta, dC, lddc, stream, workspace,
                              workspace_bytes);
}

namespace {

// SYRK/SYR2K's diagonal blocks: at most kRankLeaf square, computed whole into a temporary and
// merged into C's triangle.
constexpr int64_t kRankLeaf = 4 * kTriNb;

template <class T>
struct RankUpdate {
  bool lower, trans;  // trans: op(A) = A^T (A^H when hermitian)
  bool hermitian;     // HERK/HER2K: op(X)_c^H for op(X)_c^T, conj(alpha) in the second term, C's diagonal real
  int k;
  T alpha, beta;
  const T *a, *b;  // b == a for SYRK
  size_t lda, ldb;
  bool two;  // SYR2K
  T *c;
  size_t ldc;
  T *tmp;  // kRankLeaf x kRankLeaf
  cudaStream_t stream;

  const T *rows(const T *x, size_t ldx, int64_t r0) const { return trans ? x + size_t(r0) * ldx : x + r0; }
  // out (rows x cols at (r0, c0) of op-space) = alpha op(A)_r op(B)_c^T [+ alpha op(B)_r op(A)_c^T] + beta out
  // (^H and conj(alpha) in the second term when hermitian).
  Status product(int64_t r0, int64_t rows_count, int64_t c0, int64_t cols_count, T beta_out, T *out, size_t ldo) const {
    const Op transposed = hermitian ? Op::conj_trans : Op::trans;
    const Op first = trans ? transposed : Op::none, second = trans ? Op::none : transposed;
    Status s = gemm_device<T>(first, second, int(rows_count), int(cols_count), k, alpha, rows(a, lda, r0), lda,
                              rows(b, ldb, c0), ldb, beta_out, out, ldo, stream);
    if (s != Status::ok || !two) return s;
    return gemm_device<T>(first, second, int(rows_count), int(cols_count), k, hermitian ? conj(alpha) : alpha,
                          rows(b, ldb, r0), ldb, rows(a, lda, c0), lda, T(1), out, ldo, stream);
  }
  Status run(int64_t r0, int64_t r1) const {
    if (r1 - r0 <= kRankLeaf) {
      const int64_t s = r1 - r0;
      if (Status st = product(r0, s, r0, s, T(0), tmp, kRankLeaf); st != Status::ok) return st;
      return launched(kernels::launch_axpby(lower ? Part::lower : Part::upper, s, s, T(1), tmp, size_t(kRankLeaf), beta,
                                            c + size_t(r0) + size_t(r0) * ldc, ldc, stream, hermitian),
                      "syrk diagonal merge");
    }
    const int64_t mid = split(r0, r1);
    if (Status s = run(r0, mid); s != Status::ok) return s;
    if (Status s = run(mid, r1); s != Status::ok) return s;
    if (lower) return product(mid, r1 - mid, r0, mid - r0, beta, c + size_t(mid) + size_t(r0) * ldc, ldc);
    return product(r0, mid - r0, mid, r1 - mid, beta, c + size_t(r0) + size_t(mid) * ldc, ldc);
  }
};

}  // namespace

template <class T>
size_t syr2k_device_workspace(int64_t) {
  return scratch_region(size_t(kRankLeaf * kRankLeaf) * sizeof(T));
}

namespace {
template <class T>
Status rank_update(bool hermitian, char uplo, char trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda,
                   const T *dB, size_t lddb, T beta, T *dC, size_t lddc, void *stream_ptr, void *workspace,
                   size_t workspace_bytes) {
  if (n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  const bool lower = upper(uplo) == 'L';
  if (alpha == T(0) || k <= 0)
    return beta == T(1) ? Status::ok
                        : launched(kernels::launch_axpby(lower ? Part::lower : Part::upper, n, n, T(0), dC, lddc,
                                                         beta, dC, lddc, stream, hermitian),
                                   "syrk scale");
  StreamScratch scratch(stream, "level3 workspace");
  char *ws = nullptr;
  if (Status s = scratch.get(syr2k_device_workspace<T>(n), workspace, workspace_bytes, &ws); s != Status::ok) return s;
  RankUpdate<T> r{lower, upper(trans) != 'N', hermitian, int(k), alpha, beta, dA, dB ? dB : dA, ldda,
                  dB ? lddb : ldda, dB != nullptr, dC, lddc, reinterpret_cast<T *>(ws), stream};
  return r.run(0, n);
}
}  // namespace

template <class T>
Status syr2k_device(char uplo, char trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda, const T *dB,
                    size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace, size_t workspace_bytes) {
  return rank_update<T>(false, uplo, trans, n, k, alpha, dA, ldda, dB, lddb, beta, dC, lddc, stream, workspace,
                        workspace_bytes);
}
template <class T>
Status her2k_device(char uplo, char trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda, const T *dB,
                    size_t lddb, real_t<T> beta, T *dC, size_t lddc, void *stream, void *workspace,
                    size_t workspace_bytes) {
  return rank_update<T>(true, uplo, trans, n, k, alpha, dA, ldda, dB, lddb, T(beta), dC, lddc, stream, workspace,
                        workspace_bytes);
}

#define CUDROP_LEVEL3_DEVICE(T)                                                                                    \
  template Status trsm_device<T>(char, char, char, char, int64_t, int64_t, T, const T *, size_t, T *, size_t,     \
                                 void *, void *, size_t);                                                          \
  template size_t trsm_device_workspace<T>(char, int64_t, int64_t);                                                \
  template Status trmm_device<T>(char, char, char, char, int64_t, int64_t, T, const T *, size_t, const T *, size_t, \
                                 T *, size_t, void *, void *, size_t);                                             \
  template size_t trmm_device_workspace<T>(char, int64_t, int64_t);                                                \
  template Status symm_device<T>(char, char, int64_t, int64_t, T, const T *, size_t, const T *, size_t, T, T *,    \
                                 size_t, void *, void *, size_t);                                                  \
  template size_t symm_device_workspace<T>(char, int64_t, int64_t);                                                \
  template Status syr2k_device<T>(char, char, int64_t, int64_t, T, const T *, size_t, const T *, size_t, T, T *,   \
                                  size_t, void *, void *, size_t);                                                 \
  template size_t syr2k_device_workspace<T>(int64_t);
CUDROP_IF_s(CUDROP_LEVEL3_DEVICE(float))
CUDROP_IF_d(CUDROP_LEVEL3_DEVICE(double))
CUDROP_IF_c(CUDROP_LEVEL3_DEVICE(Complex<float>))
CUDROP_IF_z(CUDROP_LEVEL3_DEVICE(Complex<double>))
#undef CUDROP_LEVEL3_DEVICE

#define CUDROP_HERMITIAN_DEVICE(T)                                                                                  \
  template Status hemm_device<T>(char, char, int64_t, int64_t, T, const T *, size_t, const T *, size_t, T, T *,    \
                                 size_t, void *, void *, size_t);                                                  \
  template Status her2k_device<T>(char, char, int64_t, int64_t, T, const T *, size_t, const T *, size_t, real_t<T>, \
                                  T *, size_t, void *, void *, size_t);
CUDROP_IF_c(CUDROP_HERMITIAN_DEVICE(Complex<float>))
CUDROP_IF_z(CUDROP_HERMITIAN_DEVICE(Complex<double>))
#undef CUDROP_HERMITIAN_DEVICE

}  // namespace cudrop::impl
