// ?gemm_ and cblas_?gemm (s, d, c, z).
#include "tests/fuzz/bounds.h"
#include "tests/fuzz/codes.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

template <class T> void gemm_as(Rng &rng, bool cblas, Names names) {
  // The call as the caller makes it.
  const int layout = !cblas ? kColMajor : cblas_code(rng, kRowMajor, 2);
  int cta = 111, ctb = 111;
  char ta = 'N', tb = 'N';
  if (cblas) { cta = cblas_code(rng, 111, 3); ctb = cblas_code(rng, 111, 3); }
  else { ta = option_letter(rng, "NTC"); tb = option_letter(rng, "NTC"); }
  const int m = dimension(rng), n = dimension(rng), k = rng.below(6) == 0 ? 0 : dimension(rng);
  const T alpha = scalar<T>(rng), beta = scalar<T>(rng);
  // The Fortran-level view: for RowMajor, C^T = op(B)^T op(A)^T with A and B swapped.
  const bool row = layout == kRowMajor;
  const char fa = cblas ? code_letter(row ? ctb : cta) : ta, fb = cblas ? code_letter(row ? cta : ctb) : tb;
  const int fm = row ? n : m, fn = row ? m : n;
  const bool nota = is(fa, 'N') || fa == '?', notb = is(fb, 'N') || fb == '?';
  // Operands in the Fortran view: first (A, or B for RowMajor) fm x k or k x fm, second k x fn or fn x k.
  const int first_rows = nota ? fm : k, first_cols = nota ? k : fm;
  const int second_rows = notb ? k : fn, second_cols = notb ? fn : k;
  const int ld_first = leading_dimension(rng, first_rows), ld_second = leading_dimension(rng, second_rows);
  const int ldc = leading_dimension(rng, fm);
  const Array<T> first = make_array<T>(rng, first_rows, first_cols, ld_first, pick_fill(rng));
  const Array<T> second = make_array<T>(rng, second_rows, second_cols, ld_second, pick_fill(rng));
  const Array<T> c0 = make_array<T>(rng, fm, fn, ldc, pick_fill(rng));
  // The caller's names.
  const Array<T> &a0 = row ? second : first, &b0 = row ? first : second;
  const int lda = row ? ld_second : ld_first, ldb = row ? ld_first : ld_second;

  const std::string name = symbol<T>(cblas ? Kind::cblas : Kind::blas, "gemm", names);
  char call[320];
  if (cblas)
    std::snprintf(call, sizeof call, "%s(layout=%d, %d, %d, m=%d, n=%d, k=%d, alpha=%s, lda=%d, ldb=%d, beta=%s, ldc=%d)",
                  name.c_str(), layout, cta, ctb, m, n, k, scalar_text(alpha).c_str(), lda, ldb,
                  scalar_text(beta).c_str(), ldc);
  else
    std::snprintf(call, sizeof call, "%s(%s, %s, m=%d, n=%d, k=%d, alpha=%s, lda=%d, ldb=%d, beta=%s, ldc=%d)",
                  name.c_str(), letter_text(ta).c_str(), letter_text(tb).c_str(), m, n, k, scalar_text(alpha).c_str(), lda, ldb,
                  scalar_text(beta).c_str(), ldc);
  g_call = call;

  const bool legal_codes = !cblas || (legal_code(layout, kRowMajor, 2) && fa != '?' && fb != '?');
  const bool legal = legal_codes && letter_in(fa, "NTC") && letter_in(fb, "NTC") && m >= 0 && n >= 0 && k >= 0 &&
                     ld_first >= std::max(1, first_rows) && ld_second >= std::max(1, second_rows) &&
                     ldc >= std::max(1, fm);
  const bool works = legal && m > 0 && n > 0 && k > 0 && alpha != T(0);

  struct Run {
    Array<T> a, b, c;
    std::vector<HandlerCall> handlers;
  };
  Args<T> args;
  args.ch[0] = ta;
  args.ch[1] = tb;
  const int ints[] = {m, n, k, lda, ldb, ldc};
  std::copy(std::begin(ints), std::end(ints), args.in);
  args.t[0] = alpha;
  args.t[1] = beta;
  Run ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run &r, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    r.a = a0;
    r.b = b0;
    r.c = c0;
    const std::string fn = symbol<T>(cblas ? Kind::cblas : Kind::blas, "gemm", as);
    if (cblas)
      lib.get<sig::gemm_cblas<T, I>>(fn)(layout, cta, ctb, s.in[0], s.in[1], s.in[2], cblas_scalar(s.t[0]), r.a.p(),
                                         s.in[3], r.b.p(), s.in[4], cblas_scalar(s.t[1]), r.c.p(), s.in[5]);
    else
      lib.get<sig::gemm_blas<T, I>>(fn)(&s.ch[0], &s.ch[1], &s.in[0], &s.in[1], &s.in[2], &s.t[0], r.a.p(), &s.in[3],
                                        r.b.p(), &s.in[4], &s.t[1], r.c.p(), &s.in[5], 1, 1);
  });
  check_unchanged("A", a0, got.a);
  check_unchanged("B", b0, got.b);
  check_untouched_outside("C", c0, got.c);
  if (!(works && g_options.gpu_bounds)) return check_same_entries("C", ref.c, got.c);
  // On the GPU: |C - Cref| <= 16 eps (|alpha| |op(A)| |op(B)| + |beta| |C|) entrywise.
  const Array<T> &fa_arr = row ? got.b : got.a, &fb_arr = row ? got.a : got.b;
  const bool infinities = !finite(alpha) || !finite(beta) || any_inf(fa_arr) || any_inf(fb_arr) ||
                          (beta != T(0) && any_inf(c0));
  auto bound = [&](int i, int j) {
    long double sum = 0;
    for (int l = 0; l < k; ++l)
      sum += (long double)mag(nota ? fa_arr.at(i, l) : fa_arr.at(l, i)) * mag(notb ? fb_arr.at(l, j) : fb_arr.at(j, l));
    sum *= mag(alpha);
    if (beta != T(0)) sum += (long double)mag(beta) * mag(c0.at(i, j));
    return double(16 * epsilon<T>() * sum);
  };
  check_within("C", c0, ref.c, got.c, infinities, bound, [](int, int) { return true; });
}

}  // namespace

void gemm_case(Rng &rng, Names names) {
  const bool cblas = rng.below(2) == 1;
  for_precision(rng.below(4), [&](auto zero) { gemm_as<decltype(zero)>(rng, cblas, names); });
}

}  // namespace fuzz
