// plan_test: the host-side logic of the GPU Cholesky, without a GPU (impl/potrf/potrf_plan.h).
//  1. potrf_schedule: for many orders and blockings, executing its steps on the host (Panel =
//     factor the 64-wide diagonal block and solve the panel below, Update = the GEMM) gives
//     the Cholesky factor; every step touches only columns < its `needs`; Update sources lie
//     left of their targets; groups end where INFO can be looked at.
//  2. The failure path: run the steps on a matrix that is not positive definite the way the
//     GPU does (the failing panel writes nothing, later panels do nothing, GEMMs go on), then
//     keep columns before the failing block, replay SPOTRF2 on its diagonal block and leave
//     the rest: the result must be what reference LAPACK's DPOTRF leaves (a double model of
//     it here, and the system's liblapack.so.3 when it can be loaded).
//  3. potrf_replay_lower against the model's SPOTRF2 and the reference DPOTRF2/SPOTRF2
//     (liblapack.so.3) directly, bit for bit.
//  4. The triangle transfers (piece planning and the host copy-out), on simulated buffers,
//     and the steps issued as the host interface issues them, between upload pieces.
// Exit 0 when every check passed, 1 when one failed, 77 (ctest's skip code) when none failed but
// no reference LAPACK could be loaded: the comparisons of 2 and 3 with it were not made.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "impl/potrf/potrf_plan.h"
#include "tests/potrf/lanes.h"
#include "tests/potrf/model.h"
#include "tests/harness/check.h"

using cudrop::impl::kPotrfNb;
using cudrop::impl::potrf_replay_lower;
using cudrop::impl::potrf_schedule;
using cudrop::impl::PotrfBlocking;
using cudrop::impl::PotrfStep;
using potrf_lanes::lanes_race_free;

namespace {


struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double uniform() {  // [-1, 1)
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
};

// A = L0 L0^T with L0 lower, diagonal in [1, 2], off-diagonal in [-0.3, 0.3): well conditioned.
std::vector<double> spd(int n, uint64_t seed, std::vector<double> *l0_out = nullptr) {
  Rng rng(seed);
  std::vector<double> l0(size_t(n) * n, 0.0), a(size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) l0[i + size_t(j) * n] = i == j ? 1.5 + 0.5 * rng.uniform() : 0.3 * rng.uniform();
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      double sum = 0;
      for (int k = 0; k <= j; ++k) sum += l0[i + size_t(k) * n] * l0[j + size_t(k) * n];
      a[i + size_t(j) * n] = a[j + size_t(i) * n] = sum;
    }
  if (l0_out) *l0_out = l0;
  return a;
}

// The steps on the host, as the GPU runs them. gpu_info: the GPU's INFO word.
void run_steps(const std::vector<PotrfStep> &steps, int n, double *a, int lda, int *gpu_info) {
  *gpu_info = 0;
  auto A = [&](long i, long j) -> double & { return a[i + size_t(j) * lda]; };
  for (const PotrfStep &st : steps) {
    if (st.kind == PotrfStep::Update) {
      for (int j = st.c0; j < st.c1; ++j)
        for (int i = st.c0; i < n; ++i) {
          double sum = 0;
          for (int k = st.k0; k < st.k1; ++k) sum += A(i, k) * A(j, k);
          A(i, j) -= sum;
        }
      continue;
    }
    if (*gpu_info != 0) continue;  // the panel kernel returns at once
    const int j0 = st.c0, jb = st.c1 - st.c0;
    std::vector<double> d(size_t(jb) * jb);
    for (int j = 0; j < jb; ++j)
      for (int i = j; i < jb; ++i) d[i + size_t(j) * jb] = A(j0 + i, j0 + j);
    int fail = -1;
    for (int k = 0; k < jb && fail < 0; ++k) {
      const double akk = d[k + size_t(k) * jb];
      if (!(akk > 0)) { fail = k; break; }
      const double s = std::sqrt(akk);
      d[k + size_t(k) * jb] = s;
      for (int i = k + 1; i < jb; ++i) d[i + size_t(k) * jb] /= s;
      for (int j = k + 1; j < jb; ++j)
        for (int i = j; i < jb; ++i) d[i + size_t(j) * jb] -= d[i + size_t(k) * jb] * d[j + size_t(k) * jb];
    }
    if (fail >= 0) { *gpu_info = j0 + fail + 1; continue; }
    for (int r = j0 + jb; r < n; ++r)
      for (int k = 0; k < jb; ++k) {
        double x = A(r, j0 + k);
        for (int l = 0; l < k; ++l) x -= A(r, j0 + l) * d[k + size_t(l) * jb];
        A(r, j0 + k) = x / d[k + size_t(k) * jb];
      }
    for (int j = 0; j < jb; ++j)
      for (int i = j; i < jb; ++i) A(j0 + i, j0 + j) = d[i + size_t(j) * jb];
  }
}

