#pragma once
// What the complex factorization tests share: the factor's backward error, the check of where
// the calls ran, and the main() of a LAPACK family's test against the reference.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/clock.h"
#include "tests/harness/gpu.h"
#include "tests/harness/options.h"
#include "tests/harness/reference.h"

namespace harness {

// The BLAS/LAPACK name's precision letter of T (float, double, std::complex<float>,
// std::complex<double>): s, d, c, z.
template <class T>
char precision_letter() {
  if constexpr (std::is_same_v<T, float>) return 's';
  else if constexpr (std::is_same_v<T, double>) return 'd';
  else if constexpr (std::is_same_v<T, std::complex<float>>) return 'c';
  else return 'z';
}

// The options of both tests: the largest order (max_name: --max-n, --max-size), --big (the
// GPU's larger sizes), --prec (c, z or cz), --seed, the placement ones and -v.
struct FactorOptions {
  long max = 300;
  bool big = false;
  std::string prec = "cz";
  uint64_t seed = 1;
  Placement placement;
  bool verbose = false;
  CommandLine &add_to(CommandLine &cl, const char *max_name) {
    return cl.number(max_name, &max).flag("--big", &big).text("--prec", &prec).number("--seed", &seed)
        .placement(&placement).flag("-v", &verbose);
  }
};

// ||A - L op(R)||_1 / ||A||_1 for A (m x n), L (m x k), R (k x n, or n x k with trans 'C':
// R^H), all column-major without padding; the product in long double (small) or by zgemm_
// (cudrop's own: on the GPU in gpu mode). 0 for A = 0 = L op(R), infinite for A = 0 only.
inline double relative_product_error(int m, int n, int k, const std::complex<double> *a,
                                     const std::complex<double> *l, const std::complex<double> *r, char trans) {
  using C = std::complex<double>;
  using L = std::complex<long double>;
  std::vector<C> prod(size_t(m) * n);
  auto rv = [&](int p, int j) { return trans == 'C' ? std::conj(L(r[j + size_t(p) * n])) : L(r[p + size_t(j) * k]); };
  if (double(m) * n * k <= 2e7) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        L s = 0;
        for (int p = 0; p < k; ++p) s += L(l[i + size_t(p) * m]) * rv(p, j);
        prod[i + size_t(j) * m] = C(s);
      }
  } else {
    const C one = 1, zero = 0;
    const char ta = 'N';
    const int ldr = trans == 'C' ? n : k;
    zgemm_(&ta, &trans, &m, &n, &k, &one, l, &m, r, &ldr, &zero, prod.data(), &m, 1, 1);
  }
  double diff = 0, norm = 0;
  for (int j = 0; j < n; ++j) {
    double d = 0, s = 0;
    for (int i = 0; i < m; ++i) {
      d += std::abs(a[i + size_t(j) * m] - prod[i + size_t(j) * m]);
      s += std::abs(a[i + size_t(j) * m]);
    }
    diff = std::max(diff, d);
    norm = std::max(norm, s);
  }
  if (norm == 0) return diff == 0 ? 0 : 1e300;
  return diff / norm;
}

// The calls since `start` ran where `placement` says (factorizations: the routine's calls).
inline void check_placement(const Placement &placement, const Counters &start, long factorizations) {
  const Counters made = Counters::now().since(start);
  std::printf("counters: gpu_calls=%ld cpu_calls=%ld gpu_fallbacks=%ld (%ld factorizations; the residuals' "
              "zgemm_ calls count too)\n", made.gpu, made.cpu, made.fallbacks, factorizations);
  if (placement.expect_gpu)
    CHECK(made.gpu >= factorizations && made.cpu == 0 && made.fallbacks == 0,
          "expected every call on the GPU: gpu_calls=%ld cpu_calls=%ld fallbacks=%ld", made.gpu, made.cpu,
          made.fallbacks);
  if (placement.expect_cpu)
    CHECK(made.gpu == 0 && made.cpu >= factorizations, "expected CPU only: gpu_calls=%ld cpu_calls=%ld", made.gpu,
          made.cpu);
  if (placement.expect_fallback) CHECK(made.fallbacks > 0, "expected GPU attempts to fall back");
}

// main() of a LAPACK family's test program `name` against the reference: its options (opt, with
// --max-n and --special; --prec defaults to sdcz), the skip without a GPU where one is required,
// the reference LAPACK with every routine of `needed`, run_precision(reference, T{}) for each
// precision of --prec (T float, double, std::complex<float>, std::complex<double>), the check of
// where its *calls calls ran, and the summary.
template <class RunPrecision>
int lapack_test_main(int argc, char **argv, const char *name, FactorOptions &opt, bool *special,
                     std::initializer_list<const char *> needed, const long *calls, RunPrecision &&run_precision) {
  const std::string usage =
      std::string(name) + " [--max-n N] [--big] [--prec sdcz] [--seed N] [--special] [placement] [-v]";
  CommandLine cl(usage);
  opt.prec = "sdcz";
  opt.add_to(cl, "--max-n").flag("--special", special);
  if (!cl.parse(argc, argv)) return 2;
  if (skip_without_gpu(name, opt.placement.require_gpu)) return kSkipped;
  const ReferenceLapack ref = load_reference_lapack(needed, true);
  std::printf("%s: cudrop %s, reference: %s\n", name, cudrop_version(), ref.how.c_str());
  if (!ref) {
    std::printf("%s: no reference LAPACK\nFAIL\n", name);
    return 1;
  }
  const Counters start = Counters::now();
  const double t0 = seconds_now();
  if (opt.prec.find('s') != std::string::npos) run_precision(ref, float());
  if (opt.prec.find('d') != std::string::npos) run_precision(ref, double());
  if (opt.prec.find('c') != std::string::npos) run_precision(ref, std::complex<float>());
  if (opt.prec.find('z') != std::string::npos) run_precision(ref, std::complex<double>());
  check_placement(opt.placement, start, *calls);
  std::printf("%s: %d checks, %d failures, %ld calls, %.1f s\n", name, checks, failures, *calls, seconds_now() - t0);
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}

}  // namespace harness
