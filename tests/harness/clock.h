#pragma once
#include <chrono>

namespace harness {

// Seconds on a steady clock, for the tests' timing lines.
inline double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace harness
