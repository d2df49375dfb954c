/* Dead-code elimination while building plans.
 *
 * Before a function body is lowered, a backward pass over its top-level
 * block marks which values are needed: the terminator's operands, the
 * operands of every op that is kept, and every value used inside the
 * regions of a kept op. An op is dropped when it has results, none of them
 * is needed, and it is pure: an elementwise or data-movement op, or one of
 * the compute ops below whose regions (if any) hold only pure ops. Ops
 * with effects (checks, custom calls, collectives, infeed/outfeed, print,
 * rng state, control flow) are always kept. HLX_NO_DCE=1 keeps everything
 * (A/B checks). */
#include <stdlib.h>

#include "graph/lower/ctx.h"

bool hlx_lower_pure_compute_op(hlx_opcode_t code) {
  switch (code) {
    case HLX_OP_CONSTANT:
    case HLX_OP_RESHAPE:
    case HLX_OP_DOT:
    case HLX_OP_DOT_GENERAL:
    case HLX_OP_CONVOLUTION:
    case HLX_OP_REDUCE:
    case HLX_OP_REDUCE_WINDOW:
    case HLX_OP_SELECT_AND_SCATTER:
    case HLX_OP_GATHER:
    case HLX_OP_SCATTER:
    case HLX_OP_SORT:
    case HLX_OP_MAP:
    case HLX_OP_FFT:
    case HLX_OP_CHOLESKY:
    case HLX_OP_TRIANGULAR_SOLVE:
    case HLX_OP_BATCH_NORM_INFERENCE:
    case HLX_OP_BATCH_NORM_TRAINING:
    case HLX_OP_BATCH_NORM_GRAD:
    case HLX_OP_TUPLE:
    case HLX_OP_GET_TUPLE_ELEMENT:
      return true;
    default:
      return false;
  }
}

static bool op_is_pure(const hlx_op_t* op) {
  if (op->code == HLX_OP_RETURN) return true; /* region terminator */
  if (!hlx_lower_is_foldable(op->code) && !hlx_lower_pure_compute_op(op->code))
    return false;
  for (int32_t r = 0; r < op->num_regions; r++)
    for (int32_t b = 0; b < op->regions[r]->num_blocks; b++) {
      const hlx_block_t* blk = op->regions[r]->blocks[b];
      for (int32_t i = 0; i < blk->num_ops; i++)
        if (!op_is_pure(blk->ops[i])) return false;
    }
  return true;
}

/* Marks every operand of op and of the ops nested in its regions. */
static void mark_uses(const hlx_op_t* op, unsigned char* needed) {
  for (int32_t i = 0; i < op->num_operands; i++)
    needed[op->operands[i]->id] = 1;
  for (int32_t r = 0; r < op->num_regions; r++)
    for (int32_t b = 0; b < op->regions[r]->num_blocks; b++) {
      const hlx_block_t* blk = op->regions[r]->blocks[b];
      for (int32_t i = 0; i < blk->num_ops; i++) mark_uses(blk->ops[i], needed);
    }
}

static bool any_result_needed(const hlx_op_t* op, const unsigned char* needed) {
  for (int32_t i = 0; i < op->num_results; i++)
    if (needed[op->results[i]->id]) return true;
  return false;
}

hlx_status_t hlx_lower_dead_values(const hlx_func_t* f, const hlx_block_t* b,
                                   unsigned char** out_needed) {
  *out_needed = NULL;
  const char* off = getenv("HLX_NO_DCE");
  if (off && *off && *off != '0') return NULL;
  unsigned char* needed = calloc((size_t)f->num_values + 1, 1);
  if (!needed) return hlx_status_oom();
  for (int32_t i = b->num_ops - 1; i >= 0; i--) {
    const hlx_op_t* op = b->ops[i];
    bool keep = op->num_results == 0 || !op_is_pure(op) ||
                any_result_needed(op, needed);
    if (keep) mark_uses(op, needed);
  }
  *out_needed = needed;
  return NULL;
}

bool hlx_lower_op_is_dead(const hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return c->needed && op->num_results > 0 && op->parent &&
         op->parent->parent == c->func->body && op_is_pure(op) &&
         !any_result_needed(op, c->needed);
}
