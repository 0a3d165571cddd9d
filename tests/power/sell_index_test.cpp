// The SELL copy's 16-bit column distances (kernels/sell_index.h), on the host: for orders up
// to 2^31 - 1, every (row, column) pair that has a distance in [-32768, 32767] (cyclically:
// column = row + d mod n) must be encoded as one and decoded back to the same column, and every
// other pair reported too far. Rows and columns at the ends of [0, n), around +-32768 from
// each other both ways round, and at random.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/sell_index.h"
#include "tests/harness/rng.h"

namespace {

int checks = 0, failures = 0;

// Whether some d in [-32768, 32767] has (i + d) mod n == j, by the definition.
bool has_distance(long long i, long long j, long long n) {
  for (long long d : {j - i, j - i - n, j - i + n})
    if (d >= -32768 && d <= 32767) return true;
  return false;
}

void check_pair(int i, int j, int n) {
  using cudrop::kernels::sell_column_near;
  using cudrop::kernels::sell_distance;
  ++checks;
  bool far = false;
  const int d = sell_distance(j, i, n, &far);
  const bool expected_far = !has_distance(i, j, n);
  if (far != expected_far) {
    if (++failures <= 10) std::printf("FAIL n=%d row=%d col=%d: far=%d, expected %d\n", n, i, j, far, expected_far);
    return;
  }
  if (far) return;
  const int back = sell_column_near(static_cast<short>(d), i, n);
  if (d < -32768 || d > 32767 || back != j) {
    if (++failures <= 10) std::printf("FAIL n=%d row=%d col=%d: distance %d decodes to %d\n", n, i, j, d, back);
  }
}

}  // namespace

int main() {
  const int orders[] = {1, 2, 3, 7, 32767, 32768, 32769, 65535, 65536, 65537, 70001, 1 << 20,
                        (1 << 30) + 3, 2147483647 - 32768, 2147483647 - 32767, 2147483646, 2147483647};
  Rng rng(2026);
  for (int n : orders) {
    std::vector<long long> rows{0, 1, 2, n / 2, n - 3LL, n - 2LL, n - 1LL};
    for (int k = 0; k < 40; ++k) rows.push_back(rng.below<long long>(n));
    for (long long i : rows) {
      if (i < 0 || i >= n) continue;
      std::vector<long long> cols{0, 1, n - 1LL, i};
      for (long long d : {32767LL, 32768LL, 32769LL, 32766LL, 65535LL, 65536LL})
        for (long long s : {d, -d, d - n, n - d, -d + n, d + n}) cols.push_back(i + s);
      for (int k = 0; k < 40; ++k) cols.push_back(rng.below<long long>(n));
      for (int k = 0; k < 40; ++k) cols.push_back(i + int(rng.below(131072)) - 65536);
      for (long long j : cols) {
        if (j < 0 || j >= n) continue;
        check_pair(int(i), int(j), n);
      }
    }
  }
  std::printf("sell_index_test: %d pairs, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
