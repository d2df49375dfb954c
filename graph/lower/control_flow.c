/* while, if and case: each region becomes a sub-plan; the task runs the
 * sub-plans with the loop state or the chosen branch. Captured outer values
 * are passed to a sub-plan after its block arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/data_movement.h"

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
      if (*n) memcpy(grown, *ins, (size_t)*n * 4);
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

/* ---- region signatures ---------------------------------------------------
 * Type rules of while/if/case: a region's block arguments must have the
 * types `ins` (NULL: none allowed) and its return the types of `outs`. */

static const hlx_op_t* terminator(const hlx_region_t* r) {
  const hlx_block_t* b = r->num_blocks == 1 ? r->blocks[0] : NULL;
  return b && b->num_ops ? b->ops[b->num_ops - 1] : NULL;
}

static hlx_status_t check_signature(const hlx_op_t* op, const hlx_region_t* r,
                                    const char* rule, const char* out_rule,
                                    const char* what,
                                    hlx_value_t* const* ins, int32_t nin,
                                    const hlx_type_t* const* outs,
                                    int32_t nout) {
  const hlx_op_t* t = terminator(r);
  if (!t || r->blocks[0]->num_args != nin)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s %s takes %d arguments, must take %d", rule, what,
                        t ? r->blocks[0]->num_args : -1, nin);
  for (int32_t i = 0; i < nin; i++)
    if (!hlx_type_equal(r->blocks[0]->args[i]->type, ins[i]->type))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s %s argument #%d has the wrong type", rule, what,
                          i);
  if (t->num_operands != nout)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s %s returns %d values, must return %d", out_rule,
                        what,
                        t->num_operands, nout);
  for (int32_t i = 0; i < nout; i++)
    if (!hlx_type_equal(t->operands[i]->type, outs[i]))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s %s result #%d has the wrong type", out_rule,
                          what, i);
  return NULL;
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
  /* (C1) cond: (T...) -> tensor<i1>; (C2) body: (T...) -> (T...);
   * (C3) results: T... */
  int32_t n = op->num_operands;
  const hlx_type_t** types = hlx_lower_alloc(c, sizeof(void*) * ((size_t)n + 1));
  hlx_type_t pred = {0};
  pred.kind = HLX_TYPE_TENSOR;
  pred.dtype = HLX_DTYPE_PRED;
  const hlx_type_t* pred_type = &pred;
  if (!types) return hlx_status_oom();
  for (int32_t i = 0; i < n; i++) types[i] = op->operands[i]->type;
  HLX_RETURN_IF_ERROR(check_signature(op, op->regions[0], "(C1)", "(C1)",
                                      "cond", op->operands, n, &pred_type, 1));
  HLX_RETURN_IF_ERROR(check_signature(op, op->regions[1], "(C2)", "(C2)",
                                      "body", op->operands, n, types, n));
  if (op->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) has %d results for %d operands",
                        op->num_results, n);
  for (int32_t i = 0; i < n; i++)
    if (!hlx_type_equal(op->results[i]->type, types[i]))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) result #%d's type differs from operand #%d's",
                          i, i);
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
  if (op->num_regions < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) needs at least one branch");
  if (op->num_operands != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one selector operand");
  const hlx_type_t* s = op->operands[0]->type;
  if (s->kind != HLX_TYPE_TENSOR || s->rank != 0 || s->dtype != selector)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "selector must be a tensor<%s> scalar",
                        hlx_dtype_name(selector));
  if (selector == HLX_DTYPE_PRED && op->num_regions != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs a true and a false branch");
  /* Branches take nothing (if C1 / case C2); branch 0 returns the op's
   * result types (if C3 / case C4), the others what branch 0 returns
   * (if C2 / case C3). */
  const hlx_type_t** types =
      hlx_lower_alloc(c, sizeof(void*) * ((size_t)op->num_results + 1));
  if (!types) return hlx_status_oom();
  for (int32_t i = 0; i < op->num_results; i++)
    types[i] = op->results[i]->type;
  bool is_if = selector == HLX_DTYPE_PRED;
  for (int32_t r = 0; r < op->num_regions; r++) {
    char what[32];
    snprintf(what, sizeof what, "branch %d", r);
    const char* out_rule = r == 0 ? (is_if ? "(C3)" : "(C4)")
                                  : (is_if ? "(C2)" : "(C3)");
    HLX_RETURN_IF_ERROR(check_signature(op, op->regions[r],
                                        is_if ? "(C1)" : "(C2)", out_rule,
                                        what, NULL, 0, types,
                                        op->num_results));
  }
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

/* ---- chlo.scan ------------------------------------------------------------
 * For each position t along `dimension` (from the end when is_reverse):
 *   (out_0[t], ..., carry_0, ...) = body(in_0[t], ..., carry_0, ...)
 * where in_i[t] is the slice of input i at t (that dimension removed). */

typedef struct scan_args_t {
  int32_t num_inputs, num_carries;
  int32_t dim;
  bool reverse;
  int64_t steps;
  size_t* in_elem;      /* element size of input i (= output i) */
  int32_t* in_rank;     /* rank of input i */
  int64_t (*in_dims)[HLX_MAX_RANK];
  size_t* slice_bytes;  /* bytes of one slice of input i */
  size_t* carry_bytes;
  region_call_t body;
} scan_args_t;

/* Copies slice t of a tensor (dims, rank) along dim to/from a dense buffer. */
static void scan_slice(const scan_args_t* a, int32_t i, int64_t t, bool gather,
                       void* tensor, void* slice) {
  int32_t rank = a->in_rank[i];
  const int64_t* dims = a->in_dims[i];
  int64_t strides[HLX_MAX_RANK], sdims[HLX_MAX_RANK], tstr[HLX_MAX_RANK],
      sstr[HLX_MAX_RANK];
  hlx_row_major_strides(rank, dims, strides);
  int32_t k = 0;
  for (int32_t d = 0; d < rank; d++)
    if (d != a->dim) {
      sdims[k] = dims[d];
      tstr[k] = strides[d];
      k++;
    }
  hlx_row_major_strides(k, sdims, sstr);
  char* base = (char*)tensor + t * strides[a->dim] * (int64_t)a->in_elem[i];
  if (gather)
    hlx_ref_copy_strided(a->in_elem[i], k, sdims, base, tstr, slice, sstr);
  else
    hlx_ref_copy_strided(a->in_elem[i], k, sdims, slice, sstr, base, tstr);
}

static hlx_status_t run_scan(const void* args, void* const* in,
                             void* const* out, hlx_run_ctx_t* ctx) {
  const scan_args_t* a = args;
  int32_t ni = a->num_inputs, nc = a->num_carries;
  void** bufs = calloc((size_t)(2 * ni + 2 * nc) + 1, sizeof(void*));
  if (!bufs) return hlx_status_oom();
  void** slices = bufs;            /* ni input slices */
  void** outs = bufs + ni;         /* ni output slices, then nc carries */
  void** carry = bufs + 2 * ni + nc; /* nc current carries */
  hlx_status_t st = NULL;
  for (int32_t i = 0; i < ni && !st; i++) {
    slices[i] = malloc(a->slice_bytes[i] + 1);
    outs[i] = malloc(a->slice_bytes[i] + 1);
    if (!slices[i] || !outs[i]) st = hlx_status_oom();
  }
  for (int32_t j = 0; j < nc && !st; j++) {
    outs[ni + j] = malloc(a->carry_bytes[j] + 1);
    carry[j] = malloc(a->carry_bytes[j] + 1);
    if (!outs[ni + j] || !carry[j]) st = hlx_status_oom();
    else memcpy(carry[j], in[ni + j], a->carry_bytes[j]);
  }
  void** explicit = calloc((size_t)(ni + nc) + 1, sizeof(void*));
  if (!st && !explicit) st = hlx_status_oom();
  for (int64_t step = 0; step < a->steps && !st; step++) {
    int64_t t = a->reverse ? a->steps - 1 - step : step;
    for (int32_t i = 0; i < ni; i++) {
      scan_slice(a, i, t, true, in[i], slices[i]);
      explicit[i] = slices[i];
    }
    for (int32_t j = 0; j < nc; j++) explicit[ni + j] = carry[j];
    st = run_region(&a->body, explicit, ni + nc, in, outs, ctx);
    if (st) break;
    for (int32_t i = 0; i < ni; i++) scan_slice(a, i, t, false, out[i], outs[i]);
    for (int32_t j = 0; j < nc; j++)
      memcpy(carry[j], outs[ni + j], a->carry_bytes[j]);
  }
  for (int32_t j = 0; j < nc && !st; j++)
    memcpy(out[ni + j], carry[j], a->carry_bytes[j]);
  for (int32_t i = 0; i < 2 * ni + 2 * nc; i++) free(bufs[i]);
  free(bufs);
  free(explicit);
  return st;
}

static hlx_status_t lower_scan(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_attr_t* seg = hlx_op_attr(op, "operandSegmentSizes");
  if (!seg || seg->kind != HLX_ATTR_I64_ARRAY || seg->count != 2 ||
      op->num_regions != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs operandSegmentSizes [#inputs, #inits] and a "
                        "body");
  int32_t ni = (int32_t)seg->ints[0], nc = (int32_t)seg->ints[1];
  if (ni < 1 || nc < 0 || ni + nc != op->num_operands ||
      op->num_results != ni + nc)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "has %d operands and %d results for %d inputs and %d "
                        "inits",
                        op->num_operands, op->num_results, ni, nc);
  int64_t dim;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "dimension", true, 0, &dim));
  const hlx_attr_t* rev = hlx_op_attr(op, "is_reverse");
  scan_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->num_inputs = ni;
  a->num_carries = nc;
  a->reverse = rev && rev->kind == HLX_ATTR_BOOL && rev->b;
  a->in_elem = hlx_lower_alloc(c, sizeof(size_t) * (size_t)ni);
  a->in_rank = hlx_lower_alloc(c, sizeof(int32_t) * (size_t)ni);
  a->in_dims = hlx_lower_alloc(c, sizeof(*a->in_dims) * (size_t)ni);
  a->slice_bytes = hlx_lower_alloc(c, sizeof(size_t) * (size_t)ni);
  a->carry_bytes = hlx_lower_alloc(c, sizeof(size_t) * (size_t)(nc + 1));
  if (!a->in_elem || !a->in_rank || !a->in_dims || !a->slice_bytes ||
      !a->carry_bytes)
    return hlx_status_oom();
  for (int32_t i = 0; i < ni; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    if (!t || t->rank > HLX_MAX_RANK || dim < 0 || dim >= t->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "input #%d must be a static tensor with dimension "
                          "%lld",
                          i, (long long)dim);
    if (i == 0) a->steps = t->dims[dim];
    if (t->dims[dim] != a->steps ||
        !hlx_type_equal(t, op->results[i]->type))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "input #%d must match output #%d and the scan "
                          "length",
                          i, i);
    a->in_elem[i] = hlx_dtype_size(t->dtype);
    a->in_rank[i] = t->rank;
    if (t->rank) memcpy(a->in_dims[i], t->dims, sizeof(int64_t) * (size_t)t->rank);
    a->slice_bytes[i] =
        t->dims[dim] ? hlx_tensor_bytes(t) / (size_t)t->dims[dim] : 0;
  }
  for (int32_t j = 0; j < nc; j++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[ni + j]);
    if (!t || !hlx_type_equal(t, op->results[ni + j]->type))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "init #%d must be static and match carry #%d", j, j);
    a->carry_bytes[j] = hlx_tensor_bytes(t);
  }
  a->dim = (int32_t)dim;
  int32_t cap = ni + nc, nin = ni + nc;
  int32_t* ins;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, false, &ins, &nin));
  cap = nin;
  HLX_RETURN_IF_ERROR(
      lower_region_call(c, op, op->regions[0], &a->body, &ins, &nin, &cap));
  if (a->body.plan->num_results != ni + nc)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "body returns %d values, needs %d outputs and %d "
                        "carries",
                        a->body.plan->num_results, ni, nc);
  int32_t *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  return hlx_lower_emit(c, op, run_scan, a, nin, ins, nout, outs);
}

