/* Lowering: a parsed module becomes one plan per function (tasks + buffer
 * slots). Every op's attributes are read and checked here once, so tasks
 * only move data and call kernels. */
#ifndef HLX_GRAPH_LOWER_H_
#define HLX_GRAPH_LOWER_H_

#include "graph/ir.h"
#include "scheduler/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_lower_options_t {
  /* Fill dense_resource<__elided__> constants with deterministic random
   * values instead of failing. */
  bool fill_elided;
} hlx_lower_options_t;

typedef struct hlx_lowered_module_t {
  const hlx_module_t* module; /* borrowed: must outlive this */
  hlx_lower_options_t options;
  int32_t num_funcs;
  hlx_plan_t** plans; /* plans[i] runs module->funcs[i] */
} hlx_lowered_module_t;

hlx_status_t hlx_lower_module(const hlx_module_t* m,
                              const hlx_lower_options_t* options,
                              hlx_lowered_module_t** out) HLX_MUST_USE;
void hlx_lowered_module_destroy(hlx_lowered_module_t* lm);

/* Whether `op` has a lowering (a kernel or a plan construct) at all. */
bool hlx_lower_supports(hlx_opcode_t op);

/* The plan of function `name`, NULL if absent. */
const hlx_plan_t* hlx_lowered_find(const hlx_lowered_module_t* lm,
                                   const char* name);

/* Check ops (check.expect_*, @check.* custom calls) that do not hold fail the
 * run with this code and a message starting with HLX_CHECK_FAILED. */
#define HLX_CHECK_FAILED_CODE HLX_STATUS_FAILED_PRECONDITION
#define HLX_CHECK_FAILED "check failed"

#ifdef __cplusplus
}
#endif

#endif /* HLX_GRAPH_LOWER_H_ */
