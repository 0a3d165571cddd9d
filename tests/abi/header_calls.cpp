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
#ifndef CUDROP_NO_STRLEN_MACROS
  dgemm_("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &beta, c, &m);
  zgemm_("C", "N", &m, &n, &k, &zalpha, za, &k, zb, &k, &zbeta, zc, &m);
  dpotrf_("L", &n, a, &n, &info);
  dgetrs_("N", &n, &nrhs, a, &n, ipiv, b, &n, &info);
  dposv_("U", &n, &nrhs, a, &n, b, &n, &info);
  dormqr_("L", "T", &m, &n, &k, a, &m, tau, c, &m, work, &lwork, &info);
  dsyevd_("V", "L", &n, a, &n, w, work, &lwork, iwork, &liwork, &info);
  zheevd_("V", "U", &n, za, &n, w, zwork, &lwork, rwork, &lrwork, iwork, &liwork, &info);
  dsyrk_("L", "N", &n, &k, &alpha, a, &n, &beta, c, &n);
  dtrsm_("L", "L", "N", "U", &m, &n, &alpha, a, &m, b, &m);
  zherk_("U", "C", &n, &k, &alpha, za, &k, &beta, zc, &n);
#endif
  dgemm_("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &beta, c, &m, 1, 1);
  zgemm_("C", "N", &m, &n, &k, &zalpha, za, &k, zb, &k, &zbeta, zc, &m, 1, 1);
  dpotrf_("L", &n, a, &n, &info, 1);
  dgetrs_("N", &n, &nrhs, a, &n, ipiv, b, &n, &info, 1);
  dposv_("U", &n, &nrhs, a, &n, b, &n, &info, 1);
  dormqr_("L", "T", &m, &n, &k, a, &m, tau, c, &m, work, &lwork, &info, 1, 1);
  dsyevd_("V", "L", &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  zheevd_("V", "U", &n, za, &n, w, zwork, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1, 1);
  dsyrk_("L", "N", &n, &k, &alpha, a, &n, &beta, c, &n, 1, 1);
  dtrsm_("L", "L", "N", "U", &m, &n, &alpha, a, &m, b, &m, 1, 1, 1, 1);
  zherk_("U", "C", &n, &k, &alpha, za, &k, &beta, zc, &n, 1, 1);
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
