/* Importers of instructions: the table-driven one (an IR op with the same
 * operands and attributes by spec; tuple-shaped results of multi-result
 * ops regrouped with stablehlo.tuple), and those with their own rules:
 * parameter, constant, copy (an alias), bitcast (by layouts), call and
 * fusion (func.call), custom-call, conditional (stablehlo.if / case whose
 * branches read the branch operand from outside), rng (the shape operand),
 * infeed / outfeed, all-to-all. */
#include <stdlib.h>
#include <string.h>

#include "graph/hlo/hlo_internal.h"

#define MAX_OPERANDS 4096

static hlx_value_t** operand_values(hlo_imp_t* im, hlo_scope_t* sc,
                                    const hlo_instr_t* in, int32_t extra) {
  hlx_value_t** v = hlx_arena_alloc_array(
      im->b.a, (size_t)in->num_operands + (size_t)extra + 1, sizeof(*v));
  if (!v) {
    hlo_error_oom(im->b.e);
    return NULL;
  }
  for (int32_t k = 0; k < in->num_operands; k++) {
    v[k] = sc->vals[in->operands[k]];
    if (!v[k]) {
      hlo_tok_t t = in->operand_tok[k];
      hlo_error_at(im->b.e, t.line, t.col, "operand '%.*s' has no value",
                   (int)t.n, t.p);
      return NULL;
    }
  }
  return v;
}

static bool need_operands(hlo_imp_t* im, const hlo_instr_t* in, int32_t lo,
                          int32_t hi) {
  if (in->num_operands >= lo && in->num_operands <= hi) return true;
  return hlo_error_at(im->b.e, in->opcode.line, in->opcode.col,
                      "%.*s takes %d%s operands, got %d", (int)in->opcode.n,
                      in->opcode.p, lo, hi > lo ? " or more" : "",
                      in->num_operands);
}

static hlx_op_t* emit(hlo_imp_t* im, hlo_scope_t* sc, const hlo_instr_t* in,
                      hlx_opcode_t code, hlx_value_t* const* ops, int32_t n,
                      hlx_type_t* const* types, int32_t nres) {
  return hb_op(&im->b, sc->blk, code, ops, n, types, nres, in->name.line,
               in->name.col);
}

/* The op's results regrouped into the HLO value of type t (or its one
 * result). */
static hlx_value_t* result_value(hlo_imp_t* im, hlo_scope_t* sc,
                                 const hlo_instr_t* in, hlx_op_t* op,
                                 hlx_type_t* t, bool regroup) {
  if (!regroup) return op->results[0];
  int32_t next = 0;
  return hlo_regroup(im, sc, op->results, &next, t, in->name.line,
                     in->name.col);
}

/* Leaf types of t when the op returns them as separate results. */
static hlx_type_t** leaf_types(hlo_imp_t* im, hlx_type_t* t, int32_t* n) {
  *n = hlo_leaves(t, NULL, 0);
  hlx_type_t** out =
      hlx_arena_alloc_array(im->b.a, (size_t)*n + 1, sizeof(*out));
  if (!out)
    hlo_error_oom(im->b.e);
  else
    hlo_leaves(t, out, *n);
  return out;
}

/* dynamic-slice / dynamic-update-slice with one index vector operand: the
 * vector is sliced into the scalar start indices StableHLO takes. */
