// QR entry points: ?geqrf_, ?ormqr_/?unmqr_, ?orgqr_/?ungqr_, ?gels_, and their LQ twins
// ?gelqf_, ?ormlq_/?unmlq_, ?orglq_/?unglq_. The reference routine's
// argument checks in the reference order; workspace queries (LWORK = -1) and quick returns go
// to the CPU routine, whose answers they are; every other call is one routed call (GPU or the
// CPU LAPACK underneath). The GPU needs no host workspace: WORK(1) gets the optimal LWORK the
// CPU routine reports, as the reference sets it (docs/semantics.md).
#include <algorithm>
#include <cstdio>
#include <vector>

#include "capi/cpu_call.h"
#include "capi/report.h"
#include "core/letter.h"
#include "core/routines.h"
#include "impl/qr/qr.h"
#include "route/dispatch.h"
#include "route/finish_on_cpu.h"

namespace cudrop::capi {
namespace {

const char *labelled(const RoutineNames &names, char *label, size_t size, const char *format, int a, int b, int c) {
  if (settings().verbose < 2) return names.symbol;
  std::snprintf(label, size, format, names.symbol, a, b, c);
  return label;
}

}  // namespace

template <class T>
void geqrf(const int *m, const int *n, T *a, const int *lda, T *tau, T *work, const int *lwork, int *info,
           const void *caller) {
  constexpr Family F = Family::geqrf;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const bool query = *lwork == -1;
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*lda < std::max(1, *m)) illegal = 4;
  else if (!query && (*lwork <= 0 || (*m > 0 && *lwork < std::max(1, *n)))) illegal = 7;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, m, n, a, lda, tau, work, lwork, info);
    return;
  }
  if (query || std::min(*m, *n) == 0) return cpu_call<F, T>(m, n, a, lda, tau, work, lwork, info);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d)", *m, *n, 0), std::min(*m, *n) >= settings().qr_min_n,
        names.cpu,
        [&](impl::QrProgress *progress) {
          const Status s = impl::geqrf_host<T>(*m, *n, a, *lda, tau, progress);
          if (s == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, a, lda, tau, w, lw, i); });
          }
          return s;
        },
        [&] { cpu::routine<F, T>()(m, n, a, lda, tau, work, lwork, info); },
        finish_on_cpu<impl::QrProgress>(names.symbol, [&](const impl::QrProgress &progress) {
          geqrf_finish_on_cpu<T>(*m, *n, a, *lda, tau, progress);
          *info = 0;
        }));
}

// ?ormqr_ (real) and ?unmqr_ (complex): one routine, two rows.
template <Family F, class T>
void multiply_by_q(const char *side, const char *trans, const int *m, const int *n, const int *k, const T *a,
                   const int *lda, const T *tau, T *c, const int *ldc, T *work, const int *lwork, int *info,
                   size_t side_len, size_t trans_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char s = upper(*side), t = upper(*trans);
  const bool left = s == 'L', query = *lwork == -1;
  const int nq = left ? *m : *n, nw = std::max(1, left ? *n : *m);
  const char conj_letter = is_complex_v<T> ? 'C' : 'T';
  int illegal = 0;
  if (!left && s != 'R') illegal = 1;
  else if (t != 'N' && t != conj_letter) illegal = 2;
  else if (*m < 0) illegal = 3;
  else if (*n < 0) illegal = 4;
  else if (*k < 0 || *k > nq) illegal = 5;
  else if (*lda < std::max(1, nq)) illegal = 7;
  else if (*ldc < std::max(1, *m)) illegal = 10;
  else if (*lwork < nw && !query) illegal = 12;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, side, trans, m, n, k, a, lda, tau, c, ldc, work,
                                       lwork, info, side_len, trans_len);
    return;
  }
  if (query || *m == 0 || *n == 0 || *k == 0)
    return cpu_call<F, T>(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, side_len, trans_len);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d,k=%d)", *m, *n, *k),
        std::min({*m, *n, *k}) >= settings().qr_min_n, names.cpu,
        [&](impl::QrProgress *progress) {
          const Status st = impl::ormqr_host<T>(side_of(s), t == 'N' ? Op::none : Op::conj_trans, *m, *n, *k, a, *lda,
                                                tau, c, *ldc, progress);
          if (st == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) {
              fn(side, trans, m, n, k, a, lda, tau, c, ldc, w, lw, i, 1, 1);
            });
          }
          return st;
        },
        [&] { cpu::routine<F, T>()(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, 1, 1); },
        finish_on_cpu<impl::QrProgress>(names.symbol, [&](const impl::QrProgress &progress) {
          ormqr_finish_on_cpu<T>(t, *m, *n, *k, a, *lda, tau, c, *ldc, progress);
          *info = 0;
        }));
}

