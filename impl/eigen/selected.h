#pragma once
// Selected eigenpairs of symmetric and Hermitian matrices on the GPU: xSYEVR/xHEEVR and
// xSYEVX/xHEEVX. The reduction and the back-transformation are eigen.h's device interfaces; the
// tridiagonal problem is the reference's own choice of CPU routines on the same (d, e), called
// through the caller's SelectedSolvers (capi: the CPU LAPACK of the entry's own kind).
#include <functional>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"
#include "impl/eigen/eigen.h"

namespace cudrop::impl {

// The CPU tridiagonal routines of these drivers, on real d, e (R float or double), n >= 2; each
// returns its INFO, or -1 where the caller's library lacks it.
template <class R>
struct SelectedSolvers {
  // xSTERF: d := the eigenvalues ascending; e destroyed.
  std::function<int(int n, R *d, R *e)> sterf;
  // xSTEMR('V', 'A', n, d, e, ..., m, w, z, ldz, nzc = n, isuppz, tryrac): every eigenpair
  // (xSYEVR asks it for vectors only); e has n entries (xSTEMR's workspace in its last), z is
  // n x n (ld ldz), isuppz 2n. d and e destroyed.
  std::function<int(int n, R *d, R *e, int *m, R *w, R *z, int ldz, int *isuppz, bool *tryrac)> stemr;
  // xSTEBZ(range, order 'B' (by_block) or 'E', n, vl, vu, il, iu, abstol, d, e, m, nsplit, w,
  // iblock, isplit): w, iblock and isplit have n entries.
  std::function<int(Range range, bool by_block, int n, R vl, R vu, int il, int iu, R abstol, const R *d, const R *e,
                    int *m, int *nsplit, R *w, int *iblock, int *isplit)>
      stebz;
  // xSTEIN(n, d, e, m, w, iblock, isplit, z, ldz, ifail): the eigenvectors of xSTEBZ's w.
  std::function<int(int n, const R *d, const R *e, int m, const R *w, const int *iblock, const int *isplit, R *z,
                    int ldz, int *ifail)>
      stein;
  // Divide and conquer's leaves (stedc_device): xSYEVX's every-eigenpair branch.
  TridiagonalSolver<R> leaf;
};

enum class SelectedDriver : unsigned char { syevr, syevx };

// A call's arguments, checked already (n >= 2): RANGE 'V' selects (vl, vu], 'I' the il-th
// through iu-th eigenvalue (1-based); abstol as the caller gave it.
template <class R>
struct SelectedProblem {
  SelectedDriver driver;
  Jobz jobz;
  Range range;
  Uplo uplo;
  int n;
  R vl, vu;
  int il, iu;
  R abstol;
};

// The results, host arrays of the caller's (written only when the call succeeds): m, w (n), with
// vectors z (n x m, ldz) and for xSYEVR isuppz (2m, written where the reference writes it: its
// xSTEMR path), for xSYEVX ifail (m).
template <class T>
struct SelectedResults {
  int *m;
  real_t<T> *w;
  T *z;
  int ldz;
  int *isuppz, *ifail;
};

// xSYEVR/xHEEVR or xSYEVX/xHEEVX host to host: the n x n Hermitian a (lda, the triangle uplo names;
// read only) up once, reduced on the GPU, the tridiagonal problem on the CPU through `cpu` as the
// reference solves it, the selected eigenvectors back-transformed on the GPU and written once.
// *info := 0. Status::special_values where the reference scales A (its largest entry outside
// [sqrt(smlnum), min(sqrt(bignum), 1/sqrt(sqrt(safmin)))]), A holds Inf or NaN, a reflector needs
// scaling, or a tridiagonal routine returns INFO != 0 (the reference's fallbacks and partial
// results are the CPU routine's own): the CPU routine takes the call, from the caller's
// untouched inputs.
template <class T>
Status selected_eigen_host(const SelectedProblem<real_t<T>> &problem, const T *a, int lda,
                           const SelectedResults<T> &out, int *info, const SelectedSolvers<real_t<T>> &cpu);

}  // namespace cudrop::impl
