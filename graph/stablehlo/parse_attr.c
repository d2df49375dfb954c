/* Attributes of the StableHLO text parser: scalars, strings, symbols,
 * arrays, dicts, #stablehlo enums and structs (incl. conv dimension
 * numbers), dense_resource, opaque fallbacks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/stablehlo/parser_internal.h"

/* ---- Small constructors ---------------------------------------------------- */
hlx_attr_t* make_i64_array(parser_t* p, const int64_t* v, int32_t n,
                           hlx_dtype_t elem) {
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_I64_ARRAY;
  a->count = n;
  if (n > 0) {
    a->ints = pa_alloc(p, sizeof(int64_t) * (size_t)n);
    if (!a->ints) return NULL;
    memcpy(a->ints, v, sizeof(int64_t) * (size_t)n);
  }
  if (elem != HLX_DTYPE_S64) {
    a->type = make_scalar_type(p, elem);
    if (!a->type) return NULL;
  }
  return a;
}

hlx_attr_t* make_int_attr(parser_t* p, int64_t v, hlx_dtype_t dt) {
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_INT;
  a->i = v;
  if (dt != HLX_DTYPE_INVALID) {
    a->type = make_scalar_type(p, dt);
    if (!a->type) return NULL;
  }
  return a;
}

hlx_attr_t* make_enum_attr(parser_t* p, const char* kind, tok_t value) {
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_ENUM;
  a->str = kind;
  a->enum_value = pa_strndup(p, value.p, value.n);
  if (!a->enum_value) return NULL;
  return a;
}

hlx_attr_t* make_string_attr(parser_t* p, const char* s, size_t n) {
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_STRING;
  a->str = pa_strndup(p, s, n);
  a->len = n;
  if (!a->str) return NULL;
  return a;
}

static hlx_attr_t* make_opaque(parser_t* p, const char* s, size_t n) {
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_OPAQUE;
  a->str = pa_strndup(p, s, n);
  a->len = n;
  if (!a->str) return NULL;
  return a;
}

bool add_attr(parser_t* p, hlx_named_attr_t** list, int32_t* n, int32_t* cap,
              const char* name, hlx_attr_t* v) {
  if (!v) return false;
  hlx_named_attr_t na = {name, v};
  return pa_push(p, (void**)list, n, cap, sizeof(na), &na);
}

const alias_t* find_alias(parser_t* p, const char* name, size_t len) {
  for (int32_t i = p->naliases - 1; i >= 0; i--)
    if (p->aliases[i].len == len && memcmp(p->aliases[i].name, name, len) == 0)
      return &p->aliases[i];
  return NULL;
}

/* ---- Strings ---------------------------------------------------------------- */
bool decode_string(parser_t* p, tok_t t, char** out, size_t* out_len) {
  /* t.p[0] == '"' and t.p[n-1] == '"' */
  const char* s = t.p + 1;
  size_t n = t.n - 2;
  char* buf = pa_alloc(p, n + 1);
  if (!buf) return false;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c != '\\') {
      buf[o++] = c;
      continue;
    }
    if (i + 1 >= n) return perr_at(p, t.line, t.col, "bad escape in string");
    char d = s[++i];
    if (d == 'n') buf[o++] = '\n';
    else if (d == 't') buf[o++] = '\t';
    else if (d == '"' || d == '\\') buf[o++] = d;
    else if (i + 1 < n && lit_hexval(d) >= 0 && lit_hexval(s[i + 1]) >= 0) {
      buf[o++] = (char)(lit_hexval(d) * 16 + lit_hexval(s[i + 1]));
      i++;
    } else {
      return perr_at(p, t.line, t.col, "bad escape '\\%c' in string", d);
    }
  }
  buf[o] = 0;
  *out = buf;
  *out_len = o;
  return true;
}

/* ---- Conv dimension numbers ------------------------------------------------ */
static hlx_attr_t* int_field(parser_t* p, int64_t v) {
  return make_int_attr(p, v, HLX_DTYPE_INVALID);
}

/* One bracketed layout: [b, 0, 1, f]; letters are the two non-spatial
 * labels expected ("bf", "io", "bf"). Writes the position of each label. */