// What potrf_host does with the GPU's result: the caller's array `out` (holding the
// original) receives the factored columns, or on failure columns before the failing block
// plus the replayed block. Lower only (upper is the same on the transpose).
int finish_like_host(int n, const double *dev, int ldd, int gpu_info, double *out, int ld) {
  if (gpu_info == 0) {
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) out[i + size_t(j) * ld] = dev[i + size_t(j) * ldd];
    return 0;
  }
  const int column = gpu_info - 1, j0 = column / kPotrfNb * kPotrfNb, jb = std::min(kPotrfNb, n - j0);
  std::vector<double> block(size_t(jb) * jb);
  for (int j = 0; j < jb; ++j)
    for (int i = 0; i < jb; ++i) block[i + size_t(j) * jb] = dev[(j0 + i) + size_t(j0 + j) * ldd];
  const int info = potrf_replay_lower<double>(jb, block.data(), jb, column - j0);
  for (int j = 0; j < j0; ++j)
    for (int i = j; i < n; ++i) out[i + size_t(j) * ld] = dev[i + size_t(j) * ldd];
  for (int j = 0; j < jb; ++j)
    for (int i = j; i < jb; ++i) out[(j0 + i) + size_t(j0 + j) * ld] = block[i + size_t(j) * jb];
  return j0 + info;
}

// Reference LAPACK DPOTRF (lower), written out in double (tests/potrf/model.h).
int reference_dpotrf_lower(int n, double *a, int lda) { return potrf_model::potrf_lower<double>(n, a, lda); }

using dpotrf_fn = void (*)(const char *, const int *, double *, const int *, int *, size_t);
using spotrf_fn = void (*)(const char *, const int *, float *, const int *, int *, size_t);
dpotrf_fn sys_dpotrf = nullptr, sys_dpotrf2 = nullptr;
spotrf_fn sys_spotrf2 = nullptr;

void load_system_lapack() {
  // RTLD_DEEPBIND: its BLAS calls go to its own dependencies; nothing of cudrop is loaded here anyway.
  const char *names[] = {"/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3", "liblapack.so.3"};
  for (const char *name : names) {
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (h == nullptr) continue;
    if (dlsym(h, "openblas_get_config") != nullptr) continue;  // not the reference's algorithm
    sys_dpotrf = reinterpret_cast<dpotrf_fn>(dlsym(h, "dpotrf_"));
    sys_dpotrf2 = reinterpret_cast<dpotrf_fn>(dlsym(h, "dpotrf2_"));
    sys_spotrf2 = reinterpret_cast<spotrf_fn>(dlsym(h, "spotrf2_"));
    if (sys_dpotrf) {
      std::printf("reference LAPACK: %s\n", name);
      return;
    }
  }
  std::printf("reference LAPACK: not found (liblapack.so.3, Debian's liblapack3): the comparisons with it are "
              "not made, the test reports skipped\n");
}

