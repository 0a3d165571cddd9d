#pragma once
// Host-side copying between the caller's pageable arrays and cudrop's pinned staging
// buffers. One thread copies pageable memory at a few GB/s, latency-bound; 16 come close to
// the copy engine's rate. That copy, not PCIe, is the floor of every host->host call, so
// column copies are spread over a small persistent pool of threads (the calling thread
// takes part).
#include <cstddef>

namespace cudrop::impl {

class CopyPool;

// A pool of `threads` workers in total (1 = copy on the calling thread only).
CopyPool *make_copy_pool(int threads);

// Copies `bytes` bytes with non-temporal stores where the CPU has them (x86-64; memcpy
// elsewhere): dst is not read into the cache first. The stores are fenced before it returns,
// so a DMA or another thread may read dst once the caller says it is done.
void copy_streaming(void *dst, const void *src, size_t bytes);

// Copies `cols` columns of `row_bytes` bytes each from src (column stride src_ld bytes) to
// dst (column stride dst_ld bytes), in parallel on the pool.
void copy_columns(CopyPool *pool, void *dst, size_t dst_ld, const void *src, size_t src_ld,
                  size_t row_bytes, size_t cols);

}  // namespace cudrop::impl
