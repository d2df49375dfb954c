/* IR ops -> HLO instructions: the table-driven form (`%n = shape
 * opcode(operands), attrs`), results regrouped into one tuple-shaped
 * instruction, and the ops with their own spelling: constant, func.call
 * (call / fusion), custom_call, if / case (conditional), while, rng,
 * outfeed, all_to_all. */
#include <stdlib.h>
#include <string.h>

#include "graph/hlo/hlo_print_internal.h"

static bool is_group_op(const hlx_op_t* op) {
  const hlo_op_t* s = hlo_op_by_ir(op->code);
  return op->code == HLX_OP_CUSTOM_CALL || op->code == HLX_OP_INFEED ||
         (s && s->tuple_results);
}

static bool single_use(hc_t* hc, const hlx_value_t* v, const hlx_op_t* by) {
  return hp_uses(hc->hp, hc->func, v) == 1 && hc->user[v->id] == by;
}

static int32_t count_leaves(const hlx_type_t* t) {
  if (t->kind != HLX_TYPE_TUPLE) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++) n += count_leaves(t->elems[i]);
  return n;
}

/* Whether the tuple op t's leaves (through single-use tuple operands) are
 * exactly res[*k...]; marks the tuple ops to skip when mark. */
static bool leaves_are(hc_t* hc, const hlx_op_t* t, hlx_value_t* const* res,
                       int32_t n, int32_t* k, bool mark) {
  for (int32_t i = 0; i < t->num_operands; i++) {
    const hlx_value_t* o = t->operands[i];
    if (o->def && o->def->code == HLX_OP_TUPLE && o->def->parent == t->parent &&
        single_use(hc, o, t) && (*k >= n || o != res[*k])) {
      if (!leaves_are(hc, o->def, res, n, k, mark)) return false;
    } else if (*k < n && o == res[*k]) {
      (*k)++;
    } else {
      return false;
    }
  }
  if (mark) hc->skip[t->results[0]->id] = 1;
  return true;
}

/* The tuple tree regrouping op's results, when they go only there. */
static void find_group(hc_t* hc, const hlx_op_t* op) {
  if (!is_group_op(op) || op->num_results == 0) return;
  for (int32_t i = 0; i < op->num_results; i++)
    if (hp_uses(hc->hp, hc->func, op->results[i]) != 1) return;
  const hlx_op_t* t = hc->user[op->results[0]->id];
  if (!t || t->code != HLX_OP_TUPLE) return;
  while (count_leaves(t->results[0]->type) < op->num_results) {
    const hlx_op_t* up = hc->user[t->results[0]->id];
    if (!up || up->code != HLX_OP_TUPLE || !single_use(hc, t->results[0], up))
      return;
    t = up;
  }
  int32_t k = 0;
  if (!leaves_are(hc, t, op->results, op->num_results, &k, false) ||
      k != op->num_results)
    return;
  k = 0;
  leaves_are(hc, t, op->results, op->num_results, &k, true);
  hc->top[op->results[0]->id] = t->results[0];
}

/* rng's shape operand, when it is a constant equal to the result shape. */
static void find_rng_shape(hc_t* hc, const hlx_op_t* op) {
  if (op->code != HLX_OP_RNG || op->num_operands != 3) return;
  const hlx_value_t* s = op->operands[2];
  const hlx_op_t* c = s->def;
  const hlx_attr_t* v = c ? hlx_op_attr(c, "value") : NULL;
  const hlx_type_t* rt = op->results[0]->type;
  if (!c || c->code != HLX_OP_CONSTANT || !single_use(hc, s, op) || !v ||
      v->kind != HLX_ATTR_DENSE || s->type->dtype != HLX_DTYPE_S64 ||
      s->type->rank != 1 || rt->kind != HLX_TYPE_TENSOR ||
      s->type->dims[0] != rt->rank ||
      (rt->rank &&
       memcmp(v->dense, rt->dims, sizeof(int64_t) * (size_t)rt->rank)))
    return;
  hc->skip[s->id] = 1;
}

