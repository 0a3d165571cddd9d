// power_test: the power-method extension (cudrop_spower_, cudrop_dpower_, cudrop_scsrpower_,
// cudrop_dcsrpower_) through its public symbols.
//
// Every routed call is also run through this program's own implementation of the documented
// iteration (ref_power: plain loops, the same rule for lambda written independently), and must
// agree with it: bit for bit (lambda, x, iterations, INFO) where the arithmetic is exact
// (diagonal matrices with power-of-two entries, explicit zeros), else within the tolerances
// below. Since CUDROP_MODE is read once per process, this is how the GPU run (power_gpu) is
// compared with a CPU implementation.
//
// Cases (single and double precision):
//  * arguments: every illegal argument, alone and several at once (the first in the documented
//    order wins), reported through this program's xerbla_ with the routine's name and its true
//    length; nothing else written. N = 0 and MAXIT = 0 quick results.
//  * CSR structure: row pointers not starting at BASE or decreasing (INFO = -4), a column index
//    outside [BASE, BASE+N) (INFO = -3, also INT_MIN/INT_MAX), both (-4); xerbla_ not called,
//    nothing but INFO written.
//  * exact diagonal matrices (dense with LDA > N and NaN padding; CSR with explicit zeros
//    giving 1 to 40 entries per row, 0- and 1-based): bitwise equal to ref_power for every
//    MAXIT around the converging iteration and across several batches of the GPU loop.
//  * ties: diag(+-1, ...) oscillates (INFO = 1, the iterate of the right parity) and lambda is
//    the signed entry at the FIRST largest magnitude.
//  * breakdowns: zero matrix, a nilpotent shift (A x = 0 at iteration N), zero start vector
//    (INFO = 2, lambda = 0, x kept); NaN and +-Inf in A (INFO = 3).
//  * symmetric A = Q D Q^T with a spectral gap (|lambda_2/lambda_1| <= 1/2), dominant eigenvalue
//    +10 and -10, n = 1, 7, 33, 200, 1007, LDA = N and N + 5: lambda and x against the
//    construction and against LAPACK ssyev_/dsyev_ (when linked, n <= 200).
//  * non-symmetric with known spectrum: dense S D S^-1 (S = I + u v^T), CSR upper triangular.
//  * PageRank-like column-stochastic CSR (lambda = 1), 0- and 1-based bitwise identical.
//  * irregular CSR rows (empty rows and tiles, rows longer than the GPU kernel's 2048-entry
//    window, every lanes-per-row kernel): bit for bit when exact, else within tolerance.
//  * start vector (INIT = 0) already converged: at most 2 iterations.
//  * --big: dense n = 4100 (S, D) and 8195 (S); CSR with ~1M rows (PageRank, 16 entries per
//    row on average), 2^20 rows with ~2 per row, 200000 rows with 40 per row.
//
// Options: --expect-cpu | --expect-gpu | --expect-fallback (what cudrop_counters must show for
// every routed call), --require-gpu (exit 77 when cudrop_gpu_available() is 0), --big,
// --prec s|d|sd, -v.
#include <cstdio>
#include <string>

#include "tests/power/power.h"

namespace power_test {

Options opt;
long routed_calls = 0;

namespace {

template <class T>
void run_all() {
  const double t0 = seconds_now();
  auto step = [&](const char *name, void (*fn)()) {
    const int before = failures;
    const double s = seconds_now();
    fn();
    std::printf("%s %-16s %s (%.1f s)\n", Api<T>::prec, name, failures == before ? "ok" : "FAILED", seconds_now() - s);
    std::fflush(stdout);
  };
  step("arguments", test_arguments<T>);
  step("csr structure", test_csr_structure<T>);
  step("exact diagonal", test_exact_diagonal<T>);
  step("ties", test_ties<T>);
  step("breakdowns", test_breakdowns<T>);
  step("symmetric", test_symmetric<T>);
  step("nonsymmetric", test_nonsymmetric<T>);
  step("pagerank", test_pagerank<T>);
  step("irregular rows", test_irregular<T>);
  step("near columns", test_near_columns<T>);
  step("start vector", test_start_vector<T>);
  if (opt.big) step("big", test_big<T>);
  std::printf("%s done in %.1f s\n", Api<T>::prec, seconds_now() - t0);
}

}  // namespace
}  // namespace power_test

using namespace power_test;

int main(int argc, char **argv) {
  const bool understood =
      harness::CommandLine("usage: power_test [--expect-cpu|--expect-gpu|--expect-fallback] [--require-gpu] [--big] "
                           "[--prec s|d|sd] [-v]")
          .placement(&opt.placement)
          .flag("--big", &opt.big)
          .text("--prec", &opt.prec)
          .flag("-v", &opt.verbose)
          .parse(argc, argv);
  if (!understood) return 2;
  if (harness::skip_without_gpu("power_test", opt.placement.require_gpu)) return harness::kSkipped;
  std::printf("power_test: cudrop %s, GPU available: %d%s\n", cudrop_version(), cudrop_gpu_available(),
#ifdef CUDROP_TEST_HAVE_LAPACK
              ", LAPACK syev reference linked"
#else
              ", no LAPACK (constructed eigenpairs only)"
#endif
  );
  if (opt.prec.find('s') != std::string::npos) run_all<float>();
  if (opt.prec.find('d') != std::string::npos) run_all<double>();
  const harness::Counters total = harness::Counters::now();
  const long g = total.gpu, c = total.cpu, f = total.fallbacks;
  std::printf("power_test: %d checks, %d failures; %ld routed calls (gpu %ld, cpu %ld, fallbacks %ld)\n", checks,
              failures, routed_calls, g, c, f);
  if (opt.placement.expect_fallback) CHECK(f > 0, "no GPU attempt fell back");
  if (failures != 0) return 1;
#ifndef CUDROP_TEST_HAVE_LAPACK
  // Built without a LAPACK: the comparisons with syev's eigenvalues were not made.
  std::printf("power_test: SKIP: built without a LAPACK (liblapack-dev): no comparison with syev\n");
  return harness::kSkipped;
#else
  return 0;
#endif
}
