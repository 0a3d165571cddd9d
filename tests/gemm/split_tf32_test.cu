// split_tf32_test: impl::split_tf32_gemm_device (CUDROP_SGEMM=3xtf32's kernel) against a double
// reference and against cudrop's FP32 kernel (impl::gemm_device without the setting) on the same
// inputs. Exits 77 (skipped) without a usable GPU.
//
// What must hold, per case (every transpose pair; odd sizes 1, 7, 33, 129 x 257, 1000 + 7, ...;
// leading dimensions larger than the rows; operands one element off 16-byte alignment;
// beta = 0 with C full of NaN, and beta != 0; uniform data and data over a wide exponent range):
//  * on a device and build with sm_90a code it runs (ran = true); elsewhere it declines
//    (ran = false) and leaves C alone;
//  * norm-wise, as tests/gemm/gemm_accuracy.cpp bounds sgemm_: max|C - Cref| /
//    ((|alpha| k maxA maxB + |beta| maxC0) eps) < 3. One TF32 product (10-bit mantissa), or a
//    lost small part, gives 40 to 10^4 here;
//  * entry-wise, |C - Cref| / ((|alpha| (|A||B|) + |beta C0|) eps) no larger than the FP32
//    kernel's worst entry times 2, plus 8;
//  * C outside its m x n view (the rows between m and ldc, guards before and after) unchanged;
//  * Inf and NaN in A or B: every entry of C is finite, +Inf, -Inf or NaN exactly where the FP32
//    kernel's is, and the finite ones are accurate;
//  * GemmStore::lower_tiles: every entry on and below the diagonal is right; above it, C holds
//    either its old value or the right one; lower/upper: that triangle right, the other one
//    exactly as it was (NaN where beta = 0).
// Run it with CUDROP_TEST_SPLIT_TF32_PASS_K=64 (k cut into passes) as well:
// tests/gemm/CMakeLists.txt does.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "impl/gemm/gemm.h"
#include "tests/harness/cuda_check.h"
#include "impl/gemm/gemm_split_tf32.h"

