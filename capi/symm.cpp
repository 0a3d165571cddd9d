// Symmetric and Hermitian matrix product entry points: Fortran ?symm_ (s, d, c, z), ?hemm_ (c, z)
// and their CBLAS forms. C = alpha A B + beta C (side L) or alpha B A + beta C (side R), A
// symmetric (Hermitian: the imaginary parts of its diagonal never read), only the triangle uplo
// names read. The reference routine's checks in its order, its quick returns, then one routed
// call.
#include <algorithm>

#include "capi/level3.h"
#include "cpu/backend.h"

namespace cudrop::capi {
namespace {
using namespace level3;

// The reference's checks, in its order: the number of the first illegal argument, or 0.
int symm_illegal_argument(char side, char uplo, int m, int n, int lda, int ldb, int ldc) {
  const int nrowa = side == 'L' ? m : n;
  if (side != 'L' && side != 'R') return 1;
  if (uplo != 'U' && uplo != 'L') return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (lda < std::max(1, nrowa)) return 7;
  if (ldb < std::max(1, m)) return 9;
  if (ldc < std::max(1, m)) return 12;
  return 0;
}

// F: Family::symm or Family::hemm (the same checks, arguments and CPU routine's type).
template <Family F, class T>
void checked_symm(const char *side, const char *uplo, const int *m, const int *n, const T *alpha, const T *a,
                  const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc, size_t side_len,
                  size_t uplo_len, const void *caller, const char *cblas_label = nullptr) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  constexpr bool hermitian = F == Family::hemm;
  const char sd = upper(*side), ul = upper(*uplo);
  if (const int info = symm_illegal_argument(sd, ul, *m, *n, *lda, *ldb, *ldc)) {
    if (!cpu_takes_illegal_call<cpu::Fn<F, T>>(names, caller, {"xerbla_"}, side, uplo, m, n, alpha, a, lda, b, ldb,
                                                 beta, c, ldc, side_len, uplo_len))
      report_illegal_argument(names, info, caller);
    return;
  }
  if (*m == 0 || *n == 0 || (*alpha == T(0) && *beta == T(1))) return;
  if (*alpha == T(0)) {
    // The reference's own branch: C = beta C, A and B not read, C not read when beta == 0.
    for (int j = 0; j < *n; ++j) {
      T *column = c + size_t(j) * size_t(*ldc);
      for (int i = 0; i < *m; ++i) column[i] = *beta == T(0) ? T(0) : *beta * column[i];
    }
    return;
  }
  Label label(cblas_label, names.symbol);
  label.shape("%s(%c,%c,m=%d,n=%d)", names.symbol, sd, ul, *m, *n);
  const double order = sd == 'L' ? *m : *n, mn = double(*m) * *n;
  const Level3Args<T> args{hermitian ? Family::hemm : Family::symm, side_of(sd), uplo_of(ul), Op::none, Diag::non_unit,
                           *m, *n, 0, *alpha, *beta, a, *lda, b, *ldb, c, *ldc};
  const auto cpu_fn = [] { return cpu::routine<F, T>(); };
  route_level3<T>(
      names, label.name,
      worth_gpu(settings().symm_min_flops, 2 * order * mn * real_flops_per_op<T>,
                order * order / 2 + mn * (*beta != T(0) ? 3 : 2), sizeof(T)),
      args, [&] { cpu_fn()(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1); },
      [&](int first) {
        // Side L: the columns of C from `first` on are the caller's originals; each is independent.
        const int rest = *n - first;
        cpu_fn()(side, uplo, m, &rest, alpha, a, lda, b + size_t(first) * size_t(*ldb), ldb, beta,
                 c + size_t(first) * size_t(*ldc), ldc, 1, 1);
      });
}

// Reference CBLAS: row-major is the column-major call on C^T (n x m), side and triangle
// swapped (A^T of a Hermitian A is the Hermitian matrix its other triangle stores: nothing is
// conjugated). An illegal argument sends the whole call to the CPU library's CBLAS routine.
template <Family C, Family F, class T>
void cblas_checked_symm(int layout, int side, int uplo, int m, int n, CblasScalar<T> alpha_arg, const T *a, int lda,
                        const T *b, int ldb, CblasScalar<T> beta_arg, T *c, int ldc, const void *caller) {
  constexpr const RoutineNames &names = routine_names<C, T>;
  const bool row_major = layout == RowMajor;
  const char sd = side_code(side, row_major), ul = uplo_code(uplo, row_major);
  const bool legal_codes = (row_major || layout == ColMajor) && sd != '\0' && ul != '\0';
  const int fm = row_major ? n : m, fn = row_major ? m : n;
  const int fortran_info = legal_codes ? symm_illegal_argument(sd, ul, fm, fn, lda, ldb, ldc) : 0;
  if (!legal_codes || fortran_info != 0) {
    if (cpu_takes_illegal_call<cpu::Fn<C, T>>(names, caller, {"xerbla_", "cblas_xerbla"}, layout, side, uplo, m, n,
                                                 alpha_arg, a, lda, b, ldb, beta_arg, c, ldc))
      return;
    report_illegal_cblas_call(names, routine_names<F, T>, layout,
                              {{"Side", side, sd != '\0'}, {"Uplo", uplo, ul != '\0'}}, fortran_info, caller);
    return;
  }
  const CblasLabel label(names.symbol, row_major);
  const T alpha = cblas_scalar<T>(alpha_arg), beta = cblas_scalar<T>(beta_arg);
  checked_symm<F, T>(&sd, &ul, &fm, &fn, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1, caller, label.name);
}
}  // namespace

// The entries of ?symm_, ?hemm_ and their CBLAS forms (capi/exports.cpp).
template <class T>
void symm(const char *side, const char *uplo, const int *m, const int *n, const T *alpha, const T *a, const int *lda,
          const T *b, const int *ldb, const T *beta, T *c, const int *ldc, size_t side_len, size_t uplo_len,
          const void *caller) {
  checked_symm<Family::symm, T>(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, side_len, uplo_len, caller);
}
template <class T>
void hemm(const char *side, const char *uplo, const int *m, const int *n, const T *alpha, const T *a, const int *lda,
          const T *b, const int *ldb, const T *beta, T *c, const int *ldc, size_t side_len, size_t uplo_len,
          const void *caller) {
  checked_symm<Family::hemm, T>(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, side_len, uplo_len, caller);
}
template <class T>
void cblas_symm(int layout, int side, int uplo, int m, int n, CblasScalar<T> alpha, const T *a, int lda, const T *b,
                int ldb, CblasScalar<T> beta, T *c, int ldc, const void *caller) {
  cblas_checked_symm<Family::cblas_symm, Family::symm, T>(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c,
                                                          ldc, caller);
}
template <class T>
void cblas_hemm(int layout, int side, int uplo, int m, int n, CblasScalar<T> alpha, const T *a, int lda, const T *b,
                int ldb, CblasScalar<T> beta, T *c, int ldc, const void *caller) {
  cblas_checked_symm<Family::cblas_hemm, Family::hemm, T>(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c,
                                                          ldc, caller);
}


}  // namespace cudrop::capi

#define CUDROP_DEFINES_symm CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_symm CUDROP_DEFINED
#define CUDROP_DEFINES_hemm CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_hemm CUDROP_DEFINED
#include "capi/instantiate.h"
