// ?getrf_ and ?potrf_ (s, d, c, z).
#include "tests/fuzz/bounds.h"
#include "tests/fuzz/codes.h"
#include "tests/fuzz/factor.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

template <class T> void getrf_as(Rng &rng, Names names) {
  const int m = dimension(rng), n = dimension(rng);
  const int lda = leading_dimension(rng, m);
  // Classes: random (INFO 0), a zero column (INFO = its index: elimination keeps it exactly 0),
  // all zero, small integers (exact zero pivots depend on rounding), special values.
  const uint64_t r = rng.below(100);
  const Fill fill = r < 12 ? Fill::Special : r < 22 ? Fill::Integer : Fill::Random;
  Array<T> a0 = make_array<T>(rng, m, n, lda, fill);
  const bool info_exact = fill == Fill::Random;
  const char *kind = fill == Fill::Special ? "special-valued" : fill == Fill::Integer ? "integer" : "random";
  if (fill == Fill::Random && a0.rows > 0 && a0.cols > 0) {
    const uint64_t s = rng.below(10);
    if (s < 2) {
      const int j = int(rng.below(a0.cols));
      for (int i = 0; i < a0.rows; ++i) a0.at(i, j) = rng.below(2) ? T(0) : T(-0.0);
      kind = "zero-column";
    } else if (s == 2) {
      for (int j = 0; j < a0.cols; ++j)
        for (int i = 0; i < a0.rows; ++i) a0.at(i, j) = T(0);
      kind = "zero";
    }
  }
  const int mn = std::max(0, std::min(m, n));
  char call[200];
  std::snprintf(call, sizeof call, "%s(m=%d, n=%d, lda=%d) on a %s matrix",
                symbol<T>(Kind::lapack, "getrf", names).c_str(), m, n, lda, kind);
  g_call = call;
  const bool legal = m >= 0 && n >= 0 && lda >= std::max(1, m);
  const bool works = legal && m > 0 && n > 0;

  Args<T> args;
  args.in[0] = m;
  args.in[1] = n;
  args.in[2] = lda;
  FactorRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, FactorRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    Pivots<I> ipiv = make_pivots<I>(mn);
    I info = I(kIntGuard);
    lib.get<sig::getrf_lapack<T, I>>(symbol<T>(Kind::lapack, "getrf", as))(&s.in[0], &s.in[1], out.a.p(), &s.in[2],
                                                                          ipiv.p(), &info);
    out.ipiv = widened(ipiv);
    out.info = info;
  });
  check_untouched_outside("A", a0, got.a);
  check_pivots_outside(make_pivots<int64_t>(mn), got.ipiv, mn);
  if (!(works && g_options.gpu_bounds)) {
    check_same_factor(ref, got, mn);
    return;
  }
  check_lu_bounds(a0, ref, got, m, n, fill == Fill::Special, info_exact);
}

template <class T> void potrf_as(Rng &rng, Names names) {
  const char uplo = option_letter(rng, "UL");
  const int n = dimension(rng);
  const int lda = leading_dimension(rng, n);
  const bool upper = is(uplo, 'U');
  const HermitianKind kind = pick_hermitian_kind(rng);
  const Array<T> a0 = make_hermitian<T>(rng, n, lda, upper, kind);
  char call[200];
  std::snprintf(call, sizeof call, "%s(%s, n=%d, lda=%d) on a %s matrix",
                symbol<T>(Kind::lapack, "potrf", names).c_str(), letter_text(uplo).c_str(), n, lda, describe(kind));
  g_call = call;
  const bool legal = letter_in(uplo, "UL") && n >= 0 && lda >= std::max(1, n);
  const bool works = legal && n > 0;

  Args<T> args;
  args.ch[0] = uplo;
  args.in[0] = n;
  args.in[1] = lda;
  FactorRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, FactorRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    I info = I(kIntGuard);
    lib.get<sig::potrf_lapack<T, I>>(symbol<T>(Kind::lapack, "potrf", as))(&s.ch[0], &s.in[0], out.a.p(), &s.in[1],
                                                                          &info, 1);
    out.info = info;
  });
  check_untouched_outside("A", a0, got.a);
  if (!(works && g_options.gpu_bounds)) {
    check_same_factor(ref, got, 0);
    return;
  }
  check_cholesky_bounds(a0, ref, got, upper, kind);
}

}  // namespace

void factor_case(Rng &rng, Names names) {
  const bool lu = rng.below(2) == 0;
  for_precision(rng.below(4), [&](auto zero) {
    if (lu) getrf_as<decltype(zero)>(rng, names);
    else potrf_as<decltype(zero)>(rng, names);
  });
}

}  // namespace fuzz
