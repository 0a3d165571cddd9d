#pragma once
// Scalar operations the factorization kernels need beyond core/complex.h, for float, double,
// Complex<float> and Complex<double> alike: the pivot measure of reference I?AMAX, the modulus,
// division as gfortran compiles it, and warp shuffles of either kind of value.
#include <cuda_runtime.h>

#include "core/complex.h"

namespace cudrop::kernels {

// I?AMAX's measure: |a| for a real a, |Re a| + |Im a| for a complex one (reference SCABS1).
template <class R>
__device__ __forceinline__ R abs1(R a) { return fabs(a); }
template <class R>
__device__ __forceinline__ R abs1(Complex<R> a) { return fabs(a.re) + fabs(a.im); }

// The modulus (Fortran ABS): the hypotenuse for a complex value.
template <class R>
__device__ __forceinline__ R modulus(R a) { return fabs(a); }
template <class R>
__device__ __forceinline__ R modulus(Complex<R> a) { return hypot(a.re, a.im); }

// a / b. Complex: Smith's scaled division, gfortran's (-fcx-fortran-rules: range reduction,
// no recovery of an infinite result that came out NaN).
template <class R>
__device__ __forceinline__ R divide(R a, R b) { return a / b; }
template <class R>
__device__ __forceinline__ Complex<R> divide(Complex<R> a, Complex<R> b) {
  if (fabs(b.re) < fabs(b.im)) {
    const R ratio = b.re / b.im, d = b.re * ratio + b.im;
    return {(a.re * ratio + a.im) / d, (a.im * ratio - a.re) / d};
  }
  const R ratio = b.im / b.re, d = b.im * ratio + b.re;
  return {(a.im * ratio + a.re) / d, (a.im - a.re * ratio) / d};
}

template <class R>
__device__ __forceinline__ R shfl(R v, int src, unsigned mask = 0xffffffffu) { return __shfl_sync(mask, v, src); }
template <class R>
__device__ __forceinline__ Complex<R> shfl(Complex<R> v, int src, unsigned mask = 0xffffffffu) {
  return {__shfl_sync(mask, v.re, src), __shfl_sync(mask, v.im, src)};
}

}  // namespace cudrop::kernels
