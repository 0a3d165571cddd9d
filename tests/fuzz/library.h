#pragma once
// The two libraries a case calls (library.cpp loads them), the C types of their routines, and
// how one case's call is made in both and its records compared.
#include <cstring>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "tests/fuzz/arrays.h"
#include "tests/fuzz/handlers.h"
// cudrop.h's complex arguments as the fuzzer's (library.cpp defines Fortran names of its own).
#define CUDROP_COMPLEX_FLOAT std::complex<float>
#define CUDROP_COMPLEX_DOUBLE std::complex<double>
#include "tests/harness/gpu.h"

namespace fuzz {

template <class T> using CblasScalar = std::conditional_t<is_complex<T>, const void *, T>;
// A CBLAS scalar argument: the value (s, d), its address (c, z).
template <class T> CblasScalar<T> cblas_scalar(const T &x) {
  if constexpr (is_complex<T>) return &x; else return x;
}

// The C type of every routines.def row, a template of the element type T, the index type I and
// IPIV's element type P: sig::gemm_blas<T, I>, sig::gemm_cblas<T, I>, sig::getrf_lapack<T, I>,
// sig::power_ext<T>; a row of precisions czown (c and z with parameters of their own):
// sig::gesdd_lapack_cz<T, I>.
namespace sig {
#define FUZZ_SIG_NAME_sd(kind, stem) stem##_##kind
#define FUZZ_SIG_NAME_cz FUZZ_SIG_NAME_sd
#define FUZZ_SIG_NAME_sdcz FUZZ_SIG_NAME_sd
#define FUZZ_SIG_NAME_none FUZZ_SIG_NAME_sd
#define FUZZ_SIG_NAME_czown(kind, stem) stem##_##kind##_cz
#define CUDROP_ROUTINE(kind, stem, precisions, entry, parameters, arguments, renumbering) \
  template <class T, class I = int, class P = I> using FUZZ_SIG_NAME_##precisions(kind, stem) = void(*) parameters;
#include "routines.def"
#undef CUDROP_ROUTINE
}  // namespace sig

enum class Kind { blas, lapack, cblas, ext };
// The linker name of routine `stem` of `kind` in precision p under `names`.
std::string symbol(Kind kind, char p, const char *stem, Names names);
template <class T> std::string symbol(Kind kind, const char *stem, Names names) {
  return symbol(kind, letter<T>(), stem, names);
}

struct Library {
  const char *name;
  std::vector<void *> handles;  // searched in order
  std::unordered_map<std::string, void *> symbols;  // found so far, and given ones (power.cpp's model)
  void *find(const std::string &symbol);  // exits (status 2) where the library lacks it
  template <class Fn> Fn get(const std::string &symbol) { return reinterpret_cast<Fn>(find(symbol)); }
};
extern Library g_reference, g_cudrop;
extern Library *g_running;  // the library whose entry is running (library.cpp's forwarders)

// Loads both libraries and the stand-in for the wheels' and ILP64 libraries (shim.cpp); exits
// with harness::kSkipped without the reference libraries. reference_path: the reference
// library `file` ("blas/libblas.so.3") under the root CUDROP_NETLIB_DIR names, or under /.
void load_libraries();
std::string reference_path(const char *file);
void register_power_model(Library &reference);  // power.cpp

// `works`: a legal call that computes (no quick return): counted, and where cudrop ran it
// checked against --mode-expect.
void check_counts(const harness::Counters &before, const harness::Counters &after, bool works);
void check_handlers(const std::vector<HandlerCall> &ref, const std::vector<HandlerCall> &got);

// One case's call, made by call(library, out, names) once in the reference (under its LP64
// names) and once in cudrop (under `names`; where cudrop ran it counted), each time with the
// error handlers it reached recorded in out.handlers; then the two records compared.
template <class Run, class Call>
void run_both(bool works, Names names, Run &ref, Run &got, Call &&call) {
  auto once = [&](Library &lib, Run &out, Names as) {
    g_handler_calls.clear();
    g_running = &lib;
    call(lib, out, as);
    g_running = &g_reference;
    out.handlers = g_handler_calls;
  };
  once(g_reference, ref, Names::lp64);
  const harness::Counters before = harness::Counters::now();
  once(g_cudrop, got, names);
  check_counts(before, harness::Counters::now(), works);
  check_handlers(ref.handlers, got.handlers);
}

// What an ILP64 name gets for a size or leading dimension that is INT_MIN for the LP64
// reference (entries.cpp sets it): INT_MIN, or a negative value past an int, which cudrop
// hands whole to the ILP64 routine underneath, and which shim.cpp's stand-in for that routine
// narrows back to INT_MIN (always illegal: the same parameter reported).
extern int64_t g_wide_int_min;

// The scalar arguments of a call (Fortran passes them by address) in index type I.
template <class T, class I> struct Scalars {
  using Index = I;
  char ch[4];
  I in[8];
  T t[2];
  real_t<T> r[3];
};
// A case's scalars: option letters, integers (sizes, leading dimensions), alpha and beta, and
// real ones (HERK's and HER2K's alpha and beta; VL, VU and ABSTOL).
template <class T> struct Args {
  char ch[4] = {};
  int in[8] = {};
  T t[2] = {};
  real_t<T> r[3] = {};
};
// f(s) on a fresh copy s of `args` in the index type `names` takes; after cudrop's call, the
// copy must still equal the original, byte for byte (a callee may not write its inputs).
template <class T, class I, class F> void with_scalars_as(const Args<T> &args, const Library &lib, F &&f) {
  Scalars<T, I> s;
  std::memset(static_cast<void *>(&s), 0, sizeof s);  // padding included: compared below
  std::memcpy(s.ch, args.ch, sizeof s.ch);
  for (int k = 0; k < 8; ++k)
    s.in[k] = std::is_same_v<I, int> || args.in[k] != INT_MIN ? I(args.in[k]) : I(g_wide_int_min);
  std::memcpy(s.t, args.t, sizeof s.t);
  std::memcpy(s.r, args.r, sizeof s.r);
  Scalars<T, I> original;
  std::memcpy(static_cast<void *>(&original), &s, sizeof s);
  f(s);
  if (&lib == &g_cudrop && std::memcmp(&s, &original, sizeof s) != 0)
    difference("cudrop changed a scalar argument passed by pointer");
}
template <class T, class F> void with_scalars(const Args<T> &args, const Library &lib, Names names, F &&f) {
  if (wide(names)) with_scalars_as<T, int64_t>(args, lib, f);
  else with_scalars_as<T, int>(args, lib, f);
}
// The index type of the scalars `s` a call gets (int, or int64_t for the ILP64 names).
template <class S> using index_of = typename std::decay_t<S>::Index;

// run_both, each library's call made on its own copy of `args` (with_scalars):
// call(library, out, s, names).
template <class T, class Run, class Call>
void run_both(bool works, Names names, const Args<T> &args, Run &ref, Run &got, Call &&call) {
  run_both(works, names, ref, got, [&](Library &lib, Run &out, Names as) {
    with_scalars(args, lib, as, [&](auto &s) { call(lib, out, s, as); });
  });
}

}  // namespace fuzz
