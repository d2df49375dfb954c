/* HLO literals -> the `value` attribute of stablehlo.constant: scalars
 * (`1.5`, `true`, `-inf`, `nan(0x1)`, `(1, 2)` for complex), nested arrays
 * (`{{1, 2}, {3, 4}}`) and the elided form `{...}` that XLA prints for
 * large constants, which becomes an ELIDED attribute (filled like a
 * dense_resource<__elided__> with compile option fill_elided). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/hlo/hlo_internal.h"

#define MAX_LITERAL_BYTES ((size_t)1 << 30)

bool hlo_nan_layout(hlx_dtype_t dt, int* ebits, int* mbits) {
  static const struct {
    hlx_dtype_t dt;
    int e, m;
  } k[] = {
      {HLX_DTYPE_F16, 5, 10},   {HLX_DTYPE_BF16, 8, 7},
      {HLX_DTYPE_F32, 8, 23},   {HLX_DTYPE_F64, 11, 52},
      {HLX_DTYPE_F8E5M2, 5, 2}, {HLX_DTYPE_F8E4M3, 4, 3},
      {HLX_DTYPE_F8E3M4, 3, 4},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (k[i].dt == dt) {
      *ebits = k[i].e;
      *mbits = k[i].m;
      return true;
    }
  return false;
}

uint64_t hlo_float_bits(hlx_dtype_t dt, double d) {
  switch (dt) {
    case HLX_DTYPE_F64: {
      uint64_t u;
      memcpy(&u, &d, 8);
      return u;
    }
    case HLX_DTYPE_F32: {
      float f = (float)d;
      uint32_t u;
      memcpy(&u, &f, 4);
      return u;
    }
    case HLX_DTYPE_F16:
      return hlx_f64_to_f16(d);
    case HLX_DTYPE_BF16:
      return hlx_f64_to_bf16(d);
    default:
      return hlx_f64_to_small_float(dt, d);
  }
}

typedef struct lit_ctx_t {
  hlo_lexer_t lx;
  hlo_err_t* e;
  hlx_dtype_t dt, part; /* element type, its real component type */
  size_t es;            /* bytes per element */
  uint8_t* data;
  int64_t next, count;
} lit_ctx_t;

