/* header_calls.c: include/cudrop.h's Fortran-interface routines called from C with their hidden
 * CHARACTER lengths left out and with them given. Compiled only (-fsyntax-only, with -pedantic
 * -Wall -Wextra -Werror, as C99 and as C11: tests/CMakeLists.txt); nothing here runs. Compiled
 * with -DCUDROP_NO_STRLEN_MACROS, the header must define no such macro and the calls that give
 * every argument must still compile. (A call with some of the lengths, a 14-argument dgemm_,
 * must not compile; the compiler says "too few arguments to function 'dgemm_'".)
 * A routine added to the header with hidden lengths gets its two lines in header_every_routine.inc. */
#define CUDROP_COMPLEX_DOUBLE double _Complex /* CUDROP_COMPLEX_FLOAT left void */
#include <cudrop.h>

#if defined(CUDROP_NO_STRLEN_MACROS) && (defined(dgemm_) || defined(xerbla_) || defined(pdpotrf_))
#error "CUDROP_NO_STRLEN_MACROS: cudrop.h defined a routine's macro"
#endif
#if !defined(CUDROP_NO_STRLEN_MACROS) && !(defined(dgemm_) && defined(ztrsm_) && defined(xerbla_))
#error "cudrop.h defined no macro for the routines with hidden lengths"
#endif

void typed_calls(void);
void every_routine(void);
void addresses(void);

/* As a C program writes them. */
void typed_calls(void) {
  const int m = 2, n = 2, k = 2, nrhs = 1, lwork = 64, liwork = 16, lrwork = 64;
  int info = 0, ipiv[2] = {1, 2}, iwork[16];
  const double alpha = 1, beta = 0;
  double a[4] = {0}, b[4] = {0}, c[4] = {0}, w[2], tau[2] = {0}, work[64], rwork[64];
  const double _Complex zalpha = 1, zbeta = 0;
  double _Complex za[4] = {0}, zb[4] = {0}, zc[4] = {0}, zwork[64];
#include "header_typed_calls.inc"
}

/* Every routine with hidden lengths, both ways (0: a null pointer or a length). */
void every_routine(void) {
#include "header_every_routine.inc"
}

/* A routine's name not followed by '(' is the function itself; in parentheses it is called
 * without the macro. */
typedef void Dpotrf(const char *, const int *, double *, const int *, int *, size_t);
void addresses(void) {
  Dpotrf *f = dpotrf_;
  Dpotrf *g = &dpotrf_;
  const int n = 1;
  int info;
  double a[1] = {1};
  (dpotrf_)("L", &n, a, &n, &info, 1);
  f("L", &n, a, &n, &info, 1);
  g("L", &n, a, &n, &info, 1);
}
