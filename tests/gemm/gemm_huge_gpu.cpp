// gemm_huge_gpu: sgemm_/dgemm_ with a dimension at INT_MAX (2^31 - 1) on the GPU, checked
// against a double-precision reference computed here. Run under CUDROP_MODE=gpu; each call
// must run on the GPU (gpu_calls + 1, no fallback, no CPU call) and be exact.
//
// Cases (arguments, any number, in order):
//   s-tn  sgemm T,N  m = n = 1, k = 2^31 - 1   (A, B: k x 1; C = alpha A^T B + beta C)
//   s-nn  sgemm N,N  m = 1, n = 2^31 - 1, k = 1 (B, C: 1 x n)
//   d-tn  dgemm T,N  m = n = 1, k = 2^31 - 1
// Under CUDROP_GPU_MEM_LIMIT=6G the float cases are tiled (k in chunks, C in column blocks);
// without a cap they run in core: the kernels' k loop up to INT_MAX and the pipelined path's
// column panels up to INT_MAX.
//
// Exact comparison: every element is an integer in -2..2, alpha = 2, beta = 0.5, so every
// partial sum in any order is an integer far below 2^24 (a random walk of 2^31 steps of
// standard deviation about 2 stays within a few times 10^5) and float arithmetic is exact.
// A call that skips a chunk, a tile or a block, or reads past k, gives a different C.
// Host memory: 16 GiB for the float cases, 32 GiB for d-tn (one case at a time). A case that
// cannot have its memory is not run: the program then exits 77 (ctest's skip code) after saying
// so, unless another case failed (exit 1).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "cudrop.h"
#include "tests/harness/gpu.h"
#include "tests/harness/lapack.h"

namespace {

constexpr int kHuge = INT_MAX;
constexpr uint64_t kSeedA = 11, kSeedB = 22, kSeedC = 33;

// Element i of a stream: an integer in -2..2 from a hash of (seed, i), so that the check can
// recompute any element without storing the original.
inline int value_at(uint64_t seed, uint64_t i) {
  uint64_t z = (seed << 40) + i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return int(z % 5) - 2;
}

unsigned thread_count() { return std::max(1u, std::min(32u, std::thread::hardware_concurrency())); }

// Runs body(thread, begin, end) over [0, count) in one contiguous range per thread.
template <class Body>
void parallel_ranges(size_t count, Body body) {
  const unsigned threads = thread_count();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const size_t begin = count * t / threads, end = count * (t + 1) / threads;
    pool.emplace_back([=] { body(t, begin, end); });
  }
  for (std::thread &th : pool) th.join();
}

// A host array of the stream (seed), or null when host memory is short.
template <class T>
using HostArray = std::unique_ptr<T[], void (*)(void *)>;
template <class T>
HostArray<T> filled(size_t count, uint64_t seed) {
  T *data = static_cast<T *>(std::malloc(count * sizeof(T)));
  if (data != nullptr)
    parallel_ranges(count, [=](unsigned, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) data[i] = T(value_at(seed, i));
    });
  return HostArray<T>(data, std::free);
}

// What became of a case: checked and right, checked and wrong, or not run (host memory short).
enum class Outcome { pass, fail, skipped };

// The two operands of a case, `count` elements each; false (the case is skipped, after
// saying so) when host memory is short.
template <class T>
bool allocated(const char *name, const HostArray<T> &x, const HostArray<T> &y, size_t count) {
  if (x != nullptr && y != nullptr) return true;
  std::printf("%s: SKIP: %zu GiB of host memory not available, the case is not run\n", name,
              2 * count * sizeof(T) >> 30);
  return false;
}

