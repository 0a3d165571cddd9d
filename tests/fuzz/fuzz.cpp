// Differential fuzzer: every exported cudrop entry point that has a reference twin (sgemm_,
// dgemm_, cblas_sgemm, cblas_dgemm, sgetrf_, dgetrf_, spotrf_, dpotrf_) against Debian's
// reference BLAS/CBLAS and LAPACK, with random legal and illegal arguments and special values.
//
// Each case runs the same call twice on identical copies of its arguments, once in the
// reference library (dlopen'ed RTLD_LOCAL, functions from dlsym on its handle) and once in
// libcudrop, and compares: what the error handlers received (this program's own xerbla_ and
// cblas_xerbla record and return), INFO, IPIV, the output bits (any NaN equals any NaN), the
// guard zones around every array and the padding rows of every leading dimension (untouched),
// the input arrays (untouched, bit for bit) and every scalar passed by pointer (unchanged).
// cudrop_counters must show the call ran where --mode-expect says.
//
// --gpu (forced-GPU runs, CUDROP_MODE=gpu): outputs of calls that reach the GPU are compared
// within the netlib testers' error bounds instead of bit for bit (GEMM elementwise
// |C - Cref| <= 16 eps (|alpha| |A||B| + |beta||C|); LU and Cholesky by the xlintst residuals
// ||P A - L U|| / (n ||A|| eps) < 30, ||A - U^T U|| / (n ||A|| eps) < 30); everything else
// (handler records, guards, quick returns, INFO of illegal arguments) stays exact.
//
//   fuzz [--seed S] [--cases N] [--mode-expect cpu|gpu] [--gpu] [--only CASE] [--show N]
//
// Case i draws from its own generator (seed, i): `--only i` replays one case.
#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/rng.h"

// ---- Error handlers: record what they receive, then return (as Debian's xerbla_ does). ----
namespace {
struct HandlerCall {
  bool cblas;
  std::string routine;
  long name_length;  // the hidden CHARACTER length xerbla_ got (-1 for cblas_xerbla)
  int info;
  std::string message;  // cblas_xerbla's form, formatted
  bool operator==(const HandlerCall &o) const {
    return cblas == o.cblas && routine == o.routine && name_length == o.name_length && info == o.info &&
           message == o.message;
  }
};
std::vector<HandlerCall> g_handler_calls;

std::string describe(const std::vector<HandlerCall> &calls) {
  if (calls.empty()) return "no handler call";
  std::string s;
  for (const HandlerCall &h : calls) {
    char line[256];
    if (h.cblas)
      std::snprintf(line, sizeof line, "[cblas_xerbla(%d, \"%s\", \"%s\")]", h.info, h.routine.c_str(),
                    h.message.c_str());
    else
      std::snprintf(line, sizeof line, "[xerbla_(\"%s\", %d, len %ld)]", h.routine.c_str(), h.info, h.name_length);
    s += line;
  }
  return s;
}
}  // namespace

extern "C" void xerbla_(const char *srname, const int *info, size_t srname_len) {
  const size_t shown = srname_len < 64 ? srname_len : 64;
  g_handler_calls.push_back({false, std::string(srname, shown), long(srname_len), *info, ""});
}

extern "C" void cblas_xerbla(int info, const char *routine, const char *form, ...) {
  char message[256] = "";
  va_list args;
  va_start(args, form);
  std::vsnprintf(message, sizeof message, form, args);
  va_end(args);
  std::string text(message);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  g_handler_calls.push_back({true, routine, -1, info, text});
}

