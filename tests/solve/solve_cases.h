// The cases of solve_test.cpp (included inside its anonymous namespace).

// Symmetric, diagonally dominant (diagonal n/2 + 1: positive definite, well conditioned);
// illcond: D A D with D over 2 (S) or 4 (D) decades; minor >= 0: A(minor, minor) = -1, so the
// leading minor of order minor+1 is the first that is not positive definite.
template <class T>
std::vector<double> spd(int n, bool illcond, int minor, Rng &rng) {
  std::vector<double> a(size_t(n) * n), d(n, 1.0);
  if (illcond)
    for (double &v : d) v = std::pow(10.0, (std::is_same_v<T, float> ? 1.0 : 2.0) * rng.symmetric());
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const double raw = i == j ? n / 2.0 + 1.0 : rng.symmetric();
      const double v = double(T(raw * d[i] * d[j]));
      a[size_t(i) + size_t(j) * n] = v;
      a[size_t(j) + size_t(i) * n] = v;
    }
  if (minor >= 0) a[size_t(minor) + size_t(minor) * n] = -1.0;
  return a;
}

// ||P A x - L (U x)||_1 / (n ||A||_1 ||x||_1 eps) for x = (1, -1, 1, ...), from gesv's output.
template <class T>
double lu_ratio(int n, const std::vector<double> &a, const Padded<T> &lu, const int *ipiv) {
  std::vector<double> x(n), ux(n, 0.0), lux(n, 0.0), ax(n, 0.0);
  for (int i = 0; i < n; ++i) x[i] = (i % 2) ? -1.0 : 1.0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) ux[i] += double(lu(i, j)) * x[j];
  for (int j = 0; j < n; ++j) {
    lux[j] += ux[j];
    for (int i = j + 1; i < n; ++i) lux[i] += double(lu(i, j)) * ux[j];
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) ax[i] += a[size_t(i) + size_t(j) * n] * x[j];
  for (int k = 0; k < n; ++k) std::swap(ax[k], ax[size_t(ipiv[k] - 1)]);
  double r = 0;
  for (int i = 0; i < n; ++i) r += std::fabs(ax[i] - lux[i]);
  const double an = norm1(a, n, n);
  return an == 0 ? (r == 0 ? 0 : 1e30) : r / (n * an * n * eps<T>());
}

template <class T>
Padded<T> right_sides(int n, int nrhs, int ldb, Rng &rng) {
  Padded<T> b(n, nrhs, ldb);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) b(i, j) = T(rng.symmetric());
  return b;
}

template <class T>
void gesv_case(Kind kind, int n, int nrhs, int pad, Rng &rng) {
  const int zero = kind == Kind::singular ? int(rng.below(n)) : -1;
  const std::vector<double> a = general<T>(n, kind, zero, rng);
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
    xr = solution_ratio<T>(n, nrhs, false, a, B0, B);
    CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
  }
  int agree = -1;
  if (n <= 1007) {
    Padded<T> R = A0, RB = B0;
    std::vector<int> rpiv(size_t(n) + 1, -7);
    int rinfo = -99;
    ref.gesv<T>()(&n, &nrhs, R.p(), &R.ld, rpiv.data(), RB.p(), &RB.ld, &rinfo);
    CHECK(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);
    agree = 0;
    while (agree < n && rpiv[agree] == ipiv[agree]) ++agree;
    if (agree == n && kind != Kind::illcond) {
      // The same pivots: the same factors, up to rounding.
      double lmax = 0, diff = 0;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          lmax = std::max(lmax, std::fabs(double(R(i, j))));
          diff = std::max(diff, std::fabs(double(A(i, j)) - double(R(i, j))));
        }
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
  const std::vector<double> a = general<T>(n, kind, -1, rng);
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
  const double xr = solution_ratio<T>(n, nrhs, trans != 'N' && trans != 'n', a, B0, B);
  CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
  if (opt.verbose) std::printf("%s: solution=%.3g\n", what, xr);
}