/* outfeed(gte(t, 0), ..., gte(t, n-1), token) prints as outfeed(t, token). */
static void find_outfeed_tuple(hc_t* hc, const hlx_op_t* op) {
  if (op->code != HLX_OP_OUTFEED || op->num_operands < 2) return;
  int32_t n = op->num_operands - 1;
  const hlx_value_t* t = NULL;
  for (int32_t i = 0; i < n; i++) {
    const hlx_op_t* g = op->operands[i]->def;
    const hlx_attr_t* ix = g ? hlx_op_attr(g, "index") : NULL;
    if (!g || g->code != HLX_OP_GET_TUPLE_ELEMENT || !ix || ix->i != i ||
        !single_use(hc, op->operands[i], op) || (t && g->operands[0] != t))
      return;
    t = g->operands[0];
  }
  if (t->type->num_elems != n) return;
  for (int32_t i = 0; i < n; i++) hc->skip[op->operands[i]->id] = 1;
}

void hp_mark_absorbed(hc_t* hc, const hlx_block_t* blk) {
  for (int32_t i = 0; i < blk->num_ops; i++)
    for (int32_t k = 0; k < blk->ops[i]->num_operands; k++) {
      const hlx_value_t* v = blk->ops[i]->operands[k];
      if (v && v->id >= 0 && v->id < hc->nvals && !hc->user[v->id])
        hc->user[v->id] = blk->ops[i];
    }
  for (int32_t i = 0; i < blk->num_ops; i++) {
    find_group(hc, blk->ops[i]);
    find_rng_shape(hc, blk->ops[i]);
    find_outfeed_tuple(hc, blk->ops[i]);
  }
}

/* ---- instruction lines ------------------------------------------------------
 */
/* Starts `%n = T opcode(` for op's value(s). *group: results are printed
 * as one tuple that needs get-tuple-element lines after it. */
static const char* begin(hc_t* hc, const hlx_op_t* op, const char* opcode,
                         bool* group) {
  *group = false;
  const hlx_value_t* v = op->num_results ? op->results[0] : NULL;
  const hlx_value_t* top = v ? hc->top[v->id] : NULL;
  const hlx_value_t* named = top ? top : (op->num_results == 1 ? v : NULL);
  const char* base = named && named->name ? named->name
                     : v && v->name       ? v->name
                                          : opcode;
  const char* name = hc_new_name(hc, base);
  if (!name) return NULL;
  hc_begin_line(hc, named, name);
  if (named) {
    if (!hp_type(hc->hp, &hc->body, named->type)) return NULL;
  } else {
    *group = true;
    pb_puts(&hc->body, "(");
    for (int32_t i = 0; i < op->num_results; i++) {
      if (i) pb_puts(&hc->body, ", ");
      if (!hp_type(hc->hp, &hc->body, op->results[i]->type)) return NULL;
    }
    pb_puts(&hc->body, ")");
  }
  pb_printf(&hc->body, " %s(", opcode);
  return name;
}

static bool operands(hc_t* hc, hlx_value_t* const* ops, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    const char* r = hc_ref(hc, ops[i]);
    if (!r) return false;
    pb_printf(&hc->body, "%s%%%s", i ? ", " : "", r);
  }
  pb_puts(&hc->body, ")");
  return true;
}

/* Ends the line; get-tuple-element lines for grouped results. */
static bool end(hc_t* hc, const hlx_op_t* op, const char* name, bool group) {
  pb_puts(&hc->body, "\n");
  if (op->code == HLX_OP_INFEED && group)
    return hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: infeed results used apart from their tuple");
  for (int32_t i = 0; group && i < op->num_results; i++) {
    const hlx_value_t* r = op->results[i];
    const char* g = hc_new_name(hc, r->name ? r->name : "get-tuple-element");
    if (!g) return false;
    hc_begin_line(hc, r, g);
    if (!hp_type(hc->hp, &hc->body, r->type)) return false;
    pb_printf(&hc->body, " get-tuple-element(%%%s), index=%d\n", name, i);
  }
  return !hc->hp->err;
}

