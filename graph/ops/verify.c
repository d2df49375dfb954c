#include "graph/ops/verify.h"

#include <string.h>

#include "graph/ir/attr.h"
#include "graph/ops/ops.h"

static hlx_status_t verify_block(const hlx_module_t* m, const hlx_block_t* b,
                                 bool is_func_body, const hlx_func_t* f);

static hlx_status_t verify_op(const hlx_module_t* m, const hlx_op_t* op) {
  for (int32_t i = 0; i < op->num_results; i++)
    if (op->results[i]->type && op->results[i]->type->is_index)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "result #%d has element type 'index', which only "
                          "attributes may have",
                          i);
  /* The op's counts, then every rule of its family (graph/ops/ops.h). */
  HLX_RETURN_IF_ERROR(hlx_op_verify(op, m));
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
