#pragma once
// What potrf_test's parts share: the options and the test matrices.
//   potrf_matrices.cpp   the families of symmetric matrices
//   potrf_test.cpp       the reference, one call and its checks, illegal arguments, the cases,
//                        the run (with this program's xerbla_, which both kinds of check read)
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/lapack.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"
#include "tests/potrf/model.h"

namespace potrf_test {

struct Options {
  long max_size = 300, full_n = 1100, model_n = 600, ref_n = 1100;
  std::string prec = "sd";
  harness::Placement placement;
  bool strict_state = false, verbose = false;
};
extern Options opt;  // potrf_test.cpp

// ---- test matrices (potrf_matrices.cpp): a symmetric A given by its lower part, A(i, j) for i >= j ----
enum class Family { LowRank, LowRankBad, Dense, DenseBad };
const char *family_name(Family f);
enum class Breakage { None, NegativePivot, ZeroRow, NanDiagonal };
const char *breakage_name(Breakage b);

struct Source {
  int n = 0;
  Family family = Family::LowRank;
  std::vector<double> d, v, dense;  // LowRank: A = diag(d) + V V^T (V row-major n x r); Dense: full
  int r = 16;
  double value(int i, int j) const {  // i >= j
    if (!dense.empty()) return dense[size_t(i) + size_t(j) * n];
    double s = i == j ? d[i] : 0.0;
    const double *vi = &v[size_t(i) * r], *vj = &v[size_t(j) * r];
    for (int t = 0; t < r; ++t) s += vi[t] * vj[t];
    return s;
  }
};

// bad_decades: the badly conditioned families' spread (pivots down to 10^-bad_decades).
Source make_source(int n, Family family, uint64_t seed, double bad_decades);

}  // namespace potrf_test
