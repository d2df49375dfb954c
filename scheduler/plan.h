/* A plan: the executable form of one function. Tasks read and write
 * numbered buffer slots; the executor owns the slots' memory for a run.
 *
 * Slots are immutable once written (SSA), so a value that merely renames
 * another (reshape, tuple plumbing) shares its slot and needs no task.
 * Tasks are kept in a valid sequential order; the DAG built from the slots
 * they read and write (dag.h) lets a concurrent executor run independent
 * tasks at once.
 *
 * Life of a plan: create it, add slots, tasks, params, results and
 * sub-plans, then hlx_plan_finalize it once (DAG and buffer assignment are
 * built then), then run it any number of times, from several threads at
 * once; the plan does not change after finalize. */
#ifndef HLX_SCHEDULER_PLAN_H_
#define HLX_SCHEDULER_PLAN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/status.h"
#include "kernels/cpu_features.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_run_ctx_t hlx_run_ctx_t;
struct hlx_pool_t;
struct hlx_rendezvous_t;
struct hlx_parallel_t;
struct hlx_plan_t;
struct hlx_schedule_t;

/* Task flags. */
enum {
  /* Observable effects beyond the task's outputs (checks, custom calls,
   * collectives, infeed/outfeed): such tasks keep their program order
   * relative to each other. */
  HLX_TASK_SIDE_EFFECT = 1u << 0,
  /* Elementwise: every output element i is computed from input elements i
   * only, all read before output element i is written (no look-ahead
   * writes, no restrict-qualified aliasing assumptions). Buffer assignment
   * may then write an output over a same-size input that dies at this task
   * (in place). Set by graph/lower/elementwise.c for unary and binary ops;
   * a fused elementwise kernel that meets the rule may set it too. */
  HLX_TASK_ELEMENTWISE = 1u << 1,
  /* The task's kernel runs its own thread team over every core (oneDNN on
   * OpenMP). A plan holding such tasks runs them all from the calling
   * thread, in program order (see hlx_dag_build in dag.c). Set by
   * graph/lower/dot.c and graph/lower/conv.c for oneDNN tasks. */
  HLX_TASK_WIDE = 1u << 2,
  /* The task runs nested plans (region bodies, calls), which may reach a
   * collective. Set by graph/lower/driver.c for ops with regions and by calls. In
   * a replica/partition run such tasks, like HLX_TASK_SIDE_EFFECT ones,
   * run on the process's own thread in program order (see executor.c). */
  HLX_TASK_NESTED = 1u << 3,
  /* With HLX_TASK_OUT0_OVER_IN(k): output 0 may be written over input k
   * (only that input) when it dies at this task, has output 0's size and
   * is no other input of it: the kernel reads input k only as output 0's
   * initial contents (a oneDNN sum post-op copies it into dst first, and
   * not when they alias). Set by graph/lower/opt/epilogue.c. */
  HLX_TASK_OUT0_OVER_IN_SET = 1u << 4,
};
#define HLX_TASK_OUT0_OVER_IN(k) \
  (HLX_TASK_OUT0_OVER_IN_SET | ((uint32_t)(k) & 0xffu) << 8)
#define HLX_TASK_OUT0_OVER_IN_INDEX(flags) ((int32_t)(((flags) >> 8) & 0xffu))

/* A task body: `in`/`out` are the slot buffers named by the task. Returns
 * NULL or a status naming what went wrong (the executor prefixes the task
 * name). */
typedef hlx_status_t (*hlx_task_fn)(const void* args, void* const* in,
                                    void* const* out, hlx_run_ctx_t* ctx);

/* A finished task: its index in `plan`, its name, the thread that ran it
 * (a small number per OS thread, stable for the process) and its start
 * and end times in ns (CLOCK_MONOTONIC). */
typedef void (*hlx_task_event_fn)(void* user, const struct hlx_plan_t* plan,
                                  int32_t task, const char* name,
                                  int32_t thread, uint64_t start_ns,
                                  uint64_t end_ns);

typedef struct hlx_task_t {
  const char* name; /* "stablehlo.add at 12:5", for errors and traces */
  hlx_task_fn fn;
  const void* args; /* owned by the plan's arena */
  int32_t num_in;
  const int32_t* in;
  int32_t num_out;
  const int32_t* out;
  uint32_t flags; /* HLX_TASK_* */
} hlx_task_t;

typedef struct hlx_plan_t {
  hlx_arena_t arena; /* owns everything below, constants included */
  const char* name;
  int32_t num_slots;
  int32_t cap_slots;
  size_t* slot_bytes;     /* size of each slot's buffer */
  const void** slot_data; /* non-NULL: constant data, never written */
  int32_t num_params;
  int32_t* param_slots;
  int32_t num_results;
  int32_t* result_slots;
  int32_t num_tasks;
  hlx_task_t* tasks;
  int32_t cap_tasks;
  int32_t num_children; /* sub-plans (loop bodies, branches) it owns */
  struct hlx_plan_t** children;
  /* ISA cap of the executable (HLX_ISA_COUNT, hlx_plan_create's default:
   * none). The executor sets it as the thread cap of every thread while it
   * runs this plan's tasks (and their parallel_for chunks); nested plans
   * without a cap of their own run under their caller's. The one field
   * written after finalize (api/executable.c, before the first run): the
   * schedule does not depend on it. */
  hlx_isa_t isa_cap;
  /* Built by hlx_plan_finalize, read by runs; NULL before (schedule.h). */
  struct hlx_schedule_t* schedule;
  /* Run by hlx_plan_destroy, last registered first (hlx_plan_on_destroy). */
  struct hlx_plan_cleanup_t* cleanups;
} hlx_plan_t;

