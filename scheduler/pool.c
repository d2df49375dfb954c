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

#include "kernels/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

enum {
  /* Deques for threads outside the pool (run callers) that attach; more
   * concurrent callers than this share the injector deque. */
  kExternalDeques = 8,
  /* Most items a thief takes from one victim at once (half of them). */
  kMaxSteal = 32,
  kMaxCpus = 4096,
};

/* A lock for a few loads and stores: spin (no system call, unlike a
 * contended mutex), yielding the core now and then in case the holder was
 * preempted. */
typedef struct spinlock_t {
  atomic_int held;
} spinlock_t;

static void spin_lock(spinlock_t* l) {
  for (int k = 0;; k++) {
    if (!atomic_load_explicit(&l->held, memory_order_relaxed) &&
        !atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
      return;
    if (k % 64 == 63)
      sched_yield();
    else
      CPU_RELAX();
  }
}

static void spin_unlock(spinlock_t* l) {
  atomic_store_explicit(&l->held, 0, memory_order_release);
}

/* A ring of items under its own lock. The owner pushes and pops at the
 * bottom (newest first: the successors it just readied, still in its
 * cache); thieves take the oldest at the top. */
typedef struct deque_t {
  _Alignas(64) spinlock_t mu;
  hlx_pool_item_t* ring;
  size_t cap, head, count; /* guarded by mu */
  atomic_size_t size;      /* == count; read without the lock */
  atomic_int owned;        /* external deques: 1 while a caller holds it */
} deque_t;

struct hlx_pool_t {
  /* Parking: one mutex and condition variable for idle threads and for
   * callers waiting on a condition (hlx_pool_notify). */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int num_sleeping;
  bool stop; /* guarded by mu */
  int num_workers;
  /* [0, num_workers): workers; then kExternalDeques for attached callers;
   * the last is the injector, for pushes from unattached threads. */
  int num_deques;
  deque_t* deques;
  pthread_t* threads;
  int spin;
  int num_cores;
  int num_numa;
  int* cpus; /* OS indices workers bind to (cpu list), or NULL */
  int num_cpus;
  char warning[256];
  char topology[512];
  hwloc_topology_t topo;
  bool have_topo;
  bool pin;
  int started; /* workers past their binding step (guarded by mu) */
  hlx_parallel_t parallel;
};

/* The deque the current thread pushes to and pops first, per pool. */
typedef struct self_t {
  hlx_pool_t* pool;
  int dq;
  int attach_depth; /* nested attaches of an external caller */
} self_t;
static _Thread_local self_t t_self;

typedef struct worker_arg_t {
  hlx_pool_t* pool;
  int index;
} worker_arg_t;

void hlx_pool_options_init(hlx_pool_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->pin_threads = true;
  o->spin_iterations = 2000;
}

/* ---- deques -------------------------------------------------------------- */

static int injector(const hlx_pool_t* p) { return p->num_deques - 1; }

static int my_deque(const hlx_pool_t* p) {
  return t_self.pool == p ? t_self.dq : injector(p);
}

static bool grow_locked(deque_t* q, size_t need) {
  if (q->count + need <= q->cap) return true;
  size_t cap = q->cap ? q->cap : 64;
  while (cap < q->count + need) cap *= 2;
  hlx_pool_item_t* r = malloc(cap * sizeof(*r));
  if (!r) return false;
  for (size_t k = 0; k < q->count; k++) r[k] = q->ring[(q->head + k) % q->cap];
  free(q->ring);
  q->ring = r;
  q->cap = cap;
  q->head = 0;
  return true;
}

static bool deque_push(deque_t* q, const hlx_pool_item_t* items, size_t n) {
  spin_lock(&q->mu);
  if (!grow_locked(q, n)) {
    spin_unlock(&q->mu);
    return false;
  }
  for (size_t k = 0; k < n; k++)
    q->ring[(q->head + q->count + k) % q->cap] = items[k];
  q->count += n;
  atomic_store_explicit(&q->size, q->count, memory_order_relaxed);
  spin_unlock(&q->mu);
  return true;
}

static void job_popped_locked(hlx_pool_item_t* it);
static bool is_job_item(const hlx_pool_item_t* it);

/* The owner's end: the newest item. */
static bool deque_pop(deque_t* q, hlx_pool_item_t* out) {
  if (atomic_load_explicit(&q->size, memory_order_relaxed) == 0) return false;
  spin_lock(&q->mu);
  bool ok = q->count > 0;
  if (ok) {
    q->count--;
    *out = q->ring[(q->head + q->count) % q->cap];
    atomic_store_explicit(&q->size, q->count, memory_order_relaxed);
    job_popped_locked(out);
  }
  spin_unlock(&q->mu);
  return ok;
}

/* The thieves' end: up to `max` of the oldest items, at least one when the
 * deque is not empty. */
static size_t deque_steal(deque_t* q, hlx_pool_item_t* out, size_t max) {
  if (atomic_load_explicit(&q->size, memory_order_relaxed) == 0) return 0;
  spin_lock(&q->mu);
  size_t n = (q->count + 1) / 2;
  if (n > max) n = max;
  /* parallel_for helpers are only taken to be run (the first item): one
   * moved to the thief's deque would be out of reach of job_remove_items
   * while in transit. */
  size_t k = 0;
  for (; k < n; k++) {
    hlx_pool_item_t it = q->ring[q->head];
    if (k > 0 && is_job_item(&it)) break;
    out[k] = it;
    q->head = (q->head + 1) % q->cap;
    job_popped_locked(&out[k]);
  }
  n = k;
  q->count -= n;
  atomic_store_explicit(&q->size, q->count, memory_order_relaxed);
  spin_unlock(&q->mu);
  return n;
}

static bool any_work(hlx_pool_t* p) {
  for (int d = 0; d < p->num_deques; d++)
    if (atomic_load_explicit(&p->deques[d].size, memory_order_relaxed))
      return true;
  return false;
}

/* Wakes up to n parked threads after work was queued. The fence pairs
 * with the one in park(): either the pusher sees the sleeper counted, or
 * the sleeper sees the queued work. */
static void wake(hlx_pool_t* p, size_t n) {
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&p->num_sleeping, memory_order_relaxed) == 0)
    return;
  pthread_mutex_lock(&p->mu);
  int sleeping = atomic_load_explicit(&p->num_sleeping, memory_order_relaxed);
  if (sleeping > 0) {
    if ((size_t)sleeping <= n)
      pthread_cond_broadcast(&p->cv);
    else
      for (size_t k = 0; k < n; k++) pthread_cond_signal(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
}

bool hlx_pool_push(hlx_pool_t* p, const hlx_pool_item_t* items, size_t n) {
  if (n == 0) return true;
  if (!deque_push(&p->deques[my_deque(p)], items, n)) return false;
  wake(p, n);
  return true;
}

/* One item for the calling thread: its own deque's newest, else half of
 * another deque's oldest (the rest go to its own deque, where other
 * thieves can still find them). */
static bool find_work(hlx_pool_t* p, hlx_pool_item_t* out) {
  int self = my_deque(p);
  if (deque_pop(&p->deques[self], out)) return true;
  hlx_pool_item_t got[kMaxSteal];
  /* Unattached threads take one item at a time: they have no deque of
   * their own to keep the rest in. */
  size_t max = self == injector(p) ? 1 : kMaxSteal;
  for (int k = 1; k < p->num_deques; k++) {
    int v = (self + k) % p->num_deques;
    size_t n = deque_steal(&p->deques[v], got, max);
    if (n == 0) continue;
    *out = got[0];
    if (n > 1) {
      /* Oldest first in the ring, so the owner's end pops got[1] last. */
      if (deque_push(&p->deques[self], got + 1, n - 1))
        wake(p, n - 1);
      else
        for (size_t i = 1; i < n; i++) got[i].fn(got[i].a, got[i].i);
    }
    return true;
  }
  return false;
}

void hlx_pool_attach(hlx_pool_t* p) {
  if (!p) return;
  if (t_self.pool == p) {
    if (t_self.dq >= p->num_workers) t_self.attach_depth++;
    return;
  }
  if (t_self.pool) return; /* attached to another pool: use the injector */
  for (int d = p->num_workers; d < injector(p); d++) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&p->deques[d].owned, &expected, 1)) {
      t_self = (self_t){p, d, 1};
      return;
    }
  }
}

