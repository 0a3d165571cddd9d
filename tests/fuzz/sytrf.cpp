// The symmetric indefinite family: ?sytrf_ (s, d, c, z), ?hetrf_ (c, z), their solves ?sytrs_
// (s, d, c, z) and ?hetrs_ (c, z), the drivers ?sysv_ (s, d, c, z) and ?hesv_ (c, z).
//
// Matrices: random (indefinite: 1x1 and 2x2 pivots), a zero diagonal (2x2 pivots mostly), singular
// (a zero row and column: INFO > 0, exactly), small integers (ties in the pivot tests), special
// values; the triangle UPLO does not name holds junk (NaN included) that nothing may read or write,
// a Hermitian diagonal's imaginary parts junk that nothing may read (the reference zeroes them as
// it goes). ?sytrs_/?hetrs_ get the reference's factor of such a matrix, or (1 in 8) random
// triangles and random pivots of the reference's format (no matrix behind them). LWORK: a query,
// illegal (0, negative), 1 (the reference's unblocked path), less than n * 64 (narrower blocks),
// n * 64 or more. On the CPU path every output bit for bit: A, IPIV, INFO, B, WORK(1); WORK past
// LWORK untouched.
//
// --gpu, --bounds (calls that compute are judged within bounds): IPIV of the reference's format
// and within range, the other triangle untouched, INFO exact where the matrix decides it, B
// untouched where a driver's INFO > 0; the factor of ?sytrf_/?hetrf_ judged by the solution the
// reference's ?sytrs_/?hetrs_ makes with it, and the solutions of ?sytrs_/?hetrs_ and of the
// drivers by xGET02's ratio against the matrix (at most 30, or at most 4 times the
// reference's own). WORK(1) exact under the LP64 names (an ILP64 or wheel entry leaves WORK(1)
// as it was after a GPU run: capi/cpu_call.h).
#include <algorithm>
#include <climits>

#include "tests/fuzz/bounds.h"
#include "tests/fuzz/codes.h"
#include "tests/fuzz/factor.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/library.h"

