// The Level-3 BLAS beside GEMM, device interface (impl/level3/level3_device.h), as GEMM work:
//  * SYMM/HEMM: A mirrored into a square, one GEMM.
//  * SYRK/HERK/SYR2K/HER2K: one GEMM launch per product over the tiles of C's triangle, storing
//    the triangle alone (core/gemm_part.h).
//  * TRMM: A's triangle in a zero-filled square, one GEMM whose tiles multiply only the k range
//    the triangle covers.
//  * TRSM: a recursion that halves the triangle, so that the work off the diagonal goes to a
//    few large GEMMs (k up to half the order). Past kTrsmInverseNb the diagonal blocks of that
//    width are inverted first, all at once (kernels/triangle_inverse.cuh), and each is applied as
//    a GEMM, unless its condition number says the inverse would lose accuracy: that block is
//    solved by substitution (backward stable as the reference, whatever its condition). Up to
//    kTrsmInverseNb the kTriNb-wide blocks are solved by substitution (kernels/triangular.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "core/layout.h"
#include "core/precision_split.h"
#include "core/tuning.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/stream_scratch.h"
#include "impl/gemm/gemm.h"
#include "impl/level3/level3_device.h"
#include "kernels/triangle_inverse.cuh"
#include "kernels/triangular.cuh"

namespace cudrop::impl {
namespace {

using kernels::kTriNb;
using kernels::Part;

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

// A's triangle as a full square (SYMM/HEMM mirror it into one, TRMM fills the rest with zeros):
// order x order with padded columns, order = m on the left, n on the right.
template <class T>
size_t square_bytes(Side side, int64_t m, int64_t n) {
  const int64_t order = side == Side::left ? m : n;
  return scratch_region(padded_ld(size_t(order), sizeof(T)) * size_t(order) * sizeof(T));
}

// TRSM's inverted diagonal blocks (kernels/triangle_inverse.cuh) and the workspace they live in:
// the inverses (padded x nb, ldi = padded), the doubling's products (padded/2 x nb/2), a copy of
// one block row (left: nb x n) or column (right: m x nb) of B, a flag per block, and the
// workspace of the solve's largest GEMM (a complex product's widened operand), which every GEMM
// of the solve then uses in turn instead of allocating its own.
template <class T>
struct InverseBlocks {
  int nb = tuning::kTrsmInverseNb;
  int64_t padded = 0;  // the order rounded up to nb
  T *inverse = nullptr, *product = nullptr, *rhs = nullptr;
  int *flags = nullptr;
  void *gemm_work = nullptr;
  size_t ldi = 0, ld_product = 0, ld_rhs = 0;
  size_t inverse_bytes = 0, product_bytes = 0, rhs_bytes = 0, flag_bytes = 0, gemm_bytes = 0;
  // Without the GEMMs' workspace (lean: each complex product then takes its own in stream order).
  size_t bytes(bool lean = false) const {
    return inverse_bytes + product_bytes + rhs_bytes + flag_bytes + (lean ? 0 : gemm_bytes);
  }

  // Whether a triangle of this order is solved with inverted blocks: past one block, and within
  // the batched kernels' grid.
  static bool used(int64_t order) {
    return order > tuning::kTrsmInverseNb && order / (2 * kTriNb) < 65535;
  }
  static InverseBlocks layout(bool left, Op trans, int64_t m, int64_t n) {
    InverseBlocks v;
    const int64_t order = left ? m : n;
    v.padded = round_up(order, v.nb);
    v.ldi = size_t(v.padded);
    v.ld_product = size_t(v.padded / 2);
    v.ld_rhs = padded_ld(size_t(left ? v.nb : m), sizeof(T));
    v.inverse_bytes = scratch_region(v.ldi * size_t(v.nb) * sizeof(T));
    v.product_bytes = scratch_region(v.ld_product * size_t(v.nb / 2) * sizeof(T));
    v.rhs_bytes = scratch_region(v.ld_rhs * size_t(left ? n : v.nb) * sizeof(T));
    v.flag_bytes = scratch_region(size_t(v.padded / v.nb) * sizeof(int));
    // The largest GEMM: the top update (half the order, rounded up to nb) or a block's product.
    const int half = int(std::max<int64_t>(v.nb, round_up(order / 2, v.nb)));
    v.gemm_bytes = scratch_region(left ? gemm_device_workspace<T>(trans, Op::none, half, int(n), half)
                                       : gemm_device_workspace<T>(Op::none, trans, int(m), half, half));
    return v;
  }
  void place(char *ws, bool lean) {
    inverse = reinterpret_cast<T *>(ws);
    product = reinterpret_cast<T *>(ws + inverse_bytes);
    rhs = reinterpret_cast<T *>(ws + inverse_bytes + product_bytes);
    flags = reinterpret_cast<int *>(ws + inverse_bytes + product_bytes + rhs_bytes);
    if (lean) gemm_bytes = 0;
    gemm_work = gemm_bytes > 0 ? ws + inverse_bytes + product_bytes + rhs_bytes + flag_bytes : nullptr;
  }