template <class T>
void potrs_case(char uplo, bool illcond, int n, int nrhs, int pad, Rng &rng) {
  const std::vector<double> a = spd<T>(n, illcond, -1, rng);
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
  const double xr = solution_ratio<T>(n, nrhs, false, a, B0, B);
  CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
  if (opt.verbose) std::printf("%s: solution=%.3g\n", what, xr);
}

template <class T>
void posv_case(char uplo, bool illcond, int minor, int n, int nrhs, int pad, Rng &rng) {
  const std::vector<double> a = spd<T>(n, illcond, minor, rng);
  Padded<T> A(n, n, n + pad);
  load(A, a);
  const bool up = uplo == 'U' || uplo == 'u';
  // The other triangle holds marks that must survive.
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (up ? i > j : i < j) A(i, j) = T(-3e7);
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
    const double xr = solution_ratio<T>(n, nrhs, false, a, B0, B);
    CHECK(xr < kThreshold, "%s: solution ratio %.3g", what, xr);
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
      amax = std::max(amax, std::fabs(a[size_t(i) + size_t(j) * n]));
      if (std::min(i, j) < upto) diff = std::max(diff, std::fabs(double(A(i, j)) - double(R(i, j))));
    }
  CHECK(diff <= 16.0 * n * eps<T>() * std::max(amax, 1.0), "%s: factor differs from the reference's by %.3g", what, diff);
}

template <class T>
void argument_checks() {
  struct Bad { const char *routine; int n, nrhs, lda, ldb; char letter; int param; };
  const Bad bad[] = {{"GETRS", 3, 1, 3, 3, 'X', 1}, {"GETRS", -1, 1, 3, 3, 'N', 2}, {"GETRS", 3, -1, 3, 3, 'T', 3},
                     {"GETRS", 3, 1, 2, 3, 'C', 5}, {"GETRS", 3, 1, 3, 2, 'n', 8}, {"POTRS", 3, 1, 3, 3, 'X', 1},
                     {"POTRS", -1, 1, 3, 3, 'U', 2}, {"POTRS", 3, -2, 3, 3, 'L', 3}, {"POTRS", 3, 1, 2, 3, 'u', 5},
                     {"POTRS", 3, 1, 3, 2, 'l', 7}, {"GESV ", -1, 1, 3, 3, 0, 1},  {"GESV ", 3, -1, 3, 3, 0, 2},
                     {"GESV ", 3, 1, 2, 3, 0, 4},   {"GESV ", 3, 1, 3, 2, 0, 7},   {"POSV ", 3, 1, 3, 3, 'Y', 1},
                     {"POSV ", -1, 1, 3, 3, 'U', 2}, {"POSV ", 3, -1, 3, 3, 'L', 3}, {"POSV ", 3, 1, 2, 3, 'U', 5},
                     {"POSV ", 3, 1, 3, 2, 'L', 7}};
  for (const Bad &c : bad) {
    T a[16], b[16];
    int ipiv[4] = {1, 2, 3, -3};
    for (int e = 0; e < 16; ++e) a[e] = b[e] = T(e + 0.5);
    harness::xerbla.clear();
    int info = 12345;
    const char letter[2] = {c.letter, 0};
    const std::string r = c.routine;
    if (r == "GETRS") Prec<T>::getrs(letter, &c.n, &c.nrhs, a, &c.lda, ipiv, b, &c.ldb, &info, 1);
    else if (r == "POTRS") Prec<T>::potrs(letter, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, &info, 1);
    else if (r == "GESV ") Prec<T>::gesv(&c.n, &c.nrhs, a, &c.lda, ipiv, b, &c.ldb, &info);
    else Prec<T>::posv(letter, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, &info, 1);
    const std::string name = std::string(Prec<T>::name) + r;
    CHECK(harness::xerbla.calls == 1 && harness::xerbla.info == c.param && info == -c.param &&
              harness::xerbla.length == 6 && name == harness::xerbla.name,
          "%s(n=%d,nrhs=%d,lda=%d,ldb=%d,'%c'): xerbla %d calls, '%s' parameter %d, INFO %d; expected %d",
          name.c_str(), c.n, c.nrhs, c.lda, c.ldb, c.letter, harness::xerbla.calls, harness::xerbla.name,
          harness::xerbla.info, info, c.param);
    bool untouched = ipiv[3] == -3;
    for (int e = 0; e < 16; ++e) untouched = untouched && a[e] == T(e + 0.5) && b[e] == T(e + 0.5);
    CHECK(untouched, "%s: arrays changed after an illegal argument", name.c_str());
  }
  // Quick returns (N = 0, or NRHS = 0 for the solves): nothing touched.
  T a[9], b[9];
  int ipiv[3] = {1, 2, 3}, info = 5;
  const int zero = 0, three = 3;
  for (int e = 0; e < 9; ++e) a[e] = b[e] = T(e + 1);
  Prec<T>::getrs("N", &three, &zero, a, &three, ipiv, b, &three, &info, 1);
  CHECK(info == 0 && b[0] == T(1), "%sGETRS nrhs=0: INFO %d", Prec<T>::name, info);
  Prec<T>::potrs("U", &zero, &three, a, &three, b, &three, &info, 1);
  Prec<T>::gesv(&zero, &three, a, &three, ipiv, b, &three, &info);
  CHECK(info == 0 && a[0] == T(1) && ipiv[0] == 1, "%sGESV n=0: INFO %d or A, IPIV changed", Prec<T>::name, info);
  // NRHS = 0: the reference still factors A (a nonsingular one: 1..9 column by column is
  // singular, and whether rounding leaves U(3,3) exactly zero depends on the order of operations).
  for (int e = 0; e < 9; ++e) a[e] = T(e + 1);
  a[0] = T(10);
  Prec<T>::gesv(&three, &zero, a, &three, ipiv, b, &three, &info);
  T r[9];
  int rpiv[3] = {0, 0, 0}, rinfo = 0;
  for (int e = 0; e < 9; ++e) r[e] = T(e + 1);
  r[0] = T(10);
  ref.gesv<T>()(&three, &zero, r, &three, rpiv, b, &three, &rinfo);
  // (OpenBLAS's ?GESV returns at once when NRHS = 0, leaving A and IPIV as they were: it cannot
  // judge this; the reference LAPACK of the CPU tests does.)
  if (!opt.reference_is_openblas)
    CHECK(info == rinfo && ipiv[0] == rpiv[0] && std::fabs(double(a[8] - r[8])) <= 1e-5 * std::fabs(double(r[8])),
          "%sGESV nrhs=0: A not factored as the reference does (INFO %d, %d)", Prec<T>::name, info, rinfo);
}

