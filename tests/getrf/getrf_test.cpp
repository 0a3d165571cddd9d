// getrf_test: sgetrf_/dgetrf_ (LU with partial pivoting) through the public symbols, against
// the reference routine.
//
// The reference is the system's LAPACK, loaded by tests/harness/reference.h so that neither it
// nor the BLAS under it is interposed by cudrop; CUDROP_TEST_REF_LAPACK names another library.
// Without one, a plain unblocked LU written here (same pivot rule) stands in for small sizes;
// a larger case then has no comparison, and the program exits 77 (skipped) if nothing failed.
//
// What every call must satisfy (m, n, lda >= m, sometimes with padding rows):
//  * the padding rows of A (between m and lda) are unchanged, bit for bit;
//  * no NaN or Inf in the result (the inputs have none; singular inputs must not create any);
//  * IPIV(k) in [k, m] (1-based), and every multiplier |L(i,k)| <= 1 (+ 4 eps for the
//    rounding of a * (1/pivot)): the pivot was the largest candidate;
//  * INFO equals the reference's (or the value the construction implies);
//  * residual: ||P*A - L*U||_1 / (min(m,n) ||A||_1 eps) < 30 (LAPACK's xGET01 ratio and the
//    netlib tester's threshold), with eps = LAPACK's relative machine precision (eps/2).
//    L*U is formed in double (long double for D) by plain loops for small calls, and by
//    dgemm_ (cudrop's own, on the GPU in gpu mode) from the factors widened to double for
//    large ones; when ||A|| = 0 the residual must be exactly 0;
//  * IPIV equals the reference's. Two correct implementations round differently, so when
//    two candidates are within rounding of each other they may choose differently, and from
//    then on the factorizations differ (both correct). So the first difference, at step k,
//    must be such a near tie: the row we chose has, in the reference's factors, a multiplier
//    |L_ref(j,k)| >= 1 - tol at that step (tol = 16 max(m,n) eps max|A| / |U_ref(k,k)|,
//    capped at 0.5); later steps are not compared. Matrices built so that the arithmetic is
//    exact (ties/zeros) must match the reference's IPIV exactly, including every exact tie
//    (reference ISAMAX takes the first index of the largest |a|).
// Matrices: random uniform [-1,1); badly scaled (rows and columns scaled over 6 (S) or 12 (D)
// orders of magnitude); nearly rank deficient (rank n/2 plus 1e-4 noise); zero columns at the
// first, a middle and the last position (INFO = that column); all zero; exact ties (tall
// Q*[I;I] with random signs and a random row permutation Q: every column has two candidates
// of |1|); square ties (the same with zero columns after them); planted ties in column 1
// (three +-1 entries far apart in an otherwise |a| < 0.5 matrix).
// Bad arguments go to this program's own xerbla_ ("SGETRF", length 6, parameter number
// M<0 -> 1, N<0 -> 2, LDA<max(1,M) -> 4, INFO = -that) and change nothing; M = 0 or N = 0
// return at once with INFO = 0 and nothing touched.
//
// Options:
//   --max-n N         largest dimension of the square and rectangular lists (default 300)
//   --big             also 16384 square, and tall panels too high for shared memory
//   --ref-max-work W  m*n*min(m,n) above which the reference is not run (default 1.2e9)
//   --prec s|d|sd     precisions (default sd)       --seed N   (default 1)
//   --require-gpu     exit 77 (skip) when cudrop_gpu_available() is 0
//   --expect-gpu      at the end: every factorization ran on the GPU, no CPU call, no fallback
//   --expect-cpu      at the end: no GPU call
//   --expect-fallback at the end: at least one GPU attempt fell back to the CPU
//   -v                one line per call
#include "tests/getrf/getrf_test.h"

