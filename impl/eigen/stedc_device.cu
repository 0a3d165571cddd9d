// The symmetric tridiagonal eigenproblem by divide and conquer with the eigenvectors on the
// device (impl/eigen/eigen.h), Cuppen's method as xSTEDC/xLAED0 run it: the matrix torn into
// subproblems at most tuning::kStedcLeaf long, solved by the caller's leaf solver; then each
// pair merged (xLAED1): the rank-one modification's z from the children's eigenvectors, the
// deflation on the host (xLAED2: small z components, close pairs of values rotated together),
// the secular equation and the new eigenvectors on the device (kernels/secular.cuh: xLAED4,
// xLAED3), and the product of the children's eigenvectors with them by gemm_device, which is
// where the O(n^3) work is. The eigenvector matrix stays on the device throughout.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/layout.h"
#include "core/tuning.h"
#include "impl/context/gpu_context.cuh"
#include "impl/eigen/eigen.h"
#include "impl/gemm/gemm.h"
#include "kernels/secular.cuh"

namespace cudrop::impl {
namespace {

constexpr int kThreads = 256;

size_t after(size_t bytes) { return size_t(round_up(std::max<size_t>(bytes, 1), 256)); }

// The device workspace: three n x n matrices (the moved children's eigenvectors, the
// product, the secular problem's delta and eigenvectors) and the merge's vectors.
template <class R>
struct DcWork {
  size_t ld = 0, bytes = 0;
  R *moved = nullptr, *product = nullptr, *delta = nullptr, *z = nullptr, *d = nullptr, *w = nullptr,
    *w_hat = nullptr, *lambda = nullptr, *leaves = nullptr;
  kernels::Rotation<R> *rot = nullptr;
  int *map = nullptr, *place = nullptr;
  DcWork(void *base, int n) {
    size_t at = 0;
    auto take = [&](size_t b) {
      char *p = base == nullptr ? nullptr : static_cast<char *>(base) + at;
      at += after(b);
      return p;
    };
    const size_t nn = size_t(n), es = sizeof(R);
    ld = padded_ld(nn, es);
    moved = reinterpret_cast<R *>(take(ld * nn * es));
    product = reinterpret_cast<R *>(take(ld * nn * es));
    delta = reinterpret_cast<R *>(take(ld * nn * es));
    z = reinterpret_cast<R *>(take(nn * es));
    d = reinterpret_cast<R *>(take(nn * es));
    w = reinterpret_cast<R *>(take(nn * es));
    w_hat = reinterpret_cast<R *>(take(nn * es));
    lambda = reinterpret_cast<R *>(take(nn * es));
    leaves = reinterpret_cast<R *>(take(nn * size_t(tuning::kStedcLeaf) * es));
    rot = reinterpret_cast<kernels::Rotation<R> *>(take(nn * sizeof(kernels::Rotation<R>)));
    map = reinterpret_cast<int *>(take(nn * sizeof(int)));
    place = reinterpret_cast<int *>(take(nn * sizeof(int)));
    bytes = at;
  }
};

struct Node {
  int start, size, left;  // left: the first child's size (0: a leaf)
};

// xLAED0's tree: halves until every piece is at most `leaf` long; children before parents.
void split(int start, int size, int leaf, std::vector<Node> &order) {
  if (size <= leaf) {
    order.push_back({start, size, 0});
    return;
  }
  const int left = size / 2;
  split(start, left, leaf, order);
  split(start + left, size - left, leaf, order);
  order.push_back({start, size, left});
}

dim3 grid_for(int rows, int cols) { return dim3(unsigned((rows + kThreads - 1) / kThreads), unsigned(cols)); }

Status to_device(GpuContext &ctx, void *dev, const void *host, size_t bytes) {
  return check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, ctx.stream), "stedc: upload");
}

Status to_host(GpuContext &ctx, void *host, const void *dev, size_t bytes) {
  cudaError_t error = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, ctx.stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(ctx.stream);
  return check(error, "stedc: read back");
}

