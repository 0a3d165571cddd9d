// core/block_cyclic.h against the distribution dealt out by hand: for every order, block size,
// grid dimension and source process up to small bounds, which process holds each global index,
// how many each holds (NUMROC), and the local index <-> global index maps.
#include <cstdio>
#include <vector>

#include "core/block_cyclic.h"
#include "tests/harness/check.h"

int main() {
  using cudrop::BlockCyclic1D;
  for (int64_t n = 0; n <= 40; ++n)
    for (int64_t nb = 1; nb <= 7; ++nb)
      for (int procs = 1; procs <= 5; ++procs)
        for (int src = 0; src < procs; ++src) {
          // The deal: global index g is in block g / nb, held by process (src + block) % procs,
          // at the next local index of that process.
          std::vector<int> owner(static_cast<size_t>(n)), local(static_cast<size_t>(n));
          std::vector<int64_t> count(size_t(procs), 0);
          for (int64_t g = 0; g < n; ++g) {
            owner[size_t(g)] = int((src + g / nb) % procs);
            local[size_t(g)] = int(count[size_t(owner[size_t(g)])]++);
          }
          for (int p = 0; p < procs; ++p) {
            const BlockCyclic1D d{n, nb, p, src, procs};
            CHECK(d.local_count() == count[size_t(p)], "numroc n=%lld nb=%lld p=%d src=%d procs=%d: %lld, want %lld",
                  (long long)n, (long long)nb, p, src, procs, (long long)d.local_count(), (long long)count[size_t(p)]);
            int64_t before = 0;
            for (int64_t g = 0; g <= n; ++g) {
              CHECK(d.local_before(g) == before, "local_before(%lld) n=%lld nb=%lld p=%d src=%d procs=%d",
                    (long long)g, (long long)n, (long long)nb, p, src, procs);
              if (g == n) break;
              if (owner[size_t(g)] == p) {
                CHECK(d.owner(g / nb) == p, "owner of block %lld", (long long)(g / nb));
                CHECK(d.global_of(local[size_t(g)]) == g, "global_of(%d) n=%lld nb=%lld p=%d src=%d procs=%d",
                      local[size_t(g)], (long long)n, (long long)nb, p, src, procs);
                ++before;
              }
            }
          }
        }
  std::printf("block_cyclic: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
