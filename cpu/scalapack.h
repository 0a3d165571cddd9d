#pragma once
// ScaLAPACK and its BLACS as the process has them: found at run time, never linked, so that a
// program without MPI loads cudrop as before. The ScaLAPACK routine a call goes to is the one
// after cudrop in the lookup order (the program's own library); BLACS is whatever the process
// has loaded (Debian's libscalapack holds it).
#include <cstddef>

namespace cudrop::cpu {

// BLACS's Fortran interface (written in C: no hidden string lengths).
struct Blacs {
  void (*gridinfo)(const int *context, int *nprow, int *npcol, int *myrow, int *mycol);
  // A broadcast of an m x n column-major matrix (leading dimension lda) within `scope` ("R": the
  // caller's process row, "C": its column, "A": the grid): the sender calls gebs2d, the others
  // gebr2d with the sender's grid coordinates.
  void (*dgebs2d)(const int *context, const char *scope, const char *top, const int *m, const int *n,
                  const double *a, const int *lda);
  void (*dgebr2d)(const int *context, const char *scope, const char *top, const int *m, const int *n, double *a,
                  const int *lda, const int *rsrc, const int *csrc);
  // Point to point: an m x n matrix to the process at (rdest, cdest), from the one at (rsrc, csrc).
  void (*dgesd2d)(const int *context, const int *m, const int *n, const double *a, const int *lda, const int *rdest,
                  const int *cdest);
  void (*dgerv2d)(const int *context, const int *m, const int *n, double *a, const int *lda, const int *rsrc,
                  const int *csrc);
  // Element-wise maximum over `scope`, result to every process (rdest = -1).
  void (*igamx2d)(const int *context, const char *scope, const char *top, const int *m, const int *n, int *a,
                  const int *lda, int *ra, int *ca, const int *ldia, const int *rdest, const int *cdest);
};

// BLACS when every function is there, else nullptr. Cached after the first call that finds it.
const Blacs *blacs();

// The ScaLAPACK routine `symbol` ("pdpotrf_") after cudrop in the lookup order, or nullptr.
void *scalapack_routine(const char *symbol);
// scalapack_routine(), or a message on stderr naming the routine and abort: a program that calls
// a ScaLAPACK routine without a ScaLAPACK after cudrop has no answer to get.
void *require_scalapack_routine(const char *symbol);

}  // namespace cudrop::cpu
