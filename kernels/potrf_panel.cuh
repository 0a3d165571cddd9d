#pragma once
// Cholesky panel kernel (lower): factors the NB x NB diagonal block at (j0, j0) in shared
// memory and solves the panel below it, X := A(j0+NB:n, j0:j0+NB) * L11^-T (L11^-H for a
// complex T: A Hermitian, A = L L^H), in one launch.
//
// Every thread block factors the diagonal block itself (redundantly: NB = 64 in two 32-column
// halves, a warp each, costs less than a second launch and its dependency), then solves its own
// chunks of ROWS panel rows. The factored block is written back by the last block to finish (a
// counter in device memory), so no block can overwrite the diagonal block while another is
// still reading it. The factorization is deterministic, so every block reaches the same
// verdict: if a pivot is <= 0 or NaN (reference SPOTRF2's `AJJ.LE.ZERO.OR.SISNAN(AJJ)`; for
// a complex T the pivot is the real part of the diagonal, whose imaginary part is never
// used, as CPOTRF2's `AJJ = REAL(A(1,1))`), no
// block writes anything, *info becomes the failing global column (1-based), and the
// diagonal block keeps its pre-factorization values for the host to replay; later panel
// launches see *info != 0 and return at once.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "core/complex.h"
#include "core/layout.h"
#include "kernels/complex_scalar.cuh"
#include "kernels/per_device_once.cuh"

