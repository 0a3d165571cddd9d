// GEMM entry points: Fortran ?gemm_ and CBLAS cblas_?gemm, s, d, c and z.
// Each is the reference routine's argument checks, in the reference order, then one
// routed call (GPU or CPU underneath). C = alpha*op(A)*op(B) + beta*C.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "capi/cblas_codes.h"
#include "capi/gemm_fast_entry.h"
#include "core/letter.h"
#include "capi/report.h"
#include "core/routines.h"
#include "impl/gemm/gemm.h"
#include "route/dispatch.h"
#include "route/finish_on_cpu.h"

namespace cudrop::capi {
namespace {

// The reference's checks, in its order: the number of the first illegal argument, or 0.
inline int gemm_illegal_argument(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc) {
  const bool nota = ta == 'N', notb = tb == 'N';
  const int nrowa = nota ? m : k;
  const int nrowb = notb ? k : n;
  if (!nota && ta != 'C' && ta != 'T') return 1;
  if (!notb && tb != 'C' && tb != 'T') return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, nrowa)) return 8;
  if (ldb < std::max(1, nrowb)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

// Auto mode's size test: enough arithmetic, and enough of it per byte crossing PCIe. A complex
// multiply-add is four real ones: counted as their 8 real flops.
template <class T>
inline Worth gemm_worth_gpu(const env::Environment &s, int m, int n, int k, bool reads_c) {
  const size_t element_size = sizeof(T);
  const double flops = (is_complex_v<T> ? 8.0 : 2.0) * m * n * k;
  if (flops < s.gemm_min_flops) return {false, flops};
  const double elements = double(m) * k + double(k) * n + double(m) * n * (reads_c ? 2 : 1);
  return {flops >= s.gemm_min_intensity * elements * element_size, flops};
}

// The Fortran call, checked. transa_len, transb_len: the hidden lengths, passed on unchanged
// with an illegal call. caller: the program's return address (see cpu::find_for_illegal_call).
// cblas_label: the verbose label of the CBLAS call this serves, or nullptr.
template <class T>
void checked_gemm(const char *transa, const char *transb, const int *m, const int *n, const int *k,
          const T *alpha, const T *a, const int *lda, const T *b, const int *ldb, const T *beta,
          T *c, const int *ldc, size_t transa_len, size_t transb_len, const void *caller,
          const char *cblas_label = nullptr) {
  constexpr const RoutineNames &names = routine_names<Family::gemm, T>;
  const char ta = upper(*transa), tb = upper(*transb);
  const bool nota = ta == 'N';
  if (const int info = gemm_illegal_argument(ta, tb, *m, *n, *k, *lda, *ldb, *ldc)) {
    // The CPU routine's own checks call the handler the process would call without cudrop.
    if (!cpu_takes_illegal_call<cpu::Fn<Family::gemm, T>>(names, caller, {"xerbla_"}, transa, transb, m, n, k, alpha, a, lda,
                                                 b, ldb, beta, c, ldc, transa_len, transb_len))
      report_illegal_argument(names, info, caller);
    return;
  }
  if (*m == 0 || *n == 0 || ((*alpha == T(0) || *k == 0) && *beta == T(1))) return;
  if (*alpha == T(0) || *k == 0) {
    // No product term, A and B never read (a NaN there must not reach C, whatever the BLAS
    // underneath would do), C not read when beta == 0. alpha == 0 is the reference's own
    // branch: C = beta*C. k == 0 with alpha != 0 runs the reference's main loops with empty
    // sums: TRANSA = 'N' scales C first (C = beta*C); TRANSA = 'T'/'C' stores
    // alpha*0 + beta*C per element (alpha*0 alone when beta == 0), so alpha = +-Inf or NaN
    // gives NaN and the sign of a zero follows alpha*0 + beta*C.
    const bool empty_dot_products = *alpha != T(0) && !nota;
    const T alpha_times_zero = *alpha * T(0);
    for (int j = 0; j < *n; ++j) {
      T *column = c + size_t(j) * size_t(*ldc);
      for (int i = 0; i < *m; ++i) {
        if (empty_dot_products) column[i] = *beta == T(0) ? alpha_times_zero : alpha_times_zero + *beta * column[i];
        else column[i] = *beta == T(0) ? T(0) : *beta * column[i];
      }
    }
    return;
  }

  char label[96];
  const char *name = cblas_label != nullptr ? cblas_label : names.symbol;
  if (settings().verbose >= 2 && cblas_label == nullptr) {
    std::snprintf(label, sizeof label, "%s(%c,%c,m=%d,n=%d,k=%d)", name, ta, tb, *m, *n, *k);
    name = label;
  }
  auto args = [&] {
    return GemmArgs<T>{Op::from_letter(ta), Op::from_letter(tb), *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc};
  };
  route(name, gemm_worth_gpu<T>(settings(), *m, *n, *k, *beta != T(0)),
        names.cpu,
        [&](impl::GemmProgress *progress) { return impl::gemm_host(args(), progress); },
        [&] { cpu::routine_cached<Family::gemm, T>()(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1); },
        finish_on_cpu<impl::GemmProgress>(names.symbol, [&](const impl::GemmProgress &progress) {
          gemm_finish_on_cpu(args(), progress);
        }));
}

using namespace cblas_codes;

}  // namespace

// The entry of cblas_sgemm/cblas_dgemm (capi/exports.cpp). Reference CBLAS: column-major passes
// straight through; row-major becomes the column-major product C^T = op(B)^T op(A)^T. Any
// illegal argument sends the whole call to the CPU library's CBLAS routine, so that its checks
// and handlers (cblas_xerbla, RowMajorStrg, ...) do exactly what they do without cudrop.
// caller: as for checked_gemm().
template <class T>
void cblas_gemm(int layout, int trans_a, int trans_b, int m, int n, int k, CblasScalar<T> alpha_arg, const T *a,
                int lda, const T *b, int ldb, CblasScalar<T> beta_arg, T *c, int ldc, const void *caller) {
  constexpr const RoutineNames &names = routine_names<Family::cblas_gemm, T>;
  constexpr const RoutineNames &fortran = routine_names<Family::gemm, T>;
  const char ca = trans_code(trans_a), cb = trans_code(trans_b);
  const bool row_major = layout == RowMajor;
  const bool legal_codes = (row_major || layout == ColMajor) && ca != '\0' && cb != '\0';
  const int fortran_info = !legal_codes ? 0
                           : row_major  ? gemm_illegal_argument(cb, ca, n, m, k, ldb, lda, ldc)
                                        : gemm_illegal_argument(ca, cb, m, n, k, lda, ldb, ldc);
  if (!legal_codes || fortran_info != 0) {
    if (cpu_takes_illegal_call<cpu::Fn<Family::cblas_gemm, T>>(names, caller, {"xerbla_", "cblas_xerbla"}, layout, trans_a, trans_b,
                                                 m, n, k, alpha_arg, a, lda, b, ldb, beta_arg, c, ldc))
      return;
    // Reference CBLAS's own numbering, quirk included: row-major reports TransB as 2.
    if (!row_major && layout != ColMajor) report_illegal_cblas_argument(names, 1, false, "layout", layout, caller);
    else if (ca == '\0') report_illegal_cblas_argument(names, 2, row_major, "TransA", trans_a, caller);
    else if (cb == '\0') report_illegal_cblas_argument(names, row_major ? 2 : 3, row_major, "TransB", trans_b, caller);
    else report_illegal_cblas_fortran_argument(names, fortran, fortran_info, row_major, caller);
    return;
  }
  char label[128];
  if (settings().verbose >= 2) {
    auto trans_name = [](char t) { return t == 'N' ? "NoTrans" : t == 'T' ? "Trans" : "ConjTrans"; };
    std::snprintf(label, sizeof label, "%s(%s,%s,%s,M=%d,N=%d,K=%d)", names.symbol,
                  row_major ? "RowMajor" : "ColMajor", trans_name(ca), trans_name(cb), m, n, k);
  }
  const char *cblas_label = settings().verbose >= 2 ? label : names.symbol;
  const T alpha = cblas_scalar<T>(alpha_arg), beta = cblas_scalar<T>(beta_arg);
  if (row_major) checked_gemm<T>(&cb, &ca, &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc, 1, 1, caller, cblas_label);
  else checked_gemm<T>(&ca, &cb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1, caller, cblas_label);
}


// The entry of ?gemm_ (capi/exports.cpp): for s and d past the assembly entry's short way.
// caller: as for checked_gemm().
template <class T>
void gemm(const char *transa, const char *transb, const int *m, const int *n, const int *k, const T *alpha,
          const T *a, const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc,
          size_t transa_len, size_t transb_len, const void *caller) {
  checked_gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len, caller);
  if constexpr (!is_complex_v<T>) open_gemm_shortcut<T>();  // c and z have no short way
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_gemm CUDROP_DEFINED
#define CUDROP_DEFINES_cblas_gemm CUDROP_DEFINED
#include "capi/instantiate.h"
