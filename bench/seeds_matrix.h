/* The seeds experiments' sparse matrix (bench/cudrop-bench --seeds, docs/seeds.md), built the same
 * way by the CPU program (seeds_cpu.c) and the GPU one (seeds_gpu.cu) so that both iterate on the
 * same matrix from the same start vector and their eigenvalues can be compared.
 *
 * CSR, 0-based, `rows` x `rows`: row i holds per_row entries at columns drawn uniformly from all
 * rows (sorted, duplicates possible and added by the mat-vec), values uniform in [0.1, 1.1). The
 * values are positive, so the dominant eigenvalue is real and positive (Perron-Frobenius), that of
 * the random graph's giant strongly connected component, about 0.6 per_row; the few rows outside
 * it (no entry in their column) form components of far smaller spectral radius, so it is simple
 * and the power method converges, at a rate of about 1/sqrt(per_row). Plain C, no CUDA. */
#ifndef CUDROP_BENCH_SEEDS_MATRIX_H
#define CUDROP_BENCH_SEEDS_MATRIX_H
#include <stdint.h>
#include <stdlib.h>

static inline uint64_t seeds_next(uint64_t *state) {
  /* splitmix64: the same sequence in C and C++ */
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline int seeds_cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* rowptr: rows + 1 ints; colind: rows * per_row ints; val: rows * per_row doubles (the float
 * program rounds them). */
static inline void seeds_csr(int rows, int per_row, int *rowptr, int *colind, double *val) {
  uint64_t state = 0x5EED5u + (uint64_t)rows * 131u + (uint64_t)per_row;
  long long e = 0;
  int i, j;
  rowptr[0] = 0;
  for (i = 0; i < rows; ++i) {
    for (j = 0; j < per_row; ++j) colind[e + j] = (int)(seeds_next(&state) % (uint64_t)rows);
    qsort(colind + e, (size_t)per_row, sizeof(int), seeds_cmp_int);
    for (j = 0; j < per_row; ++j) val[e + j] = 0.1 + (double)(seeds_next(&state) >> 11) / 9007199254740992.0;
    e += per_row;
    rowptr[i + 1] = (int)e;
  }
}

#endif