template <class T>
void ormqr(const char *side, const char *trans, const int *m, const int *n, const int *k, const T *a, const int *lda,
           const T *tau, T *c, const int *ldc, T *work, const int *lwork, int *info, size_t side_len,
           size_t trans_len, const void *caller) {
  multiply_by_q<Family::ormqr, T>(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, side_len, trans_len,
                                  caller);
}
template <class T>
void unmqr(const char *side, const char *trans, const int *m, const int *n, const int *k, const T *a, const int *lda,
           const T *tau, T *c, const int *ldc, T *work, const int *lwork, int *info, size_t side_len,
           size_t trans_len, const void *caller) {
  multiply_by_q<Family::unmqr, T>(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, side_len, trans_len,
                                  caller);
}

// ?orgqr_ (real) and ?ungqr_ (complex).
template <Family F, class T>
void generate_q(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work,
                const int *lwork, int *info, const void *caller) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const bool query = *lwork == -1;
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < 0 || *n > *m) illegal = 2;
  else if (*k < 0 || *k > *n) illegal = 3;
  else if (*lda < std::max(1, *m)) illegal = 5;
  else if (*lwork < std::max(1, *n) && !query) illegal = 8;
  if (illegal == 8)
    set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, k, a, lda, tau, w, lw, i); });
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, m, n, k, a, lda, tau, work, lwork, info);
    return;
  }
  if (query || *n == 0) return cpu_call<F, T>(m, n, k, a, lda, tau, work, lwork, info);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d,k=%d)", *m, *n, *k), *n >= settings().qr_min_n, names.cpu,
        [&] {
          impl::QrProgress progress;  // a failure puts the reflectors back: nothing to finish
          const Status s = impl::orgqr_host<T>(*m, *n, *k, a, *lda, tau, &progress);
          if (s == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, k, a, lda, tau, w, lw, i); });
          }
          return s;
        },
        [&] { cpu::routine<F, T>()(m, n, k, a, lda, tau, work, lwork, info); });
}

template <class T>
void orgqr(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work, const int *lwork,
           int *info, const void *caller) {
  generate_q<Family::orgqr, T>(m, n, k, a, lda, tau, work, lwork, info, caller);
}
template <class T>
void ungqr(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work, const int *lwork,
           int *info, const void *caller) {
  generate_q<Family::ungqr, T>(m, n, k, a, lda, tau, work, lwork, info, caller);
}

