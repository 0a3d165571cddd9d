// header_calls.cpp: include/cudrop.h's Fortran-interface routines called from C++ with their
// hidden CHARACTER lengths left out (default arguments, 1) and with them given. Compiled only
// (-fsyntax-only, with -pedantic -Wall -Wextra -Werror, as C++17: tests/CMakeLists.txt); nothing
// here runs. C++ gets no macro of a routine's name. With -DCUDROP_NO_STRLEN_MACROS: no default
// arguments, and the calls that give every argument still compile. header_calls.c is its C twin.
#include <complex>
#define CUDROP_COMPLEX_FLOAT std::complex<float>
#define CUDROP_COMPLEX_DOUBLE std::complex<double>
#include <cudrop.h>

#if defined(dgemm_) || defined(ztrsm_) || defined(xerbla_)
#error "cudrop.h defined a routine's macro in C++"
#endif

void typed_calls();
void every_routine();
void addresses();

// As a C++ program writes them.
void typed_calls() {
  const int m = 2, n = 2, k = 2, nrhs = 1, lwork = 64, liwork = 16, lrwork = 64;
  int info = 0, ipiv[2] = {1, 2}, iwork[16];
  const double alpha = 1, beta = 0;
  double a[4] = {}, b[4] = {}, c[4] = {}, w[2], tau[2] = {}, work[64], rwork[64];
  const std::complex<double> zalpha = 1, zbeta = 0;
  std::complex<double> za[4], zb[4], zc[4], zwork[64];
#include "header_typed_calls.inc"
}

// Every routine with hidden lengths, both ways (0: a null pointer or a length).
void every_routine() {
#include "header_every_routine.inc"
}

// The functions themselves: their type has every parameter.
using Dpotrf = void(const char *, const int *, double *, const int *, int *, size_t);
void addresses() {
  Dpotrf *f = dpotrf_;
  Dpotrf *g = &dpotrf_;
  const int n = 1;
  int info;
  double a[1] = {1};
  f("L", &n, a, &n, &info, 1);
  g("L", &n, a, &n, &info, 1);
}
