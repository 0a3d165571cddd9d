// gemm_accuracy: sgemm_/dgemm_ and cblas_sgemm/cblas_dgemm (column- and row-major) against
// a reference computed here in higher precision (double for S, long double for D).
//
// What every call must satisfy:
//  * accuracy, norm-wise:  ratio = max|C - Cref| / ((|alpha| k maxA maxB + |beta| maxC0) eps)
//    must be < kBound = 3.0, eps = FLT_EPSILON or DBL_EPSILON. Why 3: for k <= 1 an entry
//    goes through at most four roundings of eps/2 each (product, alpha*, beta*, sum), so
//    about 2 is the worst case there; for larger k random data keeps the accumulated error
//    of any summation order well under the k-proportional denominator (observed: <= 1 with
//    the reference BLAS, 0.3..0.5 at k ~ 1000). A wrong element, a missing beta term or TF32
//    (10-bit mantissa) arithmetic gives ratios of 10 to 10^6. When the denominator is 0
//    (alpha = 0 or k = 0, and beta = 0), C must be exactly 0.
//  * beta = 0: C is output only; it is filled with NaN before the call and no NaN may survive.
//    alpha = 0: A and B are not referenced; they are filled with NaN then.
//  * A and B are unchanged byte for byte (hash before/after), and so is everything of C's
//    buffer outside the m x n view: the LDC padding rows, and guard elements before and after
//    (the view may start one element into the buffer, so it is not 16-byte aligned).
//  * the scalar arguments are unchanged.
// Large calls (m n k > --full-work), where a full reference is too slow, are checked by
//  * the same per-entry bound on a random sample of entries (computed exactly as above), and
//  * a randomized (Freivalds) check of all of C: for random x with entries +-1,
//    y = C x and z = alpha op(A) (op(B) x) + beta C0 x in the reference precision, and
//    ratio_x = max|y - z| / (sqrt(n) (|alpha| k maxA maxB + |beta| maxC0) eps) < kBound.
//    Each y_i - z_i = sum_j E_ij x_j is a sum of n independent +-E_ij, so it is of order
//    sqrt(n) times the typical entry error: the same bound then holds with a margin of many
//    standard deviations, while a wrong block, a missing term or TF32 gives a ratio >> 2.
//  * no NaN anywhere in C, and the padding/guards as above.
//
// Options (also from the environment where noted):
//   --max-size N      largest dimension tested (env CUDROP_TEST_MAX_SIZE; default 300)
//   --full-work W     m*n*k above which the sampled + randomized check replaces the full one
//                     (env CUDROP_TEST_FULL_WORK; default 3e7)
//   --quick           only the shapes with m*n*k <= 3e5 (for valgrind)
//   --require-gpu     exit 77 (skip) when cudrop_gpu_available() is 0
//   --expect-gpu      at the end assert gpu_calls > 0, cpu_calls == 0, gpu_fallbacks == 0
//   --expect-cpu      at the end assert gpu_calls == 0, cpu_calls > 0
//   --expect-fallback at the end assert gpu_fallbacks > 0
//   --prec s|d|sd     precisions (default sd)      --seed N   data seed (default 1)
//   --shapes normal|extreme|ooc|all   extreme: n > 65535*128 columns, a column > 32 MiB, ...;
//                     ooc: the out-of-core set (run it under CUDROP_GPU_MEM_LIMIT=64M: every
//                     shape is then tiled; per shape and precision all 4 transpose pairs x
//                     beta -1.3 / 0 (C full of NaN) / 1, APIs, LD padding and misalignment rotating)
//   --expect-tiling   with --shapes ooc and CUDROP_GPU_MEM_LIMIT set: the library's tiling
//                     plans (impl::plan_gemm_tiles, computed here for each call as the library
//                     sees it) must include k split, C resident and rotating, both block orders
//   --expect-partial  at the end assert gpu_calls > 0 and gpu_fallbacks > 0: with
//                     CUDROP_TEST_FAULT_INJECT=launch:N a tiled call failed part way, after some of
//                     C was written back, and was finished on the CPU (counted as both)
//   --bound B         the bound instead of 3. The CUDROP_SGEMM=3xtf32 runs use 6: a product of
//                     two split floats drops the small x small term (up to 2^-22 |ab|, 2 eps)
//                     and carries each operand's second rounding (2^-24 each), so an entry of a
//                     sum of one or two terms can reach 3 to 4 eps (longer sums average it out)
//   --max-work W      skip shapes with m*n*k > W
//   --plans-only      --shapes ooc: make no call, only tally (and with -v print) the plans
//   -v                one line per call
#include "tests/gemm/gemm_accuracy.h"

namespace gemm_accuracy {

Options opt;
long g_calls = 0, g_failures = 0;
double g_worst = 0;
PlanTally g_plans;
size_t g_mem_cap = 0;

}  // namespace gemm_accuracy

using namespace gemm_accuracy;

