#pragma once
// What gemm_accuracy's parts share: the options, a call's case, the tallies, the shapes.
//   gemm_accuracy_check.cpp  one call made and checked (run_case), the tiling plan it used
//   gemm_accuracy_cases.cpp  the cases generated for each shape
//   gemm_accuracy.cpp        the shape lists, the run and its verdict
#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "impl/gemm/gemm.h"      // the out-of-core plan (header-only), for --expect-tiling
#include "route/dispatch.h"  // parse_byte_size, as the library reads CUDROP_GPU_MEM_LIMIT
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/rng.h"

namespace gemm_accuracy {

struct Options {
  long max_size = 300;
  double full_work = 3e7;
  harness::Placement placement;
  bool quick = false, verbose = false, expect_tiling = false, expect_partial = false;
  double max_work = 0;  // 0: no limit
  bool plans_only = false;
  std::string prec = "sd";
  std::string shapes = "normal";
  uint64_t seed = 1;
  double bound = 3.0;  // kBound of the notes above
};
extern Options opt;  // gemm_accuracy.cpp

enum class Api { f77, cblas_col, cblas_row };
const char *api_name(Api a);

struct Case {
  Api api;
  char ta, tb;  // 'N', 'T', 'C'
  long m, n, k;
  double alpha, beta;
  long off;  // 0 or 1: view starts one element into the buffer
  long pad;  // extra leading-dimension elements
  bool lower;  // f77: pass lower-case transpose characters
};

// Calls made, calls failed, and the worst ratio of the current shape (gemm_accuracy.cpp).
extern long g_calls, g_failures;
extern double g_worst;

template <class T>
const char *prec_name() { return std::is_same_v<T, float> ? "s" : "d"; }

template <class T>
void describe(const Case &c, char *out, size_t size) {
  std::snprintf(out, size, "%sgemm %s ta=%c tb=%c m=%ld n=%ld k=%ld alpha=%g beta=%g off=%ld pad=%ld",
                prec_name<T>(), api_name(c.api), c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.beta, c.off,
                c.pad);
}

// ---- which out-of-core plan the library used (for --expect-tiling) ----
struct PlanTally {
  long calls = 0, in_core = 0, tiled = 0, k_split = 0, resident_multi = 0, resident_single = 0,
       rotating = 0, cols_outer = 0, rows_outer_multi = 0, beta0_tiled = 0, beta1_tiled = 0,
       beta_other_tiled = 0, trans[4] = {};
};
extern PlanTally g_plans;  // gemm_accuracy.cpp
extern size_t g_mem_cap;   // CUDROP_GPU_MEM_LIMIT as the library reads it (0: unset)

// Tallies the plan the library makes for the call (when g_mem_cap is set).
template <class T>
void note_plan(const Case &cs);
// Makes the call and checks it; false (counted in g_failures) when it is wrong.
template <class T>
bool run_case(const Case &cs, Rng &rng);

struct Shape {
  long m, n, k;
};
bool listed(const std::vector<Shape> &list, const Shape &sh);
void run_shape(const Shape &sh, Rng &rng, long &rot);
void run_pipeline_shape(const Shape &sh, Rng &rng, long &rot);
void run_ooc_shape(const Shape &sh, Rng &rng, long &rot);

}  // namespace gemm_accuracy
