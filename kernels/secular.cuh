#pragma once
// The merge of the symmetric tridiagonal divide and conquer (impl/eigen/stedc_device.cu), on the
// device: the deflation's rotations and column moves, the secular equation's roots (xLAED4's
// job), the eigenvectors of the rank-one modified diagonal by the Gu-Eisenstat formula (xLAED3's).
// R: float or double. Matrices column-major.
#include <cfloat>
#include <cstddef>

namespace cudrop::kernels {

template <class R>
struct Rotation {
  int first, second;
  R c, s;
};

template <class R>
__device__ __forceinline__ R unit_roundoff() {
  return sizeof(R) == 4 ? R(FLT_EPSILON / 2) : R(DBL_EPSILON / 2);
}

// The z vector of a merge: row n1-1 of the first n1 columns of the block, row n1 of the others
// (the last row of the first child's eigenvectors, the first of the second's).
template <class R>
__global__ void merge_vector(int n1, int n, const R *__restrict__ q, size_t ldq, R *__restrict__ z) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < n) z[c] = q[size_t(c < n1 ? n1 - 1 : n1) + size_t(c) * ldq];
}

// The deflation's plane rotations on the columns of q, in order (each row by one thread: the
// rotations of one row do not touch another). xROT: x := c x + s y, y := c y - s x.
template <class R>
__global__ void apply_rotations(int rows, R *__restrict__ q, size_t ldq, const Rotation<R> *__restrict__ rot,
                                int count) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int t = 0; t < count; ++t) {
    const Rotation<R> g = rot[t];
    R *x = q + r + size_t(g.first) * ldq, *y = q + r + size_t(g.second) * ldq;
    const R a = *x, b = *y;
    *x = g.c * a + g.s * b;
    *y = g.c * b - g.s * a;
  }
}

// out(:, j) := q(:, map[j]), j < cols.
template <class R>
__global__ void gather_columns(int rows, const R *__restrict__ q, size_t ldq, const int *__restrict__ map,
                               R *__restrict__ out, size_t ldo) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (r < rows) out[r + size_t(j) * ldo] = q[r + size_t(map[j]) * ldq];
}

// out(:, t) := map[t] < split ? a(:, map[t]) : b(:, map[t]).
template <class R>
__global__ void place_columns(int rows, const int *__restrict__ map, int split, const R *__restrict__ a, size_t lda,
                              const R *__restrict__ b, size_t ldb, R *__restrict__ out, size_t ldo) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, t = blockIdx.y;
  if (r >= rows) return;
  const int c = map[t];
  out[r + size_t(t) * ldo] = c < split ? a[r + size_t(c) * lda] : b[r + size_t(c) * ldb];
}

