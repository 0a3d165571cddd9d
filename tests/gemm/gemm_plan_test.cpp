// gemm_plan_test: the out-of-core GEMM tiling plan (impl::plan_gemm_tiles, pure host code)
// and the CUDROP_GPU_MEM_LIMIT parser, without a GPU.
//
// For many shapes, transposes, element sizes and caps, every plan must
//  * fit: its device buffers together (device_bytes) never exceed the cap, and each chunk of
//    A and B and each block of C the executor will put in a buffer fits that buffer with the
//    plan's leading dimension (padded to 128 bytes, so copies stay aligned);
//  * be in core exactly when A, B and C fit whole, and tile otherwise;
//  * cover C exactly once with its blocks (gemm_tile_blocks) and k exactly once with its chunks;
//  * use whole dimensions or multiples of 128, C blocks no taller than max_block_rows;
//  * exist whenever the cap is at least 1 MiB (the smallest tiles need well under that);
//  * all of that up to m, n, k = INT_MAX (counts in 64 bits, never negative, nothing thrown).
#include <climits>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "impl/gemm/gemm.h"
#include "route/dispatch.h"

namespace {

using cudrop::impl::GemmBlock;
using cudrop::impl::GemmTilePlan;
using cudrop::impl::gemm_padded_ld;
using cudrop::impl::gemm_tile_blocks;
using cudrop::impl::plan_gemm_tiles;

long g_checks = 0, g_failures = 0;

#define EXPECT(cond, ...)                                  \
  do {                                                     \
    ++g_checks;                                            \
    if (!(cond)) {                                         \
      ++g_failures;                                        \
      if (g_failures <= 40) {                              \
        std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        std::printf(__VA_ARGS__);                          \
        std::printf("\n");                                 \
      }                                                    \
    }                                                      \
  } while (0)

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  long below(long n) { return long(next() % uint64_t(n)); }
};

void test_parse() {
  struct Case {
    const char *text;
    bool ok;
    size_t bytes;
  };
  const Case cases[] = {
      {"300M", true, size_t(300) << 20},   {"2G", true, size_t(2) << 30},
      {"64m", true, size_t(64) << 20},     {"1048576", true, 1048576},
      {"512K", true, 512 * 1024},          {"1.5G", true, size_t(3) << 29},
      {"300MB", true, size_t(300) << 20},  {"300MiB", true, size_t(300) << 20},
      {"2gib", true, size_t(2) << 30},     {"1T", true, size_t(1) << 40},
      {"0", true, 0},                      {"", false, 0},
      {"M", false, 0},                     {"300X", false, 0},
      {"-5M", false, 0},                   {"12 M", false, 0},
      {"nan", false, 0},                   {"inf", false, 0},
  };
  for (const Case &c : cases) {
    size_t bytes = 12345;
    const bool ok = cudrop::env::parse_byte_size(c.text, &bytes);
    EXPECT(ok == c.ok, "parse_byte_size(\"%s\") returned %d", c.text, int(ok));
    if (ok && c.ok) EXPECT(bytes == c.bytes, "parse_byte_size(\"%s\") = %zu, want %zu", c.text, bytes, c.bytes);
  }
}

bool whole_or_128(int size, int dim) { return size == dim || (size % 128 == 0 && size < dim); }

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Plans with more blocks than this are checked by their arithmetic only, not block by block
// (their C could not exist in memory anyway: every block but the borders is >= 128 x 128).
constexpr long long kMaxListedBlocks = 1 << 20;

