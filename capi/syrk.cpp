// Rank-k and rank-2k update entry points: Fortran ?syrk_, ?syr2k_ (s, d, c, z), ?herk_, ?her2k_
// (c, z) and their CBLAS forms. uplo's triangle of C = alpha op(A) op(A)^T + beta C (SYRK),
// alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C (SYR2K), alpha op(A) op(A)^H + beta C (HERK,
// alpha and beta real) or alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C (HER2K, beta
// real), the Hermitian ones with C's diagonal real; the other triangle is neither read nor
// written. The reference routines' checks in their order, their quick returns, then one routed
// call.
#include <algorithm>
#include <type_traits>

#include "capi/level3.h"
#include "cpu/backend.h"

namespace cudrop::capi {
namespace {
using namespace level3;

// What tells the four routines apart: two (a second operand B), hermitian (op 'C', real beta,
// HERK's real alpha, C's diagonal real), and the types of their scalars.
template <Family F, class T>
struct Rank {
  static constexpr bool two = F == Family::syr2k || F == Family::her2k;
  static constexpr bool hermitian = F == Family::herk || F == Family::her2k;
  using Alpha = std::conditional_t<F == Family::herk, real_t<T>, T>;
  using Beta = std::conditional_t<hermitian, real_t<T>, T>;
  static constexpr Family cblas = F == Family::syrk    ? Family::cblas_syrk
                                  : F == Family::syr2k ? Family::cblas_syr2k
                                  : F == Family::herk  ? Family::cblas_herk
                                                       : Family::cblas_her2k;
  // CBLAS passes a real scalar by value, a complex one by address.
  using CblasAlpha = std::conditional_t<F == Family::herk, real_t<T>, CblasScalar<T>>;
  using CblasBeta = std::conditional_t<hermitian, real_t<T>, CblasScalar<T>>;
};

// The reference's checks, in its order (two: SYR2K/HER2K, whose B is parameter 8 and LDB 9): the
// number of the first illegal argument, or 0. TRANS: 'N', 'T' or 'C' for real SYRK/SYR2K; 'N' or
// 'T' for complex ones; 'N' or 'C' for the Hermitian ones.
int rank_illegal_argument(bool two, char uplo, char trans, char other_trans, int n, int k, int lda, int ldb, int ldc) {
  const int nrowa = trans == 'N' ? n : k;
  if (uplo != 'U' && uplo != 'L') return 1;
  // (A NUL TRANS is illegal for all of them: other_trans '\0' stands for 'T' and 'C'.)
  const bool accepted = trans == 'N' || (other_trans == '\0' ? trans == 'T' || trans == 'C' : trans == other_trans);
  if (!accepted) return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < std::max(1, nrowa)) return 7;
  if (two && ldb < std::max(1, nrowa)) return 9;
  if (ldc < std::max(1, n)) return two ? 12 : 10;
  return 0;
}
// The TRANS other than 'N' a routine accepts ('\0': both 'T' and 'C').
template <Family F, class T>
constexpr char accepted_trans = Rank<F, T>::hermitian ? 'C' : is_complex_v<T> ? 'T' : '\0';

// The updates without a product (alpha == 0, or k == 0), as the reference computes them on
// uplo's triangle: alpha == 0 and TRANS = 'N' scale C (beta == 0: zero, C not read); with
// TRANS = 'T'/'C' and alpha != 0 each element is the empty products' term zero_term (alpha*0,
// alpha*0 + alpha*0 for SYR2K, alpha*0 + conj(alpha)*0 for HER2K) + beta*C, so alpha = +-Inf
// or NaN gives NaN and the sign of a zero follows the reference's sums. hermitian: beta real,
// and on the diagonal only real parts, the imaginary part zero; off it, the reference's REAL
// BETA times a COMPLEX C is Fortran's complex product (beta, 0) * C, whose parts an infinite
// part of C makes NaN, and HERK's REAL ALPHA times its empty COMPLEX sum likewise
// ((-1, 0) * (0, 0) = (-0, +0)).
template <class T>
void update_without_product(bool hermitian, char uplo, char trans, int n, bool alpha_zero, T zero_term, real_t<T> beta_re,
                            T beta, T *c, int ldc) {
  const bool empty_dot_products = !alpha_zero && trans != 'N';
  for (int j = 0; j < n; ++j) {
    T *column = c + size_t(j) * size_t(ldc);
    const int i0 = uplo == 'U' ? 0 : j, i1 = uplo == 'U' ? j + 1 : n;
    for (int i = i0; i < i1; ++i) {
      if (hermitian && i == j) {  // no term for the empty sums where the reference adds none
        const real_t<T> scaled = beta == T(0) ? real_t<T>(0) : beta_re * real_part(column[i]);
        if (!empty_dot_products) column[i] = T(scaled);
        else column[i] = T(beta == T(0) ? real_part(zero_term) : real_part(zero_term) + scaled);
        continue;
      }
      const T scaled = beta == T(0) ? T(0) : hermitian ? T(beta_re) * column[i] : beta * column[i];
      if (empty_dot_products) column[i] = beta == T(0) ? zero_term : zero_term + scaled;
      else column[i] = scaled;
    }
  }
}

// The Fortran call, checked. The *_len: the hidden lengths, passed on with an illegal call.
template <Family F, class T>
void checked_rank(const char *uplo, const char *trans, const int *n, const int *k, const typename Rank<F, T>::Alpha *alpha,
                  const T *a, const int *lda, const T *b, const int *ldb, const typename Rank<F, T>::Beta *beta, T *c,
                  const int *ldc, size_t uplo_len, size_t trans_len, const void *caller, const char *cblas_label) {
  using R = Rank<F, T>;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char ul = upper(*uplo), tr = upper(*trans);
  if (const int info =
          rank_illegal_argument(R::two, ul, tr, accepted_trans<F, T>, *n, *k, *lda, R::two ? *ldb : 1, *ldc)) {
    bool taken = false;
    if constexpr (R::two)
      taken = cpu_takes_illegal_call<cpu::Fn<F, T>>(names, caller, {"xerbla_"}, uplo, trans, n, k, alpha, a, lda,
                                                           b, ldb, beta, c, ldc, uplo_len, trans_len);
    else
      taken = cpu_takes_illegal_call<cpu::Fn<F, T>>(names, caller, {"xerbla_"}, uplo, trans, n, k, alpha, a, lda,
                                                           beta, c, ldc, uplo_len, trans_len);
    if (!taken) report_illegal_argument(names, info, caller);
    return;
  }
  const T alpha_value = T(*alpha), beta_value = T(*beta);
  if (*n == 0 || ((alpha_value == T(0) || *k == 0) && beta_value == T(1))) return;
  if (alpha_value == T(0) || *k == 0) {
    T zero_term = alpha_value * T(0);
    if constexpr (F == Family::syr2k) zero_term = alpha_value * T(0) + alpha_value * T(0);
    if constexpr (F == Family::her2k) zero_term = alpha_value * T(0) + conj(alpha_value) * T(0);
    update_without_product<T>(R::hermitian, ul, tr, *n, alpha_value == T(0), zero_term, real_part(beta_value),
                              beta_value, c, *ldc);
    return;
  }
  Label label(cblas_label, names.symbol);
  label.shape("%s(%c,%c,n=%d,k=%d)", names.symbol, ul, tr, *n, *k);
  const double nn = double(*n) * *n, nk = double(*n) * *k;
  const double flops = (R::two ? 2 : 1) * nn * *k * real_flops_per_op<T>;
  const double elements = (R::two ? 2 : 1) * nk + nn / 2 * (beta_value != T(0) ? 2 : 1);
  const Family op = R::hermitian ? (R::two ? Family::her2k : Family::herk)
                                   : (R::two ? Family::syr2k : Family::syrk);
  // Real SYRK/SYR2K read TRANS = 'C' as 'T'.
  const Op op_trans = tr == 'N' ? Op::none : R::hermitian ? Op::conj_trans : Op::trans;
  const Level3Args<T> args{op, Side::left, uplo_of(ul), op_trans, Diag::non_unit, *n, *n, *k, alpha_value,
                           beta_value, a, *lda, R::two ? b : a, R::two ? *ldb : *lda, c, *ldc};
  route_level3<T>(
      names, label.name,
      worth_gpu(R::two ? settings().syr2k_min_flops : settings().syrk_min_flops, flops, elements, sizeof(T)), args,
      [&] {
        if constexpr (R::two)
          cpu::routine<F, T>()(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
        else
          cpu::routine<F, T>()(uplo, trans, n, k, alpha, a, lda, beta, c, ldc, 1, 1);
      },
      [](int) {});  // never written in part: C goes back once all its math has succeeded
}

// Reference CBLAS: row-major is the column-major call on C^T with the triangle swapped and
// op(A) transposed: NoTrans becomes Trans ('C' for the Hermitian ones), Trans and ConjTrans
// NoTrans; HER2K's alpha is conjugated (C^T = conj(C) swaps the roles of alpha and conj(alpha)).
// An illegal argument sends the whole call to the CPU library's CBLAS routine.
template <Family F, class T>
void cblas_rank(int layout, int uplo, int trans, int n, int k, typename Rank<F, T>::CblasAlpha alpha_arg, const T *a,
                int lda, const T *b, int ldb, typename Rank<F, T>::CblasBeta beta_arg, T *c, int ldc,
                const void *caller) {
  using R = Rank<F, T>;
  constexpr const RoutineNames &names = routine_names<R::cblas, T>;
  const bool row_major = layout == RowMajor;
  const char ul = uplo_code(uplo, row_major);
  const char row_major_trans = R::hermitian ? 'C' : 'T';
  const char tr = row_major ? (trans == NoTrans                          ? row_major_trans
                               : trans == Trans || trans == ConjTrans ? 'N'
                                                                      : '\0')
                            : trans_code(trans);
  const bool legal_codes = (row_major || layout == ColMajor) && ul != '\0' && tr != '\0';
  const int fortran_info = legal_codes ? rank_illegal_argument(R::two, ul, tr, accepted_trans<F, T>, n, k, lda,
                                                               R::two ? ldb : 1, ldc)
                                       : 0;
  if (!legal_codes || fortran_info != 0) {
    bool taken = false;
    if constexpr (R::two)
      taken = cpu_takes_illegal_call<cpu::Fn<R::cblas, T>>(names, caller, {"xerbla_", "cblas_xerbla"}, layout, uplo,
                                                         trans, n, k, alpha_arg, a, lda, b, ldb, beta_arg, c, ldc);
    else
      taken = cpu_takes_illegal_call<cpu::Fn<R::cblas, T>>(names, caller, {"xerbla_", "cblas_xerbla"}, layout, uplo,
                                                         trans, n, k, alpha_arg, a, lda, beta_arg, c, ldc);
    if (taken) return;
    // Reference CBLAS's row-major SYRK, HERK and SYR2K report an illegal Uplo as parameter 3
    // (HER2K as 2, like every column-major call).
    if (row_major && ul == '\0' && F != Family::her2k)
      return report_illegal_cblas_argument(names, 3, true, "Uplo", uplo, caller);
    report_illegal_cblas_call(names, routine_names<F, T>, layout,
                              {{"Uplo", uplo, ul != '\0'}, {"Trans", trans, tr != '\0'}}, fortran_info, caller);
    return;
  }
  const CblasLabel label(names.symbol, row_major);
  typename R::Alpha alpha;
  typename R::Beta beta;
  if constexpr (F == Family::herk) alpha = alpha_arg;
  else alpha = cblas_scalar<T>(alpha_arg);
  if constexpr (R::hermitian) beta = beta_arg;
  else beta = cblas_scalar<T>(beta_arg);
  if constexpr (F == Family::her2k)
    if (row_major) alpha = conj(alpha);
  checked_rank<F, T>(&ul, &tr, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1, caller, label.name);
}
}  // namespace

// The entries of ?syrk_ ... ?her2k_ and their CBLAS forms (capi/exports.cpp).
template <class T>
void syrk(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha, const T *a, const int *lda,
          const T *beta, T *c, const int *ldc, size_t uplo_len, size_t trans_len, const void *caller) {
  checked_rank<Family::syrk, T>(uplo, trans, n, k, alpha, a, lda, nullptr, nullptr, beta, c, ldc, uplo_len, trans_len,
                                caller, nullptr);
}
template <class T>
void herk(const char *uplo, const char *trans, const int *n, const int *k, const real_t<T> *alpha, const T *a,
          const int *lda, const real_t<T> *beta, T *c, const int *ldc, size_t uplo_len, size_t trans_len,
          const void *caller) {
  checked_rank<Family::herk, T>(uplo, trans, n, k, alpha, a, lda, nullptr, nullptr, beta, c, ldc, uplo_len, trans_len,
                                caller, nullptr);
}
template <class T>
void syr2k(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha, const T *a,
           const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc, size_t uplo_len,
           size_t trans_len, const void *caller) {
  checked_rank<Family::syr2k, T>(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, uplo_len, trans_len, caller,
                                 nullptr);
}
template <class T>
void her2k(const char *uplo, const char *trans, const int *n, const int *k, const T *alpha, const T *a,
           const int *lda, const T *b, const int *ldb, const real_t<T> *beta, T *c, const int *ldc, size_t uplo_len,
           size_t trans_len, const void *caller) {
  checked_rank<Family::her2k, T>(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, uplo_len, trans_len, caller,
                                 nullptr);
}
template <class T>
void cblas_syrk(int layout, int uplo, int trans, int n, int k, CblasScalar<T> alpha, const T *a, int lda,
                CblasScalar<T> beta, T *c, int ldc, const void *caller) {
  cblas_rank<Family::syrk, T>(layout, uplo, trans, n, k, alpha, a, lda, nullptr, 0, beta, c, ldc, caller);
}
template <class T>
void cblas_herk(int layout, int uplo, int trans, int n, int k, real_t<T> alpha, const T *a, int lda, real_t<T> beta,
                T *c, int ldc, const void *caller) {
  cblas_rank<Family::herk, T>(layout, uplo, trans, n, k, alpha, a, lda, nullptr, 0, beta, c, ldc, caller);
}
template <class T>
void cblas_syr2k(int layout, int uplo, int trans, int n, int k, CblasScalar<T> alpha, const T *a, int lda, const T *b,
                 int ldb, CblasScalar<T> beta, T *c, int ldc, const void *caller) {
  cblas_rank<Family::syr2k, T>(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, caller);
}
template <class T>
void cblas_her2k(int layout, int uplo, int trans, int n, int k, CblasScalar<T> alpha, const T *a, int lda, const T *b,
                 int ldb, real_t<T> beta, T *c, int ldc, const void *caller) {
  cblas_rank<Family::her2k, T>(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, caller);
}


}  // namespace cudrop::capi

#define CUDROP_DEFINES_syrk CUDROP_DEFINED
#define CUDROP_DEFINES_syr2k CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_syrk CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_syr2k CUDROP_DEFINED
#define CUDROP_DEFINES_herk CUDROP_DEFINED
#define CUDROP_DEFINES_her2k CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_herk CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_her2k CUDROP_DEFINED
#include "capi/instantiate.h"
