/* Asynchronous HLO pairs, run synchronously (as the StableHLO spec allows
 * for async ops): the start computes the result at once and its value is
 * the tuple XLA gives it, the done takes the result out of it.
 *   all-reduce-start(x)          -> all-reduce(x)         done: the value
 *   all-gather-start(x)          -> (x, all-gather(x))    done: element 1
 *   collective-permute-start(x)  -> (x, permute(x), 0...) done: element 1
 *   copy-start(x)                -> (x, x, 0)             done: element 0
 *   async-start(xs), calls=c     -> ((xs), call c(xs), 0...) done: element 1
 *   async-update(s)              -> s
 * The zeros stand for XLA's context scalars. The IR holds plain ops
 * (tuple, constant, get_tuple_element), so the printer needs no pattern. */
#include <string.h>

#include "graph/hlo/hlo_internal.h"

bool hlo_is_async(const char* h) {
  size_t n = strlen(h);
  return (n > 6 && strcmp(h + n - 6, "-start") == 0) ||
         (n > 5 && strcmp(h + n - 5, "-done") == 0) ||
         strcmp(h, "async-update") == 0;
}

static hlx_op_t* emit(hlo_imp_t* im, hlo_scope_t* sc, const hlo_instr_t* in,
                      hlx_opcode_t code, hlx_value_t* const* ops, int32_t n,
                      hlx_type_t* const* types, int32_t nres) {
  return hb_op(&im->b, sc->blk, code, ops, n, types, nres, in->name.line,
               in->name.col);
}

/* A zero constant of array type t (XLA's context values). */
static hlx_value_t* zero(hlo_imp_t* im, hlo_scope_t* sc, const hlo_instr_t* in,
                         hlx_type_t* t) {
  int64_t n = t->kind == HLX_TYPE_TENSOR ? hlx_type_num_elements(t) : -1;
  if (n < 0 || n > (1 << 20)) {
    hlo_error_unsupported(im->b.e, in->opcode,
                          "an async context that is not a small array");
    return NULL;
  }
  hlx_attr_t* v = hlx_arena_alloc(im->b.a, sizeof(*v));
  hlx_op_t* c = v ? emit(im, sc, in, HLX_OP_CONSTANT, NULL, 0, &t, 1) : NULL;
  if (!c) {
    if (!v) hlo_error_oom(im->b.e);
    return NULL;
  }
  v->kind = HLX_ATTR_DENSE;
  v->type = t;
  v->dense_bytes = (size_t)n * hlx_dtype_size(t->dtype);
  v->dense = hlx_arena_alloc(im->b.a, v->dense_bytes);
  if (!v->dense) {
    hlo_error_oom(im->b.e);
    return NULL;
  }
  return hb_attr(&im->b, c, "value", v) ? c->results[0] : NULL;
}

static hlx_value_t* tuple(hlo_imp_t* im, hlo_scope_t* sc, const hlo_instr_t* in,
                          hlx_value_t* const* vals, int32_t n) {
  hlx_type_t* el[64];
  if (n > 64) {
    hlo_error_unsupported(im->b.e, in->opcode, "more than 64 async values");
    return NULL;
  }
  for (int32_t k = 0; k < n; k++) el[k] = vals[k]->type;
  hlx_type_t* t = hb_tuple(&im->b, el, n);
  hlx_op_t* op = t ? emit(im, sc, in, HLX_OP_TUPLE, vals, n, &t, 1) : NULL;
  return op ? op->results[0] : NULL;
}

/* The operands, as element 0 of the start's tuple: the operand itself,
 * or a tuple of them. */
static hlx_value_t* operand_part(hlo_imp_t* im, hlo_scope_t* sc,
                                 const hlo_instr_t* in, bool always_tuple) {
  hlx_value_t* v[64];
  if (in->num_operands > 64 || in->num_operands < 1) {
    hlo_error_at(im->b.e, in->name.line, in->name.col,
                 "%.*s takes 1 to 64 operands", (int)in->opcode.n,
                 in->opcode.p);
    return NULL;
  }
  for (int32_t k = 0; k < in->num_operands; k++)
    v[k] = sc->vals[in->operands[k]];
  if (in->num_operands == 1 && !always_tuple) return v[0];
  return tuple(im, sc, in, v, in->num_operands);
}

/* (operands, result, contexts...) for a start of shape s. */
static hlx_value_t* start_tuple(hlo_imp_t* im, hlo_scope_t* sc,
                                const hlo_instr_t* in, const hlo_shape_t* s,
                                hlx_value_t* result, bool always_tuple) {
  hlx_value_t* parts[64];
  parts[0] = operand_part(im, sc, in, always_tuple);
  parts[1] = result;
  if (!parts[0] || !parts[1]) return NULL;
  for (int32_t k = 2; k < s->num_elems && k < 64; k++) {
    hlx_type_t* t = hb_type_from_shape(&im->b, s->elems[k]);
    if (!t || !(parts[k] = zero(im, sc, in, t))) return NULL;
  }
  return tuple(im, sc, in, parts, s->num_elems < 64 ? s->num_elems : 64);
}

