// sytrf_test: ?sytrf_ (s, d, c, z), ?hetrf_ (c, z), their solves ?sytrs_/?hetrs_ and the drivers
// ?sysv_/?hesv_ through the public symbols, against the reference LAPACK (tests/harness/reference.h)
// called directly on the same problems.
//
// Every call: both UPLO, n in {0, 1, 2, 7, 33, 64, 65, 130} (--big: also 1007), lda and ldb
// larger than n by 1..3 rows, the arrays one element off a 16-byte boundary, their padding and
// the triangle UPLO does not name NaN; NRHS 0, 1, 5; random (indefinite) matrices and singular
// ones (a zero row and column); LWORK the routine's own query's answer, and 1 (the reference's
// unblocked path) for the factorization:
//  * nothing outside what the routine may write changes, bit for bit (padding, the other
//    triangle; B with INFO > 0 from the drivers);
//  * CPU mode (--expect-cpu: cudrop's CPU library made the reference's own): A, IPIV, INFO, B and
//    WORK(1) bit for bit the reference's;
//  * otherwise: INFO the reference's, IPIV the reference's for random matrices, WORK(1) the
//    query's answer, and the residual |A X - B| / (|A| |X| n eps) of the solution at most 60.
// Illegal arguments (each in turn): INFO and the program's xerbla_ as the reference's order of
// checks says; LWORK queries (WORK(1) the reference's where cudrop's CPU library is the
// reference's) and LWORK = 0 (illegal).
//
// Options: --max-n N (default 130), --big, --prec sdcz, --seed N, --special (accepted: no extra
//   cases), placement (--require-gpu, --expect-gpu, --expect-cpu, --expect-fallback), -v.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/eigen/hermitian.h"
#include "tests/harness/check.h"
#include "tests/harness/complex_check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"
#include "tests/harness/rng.h"
#include "tests/harness/xerbla_capture.h"

namespace {

using eigen_test::conjugate;
using eigen_test::is_complex;
using eigen_test::random_value;
using eigen_test::real_of;

harness::FactorOptions opt;
bool special = false;
long calls = 0;

template <class T>
using trf_fn = void (*)(const char *, const int *, T *, const int *, int *, T *, const int *, int *, size_t);
template <class T>
using trs_fn = void (*)(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *,
                        int *, size_t);
template <class T>
using sv_fn = void (*)(const char *, const int *, const int *, T *, const int *, int *, T *, const int *, T *,
                       const int *, int *, size_t);


// One family's three routines (sy or he) in cudrop and in the reference.
template <class T>
struct Routines {
  bool hermitian;
  std::string trf_name, trs_name, sv_name;
  trf_fn<T> trf, ref_trf;
  trs_fn<T> trs, ref_trs;
  sv_fn<T> sv, ref_sv;
};

template <class T>
Routines<T> routines(const harness::ReferenceLapack &ref, bool hermitian) {
  Routines<T> r;
  r.hermitian = hermitian;
  const std::string p(1, harness::precision_letter<T>()), s = hermitian ? "he" : "sy";
  r.trf_name = p + s + "trf_", r.trs_name = p + s + "trs_", r.sv_name = p + s + "sv_";
  // cudrop's exported symbols: the program links libcudrop first.
  r.trf = reinterpret_cast<trf_fn<T>>(dlsym(RTLD_DEFAULT, r.trf_name.c_str()));
  r.trs = reinterpret_cast<trs_fn<T>>(dlsym(RTLD_DEFAULT, r.trs_name.c_str()));
  r.sv = reinterpret_cast<sv_fn<T>>(dlsym(RTLD_DEFAULT, r.sv_name.c_str()));
  r.ref_trf = ref.symbol<trf_fn<T>>(r.trf_name.c_str());
  r.ref_trs = ref.symbol<trs_fn<T>>(r.trs_name.c_str());
  r.ref_sv = ref.symbol<sv_fn<T>>(r.sv_name.c_str());
  return r;
}

// An lda x cols array one element off a 16-byte boundary, NaN outside what is set.
template <class T>
struct Padded {
  int rows, cols, ld;
  std::vector<T> store;
  T *a;
  Padded(int rows_, int cols_, int ld_)
      : rows(rows_), cols(cols_), ld(ld_),
        store(size_t(ld_) * std::max(cols_, 1) + 2, T(std::numeric_limits<real_of<T>>::quiet_NaN())),
        a(store.data() + 1) {}
  // A copy has its own storage (a points into it, not into the original's).
  Padded(const Padded &o) : rows(o.rows), cols(o.cols), ld(o.ld), store(o.store), a(store.data() + 1) {}
  Padded &operator=(const Padded &o) {
    rows = o.rows, cols = o.cols, ld = o.ld, store = o.store, a = store.data() + 1;
    return *this;
  }
  T &operator()(int i, int j) { return a[i + size_t(j) * ld]; }
  T operator()(int i, int j) const { return a[i + size_t(j) * ld]; }
  bool same(const Padded &o) const { return std::memcmp(store.data(), o.store.data(), store.size() * sizeof(T)) == 0; }
  // Whether every element outside (inside(i, j) false) is bit for bit o's.
  template <class Inside>
  bool same_outside(const Padded &o, Inside inside) const {
    for (size_t e = 0; e < store.size(); ++e) {
      const long k = long(e) - 1;
      const int j = k < 0 ? -1 : int(k / ld), i = k < 0 ? -1 : int(k % ld);
      const bool in = k >= 0 && i < rows && j < cols && inside(i, j);
      if (!in && std::memcmp(&store[e], &o.store[e], sizeof(T)) != 0) return false;
    }
    return true;
  }
};

enum class Kind { random, singular };

// A symmetric (Hermitian) n x n matrix in the uplo triangle of a Padded, and the whole of it.
template <class T>
struct Problem {
  Padded<T> a, b;
  std::vector<T> full;
  Problem(Rng &rng, bool hermitian, char uplo, int n, int nrhs, int pad, Kind kind)
      : a(n, n, n + pad), b(n, nrhs, n + pad), full(size_t(n) * n) {
    const int zero = kind == Kind::singular ? n / 2 : -1;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= j; ++i) {
        T x = random_value<T>(rng);
        if (i == zero || j == zero) x = T(0);
        if (hermitian && i == j) x = T(std::real(x));
        full[i + size_t(j) * n] = x;
        full[j + size_t(i) * n] = hermitian ? conjugate(x) : x;
      }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (uplo == 'U' ? i <= j : i >= j) a(i, j) = full[i + size_t(j) * n];
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < n; ++i) b(i, j) = random_value<T>(rng);
  }
};