// ---- The two libraries ----------------------------------------------------------------------
namespace {
template <class T>
using GemmFn = void (*)(const char *, const char *, const int *, const int *, const int *, const T *, const T *,
                        const int *, const T *, const int *, const T *, T *, const int *, size_t, size_t);
template <class T>
using CblasGemmFn = void (*)(int, int, int, int, int, int, T, const T *, int, const T *, int, T, T *, int);
template <class T> using GetrfFn = void (*)(const int *, const int *, T *, const int *, int *, int *);
template <class T> using PotrfFn = void (*)(const char *, const int *, T *, const int *, int *, size_t);

struct Library {
  const char *name;
  GemmFn<float> sgemm;
  GemmFn<double> dgemm;
  CblasGemmFn<float> cblas_sgemm;
  CblasGemmFn<double> cblas_dgemm;
  GetrfFn<float> sgetrf;
  GetrfFn<double> dgetrf;
  PotrfFn<float> spotrf;
  PotrfFn<double> dpotrf;
  template <class T> GemmFn<T> gemm() const {
    if constexpr (std::is_same_v<T, float>) return sgemm; else return dgemm;
  }
  template <class T> CblasGemmFn<T> cblas_gemm() const {
    if constexpr (std::is_same_v<T, float>) return cblas_sgemm; else return cblas_dgemm;
  }
  template <class T> GetrfFn<T> getrf() const {
    if constexpr (std::is_same_v<T, float>) return sgetrf; else return dgetrf;
  }
  template <class T> PotrfFn<T> potrf() const {
    if constexpr (std::is_same_v<T, float>) return spotrf; else return dpotrf;
  }
};
Library g_reference{"reference", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
Library g_cudrop{"cudrop", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
const Library *g_running = &g_reference;

void *symbol(void *handle, const char *library, const char *name) {
  void *fn = dlsym(handle, name);
  if (fn == nullptr) {
    std::fprintf(stderr, "fuzz: %s has no %s\n", library, name);
    std::exit(2);
  }
  return fn;
}

// The entry points of `lib`: the BLAS ones from `blas`, the LAPACK ones from `lapack` (for
// cudrop, one library holds both).
void bind(Library &lib, void *blas, const char *blas_path, void *lapack, const char *lapack_path) {
  lib.sgemm = reinterpret_cast<GemmFn<float>>(symbol(blas, blas_path, "sgemm_"));
  lib.dgemm = reinterpret_cast<GemmFn<double>>(symbol(blas, blas_path, "dgemm_"));
  lib.cblas_sgemm = reinterpret_cast<CblasGemmFn<float>>(symbol(blas, blas_path, "cblas_sgemm"));
  lib.cblas_dgemm = reinterpret_cast<CblasGemmFn<double>>(symbol(blas, blas_path, "cblas_dgemm"));
  lib.sgetrf = reinterpret_cast<GetrfFn<float>>(symbol(lapack, lapack_path, "sgetrf_"));
  lib.dgetrf = reinterpret_cast<GetrfFn<double>>(symbol(lapack, lapack_path, "dgetrf_"));
  lib.spotrf = reinterpret_cast<PotrfFn<float>>(symbol(lapack, lapack_path, "spotrf_"));
  lib.dpotrf = reinterpret_cast<PotrfFn<double>>(symbol(lapack, lapack_path, "dpotrf_"));
}
}  // namespace

// The reference CBLAS calls sgemm_/dgemm_ and the reference LAPACK calls dgemm_/sgemm_ through
// the global scope, where libcudrop (linked into this program) would answer. These two
// forwarders, first in that scope, send such inner calls to the library whose entry point is
// running: the reference stays the reference (also when cudrop runs on a GPU), and cudrop's
// CPU path sees cudrop's GEMM inside the LAPACK underneath, as a preloaded process does.
extern "C" void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
                       const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
                       const int *ldc, size_t la, size_t lb) {
  g_running->sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}
extern "C" void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                       const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
                       const double *beta, double *c, const int *ldc, size_t la, size_t lb) {
  g_running->dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}

