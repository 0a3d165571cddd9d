#pragma once
// The typed options of a call, converted once from the caller's letters at the entry: the floors
// below take these, not letters or bools.
namespace cudrop {

// op(X) of a BLAS call: X, X^T, or X^H (TRANS = 'C': the conjugate transpose, X^T itself for
// a real X). No implicit conversion from or to bool: a real kernel that takes "transposed or
// not" is given transposed(); a condition may test the Op itself (explicit operator bool).
struct Op {
  enum Kind : unsigned char { none, trans, conj_trans };
  Kind kind = none;
  Op() = default;
  constexpr Op(Kind k) : kind(k) {}  // NOLINT: Op::trans reads as the Op it names
  // The reference's letter, checked already: 'N', 'T' or 'C' (upper case).
  static constexpr Op from_letter(char letter) { return letter == 'N' ? none : letter == 'C' ? conj_trans : trans; }
  // X^T where transposed, else X (the real routines' own choice; no conjugate).
  static constexpr Op transposed_if(bool transposed) { return transposed ? trans : none; }
  constexpr bool transposed() const { return kind != none; }
  explicit constexpr operator bool() const { return transposed(); }
  constexpr bool conjugated() const { return kind == conj_trans; }
  constexpr char letter() const { return kind == none ? 'N' : kind == trans ? 'T' : 'C'; }
};

// SIDE, UPLO and DIAG of a call, from the reference's letters checked already (upper case).
enum class Side : unsigned char { left, right };
enum class Uplo : unsigned char { upper, lower };
enum class Diag : unsigned char { non_unit, unit };
constexpr Side side_of(char letter) { return letter == 'L' ? Side::left : Side::right; }
constexpr Uplo uplo_of(char letter) { return letter == 'U' ? Uplo::upper : Uplo::lower; }
constexpr Diag diag_of(char letter) { return letter == 'U' ? Diag::unit : Diag::non_unit; }

// JOBZ of the eigensolvers: the eigenvalues alone ('N') or with the eigenvectors ('V').
enum class Jobz : unsigned char { values, vectors };
constexpr Jobz jobz_of(char letter) { return letter == 'V' ? Jobz::vectors : Jobz::values; }

// RANGE of the drivers of selected eigenpairs (xSYEVR, xSYEVX, xSTEBZ): every eigenvalue ('A'),
// those in the half-open interval (VL, VU] ('V'), or the IL-th through IU-th ('I').
enum class Range : unsigned char { all, values, indices };
constexpr Range range_of(char letter) { return letter == 'V' ? Range::values : letter == 'I' ? Range::indices : Range::all; }
constexpr char letter_of(Range range) { return range == Range::values ? 'V' : range == Range::indices ? 'I' : 'A'; }

}  // namespace cudrop
