// The cases of solve_test.cpp (included inside its anonymous namespace).

// Symmetric (c, z: Hermitian), diagonally dominant (real diagonal n/2 + 1: positive definite,
// well conditioned); illcond: D A D with D over 2 (S, C) or 4 (D, Z) decades; minor >= 0:
// A(minor, minor) = -1, so the leading minor of order minor+1 is the first that is not positive
// definite.
template <class T>
std::vector<Wide<T>> spd(int n, bool illcond, int minor, Rng &rng) {
  std::vector<Wide<T>> a(size_t(n) * n);
  std::vector<double> d(n, 1.0);
  if (illcond)
    for (double &v : d) v = std::pow(10.0, (std::is_same_v<Real<T>, float> ? 1.0 : 2.0) * rng.symmetric());
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const Wide<T> raw = i == j ? Wide<T>(n / 2.0 + 1.0) : random_entry<T>(rng);
      Wide<T> v = Wide<T>(T(raw * d[i] * d[j]));
      if (i == j) v = std::real(v);
      a[size_t(i) + size_t(j) * n] = v;
      a[size_t(j) + size_t(i) * n] = conj_of(v);
    }
  if (minor >= 0) a[size_t(minor) + size_t(minor) * n] = -1.0;
  return a;
}

// ||P A x - L (U x)||_1 / (n ||A||_1 ||x||_1 eps) for x = (1, -1, 1, ...), from gesv's output.
template <class T>
double lu_ratio(int n, const std::vector<Wide<T>> &a, const Padded<T> &lu, const int *ipiv) {
  using W = Wide<T>;
  std::vector<W> x(n), ux(n, W(0)), lux(n, W(0)), ax(n, W(0));
  for (int i = 0; i < n; ++i) x[i] = (i % 2) ? -1.0 : 1.0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) ux[i] += W(lu(i, j)) * x[j];
  for (int j = 0; j < n; ++j) {
    lux[j] += ux[j];
    for (int i = j + 1; i < n; ++i) lux[i] += W(lu(i, j)) * ux[j];
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) ax[i] += a[size_t(i) + size_t(j) * n] * x[j];
  for (int k = 0; k < n; ++k) std::swap(ax[k], ax[size_t(ipiv[k] - 1)]);
  double r = 0;
  for (int i = 0; i < n; ++i) r += std::abs(ax[i] - lux[i]);
  const double an = norm1(a, n, n);
  return an == 0 ? (r == 0 ? 0 : 1e30) : r / (n * an * n * eps<T>());
}

template <class T>
Padded<T> right_sides(int n, int nrhs, int ldb, Rng &rng) {
  Padded<T> b(n, nrhs, ldb);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) b(i, j) = T(random_entry<T>(rng));
  return b;
}

// The largest |x - y| over the matrices' rows x cols, and the largest |y|.
template <class T>
void difference(const Padded<T> &x, const Padded<T> &y, double *diff, double *ymax) {
  *diff = *ymax = 0;
  for (int j = 0; j < x.cols; ++j)
    for (int i = 0; i < x.rows; ++i) {
      *ymax = std::max(*ymax, std::abs(Wide<T>(y(i, j))));
      *diff = std::max(*diff, std::abs(Wide<T>(x(i, j)) - Wide<T>(y(i, j))));
    }
}

