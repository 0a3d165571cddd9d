// shared_operand: the board through which the first device of a call over several posts the
// chunks of the operand every device reads (impl/context/chunk_board.h), no GPU: a device waiting
// for a chunk gets it once posted, at the place posted; a chunk never posted ends the wait when
// the board closes (the device then reads the caller's array), so no wait outlasts the leader's
// work; a post after the close or out of range is ignored; with a leader posting part of the
// chunks and closing while three devices wait, each device gets exactly the chunks posted.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "impl/context/chunk_board.h"
#include "tests/harness/check.h"

int main() {
  using cudrop::impl::ChunkBoard;
  static char memory[64];
  {
    ChunkBoard board(3);
    board.post(1, {memory + 8, 128});
    ChunkBoard::Posted got;
    CHECK(board.take(1, &got) && got.dev == memory + 8 && got.ldd_bytes == 128, "a posted chunk is taken as posted");
    CHECK(!board.take(3, &got) && !board.take(-1, &got), "a chunk out of range is never posted (no wait)");
    board.close();
    CHECK(!board.take(0, &got), "closed without chunk 0: not posted (no wait)");
    CHECK(board.take(1, &got) && got.dev == memory + 8, "a chunk posted before the close stays posted");
    board.post(2, {memory, 8});
    CHECK(!board.take(2, &got), "a post after the close is ignored");
  }
  {
    // A device waits for a chunk the leader posts later.
    ChunkBoard board(2);
    std::atomic<bool> taken{false};
    ChunkBoard::Posted got;
    std::thread device([&] { taken = board.take(1, &got); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    board.post(1, {memory + 16, 64});
    device.join();
    CHECK(taken && got.dev == memory + 16 && got.ldd_bytes == 64, "a wait ends with the chunk posted meanwhile");
  }
  {
    // The leader posts chunks 0..9 one by one and closes; three devices take all 16 in order.
    const int chunks = 16, posted = 10;
    ChunkBoard board(chunks);
    std::vector<std::vector<int>> seen(3, std::vector<int>(chunks, -1));
    std::vector<std::thread> devices;
    for (int d = 0; d < 3; ++d)
      devices.emplace_back([&, d] {
        for (int c = 0; c < chunks; ++c) {
          ChunkBoard::Posted got;
          seen[size_t(d)][size_t(c)] = board.take(c, &got) ? int(static_cast<const char *>(got.dev) - memory) : -2;
        }
      });
    for (int c = 0; c < posted; ++c) {
      board.post(c, {memory + c, size_t(c)});
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    board.close();
    for (std::thread &t : devices) t.join();
    int wrong = 0;
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c < chunks; ++c) wrong += seen[size_t(d)][size_t(c)] != (c < posted ? c : -2);
    CHECK(wrong == 0, "%d of the devices' chunks not as posted (posted ones at their place, the rest read from the host)",
          wrong);
  }
  std::printf("shared_operand: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
