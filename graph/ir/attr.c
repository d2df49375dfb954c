/* Reading an op: where it is (for errors), its attributes as integers,
 * its static tensor types and constant operands. Shared by the verifier
 * (graph/ops/), the passes and the lowering; decodes attribute data
 * itself, never through a kernel. */
#include "graph/ir/attr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- errors -------------------------------------------------------------- */

const char* hlx_op_where(const hlx_op_t* op, char* buf, size_t len) {
  if (op->line > 0)
    snprintf(buf, len, "%s at %d:%d", op->name, op->line, op->col);
  else
    snprintf(buf, len, "%s", op->name);
  return buf;
}

hlx_status_t hlx_op_error(const hlx_op_t* op, hlx_status_code_t code,
                          const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlx_status_t s = hlx_make_status_v(code, fmt, ap);
  va_end(ap);
  char where[256];
  return hlx_status_annotate(s, "%s", hlx_op_where(op, where, sizeof where));
}

/* ---- types --------------------------------------------------------------- */

const hlx_type_t* hlx_static_tensor(const hlx_value_t* v) {
  const hlx_type_t* t = v->type;
  if (!t || t->kind != HLX_TYPE_TENSOR || !hlx_type_is_static(t)) return NULL;
  return t;
}

size_t hlx_tensor_bytes(const hlx_type_t* t) {
  int64_t n = hlx_type_num_elements(t);
  size_t es = hlx_dtype_size(t->dtype);
  if (n < 0 || (es && (uint64_t)n > SIZE_MAX / 4 / es)) return SIZE_MAX;
  return (size_t)n * es;
}

/* ---- attributes ---------------------------------------------------------- */

hlx_status_t hlx_attr_i64_array(const hlx_op_t* op, const char* name,
                                bool required, const int64_t** vals,
                                int32_t* n) {
  const hlx_attr_t* a = hlx_op_attr(op, name);
  *vals = NULL;
  *n = 0;
  if (!a) {
    if (required)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "missing attribute '%s'", name);
    return NULL;
  }
  if (a->kind == HLX_ATTR_I64_ARRAY) {
    *vals = a->ints;
    *n = a->count;
    return NULL;
  }
  if (a->kind == HLX_ATTR_DENSE && a->type &&
      hlx_dtype_size(a->type->dtype) == 8 && hlx_dtype_is_int(a->type->dtype)) {
    *vals = a->dense;
    *n = (int32_t)(a->dense_bytes / 8);
    return NULL;
  }
  return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                      "attribute '%s' must be an array of i64", name);
}

hlx_status_t hlx_attr_int(const hlx_op_t* op, const char* name, bool required,
                          int64_t dflt, int64_t* out) {
  const hlx_attr_t* a = hlx_op_attr(op, name);
  *out = dflt;
  if (!a) {
    if (required)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "missing attribute '%s'", name);
    return NULL;
  }
  if (a->kind != HLX_ATTR_INT)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "attribute '%s' must be an integer", name);
  *out = a->i;
  return NULL;
}

bool hlx_attr_int_list(const hlx_attr_t* a, int64_t* out, int32_t max,
                       int32_t* n) {
  *n = 0;
  if (!a) return true;
  if (a->kind == HLX_ATTR_I64_ARRAY) {
    if (a->count > max) return false;
    if (a->count) memcpy(out, a->ints, sizeof(int64_t) * (size_t)a->count);
    *n = a->count;
    return true;
  }
  if (a->kind == HLX_ATTR_ARRAY) {
    if (a->count > max) return false;
    for (int32_t i = 0; i < a->count; i++) {
      if (a->items[i]->kind != HLX_ATTR_INT) return false;
      out[i] = a->items[i]->i;
    }
    *n = a->count;
    return true;
  }
  if (a->kind == HLX_ATTR_DENSE && a->type) {
    int64_t cnt = hlx_type_num_elements(a->type);
    if (cnt < 0 || cnt > max) return false;
    for (int64_t k = 0; k < cnt; k++)
      if (!hlx_dtype_read_int(a->type->dtype, a->dense, (size_t)k, &out[k]))
        return false; /* not an integer or i1 tensor */
    *n = (int32_t)cnt;
    return true;
  }
  return false;
}

hlx_status_t hlx_op_constant_i64(const hlx_op_t* op, int i, int64_t* out,
                                 int32_t max, int32_t* n) {
  const hlx_value_t* v = op->operands[i];
  const hlx_attr_t* val =
      v->def && v->def->code == HLX_OP_CONSTANT ? hlx_op_attr(v->def, "value")
                                                : NULL;
  if (!val || val->kind != HLX_ATTR_DENSE || !val->type ||
      !hlx_dtype_is_int(val->type->dtype))
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: operand #%d must be an integer constant "
                        "(shapes computed at run time are not executed yet)",
                        i);
  size_t es = hlx_dtype_size(val->type->dtype);
  size_t count = val->dense_bytes / es;
  if (count > (size_t)max)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand #%d has more than %d entries", i, max);
  for (size_t k = 0; k < count; k++)
    if (!hlx_dtype_read_int(val->type->dtype, val->dense, k, &out[k]))
      return hlx_op_error(op, HLX_STATUS_INTERNAL, "cannot read operand #%d",
                          i);
  *n = (int32_t)count;
  return NULL;
}