template <class T>
void gesv_case(Kind kind, int n, int nrhs, int pad, Rng &rng) {
  const int zero = kind == Kind::singular ? int(rng.below(n)) : -1;
  const std::vector<Wide<T>> a = general<T>(n, kind, zero, rng);
  Padded<T> A(n, n, n + pad);
  load(A, a);
  const Padded<T> A0 = A, B0 = right_sides<T>(n, nrhs, n + 2 * pad + 1, rng);
  Padded<T> B = B0;
  std::vector<int> ipiv(size_t(n) + 1, -7);
  int info = -99;
  const double t0 = harness::seconds_now();
  Prec<T>::gesv(&n, &nrhs, A.p(), &A.ld, ipiv.data(), B.p(), &B.ld, &info);
  const double took = harness::seconds_now() - t0;
  ++calls;
  char what[128];
  std::snprintf(what, sizeof what, "%sGESV %s n=%d nrhs=%d lda=%d ldb=%d", Prec<T>::name, kind_name(kind), n, nrhs,
                A.ld, B.ld);
  CHECK(A.outside_changed(A0) == 0 && B.outside_changed(B0) == 0 && ipiv[size_t(n)] == -7,
        "%s: written outside A, B or IPIV", what);
  long bad = 0;
  for (int k = 0; k < n; ++k) bad += ipiv[k] < k + 1 || ipiv[k] > n;
  CHECK(bad == 0, "%s: %ld pivots out of range", what, bad);
  const double lr = bad ? 1e30 : lu_ratio<T>(n, a, A, ipiv.data());
  CHECK(lr < kThreshold, "%s: factor ratio %.3g", what, lr);
  double xr = 0;
  if (kind == Kind::singular) {
    CHECK(info == zero + 1, "%s: INFO %d, expected %d", what, info, zero + 1);
    CHECK(B.same(B0), "%s: B changed although U is singular", what);
  } else {
    CHECK(info == 0, "%s: INFO %d", what, info);
    xr = solution_ratio<T>(n, nrhs, 'N', a, B0, B);
    CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
  }
  int agree = -1;
  if (n <= 1007) {
    Padded<T> R = A0, RB = B0;
    std::vector<int> rpiv(size_t(n) + 1, -7);
    int rinfo = -99;
    ref.gesv<T>()(&n, &nrhs, R.p(), &R.ld, rpiv.data(), RB.p(), &RB.ld, &rinfo);
    CHECK(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);
    if (opt.bitwise)
      CHECK(A.same(R) && B.same(RB) && ipiv == rpiv, "%s: A, IPIV or B not bit for bit the reference's", what);
    agree = 0;
    while (agree < n && rpiv[agree] == ipiv[agree]) ++agree;
    if (agree == n && kind != Kind::illcond) {
      // The same pivots: the same factors, up to rounding.
      double diff, lmax;
      difference(A, R, &diff, &lmax);
      CHECK(diff <= 64.0 * n * eps<T>() * lmax, "%s: factor differs from the reference's by %.3g (max %.3g)", what,
            diff, lmax);
    }
  }
  if (opt.verbose || took > 1.0)
    std::printf("%s: info=%d factor=%.3g solution=%.3g pivots equal to the reference's: %d (%.1f ms)\n", what, info, lr,
                xr, agree, took * 1e3);
}

template <class T>
void getrs_case(char trans, Kind kind, int n, int nrhs, int pad, Rng &rng) {
  const std::vector<Wide<T>> a = general<T>(n, kind, -1, rng);
  Padded<T> A(n, n, n + pad);
  load(A, a);
  std::vector<int> ipiv(size_t(n) + 1, -7);
  int info = -99;
  harness::getrf<T>(&n, &n, A.p(), &A.ld, ipiv.data(), &info);
  const Padded<T> A0 = A, B0 = right_sides<T>(n, nrhs, n + pad + 3, rng);
  const std::vector<int> ipiv0 = ipiv;
  Padded<T> B = B0;
  const char t[2] = {trans, 0};
  Prec<T>::getrs(t, &n, &nrhs, A.p(), &A.ld, ipiv.data(), B.p(), &B.ld, &info, 1);
  ++calls;
  char what[128];
  std::snprintf(what, sizeof what, "%sGETRS %c %s n=%d nrhs=%d lda=%d ldb=%d", Prec<T>::name, trans, kind_name(kind), n,
                nrhs, A.ld, B.ld);
  CHECK(info == 0, "%s: INFO %d", what, info);
  CHECK(A.same(A0) && ipiv == ipiv0 && B.outside_changed(B0) == 0, "%s: A, IPIV or B's padding changed", what);
  const double xr = solution_ratio<T>(n, nrhs, trans, a, B0, B);
  CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
  if (opt.bitwise) {
    Padded<T> RB = B0;
    int rinfo = -99;
    ref.getrs<T>()(t, &n, &nrhs, A0.p(), &A0.ld, ipiv0.data(), RB.p(), &RB.ld, &rinfo, 1);
    CHECK(info == rinfo && B.same(RB), "%s: INFO or B not bit for bit the reference's", what);
  }
  if (opt.verbose) std::printf("%s: solution=%.3g\n", what, xr);
}

