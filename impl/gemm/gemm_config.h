#pragma once
// Which GEMM kernel configuration a launch gets: pure host code over the device's facts and
// its column of the tuning table (core/tuning.h), so that the kernels hold no policy.
#include <cstddef>
#include <type_traits>

#include "core/tuning.h"
#include "kernels/gemm_small.cuh"
#include "kernels/gemm_tiled.cuh"

namespace cudrop::impl {

// The DMMA block tile for an m x n x k product on a device of `sms` multiprocessors and
// `smem_optin` bytes of opt-in shared memory per block (docs/perf/README.md, DMMA kernel).
// forced >= 0 (CUDROP_DMMA_TILE: 0 128x128, 1 128x64, 2 64x64) takes that tile for tuning
// runs; 128x128 where the device cannot hold it runs 128x64.
inline kernels::DmmaTile choose_dmma_tile(int m, int n, int k, int sms, size_t smem_optin, int forced,
                                          const tuning::Table &tuned) {
  using kernels::DmmaTile;
  constexpr DmmaTile kForced[] = {DmmaTile::t128x128, DmmaTile::t128x64, DmmaTile::t64x64};
  DmmaTile tile = DmmaTile::t128x128;
  const long long tiles128x64 = ((m + 127LL) / 128) * ((n + 63LL) / 64);
  if (forced >= 0)
    tile = kForced[forced];
  else if (tiles128x64 < 2LL * sms)  // less than one wave of 128x64 blocks
    tile = DmmaTile::t64x64;
  else if (k <= tuned.dmma_128x64_max_k || tiles128x64 < tuned.dmma_128x128_min_waves * 2LL * sms)
    tile = DmmaTile::t128x64;
  if (tile == DmmaTile::t128x128 && smem_optin < kernels::DmmaConfig128x128::smem_bytes) tile = DmmaTile::t128x64;
  return tile;
}

// The configuration of a launch of launch_gemm_tiled<T>.
template <class T>
kernels::GemmKernelConfig gemm_kernel_config(int m, int n, int k, int sms, size_t smem_optin, size_t smem_per_sm,
                                             size_t smem_reserved, int forced_dmma_tile, const tuning::Table &tuned) {
  kernels::GemmKernelConfig config;
  if constexpr (std::is_same_v<T, float>)
    config.ffma_deep = kernels::ffma_deep_fits(smem_optin, smem_per_sm, smem_reserved);
  else
    config.dmma_tile = choose_dmma_tile(m, n, k, sms, smem_optin, forced_dmma_tile, tuned);
  return config;
}

// Whether a device GEMM runs as the small-tile kernel (core/tuning.h, kGemmSmallMacs): a whole C
// (no triangle or zero-pattern part), a product with k > 0 and alpha != 0, small enough.
inline bool gemm_runs_small(int m, int n, int k, bool whole_c, bool product) {
  return whole_c && product && (long long)m * n * k <= tuning::kGemmSmallMacs && k <= tuning::kGemmSmallMaxK &&
         n <= 65535LL * kernels::kSmallTile;
}

}  // namespace cudrop::impl