static bool tok_double(lit_ctx_t* c, hlo_tok_t t, double* d, uint64_t* bits,
                       bool* has_bits) {
  *has_bits = false;
  if (t.kind == HT_NAME && (hlo_tok_is(t, "inf") || hlo_tok_is(t, "nan"))) {
    *d = hlo_tok_is(t, "inf") ? INFINITY : NAN;
  } else if (t.kind == HT_INT || t.kind == HT_FLOAT) {
    char buf[128];
    if (t.n >= sizeof buf) return hlo_error_tok(c->e, t, "shorter number");
    memcpy(buf, t.p, t.n);
    buf[t.n] = 0;
    *d = strtod(buf, NULL);
  } else {
    return hlo_error_tok(c->e, t, "floating-point value");
  }
  /* nan(0xPAYLOAD) / -nan(0x...) */
  if (isnan(*d) && hlo_tok_punct(hlo_lx_peek(&c->lx), "(")) {
    int eb, mb;
    hlo_lx_next(&c->lx);
    hlo_tok_t p = hlo_lx_next(&c->lx);
    uint64_t v = 0;
    bool ok = p.kind == HT_WORD && p.n > 2 && p.p[0] == '0' && p.p[1] == 'x';
    for (size_t i = 2; ok && i < p.n; i++) {
      char ch = p.p[i];
      int h = (ch >= '0' && ch <= '9')   ? ch - '0'
              : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10
              : (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10
                                         : -1;
      ok = h >= 0 && v < (1ull << 56);
      v = v * 16 + (uint64_t)(h < 0 ? 0 : h);
    }
    if (!ok) return hlo_error_tok(c->e, p, "NaN payload like 0x1");
    if (!hlo_nan_layout(c->part, &eb, &mb))
      return hlo_error_unsupported(c->e, p, "NaN payloads of %s",
                                   hlo_dtype_name(c->dt));
    if (v == 0 || v >= (1ull << mb))
      return hlo_error_at(c->e, p.line, p.col, "NaN payload out of range");
    hlo_tok_t close = hlo_lx_next(&c->lx);
    if (!hlo_tok_punct(close, ")")) return hlo_error_tok(c->e, close, "')'");
    uint64_t sign = t.p[0] == '-' ? 1ull << (eb + mb) : 0;
    *bits = sign | (((1ull << eb) - 1) << mb) | v;
    *has_bits = true;
  }
  return true;
}

static void store_float(uint8_t* dst, hlx_dtype_t part, double d, uint64_t bits,
                        bool has_bits) {
  uint64_t u = has_bits ? bits : hlo_float_bits(part, d);
  size_t n = hlx_dtype_size(part);
  memcpy(dst, &u, n); /* little-endian low bytes */
}

static bool int_in_range(hlx_dtype_t dt, bool neg, uint64_t mag) {
  int bits = hlx_dtype_bits(dt);
  if (hlx_dtype_is_unsigned_int(dt))
    return !neg || mag == 0 ? (bits == 64 || mag < (1ull << bits)) : false;
  uint64_t lim = 1ull << (bits - 1);
  return neg ? mag <= lim : mag < lim;
}

static bool read_element(lit_ctx_t* c) {
  hlo_tok_t t = hlo_lx_next(&c->lx);
  if (c->next >= c->count)
    return hlo_error_at(c->e, t.line, t.col,
                        "literal has more than %lld elements",
                        (long long)c->count);
  uint8_t* dst = c->data + (size_t)c->next * c->es;
  c->next++;
  if (c->dt == HLX_DTYPE_PRED) {
    if (t.kind == HT_NAME && (hlo_tok_is(t, "true") || hlo_tok_is(t, "false")))
      dst[0] = hlo_tok_is(t, "true");
    else if (t.kind == HT_INT && t.n == 1 && (t.p[0] == '0' || t.p[0] == '1'))
      dst[0] = (uint8_t)(t.p[0] - '0');
    else
      return hlo_error_tok(c->e, t, "true or false");
    return true;
  }
  if (hlx_dtype_is_int(c->dt)) {
    if (t.kind != HT_INT) return hlo_error_tok(c->e, t, "integer");
    bool neg = t.p[0] == '-';
    uint64_t mag = 0;
    for (size_t i = neg; i < t.n; i++) {
      uint64_t dd = (uint64_t)(t.p[i] - '0');
      if (mag > (UINT64_MAX - dd) / 10)
        return hlo_error_at(c->e, t.line, t.col, "integer out of range");
      mag = mag * 10 + dd;
    }
    if (!int_in_range(c->dt, neg, mag))
      return hlo_error_at(c->e, t.line, t.col, "%.*s is out of range for %s",
                          (int)t.n, t.p, hlo_dtype_name(c->dt));
    uint64_t v = neg ? 0 - mag : mag;
    memcpy(dst, &v, c->es);
    return true;
  }
  double d;
  uint64_t bits;
  bool has_bits;
  if (hlx_dtype_is_complex(c->dt)) {
    if (!hlo_tok_punct(t, "("))
      return hlo_error_tok(c->e, t, "'(' of a complex value");
    size_t half = c->es / 2;
    for (int k = 0; k < 2; k++) {
      if (!tok_double(c, hlo_lx_next(&c->lx), &d, &bits, &has_bits))
        return false;
      store_float(dst + k * half, c->part, d, bits, has_bits);
      hlo_tok_t sep = hlo_lx_next(&c->lx);
      if (!hlo_tok_punct(sep, k ? ")" : ","))
        return hlo_error_tok(c->e, sep, k ? "')'" : "','");
    }
    return true;
  }
  if (!tok_double(c, t, &d, &bits, &has_bits)) return false;
  store_float(dst, c->part, d, bits, has_bits);
  return true;
}

/* `{ elems }` of dimension d (recursively). */
static bool read_level(lit_ctx_t* c, const hlx_type_t* t, int32_t d) {
  hlo_tok_t open = hlo_lx_next(&c->lx);
  if (!hlo_tok_punct(open, "{")) return hlo_error_tok(c->e, open, "'{'");
  int64_t seen = 0;
  if (!hlo_tok_punct(hlo_lx_peek(&c->lx), "}")) {
    for (;;) {
      if (seen == t->dims[d])
        return hlo_error_at(c->e, open.line, open.col,
                            "dimension %d of the literal has more than %lld "
                            "elements",
                            d, (long long)t->dims[d]);
      if (!(d + 1 < t->rank ? read_level(c, t, d + 1) : read_element(c)))
        return false;
      seen++;
      hlo_tok_t s = hlo_lx_next(&c->lx);
      if (hlo_tok_punct(s, "}")) break;
      if (!hlo_tok_punct(s, ",")) return hlo_error_tok(c->e, s, "',' or '}'");
    }
  } else {
    hlo_lx_next(&c->lx);
  }
  if (seen != t->dims[d])
    return hlo_error_at(c->e, open.line, open.col,
                        "dimension %d of the literal has %lld elements, the "
                        "shape says %lld",
                        d, (long long)seen, (long long)t->dims[d]);
  return true;
}

hlx_attr_t* hlo_read_literal(hlo_b_t* b, const hlo_span_t* s, hlx_type_t* t) {
  lit_ctx_t c;
  memset(&c, 0, sizeof c);
  c.e = b->e;
  hlo_span_lexer(s, &c.lx);
  hlo_tok_t first = hlo_lx_peek(&c.lx);
  if (t->kind != HLX_TYPE_TENSOR || !hlx_type_is_static(t)) {
    hlo_error_unsupported(b->e, first,
                          "constants of tuple, token or dynamic shape");
    return NULL;
  }
  /* Older dumps write the shape again: constant(f32[2] {1, 2}). */
  if (first.kind == HT_NAME &&
      hlo_dtype_from_name(first.p, first.n) != HLX_DTYPE_INVALID &&
      !hlo_parse_shape(&c.lx, b->a, b->e))
    return NULL;
  hlx_attr_t* a = hlx_arena_alloc(b->a, sizeof(*a));
  if (!a) {
    hlo_error_oom(b->e);
    return NULL;
  }
  a->type = t;
  hlo_lexer_t look = c.lx;
  if (t->rank > 0 && hlo_tok_punct(hlo_lx_next(&look), "{") &&
      hlo_tok_punct(hlo_lx_next(&look), "...")) {
    hlo_tok_t close = hlo_lx_next(&look);
    if (!hlo_tok_punct(close, "}")) {
      hlo_error_tok(b->e, close, "'}' after '...'");
      return NULL;
    }
    c.lx = look;
    a->kind = HLX_ATTR_ELIDED;
    a->str = "__elided__";
  } else {
    c.count = hlx_type_num_elements(t);
    c.dt = t->dtype;
    c.part = hlx_dtype_complex_part(t->dtype);
    c.es = hlx_dtype_size(t->dtype);
    if (c.count < 0 || (c.es && (size_t)c.count > MAX_LITERAL_BYTES / c.es)) {
      hlo_error_unsupported(b->e, first, "literals above 1 GiB");
      return NULL;
    }
    a->kind = HLX_ATTR_DENSE;
    a->dense_bytes = (size_t)c.count * c.es;
    a->dense = hlx_arena_alloc(b->a, a->dense_bytes);
    c.data = a->dense;
    if (!a->dense) {
      hlo_error_oom(b->e);
      return NULL;
    }
    if (!(t->rank == 0 ? read_element(&c) : read_level(&c, t, 0))) return NULL;
  }
  hlo_tok_t end = hlo_lx_next(&c.lx);
  if (end.kind != HT_EOF) {
    hlo_error_tok(b->e, end, "end of the literal");
    return NULL;
  }
  return a;
}
