#pragma once
// LU factorization of one panel with partial pivoting, as LAPACK's xGETF2/xGETRF2 define it,
// in a single kernel.
//
// The panel is the `rows` x `cols` block A(first:m, first:first+cols) of the matrix. Its rows
// are split into contiguous ranges of `rows_per_block`, one per thread block; a block keeps
// its range in shared memory for the whole panel (cache_rows) or works on it in place in
// global memory (a panel too tall for the chip's shared memory). For each column k:
//   1. every block finds its candidate: the first row (in the current row order) of largest
//      |a(i,k)| among its rows i >= k, and publishes it with a copy of that whole panel row;
//      the block holding row k publishes row k too;
//   2. every block reads all the candidates and reduces them the same way (largest |a|, then
//      lowest row: reference ISAMAX's choice), then reads the pivot row's copy; the owner of
//      row k stores the pivot row there, the owner of the pivot row stores old row k;
//   3. every block scales its rows below k by 1/pivot and applies the rank-1 update to the
//      panel columns right of k.
// The exchange needs no barrier and no memory fence: every published 32-bit piece of data
// travels in one 64-bit word together with a tag, the panel's global column number + 1, and
// a reader polls a word (relaxed loads at GPU scope: from L2, never a stale L1 line) until it
// carries the column's tag. A 64-bit aligned access is single-copy atomic, so a word with the
// right tag holds the right data. The buffers alternate between two parities of k: a block
// publishing for column k+2 has seen every block's column k+1 candidate, which each published
// only after it was done reading column k. The words must be zero before a factorization
// starts (tags are unique within one).
//
// The blocks wait for each other, so they must all be resident at once: the launcher keeps
// the grid within what the GPU can hold (occupancy) and launches it on a stream of its own
// (high priority): blocks of other kernels always finish, and their slots go to the waiting
// panel blocks first. It is an ordinary launch: nothing here needs cooperative groups' grid
// barrier, which costs more per column than the tagged exchange
// (docs/perf/README.md, LU panel), and a cooperative grid may have to wait
// until enough of the GPU is free for all of it at once, next to the look-ahead's trailing GEMM.
//
// Reference details kept: ISAMAX ignores NaN except in the first position (ICAMAX likewise,
// on |Re|+|Im|); a pivot that is exactly zero (then the whole candidate column is zero) means no swap, no scaling, IPIV(k)=k
// and INFO = k (the first such k only); scaling multiplies by 1/pivot when |pivot| >= the
// safe minimum and divides otherwise (xGETRF2; for c and z the modulus, and complex division
// as gfortran compiles it).
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstddef>

#include "core/complex.h"
#include "kernels/complex_scalar.cuh"
#include "kernels/per_device_once.cuh"

namespace cudrop::kernels {

constexpr int kPanelThreads = 256;
// The variant for tall float panels: 448 rows of 128 floats per block (224 KiB of shared
// memory) with a thread for each row, so that fewer blocks hold the panel (impl/getrf/getrf.cu).
constexpr int kPanelThreadsTall = 512;
constexpr int kPanelMaxCols = 128;    // widest panel (the exchange buffers' row length)
constexpr int kPanelMaxBlocks = 160;  // largest grid (each lane of warp 0 polls <= 5 blocks)

// The exchange buffer of the panel kernel, both parities, as tagged words:
// per parity, kPanelMaxBlocks slots {key, row, copy of the candidate's panel row}, then the
// copy of panel row k. A value of type T takes KW words (so does the key, real_t<T>, with room
// to spare for a complex T).
template <class T>
struct PanelExchange {
  static constexpr int KW = int(sizeof(T) / 4);
  static constexpr size_t slot_words = size_t(KW) + 1 + size_t(kPanelMaxCols) * KW;
  static constexpr size_t parity_words = kPanelMaxBlocks * slot_words + size_t(kPanelMaxCols) * KW;
  static constexpr size_t bytes = 2 * parity_words * sizeof(unsigned long long);
  static_assert(sizeof(T) % 4 == 0, "values travel as 32-bit pieces");
};

__device__ __forceinline__ void put_word(unsigned long long *w, unsigned tag, unsigned payload) {
  const unsigned long long v = (static_cast<unsigned long long>(tag) << 32) | payload;
  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long load_word(const unsigned long long *w) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
  return v;
}
__device__ __forceinline__ bool tagged(unsigned long long word, unsigned tag) {
  return unsigned(word >> 32) == tag;
}

template <class T> struct Tagged;
template <> struct Tagged<float> {
  static __device__ __forceinline__ void put(unsigned long long *w, unsigned tag, float v) {
    put_word(w, tag, __float_as_uint(v));
  }
  // Loads the value; true when it carries `tag`.
  static __device__ __forceinline__ bool get(const unsigned long long *w, unsigned tag, float &v) {
    const unsigned long long a = load_word(w);
    v = __uint_as_float(unsigned(a));
    return tagged(a, tag);
  }
};
template <> struct Tagged<double> {
  static __device__ __forceinline__ void put(unsigned long long *w, unsigned tag, double v) {
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(v));
    put_word(w, tag, unsigned(bits));
    put_word(w + 1, tag, unsigned(bits >> 32));
  }
  static __device__ __forceinline__ bool get(const unsigned long long *w, unsigned tag, double &v) {
    const unsigned long long lo = load_word(w), hi = load_word(w + 1);
    v = __longlong_as_double(static_cast<long long>((hi << 32) | (lo & 0xffffffffull)));
    return tagged(lo, tag) && tagged(hi, tag);
  }
};

