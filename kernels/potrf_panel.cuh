#pragma once
// Cholesky panel kernel (lower): factors the NB x NB diagonal block at (j0, j0) in shared
// memory and solves the panel below it, X := A(j0+NB:n, j0:j0+NB) * L11^-T, in one launch.
//
// Every thread block factors the diagonal block itself (redundantly: NB = 64, blocked by 16,
// costs a few microseconds, less than a second launch and its dependency), then solves its own
// chunks of ROWS panel rows. The factored block is written back by the last block to finish (a
// counter in device memory), so no block can overwrite the diagonal block while another is
// still reading it. The factorization is deterministic, so every block reaches the same
// verdict: if a pivot is <= 0 or NaN (reference SPOTRF2's `AJJ.LE.ZERO.OR.SISNAN(AJJ)`), no
// block writes anything, *info becomes the failing global column (1-based), and the
// diagonal block keeps its pre-factorization values for the host to replay; later panel
// launches see *info != 0 and return at once.
#include <cuda_runtime.h>

#include <cstddef>

namespace cudrop::kernels {

template <class T>
struct PotrfPanelShape {
  static constexpr int NB = 64;        // diagonal block (== impl::kPotrfNb)
  static constexpr int THREADS = 256;  // per block
  static constexpr int COLS_PER_THREAD = NB / 4;  // four threads share a panel row
  static constexpr int ROWS = THREADS / 4;        // panel rows per chunk
  static_assert(NB % 4 == 0, "a panel row is split over four lanes, NB/4 columns each");
  static_assert(THREADS % 32 == 0, "whole warps: the row solve uses warp shuffles");
};

template <class T, class S>
__global__ void __launch_bounds__(S::THREADS)
potrf_panel(T *__restrict__ A, size_t lda, int n, int j0, int *__restrict__ info,
            unsigned *__restrict__ finished) {
  constexpr int NB = S::NB, LDS = NB + 1, PER = S::COLS_PER_THREAD;
  // Column-major, padded: column k's elements are consecutive (conflict-free column scaling
  // and rank-1 updates), row j of column k sits at j + k*LDS.
  __shared__ T Ls[NB * LDS];
  __shared__ int s_skip, s_last;
  auto L = [&](int i, int j) -> T & { return Ls[i + j * LDS]; };

  const int tid = threadIdx.x;
  const int jb = min(NB, n - j0);
  // An earlier panel failed: nothing more to do (one read, so the block decides as one).
  if (tid == 0) s_skip = *reinterpret_cast<volatile int *>(info);
  __syncthreads();
  if (s_skip != 0) return;

  // The diagonal block's lower triangle; identity outside jb x jb, so the unrolled row
  // solve below needs no bounds on k (zero columns beyond jb stay zero and are not stored).
  T *D = A + j0 + size_t(j0) * lda;
  __shared__ T diag_inv[NB];  // 1 / L(k, k), for the solves (reference STRSM's TEMP)
  __shared__ int s_fail;
  for (int e = tid; e < NB * NB; e += S::THREADS) {
    const int i = e % NB, j = e / NB;
    T v = T(0);
    if (i < jb && j < jb) {
      if (i >= j) v = D[i + size_t(j) * lda];
    } else if (i == j) {
      v = T(1);
    }
    L(i, j) = v;
  }
  if (tid < NB) diag_inv[tid] = T(1);
  if (tid == 0) s_fail = -1;
  __syncthreads();

  // Blocked right-looking Cholesky of the diagonal block, 16 columns at a time: one warp
  // factors the 16 x 16 diagonal piece (warp barriers only), then the rows below it are solved
  // and the trailing lower part updated by the whole block. Three block barriers per 16
  // columns; unblocked loops over all 256 threads with a barrier or two per column spent most
  // of the panel's time here (ncu, s 16384: ~55 of ~65 microseconds).
  constexpr int KB = 16;
  for (int kb = 0; kb < jb; kb += KB) {
    const int kn = min(KB, jb - kb);
    if (tid < 32) {  // A. L(kb:kb+kn, kb:kb+kn), lane = row - kb
      const int i = kb + tid;
      for (int k = kb; k < kb + kn; ++k) {
        __syncwarp();
        const T akk = L(k, k);
        if (!(akk > T(0))) {  // the same value in every lane: the warp leaves together
          if (tid == 0) s_fail = k;
          break;
        }
        const T d = sqrt(akk), d_inv = T(1) / d;  // SPOTF2: SSCAL by ONE / AJJ
        if (tid < kn && i > k) L(i, k) *= d_inv;
        __syncwarp();
        if (tid == 0) {
          L(k, k) = d;
          diag_inv[k] = d_inv;
        }
        if (tid < kn && i > k) {
          const T lik = L(i, k);
          for (int j = k + 1; j <= i; ++j) L(i, j) -= lik * L(j, k);
        }
      }
    }
    __syncthreads();
    if (s_fail >= 0) break;  // read by all after the barrier: the block leaves together
    const int below = kb + kn;
    // B. rows below: L(i, kb:kb+kn) := L(i, kb:kb+kn) * L(kb:kb+kn, kb:kb+kn)^-T.
    for (int i = below + tid; i < NB; i += S::THREADS) {
      T x[KB];
#pragma unroll
      for (int c = 0; c < KB; ++c) x[c] = c < kn ? L(i, kb + c) : T(0);
#pragma unroll
      for (int c = 0; c < KB; ++c) {
        if (c < kn) {
          x[c] *= diag_inv[kb + c];
#pragma unroll
          for (int c2 = c + 1; c2 < KB; ++c2)
            if (c2 < kn) x[c2] -= x[c] * L(kb + c2, kb + c);
        }
      }
#pragma unroll
      for (int c = 0; c < KB; ++c)
        if (c < kn) L(i, kb + c) = x[c];
    }
    __syncthreads();
    // C. trailing lower part: L(i, j) -= L(i, kb:kb+kn) . L(j, kb:kb+kn), below <= j <= i.
    const int rest = NB - below;
    for (int e = tid; e < rest * rest; e += S::THREADS) {
      const int i = below + e % rest, j = below + e / rest;
      if (i < j) continue;
      T sum = T(0);
#pragma unroll
      for (int c = 0; c < KB; ++c)
        if (c < kn) sum += L(i, kb + c) * L(j, kb + c);
      L(i, j) -= sum;
    }
    __syncthreads();
  }
  if (s_fail >= 0) {
    // Every block computes the same value; the diagonal block is left as it was.
    if (tid == 0) *info = j0 + s_fail + 1;
    return;
  }

  // Row solve: x L11^T = b for each panel row. Four lanes share a row, lane q holding
  // columns q, q+4, q+8, ... in registers; x_k comes from its owner by a shuffle. Rows past
  // the end are computed on zeros and not stored (every lane must take part in shuffles).
  const int lane = tid % 32;
  const int q = lane % 4;
  const int row_in_chunk = (tid / 32) * 8 + lane / 4;
  const long long first_row = (long long)j0 + jb;
  const long long rows = (long long)n - first_row;
  for (long long chunk = (long long)blockIdx.x * S::ROWS; chunk < rows;
       chunk += (long long)gridDim.x * S::ROWS) {
    const long long r = chunk + row_in_chunk;
    const bool active = r < rows;
    T *row = A + size_t(first_row + (active ? r : 0)) + size_t(j0) * lda;
    T x[PER];
#pragma unroll
    for (int c = 0; c < PER; ++c) {
      const int col = 4 * c + q;
      x[c] = (active && col < jb) ? row[size_t(col) * lda] : T(0);
    }
#pragma unroll
    for (int k = 0; k < NB; ++k) {
      constexpr unsigned kAll = 0xffffffffu;
      const T bk = __shfl_sync(kAll, x[k / 4], (lane & ~3) | (k % 4));
      const T xk = bk * diag_inv[k];  // reference STRSM: TEMP = ONE/A(K,K), B = TEMP*B
      if (q == k % 4) x[k / 4] = xk;
#pragma unroll
      for (int c = k / 4; c < PER; ++c) {
        // Column 4c+q > k: always for c > k/4, for c == k/4 only on the lanes past k.
        if (c > k / 4 || q > k % 4) x[c] -= xk * L(4 * c + q, k);
      }
    }
    if (active) {
#pragma unroll
      for (int c = 0; c < PER; ++c) {
        const int col = 4 * c + q;
        if (col < jb) row[size_t(col) * lda] = x[c];
      }
    }
  }

  // The last block to get here writes the factored diagonal block: every other block has
  // read the block (before its first barrier above) by the time it counts itself finished.
  __syncthreads();
  if (tid == 0) {
    __threadfence();
    const unsigned before = atomicAdd(finished, 1u);
    __threadfence();
    s_last = before == gridDim.x - 1;
  }
  __syncthreads();
  if (!s_last) return;
  for (int e = tid; e < jb * jb; e += S::THREADS) {
    const int i = e % jb, j = e / jb;
    if (i >= j) D[i + size_t(j) * lda] = L(i, j);
  }
  if (tid == 0) *finished = 0u;  // ready for the next launch (stream-ordered)
}

// Copies one triangle of A onto the other for the columns c0..c1-1 of the lower triangle:
// TO_LOWER: A(i, j) = A(j, i) for c0 <= j < c1, j < i < n   (upper data -> lower layout)
// else:     A(j, i) = A(i, j) for the same (i, j)            (lower result -> upper layout)
// Reads and writes fall on opposite strict triangles, so the copy is race-free in place.
// Grid: x = row tiles from the strip's diagonal down, y = column tiles of the strip.
template <class T, bool TO_LOWER>
__global__ void __launch_bounds__(256)
potrf_mirror(T *__restrict__ A, size_t lda, int n, int c0, int c1) {
  constexpr int TILE = 32, ROWS = 8;  // 32 x 8 threads, 4 elements each
  __shared__ T tile[TILE][TILE + 1];
  const long long j0 = (long long)c0 + (long long)blockIdx.y * TILE;  // column tile (lower layout)
  const long long i0 = j0 + (long long)blockIdx.x * TILE;             // row tile, at or below it
  if (j0 >= c1 || i0 >= n) return;
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (TO_LOWER) {
    // tile[a][b] = A(j0 + b, i0 + a): the upper tile, read along its columns.
    for (int a = ty; a < TILE; a += ROWS) {
      const long long row = j0 + tx, col = i0 + a;
      if (row < n && col < n) tile[a][tx] = A[size_t(row) + size_t(col) * lda];
    }
    __syncthreads();
    // A(i0 + tx, j0 + b) = A(j0 + b, i0 + tx) = tile[tx][b].
    for (int b = ty; b < TILE; b += ROWS) {
      const long long i = i0 + tx, j = j0 + b;
      if (i < n && j < c1 && i > j) A[size_t(i) + size_t(j) * lda] = tile[tx][b];
    }
  } else {
    // tile[b][a] = A(i0 + a, j0 + b): the lower tile, read along its columns.
    for (int b = ty; b < TILE; b += ROWS) {
      const long long i = i0 + tx, j = j0 + b;
      if (i < n && j < c1) tile[b][tx] = A[size_t(i) + size_t(j) * lda];
    }
    __syncthreads();
    // A(j0 + tx, i0 + a) = A(i0 + a, j0 + tx) = tile[tx][a].
    for (int a = ty; a < TILE; a += ROWS) {
      const long long j = j0 + tx, i = i0 + a;
      if (i < n && j < c1 && i > j) A[size_t(j) + size_t(i) * lda] = tile[tx][a];
    }
  }
}

}  // namespace cudrop::kernels
