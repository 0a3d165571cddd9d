// The parallel pageable<->pinned column copier (impl/host_copy): every byte of every column
// lands where it should, padding between columns is untouched, for packed and strided
// layouts, odd sizes (above and below the streaming-store size, at odd addresses) and several
// pool sizes, including repeated runs on one pool and two threads copying through one pool at
// the same time (an upload beside a download); and the strided vector copy of ?copy_.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "impl/context/host_copy.h"

int main() {
  std::mt19937 rng(7);
  int failures = 0, cases = 0;
  for (int threads : {1, 3, 8}) {
    cudrop::impl::CopyPool *pool = cudrop::impl::make_copy_pool(threads);
    for (size_t row_bytes : {size_t(1), size_t(7), size_t(4096), size_t(20000) + 3, size_t(3 << 20) + 5}) {
      for (size_t cols : {size_t(1), size_t(3), size_t(257)}) {
        if (row_bytes * cols > (size_t(64) << 20)) continue;
        for (size_t src_pad : {size_t(0), size_t(13)}) {
          for (size_t dst_pad : {size_t(0), size_t(5)}) {
            const size_t src_ld = row_bytes + src_pad, dst_ld = row_bytes + dst_pad;
            std::vector<unsigned char> src(src_ld * cols), dst(dst_ld * cols, 0xAB);
            for (auto &byte : src) byte = static_cast<unsigned char>(rng());
            cudrop::impl::copy_columns(pool, dst.data(), dst_ld, src.data(), src_ld, row_bytes, cols);
            ++cases;
            bool ok = true;
            for (size_t j = 0; j < cols && ok; ++j) {
              ok = std::memcmp(&dst[j * dst_ld], &src[j * src_ld], row_bytes) == 0;
              for (size_t p = row_bytes; p < dst_ld && ok; ++p) ok = dst[j * dst_ld + p] == 0xAB;
            }
            if (!ok) {
              ++failures;
              std::printf("FAIL threads=%d row_bytes=%zu cols=%zu src_ld=%zu dst_ld=%zu\n", threads,
                          row_bytes, cols, src_ld, dst_ld);
            }
          }
        }
      }
    }
  }
  // Two callers at once, many rounds: each job must come back whole while the other runs.
  for (int threads : {2, 8}) {
    cudrop::impl::CopyPool *pool = cudrop::impl::make_copy_pool(threads);
    int concurrent_failures[2] = {0, 0};
    auto caller = [&](int who) {
      std::mt19937 local(100 + who);
      const size_t row_bytes = who == 0 ? 65536 + 9 : 4096, cols = who == 0 ? 40 : 700;
      std::vector<unsigned char> src(row_bytes * cols), dst(row_bytes * cols);
      for (int round = 0; round < 200; ++round) {
        for (auto &byte : src) byte = static_cast<unsigned char>(local());
        cudrop::impl::copy_columns(pool, dst.data(), row_bytes, src.data(), row_bytes, row_bytes, cols);
        if (std::memcmp(dst.data(), src.data(), src.size()) != 0) ++concurrent_failures[who];
      }
    };
    std::thread other(caller, 1);
    caller(0);
    other.join();
    cases += 400;
    for (int who : {0, 1}) {
      if (concurrent_failures[who] != 0)
        std::printf("FAIL concurrent threads=%d caller=%d: %d bad rounds\n", threads, who, concurrent_failures[who]);
      failures += concurrent_failures[who];
    }
  }
  // copy_vector (?copy_'s threads): the reference's elements, increments of either sign, for
  // 4-, 8- and 16-byte elements; nothing copied where x and y overlap or an increment is 0.
  for (size_t es : {size_t(4), size_t(8), size_t(16)})
    for (long n : {2L, 7L, 1000L, 4099L})
      for (long incx : {1L, -3L, 512L})
        for (long incy : {1L, -1L, 5L}) {
          const size_t span_x = size_t((n - 1) * std::labs(incx) + 1) * es, span_y = size_t((n - 1) * std::labs(incy) + 1) * es;
          std::vector<unsigned char> x(span_x), y(span_y + 64, 0xCD), want(span_y + 64, 0xCD);
          for (auto &byte : x) byte = static_cast<unsigned char>(rng());
          for (long i = 0; i < n; ++i) {  // dcopy.f's loop
            const long ix = incx < 0 ? (n - 1 - i) * -incx : i * incx, iy = incy < 0 ? (n - 1 - i) * -incy : i * incy;
            std::memcpy(&want[size_t(iy) * es], &x[size_t(ix) * es], es);
          }
          ++cases;
          const bool copied = cudrop::impl::copy_vector(n, x.data(), incx, y.data(), incy, es, 3);
          if (!copied || y != want) {
            ++failures;
            std::printf("FAIL copy_vector es=%zu n=%ld incx=%ld incy=%ld (%s)\n", es, n, incx, incy,
                        copied ? "wrong bytes" : "not copied");
          }
        }
  {
    std::vector<double> v(3000);
    cases += 2;
    if (cudrop::impl::copy_vector(1000, v.data(), 2, v.data() + 1, 1, 8, 3) ||
        cudrop::impl::copy_vector(1000, v.data(), 0, v.data() + 1000, 1, 8, 3)) {
      ++failures;
      std::printf("FAIL copy_vector copied overlapping arrays or a zero increment\n");
    }
  }
  std::printf("host_copy: %d cases, %d failures\n", cases, failures);
  return failures == 0 ? 0 : 1;
}