void hlx_pool_detach(hlx_pool_t* p) {
  if (!p || t_self.pool != p || t_self.dq < p->num_workers) return;
  if (--t_self.attach_depth > 0) return;
  /* Items left behind (another run's, readied by a task this caller
   * helped with) stay stealable; wake a thread to take them. */
  int d = t_self.dq;
  t_self = (self_t){NULL, 0, 0};
  atomic_store(&p->deques[d].owned, 0);
  if (atomic_load_explicit(&p->deques[d].size, memory_order_relaxed))
    wake(p, 1);
}

void hlx_pool_notify(hlx_pool_t* p) {
  pthread_mutex_lock(&p->mu);
  if (atomic_load_explicit(&p->num_sleeping, memory_order_relaxed))
    pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

/* Spins up to p->spin polls for work or done(arg); true if either shows. */
static bool spin_briefly(hlx_pool_t* p, bool (*done)(void*), void* arg) {
  for (int k = 0; k < p->spin; k++) {
    if (any_work(p) || (done && done(arg))) return true;
    CPU_RELAX();
  }
  return false;
}

/* Parks until work is queued, done(arg) holds (after hlx_pool_notify) or
 * the pool stops. Returns whether the pool is stopping. */
static bool park(hlx_pool_t* p, bool (*done)(void*), void* arg) {
  pthread_mutex_lock(&p->mu);
  atomic_fetch_add_explicit(&p->num_sleeping, 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_seq_cst);
  bool stop = p->stop;
  if (!stop && !any_work(p) && !(done && done(arg)))
    pthread_cond_wait(&p->cv, &p->mu);
  atomic_fetch_sub_explicit(&p->num_sleeping, 1, memory_order_relaxed);
  stop = p->stop;
  pthread_mutex_unlock(&p->mu);
  return stop;
}

void hlx_pool_wait(hlx_pool_t* p, bool (*done)(void* arg), void* arg) {
  hlx_pool_item_t it;
  for (;;) {
    if (done(arg)) return;
    if (find_work(p, &it)) {
      it.fn(it.a, it.i);
      continue;
    }
    if (spin_briefly(p, done, arg)) continue;
    (void)park(p, done, arg);
  }
}

static void bind_worker(hlx_pool_t* p, int index) {
  if (!p->pin || !p->have_topo || p->num_cores <= 0) return;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  const char* what = "no such core";
  int cpu = -1, core = -1;
  bool ok = false;
  if (set && p->cpus) {
    cpu = p->cpus[(index + 1) % p->num_cpus];
    hwloc_bitmap_only(set, (unsigned)cpu);
    ok = true;
  } else if (set) {
    core = (index + 1) % p->num_cores;
    hwloc_obj_t obj =
        hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_CORE, (unsigned)core);
    if (!obj)
      obj = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_PU, (unsigned)core);
    if (obj) {
      hwloc_bitmap_copy(set, obj->cpuset);
      ok = true;
    }
  }
  if (ok && hwloc_set_cpubind(p->topo, set, HWLOC_CPUBIND_THREAD) != 0) {
    ok = false;
    what = strerror(errno);
  }
  hwloc_bitmap_free(set);
  if (ok) return;
  pthread_mutex_lock(&p->mu);
  if (!p->warning[0])
    snprintf(p->warning, sizeof p->warning,
             "hlx pool: cannot bind worker %d to %s %d (%s); workers run "
             "unpinned",
             index, cpu >= 0 ? "cpu" : "core", cpu >= 0 ? cpu : core, what);
  pthread_mutex_unlock(&p->mu);
}

