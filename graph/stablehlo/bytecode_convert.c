/* Decoded bytecode attributes -> hlx IR attributes, in the representation
 * the text parser gives the same attribute (graph/stablehlo/parser.h):
 * dense tensors expanded and normalized like dense<...> literals, enums as
 * #stablehlo<kind VALUE>, structs with the fields their text form shows,
 * anything hlx has no model for as its assembly text. Conversions are
 * memoized per decoded attribute, so shared sub-attributes stay shared. */
#include <stdio.h>
#include <string.h>

#include "graph/stablehlo/bytecode_convert.h"

static hlx_attr_t* new_ir(hlx_bc_t* bc, hlx_attr_kind_t kind) {
  hlx_attr_t* a = hlx_bc_irmem(bc, 1, sizeof(*a));
  if (a) a->kind = kind;
  return a;
}

hlx_type_t* hlx_bc_scalar_ir_type(hlx_bc_t* bc, hlx_dtype_t dt) {
  hlx_type_t* t = hlx_bc_irmem(bc, 1, sizeof(*t));
  if (t) {
    t->kind = HLX_TYPE_TENSOR;
    t->dtype = dt;
  }
  return t;
}

hlx_attr_t* hlx_bc_ir_int(hlx_bc_t* bc, int64_t v, hlx_dtype_t dt) {
  hlx_attr_t* a = new_ir(bc, HLX_ATTR_INT);
  if (!a) return NULL;
  a->i = v;
  if (dt != HLX_DTYPE_INVALID && !(a->type = hlx_bc_scalar_ir_type(bc, dt)))
    return NULL;
  return a;
}

hlx_attr_t* hlx_bc_ir_i64_array(hlx_bc_t* bc, const int64_t* v, int32_t n,
                                hlx_dtype_t elem) {
  hlx_attr_t* a = new_ir(bc, HLX_ATTR_I64_ARRAY);
  if (!a) return NULL;
  a->count = n;
  if (n > 0) {
    if (!(a->ints = hlx_bc_irmem(bc, (size_t)n, sizeof(int64_t)))) return NULL;
    memcpy(a->ints, v, (size_t)n * sizeof(int64_t));
  }
  if (elem != HLX_DTYPE_S64 && !(a->type = hlx_bc_scalar_ir_type(bc, elem)))
    return NULL;
  return a;
}

hlx_attr_t* hlx_bc_ir_struct(hlx_bc_t* bc, const char* name,
                             const hlx_named_attr_t* fields, int32_t n) {
  hlx_attr_t* a = new_ir(bc, HLX_ATTR_STRUCT);
  if (!a) return NULL;
  a->str = name;
  a->count = n;
  if (n > 0) {
    if (!(a->dict = hlx_bc_irmem(bc, (size_t)n, sizeof(hlx_named_attr_t)))) return NULL;
    memcpy(a->dict, fields, (size_t)n * sizeof(hlx_named_attr_t));
  }
  return a;
}

hlx_attr_t* hlx_bc_ir_opaque(hlx_bc_t* bc, const char* text) {
  hlx_attr_t* a = new_ir(bc, HLX_ATTR_OPAQUE);
  if (!a) return NULL;
  a->len = strlen(text);
  a->str = hlx_arena_strndup(&bc->m->arena, text, a->len);
  if (!a->str) hlx_bc_oom(bc);
  return a->str ? a : NULL;
}

