/* Post-op epilogues (see epilogue.h): the chain matcher, used by the
 * fusion analysis to form the groups and again at emission to list the
 * post-ops, and the emission of a group through the library op's
 * lowering. Only f32 chains are matched; everything computed is what the
 * graph computes, in the same order, in f32 (oneDNN applies the post-ops
 * to the f32 result in registers), so results differ from the unfused plan
 * by float rounding at most. */
#include "graph/lower/opt/epilogue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/passes/fusion.h"
#include "kernels/libs/libxsmm.h"

bool hlx_lower_epilogue_enabled(const hlx_lower_ctx_t* c) {
  const char* e = getenv("HLX_NO_EPILOGUE");
  if (e && *e && *e != '0') return false;
  return hlx_lower_fusion_enabled(c);
}

static const hlx_type_t* f32_tensor(const hlx_value_t* v) {
  const hlx_type_t* t = hlx_static_tensor(v);
  return t && !t->quant && t->dtype == HLX_DTYPE_F32 ? t : NULL;
}

static bool same_dims(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

static int64_t product(const hlx_type_t* t, const int64_t* dims, int32_t n) {
  int64_t p = 1;
  for (int32_t i = 0; i < n; i++)
    if (dims[i] >= 0 && dims[i] < t->rank) p *= t->dims[dims[i]];
  return p;
}

/* The result's last dim for an f32 dot_general that goes to oneDNN (not
 * libxsmm-sized), or -1. */
static int64_t dot_feature_dim(const hlx_op_t* op) {
  const hlx_attr_t* dn = hlx_op_attr(op, "dot_dimension_numbers");
  int64_t lb[HLX_MAX_RANK], lc[HLX_MAX_RANK];
  int32_t nlb, nlc;
  if (!dn || dn->kind != HLX_ATTR_STRUCT ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_batching_dimensions"), lb,
                         HLX_MAX_RANK, &nlb) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "lhs_contracting_dimensions"),
                         lc, HLX_MAX_RANK, &nlc))
    return -1;
  const hlx_type_t* l = op->operands[0]->type;
  const hlx_type_t* r = op->operands[1]->type;
  const hlx_type_t* o = op->results[0]->type;
  int64_t b = product(l, lb, nlb), k = product(l, lc, nlc);
  if (o->rank < 1 || b < 1 || k < 1) return -1;
  int64_t m = hlx_type_num_elements(l) / (b * k);
  int64_t n = hlx_type_num_elements(r) / (b * k);
  if (hlx_xsmm_is_small(m, n, k)) return -1;
  return o->rank - 1;
}

/* The output feature dimension of a library op the epilogue can follow
 * (f32 convolution or dot_general oneDNN may take), or -1. */
static int64_t head_feature_dim(const hlx_op_t* op) {
  if ((op->code != HLX_OP_CONVOLUTION && op->code != HLX_OP_DOT_GENERAL) ||
      op->num_operands != 2 || op->num_results != 1 ||
      !f32_tensor(op->operands[0]) || !f32_tensor(op->operands[1]) ||
      !f32_tensor(op->results[0]))
    return -1;
  if (op->code == HLX_OP_DOT_GENERAL) return dot_feature_dim(op);
  /* What keeps a convolution off oneDNN (graph/lower/conv.c) keeps the
   * epilogue off too, so its ops stay in elementwise fusion. */
  if (getenv("HLX_CONV_REFERENCE")) return -1;
  int64_t bgc = 1;
  const hlx_attr_t* a = hlx_op_attr(op, "batch_group_count");
  if (a && a->kind == HLX_ATTR_INT) bgc = a->i;
  int64_t ld[HLX_MAX_RANK];
  int32_t n = 0;
  if (bgc != 1 ||
      !hlx_attr_int_list(hlx_op_attr(op, "lhs_dilation"), ld, HLX_MAX_RANK,
                         &n))
    return -1;
  for (int32_t i = 0; i < n; i++)
    if (ld[i] != 1) return -1;
  const hlx_attr_t* dn = hlx_op_attr(op, "dimension_numbers");
  const hlx_attr_t* of =
      dn && dn->kind == HLX_ATTR_STRUCT
          ? hlx_attr_dict_get(dn, "output_feature_dimension")
          : NULL;
  if (!of || of->kind != HLX_ATTR_INT || of->i < 0 ||
      of->i >= op->results[0]->type->rank)
    return -1;
  return of->i;
}

/* The ops a chain step absorbs besides its own (broadcasts). */
typedef struct absorbed_t {
  int32_t n;
  const hlx_op_t* ops[8];
} absorbed_t;