// A complex value: its real part, then its imaginary part.
template <class R> struct Tagged<Complex<R>> {
  static constexpr int W = int(sizeof(R) / 4);
  static __device__ __forceinline__ void put(unsigned long long *w, unsigned tag, Complex<R> v) {
    Tagged<R>::put(w, tag, v.re);
    Tagged<R>::put(w + W, tag, v.im);
  }
  static __device__ __forceinline__ bool get(const unsigned long long *w, unsigned tag, Complex<R> &v) {
    const bool re = Tagged<R>::get(w, tag, v.re);
    return Tagged<R>::get(w + W, tag, v.im) && re;
  }
};

template <class T>
struct PanelArgs {
  T *A;                // the panel's top-left element, A(first, first)
  size_t lda;
  int rows, cols;      // m - first, and the panel width (<= kPanelMaxCols, <= rows)
  int first;           // global index of the panel's first row and column (0-based)
  int rows_per_block;  // every block but the last holds exactly this many rows
  int cache_rows;      // 1: each block holds its rows in dynamic shared memory
  int *ipiv;           // whole-matrix IPIV (device): entries first..first+cols-1 are written
  int *info;           // first zero pivot, 1-based (0: none so far); set by block 0 only
  unsigned long long *exchange;  // PanelExchange<T>::bytes, zeroed before the factorization
};

template <class T> __device__ __forceinline__ T safe_minimum();
template <> __device__ __forceinline__ float safe_minimum<float>() { return FLT_MIN; }
template <> __device__ __forceinline__ double safe_minimum<double>() { return DBL_MIN; }

// I?AMAX's ordering key: |a| (|Re a|+|Im a| for a complex a), except that NaN is never
// chosen (-1) unless it is the first element of the search (reference I?AMAX then returns 1
// whatever follows: +inf, and the lowest-index rule settles a tie with a real +inf in its
// favour).
template <class T>
__device__ __forceinline__ real_t<T> pivot_key(T a, bool first) {
  using R = real_t<T>;
  const R k = abs1(a);
  return k == k ? k : (first ? R(INFINITY) : R(-1));
}

// (key, row) a beats b: larger key, then lower row.
template <class T>
__device__ __forceinline__ bool beats(T ka, int ra, T kb, int rb) {
  return ka > kb || (ka == kb && ra < rb);
}

template <class T>
__device__ __forceinline__ void warp_best(T &key, int &row) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const T k = __shfl_down_sync(0xffffffffu, key, offset);
    const int r = __shfl_down_sync(0xffffffffu, row, offset);
    if (beats(k, r, key, row)) { key = k; row = r; }
  }
}

