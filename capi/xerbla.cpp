// Reference error handlers and the CBLAS globals. These are the library's defaults: a
// program (or a tester) that defines its own xerbla_ / cblas_xerbla overrides them,
// because capi reaches them through the dynamic symbol (see capi/report.h).
#include "capi/report.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDROP_EXPORT extern "C" __attribute__((visibility("default")))

// Reference CBLAS keeps these two globals; the CBLAS testers read RowMajorStrg to map
// row-major parameter numbers back, so they must be ours, exported, and set like the
// reference sets them.
extern "C" {
__attribute__((visibility("default"))) int RowMajorStrg = 0;
__attribute__((visibility("default"))) int CBLAS_CallFromC = 0;
}

CUDROP_EXPORT void xerbla_(const char *srname, const int *info, size_t srname_len) {
  // Same text as reference XERBLA, then STOP (which exits with status 0).
  int len = 0;
  while (len < static_cast<int>(srname_len) && len < 32 && srname[len] != ' ' && srname[len] != '\0') ++len;
  std::printf(" ** On entry to %.*s parameter number %2d had an illegal value\n", len, srname, *info);
  std::fflush(stdout);
  std::exit(0);
}

CUDROP_EXPORT void cblas_xerbla(int info, const char *routine, const char *form, ...) {
  if (RowMajorStrg && std::strstr(routine, "gemm") != nullptr) {
    // The row-major call was mapped onto the column-major routine with A/B and M/N swapped.
    if (info == 4) info = 5; else if (info == 5) info = 4;
    else if (info == 9) info = 11; else if (info == 11) info = 9;
  }
  if (info) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, routine);
  va_list args;
  va_start(args, form);
  std::vfprintf(stderr, form, args);
  va_end(args);
  std::exit(-1);
}

namespace cudrop::capi {

void report_illegal_argument(const char *name6, int info) {
  // A PLT call to the default-visibility xerbla_: interposable, never bound locally.
  xerbla_(name6, &info, 6);
}

void report_illegal_cblas_argument(int info, const char *routine, const char *what, int value) {
  cblas_xerbla(info, routine, "Illegal %s setting, %d\n", what, value);
}

}  // namespace cudrop::capi
