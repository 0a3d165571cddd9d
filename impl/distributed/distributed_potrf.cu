// P?POTRF with each process's local part on its GPU (impl/distributed/distributed.h): right-looking blocked
// Cholesky over the block-cyclic distribution. Step k: the owner of diagonal block k factors
// it (potrf_device) and sends it down its process column; that column solves its panel rows
// (trsm_device); the panel goes along each process row, and from the process rows that hold
// block j to the processes of the column that holds block column j (for the transposed factor
// of the trailing update); every process updates its trailing part with one gemm_device.
// The upper case runs the same algorithm on A^T (the transposed local part, on the transposed
// grid). Messages go through pinned host buffers. Every process makes every collective call
// whatever happens on its GPU (a failed GPU only stops issuing work), and the processes agree on
// the outcome before anything is written back, so a GPU failure anywhere never hangs the grid
// and leaves the caller's arrays as they were.
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>

#include "impl/distributed/distributed.h"
#include "impl/distributed/distributed_common.cuh"
#include "impl/gemm/gemm.h"
#include "impl/context/gpu_context.cuh"
#include "impl/level3/level3_device.h"
#include "impl/potrf/potrf.h"

namespace cudrop::impl {

using namespace distributed;


template <class T>
Status ppotrf_host(Uplo uplo, int64_t n, T *a, const Descriptor &desc, GridComm &comm) {
  const bool upper = uplo == Uplo::upper;
  static_assert(sizeof(T) == sizeof(real_t<T>), "the upper case's view A^T would need conjugating");
  const size_t es = sizeof(T);
  const int64_t nb = desc.nb;
  const BlockCyclic1D arow{n, nb, comm.myrow, desc.rsrc, comm.nprow}, acol{n, nb, comm.mycol, desc.csrc, comm.npcol};
  const int64_t mloc = arow.local_count(), nloc = acol.local_count();
  // The lower-triangle problem the steps solve: A itself, or A^T on the transposed grid.
  const BlockCyclic1D vrow = upper ? acol : arow, vcol = upper ? arow : acol;
  const Scope along_row = upper ? Scope::column : Scope::row, along_col = upper ? Scope::row : Scope::column;
  // Whether the scope has anyone else to send to (a 1 x Q grid's columns have not).
  const bool row_shared = vcol.procs > 1, column_shared = vrow.procs > 1;
  const int64_t mv = vrow.local_count(), nv = vcol.local_count();
  const int64_t most_rows = (vrow.blocks() / vrow.procs + 1) * nb;  // any process's local rows, at most
  const size_t ldv = padded_ld(size_t(std::max<int64_t>(mv, 1)), es);
  const size_t ldt = padded_ld(size_t(std::max<int64_t>(mloc, 1)), es);
  const size_t ldp = ldv, ldq = padded_ld(size_t(std::max<int64_t>(nv, 1)), es);

  PhaseClock clock;
  // ---- set-up: the GPU, its buffers, the host buffers; agreed before the first step ----
  Status s = Status::ok;
  GpuLease lease;
  GpuContext *ctx = lease.ok() ? &lease.ctx() : nullptr;
  if (ctx == nullptr) s = Status::no_device;
  T *dV = nullptr, *dT = nullptr, *dP = nullptr, *dQ = nullptr, *dL = nullptr, *dS = nullptr;
  int *d_info = nullptr;
  if (s == Status::ok) {
    void *slot_a = nullptr, *slot_b = nullptr, *slot_c = nullptr;
    const size_t q_at = size_t(round_up(ldp * nb * es, 256)), s_at = q_at + size_t(round_up(ldq * nb * es, 256)),
                 l_at = s_at + size_t(round_up(most_rows * nb * int64_t(es), 256)),
                 info_at = l_at + size_t(round_up(nb * nb * int64_t(es), 256));
    s = device_buffers(*ctx, {{Slot::a, ldv * size_t(std::max<int64_t>(nv, 1)) * es, &slot_a},
                              {Slot::b, upper ? ldt * size_t(std::max<int64_t>(nloc, 1)) * es : 1, &slot_b},
                              {Slot::c, info_at + 2 * sizeof(int), &slot_c}});
    if (s == Status::ok) {
      dV = static_cast<T *>(slot_a);
      dT = static_cast<T *>(slot_b);
      auto *c = static_cast<char *>(slot_c);
      dP = reinterpret_cast<T *>(c);
      dQ = reinterpret_cast<T *>(c + q_at);
      dS = reinterpret_cast<T *>(c + s_at);
      dL = reinterpret_cast<T *>(c + l_at);
      d_info = reinterpret_cast<int *>(c + info_at);
    }
  }
  HostBuffers &host = host_buffers();
  if (s == Status::ok) s = host.diag.reserve(size_t(nb * nb) * es);
  if (s == Status::ok) s = host.panel.reserve(size_t(most_rows * nb) * es);
  if (s == Status::ok) s = host.pack.reserve(size_t(most_rows * nb) * es);
  if (s == Status::ok) s = host.word.reserve(2 * sizeof(int));
  if (s == Status::ok) s = host.result.reserve(size_t(mloc * nloc) * es);
  cudaStream_t stream = ctx != nullptr ? ctx->stream : nullptr;
  std::optional<DrainOnFailure> drain;
  if (ctx != nullptr) drain.emplace(DrainOnFailure{s, *ctx});
  if (s == Status::ok && mloc > 0 && nloc > 0) {
    if (upper) {
      s = upload_matrix(*ctx, a, size_t(desc.lld) * es, size_t(mloc) * es, size_t(nloc), dT, ldt * es);
      if (s == Status::ok) s = transpose(dT, ldt, mloc, nloc, dV, ldv, stream);
    } else {
      s = upload_matrix(*ctx, a, size_t(desc.lld) * es, size_t(mloc) * es, size_t(nloc), dV, ldv * es);
    }
  }
  const double setup_ms = clock.mark();
  if (Status agreed = agree(comm, s, false); agreed != Status::ok) return agreed;

  // ---- the steps: the GPU work stops at this process's first failure, the messages do not ----
  StepStream gpu(s, stream);
  T *const h_diag = host.diag.as<T>(), *const h_panel = host.panel.as<T>(), *const h_pack = host.pack.as<T>();
  int *const h_word = host.word.as<int>();
  bool not_definite = false;
  const int64_t blocks = vrow.blocks();
  for (int64_t k = 0; k < blocks; ++k) {
    const int64_t g0 = k * nb, kb = std::min(nb, n - g0), g1 = g0 + kb;
    const int pr = vrow.owner(k), pc = vcol.owner(k);
    const bool in_row = vrow.me == pr, in_col = vcol.me == pc;
    const int64_t lr0 = vrow.local_before(g0), lr1 = vrow.local_before(g1);
    const int64_t lc0 = vcol.local_before(g0), lc1 = vcol.local_before(g1);
    const int64_t mt = mv - lr1, nt = nv - lc1;
    const bool last = g1 >= n;
    if (in_row && in_col) {
      gpu.issue([&] { return potrf_device<T>(int(kb), at(dV, ldv, lr0, lc0), ldv, d_info, stream); });
      if (!last && column_shared)
        gpu.copy(h_diag, size_t(kb), at(dV, ldv, lr0, lc0), ldv, kb, kb, cudaMemcpyDeviceToHost);
      gpu.copy(h_word, 1, d_info, 1, 1, 1, cudaMemcpyDeviceToHost);
      if (gpu.ok() && *h_word != 0) not_definite = true;
    }
    if (last) break;
    // This process column's panel rows below the diagonal block: in place, or a received copy.
    const T *panel = at(dV, ldv, lr1, lc0);
    size_t ld_panel = ldv;
    if (in_col) {
      const T *diag = at(dV, ldv, lr0, lc0);
      size_t ld_diag = ldv;
      if (column_shared) comm.broadcast(along_col, pr, h_diag, size_t(kb * kb) * es);
      if (!in_row) {
        gpu.copy(dL, size_t(kb), h_diag, size_t(kb), kb, kb, cudaMemcpyHostToDevice);
        diag = dL;
        ld_diag = size_t(kb);
      }
      if (mt > 0)
        gpu.issue([&] {
          return trsm_device<T>(Side::right, Uplo::lower, Op::conj_trans, Diag::non_unit, mt, kb, T(1), diag, ld_diag,
                                at(dV, ldv, lr1, lc0), ldv, stream);
        });
      if (mt > 0 && row_shared) gpu.copy(h_panel, size_t(mt), panel, ldv, mt, kb, cudaMemcpyDeviceToHost);
    }
    if (mt > 0 && row_shared) {
      comm.broadcast(along_row, pc, h_panel, size_t(mt * kb) * es);
      if (!in_col) {
        gpu.copy(dP, ldp, h_panel, size_t(mt), mt, kb, cudaMemcpyHostToDevice);
        panel = dP;
        ld_panel = ldp;
      }
    }
    // Block j's panel rows, held by process row vrow.owner(j), for the processes of the column
    // that holds block column j: one message per process row, the blocks in ascending order,
    // packed and unpacked on the device.
    for (int r = 0; r < vrow.procs; ++r) {
      int64_t rows = 0;
      for (int64_t j = k + 1; j < blocks; ++j)
        if (vrow.owner(j) == r && vcol.owner(j) == vcol.me) rows += std::min(nb, n - j * nb);
      if (rows == 0) continue;
      if (vrow.me == r) {
        int64_t offset = 0;
        for (int64_t j = k + 1; j < blocks; ++j) {
          if (vrow.owner(j) != r || vcol.owner(j) != vcol.me) continue;
          const int64_t jb = std::min(nb, n - j * nb), from = vrow.local_before(j * nb) - lr1;
          gpu.copy(dS + offset, size_t(rows), panel + from, ld_panel, jb, kb, cudaMemcpyDeviceToDevice);
          offset += jb;
        }
        if (column_shared) gpu.copy(h_pack, size_t(rows), dS, size_t(rows), rows, kb, cudaMemcpyDeviceToHost);
      }
      if (column_shared) {
        comm.broadcast(along_col, r, h_pack, size_t(rows * kb) * es);
        if (vrow.me != r) gpu.copy(dS, size_t(rows), h_pack, size_t(rows), rows, kb, cudaMemcpyHostToDevice);
      }
      int64_t offset = 0;
      for (int64_t j = k + 1; j < blocks; ++j) {
        if (vrow.owner(j) != r || vcol.owner(j) != vcol.me) continue;
        const int64_t jb = std::min(nb, n - j * nb), to = vcol.local_before(j * nb) - lc1;
        gpu.copy(dQ + to, ldq, dS + offset, size_t(rows), jb, kb, cudaMemcpyDeviceToDevice);
        offset += jb;
      }
    }
    if (mt > 0 && nt > 0)
      gpu.issue([&] {
        return gemm_device<T>(Op::none, Op::conj_trans, int(mt), int(nt), int(kb), T(-1), panel, ld_panel, dQ, ldq,
                              T(1), at(dV, ldv, lr1, lc1), ldv, stream);
      });
  }

  // ---- the result: down in full, agreed, then only the factor's triangle into the caller's ----
  gpu.wait();
  const double steps_ms = clock.mark();
  T *const result = host.result.as<T>();
  if (s == Status::ok && mloc > 0 && nloc > 0) {
    const T *local = dV;
    size_t ld_local = ldv;
    if (upper) {
      s = transpose(dV, ldv, mv, nv, dT, ldt, stream);
      local = dT;
      ld_local = ldt;
    }
    gpu.copy(result, size_t(mloc), local, ld_local, mloc, nloc, cudaMemcpyDeviceToHost);  // pinned: one DMA
  }
  const double download_ms = clock.mark();
  if (Status agreed = agree(comm, s, not_definite); agreed != Status::ok) return agreed;
  // Upper: rows up to the diagonal (global row <= global column); lower: from it.
  auto first = [&](int64_t jl) { return upper ? int64_t(0) : arow.local_before(acol.global_of(jl)); };
  auto end = [&](int64_t jl) { return upper ? arow.local_before(acol.global_of(jl) + 1) : mloc; };
  for (int64_t c0 = 0; c0 < nloc; c0 += nb)
    copy_rows(ctx->copier, a, size_t(desc.lld), result, size_t(mloc), c0, std::min(c0 + nb, nloc), first, end);
  log(2, "%s: grid %dx%d, local %lldx%lld: set-up and upload %.1f ms, steps %.1f ms, download %.1f ms, "
      "agreement and copy-back %.1f ms",
      "p?potrf", comm.nprow, comm.npcol, (long long)mloc, (long long)nloc, setup_ms, steps_ms, download_ms,
      clock.mark());
  return Status::ok;
}

template Status ppotrf_host<float>(Uplo, int64_t, float *, const Descriptor &, GridComm &);
template Status ppotrf_host<double>(Uplo, int64_t, double *, const Descriptor &, GridComm &);

}  // namespace cudrop::impl
