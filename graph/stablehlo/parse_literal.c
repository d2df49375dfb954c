/* Numbers and dense<...> literals of the StableHLO text parser. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/stablehlo/parser_internal.h"

int lit_hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}


/* ---- Numbers ---------------------------------------------------------------- */
/* Parses an integer token's text (optionally negative, decimal or 0x hex)
 * into magnitude + sign. False on overflow of 64 bits. */
bool lit_int_text(const char* s, size_t n, uint64_t* mag, bool* neg) {
  *neg = false;
  if (n > 0 && s[0] == '-') {
    *neg = true;
    s++;
    n--;
  }
  uint64_t v = 0;
  if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (size_t i = 2; i < n; i++) {
      int h = lit_hexval(s[i]);
      if (h < 0 || v > (UINT64_MAX >> 4)) return false;
      v = (v << 4) | (uint64_t)h;
    }
  } else {
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++) {
      if (s[i] < '0' || s[i] > '9') return false;
      uint64_t d = (uint64_t)(s[i] - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
  }
  *mag = v;
  return true;
}

bool lit_is_hex(const char* s, size_t n) {
  if (n > 0 && s[0] == '-') {
    s++;
    n--;
  }
  return n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

bool parse_int_literal(parser_t* p, int64_t* out) {
  tok_t t = lx_next(&p->lx);
  bool extra_neg = false;
  if (tok_punct(t, "-")) {
    extra_neg = true;
    t = lx_next(&p->lx);
  }
  if (t.kind != TK_INT) return perr_tok(p, t, "integer");
  uint64_t mag;
  bool neg;
  if (!lit_int_text(t.p, t.n, &mag, &neg))
    return perr_at(p, t.line, t.col, "integer literal out of range");
  neg = neg != extra_neg;
  if (neg) {
    if (mag > (uint64_t)INT64_MAX + 1)
      return perr_at(p, t.line, t.col, "integer literal out of range");
    *out = (int64_t)(0 - mag);
  } else {
    if (mag > (uint64_t)INT64_MAX)
      return perr_at(p, t.line, t.col, "integer literal out of range");
    *out = (int64_t)mag;
  }
  return true;
}

static bool text_to_double(const char* s, size_t n, double* out) {
  char buf[128];
  if (n == 0 || n >= sizeof(buf)) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  char* endp = NULL;
  errno = 0;
  double d = strtod(buf, &endp);
  if (endp != buf + n) return false;
  *out = d;
  return true;
}

static bool text_to_float(const char* s, size_t n, float* out) {
  char buf[128];
  if (n == 0 || n >= sizeof(buf)) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  char* endp = NULL;
  float f = strtof(buf, &endp);
  if (endp != buf + n) return false;
  *out = f;
  return true;
}

bool parse_float_literal(parser_t* p, double* out) {
  tok_t t = lx_next(&p->lx);
  bool neg = false;
  if (tok_punct(t, "-")) {
    neg = true;
    t = lx_next(&p->lx);
  }
  if (t.kind == TK_BARE && (tok_is(t, "inf") || tok_is(t, "nan"))) {
    *out = tok_is(t, "inf") ? INFINITY : NAN;
  } else if ((t.kind == TK_INT && !lit_is_hex(t.p, t.n)) ||
             t.kind == TK_FLOAT) {
    if (!text_to_double(t.p, t.n, out)) return perr_tok(p, t, "number");
  } else {
    return perr_tok(p, t, "floating-point number");
  }
  if (neg) *out = -*out;
  return true;
}

bool parse_i64_list(parser_t* p, int64_t** out, int32_t* n) {
  if (!expect_punct(p, "[", "'['")) return false;
  int64_t* v = NULL;
  int32_t cnt = 0, cap = 0;
  if (!accept_punct(p, "]")) {
    for (;;) {
      int64_t x;
      if (!parse_int_literal(p, &x)) return false;
      if (!pa_push(p, (void**)&v, &cnt, &cap, sizeof(int64_t), &x))
        return false;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, "]", "',' or ']'")) return false;
      break;
    }
  }
  *out = v;
  *n = cnt;
  return true;
}

/* ---- Dense literals -------------------------------------------------------- */
static bool push_lit(parser_t* p, tok_t t, bool neg) {
  if (p->nlits == p->caplits) {
    size_t nc = p->caplits ? p->caplits * 2 : 256;
    lit_t* nl = realloc(p->lits, nc * sizeof(lit_t));
    if (!nl) {
      if (!p->err) p->err = hlx_status_oom();
      return false;
    }
    p->lits = nl;
    p->caplits = nc;
  }
  lit_t* l = &p->lits[p->nlits++];
  l->p = t.p;
  l->n = (uint32_t)t.n;
  l->kind = (uint8_t)t.kind;
  l->neg = neg;
  l->line = t.line;
  l->col = t.col;
  return true;
}