template <class T>
void gels(const char *trans, const int *m, const int *n, const int *nrhs, T *a, const int *lda, T *b, const int *ldb,
          T *work, const int *lwork, int *info, size_t trans_len, const void *caller) {
  constexpr Family F = Family::gels;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char t = upper(*trans), conj_letter = is_complex_v<T> ? 'C' : 'T';
  const bool query = *lwork == -1;
  const int mn = std::min(*m, *n);
  int illegal = 0;
  if (t != 'N' && t != conj_letter) illegal = 1;
  else if (*m < 0) illegal = 2;
  else if (*n < 0) illegal = 3;
  else if (*nrhs < 0) illegal = 4;
  else if (*lda < std::max(1, *m)) illegal = 6;
  else if (*ldb < std::max({1, *m, *n})) illegal = 8;
  else if (*lwork < std::max(1, mn + std::max(mn, *nrhs)) && !query) illegal = 10;
  if (illegal == 10)
    set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) {
      fn(trans, m, n, nrhs, a, lda, b, ldb, w, lw, i, 1);
    });
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, trans, m, n, nrhs, a, lda, b, ldb, work, lwork,
                                       info, trans_len);
    return;
  }
  // The QR case (m >= n) and the LQ case (m < n) run on the GPU; queries and quick returns on
  // the CPU.
  if (query || mn == 0 || *nrhs == 0)
    return cpu_call<F, T>(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, trans_len);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d,nrhs=%d)", *m, *n, *nrhs), mn >= settings().qr_min_n,
        names.cpu,
        [&](impl::QrProgress *progress) {
          const Status s =
              impl::gels_host<T>(t == 'N' ? Op::none : Op::conj_trans, *m, *n, *nrhs, a, *lda, b, *ldb, progress);
          if (s == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) {
              fn(trans, m, n, nrhs, a, lda, b, ldb, w, lw, i, 1);
            });
          }
          return s;
        },
        [&] { cpu::routine<F, T>()(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, 1); },
        finish_on_cpu<impl::QrProgress>(names.symbol, [&](const impl::QrProgress &progress) {
          *info = gels_finish_on_cpu<T>(t, *m, *n, *nrhs, a, *lda, b, *ldb, progress);
        }));
}

template <class T>
void gelqf(const int *m, const int *n, T *a, const int *lda, T *tau, T *work, const int *lwork, int *info,
           const void *caller) {
  constexpr Family F = Family::gelqf;
  constexpr const RoutineNames &names = routine_names<F, T>;
  const bool query = *lwork == -1;
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < 0) illegal = 2;
  else if (*lda < std::max(1, *m)) illegal = 4;
  else if (!query && (*lwork <= 0 || (*n > 0 && *lwork < std::max(1, *m)))) illegal = 7;
  // The reference sets WORK(1) before it reports a short LWORK.
  if (illegal == 7)
    set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, a, lda, tau, w, lw, i); });
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, m, n, a, lda, tau, work, lwork, info);
    return;
  }
  if (query || std::min(*m, *n) == 0) return cpu_call<F, T>(m, n, a, lda, tau, work, lwork, info);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d)", *m, *n, 0), std::min(*m, *n) >= settings().qr_min_n,
        names.cpu,
        [&] {
          const Status s = impl::gelqf_host<T>(*m, *n, a, *lda, tau);
          if (s == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, a, lda, tau, w, lw, i); });
          }
          return s;
        },
        [&] { cpu::routine<F, T>()(m, n, a, lda, tau, work, lwork, info); });
}

// ?ormlq_ (real) and ?unmlq_ (complex): one routine, two rows.
template <Family F, class T>
void multiply_by_lq_q(const char *side, const char *trans, const int *m, const int *n, const int *k, const T *a,
                      const int *lda, const T *tau, T *c, const int *ldc, T *work, const int *lwork, int *info,
                      size_t side_len, size_t trans_len, const void *caller) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const char s = upper(*side), t = upper(*trans);
  const bool left = s == 'L', query = *lwork == -1;
  const int nq = left ? *m : *n, nw = std::max(1, left ? *n : *m);
  const char conj_letter = is_complex_v<T> ? 'C' : 'T';
  int illegal = 0;
  if (!left && s != 'R') illegal = 1;
  else if (t != 'N' && t != conj_letter) illegal = 2;
  else if (*m < 0) illegal = 3;
  else if (*n < 0) illegal = 4;
  else if (*k < 0 || *k > nq) illegal = 5;
  else if (*lda < std::max(1, *k)) illegal = 7;
  else if (*ldc < std::max(1, *m)) illegal = 10;
  else if (*lwork < nw && !query) illegal = 12;
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, side, trans, m, n, k, a, lda, tau, c, ldc, work,
                                       lwork, info, side_len, trans_len);
    return;
  }
  if (query || *m == 0 || *n == 0 || *k == 0)
    return cpu_call<F, T>(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, side_len, trans_len);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d,k=%d)", *m, *n, *k),
        std::min({*m, *n, *k}) >= settings().qr_min_n, names.cpu,
        [&] {
          const Status st = impl::ormlq_host<T>(side_of(s), t == 'N' ? Op::none : Op::conj_trans, *m, *n, *k, a, *lda,
                                                tau, c, *ldc);
          if (st == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) {
              fn(side, trans, m, n, k, a, lda, tau, c, ldc, w, lw, i, 1, 1);
            });
          }
          return st;
        },
        [&] { cpu::routine<F, T>()(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, 1, 1); });
}

