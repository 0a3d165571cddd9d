#pragma once
// The tests' one assertion: CHECK(cond, printf-args) counts a check and, when cond is false,
// a failure, printing where and why (flushed, so it precedes a later crash). A test ends with
// `failures == 0`.
#include <cstdio>

inline int failures = 0, checks = 0;

#define CHECK(cond, ...)                                \
  do {                                                  \
    ++checks;                                           \
    if (!(cond)) {                                      \
      ++failures;                                       \
      std::printf("FAIL %s:%d: ", __FILE__, __LINE__);  \
      std::printf(__VA_ARGS__);                         \
      std::printf("\n");                                \
      std::fflush(stdout);                              \
    }                                                   \
  } while (0)