namespace getrf_test {

Options opt;

namespace {

long factorizations = 0;
long reference_missing = 0;  // comparisons wanted but not made: no reference, too big for the stand-in
using harness::seconds_now;

// ---- the reference ----
struct Reference {
  getrf_fn<float> s = nullptr;
  getrf_fn<double> d = nullptr;
  std::string how = "none (the unblocked LU of this program stands in)";
  template <class T> getrf_fn<T> get() const {
    if constexpr (std::is_same_v<T, float>) return s; else return d;
  }
};

Reference load_reference() {
  Reference ref;
  const harness::ReferenceLapack lapack = harness::load_reference_lapack({"sgetrf_", "dgetrf_"}, true);
  if (!lapack) return ref;
  ref.s = lapack.symbol<getrf_fn<float>>("sgetrf_");
  ref.d = lapack.symbol<getrf_fn<double>>("dgetrf_");
  ref.how = lapack.how;
  return ref;
}

// Unblocked right-looking LU with the reference's pivot rule (first largest |a|, NaN never
// chosen) and scaling (times 1/pivot above the safe minimum): the stand-in reference.
template <class T>
void simple_getrf(int m, int n, T *a, int lda, int *ipiv, int *info) {
  *info = 0;
  const int mn = std::min(m, n);
  auto A = [&](int i, int j) -> T & { return a[size_t(i) + size_t(j) * lda]; };
  for (int k = 0; k < mn; ++k) {
    int p = k;
    T best = std::fabs(A(k, k));
    for (int i = k + 1; i < m; ++i)
      if (std::fabs(A(i, k)) > best) { best = std::fabs(A(i, k)); p = i; }
    ipiv[k] = p + 1;
    if (A(p, k) != T(0)) {
      if (p != k)
        for (int j = 0; j < n; ++j) std::swap(A(k, j), A(p, j));
      const T pivot = A(k, k);
      const bool reciprocal = std::fabs(pivot) >= std::numeric_limits<T>::min();
      const T inverse = T(1) / pivot;
      for (int i = k + 1; i < m; ++i) A(i, k) = reciprocal ? A(i, k) * inverse : A(i, k) / pivot;
    } else if (*info == 0) {
      *info = k + 1;
    }
    for (int j = k + 1; j < n; ++j) {
      const T u = A(k, j);
      if (u != T(0))
        for (int i = k + 1; i < m; ++i) A(i, j) -= A(i, k) * u;
    }
  }
}
// Row order after applying IPIV's interchanges: position i holds original row perm[i].
std::vector<int> permutation(int m, int mn, const int *ipiv) {
  std::vector<int> perm(m);
  for (int i = 0; i < m; ++i) perm[i] = i;
  for (int k = 0; k < mn; ++k) {
    const int p = ipiv[k] - 1;
    if (p >= 0 && p < m) std::swap(perm[k], perm[p]);
  }
  return perm;
}

// ||P*A - L*U||_1 / (min(m,n) ||A||_1 eps); -1 when ||A||_1 = 0 and the residual is not 0.
template <class T>
double residual_ratio(int m, int n, const T *a, const T *lu, int lda, const std::vector<int> &perm) {
  using Acc = typename Prec<T>::Acc;
  const int mn = std::min(m, n);
  double anorm = 0, rnorm = 0;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < m; ++i) s += std::fabs(double(a[size_t(i) + size_t(j) * lda]));
    anorm = std::max(anorm, s);
  }
  const double work = double(m) * n * mn;
  std::vector<Acc> acc(m);
  if (work <= 4e8) {
    // Column j of L*U = sum over k <= min(j, mn-1) of L(:,k) U(k,j), L unit lower trapezoidal.
    for (int j = 0; j < n; ++j) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      const T *luj = lu + size_t(j) * lda;
      for (int k = 0; k <= std::min(j, mn - 1); ++k) {
        const Acc u = Acc(luj[k]);
        if (u == Acc(0)) continue;
        acc[k] += u;
        const T *lk = lu + size_t(k) * lda;
        for (int i = k + 1; i < m; ++i) acc[i] += Acc(lk[i]) * u;
      }
      double s = 0;
      for (int i = 0; i < m; ++i) s += std::fabs(double(Acc(a[size_t(perm[i]) + size_t(j) * lda]) - acc[i]));
      rnorm = std::max(rnorm, s);
    }
  } else {
    // Large: L and U widened to double, multiplied by dgemm_ (cudrop's: on the GPU in gpu mode).
    std::vector<double> L(size_t(m) * mn, 0.0), U(size_t(mn) * n, 0.0), LU(size_t(m) * n);
    for (int k = 0; k < mn; ++k) {
      L[size_t(k) + size_t(k) * m] = 1.0;
      for (int i = k + 1; i < m; ++i) L[size_t(i) + size_t(k) * m] = double(lu[size_t(i) + size_t(k) * lda]);
    }
    for (int j = 0; j < n; ++j)
      for (int k = 0; k <= std::min(j, mn - 1); ++k) U[size_t(k) + size_t(j) * mn] = double(lu[size_t(k) + size_t(j) * lda]);
    const double one = 1.0, zero = 0.0;
    dgemm_("N", "N", &m, &n, &mn, &one, L.data(), &m, U.data(), &mn, &zero, LU.data(), &m, 1, 1);
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int i = 0; i < m; ++i)
        s += std::fabs(double(a[size_t(perm[i]) + size_t(j) * lda]) - LU[size_t(i) + size_t(j) * m]);
      rnorm = std::max(rnorm, s);
    }
  }
  if (anorm == 0) return rnorm == 0 ? 0.0 : -1.0;
  return rnorm / (double(std::max(1, mn)) * anorm * lapack_eps<T>());
}

