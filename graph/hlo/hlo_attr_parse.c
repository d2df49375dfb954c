/* Readers of HLO attribute values, each over the source span the parser
 * kept: integers, lists, strings, replica groups (explicit and iota form),
 * slice ranges, padding configs, windows and convolution dim labels. A
 * reader must consume its whole span. */
#include <stdlib.h>
#include <string.h>

#include "graph/hlo/hlo_internal.h"

static bool at_end(hlo_lexer_t* lx, hlo_err_t* e) {
  hlo_tok_t t = hlo_lx_next(lx);
  return t.kind == HT_EOF ? true
                          : hlo_error_tok(e, t, "end of the attribute value");
}

static bool expect(hlo_lexer_t* lx, hlo_err_t* e, const char* punct) {
  hlo_tok_t t = hlo_lx_next(lx);
  if (hlo_tok_punct(t, punct)) return true;
  char what[16];
  strcpy(what, "'");
  strncat(what, punct, 4);
  strcat(what, "'");
  return hlo_error_tok(e, t, what);
}

/* Decimal integer text of t (which must be HT_INT). */
static bool tok_i64(hlo_tok_t t, hlo_err_t* e, int64_t* out) {
  if (t.kind != HT_INT) return hlo_error_tok(e, t, "integer");
  bool neg = t.p[0] == '-';
  uint64_t v = 0;
  for (size_t i = neg; i < t.n; i++) {
    uint64_t d = (uint64_t)(t.p[i] - '0');
    if (v > (UINT64_MAX - d) / 10)
      return hlo_error_at(e, t.line, t.col, "integer out of range");
    v = v * 10 + d;
  }
  if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
    return hlo_error_at(e, t.line, t.col, "integer out of range");
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

bool hlo_read_i64(const hlo_span_t* s, hlo_err_t* e, int64_t* out) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  return tok_i64(hlo_lx_next(&lx), e, out) && at_end(&lx, e);
}

bool hlo_read_bool(const hlo_span_t* s, hlo_err_t* e, bool* out) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  hlo_tok_t t = hlo_lx_next(&lx);
  if (!(t.kind == HT_NAME && (hlo_tok_is(t, "true") || hlo_tok_is(t, "false"))))
    return hlo_error_tok(e, t, "true or false");
  *out = hlo_tok_is(t, "true");
  return at_end(&lx, e);
}

bool hlo_read_f64(const hlo_span_t* s, hlo_err_t* e, double* out) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  hlo_tok_t t = hlo_lx_next(&lx);
  if (t.kind != HT_INT && t.kind != HT_FLOAT)
    return hlo_error_tok(e, t, "number");
  char buf[64];
  if (t.n >= sizeof buf) return hlo_error_tok(e, t, "shorter number");
  memcpy(buf, t.p, t.n);
  buf[t.n] = 0;
  *out = strtod(buf, NULL);
  return at_end(&lx, e);
}

static bool int_list(hlo_lexer_t* lx, hlx_arena_t* a, hlo_err_t* e,
                     const char* open, const char* close, const char* sep,
                     int64_t** out, int32_t* n) {
  int32_t cap = 0;
  *out = NULL;
  *n = 0;
  if (!expect(lx, e, open)) return false;
  if (hlo_tok_punct(hlo_lx_peek(lx), close)) {
    hlo_lx_next(lx);
    return true;
  }
  for (;;) {
    int64_t v;
    if (!tok_i64(hlo_lx_next(lx), e, &v)) return false;
    if (!hlo_push(a, (void**)out, n, &cap, sizeof v, &v))
      return hlo_error_oom(e);
    hlo_tok_t t = hlo_lx_next(lx);
    if (hlo_tok_punct(t, close)) return true;
    if (!hlo_tok_punct(t, sep)) {
      char what[24];
      strcpy(what, "'x' or 'y'");
      what[1] = sep[0];
      what[8] = close[0];
      return hlo_error_tok(e, t, what);
    }
  }
}

bool hlo_read_i64_list(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                       int64_t** out, int32_t* n) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  return int_list(&lx, a, e, "{", "}", ",", out, n) && at_end(&lx, e);
}

/* [rows,cols]<=[dims...](T(perm...))? -> groups of iota(prod dims)
 * reshaped to dims, transposed by perm, reshaped to rows x cols. */
