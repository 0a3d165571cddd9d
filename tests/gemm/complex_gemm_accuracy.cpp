// complex_gemm_accuracy: cgemm_/zgemm_ and cblas_cgemm/cblas_zgemm against
// a reference computed here in higher precision (double for C, long double for Z).
//
// Every call, through the Fortran and CBLAS entries (column- and row-major) and their ILP64 forms
// (cgemm_64_, cblas_cgemm64_): all nine TRANS pairs (N, T, C), odd sizes, LD larger than the rows, views that
// start one element into their buffer (not 16-byte aligned), real and complex alpha and beta,
// alpha = 0 (A and B full of NaN: never read), beta = 0 (C full of NaN: never read), beta = 1;
// NaN and Inf in the imaginary parts of A and B on a case of their own (they must reach C as
// the reference's arithmetic carries them).
// Checks: ratio = max|C - Cref| / ((|alpha| k maxA maxB + |beta| maxC0) eps) < 4 per entry (a
// complex product and sum round about twice as often as a real one; a wrong conjugation, a
// missing term or TF32 gives ratios of 100 to 10^6); A, B and everything of C's buffer outside
// its view unchanged byte for byte. Large calls (m n k above --full-work) check a random sample
// of entries exactly as above and all of C by a randomized product with a +-1 vector.
//
// Options: --max-size N (default 300; sizes 1, 7, 33, 64, 1007 up to N), --prec c|z|cz,
// --full-work W (3e7), --require-gpu, --expect-gpu, --expect-cpu, --expect-fallback, -v.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/complex.h"
#include "cudrop.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/rng.h"


// The ILP64 entries (64-bit integers) libcudrop exports beside the LP64 ones.
extern "C" {
void cgemm_64_(const char *, const char *, const int64_t *, const int64_t *, const int64_t *, const void *,
               const void *, const int64_t *, const void *, const int64_t *, const void *, void *, const int64_t *,
               size_t, size_t);
void zgemm_64_(const char *, const char *, const int64_t *, const int64_t *, const int64_t *, const void *,
               const void *, const int64_t *, const void *, const int64_t *, const void *, void *, const int64_t *,
               size_t, size_t);
void cblas_cgemm64_(int, int, int, int64_t, int64_t, int64_t, const void *, const void *, int64_t, const void *,
                    int64_t, const void *, void *, int64_t);
void cblas_zgemm64_(int, int, int, int64_t, int64_t, int64_t, const void *, const void *, int64_t, const void *,
                    int64_t, const void *, void *, int64_t);
}

