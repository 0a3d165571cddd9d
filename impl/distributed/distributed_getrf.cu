// P?GETRF with each process's local part on its GPU (impl/distributed/distributed.h): right-looking blocked
// LU with partial pivoting over the block-cyclic distribution. Step k: the processes of the
// panel's column send their panel rows to the owner of the diagonal block, which factors the
// whole panel (getrf_device) and sends each its rows back with the pivots; the pivots go along
// every process row, and each process column applies the interchanges to all its columns (the
// rows concerned gathered from their process rows); the panel goes along the process rows, the
// diagonal block's row solves U12 = L11^-1 A12 (trsm_device) and sends it down the columns;
// every process updates its trailing part with one gemm_device. Messages go through pinned
// host buffers; the GPU-failure rules are ppotrf_host's (impl/distributed/distributed_potrf.cu).
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/interchanges.h"
#include "impl/distributed/distributed.h"
#include "impl/distributed/distributed_common.cuh"
#include "impl/gemm/gemm.h"
#include "impl/getrf/getrf.h"
#include "impl/context/gpu_context.cuh"
#include "impl/level3/level3_device.h"
#include "kernels/indexed_rows.cuh"

namespace cudrop::impl {

using namespace distributed;

template <class T>
Status pgetrf_host(int64_t m, int64_t n, T *a, const Descriptor &desc, int *ipiv, GridComm &comm) {
  const size_t es = sizeof(T);
  const int64_t nb = desc.nb, mn = std::min(m, n);
  const BlockCyclic1D rows{m, nb, comm.myrow, desc.rsrc, comm.nprow}, cols{n, nb, comm.mycol, desc.csrc, comm.npcol};
  const int64_t mloc = rows.local_count(), nloc = cols.local_count();
  const bool row_shared = cols.procs > 1, column_shared = rows.procs > 1;
  const int64_t most_rows = (rows.blocks() / rows.procs + 1) * nb, most_cols = (cols.blocks() / cols.procs + 1) * nb;
  const size_t ldv = padded_ld(size_t(std::max<int64_t>(mloc, 1)), es);
  const size_t ld_panel = padded_ld(size_t(m), es), ldx = size_t(2 * nb);
  const size_t pivot_bytes = size_t(round_up(nb * int64_t(sizeof(int)), 8));

  PhaseClock clock;
  // ---- set-up, agreed before the first step ----
  Status s = Status::ok;
  GpuLease lease;
  GpuContext *ctx = lease.ok() ? &lease.ctx() : nullptr;
  if (ctx == nullptr) s = Status::no_device;
  T *dV = nullptr, *dPanel = nullptr, *dS = nullptr, *dP = nullptr, *dU = nullptr, *dX = nullptr, *dY = nullptr;
  int *d_index = nullptr, *d_pivot = nullptr, *d_info = nullptr;
  void *d_work = nullptr;
  if (s == Status::ok) {
    void *slot_a = nullptr, *slot_b = nullptr, *slot_c = nullptr;
    size_t at_bytes = 0;
    auto region = [&](size_t bytes) {
      const size_t here = at_bytes;
      at_bytes += size_t(round_up(std::max<size_t>(bytes, 1), 256));
      return here;
    };
    const size_t s_at = region(size_t(most_rows * nb) * es), p_at = region(ldv * nb * es),
                 u_at = region(size_t(nb * most_cols) * es),
                 x_at = region(ldx * size_t(std::max<int64_t>(nloc, 1)) * es),
                 y_at = region(ldx * size_t(std::max<int64_t>(nloc, 1)) * es),
                 index_at = region(4 * ldx * sizeof(int)), pivot_at = region(size_t(nb + 1) * sizeof(int)),
                 work_at = region(getrf_device_workspace<T>(int(m), int(nb)));
    s = device_buffers(*ctx, {{Slot::a, ldv * size_t(std::max<int64_t>(nloc, 1)) * es, &slot_a},
                              {Slot::b, ld_panel * size_t(nb) * es, &slot_b},
                              {Slot::c, at_bytes, &slot_c}});
    if (s == Status::ok) {
      dV = static_cast<T *>(slot_a);
      dPanel = static_cast<T *>(slot_b);
      auto *c = static_cast<char *>(slot_c);
      dS = reinterpret_cast<T *>(c + s_at);
      dP = reinterpret_cast<T *>(c + p_at);
      dU = reinterpret_cast<T *>(c + u_at);
      dX = reinterpret_cast<T *>(c + x_at);
      dY = reinterpret_cast<T *>(c + y_at);
      d_index = reinterpret_cast<int *>(c + index_at);
      d_pivot = reinterpret_cast<int *>(c + pivot_at);
      d_info = d_pivot + nb;
      d_work = c + work_at;
    }
  }
  HostBuffers &host = host_buffers();
  if (s == Status::ok) s = host.pack.reserve(size_t(most_rows * nb) * es + pivot_bytes);
  if (s == Status::ok) s = host.panel.reserve(size_t(most_rows * nb) * es);
  if (s == Status::ok) s = host.rows.reserve(std::max(ldx * size_t(nloc), size_t(nb * most_cols)) * es);
  if (s == Status::ok) s = host.word.reserve(size_t(nb + 1) * sizeof(int));
  if (s == Status::ok) s = host.result.reserve(size_t(mloc * nloc) * es);
  std::vector<int> local_pivots;
  std::vector<int> gathered;  // local rows whose old contents this process sends
  if (s == Status::ok) {
    try {
      local_pivots.assign(size_t(std::max<int64_t>(mloc, 1)), 0);
      gathered.reserve(size_t(4 * ldx));
    } catch (...) {
      s = Status::out_of_memory;
    }
  }
  cudaStream_t stream = ctx != nullptr ? ctx->stream : nullptr;
  std::optional<DrainOnFailure> drain;
  if (ctx != nullptr) drain.emplace(DrainOnFailure{s, *ctx});
  if (s == Status::ok && mloc > 0 && nloc > 0)
    s = upload_matrix(*ctx, a, size_t(desc.lld) * es, size_t(mloc) * es, size_t(nloc), dV, ldv * es);
  const double setup_ms = clock.mark();
  if (Status agreed = agree(comm, s, false); agreed != Status::ok) return agreed;

  // ---- the steps ----
  StepStream gpu(s, stream);
  T *const h_pack = host.pack.as<T>(), *const h_panel = host.panel.as<T>(), *const h_rows = host.rows.as<T>();
  int *const h_word = host.word.as<int>();
  bool zero_pivot = false;
  std::vector<int64_t> pivot;
  for (int64_t k = 0; k * nb < mn; ++k) {
    const int64_t g0 = k * nb, kb = std::min(nb, mn - g0), g1 = g0 + kb;
    const int pr = rows.owner(k), pc = cols.owner(k);
    const bool in_row = rows.me == pr, in_col = cols.me == pc, root = in_row && in_col;
    const int64_t lr0 = rows.local_before(g0), lr1 = rows.local_before(g1);
    const int64_t lc0 = cols.local_before(g0), lc1 = cols.local_before(g1);
    const int64_t mine = mloc - lr0, nt = nloc - lc1, mt = mloc - lr1;
    // Process row r's panel rows (global rows g0.. it holds), as every process can count them.
    auto piece_of = [&](int r) {
      const BlockCyclic1D d{m, nb, r, desc.rsrc, rows.procs};
      return d.local_count() - d.local_before(g0);
    };
    // Block j (>= k) of the panel: its rows in process row r's piece and in the whole panel.
    auto for_blocks_of = [&](int r, auto &&f) {
      const BlockCyclic1D d{m, nb, r, desc.rsrc, rows.procs};
      const int64_t start = d.local_before(g0);
      for (int64_t j = k; j < rows.blocks(); ++j)
        if (rows.owner(j) == r) f(d.local_before(j * nb) - start, j * nb - g0, std::min(nb, m - j * nb));
    };
    T *const my_panel = at(dV, ldv, lr0, lc0);

    // 1. The panel to the diagonal block's owner, factored there, each piece back with the pivots.
    if (in_col) {
      if (root) {
        for (int r = 0; r < rows.procs; ++r) {
          const int64_t count = piece_of(r);
          if (count == 0) continue;
          const T *piece = my_panel;
          size_t ld_piece = ldv;
          if (r != pr) {
            comm.receive(r, pc, h_pack, size_t(count * kb) * es);
            gpu.copy(dS, size_t(count), h_pack, size_t(count), count, kb, cudaMemcpyHostToDevice);
            piece = dS;
            ld_piece = size_t(count);
          }
          for_blocks_of(r, [&](int64_t from, int64_t to, int64_t jb) {
            gpu.copy(dPanel + to, ld_panel, piece + from, ld_piece, jb, kb, cudaMemcpyDeviceToDevice);
          });
        }
        gpu.issue([&] {
          return getrf_device<T>(int(m - g0), int(kb), dPanel, ld_panel, d_pivot, d_info, d_work, stream);
        });
        gpu.copy(h_word, size_t(nb + 1), d_pivot, size_t(nb + 1), kb, 1, cudaMemcpyDeviceToHost);
        gpu.copy(h_word + kb, 1, d_info, 1, 1, 1, cudaMemcpyDeviceToHost);
        if (gpu.ok() && h_word[kb] != 0) zero_pivot = true;
        for (int r = 0; r < rows.procs; ++r) {
          if (r == pr) continue;
          const int64_t count = piece_of(r);
          for_blocks_of(r, [&](int64_t to, int64_t from, int64_t jb) {
            gpu.copy(dS + to, size_t(count), dPanel + from, ld_panel, jb, kb, cudaMemcpyDeviceToDevice);
          });
          gpu.copy(h_pack, size_t(count), dS, size_t(count), count, kb, cudaMemcpyDeviceToHost);
          std::memcpy(reinterpret_cast<char *>(h_pack) + size_t(count * kb) * es, h_word, size_t(kb) * sizeof(int));
          comm.send(r, pc, h_pack, size_t(count * kb) * es + size_t(kb) * sizeof(int));
        }
      } else {
        if (mine > 0) {
          gpu.copy(h_pack, size_t(mine), my_panel, ldv, mine, kb, cudaMemcpyDeviceToHost);
          comm.send(pr, pc, h_pack, size_t(mine * kb) * es);
        }
        comm.receive(pr, pc, h_pack, size_t(mine * kb) * es + size_t(kb) * sizeof(int));
        std::memcpy(h_word, reinterpret_cast<char *>(h_pack) + size_t(mine * kb) * es, size_t(kb) * sizeof(int));
        gpu.copy(dS, size_t(mine), h_pack, size_t(mine), mine, kb, cudaMemcpyHostToDevice);
      }
    }
    // 2. The pivots along every process row.
    if (row_shared) comm.broadcast(Scope::row, pc, h_word, size_t(kb) * sizeof(int));
    // Pivots from a process whose GPU failed are whatever its buffer held: any outside the
    // panel's rows become no interchange, so that no process indexes outside its arrays (the
    // failure is agreed on at the end, and nothing is kept).
    pivot.assign(size_t(kb), 0);
    for (int64_t i = 0; i < kb; ++i) {
      const int64_t p = g0 + int64_t(h_word[i]) - 1;
      pivot[size_t(i)] = p >= g0 + i && p < m ? p : g0 + i;
    }
    if (in_row)
      for (int64_t i = 0; i < kb; ++i) local_pivots[size_t(lr0 + i)] = int(pivot[size_t(i)] + 1);

    // 3. The interchanges, on all local columns. A target row's old contents come from its
    //    source row's process row: each pair of process rows of the column exchanges the rows one
    //    needs of the other, once (the lower row index sends first), into dX, where every
    //    target of this process finds its source's contents; then they are put in place.
    const Interchanges swaps(g0, pivot);
    {
      const int procs = rows.procs, me = rows.me;
      auto owner = [&](int64_t row) { return rows.owner(row / nb); };
      std::vector<int64_t> start(static_cast<size_t>(procs) + 1, 0);
      std::vector<int> to, from;
      for (size_t i = 0; i < swaps.target.size(); ++i)
        if (owner(swaps.target[i]) == me) ++start[size_t(owner(swaps.source[i])) + 1];
      for (int r = 0; r < procs; ++r) start[size_t(r) + 1] += start[size_t(r)];
      {
        std::vector<int64_t> next(start.begin(), start.end() - 1);
        for (size_t i = 0; i < swaps.target.size(); ++i)
          if (owner(swaps.target[i]) == me) {
            from.push_back(int(next[size_t(owner(swaps.source[i]))]++));
            to.push_back(int(rows.local_before(swaps.target[i])));
          }
      }
      // This process's source rows that process row r's targets need, in target order.
      auto sources_for = [&](int r) {
        gathered.clear();
        for (size_t i = 0; i < swaps.target.size(); ++i)
          if (owner(swaps.target[i]) == r && owner(swaps.source[i]) == me)
            gathered.push_back(int(rows.local_before(swaps.source[i])));
      };
      auto gather = [&](T *into, size_t ld_into) {
        if (gathered.empty()) return;
        gpu.copy(d_index, ldx, gathered.data(), ldx, int64_t(gathered.size()), 1, cudaMemcpyHostToDevice);
        gpu.issue([&] {
          return check(kernels::launch_copy_indexed_rows<T>(int(gathered.size()), d_index, dV, ldv, nullptr, into,
                                                            ld_into, nloc, stream),
                       "distributed: row gather");
        });
      };
      sources_for(me);
      gather(dX + start[size_t(me)], ldx);
      auto send_to = [&](int r) {
        sources_for(r);
        const int64_t count = int64_t(gathered.size());
        if (count == 0 || nloc == 0) return;
        gather(dY, size_t(count));
        gpu.copy(h_rows, size_t(count), dY, size_t(count), count, nloc, cudaMemcpyDeviceToHost);
        comm.send(r, comm.mycol, h_rows, size_t(count * nloc) * es);
      };
      auto receive_from = [&](int r) {
        const int64_t count = start[size_t(r) + 1] - start[size_t(r)];
        if (count == 0 || nloc == 0) return;
        comm.receive(r, comm.mycol, h_rows, size_t(count * nloc) * es);
        gpu.copy(dX + start[size_t(r)], ldx, h_rows, size_t(count), count, nloc, cudaMemcpyHostToDevice);
      };
      for (int r = 0; r < procs; ++r) {
        if (r == me) continue;
        if (r < me) {
          receive_from(r);
          send_to(r);
        } else {
          send_to(r);
          receive_from(r);
        }
      }
      if (!to.empty()) {
        gpu.copy(d_index + ldx, ldx, from.data(), ldx, int64_t(from.size()), 1, cudaMemcpyHostToDevice);
        gpu.copy(d_index + 2 * ldx, ldx, to.data(), ldx, int64_t(to.size()), 1, cudaMemcpyHostToDevice);
        gpu.issue([&] {
          return check(kernels::launch_copy_indexed_rows<T>(int(to.size()), d_index + ldx, dX, ldx, d_index + 2 * ldx,
                                                            dV, ldv, nloc, stream),
                       "distributed: row interchanges");
        });
      }
    }
    // The factored panel in place of the interchanged one.
    if (in_col) {
      if (root)
        for_blocks_of(pr, [&](int64_t to, int64_t from, int64_t jb) {
          gpu.copy(my_panel + to, ldv, dPanel + from, ld_panel, jb, kb, cudaMemcpyDeviceToDevice);
        });
      else
        gpu.copy(my_panel, ldv, dS, size_t(mine), mine, kb, cudaMemcpyDeviceToDevice);
    }
    if (g1 >= n) continue;  // no columns right of the panel: the interchanges were the last step's work

    // 4. The panel (L11 and L21) along the process rows.
    const T *panel = my_panel;
    size_t ld_l = ldv;
    if (row_shared && mine > 0) {
      if (in_col) gpu.copy(h_panel, size_t(mine), my_panel, ldv, mine, kb, cudaMemcpyDeviceToHost);
      comm.broadcast(Scope::row, pc, h_panel, size_t(mine * kb) * es);
      if (!in_col) {
        gpu.copy(dP, ldv, h_panel, size_t(mine), mine, kb, cudaMemcpyHostToDevice);
        panel = dP;
      }
    }
    // 5. U12 = L11^-1 A12 in the diagonal block's row, sent down the columns.
    const T *u = at(dV, ldv, lr0, lc1);
    size_t ld_u = ldv;
    if (nt > 0) {
      if (in_row)
        gpu.issue([&] {
          return trsm_device<T>(Side::left, Uplo::lower, Op::none, Diag::unit, kb, nt, T(1), panel, ld_l,
                                at(dV, ldv, lr0, lc1), ldv, stream);
        });
      if (column_shared) {
        if (in_row) gpu.copy(h_rows, size_t(kb), at(dV, ldv, lr0, lc1), ldv, kb, nt, cudaMemcpyDeviceToHost);
        comm.broadcast(Scope::column, pr, h_rows, size_t(kb * nt) * es);
        if (!in_row) {
          gpu.copy(dU, size_t(kb), h_rows, size_t(kb), kb, nt, cudaMemcpyHostToDevice);
          u = dU;
          ld_u = size_t(kb);
        }
      }
    }
    // 6. A22 -= L21 U12.
    if (mt > 0 && nt > 0)
      gpu.issue([&] {
        return gemm_device<T>(Op::none, Op::none, int(mt), int(nt), int(kb), T(-1), panel + (lr1 - lr0), ld_l, u, ld_u,
                              T(1), at(dV, ldv, lr1, lc1), ldv, stream);
      });
  }

  // ---- the result: down in full, agreed, then into the caller's arrays ----
  gpu.wait();
  const double steps_ms = clock.mark();
  T *const result = host.result.as<T>();
  gpu.copy(result, size_t(mloc), dV, ldv, mloc, nloc, cudaMemcpyDeviceToHost);  // pinned: one DMA
  const double download_ms = clock.mark();
  if (Status agreed = agree(comm, s, zero_pivot); agreed != Status::ok) return agreed;
  if (mloc > 0 && nloc > 0)
    copy_columns(ctx->copier, a, size_t(desc.lld) * es, result, size_t(mloc) * es, size_t(mloc) * es, size_t(nloc));
  for (int64_t il = 0; il < rows.local_before(mn); ++il) ipiv[il] = local_pivots[size_t(il)];
  log(2, "%s: grid %dx%d, local %lldx%lld: set-up and upload %.1f ms, steps %.1f ms, download %.1f ms, "
      "agreement and copy-back %.1f ms",
      "p?getrf", comm.nprow, comm.npcol, (long long)mloc, (long long)nloc, setup_ms, steps_ms, download_ms,
      clock.mark());
  return Status::ok;
}

template Status pgetrf_host<float>(int64_t, int64_t, float *, const Descriptor &, int *, GridComm &);
template Status pgetrf_host<double>(int64_t, int64_t, double *, const Descriptor &, int *, GridComm &);

}  // namespace cudrop::impl
