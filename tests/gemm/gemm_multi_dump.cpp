// gemm_multi_dump write FILE | compare FILE [--bitwise-max N]: a fixed set of sgemm_/dgemm_ calls
// (odd sizes, every transpose pair, LDA/LDB/LDC above the minimum, beta 0 over a C full of NaN,
// beta 1, C split by columns and by rows), the same data on every run. `write` keeps each
// result in FILE; `compare` makes the calls again (in another process, under other settings:
// CUDROP_DEVICES) and compares with FILE call by call: every result within the norm-wise bound
// of gemm_accuracy (ratio < 3 against the written one, which that test checked), and the calls
// up to --bitwise-max in every dimension (the ones no pipeline cuts into k chunks) equal bit for
// bit. tests/gemm/gemm_multi_gpu.sh runs it on one GPU, then on all.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/rng.h"

namespace {

struct Shape {
  int m, n, k;
  char ta, tb;
  double beta;
};

// Columns split (m <= n) and rows split (m > n); non-pipelined sizes first, then sizes whose
// regions are pipelined on each device.
const Shape kShapes[] = {
    {257, 385, 129, 'N', 'N', 0.0},   {383, 1001, 517, 'T', 'N', 1.0},  {1001, 383, 263, 'N', 'T', 0.0},
    {641, 769, 1025, 'T', 'T', -1.3}, {129, 1537, 77, 'N', 'N', 0.5},   {1537, 200, 300, 'T', 'N', 0.0},
    {999, 999, 999, 'N', 'T', 1.0},   {3001, 2817, 1999, 'N', 'N', 0.0}, {2049, 4097, 1500, 'T', 'N', -1.0},
    {5000, 1100, 2300, 'N', 'T', 0.0},
};

template <class T>
void gemm_call(const char *ta, const char *tb, const int *m, const int *n, const int *k, const T *alpha, const T *a,
               const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc);
template <>
void gemm_call<float>(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
                      const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
                      const int *ldc) {
  sgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}
template <>
void gemm_call<double>(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
                       const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
                       const int *ldc) {
  dgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}

// The m x n result of one call (LDC padding dropped), on data seeded by the call's index.
template <class T>
std::vector<T> run(const Shape &s, int index, double *scale) {
  Rng rng(1000 + index);
  const int rows_a = s.ta == 'N' ? s.m : s.k, cols_a = s.ta == 'N' ? s.k : s.m;
  const int rows_b = s.tb == 'N' ? s.k : s.n, cols_b = s.tb == 'N' ? s.n : s.k;
  const int lda = rows_a + 3, ldb = rows_b + 1, ldc = s.m + 5;
  std::vector<T> a(size_t(lda) * cols_a), b(size_t(ldb) * cols_b), c(size_t(ldc) * s.n);
  for (T &x : a) x = T(rng.symmetric());
  for (T &x : b) x = T(rng.symmetric());
  for (T &x : c) x = s.beta == 0 ? T(NAN) : T(rng.symmetric());
  const T alpha = T(0.75), beta = T(s.beta);
  gemm_call<T>(&s.ta, &s.tb, &s.m, &s.n, &s.k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc);
  // gemm_accuracy's denominator: |alpha| k max|A| max|B| + |beta| max|C0|, the entries < 1.
  *scale = 0.75 * s.k + std::fabs(s.beta);
  std::vector<T> out(size_t(s.m) * s.n);
  for (int j = 0; j < s.n; ++j) std::memcpy(&out[size_t(j) * s.m], &c[size_t(j) * ldc], sizeof(T) * s.m);
  return out;
}

template <class T>
void one_precision(FILE *file, bool writing, int bitwise_max, const char *name) {
  const double eps = sizeof(T) == 4 ? FLT_EPSILON : DBL_EPSILON;
  for (int i = 0; i < int(sizeof kShapes / sizeof kShapes[0]); ++i) {
    const Shape &s = kShapes[i];
    double scale = 0;
    const std::vector<T> c = run<T>(s, i, &scale);
    if (writing) {
      CHECK(std::fwrite(c.data(), sizeof(T), c.size(), file) == c.size(), "write failed");
      continue;
    }
    std::vector<T> kept(c.size());
    CHECK(std::fread(kept.data(), sizeof(T), kept.size(), file) == kept.size(), "%s call %d: file too short", name, i);
    size_t differing = 0, nans = 0;
    double worst = 0;
    for (size_t e = 0; e < c.size(); ++e) {
      if (std::isnan(double(c[e]))) ++nans;
      if (std::memcmp(&c[e], &kept[e], sizeof(T)) != 0) ++differing;
      worst = std::max(worst, std::fabs(double(c[e]) - double(kept[e])) / (scale * eps));
    }
    const bool bitwise = s.m <= bitwise_max && s.n <= bitwise_max && s.k <= bitwise_max;
    std::printf("%s %c%c m=%d n=%d k=%d beta=%g: %zu of %zu entries differ, ratio %.3g%s\n", name, s.ta, s.tb, s.m,
                s.n, s.k, s.beta, differing, c.size(), worst, bitwise ? " (bitwise expected)" : "");
    CHECK(nans == 0, "%s call %d: %zu NaN", name, i, nans);
    CHECK(worst < 3.0, "%s call %d: ratio %.3g against the other run", name, i, worst);
    if (bitwise) CHECK(differing == 0, "%s call %d: %zu entries not bit for bit equal", name, i, differing);
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 3 || (std::strcmp(argv[1], "write") != 0 && std::strcmp(argv[1], "compare") != 0)) {
    std::fprintf(stderr, "usage: gemm_multi_dump write|compare FILE [--bitwise-max N]\n");
    return 2;
  }
  const bool writing = std::strcmp(argv[1], "write") == 0;
  const int bitwise_max = argc > 4 && std::strcmp(argv[3], "--bitwise-max") == 0 ? std::atoi(argv[4]) : 1100;
  FILE *file = std::fopen(argv[2], writing ? "wb" : "rb");
  if (file == nullptr) {
    std::perror(argv[2]);
    return 2;
  }
  one_precision<float>(file, writing, bitwise_max, "sgemm");
  one_precision<double>(file, writing, bitwise_max, "dgemm");
  std::fclose(file);
  std::printf("gemm_multi_dump %s: %d checks, %d failures\n", argv[1], checks, failures);
  return failures == 0 ? 0 : 1;
}