/* Whether v is f32 +0.0 everywhere: a constant, or broadcasts of one. */
static bool is_zero(const hlx_value_t* v, const int32_t* uses,
                    absorbed_t* ab) {
  const hlx_op_t* d = v->def;
  while (d && d->code == HLX_OP_BROADCAST_IN_DIM && d->num_operands == 1) {
    if (ab && (!uses || uses[d->results[0]->id] == 1) && ab->n < 8)
      ab->ops[ab->n++] = d;
    else
      ab = NULL; /* shared: the rest of the chain stays too */
    d = d->operands[0]->def;
  }
  if (!d || d->code != HLX_OP_CONSTANT || !f32_tensor(d->results[0]))
    return false;
  const hlx_attr_t* val = hlx_op_attr(d, "value");
  if (!val || val->kind != HLX_ATTR_DENSE || !val->dense ||
      val->dense_bytes == 0)
    return false;
  const unsigned char* p = val->dense;
  for (size_t i = 0; i < val->dense_bytes; i++)
    if (p[i]) return false;
  return true;
}

/* The value a broadcast operand reads and its shape kind: the source of
 * a broadcast_in_dim chain whose only non-unit dims land on `feature` of
 * the result (PER_FEATURE, c values) or that has one element (SCALAR); a
 * non-broadcast f32 tensor of the result's shape (FULL). NONE otherwise. */
static int32_t operand_shape(const hlx_value_t* v, const hlx_type_t* out,
                             int64_t feature, const int32_t* uses,
                             absorbed_t* ab, const hlx_value_t** src) {
  *src = v;
  const hlx_op_t* d = v->def;
  if (!d || d->code != HLX_OP_BROADCAST_IN_DIM) {
    const hlx_type_t* t = f32_tensor(v);
    return t && same_dims(t, out) ? HLX_ONEDNN_OPERAND_FULL
                                  : HLX_ONEDNN_OPERAND_NONE;
  }
  /* map[k]: the result dim dim k of the current source lands on. */
  int64_t map[HLX_MAX_RANK];
  const hlx_value_t* cur = v;
  int32_t rank = out->rank;
  for (int32_t k = 0; k < rank; k++) map[k] = k;
  while (cur->def && cur->def->code == HLX_OP_BROADCAST_IN_DIM &&
         cur->def->num_operands == 1) {
    const hlx_op_t* b = cur->def;
    const hlx_type_t* in = f32_tensor(b->operands[0]);
    int64_t bd[HLX_MAX_RANK];
    int32_t nb = 0;
    if (!in || !hlx_attr_int_list(hlx_op_attr(b, "broadcast_dimensions"), bd,
                                  HLX_MAX_RANK, &nb) ||
        nb != in->rank)
      return HLX_ONEDNN_OPERAND_NONE;
    int64_t next[HLX_MAX_RANK];
    for (int32_t k = 0; k < nb; k++) {
      if (bd[k] < 0 || bd[k] >= rank) return HLX_ONEDNN_OPERAND_NONE;
      next[k] = map[bd[k]];
    }
    if (ab && (!uses || uses[b->results[0]->id] == 1) && ab->n < 8)
      ab->ops[ab->n++] = b;
    else
      ab = NULL;
    memcpy(map, next, sizeof(int64_t) * (size_t)nb);
    rank = nb;
    cur = b->operands[0];
  }
  const hlx_type_t* t = f32_tensor(cur);
  if (!t) return HLX_ONEDNN_OPERAND_NONE;
  int64_t n = hlx_type_num_elements(t);
  *src = cur;
  if (n == 1) return HLX_ONEDNN_OPERAND_SCALAR;
  for (int32_t k = 0; k < t->rank; k++)
    if (t->dims[k] != 1 && map[k] != feature) return HLX_ONEDNN_OPERAND_NONE;
  return n == out->dims[feature] ? HLX_ONEDNN_OPERAND_PER_FEATURE
                                 : HLX_ONEDNN_OPERAND_NONE;
}

/* The one-block body of the one-argument function `call` calls, or NULL. */
static const hlx_block_t* unary_callee(const hlx_lower_ctx_t* c,
                                       const hlx_op_t* call) {
  const hlx_attr_t* callee = hlx_op_attr(call, "callee");
  if (!callee || callee->kind != HLX_ATTR_SYMBOL || call->num_operands != 1 ||
      call->num_results != 1)
    return NULL;
  const hlx_module_t* m = c->lm->module;
  const hlx_func_t* f = NULL;
  for (int32_t i = 0; i < m->num_funcs; i++)
    if (strcmp(m->funcs[i]->name, callee->str) == 0) f = m->funcs[i];
  if (!f || f->num_args != 1 || !f->body || f->body->num_blocks != 1)
    return NULL;
  return f->body->blocks[0];
}

