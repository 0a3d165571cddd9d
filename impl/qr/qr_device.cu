// Householder QR on device arrays (impl/qr/qr.h): the panel kernel and xLARFT's pieces of
// kernels/householder.cuh, xLARFB as three gemm_device products.
#include <algorithm>

#include "core/env.h"
#include "core/layout.h"
#include "core/tuning.h"
#include "impl/context/device_info.h"
#include "impl/gemm/gemm.h"
#include "impl/context/gpu_context.cuh"
#include "impl/qr/qr.h"
#include "kernels/householder.cuh"
#include "kernels/transpose.cuh"

namespace cudrop::impl {
namespace {

int panel_width() { return std::clamp(settings().qr_nb, 1, kernels::kQrPanelMaxCols); }

// One block reflector H = I - V T V^H: V explicit (rows x cols, unit lower trapezoid), T upper.
template <class T>
struct BlockReflector {
  const T *v;
  size_t ldv;
  const T *t;
  size_t ldt;
  int rows, cols;
};

// The workspace of the routines here, carved in order from one allocation.
template <class T>
struct QrWork {
  unsigned long long *arrivals = nullptr;
  T *partials = nullptr;  // the panel kernel's
  T *v = nullptr, *t = nullptr, *g = nullptr, *gram = nullptr, *w = nullptr, *w2 = nullptr;
  size_t ldv = 0, ldw = 0;
  void *gemm = nullptr;
  size_t gemm_bytes = 0;
  size_t bytes = 0;  // the total (carving a null base only counts)
};

// xLARFB's products' workspace for blocks of nb reflectors of up to `rows` rows applied to a
// C of c_rows x c_cols (side left: c_rows = rows).
template <class T>
size_t larfb_gemm_workspace(Side side, int rows, int nb, int c_rows, int c_cols) {
  const Op n = Op::none, c = Op::conj_trans;
  if (side == Side::left)
    return std::max({gemm_device_workspace<T>(c, n, nb, c_cols, rows), gemm_device_workspace<T>(c, n, nb, c_cols, nb),
                     gemm_device_workspace<T>(n, n, rows, c_cols, nb)});
  return std::max({gemm_device_workspace<T>(n, n, c_rows, nb, rows), gemm_device_workspace<T>(n, c, c_rows, nb, nb),
                   gemm_device_workspace<T>(n, c, c_rows, rows, nb)});
}

// side left: W is nb x c_cols; right: c_rows x nb. panel: the panel kernel's buffers too.
template <class T>
QrWork<T> carve(void *base, bool panel, Side side, int rows, int c_rows, int c_cols) {
  const int nb = panel_width();
  QrWork<T> w;
  size_t at = 0;
  auto take = [&](size_t bytes) {
    char *p = base == nullptr ? nullptr : static_cast<char *>(base) + at;
    at += size_t(round_up(std::max<size_t>(bytes, 1), 256));
    return p;
  };
  const size_t es = sizeof(T);
  if (panel) {
    w.arrivals = reinterpret_cast<unsigned long long *>(take(sizeof(unsigned long long)));
    w.partials = reinterpret_cast<T *>(take(2 * size_t(kernels::kQrPanelMaxBlocks) * kernels::qr_slot_values(nb) * es));
  }
  w.ldv = padded_ld(size_t(rows), es);
  w.v = reinterpret_cast<T *>(take(w.ldv * nb * es));
  w.t = reinterpret_cast<T *>(take(size_t(nb) * nb * es));
  w.g = reinterpret_cast<T *>(take(size_t(nb) * nb * es));
  w.gram = reinterpret_cast<T *>(take(size_t(kernels::gram_chunks(rows)) * nb * nb * es));
  w.ldw = side == Side::left ? size_t(nb) : padded_ld(size_t(c_rows), es);
  const size_t w_cols = side == Side::left ? size_t(c_cols) : size_t(nb);
  w.w = reinterpret_cast<T *>(take(w.ldw * w_cols * es));
  w.w2 = reinterpret_cast<T *>(take(w.ldw * w_cols * es));
  w.gemm_bytes = larfb_gemm_workspace<T>(side, rows, nb, c_rows, c_cols);
  w.gemm = take(w.gemm_bytes);
  w.bytes = at;
  return w;
}

Op conj_if(bool c) { return c ? Op::conj_trans : Op::none; }

// V and T of the block of `cols` reflectors whose vectors start at A(0,0) (rows long).
template <class T>
Status block_reflector(int rows, int cols, const T *dA, size_t ldda, const T *d_tau, const QrWork<T> &w,
                       cudaStream_t stream, BlockReflector<T> *out) {
  cudaError_t error = kernels::launch_unit_lower_copy<T>(rows, cols, dA, ldda, w.v, w.ldv, stream);
  if (error == cudaSuccess)
    error = kernels::launch_form_t<T>(rows, cols, w.v, w.ldv, d_tau, w.gram, w.g, w.t, size_t(cols), stream);
  *out = BlockReflector<T>{w.v, w.ldv, w.t, size_t(cols), rows, cols};
  return check(error, "qr: block reflector");
}

// xLARFB: C := H C or H^H C (side left, C is h.rows x n), C H or C H^H (side right, C is m x h.rows).
template <class T>
Status apply_block(Side side, bool conj_h, int c_rows, int c_cols, const BlockReflector<T> &h, T *dC, size_t lddc,
                   const QrWork<T> &w, cudaStream_t stream) {
  const Op n = Op::none, c = Op::conj_trans;
  const int ib = h.cols;
  Status s;
  if (side == Side::left) {
    if (c_cols <= 0) return Status::ok;
    if ((s = gemm_device<T>(c, n, ib, c_cols, h.rows, T(1), h.v, h.ldv, dC, lddc, T(0), w.w, w.ldw, stream, {}, w.gemm,
                            w.gemm_bytes)) != Status::ok)
      return s;
    if ((s = gemm_device<T>(conj_if(conj_h), n, ib, c_cols, ib, T(1), h.t, h.ldt, w.w, w.ldw, T(0), w.w2, w.ldw,
                            stream, {}, w.gemm, w.gemm_bytes)) != Status::ok)
      return s;
    return gemm_device<T>(n, n, h.rows, c_cols, ib, T(-1), h.v, h.ldv, w.w2, w.ldw, T(1), dC, lddc, stream, {},
                          w.gemm, w.gemm_bytes);
  }
  if (c_rows <= 0) return Status::ok;
  if ((s = gemm_device<T>(n, n, c_rows, ib, h.rows, T(1), dC, lddc, h.v, h.ldv, T(0), w.w, w.ldw, stream, {}, w.gemm,
                          w.gemm_bytes)) != Status::ok)
    return s;
  if ((s = gemm_device<T>(n, conj_if(conj_h), c_rows, ib, ib, T(1), w.w, w.ldw, h.t, h.ldt, T(0), w.w2, w.ldw, stream,
                          {}, w.gemm, w.gemm_bytes)) != Status::ok)
    return s;
  return gemm_device<T>(n, c, c_rows, h.rows, ib, T(-1), w.w2, w.ldw, h.v, h.ldv, T(1), dC, lddc, stream, {}, w.gemm,
                        w.gemm_bytes);
}

// The panel kernel's grid for `rows` rows: about kQrPanelRows rows a block, never more blocks
// than the GPU holds at once (they wait for each other).
struct PanelGrid {
  int blocks = 0, rows_per_block = 0;
};
Status panel_grid(int rows, int *capacity, PanelGrid *grid) {
  if (*capacity == 0) {
    const DeviceInfo *info = nullptr;
    if (Status s = check(current_device_info(&info), "qr: device"); s != Status::ok) return s;
    int per_sm = 0;
    // Every instantiation has the same shape; the double one stands for all.
    const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernels::qr_panel<double>, kernels::kQrPanelThreads, 0);
    if (Status s = check(error, "qr: occupancy"); s != Status::ok) return s;
    *capacity = std::min({per_sm * info->sms, info->sms, kernels::kQrPanelMaxBlocks});
    if (*capacity < 1) return check(cudaErrorInvalidConfiguration, "qr: panel occupancy");
  }
  const int blocks = std::clamp(int(ceil_div(rows, tuning::kQrPanelRows)), 1, *capacity);
  grid->rows_per_block = int(ceil_div(rows, blocks));
  grid->blocks = int(ceil_div(rows, grid->rows_per_block));
  return Status::ok;
}

}  // namespace