template <class T>
void run_case(const Reference &ref, Kind kind, int m, int n, int pad, uint64_t seed) {
  const int lda = m + pad, mn = std::min(m, n);
  const size_t elems = size_t(lda) * n;
  std::vector<T> a(elems);
  // Padding rows: -1e10 like the netlib testers, with varying low bits so a moved value shows.
  for (size_t e = 0; e < elems; ++e) a[e] = T(-1e10) * T(1 + (e % 7) * 1e-3);
  const Built built = build<T>(kind, m, n, lda, seed, a.data());
  double amax = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) amax = std::max(amax, std::fabs(double(a[size_t(i) + size_t(j) * lda])));

  std::vector<T> lu(a);
  std::vector<int> ipiv(size_t(mn) + 1, -7);
  int info = -99;
  const int mm = m, nn = n, ll = lda;
  const double t0 = seconds_now();
  Prec<T>::cudrop()(&mm, &nn, lu.data(), &ll, ipiv.data(), &info);
  const double elapsed = seconds_now() - t0;
  ++factorizations;
  char what[160];
  std::snprintf(what, sizeof what, "%sGETRF %s m=%d n=%d lda=%d", Prec<T>::name, kind_name(kind), m, n, lda);
  CHECK(mm == m && nn == n && ll == lda, "%s: scalar arguments changed", what);
  CHECK(ipiv[mn] == -7, "%s: IPIV written past min(m,n)", what);

  // Padding rows unchanged; no NaN/Inf; IPIV in range; |L| <= 1.
  long moved = 0, nonfinite = 0, bad_ipiv = 0, big_l = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = m; i < lda; ++i)
      if (std::memcmp(&lu[size_t(i) + size_t(j) * lda], &a[size_t(i) + size_t(j) * lda], sizeof(T)) != 0) ++moved;
    for (int i = 0; i < m; ++i) {
      const T v = lu[size_t(i) + size_t(j) * lda];
      if (!std::isfinite(v)) ++nonfinite;
      if (j < mn && i > j && std::fabs(double(v)) > 1.0 + 4 * lapack_eps<T>()) ++big_l;
    }
  }
  for (int k = 0; k < mn; ++k)
    if (ipiv[k] < k + 1 || ipiv[k] > m) ++bad_ipiv;
  CHECK(moved == 0, "%s: %ld padding elements changed", what, moved);
  CHECK(nonfinite == 0, "%s: %ld NaN/Inf in the factors", what, nonfinite);
  CHECK(bad_ipiv == 0, "%s: %ld IPIV entries out of [k, m]", what, bad_ipiv);
  CHECK(big_l == 0, "%s: %ld multipliers |L(i,k)| > 1 (not the largest pivot)", what, big_l);

  const std::vector<int> perm = permutation(m, mn, ipiv.data());
  const double ratio = bad_ipiv ? 1e30 : residual_ratio<T>(m, n, a.data(), lu.data(), lda, perm);
  CHECK(ratio >= 0 && ratio < kThreshold, "%s: residual ratio %.3g (threshold %g)", what, ratio, kThreshold);

  // The reference: INFO exactly; IPIV exactly on exact matrices, else up to a near tie.
  const double work = double(m) * n * mn;
  const getrf_fn<T> reference = ref.get<T>();
  const bool use_simple = reference == nullptr && work <= 3e7;
  std::string pivots_note = "no reference";
  if (reference == nullptr && !use_simple && work <= opt.ref_max_work) ++reference_missing;
  if ((reference != nullptr && work <= opt.ref_max_work) || use_simple) {
    std::vector<T> r(a);
    std::vector<int> rpiv(size_t(mn) + 1, -7);
    int rinfo = -99;
    if (use_simple) simple_getrf<T>(m, n, r.data(), lda, rpiv.data(), &rinfo);
    else reference(&mm, &nn, r.data(), &ll, rpiv.data(), &rinfo);
    CHECK(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);
    int first = -1;
    for (int k = 0; k < mn && first < 0; ++k)
      if (ipiv[k] != rpiv[k]) first = k;
    if (first < 0) {
      pivots_note = "IPIV = reference";
    } else if (first < built.exact_prefix) {
      CHECK(false, "%s: IPIV(%d) = %d, reference %d (exact arithmetic: must be equal)", what, first + 1,
            ipiv[first], rpiv[first]);
    } else {
      // Where is the row we chose at step `first` in the reference's order?
      const std::vector<int> rperm = permutation(m, mn, rpiv.data());
      int j = -1;
      for (int i = first + 1; i < m && j < 0; ++i)
        if (rperm[i] == perm[first]) j = i;
      const double ukk = std::fabs(double(r[size_t(first) + size_t(first) * lda]));
      const double l = j < 0 ? 0.0 : std::fabs(double(r[size_t(j) + size_t(first) * lda]));
      const double tol = ukk > 0 ? std::min(0.5, 16.0 * std::max(m, n) * lapack_eps<T>() * amax / ukk) : 0.0;
      CHECK(j >= 0 && l >= 1.0 - tol,
            "%s: IPIV(%d) = %d, reference %d, and not a near tie (|L_ref| = %.9g, tol %.3g)", what,
            first + 1, ipiv[first], rpiv[first], l, tol);
      char note[96];
      std::snprintf(note, sizeof note, "IPIV = reference up to step %d, then a near tie (|L_ref| = %.7f)", first + 1, l);
      pivots_note = note;
    }
  } else {
    CHECK(info == built.expected_info, "%s: INFO %d, expected %d", what, info, built.expected_info);
  }
  if (opt.verbose || elapsed > 0.5)
    std::printf("%s: info=%d ratio=%.3g %s (%.1f ms)\n", what, info, ratio, pivots_note.c_str(), elapsed * 1e3);
}
struct Shape { int m, n; };

