/* Blocked activations across consecutive convolutions (issues 6/8).
 *
 * oneDNN's direct convolutions prefer activations in a blocked layout
 * (nChw16c with AVX-512). A convolution result whose users include oneDNN
 * convolutions (as their input, or as the residual operand of a sum
 * post-op) is written in that layout, and those users read it without a
 * reorder. The decision has two halves:
 *   - planning (per block, after fusion grouping): which values a
 *     convolution unit (the convolution, or its epilogue group's last op)
 *     should write blocked: channels a multiple of the block, and some
 *     convolution user that can read it;
 *   - emission: graph/lower/conv.c writes a planned value blocked when its
 *     task goes to oneDNN, and reads a blocked input as such when the
 *     layouts line up. Everything else that reads a blocked slot gets a
 *     logical copy first (one reorder task, made once per slot): other
 *     ops, program results, values captured by regions, convolutions that
 *     stay off oneDNN. So a blocked buffer is never seen as a logical one.
 * State is kept per slot, not per value, so values aliasing a slot (CSE,
 * inlined calls) see it too. HLX_NO_CONV_BLOCKED=1 turns it off. */
#include <stdlib.h>
#include <string.h>

#include "graph/passes/fusion.h"
#include "graph/lower/opt/epilogue.h"
#include "kernels/data_movement.h"
#include "kernels/libs/onednn.h"

typedef struct slot_state_t {
  const hlx_op_t* conv; /* the convolution whose layout it has; NULL: plain */
  int32_t copy;         /* its logical copy, or -1 */
} slot_state_t;

struct hlx_act_layout_t {
  int32_t block;         /* channels per block */
  int32_t num_slots;     /* capacity of `slots` */
  slot_state_t* slots;   /* by slot id (of the plan) */
  unsigned char* planned; /* by value id of the block being lowered */
};

/* The logical dims of a convolution's input or output: tensor dims in
 * [batch, feature, spatial...] order, and the feature counts. */
typedef struct conv_dims_t {
  int32_t ns;
  int64_t in_order[HLX_MAX_RANK], out_order[HLX_MAX_RANK];
  int64_t in_features, out_features;
} conv_dims_t;

static bool int_field(const hlx_attr_t* dn, const char* name, int64_t* v) {
  const hlx_attr_t* a = hlx_attr_dict_get(dn, name);
  if (!a || a->kind != HLX_ATTR_INT) return false;
  *v = a->i;
  return true;
}

static bool all_equal(const hlx_op_t* op, const char* name, int64_t want) {
  int64_t v[HLX_MAX_RANK];
  int32_t n = 0;
  if (!hlx_attr_int_list(hlx_op_attr(op, name), v, HLX_MAX_RANK, &n))
    return false;
  for (int32_t i = 0; i < n; i++)
    if (v[i] != want) return false;
  return true;
}

static bool plain_f32(const hlx_value_t* v) {
  const hlx_type_t* t = hlx_static_tensor(v);
  return t && !t->quant && t->dtype == HLX_DTYPE_F32;
}

/* Whether op is a convolution oneDNN's forward kernels take with blocked
 * activations (f32, one group, no lhs dilation or reversal, 1-3 spatial
 * dims), and its dims. */
