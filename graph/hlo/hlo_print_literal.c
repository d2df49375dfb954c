/* Shapes and literals in HLO syntax: `f32[2,3]{1,0}` (default layouts),
 * `(s32[], token[])`, and constant values that read back to the same bits
 * (floats with enough digits, NaN payloads as nan(0x..), `{...}` for
 * elided data). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/hlo/hlo_print_internal.h"

bool hp_type(hp_t* hp, pbuf_t* b, const hlx_type_t* t) {
  if (t->kind == HLX_TYPE_TOKEN) {
    pb_puts(b, "token[]");
    return true;
  }
  if (t->kind == HLX_TYPE_TUPLE) {
    if (t->is_future)
      return hp_fail(hp, HLX_STATUS_UNIMPLEMENTED,
                     "unsupported: future types in HLO");
    pb_puts(b, "(");
    for (int32_t i = 0; i < t->num_elems; i++) {
      if (i) pb_puts(b, ", ");
      if (!hp_type(hp, b, t->elems[i])) return false;
    }
    pb_puts(b, ")");
    return true;
  }
  const char* dn = hlo_dtype_name(t->dtype);
  if (!dn || t->quant)
    return hp_fail(hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: element type %s has no HLO spelling",
                   t->quant ? "quantized" : hlx_dtype_name(t->dtype));
  pb_printf(b, "%s[", dn);
  for (int32_t i = 0; i < t->rank; i++) {
    if (i) pb_puts(b, ",");
    int64_t d = t->dims[i];
    int64_t bound = t->bounds ? t->bounds[i] : HLX_DYNAMIC_DIM;
    if (d == HLX_DYNAMIC_DIM && bound != HLX_DYNAMIC_DIM)
      pb_printf(b, "<=%" PRId64, bound);
    else if (d == HLX_DYNAMIC_DIM)
      pb_puts(b, "?");
    else
      pb_printf(b, "%" PRId64, d);
  }
  pb_puts(b, "]");
  if (t->rank > 0) {
    pb_puts(b, "{");
    for (int32_t i = t->rank - 1; i >= 0; i--)
      pb_printf(b, "%d%s", i, i ? "," : "");
    pb_puts(b, "}");
  }
  return true;
}

static double bits_to_double(hlx_dtype_t dt, uint64_t u) {
  switch (dt) {
    case HLX_DTYPE_F64: {
      double d;
      memcpy(&d, &u, 8);
      return d;
    }
    case HLX_DTYPE_F32: {
      float f;
      uint32_t w = (uint32_t)u;
      memcpy(&f, &w, 4);
      return f;
    }
    case HLX_DTYPE_F16:
      return hlx_f16_to_f32((uint16_t)u);
    case HLX_DTYPE_BF16:
      return hlx_bf16_to_f32((uint16_t)u);
    default:
      return hlx_small_float_to_f64(dt, (uint32_t)u);
  }
}

static void print_float(pbuf_t* b, hlx_dtype_t dt, const uint8_t* p) {
  uint64_t u = 0;
  size_t es = hlx_dtype_size(dt);
  memcpy(&u, p, es);
  double d = bits_to_double(dt, u);
  if (isnan(d)) {
    int eb, mb;
    bool neg = signbit(d);
    uint64_t plain = hlo_float_bits(dt, neg ? -NAN : NAN);
    if (u == plain || !hlo_nan_layout(dt, &eb, &mb)) {
      pb_puts(b, neg ? "-nan" : "nan");
    } else {
      uint64_t payload = u & ((1ull << mb) - 1);
      pb_printf(b, "%snan(0x%" PRIx64 ")", (u >> (eb + mb)) & 1 ? "-" : "",
                payload);
    }
  } else if (isinf(d)) {
    pb_puts(b, d < 0 ? "-inf" : "inf");
  } else {
    pb_printf(b, dt == HLX_DTYPE_F64 ? "%.17g" : "%.9g", d);
  }
}

static void print_element(pbuf_t* b, hlx_dtype_t dt, const uint8_t* p) {
  if (dt == HLX_DTYPE_PRED) {
    pb_puts(b, p[0] ? "true" : "false");
  } else if (hlx_dtype_is_int(dt)) {
    size_t es = hlx_dtype_size(dt);
    uint64_t u = 0;
    memcpy(&u, p, es);
    int bits = hlx_dtype_bits(dt);
    if (bits < 64) u &= (1ull << bits) - 1;
    if (hlx_dtype_is_signed_int(dt) && bits < 64 && (u >> (bits - 1)) & 1)
      u |= ~0ull << bits;
    if (hlx_dtype_is_signed_int(dt))
      pb_printf(b, "%" PRId64, (int64_t)u);
    else
      pb_printf(b, "%" PRIu64, u);
  } else if (hlx_dtype_is_complex(dt)) {
    hlx_dtype_t part = hlx_dtype_complex_part(dt);
    pb_puts(b, "(");
    print_float(b, part, p);
    pb_puts(b, ", ");
    print_float(b, part, p + hlx_dtype_size(part));
    pb_puts(b, ")");
  } else {
    print_float(b, dt, p);
  }
}

/* Elements of dimension d starting at element *next. */
static void print_level(pbuf_t* b, const hlx_type_t* t, const uint8_t* data,
                        int32_t d, int64_t* next) {
  size_t es = hlx_dtype_size(t->dtype);
  pb_puts(b, "{");
  for (int64_t i = 0; i < t->dims[d] && !b->oom; i++) {
    if (i) pb_puts(b, ", ");
    if (d + 1 < t->rank) {
      print_level(b, t, data, d + 1, next);
    } else {
      print_element(b, t->dtype, data + (size_t)*next * es);
      (*next)++;
    }
  }
  pb_puts(b, "}");
}

bool hp_literal(hp_t* hp, pbuf_t* b, const hlx_attr_t* v) {
  const hlx_type_t* t = v->type;
  if (!t || t->kind != HLX_TYPE_TENSOR || !hlx_type_is_static(t) || t->quant ||
      !hlo_dtype_name(t->dtype))
    return hp_fail(hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: a constant HLO cannot spell");
  if (v->kind == HLX_ATTR_ELIDED) {
    if (t->rank == 0)
      return hp_fail(hp, HLX_STATUS_UNIMPLEMENTED,
                     "unsupported: an elided scalar constant");
    pb_puts(b, "{...}");
    return true;
  }
  int64_t n = hlx_type_num_elements(t);
  if (v->kind != HLX_ATTR_DENSE || n < 0 ||
      v->dense_bytes != (size_t)n * hlx_dtype_size(t->dtype))
    return hp_fail(hp, HLX_STATUS_INVALID_ARGUMENT,
                   "a constant's value does not match its type");
  if (t->rank == 0) {
    print_element(b, t->dtype, v->dense);
    return true;
  }
  int64_t next = 0;
  print_level(b, t, v->dense, 0, &next);
  return true;
}
