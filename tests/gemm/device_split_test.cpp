// device_split: how a GEMM is shared out over several devices (impl/context/device_split.h), no GPU:
// how many devices a call is worth; the regions cover C exactly once, proportional to the
// weights, edges on multiples of 128; a failed region's record (what its device wrote back, the
// rest missing) and the retries' records together cover C exactly once, and what the CPU is
// left to compute is exactly what no device wrote.
#include <vector>

#include "impl/context/device_split.h"
#include "tests/harness/check.h"

namespace {

using cudrop::impl::GemmBlock;
using cudrop::impl::GemmProgress;

// How many times each entry of an m x n C is covered by the record's blocks: which = 0 all of
// them, 1 only their written columns, 2 only the unwritten ones.
std::vector<int> coverage(int m, int n, const GemmProgress &p, int which) {
  std::vector<int> count(size_t(m) * n, 0);
  for (size_t b = 0; b < p.blocks.size(); ++b) {
    const GemmBlock &blk = p.blocks[b];
    for (int j = 0; j < blk.cols; ++j) {
      const bool written = j < p.written[b];
      if ((which == 1 && !written) || (which == 2 && written)) continue;
      for (int i = 0; i < blk.rows; ++i) ++count[size_t(blk.i0 + i) + size_t(blk.j0 + j) * m];
    }
  }
  return count;
}

bool all_equal(const std::vector<int> &v, int value) {
  for (int x : v)
    if (x != value) return false;
  return true;
}

}  // namespace

int main() {
  using namespace cudrop::impl;
  const double share = 2.0 * 4096 * 4096 * 4096;
  CHECK(devices_worth(share, 4, share) == 1, "one share: one device");
  CHECK(devices_worth(2.5 * share, 4, share) == 2, "2.5 shares: two devices");
  CHECK(devices_worth(100 * share, 4, share) == 4, "many shares: all four");
  CHECK(devices_worth(1, 3, 0) == 3, "no minimum: all devices");
  CHECK(devices_worth(100 * share, 1, share) == 1, "one device available");

  // Columns, two equal devices: 1000 columns -> 512 + 488.
  std::vector<GemmBlock> r = split_for_devices(300, 1000, false, {132, 132}, 128);
  CHECK(r.size() == 2 && r[0].j0 == 0 && r[0].cols == 512 && r[1].j0 == 512 && r[1].cols == 488 && r[0].rows == 300,
        "300x1000 over 2: %d+%d columns", r.empty() ? -1 : r[0].cols, r.size() > 1 ? r[1].cols : -1);
  // Rows, four devices, odd m: edges on multiples of 128, the last takes the rest.
  r = split_for_devices(4097, 50, true, {1, 1, 1, 1}, 128);
  CHECK(r.size() == 4, "4097 rows over 4: %zu regions", r.size());
  int next = 0;
  for (const GemmBlock &b : r) {
    CHECK(b.i0 == next && b.j0 == 0 && b.cols == 50 && b.rows > 0, "row region at %d", b.i0);
    CHECK(b.i0 % 128 == 0, "row region edge %d on a multiple of 128", b.i0);
    next = b.i0 + b.rows;
  }
  CHECK(next == 4097, "row regions end at %d", next);
  // Proportional: weights 1:3 over 1024 columns -> 256 + 768.
  r = split_for_devices(10, 1024, false, {1, 3}, 128);
  CHECK(r.size() == 2 && r[0].cols == 256 && r[1].cols == 768, "1:3 -> %d + %d", r[0].cols, r[1].cols);
  // Too narrow to share: 100 columns over 3 devices gives one region of all of them.
  r = split_for_devices(5000, 100, false, {1, 1, 1}, 128);
  CHECK(r.size() == 1 && r[0].cols == 100, "100 columns over 3: %zu region(s)", r.size());
  // 300 columns over 4 devices: whole tiles only, fewer regions, all covered.
  r = split_for_devices(7, 300, false, {1, 1, 1, 1}, 128);
  int cols = 0;
  for (const GemmBlock &b : r) cols += b.cols;
  CHECK(r.size() >= 2 && r.size() <= 3 && cols == 300, "300 over 4: %zu regions, %d columns", r.size(), cols);
  CHECK(split_rows(5000, 100) && !split_rows(100, 5000) && !split_rows(64, 64), "rows only when m > n");

  // Records: a 200 x 900 C in three column regions. Region 0 succeeds; region 1 fails after its
  // device wrote 2 of its own 3 blocks' leading columns; region 2 fails with nothing written.
  const int m = 200, n = 900;
  const std::vector<GemmBlock> regions = {{0, m, 0, 256}, {0, m, 256, 384}, {0, m, 640, 260}};
  GemmProgress record;
  std::vector<GemmBlock> missing;
  record_attempt(record, regions[0], true, GemmProgress{}, missing);
  GemmProgress own;  // region 1's own blocks: 2 x 2 tiles of 100 x 192, in its coordinates
  own.blocks = {{0, 100, 0, 192}, {0, 100, 192, 192}, {100, 100, 0, 192}, {100, 100, 192, 192}};
  own.written = {192, 50, 0, 0};
  record_attempt(record, regions[1], false, own, missing);
  record_attempt(record, regions[2], false, GemmProgress{}, missing);
  CHECK(missing.size() == 4, "missing: %zu pieces (block 1's rest, blocks 2 and 3, region 2)", missing.size());
  // Written and missing together cover C once.
  GemmProgress with_missing = record;
  record_missing(with_missing, missing);
  CHECK(all_equal(coverage(m, n, with_missing, 0), 1), "record + missing cover C exactly once");
  // A retry of the missing pieces: the first succeeds, the second writes half of itself.
  GemmProgress retried = record;
  std::vector<GemmBlock> still;
  record_attempt(retried, missing[0], true, GemmProgress{}, still);
  GemmProgress half;
  half.blocks = {{0, missing[1].rows, 0, missing[1].cols}};
  half.written = {missing[1].cols / 2};
  record_attempt(retried, missing[1], false, half, still);
  for (size_t i = 2; i < missing.size(); ++i) record_attempt(retried, missing[i], false, GemmProgress{}, still);
  record_missing(retried, still);
  CHECK(all_equal(coverage(m, n, retried, 0), 1), "after the retries: C covered exactly once");
  // What the CPU is left with (the unwritten columns of the record's blocks) is exactly what no
  // attempt wrote: region 2, blocks 2 and 3 of region 1 but the retried half, and so on.
  const std::vector<int> unwritten = coverage(m, n, retried, 2), written = coverage(m, n, retried, 1);
  int left = 0, twice = 0;
  for (size_t e = 0; e < unwritten.size(); ++e) {
    twice += unwritten[e] + written[e] != 1;
    left += unwritten[e];
  }
  CHECK(twice == 0, "%d entries both written and left, or neither", twice);
  const int expected_left = 100 * 96 + 100 * 192 + m * 260;  // block 2's unwritten half, block 3, region 2
  CHECK(left == expected_left, "entries left to the CPU: %d, expected %d", left, expected_left);
  CHECK(retried.any_written(), "the record says some of C was written");

  std::printf("device_split: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