namespace {
// Debian's reference libraries: under / (libblas3, liblapack3), or under the root that
// CUDROP_NETLIB_DIR names (scripts/fetch-netlib's copy, on machines without those packages).
std::string reference_path(const char *library) {
  const char *root = std::getenv("CUDROP_NETLIB_DIR");
  return std::string(root != nullptr ? root : "") + "/usr/lib/x86_64-linux-gnu/" + library;
}

void load_libraries() {
  const std::string blas_file = reference_path("blas/libblas.so.3"), lapack_file = reference_path("lapack/liblapack.so.3");
  const char *blas_path = blas_file.c_str(), *lapack_path = lapack_file.c_str();
  void *blas = dlopen(blas_path, RTLD_NOW | RTLD_LOCAL);
  void *lapack = dlopen(lapack_path, RTLD_NOW | RTLD_LOCAL);
  if (blas == nullptr || lapack == nullptr) {
    std::printf("SKIP: reference libraries not found (%s); apt-get install libblas3 liblapack3\n", dlerror());
    std::exit(harness::kSkipped);
  }
  bind(g_reference, blas, blas_path, lapack, lapack_path);

  // libcudrop's own definitions (this program's sgemm_/dgemm_ come first in the global scope).
  Dl_info info{};
  if (dladdr(dlsym(RTLD_DEFAULT, "cudrop_version"), &info) == 0 || info.dli_fname == nullptr) {
    std::fprintf(stderr, "fuzz: libcudrop not found in the process\n");
    std::exit(2);
  }
  void *cudrop = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (cudrop == nullptr) {
    std::fprintf(stderr, "fuzz: cannot reopen %s: %s\n", info.dli_fname, dlerror());
    std::exit(2);
  }
  const char *name = info.dli_fname;
  bind(g_cudrop, cudrop, name, cudrop, name);
  for (void *fn : {reinterpret_cast<void *>(g_cudrop.sgemm), reinterpret_cast<void *>(g_cudrop.dpotrf)}) {
    Dl_info where{};
    if (dladdr(fn, &where) == 0 || where.dli_fbase != info.dli_fbase) {
      std::fprintf(stderr, "fuzz: cudrop's entry points do not come from %s\n", name);
      std::exit(2);
    }
  }
}

// ---- Settings and the record of differences ----------------------------------------------------
struct Options {
  uint64_t seed = 1;
  long cases = 50000;
  long only = -1;
  bool expect_gpu = false;  // --mode-expect: where calls that do work must run
  bool gpu_bounds = false;  // --gpu: compare GPU outputs within error bounds
  int show = 5;
};
Options g_options;
long g_differences = 0;
long g_computing = 0;  // cases whose call does arithmetic (legal, no quick return)
long g_case = 0;
std::string g_call;  // the current case's call, for the report

void difference(const char *format, ...) __attribute__((format(printf, 1, 2)));
void difference(const char *format, ...) {
  ++g_differences;
  if (g_differences > g_options.show) return;
  char what[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(what, sizeof what, format, args);
  va_end(args);
  std::printf("DIFFERENCE case %ld (--seed %" PRIu64 " --only %ld): %s\n  %s\n", g_case, g_options.seed, g_case,
              g_call.c_str(), what);
}

// ---- Values ---------------------------------------------------------------------------------------
template <class T> uint64_t bits(T x) {
  if constexpr (sizeof(T) == 4) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  } else {
    uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
  }
}
// Output equality: the same bits, or NaN and NaN (payloads are not specified).
template <class T> bool same(T x, T y) { return bits(x) == bits(y) || (std::isnan(x) && std::isnan(y)); }

// Fill of guard zones and padding rows: a NaN with a payload no arithmetic produces, so a read
// of it shows up in a result, and a write over it is seen bit for bit.
template <class T> T guard_value() {
  if constexpr (sizeof(T) == 4) {
    uint32_t u = 0x7fa5a5a5u;
    T x;
    std::memcpy(&x, &u, 4);
    return x;
  } else {
    uint64_t u = 0x7ff5a5a5a5a5a5a5ull;
    T x;
    std::memcpy(&x, &u, 8);
    return x;
  }
}
constexpr int kIntGuard = 0x5a5a5a5a;
constexpr size_t kGuard = 24;  // elements before and after every array

template <class T> T special(Rng &rng) {
  switch (rng.below(5)) {
    case 0: return std::numeric_limits<T>::quiet_NaN();
    case 1: return std::numeric_limits<T>::infinity();
    case 2: return -std::numeric_limits<T>::infinity();
    case 3: return T(-0.0);
    default: return T(0);
  }
}

template <class T> T scalar(Rng &rng) {
  switch (rng.below(12)) {
    case 0: return T(0);
    case 1: return T(-0.0);
    case 2: return T(1);
    case 3: return T(-1);
    case 4: return std::numeric_limits<T>::quiet_NaN();
    case 5: return std::numeric_limits<T>::infinity();
    case 6: return -std::numeric_limits<T>::infinity();
    default: return T(rng.symmetric() * 2);
  }
}

std::string text(double x) {
  char s[48];
  std::snprintf(s, sizeof s, "%.9g", x);
  return s;
}

// A dimension: mostly small, sometimes 0, negative or up to 140; 1, 7 and 33 favored.
int dimension(Rng &rng) {
  const uint64_t r = rng.below(1000);
  if (r < 15) { const int bad[] = {-1, -2, -7, INT_MIN}; return bad[rng.below(4)]; }
  if (r < 90) return 0;
  if (r < 200) { const int odd[] = {1, 7, 33}; return odd[rng.below(3)]; }
  if (r < 600) return 1 + int(rng.below(8));
  if (r < 985) return 1 + int(rng.below(40));
  return 41 + int(rng.below(100));
}

// A leading dimension for an operand of `rows` rows: too small, exactly minimal, or padded.
int leading_dimension(Rng &rng, int rows) {
  const int minimal = rows > 1 ? rows : 1;
  const uint64_t r = rng.below(100);
  if (r < 5) return minimal - 1;                 // too small (0 for rows <= 1)
  if (r < 7) return -int(rng.below(3));          // 0, -1, -2
  if (r < 55) return minimal;
  return minimal + 1 + int(rng.below(5));
}

// One array in column-major order (rows x cols, leading dimension ld) inside guard zones. The
// padding rows (ld > rows) and the guard zones hold guard_value; entries hold `values`. An
// illegal ld (< rows) still gets room for rows x cols (nothing may read it).
template <class T> struct Array {
  int rows = 0, cols = 0, ld = 0;
  long stride = 1;
  std::vector<T> data;
  T *p() { return data.data() + kGuard; }
  const T *p() const { return data.data() + kGuard; }
  T &at(int i, int j) { return p()[i + j * stride]; }
  T at(int i, int j) const { return p()[i + j * stride]; }
  bool is_entry(size_t index) const {  // data index -> inside rows x cols?
    if (index < kGuard) return false;
    const long e = long(index - kGuard);
    if (e >= stride * cols) return false;
    return e % stride < rows;
  }
};

enum class Fill { Random, Integer, Special };

template <class T> Array<T> make_array(Rng &rng, int rows, int cols, int ld, Fill fill) {
  Array<T> a;
  a.rows = rows > 0 ? rows : 0;
  a.cols = cols > 0 ? cols : 0;
  a.ld = ld;
  a.stride = std::max<long>({long(ld), long(a.rows), 1L});
  a.data.assign(2 * kGuard + size_t(a.stride) * size_t(a.cols), guard_value<T>());
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i)
      a.at(i, j) = fill == Fill::Integer ? T(int(rng.below(5)) - 2) : T(rng.symmetric());
  if (fill == Fill::Special && a.rows > 0 && a.cols > 0) {
    const int count = 1 + int(rng.below(4));
    for (int s = 0; s < count; ++s) a.at(int(rng.below(a.rows)), int(rng.below(a.cols))) = special<T>(rng);
  }
  return a;
}

Fill pick_fill(Rng &rng) {
  const uint64_t r = rng.below(100);
  return r < 15 ? Fill::Special : r < 22 ? Fill::Integer : Fill::Random;
}