// (At most 128 registers, so that a panel block fits on an SM beside a GEMM block; without a
// minimum ptxas squeezed the float kernel into 40 registers and spilled.) NT: threads per block.
template <class T, int NT = kPanelThreads>
__global__ void __launch_bounds__(NT, NT <= kPanelThreads ? 2 : 1)
getrf_panel(PanelArgs<T> p) {
  using X = PanelExchange<T>;
  using R = real_t<T>;
  constexpr int WARPS = NT / 32, KW = X::KW;
  static_assert(NT % 32 == 0 && WARPS <= 32, "one warp reduces the warps' candidates");
  constexpr int POLLS = (kPanelMaxBlocks + 31) / 32;
  static_assert(kPanelMaxCols <= NT, "one thread per panel column reads the pivot row");
  extern __shared__ __align__(16) unsigned char panel_smem[];
  __shared__ T u[kPanelMaxCols];  // the pivot row of the current column
  __shared__ R warp_key[WARPS];
  __shared__ int warp_row[WARPS];
  __shared__ int s_pivot;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int b = blockIdx.x, P = gridDim.x, cols = p.cols;
  const int r0 = b * p.rows_per_block;                      // first panel row of this block
  const int nr = min(p.rows_per_block, p.rows - r0);        // its row count (>= 1)
  // S(i, c): local row i, panel column c, in shared memory (ld = rows_per_block) or in place.
  T *S;
  size_t lds;
  if (p.cache_rows) {
    S = reinterpret_cast<T *>(panel_smem);
    lds = size_t(p.rows_per_block);
    for (int c = 0; c < cols; ++c)
      for (int i = tid; i < nr; i += NT) S[i + c * lds] = p.A[size_t(r0 + i) + size_t(c) * p.lda];
  } else {
    S = p.A + r0;
    lds = p.lda;
  }
  __syncthreads();

  for (int k = 0; k < cols; ++k) {
    const unsigned tag = unsigned(p.first + k + 1);
    unsigned long long *const slots = p.exchange + (k & 1) * X::parity_words;
    unsigned long long *const diag = slots + kPanelMaxBlocks * X::slot_words;
    const bool own_k = k >= r0 && k < r0 + nr;

    // 1. This block's candidate among its rows >= k.
    R key = R(-2);
    int row = INT_MAX;
    for (int i = max(k - r0, 0) + tid; i < nr; i += NT) {
      const R kk = pivot_key(S[i + k * lds], r0 + i == k);
      if (beats(kk, r0 + i, key, row)) { key = kk; row = r0 + i; }
    }
    warp_best(key, row);
    if (lane == 0) { warp_key[warp] = key; warp_row[warp] = row; }
    __syncthreads();

    if (warp == 0) {
      key = lane < WARPS ? warp_key[lane] : R(-2);
      row = lane < WARPS ? warp_row[lane] : INT_MAX;
      warp_best(key, row);
      key = __shfl_sync(0xffffffffu, key, 0);
      row = __shfl_sync(0xffffffffu, row, 0);
      // Publish: the candidate's row copy, row k (its owner), then key and row.
      unsigned long long *mine = slots + size_t(b) * X::slot_words;
      if (row != INT_MAX)
        for (int c = lane; c < cols; c += 32) Tagged<T>::put(mine + KW + 1 + c * KW, tag, S[(row - r0) + c * lds]);
      if (own_k)
        for (int c = lane; c < cols; c += 32) Tagged<T>::put(diag + c * KW, tag, S[(k - r0) + c * lds]);
      if (lane == 0) {
        Tagged<R>::put(mine, tag, key);
        put_word(mine + KW, tag, unsigned(row));
      }

      // 2. Every block's candidate (all polls of a round in flight together).
      R kq[POLLS];
      unsigned rq[POLLS];
      bool ready;
      do {
        ready = true;
#pragma unroll
        for (int i = 0; i < POLLS; ++i) {
          const int q = lane + 32 * i;
          if (q < P) {
            const unsigned long long *slot = slots + size_t(q) * X::slot_words;
            const bool have_key = Tagged<R>::get(slot, tag, kq[i]);
            const unsigned long long r = load_word(slot + KW);
            rq[i] = unsigned(r);
            ready = ready && have_key && tagged(r, tag);
          }
        }
      } while (!ready);
      key = R(-2);
      row = INT_MAX;
#pragma unroll
      for (int i = 0; i < POLLS; ++i)
        if (lane + 32 * i < P && beats(kq[i], int(rq[i]), key, row)) { key = kq[i]; row = int(rq[i]); }
      __syncwarp();
      warp_best(key, row);
      if (lane == 0) s_pivot = row;  // the owner of row k always has a candidate
    }
    __syncthreads();

    // The pivot row from its copy (one thread per column), and the interchange: the owner of
    // row k stores it there, the owner of the pivot row takes old row k from its copy.
    const int piv_row = s_pivot;
    if (tid < cols) {
      const int c = tid;
      const unsigned long long *winner = slots + size_t(piv_row / p.rows_per_block) * X::slot_words + KW + 1;
      const bool take_k = piv_row != k && piv_row >= r0 && piv_row < r0 + nr;
      T value, old = T(0);
      bool ready;
      do {
        ready = Tagged<T>::get(winner + c * KW, tag, value);
        if (take_k) ready = Tagged<T>::get(diag + c * KW, tag, old) && ready;
      } while (!ready);
      u[c] = value;
      if (piv_row != k) {
        if (own_k) S[(k - r0) + c * lds] = value;
        if (take_k) S[(piv_row - r0) + c * lds] = old;
      }
    }
    __syncthreads();
    const T pivot = u[k];
    if (b == 0 && tid == 0) {
      p.ipiv[p.first + k] = p.first + piv_row + 1;
      if (pivot == T(0) && *p.info == 0) *p.info = p.first + k + 1;
    }

    // 3. Multipliers and the rank-1 update of this block's rows below k (none for a zero
    //    pivot: the column below is all zero then, and reference skips the scaling).
    if (pivot != T(0)) {
      const bool reciprocal = modulus(pivot) >= safe_minimum<R>();
      const T inverse = divide(T(1), pivot);
      for (int i = max(k + 1 - r0, 0) + tid; i < nr; i += NT) {
        T l = S[i + k * lds];
        l = reciprocal ? l * inverse : divide(l, pivot);
        S[i + k * lds] = l;
        T *row_i = S + i;
        // Eight columns at a time (four of double complex, which would spill), all loads
        // before the stores: the stores through row_i may alias u[] as far as the compiler
        // knows, which would otherwise serialize every step.
        constexpr int U = sizeof(T) >= 16 ? 4 : 8;
        int c = k + 1;
        for (; c + U <= cols; c += U) {
          T a[U], v[U];
#pragma unroll
          for (int e = 0; e < U; ++e) { v[e] = u[c + e]; a[e] = row_i[(c + e) * lds]; }
#pragma unroll
          for (int e = 0; e < U; ++e) row_i[(c + e) * lds] = a[e] - l * v[e];
        }
        for (; c < cols; ++c) row_i[c * lds] -= l * u[c];
      }
    }
    __syncthreads();
  }

  if (p.cache_rows) {
    for (int c = 0; c < cols; ++c)
      for (int i = tid; i < nr; i += NT) p.A[size_t(r0 + i) + size_t(c) * p.lda] = S[i + c * lds];
  }
}