template <class T>
void ormlq(const char *side, const char *trans, const int *m, const int *n, const int *k, const T *a, const int *lda,
           const T *tau, T *c, const int *ldc, T *work, const int *lwork, int *info, size_t side_len,
           size_t trans_len, const void *caller) {
  multiply_by_lq_q<Family::ormlq, T>(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, side_len,
                                     trans_len, caller);
}
template <class T>
void unmlq(const char *side, const char *trans, const int *m, const int *n, const int *k, const T *a, const int *lda,
           const T *tau, T *c, const int *ldc, T *work, const int *lwork, int *info, size_t side_len,
           size_t trans_len, const void *caller) {
  multiply_by_lq_q<Family::unmlq, T>(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, side_len,
                                     trans_len, caller);
}

// ?orglq_ (real) and ?unglq_ (complex). The reference sets WORK(1) before its checks.
template <Family F, class T>
void generate_lq_q(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work,
                   const int *lwork, int *info, const void *caller) {
  constexpr const RoutineNames &names = routine_names<F, T>;
  const bool query = *lwork == -1;
  int illegal = 0;
  if (*m < 0) illegal = 1;
  else if (*n < *m) illegal = 2;
  else if (*k < 0 || *k > *m) illegal = 3;
  else if (*lda < std::max(1, *m)) illegal = 5;
  else if (*lwork < std::max(1, *m) && !query) illegal = 8;
  if (illegal == 8)
    set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, k, a, lda, tau, w, lw, i); });
  if (illegal != 0) {
    illegal_lapack_call<cpu::Fn<F, T>>(names, illegal, info, caller, m, n, k, a, lda, tau, work, lwork, info);
    return;
  }
  if (query || *m == 0) return cpu_call<F, T>(m, n, k, a, lda, tau, work, lwork, info);
  char label[96];
  route(labelled(names, label, sizeof label, "%s(m=%d,n=%d,k=%d)", *m, *n, *k), *m >= settings().qr_min_n, names.cpu,
        [&] {
          const Status s = impl::orglq_host<T>(*m, *n, *k, a, *lda, tau);
          if (s == Status::ok) {
            *info = 0;
            set_optimal_work<F, T>(work, [&](auto fn, T *w, int *lw, int *i) { fn(m, n, k, a, lda, tau, w, lw, i); });
          }
          return s;
        },
        [&] { cpu::routine<F, T>()(m, n, k, a, lda, tau, work, lwork, info); });
}

template <class T>
void orglq(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work, const int *lwork,
           int *info, const void *caller) {
  generate_lq_q<Family::orglq, T>(m, n, k, a, lda, tau, work, lwork, info, caller);
}
template <class T>
void unglq(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work, const int *lwork,
           int *info, const void *caller) {
  generate_lq_q<Family::unglq, T>(m, n, k, a, lda, tau, work, lwork, info, caller);
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_geqrf CUDROP_DEFINED
#define CUDROP_DEFINES_gels CUDROP_DEFINED
#define CUDROP_DEFINES_ormqr CUDROP_DEFINED
#define CUDROP_DEFINES_unmqr CUDROP_DEFINED
#define CUDROP_DEFINES_orgqr CUDROP_DEFINED
#define CUDROP_DEFINES_ungqr CUDROP_DEFINED
#define CUDROP_DEFINES_gelqf CUDROP_DEFINED
#define CUDROP_DEFINES_ormlq CUDROP_DEFINED
#define CUDROP_DEFINES_unmlq CUDROP_DEFINED
#define CUDROP_DEFINES_orglq CUDROP_DEFINED
#define CUDROP_DEFINES_unglq CUDROP_DEFINED
#include "capi/instantiate.h"