static bool split_index_vector(hlo_imp_t* im, hlo_scope_t* sc,
                               const hlo_instr_t* in, int32_t first,
                               hlx_value_t*** ops, int32_t* n) {
  hlx_value_t* vec = (*ops)[first];
  const hlx_type_t* vt = vec->type;
  int32_t rank = (*ops)[0]->type->rank;
  if (*n != first + 1 || vt->kind != HLX_TYPE_TENSOR || vt->rank != 1 ||
      rank == 0 || vt->dims[0] != rank)
    return true;
  hlx_value_t** out =
      hlx_arena_alloc_array(im->b.a, (size_t)(first + rank + 1), sizeof(*out));
  hlx_type_t* one = hb_tensor(&im->b, vt->dtype, 1, (int64_t[]){1});
  hlx_type_t* scalar = hb_tensor(&im->b, vt->dtype, 0, NULL);
  if (!out || !one || !scalar) return false;
  memcpy(out, *ops, sizeof(*out) * (size_t)first);
  for (int32_t d = 0; d < rank; d++) {
    int64_t lo = d, hi = d + 1, st = 1;
    hlx_op_t* s = emit(im, sc, in, HLX_OP_SLICE, &vec, 1, &one, 1);
    if (!s ||
        !hb_attr(&im->b, s, "start_indices", hb_i64_array(&im->b, &lo, 1)) ||
        !hb_attr(&im->b, s, "limit_indices", hb_i64_array(&im->b, &hi, 1)) ||
        !hb_attr(&im->b, s, "strides", hb_i64_array(&im->b, &st, 1)))
      return false;
    hlx_op_t* r = emit(im, sc, in, HLX_OP_RESHAPE, s->results, 1, &scalar, 1);
    if (!r) return false;
    out[first + d] = r->results[0];
  }
  *ops = out;
  *n = first + rank;
  return true;
}

hlx_value_t* hlo_simple_value(hlo_imp_t* im, hlo_scope_t* sc,
                              const hlo_instr_t* in, const hlo_op_t* op,
                              const hlo_shape_t* shape) {
  hlx_type_t* t = hb_type_from_shape(&im->b, shape);
  hlx_value_t** ops = operand_values(im, sc, in, 0);
  if (!t || !ops) return NULL;
  int32_t n = in->num_operands;
  if ((op->ir == HLX_OP_DYNAMIC_SLICE && n == 2) ||
      (op->ir == HLX_OP_DYNAMIC_UPDATE_SLICE && n == 3)) {
    if (!split_index_vector(im, sc, in, n - 1, &ops, &n)) return NULL;
  }
  const hlo_attr_t* largest = hlo_instr_attr(in, "largest");
  bool big = true;
  if (op->ir == HLX_OP_CHLO_TOP_K && largest &&
      (!hlo_read_bool(&largest->value, im->b.e, &big) || !big)) {
    if (!big)
      hlo_error_unsupported(im->b.e, largest->name,
                            "top-k with largest=false (chlo.top_k takes the "
                            "largest)");
    return NULL;
  }
  bool regroup = op->tuple_results && t->kind == HLX_TYPE_TUPLE;
  int32_t nres = 1;
  hlx_type_t** types = regroup ? leaf_types(im, t, &nres) : &t;
  hlx_op_t* ir = types ? emit(im, sc, in, op->ir, ops, n, types, nres) : NULL;
  if (!ir || !hlo_import_attrs(im, sc, in, op, ir)) return NULL;
  if (op->ir == HLX_OP_MAP && !hlx_op_attr(ir, "dimensions")) {
    int64_t dims[HLX_MAX_RANK];
    int32_t r = t->kind == HLX_TYPE_TENSOR ? t->rank : 0;
    for (int32_t d = 0; d < r; d++) dims[d] = d;
    if (!hb_attr(&im->b, ir, "dimensions", hb_i64_array(&im->b, dims, r)))
      return NULL;
  }
  return result_value(im, sc, in, ir, t, regroup);
}

bool hlo_import_simple(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                       const hlo_op_t* op) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  sc->vals[i] = hlo_simple_value(im, sc, in, op, in->shape);
  return sc->vals[i] != NULL;
}

/* ---- bitcast ---------------------------------------------------------------
 * A bitcast reinterprets the bytes: with layouts L_x and L_y, the bytes of
 * x in its major-to-minor dimension order, reshaped to y's dims in y's
 * major-to-minor order. Identity layouts make it a reshape. */
static void major_to_minor(const hlo_shape_t* s, int64_t* mm) {
  for (int32_t d = 0; d < s->rank; d++)
    mm[d] = s->layout ? s->layout[s->rank - 1 - d] : d;
}

static bool is_identity(const int64_t* p, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (p[i] != i) return false;
  return true;
}

