// cudrop_spower_, cudrop_dpower_, cudrop_scsrpower_, cudrop_dcsrpower_ (docs/power.md).
//
// No reference library has them: the reference side of a case is the definition docs/power.md
// gives, written out below (its argument checks and their order, the quick return, the CSR
// structure checks, the iteration with its rule for LAMBDA, y = A x column by column or row by
// row as cudrop's CPU path adds). The CPU path must give its bits, and a second run of cudrop
// the same bits as the first (results do not vary from run to run, GPU included).
//
// --gpu: the GPU adds in another order. Power-of-two diagonal matrices with start vectors
// without zeros are exact in any order: bits, iteration counts included. Matrices with one
// well separated eigenvalue (|lambda_2 / lambda_1| < 0.3): INFO equal and iteration counts
// within one (or one side stopped by MAXIT a step short), |X - Xref| <= 2 TOL + 16 n eps and
// |LAMBDA - LAMBDAref| <= ||A||_inf (2 TOL + 16 n eps). Every run: X's largest entry exactly 1
// after an iteration that returned INFO 0 or 1.
#include <cstddef>

#include "tests/fuzz/bounds.h"
#include "tests/fuzz/codes.h"
#include "tests/fuzz/library.h"

extern "C" void xerbla_(const char *srname, const int *info, size_t srname_len);  // handlers.cpp

