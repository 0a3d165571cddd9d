// Complex GEMM on the device as one real GEMM of twice the size (impl/gemm/gemm_complex.h).
//
// A complex m x n matrix stored column-major is, read as real numbers, a real 2m x n matrix
// (each complex entry a real part above an imaginary part). With W the real 2m x 2k matrix
// whose columns 2l and 2l+1 are alpha op(A)(:, l) and i alpha op(A)(:, l) (as complex m-vectors),
// and op(B) a complex k x n matrix read as real 2k x n,
//     (W op(B))(2i + {0,1}, j) = sum_l Re/Im( alpha op(A)(i, l) op(B)(l, j) ),
// so C read as real gets alpha op(A) op(B) from the real kernel, which runs the complex product's
// 8 m n k real flops on the real kernels (FP64 tensor cores for z, FP32 for c) at their speed,
// for one extra pass that writes W (twice op(A)'s bytes) and, for op(B) transposed, one that
// packs op(B). A real alpha stays the kernel's alpha; a real beta the kernel's beta (beta = 0
// never reads C); a complex beta is applied by a pass over C first.
#include "impl/gemm/gemm_complex.h"

#include <climits>
#include <cstdint>
#include <cstdio>

#include "core/layout.h"
#include "impl/gemm/gemm.h"
#include "impl/gemm/gemm_config.h"
#include "impl/context/gpu_context.cuh"
#include "impl/context/stream_scratch.h"
#include "kernels/complex_operand.cuh"
#include "kernels/triangular.cuh"

namespace cudrop::impl {
namespace {

// W's leading dimension in complex elements (2m reals, padded as gemm_padded_ld pads: even).
template <class R>
size_t widened_ld(int m) {
  return gemm_padded_ld(2 * size_t(m), sizeof(R)) / 2;
}
template <class R>
size_t packed_b_ld(int k) {
  return gemm_padded_ld(2 * size_t(k), sizeof(R)) / 2;
}

struct ComplexLayout {
  size_t widened_bytes = 0, packed_b_bytes = 0;
  size_t total() const { return gemm_bytes_sum(widened_bytes, packed_b_bytes); }
};

template <class R>
ComplexLayout complex_layout(Op trans_b, int m, int n, int k) {
  ComplexLayout l;
  l.widened_bytes = scratch_region(gemm_bytes(widened_ld<R>(m), 2 * size_t(k), sizeof(Complex<R>)));
  if (trans_b) l.packed_b_bytes = scratch_region(gemm_bytes(packed_b_ld<R>(k), size_t(n), sizeof(Complex<R>)));
  return l;
}

}  // namespace

template <class R>
size_t complex_gemm_workspace(Op, Op trans_b, int m, int n, int k) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  return complex_layout<R>(trans_b, m, n, k).total();
}