static void* worker_main(void* varg) {
  worker_arg_t* wa = varg;
  hlx_pool_t* p = wa->pool;
  t_self = (self_t){p, wa->index, 0};
  bind_worker(p, wa->index);
  free(wa);
  pthread_mutex_lock(&p->mu);
  p->started++;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  hlx_pool_item_t it;
  for (;;) {
    if (find_work(p, &it)) {
      it.fn(it.a, it.i);
      continue;
    }
    if (spin_briefly(p, NULL, NULL)) continue;
    if (park(p, NULL, NULL) && !any_work(p)) break;
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
  atomic_int active;      /* helpers popped and not yet out of job_help */
  hlx_isa_t isa_cap;      /* the caller's thread cap (kernels dispatch) */
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
  hlx_isa_t prev_cap = hlx_cpu_thread_isa_cap_swap(j->isa_cap);
  run_chunks(j);
  hlx_cpu_thread_isa_cap_swap(prev_cap);
  atomic_fetch_sub_explicit(&j->active, 1, memory_order_release);
}

/* Called under the deque lock for every popped or stolen item, so that
 * removing a job's leftover items (under the same locks) and counting the
 * popped ones agree. */
static void job_popped_locked(hlx_pool_item_t* it) {
  if (it->fn == job_help)
    atomic_fetch_add_explicit(&((job_t*)it->a)->active, 1,
                              memory_order_relaxed);
}

static bool is_job_item(const hlx_pool_item_t* it) {
  return it->fn == job_help;
}

static bool job_done(void* a) {
  job_t* j = a;
  return atomic_load_explicit(&j->finished, memory_order_acquire) ==
         j->num_chunks;
}

/* Drops j's helper items that nobody popped, from every deque. */
static void job_remove_items(hlx_pool_t* p, const job_t* j) {
  for (int d = 0; d < p->num_deques; d++) {
    deque_t* q = &p->deques[d];
    if (atomic_load_explicit(&q->size, memory_order_relaxed) == 0) continue;
    spin_lock(&q->mu);
    size_t keep = 0;
    for (size_t k = 0; k < q->count; k++) {
      hlx_pool_item_t it = q->ring[(q->head + k) % q->cap];
      if (it.fn == job_help && it.a == j) continue;
      q->ring[(q->head + keep) % q->cap] = it;
      keep++;
    }
    q->count = keep;
    atomic_store_explicit(&q->size, q->count, memory_order_relaxed);
    spin_unlock(&q->mu);
  }
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
  j.isa_cap = hlx_cpu_thread_isa_cap();
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
  /* Then wait for helpers still inside job_help (they find no chunk left
   * and leave at once). */
  job_remove_items(p, &j);
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

/* ---- cpu lists ----------------------------------------------------------- */

hlx_status_t hlx_pool_parse_cpu_list(const char* s, int* cpus, int cap,
                                     int* out_n) {
  *out_n = 0;
  const char* c = s;
  int n = 0;
  if (!s || !*s)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "cpu list \"\": empty (expected e.g. \"0,2-3\")");
  for (;;) {
    char* end;
    errno = 0;
    if (*c < '0' || *c > '9') goto bad;
    long lo = strtol(c, &end, 10), hi = lo;
    if (errno || lo >= kMaxCpus) goto bad;
    c = end;
    if (*c == '-') {
      c++;
      if (*c < '0' || *c > '9') goto bad;
      hi = strtol(c, &end, 10);
      if (errno || hi >= kMaxCpus || hi < lo) goto bad;
      c = end;
    }
    for (long v = lo; v <= hi; v++) {
      for (int k = 0; k < n; k++)
        if (cpus[k] == v)
          return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                 "cpu list \"%s\": cpu %ld listed twice", s,
                                 v);
      if (n == cap)
        return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                               "cpu list \"%s\": more than %d cpus", s, cap);
      cpus[n++] = (int)v;
    }
    if (*c == 0) break;
    if (*c != ',') goto bad;
    c++;
  }
  *out_n = n;
  return NULL;
