#pragma once
// The option letters of the Fortran interface (TRANS, UPLO), compared as LSAME does: in either case.
namespace cudrop::capi {
inline char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
}  // namespace cudrop::capi