namespace {

using cudrop::Complex;

struct Options {
  long max_size = 300;
  double full_work = 3e7;
  harness::Placement placement;
  bool verbose = false;
  std::string prec = "cz";
};
Options opt;
long failures = 0, calls = 0;

template <class R> struct Wide;
template <> struct Wide<float> { using type = double; };
template <> struct Wide<double> { using type = long double; };

template <class R>
struct Precision {
  using W = typename Wide<R>::type;
  using C = Complex<R>;
  static constexpr R eps = sizeof(R) == 4 ? FLT_EPSILON : DBL_EPSILON;
  static void fortran(char ta, char tb, int m, int n, int k, const C *alpha, const C *a, int lda, const C *b,
                      int ldb, const C *beta, C *c, int ldc) {
    if (sizeof(R) == 4) cgemm_(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
    else zgemm_(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
  }
  static void fortran64(char ta, char tb, int64_t m, int64_t n, int64_t k, const C *alpha, const C *a, int64_t lda,
                        const C *b, int64_t ldb, const C *beta, C *c, int64_t ldc) {
    if (sizeof(R) == 4) cgemm_64_(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
    else zgemm_64_(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
  }
  static void cblas64(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, const C *alpha, const C *a,
                      int64_t lda, const C *b, int64_t ldb, const C *beta, C *c, int64_t ldc) {
    if (sizeof(R) == 4) cblas_cgemm64_(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else cblas_zgemm64_(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void cblas(int layout, int ta, int tb, int m, int n, int k, const C *alpha, const C *a, int lda,
                    const C *b, int ldb, const C *beta, C *c, int ldc) {
    const auto order = CBLAS_LAYOUT(layout);
    const auto op_a = CBLAS_TRANSPOSE(ta), op_b = CBLAS_TRANSPOSE(tb);
    if (sizeof(R) == 4) cblas_cgemm(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else cblas_zgemm(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
};

uint64_t hash_bytes(const void *p, size_t bytes) {
  const auto *b = static_cast<const unsigned char *>(p);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

// A rows x cols complex matrix inside a buffer: column-major with leading dimension ld
// (row-major: the transpose's storage), `off` elements in, 3 guard elements after.
template <class R>
struct Stored {
  long rows = 0, cols = 0, ld = 1, off = 0;
  bool row_major = false;
  std::vector<Complex<R>> buf;
  size_t index(long r, long c) const {
    return size_t(off) + (row_major ? size_t(r) * size_t(ld) + size_t(c) : size_t(r) + size_t(c) * size_t(ld));
  }
  Complex<R> &at(long r, long c) { return buf[index(r, c)]; }
  Complex<R> at(long r, long c) const { return buf[index(r, c)]; }
  Complex<R> *data() { return buf.data() + off; }
  void make(long r, long c, long pad, long offset, bool rm, Rng &rng, R fill_nan) {
    rows = r, cols = c, off = offset, row_major = rm;
    ld = std::max(1L, (rm ? c : r) + pad);
    buf.assign(size_t(off) + size_t(ld) * size_t(std::max(1L, rm ? r : c)) + 3,
               Complex<R>(R(rng.symmetric()), R(rng.symmetric())));
    for (auto &x : buf) x = Complex<R>(R(rng.symmetric()), R(rng.symmetric()));
    if (std::isnan(fill_nan))
      for (long j = 0; j < c; ++j)
        for (long i = 0; i < r; ++i) at(i, j) = Complex<R>(fill_nan, fill_nan);
  }
};

template <class R>
Complex<R> op_at(const Stored<R> &x, char op, long i, long l) {  // op(X)(i, l)
  if (op == 'N') return x.at(i, l);
  const Complex<R> v = x.at(l, i);
  return op == 'C' ? cudrop::conj(v) : v;
}

template <class R>
void check_call(char ta, char tb, long m, long n, long k, Complex<R> alpha, Complex<R> beta, int api, Rng &rng,
                bool special_values) {
  using P = Precision<R>;
  using W = typename P::W;
  using C = Complex<R>;
  // api: 0 Fortran, 1 CBLAS column-major, 2 CBLAS row-major, 3 Fortran ILP64, 4 CBLAS ILP64 row-major
  const bool row_major = api == 2 || api == 4;
  const long ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  const R nan = std::numeric_limits<R>::quiet_NaN();
  const bool alpha_zero = alpha == C(0);
  Stored<R> a, b, c;
  const long pad = rng.below(3) == 0 ? 0 : long(rng.below(5)) + 1, offset = long(rng.below(2));
  a.make(ar, ac, pad, offset, row_major, rng, alpha_zero ? nan : R(0) * 0);
  b.make(br, bc, pad + 1, 1 - offset, row_major, rng, alpha_zero ? nan : R(0) * 0);
  c.make(m, n, pad, offset, row_major, rng, beta == C(0) ? nan : R(0) * 0);
  if (special_values && ar > 0 && ac > 0) {
    a.at(0, 0).im = std::numeric_limits<R>::infinity();
    a.at(ar - 1, ac - 1).im = nan;
  }
  const Stored<R> c0 = c;
  const uint64_t ha = hash_bytes(a.buf.data(), a.buf.size() * sizeof(C)), hb = hash_bytes(b.buf.data(), b.buf.size() * sizeof(C));
  const C alpha_in = alpha, beta_in = beta;
  auto code = [](char t) { return t == 'N' ? 111 : t == 'T' ? 112 : 113; };
  if (api == 0) {
    P::fortran(ta, tb, int(m), int(n), int(k), &alpha, a.data(), int(a.ld), b.data(), int(b.ld), &beta, c.data(), int(c.ld));
  } else if (api == 3) {
    P::fortran64(ta, tb, m, n, k, &alpha, a.data(), a.ld, b.data(), b.ld, &beta, c.data(), c.ld);
  } else if (api == 4) {
    P::cblas64(101, code(ta), code(tb), m, n, k, &alpha, a.data(), a.ld, b.data(), b.ld, &beta, c.data(), c.ld);
  } else {
    P::cblas(row_major ? 101 : 102, code(ta), code(tb), int(m), int(n), int(k), &alpha, a.data(), int(a.ld), b.data(),
             int(b.ld), &beta, c.data(), int(c.ld));
  }
  ++calls;
  char what[200];
  static const char *const api_names[5] = {"fortran", "cblas-col", "cblas-row", "fortran-ilp64", "cblas-row-ilp64"};
  std::snprintf(what, sizeof what, "%cgemm %s %c%c m=%ld n=%ld k=%ld alpha=(%g,%g) beta=(%g,%g)%s",
                sizeof(R) == 4 ? 'c' : 'z', api_names[api], ta, tb, m,
                n, k, double(alpha.re), double(alpha.im), double(beta.re), double(beta.im),
                special_values ? " inf/nan" : "");
  auto fail = [&](const char *why) {
    if (failures < 30) std::printf("FAIL %s: %s\n", what, why);
    ++failures;
  };
  if (hash_bytes(a.buf.data(), a.buf.size() * sizeof(C)) != ha || hash_bytes(b.buf.data(), b.buf.size() * sizeof(C)) != hb)
    fail("A or B changed");
  if (!(alpha == alpha_in) || !(beta == beta_in)) fail("a scalar argument changed");
  // Outside the view: unchanged.
  std::vector<char> inside(c.buf.size(), 0);
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < m; ++i) inside[c.index(i, j)] = 1;
  for (size_t e = 0; e < c.buf.size(); ++e)
    if (!inside[e] && std::memcmp(&c.buf[e], &c0.buf[e], sizeof(C)) != 0) {
      fail("wrote outside C's view");
      break;
    }
  W max_a = 0, max_b = 0, max_c = 0;
  if (!alpha_zero) {
    for (long j = 0; j < ac; ++j)
      for (long i = 0; i < ar; ++i)
        if (std::isfinite(double(a.at(i, j).im)))
          max_a = std::max({max_a, std::fabs(W(a.at(i, j).re)), std::fabs(W(a.at(i, j).im))});
    for (long j = 0; j < bc; ++j)
      for (long i = 0; i < br; ++i) max_b = std::max({max_b, std::fabs(W(b.at(i, j).re)), std::fabs(W(b.at(i, j).im))});
  }
  if (!(beta == C(0)))
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i) max_c = std::max({max_c, std::fabs(W(c0.at(i, j).re)), std::fabs(W(c0.at(i, j).im))});
  const W abs_alpha = std::hypot(W(alpha.re), W(alpha.im)), abs_beta = std::hypot(W(beta.re), W(beta.im));
  if (special_values) max_a = 1;  // the finite entries' bound (they are in [-1, 1))
  const W scale = (abs_alpha * W(k) * max_a * max_b * 2 + abs_beta * max_c * 2) * W(P::eps);
  auto reference = [&](long i, long j, W *re, W *im) {
    W sr = 0, si = 0;
    if (!alpha_zero)
      for (long l = 0; l < k; ++l) {
        const C x = op_at(a, ta, i, l), y = op_at(b, tb, l, j);
        sr += W(x.re) * W(y.re) - W(x.im) * W(y.im);
        si += W(x.re) * W(y.im) + W(x.im) * W(y.re);
      }
    W rr = W(alpha.re) * sr - W(alpha.im) * si, ri = W(alpha.re) * si + W(alpha.im) * sr;
    if (!(beta == C(0))) {
      const C z = c0.at(i, j);
      rr += W(beta.re) * W(z.re) - W(beta.im) * W(z.im);
      ri += W(beta.re) * W(z.im) + W(beta.im) * W(z.re);
    }
    *re = rr, *im = ri;
  };
  const bool full = double(m) * double(n) * double(k) <= opt.full_work;
  W worst = 0;
  auto check_entry = [&](long i, long j) {
    const C got = c.at(i, j);
    if (special_values && (i == 0 || i == m - 1)) {
      // Rows 0 and m-1 of op(A) hold the Inf and the NaN: their rows of C must not be finite
      // (the reference's arithmetic gives NaN or Inf there); the other rows are checked as usual.
      if (std::isfinite(double(got.re)) && std::isfinite(double(got.im))) worst = INFINITY;
      return;
    }
    W rr, ri;
    reference(i, j, &rr, &ri);
    if (!std::isfinite(double(got.re)) || !std::isfinite(double(got.im))) {
      worst = INFINITY;
      return;
    }
    const W e = std::max(std::fabs(W(got.re) - rr), std::fabs(W(got.im) - ri));
    if (scale == 0) worst = std::max(worst, e == 0 ? W(0) : W(INFINITY));
    else worst = std::max(worst, e / scale);
  };
  if (full) {
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i) check_entry(i, j);
  } else {
    for (int s = 0; s < 400; ++s) check_entry(long(rng.below(m)), long(rng.below(n)));
    // All of C through C x for a random +-1 vector x.
    if (!special_values) {
      std::vector<W> xr(static_cast<size_t>(n));
      for (auto &v : xr) v = W(rng.sign());
      std::vector<W> bx_re(static_cast<size_t>(k), W(0)), bx_im(static_cast<size_t>(k), W(0));
      for (long l = 0; l < k; ++l)
        for (long j = 0; j < n; ++j) {
          const C y = op_at(b, tb, l, j);
          bx_re[size_t(l)] += W(y.re) * xr[size_t(j)];
          bx_im[size_t(l)] += W(y.im) * xr[size_t(j)];
        }
      W worst_x = 0;
      for (long i = 0; i < m; ++i) {
        W zr = 0, zi = 0, yr = 0, yi = 0;
        for (long l = 0; l < k; ++l) {
          const C x = op_at(a, ta, i, l);
          zr += W(x.re) * bx_re[size_t(l)] - W(x.im) * bx_im[size_t(l)];
          zi += W(x.re) * bx_im[size_t(l)] + W(x.im) * bx_re[size_t(l)];
        }
        W rr = W(alpha.re) * zr - W(alpha.im) * zi, ri = W(alpha.re) * zi + W(alpha.im) * zr;
        for (long j = 0; j < n; ++j) {
          const C z = c0.at(i, j), got = c.at(i, j);
          if (!(beta == C(0))) {
            rr += (W(beta.re) * W(z.re) - W(beta.im) * W(z.im)) * xr[size_t(j)];
            ri += (W(beta.re) * W(z.im) + W(beta.im) * W(z.re)) * xr[size_t(j)];
          }
          yr += W(got.re) * xr[size_t(j)];
          yi += W(got.im) * xr[size_t(j)];
        }
        const W e = std::max(std::fabs(yr - rr), std::fabs(yi - ri));
        worst_x = std::max(worst_x, std::isfinite(double(e)) ? e : W(INFINITY));
      }
      worst = std::max(worst, worst_x / (std::sqrt(W(n)) * scale));
    }
  }
  if (!(worst < 4)) {
    char why[64];
    std::snprintf(why, sizeof why, "error ratio %g", double(worst));
    fail(why);
  }
  if (opt.verbose) std::printf("%s ratio %g\n", what, double(worst));
}

template <class R>
void run_precision(Rng &rng) {
  using C = Complex<R>;
  std::vector<long> sizes = {1, 7, 33, 64, 130, 1007, 2000};
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [](long s) { return s > opt.max_size; }), sizes.end());
  const char ops[3] = {'N', 'T', 'C'};
  const C alphas[3] = {C(R(1.5), R(-0.5)), C(R(-1)), C(R(0.75), R(0))};
  const C betas[4] = {C(R(0)), C(R(1)), C(R(-0.5), R(0.25)), C(R(2), R(0))};
  // The ILP64 entries only where every call stays on the GPU: their CPU runs need an ILP64
  // CPU library (tests/abi/forward64.sh covers those).
  const int apis = opt.placement.expect_gpu ? 5 : 3;
  int index = 0;
  for (char ta : ops)
    for (char tb : ops)
      for (long s : sizes) {
        // m, n, k from the sizes, rotated so that each size meets every role.
        const long m = s, n = sizes[size_t(index) % sizes.size()], k = sizes[size_t(index + 1) % sizes.size()];
        const C alpha = alphas[index % 3], beta = betas[index % 4];
        check_call<R>(ta, tb, m, n, k, alpha, beta, index % apis, rng, false);
        ++index;
      }
  // The quick paths and special values, on a size that runs on the GPU in forced mode.
  const long s = std::min(opt.max_size, 97L);
  check_call<R>('N', 'C', s, s + 1, s + 2, C(0), C(R(0.5), R(1)), 0, rng, false);  // alpha 0: A, B NaN
  check_call<R>('C', 'N', s, s + 1, s + 2, C(0), C(0), 1, rng, false);             // C = 0
  check_call<R>('T', 'C', s, s + 1, 0, C(2), C(R(0.5), R(-1)), 2, rng, false);    // k = 0
  check_call<R>('C', 'T', s, s, s, C(R(1), R(1)), C(0), 0, rng, true);            // Inf/NaN in A
  if (opt.max_size >= 4096) {
    check_call<R>('N', 'N', 4096, 4096, 4096, C(R(1), R(0.5)), C(R(0.5), R(-0.5)), 0, rng, false);
    check_call<R>('C', 'T', 4097, 3001, 2500, C(-1), C(0), 2, rng, false);
  }
}

}  // namespace

int main(int argc, char **argv) {
  harness::CommandLine cl("usage: complex_gemm_accuracy [--max-size N] [--prec c|z|cz] [--full-work W] "
                          "[--require-gpu] [--expect-gpu|--expect-cpu|--expect-fallback] [-v]");
  cl.number("--max-size", &opt.max_size).number("--full-work", &opt.full_work).text("--prec", &opt.prec)
      .flag("-v", &opt.verbose).placement(&opt.placement);
  if (!cl.parse(argc, argv)) return 2;
  if (harness::skip_without_gpu("complex_gemm_accuracy", opt.placement.require_gpu)) return harness::kSkipped;
  const harness::Counters before = harness::Counters::now();
  Rng rng(7);
  if (opt.prec.find('c') != std::string::npos) run_precision<float>(rng);
  if (opt.prec.find('z') != std::string::npos) run_precision<double>(rng);
  const harness::Counters made = harness::Counters::now().since(before);
  std::printf("complex_gemm_accuracy: %ld calls, %ld failures; gpu %ld, cpu %ld, fallbacks %ld\n", calls, failures,
              made.gpu, made.cpu, made.fallbacks);
  bool placed = true;
  if (opt.placement.expect_gpu && (made.gpu == 0 || made.cpu != 0 || made.fallbacks != 0)) placed = false;
  if (opt.placement.expect_cpu && made.gpu != 0) placed = false;
  if (opt.placement.expect_fallback && made.fallbacks == 0) placed = false;
  if (!placed) std::printf("FAIL: the calls did not run where expected\n");
  return failures == 0 && placed ? 0 : 1;
}