/* Per-run state shared by a run and the sub-plans it runs (loop bodies,
 * branches, comparators). */
struct hlx_run_ctx_t {
  void* user;           /* the front end's run context (check results...) */
  int32_t replica_id;
  int32_t partition_id;
  int32_t depth;        /* sub-plan nesting, bounded */
  /* Pool to run independent tasks on (NULL: sequential on the caller).
   * Only the outermost plan of a run uses it; nested plans (loop bodies,
   * calls, comparators) run inline on the thread that runs their task. */
  struct hlx_pool_t* pool;
  /* For kernels that split work (NULL = run whole). */
  const struct hlx_parallel_t* parallel;
  /* Replica/partition grid this process belongs to (NULL: a single
   * process). Collectives meet here. */
  struct hlx_rendezvous_t* rendezvous;
  /* Run every plan sequentially on the calling thread. */
  bool sequential;
  /* Profiling (NULL: no events and no clock reads). Called after each task
   * of the outermost plan (depth 0; nested plans run inside their task)
   * by the thread that ran it, possibly from several threads at once. */
  hlx_task_event_fn on_task;
  void* on_task_user;
};

hlx_plan_t* hlx_plan_create(const char* name); /* NULL on OOM */
void hlx_plan_destroy(hlx_plan_t* p);
/* Makes parent own child (destroyed with it). On failure child is destroyed
 * and an out-of-memory status returned (FAILED_PRECONDITION when parent is
 * finalized). */
hlx_status_t hlx_plan_adopt(hlx_plan_t* parent, hlx_plan_t* child) HLX_MUST_USE;
/* Adds a slot of `bytes`; returns its id or -1 on OOM or when p is
 * finalized. */
int32_t hlx_plan_add_slot(hlx_plan_t* p, size_t bytes);
/* Appends a task (arrays are copied into the arena). NULL on OOM or when p
 * is finalized. */
hlx_task_t* hlx_plan_add_task(hlx_plan_t* p, const char* name, hlx_task_fn fn,
                              const void* args, int32_t num_in,
                              const int32_t* in, int32_t num_out,
                              const int32_t* out);

/* Has hlx_plan_destroy call fn(arg) before it frees the arena: for what a
 * task's args hold outside the arena (library primitives). False on OOM
 * (fn is then not called: the caller releases arg itself). */
bool hlx_plan_on_destroy(hlx_plan_t* p, void (*fn)(void*), void* arg);

/* Sets flags on the task added last (no-op if there is none, or when p is
 * finalized). */
void hlx_plan_last_task_set_flags(hlx_plan_t* p, uint32_t flags);

typedef struct hlx_plan_finalize_options_t {
  /* Every buffer a run owns gets its own memory (no reuse, no in place),
   * for A/B checks; graph/lower/driver.c sets it from HLX_NO_BUFFER_REUSE=1. */
  bool no_buffer_reuse;
} hlx_plan_finalize_options_t;

/* Completes p: builds its task DAG and buffer assignment (schedule.h), the
 * only time they are built. Call it once p's tasks, slots, params, results
 * and sub-plans are all in place and every sub-plan is finalized; p must
 * not change after (its runs read what was built here, from several
 * threads at once). options NULL: all defaults (zeroed options).
 * FAILED_PRECONDITION when p is already finalized or a sub-plan is not;
 * OOM, or RESOURCE_EXHAUSTED when buffer sizes overflow. */
hlx_status_t hlx_plan_finalize(hlx_plan_t* p,
                               const hlx_plan_finalize_options_t* options)
    HLX_MUST_USE;
bool hlx_plan_is_finalized(const hlx_plan_t* p);

/* Whether the executor runs p on one thread even with a pool (a chain or
 * a tiny plan: XLA's is_sequential). True before finalize. */
bool hlx_plan_is_sequential(const hlx_plan_t* p);

/* Bytes of the buffers a run of this plan owns, after buffer assignment
 * (the peak of its arena: slots whose lifetimes do not overlap share
 * memory), and the sum of those slots' sizes without sharing. Nested plans
 * have their own arenas. 0 before finalize. */
size_t hlx_plan_arena_bytes(const hlx_plan_t* p);
size_t hlx_plan_intermediate_bytes(const hlx_plan_t* p);
/* The largest set of this plan's slots live at once in program order: the
 * least a buffer assignment can use without in-place reuse. */
size_t hlx_plan_live_bytes(const hlx_plan_t* p);

/* Runs the finalized plan once (FAILED_PRECONDITION if p is not
 * finalized). params[i] points at num_params input buffers (read only);
 * results[i] at caller-owned buffers of slot_bytes[result_slots[i]] bytes
 * that receive the results. */
hlx_status_t hlx_plan_execute(const hlx_plan_t* p, const void* const* params,
                              void* const* results, hlx_run_ctx_t* ctx)
    HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_PLAN_H_ */