namespace {

int failures = 0;
int sm = 0;

void expect(bool ok, const char *what, const char *label) {
  if (!ok) {
    ++failures;
    std::printf("FAIL: %s (%s)\n", what, label);
  }
}

unsigned next(unsigned &state) { return state = state * 1664525u + 1013904223u; }
float uniform(unsigned &state) { return float(next(state) >> 8) / float(1 << 24) * 2.0f - 1.0f; }

enum class Data { uniform, wide, nonfinite };

struct Case {
  int m, n, k, pad;
  bool ta, tb, misaligned;
  float alpha, beta;
  Data data;
  cudrop::GemmStore store;  // lower_tiles: the part above C's diagonal may hold anything; lower/upper: untouched
};

int classify(float x) { return std::isnan(x) ? 3 : std::isinf(x) ? (x > 0 ? 1 : 2) : 0; }

// A matrix of rows x cols at offset `off` in a buffer with leading dimension ld and guards.
struct HostMatrix {
  int rows, cols, ld, off;
  std::vector<float> buf;
  HostMatrix(int r, int c, int pad, bool misaligned) : rows(r), cols(c), ld(r + pad), off(misaligned ? 1 : 0) {
    buf.assign(size_t(ld) * c + off + 8, 0.0f);
  }
  float &at(int i, int j) { return buf[off + size_t(i) + size_t(j) * ld]; }
};

float *upload(const HostMatrix &h) {
  float *d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, h.buf.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d, h.buf.data(), h.buf.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

void run(const Case &c, unsigned seed) {
  char label[200];
  std::snprintf(label, sizeof label, "%c%c m=%d n=%d k=%d pad=%d%s alpha=%g beta=%g %s%s", c.ta ? 'T' : 'N',
                c.tb ? 'T' : 'N', c.m, c.n, c.k, c.pad, c.misaligned ? " misaligned" : "", c.alpha, c.beta,
                c.data == Data::uniform ? "uniform" : c.data == Data::wide ? "wide" : "inf/nan",
                c.store == cudrop::GemmStore::lower_tiles ? " lower_tiles"
                : c.store == cudrop::GemmStore::lower     ? " lower"
                : c.store == cudrop::GemmStore::upper     ? " upper"
                                                          : "");
  unsigned state = seed;
  auto value = [&]() {
    float u = uniform(state);
    if (c.data == Data::wide) u = std::ldexp(u, int(next(state) % 41) - 20);
    return u;
  };
  HostMatrix A(c.ta ? c.k : c.m, c.ta ? c.m : c.k, c.pad, c.misaligned);
  HostMatrix B(c.tb ? c.n : c.k, c.tb ? c.k : c.n, c.pad, c.misaligned);
  HostMatrix C(c.m, c.n, c.pad, c.misaligned);
  for (float &x : A.buf) x = value();
  for (float &x : B.buf) x = value();
  for (float &x : C.buf) x = c.beta == 0.0f ? NAN : value();
  if (c.data == Data::nonfinite) {
    A.at(0, 0) = INFINITY;
    A.at(A.rows - 1, A.cols - 1) = -INFINITY;
    B.at(B.rows / 2, B.cols / 2) = NAN;
    if (B.rows > 1) B.at(1, 0) = INFINITY;
  }
  auto a = [&](int i, int l) { return c.ta ? A.at(l, i) : A.at(i, l); };
  auto b = [&](int l, int j) { return c.tb ? B.at(j, l) : B.at(l, j); };

  float *dA = upload(A), *dB = upload(B), *dC = upload(C), *dC2 = upload(C);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  // Half the cases hand it the workspace (as gemm_device's host path does), half let it take its own.
  void *work = nullptr;
  const size_t work_bytes = c.misaligned ? cudrop::impl::split_tf32_workspace(c.m, c.n, c.k) : 0;
  if (work_bytes > 0) CHECK_CUDA(cudaMalloc(&work, work_bytes));
  bool ran = false;
  const cudrop::Status s = cudrop::impl::split_tf32_gemm_device(
      cudrop::Op::transposed_if(c.ta), cudrop::Op::transposed_if(c.tb), c.m, c.n, c.k, c.alpha, dA + A.off, A.ld,
      dB + B.off, B.ld, c.beta, dC + C.off, C.ld, stream, cudrop::GemmPart(c.store), work, work_bytes, &ran);
  expect(s == cudrop::Status::ok, "status ok", label);
  const cudrop::Status s2 = cudrop::impl::gemm_device<float>(
      cudrop::Op::transposed_if(c.ta), cudrop::Op::transposed_if(c.tb), c.m, c.n, c.k, c.alpha, dA + A.off, A.ld,
      dB + B.off, B.ld, c.beta, dC2 + C.off, C.ld, stream);
  expect(s2 == cudrop::Status::ok, "FP32 kernel status ok", label);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<float> got(C.buf.size()), fp32(C.buf.size());
  CHECK_CUDA(cudaMemcpy(got.data(), dC, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(fp32.data(), dC2, fp32.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaStreamDestroy(stream));
  for (float *p : {dA, dB, dC, dC2}) CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaFree(work));

  if (sm != 90) {
    expect(!ran, "declines off sm_90", label);
    expect(std::memcmp(got.data(), C.buf.data(), got.size() * sizeof(float)) == 0, "C untouched when declined", label);
    return;
  }
  expect(ran, "runs on sm_90a", label);
  if (!ran) return;

  double max_a = 0, max_b = 0, max_c0 = 0;
  for (int i = 0; i < A.rows; ++i)
    for (int j = 0; j < A.cols; ++j) max_a = std::max(max_a, double(std::fabs(A.at(i, j))));
  for (int i = 0; i < B.rows; ++i)
    for (int j = 0; j < B.cols; ++j) max_b = std::max(max_b, double(std::fabs(B.at(i, j))));
  if (c.beta != 0.0f)
    for (int i = 0; i < c.m; ++i)
      for (int j = 0; j < c.n; ++j) max_c0 = std::max(max_c0, double(std::fabs(C.at(i, j))));
  const double eps = FLT_EPSILON;
  const double norm_denominator = (std::fabs(c.alpha) * c.k * max_a * max_b + std::fabs(c.beta) * max_c0) * eps;
  double norm_ratio = 0, entry_ratio = 0, entry_ratio_fp32 = 0;
  bool classes_match = true, lower_right = true, upper_ok = true;
  std::vector<double> col(c.k);
  for (int j = 0; j < c.n; ++j) {
    for (int i = 0; i < c.m; ++i) {
      double sum = 0, abs_sum = 0;
      for (int l = 0; l < c.k; ++l) {
        const double p = double(a(i, l)) * double(b(l, j));
        sum += p;
        abs_sum += std::fabs(p);
      }
      const double c0 = c.beta == 0.0f ? 0.0 : double(C.at(i, j));
      const double ref = c.alpha * sum + c.beta * c0;
      const size_t at = C.off + size_t(i) + size_t(j) * C.ld;
      const double err = std::fabs(double(got[at]) - ref), err_fp32 = std::fabs(double(fp32[at]) - ref);
      const double entry_denominator = (std::fabs(c.alpha) * abs_sum + std::fabs(c.beta * c0)) * eps;
      const bool needed = c.store == cudrop::GemmStore::all || (c.store == cudrop::GemmStore::upper ? i <= j : i >= j);
      const bool untouched = c.store == cudrop::GemmStore::lower || c.store == cudrop::GemmStore::upper;
      if (c.data == Data::nonfinite) {
        if (needed) classes_match &= classify(got[at]) == classify(fp32[at]);
        if (classify(fp32[at]) != 0 || !std::isfinite(entry_denominator)) continue;
      }
      const bool right = entry_denominator > 0 ? err <= 64 * (c.k + 2) * entry_denominator : err == 0;
      if (!needed) {
        upper_ok &= got[at] == C.buf[at] || (std::isnan(got[at]) && std::isnan(C.buf[at])) || (!untouched && right);
        continue;
      }
      lower_right &= right;
      if (norm_denominator > 0) norm_ratio = std::max(norm_ratio, err / norm_denominator);
      if (entry_denominator > 0) {
        entry_ratio = std::max(entry_ratio, err / entry_denominator);
        entry_ratio_fp32 = std::max(entry_ratio_fp32, err_fp32 / entry_denominator);
      }
      if (std::isnan(got[at]) && c.data != Data::nonfinite) norm_ratio = INFINITY;
    }
  }
  // Outside the view: padding rows and guards.
  for (size_t at = 0; at < got.size(); ++at) {
    const long long rel = (long long)at - C.off;
    const bool inside = rel >= 0 && rel < (long long)C.ld * c.n && rel % C.ld < c.m;
    if (!inside && std::memcmp(&got[at], &C.buf[at], sizeof(float)) != 0) {
      expect(false, "C outside the view unchanged", label);
      break;
    }
  }
  if (c.data != Data::wide) expect(norm_ratio < 3.0, "norm-wise error bound", label);
  expect(entry_ratio <= 2 * entry_ratio_fp32 + 8, "entry-wise error within the FP32 kernel's", label);
  expect(classes_match, "Inf/NaN where the FP32 kernel has them", label);
  expect(lower_right, "every needed entry right", label);
  expect(upper_ok, "entries outside the part old (or right, lower_tiles)", label);
  if (std::getenv("SPLIT_TF32_TEST_VERBOSE") != nullptr || norm_ratio >= 3.0)
    std::printf("%-70s norm %.3f  entry %.2f (fp32 kernel %.2f)\n", label, norm_ratio, entry_ratio, entry_ratio_fp32);
}

}  // namespace

int main(int argc, char **argv) {
  // --quick: only the small shapes (compute-sanitizer runs). --finite: no Inf/NaN cases, i.e. not
  // the kernel's scalar path, whose ordinary shared-memory reads racecheck cannot pair with the
  // mbarrier that orders them before the next bulk copy (it reports them as WAR hazards).
  bool quick = false, finite = false;
  for (int i = 1; i < argc; ++i) {
    quick |= std::strcmp(argv[i], "--quick") == 0;
    finite |= std::strcmp(argv[i], "--finite") == 0;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  sm = prop.major * 10 + prop.minor;
  std::printf("device %s (sm_%d)\n", prop.name, sm);
  const int shapes[][3] = {{1, 1, 1}, {7, 7, 7}, {33, 17, 65}, {129, 257, 31}, {1007, 1000, 1007},
                           {300, 600, 2000}, {256, 256, 96}, {5, 700, 300}};
  unsigned seed = 1;
  int cases = 0;
  for (const auto &sh : shapes) {
    if (quick && double(sh[0]) * sh[1] * sh[2] > 3e6) continue;
    for (int t = 0; t < 4; ++t) {
      for (int variant = 0; variant < 2; ++variant) {
        Case c{sh[0], sh[1], sh[2], variant ? 3 : 0, bool(t & 1), bool(t & 2), variant == 1,
               variant ? -1.5f : 1.0f, variant ? 0.0f : 0.75f, variant ? Data::wide : Data::uniform, cudrop::GemmStore::all};
        run(c, seed++);
        ++cases;
      }
    }
  }
  // Inf and NaN inputs, and the parts of C.
  for (int t = 0; t < 4; ++t) {
    if (!finite)
      run(Case{65, 300, 129, 1, bool(t & 1), bool(t & 2), true, 1.0f, 0.5f, Data::nonfinite, cudrop::GemmStore::all}, seed++);
    if (quick) continue;
    run(Case{600, 600, 200, 2, bool(t & 1), bool(t & 2), t == 3, 1.0f, t == 0 ? 0.0f : 1.0f, Data::uniform,
             cudrop::GemmStore::lower_tiles},
        seed++);
    // SYRK's parts: exactly one triangle written, the other left as it was (NaN where beta = 0).
    run(Case{333, 333, 150, 1, bool(t & 1), bool(t & 2), t == 1, -0.5f, t == 2 ? 0.0f : 1.5f, Data::uniform,
             t % 2 ? cudrop::GemmStore::upper : cudrop::GemmStore::lower},
        seed++);
    cases += (finite ? 0 : 1) + (quick ? 0 : 2);
  }
  std::printf("%d cases, %d failures\n", cases, failures);
  return failures == 0 ? 0 : 1;
}