/* Whether func @name of the module is `return max(arg, broadcast(0))`. */
static bool is_relu_func(const hlx_lower_ctx_t* c, const hlx_op_t* call) {
  const hlx_block_t* b = unary_callee(c, call);
  const hlx_op_t* ret = b && b->num_ops ? b->ops[b->num_ops - 1] : NULL;
  if (!ret || ret->num_operands != 1) return false;
  const hlx_op_t* mx = ret->operands[0]->def;
  if (!mx || mx->code != HLX_OP_MAXIMUM || mx->num_operands != 2) return false;
  const hlx_value_t* arg = b->args[0];
  for (int32_t i = 0; i < 2; i++)
    if (mx->operands[i] == arg && mx->operands[1 - i] != arg &&
        is_zero(mx->operands[1 - i], NULL, NULL))
      return true;
  return false;
}

/* Whether v is f32 1.0 everywhere: a constant, or broadcasts of one. */
static bool is_one(const hlx_value_t* v) {
  const hlx_op_t* d = v->def;
  while (d && d->code == HLX_OP_BROADCAST_IN_DIM && d->num_operands == 1)
    d = d->operands[0]->def;
  if (!d || d->code != HLX_OP_CONSTANT || !f32_tensor(d->results[0]))
    return false;
  const hlx_attr_t* val = hlx_op_attr(d, "value");
  if (!val || val->kind != HLX_ATTR_DENSE || !val->dense ||
      val->dense_bytes == 0 || val->dense_bytes % sizeof(float))
    return false;
  for (size_t i = 0; i < val->dense_bytes; i += sizeof(float)) {
    float f;
    memcpy(&f, (const unsigned char*)val->dense + i, sizeof f);
    if (f != 1.0f) return false;
  }
  return true;
}

/* Whether x is logistic(arg): stablehlo.logistic, or 1 / (1 + exp(-arg))
 * as jax.nn.silu exports it. */
static bool is_logistic_of(const hlx_value_t* x, const hlx_value_t* arg) {
  const hlx_op_t* d = x->def;
  if (!d) return false;
  if (d->code == HLX_OP_LOGISTIC)
    return d->num_operands == 1 && d->operands[0] == arg;
  if (d->code != HLX_OP_DIVIDE || d->num_operands != 2 ||
      !is_one(d->operands[0]))
    return false;
  const hlx_op_t* add = d->operands[1]->def;
  if (!add || add->code != HLX_OP_ADD || add->num_operands != 2) return false;
  for (int32_t i = 0; i < 2; i++) {
    const hlx_op_t* e = add->operands[i]->def;
    if (!is_one(add->operands[1 - i]) || !e ||
        e->code != HLX_OP_EXPONENTIAL || e->num_operands != 1)
      continue;
    const hlx_op_t* neg = e->operands[0]->def;
    if (neg && neg->code == HLX_OP_NEGATE && neg->num_operands == 1 &&
        neg->operands[0] == arg)
      return true;
  }
  return false;
}

/* Whether func @name of the module is `return arg * logistic(arg)`
 * (silu), computed in f32. */
static bool is_silu_func(const hlx_lower_ctx_t* c, const hlx_op_t* call) {
  const hlx_block_t* b = unary_callee(c, call);
  const hlx_op_t* ret = b && b->num_ops ? b->ops[b->num_ops - 1] : NULL;
  if (!ret || ret->num_operands != 1) return false;
  const hlx_op_t* mul = ret->operands[0]->def;
  if (!mul || mul->code != HLX_OP_MULTIPLY || mul->num_operands != 2)
    return false;
  const hlx_value_t* arg = b->args[0];
  for (int32_t i = 0; i < 2; i++)
    if (mul->operands[i] == arg && is_logistic_of(mul->operands[1 - i], arg))
      return true;
  return false;
}

