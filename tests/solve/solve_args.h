// solve_test.cpp's illegal arguments and quick returns (included inside its anonymous
// namespace).

template <class T>
void argument_checks() {
  struct Bad { const char *routine; int n, nrhs, lda, ldb; char letter; int param; };
  const Bad bad[] = {{"GETRS", 3, 1, 3, 3, 'X', 1}, {"GETRS", -1, 1, 3, 3, 'N', 2}, {"GETRS", 3, -1, 3, 3, 'T', 3},
                     {"GETRS", 3, 1, 2, 3, 'C', 5}, {"GETRS", 3, 1, 3, 2, 'n', 8}, {"GETRS", 3, 1, 3, 2, 'c', 8},
                     {"GETRS", 3, 1, 3, 3, 'H', 1}, {"POTRS", 3, 1, 3, 3, 'X', 1},
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
    CHECK(info == rinfo && ipiv[0] == rpiv[0] &&
              std::abs(Wide<T>(a[8]) - Wide<T>(r[8])) <= 1e-5 * std::abs(Wide<T>(r[8])),
          "%sGESV nrhs=0: A not factored as the reference does (INFO %d, %d)", Prec<T>::name, info, rinfo);
}