bad:
  return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                         "cpu list \"%s\": malformed at offset %d (expected "
                         "comma-separated cpu numbers or ranges like "
                         "\"0,2-3\", each below %d)",
                         s, (int)(c - s), kMaxCpus);
}

/* Checks the listed cpus exist in the allowed cpuset. */
static hlx_status_t check_cpus(hlx_pool_t* p, const char* list) {
  if (!p->have_topo) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return NULL;
    for (int k = 0; k < p->num_cpus; k++)
      if (p->cpus[k] >= CPU_SETSIZE || !CPU_ISSET(p->cpus[k], &set))
        return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                               "cpu list \"%s\": cpu %d is not in this "
                               "process's allowed cpus",
                               list, p->cpus[k]);
    return NULL;
  }
  hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(p->topo);
  for (int k = 0; k < p->num_cpus; k++)
    if (!hwloc_bitmap_isset(allowed, (unsigned)p->cpus[k])) {
      char have[128];
      hwloc_bitmap_list_snprintf(have, sizeof have, allowed);
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "cpu list \"%s\": cpu %d is not in this "
                             "process's allowed cpus (%s)",
                             list, p->cpus[k], have);
    }
  return NULL;
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

/* "2 threads (1 worker + caller), workers pinned to cpus 1; 2 cores;
 * 1 NUMA node: 0 (cpus 0-1)". */
static void describe(hlx_pool_t* p) {
  char* b = p->topology;
  size_t cap = sizeof p->topology, len = 0;
#define APPEND(...)                                                     \
  do {                                                                  \
    int w_ = snprintf(b + len, cap - len, __VA_ARGS__);                 \
    if (w_ > 0) len = (size_t)w_ < cap - len ? len + (size_t)w_ : cap - 1; \
  } while (0)
  APPEND("%d threads, %s", p->num_workers + 1,
         !p->pin ? "unpinned" : p->cpus ? "pinned to cpus " : "pinned per core");
  if (p->pin && p->cpus) {
    for (int k = 0; k < p->num_cpus; k++) APPEND("%s%d", k ? "," : "", p->cpus[k]);
    APPEND(" (worker w on cpu list[(w+1) mod %d])", p->num_cpus);
  }
  APPEND("; %d cores; %d NUMA node%s", p->num_cores, p->num_numa,
         p->num_numa == 1 ? "" : "s");
  if (p->have_topo) {
    for (int k = 0; k < p->num_numa; k++) {
      hwloc_obj_t o = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_NUMANODE,
                                            (unsigned)k);
      if (!o || !o->cpuset) continue;
      char cpus[96];
      hwloc_bitmap_list_snprintf(cpus, sizeof cpus, o->cpuset);
      APPEND("%s node %u: cpus %s", k ? "," : ":", o->os_index, cpus);
    }
  }