// One merge (xLAED1): the block q (n x n at the node's place in Z) holds the two children's
// eigenvectors (their values in d[0, n), each half ascending); beta the coupling element.
// On return q and d hold the node's eigenpairs, ascending.
template <class R>
Status merge(GpuContext &ctx, const DcWork<R> &ws, int n1, int n, R beta, R *d, R *q, size_t ldq) {
  using kernels::Rotation;
  cudaStream_t stream = ctx.stream;
  const R eps = std::numeric_limits<R>::epsilon() / 2;
  std::vector<R> z(static_cast<size_t>(n), R(0));
  kernels::merge_vector<R><<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(n1, n, q, ldq, ws.z);
  Status s = check(cudaGetLastError(), "stedc: z");
  if (s == Status::ok) s = to_host(ctx, z.data(), ws.z, size_t(n) * sizeof(R));
  if (s != Status::ok) return s;
  // xLAED2: z normalized, rho >= 0.
  if (beta < 0)
    for (int c = n1; c < n; ++c) z[c] = -z[c];
  const R inv_sqrt2 = R(1) / std::sqrt(R(2));
  for (R &v : z) v *= inv_sqrt2;
  const R rho = std::fabs(2 * beta);
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return d[a] < d[b]; });
  R zmax = 0, dmax = 0;
  for (int c = 0; c < n; ++c) {
    zmax = std::max(zmax, std::fabs(z[c]));
    dmax = std::max(dmax, std::fabs(d[c]));
  }
  const R tol = 8 * eps * std::max(dmax, zmax);
  std::vector<int> kept, deflated;  // columns of q
  std::vector<R> kept_d, kept_w, deflated_d;
  std::vector<Rotation<R>> rot;
  if (rho * zmax <= tol) {
    for (int c : order) {
      deflated.push_back(c);
      deflated_d.push_back(d[c]);
    }
  } else {
    int pj = -1;
    for (int c : order) {
      if (rho * std::fabs(z[c]) <= tol) {
        deflated.push_back(c);
        deflated_d.push_back(d[c]);
        continue;
      }
      if (pj < 0) {
        pj = c;
        continue;
      }
      R sn = z[pj], cs = z[c];
      const R tau = std::hypot(cs, sn), t = d[c] - d[pj];
      cs /= tau;
      sn = -sn / tau;
      if (std::fabs(t * cs * sn) <= tol) {
        // Two values close enough to be one: rotated so that pj's z component vanishes.
        z[c] = tau;
        z[pj] = 0;
        rot.push_back({pj, c, cs, sn});
        const R dp = d[pj] * cs * cs + d[c] * sn * sn;
        d[c] = d[pj] * sn * sn + d[c] * cs * cs;
        d[pj] = dp;
        deflated.push_back(pj);
        deflated_d.push_back(d[pj]);
      } else {
        kept.push_back(pj);
        kept_d.push_back(d[pj]);
        kept_w.push_back(z[pj]);
      }
      pj = c;
    }
    if (pj >= 0) {
      kept.push_back(pj);
      kept_d.push_back(d[pj]);
      kept_w.push_back(z[pj]);
    }
  }
  const int k = int(kept.size());
  for (int i = 1; i < k; ++i)
    if (!(kept_d[i - 1] < kept_d[i])) return Status::special_values;  // the secular solver needs distinct poles
  std::vector<int> map(kept);
  map.insert(map.end(), deflated.begin(), deflated.end());
  if (!rot.empty() && (s = to_device(ctx, ws.rot, rot.data(), rot.size() * sizeof(Rotation<R>))) != Status::ok)
    return s;
  if ((s = to_device(ctx, ws.map, map.data(), size_t(n) * sizeof(int))) != Status::ok) return s;
  if (!rot.empty())
    kernels::apply_rotations<R><<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(n, q, ldq, ws.rot,
                                                                                                   int(rot.size()));
  kernels::gather_columns<R><<<grid_for(n, n), kThreads, 0, stream>>>(n, q, ldq, ws.map, ws.moved, ws.ld);
  if ((s = check(cudaGetLastError(), "stedc: deflation")) != Status::ok) return s;
  std::vector<R> lambda(static_cast<size_t>(k));
  if (k > 0) {
    if ((s = to_device(ctx, ws.d, kept_d.data(), size_t(k) * sizeof(R))) != Status::ok ||
        (s = to_device(ctx, ws.w, kept_w.data(), size_t(k) * sizeof(R))) != Status::ok)
      return s;
    const int threads = k >= 512 ? 256 : k >= 128 ? 128 : 32;
    kernels::secular_roots<R><<<unsigned(k), threads, 0, stream>>>(k, ws.d, ws.w, rho, ws.lambda, ws.delta, ws.ld);
    kernels::secular_weights<R><<<unsigned((k + 127) / 128), 128, 0, stream>>>(k, ws.d, ws.w, ws.delta, ws.ld,
                                                                                 ws.w_hat);
    kernels::secular_vectors<R><<<unsigned(k), threads, 0, stream>>>(k, ws.w_hat, ws.delta, ws.ld);
    if ((s = check(cudaGetLastError(), "stedc: secular equation")) != Status::ok) return s;
    // The product with the children's eigenvectors: the merge's O(n k^2) work.
    if ((s = gemm_device<R>(Op::none, Op::none, n, k, k, R(1), ws.moved, ws.ld, ws.delta, ws.ld, R(0), ws.product,
                            ws.ld, stream)) != Status::ok)
      return s;
    if ((s = to_host(ctx, lambda.data(), ws.lambda, size_t(k) * sizeof(R))) != Status::ok) return s;
  }
  // The node's eigenpairs ascending: the roots (columns of the product) among the deflated
  // values (columns k.. of the moved matrix).
  std::vector<R> value(lambda);
  value.insert(value.end(), deflated_d.begin(), deflated_d.end());
  std::vector<int> place(static_cast<size_t>(n));
  std::iota(place.begin(), place.end(), 0);
  std::stable_sort(place.begin(), place.end(), [&](int a, int b) { return value[a] < value[b]; });
  for (int t = 0; t < n; ++t) d[t] = value[place[t]];
  if ((s = to_device(ctx, ws.place, place.data(), size_t(n) * sizeof(int))) != Status::ok) return s;
  kernels::place_columns<R><<<grid_for(n, n), kThreads, 0, stream>>>(n, ws.place, k, ws.product, ws.ld, ws.moved,
                                                                     ws.ld, q, ldq);
  return check(cudaGetLastError(), "stedc: merge");
}

}  // namespace