// max over the columns of |A X - B|_inf / (|A|_inf |X|_inf n eps).
template <class T>
double residual(const std::vector<T> &full, int n, const Padded<T> &x, const Padded<T> &b, int nrhs) {
  using R = real_of<T>;
  double anorm = 0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += std::abs(full[i + size_t(j) * n]);
    anorm = std::max(anorm, s);
  }
  double worst = 0;
  for (int c = 0; c < nrhs; ++c) {
    double r = 0, xn = 0;
    for (int i = 0; i < n; ++i) {
      std::complex<long double> s = -std::complex<long double>(b(i, c));
      for (int j = 0; j < n; ++j) s += std::complex<long double>(full[i + size_t(j) * n]) * std::complex<long double>(x(j, c));
      r = std::max(r, double(std::abs(s)));
      xn = std::max(xn, double(std::abs(x(i, c))));
    }
    const double denom = anorm * xn * n * double(std::numeric_limits<R>::epsilon());
    worst = std::max(worst, denom > 0 ? r / denom : (r == 0 ? 0 : 1e300));
  }
  return worst;
}


bool cpu_mode() { return !opt.placement.expect_gpu && !opt.placement.expect_fallback && !opt.placement.require_gpu; }

template <class T>
double work_one(const std::vector<T> &work) {
  return double(std::real(work[0]));
}

