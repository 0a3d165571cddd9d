#pragma once
// The small-call fast entry of sgemm_/dgemm_ (capi/gemm_fast_entry.cpp) and the full path it
// falls back to (capi/gemm.cpp).
#include <cstddef>

namespace cudrop::capi {
// Opens the fast entry for T once the full path has resolved the CPU routine (a no-op until
// then, and in gpu mode or with CUDROP_VERBOSE >= 2).
template <class T> void open_gemm_shortcut();
}  // namespace cudrop::capi

extern "C" {
// The full path: the reference's checks, then one routed call. Entered by a jump from the
// exported entry, so that its return address is the program's.
__attribute__((visibility("hidden"))) void cudrop_sgemm_full(const char *transa, const char *transb, const int *m,
                                                             const int *n, const int *k, const float *alpha,
                                                             const float *a, const int *lda, const float *b,
                                                             const int *ldb, const float *beta, float *c,
                                                             const int *ldc, size_t transa_len, size_t transb_len);
__attribute__((visibility("hidden"))) void cudrop_dgemm_full(const char *transa, const char *transb, const int *m,
                                                             const int *n, const int *k, const double *alpha,
                                                             const double *a, const int *lda, const double *b,
                                                             const int *ldb, const double *beta, double *c,
                                                             const int *ldc, size_t transa_len, size_t transb_len);
}