static bool parse_scalar_lit(parser_t* p) {
  tok_t t = lx_next(&p->lx);
  bool neg = false;
  if (tok_punct(t, "-")) {
    neg = true;
    t = lx_next(&p->lx);
  }
  if (t.kind == TK_INT || t.kind == TK_FLOAT ||
      (t.kind == TK_BARE && (tok_is(t, "true") || tok_is(t, "false") ||
                             tok_is(t, "inf") || tok_is(t, "nan"))))
    return push_lit(p, t, neg);
  return perr_tok(p, t, "literal");
}

/* One element: a scalar or (re, im). Pushes 1 or 2 literals. */
static bool parse_dense_elem(parser_t* p, int* complex_flag) {
  if (accept_punct(p, "(")) {
    if (*complex_flag == 0) *complex_flag = 1;
    if (*complex_flag != 1) return perr_tok(p, lx_peek(&p->lx), "scalar");
    if (!parse_scalar_lit(p) || !expect_punct(p, ",", "','") ||
        !parse_scalar_lit(p) || !expect_punct(p, ")", "')'"))
      return false;
    return true;
  }
  if (*complex_flag == 0) *complex_flag = 2;
  if (*complex_flag != 2) return perr_tok(p, lx_peek(&p->lx), "'('");
  return parse_scalar_lit(p);
}

/* Nested-list shape of a dense literal: the length of the lists at each
 * depth (all lists of one depth must agree) and the depth of the leaves. */
typedef struct dense_shape_t {
  int64_t len[HLX_MAX_RANK + 2];
  int leaf_depth; /* -1 until the first leaf */
  bool ragged;
} dense_shape_t;

static bool parse_dense_list(parser_t* p, int* complex_flag, int depth,
                             dense_shape_t* sh) {
  tok_t open = lx_peek(&p->lx);
  if (depth > HLX_MAX_RANK) {
    return perr_at(p, open.line, open.col, "dense literal nested too deeply");
  }
  int64_t count = 0;
  if (!accept_punct(p, "]")) {
    for (;;) {
      if (accept_punct(p, "[")) {
        if (!parse_dense_list(p, complex_flag, depth + 1, sh)) return false;
      } else {
        if (!parse_dense_elem(p, complex_flag)) return false;
        if (sh->leaf_depth < 0) sh->leaf_depth = depth;
        else if (sh->leaf_depth != depth) sh->ragged = true;
      }
      count++;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, "]", "',' or ']'")) return false;
      break;
    }
  }
  if (sh->len[depth] < 0) sh->len[depth] = count;
  else if (sh->len[depth] != count) sh->ragged = true;
  return true;
}

/* Converts one literal (or the pair at lits[i], lits[i+1] for complex) of
 * dtype dt to its storage bytes at dst. */
bool lit_to_float(parser_t* p, const lit_t* l, hlx_dtype_t dt,
                         double* d, uint64_t* bits, bool* is_bits) {
  *is_bits = false;
  if (l->kind == TK_BARE) {
    if (l->n == 3 && memcmp(l->p, "inf", 3) == 0) *d = INFINITY;
    else if (l->n == 3 && memcmp(l->p, "nan", 3) == 0) *d = NAN;
    else return perr_at(p, l->line, l->col, "expected a float literal");
    if (l->neg) *d = -*d;
    return true;
  }
  if (l->kind == TK_INT && lit_is_hex(l->p, l->n)) {
    uint64_t mag;
    bool neg;
    if (!lit_int_text(l->p, l->n, &mag, &neg) || neg || l->neg)
      return perr_at(p, l->line, l->col, "bad hexadecimal float literal");
    int bits_n = hlx_dtype_bits(dt);
    if (bits_n < 64 && (mag >> bits_n) != 0)
      return perr_at(p, l->line, l->col,
                     "hexadecimal float literal wider than %d bits", bits_n);
    *bits = mag;
    *is_bits = true;
    return true;
  }
  if (dt == HLX_DTYPE_F32) {
    float f;
    if (!text_to_float(l->p, l->n, &f))
      return perr_at(p, l->line, l->col, "bad float literal");
    *d = l->neg ? -(double)f : (double)f;
    return true;
  }
  if (!text_to_double(l->p, l->n, d))
    return perr_at(p, l->line, l->col, "bad float literal");
  if (l->neg) *d = -*d;
  return true;
}