// The factorization, its solve, and the driver on one problem.
template <class T>
void run_case(const Routines<T> &r, char uplo, int n, int nrhs, int pad, Kind kind, bool small_lwork, Rng &rng) {
  Problem<T> p(rng, r.hermitian, uplo, n, nrhs, pad, kind);
  char where[160];
  std::snprintf(where, sizeof where, "%s uplo=%c n=%d nrhs=%d lda=ldb=%d %s%s", r.trf_name.c_str(), uplo, n, nrhs,
                n + pad, kind == Kind::random ? "random" : "singular", small_lwork ? " lwork=1" : "");
  if (opt.verbose) std::printf("%s\n", where);
  const int lda = p.a.ld, ldb = p.b.ld;
  const auto in_triangle = [&](int i, int j) { return uplo == 'U' ? i <= j : i >= j; };
  const auto everything = [](int, int) { return true; };
  const bool bitwise = cpu_mode();

  // ---- xSYTRF/xHETRF ----
  Padded<T> a_mine = p.a, a_ref = p.a;
  std::vector<int> ipiv_mine(size_t(std::max(n, 1)) + 1, -7), ipiv_ref = ipiv_mine;
  std::vector<T> work(1, T(0)), work_ref(1, T(0));
  int query = -1, info = -99, info_ref = -99;
  r.trf(&uplo, &n, a_mine.a, &lda, ipiv_mine.data(), work.data(), &query, &info, 1);
  r.ref_trf(&uplo, &n, a_ref.a, &lda, ipiv_ref.data(), work_ref.data(), &query, &info_ref, 1);
  CHECK(info == 0 && info_ref == 0, "%s query: info %d (reference %d)", where, info, info_ref);
  if (bitwise) CHECK(work_one(work) == work_one(work_ref), "%s query: WORK(1) %g (reference %g)", where, work_one(work), work_one(work_ref));
  const double asked = work_one(work);
  int lwork = small_lwork ? 1 : std::max(1, int(asked));
  work.assign(size_t(lwork), T(0));
  work_ref.assign(size_t(lwork), T(0));
  r.trf(&uplo, &n, a_mine.a, &lda, ipiv_mine.data(), work.data(), &lwork, &info, 1);
  r.ref_trf(&uplo, &n, a_ref.a, &lda, ipiv_ref.data(), work_ref.data(), &lwork, &info_ref, 1);
  if (n > 0) ++calls;
  CHECK(info == info_ref, "%s: INFO %d (reference %d)", where, info, info_ref);
  CHECK(a_mine.same_outside(p.a, in_triangle), "%s: A changed outside its %c triangle", where, uplo);
  CHECK(ipiv_mine[size_t(std::max(n, 1))] == -7, "%s: IPIV written past n", where);
  if (bitwise) {
    CHECK(a_mine.same(a_ref), "%s: A not bit for bit the reference's", where);
    CHECK(std::equal(ipiv_mine.begin(), ipiv_mine.begin() + n, ipiv_ref.begin()), "%s: IPIV not the reference's", where);
    CHECK(std::memcmp(work.data(), work_ref.data(), sizeof(T)) == 0, "%s: WORK(1) %g (reference %g)", where,
          work_one(work), work_one(work_ref));
  } else {
    if (kind == Kind::random) {
      int first = -1;
      for (int i = 0; i < n && first < 0; ++i)
        if (ipiv_mine[i] != ipiv_ref[i]) first = i;
      CHECK(first < 0, "%s: IPIV(%d) = %d (reference %d)", where, first + 1, first < 0 ? 0 : ipiv_mine[first],
            first < 0 ? 0 : ipiv_ref[first]);
    }
    if (!small_lwork && n > 0) CHECK(work_one(work) == asked, "%s: WORK(1) %g, the query said %g", where, work_one(work), asked);
  }

  // ---- xSYTRS/xHETRS on the factor just computed ----
  if (info == 0 && info_ref == 0) {
    Padded<T> x_mine = p.b, x_ref = p.b;
    int sinfo = -99, sinfo_ref = -99;
    r.trs(&uplo, &n, &nrhs, a_mine.a, &lda, ipiv_mine.data(), x_mine.a, &ldb, &sinfo, 1);
    r.ref_trs(&uplo, &n, &nrhs, a_ref.a, &lda, ipiv_ref.data(), x_ref.a, &ldb, &sinfo_ref, 1);
    if (n > 0 && nrhs > 0) ++calls;
    CHECK(sinfo == 0 && sinfo_ref == 0, "%s trs: INFO %d (reference %d)", where, sinfo, sinfo_ref);
    CHECK(x_mine.same_outside(p.b, everything), "%s trs: B's padding changed", where);
    if (bitwise) CHECK(x_mine.same(x_ref), "%s trs: X not bit for bit the reference's", where);
    const double res = residual(p.full, n, x_mine, p.b, nrhs);
    CHECK(res <= 60, "%s trs: residual %.3g", where, res);
  }
  if (small_lwork) return;

  // ---- xSYSV/xHESV ----
  Padded<T> sa_mine = p.a, sa_ref = p.a, sb_mine = p.b, sb_ref = p.b;
  std::vector<int> sp_mine(size_t(std::max(n, 1)) + 1, -7), sp_ref = sp_mine;
  work.assign(1, T(0));
  work_ref.assign(1, T(0));
  r.sv(&uplo, &n, &nrhs, sa_mine.a, &lda, sp_mine.data(), sb_mine.a, &ldb, work.data(), &query, &info, 1);
  r.ref_sv(&uplo, &n, &nrhs, sa_ref.a, &lda, sp_ref.data(), sb_ref.a, &ldb, work_ref.data(), &query, &info_ref, 1);
  CHECK(info == 0 && info_ref == 0, "%s sv query: info %d (reference %d)", where, info, info_ref);
  if (bitwise) CHECK(work_one(work) == work_one(work_ref), "%s sv query: WORK(1) %g (reference %g)", where, work_one(work), work_one(work_ref));
  const double sv_asked = work_one(work);
  lwork = std::max(1, int(sv_asked));
  work.assign(size_t(lwork), T(0));
  work_ref.assign(size_t(lwork), T(0));
  r.sv(&uplo, &n, &nrhs, sa_mine.a, &lda, sp_mine.data(), sb_mine.a, &ldb, work.data(), &lwork, &info, 1);
  r.ref_sv(&uplo, &n, &nrhs, sa_ref.a, &lda, sp_ref.data(), sb_ref.a, &ldb, work_ref.data(), &lwork, &info_ref, 1);
  if (n > 0) ++calls;
  CHECK(info == info_ref, "%s sv: INFO %d (reference %d)", where, info, info_ref);
  CHECK(sa_mine.same_outside(p.a, in_triangle), "%s sv: A changed outside its %c triangle", where, uplo);
  CHECK(sb_mine.same_outside(p.b, everything), "%s sv: B's padding changed", where);
  if (info > 0) CHECK(sb_mine.same(p.b), "%s sv: B changed with INFO %d", where, info);
  if (bitwise) {
    CHECK(sa_mine.same(sa_ref) && sb_mine.same(sb_ref), "%s sv: A or B not bit for bit the reference's", where);
    CHECK(std::equal(sp_mine.begin(), sp_mine.begin() + n, sp_ref.begin()), "%s sv: IPIV not the reference's", where);
    CHECK(std::memcmp(work.data(), work_ref.data(), sizeof(T)) == 0, "%s sv: WORK(1) %g (reference %g)", where,
          work_one(work), work_one(work_ref));
  } else {
    if (kind == Kind::random)
      CHECK(std::equal(sp_mine.begin(), sp_mine.begin() + n, sp_ref.begin()), "%s sv: IPIV not the reference's", where);
    if (n > 0) CHECK(work_one(work) == sv_asked, "%s sv: WORK(1) %g, the query said %g", where, work_one(work), sv_asked);
  }
  if (info == 0) {
    const double res = residual(p.full, n, sb_mine, p.b, nrhs);
    CHECK(res <= 60, "%s sv: residual %.3g", where, res);
  }
}