// Bits of everything outside rows x cols (guards, padding) must equal the original's.
template <class T> void check_untouched_outside(const char *what, const Array<T> &orig, const Array<T> &got) {
  for (size_t x = 0; x < orig.data.size(); ++x)
    if (!orig.is_entry(x) && bits(orig.data[x]) != bits(got.data[x])) {
      const bool guard = x < kGuard || x >= orig.data.size() - kGuard;
      difference("cudrop wrote %s %s (data index %zu)", what, guard ? "guard zone" : "padding row", x);
      return;
    }
}
// The whole array (an input) must be bit for bit the original.
template <class T> void check_unchanged(const char *what, const Array<T> &orig, const Array<T> &got) {
  for (size_t x = 0; x < orig.data.size(); ++x)
    if (bits(orig.data[x]) != bits(got.data[x])) {
      difference("cudrop changed input %s at data index %zu", what, x);
      return;
    }
}
// Entries must match the reference's (same bits; any NaN equals any NaN).
template <class T> void check_same_entries(const char *what, const Array<T> &ref, const Array<T> &got) {
  for (int j = 0; j < ref.cols; ++j)
    for (int i = 0; i < ref.rows; ++i)
      if (!same(ref.at(i, j), got.at(i, j))) {
        difference("%s(%d,%d): reference %s (0x%" PRIx64 "), cudrop %s (0x%" PRIx64 ")", what, i + 1, j + 1,
                   text(ref.at(i, j)).c_str(), bits(ref.at(i, j)), text(got.at(i, j)).c_str(),
                   bits(got.at(i, j)));
        return;
      }
}

void check_handlers(const std::vector<HandlerCall> &ref, const std::vector<HandlerCall> &got) {
  if (!(ref == got))
    difference("error handlers: reference %s, cudrop %s", describe(ref).c_str(), describe(got).c_str());
}

// ---- Where cudrop ran the call ------------------------------------------------------------------
// `works`: a legal call that computes (no quick return, no reference short-cut branch).
void check_counts(const harness::Counters &before, const harness::Counters &after, bool works) {
  g_computing += works;
  const long gpu = after.gpu - before.gpu, cpu = after.cpu - before.cpu, fallbacks = after.fallbacks - before.fallbacks;
  if (fallbacks != 0) difference("counters: %ld GPU fallbacks", fallbacks);
  else if (!works && gpu != 0) difference("counters: a call that computes nothing counted %ld GPU calls", gpu);
  else if (works && g_options.expect_gpu && (gpu < 1 || cpu != 0))
    difference("counters: expected the call on the GPU, got gpu %ld cpu %ld", gpu, cpu);
  else if (works && !g_options.expect_gpu && (gpu != 0 || cpu < 1))
    difference("counters: expected the call on the CPU, got gpu %ld cpu %ld", gpu, cpu);
}

// One case's call, made by call(library, out) once in the reference and once in cudrop (where
// cudrop ran it counted), each time with the error handlers it reached recorded in
// out.handlers; then the two records compared.
template <class Run, class Call>
void run_both(bool works, Run &ref, Run &got, Call &&call) {
  auto once = [&](const Library &lib, Run &out) {
    g_handler_calls.clear();
    g_running = &lib;
    call(lib, out);
    g_running = &g_reference;
    out.handlers = g_handler_calls;
  };
  once(g_reference, ref);
  const harness::Counters before = harness::Counters::now();
  once(g_cudrop, got);
  check_counts(before, harness::Counters::now(), works);
  check_handlers(ref.handlers, got.handlers);
}

template <class T> constexpr const char *prefix() { return std::is_same_v<T, float> ? "s" : "d"; }
template <class T> double epsilon() { return std::numeric_limits<T>::epsilon() / 2; }  // LAPACK's EPS
bool all_finite_scalars(std::initializer_list<double> xs) {
  for (double x : xs) if (!std::isfinite(x)) return false;
  return true;
}
template <class T> bool any_inf(const Array<T> &a) {
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) if (std::isinf(a.at(i, j))) return true;
  return false;
}
template <class T> bool any_nonfinite(const Array<T> &a, int rows, int cols) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) if (!std::isfinite(a.at(i, j))) return true;
  return false;
}

// ---- GEMM ---------------------------------------------------------------------------------------------
char trans_char(Rng &rng) {
  if (rng.below(100) < 92) return "NTCntc"[rng.below(6)];
  return "XRx ?\001"[rng.below(6)];
}
int cblas_trans(Rng &rng) {
  if (rng.below(100) < 94) return 111 + int(rng.below(3));
  const int bad[] = {0, 110, 114, -1, 'T'};
  return bad[rng.below(5)];
}

// GPU comparison of C, in the Fortran-level view (ta, tb, m, n, k).
template <class T>
void check_gemm_bounds(bool nota, bool notb, int m, int n, int k, T alpha, const Array<T> &a, const Array<T> &b,
                       T beta, const Array<T> &c0, const Array<T> &ref, const Array<T> &got) {
  const bool infinities = !all_finite_scalars({double(alpha), double(beta)}) || any_inf(a) || any_inf(b) ||
                          (beta != T(0) && any_inf(c0));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const T r = ref.at(i, j), g = got.at(i, j);
      if (!std::isfinite(double(r))) {
        // The summation order decides between NaN and Inf once an Inf is involved.
        const bool ok = infinities ? !std::isfinite(double(g)) : same(r, g);
        if (!ok) difference("C(%d,%d): reference %s, GPU %s", i + 1, j + 1, text(r).c_str(), text(g).c_str());
        if (!ok) return;
        continue;
      }
      long double bound = 0;
      for (int l = 0; l < k; ++l) {
        const T av = nota ? a.at(i, l) : a.at(l, i);
        const T bv = notb ? b.at(l, j) : b.at(j, l);
        bound += std::fabs((long double)av) * std::fabs((long double)bv);
      }
      bound *= std::fabs((long double)alpha);
      if (beta != T(0)) bound += std::fabs((long double)beta) * std::fabs((long double)c0.at(i, j));
      bound *= 16 * epsilon<T>();
      if (!std::isfinite(double(g)) || std::fabs((long double)g - r) > bound) {
        difference("C(%d,%d): reference %s, GPU %s, |difference| > %s", i + 1, j + 1, text(r).c_str(),
                   text(g).c_str(), text(double(bound)).c_str());
        return;
      }
    }
}