static bool store_float(parser_t* p, const lit_t* l, hlx_dtype_t dt,
                        uint8_t* dst) {
  double d = 0;
  uint64_t bits = 0;
  bool is_bits;
  if (!lit_to_float(p, l, dt, &d, &bits, &is_bits)) return false;
  size_t sz = hlx_dtype_size(dt);
  if (is_bits) {
    for (size_t i = 0; i < sz; i++) dst[i] = (uint8_t)(bits >> (8 * i));
    return true;
  }
  if (dt == HLX_DTYPE_F64) {
    memcpy(dst, &d, 8);
  } else if (dt == HLX_DTYPE_F32) {
    float f = (float)d;
    memcpy(dst, &f, 4);
  } else if (dt == HLX_DTYPE_F16) {
    uint16_t h = hlx_f64_to_f16(d);
    memcpy(dst, &h, 2);
  } else if (dt == HLX_DTYPE_BF16) {
    uint16_t h = hlx_f64_to_bf16(d);
    memcpy(dst, &h, 2);
  } else {
    dst[0] = (uint8_t)hlx_f64_to_small_float(dt, d);
  }
  return true;
}

static bool store_int(parser_t* p, const lit_t* l, hlx_dtype_t dt,
                      uint8_t* dst) {
  uint64_t mag = 0;
  bool neg = false;
  if (l->kind == TK_BARE) {
    if (l->n == 4 && memcmp(l->p, "true", 4) == 0) mag = 1;
    else if (l->n == 5 && memcmp(l->p, "false", 5) == 0) mag = 0;
    else return perr_at(p, l->line, l->col, "expected an integer literal");
  } else if (l->kind != TK_INT) {
    return perr_at(p, l->line, l->col, "expected an integer literal");
  } else if (!lit_int_text(l->p, l->n, &mag, &neg)) {
    return perr_at(p, l->line, l->col, "integer literal out of range");
  }
  if (l->neg) neg = !neg;
  int bits = hlx_dtype_bits(dt);
  uint64_t v;
  if (dt == HLX_DTYPE_PRED) {
    if (neg || mag > 1)
      return perr_at(p, l->line, l->col, "i1 literal must be 0/1/true/false");
    dst[0] = (uint8_t)mag;
    return true;
  }
  if (hlx_dtype_is_signed_int(dt)) {
    uint64_t maxpos = (bits == 64) ? (uint64_t)INT64_MAX
                                   : (((uint64_t)1 << (bits - 1)) - 1);
    if (neg ? mag > maxpos + 1 : mag > maxpos) {
      /* Accept the unsigned spelling of a bit pattern (e.g. 0xFF : i8). */
      uint64_t umax = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
      if (neg || mag > umax)
        return perr_at(p, l->line, l->col, "integer literal out of range for %s",
                       hlx_dtype_name(dt));
    }
    v = neg ? (uint64_t)0 - mag : mag;
    if (bits < 64) {
      /* sign-extend from bits */
      uint64_t m = (uint64_t)1 << (bits - 1);
      v &= ((uint64_t)1 << bits) - 1;
      v = (v ^ m) - m;
    }
  } else {
    uint64_t umax = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    if (neg && mag != 0) {
      return perr_at(p, l->line, l->col, "negative literal for unsigned type %s",
                     hlx_dtype_name(dt));
    } else {
      if (mag > umax)
        return perr_at(p, l->line, l->col, "integer literal out of range for %s",
                       hlx_dtype_name(dt));
      v = mag;
    }
  }
  size_t sz = hlx_dtype_size(dt);
  for (size_t i = 0; i < sz; i++) dst[i] = (uint8_t)(v >> (8 * i));
  return true;
}

