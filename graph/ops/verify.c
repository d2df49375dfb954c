#include "graph/ops/verify.h"

#include <string.h>

#include "graph/ir/attr.h"
#include "graph/ops/rules.h"

static hlx_status_t verify_block(const hlx_module_t* m, const hlx_block_t* b,
                                 bool is_func_body, const hlx_func_t* f);

/* An op that calls the function named by its symbol attribute `attr`
 * (func.call's callee, composite's decomposition): the function exists and
 * the types match. `rules` labels the existence, argument and result
 * rules (composite's C2-C4), or is NULL. */
static hlx_status_t verify_call(const hlx_module_t* m, const hlx_op_t* op,
                                const char* attr,
                                const char* const* rules) {
  const char* r_def = rules ? rules[0] : "";
  const char* r_arg = rules ? rules[1] : "";
  const char* r_res = rules ? rules[2] : "";
  const hlx_attr_t* callee = hlx_op_attr(op, attr);
  if (!callee || callee->kind != HLX_ATTR_SYMBOL)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%smissing attribute '%s'", r_def, attr);
  const hlx_func_t* f = hlx_module_find_func(m, callee->str);
  if (!f)
    return hlx_op_error(op, HLX_STATUS_NOT_FOUND, "%sno function named @%s",
                        r_def, callee->str);
  if (!f->body || f->body->num_blocks != 1)
    return NULL; /* hlx_verify_module names the bodiless function */
  if (f->num_args != op->num_operands)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s@%s takes %d arguments, the op has %d operands",
                        r_arg, f->name, f->num_args, op->num_operands);
  if (f->num_results != op->num_results)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s@%s returns %d results, the op has %d", r_res,
                        f->name, f->num_results, op->num_results);
  for (int32_t i = 0; i < f->num_args; i++)
    if (!hlx_type_equal(f->body->blocks[0]->args[i]->type,
                        op->operands[i]->type))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%soperand #%d's type differs from @%s's argument",
                          r_arg, i, f->name);
  for (int32_t i = 0; i < f->num_results; i++)
    if (!hlx_type_equal(f->result_types[i], op->results[i]->type))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%sresult #%d's type differs from @%s's result",
                          r_res, i, f->name);
  return NULL;
}

static hlx_status_t verify_op(const hlx_module_t* m, const hlx_op_t* op) {
  /* First: every later check and every lowering indexes operands, results
   * and regions within the counts of graph/ops.inc. The parser checks this
   * too; here it covers modules made by the builder. */
  char why[96];
  if (!hlx_op_arity_ok(op, why, sizeof why))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT, "%s", why);
  for (int32_t i = 0; i < op->num_results; i++)
    if (op->results[i]->type && op->results[i]->type->is_index)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "result #%d has element type 'index', which only "
                          "attributes may have",
                          i);
  if (op->code == HLX_OP_DOT_GENERAL)
    HLX_RETURN_IF_ERROR(hlx_verify_dot_general(op));
  if (op->code == HLX_OP_CONVOLUTION || op->code == HLX_OP_DYNAMIC_CONV)
    HLX_RETURN_IF_ERROR(hlx_verify_conv_quant(op));
  HLX_RETURN_IF_ERROR(hlx_verify_collective(op));
  if (op->code == HLX_OP_FUNC_CALL)
    HLX_RETURN_IF_ERROR(verify_call(m, op, "callee", NULL));
  if (op->code == HLX_OP_COMPOSITE) {
    /* (C1) is_namespaced_op_name(name): "dialect.op". */
    const hlx_attr_t* name = hlx_op_attr(op, "name");
    const char* dot = name && name->kind == HLX_ATTR_STRING
                          ? strchr(name->str, '.')
                          : NULL;
    if (!dot || dot == name->str || dot[1] == 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) name must be a namespaced op name "
                          "(\"dialect.op\"), is \"%s\"",
                          name && name->kind == HLX_ATTR_STRING ? name->str
                                                                : "");
    static const char* const kComposite[3] = {"(C2) ", "(C3) ", "(C4) "};
    HLX_RETURN_IF_ERROR(verify_call(m, op, "decomposition", kComposite));
  }
  if (op->code == HLX_OP_OPTIMIZATION_BARRIER) {
    bool ok = op->num_operands == op->num_results;
    for (int32_t i = 0; ok && i < op->num_operands; i++)
      ok = hlx_type_equal(op->operands[i]->type, op->results[i]->type);
    if (!ok)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) results must have the operands' types");
  }
  for (int32_t r = 0; r < op->num_regions; r++) {
    const hlx_region_t* reg = op->regions[r];
    if (reg->num_blocks != 1)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "region #%d must have one block, has %d", r,
                          reg->num_blocks);
    hlx_status_t st = verify_block(m, reg->blocks[0], false, NULL);
    if (st) {
      char where[256];
      return hlx_status_annotate(st, "in region #%d of %s", r,
                                 hlx_op_where(op, where, sizeof where));
    }
  }
  return NULL;
}

static hlx_status_t verify_block(const hlx_module_t* m, const hlx_block_t* b,
                                 bool is_func_body, const hlx_func_t* f) {
  if (b->num_ops == 0)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "block has no terminator");
  for (int32_t i = 0; i < b->num_ops; i++) {
    const hlx_op_t* op = b->ops[i];
    bool is_term = op->code == HLX_OP_RETURN || op->code == HLX_OP_FUNC_RETURN;
    if (is_term != (i == b->num_ops - 1))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          is_term ? "a terminator must end its block"
                                  : "the block does not end with a return");
    if (is_term && is_func_body) {
      if (op->num_operands != f->num_results)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "returns %d values, @%s declares %d results",
                            op->num_operands, f->name, f->num_results);
      for (int32_t k = 0; k < f->num_results; k++)
        if (!hlx_type_equal(op->operands[k]->type, f->result_types[k]))
          return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                              "operand #%d's type differs from @%s's result "
                              "#%d",
                              k, f->name, k);
    }
    HLX_RETURN_IF_ERROR(verify_op(m, op));
  }
  return NULL;
}

hlx_status_t hlx_verify_module(const hlx_module_t* m) {
  for (int32_t i = 0; i < m->num_funcs; i++) {
    const hlx_func_t* f = m->funcs[i];
    for (int32_t j = 0; j < i; j++)
      if (strcmp(m->funcs[j]->name, f->name) == 0)
        return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                               "function @%s is defined twice", f->name);
    if (!f->body || f->body->num_blocks != 1)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "function @%s must have a body of one block",
                             f->name);
    hlx_status_t st = verify_block(m, f->body->blocks[0], true, f);
    if (st) return hlx_status_annotate(st, "in function @%s", f->name);
  }
  return NULL;
}
