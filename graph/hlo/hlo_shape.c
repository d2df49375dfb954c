/* HLO shapes: `f32[2,3]{1,0}`, `s32[]`, `(f32[2], token[])`, `pred[?,<=4]`,
 * layouts with tiles (`{1,0:T(8,128)}`: tiles and the rest after ':' are
 * read and ignored) and the element type names. */
#include <string.h>

#include "graph/hlo/hlo_internal.h"

static const struct {
  const char* name;
  hlx_dtype_t dt;
} kTypes[] = {
    {"pred", HLX_DTYPE_PRED},
    {"s2", HLX_DTYPE_S2},
    {"s4", HLX_DTYPE_S4},
    {"s8", HLX_DTYPE_S8},
    {"s16", HLX_DTYPE_S16},
    {"s32", HLX_DTYPE_S32},
    {"s64", HLX_DTYPE_S64},
    {"u2", HLX_DTYPE_U2},
    {"u4", HLX_DTYPE_U4},
    {"u8", HLX_DTYPE_U8},
    {"u16", HLX_DTYPE_U16},
    {"u32", HLX_DTYPE_U32},
    {"u64", HLX_DTYPE_U64},
    {"f16", HLX_DTYPE_F16},
    {"bf16", HLX_DTYPE_BF16},
    {"f32", HLX_DTYPE_F32},
    {"f64", HLX_DTYPE_F64},
    {"c64", HLX_DTYPE_C64},
    {"c128", HLX_DTYPE_C128},
    {"f8e5m2", HLX_DTYPE_F8E5M2},
    {"f8e4m3fn", HLX_DTYPE_F8E4M3FN},
    {"f8e4m3b11fnuz", HLX_DTYPE_F8E4M3B11FNUZ},
    {"f8e5m2fnuz", HLX_DTYPE_F8E5M2FNUZ},
    {"f8e4m3fnuz", HLX_DTYPE_F8E4M3FNUZ},
    {"f8e4m3", HLX_DTYPE_F8E4M3},
    {"f8e3m4", HLX_DTYPE_F8E3M4},
    {"f4e2m1fn", HLX_DTYPE_F4E2M1FN},
    {"f6e2m3fn", HLX_DTYPE_F6E2M3FN},
    {"f6e3m2fn", HLX_DTYPE_F6E3M2FN},
    {"f8e8m0fnu", HLX_DTYPE_F8E8M0FNU},
};

hlx_dtype_t hlo_dtype_from_name(const char* s, size_t n) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (strlen(kTypes[i].name) == n && memcmp(kTypes[i].name, s, n) == 0)
      return kTypes[i].dt;
  return HLX_DTYPE_INVALID;
}

const char* hlo_dtype_name(hlx_dtype_t t) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (kTypes[i].dt == t) return kTypes[i].name;
  return NULL;
}

bool hlo_push(hlx_arena_t* a, void** arr, int32_t* n, int32_t* cap, size_t elem,
              const void* item) {
  if (*n >= *cap) {
    if (*cap > INT32_MAX / 2) return false;
    int32_t nc = *cap ? *cap * 2 : 4;
    void* na = hlx_arena_alloc_array(a, (size_t)nc, elem);
    if (!na) return false;
    if (*n > 0) memcpy(na, *arr, (size_t)*n * elem);
    *arr = na;
    *cap = nc;
  }
  memcpy((char*)*arr + (size_t)*n * elem, item, elem);
  (*n)++;
  return true;
}

static bool parse_int(hlo_lexer_t* lx, hlo_err_t* e, int64_t* out) {
  hlo_tok_t t = hlo_lx_next(lx);
  if (t.kind != HT_INT) return hlo_error_tok(e, t, "integer");
  int64_t v = 0;
  size_t i = t.p[0] == '-';
  for (; i < t.n; i++) {
    if (v > (INT64_MAX - 9) / 10)
      return hlo_error_at(e, t.line, t.col, "integer out of range");
    v = v * 10 + (t.p[i] - '0');
  }
  *out = t.p[0] == '-' ? -v : v;
  return true;
}