double max_diff_lower(int n, const double *x, int ldx, const double *y, int ldy) {
  double d = 0;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) d = std::max(d, std::fabs(x[i + size_t(j) * ldx] - y[i + size_t(j) * ldy]));
  return d;
}

void test_schedule() {
  const int sizes[] = {1, 2, 3, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 300, 511, 513, 700};
  const PotrfBlocking blockings[] = {{256, 512, 0},   {64, 64, 0},         {128, 100, 0},
                                     {256, 512, 256}, {64, 192, 128},      {256, 300, 10000},
                                     {192, 512, 384}, {256, 512, 0, false}, {128, 100, 256, false}};
  for (int n : sizes) {
    const std::vector<double> a0 = spd(n, 7 + n);
    std::vector<double> ref = a0;
    const int ref_info = reference_dpotrf_lower(n, ref.data(), n);
    CHECK(ref_info == 0, "n=%d: the reference model failed on an SPD matrix (info %d)", n, ref_info);
    for (const PotrfBlocking &b : blockings) {
      const std::vector<PotrfStep> steps = potrf_schedule(n, b);
      // Structure: needs, sources left of targets, the last step is a group end.
      bool ok = !steps.empty() && steps.back().group_end;
      int panels = 0;
      for (const PotrfStep &st : steps) {
        ok = ok && st.c0 < st.c1 && st.c1 <= n && st.c1 <= st.needs && st.needs <= n;
        if (st.kind == PotrfStep::Update) ok = ok && st.k0 < st.k1 && st.k1 <= st.c0;
        else {
          ok = ok && st.c0 % kPotrfNb == 0 && st.c1 - st.c0 == std::min(kPotrfNb, n - st.c0);
          ++panels;
        }
      }
      CHECK(ok, "n=%d outer=%d strip=%d left=%d: malformed steps", n, b.outer, b.strip, b.left_cols);
      int ri = -1, rj = -1;
      CHECK(lanes_race_free(steps, n, &ri, &rj), "n=%d outer=%d strip=%d left=%d lookahead=%d: steps %d and %d may "
            "run at once and touch the same elements", n, b.outer, b.strip, b.left_cols, b.lookahead, ri, rj);
      int panel_lane = 0;
      for (const PotrfStep &st : steps) panel_lane += st.lane;
      CHECK(b.lookahead || panel_lane == 0, "n=%d: look-ahead off but steps on the panel lane", n);
      CHECK(panels == (n + kPotrfNb - 1) / kPotrfNb, "n=%d: %d panels", n, panels);
      std::vector<double> dev = a0;
      int gpu_info = -1;
      run_steps(steps, n, dev.data(), n, &gpu_info);
      CHECK(gpu_info == 0, "n=%d outer=%d strip=%d left=%d: info %d", n, b.outer, b.strip, b.left_cols, gpu_info);
      const double diff = max_diff_lower(n, dev.data(), n, ref.data(), n);
      CHECK(diff < 1e-12 * (n + 10), "n=%d outer=%d strip=%d left=%d: |L - Lref| = %.3g", n, b.outer, b.strip,
            b.left_cols, diff);
    }
  }
}

// Not positive definite from column `k` (0-based) on: pivot k becomes negative, or (zero) the
// whole row/column k is zero, or (nan) A(k,k) is NaN.
std::vector<double> failing(int n, int k, int kind, uint64_t seed) {
  std::vector<double> l0;
  std::vector<double> a = spd(n, seed, &l0);
  if (kind == 0) {
    a[k + size_t(k) * n] -= 1.5 * l0[k + size_t(k) * n] * l0[k + size_t(k) * n];
  } else if (kind == 1) {
    for (int i = 0; i < n; ++i) a[k + size_t(i) * n] = a[i + size_t(k) * n] = 0;
  } else {
    a[k + size_t(k) * n] = std::nan("");
  }
  return a;
}

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