/* A tuple instruction of vals (for an operand HLO takes as one tuple). */
static const char* tuple_of(hc_t* hc, hlx_value_t* const* vals, int32_t n) {
  const char* name = hc_new_name(hc, "tuple");
  if (!name) return NULL;
  hc_begin_line(hc, NULL, name);
  pb_puts(&hc->body, "(");
  for (int32_t i = 0; i < n; i++) {
    if (i) pb_puts(&hc->body, ", ");
    if (!hp_type(hc->hp, &hc->body, vals[i]->type)) return NULL;
  }
  pb_puts(&hc->body, ") tuple(");
  if (!operands(hc, vals, n)) return NULL;
  pb_puts(&hc->body, "\n");
  return name;
}

static bool generic(hc_t* hc, const hlx_op_t* op, const hlo_op_t* spec,
                    int32_t nops) {
  bool group;
  const char* name = begin(hc, op, spec->hlo, &group);
  return name && operands(hc, op->operands, nops) && hp_attrs(hc, op, spec) &&
         end(hc, op, name, group);
}

/* ---- ops with their own spelling -------------------------------------------
 */
static bool print_constant(hc_t* hc, const hlx_op_t* op) {
  const hlx_attr_t* v = hlx_op_attr(op, "value");
  if (!v || op->num_results != 1)
    return hp_fail(hc->hp, HLX_STATUS_INVALID_ARGUMENT,
                   "stablehlo.constant without a value");
  bool group;
  const char* name = begin(hc, op, "constant", &group);
  return name && hp_literal(hc->hp, &hc->body, v) &&
         (pb_puts(&hc->body, ")"), true) && end(hc, op, name, group);
}

static const hlx_func_t* callee(hc_t* hc, const hlx_attr_t* sym) {
  const hlx_func_t* f = sym && sym->kind == HLX_ATTR_SYMBOL
                            ? hlx_module_find_func(hc->hp->m, sym->str)
                            : NULL;
  if (!f) {
    hp_fail(hc->hp, HLX_STATUS_INVALID_ARGUMENT,
            "call of an unknown function @%s",
            sym && sym->str ? sym->str : "?");
    return NULL;
  }
  return hp_func(hc->hp, f) ? f : NULL;
}

static bool print_call(hc_t* hc, const hlx_op_t* op) {
  const hlx_func_t* f = callee(hc, hlx_op_attr(op, "callee"));
  if (!f) return false;
  const hlx_attr_t* kind = hlx_op_attr(op, "hlo.fusion_kind");
  bool fusion = kind && kind->kind == HLX_ATTR_STRING;
  bool group;
  const char* name = begin(hc, op, fusion ? "fusion" : "call", &group);
  if (!name || !operands(hc, op->operands, op->num_operands)) return false;
  if (fusion)
    pb_printf(&hc->body, ", kind=%s, calls=%%%s", kind->str, f->name);
  else
    pb_printf(&hc->body, ", to_apply=%%%s", f->name);
  return end(hc, op, name, group);
}

