/* The core ops' rules: func.call, composite, optimization_barrier, and
 * (as they move here from the lowering) constant, tuple, get_tuple_element
 * and the other ops graph/lower/core.c lowers. */
#include <string.h>

#include "graph/ops/family.h"

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

static hlx_status_t verify_func_call(const hlx_op_t* op,
                                     const hlx_module_t* m) {
  return m ? verify_call(m, op, "callee", NULL) : NULL;
}

static hlx_status_t verify_composite(const hlx_op_t* op,
                                     const hlx_module_t* m) {
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
  return m ? verify_call(m, op, "decomposition", kComposite) : NULL;
}

static hlx_status_t verify_optimization_barrier(const hlx_op_t* op,
                                                const hlx_module_t* m) {
  (void)m;
  bool ok = op->num_operands == op->num_results;
  for (int32_t i = 0; ok && i < op->num_operands; i++)
    ok = hlx_type_equal(op->operands[i]->type, op->results[i]->type);
  if (!ok)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) results must have the operands' types");
  return NULL;
}

const hlx_op_rules_t hlx_op_rules_core[] = {
    {HLX_OP_FUNC_CALL, verify_func_call, NULL},
    {HLX_OP_COMPOSITE, verify_composite, NULL},
    {HLX_OP_OPTIMIZATION_BARRIER, verify_optimization_barrier, NULL},
    {HLX_OP_UNKNOWN, NULL, NULL},
};