static bool parse_conv_layout(parser_t* p, const char* labels, int64_t* l0,
                              int64_t* l1, int64_t* spatial, int32_t* nsp) {
  if (!expect_punct(p, "[", "'['")) return false;
  *l0 = *l1 = -1;
  int32_t pos = 0;
  int64_t sp_pos[HLX_MAX_RANK];
  bool seen[HLX_MAX_RANK] = {false};
  int32_t maxsp = -1;
  for (;;) {
    tok_t t = lx_next(&p->lx);
    if (pos >= HLX_MAX_RANK) return perr_at(p, t.line, t.col, "conv layout too long");
    if (t.kind == TK_BARE && t.n == 1 && (t.p[0] == labels[0] || t.p[0] == labels[1])) {
      int64_t* slot = t.p[0] == labels[0] ? l0 : l1;
      if (*slot >= 0) return perr_at(p, t.line, t.col, "duplicate '%c' in conv layout", t.p[0]);
      *slot = pos;
    } else if (t.kind == TK_INT) {
      uint64_t mag;
      bool neg;
      if (!lit_int_text(t.p, t.n, &mag, &neg) || neg || mag >= HLX_MAX_RANK || seen[mag])
        return perr_at(p, t.line, t.col, "bad spatial dimension in conv layout");
      seen[mag] = true;
      sp_pos[mag] = pos;
      if ((int32_t)mag > maxsp) maxsp = (int32_t)mag;
    } else {
      return perr_tok(p, t, "conv layout label");
    }
    pos++;
    if (accept_punct(p, ",")) continue;
    if (!expect_punct(p, "]", "',' or ']'")) return false;
    break;
  }
  for (int32_t i = 0; i <= maxsp; i++)
    if (!seen[i]) {
      tok_t t = lx_peek(&p->lx);
      return perr_at(p, t.line, t.col, "conv layout misses spatial dimension %d", i);
    }
  if (*l0 < 0 || *l1 < 0) {
    tok_t t = lx_peek(&p->lx);
    return perr_at(p, t.line, t.col, "conv layout needs '%c' and '%c'", labels[0], labels[1]);
  }
  *nsp = maxsp + 1;
  memcpy(spatial, sp_pos, sizeof(int64_t) * (size_t)(*nsp));
  return true;
}

hlx_attr_t* parse_conv_dims_body(parser_t* p) {
  int64_t in_b, in_f, k_i, k_o, out_b, out_f;
  int64_t in_sp[HLX_MAX_RANK], k_sp[HLX_MAX_RANK], out_sp[HLX_MAX_RANK];
  int32_t n_in, n_k, n_out;
  if (!parse_conv_layout(p, "bf", &in_b, &in_f, in_sp, &n_in)) return NULL;
  tok_t x = lx_next(&p->lx);
  if (!(x.kind == TK_BARE && tok_is(x, "x"))) {
    perr_tok(p, x, "'x'");
    return NULL;
  }
  if (!parse_conv_layout(p, "io", &k_i, &k_o, k_sp, &n_k)) return NULL;
  if (!expect_punct(p, "->", "'->'")) return NULL;
  if (!parse_conv_layout(p, "bf", &out_b, &out_f, out_sp, &n_out)) return NULL;
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_STRUCT;
  a->str = "stablehlo.conv";
  int32_t cap = 0;
  bool ok = add_attr(p, &a->dict, &a->count, &cap, "input_batch_dimension", int_field(p, in_b)) &&
            add_attr(p, &a->dict, &a->count, &cap, "input_feature_dimension", int_field(p, in_f)) &&
            add_attr(p, &a->dict, &a->count, &cap, "input_spatial_dimensions",
                     make_i64_array(p, in_sp, n_in, HLX_DTYPE_S64)) &&
            add_attr(p, &a->dict, &a->count, &cap, "kernel_input_feature_dimension", int_field(p, k_i)) &&
            add_attr(p, &a->dict, &a->count, &cap, "kernel_output_feature_dimension", int_field(p, k_o)) &&
            add_attr(p, &a->dict, &a->count, &cap, "kernel_spatial_dimensions",
                     make_i64_array(p, k_sp, n_k, HLX_DTYPE_S64)) &&
            add_attr(p, &a->dict, &a->count, &cap, "output_batch_dimension", int_field(p, out_b)) &&
            add_attr(p, &a->dict, &a->count, &cap, "output_feature_dimension", int_field(p, out_f)) &&
            add_attr(p, &a->dict, &a->count, &cap, "output_spatial_dimensions",
                     make_i64_array(p, out_sp, n_out, HLX_DTYPE_S64));
  return ok ? a : NULL;
}