static bool print_custom_call(hc_t* hc, const hlx_op_t* op) {
  const hlx_attr_t* cc = hlx_op_attr(op, "called_computations");
  const hlx_func_t* fs[64];
  int32_t nf = cc && cc->kind == HLX_ATTR_ARRAY ? cc->count : 0;
  if (nf > 64)
    return hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: more than 64 called computations");
  for (int32_t i = 0; i < nf; i++)
    if (!(fs[i] = callee(hc, cc->items[i]))) return false;
  bool group;
  const char* name = begin(hc, op, "custom-call", &group);
  if (!name || !operands(hc, op->operands, op->num_operands) ||
      !hp_attrs(hc, op, hlo_op_by_name("custom-call", 11)))
    return false;
  const hlx_attr_t* av = hlx_op_attr(op, "api_version");
  static const char* const kVersions[] = {
      "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
      "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
      "API_VERSION_TYPED_FFI"};
  if (av && av->kind == HLX_ATTR_INT && av->i >= 1 && av->i <= 4)
    pb_printf(&hc->body, ", api_version=%s", kVersions[av->i]);
  if (nf) {
    pb_puts(&hc->body, ", called_computations={");
    for (int32_t i = 0; i < nf; i++)
      pb_printf(&hc->body, "%s%%%s", i ? ", " : "", fs[i]->name);
    pb_puts(&hc->body, "}");
  }
  return end(hc, op, name, group);
}

/* stablehlo.if / case: branch k's captured values are its operand. */
static bool print_conditional(hc_t* hc, const hlx_op_t* op) {
  int32_t nb = op->num_regions;
  if (nb < 1 || nb > 64 || op->num_operands != 1)
    return hp_fail(hc->hp, HLX_STATUS_INVALID_ARGUMENT,
                   "%s needs a selector and branches", op->name);
  const char* comps[64];
  const char* args[64];
  bool ok = true;
  for (int32_t k = 0; ok && k < nb; k++) {
    const hlx_value_t** caps = NULL;
    int32_t nc = 0;
    ok = hp_captures(hc->hp, op->regions[k], &caps, &nc);
    hp_region_t s = {op->regions[k],        HP_CAPTURES,         caps, nc,
                     op->operands[0]->type, op->num_results != 1};
    ok = ok && hp_region(hc->hp, hc->func, &s, &comps[k]);
    args[k] = !ok       ? NULL
              : nc == 0 ? hc_ref(hc, op->operands[0])
              : nc == 1 ? hc_ref(hc, caps[0])
                        : tuple_of(hc, (hlx_value_t* const*)caps, nc);
    ok = ok && args[k];
    free((void*)caps);
  }
  if (!ok) return false;
  bool group;
  const char* name = begin(hc, op, "conditional", &group);
  const char* sel = name ? hc_ref(hc, op->operands[0]) : NULL;
  if (!sel) return false;
  pb_printf(&hc->body, "%%%s", sel);
  for (int32_t k = 0; k < nb; k++) pb_printf(&hc->body, ", %%%s", args[k]);
  pb_puts(&hc->body, ")");
  if (op->code == HLX_OP_IF && nb == 2) {
    pb_printf(&hc->body, ", true_computation=%%%s, false_computation=%%%s",
              comps[0], comps[1]);
  } else {
    pb_puts(&hc->body, ", branch_computations={");
    for (int32_t k = 0; k < nb; k++)
      pb_printf(&hc->body, "%s%%%s", k ? ", " : "", comps[k]);
    pb_puts(&hc->body, "}");
  }
  return end(hc, op, name, group);
}

static bool no_captures(hc_t* hc, const hlx_op_t* op) {
  for (int32_t k = 0; k < op->num_regions; k++) {
    const hlx_value_t** caps = NULL;
    int32_t nc = 0;
    bool ok = hp_captures(hc->hp, op->regions[k], &caps, &nc);
    free((void*)caps);
    if (!ok) return false;
    if (nc)
      return hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
                     "unsupported: a region of %s at %d:%d reads values from "
                     "outside it (an HLO computation sees only its parameters)",
                     op->name, op->line, op->col);
  }
  return true;
}