/* `{` ints [':' anything] `}` after an array shape. */
static bool parse_layout(hlo_lexer_t* lx, hlx_arena_t* a, hlo_err_t* e,
                         hlo_shape_t* s) {
  hlo_tok_t open = hlo_lx_next(lx);
  int64_t* m2m = NULL;
  int32_t n = 0, cap = 0;
  hlo_tok_t t = hlo_lx_peek(lx);
  while (t.kind == HT_INT) {
    int64_t d;
    if (!parse_int(lx, e, &d)) return false;
    if (!hlo_push(a, (void**)&m2m, &n, &cap, sizeof d, &d))
      return hlo_error_oom(e);
    t = hlo_lx_peek(lx);
    if (!hlo_tok_punct(t, ",")) break;
    hlo_lx_next(lx);
    t = hlo_lx_peek(lx);
  }
  if (hlo_tok_punct(t, ":")) {
    int depth = 0;
    for (;;) {
      t = hlo_lx_next(lx);
      if (t.kind == HT_EOF || t.kind == HT_ERROR)
        return hlo_error_tok(e, t, "'}' closing the layout");
      if (hlo_tok_punct(t, "(")) depth++;
      if (hlo_tok_punct(t, ")")) depth--;
      if (depth == 0 && hlo_tok_punct(hlo_lx_peek(lx), "}")) break;
    }
  }
  t = hlo_lx_next(lx);
  if (!hlo_tok_punct(t, "}"))
    return hlo_error_tok(e, t, "'}' closing the layout");
  if (n != s->rank)
    return hlo_error_at(e, open.line, open.col,
                        "layout lists %d dimensions for a rank-%d shape", n,
                        s->rank);
  bool seen[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < n; i++) {
    if (m2m[i] < 0 || m2m[i] >= n || seen[m2m[i]])
      return hlo_error_at(e, open.line, open.col,
                          "layout is not a permutation of the dimensions");
    seen[m2m[i]] = true;
  }
  s->layout = m2m;
  return true;
}

static bool parse_dims(hlo_lexer_t* lx, hlx_arena_t* a, hlo_err_t* e,
                       hlo_shape_t* s) {
  int64_t dims[HLX_MAX_RANK], bounds[HLX_MAX_RANK];
  bool any_bound = false;
  int32_t n = 0;
  hlo_tok_t t = hlo_lx_next(lx); /* [ */
  if (!hlo_tok_punct(hlo_lx_peek(lx), "]")) {
    for (;;) {
      if (n == HLX_MAX_RANK)
        return hlo_error_unsupported(e, t, "rank above %d", HLX_MAX_RANK);
      t = hlo_lx_peek(lx);
      bounds[n] = HLX_DYNAMIC_DIM;
      if (hlo_tok_punct(t, "?")) {
        hlo_lx_next(lx);
        dims[n] = HLX_DYNAMIC_DIM;
      } else {
        bool le = hlo_tok_punct(t, "<=");
        if (le) hlo_lx_next(lx);
        int64_t d;
        if (!parse_int(lx, e, &d)) return false;
        if (d < 0) return hlo_error_at(e, t.line, t.col, "negative dimension");
        dims[n] = le ? HLX_DYNAMIC_DIM : d;
        if (le) bounds[n] = d, any_bound = true;
      }
      n++;
      t = hlo_lx_next(lx);
      if (hlo_tok_punct(t, "]")) break;
      if (!hlo_tok_punct(t, ",")) return hlo_error_tok(e, t, "',' or ']'");
    }
  } else {
    hlo_lx_next(lx);
  }
  s->rank = n;
  s->dims = hlx_arena_alloc_array(a, (size_t)n + 1, sizeof(int64_t));
  if (!s->dims) return hlo_error_oom(e);
  memcpy(s->dims, dims, sizeof(int64_t) * (size_t)n);
  if (any_bound) {
    s->bounds = hlx_arena_alloc_array(a, (size_t)n + 1, sizeof(int64_t));
    if (!s->bounds) return hlo_error_oom(e);
    memcpy(s->bounds, bounds, sizeof(int64_t) * (size_t)n);
  }
  return true;
}