/* ---- Integer lists out of tensors (dense arrays, dimension numbers) -------- */
bool hlx_bc_tensor_ints(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                        const hlx_bc_attr_t* a, int64_t** out, int32_t* n) {
  if (a->kind != HLX_BC_ATTR_TENSOR || a->type->t->rank > 1)
    return hlx_bc_fail(bc, s, "expected a 1-d integer tensor");
  hlx_dtype_t dt = a->type->t->dtype;
  if (!hlx_dtype_is_int(dt) && dt != HLX_DTYPE_PRED)
    return hlx_bc_fail(bc, s, "expected an integer tensor, got %s", hlx_dtype_name(dt));
  int64_t count = hlx_type_num_elements(a->type->t);
  size_t esz = hlx_dtype_size(dt);
  *out = hlx_bc_scratch(bc, (size_t)count, sizeof(int64_t));
  if (!*out) return false;
  for (int64_t i = 0; i < count; i++) {
    const uint8_t* e = a->data + (a->nbytes == esz ? 0 : (size_t)i * esz);
    uint64_t v = 0;
    for (size_t k = 0; k < esz; k++) v |= (uint64_t)e[k] << (8 * k);
    int bits = (int)esz * 8;
    if (dt == HLX_DTYPE_PRED) v = v != 0;
    else if (bits < 64 && hlx_dtype_is_signed_int(dt) && (v >> (bits - 1)) & 1)
      v |= ~(((uint64_t)1 << bits) - 1);
    (*out)[i] = (int64_t)v;
  }
  *n = (int32_t)count;
  return true;
}

/* ---- Dense data ------------------------------------------------------------------- */
static hlx_attr_t* dense(hlx_bc_t* bc, const hlx_type_t* t, const uint8_t* data,
                         size_t nbytes) {
  hlx_attr_t* a = new_ir(bc, HLX_ATTR_DENSE);
  if (!a) return NULL;
  a->type = (hlx_type_t*)t;
  int64_t count = hlx_type_num_elements(t);
  size_t esz = hlx_dtype_size(t->dtype);
  a->dense_bytes = (size_t)count * esz;
  uint8_t* out = hlx_bc_irmem(bc, a->dense_bytes ? a->dense_bytes : 1, 1);
  if (!out) return NULL;
  a->dense = out;
  if (count == 0) return a;
  if (nbytes == a->dense_bytes) memcpy(out, data, nbytes);
  else
    for (int64_t i = 0; i < count; i++) memcpy(out + (size_t)i * esz, data, esz);
  if (hlx_dtype_size(t->dtype) == 1)
    for (int64_t i = 0; i < count; i++) hlx_dtype_canonicalize_elem(t->dtype, out + i);
  return a;
}

static hlx_attr_t* resource(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                            const hlx_bc_attr_t* a) {
  const hlx_bc_resource_t* r = &bc->resources[a->resource];
  int64_t count = hlx_type_num_elements(a->type->t);
  size_t need = count < 0 ? 0 : (size_t)count * hlx_dtype_size(a->type->t->dtype);
  if (r->data && count >= 0 && r->n == need) return dense(bc, a->type->t, r->data, r->n);
  if (r->data && count >= 0)
    hlx_bc_fail(bc, s, "resource blob has %zu bytes, its type needs %zu", r->n, need);
  hlx_attr_t* e = new_ir(bc, HLX_ATTR_ELIDED);
  if (!e || bc->err) return NULL;
  e->type = a->type->t;
  e->str = hlx_arena_strndup(&bc->m->arena, r->key->p, r->key->n);
  if (!e->str) hlx_bc_oom(bc);
  return e->str ? e : NULL;
}

/* builtin array<T: ...>: i1/i8/i16/i32/i64 become I64_ARRAY like the text
 * parser's; other element types stay text. */
static hlx_attr_t* dense_array(hlx_bc_t* bc, const hlx_bc_attr_t* a) {
  hlx_dtype_t dt = a->type->t->dtype;
  if (dt == HLX_DTYPE_PRED || dt == HLX_DTYPE_S8 || dt == HLX_DTYPE_S16 ||
      dt == HLX_DTYPE_S32 || dt == HLX_DTYPE_S64) {
    int64_t* v = hlx_bc_scratch(bc, (size_t)a->n, sizeof(int64_t));
    size_t esz = hlx_dtype_size(dt);
    for (int32_t i = 0; v && i < a->n; i++) {
      uint64_t x = 0;
      for (size_t k = 0; k < esz; k++) x |= (uint64_t)a->data[(size_t)i * esz + k] << (8 * k);
      if (esz < 8 && dt != HLX_DTYPE_PRED && (x >> (esz * 8 - 1)) & 1)
        x |= ~(((uint64_t)1 << (esz * 8)) - 1);
      v[i] = dt == HLX_DTYPE_PRED ? (x != 0) : (int64_t)x;
    }
    return v ? hlx_bc_ir_i64_array(bc, v, a->n, dt) : NULL;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "array<%s: ...>", hlx_dtype_name(dt));
  return hlx_bc_ir_opaque(bc, buf);
}

