// The accelerated routines under cudrop's other names (capi/exports64.cpp,
// capi/exports_wheel.cpp): the ILP64 ones (dgemm_64_, cblas_dgemm64_, dgetrf_64_) and the PyPI
// wheels' (scipy_dgemm_, scipy_cblas_dgemm; scipy_dgemm_64_, scipy_cblas_dgemm64_), each case
// one of the other families' generators with cudrop called by such a name and the reference by
// the LP64 one. Their CPU runs and illegal calls go to the library such an entry runs on
// (shim.cpp's stand-in): the handlers, INFO, IPIV and output bits compare as the LP64 names'.
// An ILP64 name gets a size or leading dimension that is INT_MIN for the reference as INT_MIN,
// or (half of the time) as a negative value past an int, which cudrop must hand whole to the
// ILP64 routine underneath, without narrowing it itself.
#include <climits>

#include "tests/fuzz/library.h"

namespace fuzz {

void entries_case(Rng &rng) {
  const Names all[] = {Names::ilp64, Names::wheel, Names::wheel64};
  const Names names = all[rng.below(3)];
  g_wide_int_min = wide(names) && rng.below(2) == 0 ? -(int64_t(1) << 32) - int64_t(rng.below(1 << 20)) : INT_MIN;
  // Each routine, precision and interface an equal share: 8 GEMM entries, 52 Level-3 ones (26
  // Fortran, 26 CBLAS), 8 factorizations, 16 solvers, 12 QR and eigen drivers, 4 generalized
  // eigen drivers and 18 symmetric indefinite routines; the SVD and LQ families fewer (their
  // cost).
  const uint64_t r = rng.below(124);
  if (r < 8) gemm_case(rng, names);
  else if (r < 60) level3_case(rng, names);
  else if (r < 68) factor_case(rng, names);
  else if (r < 84) solve_case(rng, names);
  else if (r < 96) qr_case(rng, names);
  else if (r < 100) generalized_case(rng, names);
  else if (r < 103) svd_case(rng, names);
  else if (r < 106) lq_case(rng, names);
  else sytrf_case(rng, names);
  g_wide_int_min = INT_MIN;
}

}  // namespace fuzz