template <class R>
size_t stedc_device_workspace(int n) {
  return DcWork<R>(nullptr, n).bytes;
}

template <class R>
Status stedc_device(GpuContext &ctx, int n, R *d, R *e, R *dZ, size_t lddz, const TridiagonalSolver<R> &leaf,
                    void *work, size_t work_bytes) {
  if (n <= 0) return Status::ok;
  const DcWork<R> ws(work, n);
  if (work == nullptr || work_bytes < ws.bytes) return Status::out_of_memory;
  if (inject_fault("launch")) return Status::cuda_error;
  cudaStream_t stream = ctx.stream;
  const size_t es = sizeof(R);
  Status s = check(cudaMemset2DAsync(dZ, lddz * es, 0, size_t(n) * es, size_t(n), stream), "stedc: clear");
  if (s != Status::ok) return s;
  // xSTEDC scales the matrix to largest entry 1 (and the eigenvalues back at the end).
  R scale = 0;
  for (int i = 0; i < n; ++i) scale = std::max(scale, std::fabs(d[i]));
  for (int i = 0; i + 1 < n; ++i) scale = std::max(scale, std::fabs(e[i]));
  if (scale == 0) {
    const R one = 1;
    for (int i = 0; i < n; ++i)
      if ((s = to_device(ctx, dZ + size_t(i) + size_t(i) * lddz, &one, es)) != Status::ok) return s;
    return check(cudaStreamSynchronize(stream), "stedc: identity");
  }
  for (int i = 0; i < n; ++i) d[i] /= scale;
  for (int i = 0; i + 1 < n; ++i) e[i] /= scale;
  std::vector<Node> order;
  split(0, n, tuning::kStedcLeaf, order);
  // Torn apart (xLAED0): each split's coupling becomes a rank-one modification.
  for (const Node &node : order)
    if (node.left != 0) {
      const int p = node.start + node.left;
      d[p - 1] -= std::fabs(e[p - 1]);
      d[p] -= std::fabs(e[p - 1]);
    }
  // The leaves on the host, packed one after another, then each into its diagonal block.
  std::vector<R> packed;
  std::vector<R> sub;
  for (const Node &node : order) {
    if (node.left != 0) continue;
    const size_t m = size_t(node.size), at = packed.size();
    packed.resize(at + m * m);
    sub.assign(e + node.start, e + node.start + std::max<size_t>(m, 1) - 1);
    sub.push_back(0);
    if (leaf(node.size, d + node.start, sub.data(), packed.data() + at) != 0) return Status::special_values;
  }
  if ((s = to_device(ctx, ws.leaves, packed.data(), packed.size() * es)) != Status::ok) return s;
  size_t at = 0;
  for (const Node &node : order) {
    if (node.left != 0) continue;
    const size_t m = size_t(node.size);
    R *block = dZ + size_t(node.start) * (lddz + 1);
    if ((s = check(cudaMemcpy2DAsync(block, lddz * es, ws.leaves + at, m * es, m * es, m, cudaMemcpyDeviceToDevice,
                                     stream),
                   "stedc: leaves")) != Status::ok)
      return s;
    at += m * m;
  }
  for (const Node &node : order) {
    if (node.left == 0) continue;
    const int p = node.start + node.left;
    if ((s = merge<R>(ctx, ws, node.left, node.size, e[p - 1], d + node.start, dZ + size_t(node.start) * (lddz + 1),
                      lddz)) != Status::ok)
      return s;
  }
  for (int i = 0; i < n; ++i) d[i] *= scale;
  return check(cudaStreamSynchronize(stream), "stedc: merges");
}

#define CUDROP_STEDC(R)                         \
  template size_t stedc_device_workspace<R>(int); \
  template Status stedc_device<R>(GpuContext &, int, R *, R *, R *, size_t, const TridiagonalSolver<R> &, void *, size_t);
CUDROP_STEDC(float)
CUDROP_STEDC(double)
#undef CUDROP_STEDC

}  // namespace cudrop::impl