/* ---- async_start / async_done -----------------------------------------
 * The spec lets a backend run the computation synchronously: async_start
 * runs its one-op body at once and its future holds the values (a future
 * is lowered like a tuple of them); async_done hands them out. */

static int32_t count_leaves(const hlx_type_t* t) {
  if (t->kind != HLX_TYPE_TUPLE) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++) n += count_leaves(t->elems[i]);
  return n;
}

typedef struct async_args_t {
  region_call_t body;
} async_args_t;

static hlx_status_t run_async_start(const void* args, void* const* in,
                                    void* const* out, hlx_run_ctx_t* ctx) {
  const async_args_t* a = args;
  return run_region(&a->body, NULL, 0, in, out, ctx);
}

static hlx_status_t lower_async_start(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_regions != 1 || op->num_results != 1 ||
      op->results[0]->type->kind != HLX_TYPE_TUPLE ||
      !op->results[0]->type->is_future)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) needs a body and returns one future");
  const hlx_region_t* r = op->regions[0];
  if (r->num_blocks != 1 || r->blocks[0]->num_ops != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) body must contain a single operation and a "
                        "return");
  switch (r->blocks[0]->ops[0]->code) {
    case HLX_OP_ALL_REDUCE: case HLX_OP_ALL_GATHER: case HLX_OP_ALL_TO_ALL:
    case HLX_OP_COLLECTIVE_PERMUTE: case HLX_OP_REDUCE_SCATTER:
    case HLX_OP_COLLECTIVE_BROADCAST: case HLX_OP_SLICE:
    case HLX_OP_DYNAMIC_SLICE: case HLX_OP_DYNAMIC_UPDATE_SLICE:
      break;
    default:
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) the body's op must be a collective or a "
                          "slice, not %s",
                          r->blocks[0]->ops[0]->name);
  }
  /* (C3) the body's op takes async_start's operands; (C4) its results are
   * the future's. */
  const hlx_op_t* inner = r->blocks[0]->ops[0];
  bool args_ok = inner->num_operands == op->num_operands;
  for (int32_t i = 0; args_ok && i < op->num_operands; i++)
    args_ok = hlx_type_equal(inner->operands[i]->type, op->operands[i]->type);
  if (!args_ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) the body's op must take async_start's operands");
  const hlx_type_t* fut = op->results[0]->type;
  bool res_ok = inner->num_results == fut->num_elems;
  for (int32_t i = 0; res_ok && i < inner->num_results; i++)
    res_ok = hlx_type_equal(inner->results[i]->type, fut->elems[i]);
  if (!res_ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) the future's types differ from the body op's "
                        "results");
  async_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  int32_t cap = 0, nin = 0;
  int32_t* ins = NULL;
  HLX_RETURN_IF_ERROR(lower_region_call(c, op, r, &a->body, &ins, &nin, &cap));
  int32_t *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  if (a->body.plan->num_results != nout)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) the body returns %d values, the future holds %d",
                        a->body.plan->num_results, nout);
  HLX_RETURN_IF_ERROR(
      hlx_lower_emit(c, op, run_async_start, a, nin, ins, nout, outs));
  /* The body may be a collective: keep program order with other effects. */
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT);
  return NULL;
}

