// gemm_repack_test: impl::gemm_device with a workspace (the shapes it runs on a repacked operand,
// impl::gemm_device_workspace) against the same call without one (the direct kernel).
//
// What must hold, per case (odd sizes, leading dimensions larger than the rows, operands one
// element off 16-byte alignment, beta = 0 with C full of NaN and beta != 0):
//  * the repacked call's C equals the direct call's C bit for bit: the kernel adds over k in
//    the same order for every layout, so repacking may change the speed, never the result;
//  * C outside its m x n view (the rows between m and ldc) is unchanged;
//  * a workspace one byte too small, or none, takes the direct kernel (same bits again);
//  * the shapes that use a workspace are the float A^T B ones from m = 2048 on; double never.
// Exits 77 (skipped) without a usable GPU.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "impl/gemm/gemm.h"
#include "tests/harness/cuda_check.h"

namespace {

int failures = 0;

void expect(bool ok, const char *what) {
  if (!ok) {
    ++failures;
    std::printf("FAIL: %s\n", what);
  }
}

unsigned next(unsigned &state) { return state = state * 1664525u + 1013904223u; }

struct Case {
  int m, n, k, pad;  // pad: extra rows in every leading dimension
  bool misaligned;   // operands start one element into their buffers
  float beta;
};

void run(const Case &c, unsigned seed) {
  using cudrop::impl::gemm_device;
  using cudrop::impl::Status;
  const int m = c.m, n = c.n, k = c.k;
  const size_t lda = size_t(k) + c.pad, ldb = size_t(k) + c.pad, ldc = size_t(m) + c.pad;
  const size_t off = c.misaligned ? 1 : 0;
  const size_t a_count = lda * m + off, b_count = ldb * n + off, c_count = ldc * n + off;
  std::vector<float> a(a_count), b(b_count), c0(c_count);
  unsigned state = seed;
  auto uniform = [&] { return float((next(state) >> 8) / 16777216.0 - 0.5); };
  for (float &v : a) v = uniform();
  for (float &v : b) v = uniform();
  for (float &v : c0) v = c.beta == 0.0f ? std::nanf("") : uniform();

  float *dA, *dB, *dC[3];
  CHECK_CUDA(cudaMalloc(&dA, a_count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dB, b_count * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dA, a.data(), a_count * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB, b.data(), b_count * sizeof(float), cudaMemcpyHostToDevice));
  const size_t work_bytes = cudrop::impl::gemm_device_workspace<float>(cudrop::Op::trans, cudrop::Op::none, m, n, k);
  void *work = nullptr;
  if (work_bytes > 0) CHECK_CUDA(cudaMalloc(&work, work_bytes));
  // 0: repacked (enough workspace), 1: direct (none), 2: direct (one byte short).
  const size_t given[3] = {work_bytes, 0, work_bytes > 0 ? work_bytes - 1 : 0};
  std::vector<float> out[3];
  for (int v = 0; v < 3; ++v) {
    CHECK_CUDA(cudaMalloc(&dC[v], c_count * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dC[v], c0.data(), c_count * sizeof(float), cudaMemcpyHostToDevice));
    const Status s = gemm_device<float>(cudrop::Op::trans, cudrop::Op::none, m, n, k, 1.3f, dA + off, lda, dB + off, ldb, c.beta,
                                        dC[v] + off, ldc, nullptr, cudrop::GemmPart{}, v == 1 ? nullptr : work, given[v]);
    expect(s == Status::ok, "gemm_device returned ok");
    CHECK_CUDA(cudaDeviceSynchronize());
    out[v].resize(c_count);
    CHECK_CUDA(cudaMemcpy(out[v].data(), dC[v], c_count * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(dC[v]));
  }
  char what[160];
  std::snprintf(what, sizeof what, "m=%d n=%d k=%d pad=%d misaligned=%d beta=%g workspace=%zu", m, n, k, c.pad,
                int(c.misaligned), double(c.beta), work_bytes);
  bool same = true, padding_kept = true, finite = true;
  for (int v = 1; v < 3; ++v) same = same && std::memcmp(out[0].data(), out[v].data(), c_count * sizeof(float)) == 0;
  for (size_t j = 0; j < size_t(n); ++j)
    for (size_t i = 0; i < ldc; ++i) {
      const size_t at = off + i + j * ldc;
      if (i >= size_t(m)) padding_kept = padding_kept && std::memcmp(&out[0][at], &c0[at], sizeof(float)) == 0;
      else finite = finite && std::isfinite(out[0][at]);
    }
  std::printf("%s %s\n", same && padding_kept && finite ? "ok  " : "FAIL", what);
  expect(same, "repacked and direct results are the same bits");
  expect(padding_kept, "C's rows past m are untouched");
  expect(finite, "no NaN reaches C (beta = 0 never reads it)");
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(work);
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  using cudrop::impl::gemm_device_workspace;
  expect(gemm_device_workspace<float>(cudrop::Op::trans, cudrop::Op::none, 4096, 4096, 4096) > 0, "float A^T B at 4096 repacks");
  expect(gemm_device_workspace<float>(cudrop::Op::trans, cudrop::Op::none, 2047, 4096, 4096) == 0, "below m = 2048 it does not");
  expect(gemm_device_workspace<double>(cudrop::Op::trans, cudrop::Op::none, 4096, 4096, 4096) == 0, "double never repacks");
  for (const bool ta : {false, true})
    for (const bool tb : {false, true})
      if (ta != true || tb != false)
        expect(gemm_device_workspace<float>(cudrop::Op::transposed_if(ta), cudrop::Op::transposed_if(tb), 4096, 4096,
                                            4096) == 0,
               "only A^T B repacks");

  const Case cases[] = {
      {2048, 128, 128, 0, false, 0.0f},  {2049, 257, 1001, 3, true, -0.7f}, {2051, 1031, 129, 5, false, 0.0f},
      {4097, 333, 777, 1, true, 0.0f},   {2048, 4099, 2050, 0, true, 1.0f}, {3001, 130, 4095, 7, false, -1.3f},
      {2500, 1000, 33, 2, true, 0.25f},  {1000, 1000, 1000, 0, false, 0.0f}};
  unsigned seed = 7;
  for (const Case &c : cases) run(c, seed++);
  std::printf("gemm_repack_test: %d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