/* The step `op` applies to the chain value v (its only use), or false. */
static bool classify(const hlx_lower_ctx_t* c, const hlx_op_t* op,
                     const hlx_value_t* v, int64_t feature,
                     const int32_t* uses, hlx_epilogue_step_t* st,
                     absorbed_t* ab) {
  const hlx_type_t* out = f32_tensor(v);
  memset(st, 0, sizeof *st);
  ab->n = 0;
  if (op->num_results != 1 || !out || !f32_tensor(op->results[0]) ||
      !same_dims(op->results[0]->type, out))
    return false;
  switch (op->code) {
    case HLX_OP_FUNC_CALL:
      if (is_silu_func(c, op)) {
        /* HLX_NO_SWISH_POST_OP=1 (A/B): silu stays an elementwise pass. */
        const char* e = getenv("HLX_NO_SWISH_POST_OP");
        st->op.kind = HLX_ONEDNN_POST_SWISH;
        return !(e && *e && *e != '0');
      }
      st->op.kind = HLX_ONEDNN_POST_RELU;
      return is_relu_func(c, op);
    case HLX_OP_LOGISTIC:
    case HLX_OP_TANH:
      st->op.kind = op->code == HLX_OP_TANH ? HLX_ONEDNN_POST_TANH
                                            : HLX_ONEDNN_POST_LOGISTIC;
      return op->num_operands == 1;
    case HLX_OP_MAXIMUM:
    case HLX_OP_ADD:
    case HLX_OP_SUBTRACT:
    case HLX_OP_MULTIPLY:
      break;
    default:
      return false;
  }
  if (op->num_operands != 2 || op->operands[0] == op->operands[1]) return false;
  int32_t i = op->operands[0] == v ? 1 : 0;
  const hlx_value_t* other = op->operands[i];
  if (op->code == HLX_OP_MAXIMUM) {
    st->op.kind = HLX_ONEDNN_POST_RELU;
    return is_zero(other, uses, ab);
  }
  if (op->code == HLX_OP_SUBTRACT && i != 1) return false; /* other - v */
  st->op.kind = op->code == HLX_OP_ADD        ? HLX_ONEDNN_POST_ADD
                : op->code == HLX_OP_SUBTRACT ? HLX_ONEDNN_POST_SUB
                                              : HLX_ONEDNN_POST_MUL;
  st->op.shape = operand_shape(other, out, feature, uses, ab, &st->operand);
  /* A whole tensor is added through dst (kernels/libs/onednn.h), which
   * needs oneDNN to write dst as it is: it does with channels innermost
   * (NHWC), and picks a blocked layout otherwise. A whole-tensor multiply
   * (a binary post-op) costs oneDNN 2.6's matmul more than a separate
   * pass (RESULTS.md: chess MLP gate), so it stays out too. */
  if (st->op.shape == HLX_ONEDNN_OPERAND_FULL &&
      (op->code == HLX_OP_MULTIPLY || feature != out->rank - 1))
    return false;
  return st->op.shape != HLX_ONEDNN_OPERAND_NONE;
}

/* The first op of b after index `from` reading v as an operand, or -1. */
static int32_t user_of(const hlx_block_t* b, int32_t from,
                       const hlx_value_t* v) {
  for (int32_t o = from + 1; o < b->num_ops; o++)
    for (int32_t i = 0; i < b->ops[o]->num_operands; i++)
      if (b->ops[o]->operands[i] == v) return o;
  return -1;
}

static int32_t index_of(const hlx_block_t* b, const hlx_op_t* op) {
  for (int32_t o = 0; o < b->num_ops; o++)
    if (b->ops[o] == op) return o;
  return -1;
}

/* The chain after b->ops[head] into ep (and its member op indices, head
 * first, when members != NULL), ending at op index `root` if >= 0 or
 * before an op with taken[index] >= 0 (taken may be NULL).
 * uses == NULL trusts that every chain value has one use (emission of a
 * group the analysis formed). */
static int32_t walk(const hlx_lower_ctx_t* c, const hlx_block_t* b,
                    int32_t head, int32_t root, const int32_t* uses,
                    const int32_t* taken, hlx_epilogue_t* ep,
                    int32_t* members, int32_t max) {
  const hlx_op_t* h = b->ops[head];
  memset(ep, 0, sizeof *ep);
  int64_t feature = head_feature_dim(h);
  if (feature < 0) return 0;
  int32_t nm = 0;
  if (members) members[nm++] = head;
  const hlx_value_t* v = h->results[0];
  int32_t at = head, full = 0;
  int k = snprintf(ep->name, sizeof ep->name, "%s+epilogue(", h->name);
  while (ep->num_steps < HLX_ONEDNN_MAX_POST_OPS && at != root) {
    if (uses && uses[v->id] != 1) break;
    int32_t u = user_of(b, at, v);
    if (u < 0 || (taken && taken[u] >= 0)) break;
    hlx_epilogue_step_t st;
    absorbed_t ab;
    if (!classify(c, b->ops[u], v, feature, uses, &st, &ab) ||
        (st.op.shape == HLX_ONEDNN_OPERAND_FULL && full++))
      break;
    if (members && nm + 1 + ab.n > max) break;
    ep->steps[ep->num_steps++] = st;
    if (members) {
      for (int32_t a = 0; a < ab.n; a++) {
        int32_t idx = index_of(b, ab.ops[a]);
        if (idx >= 0 && !(taken && taken[idx] >= 0)) members[nm++] = idx;
      }
      members[nm++] = u;
    }
    static const char* const kNames[] = {"add",      "subtract", "multiply",
                                         "relu",     "logistic", "tanh",
                                         "swish"};
    if (k > 0 && (size_t)k < sizeof ep->name)
      k += snprintf(ep->name + k, sizeof ep->name - (size_t)k, "%s%s",
                    ep->num_steps > 1 ? "," : "", kNames[st.op.kind]);
    ep->last = b->ops[u];
    v = ep->last->results[0];
    at = u;
  }
  if (k > 0 && (size_t)k < sizeof ep->name)
    snprintf(ep->name + k, sizeof ep->name - (size_t)k, ")");
  return ep->num_steps ? (members ? nm : 1) : 0;
}