static hlx_value_t* transpose(hlo_imp_t* im, hlo_scope_t* sc,
                              const hlo_instr_t* in, hlx_value_t* v,
                              const int64_t* perm) {
  int32_t r = v->type->rank;
  int64_t dims[HLX_MAX_RANK];
  for (int32_t d = 0; d < r; d++) dims[d] = v->type->dims[perm[d]];
  hlx_type_t* t = hb_tensor(&im->b, v->type->dtype, r, dims);
  hlx_op_t* op = t ? emit(im, sc, in, HLX_OP_TRANSPOSE, &v, 1, &t, 1) : NULL;
  if (!op || !hb_attr(&im->b, op, "permutation", hb_i64_array(&im->b, perm, r)))
    return NULL;
  return op->results[0];
}

static bool import_bitcast(hlo_imp_t* im, hlo_scope_t* sc, int32_t i) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  if (!need_operands(im, in, 1, 1)) return false;
  const hlo_shape_t* xs = sc->c->instrs[in->operands[0]].shape;
  const hlo_shape_t* ys = in->shape;
  hlx_value_t* v = sc->vals[in->operands[0]];
  hlx_type_t* yt = hb_type_from_shape(&im->b, ys);
  if (!yt) return false;
  if (xs->kind != HLX_TYPE_TENSOR || ys->kind != HLX_TYPE_TENSOR ||
      xs->dtype != ys->dtype || !hlx_type_is_static(yt) ||
      !hlx_type_is_static(v->type) ||
      hlx_type_num_elements(yt) != hlx_type_num_elements(v->type))
    return hlo_error_unsupported(im->b.e, in->opcode, "bitcast between %s",
                                 xs->dtype != ys->dtype
                                     ? "different element types"
                                     : "shapes of different sizes or kinds");
  int64_t mx[HLX_MAX_RANK], my[HLX_MAX_RANK], inv[HLX_MAX_RANK],
      phys[HLX_MAX_RANK];
  major_to_minor(xs, mx);
  major_to_minor(ys, my);
  if (!is_identity(mx, xs->rank) && !(v = transpose(im, sc, in, v, mx)))
    return false;
  for (int32_t d = 0; d < ys->rank; d++) phys[d] = ys->dims[my[d]];
  hlx_type_t* pt = hb_tensor(&im->b, ys->dtype, ys->rank, phys);
  if (!pt) return false;
  if (!hlx_type_equal(pt, v->type)) {
    hlx_op_t* r = emit(im, sc, in, HLX_OP_RESHAPE, &v, 1, &pt, 1);
    if (!r) return false;
    v = r->results[0];
  }
  for (int32_t d = 0; d < ys->rank; d++) inv[my[d]] = d;
  if (!is_identity(my, ys->rank) && !(v = transpose(im, sc, in, v, inv)))
    return false;
  sc->vals[i] = v;
  return true;
}

/* ---- calls -----------------------------------------------------------------
 */
static bool import_call(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                        const char* comp_attr) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  const hlo_attr_t* ca = hlo_instr_attr(in, comp_attr);
  const hlo_attr_t* kind = hlo_instr_attr(in, "kind");
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_value_t** ops = operand_values(im, sc, in, 0);
  if (!t || !ops) return false;
  if (!ca)
    return hlo_error_at(im->b.e, in->name.line, in->name.col,
                        "%.*s needs attribute %s=", (int)in->opcode.n,
                        in->opcode.p, comp_attr);
  int32_t comp = hlo_called_comp(im, sc, &ca->value);
  hlx_func_t* f = comp >= 0 ? hlo_import_func(im, comp) : NULL;
  hlx_op_t* op =
      f ? emit(im, sc, in, HLX_OP_FUNC_CALL, ops, in->num_operands, &t, 1)
        : NULL;
  if (!op || !hb_attr(&im->b, op, "callee", hb_symbol(&im->b, f->name)))
    return false;
  if (kind) {
    hlo_tok_t w;
    if (!hlo_read_word(&kind->value, im->b.e, &w) ||
        !hb_attr(&im->b, op, "hlo.fusion_kind", hb_string(&im->b, w.p, w.n)))
      return false;
  }
  const hlo_op_t* spec = hlo_op_by_name(in->opcode.p, in->opcode.n);
  if (!hlo_import_attrs(im, sc, in, spec, op)) return false;
  sc->vals[i] = op->results[0];
  return true;
}