namespace fuzz {
namespace {

// ---- The definition ------------------------------------------------------------------------
// Reports illegal argument k as cudrop does: INFO = -k, then XERBLA with the whole name.
bool illegal(int k, const char *name, int *info) {
  *info = -k;
  xerbla_(name, &k, std::strlen(name));
  return true;
}

// The iteration; matvec(x, y) computes y = A x.
template <class T, class MatVec>
void iterate(int n, MatVec &&matvec, T *lambda, T *x, bool ones, T tol, int *maxit, int *info) {
  std::vector<T> y(static_cast<size_t>(n));
  if (ones) std::fill(x, x + n, T(1));
  const int limit = *maxit;
  *lambda = T(0);
  for (int k = 1; k <= limit; ++k) {
    matvec(x, y.data());
    int p = 0;  // the first index of the largest |y(i)|, a NaN above every number
    for (int i = 1; i < n; ++i) {
      const bool nan_i = std::isnan(y[i]), nan_p = std::isnan(y[p]);
      if (nan_p) break;
      if (nan_i || std::fabs(y[i]) > std::fabs(y[p])) p = i;
    }
    const T lam = y[p];
    if (lam == T(0)) {
      *lambda = T(0);
      *maxit = k;
      *info = 2;
      return;
    }
    if (!std::isfinite(lam)) {
      *lambda = lam;
      *maxit = k;
      *info = 3;
      return;
    }
    bool converged = true;
    for (int i = 0; i < n; ++i) {
      const T scaled = y[i] / lam;
      converged = converged && std::fabs(scaled - x[i]) < tol;
      x[i] = scaled;
    }
    *lambda = lam;
    if (converged) {
      *maxit = k;
      *info = 0;
      return;
    }
  }
  *maxit = limit;
  *info = 1;
}

template <class T> constexpr const char *dense_name() { return sizeof(T) == 4 ? "CUDROP_SPOWER" : "CUDROP_DPOWER"; }
template <class T> constexpr const char *csr_name() { return sizeof(T) == 4 ? "CUDROP_SCSRPOWER" : "CUDROP_DCSRPOWER"; }

template <class T>
void defined_power(const int *n, const T *a, const int *lda, T *lambda, T *x, const int *init, const T *tol,
                   int *maxit, int *info) {
  *info = 0;
  const char *name = dense_name<T>();
  if ((*n < 0 && illegal(1, name, info)) || (*lda < std::max(1, *n) && illegal(3, name, info)) ||
      (*init != 0 && *init != 1 && illegal(6, name, info)) || (!(*tol >= T(0)) && illegal(7, name, info)) ||
      (*maxit < 0 && illegal(8, name, info)))
    return;
  if (*n == 0) {
    *lambda = T(0);
    *maxit = 0;
    return;
  }
  const int order = *n;
  const size_t ld = size_t(*lda);
  iterate<T>(order, [&](const T *xv, T *y) {
    std::fill(y, y + order, T(0));
    for (int j = 0; j < order; ++j)
      for (int i = 0; i < order; ++i) y[i] += a[i + j * ld] * xv[j];
  }, lambda, x, *init == 1, *tol, maxit, info);
}

template <class T>
void defined_csrpower(const int *n, const T *val, const int *colind, const int *rowptr, const int *base, T *lambda,
                      T *x, const int *init, const T *tol, int *maxit, int *info) {
  *info = 0;
  const char *name = csr_name<T>();
  if ((*n < 0 && illegal(1, name, info)) || (*base != 0 && *base != 1 && illegal(5, name, info)) ||
      (*init != 0 && *init != 1 && illegal(8, name, info)) || (!(*tol >= T(0)) && illegal(9, name, info)) ||
      (*maxit < 0 && illegal(10, name, info)))
    return;
  if (*n == 0) {
    *lambda = T(0);
    *maxit = 0;
    return;
  }
  const int order = *n, b = *base;
  bool rows_ok = rowptr[0] == b;
  for (int i = 0; i < order && rows_ok; ++i) rows_ok = rowptr[i + 1] >= rowptr[i];
  if (!rows_ok) {
    *info = -4;
    return;
  }
  for (long k = 0; k < long(rowptr[order]) - b; ++k)
    if (colind[k] < b || colind[k] >= b + order) {
      *info = -3;
      return;
    }
  iterate<T>(order, [&](const T *xv, T *y) {
    for (int i = 0; i < order; ++i) {
      T s = T(0);
      for (long k = long(rowptr[i]) - b; k < long(rowptr[i + 1]) - b; ++k) s += val[k] * xv[colind[k] - b];
      y[i] = s;
    }
  }, lambda, x, *init == 1, *tol, maxit, info);
}

// ---- Cases -----------------------------------------------------------------------------------
// Exact: a power-of-two diagonal; separated: one eigenvalue well above the rest; random;
// nilpotent (strictly upper triangular: A x = 0 within n steps); special values.
enum class Matrix { Exact, Separated, Random, Nilpotent, Special };
const char *describe(Matrix kind) {
  const char *names[] = {"power-of-two diagonal", "separated", "random", "nilpotent", "special-valued"};
  return names[int(kind)];
}

// Entry (i, j) of a matrix of `kind` (dominant: the index of the separated eigenvalue).
template <class T> T entry(Rng &rng, Matrix kind, int i, int j, int n, int dominant) {
  switch (kind) {
    case Matrix::Exact: return i == j ? T(std::ldexp(rng.sign(), -int(rng.below(4))) * (i == dominant ? 4 : 1)) : T(0);
    case Matrix::Separated:
      return i == j ? T(i == dominant ? 2 * rng.sign() : 0.5 * rng.symmetric()) : T(0.1 * rng.symmetric() / n);
    case Matrix::Nilpotent: return i < j ? T(rng.symmetric()) : T(0);
    case Matrix::Special: return rng.below(std::max(n * n / 2, 2)) == 0 ? special<T>(rng) : T(rng.symmetric());
    default: return T(rng.symmetric());
  }
}

template <class T> struct PowerRun {
  Array<T> x;
  T lambda;
  int maxit, info;
  std::vector<HandlerCall> handlers;
};

// Everything but X exact, X within `bound` (0: bit for bit).
template <class T> void check_same_run(const PowerRun<T> &ref, const PowerRun<T> &got, double bound, const char *what) {
  if (ref.info != got.info || ref.maxit != got.maxit || !same(ref.lambda, got.lambda)) {
    difference("%s: INFO %d, MAXIT %d, LAMBDA %s; cudrop INFO %d, MAXIT %d, LAMBDA %s", what, ref.info, ref.maxit,
               show(ref.lambda).c_str(), got.info, got.maxit, show(got.lambda).c_str());
    return;
  }
  if (bound == 0) return check_same_entries("X", ref.x, got.x);
  check_within("X", ref.x, ref.x, got.x, false, [&](int, int) { return bound; }, [](int, int) { return true; });
}

template <class T> void power_as(Rng &rng, bool csr) {
  const uint64_t r = rng.below(100);
  const Matrix kind = r < 20 ? Matrix::Exact : r < 55 ? Matrix::Separated : r < 80 ? Matrix::Random
                      : r < 88 ? Matrix::Nilpotent : Matrix::Special;
  const int n = rng.below(3) == 0 ? dimension(rng) : std::min(dimension(rng), 12);
  const int order = std::max(n, 0), dominant = order > 0 ? int(rng.below(order)) : 0;
  const int init = rng.below(100) < 95 ? int(rng.below(2)) : (rng.below(2) ? 2 : -1);
  const T tols[] = {T(0), T(1e-3), T(sizeof(T) == 4 ? 1e-5 : 1e-10), T(1), std::numeric_limits<T>::infinity(),
                    std::numeric_limits<T>::quiet_NaN(), T(-1), T(-0.0)};
  const T tol = tols[rng.below(100) < 90 ? rng.below(5) : 5 + rng.below(3)];
  const int maxit = rng.below(100) < 96 ? int(rng.below(60)) : -1 - int(rng.below(3));
  const int lda = leading_dimension(rng, order);
  const int base = rng.below(100) < 96 ? int(rng.below(2)) : (rng.below(2) ? 2 : -1);
  // The matrix, dense; for CSR its nonzeros (and a few explicit zeros), each row's in a random
  // order, some split in two halves (duplicates add).
  Array<T> a0 = make_array<T>(rng, order, order, lda, Fill::Random);
  double norm = 0;  // ||A||_inf
  for (int i = 0; i < order; ++i) {
    double row = 0;
    for (int j = 0; j < order; ++j) row += std::fabs(double(a0.at(i, j) = entry<T>(rng, kind, i, j, order, dominant)));
    norm = std::max(norm, row);
  }
  std::vector<T> values;
  std::vector<int> columns, rows = {base};
  for (int i = 0; i < order && csr; ++i) {
    std::vector<int> row;
    for (int j = 0; j < order; ++j)
      if (a0.at(i, j) != T(0) || rng.below(16) == 0) row.push_back(j);
    for (size_t s = row.size(); s > 1; --s) std::swap(row[s - 1], row[rng.below(s)]);
    for (int j : row) {
      const bool split = kind != Matrix::Exact && rng.below(8) == 0;
      for (int part = 0; part < (split ? 2 : 1); ++part) {
        values.push_back(split ? a0.at(i, j) / 2 : a0.at(i, j));
        columns.push_back(j + base);
      }
    }
    rows.push_back(base + int(values.size()));
  }
  // A broken structure, sometimes: ROWPTR(1) != BASE, a decreasing ROWPTR, a column out of range.
  const uint64_t broken = csr && order > 0 ? rng.below(100) : 100;
  if (broken < 2) rows[0] += rng.below(2) ? 1 : -1;
  else if (broken < 4) std::swap(rows[1 + rng.below(order)], rows[rng.below(order)]);
  else if (broken < 6 && !columns.empty()) columns[rng.below(columns.size())] = rng.below(2) ? base - 1 : base + order;
  const int nnz = int(values.size());
  Array<T> val0 = make_array<T>(rng, nnz, 1, nnz, Fill::Random);
  for (int k = 0; k < nnz; ++k) val0.at(k, 0) = values[k];
  const Pivots<int> col0 = make_pivots<int>(nnz, columns), row0 = make_pivots<int>(csr ? order + 1 : 0, rows);
  // X: without zeros (INIT = 0 reads it), sometimes zero (A x = 0 at once).
  Array<T> x0 = make_array<T>(rng, order, 1, std::max(order, 1), Fill::Random);
  const bool zero_x = rng.below(20) == 0;
  for (int i = 0; i < order; ++i) x0.at(i, 0) = zero_x ? T(0) : T(rng.sign() * (0.5 + rng.uniform()));

  const std::string name = symbol(Kind::ext, letter<T>(), csr ? "csrpower" : "power", Names::lp64);
  char call[256];
  if (csr)
    std::snprintf(call, sizeof call, "%s(n=%d, nnz=%d, base=%d, init=%d, tol=%s, maxit=%d) on a %s matrix%s",
                  name.c_str(), n, nnz, base, init, text(tol).c_str(), maxit, describe(kind),
                  broken < 4 ? ", bad ROWPTR" : broken < 6 ? ", a column out of range" : "");
  else
    std::snprintf(call, sizeof call, "%s(n=%d, lda=%d, init=%d, tol=%s, maxit=%d) on a %s matrix%s", name.c_str(), n,
                  lda, init, text(tol).c_str(), maxit, describe(kind), zero_x && init == 0 ? " from X = 0" : "");
  g_call = call;
  bool structure = true;
  for (int i = 0; i < order && csr; ++i) structure = structure && rows[i + 1] >= rows[i];
  structure = structure && (!csr || rows[0] == base);
  const bool legal = n >= 0 && (csr ? base == 0 || base == 1 : lda >= std::max(1, n)) && (init == 0 || init == 1) &&
                     tol >= T(0) && maxit >= 0;
  const bool works = legal && n > 0 && structure;

  Args<T> args;
  args.in[0] = n;
  args.in[1] = csr ? base : lda;
  args.in[2] = init;
  args.t[0] = tol;
  auto call_it = [&](Library &lib, PowerRun<T> &out) {
    out.x = x0;
    out.lambda = guard_value<T>();
    out.maxit = maxit;
    out.info = kIntGuard;
    Array<T> a = a0, val = val0;
    Pivots<int> col = col0, row = row0;
    with_scalars_as<T, int>(args, lib, [&](auto &s) {
      if (csr)
        lib.get<sig::csrpower_ext<T>>(name)(&s.in[0], val.p(), col.p(), row.p(), &s.in[1], &out.lambda, out.x.p(),
                                            &s.in[2], &s.t[0], &out.maxit, &out.info);
      else
        lib.get<sig::power_ext<T>>(name)(&s.in[0], a.p(), &s.in[1], &out.lambda, out.x.p(), &s.in[2], &s.t[0],
                                         &out.maxit, &out.info);
    });
    if (&lib != &g_cudrop) return;
    check_unchanged("A", a0, a);
    check_unchanged("VAL", val0, val);
    if (col.data != col0.data || row.data != row0.data) difference("cudrop changed COLIND or ROWPTR");
  };
  PowerRun<T> ref, got;
  run_both(works, Names::lp64, ref, got, [&](Library &lib, PowerRun<T> &out, Names) { call_it(lib, out); });
  check_untouched_outside("X", x0, got.x);
  if (!same_bits(ref.lambda, guard_value<T>()) && same_bits(got.lambda, guard_value<T>()))
    difference("LAMBDA unwritten");
  if (works) {  // a second run of cudrop: the same bits
    PowerRun<T> again;
    call_it(g_cudrop, again);
    check_same_run(got, again, 0, "first run");
  }
  if (works && (got.info == 0 || got.info == 1) && got.maxit > 0) {  // X's largest entry exactly 1
    bool one = false, within = true;
    for (int i = 0; i < order; ++i) {
      one = one || got.x.at(i, 0) == T(1);
      within = within && std::fabs(got.x.at(i, 0)) <= T(1);
    }
    if (!one || !within) difference("X's largest entry is not exactly 1");
  }
  if (!(works && g_options.gpu_bounds) || kind == Matrix::Exact || got.info < 0 || (zero_x && init == 0))
    return check_same_run(ref, got, 0, "definition");
  // On the GPU, sums in another order.
  const double rounding = 16 * order * epsilon<T>(), t = std::isfinite(double(tol)) ? double(tol) : 0;
  if (kind == Matrix::Separated) {
    const bool edge = got.info != ref.info && std::max(got.maxit, ref.maxit) == maxit;
    if ((got.info != ref.info && !edge) || std::abs(got.maxit - ref.maxit) > 1)
      return difference("INFO %d, MAXIT %d; cudrop INFO %d, MAXIT %d", ref.info, ref.maxit, got.info, got.maxit);
    if (std::fabs(double(got.lambda) - double(ref.lambda)) > norm * (2 * t + rounding))
      return difference("LAMBDA %s, cudrop %s", show(ref.lambda).c_str(), show(got.lambda).c_str());
    check_within("X", ref.x, ref.x, got.x, false, [&](int, int) { return 2 * t + rounding; }, [](int, int) { return true; });
  } else if (kind == Matrix::Nilpotent || ref.info == 3) {  // A x = 0, or Inf or NaN, at the same step
    if (got.info != ref.info || got.maxit != ref.maxit)
      difference("INFO %d, MAXIT %d; cudrop INFO %d, MAXIT %d", ref.info, ref.maxit, got.info, got.maxit);
  } else if (got.info < 0 || got.info > 3 || got.maxit < 0 || got.maxit > maxit) {
    difference("cudrop INFO %d, MAXIT %d (limit %d)", got.info, got.maxit, maxit);
  }
}

}  // namespace

void register_power_model(Library &reference) {
  reference.symbols["cudrop_spower_"] = reinterpret_cast<void *>(&defined_power<float>);
  reference.symbols["cudrop_dpower_"] = reinterpret_cast<void *>(&defined_power<double>);
  reference.symbols["cudrop_scsrpower_"] = reinterpret_cast<void *>(&defined_csrpower<float>);
  reference.symbols["cudrop_dcsrpower_"] = reinterpret_cast<void *>(&defined_csrpower<double>);
}

void power_case(Rng &rng) {
  const bool csr = rng.below(2) == 1;
  if (rng.below(2) == 0) power_as<float>(rng, csr);
  else power_as<double>(rng, csr);
}

}  // namespace fuzz