template <class T> void gemm_case(Rng &rng, bool cblas) {
  // The call as the caller makes it.
  const int layout = !cblas ? 102 : rng.below(100) < 96 ? (rng.below(2) ? 101 : 102) : (rng.below(2) ? 0 : 103);
  int cta = 111, ctb = 111;
  char ta = 'N', tb = 'N';
  if (cblas) { cta = cblas_trans(rng); ctb = cblas_trans(rng); }
  else { ta = trans_char(rng); tb = trans_char(rng); }
  const int m = dimension(rng), n = dimension(rng), k = rng.below(6) == 0 ? 0 : dimension(rng);
  const T alpha = scalar<T>(rng), beta = scalar<T>(rng);
  auto letter = [](int code) { return code == 111 ? 'N' : code == 112 ? 'T' : code == 113 ? 'C' : '?'; };
  // The Fortran-level view: for RowMajor, C^T = op(B)^T op(A)^T with A and B swapped.
  const bool row = layout == 101;
  const char fa = cblas ? letter(row ? ctb : cta) : ta, fb = cblas ? letter(row ? cta : ctb) : tb;
  const int fm = row ? n : m, fn = row ? m : n;
  const bool nota = fa == 'N' || fa == 'n' || fa == '?', notb = fb == 'N' || fb == 'n' || fb == '?';
  // Operands in the Fortran view: first (A, or B for RowMajor) fm x k or k x fm, second k x fn or fn x k.
  const int first_rows = nota ? fm : k, first_cols = nota ? k : fm;
  const int second_rows = notb ? k : fn, second_cols = notb ? fn : k;
  const int ld_first = leading_dimension(rng, first_rows), ld_second = leading_dimension(rng, second_rows);
  const int ldc = leading_dimension(rng, fm);
  Array<T> first = make_array<T>(rng, first_rows, first_cols, ld_first, pick_fill(rng));
  Array<T> second = make_array<T>(rng, second_rows, second_cols, ld_second, pick_fill(rng));
  const Array<T> c0 = make_array<T>(rng, fm, fn, ldc, pick_fill(rng));
  // The caller's names.
  const Array<T> &a0 = row ? second : first, &b0 = row ? first : second;
  const int lda = row ? ld_second : ld_first, ldb = row ? ld_first : ld_second;

  char call[256];
  if (cblas)
    std::snprintf(call, sizeof call, "cblas_%sgemm(layout=%d, %d, %d, m=%d, n=%d, k=%d, alpha=%s, lda=%d, ldb=%d, "
                  "beta=%s, ldc=%d)", prefix<T>(), layout, cta, ctb, m, n, k, text(alpha).c_str(), lda, ldb,
                  text(beta).c_str(), ldc);
  else
    std::snprintf(call, sizeof call, "%sgemm_('%c' (%d), '%c' (%d), m=%d, n=%d, k=%d, alpha=%s, lda=%d, ldb=%d, "
                  "beta=%s, ldc=%d)", prefix<T>(), ta, ta, tb, tb, m, n, k, text(alpha).c_str(), lda, ldb,
                  text(beta).c_str(), ldc);
  g_call = call;

  const bool legal_codes = !cblas || ((layout == 101 || layout == 102) && letter(cta) != '?' && letter(ctb) != '?');
  auto fortran_ok = [](char t) { return std::strchr("NTCntc", t) != nullptr && t != '\0'; };
  const bool legal = legal_codes && fortran_ok(fa) && fortran_ok(fb) && m >= 0 && n >= 0 && k >= 0 &&
                     ld_first >= std::max(1, first_rows) && ld_second >= std::max(1, second_rows) &&
                     ldc >= std::max(1, fm);
  const bool works = legal && m > 0 && n > 0 && k > 0 && alpha != T(0);

  struct Run {
    Array<T> a, b, c;
    std::vector<HandlerCall> handlers;
  };
  Run ref, got;
  run_both(works, ref, got, [&](const Library &lib, Run &r) {
    r.a = a0; r.b = b0; r.c = c0;
    const char ta_in = ta, tb_in = tb;
    const int m_in = m, n_in = n, k_in = k, lda_in = lda, ldb_in = ldb, ldc_in = ldc;
    const T alpha_in = alpha, beta_in = beta;
    char ta_arg = ta, tb_arg = tb;
    int m_arg = m, n_arg = n, k_arg = k, lda_arg = lda, ldb_arg = ldb, ldc_arg = ldc;
    T alpha_arg = alpha, beta_arg = beta;
    if (cblas)
      lib.cblas_gemm<T>()(layout, cta, ctb, m, n, k, alpha, r.a.p(), lda, r.b.p(), ldb, beta, r.c.p(), ldc);
    else
      lib.gemm<T>()(&ta_arg, &tb_arg, &m_arg, &n_arg, &k_arg, &alpha_arg, r.a.p(), &lda_arg, r.b.p(), &ldb_arg,
                    &beta_arg, r.c.p(), &ldc_arg, 1, 1);
    if (&lib == &g_cudrop && (ta_arg != ta_in || tb_arg != tb_in || m_arg != m_in || n_arg != n_in ||
                              k_arg != k_in || lda_arg != lda_in || ldb_arg != ldb_in || ldc_arg != ldc_in ||
                              bits(alpha_arg) != bits(alpha_in) || bits(beta_arg) != bits(beta_in)))
      difference("cudrop changed a scalar argument passed by pointer");
  });
  check_unchanged("A", a0, got.a);
  check_unchanged("B", b0, got.b);
  check_untouched_outside("C", c0, got.c);
  if (works && g_options.gpu_bounds) {
    const Array<T> &fa_arr = row ? got.b : got.a, &fb_arr = row ? got.a : got.b;
    check_gemm_bounds(nota, notb, fm, fn, k, alpha, fa_arr, fb_arr, beta, c0, ref.c, got.c);
  } else {
    check_same_entries("C", ref.c, got.c);
  }
}

