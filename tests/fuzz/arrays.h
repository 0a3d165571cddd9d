#pragma once
// Values and arrays of the fuzzer's cases, in the four precisions (T: float, double,
// std::complex<float>, std::complex<double>), and the exact comparisons of their outputs.
#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/fuzz/fuzz.h"

namespace fuzz {

template <class T> struct RealOf { using type = T; };
template <class R> struct RealOf<std::complex<R>> { using type = R; };
template <class T> using real_t = typename RealOf<T>::type;
template <class T> constexpr bool is_complex = !std::is_same_v<T, real_t<T>>;

template <class T> constexpr char letter() {
  if constexpr (std::is_same_v<T, float>) return 's';
  else if constexpr (std::is_same_v<T, double>) return 'd';
  else if constexpr (std::is_same_v<T, std::complex<float>>) return 'c';
  else return 'z';
}
// f(T()) for precision `which` of s, d, c, z (0 to 3).
template <class F> void for_precision(uint64_t which, F &&f) {
  switch (which) {
    case 0: return f(float());
    case 1: return f(double());
    case 2: return f(std::complex<float>());
    default: return f(std::complex<double>());
  }
}
template <class T> double epsilon() { return std::numeric_limits<real_t<T>>::epsilon() / 2; }  // LAPACK's EPS

// The parts of a value (a real one's imaginary part is 0), and one made of parts.
template <class T> real_t<T> re(T x) { return std::real(x); }
template <class T> real_t<T> im(T x) { return std::imag(x); }
template <class T> T make(real_t<T> r, real_t<T> i) {
  if constexpr (is_complex<T>) return T(r, i); else { (void)i; return r; }
}
template <class T> bool any_nan(T x) { return std::isnan(re(x)) || std::isnan(im(x)); }
template <class T> bool finite(T x) { return std::isfinite(re(x)) && std::isfinite(im(x)); }
template <class T> bool any_inf(T x) { return std::isinf(re(x)) || std::isinf(im(x)); }
// |re| + |im|: at least the modulus, and what the testers bound complex errors with.
template <class T> double mag(T x) { return std::fabs(double(re(x))) + std::fabs(double(im(x))); }

template <class T> bool same_bits(T x, T y) { return std::memcmp(&x, &y, sizeof(T)) == 0; }
// Output equality: the same bits, part by part, or NaN and NaN (payloads are not specified).
template <class T> bool same(T x, T y) {
  auto part = [](real_t<T> a, real_t<T> b) {
    return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
  };
  return part(re(x), re(y)) && part(im(x), im(y));
}

inline std::string text(double x) {
  char s[48];
  std::snprintf(s, sizeof s, "%.9g", x);
  return s;
}
// A value with its bits: 1.5 (0x3ff8000000000000), complex (re, im) [bits, bits].
template <class T> std::string show(T x) {
  auto hex = [](real_t<T> v) {
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof v);
    char s[24];
    std::snprintf(s, sizeof s, "0x%llx", (unsigned long long)u);
    return std::string(s);
  };
  if constexpr (is_complex<T>)
    return "(" + text(re(x)) + ", " + text(im(x)) + ") [" + hex(re(x)) + ", " + hex(im(x)) + "]";
  else return text(x) + " (" + hex(x) + ")";
}
template <class T> std::string scalar_text(T x) {
  if constexpr (is_complex<T>) return "(" + text(re(x)) + "," + text(im(x)) + ")"; else return text(x);
}

// Fill of guard zones and padding rows: a NaN with a payload no arithmetic produces, so a read
// of it shows up in a result, and a write over it is seen bit for bit.
template <class T> T guard_value() {
  using R = real_t<T>;
  R r;
  if constexpr (sizeof(R) == 4) {
    const uint32_t u = 0x7fa5a5a5u;
    std::memcpy(&r, &u, 4);
  } else {
    const uint64_t u = 0x7ff5a5a5a5a5a5a5ull;
    std::memcpy(&r, &u, 8);
  }
  return make<T>(r, r);
}
constexpr int kIntGuard = 0x5a5a5a5a;
constexpr size_t kGuard = 24;  // elements after every array (and at least as many before it)

