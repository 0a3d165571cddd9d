#pragma once
// What getrf_test's parts share: the options, the routines by precision, the test matrices.
//   getrf_matrices.cpp   the kinds of test matrix and their construction
//   getrf_arguments.cpp  illegal arguments and quick returns
//   getrf_test.cpp       the reference, the cases and their checks, the run
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/clock.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"

namespace getrf_test {

constexpr double kThreshold = 30.0;

struct Options {
  long max_n = 300;
  bool big = false;
  double ref_max_work = 1.2e9;
  std::string prec = "sd";
  uint64_t seed = 1;
  harness::Placement placement;
  bool verbose = false;
};
extern Options opt;  // getrf_test.cpp

template <class T>
using getrf_fn = void (*)(const int *, const int *, T *, const int *, int *, int *);

template <class T> struct Prec;
template <> struct Prec<float> {
  static constexpr const char *name = "S", *xname = "SGETRF";
  using Acc = double;
  static getrf_fn<float> cudrop() { return sgetrf_; }
};
template <> struct Prec<double> {
  static constexpr const char *name = "D", *xname = "DGETRF";
  using Acc = long double;
  static getrf_fn<double> cudrop() { return dgetrf_; }
};
// LAPACK's relative machine precision (xLAMCH('E')): half the spacing of 1.
template <class T> double lapack_eps() { return std::numeric_limits<T>::epsilon() / 2; }

// ---- test matrices (getrf_matrices.cpp) ----
enum class Kind { random, scaled, lowrank, zero_first, zero_mid, zero_last, zero, ties, ties_square, planted };
const char *kind_name(Kind k);

struct Built {
  int expected_info = 0;  // what the construction implies (INFO is exact for these matrices)
  int exact_prefix = 0;   // leading pivots whose choice is exact arithmetic: must equal the reference's
};

// Fills the m x n block of a (column stride lda); the padding rows are left alone.
template <class T>
Built build(Kind kind, int m, int n, int lda, uint64_t seed, T *a);

// ---- illegal arguments and quick returns (getrf_arguments.cpp) ----
template <class T>
void argument_checks();

}  // namespace getrf_test