/* `{%a, %b}` -> computation indices. */
static int32_t* comp_list(hlo_imp_t* im, hlo_scope_t* sc, const hlo_span_t* s,
                          int32_t* n) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  int32_t* out = NULL;
  int32_t cap = 0;
  *n = 0;
  hlo_tok_t t = hlo_lx_next(&lx);
  if (!hlo_tok_punct(t, "{")) {
    hlo_error_tok(im->b.e, t, "'{' starting a list of computations");
    return NULL;
  }
  while (!hlo_tok_punct(hlo_lx_peek(&lx), "}")) {
    t = hlo_lx_next(&lx);
    hlo_span_t one = {t.p, t.p + t.n, t.line, t.col, t.p - (t.col - 1)};
    int32_t k = t.kind == HT_NAME ? hlo_called_comp(im, sc, &one) : -1;
    if (t.kind != HT_NAME) hlo_error_tok(im->b.e, t, "computation name");
    if (k < 0) return NULL;
    if (!hlo_push(im->b.a, (void**)&out, n, &cap, sizeof k, &k)) {
      hlo_error_oom(im->b.e);
      return NULL;
    }
    if (hlo_tok_punct(hlo_lx_peek(&lx), ",")) hlo_lx_next(&lx);
  }
  hlo_lx_next(&lx);
  t = hlo_lx_next(&lx);
  if (t.kind != HT_EOF) {
    hlo_error_tok(im->b.e, t, "end of the attribute value");
    return NULL;
  }
  return out ? out : hlx_arena_alloc(im->b.a, sizeof(int32_t));
}

static bool import_custom_call(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                               const hlo_op_t* spec) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_value_t** ops = operand_values(im, sc, in, 0);
  if (!t || !ops) return false;
  bool regroup = t->kind == HLX_TYPE_TUPLE;
  int32_t nres = 1;
  hlx_type_t** types = regroup ? leaf_types(im, t, &nres) : &t;
  hlx_op_t* op = types ? emit(im, sc, in, HLX_OP_CUSTOM_CALL, ops,
                              in->num_operands, types, nres)
                       : NULL;
  if (!op || !hlo_import_attrs(im, sc, in, spec, op)) return false;
  const hlo_attr_t* av = hlo_instr_attr(in, "api_version");
  if (av) {
    static const char* const kVersions[] = {
        "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
        "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
        "API_VERSION_TYPED_FFI"};
    hlo_tok_t w;
    if (!hlo_read_word(&av->value, im->b.e, &w)) return false;
    int32_t v = -1;
    for (int32_t k = 1; k < 5; k++)
      if (hlo_tok_is(w, kVersions[k])) v = k;
    if (v < 0)
      return hlo_error_at(im->b.e, w.line, w.col, "unknown api_version '%.*s'",
                          (int)w.n, w.p);
    if (!hb_attr(&im->b, op, "api_version", hb_int(&im->b, v, HLX_DTYPE_S32)))
      return false;
  }
  const hlo_attr_t* cc = hlo_instr_attr(in, "called_computations");
  const hlo_attr_t* ta = hlo_instr_attr(in, "to_apply");
  if (cc || ta) {
    int32_t n = 1, one;
    int32_t* comps = cc ? comp_list(im, sc, &cc->value, &n) : &one;
    if (!cc) one = hlo_called_comp(im, sc, &ta->value);
    if (!comps || comps[0] < 0) return false;
    hlx_attr_t* syms[64];
    if (n > 64)
      return hlo_error_unsupported(im->b.e, in->opcode,
                                   "more than 64 called computations");
    for (int32_t k = 0; k < n; k++) {
      hlx_func_t* f = hlo_import_func(im, comps[k]);
      if (!f || !(syms[k] = hb_symbol(&im->b, f->name))) return false;
    }
    if (!hb_attr(&im->b, op, "called_computations", hb_array(&im->b, syms, n)))
      return false;
  }
  sc->vals[i] = result_value(im, sc, in, op, t, regroup);
  return sc->vals[i] != NULL;
}

