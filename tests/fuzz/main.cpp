// Differential fuzzer: every entry point cudrop accelerates against Debian's reference BLAS,
// CBLAS and LAPACK (the power method against its documented definition), with random legal and
// illegal arguments, special values, odd sizes, padded leading dimensions and unaligned arrays:
//   gemm     ?gemm_, cblas_?gemm                                    (s, d, c, z)
//   level3   ?symm, ?hemm, ?syrk, ?herk, ?syr2k, ?her2k, ?trmm, ?trsm, Fortran and CBLAS
//   factor   ?getrf_, ?potrf_                                       (s, d, c, z)
//   solve    ?getrs_, ?potrs_, ?gesv_, ?posv_                        (s, d, c, z)
//   qr       ?geqrf_, ?gels_, ?ormqr_/?unmqr_, ?orgqr_/?ungqr_, ?syevd_/?heevd_, ?syev_/?heev_,
//            ?syevr_/?heevr_, ?syevx_/?heevx_
//            (s, d, c, z; where calls may reach the GPU, only calls that compute nothing)
//   generalized  ?sygvd_/?hegvd_, ?sygv_/?hegv_ (s, d, c, z; the same)
//   svd      ?gesdd_, ?gesvd_, ?gelsd_, ?gelss_ (s, d, c, z; the same)
//   lq       ?gelqf_, ?ormlq_/?unmlq_, ?orglq_/?unglq_ (s, d, c, z), ?geqp3_, ?gelsy_ (s, d;
//            the same)
//   sytrf    ?sytrf_, ?sytrs_, ?sysv_ (s, d, c, z), ?hetrf_, ?hetrs_, ?hesv_ (c, z)
//   power    cudrop_spower_, cudrop_dpower_, cudrop_scsrpower_, cudrop_dcsrpower_
//   entries  the same routines under their ILP64 names (dgemm_64_, cblas_dgemm64_) and the
//            PyPI wheels' (scipy_dgemm_, scipy_cblas_dgemm, scipy_dgemm_64_, ...)
//
// Each case runs the same call twice on identical copies of its arguments, once in the
// reference library (dlopen'ed RTLD_LOCAL, functions from dlsym on its handle) and once in
// libcudrop, and compares: what the error handlers received (handlers.h), INFO, IPIV, the
// output bits (any NaN equals any NaN), the guard zones around every array and the padding
// rows of every leading dimension (untouched), the input arrays (untouched, bit for bit) and
// every scalar passed by address (unchanged). cudrop_counters must show the call ran where
// --mode-expect says.
//
// --gpu (forced-GPU runs, CUDROP_MODE=gpu): outputs of calls that reach the GPU are compared
// within the netlib testers' error bounds instead of bit for bit (bounds.h); everything else
// (handler records, guards, quick returns, INFO of illegal arguments) stays exact. --bounds
// judges by the same bounds wherever the calls run: on the CPU path a check of the bounds
// themselves, which the reference's own answers must meet.
//
//   fuzz [--seed S] [--cases N] [--mode-expect cpu|gpu] [--gpu] [--bounds] [--only CASE]
//        [--show N] [--family NAME]
//
// Case i draws from its own generator (seed, i): `--only i` replays one case (with the same
// --family, if one was given).
#include <cinttypes>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/fuzz/library.h"
#include "tests/harness/options.h"

