// getrf_test: illegal arguments (reported through xerbla_, nothing written) and the quick
// returns of M = 0 or N = 0.
#include "tests/getrf/getrf_test.h"
#include "tests/harness/xerbla_capture.h"

namespace getrf_test {

template <class T>
void argument_checks() {
  const char *name = Prec<T>::xname;
  T a[64];
  int ipiv[8];
  struct Bad { int m, n, lda, param; };
  const Bad bad[] = {{-1, 0, 1, 1}, {-1, -1, 1, 1}, {-5, 3, 0, 1}, {0, -1, 1, 2}, {3, -2, 3, 2},
                     {2, 2, 1, 4}, {0, 0, 0, 4}, {5, 1, 4, 4}, {0, 3, 0, 4}};
  for (const Bad &c : bad) {
    for (int e = 0; e < 64; ++e) a[e] = T(e + 0.5);
    for (int &p : ipiv) p = -3;
    harness::xerbla.clear();
    int info = 12345;
    Prec<T>::cudrop()(&c.m, &c.n, a, &c.lda, ipiv, &info);
    CHECK(harness::xerbla.calls == 1, "%s(m=%d,n=%d,lda=%d): xerbla_ called %d times", name, c.m, c.n, c.lda, harness::xerbla.calls);
    CHECK(harness::xerbla.info == c.param, "%s(m=%d,n=%d,lda=%d): xerbla_ parameter %d, expected %d", name, c.m, c.n,
          c.lda, harness::xerbla.info, c.param);
    CHECK(harness::xerbla.length == 6 && std::strncmp(harness::xerbla.name, name, 6) == 0, "%s: xerbla_ name '%s' length %zu", name,
          harness::xerbla.name, harness::xerbla.length);
    CHECK(info == -c.param, "%s(m=%d,n=%d,lda=%d): INFO %d, expected %d", name, c.m, c.n, c.lda, info, -c.param);
    bool untouched = true;
    for (int e = 0; e < 64; ++e) untouched = untouched && a[e] == T(e + 0.5);
    for (int p : ipiv) untouched = untouched && p == -3;
    CHECK(untouched, "%s(m=%d,n=%d,lda=%d): arrays changed after an illegal argument", name, c.m, c.n, c.lda);
  }
  // Quick returns: M = 0 or N = 0 (legal), INFO = 0, nothing touched, no xerbla.
  const int quick[][3] = {{0, 5, 1}, {5, 0, 5}, {0, 0, 1}, {0, 0, 7}};
  for (const auto &q : quick) {
    for (int e = 0; e < 64; ++e) a[e] = T(e + 0.5);
    for (int &p : ipiv) p = -3;
    harness::xerbla.clear();
    int info = 12345;
    Prec<T>::cudrop()(&q[0], &q[1], a, &q[2], ipiv, &info);
    bool untouched = true;
    for (int e = 0; e < 64; ++e) untouched = untouched && a[e] == T(e + 0.5);
    for (int p : ipiv) untouched = untouched && p == -3;
    CHECK(harness::xerbla.calls == 0 && info == 0 && untouched, "%s(m=%d,n=%d,lda=%d): quick return: xerbla %d, INFO %d, %s",
          name, q[0], q[1], q[2], harness::xerbla.calls, info, untouched ? "untouched" : "arrays changed");
  }
}

template void argument_checks<float>();
template void argument_checks<double>();

}  // namespace getrf_test
