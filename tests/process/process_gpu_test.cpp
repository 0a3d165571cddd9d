// process_gpu_test: cudrop inside a process that forks and runs many threads (forced-GPU mode).
//   --fork     the parent uses the GPU, forks while a second thread is in the middle of GPU
//              calls; the child (which cannot use its parent's CUDA context) calls GEMM and LU
//              and must get right answers without hanging; the parent goes on on the GPU.
//   --threads  16 threads at once, each a mix of sgemm_/dgemm_/sgetrf_/dgetrf_/spotrf_/dpotrf_
//              with random shapes, transposes and padded leading dimensions: every result right,
//              every call on the GPU, none fallen back.
// Exit 77 (skipped) without a usable GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/check.h"
#include "tests/harness/gpu.h"
#include "tests/harness/lapack.h"
#include "tests/harness/rng.h"

namespace {

template <class T> constexpr const char *prec_name = std::is_same_v<T, float> ? "s" : "d";

// Each returns an empty string when the result is right, else what was wrong.
std::atomic<long> calls_made{0};

template <class T> bool gemm_right(Rng &rng, int m, int n, int k, char *why) {
  const char ta = "NTC"[rng.below(3)], tb = "NTC"[rng.below(3)];
  const int ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m, rb = tb == 'N' ? k : n, cb = tb == 'N' ? n : k;
  const int lda = ra + int(rng.below(3)), ldb = rb + int(rng.below(3)), ldc = m + int(rng.below(3));
  std::vector<T> a(size_t(lda) * ca), b(size_t(ldb) * cb), c(size_t(ldc) * n);
  for (T &x : a) x = T(rng.symmetric());
  for (T &x : b) x = T(rng.symmetric());
  for (T &x : c) x = T(rng.symmetric());
  const std::vector<T> c0 = c;
  const T alpha = T(rng.symmetric()), beta = T(rng.symmetric());
  harness::gemm<T>(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc);
  ++calls_made;
  const double eps = std::numeric_limits<T>::epsilon();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) {
      const size_t at = i + size_t(j) * ldc;
      if (i >= m) {
        if (std::memcmp(&c[at], &c0[at], sizeof(T)) != 0) {
          std::snprintf(why, 200, "%sgemm %c%c %dx%dx%d: padding row %d of C changed", prec_name<T>, ta, tb, m, n, k, i);
          return false;
        }
        continue;
      }
      double want = 0, scale = 0;
      for (int l = 0; l < k; ++l) {
        const double x = ta == 'N' ? a[i + size_t(l) * lda] : a[l + size_t(i) * lda];
        const double y = tb == 'N' ? b[l + size_t(j) * ldb] : b[j + size_t(l) * ldb];
        want += x * y;
        scale += std::fabs(x * y);
      }
      want = double(alpha) * want + double(beta) * c0[at];
      scale = std::fabs(double(alpha)) * scale + std::fabs(double(beta) * c0[at]);
      if (!(std::fabs(c[at] - want) <= 16 * eps * (scale + 1e-30) * 2)) {
        std::snprintf(why, 200, "%sgemm %c%c %dx%dx%d: C(%d,%d) = %g, want %g", prec_name<T>, ta, tb, m, n, k, i, j,
                      double(c[at]), want);
        return false;
      }
    }
  return true;
}

// max |P A - L U| / (n |A|_max eps) below a generous bound, INFO = 0 on a random matrix.
template <class T> bool getrf_right(Rng &rng, int n, char *why) {
  const int lda = n + int(rng.below(3));
  std::vector<T> a(size_t(lda) * n);
  for (T &x : a) x = T(rng.symmetric());
  const std::vector<T> a0 = a;
  std::vector<int> ipiv(n);
  int info = -1;
  harness::getrf<T>(&n, &n, a.data(), &lda, ipiv.data(), &info);
  ++calls_made;
  if (info != 0) {
    std::snprintf(why, 200, "%sgetrf n=%d: INFO = %d on a random matrix", prec_name<T>, n, info);
    return false;
  }
  std::vector<double> pa(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) pa[i + size_t(j) * n] = a0[i + size_t(j) * lda];
  for (int i = 0; i < n; ++i) {
    const int p = ipiv[i] - 1;
    if (p < i || p >= n) {
      std::snprintf(why, 200, "%sgetrf n=%d: IPIV(%d) = %d", prec_name<T>, n, i + 1, ipiv[i]);
      return false;
    }
    if (p != i)
      for (int j = 0; j < n; ++j) std::swap(pa[i + size_t(j) * n], pa[p + size_t(j) * n]);
  }
  double worst = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double lu = 0;
      for (int l = 0; l <= std::min(i, j); ++l) {
        const double lil = l == i ? 1.0 : a[i + size_t(l) * lda];
        lu += lil * a[l + size_t(j) * lda];
      }
      worst = std::max(worst, std::fabs(lu - pa[i + size_t(j) * n]));
    }
  const double ratio = worst / (n * std::numeric_limits<T>::epsilon());
  if (!(ratio < 30)) {
    std::snprintf(why, 200, "%sgetrf n=%d: |PA - LU| / (n eps) = %g", prec_name<T>, n, ratio);
    return false;
  }
  return true;
}

