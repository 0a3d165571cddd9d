#pragma once
// What every part of the differential fuzzer shares (main.cpp says what it does): the options,
// the record of differences, the names a case calls cudrop by, and the case generators of the
// routine families.
#include <cstdint>
#include <string>

#include "tests/harness/rng.h"

namespace fuzz {

struct Options {
  uint64_t seed = 1;
  long cases = 50000;
  long only = -1;
  bool expect_gpu = false;  // --mode-expect: where calls that do work must run
  bool gpu_bounds = false;  // --gpu, --bounds: compare outputs within error bounds
  int show = 5;
  std::string family;  // --family: only this family's cases (empty: the whole mix)
};
extern Options g_options;
extern long g_differences;
extern long g_computing;  // cases whose call does arithmetic (legal, no quick return)
// The current case holds Inf or NaN where its reference routine skips zero entries (TRMM, TRSM,
// SYRK and the like): cudrop leaves such a call to the CPU routine (docs/semantics.md), so it is
// expected there, with the reference's answer, also with --gpu.
extern bool g_reference_semantics;
extern long g_case;
extern std::string g_call;  // the current case's call, for the report

// One difference from the reference: counted, and the first --show of them printed with the
// case's call and the line that replays it.
void difference(const char *format, ...) __attribute__((format(printf, 1, 2)));

// The names a case calls cudrop's entry by (the reference routine is always the LP64 one):
//   lp64     dgemm_, cblas_dgemm, dgetrf_              (int)
//   ilp64    dgemm_64_, cblas_dgemm64_, dgetrf_64_     (int64_t sizes, INFO and IPIV)
//   wheel    scipy_dgemm_, scipy_cblas_dgemm          (int: scipy's wheel)
//   wheel64  scipy_dgemm_64_, scipy_cblas_dgemm64_    (int64_t: numpy 2.x's wheel)
enum class Names { lp64, ilp64, wheel, wheel64 };
inline bool wide(Names names) { return names == Names::ilp64 || names == Names::wheel64; }

// The case generators, one per routine family (precision, routine and interface drawn inside).
// `names` is Names::lp64 except in the entries family (entries.cpp), which runs the same
// generators through cudrop's other names.
void gemm_case(Rng &rng, Names names);
void level3_case(Rng &rng, Names names);
void factor_case(Rng &rng, Names names);  // getrf, potrf
void solve_case(Rng &rng, Names names);   // getrs, potrs, gesv, posv
// geqrf, gels, ormqr, orgqr, syevd, syev, syevr, syevx (and the complex names)
void qr_case(Rng &rng, Names names);
void generalized_case(Rng &rng, Names names);  // sygvd, sygv (and the complex names)
void svd_case(Rng &rng, Names names);          // gesdd, gesvd, gelsd, gelss (svd.cpp)
// gelqf, ormlq, orglq (and the complex names), geqp3, gelsy (svd.cpp)
void lq_case(Rng &rng, Names names);
// sytrf, sytrs, sysv (s, d, c, z), hetrf, hetrs, hesv (c, z) (sytrf.cpp)
void sytrf_case(Rng &rng, Names names);
void power_case(Rng &rng);
void entries_case(Rng &rng);

}  // namespace fuzz
