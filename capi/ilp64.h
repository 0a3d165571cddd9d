#pragma once
// The ILP64 entries (64-bit integers; capi/exports64.cpp): the LP64 entry of the same routine
// (its checks, quick returns, GPU or CPU) on the caller's values narrowed to int, with the
// ILP64 CPU routine underneath for every CPU run and illegal call (cpu::entry_cpu_call), so
// that handlers and results are the ILP64 library's. A size, leading dimension or IPIV value
// past an int sends the whole call to the ILP64 CPU routine: impl's device paths index with
// int (docs/ilp64-plan.md: GEMM past 2^31 on the GPU is future work).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <new>
#include <tuple>
#include <utility>
#include <vector>

#include "core/routines.h"
#include "cpu/backend.h"
#include "route/dispatch.h"

namespace cudrop::capi::ilp64 {

// The element type of an INTEGER array of results (IPIV; ISUPPZ, IFAIL) in an ILP64 entry:
// int64_t in memory, a type of its own so that the narrowing below tells it from a size.
enum class Pivot : int64_t {};

// What an int copy of such an array holds where the LP64 path wrote nothing (no LAPACK routine
// writes it there): those entries of the caller's array keep their values. The reference leaves
// parts of these arrays alone (ISUPPZ outside the xSTEMR path, IFAIL without vectors), and a
// caller may pass a shorter array than the count below allows for (ISUPPZ of 2*M).
constexpr int kUnwritten = INT_MIN;

inline bool fits(int64_t v) { return v >= INT_MIN && v <= INT_MAX; }

// One argument as the LP64 entry takes it. Anything but an integer passes through.
template <class A>
struct Narrow {
  A value;
  bool fits = true;
  explicit Narrow(A a) : value(a) {}
  A get() const { return value; }
};
template <>
struct Narrow<const int64_t *> {  // a size or leading dimension (Fortran)
  int value;
  bool fits;
  explicit Narrow(const int64_t *p) : value(int(*p)), fits(ilp64::fits(*p)) {}
  const int *get() const { return &value; }
};
template <>
struct Narrow<int64_t> {  // the same (CBLAS)
  int value;
  bool fits;
  explicit Narrow(int64_t v) : value(int(v)), fits(ilp64::fits(v)) {}
  int get() const { return value; }
};
template <>
struct Narrow<int64_t *> {  // INFO, copied out after an LP64 run
  int64_t *out;
  int value = 0;
  bool fits = true;
  explicit Narrow(int64_t *p) : out(p) {}
  int *get() { return &value; }
};
// IPIV, out (getrf, gesv) or in (getrs), ISUPPZ, IFAIL (out): an int copy, as long as the
// routine's count (PivotCount), filled in after the narrowed sizes are known.
template <>
struct Narrow<Pivot *> {
  Pivot *out;
  std::vector<int> value;
  bool fits = true;
  explicit Narrow(Pivot *p) : out(p) {}
  int *get() { return value.data(); }
};
template <>
struct Narrow<const Pivot *> {
  const Pivot *in;
  std::vector<int> value;
  bool fits = true;
  explicit Narrow(const Pivot *p) : in(p) {}
  const int *get() const { return value.data(); }
};

template <class N> void size_pivots(N &, int) {}
inline void size_pivots(Narrow<Pivot *> &n, int count) { n.value.assign(size_t(std::max(count, 0)), kUnwritten); }
inline void size_pivots(Narrow<const Pivot *> &n, int count) {
  n.value.resize(size_t(std::max(count, 0)));
  for (size_t i = 0; i < n.value.size(); ++i) {
    const int64_t v = static_cast<int64_t>(n.in[i]);
    n.fits = n.fits && ilp64::fits(v);
    n.value[i] = int(v);
  }
}
template <class N> void copy_out(N &) {}
inline void copy_out(Narrow<int64_t *> &n) { *n.out = n.value; }
inline void copy_out(Narrow<Pivot *> &n) {
  for (size_t i = 0; i < n.value.size(); ++i)
    if (n.value[i] != kUnwritten) n.out[i] = Pivot(n.value[i]);
}

// How many entries of its P array the routine reads or writes at most, from its narrowed
// arguments (0 without one).
template <Family F>
struct PivotCount {
  template <class Tuple> static int of(const Tuple &) { return 0; }
};
template <>
struct PivotCount<Family::getrf> {  // (m, n, a, lda, ipiv, info): min(m, n)
  template <class Tuple> static int of(const Tuple &t) { return std::min(std::get<0>(t).value, std::get<1>(t).value); }
};
template <>
struct PivotCount<Family::gesv> {  // (n, nrhs, a, lda, ipiv, ...): n
  template <class Tuple> static int of(const Tuple &t) { return std::get<0>(t).value; }
};
// (trans, n, nrhs, a, lda, ipiv, b, ldb, ...): n, read only where the reference reads IPIV (a
// legal call with NRHS > 0): an illegal call's IPIV may be anything.
template <>
struct PivotCount<Family::getrs> {
  template <class Tuple> static int of(const Tuple &t) {
    const char trans = *std::get<0>(t).value;
    const int n = std::get<1>(t).value, nrhs = std::get<2>(t).value;
    const bool legal = (trans == 'N' || trans == 'n' || trans == 'T' || trans == 't' || trans == 'C' ||
                        trans == 'c') && n >= 0 && nrhs > 0 && std::get<4>(t).value >= std::max(1, n) &&
                       std::get<7>(t).value >= std::max(1, n);
    return legal ? n : 0;
  }
};

// IPIV of the symmetric indefinite routines (uplo, n, ...): out (?sytrf_, ?hetrf_, ?sysv_,
// ?hesv_): n; in (?sytrs_, ?hetrs_: uplo, n, nrhs, a, lda, ipiv, b, ldb, ...): n where the
// reference reads it (a legal call with NRHS > 0), as ?getrs_.
template <>
struct PivotCount<Family::sytrf> {
  template <class Tuple> static int of(const Tuple &t) { return std::get<1>(t).value; }
};
template <> struct PivotCount<Family::hetrf> : PivotCount<Family::sytrf> {};
template <> struct PivotCount<Family::sysv> : PivotCount<Family::sytrf> {};
template <> struct PivotCount<Family::hesv> : PivotCount<Family::sytrf> {};
template <>
struct PivotCount<Family::sytrs> {
  template <class Tuple> static int of(const Tuple &t) {
    const char uplo = *std::get<0>(t).value;
    const int n = std::get<1>(t).value, nrhs = std::get<2>(t).value;
    const bool legal = (uplo == 'U' || uplo == 'u' || uplo == 'L' || uplo == 'l') && n >= 0 && nrhs > 0 &&
                       std::get<4>(t).value >= std::max(1, n) && std::get<7>(t).value >= std::max(1, n);
    return legal ? n : 0;
  }
};
template <> struct PivotCount<Family::hetrs> : PivotCount<Family::sytrs> {};

// JPVT (m, n, ...): N, of a call whose sizes the reference accepts (an illegal call's JPVT may
// be anything); read as well as written (kPivotsIn).
template <>
struct PivotCount<Family::geqp3> {
  template <class Tuple> static int of(const Tuple &t) {
    const int m = std::get<0>(t).value, n = std::get<1>(t).value;
    return m >= 0 && n >= 0 && std::get<3>(t).value >= std::max(1, m) ? n : 0;
  }
};
template <>
struct PivotCount<Family::gelsy> {  // (m, n, nrhs, a, lda, b, ldb, jpvt, ...)
  template <class Tuple> static int of(const Tuple &t) {
    const int m = std::get<0>(t).value, n = std::get<1>(t).value, nrhs = std::get<2>(t).value;
    return m >= 0 && n >= 0 && nrhs >= 0 && std::get<4>(t).value >= std::max(1, m) &&
                   std::get<6>(t).value >= std::max({1, m, n})
               ? n
               : 0;
  }
};
// Rows whose P array is read as well as written: its int copy starts from the caller's values.
template <Family F> constexpr bool kPivotsIn = false;
template <> inline constexpr bool kPivotsIn<Family::geqp3> = true;
template <> inline constexpr bool kPivotsIn<Family::gelsy> = true;
inline void size_pivots_in(Narrow<Pivot *> &n, int count) {
  n.value.resize(size_t(std::max(count, 0)));
  for (size_t i = 0; i < n.value.size(); ++i) {
    const int64_t v = static_cast<int64_t>(n.out[i]);
    n.fits = n.fits && ilp64::fits(v);
    n.value[i] = int(v);
  }
}
template <class N> void size_pivots_in(N &n, int count) { size_pivots(n, count); }

// ISUPPZ (jobz, range, uplo, n, ...): 2 max(1, N) (M <= N); an order past INT_MAX / 2 never
// reaches the GPU path (its matrix alone is past 2^61 elements), which alone writes ISUPPZ.
template <>
struct PivotCount<Family::syevr> {
  template <class Tuple> static int of(const Tuple &t) {
    return int(std::min<long long>(INT_MAX, 2LL * std::max(1, std::get<3>(t).value)));
  }
};
template <>
struct PivotCount<Family::heevr> : PivotCount<Family::syevr> {};
// IFAIL (jobz, range, uplo, n, ...): N.
template <>
struct PivotCount<Family::syevx> {
  template <class Tuple> static int of(const Tuple &t) { return std::max(0, std::get<3>(t).value); }
};
template <>
struct PivotCount<Family::heevx> : PivotCount<Family::syevx> {};

// An entry's own CPU run (cpu::EntryCpuCall): `underneath` with the caller's own arguments.
template <class... A>
struct CallerArguments {
  cpu::Routine underneath;
  std::tuple<A...> args;
  static void run(void *context) {
    auto *call = static_cast<CallerArguments *>(context);
    std::apply([&](A... a) { reinterpret_cast<void (*)(A...)>(cpu::require(call->underneath))(a...); }, call->args);
  }
};

// Runs lp64(lp64_args..., caller) with `original` pending as this thread's CPU run; true when
// a CPU run took it (the LP64 path's outputs were then never written).
template <class... A, class Lp64Call>
bool with_entry_cpu_call(CallerArguments<A...> &original, Lp64Call &&lp64_call) {
  cpu::EntryCpuCall pending{&CallerArguments<A...>::run, &original, false, original.underneath};
  cpu::EntryCpuCall *outer = cpu::entry_cpu_call;
  cpu::entry_cpu_call = &pending;
  lp64_call();
  cpu::entry_cpu_call = outer;
  return pending.taken;
}

// The ILP64 entry of routine F in precision T: lp64 is the LP64 capi entry, args the caller's,
// underneath the ILP64 routine for the CPU run (names.cpu64, or a wheel's names.cpu_wheel64).
template <Family F, class T, class Lp64, class... A>
void call(cpu::Routine underneath, Lp64 lp64, const void *caller, A... args) {
  const CallerScope scope(caller);
  CallerArguments<A...> original{underneath, {args...}};
  std::tuple<Narrow<A>...> narrow{Narrow<A>(args)...};
  const auto all_fit = [&] { return std::apply([](const auto &...n) { return (n.fits && ...); }, narrow); };
  if (!all_fit()) return CallerArguments<A...>::run(&original);  // the sizes first: IPIV's copy is as long as they say
  const int pivots = PivotCount<F>::of(narrow);
  try {
    if constexpr (kPivotsIn<F>) std::apply([&](auto &...n) { (size_pivots_in(n, pivots), ...); }, narrow);
    else std::apply([&](auto &...n) { (size_pivots(n, pivots), ...); }, narrow);
  } catch (const std::bad_alloc &) {
    return CallerArguments<A...>::run(&original);  // no memory for IPIV's int copy: the ILP64 routine needs none
  }
  if (!all_fit()) return CallerArguments<A...>::run(&original);  // an IPIV value past an int
  const bool taken = with_entry_cpu_call(original, [&] { std::apply([&](auto &...n) { lp64(n.get()..., caller); }, narrow); });
  if (!taken) std::apply([](auto &...n) { (copy_out(n), ...); }, narrow);
}

// An entry with the LP64 routine's arguments whose CPU run is another library's routine of
// the same ABI, `underneath` (scipy's wheel: scipy_dgemm_).
template <class Lp64, class... A>
void call_lp64(cpu::Routine underneath, Lp64 lp64, const void *caller, A... args) {
  const CallerScope scope(caller);
  CallerArguments<A...> original{underneath, {args...}};
  with_entry_cpu_call(original, [&] { lp64(args..., caller); });
}

}  // namespace cudrop::capi::ilp64