// The sums of a, b, c over the block, in every thread (the same order everywhere, so that every
// thread takes the same decisions from them). blockDim.x a multiple of 32, at most 1024.
template <class R>
__device__ void block_sum3(R &a, R &b, R &c) {
  __shared__ R part[3][32];
  __syncthreads();  // the previous call's partial sums have been read
  for (int off = 16; off > 0; off /= 2) {
    a += __shfl_down_sync(0xffffffffu, a, off);
    b += __shfl_down_sync(0xffffffffu, b, off);
    c += __shfl_down_sync(0xffffffffu, c, off);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  if (lane == 0) {
    part[0][warp] = a;
    part[1][warp] = b;
    part[2][warp] = c;
  }
  __syncthreads();
  a = b = c = R(0);
  for (int w = 0; w < warps; ++w) {
    a += part[0][w];
    b += part[1][w];
    c += part[2][w];
  }
}

// Root j of the secular equation 1 + rho sum_i w_i^2 / (d_i - lambda) = 0 (d ascending and
// distinct, rho > 0, no w_i zero): lambda_j in (d_j, d_j+1) (the last above d_k-1). As xLAED4,
// the root is found as an offset tau from the nearer pole d_o, so that delta(i, j) = (d_i - d_o) -
// tau holds every d_i - lambda_j to full relative accuracy (what keeps the eigenvectors
// orthogonal). Newton's method on h(tau) = -tau f(d_o + tau) (smooth across the bracket: the
// pole at d_o is divided out), kept inside a bracket that every step shrinks, bisection when a
// step would leave it. One block per root.
template <class R>
__global__ void secular_roots(int k, const R *__restrict__ d, const R *__restrict__ w, R rho, R *__restrict__ lambda,
                              R *__restrict__ delta, size_t ldd) {
  const int j = blockIdx.x;
  const R eps = unit_roundoff<R>();
  int o;
  R lo, hi;
  if (j < k - 1) {
    const R mid = (d[j + 1] - d[j]) / 2;
    R f = 0, unused = 0, unused2 = 0;
    for (int i = threadIdx.x; i < k; i += blockDim.x) f += w[i] * w[i] / ((d[i] - d[j]) - mid);
    block_sum3(f, unused, unused2);
    if (1 + rho * f >= 0) {
      o = j;  // the root is in the left half: nearer d_j
      lo = 0;
      hi = mid;
    } else {
      o = j + 1;
      lo = (d[j] - d[j + 1]) + mid;
      hi = 0;
    }
  } else {
    o = k - 1;
    R s = 0, unused = 0, unused2 = 0;
    for (int i = threadIdx.x; i < k; i += blockDim.x) s += w[i] * w[i];
    block_sum3(s, unused, unused2);
    lo = 0;
    hi = rho * s;  // lambda_k <= d_k + rho |w|^2
    for (int grow = 0; grow < 64; ++grow) {  // rounding: make sure f(hi) >= 0
      R f = 0, u1 = 0, u2 = 0;
      for (int i = threadIdx.x; i < k; i += blockDim.x) f += w[i] * w[i] / ((d[i] - d[o]) - hi);
      block_sum3(f, u1, u2);
      if (1 + rho * f >= 0) break;
      hi *= 2;
    }
  }
  const R origin = d[o], wo2 = w[o] * w[o];
  R tau = (lo + hi) / 2;
  for (int it = 0; it < 400; ++it) {
    R psi = 0, dpsi = 0, apsi = 0;
    for (int i = threadIdx.x; i < k; i += blockDim.x) {
      if (i == o) continue;
      const R del = (d[i] - origin) - tau, t = w[i] * w[i] / del;
      psi += t;
      dpsi += t / del;
      apsi += fabs(t);
    }
    block_sum3(psi, dpsi, apsi);
    const R h = rho * wo2 - tau * (1 + rho * psi);
    // f = h / -tau is increasing in tau: f >= 0 right of the root.
    const bool right = tau > 0 ? h <= 0 : h >= 0;
    if (right) hi = tau;
    else lo = tau;
    const R tol = 8 * eps * (rho * wo2 + fabs(tau) * (1 + rho * apsi));
    if (fabs(h) <= tol || hi - lo <= 4 * eps * fmax(fabs(lo), fabs(hi))) break;
    const R slope = -(1 + rho * psi) - tau * rho * dpsi;
    R next = tau - h / slope;
    if (!(next > lo && next < hi) || it % 6 == 5) next = lo + (hi - lo) / 2;
    if (next == tau) break;
    tau = next;
  }
  if (threadIdx.x == 0) lambda[j] = origin + tau;
  for (int i = threadIdx.x; i < k; i += blockDim.x) delta[i + size_t(j) * ldd] = i == o ? -tau : (d[i] - origin) - tau;
}

// w_hat(i) := sign(w_i) sqrt(-prod_j delta(i,j) / prod_{j != i} (d_i - d_j)): the vector whose
// rank-one modification has exactly the computed roots as eigenvalues (xLAED3).
template <class R>
__global__ void secular_weights(int k, const R *__restrict__ d, const R *__restrict__ w, const R *__restrict__ delta,
                                size_t ldd, R *__restrict__ w_hat) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k) return;
  R p = delta[i + size_t(i) * ldd];
  for (int j = 0; j < k; ++j)
    if (j != i) p *= delta[i + size_t(j) * ldd] / (d[i] - d[j]);
  w_hat[i] = copysign(sqrt(fmax(-p, R(0))), w[i]);
}

// Column j of delta := the unit eigenvector w_hat ./ delta(:, j) (one block per column).
template <class R>
__global__ void secular_vectors(int k, const R *__restrict__ w_hat, R *__restrict__ delta, size_t ldd) {
  R *col = delta + size_t(blockIdx.x) * ldd;
  R ss = 0, u1 = 0, u2 = 0;
  for (int i = threadIdx.x; i < k; i += blockDim.x) {
    const R s = w_hat[i] / col[i];
    ss += s * s;
  }
  block_sum3(ss, u1, u2);
  const R scale = R(1) / sqrt(ss);
  for (int i = threadIdx.x; i < k; i += blockDim.x) col[i] = w_hat[i] / col[i] * scale;
}

}  // namespace cudrop::kernels