void test_failure_state() {
  const int sizes[] = {1, 5, 64, 65, 130, 300, 520};
  const PotrfBlocking blockings[] = {{256, 512, 0}, {128, 100, 256}, {64, 64, 10000}};
  for (int n : sizes) {
    const int columns[] = {0, n / 2, n - 1, std::min(n - 1, 63), std::min(n - 1, 64), std::min(n - 1, 96)};
    for (int k : columns)
      for (int kind = 0; kind < 3; ++kind) {
        const std::vector<double> a0 = failing(n, k, kind, 100 + n + k);
        std::vector<double> model = a0;
        const int model_info = reference_dpotrf_lower(n, model.data(), n);
        CHECK(model_info == k + 1, "n=%d k=%d kind=%d: reference model info %d", n, k, kind, model_info);
        if (sys_dpotrf) {
          std::vector<double> sys = a0;
          int sys_info = -1;
          const int nn = n;
          sys_dpotrf("L", &nn, sys.data(), &nn, &sys_info, 1);
          CHECK(sys_info == model_info, "n=%d k=%d kind=%d: liblapack info %d, model %d", n, k, kind, sys_info,
                model_info);
          // Same operations in the same order: the model must match bit for bit (NaN as NaN).
          long differ = 0;
          for (size_t e = 0; e < sys.size(); ++e)
            if (!same_bits(sys[e], model[e]) && !(std::isnan(sys[e]) && std::isnan(model[e]))) ++differ;
          CHECK(differ == 0, "n=%d k=%d kind=%d: the model differs from liblapack in %ld elements", n, k, kind,
                differ);
        }
        for (const PotrfBlocking &b : blockings) {
          std::vector<double> dev = a0, out = a0;
          int gpu_info = -1;
          run_steps(potrf_schedule(n, b), n, dev.data(), n, &gpu_info);
          CHECK(gpu_info == k + 1, "n=%d k=%d kind=%d: gpu info %d", n, k, kind, gpu_info);
          const int info = finish_like_host(n, dev.data(), n, gpu_info, out.data(), n);
          CHECK(info == model_info, "n=%d k=%d kind=%d: info %d, reference %d", n, k, kind, info, model_info);
          // Equal to the reference's state up to rounding; untouched parts bit for bit.
          const int j0 = k / kPotrfNb * kPotrfNb, jb = std::min(kPotrfNb, n - j0);
          double diff = 0;
          long moved = 0;
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
              const size_t e = i + size_t(j) * n;
              const bool computed = i >= j && (j < j0 || (j < j0 + jb && i < j0 + jb));
              if (!computed) {
                if (!same_bits(out[e], a0[e])) ++moved;
              } else if (!(std::isnan(out[e]) && std::isnan(model[e]))) {
                diff = std::max(diff, std::fabs(out[e] - model[e]));
              }
            }
          CHECK(moved == 0, "n=%d k=%d kind=%d: %ld elements outside the computed part changed", n, k, kind, moved);
          CHECK(diff < 1e-12 * (n + 10), "n=%d k=%d kind=%d outer=%d: |A - Aref| = %.3g", n, k, kind, b.outer, diff);
        }
      }
  }
}

// Every failing block the replay is tried on: n = 1..64, failing first, at a third, half way
// and last, each kind of failure; body(n, k, kind, block).
template <class Body>
void for_each_failing_block(uint64_t seed, Body body) {
  for (int n = 1; n <= 64; ++n)
    for (int k : {0, n / 3, n / 2, n - 1})
      for (int kind = 0; kind < 3; ++kind) body(n, k, kind, failing(n, k, kind, seed + 64 * n + k));
}

// Elements that differ bit for bit (any NaN equals any NaN).
template <class T>
long differing(const std::vector<T> &x, const std::vector<T> &y) {
  long count = 0;
  for (size_t e = 0; e < x.size(); ++e)
    if (std::memcmp(&x[e], &y[e], sizeof(T)) != 0 && !(std::isnan(x[e]) && std::isnan(y[e]))) ++count;
  return count;
}

