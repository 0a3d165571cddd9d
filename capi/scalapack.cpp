// ScaLAPACK's distributed drivers (rows of kind scalapack in routines.def), for MPI programs
// with cudrop preloaded in every rank. A call the GPU path covers runs with each rank's local
// part on its GPU (impl/distributed/distributed.h), the ranks talking through the process's own BLACS;
// every other call, and every call in CPU mode, goes unchanged to the ScaLAPACK routine after
// cudrop, whose checks report an illegal one exactly as without cudrop.
#include <algorithm>
#include <cstddef>

#include "capi/distributed_rules.h"
#include "core/block_cyclic.h"
#include "core/env.h"
#include "core/letter.h"
#include "core/routines.h"
#include "cpu/scalapack.h"
#include "impl/distributed/distributed.h"
#include "route/dispatch.h"

namespace cudrop::capi {

namespace {

// The grid of a BLACS context as impl's GridComm.
class BlacsGrid final : public impl::GridComm {
 public:
  BlacsGrid(const cpu::Blacs &blacs, int context) : blacs_(blacs), context_(context) {
    blacs_.gridinfo(&context_, &nprow, &npcol, &myrow, &mycol);
  }
  void broadcast(Scope scope, int root, void *buffer, size_t bytes) override {
    const char *name = scope == Scope::row ? "R" : "C";
    const bool sender = (scope == Scope::row ? mycol : myrow) == root;
    const int rsrc = scope == Scope::row ? myrow : root, csrc = scope == Scope::row ? root : mycol;
    in_words(static_cast<double *>(buffer), bytes, [&](double *words, const int *m) {
      if (sender) blacs_.dgebs2d(&context_, name, " ", m, &kOne, words, m);
      else blacs_.dgebr2d(&context_, name, " ", m, &kOne, words, m, &rsrc, &csrc);
    });
  }

  void send(int row, int col, const void *buffer, size_t bytes) override {
    in_words(static_cast<const double *>(buffer), bytes,
             [&](const double *words, const int *m) { blacs_.dgesd2d(&context_, m, &kOne, words, m, &row, &col); });
  }

  void receive(int row, int col, void *buffer, size_t bytes) override {
    in_words(static_cast<double *>(buffer), bytes,
             [&](double *words, const int *m) { blacs_.dgerv2d(&context_, m, &kOne, words, m, &row, &col); });
  }

  void max_over_grid(int *values, int count) override {
    const int no_locations = -1, everyone = -1;
    blacs_.igamx2d(&context_, "A", " ", &count, &kOne, values, &count, nullptr, nullptr, &no_locations, &everyone,
                   &everyone);
  }

 private:
  static constexpr int kOne = 1;
  // Bytes as 8-byte words (no conversion on the way), in messages of at most 2^28 words:
  // f(words, &count) for each.
  template <class Word, class F>
  static void in_words(Word *words, size_t bytes, F &&f) {
    for (size_t left = (bytes + 7) / 8; left > 0;) {
      const int m = static_cast<int>(std::min<size_t>(left, size_t(1) << 28));
      f(words, &m);
      words += m;
      left -= size_t(m);
    }
  }

  const cpu::Blacs &blacs_;
  int context_;
};

// A driver's call: to ScaLAPACK's routine at once in cpu mode, without BLACS in the process or
// where the driver's arguments are not `covered`; else decided with the grid (capi/distributed_rules.h,
// route_collective).
template <class CpuRun, class Attempt>
void run_distributed(const char *symbol, const int *desca, bool covered, int64_t order, CpuRun &&cpu_run,
                     Attempt &&attempt) {
  const env::Environment &s = settings();
  const cpu::Blacs *blacs = s.mode == Mode::Cpu || !covered ? nullptr : cpu::blacs();
  if (blacs == nullptr) {
    route_collective(symbol, false, false, [](int *, int) {}, [] { return Status::no_device; }, cpu_run);
    return;
  }
  const Descriptor d = Descriptor::of(desca);
  BlacsGrid grid(*blacs, d.context);
  const DistributedCall call{s.mode, s.scalapack_min_n, covered, order, d, grid.nprow, grid.npcol, grid.myrow,
                             grid.mycol};
  route_collective(
      symbol, distributed_candidate(call), distributed_fit(call),
      [&](int *values, int count) { grid.max_over_grid(values, count); }, [&] { return attempt(d, grid); },
      cpu_run);
}

}  // namespace

// The entry of p?potrf_ (capi/exports.cpp). The GPU path covers A(1:n, 1:n) (IA = JA = 1),
// either triangle, s and d.
template <class T>
void ppotrf(const char *uplo, const int *n, T *a, const int *ia, const int *ja, const int *desca, int *info,
            size_t uplo_len, const void *) {
  constexpr const RoutineNames &names = routine_names<Family::ppotrf, T>;
  using Fn = typename Signature<Family::ppotrf, T>::type;
  const char u = upper(*uplo);
  const bool covered = potrf_covered(u, *n, *ia, *ja, Descriptor::of(desca));
  run_distributed(
      names.symbol, desca, covered, *n,
      [&] {
        reinterpret_cast<Fn>(cpu::require_scalapack_routine(names.symbol))(uplo, n, a, ia, ja, desca, info, uplo_len);
      },
      [&](const Descriptor &d, impl::GridComm &grid) {
        const Status status = impl::ppotrf_host<T>(uplo_of(u), *n, a, d, grid);
        if (status == Status::ok) *info = 0;
        return status;
      });
}

// The entry of p?getrf_. The GPU path covers A(1:m, 1:n) (IA = JA = 1), s and d.
template <class T>
void pgetrf(const int *m, const int *n, T *a, const int *ia, const int *ja, const int *desca, int *ipiv, int *info,
            const void *) {
  constexpr const RoutineNames &names = routine_names<Family::pgetrf, T>;
  using Fn = typename Signature<Family::pgetrf, T>::type;
  const bool covered = getrf_covered(*m, *n, *ia, *ja, Descriptor::of(desca));
  run_distributed(
      names.symbol, desca, covered, std::min(*m, *n),
      [&] { reinterpret_cast<Fn>(cpu::require_scalapack_routine(names.symbol))(m, n, a, ia, ja, desca, ipiv, info); },
      [&](const Descriptor &d, impl::GridComm &grid) {
        const Status status = impl::pgetrf_host<T>(*m, *n, a, d, ipiv, grid);
        if (status == Status::ok) *info = 0;
        return status;
      });
}

}  // namespace cudrop::capi

#define CUDROP_DEFINES_ppotrf CUDROP_DEFINED
#define CUDROP_DEFINES_pgetrf CUDROP_DEFINED
#include "capi/instantiate.h"
