#pragma once
// The power method's CPU path (cudrop_spower_/dpower_/scsrpower_/dcsrpower_): the iteration of
// impl/power/power.h with plain loops, on the calling thread (the dense mat-vec column by column, an
// axpy each; the CSR mat-vec row by row). It needs no CPU library underneath.
namespace cudrop {

// INFO when the iteration's one vector of n elements cannot be allocated (docs/power.md): the
// value LAPACKE gives a failed workspace allocation (LAPACK_WORK_MEMORY_ERROR).
constexpr int kPowerInfoOutOfMemory = -1010;

// Same contract as impl::power_dense_host / power_csr_host on Status::ok, and never fails
// otherwise, except that without memory for that vector only *info is written
// (kPowerInfoOutOfMemory).
template <class T>
void power_dense_cpu(int n, const T *a, int lda, T *lambda, T *x, bool start_ones, T tol,
                     int *maxit, int *info);
template <class T>
void power_csr_cpu(int n, const T *val, const int *colind, const int *rowptr, int base,
                   T *lambda, T *x, bool start_ones, T tol, int *maxit, int *info);

// rowptr[0] == base and rowptr non-decreasing (reads rowptr[0..n]); what the entry points
// check before anything else of a CSR matrix is read (false -> INFO = -4).
bool power_csr_rowptr_valid(int n, const int *rowptr, int base);

}  // namespace cudrop