/* ---- Attributes ------------------------------------------------------------ */
/* Skips a balanced <...>, (...), [...] or {...} group starting at the
 * current token (which must be the opener). */
static bool skip_balanced(parser_t* p) {
  int depth = 0;
  tok_t first = lx_peek(&p->lx);
  for (;;) {
    tok_t t = lx_next(&p->lx);
    if (t.kind == TK_EOF || t.kind == TK_ERROR)
      return perr_at(p, first.line, first.col, "unbalanced brackets");
    if (t.kind == TK_PUNCT) {
      char c = t.p[0];
      if (t.n == 1 && (c == '<' || c == '(' || c == '[' || c == '{')) depth++;
      else if (t.n == 1 && (c == '>' || c == ')' || c == ']' || c == '}')) depth--;
    }
    if (depth <= 0) return true;
  }
}

static hlx_attr_t* opaque_from(parser_t* p, const char* start) {
  const char* end = p->lx.s.p;
  return make_opaque(p, start, (size_t)(end - start));
}

void skip_loc(parser_t* p) {
  tok_t t = lx_peek(&p->lx);
  if (t.kind == TK_BARE && tok_is(t, "loc")) {
    lx_next(&p->lx);
    if (peek_punct(p, "(")) (void)skip_balanced(p);
  }
}

hlx_attr_t* parse_struct_fields(parser_t* p, const char* name) {
  hlx_attr_t* a = pa_alloc(p, sizeof(*a));
  if (!a) return NULL;
  a->kind = HLX_ATTR_STRUCT;
  a->str = name;
  int32_t cap = 0;
  if (!expect_punct(p, "<", "'<'")) return NULL;
  if (accept_punct(p, ">")) return a;
  for (;;) {
    tok_t k = lx_next(&p->lx);
    if (k.kind != TK_BARE) {
      perr_tok(p, k, "field name");
      return NULL;
    }
    if (!expect_punct(p, "=", "'='")) return NULL;
    hlx_attr_t* v = parse_attr(p, true);
    if (!v) return NULL;
    char* kn = pa_strndup(p, k.p, k.n);
    if (!kn || !add_attr(p, &a->dict, &a->count, &cap, kn, v)) return NULL;
    if (accept_punct(p, ",")) continue;
    if (!expect_punct(p, ">", "',' or '>'")) return NULL;
    return a;
  }
}

/* #dialect.name<key = value, ...>; tentative: on failure returns NULL with
 * the error state restored so the caller can fall back to OPAQUE. */
static hlx_attr_t* try_parse_struct(parser_t* p, tok_t name) {
  lex_state_t save = lx_save(&p->lx);
  char* sname = pa_strndup(p, name.p + 1, name.n - 1);
  if (!sname) return NULL;
  hlx_attr_t* a = NULL;
  if (tok_is(name, "#stablehlo.conv")) {
    lx_next(&p->lx); /* < */
    tok_t t = lx_peek(&p->lx);
    if (tok_punct(t, "[")) {
      a = parse_conv_dims_body(p);
      if (a && !expect_punct(p, ">", "'>'")) a = NULL;
    } else if (t.kind == TK_BARE && tok_is(t, "raw")) {
      lex_state_t s2 = lx_save(&p->lx);
      lx_next(&p->lx);
      /* re-enter as `<fields>` by pretending the '<' is here */
      (void)s2;
      a = pa_alloc(p, sizeof(*a));
      if (a) {
        a->kind = HLX_ATTR_STRUCT;
        a->str = sname;
        int32_t cap = 0;
        for (;;) {
          tok_t k = lx_next(&p->lx);
          hlx_attr_t* v = NULL;
          char* kn = NULL;
          if (k.kind != TK_BARE || !expect_punct(p, "=", "'='") ||
              !(v = parse_attr(p, true)) || !(kn = pa_strndup(p, k.p, k.n)) ||
              !add_attr(p, &a->dict, &a->count, &cap, kn, v)) {
            if (!p->err) perr_tok(p, k, "field");
            a = NULL;
            break;
          }
          if (accept_punct(p, ",")) continue;
          if (!expect_punct(p, ">", "',' or '>'")) a = NULL;
          break;
        }
      }
    } else {
      a = parse_struct_fields(p, sname);
    }
  } else {
    a = parse_struct_fields(p, sname);
  }
  if (a && !p->err) return a;
  if (p->err && hlx_status_code(p->err) != HLX_STATUS_RESOURCE_EXHAUSTED) {
    hlx_status_free(p->err);
    p->err = NULL;
  }
  lx_restore(&p->lx, save);
  return NULL;
}