/* conditional(p, operand_0, ...): stablehlo.if for a pred selector (true
 * branch first), stablehlo.case for an s32 index; branch k's parameter is
 * operand_k, read from outside the region. */
static bool import_conditional(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                               const hlo_op_t* spec) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_value_t** ops = operand_values(im, sc, in, 0);
  if (!t || !ops || !need_operands(im, in, 2, MAX_OPERANDS)) return false;
  const hlo_attr_t* bc = hlo_instr_attr(in, "branch_computations");
  const hlo_attr_t* tc = hlo_instr_attr(in, "true_computation");
  const hlo_attr_t* fc = hlo_instr_attr(in, "false_computation");
  int32_t n = 2, tf[2];
  int32_t* comps = tf;
  if (bc && !tc && !fc) {
    if (!(comps = comp_list(im, sc, &bc->value, &n))) return false;
  } else if (tc && fc && !bc) {
    if ((tf[0] = hlo_called_comp(im, sc, &tc->value)) < 0 ||
        (tf[1] = hlo_called_comp(im, sc, &fc->value)) < 0)
      return false;
  } else {
    return hlo_error_at(im->b.e, in->name.line, in->name.col,
                        "conditional needs branch_computations= or "
                        "true_computation= and false_computation=");
  }
  bool is_if = tc != NULL;
  const hlx_type_t* sel = ops[0]->type;
  if (sel->kind != HLX_TYPE_TENSOR || sel->rank != 0 ||
      sel->dtype != (is_if ? HLX_DTYPE_PRED : HLX_DTYPE_S32))
    return hlo_error_at(im->b.e, in->name.line, in->name.col,
                        "the conditional's selector must be %s",
                        is_if ? "pred[]" : "s32[]");
  if (in->num_operands != n + 1)
    return hlo_error_at(im->b.e, in->name.line, in->name.col,
                        "conditional has %d branches but %d branch operands", n,
                        in->num_operands - 1);
  hlx_op_t* op =
      emit(im, sc, in, is_if ? HLX_OP_IF : HLX_OP_CASE, ops, 1, &t, 1);
  if (!op || !hlo_import_attrs(im, sc, in, spec, op)) return false;
  for (int32_t k = 0; k < n; k++) {
    const hlo_comp_t* c = &im->ast->comps[comps[k]];
    if (c->num_params != 1)
      return hlo_error_at(im->b.e, c->name.line, c->name.col,
                          "a branch computation takes one parameter, '%.*s' "
                          "takes %d",
                          (int)c->name.n, c->name.p, c->num_params);
    if (!hb_add_region(&im->b, op,
                       hlo_import_region(im, comps[k], false, &ops[k + 1])))
      return false;
  }
  sc->vals[i] = op->results[0];
  return true;
}

/* rng(a, b): StableHLO's rng takes the result shape as a third operand. */
static bool import_rng(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                       const hlo_op_t* spec) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_value_t** ops = operand_values(im, sc, in, 1);
  if (!t || !ops || !need_operands(im, in, 2, 3)) return false;
  if (in->num_operands == 2) {
    if (t->kind != HLX_TYPE_TENSOR)
      return hlo_error_at(im->b.e, in->name.line, in->name.col,
                          "rng returns an array");
    int64_t r = t->rank;
    hlx_type_t* st = hb_tensor(&im->b, HLX_DTYPE_S64, 1, &r);
    hlx_op_t* c =
        st ? emit(im, sc, in, HLX_OP_CONSTANT, NULL, 0, &st, 1) : NULL;
    hlx_attr_t* v = c ? hlx_arena_alloc(im->b.a, sizeof(*v)) : NULL;
    if (!v) return hlo_error_oom(im->b.e);
    v->kind = HLX_ATTR_DENSE;
    v->type = st;
    v->dense_bytes = sizeof(int64_t) * (size_t)r;
    v->dense = hlx_arena_alloc(im->b.a, v->dense_bytes);
    if (!v->dense || !hb_attr(&im->b, c, "value", v))
      return hlo_error_oom(im->b.e);
    if (r) memcpy(v->dense, t->dims, v->dense_bytes);
    ops[2] = c->results[0];
  }
  hlx_op_t* op = emit(im, sc, in, HLX_OP_RNG, ops, 3, &t, 1);
  if (!op || !hlo_import_attrs(im, sc, in, spec, op)) return false;
  sc->vals[i] = op->results[0];
  return true;
}