template <class T>
size_t geqrf_device_workspace(int m, int n) {
  return carve<T>(nullptr, true, Side::left, m, m, n).bytes;
}

template <class T>
Status geqrf_device(int m, int n, T *dA, size_t ldda, T *d_tau, int *d_flag, void *d_work, size_t work_bytes,
                    void *stream_) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const QrWork<T> w = carve<T>(d_work, true, Side::left, m, m, n);
  if (d_work == nullptr || work_bytes < w.bytes) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  const int nb = panel_width(), mn = std::min(m, n);
  auto at = [&](int r, int c) { return dA + size_t(r) + size_t(c) * ldda; };
  cudaError_t error = cudaMemsetAsync(w.arrivals, 0, sizeof(unsigned long long), stream);
  if (error == cudaSuccess) error = cudaMemsetAsync(d_flag, 0, sizeof(int), stream);
  if (Status s = check(error, "geqrf: start"); s != Status::ok) return s;
  unsigned long long base = 0;
  int capacity = 0;
  for (int j = 0; j < mn; j += nb) {
    const int jb = std::min(nb, mn - j), rows = m - j;
    PanelGrid grid;
    if (Status s = panel_grid(rows, &capacity, &grid); s != Status::ok) return s;
    const kernels::QrPanelArgs<T> args{at(j, j), ldda, rows, jb, grid.rows_per_block, d_tau + j,
                                       w.partials, w.arrivals, base, d_flag};
    if (Status s = check(kernels::launch_qr_panel<T>(grid.blocks, args, stream), "geqrf: panel"); s != Status::ok)
      return s;
    base += kernels::qr_panel_arrivals(jb, grid.blocks);
    if (j + jb >= n) continue;
    BlockReflector<T> h;
    if (Status s = block_reflector<T>(rows, jb, at(j, j), ldda, d_tau + j, w, stream, &h); s != Status::ok) return s;
    if (Status s = apply_block<T>(Side::left, true, rows, n - j - jb, h, at(j, j + jb), ldda, w, stream);
        s != Status::ok)
      return s;
  }
  return Status::ok;
}

