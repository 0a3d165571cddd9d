// reachable_memory_test: callers' arrays the GPU reaches itself (impl::caller_memory): pinned
// (cudaMallocHost), registered (malloc + cudaHostRegister), registered read-only (where the
// device supports it), registered in part only (the rest pageable), managed (cudaMallocManaged,
// last written by a kernel so that its pages are on the GPU). Forced GPU, each call is made
// twice, on copies in plain malloc memory (the staging path) and in the memory under test (the
// direct copies), and both must give the same bits (the same kernels run on the same
// operands) without touching an element outside what the routine writes; every call on the
// GPU, none fallen back. Calls: dgemm_ (beta 0 and not, padded leading dimensions, past the
// small-call path), zgemm_, dgetrf_, dtrsm_, dsyrk_.
// Exit 77 (skipped) without a usable GPU.
#include <cuda_runtime.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cudrop.h"
#include "tests/harness/gpu.h"
#include "tests/harness/rng.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string &what) {
  if (ok) return;
  ++failures;
  std::printf("FAIL %s\n", what.c_str());
}

// An array of `bytes` in one kind of memory, released with it.
class Memory {
 public:
  Memory(const std::string &kind, size_t bytes) : kind_(kind), bytes_(bytes) {
    cudaError_t e = cudaSuccess;
    if (kind == "pinned") e = cudaMallocHost(&p_, bytes);
    else if (kind == "managed") e = cudaMallocManaged(&p_, bytes);
    else {
      // Whole pages of its own: two registrations may not share a page.
      p_ = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      if (kind == "registered") e = cudaHostRegister(p_, bytes, cudaHostRegisterDefault);
      else if (kind == "read-only") e = cudaHostRegister(p_, bytes, cudaHostRegisterReadOnly);
      else if (kind == "half-registered") {
        // The first half's whole pages registered: the array's last byte is pageable.
        const size_t pages = bytes / 2 / 4096;
        if (pages > 0) {
          registered_ = p_;
          e = cudaHostRegister(registered_, pages * 4096, cudaHostRegisterDefault);
        }
      }
    }
    if (e != cudaSuccess || p_ == nullptr) {
      std::printf("%s memory of %zu bytes: %s\n", kind.c_str(), bytes, cudaGetErrorString(e));
      std::exit(1);
    }
  }
  ~Memory() {
    if (kind_ == "pinned") cudaFreeHost(p_);
    else if (kind_ == "managed") cudaFree(p_);
    else {
      if (kind_ == "registered" || kind_ == "read-only" || registered_ != nullptr) cudaHostUnregister(p_);
      std::free(p_);
    }
  }
  Memory(const Memory &) = delete;
  Memory &operator=(const Memory &) = delete;
  template <class T>
  T *as() const { return static_cast<T *>(p_); }
  size_t bytes() const { return bytes_; }

 private:
  std::string kind_;
  size_t bytes_;
  void *p_ = nullptr;
  void *registered_ = nullptr;
};

__global__ void write_bytes(unsigned char *dst, const unsigned char *src, size_t bytes) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < bytes; i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// `values` into memory of `kind`: managed memory written by a kernel (its pages then on the
// GPU, as a CUDA program's are), any other by the host.
void place(const std::string &kind, Memory &m, const void *values) {
  if (kind != "managed") {
    std::memcpy(m.as<void>(), values, m.bytes());
    return;
  }
  void *staged = nullptr;
  if (cudaMalloc(&staged, m.bytes()) != cudaSuccess ||
      cudaMemcpy(staged, values, m.bytes(), cudaMemcpyHostToDevice) != cudaSuccess) {
    std::printf("staging a managed array failed\n");
    std::exit(1);
  }
  write_bytes<<<256, 256>>>(m.as<unsigned char>(), static_cast<const unsigned char *>(staged), m.bytes());
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("writing a managed array failed\n");
    std::exit(1);
  }
  cudaFree(staged);
}

template <class T>
std::vector<T> random_values(Rng &rng, size_t count) {
  std::vector<T> v(count);
  for (T &x : v) {
    if constexpr (std::is_same_v<T, double>) x = rng.symmetric();
    else x = T(rng.symmetric(), rng.symmetric());
  }
  return v;
}

// One call on arrays given in order: `run(pointers)` with every array in plain memory, then in
// `kind`; the arrays' bytes after both must agree, and the call must have run on the GPU.
void compare(const std::string &kind, const std::string &call, const std::vector<std::vector<unsigned char>> &inputs,
             const std::function<void(const std::vector<void *> &)> &run) {
  std::vector<std::vector<unsigned char>> plain = inputs;
  std::vector<void *> plain_ptrs;
  for (auto &v : plain) plain_ptrs.push_back(v.data());
  const harness::Counters before = harness::Counters::now();
  run(plain_ptrs);
  std::vector<std::unique_ptr<Memory>> memory;
  std::vector<void *> ptrs;
  for (const auto &v : inputs) {
    memory.push_back(std::make_unique<Memory>(kind, v.size()));
    place(kind, *memory.back(), v.data());
    ptrs.push_back(memory.back()->as<void>());
  }
  run(ptrs);
  const harness::Counters calls = harness::Counters::now().since(before);
  expect(calls.gpu == 2 && calls.fallbacks == 0,
         kind + " " + call + ": " + std::to_string(calls.gpu) + " GPU calls, " + std::to_string(calls.fallbacks) +
             " fallbacks (want 2, 0)");
  for (size_t i = 0; i < inputs.size(); ++i)
    expect(std::memcmp(plain[i].data(), memory[i]->as<void>(), inputs[i].size()) == 0,
           kind + " " + call + ": array " + std::to_string(i) + " differs from the staged call's");
}

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T> &v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

