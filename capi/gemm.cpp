// GEMM entry points: Fortran sgemm_/dgemm_ and CBLAS cblas_sgemm/cblas_dgemm.
// Each is the reference routine's argument checks, in the reference order, then one
// routed call (GPU or CPU underneath). C = alpha*op(A)*op(B) + beta*C.
#include <algorithm>
#include <cstdio>

#include "capi/report.h"
#include "impl/gemm.h"
#include "shim/dispatch.h"

#define CUDROP_EXPORT extern "C" __attribute__((visibility("default")))

namespace cudrop::capi {
namespace {

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

template <class T> struct GemmNames;
template <> struct GemmNames<float> {
  static constexpr const char *fortran = "SGEMM ";
  static constexpr const char *cblas = "cblas_sgemm";
  static constexpr const char *label = "sgemm_";
};
template <> struct GemmNames<double> {
  static constexpr const char *fortran = "DGEMM ";
  static constexpr const char *cblas = "cblas_dgemm";
  static constexpr const char *label = "dgemm_";
};

// Auto mode's size test: enough arithmetic, and enough of it per byte crossing PCIe.
// Inline, with the flop test first: a small call that stays on the CPU pays only for that.
inline bool gemm_worth_gpu(const Settings &s, int m, int n, int k, bool reads_c, size_t element_size) {
  const double flops = 2.0 * m * n * k;
  if (flops < (element_size == sizeof(float) ? s.gemm_min_flops_single : s.gemm_min_flops_double)) return false;
  const double elements = double(m) * k + double(k) * n + double(m) * n * (reads_c ? 2 : 1);
  return flops >= s.gemm_min_intensity * elements * element_size;
}

// The short way of a call that stays on the CPU: every argument valid, none of the reference's
// own branches (quick return, alpha == 0, k == 0), cpu mode or too small for auto mode, not
// verbose, and the CPU routine already resolved (by an earlier call through gemm()). Returns
// that routine, for the exported symbol to tail-call with the caller's own arguments (OpenBLAS
// does a 16^3 sgemm in 0.1-0.2 us, and auto mode may add at most 5%), or nullptr: the full path.
template <class T>
cpu::gemm_fn<T> cpu_shortcut(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                             const T *alpha, const int *lda, const int *ldb, const T *beta, const int *ldc) {
  const Settings *read = cudrop::detail::settings_read.load(std::memory_order_acquire);
  if (read == nullptr) return nullptr;
  const Settings &s = *read;
  if (s.verbose >= 2 || s.mode == Mode::Gpu) return nullptr;
  // c | 0x20 folds exactly 'N'/'n', 'T'/'t' and 'C'/'c' together: fewer live registers than upper().
  const int ta = *transa | 0x20, tb = *transb | 0x20;
  if ((ta != 'n' && ta != 't' && ta != 'c') || (tb != 'n' && tb != 't' && tb != 'c')) return nullptr;
  const int rows = *m, cols = *n, depth = *k;
  if (rows <= 0 || cols <= 0 || depth <= 0 || *alpha == T(0)) return nullptr;
  if (*lda < (ta == 'n' ? rows : depth) || *ldb < (tb == 'n' ? depth : cols) || *ldc < rows) return nullptr;
  if (s.mode == Mode::Auto && gemm_worth_gpu(s, rows, cols, depth, *beta != T(0), sizeof(T))) return nullptr;
  void *fn = cpu::detail::resolved[static_cast<size_t>(std::is_same_v<T, float> ? cpu::Routine::sgemm_
                                                                                : cpu::Routine::dgemm_)]
                 .load(std::memory_order_acquire);
  if (fn != nullptr) cudrop::detail::cpu_calls.fetch_add(1, std::memory_order_relaxed);
  return reinterpret_cast<cpu::gemm_fn<T>>(fn);
}

template <class T>
void gemm(const char *transa, const char *transb, const int *m, const int *n, const int *k,
          const T *alpha, const T *a, const int *lda, const T *b, const int *ldb, const T *beta,
          T *c, const int *ldc) {
  const char ta = upper(*transa), tb = upper(*transb);
  const bool nota = ta == 'N', notb = tb == 'N';
  const int nrowa = nota ? *m : *k;
  const int nrowb = notb ? *k : *n;
  int info = 0;
  if (!nota && ta != 'C' && ta != 'T') info = 1;
  else if (!notb && tb != 'C' && tb != 'T') info = 2;
  else if (*m < 0) info = 3;
  else if (*n < 0) info = 4;
  else if (*k < 0) info = 5;
  else if (*lda < std::max(1, nrowa)) info = 8;
  else if (*ldb < std::max(1, nrowb)) info = 10;
  else if (*ldc < std::max(1, *m)) info = 13;
  if (info != 0) {
    report_illegal_argument(GemmNames<T>::fortran, info);
    return;
  }
  if (*m == 0 || *n == 0 || ((*alpha == T(0) || *k == 0) && *beta == T(1))) return;
  if (*alpha == T(0) || *k == 0) {
    // The reference's own branch: C = beta*C without reading A or B (a NaN there must not
    // reach C, whatever the BLAS underneath would do), and without reading C when beta == 0.
    for (int j = 0; j < *n; ++j) {
      T *column = c + size_t(j) * size_t(*ldc);
      for (int i = 0; i < *m; ++i) column[i] = *beta == T(0) ? T(0) : *beta * column[i];
    }
    return;
  }

  char label[96];
  const char *name = GemmNames<T>::label;
  if (settings().verbose >= 2) {
    std::snprintf(label, sizeof label, "%s(%c,%c,m=%d,n=%d,k=%d)", name, ta, tb, *m, *n, *k);
    name = label;
  }
  route(name, gemm_worth_gpu(settings(), *m, *n, *k, *beta != T(0), sizeof(T)),
        std::is_same_v<T, float> ? cpu::Routine::sgemm_ : cpu::Routine::dgemm_,
        [&] { return impl::gemm_host(GemmArgs<T>{!nota, !notb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc}); },
        [&] { cpu::gemm<T>()(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1); });
}

enum CblasCode { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112, ConjTrans = 113 };

// Reference CBLAS: column-major passes straight through; row-major becomes the
// column-major product C^T = op(B)^T op(A)^T, so the Fortran-order checks report the
// parameter numbers of that swapped call (the tester maps them back via RowMajorStrg).
template <class T>
void cblas_gemm(int layout, int trans_a, int trans_b, int m, int n, int k, T alpha, const T *a,
                int lda, const T *b, int ldb, T beta, T *c, int ldc) {
  auto code = [](int trans) { return trans == Trans ? 'T' : trans == ConjTrans ? 'C' : trans == NoTrans ? 'N' : '\0'; };
  RowMajorStrg = 0;
  CBLAS_CallFromC = 1;
  const char ca = code(trans_a), cb = code(trans_b);
  if (layout == ColMajor) {
    if (ca == '\0') report_illegal_cblas_argument(2, GemmNames<T>::cblas, "TransA", trans_a);
    else if (cb == '\0') report_illegal_cblas_argument(3, GemmNames<T>::cblas, "TransB", trans_b);
    else gemm<T>(&ca, &cb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  } else if (layout == RowMajor) {
    RowMajorStrg = 1;
    if (ca == '\0') report_illegal_cblas_argument(2, GemmNames<T>::cblas, "TransA", trans_a);
    else if (cb == '\0') report_illegal_cblas_argument(3, GemmNames<T>::cblas, "TransB", trans_b);
    else gemm<T>(&cb, &ca, &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc);
  } else {
    report_illegal_cblas_argument(1, GemmNames<T>::cblas, "layout", layout);
  }
  CBLAS_CallFromC = 0;
  RowMajorStrg = 0;
}

}  // namespace
}  // namespace cudrop::capi

using cudrop::capi::cblas_gemm;
using cudrop::capi::cpu_shortcut;
using cudrop::capi::gemm;

CUDROP_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                          const int *k, const float *alpha, const float *a, const int *lda,
                          const float *b, const int *ldb, const float *beta, float *c,
                          const int *ldc, size_t, size_t) {
  if (const auto cpu_gemm = cpu_shortcut(transa, transb, m, n, k, alpha, lda, ldb, beta, ldc))
    return cpu_gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

CUDROP_EXPORT void dgemm_(const char *transa, const char *transb, const int *m, const int *n,
                          const int *k, const double *alpha, const double *a, const int *lda,
                          const double *b, const int *ldb, const double *beta, double *c,
                          const int *ldc, size_t, size_t) {
  if (const auto cpu_gemm = cpu_shortcut(transa, transb, m, n, k, alpha, lda, ldb, beta, ldc))
    return cpu_gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

CUDROP_EXPORT void cblas_sgemm(int layout, int trans_a, int trans_b, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb,
                               float beta, float *c, int ldc) {
  cblas_gemm(layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

CUDROP_EXPORT void cblas_dgemm(int layout, int trans_a, int trans_b, int m, int n, int k,
                               double alpha, const double *a, int lda, const double *b, int ldb,
                               double beta, double *c, int ldc) {
  cblas_gemm(layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
