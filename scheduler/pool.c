/* Thread pool over hwloc's view of the allowed cores (see pool.h). */
#include "scheduler/pool.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

struct hlx_pool_t {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* parked workers and waiting callers */
  hlx_pool_item_t* ring;
  size_t cap, head, count; /* guarded by mu */
  atomic_size_t pending;   /* == count; read without the lock to spin */
  int num_sleeping;        /* guarded by mu */
  bool stop;               /* guarded by mu */
  int num_workers;
  pthread_t* threads;
  int spin;
  int num_cores;
  char warning[256];
  hwloc_topology_t topo;
  bool have_topo;
  bool pin;
  int started; /* workers past their binding step (guarded by mu) */
  hlx_parallel_t parallel;
};

typedef struct worker_arg_t {
  hlx_pool_t* pool;
  int index;
} worker_arg_t;

void hlx_pool_options_init(hlx_pool_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->pin_threads = true;
  o->spin_iterations = 2000;
}

/* ---- queue --------------------------------------------------------------- */

static bool grow_locked(hlx_pool_t* p, size_t need) {
  if (p->count + need <= p->cap) return true;
  size_t cap = p->cap ? p->cap : 64;
  while (cap < p->count + need) cap *= 2;
  hlx_pool_item_t* r = malloc(cap * sizeof(*r));
  if (!r) return false;
  for (size_t k = 0; k < p->count; k++)
    r[k] = p->ring[(p->head + k) % p->cap];
  free(p->ring);
  p->ring = r;
  p->cap = cap;
  p->head = 0;
  return true;
}

