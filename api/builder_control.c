/* Builder: control flow (XLA While, Conditional as if and case, Call).
 * While bodies take the loop values as region arguments; if/case branches
 * capture their operands (StableHLO regions of if/case take none); Call is
 * inlined into the caller's body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/builder_internal.h"

static const hlx_block_t* body_of(const hlx_computation_t* c) {
  return c->func->body->blocks[0];
}

/* Checks comp's parameters have exactly the types of vs (n values). */
static hlx_status_t check_params(hlx_builder_t* b, const char* kOp,
                                 const char* role, const hlx_computation_t* c,
                                 hlx_value_t* const* vs, int32_t n) {
  if (!c) return hlx_bld_fail(b, kOp, "NULL %s computation", role);
  if (c->func->num_args != n)
    return hlx_bld_fail(b, kOp, "the %s takes %d parameters, but there are %d "
                        "operands", role, (int)c->func->num_args, (int)n);
  for (int32_t i = 0; i < n; i++)
    if (!hlx_type_equal(body_of(c)->args[i]->type, vs[i]->type))
      return hlx_bld_fail(b, kOp, "%s parameter %d does not have the type of "
                          "operand %d", role, (int)i, (int)i);
  return NULL;
}

static hlx_status_t get_values(hlx_builder_t* b, const char* kOp,
                               const uint32_t* ids, int32_t n,
                               hlx_value_t*** out) {
  if (n < 0 || (n > 0 && !ids))
    return hlx_bld_fail(b, kOp, "bad operand count %d", (int)n);
  *out = hlx_bld_balloc(b, sizeof(hlx_value_t*) * (size_t)n);
  if (!*out) return hlx_bld_oom(b);
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, "operand %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_value(b, kOp, role, ids[i], &(*out)[i]));
  }
  return NULL;
}

hlx_status_t hlx_builder_while(hlx_builder_t* b,
                               const hlx_computation_t* condition,
                               const hlx_computation_t* body,
                               const uint32_t* init, int32_t n,
                               uint32_t* out_value) {
  static const char kOp[] = "while";
  BEGIN(b, out_value, kOp);
  if (n < 1 || n > 64)
    return hlx_bld_fail(b, kOp, "needs 1 to 64 loop values, got %d", (int)n);
  hlx_value_t** vs = NULL;
  HLX_RETURN_IF_ERROR(get_values(b, kOp, init, n, &vs));
  HLX_RETURN_IF_ERROR(check_params(b, kOp, "condition", condition, vs, n));
  HLX_RETURN_IF_ERROR(check_params(b, kOp, "body", body, vs, n));
  const hlx_type_t* ct = condition->func->num_results == 1
                             ? condition->func->result_types[0]
                             : NULL;
  if (!ct || ct->kind != HLX_TYPE_TENSOR || ct->rank != 0 ||
      ct->dtype != HLX_DTYPE_PRED)
    return hlx_bld_fail(b, kOp, "the condition must return one pred[]");
  if (body->func->num_results != n)
    return hlx_bld_fail(b, kOp, "the body returns %d values, the loop has %d",
                        (int)body->func->num_results, (int)n);
  hlx_type_t** rt = hlx_bld_balloc(b, sizeof(hlx_type_t*) * (size_t)n);
  if (!rt) return hlx_bld_oom(b);
  for (int32_t i = 0; i < n; i++) {
    if (!hlx_type_equal(body->func->result_types[i], vs[i]->type))
      return hlx_bld_fail(b, kOp, "body result %d does not have the type of "
                          "loop value %d", (int)i, (int)i);
    rt[i] = vs[i]->type;
  }
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_WHILE, vs, n, rt, n, NULL, 0);
  if (!op) return hlx_bld_oom(b);
  const hlx_computation_t* comps[2] = {condition, body};
  HLX_RETURN_IF_ERROR(hlx_bld_attach_regions(b, op, comps, NULL, 2));
  return hlx_bld_results_value(b, op, out_value);
}

