#pragma once
// The power method's rule for lambda, shared by the kernels (kernels/power.cuh) and the CPU loop
// (cpu/power_loop.cpp), so that both paths pick the same entry. Plain C++ for the host.
//
// lambda = y_p, p = the first index with the largest |y_i|. Magnitudes are compared as the bit
// patterns of |y_i| (sign bit cleared) read as unsigned integers: for non-negative IEEE
// numbers that is their order, and it extends it to a total order with NaN above Inf, so the
// result does not depend on the order of a parallel reduction, and a NaN anywhere in y makes
// lambda a NaN (-> kNonFinite), as it does on the CPU path (the same function).
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define CUDROP_POWER_RULE_FN __host__ __device__ inline
#else
#define CUDROP_POWER_RULE_FN inline
#endif

namespace cudrop::kernels {

template <class T> struct PowerBits;
template <> struct PowerBits<float> { using type = uint32_t; };
template <> struct PowerBits<double> { using type = uint64_t; };

template <class T>
CUDROP_POWER_RULE_FN typename PowerBits<T>::type power_magnitude_bits(T v) {
  using U = typename PowerBits<T>::type;
  U u;
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) u = __float_as_uint(v);
  else u = static_cast<U>(__double_as_longlong(v));
#else
  std::memcpy(&u, &v, sizeof u);
#endif
  return u & ~(U(1) << (8 * sizeof(U) - 1));
}

// True when candidate (va, ia) is chosen over (vb, ib).
template <class T>
CUDROP_POWER_RULE_FN bool power_better(T va, int ia, T vb, int ib) {
  const auto ma = power_magnitude_bits(va), mb = power_magnitude_bits(vb);
  return ma > mb || (ma == mb && ia < ib);
}

}  // namespace cudrop::kernels
