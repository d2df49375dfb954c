/* A plan: the executable form of one function. Tasks read and write
 * numbered buffer slots; the executor owns the slots' memory for a run.
 *
 * Slots are immutable once written (SSA), so a value that merely renames
 * another (reshape, tuple plumbing) shares its slot and needs no task.
 * Tasks are kept in a valid sequential order; `deps` gives the DAG so a
 * concurrent executor can run independent tasks at once. */
#ifndef HLX_SCHEDULER_PLAN_H_
#define HLX_SCHEDULER_PLAN_H_

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_run_ctx_t hlx_run_ctx_t;

/* A task body: `in`/`out` are the slot buffers named by the task. Returns
 * NULL or a status naming what went wrong (the executor prefixes the task
 * name). */
typedef hlx_status_t (*hlx_task_fn)(const void* args, void* const* in,
                                    void* const* out, hlx_run_ctx_t* ctx);

typedef struct hlx_task_t {
  const char* name; /* "stablehlo.add at 12:5", for errors and traces */
  hlx_task_fn fn;
  const void* args; /* owned by the plan's arena */
  int32_t num_in;
  const int32_t* in;
  int32_t num_out;
  const int32_t* out;
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
} hlx_plan_t;

/* Per-run state shared by a run and the sub-plans it runs (loop bodies,
 * branches, comparators). */
struct hlx_run_ctx_t {
  void* user;           /* the front end's run context (check results...) */
  int32_t replica_id;
  int32_t partition_id;
  int32_t depth;        /* sub-plan nesting, bounded */
};

hlx_plan_t* hlx_plan_create(const char* name); /* NULL on OOM */
void hlx_plan_destroy(hlx_plan_t* p);
/* Makes parent own child (destroyed with it). On failure child is destroyed
 * and an out-of-memory status returned. */
hlx_status_t hlx_plan_adopt(hlx_plan_t* parent, hlx_plan_t* child) HLX_MUST_USE;
/* Adds a slot of `bytes`; returns its id or -1 on OOM. */
int32_t hlx_plan_add_slot(hlx_plan_t* p, size_t bytes);
/* Appends a task (arrays are copied into the arena). NULL on OOM. */
hlx_task_t* hlx_plan_add_task(hlx_plan_t* p, const char* name, hlx_task_fn fn,
                              const void* args, int32_t num_in,
                              const int32_t* in, int32_t num_out,
                              const int32_t* out);

/* Runs the plan once. params[i] points at num_params input buffers (read
 * only); results[i] at caller-owned buffers of slot_bytes[result_slots[i]]
 * bytes that receive the results. */
hlx_status_t hlx_plan_execute(const hlx_plan_t* p, const void* const* params,
                              void* const* results, hlx_run_ctx_t* ctx)
    HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_PLAN_H_ */