static bool conv_dims(const hlx_op_t* op, conv_dims_t* cd) {
  if (op->code != HLX_OP_CONVOLUTION || op->num_operands != 2 ||
      op->num_results != 1 || !plain_f32(op->operands[0]) ||
      !plain_f32(op->operands[1]) || !plain_f32(op->results[0]))
    return false;
  const hlx_type_t* l = op->operands[0]->type;
  const hlx_type_t* o = op->results[0]->type;
  int32_t ns = l->rank - 2;
  if (ns < 1 || ns > HLX_ONEDNN_CONV_MAX_SPATIAL || o->rank != l->rank)
    return false;
  int64_t g = 1, bg = 1;
  const hlx_attr_t* a = hlx_op_attr(op, "feature_group_count");
  if (a && a->kind == HLX_ATTR_INT) g = a->i;
  a = hlx_op_attr(op, "batch_group_count");
  if (a && a->kind == HLX_ATTR_INT) bg = a->i;
  if (g != 1 || bg != 1 || !all_equal(op, "lhs_dilation", 1) ||
      !all_equal(op, "window_reversal", 0))
    return false;
  const hlx_attr_t* dn = hlx_op_attr(op, "dimension_numbers");
  int64_t isp[HLX_MAX_RANK], osp[HLX_MAX_RANK];
  int32_t nis = 0, nos = 0;
  if (!dn || dn->kind != HLX_ATTR_STRUCT ||
      !int_field(dn, "input_batch_dimension", &cd->in_order[0]) ||
      !int_field(dn, "input_feature_dimension", &cd->in_order[1]) ||
      !int_field(dn, "output_batch_dimension", &cd->out_order[0]) ||
      !int_field(dn, "output_feature_dimension", &cd->out_order[1]) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "input_spatial_dimensions"),
                         isp, HLX_MAX_RANK, &nis) ||
      !hlx_attr_int_list(hlx_attr_dict_get(dn, "output_spatial_dimensions"),
                         osp, HLX_MAX_RANK, &nos) ||
      nis != ns || nos != ns)
    return false;
  for (int32_t i = 0; i < ns; i++)
    cd->in_order[2 + i] = isp[i], cd->out_order[2 + i] = osp[i];
  for (int32_t i = 0; i < ns + 2; i++)
    if (cd->in_order[i] < 0 || cd->in_order[i] >= l->rank ||
        cd->out_order[i] < 0 || cd->out_order[i] >= l->rank)
      return false;
  cd->ns = ns;
  cd->in_features = l->dims[cd->in_order[1]];
  cd->out_features = o->dims[cd->out_order[1]];
  return true;
}

/* ---- planning ---- */

bool hlx_lower_act_enabled(void) {
  const char* e = getenv("HLX_NO_CONV_BLOCKED");
  if (e && *e && *e != '0') return false;
  if (getenv("HLX_CONV_REFERENCE")) return false;
  return hlx_onednn_act_block() > 0;
}

/* Per op index of b: the value the convolution unit headed there writes
 * (NULL: not a unit) and its sum post-op operand (or NULL). */
static void find_units(const hlx_lower_ctx_t* c, const hlx_block_t* b,
                       const hlx_fusion_t* fu, const hlx_value_t** out,
                       const hlx_value_t** full) {
  for (int32_t i = 0; i < b->num_ops; i++) {
    out[i] = full[i] = NULL;
    const hlx_op_t* op = b->ops[i];
    if (op->code != HLX_OP_CONVOLUTION || op->num_results != 1) continue;
    int32_t g = fu ? fu->group_of[i] : -1;
    if (g < 0) {
      out[i] = op->results[0];
      continue;
    }
    hlx_epilogue_t ep;
    if (fu->head[g] != i || fu->reduce[g] >= 0 ||
        !hlx_lower_epilogue_of(c, b, fu, g, &ep))
      continue;
    out[i] = ep.last->results[0];
    for (int32_t s = 0; s < ep.num_steps; s++)
      if (ep.steps[s].op.shape == HLX_ONEDNN_OPERAND_FULL)
        full[i] = ep.steps[s].operand;
  }
}

static bool same_order(const int64_t* a, const int64_t* b, int32_t n) {
  return memcmp(a, b, sizeof(int64_t) * (size_t)n) == 0;
}