// A = B B^T + n I; the factor's |A - L L^T| / (n |A|_max eps) below a bound; the other
// triangle untouched.
template <class T> bool potrf_right(Rng &rng, int n, char *why) {
  const char uplo_text[2] = {rng.below(2) ? 'U' : 'L', '\0'}, uplo = uplo_text[0];
  const int lda = n + int(rng.below(3));
  std::vector<double> b(size_t(n) * n);
  for (double &x : b) x = rng.symmetric();
  std::vector<T> a(size_t(lda) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < lda; ++i) {
      double s = i == j ? n : 0;
      if (i < n)
        for (int l = 0; l < n; ++l) s += b[i + size_t(l) * n] * b[j + size_t(l) * n] / n;
      a[i + size_t(j) * lda] = i < n ? T(s) : T(-7);
    }
  const std::vector<T> a0 = a;
  int info = -1;
  harness::potrf<T>(uplo_text, &n, a.data(), &lda, &info);
  ++calls_made;
  if (info != 0) {
    std::snprintf(why, 200, "%spotrf %c n=%d: INFO = %d on a positive definite matrix", prec_name<T>, uplo, n, info);
    return false;
  }
  auto factor = [&](int i, int j) -> double {  // L(i,j) (= U(j,i)), zero outside the triangle
    if (j > i) return 0;
    return uplo == 'L' ? a[i + size_t(j) * lda] : a[j + size_t(i) * lda];
  };
  double worst = 0, amax = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < lda; ++i) {
      const size_t at = i + size_t(j) * lda;
      const bool stored = i < n && (uplo == 'L' ? i >= j : i <= j);
      if (!stored) {
        if (std::memcmp(&a[at], &a0[at], sizeof(T)) != 0) {
          std::snprintf(why, 200, "%spotrf %c n=%d: A(%d,%d) outside the triangle changed", prec_name<T>, uplo, n, i, j);
          return false;
        }
        continue;
      }
      double llt = 0;
      const int r = uplo == 'L' ? i : j, s = uplo == 'L' ? j : i;  // r >= s
      for (int l = 0; l <= s; ++l) llt += factor(r, l) * factor(s, l);
      worst = std::max(worst, std::fabs(llt - a0[at]));
      amax = std::max(amax, std::fabs(double(a0[at])));
    }
  const double ratio = worst / (n * amax * std::numeric_limits<T>::epsilon());
  if (!(ratio < 30)) {
    std::snprintf(why, 200, "%spotrf %c n=%d: |A - L L^T| / (n |A| eps) = %g", prec_name<T>, uplo, n, ratio);
    return false;
  }
  return true;
}

// One random call of the mix; false and `why` when its result is wrong.
bool one_call(Rng &rng, char *why) {
  const int kind = int(rng.below(6));
  const int size = 40 + int(rng.below(420));
  switch (kind) {
    case 0: return gemm_right<float>(rng, size, 40 + int(rng.below(420)), 1 + int(rng.below(400)), why);
    case 1: return gemm_right<double>(rng, size, 40 + int(rng.below(420)), 1 + int(rng.below(400)), why);
    case 2: return getrf_right<float>(rng, size, why);
    case 3: return getrf_right<double>(rng, size, why);
    case 4: return potrf_right<float>(rng, size, why);
    default: return potrf_right<double>(rng, size, why);
  }
}