// One call; true when it ran on the GPU alone (one more GPU call, no fallback, no CPU call).
template <class T>
bool call_on_gpu(const char *name, const char *ta, const char *tb, int m, int n, int k, T alpha, const T *a,
                 int lda, const T *b, int ldb, T beta, T *c, int ldc) {
  const harness::Counters before = harness::Counters::now();
  harness::gemm<T>(ta, tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  const harness::Counters made = harness::Counters::now().since(before);
  const bool ok = made.gpu == 1 && made.fallbacks == 0 && made.cpu == 0;
  if (!ok)
    std::printf("FAIL %s: not a GPU call: gpu_calls +%ld, gpu_fallbacks +%ld, cpu_calls +%ld (want +1, +0, +0)\n",
                name, made.gpu, made.fallbacks, made.cpu);
  return ok;
}

// C(1x1) = alpha A^T B + beta C, A and B k x 1 with k = INT_MAX.
template <class T>
Outcome case_tn(const char *name) {
  const size_t k = kHuge;
  const HostArray<T> a = filled<T>(k, kSeedA), b = filled<T>(k, kSeedB);
  if (!allocated(name, a, b, k)) return Outcome::skipped;
  // The reference, exactly (integers), in double.
  std::vector<long long> partial(thread_count(), 0);
  parallel_ranges(k, [&](unsigned t, size_t begin, size_t end) {
    long long sum = 0;
    for (size_t i = begin; i < end; ++i) sum += (long long)a[i] * (long long)b[i];
    partial[t] = sum;
  });
  double dot = 0;
  for (long long p : partial) dot += double(p);
  const T alpha = T(2), beta = T(0.5), c0 = T(value_at(kSeedC, 0) == 0 ? 1 : value_at(kSeedC, 0));
  const double want = 2.0 * dot + 0.5 * double(c0);
  T c = c0;
  bool ok = call_on_gpu<T>(name, "T", "N", 1, 1, kHuge, alpha, a.get(), kHuge, b.get(), kHuge, beta, &c, 1);
  if (double(c) != want) {
    std::printf("FAIL %s: C = %.17g, want %.17g (A^T B = %.17g, C0 = %g)\n", name, double(c), want, dot, double(c0));
    ok = false;
  }
  std::printf("%s: sgemm/dgemm T,N 1 x 1 x %d: C = %.17g (want %.17g): %s\n", name, kHuge, double(c), want,
              ok ? "ok" : "FAIL");
  return ok ? Outcome::pass : Outcome::fail;
}

// C(1 x n) = alpha A B + beta C, A 1 x 1, B 1 x n with n = INT_MAX.
template <class T>
Outcome case_nn(const char *name) {
  const T a = T(-2), alpha = T(2), beta = T(0.5);
  const size_t n = kHuge;
  const HostArray<T> b = filled<T>(n, kSeedB), c = filled<T>(n, kSeedC);
  if (!allocated(name, b, c, n)) return Outcome::skipped;
  bool ok = call_on_gpu<T>(name, "N", "N", 1, kHuge, 1, alpha, &a, 1, b.get(), 1, beta, c.get(), 1);
  // Every element against alpha a b_j + beta c0_j, c0_j recomputed from its seed.
  std::vector<long long> wrong(thread_count(), 0), first(thread_count(), -1);
  parallel_ranges(n, [&](unsigned t, size_t begin, size_t end) {
    long long bad = 0, at = -1;
    for (size_t j = begin; j < end; ++j) {
      const double want = 2.0 * -2.0 * double(value_at(kSeedB, j)) + 0.5 * double(value_at(kSeedC, j));
      if (double(c[j]) != want) {
        if (at < 0) at = (long long)j;
        ++bad;
      }
    }
    wrong[t] = bad;
    first[t] = at;
  });
  long long bad = 0, at = -1;
  for (size_t t = 0; t < wrong.size(); ++t) {
    bad += wrong[t];
    if (at < 0) at = first[t];
  }
  if (bad != 0) {
    std::printf("FAIL %s: %lld of %zu elements of C wrong, the first at column %lld: %.9g, want %.9g\n", name, bad, n,
                at, double(c[at]), 2.0 * -2.0 * value_at(kSeedB, at) + 0.5 * value_at(kSeedC, at));
    ok = false;
  }
  std::printf("%s: sgemm/dgemm N,N 1 x %d x 1: %lld wrong elements: %s\n", name, kHuge, bad, ok ? "ok" : "FAIL");
  return ok ? Outcome::pass : Outcome::fail;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s s-tn|s-nn|d-tn ...\n", argv[0]);
    return 2;
  }
  if (harness::skip_without_gpu("gemm_huge_gpu")) return harness::kSkipped;
  const char *mode = std::getenv("CUDROP_MODE");
  if (mode == nullptr || std::strcmp(mode, "gpu") != 0)
    std::printf("gemm_huge_gpu: CUDROP_MODE is not gpu: the calls may stay on the CPU and fail the check\n");
  const char *cap = std::getenv("CUDROP_GPU_MEM_LIMIT");
  std::printf("gemm_huge_gpu: CUDROP_GPU_MEM_LIMIT=%s\n", cap != nullptr ? cap : "(none)");
  std::fflush(stdout);
  int failed = 0, skipped = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string which = argv[i];
    Outcome outcome;
    if (which == "s-tn") outcome = case_tn<float>("s-tn");
    else if (which == "s-nn") outcome = case_nn<float>("s-nn");
    else if (which == "d-tn") outcome = case_tn<double>("d-tn");
    else {
      std::fprintf(stderr, "unknown case %s\n", which.c_str());
      return 2;
    }
    failed += outcome == Outcome::fail;
    skipped += outcome == Outcome::skipped;
    std::fflush(stdout);
  }
  if (failed != 0) {
    std::printf("gemm_huge_gpu: FAIL (%d case(s) failed, %d not run)\n", failed, skipped);
    return 1;
  }
  if (skipped != 0) {
    std::printf("gemm_huge_gpu: SKIP: %d of %d case(s) not run for want of host memory\n", skipped, argc - 1);
    return harness::kSkipped;
  }
  std::printf("gemm_huge_gpu: PASS\n");
  return 0;
}
