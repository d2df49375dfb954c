/* Types of the StableHLO text parser: tensor (dims, element types incl.
 * quantized, bounds encodings), tuple, !stablehlo.token, aliases. */
#include <string.h>

#include "graph/stablehlo/parser_internal.h"

/* ---- Constructors ---------------------------------------------------------- */
hlx_type_t* make_tensor_type(parser_t* p, hlx_dtype_t dt, hlx_quant_t* q,
                             int32_t rank, const int64_t* dims) {
  hlx_type_t* t = pa_alloc(p, sizeof(*t));
  if (!t) return NULL;
  t->kind = HLX_TYPE_TENSOR;
  t->dtype = dt;
  t->quant = q;
  t->rank = rank;
  if (rank > 0) {
    t->dims = pa_alloc(p, sizeof(int64_t) * (size_t)rank);
    if (!t->dims) return NULL;
    memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
  }
  return t;
}

hlx_type_t* make_scalar_type(parser_t* p, hlx_dtype_t dt) {
  return make_tensor_type(p, dt, NULL, 0, NULL);
}

/* ---- Types -------------------------------------------------------------------- */
static bool parse_quant(parser_t* p, hlx_quant_t** out);

/* Element type: a bare dtype name, complex<..>, or !quant.uniform<..>. */
static bool parse_elem_type(parser_t* p, hlx_dtype_t* dt, hlx_quant_t** q) {
  *q = NULL;
  tok_t t = lx_peek(&p->lx);
  if (t.kind == TK_BANG && tok_is(t, "!quant.uniform")) {
    lx_next(&p->lx);
    if (!parse_quant(p, q)) return false;
    *dt = (*q)->storage;
    return true;
  }
  if (t.kind == TK_BANG) {
    const alias_t* al = find_alias(p, t.p, t.n);
    if (al && al->type && al->type->kind == HLX_TYPE_TENSOR &&
        al->type->rank == 0) {
      lx_next(&p->lx);
      *dt = al->type->dtype;
      *q = al->type->quant;
      return true;
    }
  }
  if (t.kind != TK_BARE) return perr_tok(p, t, "element type");
  lx_next(&p->lx);
  if (tok_is(t, "complex")) {
    if (!expect_punct(p, "<", "'<'")) return false;
    tok_t e = lx_next(&p->lx);
    hlx_dtype_t part = e.kind == TK_BARE ? hlx_dtype_from_name(e.p, e.n)
                                         : HLX_DTYPE_INVALID;
    if (part == HLX_DTYPE_F32) *dt = HLX_DTYPE_C64;
    else if (part == HLX_DTYPE_F64) *dt = HLX_DTYPE_C128;
    else return perr_unsupported(p, e, "complex element type");
    return expect_punct(p, ">", "'>'");
  }
  if (tok_is(t, "index") && p->allow_index) {
    *dt = HLX_DTYPE_S64; /* the caller marks the type is_index */
    return true;
  }
  hlx_dtype_t d = hlx_dtype_from_name(t.p, t.n);
  if (d == HLX_DTYPE_INVALID || hlx_dtype_is_complex(d))
    return perr_unsupported(p, t, "element type");
  *dt = d;
  return true;
}