template <class R>
Status complex_gemm_device(Op trans_a, Op trans_b, int m, int n, int k, Complex<R> alpha, const Complex<R> *dA,
                           size_t ldda, const Complex<R> *dB, size_t lddb, Complex<R> beta, Complex<R> *dC,
                           size_t lddc, void *stream, GemmPart part, void *workspace, size_t workspace_bytes) {
  using T = Complex<R>;
  if (m <= 0 || n <= 0) return Status::ok;
  // The real product is 2m x n x 2k: both must fit the kernels' int sizes.
  if (m > INT_MAX / 2 || k > INT_MAX / 2) return Status::out_of_memory;
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  const bool product = k > 0 && alpha != T(0);
  if (gemm_runs_small(m, n, k, part.store == GemmStore::all && part.zeros == GemmZeros::none, product)) {
    // One kernel on the complex operands as they are, instead of the two passes below.
    if (inject_fault("launch")) return Status::cuda_error;
    return check(kernels::launch_gemm_small<T>(m, n, k, trans_a.transposed(), trans_a.conjugated(),
                                               trans_b.transposed(), trans_b.conjugated(), alpha, dA, ldda, dB, lddb,
                                               beta, dC, lddc, cuda_stream),
                 "small complex gemm");
  }
  const bool real_beta = beta.im == R(0);
  R *c_real = reinterpret_cast<R *>(dC);
  const size_t ldc_real = 2 * lddc;
  if (!real_beta || !product) {
    // C = beta C first (beta = 0: zeros, C never read); then the product adds to it.
    if (real_beta && beta.re == R(1)) {
      // nothing to scale
    } else {
      if (inject_fault("launch")) return Status::cuda_error;
      // A triangle of C is scaled alone: the other one is not the caller's to read or write.
      const cudaError_t scaled =
          part.masked() ? kernels::launch_axpby(part.store == GemmStore::lower ? kernels::Part::lower : kernels::Part::upper,
                                                m, n, T(0), dC, lddc, beta, dC, lddc, cuda_stream, part.real_diagonal)
                        : kernels::launch_scale_complex<R>(m, n, beta, dC, lddc, cuda_stream);
      if (Status s = check(scaled, "complex gemm scale"); s != Status::ok) return s;
    }
    if (!product) return Status::ok;
  }
  const R real_beta_value = real_beta ? beta.re : R(1);
  // A real alpha stays the kernel's: op(A) is copied as it is (conjugated if need be).
  const bool real_alpha = alpha.im == R(0);
  const T fold = real_alpha ? T(1) : alpha;
  const R kernel_alpha = real_alpha ? alpha.re : R(1);

  const ComplexLayout layout = complex_layout<R>(trans_b, m, n, k);
  StreamScratch scratch(cuda_stream, "complex gemm workspace");
  char *work = nullptr;
  if (Status s = scratch.get(layout.total(), workspace, workspace_bytes, &work); s != Status::ok) return s;
  T *widened = reinterpret_cast<T *>(work);
  const size_t ldw = widened_ld<R>(m);
  if (inject_fault("launch")) return Status::cuda_error;
  cudaError_t error = kernels::launch_copy_op_complex<R, true>(m, k, trans_a.transposed(), trans_a.conjugated(), fold, dA,
                                                              ldda, widened, ldw, cuda_stream);
  const T *b_complex = dB;
  size_t ldb_complex = lddb;
  if (error == cudaSuccess && trans_b) {
    // op(B) (k x n) packed as a plain complex matrix, so that it reads as a real 2k x n one.
    T *packed = reinterpret_cast<T *>(work + layout.widened_bytes);
    ldb_complex = packed_b_ld<R>(k);
    error = kernels::launch_copy_op_complex<R, false>(k, n, true, trans_b.conjugated(), T(1), dB, lddb, packed,
                                                      ldb_complex, cuda_stream);
    b_complex = packed;
  }
  if (error != cudaSuccess) {
    char what[128];
    std::snprintf(what, sizeof what, "complex gemm operands (%c%c m=%d n=%d k=%d)", trans_a.letter(), trans_b.letter(),
                  m, n, k);
    return check(error, what);
  }
  // C read as real has two rows per complex row: the part's diagonal moves with them.
  GemmPart real_view = part;
  real_view.row_scale = 2;
  return gemm_device<R>(Op::none, Op::none, 2 * m, n, 2 * k, kernel_alpha, reinterpret_cast<const R *>(widened), 2 * ldw,
                        reinterpret_cast<const R *>(b_complex), 2 * ldb_complex, real_beta_value, c_real, ldc_real,
                        stream, real_view);
}

template size_t complex_gemm_workspace<float>(Op, Op, int, int, int);
template size_t complex_gemm_workspace<double>(Op, Op, int, int, int);
template Status complex_gemm_device<float>(Op, Op, int, int, int, Complex<float>, const Complex<float> *, size_t,
                                           const Complex<float> *, size_t, Complex<float>, Complex<float> *, size_t,
                                           void *, GemmPart, void *, size_t);
template Status complex_gemm_device<double>(Op, Op, int, int, int, Complex<double>, const Complex<double> *, size_t,
                                            const Complex<double> *, size_t, Complex<double>, Complex<double> *,
                                            size_t, void *, GemmPart, void *, size_t);

}  // namespace cudrop::impl