// Every property of one plan; returns false when the plan does not fit at all.
bool check_plan(bool ta, bool tb, int m, int n, int k, size_t es, bool reads_c, size_t cap,
                size_t max_rows, bool verbose = false) {
  char what[200];
  std::snprintf(what, sizeof what, "ta=%d tb=%d m=%d n=%d k=%d es=%zu reads_c=%d cap=%zu max_rows=%zu",
                int(ta), int(tb), m, n, k, es, int(reads_c), cap, max_rows);
  GemmTilePlan p;
  try {
    p = plan_gemm_tiles(cudrop::Op::transposed_if(ta), cudrop::Op::transposed_if(tb), m, n, k, es, reads_c, cap,
                        max_rows);
  } catch (const std::exception &e) {
    EXPECT(false, "plan_gemm_tiles threw %s: %s", e.what(), what);
    return false;
  }
  // (Saturating: at dimensions near INT_MAX these products pass 2^64.)
  const unsigned __int128 whole_exact =
      (unsigned __int128)gemm_padded_ld(ta ? k : m, es) * size_t(ta ? m : k) * es +
      (unsigned __int128)gemm_padded_ld(tb ? n : k, es) * size_t(tb ? k : n) * es +
      (unsigned __int128)gemm_padded_ld(m, es) * size_t(n) * es;
  const size_t whole = whole_exact > SIZE_MAX ? SIZE_MAX : size_t(whole_exact);
  if (verbose)
    std::printf("  %-70s -> %s mb=%d nb=%d kb=%d blocks %lldx%lld chunks %lld %s %s, %.1f MiB, traffic %.2fx\n",
                what, p.in_core ? "in core" : p.fits ? "tiled" : "NO FIT", p.mb, p.nb, p.kb, p.mblocks,
                p.nblocks, p.kchunks, p.rows_outer ? "rows-outer" : "cols-outer",
                p.c_resident ? "C-resident" : "C-rotating", p.device_bytes / 1048576.0,
                p.traffic_bytes / ((double(m) * k + double(k) * n + double(m) * n * (reads_c ? 2 : 1)) * es));
  if (!p.fits) {
    EXPECT(cap < (size_t(1) << 20), "no plan fits although cap >= 1 MiB: %s", what);
    EXPECT(whole > cap, "no plan although everything fits whole: %s", what);
    return false;
  }
  EXPECT(p.in_core == (whole <= cap), "in_core=%d but whole=%zu: %s", int(p.in_core), whole, what);
  EXPECT(p.device_bytes <= cap, "device_bytes %zu > cap: %s", p.device_bytes, what);
  EXPECT((unsigned __int128)p.device_bytes == (unsigned __int128)p.a_bytes * p.a_buffers +
                                                  (unsigned __int128)p.b_bytes * p.b_buffers +
                                                  (unsigned __int128)p.c_bytes * p.c_buffers,
         "device_bytes is not the sum of the buffers: %s", what);
  if (p.in_core) {
    EXPECT(p.device_bytes == whole, "in-core plan bytes %zu != %zu: %s", p.device_bytes, whole, what);
    return true;
  }
  // Sizes: whole dimensions or multiples of 128; block counts consistent.
  EXPECT(whole_or_128(p.mb, m) && whole_or_128(p.nb, n) && whole_or_128(p.kb, k),
         "mb=%d nb=%d kb=%d not whole or multiples of 128: %s", p.mb, p.nb, p.kb, what);
  EXPECT(p.mb > 0 && p.nb > 0 && p.kb > 0 && p.mb <= m && p.nb <= n && p.kb <= k, "mb=%d nb=%d kb=%d: %s",
         p.mb, p.nb, p.kb, what);
  if (p.mb <= 0 || p.nb <= 0 || p.kb <= 0) return true;
  EXPECT(p.mblocks == ceil_div(m, p.mb) && p.nblocks == ceil_div(n, p.nb) && p.kchunks == ceil_div(k, p.kb),
         "block counts %lld %lld %lld, want %lld %lld %lld: %s", p.mblocks, p.nblocks, p.kchunks,
         ceil_div(m, p.mb), ceil_div(n, p.nb), ceil_div(k, p.kb), what);
  EXPECT(size_t(p.mb) <= std::max<size_t>(128, max_rows), "mb=%d taller than max rows: %s", p.mb, what);
  EXPECT(p.mblocks > 1 || p.nblocks > 1 || p.kchunks > 1, "tiled plan with one step: %s", what);
  EXPECT(p.a_buffers >= 1 && p.a_buffers <= 2 && p.b_buffers >= 1 && p.b_buffers <= 2 &&
             p.c_buffers >= 1 && p.c_buffers <= 2,
         "buffer counts: %s", what);
  // One copy of an operand only when that copy holds all of it.
  EXPECT(p.a_buffers == 2 || (p.mblocks == 1 && p.kchunks == 1), "one A copy for several chunks: %s", what);
  EXPECT(p.b_buffers == 2 || (p.nblocks == 1 && p.kchunks == 1), "one B copy for several chunks: %s", what);
  EXPECT(p.c_resident || p.c_buffers == 2 || p.mblocks * p.nblocks == 1, "one C copy for several blocks: %s", what);
  // Alignment: leading dimensions padded to 128 bytes, so every copy and column is aligned;
  // columns shorter than 128 bytes packed tight.
  auto padded = [&](size_t ld) { return ld * es % 128 == 0 || ld * es < 128; };
  EXPECT(padded(p.ld_a) && padded(p.ld_b) && padded(p.ld_c), "alignment: ld %zu %zu %zu: %s", p.ld_a, p.ld_b,
         p.ld_c, what);
  // k chunks cover [0, k) once, in order, as the executor walks them (l0 = l * kb).
  EXPECT(p.kchunks >= 1 && (p.kchunks - 1) * p.kb < k && p.kchunks * p.kb >= k, "k chunks: %s", what);
  if (p.kchunks >= 1 && p.kchunks <= kMaxListedBlocks) {
    long long covered = 0;
    bool chunks_ok = true;
    for (long long l = 0; l < p.kchunks; ++l) {
      const long long l0 = l * p.kb, kl = std::min<long long>(p.kb, k - l0);
      chunks_ok = chunks_ok && l0 == covered && kl > 0;
      covered += kl;
    }
    EXPECT(chunks_ok && covered == k, "k chunks cover %lld of %d: %s", covered, k, what);
  }
  // The lattice covers C: the last block row / column ends at m / n.
  EXPECT((p.mblocks - 1) * p.mb < m && p.mblocks * p.mb >= m && (p.nblocks - 1) * p.nb < n && p.nblocks * p.nb >= n,
         "block lattice: %s", what);
  // Everything the executor puts in a buffer fits it (the largest chunk, the largest block).
  const size_t kl_max = size_t(std::min(p.kb, k)), rows_max = size_t(p.mb), cols_max = size_t(p.nb);
  EXPECT(p.ld_a >= (ta ? kl_max : rows_max) && p.ld_a * (ta ? rows_max : kl_max) * es <= p.a_bytes &&
             p.ld_b >= (tb ? cols_max : kl_max) && p.ld_b * (tb ? kl_max : cols_max) * es <= p.b_bytes,
         "operand chunks larger than their buffers: %s", what);
  const long long count = p.mblocks * p.nblocks;
  if (count > kMaxListedBlocks) return true;
  // Blocks: inside C, on the mb x nb lattice, exactly once.
  std::vector<GemmBlock> blocks;
  try {
    blocks = gemm_tile_blocks(p, m, n);
  } catch (const std::exception &e) {
    EXPECT(false, "gemm_tile_blocks threw %s: %s", e.what(), what);
    return true;
  }
  EXPECT(blocks.size() == size_t(count), "%zu blocks: %s", blocks.size(), what);
  std::vector<char> seen(size_t(count), 0);
  double area = 0;
  bool blocks_ok = true;
  for (const GemmBlock &b : blocks) {
    const bool inside = b.i0 >= 0 && b.j0 >= 0 && b.rows > 0 && b.cols > 0 && b.i0 + b.rows <= m &&
                        b.j0 + b.cols <= n && b.i0 % p.mb == 0 && b.j0 % p.nb == 0 &&
                        b.rows == std::min(p.mb, m - b.i0) && b.cols == std::min(p.nb, n - b.j0);
    if (!inside) {
      blocks_ok = false;
      break;
    }
    char &s = seen[size_t(b.i0 / p.mb) * p.nblocks + b.j0 / p.nb];
    if (s) blocks_ok = false;
    s = 1;
    area += double(b.rows) * b.cols;
    // Everything the executor puts in a buffer fits it.
    if (p.c_resident) {
      if (p.ld_c < size_t(m) || p.c_bytes < p.ld_c * size_t(n) * es) blocks_ok = false;
    } else if (p.ld_c < size_t(b.rows) || p.c_bytes < p.ld_c * size_t(b.cols) * es) {
      blocks_ok = false;
    }
  }
  EXPECT(blocks_ok, "blocks outside C, off the lattice, repeated, or larger than their buffers: %s", what);
  EXPECT(area == double(m) * n, "blocks cover %.0f of %.0f elements: %s", area, double(m) * n, what);
  // The order: rows outer = block rows one after the other.
  if (blocks.size() > 1 && p.mblocks > 1 && p.nblocks > 1) {
    const bool row_order = blocks[1].i0 == blocks[0].i0;
    EXPECT(row_order == p.rows_outer, "block order does not match rows_outer: %s", what);
  }
  // Small enough to check element by element too.
  if (double(m) * n <= 2.5e5) {
    std::vector<unsigned char> hit(size_t(m) * n, 0);
    for (const GemmBlock &b : blocks)
      for (int j = b.j0; j < b.j0 + b.cols; ++j)
        for (int i = b.i0; i < b.i0 + b.rows; ++i) ++hit[size_t(j) * m + i];
    long wrong = 0;
    for (unsigned char h : hit) wrong += h != 1;
    EXPECT(wrong == 0, "%ld elements of C covered other than once: %s", wrong, what);
  }
  return true;
}

}  // namespace

