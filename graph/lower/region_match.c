#include "graph/lower/region_match.h"

bool hlx_region_is_simple_combiner(const hlx_region_t* r,
                                   hlx_reduce_op_t* op) {
  if (r->num_blocks != 1) return false;
  const hlx_block_t* b = r->blocks[0];
  if (b->num_args != 2 || b->num_ops != 2) return false;
  const hlx_op_t* f = b->ops[0];
  const hlx_op_t* ret = b->ops[1];
  if ((ret->code != HLX_OP_RETURN && ret->code != HLX_OP_FUNC_RETURN) ||
      ret->num_operands != 1 || ret->operands[0] != f->results[0] ||
      f->num_operands != 2 || f->num_results != 1)
    return false;
  /* All ops below are commutative, so either argument order is fine. */
  bool args_ok = (f->operands[0] == b->args[0] && f->operands[1] == b->args[1]) ||
                 (f->operands[0] == b->args[1] && f->operands[1] == b->args[0]);
  if (!args_ok) return false;
  switch (f->code) {
    case HLX_OP_ADD: *op = HLX_REDUCE_ADD; return true;
    case HLX_OP_MULTIPLY: *op = HLX_REDUCE_MUL; return true;
    case HLX_OP_MAXIMUM: *op = HLX_REDUCE_MAX; return true;
    case HLX_OP_MINIMUM: *op = HLX_REDUCE_MIN; return true;
    case HLX_OP_AND: *op = HLX_REDUCE_AND; return true;
    case HLX_OP_OR: *op = HLX_REDUCE_OR; return true;
    case HLX_OP_XOR: *op = HLX_REDUCE_XOR; return true;
    default: return false;
  }
}