// The replay against the reference's own xPOTRF2, on SSYRK-updated-like blocks that fail.
void test_replay_vs_lapack() {
  for_each_failing_block(555, [](int n, int k, int kind, const std::vector<double> &a0) {
    std::vector<double> mine = a0, model = a0;
    const int info = potrf_replay_lower<double>(n, mine.data(), n, -1);
    const int model_info = potrf_model::potrf2_lower<double>(n, model.data(), n);
    const long differ = differing(mine, model);
    CHECK(info == model_info && info == k + 1, "replay n=%d k=%d: info %d, model %d", n, k, info, model_info);
    CHECK(differ == 0, "replay n=%d k=%d kind=%d: %ld elements differ from the model", n, k, kind, differ);
  });
  if (!sys_dpotrf2 || !sys_spotrf2) {
    std::printf("replay vs DPOTRF2/SPOTRF2: skipped (no reference LAPACK)\n");
    return;
  }
  for_each_failing_block(999, [](int n, int k, int kind, const std::vector<double> &a0) {
    std::vector<double> mine = a0, theirs = a0;
    const int info = potrf_replay_lower<double>(n, mine.data(), n, -1);
    int their_info = -1;
    sys_dpotrf2("L", &n, theirs.data(), &n, &their_info, 1);
    const long differ = differing(mine, theirs);
    CHECK(info == their_info && info == k + 1, "dpotrf2 n=%d k=%d: info %d, reference %d", n, k, info, their_info);
    CHECK(differ == 0, "dpotrf2 n=%d k=%d kind=%d: %ld elements differ", n, k, kind, differ);

    std::vector<float> fm(a0.begin(), a0.end()), ft(a0.begin(), a0.end());
    const int finfo = potrf_replay_lower<float>(n, fm.data(), n, -1);
    int ftheir = -1;
    sys_spotrf2("L", &n, ft.data(), &n, &ftheir, 1);
    const long fdiffer = differing(fm, ft);
    CHECK(finfo == ftheir, "spotrf2 n=%d k=%d: info %d, reference %d", n, k, finfo, ftheir);
    CHECK(fdiffer == 0, "spotrf2 n=%d k=%d kind=%d: %ld elements differ", n, k, kind, fdiffer);
  });
  // A forced failure stops at that column even though its pivot is fine.
  for (int n : {1, 7, 64})
    for (int forced = 0; forced < n; forced += 3) {
      std::vector<double> a = spd(n, 5 + n);
      CHECK(potrf_replay_lower<double>(n, a.data(), n, forced) == forced + 1, "forced %d of %d", forced, n);
    }
}

