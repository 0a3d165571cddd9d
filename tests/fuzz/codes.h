#pragma once
// Option arguments, legal and illegal: Fortran's letters and CBLAS's codes.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>

#include "tests/harness/rng.h"

namespace fuzz {

// A Fortran option letter: mostly one of `legal` (capitals) in either case, else one no
// routine takes (a NUL and a control character among them).
inline char option_letter(Rng &rng, const char *legal) {
  if (rng.below(100) < 92) {
    const char c = legal[rng.below(std::strlen(legal))];
    return rng.below(2) ? c : char(std::tolower(c));
  }
  return "XQx ?\001\0"[rng.below(7)];
}
inline bool letter_in(char c, const char *legal) {
  return c != '\0' && std::strchr(legal, std::toupper(static_cast<unsigned char>(c))) != nullptr;
}
// A letter for a report: 'N' (78), or '\x01' (1) for one that does not print.
inline std::string letter_text(char c) {
  char s[24];
  if (std::isprint(static_cast<unsigned char>(c))) std::snprintf(s, sizeof s, "'%c' (%d)", c, c);
  else std::snprintf(s, sizeof s, "'\\x%02x' (%d)", static_cast<unsigned char>(c), c);
  return s;
}
inline bool is(char c, char capital) { return std::toupper(static_cast<unsigned char>(c)) == capital; }

enum { kRowMajor = 101, kColMajor = 102 };
// A CBLAS code among `count` legal ones from `first` (101 layouts, 111 transpositions, 121
// triangles, 131 diagonals, 141 sides), or one next to them, 0, -1 or a letter.
inline int cblas_code(Rng &rng, int first, int count) {
  if (rng.below(100) < 95) return first + int(rng.below(count));
  const int bad[] = {0, first - 1, first + count, -1, 'T'};
  return bad[rng.below(5)];
}
// The Fortran letter of a CBLAS code, '?' for an illegal one.
inline char code_letter(int code) {
  switch (code) {
    case 111: return 'N';
    case 112: return 'T';
    case 113: return 'C';
    case 121: return 'U';
    case 122: return 'L';
    case 131: return 'N';
    case 132: return 'U';
    case 141: return 'L';
    case 142: return 'R';
    default: return '?';
  }
}
inline bool legal_code(int code, int first, int count) { return code >= first && code < first + count; }

}  // namespace fuzz