static bool iota_groups(hlo_lexer_t* lx, hlx_arena_t* a, hlo_err_t* e,
                        hlo_tok_t at, int64_t** out, int32_t* rows,
                        int32_t* cols) {
  int64_t *shape, *dims, *perm = NULL;
  int32_t ns, nd, np = 0;
  if (!int_list(lx, a, e, "[", "]", ",", &shape, &ns)) return false;
  if (!expect(lx, e, "<=")) return false;
  if (!int_list(lx, a, e, "[", "]", ",", &dims, &nd)) return false;
  hlo_tok_t t = hlo_lx_peek(lx);
  if (t.kind == HT_NAME && hlo_tok_is(t, "T")) {
    hlo_lx_next(lx);
    if (!int_list(lx, a, e, "(", ")", ",", &perm, &np)) return false;
  }
  if (ns != 2 || nd < 1 || nd > HLX_MAX_RANK || (perm && np != nd))
    return hlo_error_at(e, at.line, at.col, "malformed iota replica groups");
  int64_t total = 1;
  for (int32_t i = 0; i < nd; i++) {
    if (dims[i] <= 0 || total > (1 << 24) / dims[i])
      return hlo_error_at(e, at.line, at.col, "iota replica groups too large");
    total *= dims[i];
  }
  if (shape[0] < 0 || shape[1] < 0 || shape[0] * shape[1] != total)
    return hlo_error_at(e, at.line, at.col,
                        "iota replica groups [%lld,%lld] do not hold %lld ids",
                        (long long)shape[0], (long long)shape[1],
                        (long long)total);
  bool seen[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; perm && i < np; i++) {
    if (perm[i] < 0 || perm[i] >= nd || seen[perm[i]])
      return hlo_error_at(e, at.line, at.col,
                          "iota transpose is not a permutation");
    seen[perm[i]] = true;
  }
  int64_t* g = hlx_arena_alloc_array(a, (size_t)total, sizeof(int64_t));
  if (!g) return hlo_error_oom(e);
  /* Element k of the transposed array: its index over the permuted dims,
   * mapped back to the row-major position in the original dims. */
  int64_t stride[HLX_MAX_RANK], tdims[HLX_MAX_RANK];
  for (int32_t i = nd - 1, s = 1; i >= 0; i--)
    stride[i] = s, s *= (int32_t)dims[i];
  for (int32_t i = 0; i < nd; i++) tdims[i] = dims[perm ? perm[i] : i];
  for (int64_t k = 0; k < total; k++) {
    int64_t rem = k, src = 0;
    for (int32_t i = nd - 1; i >= 0; i--) {
      int64_t idx = rem % tdims[i];
      rem /= tdims[i];
      src += idx * stride[perm ? perm[i] : i];
    }
    g[k] = src;
  }
  *out = g;
  *rows = (int32_t)shape[0];
  *cols = (int32_t)shape[1];
  return true;
}

bool hlo_read_groups(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                     int64_t** out, int32_t* rows, int32_t* cols) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  hlo_tok_t t = hlo_lx_peek(&lx);
  if (hlo_tok_punct(t, "["))
    return iota_groups(&lx, a, e, t, out, rows, cols) && at_end(&lx, e);
  if (!expect(&lx, e, "{")) return false;
  int64_t* all = NULL;
  int32_t n = 0, cap = 0, r = 0, c = -1;
  if (!hlo_tok_punct(hlo_lx_peek(&lx), "}")) {
    for (;;) {
      hlo_tok_t gt = hlo_lx_peek(&lx);
      int64_t* g;
      int32_t gn;
      if (!int_list(&lx, a, e, "{", "}", ",", &g, &gn)) return false;
      if (c >= 0 && gn != c)
        return hlo_error_at(e, gt.line, gt.col,
                            "groups of different sizes (%d and %d)", c, gn);
      c = gn;
      for (int32_t i = 0; i < gn; i++)
        if (!hlo_push(a, (void**)&all, &n, &cap, sizeof(int64_t), &g[i]))
          return hlo_error_oom(e);
      r++;
      t = hlo_lx_next(&lx);
      if (hlo_tok_punct(t, "}")) break;
      if (!hlo_tok_punct(t, ",")) return hlo_error_tok(e, t, "',' or '}'");
    }
  } else {
    hlo_lx_next(&lx);
  }
  *out = all;
  *rows = r;
  *cols = c < 0 ? 0 : c;
  return at_end(&lx, e);
}