  // The inverses of A's nb-wide diagonal blocks (A's stored triangle, order `order`) and their
  // flags, on `stream`.
  Status build(bool lower, bool unit, int64_t order, const T *dA, size_t ldda, cudaStream_t stream) const {
    using kernels::BatchBlocks;
    Status s = launched(cudaMemsetAsync(inverse, 0, inverse_bytes, stream), "trsm inverses");
    if (s == Status::ok)
      s = launched(kernels::launch_invert_triangle_blocks(lower, unit, order, padded, dA, ldda, inverse, ldi, nb, stream),
                   "trsm inverses");
    // Doubling: the pairs of w-wide blocks within each nb-wide one become 2w-wide inverses.
    const long long big = 1LL << 62;  // no bound: the workspace's blocks are whole
    for (int w = kTriNb; w < nb && s == Status::ok; w *= 2) {
      const long long pairs = padded / (2 * w), group = nb / (2 * w);
      // The block off the diagonal of A (rows w..2w, columns 0..w of the pair, lower; the mirror, upper).
      const BatchBlocks<const T> a_off{dA, ldda, lower ? w : 0, 2LL * w, lower ? 0 : w, 2LL * w, 0, order, order};
      const BatchBlocks<const T> first{inverse, ldi, 0, 2LL * w, 0, 2LL * w, group, big, big};   // X11
      const BatchBlocks<const T> second{inverse, ldi, w, 2LL * w, w, 2LL * w, group, big, big};  // X22
      const BatchBlocks<T> product_out{product, ld_product, 0, w, 0, 0, 0, big, big};
      const BatchBlocks<const T> product_in{product, ld_product, 0, w, 0, 0, 0, big, big};
      // lower: X21 = -X22 (A21 X11); upper: X12 = -X11 (A12 X22).
      const BatchBlocks<T> off{inverse, ldi, lower ? w : 0, 2LL * w, lower ? 0 : w, 2LL * w, group, big, big};
      s = launched(kernels::launch_batched_block_product<T>(w, pairs, T(1), a_off, lower ? first : second, product_out,
                                                            stream),
                   "trsm inverses");
      if (s == Status::ok)
        s = launched(kernels::launch_batched_block_product<T>(w, pairs, T(-1), lower ? second : first, product_in, off,
                                                              stream),
                     "trsm inverses");
    }
    if (s == Status::ok)
      s = launched(kernels::launch_flag_conditions(lower, unit, order, padded / nb, dA, ldda, inverse, ldi, nb,
                                                   tuning::kTrsmInverseMaxCondition, flags, stream),
                   "trsm inverses");
    return s;
  }
};

// TRSM's recursion over [r0, r1) of the triangle's order. left: A acts from the left (ranges are
// rows of B), else from the right (columns). forward: the solve runs from the range's start
// (op(A) lower on the left, upper on the right).
template <class T>
struct TriangularSolve {
  bool left, forward, lower, unit;  // lower, unit: A's stored triangle and diagonal
  OpA<T> A;
  int m, n;  // B
  cudaStream_t stream;
  // TRSM with inverted diagonal blocks (InverseBlocks): ranges split at multiples of its nb, and a
  // range of at most nb is one block solved by its inverse's product.
  const InverseBlocks<T> *inverses = nullptr;
  int64_t split_at(int64_t r0, int64_t r1) const {
    return inverses != nullptr ? r0 + round_up((r1 - r0) / 2, inverses->nb) : split(r0, r1);
  }

