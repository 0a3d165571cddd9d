// Triangular Level-3 entry points: Fortran ?trmm_, ?trsm_ (s, d, c, z) and CBLAS cblas_?trmm,
// cblas_?trsm. B := alpha op(A) B, alpha B op(A) (TRMM), or the solutions of op(A) X = alpha B,
// X op(A) = alpha B (TRSM), A triangular (op 'C': the conjugate transpose), only the triangle
// uplo names read.
// The reference routines' checks in their order, their quick returns, then one routed call.
#include <algorithm>

#include "capi/level3.h"
#include "cpu/backend.h"

namespace cudrop::capi {
namespace {
using namespace level3;

// The reference's checks (identical for TRMM and TRSM), in its order: the number of the
// first illegal argument, or 0.
int triangular_illegal_argument(char side, char uplo, char transa, char diag, int m, int n, int lda, int ldb) {
  const int nrowa = side == 'L' ? m : n;
  if (side != 'L' && side != 'R') return 1;
  if (uplo != 'U' && uplo != 'L') return 2;
  if (transa != 'N' && transa != 'T' && transa != 'C') return 3;
  if (diag != 'U' && diag != 'N') return 4;
  if (m < 0) return 5;
  if (n < 0) return 6;
  if (lda < std::max(1, nrowa)) return 9;
  if (ldb < std::max(1, m)) return 11;
  return 0;
}

// The Fortran call, checked. The *_len: the hidden lengths, passed on unchanged with an illegal
// call. caller: the program's return address. cblas_label: the label of the CBLAS call this
// serves, or nullptr.
template <Family F, class T>
void checked_triangular(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
                        const int *n, const T *alpha, const T *a, const int *lda, T *b, const int *ldb,
                        size_t side_len, size_t uplo_len, size_t transa_len, size_t diag_len, const void *caller,
                        const char *cblas_label = nullptr) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char sd = upper(*side), ul = upper(*uplo), ta = upper(*transa), di = upper(*diag);
  if (const int info = triangular_illegal_argument(sd, ul, ta, di, *m, *n, *lda, *ldb)) {
    // The CPU routine's own checks call the handler the process would call without cudrop.
    if (!cpu_takes_illegal_call<cpu::Fn<F, T>>(names, caller, {"xerbla_"}, side, uplo, transa, diag, m, n, alpha, a,
                                                 lda, b, ldb, side_len, uplo_len, transa_len, diag_len))
      report_illegal_argument(names, info, caller);
    return;
  }
  if (*m == 0 || *n == 0) return;
  if (*alpha == T(0)) {
    // The reference's own branch: B = 0, neither A nor B read.
    for (int j = 0; j < *n; ++j) std::fill_n(b + size_t(j) * size_t(*ldb), *m, T(0));
    return;
  }
  Label label(cblas_label, names.symbol);
  label.shape("%s(%c,%c,%c,%c,m=%d,n=%d)", names.symbol, sd, ul, ta, di, *m, *n);
  const bool left = sd == 'L';
  const double order = left ? *m : *n;
  const double flops = order * double(*m) * double(*n) * real_flops_per_op<T>;
  const double min_flops = F == Family::trsm ? settings().trsm_min_flops : settings().trmm_min_flops;
  // A real op(A) reads 'C' as 'T'.
  const Op op_trans = ta == 'C' && !is_complex_v<T> ? Op::trans : Op::from_letter(ta);
  const Level3Args<T> args{F == Family::trsm ? Family::trsm : Family::trmm, side_of(sd), uplo_of(ul), op_trans,
                           diag_of(di), *m, *n, 0, *alpha, T(0), a, *lda, b, *ldb, b, *ldb};
  const auto cpu_fn = [] { return cpu::routine<F, T>(); };
  route_level3<T>(
      names, label.name, worth_gpu(min_flops, flops, order * order / 2 + 2.0 * *m * *n, sizeof(T)), args,
      [&] { cpu_fn()(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, 1, 1, 1, 1); },
      [&](int first) {
        // Side L: the columns from `first` on are the caller's originals; each is independent.
        const int rest = *n - first;
        cpu_fn()(side, uplo, transa, diag, m, &rest, alpha, a, lda, b + size_t(first) * size_t(*ldb), ldb, 1, 1, 1, 1);
      });
}

// Reference CBLAS: column-major passes straight through; row-major is the column-major call on
// B^T (n x m) with the side and the triangle swapped, op(A) kept. Any illegal argument sends
// the whole call to the CPU library's CBLAS routine, whose checks and handlers then do exactly
// what they do without cudrop.
template <Family C, Family F, class T>
void cblas_triangular(int layout, int side, int uplo, int trans_a, int diag, int m, int n, CblasScalar<T> alpha_arg,
                      const T *a, int lda, T *b, int ldb, const void *caller) {
  constexpr const RoutineNames &names = routine_names<C, T>;
  const bool row_major = layout == RowMajor;
  const char sd = side_code(side, row_major), ul = uplo_code(uplo, row_major), ta = trans_code(trans_a),
             di = diag_code(diag);
  const bool legal_codes = (row_major || layout == ColMajor) && sd != '\0' && ul != '\0' && ta != '\0' && di != '\0';
  const int fm = row_major ? n : m, fn = row_major ? m : n;
  const int fortran_info = legal_codes ? triangular_illegal_argument(sd, ul, ta, di, fm, fn, lda, ldb) : 0;
  if (!legal_codes || fortran_info != 0) {
    if (cpu_takes_illegal_call<cpu::Fn<C, T>>(names, caller, {"xerbla_", "cblas_xerbla"}, layout, side, uplo,
                                                       trans_a, diag, m, n, alpha_arg, a, lda, b, ldb))
      return;
    report_illegal_cblas_call(names, routine_names<F, T>, layout,
                              {{"Side", side, sd != '\0'}, {"Uplo", uplo, ul != '\0'}, {"Trans", trans_a, ta != '\0'},
                               {"Diag", diag, di != '\0'}},
                              fortran_info, caller);
    return;
  }
  const CblasLabel label(names.symbol, row_major);
  const T alpha = cblas_scalar<T>(alpha_arg);
  checked_triangular<F, T>(&sd, &ul, &ta, &di, &fm, &fn, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1, caller, label.name);
}
}  // namespace