static hlo_shape_t* parse_shape_depth(hlo_lexer_t* lx, hlx_arena_t* a,
                                      hlo_err_t* e, int depth) {
  hlo_tok_t t = hlo_lx_next(lx);
  if (depth > 64) {
    hlo_error_unsupported(e, t, "tuple shapes nested deeper than 64");
    return NULL;
  }
  hlo_shape_t* s = hlx_arena_alloc(a, sizeof(*s));
  if (!s) {
    hlo_error_oom(e);
    return NULL;
  }
  if (hlo_tok_punct(t, "(")) {
    s->kind = HLX_TYPE_TUPLE;
    int32_t cap = 0;
    if (hlo_tok_punct(hlo_lx_peek(lx), ")")) {
      hlo_lx_next(lx);
      return s;
    }
    for (;;) {
      hlo_shape_t* el = parse_shape_depth(lx, a, e, depth + 1);
      if (!el) return NULL;
      if (!hlo_push(a, (void**)&s->elems, &s->num_elems, &cap, sizeof el,
                    &el)) {
        hlo_error_oom(e);
        return NULL;
      }
      t = hlo_lx_next(lx);
      if (hlo_tok_punct(t, ")")) return s;
      if (!hlo_tok_punct(t, ",")) {
        hlo_error_tok(e, t, "',' or ')' in a tuple shape");
        return NULL;
      }
    }
  }
  if (t.kind != HT_NAME) {
    hlo_error_tok(e, t, "shape");
    return NULL;
  }
  bool token = hlo_tok_is(t, "token");
  s->kind = token ? HLX_TYPE_TOKEN : HLX_TYPE_TENSOR;
  s->dtype = hlo_dtype_from_name(t.p, t.n);
  if (!token && s->dtype == HLX_DTYPE_INVALID) {
    if (hlo_tok_is(t, "opaque") || hlo_tok_is(t, "b"))
      hlo_error_unsupported(e, t, "%s shapes",
                            hlo_tok_is(t, "b") ? "buffer" : "opaque");
    else
      hlo_error_tok(e, t, "element type");
    return NULL;
  }
  hlo_tok_t br = hlo_lx_peek(lx);
  if (!hlo_tok_punct(br, "[")) {
    hlo_error_tok(e, br, "'[' after the element type");
    return NULL;
  }
  if (!parse_dims(lx, a, e, s)) return NULL;
  if (token && s->rank != 0) {
    hlo_error_at(e, t.line, t.col, "token shapes have no dimensions");
    return NULL;
  }
  /* `{` starts a layout when an integer or ':' follows it. */
  if (hlo_tok_punct(hlo_lx_peek(lx), "{")) {
    hlo_lexer_t look = *lx;
    hlo_lx_next(&look);
    hlo_tok_t n = hlo_lx_next(&look);
    if (n.kind == HT_INT || hlo_tok_punct(n, ":") ||
        (s->rank == 0 && hlo_tok_punct(n, "}") && !token)) {
      if (hlo_tok_punct(n, "}")) {
        /* `f32[]{}` */
        hlo_lx_next(lx);
        hlo_lx_next(lx);
      } else if (!parse_layout(lx, a, e, s)) {
        return NULL;
      }
    }
  }
  return s;
}

hlo_shape_t* hlo_parse_shape(hlo_lexer_t* lx, hlx_arena_t* a, hlo_err_t* e) {
  return parse_shape_depth(lx, a, e, 0);
}