int main(int argc, char **argv) {
  if (const char *e = std::getenv("CUDROP_TEST_MAX_SIZE")) opt.max_size = std::atol(e);
  if (const char *e = std::getenv("CUDROP_TEST_FULL_WORK")) opt.full_work = std::atof(e);
  harness::CommandLine line("usage: gemm_accuracy [--max-size N] [--full-work W] [--quick] [--require-gpu]\n"
                            "                     [--expect-gpu|--expect-cpu|--expect-fallback] [--prec s|d|sd]\n"
                            "                     [--shapes normal|extreme|ooc|all] [--expect-tiling]\n"
                            "                     [--expect-partial] [--max-work W] [--plans-only] [--seed N] [--bound B] [-v]");
  line.number("--max-size", &opt.max_size).number("--full-work", &opt.full_work).number("--max-work", &opt.max_work);
  line.flag("--quick", &opt.quick).text("--prec", &opt.prec).number("--seed", &opt.seed).flag("-v", &opt.verbose);
  line.number("--bound", &opt.bound);
  line.placement(&opt.placement).flag("--expect-tiling", &opt.expect_tiling).text("--shapes", &opt.shapes);
  line.flag("--expect-partial", &opt.expect_partial).flag("--plans-only", &opt.plans_only);
  if (!line.parse(argc, argv)) return 2;
  if (const char *limit = std::getenv("CUDROP_GPU_MEM_LIMIT"); limit && *limit) {
    if (!cudrop::env::parse_byte_size(limit, &g_mem_cap)) g_mem_cap = 0;
  }
  const char *mode = std::getenv("CUDROP_MODE");
  std::printf("gemm_accuracy: cudrop %s, CUDROP_MODE=%s, max size %ld, full reference up to "
              "m*n*k = %.3g, bound %.1f\n",
              cudrop_version(), mode ? mode : "(unset)", opt.max_size, opt.full_work, opt.bound);
  if (opt.placement.require_gpu) {
    if (harness::skip_without_gpu("gemm_accuracy")) return harness::kSkipped;
    std::printf("GPU available\n");
  }

  // Squares and rectangles (m != n != k), odd sizes around tile edges, k = 0.
  const std::vector<Shape> normal_shapes = {
      {1, 1, 1},        {2, 2, 2},        {1, 7, 33},        {33, 1, 7},        {7, 33, 1},
      {7, 7, 7},        {3, 5, 0},        {16, 16, 16},      {2, 16, 7},        {33, 33, 33},
      {16, 33, 2},      {64, 64, 64},     {65, 17, 129},     {65, 65, 65},      {65, 33, 0},
      {127, 127, 127},  {129, 129, 129},  {127, 255, 64},    {1, 1007, 129},    {255, 255, 255},
      {1007, 33, 65},   {257, 129, 1007}, {513, 1031, 257},  {1007, 1007, 1007}, {2049, 2049, 2049},
      {1031, 4097, 17}, {2049, 513, 3077}, {4096, 4096, 4096}, {4097, 4095, 4099}, {8192, 8192, 8192},
      {8193, 1025, 8191}, {3, 8193, 4}};
  // Extreme aspect ratios (--shapes extreme): more than 65535 tiles along n (a CUDA grid's
  // y/z limit) for any tile width up to 128; a column longer than a 32 MiB staging buffer;
  // a long k with a tiny C. Not limited by --max-size.
  const std::vector<Shape> extreme_shapes = {
      {2, 8388617, 1}, {8388617, 2, 3}, {3, 2, 8388617}, {1, 8388617, 2}};
  // Out of core (--shapes ooc), chosen for CUDROP_GPU_MEM_LIMIT=64M (plans: -v, or
  // --plans-only -v): odd sizes everywhere, so border blocks and chunks are partial. First (for
  // the fault-injection runs): column-outer order, C in rotating blocks; then one shape that
  // fits whole (the untiled path under a cap); k split in many chunks with one resident C
  // block (double: 2 x 2 rotating blocks); C resident in several blocks when beta != 0;
  // m < 128 with n-blocks; n = 3 with k = 40001; a 7-row C whose padded copy is 4.6x its size.
  const std::vector<Shape> ooc_shapes = {
      {5084, 3994, 1925}, {1500, 1499, 1501}, {3001, 2999, 3003}, {1000, 1100, 30001},
      {14611, 397, 1271}, {173, 18145, 907},  {1025, 3, 40001},   {7, 1500001, 9}};
  // In-core transfer pipeline (run_pipeline_shape): 7 or 8 column panels (row-major calls
  // swap m and n), the last partial.
  const std::vector<Shape> pipeline_shapes = {{3001, 4099, 1500}, {4097, 2501, 1777}};
  std::vector<Shape> shapes;
  const bool ooc = opt.shapes == "ooc";
  if (opt.shapes != "extreme" && !ooc) {
    for (const Shape &sh : normal_shapes)
      if (std::max(sh.m, std::max(sh.n, sh.k)) <= opt.max_size) shapes.push_back(sh);
    for (const Shape &sh : pipeline_shapes)
      if (std::max(sh.m, std::max(sh.n, sh.k)) <= opt.max_size) shapes.push_back(sh);
  }
  if (opt.shapes == "extreme" || opt.shapes == "all")
    shapes.insert(shapes.end(), extreme_shapes.begin(), extreme_shapes.end());
  if (ooc || opt.shapes == "all") shapes.insert(shapes.end(), ooc_shapes.begin(), ooc_shapes.end());
  Rng rng(opt.seed);
  long rot = 0;
  long shapes_run = 0;
  for (const Shape &sh : shapes) {
    if (opt.quick && double(sh.m) * sh.n * std::max(sh.k, 1L) > 3e5) continue;
    if (opt.max_work > 0 && double(sh.m) * sh.n * std::max(sh.k, 1L) > opt.max_work) continue;
    const long before = g_calls, fails_before = g_failures;
    const double worst_before = g_worst;
    const harness::Counters start = harness::Counters::now();
    g_worst = 0;
    if (listed(ooc_shapes, sh)) run_ooc_shape(sh, rng, rot);
    else if (listed(pipeline_shapes, sh)) run_pipeline_shape(sh, rng, rot);
    else run_shape(sh, rng, rot);
    const harness::Counters made = harness::Counters::now().since(start);
    std::printf("  m=%-5ld n=%-5ld k=%-5ld %4ld calls, worst ratio %.3f  [gpu %ld, cpu %ld, "
                "fallbacks %ld]%s\n",
                sh.m, sh.n, sh.k, g_calls - before, g_worst, made.gpu, made.cpu, made.fallbacks,
                g_failures > fails_before ? "  FAILED" : "");
    std::fflush(stdout);
    g_worst = std::max(g_worst, worst_before);
    ++shapes_run;
  }

  const harness::Counters total = harness::Counters::now();
  const long gpu = total.gpu, cpu = total.cpu, fallbacks = total.fallbacks;
  std::printf("counters: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld\n", gpu, cpu, fallbacks);
  int status = g_failures == 0 ? 0 : 1;
  if (g_calls == 0) {
    std::printf("FAIL: no call was tested\n");
    status = 1;
  }
  if (opt.placement.expect_gpu && !(gpu > 0 && cpu == 0 && fallbacks == 0)) {
    std::printf("FAIL: expected every call on the GPU (gpu_calls > 0, cpu_calls == 0, "
                "gpu_fallbacks == 0)\n");
    status = 1;
  }
  if (opt.placement.expect_cpu && !(gpu == 0 && cpu > 0)) {
    std::printf("FAIL: expected every call on the CPU (gpu_calls == 0, cpu_calls > 0)\n");
    status = 1;
  }
  if (g_plans.calls > 0)
    std::printf("plans under CUDROP_GPU_MEM_LIMIT=%zu: %ld calls: %ld in core, %ld tiled (%ld k split, "
                "%ld C resident in several blocks, %ld C resident in one block, %ld C rotating, %ld "
                "columns outer, %ld rows outer; beta 0/1/other %ld/%ld/%ld; transposes NN/TN/NT/TT "
                "%ld/%ld/%ld/%ld)\n",
                g_mem_cap, g_plans.calls, g_plans.in_core, g_plans.tiled, g_plans.k_split,
                g_plans.resident_multi, g_plans.resident_single, g_plans.rotating, g_plans.cols_outer,
                g_plans.rows_outer_multi, g_plans.beta0_tiled, g_plans.beta1_tiled,
                g_plans.beta_other_tiled, g_plans.trans[0], g_plans.trans[1], g_plans.trans[2],
                g_plans.trans[3]);
  if (opt.expect_tiling) {
    const PlanTally &t = g_plans;
    if (!(g_mem_cap > 0 && t.tiled > 0 && t.k_split > 0 && t.resident_multi > 0 && t.resident_single > 0 &&
          t.rotating > 0 && t.cols_outer > 0 && t.rows_outer_multi > 0 && t.beta0_tiled > 0 &&
          t.beta1_tiled > 0 && t.beta_other_tiled > 0 && t.trans[0] > 0 && t.trans[1] > 0 &&
          t.trans[2] > 0 && t.trans[3] > 0)) {
      std::printf("FAIL: expected the calls to be tiled in every way (k split, C resident in one and in "
                  "several blocks, C rotating, both block orders, every beta and transpose pair); is "
                  "CUDROP_GPU_MEM_LIMIT set (64M)?\n");
      status = 1;
    }
  }
  if (opt.expect_partial && !(gpu > 0 && fallbacks > 0)) {
    std::printf("FAIL: expected a tiled call to fail part way and be finished on the CPU (gpu_calls > 0 "
                "and gpu_fallbacks > 0)\n");
    status = 1;
  }
  if (opt.placement.expect_fallback && !(fallbacks > 0)) {
    std::printf("FAIL: expected GPU attempts to fail and fall back (gpu_fallbacks > 0)\n");
    status = 1;
  }
  std::printf("gemm_accuracy: %ld shapes, %ld calls, %ld failed, worst ratio %.3f (bound %.1f): %s\n",
              shapes_run, g_calls, g_failures, g_worst, opt.bound, status == 0 ? "PASS" : "FAIL");
  return status;
}