/* while: one operand as it is; several in one tuple. */
static bool print_while(hc_t* hc, const hlx_op_t* op) {
  if (op->num_regions != 2 || !no_captures(hc, op))
    return hc->hp->err ? false
                       : hp_fail(hc->hp, HLX_STATUS_INVALID_ARGUMENT,
                                 "while needs cond and body");
  bool one = op->num_operands == 1;
  const char* comps[2];
  for (int32_t k = 0; k < 2; k++) {
    hp_region_t s = {
        op->regions[k], one ? HP_ARGS : HP_TUPLE_ARGS, NULL, 0, NULL, k == 1};
    if (!hp_region(hc->hp, hc->func, &s, &comps[k])) return false;
  }
  const char* arg = one ? hc_ref(hc, op->operands[0])
                        : tuple_of(hc, op->operands, op->num_operands);
  if (!arg) return false;
  bool group;
  const char* name = begin(hc, op, "while", &group);
  if (!name) return false;
  pb_printf(&hc->body, "%%%s), condition=%%%s, body=%%%s", arg, comps[0],
            comps[1]);
  return end(hc, op, name, group);
}

static bool print_outfeed(hc_t* hc, const hlx_op_t* op) {
  int32_t n = op->num_operands - 1;
  if (n < 1)
    return hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: outfeed of no values");
  const hlx_value_t* d0 = op->operands[0];
  const char* data = hc->skip[d0->id] ? hc_ref(hc, d0->def->operands[0])
                     : n == 1         ? hc_ref(hc, d0)
                                      : tuple_of(hc, op->operands, n);
  const char* tok = data ? hc_ref(hc, op->operands[n]) : NULL;
  bool group;
  const char* name = tok ? begin(hc, op, "outfeed", &group) : NULL;
  if (!name) return false;
  pb_printf(&hc->body, "%%%s, %%%s)", data, tok);
  return hp_attrs(hc, op, hlo_op_by_name("outfeed", 7)) &&
         end(hc, op, name, group);
}

static bool print_all_to_all(hc_t* hc, const hlx_op_t* op) {
  const hlx_attr_t* sd = hlx_op_attr(op, "split_dimension");
  const hlx_attr_t* cd = hlx_op_attr(op, "concat_dimension");
  if (!sd || !cd || sd->i != cd->i || op->num_operands != 1)
    return hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: all_to_all with split and concat dimensions "
                   "that differ has no HLO spelling");
  bool group;
  const char* name = begin(hc, op, "all-to-all", &group);
  if (!name || !operands(hc, op->operands, 1)) return false;
  pb_printf(&hc->body, ", dimensions={%lld}", (long long)sd->i);
  return hp_attrs(hc, op, hlo_op_by_name("all-to-all", 10)) &&
         end(hc, op, name, group);
}

bool hp_op(hc_t* hc, const hlx_op_t* op) {
  switch (op->code) {
    case HLX_OP_CONSTANT:
      return print_constant(hc, op);
    case HLX_OP_FUNC_CALL:
      return print_call(hc, op);
    case HLX_OP_CUSTOM_CALL:
      return print_custom_call(hc, op);
    case HLX_OP_IF:
    case HLX_OP_CASE:
      return print_conditional(hc, op);
    case HLX_OP_WHILE:
      return print_while(hc, op);
    case HLX_OP_OUTFEED:
      return print_outfeed(hc, op);
    case HLX_OP_ALL_TO_ALL:
      return print_all_to_all(hc, op);
    case HLX_OP_INFEED:
      return generic(hc, op, hlo_op_by_name("infeed", 6), op->num_operands);
    case HLX_OP_RNG:
      return generic(hc, op, hlo_op_by_name("rng", 3),
                     op->num_operands == 3 && hc->skip[op->operands[2]->id]
                         ? 2
                         : op->num_operands);
    default:
      break;
  }
  const hlo_op_t* spec = hlo_op_by_ir(op->code);
  if (!spec || spec->kind != HK_SIMPLE)
    return hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: %s at %d:%d has no HLO equivalent",
                   op->name ? op->name : "?", op->line, op->col);
  if (op->num_regions && !no_captures(hc, op)) return false;
  return generic(hc, op, spec, op->num_operands);
}
