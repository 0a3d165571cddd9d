// Symmetric rank-k and rank-2k update entry points: Fortran ssyrk_/dsyrk_, ssyr2k_/dsyr2k_ and
// CBLAS cblas_ssyrk ... cblas_dsyr2k. uplo's triangle of C = alpha op(A) op(A)^T + beta C
// (SYRK) or alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C (SYR2K); the other triangle is
// neither read nor written. The reference routines' checks in their order, their quick
// returns, then one routed call.
#include <algorithm>

#include "capi/level3.h"
#include "shim/cpu_backend.h"

namespace cudrop::capi {
namespace {
using namespace level3;

// The reference's checks, in its order (two: SYR2K, whose B is parameter 8 and LDB 9): the
// number of the first illegal argument, or 0.
int rank_illegal_argument(bool two, char uplo, char trans, int n, int k, int lda, int ldb, int ldc) {
  const int nrowa = trans == 'N' ? n : k;
  if (uplo != 'U' && uplo != 'L') return 1;
  if (trans != 'N' && trans != 'T' && trans != 'C') return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < std::max(1, nrowa)) return 7;
  if (two && ldb < std::max(1, nrowa)) return 9;
  if (ldc < std::max(1, n)) return two ? 12 : 10;
  return 0;
}

// The updates without a product (alpha == 0, or k == 0), as the reference computes them on
// uplo's triangle: alpha == 0 and TRANS = 'N' scale C (beta == 0: zero, C not read); with
// TRANS = 'T'/'C' and alpha != 0 each element is alpha*0 (+ alpha*0 for SYR2K) + beta*C, so
// alpha = +-Inf or NaN gives NaN and the sign of a zero follows the reference's sums.
template <class T>
void update_without_product(bool two, char uplo, char trans, int n, T alpha, T beta, T *c, int ldc) {
  const bool empty_dot_products = alpha != T(0) && trans != 'N';
  const T zero_term = two ? alpha * T(0) + alpha * T(0) : alpha * T(0);
  for (int j = 0; j < n; ++j) {
    T *column = c + size_t(j) * size_t(ldc);
    const int i0 = uplo == 'U' ? 0 : j, i1 = uplo == 'U' ? j + 1 : n;
    for (int i = i0; i < i1; ++i) {
      if (empty_dot_products && beta == T(0)) column[i] = zero_term;
      else if (empty_dot_products && two) column[i] = beta * column[i] + alpha * T(0) + alpha * T(0);
      else if (empty_dot_products) column[i] = alpha * T(0) + beta * column[i];
      else column[i] = beta == T(0) ? T(0) : beta * column[i];
    }
  }
}

// two: SYR2K (else SYRK: b and ldb unused). The *_len: the hidden lengths, passed on with an
// illegal call.
template <class T>
void checked_rank(bool two, const char *uplo, const char *trans, const int *n, const int *k, const T *alpha, const T *a,
                  const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc, size_t uplo_len,
                  size_t trans_len, const void *caller, const char *cblas_label) {
  const RoutineNames &names = two ? routine_names<Family::syr2k, T> : routine_names<Family::syrk, T>;
  const char ul = upper(*uplo), tr = upper(*trans);
  if (const int info = rank_illegal_argument(two, ul, tr, *n, *k, *lda, two ? *ldb : 1, *ldc)) {
    const bool taken =
        two ? cpu_takes_illegal_call<cpu::syr2k_fn<T>>(names, caller, {"xerbla_"}, uplo, trans, n, k, alpha, a, lda, b,
                                                        ldb, beta, c, ldc, uplo_len, trans_len)
            : cpu_takes_illegal_call<cpu::syrk_fn<T>>(names, caller, {"xerbla_"}, uplo, trans, n, k, alpha, a, lda, beta,
                                                       c, ldc, uplo_len, trans_len);
    if (!taken) report_illegal_argument(names, info, caller);
    return;
  }
  if (*n == 0 || ((*alpha == T(0) || *k == 0) && *beta == T(1))) return;
  if (*alpha == T(0) || *k == 0) {
    update_without_product(two, ul, tr, *n, *alpha, *beta, c, *ldc);
    return;
  }
  Label label(cblas_label, names.symbol);
  label.shape("%s(%c,%c,n=%d,k=%d)", names.symbol, ul, tr, *n, *k);
  const double nn = double(*n) * *n, nk = double(*n) * *k;
  const double flops = (two ? 2 : 1) * nn * *k;
  const double elements = (two ? 2 : 1) * nk + nn / 2 * (*beta != T(0) ? 2 : 1);
  const Level3Args<T> args{two ? Level3Op::syr2k : Level3Op::syrk, 'L', ul, tr == 'N' ? 'N' : 'T', 'N', *n, *n, *k,
                           *alpha, *beta, a, *lda, two ? b : a, two ? *ldb : *lda, c, *ldc};
  route_level3<T>(
      names, label.name,
      worth_gpu(two ? settings().syr2k_min_flops : settings().syrk_min_flops, flops, elements, sizeof(T)), args,
      [&] {
        if (two) cpu::syr2k<T>()(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
        else cpu::syrk<T>()(uplo, trans, n, k, alpha, a, lda, beta, c, ldc, 1, 1);
      },
      [](int) {});  // never written in part: C goes back once all its math has succeeded
}

template <class T>
using cblas_syr2k_fn = void (*)(int, int, int, int, int, T, const T *, int, const T *, int, T, T *, int);
template <class T>
using cblas_syrk_fn = void (*)(int, int, int, int, int, T, const T *, int, T, T *, int);

// Reference CBLAS: row-major is the column-major call on C^T with the triangle swapped and
// op(A) transposed (NoTrans <-> Trans, ConjTrans -> NoTrans). An illegal argument sends the
// whole call to the CPU library's CBLAS routine. two: SYR2K.
template <class T>
void cblas_rank(bool two, int layout, int uplo, int trans, int n, int k, T alpha, const T *a, int lda, const T *b, int ldb,
                T beta, T *c, int ldc, const void *caller) {
  const RoutineNames &names = two ? routine_names<Family::cblas_syr2k, T> : routine_names<Family::cblas_syrk, T>;
  const bool row_major = layout == RowMajor;
  const char ul = uplo_code(uplo, row_major);
  const char tr = row_major ? (trans == NoTrans ? 'T' : trans == Trans || trans == ConjTrans ? 'N' : '\0')
                            : trans_code(trans);
  const bool legal_codes = (row_major || layout == ColMajor) && ul != '\0' && tr != '\0';
  const int fortran_info = legal_codes ? rank_illegal_argument(two, ul, tr, n, k, lda, two ? ldb : 1, ldc) : 0;
  if (!legal_codes || fortran_info != 0) {
    const bool taken = two ? cpu_takes_illegal_call<cblas_syr2k_fn<T>>(names, caller, {"xerbla_", "cblas_xerbla"},
                                                                      layout, uplo, trans, n, k, alpha, a, lda, b, ldb,
                                                                      beta, c, ldc)
                           : cpu_takes_illegal_call<cblas_syrk_fn<T>>(names, caller, {"xerbla_", "cblas_xerbla"},
                                                                     layout, uplo, trans, n, k, alpha, a, lda, beta, c,
                                                                     ldc);
    if (taken) return;
    report_illegal_cblas_call(names, two ? routine_names<Family::syr2k, T> : routine_names<Family::syrk, T>, layout,
                              {{"Uplo", uplo, ul != '\0'}, {"Trans", trans, tr != '\0'}}, fortran_info, caller);
    return;
  }
  const CblasLabel label(names.symbol, row_major);
  checked_rank<T>(two, &ul, &tr, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1, caller, label.name);
}
}  // namespace

// The entries of ssyrk_ ... dsyr2k_ and their CBLAS forms (capi/exports.cpp).
template <class T>
void syrk(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha, const T *a, const int *lda,
          const T *beta, T *c, const int *ldc, size_t uplo_len, size_t trans_len, const void *caller) {
  checked_rank<T>(false, uplo, trans, n, k, alpha, a, lda, nullptr, nullptr, beta, c, ldc, uplo_len, trans_len, caller,
                  nullptr);
}
template <class T>
void syr2k(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha, const T *a,
           const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc, size_t uplo_len,
           size_t trans_len, const void *caller) {
  checked_rank<T>(true, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, uplo_len, trans_len, caller, nullptr);
}
template <class T>
void cblas_syrk(int layout, int uplo, int trans, int n, int k, T alpha, const T *a, int lda, T beta, T *c, int ldc,
                const void *caller) {
  cblas_rank<T>(false, layout, uplo, trans, n, k, alpha, a, lda, nullptr, 0, beta, c, ldc, caller);
}
template <class T>
void cblas_syr2k(int layout, int uplo, int trans, int n, int k, T alpha, const T *a, int lda, const T *b, int ldb,
                 T beta, T *c, int ldc, const void *caller) {
  cblas_rank<T>(true, layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, caller);
}
template decltype(syrk<float>) syrk<float>;
template decltype(syrk<double>) syrk<double>;
template decltype(syr2k<float>) syr2k<float>;
template decltype(syr2k<double>) syr2k<double>;
template decltype(cblas_syrk<float>) cblas_syrk<float>;
template decltype(cblas_syrk<double>) cblas_syrk<double>;
template decltype(cblas_syr2k<float>) cblas_syr2k<float>;
template decltype(cblas_syr2k<double>) cblas_syr2k<double>;

}  // namespace cudrop::capi
