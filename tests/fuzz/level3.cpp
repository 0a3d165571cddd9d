// The rest of Level 3, Fortran and CBLAS: ?symm, ?syrk, ?syr2k, ?trmm, ?trsm (s, d, c, z) and
// ?hemm, ?herk, ?her2k (c, z).
//
// A CBLAS call's arrays are made in the Fortran view its reference makes of it (row-major:
// sides and triangles swapped, M and N swapped, SYRK's and HERK's TRANS flipped), where the
// triangle a routine may not read holds junk (NaN among it), and so does its unit diagonal
// (DIAG = 'U'), the imaginary parts of a Hermitian A's diagonal (HEMM) and those of C's (HERK,
// HER2K), and the triangle of C that SYRK and the like may not write.
//
// --gpu: level3_accuracy's bounds: max|C - Cref| < 4 eps scale, scale = |alpha| K maxA maxB +
// |beta| maxC0 (K the inner dimension; SYR2K twice that); TRSM, where A is diagonally dominant:
// max|X - Xref| < 16 eps order max|Xref|. Complex magnitudes are |re| + |im|.
#include "tests/fuzz/bounds.h"
#include "tests/fuzz/codes.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

enum class Op { symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm };
enum class Shape { side, rank, tri };  // ?symm and ?hemm, the rank-k updates, ?trmm and ?trsm
struct OpInfo {
  const char *stem;
  Shape shape;
  bool two;        // a second operand B (SYR2K, HER2K)
  bool hermitian;  // HEMM, HERK, HER2K
};
const OpInfo &info(Op op) {
  static const OpInfo table[] = {{"symm", Shape::side, false, false},  {"hemm", Shape::side, false, true},
                                 {"syrk", Shape::rank, false, false},  {"herk", Shape::rank, false, true},
                                 {"syr2k", Shape::rank, true, false},  {"her2k", Shape::rank, true, true},
                                 {"trmm", Shape::tri, false, false},   {"trsm", Shape::tri, false, false}};
  return table[int(op)];
}

// A row-major call's column-major view swaps sides and triangles.
char swap_side(char c) { return c == 'L' ? 'R' : c == 'R' ? 'L' : c; }
char swap_uplo(char c) { return c == 'U' ? 'L' : c == 'L' ? 'U' : c; }
// The letter of CBLAS code `code` among `count` from `first` ('?' outside them).
char letter_for(int code, int first, int count) { return legal_code(code, first, count) ? code_letter(code) : '?'; }

// The largest finite magnitude among the entries skip(i, j) does not exclude.
template <class T, class Skip> double max_mag(const Array<T> &a, Skip &&skip) {
  double m = 0;
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i)
      if (!skip(i, j) && finite(a.at(i, j))) m = std::max(m, mag(a.at(i, j)));
  return m;
}