int run_threads() {
  constexpr int kThreads = 16, kCallsEach = 12;
  const harness::Counters start = harness::Counters::now();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &wrong] {
      Rng rng(1000 + t);
      char why[200];
      for (int call = 0; call < kCallsEach; ++call)
        if (!one_call(rng, why)) {
          std::printf("thread %d call %d: %s\n", t, call, why);
          ++wrong;
        }
    });
  for (std::thread &thread : threads) thread.join();
  const harness::Counters made = harness::Counters::now().since(start);
  CHECK(wrong.load() == 0, "%d wrong results among %d threads", wrong.load(), kThreads);
  CHECK(made.gpu == long(kThreads) * kCallsEach, "GPU calls %ld, want %d", made.gpu, kThreads * kCallsEach);
  CHECK(made.cpu == 0 && made.fallbacks == 0, "calls on the CPU %ld, fallbacks %ld: want none", made.cpu,
        made.fallbacks);
  std::printf("threads: %d threads x %d calls, %ld on the GPU, %ld wrong\n", kThreads, kCallsEach, made.gpu,
              long(wrong.load()));
  return failures == 0 ? 0 : 1;
}

int run_fork() {
  Rng rng(7);
  char why[200];
  const harness::Counters start = harness::Counters::now();
  CHECK(gemm_right<float>(rng, 300, 300, 300, why), "parent before fork: %s", why);
  CHECK(harness::Counters::now().since(start).gpu == 1, "the parent's first GEMM did not run on the GPU");

  // A second thread keeps the GPU busy while the main thread forks: the child must not
  // inherit a lock held by a thread that does not exist in it.
  std::atomic<bool> stop{false};
  std::atomic<int> busy_wrong{0};
  std::thread busy([&] {
    Rng busy_rng(8);
    char busy_why[200];
    while (!stop.load())
      if (!gemm_right<double>(busy_rng, 400, 400, 400, busy_why)) ++busy_wrong;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  const pid_t child = fork();
  if (child == 0) {
    alarm(120);  // a hang in the child is a failure, not a stuck test
    Rng child_rng(9);
    char child_why[200];
    int bad = 0;
    for (int round = 0; round < 3; ++round) {
      if (!gemm_right<float>(child_rng, 300, 257, 300, child_why)) { std::printf("child: %s\n", child_why); ++bad; }
      if (!gemm_right<double>(child_rng, 513, 300, 200, child_why)) { std::printf("child: %s\n", child_why); ++bad; }
      if (!getrf_right<double>(child_rng, 300, child_why)) { std::printf("child: %s\n", child_why); ++bad; }
      if (!getrf_right<float>(child_rng, 200, child_why)) { std::printf("child: %s\n", child_why); ++bad; }
    }
    std::printf("child: 12 calls, %d wrong\n", bad);
    std::fflush(stdout);
    _exit(bad == 0 ? 0 : 1);
  }
  CHECK(child > 0, "fork failed");
  // The parent goes on on the GPU meanwhile.
  for (int round = 0; round < 3; ++round) {
    CHECK(gemm_right<float>(rng, 400, 333, 300, why), "parent after fork: %s", why);
    CHECK(getrf_right<double>(rng, 300, why), "parent after fork: %s", why);
  }
  stop.store(true);
  busy.join();
  int status = 0;
  if (child > 0) waitpid(child, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s %d",
        WIFEXITED(status) ? "exit status" : "killed by signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  CHECK(busy_wrong.load() == 0, "%d wrong results in the parent's busy thread", busy_wrong.load());
  const harness::Counters made = harness::Counters::now().since(start);
  CHECK(made.cpu == 0 && made.fallbacks == 0, "the parent ran %ld calls on the CPU, %ld fell back: want none",
        made.cpu, made.fallbacks);
  std::printf("fork: parent %ld calls on the GPU, child exit status %d\n", made.gpu,
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (harness::skip_without_gpu("process_gpu_test")) return harness::kSkipped;
  const bool fork_test = argc > 1 && std::strcmp(argv[1], "--fork") == 0;
  const int status = fork_test ? run_fork() : run_threads();
  std::printf("%s: %d checks, %d failures\n", fork_test ? "fork" : "threads", checks, failures);
  return status;
}