// The transfers, simulated with host arrays for the device and the staging buffers: the
// upload pieces bring exactly the lower-layout columns they promise (after the 'U' mirror),
// and the download pieces write exactly the triangle's columns 0..cols_end-1 of the caller's
// array and nothing else, for staging buffers from tiny (direct pieces) to roomy.
void test_transfers() {
  using cudrop::impl::copy_piece_out;
  using cudrop::impl::download_pieces;
  using cudrop::impl::TrianglePiece;
  using cudrop::impl::triangle_rows;
  using cudrop::impl::upload_piece;
  auto copy_columns = [](void *dst, size_t dst_ld, const void *src, size_t src_ld, size_t row_bytes, size_t cols) {
    for (size_t j = 0; j < cols; ++j)
      std::memcpy(static_cast<char *>(dst) + j * dst_ld, static_cast<const char *>(src) + j * src_ld, row_bytes);
  };
  const double sentinel = -7.25e10;
  for (int n : {1, 2, 5, 63, 64, 65, 130, 300, 517})
    for (bool upper : {false, true})
      for (size_t staging : {size_t(8), size_t(64), size_t(1000), size_t(4096), size_t(65536), size_t(1) << 22}) {
        const int lda = n + 3, ldd = n + 5;
        std::vector<double> a(size_t(lda) * n + 7), dev(size_t(ldd) * n, sentinel);
        for (size_t e = 0; e < a.size(); ++e) a[e] = double(e) + 0.5;
        // Upload.
        int arrived = 0, pieces = 0;
        bool ok = true;
        while (arrived < n && pieces < 100000) {
          int last = arrived;
          const TrianglePiece p = upload_piece(upper, n, arrived, sizeof(double), staging, &last);
          ok = ok && last > arrived && p.r0 == arrived && p.c0 == arrived;
          ok = ok && (p.direct == (p.rows * p.cols * sizeof(double) > staging));
          std::vector<double> stage(p.rows * p.cols);
          copy_columns(stage.data(), p.rows * sizeof(double), &a[p.r0 + size_t(p.c0) * lda], lda * sizeof(double),
                       p.rows * sizeof(double), p.cols);
          copy_columns(&dev[p.r0 + size_t(p.c0) * ldd], ldd * sizeof(double), stage.data(), p.rows * sizeof(double),
                       p.rows * sizeof(double), p.cols);
          if (upper)  // the mirror kernel: lower columns arrived..last-1 from the upper rows
            for (int j = arrived; j < last; ++j)
              for (int i = j + 1; i < n; ++i) dev[i + size_t(j) * ldd] = dev[j + size_t(i) * ldd];
          arrived = last;
          ++pieces;
          // Every arrived lower-layout column holds the referenced triangle's values.
          for (int j = 0; j < arrived; ++j)
            for (int i = j; i < n; ++i) {
              const double want = upper ? a[j + size_t(i) * lda] : a[i + size_t(j) * lda];
              if (dev[i + size_t(j) * ldd] != want) ok = false;
            }
        }
        CHECK(ok && arrived == n, "upload n=%d upper=%d staging=%zu: wrong pieces", n, upper, staging);
        // Download: the device holds "results" (a different pattern) in the lower layout.
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) dev[i + size_t(j) * ldd] = i >= j ? 1e6 + i + 1e3 * j : sentinel;
        if (upper)  // the mirror back: the upper layout from the lower one
          for (int j = 0; j < n; ++j)
            for (int i = j + 1; i < n; ++i) dev[j + size_t(i) * ldd] = dev[i + size_t(j) * ldd];
        // The factored part of columns 0..cols_end-1, sent back in one to three regions (as
        // finished outer panels go back early, then the rest).
        for (int cols_end : {n, n / 2, 1})
          for (int regions : {1, 2, 3}) {
            std::vector<double> out = a;
            long covered = 0;
            for (int r = 0; r < regions; ++r) {
              const int c0 = cols_end * r / regions, c1 = cols_end * (r + 1) / regions;
              for (const TrianglePiece &p : download_pieces(upper, n, c0, c1, sizeof(double), staging)) {
                covered += long(p.cols);
                if (p.direct) {
                  for (int j = p.c0; j < p.c0 + int(p.cols); ++j) {
                    int r0 = 0, r1 = 0;
                    triangle_rows(upper, n, j, &r0, &r1);
                    std::memcpy(&out[r0 + size_t(j) * lda], &dev[r0 + size_t(j) * ldd],
                                size_t(r1 - r0) * sizeof(double));
                  }
                  continue;
                }
                std::vector<double> stage(p.rows * p.cols);
                ok = ok && p.rows * p.cols * sizeof(double) <= staging;
                copy_columns(stage.data(), p.rows * sizeof(double), &dev[p.r0 + size_t(p.c0) * ldd],
                             ldd * sizeof(double), p.rows * sizeof(double), p.cols);
                copy_piece_out(upper, n, p, stage.data(), out.data(), size_t(lda), 7, copy_columns);
              }
            }
            long wrong = 0;
            for (size_t e = 0; e < out.size(); ++e) {
              const long i = long(e % lda), j = long(e / lda);
              const bool in = j < cols_end && i < n && (upper ? i <= j : i >= j);
              const double want = in ? dev[i + size_t(j) * ldd] : a[e];
              if (std::memcmp(&out[e], &want, sizeof(double)) != 0) ++wrong;
            }
            CHECK(ok && covered == cols_end && wrong == 0,
                  "download n=%d upper=%d staging=%zu cols_end=%d regions=%d: %ld wrong", n, upper, staging, cols_end,
                  regions, wrong);
          }
      }
}

