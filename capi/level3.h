#pragma once
// What the Level-3 entries beside GEMM share (capi/symm.cpp, capi/syrk.cpp, capi/trsm.cpp):
// auto mode's size test and the routed call (CBLAS's codes: capi/cblas_codes.h).
#include <cstdio>
#include <initializer_list>
#include <utility>

#include "core/letter.h"
#include "capi/cblas_codes.h"
#include "capi/report.h"
#include "core/routines.h"
#include "impl/level3/level3.h"
#include "route/dispatch.h"

namespace cudrop::capi::level3 {
using namespace cblas_codes;


// An illegal CBLAS call with no CPU CBLAS routine to take it, reported as reference CBLAS does:
// an illegal layout as parameter 1, else the first illegal code in parameter order from 2 on,
// else the Fortran routine's INFO (of the swapped call, for row-major).
struct IllegalCode {
  const char *what;  // "Side", "Uplo", "Trans", "Diag"
  int value;
  bool legal;
};
inline void report_illegal_cblas_call(const RoutineNames &cblas, const RoutineNames &fortran, int layout,
                                      std::initializer_list<IllegalCode> codes, int fortran_info, const void *caller) {
  const bool row_major = layout == RowMajor;
  if (!row_major && layout != ColMajor) return report_illegal_cblas_argument(cblas, 1, false, "layout", layout, caller);
  int position = 2;
  for (const IllegalCode &code : codes) {
    if (!code.legal) return report_illegal_cblas_argument(cblas, position, row_major, code.what, code.value, caller);
    ++position;
  }
  report_illegal_cblas_fortran_argument(cblas, fortran, fortran_info, row_major, caller);
}

// The real flops of one of a routine's multiply-adds: four for complex numbers, so that the
// real routines' CUDROP_*_MIN_FLOPS thresholds serve c and z as well.
template <class T>
inline constexpr double real_flops_per_op = is_complex_v<T> ? 4.0 : 1.0;

// Auto mode's size test, GEMM's rule in the routine's own flops: enough arithmetic, and
// enough of it per byte crossing the link (elements: what goes up and comes back).
inline Worth worth_gpu(double min_flops, double flops, double elements, size_t element_size) {
  return {flops >= min_flops && flops >= settings().gemm_min_intensity * elements * element_size, flops};
}

// The verbose label of a Fortran call: the symbol alone, or with its shape at CUDROP_VERBOSE=2
// (a CBLAS call brings its own).
struct Label {
  char text[128] = {};
  const char *name;
  bool from_cblas;
  Label(const char *cblas_label, const char *symbol)
      : name(cblas_label != nullptr ? cblas_label : symbol), from_cblas(cblas_label != nullptr) {}
  template <class... Args>
  void shape(const char *format, Args... args) {
    if (from_cblas || settings().verbose < 2) return;
    std::snprintf(text, sizeof text, format, args...);
    name = text;
  }
};

// A CBLAS call's label for the log: its symbol, with its layout at CUDROP_VERBOSE=2.
struct CblasLabel {
  char text[64] = {};
  const char *name;
  CblasLabel(const char *symbol, bool row_major) : name(symbol) {
    if (settings().verbose < 2) return;
    std::snprintf(text, sizeof text, "%s(%s)", symbol, row_major ? "RowMajor" : "ColMajor");
    name = text;
  }
};

// One routed call: impl::level3_host on the GPU, else cpu_run(); a side-L call that failed on
// the GPU after some columns of its output went back is finished by finish_rest(first column
// not written) on the CPU.
template <class T, class CpuRun, class FinishRest>
void route_level3(const RoutineNames &names, const char *label, Worth worth, const Level3Args<T> &args,
                  CpuRun &&cpu_run, FinishRest &&finish_rest) {
  route(label, worth, names.cpu, [&](Level3Progress *progress) { return impl::level3_host<T>(args, progress); },
        std::forward<CpuRun>(cpu_run),
        finish_on_cpu<Level3Progress>(names.symbol,
                                      [&](const Level3Progress &progress) { finish_rest(int(progress.columns)); }));
}

}  // namespace cudrop::capi::level3