hlx_attr_t* parse_dense_after_kw(parser_t* p, tok_t kw) {
  if (!expect_punct(p, "<", "'<'")) return NULL;
  p->nlits = 0;
  int complex_flag = 0;
  bool is_list = false;
  dense_shape_t shape;
  shape.leaf_depth = -1;
  shape.ragged = false;
  tok_t blob = {0};
  bool has_blob = false;
  tok_t t = lx_peek(&p->lx);
  if (t.kind == TK_STRING) {
    lx_next(&p->lx);
    blob = t;
    has_blob = true;
  } else if (tok_punct(t, ">")) {
    /* empty */
  } else if (tok_punct(t, "[")) {
    lx_next(&p->lx);
    is_list = true;
    for (int i = 0; i < HLX_MAX_RANK + 2; i++) shape.len[i] = -1;
    if (!parse_dense_list(p, &complex_flag, 0, &shape)) return NULL;
  } else if (!parse_dense_elem(p, &complex_flag)) {
    return NULL;
  }
  if (!expect_punct(p, ">", "'>'")) return NULL;
  if (!expect_punct(p, ":", "':' and a type after dense<...>")) return NULL;
  tok_t tt = lx_peek(&p->lx);
  hlx_type_t* ty = parse_attr_type(p);
  if (!ty) return NULL;
  if (ty->kind != HLX_TYPE_TENSOR) {
    perr_unsupported(p, tt, "dense attribute of non-tensor type");
    return NULL;
  }
  int64_t n = hlx_type_num_elements(ty);
  if (n < 0) {
    if (hlx_type_is_static(ty))
      perr_at(p, kw.line, kw.col,
              "unsupported: dense attribute with more than 2^63 elements");
    else
      perr_unsupported(p, tt, "dense attribute of dynamic shape");
    return NULL;
  }
  hlx_dtype_t dt = ty->dtype;
  size_t esz = hlx_dtype_size(dt);
  if ((uint64_t)n > HLX_DENSE_MAX_BYTES / esz) {
    perr_at(p, kw.line, kw.col,
            "unsupported: dense attribute of %lld elements exceeds 1 GiB",
            (long long)n);
    return NULL;
  }
  size_t bytes = (size_t)n * esz;
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_DENSE;
  a->type = ty;
  a->dense_bytes = bytes;
  uint8_t* data = pa_alloc(p, bytes ? bytes : 1);
  if (!data) return NULL;
  a->dense = data;
  if (has_blob) {
    const char* s = blob.p + 1;
    size_t sn = blob.n - 2;
    if (sn < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || (sn % 2) != 0) {
      perr_unsupported(p, blob, "dense string literal (expected a hex blob)");
      return NULL;
    }
    size_t nb = (sn - 2) / 2;
    if (nb != bytes && !(nb == esz && n > 0)) {
      perr_at(p, blob.line, blob.col,
              "hex blob has %zu bytes, the type needs %zu (or %zu for a splat)",
              nb, bytes, esz);
      return NULL;
    }
    uint8_t* dst = data;
    for (size_t i = 0; i < nb; i++) {
      int hi = lit_hexval(s[2 + 2 * i]), lo = lit_hexval(s[3 + 2 * i]);
      if (hi < 0 || lo < 0) {
        perr_at(p, blob.line, blob.col, "bad hex digit in blob");
        return NULL;
      }
      dst[i] = (uint8_t)(hi * 16 + lo);
    }
    for (size_t i = 0; i < nb; i += esz) hlx_dtype_canonicalize_elem(dt, dst + i);
    if (nb != bytes)
      for (int64_t i = 1; i < n; i++) memcpy(dst + (size_t)i * esz, dst, esz);
    return a;
  }
  bool cplx = hlx_dtype_is_complex(dt);
  if (p->nlits > 0 && cplx != (complex_flag == 1)) {
    perr_at(p, kw.line, kw.col, cplx ? "expected (re, im) literals for %s"
                                     : "unexpected complex literal for %s",
            hlx_dtype_name(dt));
    return NULL;
  }
  size_t per = cplx ? 2 : 1;
  size_t count = p->nlits / per;
  if (is_list) {
    /* [[1, 2], [3, 4]] must match the shape: one list level per dimension
     * (an empty [] stands for any shape with no elements). */
    bool ok = !shape.ragged;
    if (ok && shape.leaf_depth >= 0) {
      ok = shape.leaf_depth + 1 == ty->rank;
      for (int32_t i = 0; ok && i < ty->rank; i++) ok = shape.len[i] == ty->dims[i];
    } else if (ok) {
      ok = n == 0;
    }
    if (!ok) {
      perr_at(p, kw.line, kw.col,
              "dense literal's nested lists do not match the shape of the type");
      return NULL;
    }
  } else if (!(count == (size_t)n || count == 1)) {
    perr_at(p, kw.line, kw.col, "dense literal has %zu elements, type needs %lld",
            count, (long long)n);
    return NULL;
  }
  if (n == 0) return a;
  hlx_dtype_t part = cplx ? hlx_dtype_complex_part(dt) : dt;
  size_t psz = hlx_dtype_size(part);
  for (size_t i = 0; i < count; i++) {
    for (size_t k = 0; k < per; k++) {
      const lit_t* l = &p->lits[i * per + k];
      uint8_t* dst = data + i * esz + k * psz;
      bool ok = hlx_dtype_is_float(part) ? store_float(p, l, part, dst)
                                         : store_int(p, l, part, dst);
      if (!ok) return NULL;
    }
  }
  if (count == 1 && n > 1)
    for (int64_t i = 1; i < n; i++) memcpy(data + (size_t)i * esz, data, esz);
  return a;
}