// ---- LU -----------------------------------------------------------------------------------------------
// xlintst's DGET01: ||P A - L U||_1 / (n ||A||_1 eps), with cudrop's own pivots.
template <class T> double lu_residual(const Array<T> &a0, const Array<T> &lu, const std::vector<int> &ipiv, int m, int n) {
  const int mn = std::min(m, n);
  // P A: apply the interchanges in order to a copy of A.
  std::vector<long double> pa(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) pa[i + size_t(j) * m] = a0.at(i, j);
  for (int i = 0; i < mn; ++i) {
    const int p = ipiv[kGuard + i] - 1;
    if (p != i)
      for (int j = 0; j < n; ++j) std::swap(pa[i + size_t(j) * m], pa[p + size_t(j) * m]);
  }
  long double worst = 0, anorm = 0;
  for (int j = 0; j < n; ++j) {
    long double column = 0, acolumn = 0;
    for (int i = 0; i < m; ++i) {
      long double s = 0;
      for (int l = 0; l <= std::min({i, j, mn - 1}); ++l) s += (l == i ? 1.0L : (long double)lu.at(i, l)) * lu.at(l, j);
      column += std::fabs(s - pa[i + size_t(j) * m]);
      acolumn += std::fabs((long double)a0.at(i, j));
    }
    worst = std::max(worst, column);
    anorm = std::max(anorm, acolumn);
  }
  if (anorm == 0) return worst == 0 ? 0 : 1 / epsilon<T>();
  return double(worst / n / anorm / epsilon<T>());
}

// What one library's factorization gave (IPIV: LU only).
template <class T> struct FactorRun {
  Array<T> a;
  std::vector<int> ipiv;
  int info;
  std::vector<HandlerCall> handlers;
};

template <class T> void getrf_case(Rng &rng) {
  const int m = dimension(rng), n = dimension(rng);
  const int lda = leading_dimension(rng, m);
  // Classes: random (INFO 0), a zero column (INFO = its index: elimination keeps it exactly 0),
  // all zero, small integers (exact zero pivots depend on rounding), special values.
  const uint64_t r = rng.below(100);
  const Fill fill = r < 12 ? Fill::Special : r < 22 ? Fill::Integer : Fill::Random;
  Array<T> a0 = make_array<T>(rng, m, n, lda, fill);
  bool info_exact = fill == Fill::Random;
  const char *kind = fill == Fill::Special ? "special values" : fill == Fill::Integer ? "integers" : "random";
  if (fill == Fill::Random && a0.rows > 0 && a0.cols > 0) {
    const uint64_t s = rng.below(10);
    if (s < 2) {
      const int j = int(rng.below(a0.cols));
      for (int i = 0; i < a0.rows; ++i) a0.at(i, j) = rng.below(2) ? T(0) : T(-0.0);
      kind = "a zero column";
    } else if (s == 2) {
      for (int j = 0; j < a0.cols; ++j)
        for (int i = 0; i < a0.rows; ++i) a0.at(i, j) = T(0);
      kind = "zero";
    }
  }
  const int mn = std::max(0, std::min(m, n));
  char call[160];
  std::snprintf(call, sizeof call, "%sgetrf_(m=%d, n=%d, lda=%d) on a %s matrix", prefix<T>(), m, n, lda, kind);
  g_call = call;
  const bool legal = m >= 0 && n >= 0 && lda >= std::max(1, m);
  const bool works = legal && m > 0 && n > 0;

  const std::vector<int> ipiv0(2 * kGuard + std::max(mn, 1), kIntGuard);
  FactorRun<T> ref, got;
  run_both(works, ref, got, [&](const Library &lib, FactorRun<T> &out) {
    out.a = a0;
    out.ipiv = ipiv0;
    out.info = kIntGuard;
    int m_arg = m, n_arg = n, lda_arg = lda;
    lib.getrf<T>()(&m_arg, &n_arg, out.a.p(), &lda_arg, out.ipiv.data() + kGuard, &out.info);
    if (&lib == &g_cudrop && (m_arg != m || n_arg != n || lda_arg != lda))
      difference("cudrop changed a scalar argument passed by pointer");
  });
  check_untouched_outside("A", a0, got.a);
  for (size_t i = 0; i < ipiv0.size(); ++i) {
    const bool entry = i >= kGuard && long(i - kGuard) < mn;
    if (!entry && got.ipiv[i] != kIntGuard) {
      difference("cudrop wrote IPIV outside its min(m,n) entries (index %ld)", long(i) - long(kGuard));
      break;
    }
  }
  if (!(works && g_options.gpu_bounds)) {
    if (ref.info != got.info) difference("INFO: reference %d, cudrop %d", ref.info, got.info);
    for (int i = 0; i < mn; ++i)
      if (ref.ipiv[kGuard + i] != got.ipiv[kGuard + i]) {
        difference("IPIV(%d): reference %d, cudrop %d", i + 1, ref.ipiv[kGuard + i], got.ipiv[kGuard + i]);
        break;
      }
    check_same_entries("A", ref.a, got.a);
    return;
  }
  // On the GPU: pivots in range, then the factor judged by its residual (pivots may differ on
  // near ties); INFO exact where the matrix makes it so.
  for (int i = 0; i < mn; ++i)
    if (got.ipiv[kGuard + i] < i + 1 || got.ipiv[kGuard + i] > m) {
      difference("IPIV(%d) = %d outside [%d, %d]", i + 1, got.ipiv[kGuard + i], i + 1, m);
      return;
    }
  if (got.info < 0 || got.info > mn) difference("INFO %d outside [0, %d]", got.info, mn);
  if (fill == Fill::Special) {
    if (any_nonfinite(ref.a, m, n) != any_nonfinite(got.a, m, n))
      difference("non-finite entries: reference %s, GPU %s", any_nonfinite(ref.a, m, n) ? "some" : "none",
                 any_nonfinite(got.a, m, n) ? "some" : "none");
    return;
  }
  if (info_exact && ref.info != got.info) difference("INFO: reference %d, GPU %d", ref.info, got.info);
  // Small integer matrices are often singular in exact arithmetic: whether a pivot comes out
  // as exactly 0 (INFO > 0, no division) or as a rounding error (huge multipliers) depends on
  // the order of operations. Judged only when neither side met a zero pivot, and then against
  // the reference's own residual as well.
  if (!info_exact && (ref.info != 0 || got.info != 0)) return;
  const double resid = lu_residual(a0, got.a, got.ipiv, m, n);
  const double ref_resid = info_exact ? 0 : lu_residual(a0, ref.a, ref.ipiv, m, n);
  if (!(resid < 30) && !(resid <= 4 * ref_resid))
    difference("||P A - L U|| / (n ||A|| eps) = %s >= 30 (reference: %s)", text(resid).c_str(), text(ref_resid).c_str());
}

