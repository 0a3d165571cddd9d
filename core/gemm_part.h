#pragma once
// Which part of C a GEMM computes and writes, shared by the host code that chooses it and the
// kernels that obey it (kernels/gemm_*.cuh). Plain C++ for the host.
//   all          every element;
//   lower_tiles  the tiles that reach the diagonal or below it, whole (Cholesky's trailing
//                update, whose part above the diagonal is scratch);
//   lower/upper  the elements on and below (above) the diagonal and nothing else: SYRK, HERK,
//                SYR2K and HER2K, whose other triangle is neither read nor written.
// Tiles with nothing of the part are skipped before they load anything, so a triangle costs
// about half the square; only tiles the diagonal crosses test their elements.
#if defined(__CUDACC__)
#define CUDROP_PART_FN __host__ __device__
#else
#define CUDROP_PART_FN
#endif

namespace cudrop {

enum class GemmStore : unsigned char { all, lower_tiles, lower, upper };
// An operand that is a triangle held as a square with zeros outside it (TRMM's): op(A) or op(B)
// lower or upper triangular, aligned with C's diagonal (op(A)'s rows are C's, op(B)'s columns
// C's). A tile of C then multiplies only the k range where the operand can be nonzero.
enum class GemmZeros : unsigned char { none, a_lower, a_upper, b_lower, b_upper };

struct GemmPart {
  GemmStore store = GemmStore::all;
  // A complex C read as a real matrix has 2 rows per complex row: row r is complex row r / 2.
  int row_scale = 1;
  // HERK and HER2K (row_scale 2): the imaginary part of each diagonal element written as zero.
  bool real_diagonal = false;
  GemmZeros zeros = GemmZeros::none;
  // The launch's column 0 is column diagonal_col of the matrix whose diagonal counts (the
  // launchers cut wide C into column slabs).
  long long diagonal_col = 0;

  GemmPart() = default;
  constexpr GemmPart(GemmStore s) : store(s) {}

  CUDROP_PART_FN bool masked() const { return store == GemmStore::lower || store == GemmStore::upper; }
  // Element (r, c) of the launch, in the part (for lower/upper; the rest store everything).
  CUDROP_PART_FN bool holds(long long r, long long c) const {
    const long long d = row_scale * (c + diagonal_col);
    if (store == GemmStore::lower) return r >= d;
    if (store == GemmStore::upper) return r < d + row_scale;
    return true;
  }
  // The tile [row0, row0 + rows) x [col0, col0 + cols) holds nothing of the part.
  CUDROP_PART_FN bool skips(long long row0, int rows, long long col0, int cols) const {
    if (store == GemmStore::lower || store == GemmStore::lower_tiles)
      return row0 + rows <= row_scale * (col0 + diagonal_col);
    if (store == GemmStore::upper) return row0 >= row_scale * (col0 + cols + diagonal_col);
    return false;
  }
  // Some element of the tile is outside the part, or on the diagonal of a real_diagonal part:
  // its stores test each element.
  CUDROP_PART_FN bool crosses(long long row0, int rows, long long col0, int cols) const {
    if (!masked()) return false;
    const bool outside = !holds(store == GemmStore::lower ? row0 : row0 + rows - 1,
                                store == GemmStore::lower ? col0 + cols - 1 : col0);
    const long long first_diagonal_row = row_scale * (col0 + diagonal_col);
    const long long past_diagonal_rows = row_scale * (col0 + cols + diagonal_col);
    return outside || (real_diagonal && row0 < past_diagonal_rows && row0 + rows > first_diagonal_row);
  }
  // Whether (r, c) is an imaginary part of the diagonal that must be written as zero.
  CUDROP_PART_FN bool zeroes(long long r, long long c) const {
    return real_diagonal && r == row_scale * (c + diagonal_col) + 1;
  }
  // The k range [*begin, *end) (within [0, k)) that tile [row0, row0 + rows) x [col0, col0 + cols)
  // multiplies. A complex product runs as a real one with k doubled beside C's rows: row_scale
  // scales the range op(B)'s columns give.
  CUDROP_PART_FN void k_range(long long row0, int rows, long long col0, int cols, long long k, long long *begin,
                              long long *end) const {
    long long b = 0, e = k;
    if (zeros == GemmZeros::a_lower) e = row0 + rows;
    if (zeros == GemmZeros::a_upper) b = row0;
    if (zeros == GemmZeros::b_lower) b = row_scale * (col0 + diagonal_col);
    if (zeros == GemmZeros::b_upper) e = row_scale * (col0 + cols + diagonal_col);
    *begin = b < 0 ? 0 : b > k ? k : b;
    *end = e < *begin ? *begin : e > k ? k : e;
  }
  // The kernels' per-element tests, in two forms whose register use suits the DMMA and the FFMA
  // kernel respectively (their ptxas reports: no spills either way, where the other form spills).
  // Column c's rows of the part among [0, rows): [*first, *end), and *zero, the one written as
  // zero (-1: none). Not masked (a tile the diagonal does not cross): all of them. In int, as the
  // kernels' indices: a row past the range clamps to it.
  CUDROP_PART_FN void column_rows(bool masked, long long c, int rows, int *first, int *end, int *zero) const {
    *first = 0;
    *end = rows;
    *zero = -1;
    if (!masked) return;
    const long long d = row_scale * (c + diagonal_col);
    if (store == GemmStore::lower) *first = int(d < rows ? d : rows);
    if (store == GemmStore::upper) *end = int(d + row_scale < rows ? d + row_scale : rows);
    if (real_diagonal && d + 1 < rows) *zero = int(d + 1);
  }
  // The kernels' per-element test in two steps: diagonal_row(masked, c) once per column (-1 for
  // a tile the diagonal does not cross: every row stored), then row_in / row_zeroed per row.
  // In int, as the kernels' indices (a diagonal past INT_MAX is past every row).
  CUDROP_PART_FN int diagonal_row(bool masked, long long c) const {
    if (!masked) return -1;
    const long long d = row_scale * (c + diagonal_col);
    return int(d < 0x7ffffffeLL ? d : 0x7ffffffeLL);
  }
  CUDROP_PART_FN bool row_in(int diagonal, int r) const {
    if (diagonal < 0) return true;
    return store == GemmStore::upper ? (long long)r < (long long)diagonal + row_scale : r >= diagonal;
  }
  CUDROP_PART_FN bool row_zeroed(int diagonal, int r) const {
    return real_diagonal && diagonal >= 0 && r == diagonal + 1;
  }
  // The same part for a launch over columns [col, ...) of this one.
  GemmPart from_column(long long col) const {
    GemmPart p = *this;
    p.diagonal_col += col;
    return p;
  }
};

}  // namespace cudrop