template <class R> R special_real(Rng &rng) {
  switch (rng.below(5)) {
    case 0: return std::numeric_limits<R>::quiet_NaN();
    case 1: return std::numeric_limits<R>::infinity();
    case 2: return -std::numeric_limits<R>::infinity();
    case 3: return R(-0.0);
    default: return R(0);
  }
}
// Complex: one part special, the other special or ordinary.
template <class T> T special(Rng &rng) {
  using R = real_t<T>;
  const R s = special_real<R>(rng), other = rng.below(2) ? special_real<R>(rng) : R(rng.symmetric());
  return rng.below(2) ? make<T>(s, other) : make<T>(other, s);
}

template <class R> R scalar_real(Rng &rng) {
  switch (rng.below(12)) {
    case 0: return R(0);
    case 1: return R(-0.0);
    case 2: return R(1);
    case 3: return R(-1);
    case 4: return std::numeric_limits<R>::quiet_NaN();
    case 5: return std::numeric_limits<R>::infinity();
    case 6: return -std::numeric_limits<R>::infinity();
    default: return R(rng.symmetric() * 2);
  }
}
// alpha, beta: 0, -0, 1, -1, NaN, Inf, or ordinary; complex ones often real (1, 0 included).
template <class T> T scalar(Rng &rng) {
  using R = real_t<T>;
  const R r = scalar_real<R>(rng);
  if (!is_complex<T>) return make<T>(r, 0);
  const uint64_t k = rng.below(4);
  return make<T>(r, k == 0 ? R(0) : k == 1 ? R(-0.0) : scalar_real<R>(rng));
}

// A dimension: mostly small, sometimes 0, negative or up to 140; 1, 7 and 33 favored.
inline int dimension(Rng &rng) {
  const uint64_t r = rng.below(1000);
  if (r < 15) { const int bad[] = {-1, -2, -7, INT_MIN}; return bad[rng.below(4)]; }
  if (r < 90) return 0;
  if (r < 200) { const int odd[] = {1, 7, 33}; return odd[rng.below(3)]; }
  if (r < 600) return 1 + int(rng.below(8));
  if (r < 985) return 1 + int(rng.below(40));
  return 41 + int(rng.below(100));
}

// A leading dimension for an operand of `rows` rows: too small, exactly minimal, or padded.
inline int leading_dimension(Rng &rng, int rows) {
  const int minimal = rows > 1 ? rows : 1;
  const uint64_t r = rng.below(100);
  if (r < 5) return minimal - 1;                 // too small (0 for rows <= 1)
  if (r < 7) { const int bad[] = {0, -1, -2, INT_MIN}; return bad[rng.below(4)]; }
  if (r < 55) return minimal;
  return minimal + 1 + int(rng.below(5));
}

// One array in column-major order (rows x cols, leading dimension ld) inside guard zones, its
// first entry kGuard or kGuard + 1 elements into the buffer (an odd element offset: not
// 16-byte aligned). The padding rows (ld > rows) and the guard zones hold guard_value. An
// illegal ld (< rows) still gets room for rows x cols (nothing may read it).
template <class T> struct Array {
  int rows = 0, cols = 0, ld = 0;
  long stride = 1;
  size_t offset = kGuard;
  std::vector<T> data;
  T *p() { return data.data() + offset; }
  const T *p() const { return data.data() + offset; }
  T &at(int i, int j) { return p()[i + j * stride]; }
  T at(int i, int j) const { return p()[i + j * stride]; }
  bool is_entry(size_t index) const {  // data index -> inside rows x cols?
    if (index < offset) return false;
    const long e = long(index - offset);
    if (e >= stride * cols) return false;
    return e % stride < rows;
  }
};

enum class Fill { Random, Integer, Special };

template <class T> T random_value(Rng &rng, Fill fill) {
  if (fill == Fill::Integer) return make<T>(real_t<T>(int(rng.below(5)) - 2), real_t<T>(int(rng.below(5)) - 2));
  return make<T>(real_t<T>(rng.symmetric()), real_t<T>(rng.symmetric()));
}

