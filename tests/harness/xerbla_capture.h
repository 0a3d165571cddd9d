#pragma once
// This program's own xerbla_ (the netlib testers' way): it records what cudrop reported and
// returns. Include in one source file of a program only: it defines the symbol.
#include <algorithm>
#include <cstddef>
#include <cstring>

namespace harness {

struct XerblaRecord {
  int calls = 0;
  int info = 0;       // the parameter number reported
  size_t length = 0;  // the hidden CHARACTER length of the routine's name
  char name[40] = {};
  void clear() { *this = XerblaRecord(); }
};
inline XerblaRecord xerbla;

}  // namespace harness

extern "C" void xerbla_(const char *srname, const int *info, size_t srname_len) {
  harness::XerblaRecord &r = harness::xerbla;
  ++r.calls;
  r.info = *info;
  r.length = srname_len;
  const size_t n = std::min(srname_len, sizeof r.name - 1);
  std::memcpy(r.name, srname, n);
  r.name[n] = '\0';
}
