// The CPU power loop without memory for its work vector: INFO = -1010 (docs/power.md), nothing
// else of the caller's written, and the process goes on. The address space is capped
// (RLIMIT_AS) just above what the process holds, after mapping the caller's arrays for an
// order of 2^27 without backing them (untouched pages cost nothing), so that the loop's
// vector of 2^27 elements (512 MiB or 1 GiB) cannot be had. Run with CUDROP_MODE=cpu.
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include "include/cudrop.h"

namespace {

constexpr int kOrder = 1 << 27;
constexpr int kOutOfMemory = -1010;
int failures = 0;

void* unbacked(size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// Bytes of address space the process holds now (/proc/self/statm: pages).
long long address_space() {
  long long pages = -1;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lld", &pages) != 1) pages = -1;
    std::fclose(f);
  }
  return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE);
}

template <class T>
void expect_untouched(const char *what, int info, T lambda, int maxit, const T *x) {
  const bool ok = info == kOutOfMemory && lambda == T(7) && maxit == 5 && x[0] == T(0) && x[kOrder - 1] == T(0);
  if (!ok) {
    ++failures;
    std::printf("FAIL %s: info=%d (expected %d), lambda=%g, maxit=%d, x[0]=%g\n", what, info, kOutOfMemory,
                double(lambda), maxit, double(x[0]));
  } else {
    std::printf("ok   %s: INFO = %d, nothing else written\n", what, info);
  }
}

}  // namespace

int main() {
  // Everything the entries start on their first call, started before the cap.
  {
    const int one = 1, init = 1;
    int maxit = 1, info = 0;
    double a = 2, x = 0, lambda = 0, tol = 0;
    cudrop_dpower_(&one, &a, &one, &lambda, &x, &init, &tol, &maxit, &info);
    if (info != 1 || lambda != 2) {
      std::printf("FAIL warm-up call: info=%d lambda=%g\n", info, lambda);
      return 1;
    }
  }
  // ROWPTR all zero (BASE 0): a valid structure with no entries. X: 2^27 doubles.
  auto *rowptr = static_cast<int *>(unbacked((size_t(kOrder) + 1) * sizeof(int)));
  auto *x = unbacked(size_t(kOrder) * sizeof(double));
  const long long held = address_space();
  if (rowptr == nullptr || x == nullptr || held < 0) {
    std::printf("SKIP: cannot map the arrays or read the address space\n");
    return 77;
  }
  const rlimit cap{rlim_t(held + (64LL << 20)), rlim_t(held + (64LL << 20))};
  if (setrlimit(RLIMIT_AS, &cap) != 0) {
    std::printf("SKIP: cannot cap the address space\n");
    return 77;
  }
  const int n = kOrder, base = 0, init = 1;
  float one_entry_s = 1;
  double one_entry_d = 1;
  {
    int maxit = 5, info = 0;
    double lambda = 7, tol = 0;
    cudrop_dcsrpower_(&n, &one_entry_d, rowptr, rowptr, &base, &lambda, static_cast<double *>(x), &init, &tol,
                      &maxit, &info);
    expect_untouched("dcsrpower", info, lambda, maxit, static_cast<const double *>(x));
  }
  {
    int maxit = 5, info = 0;
    float lambda = 7, tol = 0;
    cudrop_scsrpower_(&n, &one_entry_s, rowptr, rowptr, &base, &lambda, static_cast<float *>(x), &init, &tol,
                      &maxit, &info);
    expect_untouched("scsrpower", info, lambda, maxit, static_cast<const float *>(x));
  }
  {
    // Dense: A is never read once the vector cannot be had (one element stands for it).
    int maxit = 5, info = 0;
    double lambda = 7, tol = 0;
    cudrop_dpower_(&n, &one_entry_d, &n, &lambda, static_cast<double *>(x), &init, &tol, &maxit, &info);
    expect_untouched("dpower", info, lambda, maxit, static_cast<const double *>(x));
  }
  std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
  return failures == 0 ? 0 : 1;
}