void run_kind(const std::string &kind, Rng &rng) {
  // dgemm_ 300 x 200 x 250 (past the small-call bytes), leading dimensions padded.
  for (const char *trans : {"NN", "TN", "NT"}) {
    for (double beta : {0.0, 0.75}) {
      const int m = 300, n = 200, k = 250;
      const int ra = trans[0] == 'N' ? m : k, ca = trans[0] == 'N' ? k : m;
      const int rb = trans[1] == 'N' ? k : n, cb = trans[1] == 'N' ? n : k;
      const int lda = ra + 3, ldb = rb + 1, ldc = m + 5;
      const double alpha = -1.25;
      compare(kind, std::string("dgemm ") + trans + (beta == 0 ? " beta 0" : " beta 0.75"),
              {bytes_of(random_values<double>(rng, size_t(lda) * ca)),
               bytes_of(random_values<double>(rng, size_t(ldb) * cb)),
               bytes_of(random_values<double>(rng, size_t(ldc) * n))},
              [&](const std::vector<void *> &p) {
                dgemm_(&trans[0], &trans[1], &m, &n, &k, &alpha, static_cast<double *>(p[0]), &lda,
                       static_cast<double *>(p[1]), &ldb, &beta, static_cast<double *>(p[2]), &ldc, 1, 1);
              });
    }
  }
  {
    using Z = std::complex<double>;
    const int m = 150, n = 170, k = 160, ldb = k + 3, ldc = m + 1;
    const Z alpha(0.5, -1.0), beta(0.25, 0.5);
    compare(kind, "zgemm CN",
            {bytes_of(random_values<Z>(rng, size_t(k + 2) * m)), bytes_of(random_values<Z>(rng, size_t(ldb) * n)),
             bytes_of(random_values<Z>(rng, size_t(ldc) * n))},
            [&](const std::vector<void *> &p) {
              const int ld_ct = k + 2;  // op(A) = A^H: A is k x m
              zgemm_("C", "N", &m, &n, &k, reinterpret_cast<const CUDROP_COMPLEX_DOUBLE *>(&alpha),
                     static_cast<const CUDROP_COMPLEX_DOUBLE *>(p[0]), &ld_ct,
                     static_cast<const CUDROP_COMPLEX_DOUBLE *>(p[1]), &ldb,
                     reinterpret_cast<const CUDROP_COMPLEX_DOUBLE *>(&beta), static_cast<CUDROP_COMPLEX_DOUBLE *>(p[2]),
                     &ldc, 1, 1);
            });
  }
  {
    // dgetrf_ 700 x 650 (CUDROP_GETRF_MIN_N=0 puts it on the GPU), lda padded; IPIV and INFO
    // compared too.
    const int m = 700, n = 650, lda = m + 3;
    std::vector<int> ipiv0(n, -7);
    compare(kind, "dgetrf",
            {bytes_of(random_values<double>(rng, size_t(lda) * n)), bytes_of(ipiv0), bytes_of(std::vector<int>{-7})},
            [&](const std::vector<void *> &p) {
              dgetrf_(&m, &n, static_cast<double *>(p[0]), &lda, static_cast<int *>(p[1]), static_cast<int *>(p[2]));
            });
  }
  {
    // dtrsm_ L L N N 400 x 300 (a unit-dominant triangle), ldb padded.
    const int m = 400, n = 300, lda = m + 2, ldb = m + 4;
    std::vector<double> a = random_values<double>(rng, size_t(lda) * m);
    for (int j = 0; j < m; ++j) a[size_t(j) * lda + j] = m + 1.0;
    const double alpha = 1.5;
    compare(kind, "dtrsm LLNN", {bytes_of(a), bytes_of(random_values<double>(rng, size_t(ldb) * n))},
            [&](const std::vector<void *> &p) {
              dtrsm_("L", "L", "N", "N", &m, &n, &alpha, static_cast<double *>(p[0]), &lda, static_cast<double *>(p[1]),
                     &ldb, 1, 1, 1, 1);
            });
  }
  {
    // dsyrk_ U T, n = 500, k = 300: only the upper triangle of C written.
    const int n = 500, k = 300, lda = k + 1, ldc = n + 2;
    const double alpha = 0.5, beta = -1.0;
    compare(kind, "dsyrk UT",
            {bytes_of(random_values<double>(rng, size_t(lda) * n)), bytes_of(random_values<double>(rng, size_t(ldc) * n))},
            [&](const std::vector<void *> &p) {
              dsyrk_("U", "T", &n, &k, &alpha, static_cast<double *>(p[0]), &lda, &beta, static_cast<double *>(p[1]),
                     &ldc, 1, 1);
            });
  }
}

}  // namespace

int main() {
  if (harness::skip_without_gpu("reachable_memory_test")) return harness::kSkipped;
  int device = 0, read_only = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported, device);
  Rng rng(20261202);
  for (const char *kind : {"pinned", "registered", "read-only", "half-registered", "managed"}) {
    if (std::strcmp(kind, "read-only") == 0 && read_only == 0) {
      std::printf("read-only registrations: not supported by this device, not tested\n");
      continue;
    }
    const int before = failures;
    run_kind(kind, rng);
    std::printf("%s memory: %s\n", kind, failures == before ? "same bits as the staged calls" : "FAILED");
  }
  std::printf("reachable_memory_test: %s\n", failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
