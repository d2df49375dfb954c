/* The thread pool: one worker per core of the allowed cpuset (hwloc), each
 * bound to its core (or to the cpus of an explicit list); workers spin
 * briefly, then park on a condition variable (never spin while idle for
 * long: the machines are shared). The thread that submits work takes part
 * in it while it waits (hlx_pool_wait), so a pool of N threads has N-1
 * workers.
 *
 * Work stealing: every worker, and every caller between hlx_pool_attach
 * and hlx_pool_detach, has a deque of its own. Items a thread pushes go to
 * its deque and it runs them newest first (locality: the successors a task
 * readied run on the thread that finished it); an idle thread steals the
 * oldest half of another deque. Pushes from other threads go to a shared
 * injector deque.
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
  /* Logical cpus (OS numbering) to pin to, e.g. "0,2-3"; NULL or "": the
   * HLX_CPUS environment variable if set, else one worker per core. Worker
   * w binds to list[(w + 1) mod n] (the caller keeps its own affinity);
   * without num_threads the pool has n threads. A malformed list or a cpu
   * outside the allowed cpuset fails hlx_pool_create. */
  const char* cpus;
} hlx_pool_options_t;

void hlx_pool_options_init(hlx_pool_options_t* o);
hlx_status_t hlx_pool_create(const hlx_pool_options_t* o,
                             hlx_pool_t** out_pool) HLX_MUST_USE;
/* Waits for queued work to finish, joins the workers. */
void hlx_pool_destroy(hlx_pool_t* p);

/* The process-wide pool, created on first use with default options (NULL
 * if that failed). Never destroyed. */
hlx_pool_t* hlx_pool_default(void);
/* The same, or the status that made creating it fail (a bad HLX_CPUS). */
hlx_status_t hlx_pool_get_default(hlx_pool_t** out_pool) HLX_MUST_USE;

int hlx_pool_num_threads(const hlx_pool_t* p); /* workers + the caller */
int hlx_pool_num_cores(const hlx_pool_t* p);   /* cores in the cpuset */
int hlx_pool_num_numa_nodes(const hlx_pool_t* p); /* hwloc NUMA nodes */
/* The cpu worker w is pinned to by a cpu list, or -1 (no list, unpinned). */
int hlx_pool_worker_cpu(const hlx_pool_t* p, int worker);
/* One line: threads, pinning, cores and NUMA nodes with their cpus
 * (borrowed, lives with the pool). */
const char* hlx_pool_topology(const hlx_pool_t* p);
/* Parses a cpu list ("0,2-3") into at most cap cpus; a clear error status
 * for malformed lists and repeated cpus. */
hlx_status_t hlx_pool_parse_cpu_list(const char* s, int* cpus, int cap,
                                     int* out_n) HLX_MUST_USE;
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

/* Gives the calling thread (not a worker) a deque of its own until the
 * matching detach, so the items it pushes stay local and it can take
 * stolen batches. Nests; a no-op for workers, for NULL, and when every
 * caller deque is taken (the thread then uses the injector). */
void hlx_pool_attach(hlx_pool_t* p);
void hlx_pool_detach(hlx_pool_t* p);

/* Queues n items on the calling thread's deque and wakes as many parked
 * threads. Returns false on OOM (nothing queued). */
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