/* ---- Generic conversion ------------------------------------------------------------- */
static hlx_attr_t* convert_type_attr(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                                     const hlx_bc_type_t* t) {
  if (t->kind == HLX_BC_TYPE_TENSOR || t->kind == HLX_BC_TYPE_TUPLE ||
      t->kind == HLX_BC_TYPE_TOKEN) {
    hlx_attr_t* a = new_ir(bc, HLX_ATTR_TYPE);
    if (a) a->type = t->t;
    return a;
  }
  if (t->kind == HLX_BC_TYPE_SCALAR) return hlx_bc_ir_opaque(bc, t->name);
  if (t->kind == HLX_BC_TYPE_NONE) return hlx_bc_ir_opaque(bc, "none");
  hlx_bc_unsupported(bc, s, "%s as an attribute value",
                     t->kind == HLX_BC_TYPE_FUNCTION ? "a function type" : t->name);
  return NULL;
}

static hlx_attr_t* convert_list(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                                const hlx_bc_attr_t* a) {
  hlx_attr_t* r = new_ir(bc, a->kind == HLX_BC_ATTR_DICT ? HLX_ATTR_DICT : HLX_ATTR_ARRAY);
  if (!r) return NULL;
  r->count = a->n;
  if (a->kind == HLX_BC_ATTR_DICT) {
    if (!(r->dict = hlx_bc_irmem(bc, (size_t)a->n, sizeof(hlx_named_attr_t)))) return NULL;
    for (int32_t i = 0; i < a->n; i++) {
      r->dict[i].name = a->keys[i];
      if (!(r->dict[i].value = hlx_bc_to_ir(bc, s, a->items[i]))) return NULL;
    }
    return r;
  }
  if (!(r->items = hlx_bc_irmem(bc, (size_t)a->n, sizeof(hlx_attr_t*)))) return NULL;
  for (int32_t i = 0; i < a->n; i++)
    if (!(r->items[i] = hlx_bc_to_ir(bc, s, a->items[i]))) return NULL;
  return r;
}

static hlx_attr_t* output_alias(hlx_bc_t* bc, const hlx_bc_attr_t* a) {
  hlx_named_attr_t f[3] = {
      {"output_tuple_indices", hlx_bc_ir_i64_array(bc, a->ints, a->n0, HLX_DTYPE_S64)},
      {"operand_index", hlx_bc_ir_int(bc, a->i, HLX_DTYPE_INVALID)},
      {"operand_tuple_indices",
       hlx_bc_ir_i64_array(bc, a->ints + a->n0, a->n - a->n0, HLX_DTYPE_S64)}};
  if (!f[0].value || !f[1].value || !f[2].value) return NULL;
  return hlx_bc_ir_struct(bc, "stablehlo.output_operand_alias", f, 3);
}

static hlx_attr_t* result_accuracy(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                                   const hlx_bc_attr_t* a) {
  hlx_attr_t* atol = new_ir(bc, HLX_ATTR_FLOAT);
  hlx_attr_t* rtol = new_ir(bc, HLX_ATTR_FLOAT);
  if (!atol || !rtol) return NULL;
  atol->f = a->f;
  rtol->f = a->f2;
  hlx_named_attr_t f[4] = {{"atol", atol}, {"rtol", rtol},
                           {"ulps", hlx_bc_ir_int(bc, a->i, HLX_DTYPE_INVALID)},
                           {"mode", hlx_bc_to_ir(bc, s, a->items[0])}};
  if (!f[2].value || !f[3].value) return NULL;
  return hlx_bc_ir_struct(bc, "stablehlo.result_accuracy", f, 4);
}