int32_t hlx_lower_epilogue_match(const void* ctx, const hlx_block_t* b,
                                 int32_t head, const int32_t* uses,
                                 const int32_t* taken, int32_t* members,
                                 int32_t max) {
  const hlx_lower_ctx_t* c = ctx;
  if (!hlx_lower_epilogue_enabled(c)) return 0;
  hlx_epilogue_t ep;
  return walk(c, b, head, -1, uses, taken, &ep, members, max);
}

bool hlx_lower_epilogue_of(const hlx_lower_ctx_t* c, const hlx_block_t* b,
                           const struct hlx_fusion_t* f, int32_t g,
                           hlx_epilogue_t* ep) {
  return f->head[g] >= 0 &&
         walk(c, b, f->head[g], f->root[g], NULL, NULL, ep, NULL, 0) &&
         ep->last == b->ops[f->root[g]];
}

/* A residual add's operand (the FULL step, a oneDNN sum post-op) is read
 * only as dst's initial contents: the fused task (the plan's last) lets
 * buffer assignment put its result over that operand's slot when it dies
 * there, so the library sums in place instead of copying it into dst
 * first. Off with HLX_NO_SUM_IN_PLACE=1 (A/B checks). */
static hlx_status_t sum_in_place(hlx_lower_ctx_t* c, const hlx_epilogue_t* ep) {
  const char* e = getenv("HLX_NO_SUM_IN_PLACE");
  if ((e && *e && *e != '0') || c->plan->num_tasks == 0) return NULL;
  const hlx_value_t* full = NULL;
  for (int32_t i = 0; i < ep->num_steps; i++)
    if (ep->steps[i].op.shape == HLX_ONEDNN_OPERAND_FULL)
      full = ep->steps[i].operand;
  if (!full) return NULL;
  hlx_value_slots_t rs, os;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, full, &rs));
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, ep->last->results[0], &os));
  const hlx_task_t* t = &c->plan->tasks[c->plan->num_tasks - 1];
  if (rs.n != 1 || os.n != 1 || t->num_out != 1 || t->out[0] != os.slots[0])
    return NULL;
  for (int32_t k = 0; k < t->num_in && k <= 0xff; k++)
    if (t->in[k] == rs.slots[0]) {
      hlx_plan_last_task_set_flags(c->plan, HLX_TASK_OUT0_OVER_IN(k));
      break;
    }
  return NULL;
}

hlx_status_t hlx_lower_epilogue_group(hlx_lower_ctx_t* c,
                                      const hlx_block_t* blk,
                                      const struct hlx_fusion_t* f, int32_t g,
                                      bool* done) {
  *done = false;
  hlx_epilogue_t ep;
  int32_t head = f->head[g];
  if (!hlx_lower_epilogue_of(c, blk, f, g, &ep))
    return hlx_lower_act_decline(c, blk, f, g);
  const hlx_op_t* h = blk->ops[head];
  char where[64] = "";
  if (ep.last->line > 0)
    snprintf(where, sizeof where, " at %d:%d", ep.last->line, ep.last->col);
  size_t n = strlen(ep.name);
  snprintf(ep.name + n, sizeof ep.name - n, "%s", where);
  if (h->code == HLX_OP_CONVOLUTION) {
    HLX_RETURN_IF_ERROR(hlx_lower_conv_epilogue(c, h, &ep, done));
    /* the members run one by one: none may see a blocked operand */
    if (!*done) return hlx_lower_act_decline(c, blk, f, g);
  } else {
    HLX_RETURN_IF_ERROR(hlx_lower_dot_epilogue(c, h, &ep, done));
    if (!*done) return NULL;
  }
  return sum_in_place(c, &ep);
}