static bool parse_quant(parser_t* p, hlx_quant_t** out) {
  hlx_quant_t* q = pa_alloc(p, sizeof(*q));
  if (!q) return false;
  q->quantized_dimension = -1;
  if (!expect_punct(p, "<", "'<'")) return false;
  tok_t st = lx_next(&p->lx);
  hlx_dtype_t sd = HLX_DTYPE_INVALID;
  if (st.kind == TK_BARE) {
    if (st.n >= 2 && st.p[0] == 'u' && st.p[1] != 'i') {
      char buf[16];
      if (st.n + 1 < sizeof(buf)) {
        buf[0] = 'u';
        buf[1] = 'i';
        memcpy(buf + 2, st.p + 1, st.n - 1);
        sd = hlx_dtype_from_name(buf, st.n + 1);
      }
    } else {
      sd = hlx_dtype_from_name(st.p, st.n);
    }
  }
  if (!hlx_dtype_is_int(sd)) return perr_unsupported(p, st, "quantized storage type");
  q->storage = sd;
  if (accept_punct(p, "<")) {
    q->has_storage_range = true;
    if (!parse_int_literal(p, &q->storage_min)) return false;
    if (!expect_punct(p, ":", "':'")) return false;
    if (!parse_int_literal(p, &q->storage_max)) return false;
    if (!expect_punct(p, ">", "'>'")) return false;
  }
  if (!expect_punct(p, ":", "':'")) return false;
  tok_t et = lx_next(&p->lx);
  hlx_dtype_t ed =
      et.kind == TK_BARE ? hlx_dtype_from_name(et.p, et.n) : HLX_DTYPE_INVALID;
  if (!hlx_dtype_is_float(ed))
    return perr_unsupported(p, et, "quantized expressed type");
  q->expressed = ed;
  if (accept_punct(p, ":")) {
    int64_t axis;
    if (!parse_int_literal(p, &axis)) return false;
    if (axis < 0 || axis > HLX_MAX_RANK)
      return perr_at(p, et.line, et.col, "bad quantized dimension");
    q->quantized_dimension = (int32_t)axis;
  }
  if (!expect_punct(p, ",", "','")) return false;
  bool per_axis = accept_punct(p, "{");
  int32_t cap_s = 0, cap_z = 0, nz = 0;
  for (;;) {
    double scale;
    int64_t zp = 0;
    if (!parse_float_literal(p, &scale)) return false;
    if (accept_punct(p, ":") && !parse_int_literal(p, &zp)) return false;
    if (!pa_push(p, (void**)&q->scales, &q->num_scales, &cap_s, sizeof(double),
                 &scale) ||
        !pa_push(p, (void**)&q->zero_points, &nz, &cap_z, sizeof(int64_t), &zp))
      return false;
    if (per_axis && accept_punct(p, ",")) continue;
    break;
  }
  if (per_axis && !expect_punct(p, "}", "'}'")) return false;
  if (!per_axis && q->quantized_dimension >= 0)
    return perr_at(p, st.line, st.col, "per-axis quantization needs {scales}");
  if (!expect_punct(p, ">", "'>'")) return false;
  *out = q;
  return true;
}

static bool parse_bounds_encoding(parser_t* p, hlx_type_t* t) {
  tok_t e = lx_next(&p->lx);
  bool ext = tok_is(e, "#stablehlo.type_extensions");
  if (e.kind != TK_HASH || (!tok_is(e, "#stablehlo.bounds") && !ext))
    return perr_unsupported(p, e, "tensor encoding");
  if (!expect_punct(p, "<", "'<'")) return false;
  if (ext) {
    tok_t k = lx_next(&p->lx);
    if (!tok_is(k, "bounds")) return perr_tok(p, k, "'bounds'");
    if (!expect_punct(p, "=", "'='")) return false;
    if (!expect_punct(p, "[", "'['")) return false;
  }
  t->bounds = pa_alloc(p, sizeof(int64_t) * (size_t)(t->rank > 0 ? t->rank : 1));
  if (!t->bounds) return false;
  for (int32_t i = 0; i < t->rank; i++) {
    if (i > 0 && !expect_punct(p, ",", "','")) return false;
    if (accept_punct(p, "?")) {
      t->bounds[i] = HLX_DYNAMIC_DIM;
    } else if (!parse_int_literal(p, &t->bounds[i])) {
      return false;
    }
  }
  if (ext && !expect_punct(p, "]", "']'")) return false;
  return expect_punct(p, ">", "'>'");
}