template <class T>
void run_precision() {
  argument_checks<T>();
  Rng rng(opt.seed * 7919 + (std::is_same_v<T, float> ? 0 : 1));
  int index = 0;
  for (int n : {1, 7, 33, 100, 1007, 3000}) {
    if (n > opt.max_n) continue;
    for (int nrhs : {1, 3, 100}) {
      const int pad = 1 + index % 3;
      const bool big = n > 1007;
      gesv_case<T>(Kind::random, n, nrhs, pad, rng);
      if (!big || nrhs == 3) gesv_case<T>(Kind::illcond, n, nrhs, pad, rng);
      if (!big || nrhs == 1) gesv_case<T>(Kind::singular, n, nrhs, pad, rng);
      for (char trans : {'N', 'T', 'C'})
        if (!big || trans == "NTC"[index % 3]) getrs_case<T>(trans, index % 2 ? Kind::illcond : Kind::random, n, nrhs, pad, rng);
      for (char uplo : {'U', 'L'}) {
        potrs_case<T>(uplo, index % 2 == 1, n, nrhs, pad, rng);
        posv_case<T>(uplo, index % 2 == 0, -1, n, nrhs, pad, rng);
        if (!big || nrhs == 3) posv_case<T>(uplo == 'U' ? 'u' : 'l', false, n / 2, n, nrhs, pad, rng);
      }
      ++index;
    }
  }
}
