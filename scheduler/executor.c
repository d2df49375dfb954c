/* The executor: runs a finalized plan's task DAG.
 *
 * It only reads what hlx_plan_finalize built (schedule.h): the DAG as
 * in-degrees and one successor array (CSR), and the slot layout, the
 * offsets of every buffer a run owns inside one block.
 *
 * A run takes one block (slot pointers, one counter per task, the
 * buffers), reusing a block of an earlier run of the plan when one is kept
 * (run_blocks.h), and allocates nothing per task. Sequential runs (nested
 * plans, one-thread pools, chains, tiny plans, replica processes) execute
 * tasks in program order on the caller. Concurrent runs: the caller queues
 * the DAG's roots on the pool; a thread that finishes a task decrements its
 * successors' counters, runs the first that becomes ready itself and queues
 * the rest on its own deque (locality; idle threads steal them, see
 * pool.h); the caller helps until the last task is done. The first failing
 * task in program order decides the status; later tasks are skipped (their
 * counters still drain so the run ends cleanly). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/plan.h"
#include "scheduler/pool.h"
#include "scheduler/schedule.h"

enum { kMaxDepth = 64 };
static unsigned char g_empty[64] __attribute__((aligned(64)));

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
  const hlx_dag_t* dag;
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
  const hlx_dag_t* d = r->dag;
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

static hlx_status_t run_concurrent(const hlx_plan_t* p, const hlx_dag_t* d,
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
 * (s->direct_result), as do buffers not aligned like block slots (64
 * bytes). Result slots are pinned by buffer assignment, so no other slot
 * shares their bytes after they are written; an in-place producer simply
 * runs out of place. Nested plans never do this: their results are the
 * parent's slots, which their own parameters may alias. */
static void direct_results(const hlx_plan_t* p, const hlx_schedule_t* s,
                           void** slots, void* const* results) {
  for (int32_t i = 0; i < p->num_results; i++)
    if (s->direct_result[i] && results[i] && (uintptr_t)results[i] % 64 == 0)
      slots[p->result_slots[i]] = results[i];
}

hlx_status_t hlx_plan_execute(const hlx_plan_t* p, const void* const* params,
                              void* const* results, hlx_run_ctx_t* ctx) {
  if (ctx->depth >= kMaxDepth)
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: calls nested deeper than %d", p->name,
                           kMaxDepth);
  /* Built once by hlx_plan_finalize; never built here, so runs from
   * several threads share it without synchronisation. */
  const hlx_schedule_t* s = p->schedule;
  if (!s)
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                           "%s: plan run before hlx_plan_finalize", p->name);
  const hlx_dag_t* d = s->dag;
  size_t block_bytes = hlx_run_blocks_bytes(s->blocks);
  if (block_bytes == SIZE_MAX)
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: buffers exceed the address space", p->name);
  unsigned char* block = hlx_run_blocks_get(s->blocks);
  if (!block)
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: cannot allocate %zu bytes for buffers",
                           p->name, block_bytes);
  void** slots = (void**)block;
  atomic_int* counters = (atomic_int*)(block + s->counters_off);
  for (int32_t i = 0; i < p->num_slots; i++) {
    if (p->slot_data[i])
      slots[i] = (void*)p->slot_data[i];
    else if (s->slot_off[i] != SIZE_MAX)
      slots[i] = block + s->slot_off[i];
    else
      slots[i] = g_empty;
  }
  for (int32_t i = 0; i < p->num_params; i++)
    slots[p->param_slots[i]] = (void*)params[i];
  if (ctx->depth == 0) direct_results(p, s, slots, results);

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
    int32_t rs = p->result_slots[i];
    if (p->slot_bytes[rs] && results[i] != slots[rs])
      memcpy(results[i], slots[rs], p->slot_bytes[rs]);
  }
  if (capped) hlx_cpu_thread_isa_cap_swap(prev_cap);
  hlx_run_blocks_put(s->blocks, block);
  return st;
}