  // out[to] = out[to] + scale * op(A)(to, from) in[from] (left) or + scale * in[from] op(A)(from, to).
  Status update(int64_t t0, int64_t t1, int64_t f0, int64_t f1, T scale, const T *in, size_t ldi, T *out,
                size_t ldo) const {
    void *work = inverses != nullptr ? inverses->gemm_work : nullptr;
    const size_t work_bytes = inverses != nullptr ? inverses->gemm_bytes : 0;
    if (left)
      return gemm_device<T>(A.trans, Op::none, int(t1 - t0), n, int(f1 - f0), scale, A.at(t0, f0), A.lda, in + f0, ldi,
                            T(1), out + t0, ldo, stream, GemmPart{}, work, work_bytes);
    return gemm_device<T>(Op::none, A.trans, m, int(t1 - t0), int(f1 - f0), scale, in + size_t(f0) * ldi, ldi,
                          A.at(f0, t0), A.lda, T(1), out + size_t(t0) * ldo, ldo, stream, GemmPart{}, work,
                          work_bytes);
  }

  // B[range] := X solving the triangular system in place (B already scaled by alpha). On the
  // right a row x of the block solves x op(A_bb) = b, that is op(A_bb)^T x = b.
  Status solve(int64_t r0, int64_t r1, T *b, size_t ldb) const {
    if (inverses != nullptr && r1 - r0 <= inverses->nb) return solve_by_inverse(r0, r1, b, ldb);
    if (r1 - r0 <= kTriNb)
      return launched(kernels::launch_triangle_solve_block(left, lower, left ? bool(A.trans) : !A.trans,
                                                           A.trans.conjugated(), unit, int(r1 - r0),
                                                           A.a + size_t(r0) + size_t(r0) * A.lda, A.lda,
                                                           left ? b + r0 : b + size_t(r0) * ldb, ldb,
                                                           left ? (long long)n : (long long)m, stream),
                      "trsm diagonal block");
    const int64_t mid = split_at(r0, r1);
    const int64_t a0 = forward ? r0 : mid, a1 = forward ? mid : r1;  // solved first
    const int64_t z0 = forward ? mid : r0, z1 = forward ? r1 : mid;  // then updated and solved
    if (Status s = solve(a0, a1, b, ldb); s != Status::ok) return s;
    if (Status s = update(z0, z1, a0, a1, T(-1), b, ldb, b, ldb); s != Status::ok) return s;
    return solve(z0, z1, b, ldb);
  }