template <class T>
size_t ormqr_device_workspace(Side side, int m, int n, int) {
  return carve<T>(nullptr, false, side, side == Side::left ? m : n, m, n).bytes;
}

template <class T>
Status ormqr_device(Side side, Op trans, int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dC,
                    size_t lddc, void *d_work, size_t work_bytes, void *stream_) {
  if (m <= 0 || n <= 0 || k <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const bool left = side == Side::left, conj_h = trans.transposed();
  const int nq = left ? m : n;
  const QrWork<T> w = carve<T>(d_work, false, side, nq, m, n);
  if (d_work == nullptr || work_bytes < w.bytes) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  const int nb = panel_width(), blocks = int(ceil_div(k, nb));
  // Q = H_1 ... H_k: Q^H C and C Q take the blocks first to last, Q C and C Q^H last to first.
  const bool forward = left == conj_h;
  for (int step = 0; step < blocks; ++step) {
    const int i = (forward ? step : blocks - 1 - step) * nb, ib = std::min(nb, k - i);
    BlockReflector<T> h;
    const T *v = dA + size_t(i) + size_t(i) * ldda;
    if (Status s = block_reflector<T>(nq - i, ib, v, ldda, d_tau + i, w, stream, &h); s != Status::ok) return s;
    Status s = left ? apply_block<T>(Side::left, conj_h, nq - i, n, h, dC + size_t(i), lddc, w, stream)
                    : apply_block<T>(Side::right, conj_h, m, nq - i, h, dC + size_t(i) * lddc, lddc, w, stream);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

template <class T>
size_t orgqr_device_workspace(int m, int n, int) {
  return carve<T>(nullptr, false, Side::left, m, m, n).bytes;
}

template <class T>
Status orgqr_device(int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dQ, size_t lddq, void *d_work,
                    size_t work_bytes, void *stream_) {
  if (m <= 0 || n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const QrWork<T> w = carve<T>(d_work, false, Side::left, m, m, n);
  if (d_work == nullptr || work_bytes < w.bytes) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  if (Status s = check(kernels::launch_set_identity<T>(m, n, dQ, lddq, stream), "orgqr: identity"); s != Status::ok)
    return s;
  const int nb = panel_width(), blocks = int(ceil_div(k, nb));
  // Q = H_1 ... H_k I, the blocks last to first. Before block i is applied, Q's columns left of
  // i are still the identity's (no later reflector changes them) and its rows above i are zero
  // right of i: the block changes only Q(i:m, i:n).
  for (int step = blocks - 1; step >= 0; --step) {
    const int i = step * nb, ib = std::min(nb, k - i);
    BlockReflector<T> h;
    const T *v = dA + size_t(i) + size_t(i) * ldda;
    if (Status s = block_reflector<T>(m - i, ib, v, ldda, d_tau + i, w, stream, &h); s != Status::ok) return s;
    T *c = dQ + size_t(i) + size_t(i) * lddq;
    if (Status s = apply_block<T>(Side::left, false, m - i, n - i, h, c, lddq, w, stream); s != Status::ok) return s;
  }
  return Status::ok;
}

// ---- LQ: the QR of the conjugate transpose ----
// xGELQ2 conjugates row i, takes xLARFG's reflector of it, applies it from the right to the rows
// below and conjugates the row back: the reflector H(i) = I - tau v v^H is the one xGEQR2 takes
// of column i of A^H, with the same tau, and the row keeps beta on the diagonal and conj(v)
// right of it. So xGELQF's A is the conjugate transpose of xGEQRF's factor of A^H (L = R^H, the
// rows' vectors the columns' conjugated), tau the same, and its Q = H(k)^H ... H(1)^H is Q'^H
// for the QR's Q' = H(1) ... H(k): xORMLQ's op(Q) is xORMQR's opposite op on the reflectors of
// A^H, xORGLQ's rows Q' columns conjugate transposed.

namespace {

// Bytes of a rows x cols matrix at a padded leading dimension, 256-byte aligned.
template <class T>
size_t matrix_bytes(int rows, int cols) {
  return size_t(round_up(padded_ld(size_t(std::max(rows, 1)), sizeof(T)) * size_t(std::max(cols, 1)) * sizeof(T),
                         256));
}

template <class T>
size_t lead(int rows) {
  return padded_ld(size_t(std::max(rows, 1)), sizeof(T));
}

Op opposite(Op trans) { return trans.transposed() ? Op::none : Op::conj_trans; }

}  // namespace

template <class T>
size_t gelqf_device_workspace(int m, int n) {
  return matrix_bytes<T>(n, m) + geqrf_device_workspace<T>(n, m);
}

template <class T>
Status gelqf_device(int m, int n, T *dA, size_t ldda, T *d_tau, int *d_flag, void *d_work, size_t work_bytes,
                    void *stream_) {
  if (m <= 0 || n <= 0) return Status::ok;
  const size_t at_bytes = matrix_bytes<T>(n, m), ldat = lead<T>(n);
  if (d_work == nullptr || work_bytes < gelqf_device_workspace<T>(m, n)) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  T *at = static_cast<T *>(d_work);
  void *rest = static_cast<char *>(d_work) + at_bytes;
  if (Status s = check(kernels::launch_conjugate_transpose<T>(m, n, dA, ldda, at, ldat, stream), "gelqf: A^H");
      s != Status::ok)
    return s;
  if (Status s = geqrf_device<T>(n, m, at, ldat, d_tau, d_flag, rest, work_bytes - at_bytes, stream); s != Status::ok)
    return s;
  return check(kernels::launch_conjugate_transpose<T>(n, m, at, ldat, dA, ldda, stream), "gelqf: L");
}

template <class T>
size_t ormlq_device_workspace(Side side, int m, int n, int k) {
  const int nq = side == Side::left ? m : n;
  return matrix_bytes<T>(nq, k) + ormqr_device_workspace<T>(side, m, n, k);
}

template <class T>
Status ormlq_device(Side side, Op trans, int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dC,
                    size_t lddc, void *d_work, size_t work_bytes, void *stream_) {
  if (m <= 0 || n <= 0 || k <= 0) return Status::ok;
  const int nq = side == Side::left ? m : n;
  const size_t v_bytes = matrix_bytes<T>(nq, k), ldv = lead<T>(nq);
  if (d_work == nullptr || work_bytes < ormlq_device_workspace<T>(side, m, n, k)) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  T *v = static_cast<T *>(d_work);
  if (Status s = check(kernels::launch_conjugate_transpose<T>(k, nq, dA, ldda, v, ldv, stream), "ormlq: V");
      s != Status::ok)
    return s;
  return ormqr_device<T>(side, opposite(trans), m, n, k, v, ldv, d_tau, dC, lddc, static_cast<char *>(d_work) + v_bytes,
                         work_bytes - v_bytes, stream);
}

template <class T>
size_t orglq_device_workspace(int m, int n, int k) {
  return matrix_bytes<T>(n, k) + matrix_bytes<T>(n, m) + orgqr_device_workspace<T>(n, m, k);
}

template <class T>
Status orglq_device(int m, int n, int k, const T *dA, size_t ldda, const T *d_tau, T *dQ, size_t lddq, void *d_work,
                    size_t work_bytes, void *stream_) {
  if (m <= 0 || n <= 0) return Status::ok;
  const size_t v_bytes = matrix_bytes<T>(n, k), q_bytes = matrix_bytes<T>(n, m), ldv = lead<T>(n);
  if (d_work == nullptr || work_bytes < orglq_device_workspace<T>(m, n, k)) return Status::out_of_memory;
  auto stream = static_cast<cudaStream_t>(stream_);
  T *v = static_cast<T *>(d_work);
  T *qt = reinterpret_cast<T *>(static_cast<char *>(d_work) + v_bytes);
  if (Status s = check(kernels::launch_conjugate_transpose<T>(k, n, dA, ldda, v, ldv, stream), "orglq: V");
      s != Status::ok)
    return s;
  if (Status s = orgqr_device<T>(n, m, k, v, ldv, d_tau, qt, ldv, static_cast<char *>(d_work) + v_bytes + q_bytes,
                                 work_bytes - v_bytes - q_bytes, stream);
      s != Status::ok)
    return s;
  return check(kernels::launch_conjugate_transpose<T>(n, m, qt, ldv, dQ, lddq, stream), "orglq: Q");
}

#define CUDROP_QR_DEVICE(T)                                                                                           \
  template size_t geqrf_device_workspace<T>(int, int);                                                                \
  template Status geqrf_device<T>(int, int, T *, size_t, T *, int *, void *, size_t, void *);                         \
  template size_t ormqr_device_workspace<T>(Side, int, int, int);                                                     \
  template Status ormqr_device<T>(Side, Op, int, int, int, const T *, size_t, const T *, T *, size_t, void *, size_t, \
                                  void *);                                                                            \
  template size_t orgqr_device_workspace<T>(int, int, int);                                                           \
  template Status orgqr_device<T>(int, int, int, const T *, size_t, const T *, T *, size_t, void *, size_t, void *); \
  template size_t gelqf_device_workspace<T>(int, int);                                                                \
  template Status gelqf_device<T>(int, int, T *, size_t, T *, int *, void *, size_t, void *);                         \
  template size_t ormlq_device_workspace<T>(Side, int, int, int);                                                     \
  template Status ormlq_device<T>(Side, Op, int, int, int, const T *, size_t, const T *, T *, size_t, void *, size_t, \
                                  void *);                                                                            \
  template size_t orglq_device_workspace<T>(int, int, int);                                                           \
  template Status orglq_device<T>(int, int, int, const T *, size_t, const T *, T *, size_t, void *, size_t, void *);
CUDROP_QR_DEVICE(float)
CUDROP_QR_DEVICE(double)
CUDROP_QR_DEVICE(Complex<float>)
CUDROP_QR_DEVICE(Complex<double>)
#undef CUDROP_QR_DEVICE

}  // namespace cudrop::impl
