#pragma once
// Integer helpers shared by every floor: rounding in 64 bits, and the leading dimension of
// cudrop's device copies.
#include <cstddef>

namespace cudrop {

// ceil(a / b) for a >= 0, b >= 1, in 64 bits: a + b - 1 passes INT_MAX for an int a near it.
constexpr long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// a rounded up to a multiple of b (a >= 0, b >= 1), in 64 bits.
constexpr long long round_up(long long a, long long b) { return ceil_div(a, b) * b; }

// Leading dimension (elements) of a device copy whose columns start on 128-byte lines, so
// that every column is coalesced and vector loads are aligned whatever the caller's LD or
// alignment was. tight_below_line: a column shorter than one line is packed tight instead
// (the GEMM operands: padding would multiply a 1 x n operand's memory and transfers by up
// to 32, and tight columns are one contiguous copy); the factorizations pad every column.
constexpr size_t padded_ld(size_t rows, size_t element_size, bool tight_below_line = false) {
  const size_t per_line = 128 / element_size;
  if (tight_below_line && rows < per_line) return rows;
  return (rows + per_line - 1) / per_line * per_line;
}

}  // namespace cudrop