// ---- Cholesky -----------------------------------------------------------------------------------------
// xlintst's DPOT01 over the leading `order` columns: ||A - U^T U||_1 / (n ||A||_1 eps) on the
// UPLO triangle (L L^T likewise).
template <class T> double cholesky_residual(const Array<T> &a0, const Array<T> &f, bool upper, int order) {
  long double worst = 0, anorm = 0;
  for (int j = 0; j < order; ++j) {
    long double column = 0, acolumn = 0;
    for (int i = 0; i < order; ++i) {
      const int r = std::min(i, j), c = std::max(i, j);  // (r, c) in the upper triangle
      long double s = 0;
      for (int l = 0; l <= r; ++l)
        s += upper ? (long double)f.at(l, r) * f.at(l, c) : (long double)f.at(r, l) * f.at(c, l);
      const T aij = upper ? a0.at(r, c) : a0.at(c, r);
      column += std::fabs(s - aij);
      acolumn += std::fabs((long double)aij);
    }
    worst = std::max(worst, column);
    anorm = std::max(anorm, acolumn);
  }
  if (order == 0) return 0;
  if (anorm == 0) return worst == 0 ? 0 : 1 / epsilon<T>();
  return double(worst / order / anorm / epsilon<T>());
}

template <class T> void potrf_case(Rng &rng) {
  const char uplo = rng.below(100) < 92 ? "ULul"[rng.below(4)] : "XCN \001"[rng.below(5)];
  const int n = dimension(rng);
  const int lda = leading_dimension(rng, n);
  const bool upper = uplo == 'U' || uplo == 'u';
  // Classes: SPD (B B^T + n I: INFO 0), SPD but for one clearly negative diagonal entry (INFO
  // = that index), random symmetric (some INFO > 0), special values. The other triangle holds
  // junk, NaN included, that must be neither read nor written.
  const uint64_t r = rng.below(100);
  enum { Spd, Negative, Symmetric, Special } kind = r < 45 ? Spd : r < 65 ? Negative : r < 85 ? Symmetric : Special;
  Array<T> a0 = make_array<T>(rng, n, n, lda, Fill::Random);
  const int order = a0.rows;
  if (kind == Spd || kind == Negative || kind == Special) {
    std::vector<double> b(size_t(order) * order);
    for (double &x : b) x = rng.symmetric();
    for (int j = 0; j < order; ++j)
      for (int i = 0; i < order; ++i) {
        double s = i == j ? order : 0;
        for (int l = 0; l < order; ++l) s += b[i + size_t(l) * order] * b[j + size_t(l) * order];
        a0.at(i, j) = T(s);
      }
  }
  int negative_at = 0;
  if (kind == Negative && order > 0) {
    negative_at = 1 + int(rng.below(order));
    a0.at(negative_at - 1, negative_at - 1) = T(-1 - rng.uniform() * order);
  }
  if (kind == Special && order > 0) {
    const int count = 1 + int(rng.below(3));
    for (int s = 0; s < count; ++s) {
      int i = int(rng.below(order)), j = int(rng.below(order));
      if ((upper && i > j) || (!upper && i < j)) std::swap(i, j);
      a0.at(i, j) = special<T>(rng);
    }
  }
  for (int j = 0; j < order; ++j)  // junk in the triangle the routine must not reference
    for (int i = 0; i < order; ++i)
      if ((upper && i > j) || (!upper && i < j))
        a0.at(i, j) = rng.below(8) == 0 ? std::numeric_limits<T>::quiet_NaN() : T(rng.symmetric() * 1e3);

  const char *names[] = {"SPD", "negative diagonal", "symmetric", "special values"};
  char call[160];
  std::snprintf(call, sizeof call, "%spotrf_('%c' (%d), n=%d, lda=%d) on a %s matrix", prefix<T>(), uplo, uplo, n,
                lda, names[kind]);
  g_call = call;
  const bool legal = std::strchr("ULul", uplo) != nullptr && uplo != '\0' && n >= 0 && lda >= std::max(1, n);
  const bool works = legal && n > 0;

  FactorRun<T> ref, got;
  run_both(works, ref, got, [&](const Library &lib, FactorRun<T> &out) {
    out.a = a0;
    out.info = kIntGuard;
    char uplo_arg = uplo;
    int n_arg = n, lda_arg = lda;
    lib.potrf<T>()(&uplo_arg, &n_arg, out.a.p(), &lda_arg, &out.info, 1);
    if (&lib == &g_cudrop && (uplo_arg != uplo || n_arg != n || lda_arg != lda))
      difference("cudrop changed a scalar argument passed by pointer");
  });
  check_untouched_outside("A", a0, got.a);
  if (!(works && g_options.gpu_bounds)) {
    if (ref.info != got.info) difference("INFO: reference %d, cudrop %d", ref.info, got.info);
    check_same_entries("A", ref.a, got.a);
    return;
  }
  // On the GPU: the other triangle exactly untouched, INFO exact where the matrix decides it,
  // the factor judged by its residual.
  for (int j = 0; j < order; ++j)
    for (int i = 0; i < order; ++i)
      if (((upper && i > j) || (!upper && i < j)) && bits(a0.at(i, j)) != bits(got.a.at(i, j))) {
        difference("the triangle UPLO excludes was written at (%d,%d)", i + 1, j + 1);
        return;
      }
  if (got.info < 0 || got.info > n) difference("INFO %d outside [0, %d]", got.info, n);
  if (kind == Special || kind == Symmetric) return;
  if (ref.info != got.info) {
    difference("INFO: reference %d, GPU %d", ref.info, got.info);
    return;
  }
  const int factored = got.info == 0 ? order : got.info - 1;
  const double resid = cholesky_residual(a0, got.a, upper, factored);
  if (!(resid < 30)) difference("||A - U^T U|| / (n ||A|| eps) = %s >= 30 over order %d", text(resid).c_str(), factored);
}

