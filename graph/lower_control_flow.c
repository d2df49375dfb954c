/* while, if and case: each region becomes a sub-plan; the task runs the
 * sub-plans with the loop state or the chosen branch. Captured outer values
 * are passed to a sub-plan after its block arguments. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower_internal.h"

typedef struct region_call_t {
  const hlx_plan_t* plan;
  int32_t first_capture; /* index of its first capture among task inputs */
  int32_t num_captures;
} region_call_t;

/* Lowers region r and appends its captured values' slots to ins[*n...]. */
static hlx_status_t lower_region_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                      const hlx_region_t* r, region_call_t* rc,
                                      int32_t** ins, int32_t* n, int32_t* cap) {
  hlx_plan_t* plan;
  const hlx_value_t** caps;
  int32_t ncap;
  hlx_status_t st = hlx_lower_region(c, r, &plan, &caps, &ncap);
  if (st) {
    char where[256];
    return hlx_status_annotate(st, "in a region of %s",
                               hlx_op_where(op, where, sizeof where));
  }
  rc->plan = plan;
  rc->first_capture = *n;
  rc->num_captures = 0;
  for (int32_t i = 0; i < ncap; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, caps[i], &s));
    if (*n + s.n > *cap) {
      int32_t nc = (*n + s.n) * 2 + 8;
      int32_t* grown = hlx_lower_alloc(c, (size_t)nc * 4);
      if (!grown) return hlx_status_oom();
      memcpy(grown, *ins, (size_t)*n * 4);
      *ins = grown;
      *cap = nc;
    }
    for (int32_t j = 0; j < s.n; j++) (*ins)[(*n)++] = s.slots[j];
    rc->num_captures += s.n;
  }
  return NULL;
}

/* params = explicit[0..ne) followed by the region's captures. */
static hlx_status_t run_region(const region_call_t* rc, void* const* explicit,
                               int32_t ne, void* const* task_in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  int32_t np = ne + rc->num_captures;
  const void* small[32];
  const void** params =
      np <= 32 ? small : malloc((size_t)np * sizeof(void*));
  if (!params) return hlx_status_oom();
  for (int32_t i = 0; i < ne; i++) params[i] = explicit[i];
  for (int32_t i = 0; i < rc->num_captures; i++)
    params[ne + i] = task_in[rc->first_capture + i];
  hlx_status_t st = hlx_plan_execute(rc->plan, params, out, ctx);
  if (params != small) free(params);
  return st;
}

/* ---- while --------------------------------------------------------------- */

typedef struct while_args_t {
  int32_t num_state;
  size_t* state_bytes;
  region_call_t cond, body;
} while_args_t;

static hlx_status_t run_while(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  const while_args_t* a = args;
  int32_t n = a->num_state;
  void** cur = calloc((size_t)n * 2 + 1, sizeof(void*));
  if (!cur) return hlx_status_oom();
  void** next = cur + n;
  hlx_status_t st = NULL;
  for (int32_t i = 0; i < n && !st; i++) {
    cur[i] = malloc(a->state_bytes[i] + 1);
    next[i] = malloc(a->state_bytes[i] + 1);
    if (!cur[i] || !next[i]) st = hlx_status_oom();
    else memcpy(cur[i], in[i], a->state_bytes[i]);
  }
  while (!st) {
    uint8_t pred = 0;
    void* pred_out[1] = {&pred};
    st = run_region(&a->cond, cur, n, in, pred_out, ctx);
    if (st || !pred) break;
    st = run_region(&a->body, cur, n, in, next, ctx);
    void** t = cur;
    for (int32_t i = 0; i < n; i++) {
      void* x = t[i];
      cur[i] = next[i];
      next[i] = x;
    }
  }
  for (int32_t i = 0; i < n; i++) {
    if (!st) memcpy(out[i], cur[i], a->state_bytes[i]);
    free(cur[i]);
    free(next[i]);
  }
  free(cur);
  return st;
}

