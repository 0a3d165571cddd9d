#pragma once
// CBLAS's option codes (cblas.h's enums, as the entries receive them: int), defined once for
// every CBLAS entry, and the Fortran letter each stands for.
namespace cudrop::capi::cblas_codes {

enum CblasCode {
  RowMajor = 101, ColMajor = 102,
  NoTrans = 111, Trans = 112, ConjTrans = 113,
  Upper = 121, Lower = 122,
  NonUnit = 131, Unit = 132,
  Left = 141, Right = 142,
};

// A CBLAS enum as the Fortran character reference CBLAS passes ('\0': illegal). row_major:
// the call becomes the column-major one on the transposed operands, so sides and triangles swap.
inline char side_code(int side, bool row_major) {
  if (side == Left) return row_major ? 'R' : 'L';
  if (side == Right) return row_major ? 'L' : 'R';
  return '\0';
}
inline char uplo_code(int uplo, bool row_major) {
  if (uplo == Upper) return row_major ? 'L' : 'U';
  if (uplo == Lower) return row_major ? 'U' : 'L';
  return '\0';
}
inline char trans_code(int trans) {
  return trans == Trans ? 'T' : trans == ConjTrans ? 'C' : trans == NoTrans ? 'N' : '\0';
}
inline char diag_code(int diag) { return diag == Unit ? 'U' : diag == NonUnit ? 'N' : '\0'; }

}  // namespace cudrop::capi::cblas_codes
