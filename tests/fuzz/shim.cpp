// libcudrop_fuzz_shim.so: the stand-in, in the fuzzer's process, for the libraries that cudrop's
// other entries run their CPU part on (cpu/backend.cpp finds them among the loaded objects):
//   scipy_dgemm_, scipy_cblas_dgemm           scipy's wheel (LP64)
//   scipy_dgemm_64_, scipy_cblas_dgemm64_     numpy 2.x's wheel (64-bit integers)
//   dgemm_64_, cblas_dgemm64_                 an ILP64 library with OpenBLAS's suffix
// for every routine routines.def finds underneath. Each runs the reference's LP64 routine (its
// address from fuzz_shim_bind): the wheel's names as they are; the ILP64 ones with their
// integers narrowed to int (saturated: a negative size past an int stays illegal for the same
// parameter) and INFO and IPIV widened back. Its routines' error handlers are the program's,
// as the reference's own: the records of the two sides of a case compare (Debian's ILP64
// libraries call their own handlers, which print and stop the process).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tests/fuzz/rows.h"

namespace shim {

template <class T> struct RealOf { using type = T; };
template <class R> struct RealOf<std::complex<R>> { using type = R; };
template <class T> using real_t = typename RealOf<T>::type;
template <class T> using CblasScalar = std::conditional_t<std::is_same_v<T, real_t<T>>, T, const void *>;
enum class Pivot : int64_t {};  // IPIV's element type in the ILP64 names

void *(*g_lp64)(const char *) = nullptr;
template <class Fn> Fn lp64(const char *symbol) { return reinterpret_cast<Fn>(g_lp64(symbol)); }

int narrow(int64_t v) { return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : int(v); }

// One argument as the LP64 routine takes it; anything but an integer passes through.
template <class A> struct Arg {
  A value;
  explicit Arg(A a) : value(a) {}
  void prepare(int) {}
  A get() const { return value; }
  void done() {}
};
template <> struct Arg<const int64_t *> {  // a size or leading dimension (Fortran)
  int value;
  explicit Arg(const int64_t *p) : value(narrow(*p)) {}
  void prepare(int) {}
  const int *get() const { return &value; }
  void done() {}
};
template <> struct Arg<int64_t> {  // the same (CBLAS)
  int value;
  explicit Arg(int64_t v) : value(narrow(v)) {}
  void prepare(int) {}
  int get() const { return value; }
  void done() {}
};
template <> struct Arg<int64_t *> {  // INFO (every LAPACK routine sets it)
  int64_t *out;
  int value = 0;
  explicit Arg(int64_t *p) : out(p) {}
  void prepare(int) {}
  int *get() { return &value; }
  void done() { *out = value; }
};
template <> struct Arg<Pivot *> {  // IPIV, out: only the entries the routine wrote go back
  Pivot *out;
  std::vector<int> value;
  explicit Arg(Pivot *p) : out(p) {}
  void prepare(int count) { value.assign(size_t(std::max(count, 0)), INT_MIN); }
  int *get() { return value.data(); }
  void done() {
    for (size_t i = 0; i < value.size(); ++i)
      if (value[i] != INT_MIN) out[i] = Pivot(value[i]);
  }
};
template <> struct Arg<const Pivot *> {  // IPIV, in
  const Pivot *in;
  std::vector<int> value;
  explicit Arg(const Pivot *p) : in(p) {}
  void prepare(int count) {
    value.resize(size_t(std::max(count, 0)));
    for (size_t i = 0; i < value.size(); ++i) value[i] = narrow(int64_t(in[i]));
  }
  const int *get() const { return value.data(); }
  void done() {}
};

template <class A> int size_value(const Arg<A> &) { return 0; }
int size_value(const Arg<const int64_t *> &a) { return a.value; }
// How many IPIV entries routine `stem` may read or write.
template <class Tuple> int pivot_count(const char *stem, const Tuple &t) {
  if (std::strcmp(stem, "getrf") == 0) return std::min(size_value(std::get<0>(t)), size_value(std::get<1>(t)));
  if (std::strcmp(stem, "gesv") == 0) return size_value(std::get<0>(t));
  if (std::strcmp(stem, "getrs") == 0) return size_value(std::get<1>(t));
  // The symmetric indefinite routines (uplo, n, ...): n, out or in.
  for (const char *n_second : {"sytrf", "hetrf", "sytrs", "hetrs", "sysv", "hesv"})
    if (std::strcmp(stem, n_second) == 0) return size_value(std::get<1>(t));
  if constexpr (std::tuple_size_v<Tuple> > 4)
    if (std::strcmp(stem, "laswp") == 0) return size_value(std::get<4>(t));  // K2
  return 0;
}

// The ILP64 routine `stem`: the LP64 one on the narrowed arguments.
template <class Fn, class... A> void narrowed(const char *symbol, const char *stem, A... args) {
  std::tuple<Arg<A>...> t{Arg<A>(args)...};
  const int count = pivot_count(stem, t);
  std::apply([&](auto &...a) { (a.prepare(count), ...); }, t);
  std::apply([&](auto &...a) { lp64<Fn>(symbol)(a.get()...); }, t);
  std::apply([](auto &...a) { (a.done(), ...); }, t);
}

}  // namespace shim

extern "C" __attribute__((visibility("default"))) void fuzz_shim_bind(void *(*lp64)(const char *)) {
  shim::g_lp64 = lp64;
}

#define SHIM_ENTRIES(p, T_, kind, stem, parameters, arguments)                                           \
  namespace shim::p##stem##_##kind {                                                                     \
  namespace lp64_names {                                                                                 \
  using T = T_;                                                                                          \
  using I = int;                                                                                         \
  using P = int;                                                                                         \
  using Fn = void(*) parameters;                                                                         \
  extern "C" __attribute__((visibility("default"))) void CUDROP_SYMBOL_WHEEL(kind, p, stem) parameters { \
    lp64<Fn>(CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem))) arguments;                                     \
  }                                                                                                      \
  }                                                                                                      \
  namespace ilp64_names {                                                                                \
  using T = T_;                                                                                          \
  using I = int64_t;                                                                                     \
  using P = Pivot;                                                                                       \
  extern "C" __attribute__((visibility("default"))) void CUDROP_SYMBOL_WHEEL64(kind, p, stem) parameters { \
    narrowed<lp64_names::Fn>(CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem)), #stem, CUDROP_UNPAREN arguments); \
  }                                                                                                      \
  extern "C" __attribute__((visibility("default"))) void CUDROP_SYMBOL64(kind, p, stem) parameters {     \
    narrowed<lp64_names::Fn>(CUDROP_STRING(CUDROP_SYMBOL(kind, p, stem)), #stem, CUDROP_UNPAREN arguments); \
  }                                                                                                      \
  }                                                                                                      \
  }
#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  CUDROP_IF_UNDERNEATH(kind)(FUZZ_EACH_PRECISION(precisions, SHIM_ENTRIES, kind, stem, parameters, arguments))
#include "routines.def"
#undef CUDROP_ROUTINE
