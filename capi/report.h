#pragma once
// How capi reports an illegal argument: through the dynamic xerbla_/cblas_xerbla symbols,
// so the caller's own handler (e.g. a tester's) wins over the library's default.
#include <cstddef>

extern "C" {
void xerbla_(const char *srname, const int *info, size_t srname_len);
void cblas_xerbla(int info, const char *routine, const char *form, ...);
extern int RowMajorStrg;
extern int CBLAS_CallFromC;
}

namespace cudrop::capi {
// name6: the routine name blank-padded to exactly 6 characters ("SGEMM ").
void report_illegal_argument(const char *name6, int info);
void report_illegal_cblas_argument(int info, const char *routine, const char *what, int value);
}  // namespace cudrop::capi