hlx_status_t hlx_lower_act_begin(hlx_lower_ctx_t* c, const hlx_block_t* b,
                                 const hlx_fusion_t* fu,
                                 hlx_act_scope_t* scope) {
  scope->act = c->act;
  scope->planned = c->act ? c->act->planned : NULL;
  scope->own_planned = false;
  if (!hlx_lower_act_enabled()) {
    if (c->act) c->act->planned = NULL;
    return NULL;
  }
  if (!c->act) {
    c->act = calloc(1, sizeof(*c->act));
    if (!c->act) return hlx_status_oom();
    c->act->block = hlx_onednn_act_block();
  }
  hlx_act_layout_t* a = c->act;
  a->planned = NULL;
  int32_t n = b->num_ops;
  const hlx_value_t** out = calloc((size_t)n + 1, sizeof(*out));
  const hlx_value_t** full = calloc((size_t)n + 1, sizeof(*full));
  conv_dims_t* cd = calloc((size_t)n + 1, sizeof(*cd));
  bool* ok = calloc((size_t)n + 1, sizeof(*ok));
  unsigned char* planned = calloc((size_t)c->func->num_values + 1, 1);
  if (!out || !full || !cd || !ok || !planned) {
    free(out), free(full), free(cd), free(ok), free(planned);
    return hlx_status_oom();
  }
  find_units(c, b, fu, out, full);
  for (int32_t i = 0; i < n; i++) ok[i] = out[i] && conv_dims(b->ops[i], &cd[i]);
  /* A unit's value is planned blocked when its channels fit the block and
   * a convolution unit reads it as input (same dim order) or as its sum
   * operand (the reader's output laid out alike). */
  for (int32_t i = 0; i < n; i++) {
    if (!ok[i] || cd[i].out_features % a->block) continue;
    const hlx_value_t* v = out[i];
    bool use = false;
    for (int32_t j = i + 1; j < n && !use; j++) {
      if (!ok[j]) continue;
      int32_t ord = cd[i].ns + 2;
      use = (b->ops[j]->operands[0] == v && cd[j].ns == cd[i].ns &&
             same_order(cd[j].in_order, cd[i].out_order, ord)) ||
            (full[j] == v && cd[j].ns == cd[i].ns &&
             cd[j].out_features % a->block == 0 &&
             same_order(cd[j].out_order, cd[i].out_order, ord));
    }
    planned[v->id] = use;
  }
  free(out), free(full), free(cd), free(ok);
  a->planned = planned;
  scope->own_planned = true;
  return NULL;
}

void hlx_lower_act_end(hlx_lower_ctx_t* c, const hlx_act_scope_t* scope) {
  if (c->act && scope->own_planned) free(c->act->planned);
  if (c->act && !scope->act) { /* created for this context */
    free(c->act->slots);
    free(c->act);
    c->act = NULL;
    return;
  }
  if (c->act) c->act->planned = scope->planned;
}

bool hlx_lower_act_planned(const hlx_lower_ctx_t* c, const hlx_value_t* v) {
  return c->act && c->act->planned && v->id >= 0 &&
         v->id < c->func->num_values && c->act->planned[v->id];
}

/* ---- slot state ---- */

static slot_state_t* state_of(const hlx_lower_ctx_t* c, const hlx_value_t* v,
                              int32_t* slot) {
  if (!c->act || v->id < 0 || v->id >= c->func->num_values) return NULL;
  hlx_value_slots_t s = c->vmap[v->id];
  if (s.n != 1 || s.slots[0] < 0 || s.slots[0] >= c->act->num_slots)
    return NULL;
  if (slot) *slot = s.slots[0];
  slot_state_t* st = &c->act->slots[s.slots[0]];
  return st->conv ? st : NULL;
}

const hlx_op_t* hlx_lower_act_blocked(const hlx_lower_ctx_t* c,
                                      const hlx_value_t* v) {
  slot_state_t* st = state_of(c, v, NULL);
  return st ? st->conv : NULL;
}

bool hlx_lower_act_matches(const hlx_op_t* producer, const hlx_op_t* reader,
                           bool as_input) {
  conv_dims_t p, r;
  if (!conv_dims(producer, &p) || !conv_dims(reader, &r) || p.ns != r.ns)
    return false;
  return same_order(as_input ? r.in_order : r.out_order, p.out_order,
                    p.ns + 2);
}

