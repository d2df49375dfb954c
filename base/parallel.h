/* The tiny interface kernels use to split work across threads.
 *
 * Kernels sit below the scheduler (DESIGN.md layering), so they never see
 * the pool: a task passes them an hlx_parallel_t (or NULL) and they call
 * hlx_parallel_for, which runs fn over [0, n) in chunks of at least `grain`
 * items, on the pool the task runs on (the calling thread takes part; no
 * nested pool, no oversubscription). Same shape as XNNPACK's
 * xnn_scheduler_v2 and oneDNN's threadpool_iface.
 *
 * fn(arg, begin, end) must be safe to call concurrently on disjoint ranges.
 * With p == NULL (or one thread) the whole range runs inline as one call. */
#ifndef HLX_BASE_PARALLEL_H_
#define HLX_BASE_PARALLEL_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*hlx_parallel_fn)(void* arg, size_t begin, size_t end);

typedef struct hlx_parallel_t {
  void* ctx;
  /* Threads that may run chunks at once (>= 1). */
  int (*num_threads)(void* ctx);
  void (*parallel_for)(void* ctx, size_t n, size_t grain, hlx_parallel_fn fn,
                       void* arg);
} hlx_parallel_t;

static inline int hlx_parallel_num_threads(const hlx_parallel_t* p) {
  return p && p->num_threads ? p->num_threads(p->ctx) : 1;
}

static inline void hlx_parallel_for(const hlx_parallel_t* p, size_t n,
                                    size_t grain, hlx_parallel_fn fn,
                                    void* arg) {
  if (n == 0) return;
  if (!p || !p->parallel_for || (grain && n <= grain)) {
    fn(arg, 0, n);
    return;
  }
  p->parallel_for(p->ctx, n, grain, fn, arg);
}

#ifdef __cplusplus
}
#endif

#endif /* HLX_BASE_PARALLEL_H_ */