int main() {
  test_parse();

  const size_t MiB = size_t(1) << 20;
  // Named cases, printed: what the 64M / 300M gpu tests and a large call get.
  std::printf("plans (printed for reference):\n");
  const struct {
    int m, n, k;
    size_t es, cap;
    bool reads_c;
  } named[] = {
      {3001, 2999, 3003, 4, 64 * MiB, true},     {3001, 2999, 3003, 8, 64 * MiB, false},
      {1000, 1100, 30001, 8, 64 * MiB, true},    {1500, 1500, 12000, 4, 64 * MiB, true},
      {20000, 700, 2000, 4, 64 * MiB, true},     {700, 20000, 2000, 4, 64 * MiB, false},
      {7, 1500001, 9, 4, 64 * MiB, true},        {4097, 4099, 4095, 8, 300 * MiB, true},
      {80000, 80000, 80000, 4, 70 * (size_t(1) << 30), true}, {8192, 8192, 65536, 8, 256 * MiB, true},
  };
  for (const auto &c : named)
    for (bool ta : {false, true})
      check_plan(ta, !ta, c.m, c.n, c.k, c.es, c.reads_c, c.cap, 32 * MiB / c.es, ta);

  // Big tiles: a cap of 64 MiB and more with dimensions of 20000 gets blocks of >= 512.
  for (size_t es : {size_t(4), size_t(8)})
    for (size_t cap : {64 * MiB, 300 * MiB, size_t(2) << 30}) {
      const GemmTilePlan p = plan_gemm_tiles(cudrop::Op::none, cudrop::Op::none, 20000, 20000, 20000, es, true, cap,
                                                   32 * MiB / es);
      EXPECT(p.fits && !p.in_core && p.mb >= 512 && p.nb >= 512,
             "es=%zu cap=%zu: mb=%d nb=%d (want >= 512)", es, cap, p.mb, p.nb);
    }

  // Structured sweep: borders around multiples of 128, tiny and huge dimensions, every transpose.
  const int dims[] = {1, 5, 127, 128, 129, 1000, 3001, 40000, 1500001};
  const size_t caps[] = {256 * 1024, MiB, 4 * MiB, 64 * MiB, 300 * MiB};
  long plans = 0, tiled = 0, split_k = 0, resident = 0, rotating = 0, cols_outer = 0;
  for (int m : dims)
    for (int n : dims)
      for (int k : dims) {
        // (C must exist in the caller's memory: at most 1e10 elements here.)
        if (double(m) * n * k > 2e13 || double(m) * n > 1e10) continue;
        for (size_t es : {size_t(4), size_t(8)})
          for (size_t cap : caps)
            for (int t = 0; t < 4; ++t) {
              const bool reads_c = (m + n + k + t) % 2 == 0;
              if (!check_plan(t & 1, t & 2, m, n, k, es, reads_c, cap, 32 * MiB / es)) continue;
              const GemmTilePlan p = plan_gemm_tiles(cudrop::Op::transposed_if(t & 1), cudrop::Op::transposed_if(t & 2), m,
                                                     n, k, es, reads_c, cap, 32 * MiB / es);
              ++plans;
              if (p.in_core) continue;
              ++tiled;
              split_k += p.kchunks > 1;
              resident += p.c_resident && p.mblocks * p.nblocks > 1;
              rotating += !p.c_resident;
              cols_outer += !p.rows_outer && p.mblocks > 1 && p.nblocks > 1;
            }
      }
  // Random shapes and caps, and small staging buffers (tall C blocks limited).
  // Dimensions up to INT_MAX: 64-bit counts, the plan and its blocks cover everything once,
  // nothing throws. First the two shapes of the gpu test (gemm_huge_gpu), printed.
  const int huge[] = {1, 129, INT_MAX - 128, INT_MAX};
  const size_t GiB = size_t(1) << 30;
  for (size_t es : {size_t(4), size_t(8)}) {
    check_plan(true, false, 1, 1, INT_MAX, es, false, 6 * GiB, 32 * MiB / es, true);
    check_plan(false, false, 1, INT_MAX, 1, es, true, 6 * GiB, 32 * MiB / es, true);
  }
  long huge_plans = 0;
  for (int m : huge)
    for (int n : huge)
      for (int k : huge)
        for (size_t es : {size_t(4), size_t(8)})
          for (size_t cap : {MiB, 6 * GiB})
            for (int t = 0; t < 4; ++t)
              huge_plans += check_plan(t & 1, t & 2, m, n, k, es, (m ^ n ^ t) & 1, cap, 32 * MiB / es);
  std::printf("%ld plans with dimensions up to INT_MAX checked\n", huge_plans);

  Rng rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    auto dim = [&] {
      switch (rng.below(4)) {
        case 0: return int(1 + rng.below(300));
        case 1: return int(1 + rng.below(5000));
        case 2: return int(1 + rng.below(60000));
        default: return int(128 * (1 + rng.below(200)) + rng.below(3) - 1);
      }
    };
    const int m = dim(), n = dim(), k = dim();
    const size_t es = rng.below(2) ? 8 : 4;
    const size_t cap = size_t(256 * 1024) << rng.below(12);  // 256 KiB .. 512 MiB
    const size_t max_rows = rng.below(3) == 0 ? size_t(128) << rng.below(6) : 32 * MiB / es;
    if (check_plan(rng.below(2), rng.below(2), m, n, k, es, rng.below(2), cap, max_rows)) ++plans;
  }
  std::printf("%ld plans checked (%ld tiled: %ld with k split, %ld C resident in several blocks, %ld C "
              "rotating, %ld columns outer)\n",
              plans, tiled, split_k, resident, rotating, cols_outer);
  EXPECT(tiled > 0 && split_k > 0 && resident > 0 && rotating > 0 && cols_outer > 0,
         "the sweep should reach every kind of plan");
  std::printf("gemm_plan_test: %ld checks, %ld failed: %s\n", g_checks, g_failures,
              g_failures == 0 ? "PASS" : "FAIL");
  return g_failures == 0 ? 0 : 1;
}
