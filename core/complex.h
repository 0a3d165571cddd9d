#pragma once
// The complex element types of the c and z routines (COMPLEX, COMPLEX*16): a real and an
// imaginary part, stored as Fortran and C99 store them, aligned as their real part (a
// Fortran COMPLEX*16 array need not start on 16 bytes). Usable in host and device code, so
// that each algorithm is one template over float, double, Complex<float> and Complex<double>.
#include <type_traits>

#if defined(__CUDACC__)
#define CUDROP_HD __host__ __device__
#else
#define CUDROP_HD
#endif

namespace cudrop {

template <class R>
struct Complex {
  R re, im;
  Complex() = default;
  // T(0), T(1), T(-1) in templates: the real numbers, as for float and double.
  constexpr CUDROP_HD Complex(R real, R imag = R(0)) : re(real), im(imag) {}

  constexpr CUDROP_HD Complex &operator+=(Complex b) { re += b.re; im += b.im; return *this; }
  constexpr CUDROP_HD Complex &operator-=(Complex b) { re -= b.re; im -= b.im; return *this; }
  constexpr CUDROP_HD Complex &operator*=(Complex b) { return *this = *this * b; }
  friend constexpr CUDROP_HD Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
  friend constexpr CUDROP_HD Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
  friend constexpr CUDROP_HD Complex operator-(Complex a) { return {-a.re, -a.im}; }
  // The textbook product, as the reference BLAS compiles it (no Annex G special cases for
  // infinities: gfortran's default).
  friend constexpr CUDROP_HD Complex operator*(Complex a, Complex b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  friend constexpr CUDROP_HD Complex operator*(R a, Complex b) { return {a * b.re, a * b.im}; }
  friend constexpr CUDROP_HD Complex operator*(Complex a, R b) { return {a.re * b, a.im * b}; }
  friend constexpr CUDROP_HD bool operator==(Complex a, Complex b) { return a.re == b.re && a.im == b.im; }
  friend constexpr CUDROP_HD bool operator!=(Complex a, Complex b) { return !(a == b); }
};
static_assert(sizeof(Complex<double>) == 16 && alignof(Complex<double>) == alignof(double), "Fortran COMPLEX*16");
static_assert(std::is_trivially_copyable_v<Complex<float>>, "copied as bytes");

template <class T> struct ComplexTraits {
  static constexpr bool is_complex = false;
  using Real = T;
};
template <class R> struct ComplexTraits<Complex<R>> {
  static constexpr bool is_complex = true;
  using Real = R;
};
template <class T> inline constexpr bool is_complex_v = ComplexTraits<T>::is_complex;
// float for float and Complex<float>, double for double and Complex<double>.
template <class T> using real_t = typename ComplexTraits<T>::Real;

// conj(x): the conjugate; x itself for a real x. real_part(x): x's real part.
template <class R> constexpr CUDROP_HD R conj(R x) { return x; }
template <class R> constexpr CUDROP_HD Complex<R> conj(Complex<R> x) { return {x.re, -x.im}; }
template <class R> constexpr CUDROP_HD R real_part(R x) { return x; }
template <class R> constexpr CUDROP_HD R real_part(Complex<R> x) { return x.re; }
template <class R> constexpr CUDROP_HD R imag_part(R) { return R(0); }
template <class R> constexpr CUDROP_HD R imag_part(Complex<R> x) { return x.im; }

// How CBLAS passes a scalar: by value for s and d, by address (const void *) for c and z.
template <class T> struct CblasScalarOf { using type = T; };
template <class R> struct CblasScalarOf<Complex<R>> { using type = const void *; };
template <class T> using CblasScalar = typename CblasScalarOf<T>::type;
// The scalar a CBLAS entry received, as a value.
template <class T> inline T cblas_scalar(CblasScalar<T> s) {
  if constexpr (is_complex_v<T>) return *static_cast<const T *>(s);
  else return s;
}

}  // namespace cudrop