void one_case(long index) {
  Rng rng(g_options.seed * 0x100000001B3ull + uint64_t(index));
  g_case = index;
  switch (rng.below(16)) {
    case 0: case 1: case 2: gemm_case<float>(rng, false); break;
    case 3: case 4: case 5: gemm_case<double>(rng, false); break;
    case 6: case 7: gemm_case<float>(rng, true); break;
    case 8: case 9: gemm_case<double>(rng, true); break;
    case 10: case 11: getrf_case<float>(rng); break;
    case 12: case 13: getrf_case<double>(rng); break;
    case 14: potrf_case<float>(rng); break;
    default: potrf_case<double>(rng); break;
  }
}

}  // namespace

int main(int argc, char **argv) {
  const bool understood =
      harness::CommandLine("usage: fuzz [--seed S] [--cases N] [--mode-expect cpu|gpu] [--gpu] [--only CASE] [--show N]")
          .number("--seed", &g_options.seed)
          .number("--cases", &g_options.cases)
          .number("--only", &g_options.only)
          .number("--show", &g_options.show)
          .value("--mode-expect",
                 [](const char *where) {
                   g_options.expect_gpu = std::strcmp(where, "gpu") == 0;
                   return g_options.expect_gpu || std::strcmp(where, "cpu") == 0;
                 })
          .flag("--gpu", [] { g_options.gpu_bounds = g_options.expect_gpu = true; })
          .parse(argc, argv);
  if (!understood) return 2;
  load_libraries();
  // cudrop's CPU path must be the reference itself for outputs to match bit for bit, whatever
  // BLAS the system's alternatives name (a caller's choice is kept).
  setenv("CUDROP_CPU_BLAS", reference_path("blas/libblas.so.3").c_str(), 0);
  setenv("CUDROP_CPU_LAPACK", reference_path("lapack/liblapack.so.3").c_str(), 0);
  if (harness::skip_without_gpu("fuzz", g_options.expect_gpu)) return harness::kSkipped;
  if (g_options.only >= 0) one_case(g_options.only);
  else for (long i = 0; i < g_options.cases; ++i) one_case(i);
  const long cases = g_options.only >= 0 ? 1 : g_options.cases;
  std::printf("fuzz: %ld cases, %ld differences (seed %" PRIu64 "; %ld computing; %s%s)\n", cases, g_differences,
              g_options.seed, g_computing,
              g_options.expect_gpu ? "calls expected on the GPU" : "calls expected on the CPU",
              g_options.gpu_bounds ? ", GPU outputs within error bounds" : ", outputs bit for bit");
  return g_differences == 0 ? 0 : 1;
}
