#pragma once
// The option letters of the Fortran interface (TRANS, UPLO, SIDE, DIAG), compared as LSAME does:
// in either case. Below every floor: the entries check them, the device routines read them.
namespace cudrop {
inline char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
}  // namespace cudrop