static hlx_status_t lower_async_done(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_type_t* f = op->num_operands == 1 ? op->operands[0]->type : NULL;
  if (!f || f->kind != HLX_TYPE_TUPLE || !f->is_future ||
      f->num_elems != op->num_results)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) takes one future and returns its %d values",
                        f ? f->num_elems : 0);
  hlx_value_slots_t s;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, op->operands[0], &s));
  int32_t k = 0;
  for (int32_t i = 0; i < op->num_results; i++) {
    const hlx_type_t* t = op->results[i]->type;
    if (!hlx_type_equal(t, f->elems[i]))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) result #%d's type differs from the future's",
                          i);
    int32_t n = count_leaves(t);
    hlx_value_slots_t part = {n, s.slots + k};
    HLX_RETURN_IF_ERROR(hlx_lower_alias(c, op->results[i], &part));
    k += n;
  }
  return NULL;
}

const hlx_lowering_t hlx_lowerings_control_flow[] = {
    {HLX_OP_ASYNC_START, lower_async_start},
    {HLX_OP_ASYNC_DONE, lower_async_done},
    {HLX_OP_CHLO_SCAN, lower_scan},
    {HLX_OP_WHILE, lower_while},
    {HLX_OP_IF, lower_if},
    {HLX_OP_CASE, lower_case},
    {HLX_OP_UNKNOWN, NULL},
};
