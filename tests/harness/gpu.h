#pragma once
// Where cudrop ran the calls (cudrop_counters), and the skip code of a test that needs a GPU.
#include <cstdio>

#include "cudrop.h"

namespace harness {

// ctest's SKIP_RETURN_CODE for every test here: the test did not apply on this machine.
constexpr int kSkipped = 77;

// True (after saying so) when the test needs a GPU and there is none: main returns kSkipped.
inline bool skip_without_gpu(const char *program, bool required = true) {
  if (!required || cudrop_gpu_available() != 0) return false;
  std::printf("%s: SKIP: no usable GPU\n", program);
  return true;
}

struct Counters {
  long gpu = 0, cpu = 0, fallbacks = 0;
  static Counters now() {
    Counters c;
    cudrop_counters(&c.gpu, &c.cpu, &c.fallbacks);
    return c;
  }
  // The calls made since `before`.
  Counters since(const Counters &before) const {
    return {gpu - before.gpu, cpu - before.cpu, fallbacks - before.fallbacks};
  }
};

}  // namespace harness