hlx_status_t hlx_lower_act_set_blocked(hlx_lower_ctx_t* c,
                                       const hlx_value_t* v,
                                       const hlx_op_t* conv) {
  hlx_value_slots_t s;
  HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, v, &s));
  if (!c->act || s.n != 1) return NULL;
  int32_t slot = s.slots[0];
  hlx_act_layout_t* a = c->act;
  if (slot >= a->num_slots) {
    int32_t cap = slot + 64 > 2 * a->num_slots ? slot + 64 : 2 * a->num_slots;
    slot_state_t* ns = realloc(a->slots, sizeof(*ns) * (size_t)cap);
    if (!ns) return hlx_status_oom();
    memset(ns + a->num_slots, 0,
           sizeof(*ns) * (size_t)(cap - a->num_slots));
    a->slots = ns;
    a->num_slots = cap;
  }
  a->slots[slot].conv = conv;
  a->slots[slot].copy = -1;
  return NULL;
}

static hlx_status_t run_unblock(const void* args, void* const* in,
                                void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  return hlx_onednn_act_reorder_run(args, in[0], out[0]);
}

static void release_act(void* r) { hlx_onednn_act_reorder_release(r); }

hlx_status_t hlx_lower_act_unblock(hlx_lower_ctx_t* c, const hlx_value_t* v) {
  int32_t slot;
  slot_state_t* st = state_of(c, v, &slot);
  if (!st) return NULL;
  if (st->copy < 0) {
    conv_dims_t cd;
    const hlx_type_t* t = hlx_static_tensor(v);
    if (!t || !conv_dims(st->conv, &cd))
      return hlx_make_status(HLX_STATUS_INTERNAL,
                             "blocked activation without its convolution");
    hlx_onednn_act_desc_t d;
    memset(&d, 0, sizeof d);
    d.num_spatial = cd.ns;
    d.threads = c->lm->options.library_threads;
    d.batch = t->dims[cd.out_order[0]];
    d.features = t->dims[cd.out_order[1]];
    int64_t rs[HLX_MAX_RANK];
    hlx_row_major_strides(t->rank, t->dims, rs);
    for (int32_t i = 0; i < cd.ns; i++)
      d.spatial[i] = t->dims[cd.out_order[2 + i]];
    for (int32_t i = 0; i < cd.ns + 2; i++) d.strides[i] = rs[cd.out_order[i]];
    hlx_onednn_act_reorder_t* r;
    HLX_RETURN_IF_ERROR(hlx_onednn_act_reorder_create(&d, &r));
    /* the plan holds its reference until it is destroyed */
    if (!hlx_plan_on_destroy(c->plan, release_act, r)) {
      hlx_onednn_act_reorder_release(r);
      return hlx_status_oom();
    }
    int32_t copy = hlx_plan_add_slot(c->plan, hlx_tensor_bytes(t));
    if (copy < 0) return hlx_status_oom();
    if (!hlx_plan_add_task(c->plan, "convolution layout: blocked -> logical",
                           run_unblock, r, 1, &slot, 1, &copy))
      return hlx_status_oom();
    if (d.threads != 1) hlx_plan_last_task_set_flags(c->plan, HLX_TASK_WIDE);
    st = &c->act->slots[slot]; /* (no realloc above, but stay safe) */
    st->copy = copy;
  }
  int32_t* arr = hlx_lower_alloc(c, sizeof(int32_t));
  if (!arr) return hlx_status_oom();
  arr[0] = st->copy;
  hlx_value_slots_t s = {1, arr};
  return hlx_lower_alias(c, v, &s);
}

