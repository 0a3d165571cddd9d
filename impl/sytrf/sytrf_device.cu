// Symmetric indefinite factorization on the GPU, the device interface (impl/sytrf/sytrf.h):
// xSYTRF/xLASYF's blocked Bunch–Kaufman. Each panel of kSytrfNb columns is one cooperative
// kernel (kernels/sytrf_panel.cuh) that makes every pivot choice on the device; the host reads
// back only how many columns it took (nb or nb - 1, a 2x2 block may not straddle panels), then
// the trailing update A22 -= L21 W21^T is one GEMM that stores only the triangle, and the
// panel's interchanges in its own earlier columns are undone (the reference's product form).
#include <algorithm>

#include "core/layout.h"
#include "impl/context/device_info.h"
#include "impl/context/gpu_context.cuh"
#include "impl/gemm/gemm.h"
#include "impl/sytrf/sytrf.h"
#include "kernels/sytrf_panel.cuh"

namespace cudrop::impl {
namespace {

// The reference's panel width (ILAENV's 64 for xSYTRF/xHETRF): the last panel is the part the
// reference leaves to the unblocked xSYTF2/xHETF2, which stores a singular column differently.
constexpr int kSytrfNb = 64;
static_assert(kSytrfNb <= kernels::kSytrfMaxNb, "W's row of a panel lives in shared memory");
constexpr int kSytrfMaxBlocks = 1024;

struct SytrfWork {
  size_t w_offset, partial_offset, index_offset, published_offset, local_offset, kb_offset, gemm_offset, gemm_bytes,
      bytes;
};

template <class T>
SytrfWork sytrf_work_layout(int n) {
  SytrfWork l{};
  const size_t ldw = padded_ld(size_t(std::max(n, 1)), sizeof(T));
  size_t at = 0;
  auto take = [&](size_t bytes) {
    const size_t here = at;
    at = size_t(round_up(at + bytes, 256));
    return here;
  };
  l.w_offset = take(ldw * kSytrfNb * sizeof(T));
  l.partial_offset = take(2 * kSytrfMaxBlocks * sizeof(real_t<T>));
  l.index_offset = take(2 * kSytrfMaxBlocks * sizeof(int));
  l.published_offset = take(sizeof(kernels::SytrfPublished<T>));
  l.local_offset = take(kSytrfNb * sizeof(int));
  l.kb_offset = take(sizeof(int));
  // The trailing updates' (a complex product's widened operands): the first is the largest.
  l.gemm_bytes = n > 1 ? gemm_device_workspace<T>(Op::none, Op::trans, n - 1, n - 1, kSytrfNb) : 0;
  l.gemm_offset = take(l.gemm_bytes);
  l.bytes = at;
  return l;
}

}  // namespace

template <class T>
size_t sytrf_device_workspace(int n) {
  return sytrf_work_layout<T>(n).bytes;
}

template <class T>
Status sytrf_device(Symmetry symmetry, Uplo uplo, int n, T *dA, size_t ldda, int *d_ipiv, int *d_info, void *d_work,
                    void *stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (Status s = check(cudaMemsetAsync(d_info, 0, sizeof(int), stream), "sytrf: info"); s != Status::ok) return s;
  if (n <= 0) return Status::ok;
  if (inject_fault("launch")) return Status::cuda_error;
  const DeviceInfo *info = nullptr;
  if (Status s = check(current_device_info(&info), "sytrf: device attributes"); s != Status::ok) return s;
  const SytrfWork l = sytrf_work_layout<T>(n);
  char *work = static_cast<char *>(d_work);
  const bool upper = uplo == Uplo::upper;
  kernels::SytrfPanel<T> p{};
  p.a = dA;
  p.lda = ldda;
  p.w = reinterpret_cast<T *>(work + l.w_offset);
  p.ldw = padded_ld(size_t(n), sizeof(T));
  p.n = n;
  p.nb = kSytrfNb;
  p.upper = upper;
  p.hermitian = symmetry == Symmetry::hermitian;
  p.ipiv = d_ipiv;
  p.info = d_info;
  p.local_ipiv = reinterpret_cast<int *>(work + l.local_offset);
  p.kb = reinterpret_cast<int *>(work + l.kb_offset);
  p.partial_value = reinterpret_cast<real_t<T> *>(work + l.partial_offset);
  p.partial_index = reinterpret_cast<int *>(work + l.index_offset);
  p.published = reinterpret_cast<kernels::SytrfPublished<T> *>(work + l.published_offset);
  int *kb_host = nullptr;  // pinned: the panel's width comes back with one small copy
  if (Status s = check(cudaMallocHost(&kb_host, sizeof(int)), "sytrf: pinned word"); s != Status::ok) return s;
  struct FreeHost {
    int *p;
    ~FreeHost() { cudaFreeHost(p); }
  } free_host{kb_host};
  for (int k0 = 0; k0 < n;) {
    const int m = n - k0;
    p.k0 = k0;
    p.last = m <= kSytrfNb;
    const int blocks = std::min(kSytrfMaxBlocks, kernels::sytrf_panel_blocks<T>(info->sms, m));
    cudaError_t error = kernels::launch_sytrf_panel<T>(p, blocks, stream);
    if (error == cudaSuccess) error = cudaMemcpyAsync(kb_host, p.kb, sizeof(int), cudaMemcpyDeviceToHost, stream);
    if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
    if (Status s = check(error, "sytrf: panel"); s != Status::ok) return s;
    const int kb = *kb_host;
    if (kb < 1 || kb > m) return check(cudaErrorUnknown, "sytrf: panel width");
    if (!p.last && kb < m) {
      // A22 -= L21 W21^T, the triangle only (the reference's xGEMMTR).
      const int r = m - kb;
      Status s;
      if (!upper) {
        T *a21 = dA + size_t(k0 + kb) + size_t(k0) * ldda;
        T *a22 = dA + size_t(k0 + kb) + size_t(k0 + kb) * ldda;
        s = gemm_device<T>(Op::none, Op::trans, r, r, kb, T(-1), a21, ldda, p.w + size_t(kb), p.ldw, T(1), a22, ldda,
                           stream, GemmPart(GemmStore::lower), work + l.gemm_offset, l.gemm_bytes);
      } else {
        T *a12 = dA + size_t(r) * ldda;
        s = gemm_device<T>(Op::none, Op::trans, r, r, kb, T(-1), a12, ldda, p.w + size_t(kSytrfNb - kb) * p.ldw, p.ldw,
                           T(1), dA, ldda, stream, GemmPart(GemmStore::upper), work + l.gemm_offset, l.gemm_bytes);
      }
      if (s != Status::ok) return s;
    }
    if (Status s = check(kernels::launch_sytrf_panel_unswap<T>(p, stream), "sytrf: panel"); s != Status::ok) return s;
    k0 += kb;
  }
  return Status::ok;
}

#define CUDROP_SYTRF_DEVICE_INSTANCES(T)                 \
  template size_t sytrf_device_workspace<T>(int);        \
  template Status sytrf_device<T>(Symmetry, Uplo, int, T *, size_t, int *, int *, void *, void *);
CUDROP_SYTRF_DEVICE_INSTANCES(float)
CUDROP_SYTRF_DEVICE_INSTANCES(double)
CUDROP_SYTRF_DEVICE_INSTANCES(Complex<float>)
CUDROP_SYTRF_DEVICE_INSTANCES(Complex<double>)
#undef CUDROP_SYTRF_DEVICE_INSTANCES

}  // namespace cudrop::impl