static hlx_value_t* element(hlo_imp_t* im, hlo_scope_t* sc,
                            const hlo_instr_t* in, hlx_value_t* v, int32_t k) {
  if (v->type->kind != HLX_TYPE_TUPLE || k >= v->type->num_elems) {
    hlo_error_at(im->b.e, in->name.line, in->name.col,
                 "%.*s's operand is not the tuple its start makes",
                 (int)in->opcode.n, in->opcode.p);
    return NULL;
  }
  hlx_type_t* t = v->type->elems[k];
  hlx_op_t* g = emit(im, sc, in, HLX_OP_GET_TUPLE_ELEMENT, &v, 1, &t, 1);
  if (!g || !hb_attr(&im->b, g, "index", hb_int(&im->b, k, HLX_DTYPE_S32)))
    return NULL;
  return g->results[0];
}

/* async-start(xs), calls=c: c is called as a function. */
static hlx_value_t* call_of(hlo_imp_t* im, hlo_scope_t* sc,
                            const hlo_instr_t* in, hlx_type_t* result) {
  const hlo_attr_t* ca = hlo_instr_attr(in, "calls");
  if (!ca) {
    hlo_error_unsupported(im->b.e, in->opcode,
                          "async-start without calls= (wrapped-op syntax)");
    return NULL;
  }
  int32_t comp = hlo_called_comp(im, sc, &ca->value);
  hlx_func_t* f = comp >= 0 ? hlo_import_func(im, comp) : NULL;
  hlx_value_t* ops[64];
  for (int32_t k = 0; k < in->num_operands && k < 64; k++)
    ops[k] = sc->vals[in->operands[k]];
  hlx_op_t* op =
      f ? emit(im, sc, in, HLX_OP_FUNC_CALL, ops,
               in->num_operands < 64 ? in->num_operands : 64, &result, 1)
        : NULL;
  if (!op || !hb_attr(&im->b, op, "callee", hb_symbol(&im->b, f->name)))
    return NULL;
  return op->results[0];
}

bool hlo_import_async(hlo_imp_t* im, hlo_scope_t* sc, int32_t i,
                      const hlo_op_t* op) {
  const hlo_instr_t* in = &sc->c->instrs[i];
  const char* h = op->hlo;
  const hlo_shape_t* s = in->shape;
  size_t n = strlen(h);
  if (n > 5 && strcmp(h + n - 5, "-done") == 0) {
    if (in->num_operands != 1)
      return hlo_error_at(im->b.e, in->name.line, in->name.col,
                          "%s takes its start as the one operand", h);
    hlx_value_t* v = sc->vals[in->operands[0]];
    if (strcmp(h, "all-reduce-done") == 0)
      sc->vals[i] = v;
    else
      sc->vals[i] = element(im, sc, in, v, strcmp(h, "copy-done") == 0 ? 0 : 1);
    return sc->vals[i] != NULL;
  }
  if (strcmp(h, "async-update") == 0) {
    sc->vals[i] = in->num_operands == 1 ? sc->vals[in->operands[0]] : NULL;
    return sc->vals[i] ? true
                       : hlo_error_at(im->b.e, in->name.line, in->name.col,
                                      "async-update takes its start");
  }
  if (strcmp(h, "all-reduce-start") == 0) {
    sc->vals[i] = hlo_simple_value(im, sc, in, hlo_op_by_ir(op->ir), s);
    return sc->vals[i] != NULL;
  }
  if (s->kind != HLX_TYPE_TUPLE || s->num_elems < 2 ||
      (strcmp(h, "copy-start") == 0 && s->num_elems != 3))
    return hlo_error_at(im->b.e, in->name.line, in->name.col,
                        "%s's shape must be (operands, result, context...)", h);
  hlx_value_t* r;
  if (strcmp(h, "copy-start") == 0) {
    r = in->num_operands == 1 ? sc->vals[in->operands[0]] : NULL;
    if (!r)
      return hlo_error_at(im->b.e, in->name.line, in->name.col,
                          "copy-start takes one operand");
  } else if (strcmp(h, "async-start") == 0) {
    hlx_type_t* rt = hb_type_from_shape(&im->b, s->elems[1]);
    r = rt ? call_of(im, sc, in, rt) : NULL;
  } else if (op->ir != HLX_OP_UNKNOWN) {
    r = hlo_simple_value(im, sc, in, hlo_op_by_ir(op->ir), s->elems[1]);
  } else {
    return hlo_error_unsupported(im->b.e, in->opcode, "HLO opcode '%s'", h);
  }
  if (!r) return false;
  sc->vals[i] = start_tuple(im, sc, in, s, r, strcmp(h, "async-start") == 0);
  return sc->vals[i] != NULL;
}