/* Unblocks every value read inside region r (captures included). */
static hlx_status_t unblock_region(hlx_lower_ctx_t* c, const hlx_region_t* r) {
  for (int32_t bi = 0; bi < r->num_blocks; bi++) {
    const hlx_block_t* blk = r->blocks[bi];
    for (int32_t o = 0; o < blk->num_ops; o++) {
      const hlx_op_t* op = blk->ops[o];
      for (int32_t i = 0; i < op->num_operands; i++)
        HLX_RETURN_IF_ERROR(hlx_lower_act_unblock(c, op->operands[i]));
      for (int32_t i = 0; i < op->num_regions; i++)
        HLX_RETURN_IF_ERROR(unblock_region(c, op->regions[i]));
    }
  }
  return NULL;
}

/* Operands of op (and of its regions) but `keep`. */
static hlx_status_t unblock_op(hlx_lower_ctx_t* c, const hlx_op_t* op,
                               const hlx_value_t* keep0,
                               const hlx_value_t* keep1) {
  for (int32_t i = 0; i < op->num_operands; i++) {
    const hlx_value_t* v = op->operands[i];
    if ((v == keep0 && i == 0) || v == keep1) continue;
    HLX_RETURN_IF_ERROR(hlx_lower_act_unblock(c, v));
  }
  for (int32_t i = 0; i < op->num_regions; i++)
    HLX_RETURN_IF_ERROR(unblock_region(c, op->regions[i]));
  return NULL;
}

hlx_status_t hlx_lower_act_operands(hlx_lower_ctx_t* c, const hlx_block_t* b,
                                    const hlx_fusion_t* fu, int32_t i) {
  if (!c->act) return NULL;
  const hlx_op_t* op = b->ops[i];
  int32_t g = fu && i < fu->num_ops ? fu->group_of[i] : -1;
  if (g < 0) {
    /* A convolution reads its input itself (graph/lower/conv.c). */
    bool conv = op->code == HLX_OP_CONVOLUTION && op->num_operands == 2;
    return unblock_op(c, op, conv ? op->operands[0] : NULL, NULL);
  }
  if (fu->root[g] != i) return NULL;
  const hlx_op_t* head = fu->head[g] >= 0 ? b->ops[fu->head[g]] : NULL;
  bool conv = head && head->code == HLX_OP_CONVOLUTION;
  /* An epilogue group's convolution reads its input and sum operand
   * itself; if the group falls back, hlx_lower_act_decline unblocks. */
  hlx_epilogue_t ep;
  const hlx_value_t* full = NULL;
  if (conv && hlx_lower_epilogue_of(c, b, fu, g, &ep))
    for (int32_t s = 0; s < ep.num_steps; s++)
      if (ep.steps[s].op.shape == HLX_ONEDNN_OPERAND_FULL)
        full = ep.steps[s].operand;
  for (int32_t m = fu->start[g]; m < fu->start[g + 1]; m++) {
    const hlx_op_t* mo = b->ops[fu->member[m]];
    HLX_RETURN_IF_ERROR(unblock_op(c, mo, conv && mo == head ? mo->operands[0]
                                                             : NULL,
                                   conv ? full : NULL));
  }
  return NULL;
}

hlx_status_t hlx_lower_act_decline(hlx_lower_ctx_t* c, const hlx_block_t* b,
                                   const hlx_fusion_t* fu, int32_t g) {
  if (!c->act) return NULL;
  const hlx_op_t* head = fu->head[g] >= 0 ? b->ops[fu->head[g]] : NULL;
  for (int32_t m = fu->start[g]; m < fu->start[g + 1]; m++) {
    const hlx_op_t* mo = b->ops[fu->member[m]];
    bool conv = mo == head && mo->code == HLX_OP_CONVOLUTION;
    HLX_RETURN_IF_ERROR(
        unblock_op(c, mo, conv ? mo->operands[0] : NULL, NULL));
  }
  return NULL;
}

hlx_status_t hlx_lower_act_terminator(hlx_lower_ctx_t* c, const hlx_op_t* term) {
  if (!c->act) return NULL;
  return unblock_op(c, term, NULL, NULL);
}