#undef APPEND
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
  atomic_init(&p->num_sleeping, 0);
  p->spin = opt.spin_iterations < 0 ? 0 : opt.spin_iterations;
  p->pin = opt.pin_threads;
  p->num_numa = 1;
  if (hwloc_topology_init(&p->topo) == 0) {
    if (hwloc_topology_load(p->topo) == 0) {
      p->have_topo = true;
      int cores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_CORE);
      if (cores <= 0) cores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU);
      p->num_cores = cores > 0 ? cores : 1;
      int numa = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_NUMANODE);
      p->num_numa = numa > 0 ? numa : 1;
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
  /* Explicit cpu list: the option, else HLX_CPUS. */
  const char* list = opt.cpus;
  const char* origin = "hlx_pool_options_t.cpus";
  if (!list || !*list) {
    list = getenv("HLX_CPUS");
    origin = "HLX_CPUS";
  }
  hlx_status_t st = NULL;
  if (list && *list) {
    p->cpus = malloc(kMaxCpus * sizeof(int));
    if (!p->cpus) st = hlx_status_oom();
    if (!st) st = hlx_pool_parse_cpu_list(list, p->cpus, kMaxCpus, &p->num_cpus);
    if (!st) st = check_cpus(p, list);
    if (st) {
      st = hlx_status_annotate(st, "hlx_pool_create (%s)", origin);
      p->num_workers = 0;
      hlx_pool_destroy(p);
      return st;
    }
  }
  int threads = opt.num_threads ? opt.num_threads : env_threads();
  if (!threads) threads = p->cpus ? p->num_cpus : p->num_cores;
  p->num_workers = threads - 1;
  p->parallel.ctx = p;
  p->parallel.num_threads = parallel_num_threads;
  p->parallel.parallel_for = parallel_for_cb;
  p->num_deques = p->num_workers + kExternalDeques + 1;
  p->deques = calloc((size_t)p->num_deques, sizeof(deque_t));
  p->threads = calloc((size_t)p->num_workers + 1, sizeof(pthread_t));
  if (!p->threads || !p->deques) {
    p->num_workers = 0;
    free(p->deques);
    p->deques = NULL;
    p->num_deques = 0;
    hlx_pool_destroy(p);
    return hlx_status_oom();
  }
  for (int d = 0; d < p->num_deques; d++) {
    atomic_init(&p->deques[d].mu.held, 0);
    atomic_init(&p->deques[d].size, 0);
    atomic_init(&p->deques[d].owned, 0);
  }
  describe(p);
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
  for (int d = 0; d < p->num_deques; d++) {
    free(p->deques[d].ring);
  }
  free(p->deques);
  free(p->cpus);
  if (p->have_topo) hwloc_topology_destroy(p->topo);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p);
}

static hlx_pool_t* g_default;
static hlx_status_t g_default_error; /* why it could not be made */
static pthread_once_t g_default_once = PTHREAD_ONCE_INIT;
static void make_default(void) {
  g_default_error = hlx_pool_create(NULL, &g_default);
}

hlx_pool_t* hlx_pool_default(void) {
  pthread_once(&g_default_once, make_default);
  return g_default;
}

hlx_status_t hlx_pool_get_default(hlx_pool_t** out_pool) {
  *out_pool = hlx_pool_default();
  if (*out_pool) return NULL;
  return hlx_make_status(hlx_status_code(g_default_error), "%s",
                         hlx_status_message(g_default_error));
}

int hlx_pool_num_threads(const hlx_pool_t* p) {
  return p ? p->num_workers + 1 : 1;
}
int hlx_pool_num_cores(const hlx_pool_t* p) { return p ? p->num_cores : 1; }
int hlx_pool_num_numa_nodes(const hlx_pool_t* p) {
  return p ? p->num_numa : 1;
}

int hlx_pool_worker_cpu(const hlx_pool_t* p, int worker) {
  if (!p || !p->pin || !p->cpus || worker < 0 || worker >= p->num_workers)
    return -1;
  return p->cpus[(worker + 1) % p->num_cpus];
}

const char* hlx_pool_topology(const hlx_pool_t* p) {
  return p ? p->topology : "1 thread (no pool)";
}

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
