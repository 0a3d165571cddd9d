#pragma once
// Cholesky factorization on the GPU: the host interface (what ?potrf_ use) over the
// device interface (a matrix already on the GPU, what the benchmark compares with cuSOLVER).
#include <cstddef>
#include <cstdio>

#include "core/complex.h"
#include "core/options.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

// What the caller's array already holds of the factor when a GPU attempt stops: the triangle's
// columns 0..columns-1, and ('U') rows 0..columns-1 of the next u12_columns columns too.
struct PotrfProgress {
  int n = 0;
  int columns = 0;
  int u12_columns = 0;
  int x_columns = 0;  // xPOSV: X's columns in the caller's B (only once the whole factor is back)
  bool any_written() const { return columns != 0 || u12_columns != 0 || x_columns != 0; }
  // For the log: "after N of M columns were written back".
  void describe(char *text, size_t size) const {
    if (x_columns == 0)
      std::snprintf(text, size, "after %d of %d columns were written back", columns, n);
    else
      std::snprintf(text, size, "after %d of %d factor columns and %d solution columns were written back", columns,
                    n, x_columns);
  }
};

// Right-hand sides solved with the factor while it is still on the device (xPOSV: xPOTRS after
// a successful xPOTRF): B (n x nrhs, leading dimension ldb) goes up during the factorization
// and X comes back after the factor.
template <class T>
struct PotrfRhs {
  int nrhs;
  T *b;
  int ldb;
};

// Host array, LAPACK xPOTRF semantics (arguments already checked, n >= 1): factors the
// `upper` or lower triangle of the n x n matrix at `a` (leading dimension lda) and sets
// *info: 0, or k when the leading minor of order k is not positive definite, with A left as
// reference LAPACK leaves it (impl/potrf/potrf_plan.h). Only that triangle is written back; the
// other one is never written. On any Status other than ok, *info has not been touched and `a`
// holds GPU results only as far as *progress says: when !progress->any_written() it is the
// caller's original, so the call can be repeated on the CPU; otherwise the dispatch layer
// finishes it on the CPU from there. rhs (may be null): xPOSV's right-hand sides, solved when
// *info is 0 (left unchanged otherwise); progress->x_columns of them may hold X on a failure.
template <class T>
Status potrf_host(Uplo uplo, int n, T *a, int lda, int *info, PotrfProgress *progress,
                  const PotrfRhs<T> *rhs = nullptr);

// Device array, lower triangle only: A = L L^T (L L^H for a complex T) in place on `stream` (a cudaStream_t;
// nullptr = the legacy default stream), asynchronous. The strictly upper triangle within
// 512 columns of the diagonal is used as scratch. d_work: two ints of device memory; when
// the stream reaches the end, d_work[0] is 0, or the 1-based column whose pivot was <= 0 or
// NaN: columns before that column's 64-wide block are then factored, its diagonal block
// holds its values before factorization, and the rest is in an intermediate state.
template <class T>
Status potrf_device(int n, T *dA, size_t ldda, int *d_work, void *stream);

}  // namespace cudrop::impl