bool hlo_read_word(const hlo_span_t* s, hlo_err_t* e, hlo_tok_t* out) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  *out = hlo_lx_next(&lx);
  if (out->kind != HT_NAME) return hlo_error_tok(e, *out, "a name");
  return at_end(&lx, e);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool hlo_read_string(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                     bool allow_json, char** out, size_t* n) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  hlo_tok_t t = hlo_lx_peek(&lx);
  if (allow_json && hlo_tok_punct(t, "{")) {
    *n = (size_t)(s->end - s->begin);
    *out = hlx_arena_strndup(a, s->begin, *n);
    return *out ? true : hlo_error_oom(e);
  }
  hlo_lx_next(&lx);
  if (t.kind != HT_STRING) return hlo_error_tok(e, t, "string");
  char* d = hlx_arena_alloc(a, t.n);
  if (!d) return hlo_error_oom(e);
  size_t o = 0;
  for (size_t i = 1; i + 1 < t.n; i++) {
    char c = t.p[i];
    if (c != '\\') {
      d[o++] = c;
      continue;
    }
    char x = t.p[++i];
    if (x == 'n')
      d[o++] = '\n';
    else if (x == 't')
      d[o++] = '\t';
    else if (x == 'r')
      d[o++] = '\r';
    else if (x == 'x' && i + 2 < t.n - 1 && hexval(t.p[i + 1]) >= 0 &&
             hexval(t.p[i + 2]) >= 0) {
      d[o++] = (char)(hexval(t.p[i + 1]) * 16 + hexval(t.p[i + 2]));
      i += 2;
    } else if (x >= '0' && x <= '7') {
      int v = 0, k = 0;
      while (k < 3 && i < t.n - 1 && t.p[i] >= '0' && t.p[i] <= '7')
        v = v * 8 + (t.p[i++] - '0'), k++;
      i--;
      d[o++] = (char)v;
    } else {
      d[o++] = x;
    }
  }
  d[o] = 0;
  *out = d;
  *n = o;
  return at_end(&lx, e);
}

bool hlo_read_slice(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                    int64_t** starts, int64_t** limits, int64_t** strides,
                    int32_t* rank) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  int32_t n1 = 0, n2 = 0, n3 = 0, c1 = 0, c2 = 0, c3 = 0;
  *starts = *limits = *strides = NULL;
  if (!expect(&lx, e, "{")) return false;
  if (!hlo_tok_punct(hlo_lx_peek(&lx), "}")) {
    for (;;) {
      hlo_tok_t at = hlo_lx_peek(&lx);
      int64_t* r;
      int32_t rn;
      if (!int_list(&lx, a, e, "[", "]", ":", &r, &rn)) return false;
      if (rn != 2 && rn != 3)
        return hlo_error_at(e, at.line, at.col,
                            "expected [start:limit] or "
                            "[start:limit:stride], got %d numbers",
                            rn);
      int64_t one = 1;
      if (!hlo_push(a, (void**)starts, &n1, &c1, 8, &r[0]) ||
          !hlo_push(a, (void**)limits, &n2, &c2, 8, &r[1]) ||
          !hlo_push(a, (void**)strides, &n3, &c3, 8, rn == 3 ? &r[2] : &one))
        return hlo_error_oom(e);
      hlo_tok_t t = hlo_lx_next(&lx);
      if (hlo_tok_punct(t, "}")) break;
      if (!hlo_tok_punct(t, ",")) return hlo_error_tok(e, t, "',' or '}'");
    }
  } else {
    hlo_lx_next(&lx);
  }
  *rank = n1;
  return at_end(&lx, e);
}