template <class T>
void potrs_case(char uplo, bool illcond, int n, int nrhs, int pad, Rng &rng) {
  const std::vector<Wide<T>> a = spd<T>(n, illcond, -1, rng);
  Padded<T> A(n, n, n + pad);
  load(A, a);
  int info = -99;
  const char u[2] = {uplo, 0};
  harness::potrf<T>(u, &n, A.p(), &A.ld, &info);
  const Padded<T> A0 = A, B0 = right_sides<T>(n, nrhs, n + pad + 1, rng);
  Padded<T> B = B0;
  Prec<T>::potrs(u, &n, &nrhs, A.p(), &A.ld, B.p(), &B.ld, &info, 1);
  ++calls;
  char what[128];
  std::snprintf(what, sizeof what, "%sPOTRS %c %s n=%d nrhs=%d lda=%d ldb=%d", Prec<T>::name, uplo,
                illcond ? "illcond" : "random", n, nrhs, A.ld, B.ld);
  CHECK(info == 0, "%s: INFO %d", what, info);
  CHECK(A.same(A0) && B.outside_changed(B0) == 0, "%s: A or B's padding changed", what);
  const double xr = solution_ratio<T>(n, nrhs, 'N', a, B0, B);
  CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
  if (opt.bitwise) {
    Padded<T> RB = B0;
    int rinfo = -99;
    ref.potrs<T>()(u, &n, &nrhs, A0.p(), &A0.ld, RB.p(), &RB.ld, &rinfo, 1);
    CHECK(info == rinfo && B.same(RB), "%s: INFO or B not bit for bit the reference's", what);
  }
  if (opt.verbose) std::printf("%s: solution=%.3g\n", what, xr);
}

template <class T>
void posv_case(char uplo, bool illcond, int minor, int n, int nrhs, int pad, Rng &rng) {
  const std::vector<Wide<T>> a = spd<T>(n, illcond, minor, rng);
  Padded<T> A(n, n, n + pad);
  load(A, a);
  const bool up = uplo == 'U' || uplo == 'u';
  // The other triangle holds marks that must survive; c, z: so do the diagonal's imaginary
  // parts, which are never read.
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (up ? i > j : i < j) A(i, j) = T(-3e7);
  if constexpr (is_complex<T>)
    for (int j = 0; j < n; ++j) A(j, j) = T(A(j, j).real(), Real<T>(-5e6));
  const Padded<T> A0 = A, B0 = right_sides<T>(n, nrhs, n + pad, rng);
  Padded<T> B = B0;
  int info = -99;
  const char u[2] = {uplo, 0};
  Prec<T>::posv(u, &n, &nrhs, A.p(), &A.ld, B.p(), &B.ld, &info, 1);
  ++calls;
  char what[128];
  std::snprintf(what, sizeof what, "%sPOSV %c %s minor=%d n=%d nrhs=%d lda=%d ldb=%d", Prec<T>::name, uplo,
                illcond ? "illcond" : "random", minor, n, nrhs, A.ld, B.ld);
  CHECK(info == minor + 1, "%s: INFO %d, expected %d", what, info, minor + 1);
  long other = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (up ? i > j : i < j) {
        const T now = A(i, j), before = A0(i, j);
        other += std::memcmp(&now, &before, sizeof(T)) != 0;
      }
  CHECK(other == 0 && A.outside_changed(A0) == 0 && B.outside_changed(B0) == 0,
        "%s: %ld elements of the other triangle, or padding, changed", what, other);
  if (minor >= 0) {
    CHECK(B.same(B0), "%s: B changed although A is not positive definite", what);
  } else {
    const double xr = solution_ratio<T>(n, nrhs, 'N', a, B0, B);
    CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
  }
  if (opt.bitwise) {
    Padded<T> R = A0, RB = B0;
    int rinfo = -99;
    ref.posv<T>()(u, &n, &nrhs, R.p(), &R.ld, RB.p(), &RB.ld, &rinfo, 1);
    CHECK(info == rinfo && A.same(R) && B.same(RB), "%s: INFO, A or B not bit for bit the reference's", what);
  }
  if (n > 1007) return;
  // The factor against the reference's (the part a failure leaves factored unless strict).
  Padded<T> R = A0;
  int rinfo = -99;
  ref.potrf<T>()(u, &n, R.p(), &R.ld, &rinfo, 1);
  CHECK(rinfo == info, "%s: INFO %d, reference %d", what, info, rinfo);
  double amax = 0, diff = 0;
  const int upto = minor >= 0 && opt.reference_is_openblas ? 0 : minor < 0 || opt.strict_state ? n : minor / 64 * 64;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (up ? i > j : i < j) continue;
      amax = std::max(amax, std::abs(a[size_t(i) + size_t(j) * n]));
      if (std::min(i, j) < upto) {
        Wide<T> x = A(i, j), y = R(i, j);
        // The diagonal's imaginary parts: left as they were by both, not a factor's.
        if (i == j) x = std::real(x), y = std::real(y);
        diff = std::max(diff, std::abs(x - y));
      }
    }
  CHECK(diff <= 16.0 * n * eps<T>() * std::max(amax, 1.0), "%s: factor differs from the reference's by %.3g", what, diff);
}
