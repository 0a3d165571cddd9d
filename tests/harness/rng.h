#pragma once
// Deterministic random numbers for the tests (splitmix64): the same seed gives the same
// matrices on every machine, so a failure can be replayed.
#include <cstdint>

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }  // [0,1)
  double symmetric() { return 2.0 * uniform() - 1.0; }                      // [-1,1)
  double sign() { return (next() >> 63) ? 1.0 : -1.0; }
  template <class Integer>
  Integer below(Integer n) { return Integer(next() % uint64_t(n)); }          // [0,n)
};
