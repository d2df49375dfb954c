/* The executor: runs a plan's task DAG.
 *
 * The DAG is built once per plan, on its first run, from slot producers (a
 * task depends on the tasks that wrote the slots it reads) plus program
 * order between side-effecting tasks (HLX_TASK_SIDE_EFFECT). It is stored
 * as in-degrees and one successor array (CSR), beside the slot layout: the
 * offsets of every buffer a run owns inside one block.
 *
 * A run takes one block (slot pointers, one counter per task, the
 * buffers), reusing a block of an earlier run of the plan when one is kept,
 * and allocates nothing per task. Sequential runs (nested plans, one-thread
 * pools, chains, tiny plans, replica processes) execute tasks in program
 * order on the caller. Concurrent runs: the caller queues the DAG's roots on
 * the pool; a thread that finishes a task decrements its successors'
 * counters, runs the first that becomes ready itself and queues the rest
 * on its own deque (locality; idle threads steal them, see pool.h); the
 * caller helps until the last task is done. The first failing task in
 * program order decides the status; later tasks are skipped (their counters
 * still drain so the run ends cleanly). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "scheduler/buffer_assign.h"
#include "scheduler/plan.h"
#include "scheduler/pool.h"

enum {
  kMaxDepth = 64,
  /* Finished run blocks kept per plan for the next runs: enough for a few
   * concurrent runs of one executable, bounded so memory stays bounded. */
  kMaxFreeBlocks = 4,
};
/* Blocks of at least this size are 2 MiB aligned and offered to
 * transparent huge pages: fewer page faults and TLB misses. */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
static unsigned char g_empty[64] __attribute__((aligned(64)));

typedef struct dag_t {
  int32_t num_tasks;
  int32_t* indeg;    /* num_tasks */
  int32_t* succ_off; /* num_tasks + 1 */
  int32_t* succ;
  int32_t num_roots;
  int32_t* roots;
  bool sequential;
  /* Tasks that may block at a rendezvous (HLX_TASK_SIDE_EFFECT or
   * HLX_TASK_NESTED), in program order, and a per-task mark. */
  int32_t num_pinned;
  int32_t* pinned;
  unsigned char* is_pinned;
  /* Run memory: [slot pointers][task counters][buffers...] */
  size_t* slot_off; /* SIZE_MAX: not owned by the run (param/const/empty) */
  /* Per result: its slot is owned by the run, has bytes and no earlier
   * result names it, so a top-level run may point it at the caller's
   * buffer (direct_results). */
  unsigned char* direct_result;
  size_t counters_off, buffers_off, total_bytes;
  size_t arena_bytes, intermediate_bytes, live_bytes; /* buffer assignment */
  /* Run blocks of finished runs, reused by later runs so they do not
   * page-fault on fresh memory (which dominated repeated runs). */
  atomic_flag free_lock;
  int32_t num_free;
  void* free_blocks[kMaxFreeBlocks];
} dag_t;

static void dag_free(dag_t* d) {
  if (!d) return;
  for (int32_t i = 0; i < d->num_free; i++) free(d->free_blocks[i]);
  free(d->indeg);
  free(d->succ_off);
  free(d->succ);
  free(d->roots);
  free(d->pinned);
  free(d->is_pinned);
  free(d->slot_off);
  free(d->direct_result);
  free(d);
}

void hlx_internal_plan_dag_free(hlx_plan_t* p) {
  dag_t* d = __atomic_exchange_n((dag_t**)&p->dag, NULL, __ATOMIC_ACQ_REL);
  dag_free(d);
}

static size_t round64(size_t b) { return (b + 63) & ~(size_t)63; }