  // B[range] := op(inverse of the block) B[range] (left) or B[range] op(inverse) (right): the
  // range's values go to the workspace first, since the product cannot run in place; a block
  // whose inverse is flagged is then solved again from them by substitution (a kernel that
  // returns at once for the others).
  Status solve_by_inverse(int64_t r0, int64_t r1, T *b, size_t ldb) const {
    const InverseBlocks<T> &v = *inverses;
    const int s = int(r1 - r0);
    T *range = left ? b + r0 : b + size_t(r0) * ldb;
    const size_t rows = left ? size_t(s) : size_t(m), cols = left ? size_t(n) : size_t(s);
    if (Status st = launched(cudaMemcpy2DAsync(v.rhs, v.ld_rhs * sizeof(T), range, ldb * sizeof(T), rows * sizeof(T),
                                               cols, cudaMemcpyDeviceToDevice, stream),
                             "trsm block copy");
        st != Status::ok)
      return st;
    const T *inverse = v.inverse + r0;
    Status st = left ? gemm_device<T>(A.trans, Op::none, s, n, s, T(1), inverse, v.ldi, v.rhs, v.ld_rhs, T(0), range, ldb,
                                      stream, GemmPart{}, v.gemm_work, v.gemm_bytes)
                     : gemm_device<T>(Op::none, A.trans, m, s, s, T(1), v.rhs, v.ld_rhs, inverse, v.ldi, T(0), range, ldb,
                                      stream, GemmPart{}, v.gemm_work, v.gemm_bytes);
    if (st != Status::ok) return st;
    return launched(kernels::launch_solve_flagged_block<T, tuning::kTrsmInverseNb>(
                        v.flags + r0 / v.nb, left, lower, left ? bool(A.trans) : !A.trans, A.trans.conjugated(), unit,
                        s, A.a + size_t(r0) + size_t(r0) * A.lda, A.lda, v.rhs, v.ld_rhs, range, ldb,
                        left ? (long long)n : (long long)m, stream),
                    "trsm flagged block");
  }
};

// The recursion's description for side/uplo/trans.
template <class T>
TriangularSolve<T> triangular_solve(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, const T *dA,
                                    size_t ldda, cudaStream_t stream) {
  TriangularSolve<T> t;
  t.left = side == Side::left;
  t.A = {dA, ldda, trans};
  const bool op_lower = (uplo == Uplo::lower) != t.A.trans.transposed();
  t.forward = t.left ? op_lower : !op_lower;
  t.lower = uplo == Uplo::lower;
  t.unit = diag == Diag::unit;
  t.m = int(m);
  t.n = int(n);
  t.stream = stream;
  return t;
}

}  // namespace

template <class T>
size_t trsm_device_workspace(Side side, int64_t m, int64_t n, bool lean) {
  const bool left = side == Side::left;
  if (m <= 0 || n <= 0 || !InverseBlocks<T>::used(left ? m : n)) return 0;  // blocks solved in place
  return InverseBlocks<T>::layout(left, Op::trans, m, n).bytes(lean);  // what any TRANS needs
}

template <class T>
Status trsm_device(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda,
                   T *dB, size_t lddb, void *stream_ptr, void *workspace, size_t workspace_bytes) {
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
  const bool left = side == Side::left;
  const int64_t order = left ? m : n;
  TriangularSolve<T> t = triangular_solve(side, uplo, trans, diag, m, n, dA, ldda, stream);
  if (!InverseBlocks<T>::used(order)) return t.solve(0, order, dB, lddb);
  InverseBlocks<T> inverses = InverseBlocks<T>::layout(left, t.A.trans, m, n);
  // The GEMMs' workspace too when the caller's has room for it; else the lean part (given or
  // taken in stream order), the products taking their own.
  const bool lean = workspace == nullptr || workspace_bytes < inverses.bytes();
  StreamScratch scratch(stream, "trsm workspace");
  char *ws = nullptr;
  if (Status s = scratch.get(inverses.bytes(lean), workspace, workspace_bytes, &ws); s != Status::ok) return s;
  inverses.place(ws, lean);
  if (Status s = inverses.build(t.lower, t.unit, order, dA, ldda, stream); s != Status::ok) return s;
  t.inverses = &inverses;
  return t.solve(0, order, dB, lddb);
}

template <class T>
size_t trmm_device_workspace(Side side, int64_t m, int64_t n) {
  return square_bytes<T>(side, m, n);
}

// TRMM as one GEMM: A's triangle copied into a square with zeros outside it (and the unit
// diagonal's ones), whose product each tile of C takes over the k range where the triangle is
// (GemmZeros): about half the square's work, one launch.
template <class T>
Status trmm_device(Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda,
                   const T *dB, size_t lddb, T *dC, size_t lddc, void *stream_ptr, void *workspace,
                   size_t workspace_bytes) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (alpha == T(0))
    return launched(kernels::launch_axpby(Part::all, m, n, T(0), dC, lddc, T(0), dC, lddc, stream), "trmm zero");
  const bool left = side == Side::left, lower = uplo == Uplo::lower;
  const int64_t order = left ? m : n;
  StreamScratch scratch(stream, "level3 workspace");
  char *ws = nullptr;
  if (Status s = scratch.get(trmm_device_workspace<T>(side, m, n), workspace, workspace_bytes, &ws); s != Status::ok)
    return s;
  T *square = reinterpret_cast<T *>(ws);
  const size_t lds = padded_ld(size_t(order), sizeof(T));
  if (Status s =
          launched(kernels::launch_triangle_square(lower, diag == Diag::unit, order, dA, ldda, square, lds, stream),
                   "trmm square");
      s != Status::ok)
    return s;
  const bool op_lower = lower != trans.transposed();
  GemmPart part;
  if (left) {
    part.zeros = op_lower ? GemmZeros::a_lower : GemmZeros::a_upper;
    return gemm_device<T>(trans, Op::none, int(m), int(n), int(m), alpha, square, lds, dB, lddb, T(0), dC, lddc, stream,
                          part);
  }
  part.zeros = op_lower ? GemmZeros::b_lower : GemmZeros::b_upper;
  return gemm_device<T>(Op::none, trans, int(m), int(n), int(n), alpha, dB, lddb, square, lds, T(0), dC, lddc, stream,
                        part);
}