bool hlx_pool_push(hlx_pool_t* p, const hlx_pool_item_t* items, size_t n) {
  if (n == 0) return true;
  pthread_mutex_lock(&p->mu);
  if (!grow_locked(p, n)) {
    pthread_mutex_unlock(&p->mu);
    return false;
  }
  for (size_t k = 0; k < n; k++)
    p->ring[(p->head + p->count + k) % p->cap] = items[k];
  p->count += n;
  atomic_store_explicit(&p->pending, p->count, memory_order_release);
  if (p->num_sleeping > 0) {
    if ((size_t)p->num_sleeping <= n)
      pthread_cond_broadcast(&p->cv);
    else
      for (size_t k = 0; k < n; k++) pthread_cond_signal(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
  return true;
}

static void job_popped_locked(hlx_pool_item_t* it);

static bool pop_locked(hlx_pool_t* p, hlx_pool_item_t* out) {
  if (p->count == 0) return false;
  *out = p->ring[p->head];
  p->head = (p->head + 1) % p->cap;
  p->count--;
  atomic_store_explicit(&p->pending, p->count, memory_order_release);
  job_popped_locked(out);
  return true;
}

static bool try_pop(hlx_pool_t* p, hlx_pool_item_t* out) {
  if (atomic_load_explicit(&p->pending, memory_order_acquire) == 0)
    return false;
  pthread_mutex_lock(&p->mu);
  bool ok = pop_locked(p, out);
  pthread_mutex_unlock(&p->mu);
  return ok;
}

void hlx_pool_notify(hlx_pool_t* p) {
  pthread_mutex_lock(&p->mu);
  if (p->num_sleeping) pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

void hlx_pool_wait(hlx_pool_t* p, bool (*done)(void* arg), void* arg) {
  hlx_pool_item_t it;
  for (;;) {
    if (done(arg)) return;
    if (try_pop(p, &it)) {
      it.fn(it.a, it.i);
      continue;
    }
    int k = 0;
    for (; k < p->spin; k++) {
      if (atomic_load_explicit(&p->pending, memory_order_relaxed) ||
          done(arg))
        break;
      CPU_RELAX();
    }
    if (k < p->spin) continue;
    pthread_mutex_lock(&p->mu);
    bool got = false;
    while (!done(arg)) {
      if (pop_locked(p, &it)) {
        got = true;
        break;
      }
      p->num_sleeping++;
      pthread_cond_wait(&p->cv, &p->mu);
      p->num_sleeping--;
    }
    pthread_mutex_unlock(&p->mu);
    if (got) it.fn(it.a, it.i);
  }
}

static void* worker_main(void* varg) {
  worker_arg_t* wa = varg;
  hlx_pool_t* p = wa->pool;
  if (p->pin && p->have_topo && p->num_cores > 0) {
    int core = (wa->index + 1) % p->num_cores;
    hwloc_obj_t obj = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_CORE,
                                            (unsigned)core);
    if (!obj) obj = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_PU, (unsigned)core);
    if (!obj ||
        hwloc_set_cpubind(p->topo, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
      pthread_mutex_lock(&p->mu);
      if (!p->warning[0])
        snprintf(p->warning, sizeof p->warning,
                 "hlx pool: cannot bind worker %d to core %d (%s); workers "
                 "run unpinned",
                 wa->index, core, obj ? strerror(errno) : "no such core");
      pthread_mutex_unlock(&p->mu);
    }
  }
  free(wa);
  pthread_mutex_lock(&p->mu);
  p->started++;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  hlx_pool_item_t it;
  for (;;) {
    if (try_pop(p, &it)) {
      it.fn(it.a, it.i);
      continue;
    }
    int k = 0;
    for (; k < p->spin; k++) {
      if (atomic_load_explicit(&p->pending, memory_order_relaxed)) break;
      CPU_RELAX();
    }
    if (k < p->spin) continue;
    pthread_mutex_lock(&p->mu);
    bool got = false, stop = false;
    for (;;) {
      if (pop_locked(p, &it)) {
        got = true;
        break;
      }
      if (p->stop) {
        stop = true;
        break;
      }
      p->num_sleeping++;
      pthread_cond_wait(&p->cv, &p->mu);
      p->num_sleeping--;
    }
    pthread_mutex_unlock(&p->mu);
    if (got) it.fn(it.a, it.i);
    if (stop) break;
  }
  return NULL;
}

/* ---- parallel_for -------------------------------------------------------- */

typedef struct job_t {
  hlx_pool_t* pool;
  hlx_parallel_fn fn;
  void* arg;
  size_t n, chunk, num_chunks;
  atomic_size_t next;
  atomic_size_t finished; /* chunks done */
  atomic_int active;      /* helpers inside job_help (counted under mu) */
} job_t;

static void run_chunks(job_t* j) {
  for (;;) {
    size_t c = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
    if (c >= j->num_chunks) return;
    size_t b = c * j->chunk;
    size_t e = b + j->chunk < j->n ? b + j->chunk : j->n;
    j->fn(j->arg, b, e);
    if (atomic_fetch_add_explicit(&j->finished, 1, memory_order_acq_rel) +
            1 ==
        j->num_chunks)
      hlx_pool_notify(j->pool);
  }
}

static void job_help(void* a, int32_t i) {
  (void)i;
  job_t* j = a;
  run_chunks(j);
  atomic_fetch_sub_explicit(&j->active, 1, memory_order_release);
}

static void job_popped_locked(hlx_pool_item_t* it) {
  if (it->fn == job_help)
    atomic_fetch_add_explicit(&((job_t*)it->a)->active, 1,
                              memory_order_relaxed);
}

static bool job_done(void* a) {
  job_t* j = a;
  return atomic_load_explicit(&j->finished, memory_order_acquire) ==
         j->num_chunks;
}

void hlx_pool_parallel_for(hlx_pool_t* p, size_t n, size_t grain,
                           hlx_parallel_fn fn, void* arg) {
  if (n == 0) return;
  if (grain == 0) grain = 1;
  int threads = p ? p->num_workers + 1 : 1;
  if (threads == 1 || n <= grain) {
    fn(arg, 0, n);
    return;
  }
  /* A few chunks per thread for balance, never below the grain. */
  size_t want = (size_t)threads * 4;
  size_t chunk = (n + want - 1) / want;
  if (chunk < grain) chunk = grain;
  job_t j;
  j.pool = p;
  j.fn = fn;
  j.arg = arg;
  j.n = n;
  j.chunk = chunk;
  j.num_chunks = (n + chunk - 1) / chunk;
  atomic_init(&j.next, 0);
  atomic_init(&j.finished, 0);
  atomic_init(&j.active, 0);
  size_t helpers = j.num_chunks - 1;
  if (helpers > (size_t)p->num_workers) helpers = (size_t)p->num_workers;
  hlx_pool_item_t items[64];
  if (helpers > 64) helpers = 64;
  for (size_t k = 0; k < helpers; k++)
    items[k] = (hlx_pool_item_t){job_help, &j, 0};
  if (!hlx_pool_push(p, items, helpers)) helpers = 0;
  run_chunks(&j);
  /* Other chunks may still be running on helpers: help with queued work
   * (possibly other tasks) until they finish. */
  hlx_pool_wait(p, job_done, &j);
  /* Drop helper items nobody popped, then wait for helpers still inside
   * job_help (they find no chunk left and leave at once). */
  pthread_mutex_lock(&p->mu);
  size_t keep = 0;
  for (size_t k = 0; k < p->count; k++) {
    hlx_pool_item_t it = p->ring[(p->head + k) % p->cap];
    if (it.fn == job_help && it.a == &j) continue;
    p->ring[(p->head + keep) % p->cap] = it;
    keep++;
  }
  p->count = keep;
  atomic_store_explicit(&p->pending, p->count, memory_order_release);
  pthread_mutex_unlock(&p->mu);
  while (atomic_load_explicit(&j.active, memory_order_acquire) != 0)
    sched_yield();
}

static int parallel_num_threads(void* ctx) {
  return hlx_pool_num_threads(ctx);
}
static void parallel_for_cb(void* ctx, size_t n, size_t grain,
                            hlx_parallel_fn fn, void* arg) {
  hlx_pool_parallel_for(ctx, n, grain, fn, arg);
}

/* ---- create / destroy ---------------------------------------------------- */

static int env_threads(void) {
  const char* s = getenv("HLX_NUM_THREADS");
  if (!s || !*s) return 0;
  char* end = NULL;
  long v = strtol(s, &end, 10);
  if (*end || v < 1 || v > 4096) return 0;
  return (int)v;
}

hlx_status_t hlx_pool_create(const hlx_pool_options_t* o,
                             hlx_pool_t** out_pool) {
  *out_pool = NULL;
  hlx_pool_options_t opt;
  hlx_pool_options_init(&opt);
  if (o) opt = *o;
  if (opt.num_threads < 0 || opt.num_threads > 4096)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_pool_create: num_threads %d is not in "
                           "[0, 4096]",
                           opt.num_threads);
  hlx_pool_t* p = calloc(1, sizeof(*p));
  if (!p) return hlx_status_oom();
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  atomic_init(&p->pending, 0);
  p->spin = opt.spin_iterations < 0 ? 0 : opt.spin_iterations;
  p->pin = opt.pin_threads;
  if (hwloc_topology_init(&p->topo) == 0) {
    if (hwloc_topology_load(p->topo) == 0) {
      p->have_topo = true;
      int cores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_CORE);
      if (cores <= 0) cores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU);
      p->num_cores = cores > 0 ? cores : 1;
    } else {
      hwloc_topology_destroy(p->topo);
    }
  }
  if (!p->have_topo) {
    p->num_cores = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      p->num_cores = CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
    if (p->pin)
      snprintf(p->warning, sizeof p->warning,
               "hlx pool: hwloc topology unavailable; workers run unpinned");
  }
  int threads = opt.num_threads ? opt.num_threads : env_threads();
  if (!threads) threads = p->num_cores;
  p->num_workers = threads - 1;
  p->parallel.ctx = p;
  p->parallel.num_threads = parallel_num_threads;
  p->parallel.parallel_for = parallel_for_cb;
  p->threads = calloc((size_t)p->num_workers + 1, sizeof(pthread_t));
  if (!p->threads) {
    p->num_workers = 0;
    hlx_pool_destroy(p);
    return hlx_status_oom();
  }
  for (int w = 0; w < p->num_workers; w++) {
    worker_arg_t* wa = malloc(sizeof(*wa));
    int rc = wa ? 0 : ENOMEM;
    if (wa) {
      wa->pool = p;
      wa->index = w;
      rc = pthread_create(&p->threads[w], NULL, worker_main, wa);
      if (rc) free(wa);
    }
    if (rc) {
      p->num_workers = w;
      hlx_pool_destroy(p);
      return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                             "hlx_pool_create: cannot start worker %d of %d "
                             "(%s)",
                             w, threads - 1, strerror(rc));
    }
  }
  /* Wait until every worker has tried its binding, so the warning is
   * final when create returns. */
  pthread_mutex_lock(&p->mu);
  while (p->started < p->num_workers) pthread_cond_wait(&p->cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
  *out_pool = p;
  return NULL;
}

