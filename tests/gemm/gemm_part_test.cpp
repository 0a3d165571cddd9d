// The part of C a GEMM launch writes and the k range each tile multiplies (core/gemm_part.h),
// the host side of what the kernels obey, against element-by-element brute force (no GPU):
//  * skips(tile): no element of the tile is in the part;
//  * !crosses(tile): every element of it is, and none is a diagonal imaginary part to zero;
//  * holds/zeroes for real C and complex C read as real (row_scale 2, HERK's real diagonal), and
//    the kernels' forms of the same test (column_rows; diagonal_row, row_in, row_zeroed);
//  * k_range(tile): every k where the triangular operand can be nonzero for some element of the
//    tile lies inside it (TRMM's zero-filled square), real and complex (k doubled);
// for lower, upper, lower_tiles and all, tile shapes of the kernels (128 x 128, 128 x 64,
// 64 x 64), column offsets of the launchers' slabs, and tiles past the matrix's edge.
#include <cstdio>
#include <initializer_list>

#include "core/gemm_part.h"
#include "tests/harness/check.h"

namespace {

using cudrop::GemmPart;
using cudrop::GemmStore;
using cudrop::GemmZeros;

// Element (r, c) of the launch in the part, from the definition: complex row r / scale of column
// c + offset is on or below (above) the diagonal.
bool in_part(GemmStore store, int scale, long long offset, long long r, long long c) {
  const long long row = r / scale, col = c + offset;
  if (store == GemmStore::lower) return row >= col;
  if (store == GemmStore::upper) return row <= col;
  return true;
}

void check_tiles(GemmStore store, int scale, bool real_diagonal, long long offset, int bm, int bn) {
  GemmPart part(store);
  part.row_scale = scale;
  part.real_diagonal = real_diagonal;
  part.diagonal_col = offset;
  const long long rows = 640, cols = 400;
  for (long long row0 = 0; row0 < rows; row0 += bm)
    for (long long col0 = 0; col0 < cols; col0 += bn) {
      bool any = false, all = true, diagonal = false;
      for (long long r = row0; r < row0 + bm; ++r)
        for (long long c = col0; c < col0 + bn; ++c) {
          const bool in = in_part(store, scale, offset, r, c);
          if (store == GemmStore::lower || store == GemmStore::upper)
            CHECK(part.holds(r, c) == in, "holds(%lld, %lld) store %d scale %d offset %lld", r, c, int(store), scale,
                  offset);
          const bool zero = real_diagonal && scale == 2 && r / 2 == c + offset && r % 2 == 1;
          CHECK(part.zeroes(r, c) == zero, "zeroes(%lld, %lld) scale %d offset %lld", r, c, scale, offset);
          // The kernels' forms, on a tile the diagonal crosses (masked) and with all of C's rows.
          if (store == GemmStore::lower || store == GemmStore::upper) {
            const int diagonal = part.diagonal_row(true, c);
            CHECK(part.row_in(diagonal, int(r)) == in && part.row_zeroed(diagonal, int(r)) == zero,
                  "row_in/row_zeroed(%lld, %lld) store %d scale %d offset %lld", r, c, int(store), scale, offset);
            int first = 0, end = 0, zero_row = 0;
            part.column_rows(true, c, int(rows), &first, &end, &zero_row);
            CHECK((r >= first && r < end) == in && (r == zero_row) == zero,
                  "column_rows(%lld, %lld) store %d scale %d offset %lld: [%d, %d) zero %d", r, c, int(store), scale,
                  offset, first, end, zero_row);
          }
          any |= in;
          all &= in;
          diagonal |= zero;
        }
      const char *name = store == GemmStore::lower ? "lower" : store == GemmStore::upper ? "upper" : "other";
      if (part.skips(row0, bm, col0, bn))
        CHECK(!any || store == GemmStore::lower_tiles, "%s tile (%lld, %lld) %dx%d skipped but holds part", name,
              row0, col0, bm, bn);
      if (store == GemmStore::lower_tiles)
        CHECK(part.skips(row0, bm, col0, bn) == !([&] {
                for (long long r = row0; r < row0 + bm; ++r)
                  for (long long c = col0; c < col0 + bn; ++c)
                    if (r / scale >= c + offset) return true;
                return false;
              })(),
              "lower_tiles tile (%lld, %lld) skip", row0, col0);
      if (!part.crosses(row0, bm, col0, bn)) {
        CHECK(all || store == GemmStore::lower_tiles, "%s tile (%lld, %lld) %dx%d not crossing but not all in part",
              name, row0, col0, bm, bn);
        CHECK(!diagonal, "%s tile (%lld, %lld): a diagonal to zero but not crossing", name, row0, col0);
      }
      if (store == GemmStore::lower || store == GemmStore::upper)
        CHECK(!any == part.skips(row0, bm, col0, bn), "%s tile (%lld, %lld) %dx%d: skips is exact", name, row0, col0,
              bm, bn);
    }
}

// op(X)(i, l) of a triangular operand (complex read as real: rows and k doubled) can be nonzero.
bool nonzero(GemmZeros zeros, int scale, long long offset, long long r, long long c, long long l) {
  switch (zeros) {
    case GemmZeros::a_lower: return l / scale <= r / scale;
    case GemmZeros::a_upper: return l / scale >= r / scale;
    case GemmZeros::b_lower: return l / scale >= c + offset;
    case GemmZeros::b_upper: return l / scale <= c + offset;
    default: return true;
  }
}

void check_k_range(GemmZeros zeros, int scale, long long offset, int bm, int bn) {
  GemmPart part;
  part.zeros = zeros;
  part.row_scale = scale;
  part.diagonal_col = offset;
  const long long k = 500 * scale, rows = 512 * scale, cols = 448;
  for (long long row0 = 0; row0 < rows; row0 += bm)
    for (long long col0 = 0; col0 < cols; col0 += bn) {
      long long begin = -1, end = -1;
      part.k_range(row0, bm, col0, bn, k, &begin, &end);
      CHECK(0 <= begin && begin <= end && end <= k, "k_range [%lld, %lld) of [0, %lld)", begin, end, k);
      // op(A)'s structure depends on the row alone, op(B)'s on the column alone.
      const bool by_row = zeros == GemmZeros::a_lower || zeros == GemmZeros::a_upper;
      for (long long l = 0; l < k; ++l) {
        if (l >= begin && l < end) continue;
        for (long long e = 0; e < (by_row ? bm : bn); ++e)
          if (nonzero(zeros, scale, offset, by_row ? row0 + e : row0, by_row ? col0 : col0 + e, l)) {
            CHECK(false, "zeros %d scale %d tile (%lld, %lld): k %lld outside [%lld, %lld) is needed", int(zeros),
                  scale, row0, col0, l, begin, end);
            return;
          }
      }
    }
}

}  // namespace

int main() {
  const int shapes[][2] = {{128, 128}, {128, 64}, {64, 64}};
  for (auto &shape : shapes)
    for (long long offset : {0LL, 64LL, 192LL})
      for (int scale : {1, 2}) {
        for (GemmStore store : {GemmStore::all, GemmStore::lower_tiles, GemmStore::lower, GemmStore::upper})
          check_tiles(store, scale, false, offset, shape[0], shape[1]);
        if (scale == 2)
          for (GemmStore store : {GemmStore::lower, GemmStore::upper})
            check_tiles(store, scale, true, offset, shape[0], shape[1]);
        for (GemmZeros zeros : {GemmZeros::none, GemmZeros::a_lower, GemmZeros::a_upper, GemmZeros::b_lower,
                                GemmZeros::b_upper})
          check_k_range(zeros, scale, offset, shape[0], shape[1]);
      }
  std::printf("%d checks, %d failures\n%s\n", checks, failures, failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
