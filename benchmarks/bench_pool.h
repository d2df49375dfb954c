// One hlx pool per thread count (1 or 2: the machine's cores), created on
// first use and kept for the whole benchmark run, so pool start-up is never
// timed. NULL if the pool cannot be created. Shared by the benchmarks.
#ifndef HLX_BENCHMARKS_BENCH_POOL_H_
#define HLX_BENCHMARKS_BENCH_POOL_H_

#include "scheduler/pool.h"

namespace hlx_bench {

inline hlx_pool_t* Pool(int threads) {
  static hlx_pool_t* pools[3] = {nullptr, nullptr, nullptr};
  if (threads < 1 || threads > 2) return nullptr;
  if (!pools[threads]) {
    hlx_pool_options_t o;
    hlx_pool_options_init(&o);
    o.num_threads = threads;
    hlx_status_t st = hlx_pool_create(&o, &pools[threads]);
    if (st) hlx_status_free(st);
  }
  return pools[threads];
}

}  // namespace hlx_bench

#endif  // HLX_BENCHMARKS_BENCH_POOL_H_