void hlx_pool_destroy(hlx_pool_t* p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (int w = 0; w < p->num_workers; w++) pthread_join(p->threads[w], NULL);
  free(p->threads);
  free(p->ring);
  if (p->have_topo) hwloc_topology_destroy(p->topo);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p);
}

static hlx_pool_t* g_default;
static pthread_once_t g_default_once = PTHREAD_ONCE_INIT;
static void make_default(void) {
  hlx_status_t st = hlx_pool_create(NULL, &g_default);
  if (st) {
    hlx_status_free(st);
    g_default = NULL;
  }
}

hlx_pool_t* hlx_pool_default(void) {
  pthread_once(&g_default_once, make_default);
  return g_default;
}

int hlx_pool_num_threads(const hlx_pool_t* p) {
  return p ? p->num_workers + 1 : 1;
}
int hlx_pool_num_cores(const hlx_pool_t* p) { return p ? p->num_cores : 1; }

const char* hlx_pool_warning(const hlx_pool_t* p) {
  if (!p) return "";
  /* Workers write it once while starting; read under the lock. */
  pthread_mutex_lock((pthread_mutex_t*)&p->mu);
  const char* w = p->warning;
  pthread_mutex_unlock((pthread_mutex_t*)&p->mu);
  return w;
}

const hlx_parallel_t* hlx_pool_parallel(hlx_pool_t* p) {
  return p ? &p->parallel : NULL;
}