/* infeed(token) -> (data, token): stablehlo.infeed's results are data's
 * leaves and the token. */
static bool import_infeed(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                          const hlo_op_t* spec) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_value_t** ops = operand_values(im, sc, in, 0);
  if (!t || !ops || !need_operands(im, in, 1, 1)) return false;
  if (t->kind != HLX_TYPE_TUPLE || t->num_elems != 2 ||
      t->elems[1]->kind != HLX_TYPE_TOKEN)
    return hlo_error_at(im->b.e, in->name.line, in->name.col,
                        "infeed's shape must be (data, token[])");
  int32_t nres;
  hlx_type_t** types = leaf_types(im, t, &nres);
  hlx_op_t* op =
      types ? emit(im, sc, in, HLX_OP_INFEED, ops, 1, types, nres) : NULL;
  if (!op || !hlo_import_attrs(im, sc, in, spec, op)) return false;
  sc->vals[i] = result_value(im, sc, in, op, t, true);
  return sc->vals[i] != NULL;
}

/* Appends the leaves of v (tuples taken apart with get_tuple_element). */
static bool tuple_leaves(hlo_imp_t* im, hlo_scope_t* sc, const hlo_instr_t* in,
                         hlx_value_t* v, hlx_value_t** out, int32_t* n,
                         int32_t max) {
  if (v->type->kind != HLX_TYPE_TUPLE) {
    if (*n == max)
      return hlo_error_unsupported(im->b.e, in->opcode,
                                   "tuples of more than %d leaves", max);
    out[(*n)++] = v;
    return true;
  }
  for (int32_t k = 0; k < v->type->num_elems; k++) {
    hlx_type_t* et = v->type->elems[k];
    hlx_op_t* g = emit(im, sc, in, HLX_OP_GET_TUPLE_ELEMENT, &v, 1, &et, 1);
    if (!g || !hb_attr(&im->b, g, "index", hb_int(&im->b, k, HLX_DTYPE_S32)) ||
        !tuple_leaves(im, sc, in, g->results[0], out, n, max))
      return false;
  }
  return true;
}

static bool import_outfeed(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                           const hlo_op_t* spec) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_value_t** ops = operand_values(im, sc, in, 0);
  if (!t || !ops || !need_operands(im, in, 2, 2)) return false;
  int32_t max = hlo_leaves(ops[0]->type, NULL, 0);
  hlx_value_t** leaves =
      hlx_arena_alloc_array(im->b.a, (size_t)max + 2, sizeof(hlx_value_t*));
  int32_t n = 0;
  if (!leaves) return hlo_error_oom(im->b.e);
  if (!tuple_leaves(im, sc, in, ops[0], leaves, &n, max)) return false;
  leaves[n++] = ops[1];
  hlx_op_t* op = emit(im, sc, in, HLX_OP_OUTFEED, leaves, n, &t, 1);
  if (!op || !hlo_import_attrs(im, sc, in, spec, op)) return false;
  sc->vals[i] = op->results[0];
  return true;
}

/* all-to-all(x), dimensions={d}: split and concatenate along d in groups
 * of the replica group size. */
