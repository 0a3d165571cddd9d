#pragma once
// Host-side copying between the caller's pageable arrays and cudrop's pinned staging
// buffers. One thread copies pageable memory at a few GB/s, latency-bound; 16 come close to
// the copy engine's rate. That copy, not PCIe, is the floor of every host->host call, so
// column copies are spread over a small persistent pool of threads (the calling thread
// takes part).
#include <cstddef>
#include <cstdint>

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

// The reference ?copy_ of n elements of elem_bytes bytes (4, 8 or 16), increments incx and
// incy in elements (a negative one starts at the far end), split in contiguous ranges over a
// process-wide pool of `threads` threads (0: one per core the process may run on, at most
// kCopyThreadsPerDevice), made on the first call (a child of fork() makes its own). Copies
// nothing and returns false where that would not be the reference's result or no faster: x and
// y overlap, an increment is 0, the pool is busy with another thread's copy or has no worker.
bool copy_vector(int64_t n, const void *x, int64_t incx, void *y, int64_t incy, size_t elem_bytes, int threads);

}  // namespace cudrop::impl