namespace cudrop::kernels {

template <class T>
struct PotrfPanelShape {
  static constexpr int NB = 64;        // diagonal block (== impl::kPotrfNb)
  static constexpr int THREADS = 256;  // per block
  static constexpr int COLS_PER_THREAD = NB / 4;  // four threads share a panel row
  static constexpr int ROWS = THREADS / 4;        // panel rows per chunk
  static constexpr int KB = NB / 2;               // the diagonal block is factored in two halves
  static_assert(KB == 32 && THREADS % KB == 0 && (THREADS / KB) * 4 <= 32 && KB % (THREADS / KB) == 0,
                "one warp per half (a lane per row); the L21 solve puts THREADS/KB lanes of one warp on a row");
  static_assert(NB % 4 == 0, "a panel row is split over four lanes, NB/4 columns each");
  static_assert(THREADS % 32 == 0, "whole warps: the row solve uses warp shuffles");
};

// Cholesky of the KB x KB block at (kb, kb) of the shared lower triangle `Ls` (column-major,
// leading dimension LDS) by one warp, without barriers: lane i holds the part of row kb+i not
// yet factored in registers (x[j] = column k + j at column k: shifted down by one per column,
// which the unrolling turns into register renaming), and L(j, k) reaches the lanes below it by
// a shuffle. Operation order per column as SPOTF2: the pivot's square root, the column scaled by
// its reciprocal, the rank-1 update. Column k of the factor and 1 / L(k, k) (diag_inv, the
// solves' multiplier) are stored as they are made; on the first pivot that is <= 0 or NaN,
// *fail becomes its column in the diagonal block (lane 0) and the rest is left (the caller then
// writes nothing to global memory).
// Not inlined: the two calls share one copy of this long straight-line code, which every block
// fetches cold; inlined twice, double runs slower than a column loop in shared memory.
// The column loop must unroll: x indexed at run time or shifted by moves costs more than
// the registers save (docs/perf/README.md, Cholesky panel).
template <class T, int KB, int LDS>
__device__ __noinline__ void potrf_warp_factor(T *__restrict__ Ls, T *__restrict__ diag_inv, int kb, int *fail) {
  using R = real_t<T>;
  const int lane = threadIdx.x % 32;
  T x[KB];
#pragma unroll
  for (int j = 0; j < KB; ++j) x[j] = Ls[(kb + lane) + (kb + j) * LDS];
#pragma unroll
  for (int k = 0; k < KB; ++k) {
    const R akk = real_part(shfl(x[0], k));
    if (!(akk > R(0))) {  // the same value in every lane: the warp leaves together
      if (lane == 0) *fail = kb + k;
      return;
    }
    const R d = sqrt(akk), d_inv = R(1) / d;
    const T lik = lane == k ? T(d) : x[0] * d_inv;  // lanes above k scale a value they never store
    if (lane >= k) Ls[(kb + lane) + (kb + k) * LDS] = lik;
    if (lane == k) diag_inv[kb + k] = T(d_inv);
#pragma unroll
    for (int j = 1; j < KB - k; ++j) {
      const T ljk = shfl(lik, k + j);  // L(kb + k + j, kb + k)
      x[j - 1] = lane >= k + j ? x[j] - lik * conj(ljk) : x[j];
    }
  }
}

// One row of X L^T = B (X L^H = B for a complex T) for the factored lower block
// L = Ls(0:COLS, 0:COLS) (column-major, leading dimension LDS), spread over LANES consecutive
// lanes of a warp: lane q holds columns q, q+LANES, q+2*LANES, ... of the row in x; x_k comes
// from its owner by a shuffle. Reference STRSM's order: x_k = TEMP * b_k with TEMP = 1 / L(k, k)
// (diag_inv), then the later columns updated by x_k. Every lane of the warp must call it (shuffles).
template <class T, int LANES, int COLS, int LDS>
__device__ __forceinline__ void potrf_solve_row(T (&x)[COLS / LANES], const T *__restrict__ Ls,
                                                const T *__restrict__ diag_inv, int lane) {
  const int q = lane % LANES;
#pragma unroll
  for (int k = 0; k < COLS; ++k) {
    const T bk = shfl(x[k / LANES], (lane & ~(LANES - 1)) | (k % LANES));
    const T xk = bk * diag_inv[k];
    if (q == k % LANES) x[k / LANES] = xk;
#pragma unroll
    for (int c = k / LANES; c < COLS / LANES; ++c)  // column LANES*c+q > k
      if (c > k / LANES || q > k % LANES) x[c] -= xk * conj(Ls[(LANES * c + q) + k * LDS]);
  }
}

template <class T, class S>
__global__ void __launch_bounds__(S::THREADS)
potrf_panel(T *__restrict__ A, size_t lda, int n, int j0, int *__restrict__ info,
            unsigned *__restrict__ finished) {
  constexpr int NB = S::NB, LDS = NB + 1, PER = S::COLS_PER_THREAD;
  // Column-major, padded: column k's elements are consecutive (conflict-free column scaling
  // and rank-1 updates), row j of column k sits at j + k*LDS. Dynamic (potrf_panel_smem):
  // in double complex it exceeds the 48 KB of static shared memory.
  extern __shared__ __align__(16) unsigned char potrf_smem[];
  T *const Ls = reinterpret_cast<T *>(potrf_smem);
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
  __shared__ T diag_inv[NB];  // 1 / L(k, k), for the solves (reference STRSM's TEMP); 1 past jb
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
  if (tid == 0) s_fail = -1;
  __syncthreads();

  // The diagonal block, as two 32-column halves: L11 = chol(A11) by one warp in registers
  // (potrf_warp_factor), L21 = A21 L11^-T by the whole block, A22 -= L21 L21^T, L22 =
  // chol(A22) by one warp. Five block barriers in all. The block is on the critical path: as
  // column steps with each column's update in shared memory (a chain of dependent
  // read-modify-writes on one warp) it takes most of the panel's time
  // (docs/perf/README.md, Cholesky panel).
  constexpr int KB = S::KB;
  if (tid < 32) potrf_warp_factor<T, KB, LDS>(Ls, diag_inv, 0, &s_fail);
  __syncthreads();
  if (s_fail < 0) {
    // L21 := A21 * L11^-T, THREADS/KB lanes per row (rows KB..NB-1).
    constexpr int LANES = S::THREADS / KB, PER_LANE = KB / LANES;
    const int r = KB + tid / LANES, q = tid % LANES;
    T y[PER_LANE];
#pragma unroll
    for (int m = 0; m < PER_LANE; ++m) y[m] = L(r, LANES * m + q);
    potrf_solve_row<T, LANES, KB, LDS>(y, Ls, diag_inv, tid % 32);
#pragma unroll
    for (int m = 0; m < PER_LANE; ++m) L(r, LANES * m + q) = y[m];
  }
  __syncthreads();
  if (s_fail < 0) {
    // A22 -= L21 L21^T (L21 L21^H): thread (i, four consecutive j); the lower part is what is kept.
    const int i = tid % KB, jq = (tid / KB) * 4;
    T sum[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll 8
    for (int c = 0; c < KB; ++c) {
      const T lic = L(KB + i, c);
#pragma unroll
      for (int u = 0; u < 4; ++u) sum[u] += lic * conj(L(KB + jq + u, c));
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (i >= jq + u) L(KB + i, KB + jq + u) -= sum[u];
  }
  __syncthreads();
  // Only warp 0 reads s_fail here, and its lane 0 may then write it: every lane has read it
  // before that (a shuffle converges the lanes but orders no shared-memory access).
  if (tid < 32) {
    const bool factor_second_half = s_fail < 0;
    __syncwarp();
    if (factor_second_half) potrf_warp_factor<T, KB, LDS>(Ls, diag_inv, KB, &s_fail);
  }
  __syncthreads();
  if (s_fail >= 0) {
    // Every block computes the same value; the diagonal block is left as it was.
    if (tid == 0) *info = j0 + s_fail + 1;
    return;
  }

  // Row solve: x L11^T = b for each panel row, four lanes to a row (potrf_solve_row). Rows
  // past the end are computed on zeros and not stored (every lane must take part in shuffles).
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
    potrf_solve_row<T, 4, NB, LDS>(x, Ls, diag_inv, lane);
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

// Copies one triangle of A onto the other for the columns c0..c1-1 of the lower triangle,
// conjugated for a complex T (Hermitian: U = L^H):
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
      if (i < n && j < c1 && i > j) A[size_t(i) + size_t(j) * lda] = conj(tile[tx][b]);
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
      if (i < n && j < c1 && i > j) A[size_t(j) + size_t(i) * lda] = conj(tile[tx][a]);
    }
  }
}

// ---- launchers (no policy: the caller sizes the panel grid) ---------------------------------

// The panel kernel of the diagonal block at j0 on `blocks` blocks of S::THREADS.
struct PotrfPanelLaunch {
  int blocks;
  cudaStream_t stream;
};

// The panel kernel's dynamic shared memory: the diagonal block, column-major, padded.
template <class T, class S>
constexpr size_t potrf_panel_smem() {
  return size_t(S::NB) * (S::NB + 1) * sizeof(T);
}

template <class T, class S = PotrfPanelShape<T>>
cudaError_t launch_potrf_panel(const PotrfPanelLaunch &c, T *A, size_t lda, int n, int j0, int *info,
                               unsigned *finished) {
  constexpr size_t smem = potrf_panel_smem<T, S>();
  // Above the 48 KB default a kernel must opt in; per function and per device context, so
  // once per device.
  static PerDeviceOnce once;
  const cudaError_t prepared = smem <= 48 * 1024 ? cudaSuccess : once_per_device(once, [] {
    return cudaFuncSetAttribute(potrf_panel<T, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  });
  if (prepared != cudaSuccess) return prepared;
  potrf_panel<T, S><<<c.blocks, S::THREADS, smem, c.stream>>>(A, lda, n, j0, info, finished);
  return cudaGetLastError();
}

// potrf_mirror over columns c0..c1-1, in slabs that keep gridDim.y within its limit.
template <class T>
cudaError_t launch_potrf_mirror(bool to_lower, cudaStream_t stream, T *A, size_t lda, int n, int c0, int c1) {
  constexpr long long kTile = 32, kMaxSlab = 65535 * kTile;  // gridDim.y <= 65535
  for (long long s0 = c0; s0 < c1; s0 += kMaxSlab) {
    const int s1 = static_cast<int>(std::min<long long>(c1, s0 + kMaxSlab));
    const dim3 block(32, 8);
    const dim3 grid(static_cast<unsigned>(ceil_div(n - s0, kTile)), static_cast<unsigned>(ceil_div(s1 - s0, kTile)));
    if (to_lower) potrf_mirror<T, true><<<grid, block, 0, stream>>>(A, lda, n, int(s0), s1);
    else potrf_mirror<T, false><<<grid, block, 0, stream>>>(A, lda, n, int(s0), s1);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  }
  return cudaSuccess;
}

}  // namespace cudrop::kernels
