#pragma once
// Distributed factorizations with each process's local block-cyclic part on its GPU for the
// whole call (ScaLAPACK's drivers: capi/scalapack.cpp). The processes and how they talk are the
// caller's (GridComm); the algorithm only needs a grid of processes, each with one GPU, so the
// GPUs of one process can run it too over another GridComm.
#include <cstddef>
#include <cstdint>

#include "core/block_cyclic.h"
#include "core/options.h"
#include "impl/context/gpu.h"

namespace cudrop::impl {

// The processes of a P x Q grid as the calling one sees them, and the collectives the
// distributed routines use. Host buffers; every process of the scope makes the same calls in the
// same order. Never throws.
class GridComm {
 public:
  enum class Scope { row, column };  // the caller's process row (its Q members), or column
  int nprow = 1, npcol = 1, myrow = 0, mycol = 0;
  virtual ~GridComm() = default;
  // `bytes` from the process at position `root` of the scope (a column index in a row, a row
  // index in a column) to the others. The buffer has room for bytes rounded up to 8.
  virtual void broadcast(Scope scope, int root, void *buffer, size_t bytes) = 0;
  // `bytes` to, or from, the process at (row, col) of the grid; a send may wait for its receive.
  virtual void send(int row, int col, const void *buffer, size_t bytes) = 0;
  virtual void receive(int row, int col, void *buffer, size_t bytes) = 0;
  // values[i] = the largest values[i] over the whole grid, for i < count (count <= 4).
  virtual void max_over_grid(int *values, int count) = 0;
};

// ScaLAPACK's P?POTRF on A(1:n, 1:n) of a matrix distributed by `desc` (MB = NB, IA = JA = 1;
// the caller checked the arguments): the Cholesky factor of `upper` or the lower triangle, only
// that triangle written, as P?POTRF leaves it. a: this process's local array (desc.lld).
// Returns the same Status on every process of the grid: ok, the factor written; anything
// else, nothing written anywhere, and the call is to be run by the CPU routine from the
// caller's arrays: special_values where the matrix is not positive definite (ScaLAPACK's routine
// gives INFO and the partial factor it defines), a failure where a GPU failed on some process.
// ScaLAPACK's P?GETRF on A(1:m, 1:n) (MB = NB, IA = JA = 1; checked by the caller): A = P L U
// with partial pivoting, ipiv (this process's local array, LOCr(M_A) + MB_A entries) holding
// for each local row of the first min(m, n) global ones the global row (1-based) it was
// interchanged with, as P?GETRF sets it. Returns as ppotrf_host does; special_values where a
// pivot is exactly zero (P?GETRF's INFO > 0 and the factor it leaves are the CPU routine's).
template <class T>
Status pgetrf_host(int64_t m, int64_t n, T *a, const Descriptor &desc, int *ipiv, GridComm &comm);

template <class T>
Status ppotrf_host(Uplo uplo, int64_t n, T *a, const Descriptor &desc, GridComm &comm);

}  // namespace cudrop::impl