template <class T>
void run_precision(const Reference &ref) {
  argument_checks<T>();
  const bool single = std::is_same_v<T, float>;
  const int squares[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129,
                         130, 200, 255, 256, 257, 300, 383, 384, 385, 511, 512, 513, 1000, 1024, 1025,
                         2047, 2048, 2049, 3000, 4096, 4097, 8192};
  const Shape rects[] = {{1, 5}, {5, 1}, {2, 300}, {300, 2}, {1, 257}, {257, 1}, {129, 64}, {64, 129},
                         {300, 100}, {100, 300}, {300, 299}, {299, 300}, {1000, 400}, {400, 1000},
                         {3000, 1000}, {1000, 3000}, {4097, 129}, {129, 4097}, {8192, 1000}, {1000, 8192}};
  const Kind all[] = {Kind::random, Kind::scaled, Kind::lowrank, Kind::zero_first, Kind::zero_mid,
                      Kind::zero_last, Kind::zero, Kind::ties_square, Kind::planted};
  uint64_t seed = opt.seed * 1000003u + (single ? 0 : 500000);
  int index = 0;
  for (int n : squares) {
    if (n > opt.max_n) continue;
    for (Kind kind : all) {
      // Every kind up to 300; beyond, random and a rotating selection (lowrank is O(n^3) here).
      const bool small = n <= 300;
      const int pick = index % 8;
      const bool take = small || kind == Kind::random ||
                        (n <= 4097 && ((pick == 0 && kind == Kind::zero_mid) || (pick == 1 && kind == Kind::scaled) ||
                                       (pick == 2 && kind == Kind::planted) || (pick == 3 && kind == Kind::zero_last) ||
                                       (pick == 4 && kind == Kind::ties_square) || (pick == 5 && kind == Kind::zero_first) ||
                                       (pick == 6 && kind == Kind::zero) || (pick == 7 && kind == Kind::lowrank && n <= 1100))) ||
                        (n > 4097 && kind == Kind::zero_last);
      if (!take) continue;
      run_case<T>(ref, kind, n, n, (index % 3) * 3, ++seed);
      ++index;
    }
  }
  for (const Shape &s : rects) {
    if (std::max(s.m, s.n) > opt.max_n) continue;
    run_case<T>(ref, Kind::random, s.m, s.n, (index % 3) == 1 ? 5 : 0, ++seed);
    run_case<T>(ref, index % 2 ? Kind::zero_mid : Kind::zero_last, s.m, s.n, 0, ++seed);
    ++index;
  }
  // Exact ties: tall 2h x h with two candidates of |1| per column.
  for (int h : {1, 2, 3, 17, 64, 65, 129, 150, 300, 1000, 2048}) {
    if (2 * h > std::max<long>(opt.max_n, 600) || (h > 300 && opt.max_n <= 300)) continue;
    run_case<T>(ref, Kind::ties, 2 * h, h, h % 2, ++seed);
  }
  if (opt.big) {
    run_case<T>(ref, Kind::random, 16384, 16384, 0, ++seed);
    // Panels too tall for the chip's shared memory (the in-place panel kernel).
    run_case<T>(ref, Kind::random, single ? 70000 : 40000, 130, 3, ++seed);
    run_case<T>(ref, Kind::zero_mid, single ? 70000 : 40000, 200, 0, ++seed);
  }
}