/* Splits "a_b[_c]x..." into per-dimension numbers. */
bool hlo_read_padding(const hlo_span_t* s, const char* text, size_t n,
                      hlx_arena_t* a, hlo_err_t* e, bool allow_interior,
                      int64_t** low, int64_t** high, int64_t** interior,
                      int32_t* rank) {
  int32_t dims = 1;
  for (size_t i = 0; i < n; i++) dims += text[i] == 'x';
  *low = hlx_arena_alloc_array(a, (size_t)dims, 8);
  *high = hlx_arena_alloc_array(a, (size_t)dims, 8);
  *interior = hlx_arena_alloc_array(a, (size_t)dims, 8);
  if (!*low || !*high || !*interior) return hlo_error_oom(e);
  size_t i = 0;
  for (int32_t d = 0; d < dims; d++) {
    int64_t v[3] = {0, 0, 0};
    int k = 0;
    for (;;) {
      bool neg = i < n && text[i] == '-';
      i += neg;
      size_t start = i;
      int64_t x = 0;
      while (i < n && text[i] >= '0' && text[i] <= '9' &&
             x < (INT64_MAX / 10 - 9))
        x = x * 10 + (text[i++] - '0');
      if (i == start || k == 3) break;
      v[k++] = neg ? -x : x;
      if (i < n && text[i] == '_') {
        i++;
        continue;
      }
      break;
    }
    bool sep_ok = (d + 1 < dims) ? (i < n && text[i] == 'x') : i == n;
    if (!sep_ok || k < 2 || (k == 3 && !allow_interior))
      return hlo_error_at(e, s->line, s->col,
                          allow_interior
                              ? "expected padding like 0_0_0x1_1_0 (low_high_"
                                "interior per dimension)"
                              : "expected window padding like 0_0x1_1");
    i += d + 1 < dims;
    (*low)[d] = v[0];
    (*high)[d] = v[1];
    (*interior)[d] = v[2];
  }
  *rank = dims;
  return true;
}

/* 3, 3x3 or 3x3x3 -> values (n of them). */
static bool read_dxd(hlo_tok_t t, hlx_arena_t* a, hlo_err_t* e, int64_t** out,
                     int32_t* n) {
  if (t.kind != HT_INT && t.kind != HT_WORD)
    return hlo_error_tok(e, t, "size like 3x3");
  int32_t cnt = 1;
  for (size_t i = 0; i < t.n; i++) cnt += t.p[i] == 'x';
  int64_t* v = hlx_arena_alloc_array(a, (size_t)cnt, 8);
  if (!v) return hlo_error_oom(e);
  size_t i = 0;
  for (int32_t k = 0; k < cnt; k++) {
    size_t start = i;
    int64_t x = 0;
    while (i < t.n && t.p[i] >= '0' && t.p[i] <= '9' && x < INT64_MAX / 10 - 9)
      x = x * 10 + (t.p[i++] - '0');
    if (i == start || (k + 1 < cnt ? (i >= t.n || t.p[i] != 'x') : i != t.n))
      return hlo_error_tok(e, t, "size like 3x3");
    i++;
    v[k] = x;
  }
  *out = v;
  *n = cnt;
  return true;
}

static bool fill_default(hlx_arena_t* a, hlo_err_t* e, int64_t** v, int32_t n,
                         int64_t dflt) {
  if (*v) return true;
  *v = hlx_arena_alloc_array(a, (size_t)n + 1, 8);
  if (!*v) return hlo_error_oom(e);
  for (int32_t i = 0; i < n; i++) (*v)[i] = dflt;
  return true;
}