// The entries of ?trmm_, ?trsm_ (s, d, c, z) and their CBLAS forms (capi/exports.cpp).
template <class T>
void trmm(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
          const T *alpha, const T *a, const int *lda, T *b, const int *ldb, size_t side_len, size_t uplo_len,
          size_t transa_len, size_t diag_len, const void *caller) {
  checked_triangular<Family::trmm, T>(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, side_len, uplo_len,
                                      transa_len, diag_len, caller);
}
template <class T>
void trsm(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
          const T *alpha, const T *a, const int *lda, T *b, const int *ldb, size_t side_len, size_t uplo_len,
          size_t transa_len, size_t diag_len, const void *caller) {
  checked_triangular<Family::trsm, T>(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, side_len, uplo_len,
                                      transa_len, diag_len, caller);
}
template <class T>
void cblas_trmm(int layout, int side, int uplo, int trans_a, int diag, int m, int n, CblasScalar<T> alpha, const T *a,
                int lda, T *b, int ldb, const void *caller) {
  cblas_triangular<Family::cblas_trmm, Family::trmm, T>(layout, side, uplo, trans_a, diag, m, n, alpha, a, lda, b,
                                                        ldb, caller);
}
template <class T>
void cblas_trsm(int layout, int side, int uplo, int trans_a, int diag, int m, int n, CblasScalar<T> alpha, const T *a,
                int lda, T *b, int ldb, const void *caller) {
  cblas_triangular<Family::cblas_trsm, Family::trsm, T>(layout, side, uplo, trans_a, diag, m, n, alpha, a, lda, b,
                                                        ldb, caller);
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_trmm CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_trmm CUDROP_DEFINED
#define CUDROP_DEFINES_trsm CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_trsm CUDROP_DEFINED
#include "capi/instantiate.h"
