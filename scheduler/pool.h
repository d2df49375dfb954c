/* The thread pool: one worker per core of the allowed cpuset (hwloc), each
 * bound to its core; a FIFO of work items; workers spin briefly, then park
 * on a condition variable (never spin while idle for long: the machines
 * are shared). The thread that submits work takes part in it while it
 * waits (hlx_pool_wait), so a pool of N threads has N-1 workers.
 *
 * Items never block on other items (nested plans run inline, replicas run
 * on their own threads), so helping cannot deadlock. */
#ifndef HLX_SCHEDULER_POOL_H_
#define HLX_SCHEDULER_POOL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parallel.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_pool_t hlx_pool_t;

typedef struct hlx_pool_options_t {
  /* Threads including the caller. 0: HLX_NUM_THREADS if set, else the
   * number of cores in the allowed cpuset. More threads than cores only
   * when asked explicitly (num_threads or HLX_NUM_THREADS). */
  int num_threads;
  bool pin_threads; /* bind worker i to core i+1 (the caller keeps its own) */
  /* Iterations an idle worker polls before it parks (default 2000,
   * roughly tens of microseconds). */
  int spin_iterations;
} hlx_pool_options_t;

void hlx_pool_options_init(hlx_pool_options_t* o);
hlx_status_t hlx_pool_create(const hlx_pool_options_t* o,
                             hlx_pool_t** out_pool) HLX_MUST_USE;
/* Waits for queued work to finish, joins the workers. */
void hlx_pool_destroy(hlx_pool_t* p);

/* The process-wide pool, created on first use with default options (NULL
 * if that failed). Never destroyed. */
hlx_pool_t* hlx_pool_default(void);

int hlx_pool_num_threads(const hlx_pool_t* p); /* workers + the caller */
int hlx_pool_num_cores(const hlx_pool_t* p);   /* cores in the cpuset */
/* Why threads are not pinned ("" when they are or were not asked to be). */
const char* hlx_pool_warning(const hlx_pool_t* p);
/* parallel_for on this pool for kernels (borrowed, lives with the pool). */
const hlx_parallel_t* hlx_pool_parallel(hlx_pool_t* p);

/* A unit of work: fn(a, i). */
typedef struct hlx_pool_item_t {
  void (*fn)(void* a, int32_t i);
  void* a;
  int32_t i;
} hlx_pool_item_t;

/* Queues n items and wakes as many parked threads. Returns false on OOM
 * (nothing queued). */
bool hlx_pool_push(hlx_pool_t* p, const hlx_pool_item_t* items, size_t n);
/* Runs queued items on the calling thread until done(arg) is true. */
void hlx_pool_wait(hlx_pool_t* p, bool (*done)(void* arg), void* arg);
/* Wakes threads parked in hlx_pool_wait so they re-check their condition;
 * call after making a condition true. */
void hlx_pool_notify(hlx_pool_t* p);

/* Runs fn over [0, n) in chunks of >= grain items on the pool and the
 * calling thread; returns when every chunk has run. */
void hlx_pool_parallel_for(hlx_pool_t* p, size_t n, size_t grain,
                           hlx_parallel_fn fn, void* arg);

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_POOL_H_ */