// ---- launchers ----

// One instantiation of the panel kernel: its entry point, threads per block, and the dynamic
// shared memory a block of it may have.
struct PanelKernel {
  const void *entry = nullptr;
  int threads = 0;
  size_t dynamic_max = 0;
};

// Raises getrf_panel<T, NT>'s dynamic shared memory limit to all that a block may opt in to
// (smem_optin, bytes per block, less the kernel's static shared memory) and describes it.
// Per function and per device context: done once per device, at its first call.
template <class T, int NT>
cudaError_t prepare_getrf_panel(size_t smem_optin, PanelKernel *kernel) {
  static PerDeviceOnce once;
  static PanelKernel prepared[PerDeviceOnce::kDevices];
  int device = 0;
  if (const cudaError_t error = cudaGetDevice(&device); error != cudaSuccess) return error;
  PanelKernel &mine = prepared[device >= 0 && device < PerDeviceOnce::kDevices ? device : 0];
  const cudaError_t status = once_per_device(once, [&] {
    cudaFuncAttributes attributes{};
    cudaError_t error = cudaFuncGetAttributes(&attributes, getrf_panel<T, NT>);
    if (error != cudaSuccess) return error;
    const size_t dynamic_max = smem_optin > attributes.sharedSizeBytes ? smem_optin - attributes.sharedSizeBytes : 0;
    error = cudaFuncSetAttribute(getrf_panel<T, NT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(dynamic_max));
    mine = PanelKernel{reinterpret_cast<const void *>(getrf_panel<T, NT>), NT, dynamic_max};
    return error;
  });
  *kernel = mine;
  return status;
}

// How one panel is spread over thread blocks: `threads` per block (kPanelThreads or TALL_NT,
// an instantiation prepared by prepare_getrf_panel), `smem` bytes of dynamic shared memory.
struct PanelLaunch {
  int blocks = 0, threads = 0;
  size_t smem = 0;
};

template <class T, int TALL_NT>
cudaError_t launch_getrf_panel(const PanelLaunch &launch, const PanelArgs<T> &args, cudaStream_t stream) {
  if (launch.threads == kPanelThreads)
    getrf_panel<T, kPanelThreads><<<launch.blocks, launch.threads, launch.smem, stream>>>(args);
  else
    getrf_panel<T, TALL_NT><<<launch.blocks, launch.threads, launch.smem, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace cudrop::kernels