bool parse(int argc, char **argv) {
  harness::CommandLine line("usage: getrf_test [--max-n N] [--big] [--ref-max-work W] [--prec s|d|sd] [--seed N]\n"
                            "                  [--require-gpu] [--expect-gpu|--expect-cpu|--expect-fallback] [-v]");
  line.number("--max-n", &opt.max_n).flag("--big", &opt.big).number("--ref-max-work", &opt.ref_max_work);
  line.text("--prec", &opt.prec).number("--seed", &opt.seed).placement(&opt.placement).flag("-v", &opt.verbose);
  return line.parse(argc, argv);
}

}  // namespace
}  // namespace getrf_test

using namespace getrf_test;

int main(int argc, char **argv) {
  if (!parse(argc, argv)) return 2;
  if (harness::skip_without_gpu("getrf_test", opt.placement.require_gpu)) return harness::kSkipped;
  const Reference ref = load_reference();
  std::printf("getrf_test: cudrop %s, reference: %s, max n %ld%s\n", cudrop_version(), ref.how.c_str(),
              opt.max_n, opt.big ? " (+big)" : "");
  const harness::Counters start = harness::Counters::now();
  const double t0 = seconds_now();
  if (opt.prec.find('s') != std::string::npos) run_precision<float>(ref);
  if (opt.prec.find('d') != std::string::npos) run_precision<double>(ref);
  const harness::Counters made = harness::Counters::now().since(start);
  const long gpu = made.gpu, cpu = made.cpu, fb = made.fallbacks;
  std::printf("counters: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld (%ld factorizations; residual "
              "products by dgemm_ count too)\n", gpu, cpu, fb, factorizations);
  if (opt.placement.expect_gpu) {
    CHECK(gpu >= factorizations && cpu == 0 && fb == 0,
          "expected every call on the GPU: gpu_calls=%ld cpu_calls=%ld fallbacks=%ld", gpu, cpu, fb);
  }
  if (opt.placement.expect_cpu) CHECK(gpu == 0 && cpu >= factorizations, "expected CPU only: gpu_calls=%ld cpu_calls=%ld", gpu, cpu);
  if (opt.placement.expect_fallback) CHECK(fb > 0, "expected GPU attempts to fall back: gpu_fallbacks=%ld", fb);
  std::printf("getrf_test: %d checks, %d failures, %ld factorizations, %.1f s\n", checks, failures,
              factorizations, seconds_now() - t0);
  if (failures == 0 && reference_missing != 0) {
    std::printf("getrf_test: SKIP: no reference LAPACK: %ld comparisons with it not made (too big for the "
                "stand-in)\n", reference_missing);
    return harness::kSkipped;
  }
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