static hlx_status_t lower_while(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_regions != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs a cond and a body region");
  while_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  int32_t *ins, nin, *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  a->num_state = nin;
  a->state_bytes = hlx_lower_alloc(c, ((size_t)nin + 1) * sizeof(size_t));
  if (!a->state_bytes) return hlx_status_oom();
  for (int32_t i = 0; i < nin; i++)
    a->state_bytes[i] = c->plan->slot_bytes[ins[i]];
  int32_t cap = nin;
  HLX_RETURN_IF_ERROR(
      lower_region_call(c, op, op->regions[0], &a->cond, &ins, &nin, &cap));
  HLX_RETURN_IF_ERROR(
      lower_region_call(c, op, op->regions[1], &a->body, &ins, &nin, &cap));
  if (a->cond.plan->num_results != 1 ||
      a->cond.plan->slot_bytes[a->cond.plan->result_slots[0]] != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "cond must return one tensor<i1>");
  if (a->body.plan->num_results != a->num_state)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "body returns %d values, the loop carries %d",
                        a->body.plan->num_results, a->num_state);
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  if (nout != a->num_state)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "has %d results for %d loop values", nout,
                        a->num_state);
  return hlx_lower_emit(c, op, run_while, a, nin, ins, nout, outs);
}

/* ---- if / case ----------------------------------------------------------- */

typedef struct branch_args_t {
  hlx_dtype_t selector; /* PRED for if, an integer type for case */
  int32_t num_branches;
  region_call_t* branches;
} branch_args_t;

static hlx_status_t run_branch(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  const branch_args_t* a = args;
  int64_t k;
  if (a->selector == HLX_DTYPE_PRED) {
    k = *(const uint8_t*)in[0] ? 0 : 1; /* if: true branch first */
  } else {
    int32_t v;
    memcpy(&v, in[0], 4);
    k = v;
    /* case: an out-of-range index runs the last branch (spec). */
    if (k < 0 || k >= a->num_branches) k = a->num_branches - 1;
  }
  return run_region(&a->branches[k], NULL, 0, in, out, ctx);
}

static hlx_status_t lower_branches(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                   hlx_dtype_t selector) {
  if (op->num_operands != 1 || op->num_regions < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one selector operand and at least one branch");
  const hlx_type_t* s = op->operands[0]->type;
  if (s->kind != HLX_TYPE_TENSOR || s->rank != 0 || s->dtype != selector)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "selector must be a tensor<%s> scalar",
                        hlx_dtype_name(selector));
  if (selector == HLX_DTYPE_PRED && op->num_regions != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs a true and a false branch");
  branch_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->selector = selector;
  a->num_branches = op->num_regions;
  a->branches = hlx_lower_alloc(c, sizeof(region_call_t) * (size_t)op->num_regions);
  if (!a->branches) return hlx_status_oom();
  int32_t cap = 8, nin = 0;
  int32_t* ins = hlx_lower_alloc(c, (size_t)cap * 4);
  if (!ins) return hlx_status_oom();
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &ins[nin++]));
  for (int32_t r = 0; r < op->num_regions; r++) {
    HLX_RETURN_IF_ERROR(lower_region_call(c, op, op->regions[r],
                                          &a->branches[r], &ins, &nin, &cap));
    if (a->branches[r].plan->num_params != a->branches[r].num_captures)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "branch %d must not take block arguments", r);
  }
  int32_t *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  for (int32_t r = 0; r < op->num_regions; r++)
    if (a->branches[r].plan->num_results != nout)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "branch %d returns %d values, the op has %d results",
                          r, a->branches[r].plan->num_results, nout);
  return hlx_lower_emit(c, op, run_branch, a, nin, ins, nout, outs);
}

static hlx_status_t lower_if(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_branches(c, op, HLX_DTYPE_PRED);
}

static hlx_status_t lower_case(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_branches(c, op, HLX_DTYPE_S32);
}

const hlx_lowering_t hlx_lowerings_control_flow[] = {
    {HLX_OP_WHILE, lower_while},
    {HLX_OP_IF, lower_if},
    {HLX_OP_CASE, lower_case},
    {HLX_OP_UNKNOWN, NULL},
};