hlx_type_t* parse_type(parser_t* p) {
  if (p->err) return NULL;
  tok_t t = lx_peek(&p->lx);
  if (t.kind == TK_BANG) {
    lx_next(&p->lx);
    if (tok_is(t, "!stablehlo.token")) {
      hlx_type_t* ty = pa_alloc(p, sizeof(*ty));
      if (ty) ty->kind = HLX_TYPE_TOKEN;
      return ty;
    }
    if (tok_is(t, "!stablehlo.future")) {
      /* future<T...>: held like a tuple of its values (is_future). */
      if (!expect_punct(p, "<", "'<'")) return NULL;
      if (++p->depth > HLX_PARSE_MAX_DEPTH) {
        perr_at(p, t.line, t.col, "unsupported: nesting deeper than %d",
                HLX_PARSE_MAX_DEPTH);
        return NULL;
      }
      hlx_type_t* ty = pa_alloc(p, sizeof(*ty));
      if (!ty) return NULL;
      ty->kind = HLX_TYPE_TUPLE;
      ty->is_future = true;
      int32_t cap = 0;
      if (!accept_punct(p, ">")) {
        for (;;) {
          hlx_type_t* e = parse_type(p);
          if (!e) return NULL;
          if (!pa_push(p, (void**)&ty->elems, &ty->num_elems, &cap,
                       sizeof(hlx_type_t*), &e))
            return NULL;
          if (accept_punct(p, ",")) continue;
          if (!expect_punct(p, ">", "',' or '>'")) return NULL;
          break;
        }
      }
      p->depth--;
      return ty;
    }
    const alias_t* al = find_alias(p, t.p, t.n);
    if (al && al->type) return al->type;
    perr_unsupported(p, t, "type");
    return NULL;
  }
  if (t.kind != TK_BARE) {
    perr_tok(p, t, "type");
    return NULL;
  }
  if (tok_is(t, "tuple")) {
    lx_next(&p->lx);
    if (!expect_punct(p, "<", "'<'")) return NULL;
    if (++p->depth > HLX_PARSE_MAX_DEPTH) {
      perr_at(p, t.line, t.col, "unsupported: nesting deeper than %d",
              HLX_PARSE_MAX_DEPTH);
      return NULL;
    }
    hlx_type_t* ty = pa_alloc(p, sizeof(*ty));
    if (!ty) return NULL;
    ty->kind = HLX_TYPE_TUPLE;
    int32_t cap = 0;
    if (!accept_punct(p, ">")) {
      for (;;) {
        hlx_type_t* e = parse_type(p);
        if (!e) return NULL;
        if (!pa_push(p, (void**)&ty->elems, &ty->num_elems, &cap,
                     sizeof(hlx_type_t*), &e))
          return NULL;
        if (accept_punct(p, ",")) continue;
        if (!expect_punct(p, ">", "',' or '>'")) return NULL;
        break;
      }
    }
    p->depth--;
    return ty;
  }
  if (!tok_is(t, "tensor")) {
    perr_unsupported(p, t, "type (only tensor, tuple and !stablehlo.token)");
    return NULL;
  }
  lx_next(&p->lx);
  if (!expect_punct(p, "<", "'<'")) return NULL;
  int64_t dims[HLX_MAX_RANK];
  int32_t rank = 0;
  for (;;) {
    lx_skip_ws(&p->lx);
    int c = lx_char(&p->lx);
    int line = p->lx.s.line, col = lx_col(&p->lx);
    int64_t d;
    if (c == '?') {
      lx_advance(&p->lx, 1);
      d = HLX_DYNAMIC_DIM;
    } else if (c >= '0' && c <= '9') {
      uint64_t v = 0;
      while ((c = lx_char(&p->lx)) >= '0' && c <= '9') {
        if (v > (uint64_t)(INT64_MAX - 9) / 10) {
          perr_at(p, line, col, "dimension too large");
          return NULL;
        }
        v = v * 10 + (uint64_t)(c - '0');
        lx_advance(&p->lx, 1);
      }
      d = (int64_t)v;
    } else if (c == '*') {
      perr_at(p, line, col, "unsupported: unranked tensor");
      return NULL;
    } else {
      break;
    }
    if (lx_char(&p->lx) != 'x') {
      perr_at(p, p->lx.s.line, lx_col(&p->lx), "expected 'x' after dimension");
      return NULL;
    }
    lx_advance(&p->lx, 1);
    if (rank >= HLX_MAX_RANK) {
      perr_at(p, line, col, "unsupported: rank above %d", HLX_MAX_RANK);
      return NULL;
    }
    dims[rank++] = d;
  }
  hlx_dtype_t dt = HLX_DTYPE_INVALID;
  hlx_quant_t* q;
  bool is_index = peek_bare(p, "index");
  if (!parse_elem_type(p, &dt, &q)) return NULL;
  hlx_type_t* ty = make_tensor_type(p, dt, q, rank, dims);
  if (!ty) return NULL;
  ty->is_index = is_index;
  if (accept_punct(p, ",") && !parse_bounds_encoding(p, ty)) return NULL;
  if (!expect_punct(p, ">", "'>'")) return NULL;
  return ty;
}


hlx_type_t* parse_attr_type(parser_t* p) {
  bool was = p->allow_index;
  p->allow_index = true;
  hlx_type_t* t = parse_type(p);
  p->allow_index = was;
  return t;
}
