#include "route/finish_on_cpu.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "impl/potrf/potrf_plan.h"
#include "cpu/backend.h"

namespace cudrop {
namespace {

// C := C - A A^T (syrk) or C - A A^H (herk, real alpha and beta) on the `uplo` triangle of
// the n x n C; trans 'N': A is n x k, else k x n.
template <class T>
void rank_k_downdate(char uplo, char trans, int n, int k, const T *a, int lda, T *c, int ldc) {
  const char t = trans == 'N' ? 'N' : is_complex_v<T> ? 'C' : 'T';
  if constexpr (is_complex_v<T>) {
    const real_t<T> one = 1, minus_one = -1;
    cpu::routine<Family::herk, T>()(&uplo, &t, &n, &k, &minus_one, a, &lda, &one, c, &ldc, 1, 1);
  } else {
    const T one = 1, minus_one = -1;
    cpu::routine<Family::syrk, T>()(&uplo, &t, &n, &k, &minus_one, a, &lda, &one, c, &ldc, 1, 1);
  }
}

}  // namespace

template <class T>
void gemm_finish_on_cpu(const GemmArgs<T> &g, const impl::GemmProgress &progress) {
  const std::vector<impl::GemmBlock> &blocks = progress.blocks;
  const std::vector<int> &written = progress.written;
  const auto gemm = cpu::routine_cached<Family::gemm, T>();
  const char ta = g.trans_a.letter(), tb = g.trans_b.letter();
  for (size_t b = 0; b < blocks.size(); ++b) {
    const impl::GemmBlock &blk = blocks[b];
    if (written[b] >= blk.cols) continue;
    const int j0 = blk.j0 + written[b];
    const int rows = blk.rows, cols = blk.cols - written[b], k = g.k;
    const T *a = g.trans_a ? g.a + size_t(blk.i0) * size_t(g.lda) : g.a + size_t(blk.i0);
    const T *bp = g.trans_b ? g.b + size_t(j0) : g.b + size_t(j0) * size_t(g.ldb);
    T *c = g.c + size_t(blk.i0) + size_t(j0) * size_t(g.ldc);
    gemm(&ta, &tb, &rows, &cols, &k, &g.alpha, a, &g.lda, bp, &g.ldb, &g.beta, c, &g.ldc, 1, 1);
  }
}

// The reference's blocked xPOTRF from column progress.columns on (a complex T: Hermitian,
// CHERK where SSYRK stands and 'C' where 'T').
template <class T>
void potrf_finish_on_cpu(bool upper, int n, T *a, int lda, const impl::PotrfProgress &progress, int *info) {
  const auto trsm = cpu::routine<Family::trsm, T>();
  const auto gemm = cpu::routine_cached<Family::gemm, T>();
  const auto potrf = cpu::routine<Family::potrf, T>();
  const T one = T(1), minus_one = T(-1);
  const char *ct = is_complex_v<T> ? "C" : "T";
  auto A = [&](int i, int j) { return a + size_t(i) + size_t(j) * size_t(lda); };
  const int d = progress.columns;
  if (upper && d > 0 && d + progress.u12_columns < n) {
    const int cols = n - d - progress.u12_columns;
    trsm("L", "U", ct, "N", &d, &cols, &one, a, &lda, A(0, d + progress.u12_columns), &lda, 1, 1, 1, 1);
  }
  *info = 0;
  for (int j = d; j < n; j += impl::kPotrfNb) {
    const int jb = std::min(impl::kPotrfNb, n - j), rest = n - j - jb;
    int block_info = 0;
    if (upper) {
      rank_k_downdate('U', 'T', jb, j, A(0, j), lda, A(j, j), lda);
      potrf("U", &jb, A(j, j), &lda, &block_info, 1);
      if (block_info != 0) {
        *info = j + block_info;
        return;
      }
      if (rest > 0) {
        gemm(ct, "N", &jb, &rest, &j, &minus_one, A(0, j), &lda, A(0, j + jb), &lda, &one, A(j, j + jb), &lda, 1, 1);
        trsm("L", "U", ct, "N", &jb, &rest, &one, A(j, j), &lda, A(j, j + jb), &lda, 1, 1, 1, 1);
      }
    } else {
      rank_k_downdate('L', 'N', jb, j, A(j, 0), lda, A(j, j), lda);
      potrf("L", &jb, A(j, j), &lda, &block_info, 1);
      if (block_info != 0) {
        *info = j + block_info;
        return;
      }
      if (rest > 0) {
        gemm("N", ct, &rest, &jb, &j, &minus_one, A(j + jb, 0), &lda, A(j, 0), &lda, &one, A(j + jb, j), &lda, 1, 1);
        trsm("R", "L", ct, "N", &rest, &jb, &one, A(j, j), &lda, A(j + jb, j), &lda, 1, 1, 1, 1);
      }
    }
  }
}

template <class T>
void gesv_finish_on_cpu(int n, int nrhs, T *a, int lda, int *ipiv, T *b, int ldb, const impl::GesvProgress &progress,
                        int *info) {
  const auto laswp = cpu::routine<Family::laswp, T>();
  const auto getrf = cpu::routine<Family::getrf, T>();
  const auto getrs = cpu::routine<Family::getrs, T>();
  const auto trsm = cpu::routine<Family::trsm, T>();
  const auto gemm = cpu::routine_cached<Family::gemm, T>();
  const T one = T(1), minus_one = T(-1);
  const int inc = 1;
  auto A = [&](int i, int j) { return a + size_t(i) + size_t(j) * size_t(lda); };
  const int d = progress.lu_columns;
  int factor_info = progress.info;
  if (d < n) {
    const int rest = n - d;
    if (d > 0) {
      // The GPU's factor columns hold L with every interchange applied, the later ones too:
      // undone first, they hold L as it stood after step d.
      const int k1 = d + 1, backward = -1;
      laswp(&d, a, &lda, &k1, &n, ipiv, &backward);
      laswp(&rest, A(0, d), &lda, &inc, &d, ipiv, &inc);
      trsm("L", "L", "N", "U", &d, &rest, &one, a, &lda, A(0, d), &lda, 1, 1, 1, 1);
      gemm("N", "N", &rest, &rest, &d, &minus_one, A(d, 0), &lda, A(0, d), &lda, &one, A(d, d), &lda, 1, 1);
    }
    int trailing_info = 0;
    getrf(&rest, &rest, A(d, d), &lda, ipiv + d, &trailing_info);
    for (int i = d; i < n; ++i) ipiv[i] += d;
    if (d > 0) {
      const int k1 = d + 1;
      laswp(&d, a, &lda, &k1, &n, ipiv, &inc);
    }
    // The first exactly-zero pivot: among the GPU's columns if there is one, else the CPU's.
    if (!(factor_info >= 1 && factor_info <= d)) factor_info = trailing_info != 0 ? d + trailing_info : 0;
  }
  const int done = progress.x_columns, left = nrhs - done;
  if (factor_info == 0 && left > 0) {
    int solve_info = 0;
    getrs("N", &n, &left, a, &lda, ipiv, b + size_t(done) * size_t(ldb), &ldb, &solve_info, 1);
  }
  *info = factor_info;
}

template <class T>
void posv_finish_on_cpu(bool upper, int n, int nrhs, T *a, int lda, T *b, int ldb, const impl::PotrfProgress &progress,
                        int *info) {
  potrf_finish_on_cpu<T>(upper, n, a, lda, progress, info);
  const int done = progress.x_columns, left = nrhs - done;
  if (*info != 0 || left <= 0) return;
  int solve_info = 0;
  cpu::routine<Family::potrs, T>()(upper ? "U" : "L", &n, &left, a, &lda,
                                                     b + size_t(done) * size_t(ldb), &ldb, &solve_info, 1);
}

template void gemm_finish_on_cpu<float>(const GemmArgs<float> &, const impl::GemmProgress &);
template void gemm_finish_on_cpu<double>(const GemmArgs<double> &, const impl::GemmProgress &);
template void gemm_finish_on_cpu<Complex<float>>(const GemmArgs<Complex<float>> &, const impl::GemmProgress &);
template void gemm_finish_on_cpu<Complex<double>>(const GemmArgs<Complex<double>> &, const impl::GemmProgress &);
template void potrf_finish_on_cpu<float>(bool, int, float *, int, const impl::PotrfProgress &, int *);
template void potrf_finish_on_cpu<double>(bool, int, double *, int, const impl::PotrfProgress &, int *);
template void potrf_finish_on_cpu<Complex<float>>(bool, int, Complex<float> *, int, const impl::PotrfProgress &, int *);
template void potrf_finish_on_cpu<Complex<double>>(bool, int, Complex<double> *, int, const impl::PotrfProgress &,
                                                   int *);
#define CUDROP_SOLVE_FINISH_INSTANCES(T)                                                                       \
  template void gesv_finish_on_cpu<T>(int, int, T *, int, int *, T *, int, const impl::GesvProgress &, int *); \
  template void posv_finish_on_cpu<T>(bool, int, int, T *, int, T *, int, const impl::PotrfProgress &, int *);
CUDROP_SOLVE_FINISH_INSTANCES(float)
CUDROP_SOLVE_FINISH_INSTANCES(double)
CUDROP_SOLVE_FINISH_INSTANCES(Complex<float>)
CUDROP_SOLVE_FINISH_INSTANCES(Complex<double>)
#undef CUDROP_SOLVE_FINISH_INSTANCES

namespace {

// Q's letter for Q^H: 'C' for a complex T, 'T' for a real one.
template <class T>
constexpr const char *conj_letter() {
  return is_complex_v<T> ? "C" : "T";
}

// xORMQR or xUNMQR, with the workspace it asks for.
template <class T>
void multiply_by_q_on_cpu(const char *side, const char *trans, int m, int n, int k, const T *a, int lda,
                          const T *tau, T *c, int ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  constexpr Family F = is_complex_v<T> ? Family::unmqr : Family::ormqr;
  const auto apply = cpu::routine<F, T>();
  T size = T(0);
  int lwork = -1, info = 0;
  apply(side, trans, &m, &n, &k, a, &lda, tau, c, &ldc, &size, &lwork, &info, 1, 1);
  lwork = std::max(1, int(real_part(size)));
  std::vector<T> work(static_cast<size_t>(lwork));
  apply(side, trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork, &info, 1, 1);
}

}  // namespace

template <class T>
void geqrf_finish_on_cpu(int m, int n, T *a, int lda, T *tau, const impl::QrProgress &progress) {
  const int mn = std::min(m, n), c = progress.a_columns, kc = std::min(c, mn);
  std::memcpy(tau, progress.tau.data(), size_t(kc) * sizeof(T));
  if (c >= n) return;
  multiply_by_q_on_cpu<T>("L", conj_letter<T>(), m, n - c, kc, a, lda, tau, a + size_t(c) * lda, lda);
  if (kc >= mn) return;
  int rows = m - kc, cols = n - kc, info = 0, lwork = -1;
  T *rest = a + size_t(kc) + size_t(kc) * lda;
  const auto geqrf = cpu::routine<Family::geqrf, T>();
  T size = T(0);
  geqrf(&rows, &cols, rest, &lda, tau + kc, &size, &lwork, &info);
  lwork = std::max(1, int(real_part(size)));
  std::vector<T> work(static_cast<size_t>(lwork));
  geqrf(&rows, &cols, rest, &lda, tau + kc, work.data(), &lwork, &info);
}

template <class T>
void ormqr_finish_on_cpu(char trans, int m, int n, int k, const T *a, int lda, const T *tau, T *c, int ldc,
                         const impl::QrProgress &progress) {
  const int done = progress.b_columns;
  const char letter[2] = {trans, 0};
  multiply_by_q_on_cpu<T>("L", letter, m, n - done, k, a, lda, tau, c + size_t(done) * ldc, ldc);
}

template <class T>
int gels_finish_on_cpu(char trans, int m, int n, int nrhs, T *a, int lda, T *b, int ldb,
                       const impl::QrProgress &progress) {
  std::vector<T> tau(static_cast<size_t>(n));
  geqrf_finish_on_cpu<T>(m, n, a, lda, tau.data(), progress);
  // B's columns the GPU wrote hold X only once A came back whole.
  const int done = progress.a_columns >= n ? progress.b_columns : 0, cols = nrhs - done;
  if (cols <= 0) return 0;
  T *rest = b + size_t(done) * ldb;
  int info = 0;
  const auto trtrs = cpu::routine<Family::trtrs, T>();
  if (trans == 'N') {
    multiply_by_q_on_cpu<T>("L", conj_letter<T>(), m, cols, n, a, lda, tau.data(), rest, ldb);
    trtrs("U", "N", "N", &n, &cols, a, &lda, rest, &ldb, &info, 1, 1, 1);
    return info;
  }
  trtrs("U", conj_letter<T>(), "N", &n, &cols, a, &lda, rest, &ldb, &info, 1, 1, 1);
  if (info != 0) return info;
  for (int j = 0; j < cols; ++j)
    for (int i = n; i < m; ++i) rest[size_t(i) + size_t(j) * ldb] = T(0);
  multiply_by_q_on_cpu<T>("L", "N", m, cols, n, a, lda, tau.data(), rest, ldb);
  return 0;
}

#define CUDROP_QR_FINISH(T)                                                                                    \
  template void geqrf_finish_on_cpu<T>(int, int, T *, int, T *, const impl::QrProgress &);                     \
  template void ormqr_finish_on_cpu<T>(char, int, int, int, const T *, int, const T *, T *, int,               \
                                       const impl::QrProgress &);                                              \
  template int gels_finish_on_cpu<T>(char, int, int, int, T *, int, T *, int, const impl::QrProgress &);
CUDROP_QR_FINISH(float)
CUDROP_QR_FINISH(double)
CUDROP_QR_FINISH(Complex<float>)
CUDROP_QR_FINISH(Complex<double>)
#undef CUDROP_QR_FINISH

}  // namespace cudrop
