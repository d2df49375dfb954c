/* The task DAG of a plan: which tasks must finish before a task may start.
 *
 * A task depends on the tasks that wrote the slots it reads, and
 * side-effecting tasks (HLX_TASK_SIDE_EFFECT) keep their program order. A
 * plan that is not SSA (a slot written twice, or a parameter or constant
 * written) is ordered as a chain in program order instead. Buffer
 * assignment may add edges of its own (buffer_assign.h); hlx_dag_build
 * merges them in.
 *
 * Built once by hlx_plan_finalize (schedule.c) and read-only after: the
 * executor runs it from several threads at once. */
#ifndef HLX_SCHEDULER_DAG_H_
#define HLX_SCHEDULER_DAG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "scheduler/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Edges from[i] -> to[i], always from an earlier to a later task in
 * program order, in ascending order of `to`. */
typedef struct hlx_dag_edges_t {
  size_t num;
  int32_t* from;
  int32_t* to;
  bool chain; /* the plan is not SSA: the edges are its program order */
} hlx_dag_edges_t;

/* The dependence edges of p's tasks. Free with hlx_dag_edges_free. */
hlx_status_t hlx_dag_edges(const hlx_plan_t* p, hlx_dag_edges_t* out)
    HLX_MUST_USE;
void hlx_dag_edges_free(hlx_dag_edges_t* e);

typedef struct hlx_dag_t {
  int32_t num_tasks;
  int32_t* indeg;    /* num_tasks: predecessors of each task */
  int32_t* succ_off; /* num_tasks + 1: successors of t are */
  int32_t* succ;     /* succ[succ_off[t] .. succ_off[t + 1]), ascending */
  int32_t num_roots; /* tasks without predecessors, in program order */
  int32_t* roots;
  /* Nothing to gain from other threads: a chain (the longest path covers
   * every task), fewer than 3 tasks, or a plan with HLX_TASK_WIDE tasks. */
  bool sequential;
  /* Tasks that may block at a rendezvous (HLX_TASK_SIDE_EFFECT or
   * HLX_TASK_NESTED), in program order, and a per-task mark. */
  int32_t num_pinned;
  int32_t* pinned;
  unsigned char* is_pinned;
} hlx_dag_t;

/* The DAG of `edges` plus the extra edges extra_from[i] -> extra_to[i]
 * (each from an earlier to a later task). */
hlx_status_t hlx_dag_build(const hlx_plan_t* p, const hlx_dag_edges_t* edges,
                           const int32_t* extra_from, const int32_t* extra_to,
                           size_t num_extra, hlx_dag_t** out) HLX_MUST_USE;
void hlx_dag_free(hlx_dag_t* d);

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_DAG_H_ */