static dag_t* dag_build(const hlx_plan_t* p) {
  int32_t nt = p->num_tasks, ns = p->num_slots;
  dag_t* d = calloc(1, sizeof(*d));
  int32_t* producer = malloc(((size_t)ns + 1) * sizeof(int32_t));
  unsigned char* ext = calloc((size_t)ns + 1, 1); /* param/const slot */
  int32_t* mark = malloc(((size_t)nt + 1) * sizeof(int32_t));
  /* deps as a flat list per task: (task, dep) pairs, at most sum(num_in)+1
   * per task. */
  size_t max_edges = 0;
  for (int32_t t = 0; t < nt; t++) max_edges += (size_t)p->tasks[t].num_in + 1;
  int32_t* edge_from = malloc((max_edges + 1) * sizeof(int32_t));
  int32_t* edge_to = malloc((max_edges + 1) * sizeof(int32_t));
  int32_t* level = malloc(((size_t)nt + 1) * sizeof(int32_t));
  if (d) {
    d->num_tasks = nt;
    d->indeg = calloc((size_t)nt + 1, sizeof(int32_t));
    d->succ_off = calloc((size_t)nt + 2, sizeof(int32_t));
    d->roots = malloc(((size_t)nt + 1) * sizeof(int32_t));
    d->pinned = malloc(((size_t)nt + 1) * sizeof(int32_t));
    d->is_pinned = calloc((size_t)nt + 1, 1);
    d->slot_off = malloc(((size_t)ns + 1) * sizeof(size_t));
    d->direct_result = calloc((size_t)p->num_results + 1, 1);
  }
  if (!d || !producer || !ext || !mark || !edge_from || !edge_to || !level ||
      !d->indeg || !d->succ_off || !d->roots || !d->pinned || !d->is_pinned ||
      !d->slot_off || !d->direct_result) {
    dag_free(d);
    d = NULL;
    goto done;
  }
  for (int32_t s = 0; s < ns; s++) {
    producer[s] = -1;
    ext[s] = p->slot_data[s] != NULL;
  }
  for (int32_t i = 0; i < p->num_params; i++) ext[p->param_slots[i]] = 1;
  /* Edges. If a slot is written twice, or a param/constant is written, the
   * plan is not SSA: fall back to a chain in program order. */
  size_t ne = 0;
  bool chain = false;
  int32_t last_effect = -1;
  for (int32_t t = 0; t < nt; t++) mark[t] = -1;
  for (int32_t t = 0; t < nt && !chain; t++) {
    const hlx_task_t* task = &p->tasks[t];
    for (int32_t i = 0; i < task->num_in; i++) {
      int32_t pr = producer[task->in[i]];
      if (pr >= 0 && pr != t && mark[pr] != t) {
        mark[pr] = t;
        edge_from[ne] = pr;
        edge_to[ne++] = t;
      }
    }
    if (task->flags & HLX_TASK_SIDE_EFFECT) {
      if (last_effect >= 0 && mark[last_effect] != t) {
        mark[last_effect] = t;
        edge_from[ne] = last_effect;
        edge_to[ne++] = t;
      }
      last_effect = t;
    }
    for (int32_t i = 0; i < task->num_out; i++) {
      int32_t s = task->out[i];
      if (ext[s] || producer[s] >= 0) chain = true;
      producer[s] = t;
    }
  }
  if (chain) {
    ne = 0;
    for (int32_t t = 1; t < nt; t++) {
      edge_from[ne] = t - 1;
      edge_to[ne++] = t;
    }
  }
  /* Buffer assignment; it may add edges (plans too big to prove reuse
   * safe by reachability). Plans that are not SSA keep one buffer per slot
   * (HLX_NO_BUFFER_REUSE=1 does too, for A/B comparisons). */
  unsigned char* owned = ext; /* reused: the slots a run owns */
  for (int32_t s = 0; s < ns; s++) owned[s] = !ext[s] && p->slot_bytes[s] > 0;
  const char* no_reuse = getenv("HLX_NO_BUFFER_REUSE");
  hlx_buffer_assignment_t ba;
  hlx_status_t bst =
      hlx_buffer_assign(p, owned, edge_from, edge_to, ne,
                        !chain && !(no_reuse && no_reuse[0] == '1'), &ba);
  if (bst) {
    hlx_status_free(bst);
    dag_free(d);
    d = NULL;
    goto done;
  }
  d->succ = malloc((ne + ba.num_extra + 1) * sizeof(int32_t));
  if (!d->succ) {
    hlx_buffer_assignment_free(&ba);
    dag_free(d);
    d = NULL;
    goto done;
  }
  /* CSR, successors in ascending task order (edges were made in order of
   * `to`, so each list is sorted; the added edges are merged in order). */
  for (size_t e = 0; e < ne; e++) {
    d->succ_off[edge_from[e] + 1]++;
    d->indeg[edge_to[e]]++;
  }
  for (size_t e = 0; e < ba.num_extra; e++) {
    d->succ_off[ba.extra_from[e] + 1]++;
    d->indeg[ba.extra_to[e]]++;
  }
  for (int32_t t = 0; t < nt; t++) d->succ_off[t + 1] += d->succ_off[t];
  for (int32_t t = 0; t < nt; t++) mark[t] = d->succ_off[t];
  for (size_t e = 0; e < ne; e++) d->succ[mark[edge_from[e]]++] = edge_to[e];
  for (size_t e = 0; e < ba.num_extra; e++) {
    int32_t* list = d->succ + d->succ_off[ba.extra_from[e]];
    int32_t k = mark[ba.extra_from[e]]++ - d->succ_off[ba.extra_from[e]];
    for (; k > 0 && list[k - 1] > ba.extra_to[e]; k--) list[k] = list[k - 1];
    list[k] = ba.extra_to[e];
  }
  d->num_roots = 0;
  for (int32_t t = 0; t < nt; t++)
    if (d->indeg[t] == 0) d->roots[d->num_roots++] = t;
  d->num_pinned = 0;
  for (int32_t t = 0; t < nt; t++)
    if (p->tasks[t].flags & (HLX_TASK_SIDE_EFFECT | HLX_TASK_NESTED)) {
      d->is_pinned[t] = 1;
      d->pinned[d->num_pinned++] = t;
    }
  /* Longest path: a plan whose longest path covers every task is a chain
   * and gains nothing from other threads. */
  int32_t longest = 0;
  for (int32_t t = 0; t < nt; t++) level[t] = 1;
  for (int32_t t = 0; t < nt; t++) {
    if (level[t] > longest) longest = level[t];
    for (int32_t k = d->succ_off[t]; k < d->succ_off[t + 1]; k++)
      if (level[d->succ[k]] < level[t] + 1) level[d->succ[k]] = level[t] + 1;
  }
  d->sequential = nt < 3 || longest >= nt;
  /* A plan with HLX_TASK_WIDE tasks (oneDNN's OpenMP teams) runs in
   * program order on the calling thread: one OpenMP master whose team
   * spreads over the cores, while other kernels split their work over the
   * pool with parallel_for. Running tasks beside a team, or two teams at
   * once, measured slower on both models (chess 218 vs 192 ms, ResNet-50
   * 47 vs 43 ms on two threads): the teams' idle threads spin. */
  for (int32_t t = 0; t < nt; t++)
    if (p->tasks[t].flags & HLX_TASK_WIDE) d->sequential = true;
  /* Run block layout: [slot pointers][task counters][buffer arena]. */
  size_t off = round64((size_t)ns * sizeof(void*));
  d->counters_off = off;
  off = round64(off + (size_t)nt * sizeof(atomic_int));
  d->buffers_off = off;
  d->arena_bytes = ba.arena_bytes;
  d->intermediate_bytes = ba.sum_bytes;
  d->live_bytes = ba.live_bytes;
  for (int32_t s = 0; s < ns; s++)
    d->slot_off[s] = ba.slot_off[s] == SIZE_MAX ? SIZE_MAX : off + ba.slot_off[s];
  hlx_buffer_assignment_free(&ba);
  for (int32_t i = 0; i < p->num_results; i++) {
    int32_t rs = p->result_slots[i];
    bool first = true;
    for (int32_t k = 0; k < i && first; k++) first = p->result_slots[k] != rs;
    d->direct_result[i] =
        first && d->slot_off[rs] != SIZE_MAX && p->slot_bytes[rs] > 0;
  }
  off += d->arena_bytes;
  d->total_bytes = off < d->arena_bytes ? SIZE_MAX : off;
  if (d->total_bytes >= HUGE_PAGE_BYTES && d->total_bytes != SIZE_MAX) {
    size_t r = (d->total_bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
    d->total_bytes = r < d->total_bytes ? SIZE_MAX : r;
  }
  atomic_flag_clear(&d->free_lock);
done:
  free(producer);
  free(ext);
  free(mark);
  free(edge_from);
  free(edge_to);
  free(level);
  return d;
}

static const dag_t* plan_dag(const hlx_plan_t* p) {
  dag_t* d = __atomic_load_n((dag_t* const*)&p->dag, __ATOMIC_ACQUIRE);
  if (d) return d;
  d = dag_build(p);
  if (!d) return NULL;
  dag_t* expected = NULL;
  if (!__atomic_compare_exchange_n((dag_t**)&p->dag, &expected, d, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    dag_free(d);
    return expected;
  }
  return d;
}

size_t hlx_plan_arena_bytes(const hlx_plan_t* p) {
  const dag_t* d = plan_dag(p);
  return d ? d->arena_bytes : 0;
}

size_t hlx_plan_intermediate_bytes(const hlx_plan_t* p) {
  const dag_t* d = plan_dag(p);
  return d ? d->intermediate_bytes : 0;
}

size_t hlx_plan_live_bytes(const hlx_plan_t* p) {
  const dag_t* d = plan_dag(p);
  return d ? d->live_bytes : 0;
}

bool hlx_plan_is_sequential(const hlx_plan_t* p) {
  const dag_t* d = plan_dag(p);
  return !d || d->sequential;
}

/* ---- run blocks ---------------------------------------------------------- */

static void free_list_lock(dag_t* d) {
  while (atomic_flag_test_and_set_explicit(&d->free_lock, memory_order_acquire))
    ;
}

static void free_list_unlock(dag_t* d) {
  atomic_flag_clear_explicit(&d->free_lock, memory_order_release);
}

/* A block of d->total_bytes (a kept one if any). */
static unsigned char* block_get(dag_t* d) {
  void* b = NULL;
  free_list_lock(d);
  if (d->num_free > 0) b = d->free_blocks[--d->num_free];
  free_list_unlock(d);
  if (b) return b;
  if (d->total_bytes < HUGE_PAGE_BYTES) return aligned_alloc(64, d->total_bytes);
  b = aligned_alloc(HUGE_PAGE_BYTES, d->total_bytes);
  if (b) (void)madvise(b, d->total_bytes, MADV_HUGEPAGE); /* a hint only */
  return b;
}

/* Keeps b for the next run, or frees it when enough are kept. */
static void block_put(dag_t* d, void* b) {
  free_list_lock(d);
  bool kept = d->num_free < kMaxFreeBlocks;
  if (kept) d->free_blocks[d->num_free++] = b;
  free_list_unlock(d);
  if (!kept) free(b);
}

/* ---- running one task ---------------------------------------------------- */

static hlx_status_t exec_task(const hlx_task_t* task, void* const* slots,
                              hlx_run_ctx_t* ctx) {
  enum { kMaxArgs = 64 };
  void* small_in[kMaxArgs];
  void* small_out[kMaxArgs];
  void** in = task->num_in <= kMaxArgs
                  ? small_in
                  : malloc((size_t)task->num_in * sizeof(void*));
  void** out = task->num_out <= kMaxArgs
                   ? small_out
                   : malloc((size_t)task->num_out * sizeof(void*));
  hlx_status_t st;
  if (!in || !out) {
    st = hlx_status_oom();
  } else {
    for (int32_t i = 0; i < task->num_in; i++) in[i] = slots[task->in[i]];
    for (int32_t i = 0; i < task->num_out; i++) out[i] = slots[task->out[i]];
    st = task->fn(task->args, in, out, ctx);
    if (st) st = hlx_status_annotate(st, "%s", task->name);
  }
  if (in != small_in) free(in);
  if (out != small_out) free(out);
  return st;
}

/* ---- profiling ------------------------------------------------------------ */

static atomic_int g_next_thread = 1;
static _Thread_local int32_t t_thread; /* 0: not numbered yet */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* exec_task, reporting the task to ctx->on_task when `report`. */
static hlx_status_t exec_task_timed(const hlx_plan_t* p, int32_t t,
                                    void* const* slots, hlx_run_ctx_t* ctx,
                                    bool report) {
  if (!report) return exec_task(&p->tasks[t], slots, ctx);
  if (!t_thread) t_thread = atomic_fetch_add(&g_next_thread, 1);
  uint64_t t0 = now_ns();
  hlx_status_t st = exec_task(&p->tasks[t], slots, ctx);
  ctx->on_task(ctx->on_task_user, p, t, p->tasks[t].name, t_thread, t0,
               now_ns());
  return st;
}

/* ---- concurrent runs ----------------------------------------------------- */

typedef struct run_t {
  const hlx_plan_t* plan;
  const dag_t* dag;
  void* const* slots;
  atomic_int* counters;
  const hlx_run_ctx_t* ctx; /* copied per task: tasks must not share it */
  hlx_pool_t* pool;
  atomic_int remaining;
  atomic_int failed;
  atomic_flag err_lock;
  hlx_status_t err;
  int32_t err_task;
  /* Process runs (replicas/partitions): pinned tasks are never queued;
   * the process's thread runs them in program order (next_pinned is its
   * own). */
  bool pin;
  int32_t next_pinned;
  hlx_isa_t isa_cap; /* the caller's thread cap, set wherever tasks run */
} run_t;

static void record_error(run_t* r, int32_t t, hlx_status_t st) {
  while (atomic_flag_test_and_set_explicit(&r->err_lock, memory_order_acquire))
    ;
  /* Keep the error of the earliest task in program order. */
  if (!r->err || t < r->err_task) {
    hlx_status_free(r->err);
    r->err = st;
    r->err_task = t;
  } else {
    hlx_status_free(st);
  }
  atomic_flag_clear_explicit(&r->err_lock, memory_order_release);
  atomic_store_explicit(&r->failed, 1, memory_order_release);
}

static void run_item(void* a, int32_t t) {
  run_t* r = a;
  const dag_t* d = r->dag;
  hlx_pool_t* pool = r->pool;
  /* Every item sets its run's cap: a thread may run items of several
   * executables in turn. */
  hlx_isa_t prev_cap = hlx_cpu_thread_isa_cap_swap(r->isa_cap);
  enum { kBatch = 32 };
  hlx_pool_item_t batch[kBatch];
  while (t >= 0) {
    if (!atomic_load_explicit(&r->failed, memory_order_acquire)) {
      hlx_run_ctx_t ctx = *r->ctx;
      ctx.depth++;
      hlx_status_t st = exec_task_timed(r->plan, t, r->slots, &ctx,
                                        r->ctx->on_task != NULL);
      if (st) record_error(r, t, st);
    }
    int32_t next = -1;
    size_t nb = 0;
    for (int32_t k = d->succ_off[t]; k < d->succ_off[t + 1]; k++) {
      int32_t s = d->succ[k];
      if (atomic_fetch_sub_explicit(&r->counters[s], 1,
                                    memory_order_acq_rel) != 1)
        continue;
      if (r->pin && d->is_pinned[s]) {
        /* Ready (its counter is 0): wake the process thread. */
        hlx_pool_notify(pool);
        continue;
      }
      if (next < 0) {
        next = s;
        continue;
      }
      batch[nb++] = (hlx_pool_item_t){run_item, r, s};
      if (nb == kBatch) {
        if (!hlx_pool_push(pool, batch, nb))
          for (size_t b = 0; b < nb; b++) run_item(r, batch[b].i);
        nb = 0;
      }
    }
    if (nb && !hlx_pool_push(pool, batch, nb))
      for (size_t b = 0; b < nb; b++) run_item(r, batch[b].i);
    /* The last task to finish wakes the caller; r may be gone after. */
    if (atomic_fetch_sub_explicit(&r->remaining, 1, memory_order_acq_rel) ==
        1) {
      hlx_pool_notify(pool);
      break;
    }
    t = next;
  }
  hlx_cpu_thread_isa_cap_swap(prev_cap);
}

static bool run_done(void* a) {
  run_t* r = a;
  return atomic_load_explicit(&r->remaining, memory_order_acquire) == 0;
}

/* The process thread's wait: the run is over, or the next pinned task in
 * program order is ready. */
static bool run_done_or_pinned_ready(void* a) {
  run_t* r = a;
  if (run_done(r)) return true;
  return r->next_pinned < r->dag->num_pinned &&
         atomic_load_explicit(&r->counters[r->dag->pinned[r->next_pinned]],
                              memory_order_acquire) == 0;
}

static hlx_status_t run_concurrent(const hlx_plan_t* p, const dag_t* d,
                                   void* const* slots, atomic_int* counters,
                                   hlx_run_ctx_t* ctx) {
  run_t r;
  r.plan = p;
  r.dag = d;
  r.slots = slots;
  r.counters = counters;
  r.ctx = ctx;
  r.pool = ctx->pool;
  atomic_init(&r.remaining, p->num_tasks);
  atomic_init(&r.failed, 0);
  atomic_flag_clear(&r.err_lock);
  r.err = NULL;
  r.err_task = INT32_MAX;
  /* A process of a replica/partition run: tasks that may block at a
   * rendezvous (collectives, and nested plans that may hold one) run on
   * this thread, one at a time in program order, exactly as a sequential
   * run meets its peers, so the concurrent run meets them in the same
   * order and cannot deadlock; every other task is a plain kernel that
   * never blocks and runs on any thread. A blocking task on a pool worker
   * could instead hold the thread a peer's progress needs. */
  r.pin = ctx->rendezvous != NULL;
  r.next_pinned = 0;
  r.isa_cap = hlx_cpu_thread_isa_cap();
  for (int32_t t = 0; t < p->num_tasks; t++)
    atomic_init(&counters[t], d->indeg[t]);
  /* The caller gets a deque of its own: the successors it readies stay
   * with it, the worker steals them in batches. */
  hlx_pool_attach(r.pool);
  /* Queue every root but the first, which the caller runs. */
  enum { kBatch = 32 };
  hlx_pool_item_t batch[kBatch];
  size_t nb = 0;
  int32_t first = -1;
  for (int32_t k = 0; k < d->num_roots; k++) {
    int32_t t = d->roots[k];
    if (r.pin && d->is_pinned[t]) continue;
    if (first < 0) {
      first = t;
      continue;
    }
    batch[nb++] = (hlx_pool_item_t){run_item, &r, t};
    if (nb == kBatch) {
      if (!hlx_pool_push(r.pool, batch, nb))
        for (size_t b = 0; b < nb; b++) run_item(&r, batch[b].i);
      nb = 0;
    }
  }
  if (nb && !hlx_pool_push(r.pool, batch, nb))
    for (size_t b = 0; b < nb; b++) run_item(&r, batch[b].i);
  if (first >= 0) run_item(&r, first);
  if (!r.pin) {
    hlx_pool_wait(r.pool, run_done, &r);
  } else {
    for (;;) {
      hlx_pool_wait(r.pool, run_done_or_pinned_ready, &r);
      if (run_done(&r)) break;
      run_item(&r, d->pinned[r.next_pinned++]);
    }
  }
  hlx_pool_detach(r.pool);
  return r.err;
}

/* ---- entry --------------------------------------------------------------- */

/* A top-level run's result buffers are fresh memory of the caller's that
 * nothing else reads, so a result slot the run would keep in its block is
 * pointed at the caller's buffer instead: its producer writes the result in
 * place and the copy at the end disappears. Parameters, constants and a
 * value's second appearance among the results keep the copy
 * (d->direct_result), as do buffers not aligned like block slots (64
 * bytes). Result slots are pinned by buffer assignment, so no other slot
 * shares their bytes after they are written; an in-place producer simply
 * runs out of place. Nested plans never do this: their results are the
 * parent's slots, which their own parameters may alias. */
static void direct_results(const hlx_plan_t* p, const dag_t* d, void** slots,
                           void* const* results) {
  for (int32_t i = 0; i < p->num_results; i++)
    if (d->direct_result[i] && results[i] && (uintptr_t)results[i] % 64 == 0)
      slots[p->result_slots[i]] = results[i];
}

hlx_status_t hlx_plan_execute(const hlx_plan_t* p, const void* const* params,
                              void* const* results, hlx_run_ctx_t* ctx) {
  if (ctx->depth >= kMaxDepth)
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: calls nested deeper than %d", p->name,
                           kMaxDepth);
  /* The free list is the only part of the DAG a run mutates. */
  dag_t* d = (dag_t*)plan_dag(p);
  if (!d) return hlx_status_oom();
  if (d->total_bytes == SIZE_MAX)
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: buffers exceed the address space", p->name);
  unsigned char* block = block_get(d);
  if (!block)
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: cannot allocate %zu bytes for buffers",
                           p->name, d->total_bytes);
  void** slots = (void**)block;
  atomic_int* counters = (atomic_int*)(block + d->counters_off);
  for (int32_t i = 0; i < p->num_slots; i++) {
    if (p->slot_data[i])
      slots[i] = (void*)p->slot_data[i];
    else if (d->slot_off[i] != SIZE_MAX)
      slots[i] = block + d->slot_off[i];
    else
      slots[i] = g_empty;
  }
  for (int32_t i = 0; i < p->num_params; i++)
    slots[p->param_slots[i]] = (void*)params[i];
  if (ctx->depth == 0) direct_results(p, d, slots, results);

  /* The executable's ISA cap on this thread for the run (plan.h). */
  bool capped = p->isa_cap != HLX_ISA_COUNT;
  hlx_isa_t prev_cap = capped ? hlx_cpu_thread_isa_cap_swap(p->isa_cap)
                              : HLX_ISA_COUNT;
  hlx_status_t st = NULL;
  bool concurrent = ctx->depth == 0 && ctx->pool && !ctx->sequential &&
                    !d->sequential && hlx_pool_num_threads(ctx->pool) > 1;
  if (concurrent) {
    st = run_concurrent(p, d, slots, counters, ctx);
  } else {
    bool report = ctx->on_task && ctx->depth == 0;
    ctx->depth++;
    for (int32_t t = 0; t < p->num_tasks && !st; t++)
      st = exec_task_timed(p, t, slots, ctx, report);
    ctx->depth--;
  }
  for (int32_t i = 0; i < p->num_results && !st; i++) {
    int32_t s = p->result_slots[i];
    if (p->slot_bytes[s] && results[i] != slots[s])
      memcpy(results[i], slots[s], p->slot_bytes[s]);
  }
  if (capped) hlx_cpu_thread_isa_cap_swap(prev_cap);
  block_put(d, block);
  return st;
}
