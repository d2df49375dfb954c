/* Buffer assignment: places a plan's run-owned slots in one arena so that
 * slots whose lifetimes do not overlap share memory.
 *
 * Lifetimes come from program order (producer .. last reader), but a plan
 * runs concurrently, so reuse must also respect the task DAG: slot B,
 * written by task T, may take memory last used by slot A only when A's
 * producer and every reader of A happen-before T. For plans up to
 * HLX_BUFFER_ASSIGN_MAX_REACH_TASKS tasks this is proven with ancestor
 * bitsets and no edge is added (a slot with no safe place gets fresh
 * memory). Larger plans reuse in program order and return the extra edges
 * (always from an earlier to a later task, so the DAG stays acyclic) that
 * make the reuse safe.
 *
 * Never reused: result slots (copied out after the last task) and slots no
 * task writes. Params, constants and empty slots are not in the arena.
 *
 * In-place: a task flagged HLX_TASK_ELEMENTWISE may write an output over
 * an input of the same byte size that dies at that task; one flagged
 * HLX_TASK_OUT0_OVER_IN(k) its output 0 over input k alone, under the same
 * rule, when no other input of the task names that slot. */
#ifndef HLX_SCHEDULER_BUFFER_ASSIGN_H_
#define HLX_SCHEDULER_BUFFER_ASSIGN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "scheduler/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HLX_BUFFER_ASSIGN_MAX_REACH_TASKS 8192
/* Above this many slots, every slot gets its own memory (the placement scan
 * is quadratic in the live segments). */
#define HLX_BUFFER_ASSIGN_MAX_SLOTS 32768

typedef struct hlx_buffer_assignment_t {
  size_t* slot_off;   /* per slot: offset in the arena (64-aligned), or
                         SIZE_MAX when the slot is not run-owned */
  size_t arena_bytes; /* peak: end of the highest buffer */
  size_t sum_bytes;   /* all run-owned slots side by side, for comparison */
  size_t live_bytes;  /* largest set of slots live at once in program order:
                         the least an assignment can use without in-place
                         reuse (sum_bytes when reuse is off) */
  size_t num_extra;   /* added DAG edges extra_from[i] -> extra_to[i] */
  int32_t* extra_from;
  int32_t* extra_to;
} hlx_buffer_assignment_t;

/* owned[s] != 0: the run owns slot s's memory (not a param, constant or
 * empty slot). edge_from/edge_to: the DAG (from < to in program order).
 * reuse == false gives every slot its own memory (plans that are not SSA).
 * Fills *out (free with hlx_buffer_assignment_free) or returns OOM /
 * RESOURCE_EXHAUSTED when sizes overflow. */
hlx_status_t hlx_buffer_assign(const hlx_plan_t* p, const unsigned char* owned,
                               const int32_t* edge_from,
                               const int32_t* edge_to, size_t num_edges,
                               bool reuse, hlx_buffer_assignment_t* out)
    HLX_MUST_USE;

void hlx_buffer_assignment_free(hlx_buffer_assignment_t* a);

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_BUFFER_ASSIGN_H_ */