// The host interface's order of issue: each step right after the upload pieces it needs, the
// pieces written into a device array that starts as NaN (the GPU may run an upload any time
// after it is issued; this is the latest it can run, the full-arrival test above the
// earliest), 'U' through the mirror. The factor must come out the same.
void test_streaming() {
  using cudrop::impl::TrianglePiece;
  using cudrop::impl::upload_piece;
  for (int n : {65, 300, 517})
    for (bool upper : {false, true})
      for (const PotrfBlocking &b : {PotrfBlocking{256, 512, 256}, PotrfBlocking{64, 100, 1000}, PotrfBlocking{}}) {
        const std::vector<double> a0 = spd(n, 31 + n);
        std::vector<double> ref = a0;
        reference_dpotrf_lower(n, ref.data(), n);
        const int lda = n, ldd = n + 1;
        // The caller's array: the referenced triangle, NaN in the other one.
        std::vector<double> a(size_t(lda) * n, std::nan(""));
        for (int j = 0; j < n; ++j)
          for (int i = j; i < n; ++i) (upper ? a[j + size_t(i) * lda] : a[i + size_t(j) * lda]) = a0[i + size_t(j) * n];
        std::vector<double> dev(size_t(ldd) * n, std::nan(""));
        int arrived = 0, gpu_info = 0;
        for (const PotrfStep &st : potrf_schedule(n, b)) {
          while (arrived < st.needs) {
            int last = arrived;
            const TrianglePiece p = upload_piece(upper, n, arrived, sizeof(double), 40 * n * sizeof(double), &last);
            for (size_t c = 0; c < p.cols; ++c)
              for (size_t r = 0; r < p.rows; ++r)
                dev[(p.r0 + r) + (p.c0 + c) * ldd] = a[(p.r0 + r) + (p.c0 + c) * lda];
            if (upper)
              for (int j = arrived; j < last; ++j)
                for (int i = j + 1; i < n; ++i) dev[i + size_t(j) * ldd] = dev[j + size_t(i) * ldd];
            arrived = last;
          }
          int step_info = 0;
          run_steps({st}, n, dev.data(), ldd, &step_info);
          if (st.kind == PotrfStep::Panel && step_info != 0) gpu_info = step_info;
        }
        std::vector<double> got(size_t(n) * n, 0.0);
        for (int j = 0; j < n; ++j)
          for (int i = j; i < n; ++i) got[i + size_t(j) * n] = dev[i + size_t(j) * ldd];
        const double diff = max_diff_lower(n, got.data(), n, ref.data(), n);
        CHECK(gpu_info == 0 && diff < 1e-12 * (n + 10), "streaming n=%d upper=%d left=%d: info %d, |L - Lref| = %.3g",
              n, upper, b.left_cols, gpu_info, diff);
      }
}

}  // namespace

int main() {
  load_system_lapack();
  test_schedule();
  test_failure_state();
  test_replay_vs_lapack();
  test_transfers();
  test_streaming();
  std::printf("plan_test: %d checks, %d failures\n", checks, failures);
  if (failures != 0) return 1;
  if (!sys_dpotrf || !sys_dpotrf2 || !sys_spotrf2) {
    std::printf("plan_test: SKIP: no reference LAPACK with DPOTRF, DPOTRF2 and SPOTRF2: its comparisons not made\n");
    return 77;  // ctest: skipped
  }
  return 0;
}