namespace fuzz {

Options g_options;
long g_differences = 0;
long g_computing = 0;
bool g_reference_semantics = false;
long g_case = 0;
std::string g_call;

void difference(const char *format, ...) {
  ++g_differences;
  if (g_differences > g_options.show) return;
  char what[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(what, sizeof what, format, args);
  va_end(args);
  char wide_int_min[64] = "";
  if (g_wide_int_min != INT_MIN)
    std::snprintf(wide_int_min, sizeof wide_int_min, " (INT_MIN passed as %lld)", (long long)g_wide_int_min);
  std::printf("DIFFERENCE case %ld (--seed %" PRIu64 " --only %ld%s%s): %s%s\n  %s\n", g_case, g_options.seed, g_case,
              g_options.family.empty() ? "" : " --family ", g_options.family.c_str(), g_call.c_str(), wide_int_min,
              what);
}

namespace {

// The case mix: each family's share of the cases. Within a family every routine, precision
// and interface has an equal chance; the entries family shares its cases among three sets of
// names for all the others' routines (power has no other names).
struct Family {
  const char *name;
  int weight;
  void (*run)(Rng &);
  long cases = 0, computing = 0, differences = 0;
};
Family g_families[] = {
    {"gemm", 12, [](Rng &rng) { gemm_case(rng, Names::lp64); }},
    {"level3", 32, [](Rng &rng) { level3_case(rng, Names::lp64); }},
    {"factor", 12, [](Rng &rng) { factor_case(rng, Names::lp64); }},
    {"solve", 16, [](Rng &rng) { solve_case(rng, Names::lp64); }},
    {"qr", 8, [](Rng &rng) { qr_case(rng, Names::lp64); }},
    {"generalized", 4, [](Rng &rng) { generalized_case(rng, Names::lp64); }},
    {"svd", 3, [](Rng &rng) { svd_case(rng, Names::lp64); }},
    {"lq", 4, [](Rng &rng) { lq_case(rng, Names::lp64); }},
    {"sytrf", 12, [](Rng &rng) { sytrf_case(rng, Names::lp64); }},
    {"power", 10, power_case},
    {"entries", 18, entries_case},
};

void one_case(long index) {
  Rng rng(g_options.seed * 0x100000001B3ull + uint64_t(index));
  g_case = index;
  Family *family = nullptr;
  if (g_options.family.empty()) {
    int total = 0;
    for (const Family &f : g_families) total += f.weight;
    int pick = int(rng.below(total));
    for (Family &f : g_families)
      if ((pick -= f.weight) < 0) { family = &f; break; }
  } else {
    for (Family &f : g_families)
      if (g_options.family == f.name) family = &f;
  }
  const long computing = g_computing, differences = g_differences;
  family->run(rng);
  ++family->cases;
  family->computing += g_computing - computing;
  family->differences += g_differences - differences;
}

bool known_family(const char *name) {
  for (const Family &f : g_families)
    if (std::strcmp(name, f.name) == 0) return true;
  return false;
}

}  // namespace
}  // namespace fuzz

int main(int argc, char **argv) {
  using namespace fuzz;
  const bool understood =
      harness::CommandLine("usage: fuzz [--seed S] [--cases N] [--mode-expect cpu|gpu] [--gpu] [--bounds] "
                           "[--only CASE] [--show N] [--family gemm|level3|factor|solve|qr|generalized|svd|lq|sytrf|power|entries]")
          .number("--seed", &g_options.seed)
          .number("--cases", &g_options.cases)
          .number("--only", &g_options.only)
          .number("--show", &g_options.show)
          .value("--mode-expect",
                 [](const char *where) {
                   g_options.expect_gpu = std::strcmp(where, "gpu") == 0;
                   return g_options.expect_gpu || std::strcmp(where, "cpu") == 0;
                 })
          .value("--family",
                 [](const char *name) {
                   g_options.family = name;
                   return known_family(name);
                 })
          .flag("--gpu", [] { g_options.gpu_bounds = g_options.expect_gpu = true; })
          .flag("--bounds", [] { g_options.gpu_bounds = true; })
          .parse(argc, argv);
  if (!understood) return 2;
  load_libraries();
  // cudrop's CPU path must be the reference itself for outputs to match bit for bit, whatever
  // BLAS the system's alternatives name (a caller's choice is kept).
  setenv("CUDROP_CPU_BLAS", reference_path("blas/libblas.so.3").c_str(), 0);
  setenv("CUDROP_CPU_LAPACK", reference_path("lapack/liblapack.so.3").c_str(), 0);
  if (harness::skip_without_gpu("fuzz", g_options.expect_gpu)) return harness::kSkipped;
  if (g_options.only >= 0) one_case(g_options.only);
  else for (long i = 0; i < g_options.cases; ++i) one_case(i);
  const long cases = g_options.only >= 0 ? 1 : g_options.cases;
  for (const Family &f : g_families)
    if (f.cases > 0)
      std::printf("  %-8s %8ld cases, %8ld computing, %ld differences\n", f.name, f.cases, f.computing, f.differences);
  std::printf("fuzz: %ld cases, %ld differences (seed %" PRIu64 "; %ld computing; %s%s)\n", cases, g_differences,
              g_options.seed, g_computing,
              g_options.expect_gpu ? "calls expected on the GPU" : "calls expected on the CPU",
              g_options.gpu_bounds ? ", outputs within error bounds" : ", outputs bit for bit");
  return g_differences == 0 ? 0 : 1;
}