static hlx_attr_t* convert(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                           const hlx_bc_attr_t* a) {
  hlx_attr_t* r;
  switch (a->kind) {
    case HLX_BC_ATTR_UNIT: return new_ir(bc, HLX_ATTR_UNIT);
    case HLX_BC_ATTR_BOOL:
      if ((r = new_ir(bc, HLX_ATTR_BOOL))) r->b = a->b;
      return r;
    case HLX_BC_ATTR_INT: /* `5 : index` keeps its index type */
      if ((r = hlx_bc_ir_int(bc, a->i, a->type->t->dtype)) && r->type)
        r->type->is_index = a->type->index;
      return r;
    case HLX_BC_ATTR_FLOAT:
      if (!(r = new_ir(bc, HLX_ATTR_FLOAT))) return NULL;
      r->f = a->f;
      r->type = hlx_bc_scalar_ir_type(bc, a->type->t->dtype);
      return r->type ? r : NULL;
    case HLX_BC_ATTR_STRING:
    case HLX_BC_ATTR_SYMBOL:
      if (!(r = new_ir(bc, a->kind == HLX_BC_ATTR_STRING ? HLX_ATTR_STRING : HLX_ATTR_SYMBOL)))
        return NULL;
      r->str = a->str;
      r->len = a->kind == HLX_BC_ATTR_STRING ? a->len : strlen(a->str);
      return r;
    case HLX_BC_ATTR_TYPE: return convert_type_attr(bc, s, a->type);
    case HLX_BC_ATTR_ARRAY:
    case HLX_BC_ATTR_DICT: return convert_list(bc, s, a);
    case HLX_BC_ATTR_TENSOR: return dense(bc, a->type->t, a->data, a->nbytes);
    case HLX_BC_ATTR_DENSE_ARRAY: return dense_array(bc, a);
    case HLX_BC_ATTR_RESOURCE: return resource(bc, s, a);
    case HLX_BC_ATTR_ENUM:
      if (!(r = new_ir(bc, HLX_ATTR_ENUM))) return NULL;
      r->str = a->str;
      r->enum_value = a->enum_value;
      return r;
    case HLX_BC_ATTR_OUTPUT_ALIAS: return output_alias(bc, a);
    case HLX_BC_ATTR_RESULT_ACCURACY: return result_accuracy(bc, s, a);
    case HLX_BC_ATTR_TEXT: return hlx_bc_ir_opaque(bc, a->str);
    case HLX_BC_ATTR_SDY_PART:
      hlx_bc_fail(bc, s, "a part of an sdy attribute used as an attribute value");
      return NULL;
    case HLX_BC_ATTR_TYPE_EXTENSIONS:
      hlx_bc_fail(bc, s, "type extensions (bounds) outside a tensor type");
      return NULL;
    case HLX_BC_ATTR_LOCATION:
      hlx_bc_fail(bc, s, "a location used as an attribute value");
      return NULL;
  }
  return NULL;
}

hlx_attr_t* hlx_bc_to_ir(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                         hlx_bc_attr_t* a) {
  if (bc->err) return NULL;
  if (a->ir) return a->ir;
  if (a->tree > HLX_BC_MAX_ATTR_TREE) {
    hlx_bc_unsupported(bc, s, "an attribute of %llu nested parts (at most %llu)",
                       (unsigned long long)a->tree,
                       (unsigned long long)HLX_BC_MAX_ATTR_TREE);
    return NULL;
  }
  a->ir = convert(bc, s, a);
  if (!a->ir && !bc->err) hlx_bc_oom(bc);
  return a->ir;
}