static hlx_attr_t* parse_hash_attr(parser_t* p, bool in_struct) {
  (void)in_struct;
  const char* start = p->lx.s.p;
  lx_skip_ws(&p->lx);
  start = p->lx.s.p;
  tok_t t = lx_next(&p->lx);
  const alias_t* al = find_alias(p, t.p, t.n);
  if (al && al->attr && !peek_punct(p, "<")) return al->attr;
  bool dotted = memchr(t.p, '.', t.n) != NULL;
  if (!peek_punct(p, "<")) {
    /* Unknown alias or bare #name: keep verbatim. */
    return opaque_from(p, start);
  }
  if (!dotted) {
    /* #stablehlo<kind VALUE> */
    lex_state_t save = lx_save(&p->lx);
    lx_next(&p->lx); /* < */
    tok_t kind = lx_next(&p->lx);
    tok_t val = lx_next(&p->lx);
    tok_t close = lx_next(&p->lx);
    if (kind.kind == TK_BARE && val.kind == TK_BARE && tok_punct(close, ">")) {
      char* k;
      if (tok_is(t, "#stablehlo")) {
        k = pa_strndup(p, kind.p, kind.n);
      } else {
        size_t dn = t.n - 1;
        k = pa_alloc(p, dn + 1 + kind.n + 1);
        if (k) {
          memcpy(k, t.p + 1, dn);
          k[dn] = '.';
          memcpy(k + dn + 1, kind.p, kind.n);
          k[dn + 1 + kind.n] = 0;
        }
      }
      if (!k) return NULL;
      return make_enum_attr(p, k, val);
    }
    lx_restore(&p->lx, save);
    if (!skip_balanced(p)) return NULL;
    return opaque_from(p, start);
  }
  hlx_attr_t* s = try_parse_struct(p, t);
  if (s) return s;
  if (p->err) return NULL;
  if (!skip_balanced(p)) return NULL;
  return opaque_from(p, start);
}

bool parse_attr_dict(parser_t* p, hlx_named_attr_t** list, int32_t* n,
                     int32_t* cap) {
  if (!expect_punct(p, "{", "'{'")) return false;
  if (accept_punct(p, "}")) return true;
  if (++p->depth > HLX_PARSE_MAX_DEPTH) {
    tok_t t = lx_peek(&p->lx);
    return perr_at(p, t.line, t.col, "unsupported: nesting deeper than %d",
                   HLX_PARSE_MAX_DEPTH);
  }
  for (;;) {
    tok_t k = lx_next(&p->lx);
    char* name;
    if (k.kind == TK_BARE) {
      name = pa_strndup(p, k.p, k.n);
      if (!name) return false;
    } else if (k.kind == TK_STRING) {
      size_t len;
      if (!decode_string(p, k, &name, &len)) return false;
      if (strlen(name) != len) return perr_tok(p, k, "attribute name without NUL");
    } else {
      return perr_tok(p, k, "attribute name");
    }
    hlx_attr_t* v;
    if (accept_punct(p, "=")) {
      v = parse_attr(p, false);
    } else {
      v = pa_alloc(p, sizeof(*v));
      if (v) v->kind = HLX_ATTR_UNIT;
    }
    if (!v || !add_attr(p, list, n, cap, name, v)) return false;
    if (accept_punct(p, ",")) continue;
    if (!expect_punct(p, "}", "',' or '}'")) return false;
    break;
  }
  p->depth--;
  return true;
}

/* Optional `: type` after a scalar literal; only element types. Returns
 * false on error; *dt INVALID when absent; `index` gives S64 and *index. */
static bool parse_scalar_attr_type(parser_t* p, hlx_dtype_t* dt, bool* index) {
  *dt = HLX_DTYPE_INVALID;
  *index = false;
  if (!peek_punct(p, ":")) return true;
  lex_state_t save = lx_save(&p->lx);
  lx_next(&p->lx);
  tok_t t = lx_peek(&p->lx);
  hlx_dtype_t d = t.kind == TK_BARE ? hlx_dtype_from_name(t.p, t.n)
                                    : HLX_DTYPE_INVALID;
  bool idx = t.kind == TK_BARE && tok_is(t, "index");
  if ((d == HLX_DTYPE_INVALID || hlx_dtype_is_complex(d)) && !idx) {
    lx_restore(&p->lx, save);
    return true;
  }
  lx_next(&p->lx);
  *index = idx;
  *dt = idx ? HLX_DTYPE_S64 : d;
  return true;
}

