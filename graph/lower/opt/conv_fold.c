/* Conv+BN folding (see epilogue.h): which leading epilogue steps of
 * a convolution fold into its weights and a bias, and the arithmetic,
 * shared by constant weights (folded once at lowering) and weights of a
 * reusable parameter (folded at run time, graph/lower/conv.c). */
#include <stdlib.h>

#include "graph/lower/opt/epilogue.h"

/* Values from_params has found to be parameter-only, and how many more
 * values it may look at: a value reached along several paths (x + x,
 * chains of them) is walked once, so the walk is linear in the operand's
 * expression, and a long one gives up instead of taking seconds. */
typedef struct param_walk_t {
  const hlx_value_t* ok[64];
  int32_t num_ok, budget;
} param_walk_t;

/* Whether v is computed only from reusable parameters and constants by
 * side-effect-free elementwise / shape ops (what JAX exports for batch
 * norm's scale, rsqrt(var + eps) * gamma), so its value changes only when
 * a run passes other parameter buffers. */
static bool from_params(hlx_lower_ctx_t* c, const hlx_value_t* v,
                        param_walk_t* w) {
  if (--w->budget < 0) return false;
  for (int32_t i = 0; i < w->num_ok; i++)
    if (w->ok[i] == v) return true;
  hlx_value_slots_t s;
  hlx_status_t e = hlx_lower_slots_of(c, v, &s);
  if (e) {
    hlx_status_free(e); /* inside a fusion: no slot, look at its def */
  } else if (s.n == 1 && (c->plan->slot_data[s.slots[0]] ||
                          hlx_lower_slot_is_reusable(c, s.slots[0]))) {
    return true;
  }
  const hlx_op_t* d = v->def;
  if (!d || d->num_results != 1) return false;
  switch (d->code) {
    case HLX_OP_CONSTANT:
      return true;
    case HLX_OP_ADD:
    case HLX_OP_SUBTRACT:
    case HLX_OP_MULTIPLY:
    case HLX_OP_DIVIDE:
    case HLX_OP_RSQRT:
    case HLX_OP_SQRT:
    case HLX_OP_NEGATE:
    case HLX_OP_CONVERT:
    case HLX_OP_RESHAPE:
    case HLX_OP_BROADCAST_IN_DIM:
      break;
    default:
      return false;
  }
  for (int32_t i = 0; i < d->num_operands; i++)
    if (!from_params(c, d->operands[i], w)) return false;
  if (w->num_ok < 64) w->ok[w->num_ok++] = v;
  return true;
}

const float* hlx_conv_fold_constant(hlx_lower_ctx_t* c,
                                    const hlx_epilogue_step_t* st) {
  hlx_value_slots_t s;
  hlx_status_t e = hlx_lower_slots_of(c, st->operand, &s);
  if (e) {
    hlx_status_free(e);
    return NULL;
  }
  return s.n == 1 ? c->plan->slot_data[s.slots[0]] : NULL;
}

int32_t hlx_conv_fold_count(hlx_lower_ctx_t* c, const hlx_epilogue_t* ep,
                            bool params) {
  const char* e = getenv("HLX_NO_CONV_FOLD");
  if (e && *e && *e != '0') return 0;
  int32_t n = 0;
  for (; n < ep->num_steps; n++) {
    const hlx_epilogue_step_t* st = &ep->steps[n];
    if ((st->op.shape != HLX_ONEDNN_OPERAND_SCALAR &&
         st->op.shape != HLX_ONEDNN_OPERAND_PER_FEATURE) ||
        st->op.kind > HLX_ONEDNN_POST_MUL)
      break;
    param_walk_t w = {.num_ok = 0, .budget = 256};
    if (!hlx_conv_fold_constant(c, st) &&
        !(params && from_params(c, st->operand, &w)))
      break;
  }
  return n;
}

void hlx_conv_fold_compose(const hlx_onednn_post_op_t* ops,
                           const float* const* vals, int32_t n, int64_t o,
                           float* scale, float* shift) {
  for (int64_t k = 0; k < o; k++) scale[k] = 1, shift[k] = 0;
  for (int32_t j = 0; j < n; j++) {
    bool scalar = ops[j].shape == HLX_ONEDNN_OPERAND_SCALAR;
    for (int64_t k = 0; k < o; k++) {
      float x = vals[j][scalar ? 0 : k];
      if (ops[j].kind == HLX_ONEDNN_POST_ADD) shift[k] += x;
      if (ops[j].kind == HLX_ONEDNN_POST_SUB) shift[k] -= x;
      if (ops[j].kind == HLX_ONEDNN_POST_MUL) scale[k] *= x, shift[k] *= x;
    }
  }
}

void hlx_conv_fold_weights(const float* w, size_t n, int64_t stride_o,
                           int64_t o, const float* scale, float* dst) {
  for (size_t i = 0; i < n; i++)
    dst[i] = w[i] * scale[(int64_t)i / stride_o % o];
}