/* Shared by if and case: branch i takes operand args[i] (captured). */
static hlx_status_t emit_branches(hlx_builder_t* b, const char* kOp,
                                  hlx_opcode_t code, hlx_value_t* selector,
                                  const hlx_computation_t* const* branches,
                                  hlx_value_t* const* args, int32_t n,
                                  uint32_t* out_value) {
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, "branch %d", (int)i);
    HLX_RETURN_IF_ERROR(check_params(b, kOp, role, branches[i], &args[i], 1));
  }
  const hlx_func_t* f0 = branches[0]->func;
  for (int32_t i = 1; i < n; i++) {
    const hlx_func_t* f = branches[i]->func;
    bool same = f->num_results == f0->num_results;
    for (int32_t k = 0; same && k < f->num_results; k++)
      same = hlx_type_equal(f->result_types[k], f0->result_types[k]);
    if (!same)
      return hlx_bld_fail(b, kOp, "branch %d returns other types than branch 0",
                          (int)i);
  }
  hlx_op_t* op = hlx_bld_emit(b, code, &selector, 1, f0->result_types,
                              f0->num_results, NULL, 0);
  if (!op) return hlx_bld_oom(b);
  hlx_value_t* const** cap =
      hlx_bld_balloc(b, sizeof(hlx_value_t* const*) * (size_t)n);
  if (!cap) return hlx_bld_oom(b);
  for (int32_t i = 0; i < n; i++) cap[i] = &args[i];
  HLX_RETURN_IF_ERROR(hlx_bld_attach_regions(b, op, branches, cap, n));
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_conditional(hlx_builder_t* b, uint32_t pred,
                                     uint32_t true_operand,
                                     const hlx_computation_t* true_computation,
                                     uint32_t false_operand,
                                     const hlx_computation_t* false_computation,
                                     uint32_t* out_value) {
  static const char kOp[] = "conditional";
  BEGIN(b, out_value, kOp);
  hlx_value_t *p = NULL, *args[2] = {NULL, NULL};
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "pred", pred, &p));
  if (p->type->rank != 0 || p->type->dtype != HLX_DTYPE_PRED)
    return hlx_bld_fail(b, kOp, "pred must be a pred[] (rank-0 boolean)");
  HLX_RETURN_IF_ERROR(
      hlx_bld_get_value(b, kOp, "true_operand", true_operand, &args[0]));
  HLX_RETURN_IF_ERROR(
      hlx_bld_get_value(b, kOp, "false_operand", false_operand, &args[1]));
  const hlx_computation_t* br[2] = {true_computation, false_computation};
  return emit_branches(b, kOp, HLX_OP_IF, p, br, args, 2, out_value);
}

hlx_status_t hlx_builder_case(hlx_builder_t* b, uint32_t branch_index,
                              const hlx_computation_t* const* branches,
                              const uint32_t* operands, int32_t n,
                              uint32_t* out_value) {
  static const char kOp[] = "case";
  BEGIN(b, out_value, kOp);
  hlx_value_t* idx = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "branch_index", branch_index,
                                         &idx));
  if (idx->type->rank != 0 || idx->type->dtype != HLX_DTYPE_S32)
    return hlx_bld_fail(b, kOp, "branch_index must be an s32[] (rank-0 i32)");
  if (n < 1 || !branches)
    return hlx_bld_fail(b, kOp, "needs at least one branch");
  hlx_value_t** vs = NULL;
  HLX_RETURN_IF_ERROR(get_values(b, kOp, operands, n, &vs));
  return emit_branches(b, kOp, HLX_OP_CASE, idx, branches, vs, n, out_value);
}

hlx_status_t hlx_builder_call(hlx_builder_t* b,
                              const hlx_computation_t* computation,
                              const uint32_t* operands, int32_t n,
                              uint32_t* out_value) {
  static const char kOp[] = "call";
  BEGIN(b, out_value, kOp);
  hlx_value_t** vs = NULL;
  HLX_RETURN_IF_ERROR(get_values(b, kOp, operands, n, &vs));
  HLX_RETURN_IF_ERROR(check_params(b, kOp, "computation", computation, vs, n));
  /* Copy the body with its parameters replaced by the operands, then move
   * its ops (all but the terminator) into the caller's block. */
  hlx_region_t* r = hlx_bld_clone_computation_captured(b, computation, vs);
  if (!r) return hlx_bld_oom(b);
  hlx_block_t* blk = r->blocks[0];
  int32_t nops = blk->num_ops - 1;
  if (b->num_ops + nops > b->cap_ops) {
    int32_t cap = b->num_ops + nops + 16;
    hlx_op_t** p = realloc(b->ops, sizeof(hlx_op_t*) * (size_t)cap);
    if (!p) return hlx_bld_oom(b);
    b->ops = p;
    b->cap_ops = cap;
  }
  for (int32_t i = 0; i < nops; i++) {
    blk->ops[i]->parent = b->block;
    b->ops[b->num_ops++] = blk->ops[i];
  }
  const hlx_op_t* ret = blk->ops[nops];
  uint32_t ids[64];
  if (ret->num_operands > 64)
    return hlx_bld_fail(b, kOp, "more than 64 results");
  for (int32_t i = 0; i < ret->num_operands; i++) {
    /* A returned parameter is the operand's existing id. */
    int32_t k = 0;
    while (k < n && vs[k] != ret->operands[i]) k++;
    if (k < n) ids[i] = operands[k];
    else if (!hlx_bld_add_value(b, ret->operands[i], &ids[i]))
      return hlx_bld_oom(b);
  }
  if (ret->num_operands == 1) {
    *out_value = ids[0];
    return NULL;
  }
  return hlx_builder_tuple(b, ids, ret->num_operands, out_value);
}