hlx_attr_t* parse_attr(parser_t* p, bool in_struct) {
  if (p->err) return NULL;
  if (++p->depth > HLX_PARSE_MAX_DEPTH) {
    tok_t t = lx_peek(&p->lx);
    perr_at(p, t.line, t.col, "unsupported: nesting deeper than %d",
            HLX_PARSE_MAX_DEPTH);
    return NULL;
  }
  hlx_attr_t* res = NULL;
  lx_skip_ws(&p->lx);
  const char* start = p->lx.s.p;
  tok_t t = lx_peek(&p->lx);
  switch (t.kind) {
    case TK_BARE: {
      if (tok_is(t, "true") || tok_is(t, "false")) {
        lx_next(&p->lx);
        res = pa_alloc(p, sizeof(*res));
        if (res) {
          res->kind = HLX_ATTR_BOOL;
          res->b = tok_is(t, "true");
        }
        break;
      }
      if (tok_is(t, "unit")) {
        lx_next(&p->lx);
        res = pa_alloc(p, sizeof(*res));
        if (res) res->kind = HLX_ATTR_UNIT;
        break;
      }
      if (tok_is(t, "dense")) {
        lx_next(&p->lx);
        res = parse_dense_after_kw(p, t);
        break;
      }
      if (tok_is(t, "inf") || tok_is(t, "nan")) goto number;
      if (tok_is(t, "dense_resource")) {
        lx_next(&p->lx);
        if (!expect_punct(p, "<", "'<'")) break;
        tok_t nm = lx_next(&p->lx);
        if (nm.kind != TK_BARE && nm.kind != TK_STRING) {
          perr_tok(p, nm, "resource name");
          break;
        }
        if (!expect_punct(p, ">", "'>'")) break;
        if (!expect_punct(p, ":", "':'")) break;
        hlx_type_t* ty = parse_attr_type(p);
        if (!ty) break;
        res = pa_alloc(p, sizeof(*res));
        if (!res) break;
        res->kind = HLX_ATTR_ELIDED;
        res->type = ty;
        res->str = pa_strndup(p, nm.p, nm.n);
        if (!res->str) res = NULL;
        break;
      }
      if (tok_is(t, "array")) {
        lx_next(&p->lx);
        if (!expect_punct(p, "<", "'<'")) break;
        tok_t et = lx_next(&p->lx);
        hlx_dtype_t ed = et.kind == TK_BARE ? hlx_dtype_from_name(et.p, et.n)
                                            : HLX_DTYPE_INVALID;
        if (ed != HLX_DTYPE_S64 && ed != HLX_DTYPE_S32 && ed != HLX_DTYPE_PRED &&
            ed != HLX_DTYPE_S8 && ed != HLX_DTYPE_S16) {
          /* array<f32: ...> etc.: keep verbatim */
          lx_restore(&p->lx, lx_save(&p->lx));
          while (!p->err) {
            tok_t x = lx_next(&p->lx);
            if (x.kind == TK_EOF || x.kind == TK_ERROR) {
              perr_tok(p, x, "'>'");
              break;
            }
            if (tok_punct(x, ">")) break;
          }
          if (!p->err) res = opaque_from(p, start);
          break;
        }
        int64_t* v = NULL;
        int32_t n = 0, cap = 0;
        bool ok = true;
        if (accept_punct(p, ":")) {
          for (;;) {
            int64_t x;
            tok_t vt = lx_peek(&p->lx);
            if (vt.kind == TK_BARE && (tok_is(vt, "true") || tok_is(vt, "false"))) {
              lx_next(&p->lx);
              x = tok_is(vt, "true");
            } else if (!parse_int_literal(p, &x)) {
              ok = false;
              break;
            }
            if (!pa_push(p, (void**)&v, &n, &cap, sizeof(int64_t), &x)) {
              ok = false;
              break;
            }
            if (accept_punct(p, ",")) continue;
            break;
          }
        }
        if (!ok || !expect_punct(p, ">", "'>'")) break;
        res = make_i64_array(p, v, n, ed);
        break;
      }
      if (tok_is(t, "tensor") || tok_is(t, "tuple")) {
        hlx_type_t* ty = parse_attr_type(p);
        if (!ty) break;
        res = pa_alloc(p, sizeof(*res));
        if (res) {
          res->kind = HLX_ATTR_TYPE;
          res->type = ty;
        }
        break;
      }
      /* Bare word: element type, affine_map<...>, or an enum word. */
      lx_next(&p->lx);
      if (peek_punct(p, "<")) {
        if (!skip_balanced(p)) break;
        res = opaque_from(p, start);
        break;
      }
      if (in_struct || hlx_dtype_from_name(t.p, t.n) != HLX_DTYPE_INVALID ||
          tok_is(t, "index") || tok_is(t, "none")) {
        res = opaque_from(p, start);
        break;
      }
      perr_tok(p, t, "attribute value");
      break;
    }
    case TK_INT:
    case TK_FLOAT:
    case TK_PUNCT:
      if (t.kind == TK_PUNCT && tok_is(t, "[")) {
        lx_next(&p->lx);
        /* In a struct, a list of integers is a dense i64 array. */
        if (in_struct) {
          lex_state_t save = lx_save(&p->lx);
          bool all_int = true;
          int64_t* v = NULL;
          int32_t n = 0, cap = 0;
          if (!accept_punct(p, "]")) {
            for (;;) {
              tok_t x = lx_peek(&p->lx);
              if (x.kind != TK_INT) {
                all_int = false;
                break;
              }
              int64_t val;
              if (!parse_int_literal(p, &val)) return NULL;
              if (!pa_push(p, (void**)&v, &n, &cap, sizeof(int64_t), &val))
                return NULL;
              if (accept_punct(p, ",")) continue;
              if (!accept_punct(p, "]")) all_int = false;
              break;
            }
          }
          if (all_int) {
            res = make_i64_array(p, v, n, HLX_DTYPE_S64);
            break;
          }
          lx_restore(&p->lx, save);
        }
        res = pa_alloc(p, sizeof(*res));
        if (!res) break;
        res->kind = HLX_ATTR_ARRAY;
        int32_t cap = 0;
        if (!accept_punct(p, "]")) {
          for (;;) {
            hlx_attr_t* e = parse_attr(p, in_struct);
            if (!e) return NULL;
            if (!pa_push(p, (void**)&res->items, &res->count, &cap,
                         sizeof(hlx_attr_t*), &e))
              return NULL;
            if (accept_punct(p, ",")) continue;
            if (!expect_punct(p, "]", "',' or ']'")) return NULL;
            break;
          }
        }
        break;
      }
      if (t.kind == TK_PUNCT && tok_is(t, "{")) {
        res = pa_alloc(p, sizeof(*res));
        if (!res) break;
        res->kind = HLX_ATTR_DICT;
        int32_t cap = 0;
        if (!parse_attr_dict(p, &res->dict, &res->count, &cap)) res = NULL;
        break;
      }
      if (t.kind == TK_PUNCT && !tok_is(t, "-")) {
        perr_tok(p, t, "attribute value");
        break;
      }
    number: {
      /* [-] int | float | inf | nan, then optional `: type` */
      lex_state_t save = lx_save(&p->lx);
      tok_t nt = lx_next(&p->lx);
      bool neg = false;
      if (tok_punct(nt, "-")) {
        neg = true;
        nt = lx_next(&p->lx);
      }
      hlx_dtype_t dt;
      bool index;
      if (nt.kind != TK_INT && nt.kind != TK_FLOAT && nt.kind != TK_BARE) {
        perr_tok(p, nt, "number");
        break;
      }
      if (!parse_scalar_attr_type(p, &dt, &index)) break;
      if (index && nt.kind != TK_INT) { /* not an integer: keep verbatim */
        res = opaque_from(p, start);
        break;
      }
      res = pa_alloc(p, sizeof(*res));
      if (!res) break;
      if (dt != HLX_DTYPE_INVALID) {
        res->type = make_scalar_type(p, dt);
        if (!res->type) return NULL;
        res->type->is_index = index; /* `5 : index` */
      }
      bool is_float = nt.kind == TK_FLOAT || nt.kind == TK_BARE ||
                      (dt != HLX_DTYPE_INVALID && hlx_dtype_is_float(dt));
      if (is_float) {
        res->kind = HLX_ATTR_FLOAT;
        lit_t l = {nt.p, (uint32_t)nt.n, (uint8_t)nt.kind, neg, nt.line, nt.col};
        hlx_dtype_t fdt = dt == HLX_DTYPE_INVALID ? HLX_DTYPE_F64 : dt;
        double d = 0;
        uint64_t bits = 0;
        bool is_bits;
        if (!lit_to_float(p, &l, fdt == HLX_DTYPE_F32 ? HLX_DTYPE_F64 : fdt, &d,
                          &bits, &is_bits))
          return NULL;
        if (is_bits) {
          if (fdt == HLX_DTYPE_F64) {
            memcpy(&d, &bits, 8);
          } else if (fdt == HLX_DTYPE_F32) {
            uint32_t b32 = (uint32_t)bits;
            float f;
            memcpy(&f, &b32, 4);
            d = f;
          } else {
            d = hlx_small_float_to_f64(fdt, (uint32_t)bits);
          }
        }
        res->f = d;
      } else {
        res->kind = HLX_ATTR_INT;
        uint64_t mag;
        bool n2;
        if (!lit_int_text(nt.p, nt.n, &mag, &n2)) {
          perr_at(p, nt.line, nt.col, "integer literal out of range");
          return NULL;
        }
        bool negative = n2 != neg;
        bool unsig = dt != HLX_DTYPE_INVALID && hlx_dtype_is_unsigned_int(dt);
        if (negative ? mag > (uint64_t)INT64_MAX + 1
                     : (!unsig && mag > (uint64_t)INT64_MAX)) {
          perr_at(p, nt.line, nt.col, "integer literal out of range");
          return NULL;
        }
        res->i = negative ? (int64_t)(0 - mag) : (int64_t)mag;
      }
      (void)save;
      break;
    }
    case TK_STRING: {
      lx_next(&p->lx);
      char* s;
      size_t len;
      if (!decode_string(p, t, &s, &len)) break;
      if (peek_punct(p, ":")) {
        /* "str" : type -- rare; keep verbatim */
        lx_next(&p->lx);
        if (!parse_attr_type(p)) break;
        res = opaque_from(p, start);
        break;
      }
      res = pa_alloc(p, sizeof(*res));
      if (!res) break;
      res->kind = HLX_ATTR_STRING;
      res->str = s;
      res->len = len;
      break;
    }
    case TK_AT: {
      lx_next(&p->lx);
      /* @name or @name::@nested (kept as text after the first '@') */
      const char* s = t.p + 1;
      size_t n = t.n - 1;
      char* dec = NULL;
      if (n > 0 && s[0] == '"') {
        tok_t st = {TK_STRING, s, n, t.line, t.col};
        size_t len;
        if (!decode_string(p, st, &dec, &len)) break;
        if (strlen(dec) != len) {
          perr_tok(p, t, "symbol without NUL");
          break;
        }
      }
      while (peek_punct(p, ":")) {
        lex_state_t save = lx_save(&p->lx);
        lx_next(&p->lx);
        if (accept_punct(p, ":") && lx_peek(&p->lx).kind == TK_AT) {
          lx_next(&p->lx);
          continue;
        }
        lx_restore(&p->lx, save);
        break;
      }
      res = pa_alloc(p, sizeof(*res));
      if (!res) break;
      res->kind = HLX_ATTR_SYMBOL;
      if (p->lx.s.p - start != (ptrdiff_t)t.n) {
        res->str = pa_strndup(p, start + 1, (size_t)(p->lx.s.p - start - 1));
      } else {
        res->str = dec ? dec : pa_strndup(p, s, n);
      }
      if (!res->str) res = NULL;
      break;
    }
    case TK_HASH:
      res = parse_hash_attr(p, in_struct);
      break;
    case TK_BANG: {
      hlx_type_t* ty = parse_attr_type(p);
      if (!ty) break;
      res = pa_alloc(p, sizeof(*res));
      if (res) {
        res->kind = HLX_ATTR_TYPE;
        res->type = ty;
      }
      break;
    }
    default:
      perr_tok(p, t, "attribute value");
      break;
  }
  p->depth--;
  if (!res && !p->err) p->err = hlx_status_oom();
  return p->err ? NULL : res;
}