template <class T>
size_t symm_device_workspace(Side side, int64_t m, int64_t n) {
  return square_bytes<T>(side, m, n);
}

namespace {
// SYMM, or HEMM with `hermitian`: A mirrored into a full square, then one GEMM.
template <class T>
Status symmetric_product(bool hermitian, Side side, Uplo uplo, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda,
                         const T *dB, size_t lddb, T beta, T *dC, size_t lddc, void *stream_ptr, void *workspace,
                         size_t workspace_bytes) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (alpha == T(0))
    return beta == T(1) ? Status::ok
                        : launched(kernels::launch_axpby(Part::all, m, n, T(0), dC, lddc, beta, dC, lddc, stream),
                                   "symm scale");
  const bool left = side == Side::left;
  const int64_t order = left ? m : n;
  StreamScratch scratch(stream, "level3 workspace");
  char *ws = nullptr;
  if (Status s = scratch.get(symm_device_workspace<T>(side, m, n), workspace, workspace_bytes, &ws); s != Status::ok)
    return s;
  T *full = reinterpret_cast<T *>(ws);
  const size_t ldf = padded_ld(size_t(order), sizeof(T));
  if (Status s =
          launched(kernels::launch_symmetrize(uplo == Uplo::lower, order, dA, ldda, full, ldf, stream, hermitian),
                   "symm symmetrize");
      s != Status::ok)
    return s;
  if (left)
    return gemm_device<T>(Op::none, Op::none, int(m), int(n), int(m), alpha, full, ldf, dB, lddb, beta, dC, lddc, stream);
  return gemm_device<T>(Op::none, Op::none, int(m), int(n), int(n), alpha, dB, lddb, full, ldf, beta, dC, lddc, stream);
}
}  // namespace

template <class T>
Status symm_device(Side side, Uplo uplo, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda, const T *dB,
                   size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace, size_t workspace_bytes) {
  return symmetric_product<T>(false, side, uplo, m, n, alpha, dA, ldda, dB, lddb, beta, dC, lddc, stream, workspace,
                              workspace_bytes);
}
template <class T>
Status hemm_device(Side side, Uplo uplo, int64_t m, int64_t n, T alpha, const T *dA, size_t ldda, const T *dB,
                   size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace, size_t workspace_bytes) {
  return symmetric_product<T>(true, side, uplo, m, n, alpha, dA, ldda, dB, lddb, beta, dC, lddc, stream, workspace,
                              workspace_bytes);
}