namespace fuzz {
namespace {

enum class Routine { factor, solve, driver };

enum class Matrix { Random, ZeroDiagonal, Singular, Integer, Special };
Matrix pick_matrix(Rng &rng) {
  const uint64_t r = rng.below(100);
  return r < 45 ? Matrix::Random : r < 60 ? Matrix::ZeroDiagonal : r < 72 ? Matrix::Singular
                                                                          : r < 86 ? Matrix::Integer : Matrix::Special;
}
const char *describe(Matrix kind) {
  const char *names[] = {"random", "zero-diagonal", "singular", "integer", "special-valued"};
  return names[int(kind)];
}
// Whether INFO is the matrix's own (not decided by rounding): random matrices are nonsingular,
// a zero row and column stays exactly zero through the elimination.
bool info_exact(Matrix kind) { return kind != Matrix::Integer && kind != Matrix::Special; }

// A symmetric (complex symmetric, or Hermitian) n x n matrix of `kind` in the triangle `upper`
// names; junk elsewhere.
template <class T> Array<T> make_indefinite(Rng &rng, int n, int lda, bool upper, bool hermitian, Matrix kind) {
  Array<T> a = make_array<T>(rng, n, n, lda, kind == Matrix::Integer ? Fill::Integer : Fill::Random);
  const int order = a.rows;
  if (kind == Matrix::ZeroDiagonal)
    for (int i = 0; i < order; ++i) a.at(i, i) = T(0);
  if (kind == Matrix::Singular && order > 0) {
    const int k = int(rng.below(order));
    for (int i = 0; i < order; ++i) a.at(i, k) = a.at(k, i) = T(0);
  }
  if (kind == Matrix::Special) put_specials(rng, a, upper);
  fill_junk(rng, a, upper, hermitian);
  return a;
}

// Entry (i,j) of the matrix a holds in its `upper` or lower triangle.
template <class T> Wide<T> indefinite_at(const Array<T> &a, bool upper, bool hermitian, int i, int j) {
  if (hermitian) return hermitian_at(a, upper, i, j);
  const bool stored = upper ? i <= j : i >= j;
  return widen(stored ? a.at(i, j) : a.at(j, i));
}

// Random pivots of the reference's format: IPIV(k) > 0 a 1x1 block with the row it was
// interchanged with; the same negative value at both columns of a 2x2 block (UPLO 'U':
// -IPIV(k) <= k - 1 at its columns k-1 and k; 'L': -IPIV(k) >= k + 2 at k and k+1, 1-based).
std::vector<int> random_pivots(Rng &rng, int n, bool upper) {
  std::vector<int> ipiv(size_t(std::max(n, 0)));
  if (upper) {
    for (int k = n - 1; k >= 0;) {
      if (k >= 1 && rng.below(3) == 0) {
        ipiv[k] = ipiv[k - 1] = -(1 + int(rng.below(k)));
        k -= 2;
      } else {
        ipiv[k] = 1 + int(rng.below(k + 1));
        k -= 1;
      }
    }
  } else {
    for (int k = 0; k < n;) {
      if (k + 1 < n && rng.below(3) == 0) {
        ipiv[k] = ipiv[k + 1] = -(k + 2 + int(rng.below(n - k - 1)));
        k += 2;
      } else {
        ipiv[k] = k + 1 + int(rng.below(n - k));
        k += 1;
      }
    }
  }
  return ipiv;
}

// IPIV of the reference's format (random_pivots'): false, with the difference reported, where
// an entry is not (a solve with it would index outside A).
bool check_pivot_format(const Pivots<int64_t> &ipiv, int n, bool upper) {
  auto bad = [&](int k) {
    difference("IPIV(%d) = %lld is not of the reference's format (UPLO %c, n = %d)", k + 1, (long long)ipiv.at(k),
               upper ? 'U' : 'L', n);
    return false;
  };
  if (upper) {
    for (int k = n - 1; k >= 0;) {
      const int64_t v = ipiv.at(k);
      if (v > 0) {
        if (v > k + 1) return bad(k);
        k -= 1;
      } else {
        if (v == 0 || k < 1 || ipiv.at(k - 1) != v || -v > k + 1) return bad(k);
        k -= 2;
      }
    }
  } else {
    for (int k = 0; k < n;) {
      const int64_t v = ipiv.at(k);
      if (v > 0) {
        if (v < k + 1 || v > n) return bad(k);
        k += 1;
      } else {
        if (v == 0 || k + 1 >= n || ipiv.at(k + 1) != v || -v < k + 1 || -v > n) return bad(k);
        k += 2;
      }
    }
  }
  return true;
}

// LWORK: a query, illegal, 1, less than n * 64 (the reference's block size: its unblocked path
// below NBMIN columns' worth, narrower blocks above), n * 64 or more.
int sytrf_work_length(Rng &rng, int n) {
  const int columns = std::max(n, 1);
  const uint64_t r = rng.below(100);
  if (r < 12) return -1;
  if (r < 18) { const int bad[] = {0, -2, INT_MIN}; return bad[rng.below(3)]; }
  if (r < 35) return 1;
  if (r < 55) return 1 + int(rng.below(32 * uint64_t(columns)));
  if (r < 85) return 64 * columns;
  return 64 * columns + 1 + int(rng.below(500));
}

// WORK's buffer for an LWORK, with room before and after it that must stay untouched.
constexpr size_t kWorkFront = 16, kWorkBack = 64;
template <class T> struct Work {
  std::vector<T> room;
  explicit Work(int lwork) : room(kWorkFront + size_t(std::max(lwork, 1)) + kWorkBack, T(0)) {}
  T *p() { return room.data() + kWorkFront; }
  bool outside_touched(int lwork) const {
    for (size_t x = 0; x < room.size(); ++x)
      if ((x < kWorkFront || x >= kWorkFront + size_t(std::max(lwork, 1))) && !same_bits(room[x], T(0))) return true;
    return false;
  }
};

// What one library's call gave.
template <class T> struct Run {
  Array<T> a, b;
  Pivots<int64_t> ipiv;
  T work1 = T(0);
  bool work_outside = false;
  int64_t info = 0;
  std::vector<HandlerCall> handlers;
};

// The reference's LP64 ?sytrf_/?hetrf_ of `a` (in place): its INFO, IPIV in `ipiv`.
template <class T> int reference_factor(const char *stem, bool upper, Array<T> &a, std::vector<int> &ipiv) {
  const int n = a.rows, lda = int(a.stride);
  const char u = upper ? 'U' : 'L';
  auto fn = g_reference.get<sig::sytrf_lapack<T>>(symbol<T>(Kind::lapack, stem, Names::lp64));
  int lwork = -1, info = 0;
  T query = T(0);
  ipiv.assign(size_t(std::max(n, 1)), 0);
  fn(&u, &n, a.p(), &lda, ipiv.data(), &query, &lwork, &info, 1);
  lwork = std::max(1, int(re(query)));
  std::vector<T> work(static_cast<size_t>(lwork));
  fn(&u, &n, a.p(), &lda, ipiv.data(), work.data(), &lwork, &info, 1);
  return info;
}

// xGET02's ratio of the solution x of A x = b (A from a0's `upper` triangle).
template <class T>
double indefinite_residual(const Array<T> &a0, bool upper, bool hermitian, int nrhs, const Array<T> &x,
                           const Array<T> &b) {
  auto at = [&](int i, int j) { return indefinite_at(a0, upper, hermitian, i, j); };
  return solve_residual(a0.rows, nrhs, at, 'N', x, b);
}

// A solution judged on the GPU: its ratio below 30, or within 4 times the reference's own
// (a matrix whose growth makes the reference's ratio large too).
template <class T>
void check_solution(const Array<T> &a0, bool upper, bool hermitian, int nrhs, const Array<T> &ref_x,
                    const Array<T> &got_x, const Array<T> &b0) {
  const double resid = indefinite_residual(a0, upper, hermitian, nrhs, got_x, b0);
  if (resid < kRatioBound) return;
  const double ref_resid = indefinite_residual(a0, upper, hermitian, nrhs, ref_x, b0);
  if (!(resid <= 4 * ref_resid))
    difference("||A X - B|| / (||A|| ||X|| n eps) = %s >= 30 (reference: %s)", text(resid).c_str(),
               text(ref_resid).c_str());
}

template <class T> void sytrf_as(Rng &rng, Routine routine, bool hermitian, Names names) {
  const char *stem = routine == Routine::factor ? (hermitian ? "hetrf" : "sytrf")
                     : routine == Routine::solve ? (hermitian ? "hetrs" : "sytrs")
                                                 : (hermitian ? "hesv" : "sysv");
  const char *solve_stem = hermitian ? "hetrs" : "sytrs", *factor_stem = hermitian ? "hetrf" : "sytrf";
  const bool solves = routine != Routine::factor, has_work = routine != Routine::solve;
  const char uplo = option_letter(rng, "UL");
  const bool upper = is(uplo, 'U');
  const int n = dimension(rng);
  const int nrhs = !solves ? 0 : rng.below(8) == 0 ? 0 : rng.below(4) == 0 ? dimension(rng) : 1 + int(rng.below(6));
  const int lda = leading_dimension(rng, n), ldb = solves ? leading_dimension(rng, n) : 1;
  int lwork = has_work ? sytrf_work_length(rng, n) : 0;
  const int order = std::max(n, 0);

  const Matrix kind = pick_matrix(rng);
  Array<T> a0 = make_indefinite<T>(rng, n, lda, upper, hermitian, kind);
  const Array<T> matrix = a0;
  // ?sytrs_/?hetrs_: the reference's factor of the matrix, or random triangles and pivots.
  std::vector<int> ipiv_values;
  bool has_matrix = kind != Matrix::Special;
  const char *what = describe(kind);
  if (routine == Routine::solve && order > 0) {
    if (rng.below(8) == 0) {
      ipiv_values = random_pivots(rng, order, upper);
      has_matrix = false;
      what = "random-factor";
    } else {
      has_matrix = reference_factor(factor_stem, upper, a0, ipiv_values) == 0 && has_matrix;
    }
  }
  const Array<T> b0 = solves ? make_array<T>(rng, n, nrhs, ldb, kind == Matrix::Special ? pick_fill(rng) : Fill::Random)
                             : Array<T>();

  const std::string name = symbol<T>(Kind::lapack, stem, names);
  char call[256];
  if (routine == Routine::factor)
    std::snprintf(call, sizeof call, "%s(%s, n=%d, lda=%d, lwork=%d) on a %s matrix", name.c_str(),
                  letter_text(uplo).c_str(), n, lda, lwork, what);
  else if (routine == Routine::solve)
    std::snprintf(call, sizeof call, "%s(%s, n=%d, nrhs=%d, lda=%d, ldb=%d) with the factor of a %s matrix",
                  name.c_str(), letter_text(uplo).c_str(), n, nrhs, lda, ldb, what);
  else
    std::snprintf(call, sizeof call, "%s(%s, n=%d, nrhs=%d, lda=%d, ldb=%d, lwork=%d) on a %s matrix", name.c_str(),
                  letter_text(uplo).c_str(), n, nrhs, lda, ldb, lwork, what);
  g_call = call;
  const bool legal = letter_in(uplo, "UL") && n >= 0 && (!solves || nrhs >= 0) && lda >= std::max(1, n) &&
                     (!solves || ldb >= std::max(1, n)) && (!has_work || lwork >= 1 || lwork == -1);
  const bool works = legal && n > 0 && (routine == Routine::solve ? nrhs > 0 : lwork != -1);

  Args<T> args;
  args.ch[0] = uplo;
  const int ints[] = {n, nrhs, lda, ldb, lwork};
  std::copy(std::begin(ints), std::end(ints), args.in);
  Run<T> ref, got;
  run_both(works, names, args, ref, got, [&](Library &lib, Run<T> &out, auto &s, Names as) {
    using I = index_of<decltype(s)>;
    out.a = a0;
    out.b = b0;
    Pivots<I> ipiv = make_pivots<I>(order, ipiv_values);
    Work<T> work(lwork);
    I info = I(kIntGuard);
    const std::string fn = symbol<T>(Kind::lapack, stem, as);
    const I *in = s.in;
    switch (routine) {
      case Routine::factor:
        lib.get<sig::sytrf_lapack<T, I>>(fn)(&s.ch[0], &in[0], out.a.p(), &in[2], ipiv.p(), work.p(), &in[4], &info,
                                             1);
        break;
      case Routine::solve:
        lib.get<sig::sytrs_lapack<T, I>>(fn)(&s.ch[0], &in[0], &in[1], out.a.p(), &in[2], ipiv.p(), out.b.p(),
                                             &in[3], &info, 1);
        break;
      case Routine::driver:
        lib.get<sig::sysv_lapack<T, I>>(fn)(&s.ch[0], &in[0], &in[1], out.a.p(), &in[2], ipiv.p(), out.b.p(), &in[3],
                                            work.p(), &in[4], &info, 1);
        break;
    }
    out.ipiv = widened(ipiv);
    out.info = info;
    out.work1 = work.p()[0];
    out.work_outside = work.outside_touched(lwork);
  });

  // What holds wherever the call ran.
  const Pivots<int64_t> ipiv0 = make_pivots<int64_t>(order, ipiv_values);
  if (routine == Routine::solve) {
    check_unchanged("A", a0, got.a);
    check_pivots_outside(ipiv0, got.ipiv, 0);
  } else {
    check_untouched_outside("A", a0, got.a);
    check_pivots_outside(ipiv0, got.ipiv, order);
  }
  check_untouched_outside("B", b0, got.b);
  if (got.work_outside) difference("cudrop wrote WORK outside its LWORK = %d entries", lwork);
  const bool on_gpu = works && g_options.gpu_bounds;
  if (has_work && (!on_gpu || names == Names::lp64) && !same(ref.work1, got.work1))
    difference("WORK(1): reference %s, cudrop %s", show(ref.work1).c_str(), show(got.work1).c_str());
  if (!on_gpu) {
    if (ref.info != got.info) difference("INFO: reference %lld, cudrop %lld", (long long)ref.info, (long long)got.info);
    if (routine != Routine::solve)
      for (int i = 0; i < order; ++i)
        if (ref.ipiv.at(i) != got.ipiv.at(i)) {
          difference("IPIV(%d): reference %lld, cudrop %lld", i + 1, (long long)ref.ipiv.at(i),
                     (long long)got.ipiv.at(i));
          break;
        }
    check_same_entries("A", ref.a, got.a);
    check_same_entries("B", ref.b, got.b);
    return;
  }

  // Within bounds: INFO exact where the matrix decides it; ?sytrs_/?hetrs_'s solution by its
  // residual where a matrix is behind the factor.
  if (got.info != ref.info && (routine == Routine::solve || info_exact(kind))) {
    difference("INFO: reference %lld, cudrop %lld", (long long)ref.info, (long long)got.info);
    return;
  }
  if (routine == Routine::solve) {
    if (has_matrix) check_solution(matrix, upper, hermitian, nrhs, ref.b, got.b, b0);
    return;
  }
  // The factorizations: IPIV's format, the other triangle, INFO in range.
  if (got.info < 0 || got.info > order) difference("INFO %lld outside [0, %d]", (long long)got.info, order);
  if (!check_other_triangle(a0, got.a, upper) || !check_pivot_format(got.ipiv, order, upper)) return;
  if (routine == Routine::driver) {
    if (got.info > 0) return check_same_entries("B", b0, got.b);
    if (got.info == 0 && ref.info == 0 && has_matrix && nrhs > 0)
      check_solution(matrix, upper, hermitian, nrhs, ref.b, got.b, b0);
    return;
  }
  // ?sytrf_/?hetrf_: the reference's solve with each side's factor of a random right-hand side.
  if (got.info != 0 || ref.info != 0 || !has_matrix) return;
  const int columns = 2, ld = std::max(order, 1);
  const Array<T> rhs = make_array<T>(rng, order, columns, ld, Fill::Random);
  auto solve_with = [&](const Run<T> &factor) {
    Array<T> x = rhs;
    std::vector<int> pivots(static_cast<size_t>(order));
    for (int i = 0; i < order; ++i) pivots[i] = int(factor.ipiv.at(i));
    int lda_arg = int(factor.a.stride), ldb_arg = ld, info = 0;
    const char u = upper ? 'U' : 'L';
    g_reference.get<sig::sytrs_lapack<T>>(symbol<T>(Kind::lapack, solve_stem, Names::lp64))(
        &u, &order, &columns, factor.a.p(), &lda_arg, pivots.data(), x.p(), &ldb_arg, &info, 1);
    return x;
  };
  check_solution(matrix, upper, hermitian, columns, solve_with(ref), solve_with(got), rhs);
}

}  // namespace

void sytrf_case(Rng &rng, Names names) {
  // Each routine and precision an equal share: ?sytrf_, ?sytrs_, ?sysv_ in four precisions,
  // ?hetrf_, ?hetrs_, ?hesv_ in two.
  const uint64_t r = rng.below(18);
  const bool hermitian = r >= 12;
  const Routine routines[] = {Routine::factor, Routine::solve, Routine::driver};
  const Routine routine = routines[hermitian ? (r - 12) / 2 : r / 4];
  const uint64_t precision = hermitian ? 2 + (r - 12) % 2 : r % 4;
  for_precision(precision, [&](auto zero) { sytrf_as<decltype(zero)>(rng, routine, hermitian, names); });
}

}  // namespace fuzz
