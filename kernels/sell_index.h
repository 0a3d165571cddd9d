#pragma once
// Column indices of the SELL copy as 16-bit distances from the row (kernels/sell_power.cuh):
// the encoding, for the fill kernel and the host, and the decoding, for the mat-vec kernel and
// the host test (tests/power/sell_index_test.cpp). Plain C++ so that the host can check it.
#if defined(__CUDACC__)
#define CUDROP_SELL_INDEX_FN __host__ __device__ __forceinline__
#else
#define CUDROP_SELL_INDEX_FN inline
#endif

namespace cudrop::kernels {

// The cyclic distance from row i to column j (both in [0, n)) as a 16-bit number when one
// fits: d = j - i, or d -/+ n (none of these overflow). far = true when none fits.
CUDROP_SELL_INDEX_FN int sell_distance(int j, int i, int n, bool *far) {
  int d = j - i;
  if (d > 32767) d -= n;
  else if (d < -32768) d += n;
  *far = d > 32767 || d < -32768;
  return d;
}

// The column of row `row` at distance d (from sell_distance): row + d wrapped into [0, n).
// In 32-bit unsigned arithmetic, so that row + d near 2^31 cannot overflow: the true sum lies
// in [-32768, n + 32766] with n < 2^31, a range narrower than 2^32, so its residue tells it
// apart (a negative sum leaves a residue of at least 2^32 - 32768, which nothing else reaches).
CUDROP_SELL_INDEX_FN int sell_column_near(int d, int row, int n) {
  unsigned u = unsigned(row) + unsigned(d);
  if (u >= 0xFFFF8000u) u += unsigned(n);
  else if (u >= unsigned(n)) u -= unsigned(n);
  return int(u);
}

}  // namespace cudrop::kernels