template <class T> Array<T> make_array(Rng &rng, int rows, int cols, int ld, Fill fill) {
  Array<T> a;
  a.rows = rows > 0 ? rows : 0;
  a.cols = cols > 0 ? cols : 0;
  a.ld = ld;
  a.stride = std::max<long>({long(ld), long(a.rows), 1L});
  a.offset = kGuard + rng.below(2);
  a.data.assign(a.offset + kGuard + size_t(a.stride) * size_t(a.cols), guard_value<T>());
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) a.at(i, j) = random_value<T>(rng, fill == Fill::Integer ? fill : Fill::Random);
  if (fill == Fill::Special && a.rows > 0 && a.cols > 0) {
    const int count = 1 + int(rng.below(4));
    for (int s = 0; s < count; ++s) a.at(int(rng.below(a.rows)), int(rng.below(a.cols))) = special<T>(rng);
  }
  return a;
}

inline Fill pick_fill(Rng &rng) {
  const uint64_t r = rng.below(100);
  return r < 15 ? Fill::Special : r < 22 ? Fill::Integer : Fill::Random;
}

template <class T> bool any_inf(const Array<T> &a) {
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) if (any_inf(a.at(i, j))) return true;
  return false;
}
template <class T> bool any_nonfinite(const Array<T> &a, int rows, int cols) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) if (!finite(a.at(i, j))) return true;
  return false;
}

// Bits of everything outside rows x cols (guards, padding) must equal the original's.
template <class T> void check_untouched_outside(const char *what, const Array<T> &orig, const Array<T> &got) {
  for (size_t x = 0; x < orig.data.size(); ++x)
    if (!orig.is_entry(x) && !same_bits(orig.data[x], got.data[x])) {
      const bool guard = x < orig.offset || x >= orig.data.size() - kGuard;
      difference("cudrop wrote %s %s (data index %zu)", what, guard ? "guard zone" : "padding row", x);
      return;
    }
}
// The whole array (an input) must be bit for bit the original.
template <class T> void check_unchanged(const char *what, const Array<T> &orig, const Array<T> &got) {
  for (size_t x = 0; x < orig.data.size(); ++x)
    if (!same_bits(orig.data[x], got.data[x])) {
      difference("cudrop changed input %s at data index %zu", what, x);
      return;
    }
}
// Entries must match the reference's (same bits; any NaN equals any NaN).
template <class T> void check_same_entries(const char *what, const Array<T> &ref, const Array<T> &got) {
  for (int j = 0; j < ref.cols; ++j)
    for (int i = 0; i < ref.rows; ++i)
      if (!same(ref.at(i, j), got.at(i, j))) {
        difference("%s(%d,%d): reference %s, cudrop %s", what, i + 1, j + 1, show(ref.at(i, j)).c_str(),
                   show(got.at(i, j)).c_str());
        return;
      }
}

// IPIV (I: int, or int64_t for the ILP64 names): `count` entries inside guard zones of
// kIntGuard, initially kIntGuard or the given values.
template <class I> struct Pivots {
  std::vector<I> data;
  int count = 0;
  I *p() { return data.data() + kGuard; }
  const I *p() const { return data.data() + kGuard; }
  int64_t at(int i) const { return int64_t(p()[i]); }
};
template <class I> Pivots<I> make_pivots(int count, const std::vector<int> &values = {}) {
  Pivots<I> v;
  v.count = std::max(count, 0);
  v.data.assign(2 * kGuard + std::max(v.count, 1), I(kIntGuard));
  for (size_t i = 0; i < values.size() && int(i) < v.count; ++i) v.p()[i] = I(values[i]);
  return v;
}
// The same entries and guards as 64-bit values (the two sides of a case compare in one type).
template <class I> Pivots<int64_t> widened(const Pivots<I> &v) {
  Pivots<int64_t> w;
  w.count = v.count;
  w.data.assign(v.data.begin(), v.data.end());
  return w;
}
// Only the first `written` entries may differ from `orig`.
template <class I> void check_pivots_outside(const Pivots<I> &orig, const Pivots<I> &got, int written) {
  for (size_t i = 0; i < orig.data.size(); ++i) {
    const bool entry = i >= kGuard && long(i - kGuard) < written;
    if (!entry && orig.data[i] != got.data[i]) {
      difference("cudrop wrote IPIV outside its %d entries (index %ld)", written, long(i) - long(kGuard));
      return;
    }
  }
}

}  // namespace fuzz