bool hlo_read_window(const hlo_span_t* s, hlx_arena_t* a, hlo_err_t* e,
                     hlo_window_t* w) {
  hlo_lexer_t lx;
  hlo_span_lexer(s, &lx);
  memset(w, 0, sizeof(*w));
  if (!expect(&lx, e, "{")) return false;
  int32_t rank = -1;
  while (!hlo_tok_punct(hlo_lx_peek(&lx), "}")) {
    hlo_tok_t k = hlo_lx_next(&lx);
    if (k.kind != HT_NAME) return hlo_error_tok(e, k, "window field or '}'");
    if (!expect(&lx, e, "=")) return false;
    hlo_tok_t v = hlo_lx_next(&lx);
    int64_t** dst = hlo_tok_is(k, "size")           ? &w->size
                    : hlo_tok_is(k, "stride")       ? &w->stride
                    : hlo_tok_is(k, "lhs_dilate")   ? &w->lhs_dilate
                    : hlo_tok_is(k, "rhs_dilate")   ? &w->rhs_dilate
                    : hlo_tok_is(k, "rhs_reversal") ? &w->reversal
                    : hlo_tok_is(k, "pad")          ? &w->pad_low
                                                    : NULL;
    if (!dst) return hlo_error_unsupported(e, k, "window field");
    if (*dst) return hlo_error_at(e, k.line, k.col, "window field given twice");
    int32_t n = 0;
    if (dst == &w->pad_low) {
      if (v.kind != HT_WORD) return hlo_error_tok(e, v, "padding like 0_0x1_1");
      hlo_span_t at = {v.p, v.p + v.n, v.line, v.col, NULL};
      int64_t* interior;
      if (!hlo_read_padding(&at, v.p, v.n, a, e, false, &w->pad_low,
                            &w->pad_high, &interior, &n))
        return false;
    } else if (!read_dxd(v, a, e, dst, &n)) {
      return false;
    }
    if (rank >= 0 && n != rank)
      return hlo_error_at(e, v.line, v.col,
                          "window field has %d dimensions, others have %d", n,
                          rank);
    rank = n;
  }
  hlo_lx_next(&lx);
  if (rank > 0 && !w->size)
    return hlo_error_at(e, s->line, s->col, "window without size=");
  w->rank = rank < 0 ? 0 : rank;
  return fill_default(a, e, &w->size, w->rank, 1) &&
         fill_default(a, e, &w->stride, w->rank, 1) &&
         fill_default(a, e, &w->pad_low, w->rank, 0) &&
         fill_default(a, e, &w->pad_high, w->rank, 0) &&
         fill_default(a, e, &w->lhs_dilate, w->rank, 1) &&
         fill_default(a, e, &w->rhs_dilate, w->rank, 1) &&
         fill_default(a, e, &w->reversal, w->rank, 0) && at_end(&lx, e);
}

/* One part of dim labels: positions of the two letters and the digits. */
static bool label_part(const char* p, size_t n, char l1, char l2, int64_t* d1,
                       int64_t* d2, int64_t* sp, int32_t* nsp) {
  *d1 = *d2 = -1;
  int32_t count = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i] != l1 && p[i] != l2 && p[i] != '?') count++;
  if (count > HLX_MAX_RANK || n > HLX_MAX_RANK) return false;
  bool seen[HLX_MAX_RANK] = {false};
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c == l1 && *d1 < 0)
      *d1 = (int64_t)i;
    else if (c == l2 && *d2 < 0)
      *d2 = (int64_t)i;
    else if (c >= '0' && c < '0' + count && !seen[c - '0']) {
      seen[c - '0'] = true;
      sp[c - '0'] = (int64_t)i;
    } else if (c != '?') {
      return false;
    }
  }
  *nsp = count;
  return *d1 >= 0 && *d2 >= 0;
}

bool hlo_read_dim_labels(const hlo_span_t* s, hlo_err_t* e,
                         hlo_conv_dims_t* d) {
  char buf[3 * HLX_MAX_RANK + 8];
  size_t n = 0;
  for (const char* p = s->begin; p < s->end; p++) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') continue;
    if (n + 1 >= sizeof buf)
      return hlo_error_at(e, s->line, s->col, "dim labels too long");
    buf[n++] = *p;
  }
  buf[n] = 0;
  char* us = strchr(buf, '_');
  char* ar = us ? strstr(us, "->") : NULL;
  int32_t n1, n2, n3;
  bool ok = us && ar &&
            label_part(buf, (size_t)(us - buf), 'b', 'f', &d->in_batch,
                       &d->in_feature, d->in_sp, &n1) &&
            label_part(us + 1, (size_t)(ar - us - 1), 'i', 'o', &d->k_in,
                       &d->k_out, d->k_sp, &n2) &&
            label_part(ar + 2, strlen(ar + 2), 'b', 'f', &d->out_batch,
                       &d->out_feature, d->out_sp, &n3) &&
            n1 == n2 && n2 == n3;
  if (!ok)
    return hlo_error_at(e, s->line, s->col,
                        "expected dim labels like b01f_01io->b01f, got '%s'",
                        buf);
  d->spatial = n1;
  return true;
}
