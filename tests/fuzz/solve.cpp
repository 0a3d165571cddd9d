// ?getrs_, ?potrs_, ?gesv_ and ?posv_ (s, d, c, z).
//
// ?getrs_ and ?potrs_ get the factors the reference's ?getrf_ and ?potrf_ make of a random and
// of an SPD (Hermitian) matrix, or, sometimes, random triangles and pivots (no matrix behind
// them: singular ones and special values included). ?gesv_ and ?posv_ get factor.cpp's kinds of
// matrices. --gpu: a solution is judged by xGET02's ratio against the matrix it solves with,
// the factor of ?gesv_ and ?posv_ as factor.cpp judges one.
#include "tests/fuzz/bounds.h"
#include "tests/fuzz/codes.h"
#include "tests/fuzz/factor.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

enum class Routine { getrs, potrs, gesv, posv };

// What one library's call gave: the factorization part (A, IPIV, INFO) and B.
template <class T> struct SolveRun {
  FactorRun<T> f;
  Array<T> b;
  std::vector<HandlerCall> handlers;
};

template <class T> void solve_as(Rng &rng, Routine routine, Names names) {
  const bool lu = routine == Routine::getrs || routine == Routine::gesv;
  const bool driver = routine == Routine::gesv || routine == Routine::posv;
  const char *stem = routine == Routine::getrs ? "getrs" : routine == Routine::potrs ? "potrs"
                     : routine == Routine::gesv ? "gesv" : "posv";
  const char letter = lu ? option_letter(rng, "NTC") : option_letter(rng, "UL");  // TRANS or UPLO
  const bool upper = is(letter, 'U');
  const int n = dimension(rng), nrhs = rng.below(8) == 0 ? 0 : dimension(rng);
  const int lda = leading_dimension(rng, n), ldb = leading_dimension(rng, n);
  const int order = std::max(n, 0);

  // The matrix: a0 as the caller passes it; `matrix` the one a solution solves with (for ?getrs_
  // and ?potrs_, the one their factor was made of), when there is one.
  Array<T> a0, matrix;
  const char *kind = "random";
  bool special = false, has_matrix = true, info_exact = true;
  HermitianKind hermitian = HermitianKind::Spd;
  std::vector<int> ipiv_values(static_cast<size_t>(order));
  if (lu) {
    const uint64_t r = rng.below(100);
    const Fill fill = r < 10 ? Fill::Special : r < 18 ? Fill::Integer : Fill::Random;
    a0 = make_array<T>(rng, n, n, lda, fill);
    special = fill == Fill::Special;
    info_exact = fill == Fill::Random;
    kind = special ? "special-valued" : fill == Fill::Integer ? "integer" : "random";
    if (fill == Fill::Random && order > 0 && rng.below(10) < 2) {
      const int j = int(rng.below(order));
      for (int i = 0; i < order; ++i) a0.at(i, j) = T(0);
      kind = "zero-column";
    }
  } else {
    hermitian = pick_hermitian_kind(rng);
    a0 = make_hermitian<T>(rng, n, lda, upper, hermitian);
    special = hermitian == HermitianKind::Special;
    kind = describe(hermitian);
  }
  matrix = a0;
  if (!driver && order > 0) {
    // The reference's factor of a0, or (1 in 8) random triangles and pivots.
    if (rng.below(8) == 0) {
      for (int i = 0; i < order; ++i) ipiv_values[i] = i + 1 + int(rng.below(order - i));
      has_matrix = false;
      kind = "random-factor";
    } else {
      int n_arg = order, lda_arg = int(a0.stride), info = 0;
      if (lu) {
        std::vector<int> pivots(static_cast<size_t>(order));
        g_reference.get<sig::getrf_lapack<T>>(symbol<T>(Kind::lapack, "getrf", Names::lp64))(
            &n_arg, &n_arg, a0.p(), &lda_arg, pivots.data(), &info);
        ipiv_values = pivots;
      } else {
        const char u = upper ? 'U' : 'L';
        g_reference.get<sig::potrf_lapack<T>>(symbol<T>(Kind::lapack, "potrf", Names::lp64))(&u, &n_arg, a0.p(),
                                                                                              &lda_arg, &info, 1);
      }
      has_matrix = info == 0 && !special;
    }
  }
  const Array<T> b0 = make_array<T>(rng, n, nrhs, ldb, pick_fill(rng));

  const std::string name = symbol<T>(Kind::lapack, stem, names);
  char call[256];
  if (routine == Routine::gesv)
    std::snprintf(call, sizeof call, "%s(n=%d, nrhs=%d, lda=%d, ldb=%d) on a %s matrix", name.c_str(), n, nrhs, lda,
                  ldb, kind);
  else
    std::snprintf(call, sizeof call, "%s(%s, n=%d, nrhs=%d, lda=%d, ldb=%d) on a %s matrix", name.c_str(),
                  letter_text(letter).c_str(), n, nrhs, lda, ldb, kind);
  g_call = call;
  const bool legal = (routine == Routine::gesv || letter_in(letter, lu ? "NTC" : "UL")) && n >= 0 && nrhs >= 0 &&
                     lda >= std::max(1, n) && ldb >= std::max(1, n);
  const bool works = legal && n > 0 && (driver || nrhs > 0);

  Args<T> args;
  args.ch[0] = letter;
  const int ints[] = {n, nrhs, lda, ldb};
  std::copy(std::begin(ints), std::end(ints), args.in);
  const int pivots = lu ? order : 0;
  SolveRun<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, SolveRun<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.f.a = a0;
    out.b = b0;
    const std::string fn = symbol<T>(Kind::lapack, stem, as);
    Pivots<I> ipiv = make_pivots<I>(pivots, driver ? std::vector<int>() : ipiv_values);
    I info = I(kIntGuard);
    T *a = out.f.a.p(), *b = out.b.p();
    I *in = s.in;
    switch (routine) {
      case Routine::getrs:
        lib.get<sig::getrs_lapack<T, I>>(fn)(&s.ch[0], &in[0], &in[1], a, &in[2], ipiv.p(), b, &in[3], &info, 1);
        break;
      case Routine::potrs:
        lib.get<sig::potrs_lapack<T, I>>(fn)(&s.ch[0], &in[0], &in[1], a, &in[2], b, &in[3], &info, 1);
        break;
      case Routine::gesv:
        lib.get<sig::gesv_lapack<T, I>>(fn)(&in[0], &in[1], a, &in[2], ipiv.p(), b, &in[3], &info);
        break;
      case Routine::posv:
        lib.get<sig::posv_lapack<T, I>>(fn)(&s.ch[0], &in[0], &in[1], a, &in[2], b, &in[3], &info, 1);
        break;
    }
    out.f.ipiv = widened(ipiv);
    out.f.info = info;
  });
  check_untouched_outside("B", b0, got.b);
  const Pivots<int64_t> ipiv0 = make_pivots<int64_t>(pivots, driver ? std::vector<int>() : ipiv_values);
  if (driver) {
    check_untouched_outside("A", a0, got.f.a);
    check_pivots_outside(ipiv0, got.f.ipiv, pivots);
  } else {
    check_unchanged("A", a0, got.f.a);
    check_pivots_outside(ipiv0, got.f.ipiv, 0);
  }
  if (!(works && g_options.gpu_bounds)) {
    check_same_factor(ref.f, got.f, driver ? pivots : 0);
    check_same_entries("B", ref.b, got.b);
    return;
  }
  // On the GPU: ?gesv_'s and ?posv_'s factor as factor.cpp judges one, B as it was where INFO >
  // 0; then the solution by its residual, where there is a matrix behind the factor.
  if (driver) {
    const bool passed = lu ? check_lu_bounds(a0, ref.f, got.f, n, n, special, info_exact)
                           : check_cholesky_bounds(a0, ref.f, got.f, upper, hermitian);
    if (got.f.info > 0) return check_same_entries("B", b0, got.b);
    if (!passed) return;
  } else if (got.f.info != ref.f.info) {
    difference("INFO: reference %lld, cudrop %lld", (long long)ref.f.info, (long long)got.f.info);
    return;
  }
  if (!has_matrix || special || nrhs == 0) return;
  auto at = [&](int i, int j) { return lu ? widen(matrix.at(i, j)) : hermitian_at(matrix, upper, i, j); };
  const char op = lu ? char(std::toupper(static_cast<unsigned char>(letter))) : 'N';
  const double resid = solve_residual(n, nrhs, at, routine == Routine::gesv ? 'N' : op, got.b, b0);
  if (!(resid < kRatioBound))
    difference("||op(A) X - B|| / (||A|| ||X|| n eps) = %s >= 30", text(resid).c_str());
}

}  // namespace

void solve_case(Rng &rng, Names names) {
  const Routine routines[] = {Routine::getrs, Routine::potrs, Routine::gesv, Routine::posv};
  const Routine routine = routines[rng.below(4)];
  for_precision(rng.below(4), [&](auto zero) { solve_as<decltype(zero)>(rng, routine, names); });
}

}  // namespace fuzz