template <class T> void level3_as(Rng &rng, Op op, bool cblas, Names names) {
  using R = real_t<T>;
  const OpInfo &o = info(op);
  // The call as the caller makes it: Fortran letters, or CBLAS codes (layout first).
  char ch[4] = {'L', 'U', 'N', 'N'};
  int code[5] = {kColMajor, 141, 121, 111, 131};
  const char *trans_letters = o.hermitian ? "NC" : is_complex<T> ? "NT" : "NTC";
  if (cblas) {
    code[0] = cblas_code(rng, kRowMajor, 2);
    code[1] = cblas_code(rng, 141, 2);
    code[2] = cblas_code(rng, 121, 2);
    code[3] = cblas_code(rng, 111, 3);
    code[4] = cblas_code(rng, 131, 2);
    // Reference CBLAS's cblas_ctrmm has no return after it reports an illegal Diag in column-major
    // order: it goes on to call ctrmm_ with its DIAG letter unset (no reference behaviour to
    // compare with, and valgrind's complaint).
    if (op == Op::trmm && letter<T>() == 'c' && code[0] == kColMajor) code[4] = 131 + int(rng.below(2));
  } else {
    ch[0] = option_letter(rng, "LR");
    ch[1] = option_letter(rng, "UL");
    ch[2] = option_letter(rng, o.shape == Shape::rank ? trans_letters : "NTC");
    ch[3] = option_letter(rng, "UN");
  }
  const bool row = code[0] == kRowMajor;
  // The Fortran view.
  auto upper = [](char c) { return char(std::toupper(static_cast<unsigned char>(c))); };
  char side = upper(ch[0]), uplo = upper(ch[1]), trans = upper(ch[2]), diag = upper(ch[3]);
  if (cblas) {
    side = letter_for(code[1], 141, 2);
    uplo = letter_for(code[2], 121, 2);
    trans = letter_for(code[3], 111, 3);
    diag = letter_for(code[4], 131, 2);
    if (row) {
      side = swap_side(side);
      uplo = swap_uplo(uplo);
      if (o.shape == Shape::rank) trans = trans == 'N' ? (o.hermitian ? 'C' : 'T') : trans == '?' ? '?' : 'N';
    }
  }
  const int d1 = dimension(rng), d2 = o.shape == Shape::rank && rng.below(6) == 0 ? 0 : dimension(rng);
  const int fm = o.shape != Shape::rank && row ? d2 : d1, fn = o.shape != Shape::rank && row ? d1 : d2;
  // Shapes: side/tri: A ka x ka, B (and C) fm x fn; rank: A (and B) nrowa x ncola, C n x n.
  const int n = d1, k = d2;
  const int ka = side == 'R' ? fn : fm;
  const bool nota = trans == 'N' || trans == '?';
  const int arows = o.shape == Shape::rank ? (nota ? n : k) : ka, acols = o.shape == Shape::rank ? (nota ? k : n) : ka;
  const int brows = o.shape == Shape::rank ? arows : fm, bcols = o.shape == Shape::rank ? acols : fn;
  const int crows = o.shape == Shape::rank ? n : fm, ccols = o.shape == Shape::rank ? n : fn;
  const bool has_b = o.shape != Shape::rank || o.two, has_c = o.shape != Shape::tri;
  const int lda = leading_dimension(rng, arows), ldb = has_b ? leading_dimension(rng, brows) : 1;
  const int ldc = has_c ? leading_dimension(rng, crows) : 1;
  const T alpha = scalar<T>(rng), beta = scalar<T>(rng);
  const R ralpha = scalar_real<R>(rng), rbeta = scalar_real<R>(rng);

  // A: the triangle `uplo` names (side, tri); junk where the routine may not read.
  const bool tri_a = o.shape != Shape::rank;
  auto junk = [&] { return rng.below(8) == 0 ? std::numeric_limits<R>::quiet_NaN() : R(rng.symmetric() * 1e3); };
  auto outside_a = [&](int i, int j) { return tri_a && (uplo == 'L' ? i < j : i > j); };
  Array<T> a0 = make_array<T>(rng, arows, acols, lda, pick_fill(rng));
  const bool dominant = op == Op::trsm && rng.below(100) < 85;
  for (int j = 0; j < a0.cols; ++j)
    for (int i = 0; i < a0.rows; ++i) {
      T &x = a0.at(i, j);
      if (dominant && finite(x)) x = i == j ? T(R(rng.sign() * (1 + rng.uniform()))) : T(x / R(std::max(ka, 1)));
      if (outside_a(i, j) || (i == j && o.shape == Shape::tri && diag == 'U')) x = make<T>(junk(), junk());
      else if (i == j && op == Op::hemm) x = make<T>(re(x), junk());
    }
  const Array<T> b0 = has_b ? make_array<T>(rng, brows, bcols, ldb, pick_fill(rng)) : Array<T>();
  auto outside_c = [&](int i, int j) { return o.shape == Shape::rank && (uplo == 'L' ? i < j : i > j); };
  Array<T> c0 = has_c ? make_array<T>(rng, crows, ccols, ldc, pick_fill(rng)) : Array<T>();
  for (int j = 0; j < c0.cols; ++j)
    for (int i = 0; i < c0.rows; ++i)
      if (outside_c(i, j)) c0.at(i, j) = make<T>(junk(), junk());
      else if (i == j && o.shape == Shape::rank && o.hermitian) c0.at(i, i) = make<T>(re(c0.at(i, i)), junk());

  // The integers and scalars in the routine's order.
  Args<T> args;
  std::copy(std::begin(ch), std::end(ch), args.ch);
  const int caller_m = d1, caller_n = d2;  // M, N (side, tri) or N, K (rank) as the caller passes them
  std::vector<int> ints = {caller_m, caller_n, lda};
  if (has_b) ints.push_back(ldb);
  if (has_c) ints.push_back(ldc);
  std::copy(ints.begin(), ints.end(), args.in);
  args.t[0] = alpha;
  args.t[1] = beta;
  args.r[0] = ralpha;
  args.r[1] = rbeta;
  const bool real_alpha = op == Op::herk, real_beta = o.hermitian && o.shape == Shape::rank;

  const std::string name = symbol<T>(cblas ? Kind::cblas : Kind::blas, o.stem, names);
  std::string call = name + "(";
  if (cblas) {  // layout, then side, uplo (side); uplo, trans (rank); side, uplo, trans, diag (tri)
    const std::vector<int> used = o.shape == Shape::side ? std::vector<int>{0, 1, 2}
                                  : o.shape == Shape::rank ? std::vector<int>{0, 2, 3}
                                                           : std::vector<int>{0, 1, 2, 3, 4};
    for (int c : used) call += std::to_string(code[c]) + ", ";
  } else {
    const std::vector<int> used = o.shape == Shape::rank ? std::vector<int>{1, 2}
                                  : o.shape == Shape::side ? std::vector<int>{0, 1}
                                                           : std::vector<int>{0, 1, 2, 3};
    for (int c : used) call += letter_text(ch[c]) + ", ";
  }
  for (size_t i = 0; i < ints.size(); ++i) call += std::to_string(ints[i]) + ", ";
  call += "alpha=" + (real_alpha ? text(ralpha) : scalar_text(alpha));
  if (has_c) call += ", beta=" + (real_beta ? text(rbeta) : scalar_text(beta));
  g_call = call + ")";

  // Legal in the Fortran view (and, for CBLAS, every code legal), and computing.
  bool legal = letter_in(uplo, "UL") && lda >= std::max(1, arows) && (!has_b || ldb >= std::max(1, brows)) &&
               (!has_c || ldc >= std::max(1, crows));
  if (o.shape == Shape::rank) legal = legal && letter_in(trans, trans_letters) && n >= 0 && k >= 0;
  else legal = legal && letter_in(side, "LR") && fm >= 0 && fn >= 0;
  if (o.shape == Shape::tri) legal = legal && letter_in(trans, "NTC") && letter_in(diag, "UN");
  if (cblas) legal = legal && legal_code(code[0], kRowMajor, 2);
  const bool alpha_zero = real_alpha ? ralpha == R(0) : alpha == T(0);
  const bool works = legal && !alpha_zero && (o.shape == Shape::rank ? n > 0 && k > 0 : fm > 0 && fn > 0);

  // Inf or NaN where the reference skips zero entries (every routine here but SYMM and HEMM):
  // alpha, A's part the routine reads, B.
  const T used_alpha = real_alpha ? T(ralpha) : alpha;
  const bool reference_semantics =
      works && o.shape != Shape::side &&
      (!finite(used_alpha) ||
       [&] {
         for (int j = 0; j < a0.cols; ++j)
           for (int i = 0; i < a0.rows; ++i)
             if (!outside_a(i, j) && !(o.shape == Shape::tri && diag == 'U' && i == j) && !finite(a0.at(i, j)))
               return true;
         return false;
       }() ||
       (has_b && any_nonfinite(b0, b0.rows, b0.cols)));
  struct Run {
    Array<T> a, b, c;
    std::vector<HandlerCall> handlers;
  };
  Run ref, got;
  g_reference_semantics = reference_semantics;
  run_both(works, names, args, ref, got, [&](Library &lib, Run &r, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    r.a = a0;
    r.b = b0;
    r.c = c0;
    const std::string fn_name = symbol<T>(cblas ? Kind::cblas : Kind::blas, o.stem, as);
    T *a = r.a.p(), *b = r.b.p(), *c = r.c.p();
    I *in = s.in;
    const int *cd = code;
    if (o.shape == Shape::side && cblas)
      lib.get<sig::symm_cblas<T, I>>(fn_name)(cd[0], cd[1], cd[2], in[0], in[1], cblas_scalar(s.t[0]), a, in[2], b,
                                              in[3], cblas_scalar(s.t[1]), c, in[4]);
    else if (o.shape == Shape::side)
      lib.get<sig::symm_blas<T, I>>(fn_name)(&s.ch[0], &s.ch[1], &in[0], &in[1], &s.t[0], a, &in[2], b, &in[3],
                                             &s.t[1], c, &in[4], 1, 1);
    else if (o.shape == Shape::tri && cblas)
      lib.get<sig::trmm_cblas<T, I>>(fn_name)(cd[0], cd[1], cd[2], cd[3], cd[4], in[0], in[1], cblas_scalar(s.t[0]),
                                              a, in[2], b, in[3]);
    else if (o.shape == Shape::tri)
      lib.get<sig::trmm_blas<T, I>>(fn_name)(&s.ch[0], &s.ch[1], &s.ch[2], &s.ch[3], &in[0], &in[1], &s.t[0], a,
                                             &in[2], b, &in[3], 1, 1, 1, 1);
    else if (op == Op::syrk && cblas)
      lib.get<sig::syrk_cblas<T, I>>(fn_name)(cd[0], cd[2], cd[3], in[0], in[1], cblas_scalar(s.t[0]), a, in[2],
                                              cblas_scalar(s.t[1]), c, in[3]);
    else if (op == Op::syrk)
      lib.get<sig::syrk_blas<T, I>>(fn_name)(&s.ch[1], &s.ch[2], &in[0], &in[1], &s.t[0], a, &in[2], &s.t[1], c,
                                             &in[3], 1, 1);
    else if (op == Op::herk && cblas)
      lib.get<sig::herk_cblas<T, I>>(fn_name)(cd[0], cd[2], cd[3], in[0], in[1], s.r[0], a, in[2], s.r[1], c, in[3]);
    else if (op == Op::herk)
      lib.get<sig::herk_blas<T, I>>(fn_name)(&s.ch[1], &s.ch[2], &in[0], &in[1], &s.r[0], a, &in[2], &s.r[1], c,
                                             &in[3], 1, 1);
    else if (op == Op::syr2k && cblas)
      lib.get<sig::syr2k_cblas<T, I>>(fn_name)(cd[0], cd[2], cd[3], in[0], in[1], cblas_scalar(s.t[0]), a, in[2], b,
                                               in[3], cblas_scalar(s.t[1]), c, in[4]);
    else if (op == Op::syr2k)
      lib.get<sig::syr2k_blas<T, I>>(fn_name)(&s.ch[1], &s.ch[2], &in[0], &in[1], &s.t[0], a, &in[2], b, &in[3],
                                              &s.t[1], c, &in[4], 1, 1);
    else if (cblas)
      lib.get<sig::her2k_cblas<T, I>>(fn_name)(cd[0], cd[2], cd[3], in[0], in[1], cblas_scalar(s.t[0]), a, in[2], b,
                                               in[3], s.r[1], c, in[4]);
    else
      lib.get<sig::her2k_blas<T, I>>(fn_name)(&s.ch[1], &s.ch[2], &in[0], &in[1], &s.t[0], a, &in[2], b, &in[3],
                                              &s.r[1], c, &in[4], 1, 1);
  });
  g_reference_semantics = false;
  check_unchanged("A", a0, got.a);
  Array<T> &out = has_c ? got.c : got.b;
  const Array<T> &out0 = has_c ? c0 : b0, &out_ref = has_c ? ref.c : ref.b;
  const char *out_name = has_c ? "C" : "B";
  if (has_c && has_b) check_unchanged("B", b0, got.b);
  check_untouched_outside(out_name, out0, out);
  // A call left to the CPU routine has its answer bit for bit.
  if (!(works && g_options.gpu_bounds) || reference_semantics) return check_same_entries(out_name, out_ref, out);

  // On the GPU: within the testers' bounds; C's other triangle untouched; HERK's and HER2K's
  // diagonal real.
  const T al = real_alpha ? T(ralpha) : alpha;
  const T be = real_beta ? T(rbeta) : beta;
  const bool beta_reads = has_c && be != T(0);
  double maxa = max_mag(a0, outside_a), maxb = has_b ? max_mag(b0, [](int, int) { return false; }) : 0;
  if (o.shape == Shape::tri && diag == 'U') maxa = std::max(maxa, 1.0);
  const double maxc = beta_reads ? max_mag(c0, outside_c) : 0, maxref = max_mag(out_ref, outside_c);
  const bool infinities = !finite(al) || !finite(be) || any_inf(a0) || (has_b && any_inf(b0)) || (beta_reads && any_inf(c0));
  const int inner = o.shape == Shape::rank ? k * (o.two ? 2 : 1) : ka;
  const double machine_eps = 2 * epsilon<T>();
  double bound = std::max(maxref, mag(al) * inner * maxa * (o.shape == Shape::rank && !o.two ? maxa : maxb) +
                                      mag(be) * maxc) * 4 * machine_eps;
  if (op == Op::trsm && !dominant) return;  // a random triangle's solution may overflow in one order only
  if (op == Op::trsm) bound = 16 * ka * maxref * machine_eps;
  check_within(out_name, out0, out_ref, out, infinities, [&](int, int) { return bound; },
               [&](int i, int j) { return !outside_c(i, j); });
  if (o.shape == Shape::rank && o.hermitian)
    for (int i = 0; i < n; ++i)
      if (im(out.at(i, i)) != 0) {
        difference("C(%d,%d) is not real: %s", i + 1, i + 1, show(out.at(i, i)).c_str());
        return;
      }
}

template <class T> void level3_precision(Rng &rng, Names names) {
  const bool cblas = rng.below(2) == 1;
  const Op real_ops[] = {Op::symm, Op::syrk, Op::syr2k, Op::trmm, Op::trsm};
  const Op complex_ops[] = {Op::symm, Op::hemm, Op::syrk, Op::herk, Op::syr2k, Op::her2k, Op::trmm, Op::trsm};
  const Op op = is_complex<T> ? complex_ops[rng.below(8)] : real_ops[rng.below(5)];
  level3_as<T>(rng, op, cblas, names);
}

}  // namespace

// Every routine and precision an equal share: 5 real and 8 complex routines.
void level3_case(Rng &rng, Names names) {
  const uint64_t r = rng.below(26);
  for_precision(r < 5 ? 0 : r < 10 ? 1 : r < 18 ? 2 : 3,
                [&](auto zero) { level3_precision<decltype(zero)>(rng, names); });
}

}  // namespace fuzz