static bool import_all_to_all(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                              const hlo_op_t* spec) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_value_t** ops = operand_values(im, sc, in, 0);
  const hlo_attr_t* dims = hlo_instr_attr(in, "dimensions");
  if (!t || !ops || !need_operands(im, in, 1, 1)) return false;
  if (!dims)
    return hlo_error_unsupported(im->b.e, in->opcode,
                                 "tuple all-to-all (without dimensions=)");
  int64_t* d;
  int32_t nd;
  if (!hlo_read_i64_list(&dims->value, im->b.a, im->b.e, &d, &nd)) return false;
  if (nd != 1)
    return hlo_error_at(im->b.e, dims->value.line, dims->value.col,
                        "expected one dimension");
  hlx_op_t* op = emit(im, sc, in, HLX_OP_ALL_TO_ALL, ops, 1, &t, 1);
  if (!op || !hlo_import_attrs(im, sc, in, spec, op)) return false;
  const hlx_attr_t* g = hlx_op_attr(op, "replica_groups");
  int64_t count = g && g->type->rank == 2 ? g->type->dims[1] : 0;
  if (count <= 0)
    return hlo_error_unsupported(im->b.e, in->opcode,
                                 "all-to-all without replica_groups");
  if (!hb_attr(&im->b, op, "split_dimension",
               hb_int(&im->b, d[0], HLX_DTYPE_S64)) ||
      !hb_attr(&im->b, op, "concat_dimension",
               hb_int(&im->b, d[0], HLX_DTYPE_S64)) ||
      !hb_attr(&im->b, op, "split_count", hb_int(&im->b, count, HLX_DTYPE_S64)))
    return false;
  sc->vals[i] = op->results[0];
  return true;
}

static bool import_constant(hlo_imp_t* im, hlo_scope_t* sc, int32_t i) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  hlx_attr_t* v = t ? hlo_read_literal(&im->b, &in->paren, t) : NULL;
  hlx_op_t* op = v ? emit(im, sc, in, HLX_OP_CONSTANT, NULL, 0, &t, 1) : NULL;
  if (!op || !hb_attr(&im->b, op, "value", v)) return false;
  for (int32_t k = 0; k < in->num_attrs; k++)
    if (!hlo_attr_ignored(in->attrs[k].name.p, in->attrs[k].name.n))
      return hlo_error_unsupported(im->b.e, in->attrs[k].name,
                                   "attribute of constant");
  sc->vals[i] = op->results[0];
  return true;
}

/* copy, domain, add-dependency: the operand's value itself. */
static bool import_alias(hlo_imp_t* im, hlo_scope_t* sc, int32_t i) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  bool dep = hlo_tok_is(in->opcode, "add-dependency");
  if (!need_operands(im, in, dep ? 2 : 1, dep ? 2 : 1)) return false;
  hlx_value_t* v = sc->vals[in->operands[0]];
  hlx_type_t* t = hb_type_from_shape(&im->b, in->shape);
  if (!t) return false;
  if (!hlx_type_equal(t, v->type))
    return hlo_error_at(im->b.e, in->name.line, in->name.col,
                        "%.*s changes the shape of its operand",
                        (int)in->opcode.n, in->opcode.p);
  sc->vals[i] = v;
  return true;
}

bool hlo_import_special(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                        const hlo_op_t* op) {
  const char* h = op->hlo;
  const hlo_instr_t* in = &sc->c->instrs[i];
  if (strcmp(h, "parameter") == 0) {
    hlx_value_t* v = sc->params[sc->param_of[i]];
    for (int32_t k = 0; k < in->num_attrs; k++)
      if (!hlo_attr_ignored(in->attrs[k].name.p, in->attrs[k].name.n))
        return hlo_error_unsupported(im->b.e, in->attrs[k].name,
                                     "attribute of parameter");
    sc->vals[i] = v;
    return true;
  }
  if (strcmp(h, "constant") == 0) return import_constant(im, sc, i);
  if (strcmp(h, "bitcast") == 0) return import_bitcast(im, sc, i);
  if (strcmp(h, "call") == 0) return import_call(im, sc, i, "to_apply");
  if (strcmp(h, "fusion") == 0) return import_call(im, sc, i, "calls");
  if (strcmp(h, "custom-call") == 0) return import_custom_call(im, sc, i, op);
  if (strcmp(h, "conditional") == 0) return import_conditional(im, sc, i, op);
  if (strcmp(h, "rng") == 0) return import_rng(im, sc, i, op);
  if (strcmp(h, "infeed") == 0) return import_infeed(im, sc, i, op);
  if (strcmp(h, "outfeed") == 0) return import_outfeed(im, sc, i, op);
  if (strcmp(h, "all-to-all") == 0) return import_all_to_all(im, sc, i, op);
  if (hlo_is_async(h)) return hlo_import_async(im, sc, i, op);
  return import_alias(im, sc, i);
}