// The reference's name of a routine for its handler: "DSYTRF", "ZHESV ".
std::string handler_name(const std::string &symbol) {
  std::string name = symbol.substr(0, symbol.size() - 1);
  for (char &c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  name.resize(6, ' ');
  return name;
}

template <class T>
void expect_reported(const std::string &symbol, int param, int info, const char *what) {
  const std::string name = handler_name(symbol);
  CHECK(info == -param && harness::xerbla.calls == 1 && harness::xerbla.info == param && harness::xerbla.length == 6 &&
            name == harness::xerbla.name,
        "%s %s: parameter %d: info %d, xerbla %d call(s) with '%s' (length %zu) and %d", symbol.c_str(), what, param,
        info, harness::xerbla.calls, harness::xerbla.name, harness::xerbla.length, harness::xerbla.info);
}

// Illegal arguments, each in turn, in the reference's order of checks; A and B untouched.
template <class T>
void check_arguments(const Routines<T> &r) {
  struct Bad {
    char uplo;
    int n, nrhs, lda, ldb, lwork, trf_param, trs_param, sv_param;
  };
  const int n = 5, big = 1000;
  const std::vector<Bad> bad = {
      {'X', n, 1, n, n, big, 1, 1, 1},        {'U', -1, 1, n, n, big, 2, 2, 2},
      {'L', n, -1, n, n, big, 0, 3, 3},       {'U', n, 1, n - 1, n, big, 4, 5, 5},
      {'L', n, 1, n, n - 1, big, 0, 8, 8},    {'U', n, 1, n, n, 0, 7, 0, 10},
      {'L', 0, 0, 1, 1, 0, 7, 0, 10},         {'u', n, 1, n, n, -2, 7, 0, 10}};
  std::vector<T> a(size_t(n) * n + 8, T(1)), b(size_t(n) * n + 8, T(2)), work(size_t(big), T(0));
  std::vector<int> ipiv(size_t(n) + 1, 1);
  for (const Bad &x : bad) {
    const std::vector<T> a0 = a, b0 = b;
    int info = 99;
    if (x.trf_param != 0) {
      harness::xerbla.clear();
      r.trf(&x.uplo, &x.n, a.data(), &x.lda, ipiv.data(), work.data(), &x.lwork, &info, 1);
      expect_reported<T>(r.trf_name, x.trf_param, info, "trf");
    }
    if (x.trs_param != 0) {
      harness::xerbla.clear();
      info = 99;
      r.trs(&x.uplo, &x.n, &x.nrhs, a.data(), &x.lda, ipiv.data(), b.data(), &x.ldb, &info, 1);
      expect_reported<T>(r.trs_name, x.trs_param, info, "trs");
    }
    harness::xerbla.clear();
    info = 99;
    r.sv(&x.uplo, &x.n, &x.nrhs, a.data(), &x.lda, ipiv.data(), b.data(), &x.ldb, work.data(), &x.lwork, &info, 1);
    expect_reported<T>(r.sv_name, x.sv_param, info, "sv");
    CHECK(a == a0 && b == b0, "%s: illegal call (uplo %c n %d lwork %d) changed A or B", r.trf_name.c_str(), x.uplo,
          x.n, x.lwork);
  }
}

template <class T>
void run_precision(const harness::ReferenceLapack &lib) {
  for (bool hermitian : {false, true}) {
    if (hermitian && !is_complex<T>) continue;
    const Routines<T> r = routines<T>(lib, hermitian);
    if (!r.trf || !r.trs || !r.sv || !r.ref_trf || !r.ref_trs || !r.ref_sv) {
      CHECK(false, "a routine of %s's family is missing (cudrop or the reference)", r.trf_name.c_str());
      continue;
    }
    check_arguments<T>(r);
    Rng rng(opt.seed * 131 + sizeof(T) * 7 + hermitian);
    int index = 0;
    std::vector<int> sizes = {0, 1, 2, 7, 33, 64, 65, 130};
    if (opt.big) sizes.push_back(1007);
    for (int n : sizes) {
      if (n > opt.max && n != 1007) continue;
      for (char uplo : {'U', 'L'})
        for (int nrhs : {0, 1, 5}) {
          const int pad = 1 + index++ % 3;
          run_case<T>(r, uplo, n, nrhs, pad, Kind::random, false, rng);
          if (nrhs == 1 && n >= 2) run_case<T>(r, uplo, n, nrhs, pad, Kind::singular, false, rng);
          if (nrhs == 5 && n >= 2 && n <= 130) run_case<T>(r, uplo, n, nrhs, pad, Kind::random, true, rng);
        }
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  opt.max = 130;
  // CPU mode compares bit for bit: cudrop's CPU library must be the reference's, chosen before
  // cudrop's first call (lapack_test_main loads the reference first).
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--expect-cpu") == 0) {
      const harness::ReferenceLapack ref = harness::load_reference_lapack({"dsytrf_"}, true);
      if (ref) harness::use_reference_underneath(ref, "dsytrf_", "sytrf_test");
    }
  return harness::lapack_test_main(argc, argv, "sytrf_test", opt, &special,
                                   {"ssytrf_", "dsytrf_", "csytrf_", "zsytrf_", "chetrf_", "zhetrf_", "zhesv_",
                                    "dsysv_"},
                                   &calls, [](const harness::ReferenceLapack &ref, auto zero) {
                                     run_precision<decltype(zero)>(ref);
                                   });
}