namespace {

// SYRK, SYR2K, HERK, HER2K: each product one GEMM launch over the tiles of uplo's triangle,
// storing only the triangle (core/gemm_part.h); HER2K's and SYR2K's second product adds to the
// first. HERK and HER2K write the diagonal's imaginary parts as zero, as the reference does.
template <class T>
Status rank_update(bool hermitian, Uplo uplo, Op trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda,
                   const T *dB, size_t lddb, T beta, T *dC, size_t lddc, void *stream_ptr, void *workspace,
                   size_t workspace_bytes) {
  if (n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  const bool lower = uplo == Uplo::lower;
  if (alpha == T(0) || k <= 0)
    return beta == T(1) ? Status::ok
                        : launched(kernels::launch_axpby(lower ? Part::lower : Part::upper, n, n, T(0), dC, lddc,
                                                         beta, dC, lddc, stream, hermitian),
                                   "syrk scale");
  GemmPart part(lower ? GemmStore::lower : GemmStore::upper);
  part.real_diagonal = hermitian && is_complex_v<T>;
  // C = alpha op(A) op(B)^T: op(X) = X (n x k) with the second operand transposed, or
  // op(X) = X^T (X k x n) with the first one transposed (^H for the Hermitian updates).
  const Op transposed = hermitian ? Op::conj_trans : Op::trans;
  const bool notrans = !trans;
  const Op first = notrans ? Op::none : transposed, second = notrans ? transposed : Op::none;
  const T *b = dB != nullptr ? dB : dA;
  const size_t ldb = dB != nullptr ? lddb : ldda;
  Status s = gemm_device<T>(first, second, int(n), int(n), int(k), alpha, dA, ldda, b, ldb, beta, dC, lddc, stream,
                            part, workspace, workspace_bytes);
  if (s != Status::ok || dB == nullptr) return s;
  return gemm_device<T>(first, second, int(n), int(n), int(k), hermitian ? conj(alpha) : alpha, dB, lddb, dA, ldda,
                        T(1), dC, lddc, stream, part, workspace, workspace_bytes);
}

}  // namespace

template <class T>
size_t syr2k_device_workspace(Op trans, int64_t n, int64_t k) {
  if (n <= 0 || k <= 0 || n > INT_MAX || k > INT_MAX) return 0;
  const bool notrans = !trans;
  return gemm_device_workspace<T>(notrans ? Op::none : Op::trans, notrans ? Op::trans : Op::none, int(n), int(n), int(k));
}

template <class T>
Status syr2k_device(Uplo uplo, Op trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda, const T *dB,
                    size_t lddb, T beta, T *dC, size_t lddc, void *stream, void *workspace, size_t workspace_bytes) {
  return rank_update<T>(false, uplo, trans, n, k, alpha, dA, ldda, dB, lddb, beta, dC, lddc, stream, workspace,
                        workspace_bytes);
}
template <class T>
Status her2k_device(Uplo uplo, Op trans, int64_t n, int64_t k, T alpha, const T *dA, size_t ldda, const T *dB,
                    size_t lddb, real_t<T> beta, T *dC, size_t lddc, void *stream, void *workspace,
                    size_t workspace_bytes) {
  return rank_update<T>(true, uplo, trans, n, k, alpha, dA, ldda, dB, lddb, T(beta), dC, lddc, stream, workspace,
                        workspace_bytes);
}

#define CUDROP_LEVEL3_DEVICE(T)                                                                                        \
  template Status trsm_device<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, const T *, size_t, T *, size_t, void *,    \
                                 void *, size_t);                                                                      \
  template size_t trsm_device_workspace<T>(Side, int64_t, int64_t, bool);                                              \
  template Status trmm_device<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, const T *, size_t, const T *, size_t, T *, \
                                 size_t, void *, void *, size_t);                                                      \
  template size_t trmm_device_workspace<T>(Side, int64_t, int64_t);                                                    \
  template Status symm_device<T>(Side, Uplo, int64_t, int64_t, T, const T *, size_t, const T *, size_t, T, T *,        \
                                 size_t, void *, void *, size_t);                                                      \
  template size_t symm_device_workspace<T>(Side, int64_t, int64_t);                                                    \
  template Status syr2k_device<T>(Uplo, Op, int64_t, int64_t, T, const T *, size_t, const T *, size_t, T, T *, size_t, \
                                  void *, void *, size_t);                                                             \
  template size_t syr2k_device_workspace<T>(Op, int64_t, int64_t);
CUDROP_IF_s(CUDROP_LEVEL3_DEVICE(float))
CUDROP_IF_d(CUDROP_LEVEL3_DEVICE(double))
CUDROP_IF_c(CUDROP_LEVEL3_DEVICE(Complex<float>))
CUDROP_IF_z(CUDROP_LEVEL3_DEVICE(Complex<double>))
#undef CUDROP_LEVEL3_DEVICE

#define CUDROP_HERMITIAN_DEVICE(T)                                                                                     \
  template Status hemm_device<T>(Side, Uplo, int64_t, int64_t, T, const T *, size_t, const T *, size_t, T, T *,        \
                                 size_t, void *, void *, size_t);                                                      \
  template Status her2k_device<T>(Uplo, Op, int64_t, int64_t, T, const T *, size_t, const T *, size_t, real_t<T>, T *, \
                                  size_t, void *, void *, size_t);
CUDROP_IF_c(CUDROP_HERMITIAN_DEVICE(Complex<float>))
CUDROP_IF_z(CUDROP_HERMITIAN_DEVICE(Complex<double>))
#undef CUDROP_HERMITIAN_DEVICE

}  // namespace cudrop::impl
