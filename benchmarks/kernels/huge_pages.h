// Benchmark buffers as the executor's arena allocates large tensors: 2 MiB
// aligned, MADV_HUGEPAGE, zeroed (so the pages exist before any timing).
// Freed with free(). Shared by the kernel benchmarks.
#ifndef HLX_BENCHMARKS_KERNELS_HUGE_PAGES_H_
#define HLX_BENCHMARKS_KERNELS_HUGE_PAGES_H_

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

namespace hlx_bench {

template <typename T>
T* HugeAlloc(size_t n) {
  size_t align = (size_t)2 << 20;
  size_t bytes = (n * sizeof(T) + align - 1) / align * align;
  void* q = nullptr;
  if (posix_memalign(&q, align, bytes) != 0) abort();
  madvise(q, bytes, MADV_HUGEPAGE);
  memset(q, 0, bytes);
  return static_cast<T*>(q);
}

}  // namespace hlx_bench

#endif  // HLX_BENCHMARKS_KERNELS_HUGE_PAGES_H_
