/* A plan's schedule: what hlx_plan_finalize builds once, when the plan is
 * complete, and every run of the plan reads. It holds the task DAG
 * (dag.h), the buffer assignment (buffer_assign.h) laid out as a run's
 * memory block, and the blocks kept between runs (run_blocks.h).
 *
 * Immutable once built, so runs from several threads read it without
 * synchronisation; the run blocks are the one part runs change, and they
 * lock. */
#ifndef HLX_SCHEDULER_SCHEDULE_H_
#define HLX_SCHEDULER_SCHEDULE_H_

#include <stddef.h>

#include "scheduler/dag.h"
#include "scheduler/plan.h"
#include "scheduler/run_blocks.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_schedule_t {
  hlx_dag_t* dag;
  /* A run's block: [slot pointers][task counters][buffers]. */
  size_t counters_off, buffers_off;
  size_t* slot_off; /* per slot: its offset in the block, SIZE_MAX when the
                       run does not own it (param, constant, empty) */
  /* Per result: its slot is owned by the run, has bytes and no earlier
   * result names it, so a top-level run may point it at the caller's
   * buffer (executor.c, direct_results). */
  unsigned char* direct_result;
  /* Buffer assignment figures (hlx_plan_arena_bytes and the others). */
  size_t arena_bytes, intermediate_bytes, live_bytes;
  hlx_run_blocks_t* blocks; /* of the whole block's size */
} hlx_schedule_t;

void hlx_schedule_free(hlx_schedule_t* s);

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_SCHEDULE_H_ */
