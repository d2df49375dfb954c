/* StableHLO text parser core: modules, functions, generic ops, regions and
 * SSA scoping. Types/attributes are in parse_attr.c, pretty op forms in
 * parse_pretty.c. */
#include "graph/stablehlo/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/stablehlo/parser_internal.h"

/* ---- Errors --------------------------------------------------------------- */
static bool set_err_v(parser_t* p, hlx_status_code_t code, int line, int col,
                      const char* fmt, va_list ap) {
  if (p->err) return false;
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  p->err = hlx_make_status(code, "%s:%d:%d: %s",
                           p->filename ? p->filename : "<input>", line, col,
                           msg);
  return false;
}

bool perr_at(parser_t* p, int line, int col, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hlx_status_code_t code = strncmp(fmt, "unsupported", 11) == 0
                               ? HLX_STATUS_UNIMPLEMENTED
                               : HLX_STATUS_INVALID_ARGUMENT;
  set_err_v(p, code, line, col, fmt, ap);
  va_end(ap);
  return false;
}

static void tok_desc(tok_t t, char* buf, size_t n) {
  if (t.kind == TK_EOF) {
    snprintf(buf, n, "end of input");
    return;
  }
  size_t len = t.n > 40 ? 40 : t.n;
  char tmp[48];
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    char c = t.p[i];
    tmp[o++] = (c >= 32 && c < 127) ? c : '?';
  }
  tmp[o] = 0;
  snprintf(buf, n, "'%s%s'", tmp, t.n > 40 ? "..." : "");
}

bool perr_tok(parser_t* p, tok_t t, const char* expected) {
  char d[64];
  tok_desc(t, d, sizeof d);
  return perr_at(p, t.line, t.col, "expected %s, got %s", expected, d);
}

bool perr_unsupported(parser_t* p, tok_t t, const char* what) {
  char d[64];
  tok_desc(t, d, sizeof d);
  return perr_at(p, t.line, t.col, "unsupported: %s %s", what, d);
}

/* ---- Token helpers ---------------------------------------------------------- */
bool expect_punct(parser_t* p, const char* s, const char* what) {
  if (p->err) return false;
  tok_t t = lx_next(&p->lx);
  if (tok_punct(t, s)) return true;
  return perr_tok(p, t, what);
}

bool accept_punct(parser_t* p, const char* s) {
  if (p->err) return false;
  if (tok_punct(lx_peek(&p->lx), s)) {
    lx_next(&p->lx);
    return true;
  }
  return false;
}

bool accept_bare(parser_t* p, const char* s) {
  if (p->err) return false;
  tok_t t = lx_peek(&p->lx);
  if (t.kind == TK_BARE && tok_is(t, s)) {
    lx_next(&p->lx);
    return true;
  }
  return false;
}

bool peek_punct(parser_t* p, const char* s) {
  return !p->err && tok_punct(lx_peek(&p->lx), s);
}

bool peek_bare(parser_t* p, const char* s) {
  if (p->err) return false;
  tok_t t = lx_peek(&p->lx);
  return t.kind == TK_BARE && tok_is(t, s);
}

/* ---- Arena helpers ---------------------------------------------------------- */
void* pa_alloc(parser_t* p, size_t bytes) {
  void* r = hlx_arena_alloc(p->a, bytes ? bytes : 1);
  if (!r && !p->err) p->err = hlx_status_oom();
  return r;
}

char* pa_strndup(parser_t* p, const char* s, size_t n) {
  char* r = hlx_arena_strndup(p->a, s, n);
  if (!r && !p->err) p->err = hlx_status_oom();
  return r;
}

bool pa_push(parser_t* p, void** arr, int32_t* n, int32_t* cap, size_t elem,
             const void* item) {
  if (*n >= *cap) {
    if (*cap > (INT32_MAX / 2)) {
      if (!p->err) p->err = hlx_status_oom();
      return false;
    }
    int32_t nc = *cap ? *cap * 2 : 4;
    void* na = hlx_arena_alloc_array(p->a, (size_t)nc, elem);
    if (!na) {
      if (!p->err) p->err = hlx_status_oom();
      return false;
    }
    if (*n > 0) memcpy(na, *arr, (size_t)*n * elem);
    *arr = na;
    *cap = nc;
  }
  memcpy((char*)*arr + (size_t)*n * elem, item, elem);
  (*n)++;
  return true;
}

/* ---- Symbols ---------------------------------------------------------------- */
static uint32_t hash_name(const char* s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static int32_t sym_find(parser_t* p, const char* s, size_t n) {
  uint32_t h = hash_name(s, n);
  for (int32_t i = p->buckets[h % HLX_SYM_BUCKETS]; i >= 0; i = p->syms[i].next)
    if (p->syms[i].hash == h && p->syms[i].len == n &&
        memcmp(p->syms[i].name, s, n) == 0)
      return i;
  return -1;
}

static bool sym_define(parser_t* p, tok_t name, hlx_value_t** vals,
                       int32_t n) {
  const char* s = name.p + 1;
  size_t len = name.n - 1;
  int32_t prev = sym_find(p, s, len);
  if (prev >= p->scope_start) {
    char d[64];
    snprintf(d, sizeof d, "%.*s", (int)(name.n > 40 ? 40 : name.n), name.p);
    return perr_at(p, name.line, name.col, "redefinition of SSA value '%s'", d);
  }
  if (p->nsyms == p->capsyms) {
    int32_t nc = p->capsyms ? p->capsyms * 2 : 256;
    sym_t* ns = realloc(p->syms, (size_t)nc * sizeof(sym_t));
    if (!ns) {
      if (!p->err) p->err = hlx_status_oom();
      return false;
    }
    p->syms = ns;
    p->capsyms = nc;
  }
  uint32_t h = hash_name(s, len);
  sym_t* e = &p->syms[p->nsyms];
  e->name = s;
  e->len = len;
  e->vals = vals;
  e->n = n;
  e->hash = h;
  e->next = p->buckets[h % HLX_SYM_BUCKETS];
  p->buckets[h % HLX_SYM_BUCKETS] = p->nsyms;
  p->nsyms++;
  return true;
}

static int32_t scope_push(parser_t* p) {
  int32_t old = p->scope_start;
  p->scope_start = p->nsyms;
  return old;
}

static void scope_pop(parser_t* p, int32_t old) {
  while (p->nsyms > p->scope_start) {
    sym_t* e = &p->syms[--p->nsyms];
    p->buckets[e->hash % HLX_SYM_BUCKETS] = e->next;
  }
  p->scope_start = old;
}

hlx_value_t* new_value(parser_t* p, hlx_type_t* t) {
  hlx_value_t* v = pa_alloc(p, sizeof(*v));
  if (!v) return NULL;
  if (p->func->num_values == INT32_MAX) {
    if (!p->err) p->err = hlx_status_oom();
    return NULL;
  }
  v->type = t;
  v->id = p->func->num_values++;
  return v;
}

hlx_value_t* parse_value_use(parser_t* p) {
  if (p->err) return NULL;
  tok_t t = lx_next(&p->lx);
  if (t.kind != TK_PERCENT) {
    perr_tok(p, t, "SSA value");
    return NULL;
  }
  int64_t idx = -1;
  if (lx_char(&p->lx) == '#') {
    lx_advance(&p->lx, 1);
    int c;
    idx = 0;
    bool any = false;
    while ((c = lx_char(&p->lx)) >= '0' && c <= '9') {
      idx = idx * 10 + (c - '0');
      any = true;
      if (idx > INT32_MAX) break;
      lx_advance(&p->lx, 1);
    }
    if (!any || idx > INT32_MAX) {
      perr_at(p, t.line, t.col, "bad result number after '#'");
      return NULL;
    }
  }
  int32_t s = sym_find(p, t.p + 1, t.n - 1);
  if (s < 0) {
    char d[64];
    snprintf(d, sizeof d, "%.*s", (int)(t.n > 40 ? 40 : t.n), t.p);
    perr_at(p, t.line, t.col, "use of undefined value '%s'", d);
    return NULL;
  }
  if (idx < 0) idx = 0;
  if (idx >= p->syms[s].n) {
    perr_at(p, t.line, t.col, "result number %lld out of range (%d results)",
            (long long)idx, p->syms[s].n);
    return NULL;
  }
  return p->syms[s].vals[idx];
}

/* ---- Op builder ---------------------------------------------------------------- */
bool ob_add_operand(parser_t* p, op_builder_t* b, hlx_value_t* v) {
  if (!v) return false;
  return pa_push(p, (void**)&b->operands, &b->nops, &b->capops,
                 sizeof(hlx_value_t*), &v);
}

bool ob_add_attr(parser_t* p, op_builder_t* b, const char* name,
                 hlx_attr_t* v) {
  return add_attr(p, &b->attrs, &b->nattrs, &b->capattrs, name, v);
}

bool ob_add_region(parser_t* p, op_builder_t* b, hlx_region_t* r) {
  if (!r) return false;
  r->parent = b->op;
  return pa_push(p, (void**)&b->regions, &b->nregions, &b->capregions,
                 sizeof(hlx_region_t*), &r);
}

bool ob_set_results(parser_t* p, op_builder_t* b, hlx_type_t** types,
                    int32_t n) {
  hlx_op_t* op = b->op;
  op->num_results = n;
  if (n == 0) return true;
  op->results = pa_alloc(p, sizeof(hlx_value_t*) * (size_t)n);
  if (!op->results) return false;
  for (int32_t i = 0; i < n; i++) {
    hlx_value_t* v = new_value(p, types[i]);
    if (!v) return false;
    v->def = op;
    v->index = i;
    op->results[i] = v;
  }
  return true;
}

hlx_op_t* new_op(parser_t* p, const char* name) {
  hlx_op_t* op = pa_alloc(p, sizeof(*op));
  if (!op) return NULL;
  op->code = hlx_opcode_from_name(name, strlen(name));
  op->name = name;
  return op;
}

/* ---- Signatures ------------------------------------------------------------------ */
bool parse_type_list(parser_t* p, hlx_type_t*** list, int32_t* n,
                     int32_t* cap) {
  for (;;) {
    hlx_type_t* t = parse_type(p);
    if (!t) return false;
    if (!pa_push(p, (void**)list, n, cap, sizeof(hlx_type_t*), &t)) return false;
    if (!peek_punct(p, ",")) return true;
    /* Only continue when a type follows the comma. */
    lex_state_t save = lx_save(&p->lx);
    lx_next(&p->lx);
    tok_t nt = lx_peek(&p->lx);
    if (!(nt.kind == TK_BANG ||
          (nt.kind == TK_BARE && (tok_is(nt, "tensor") || tok_is(nt, "tuple"))))) {
      lx_restore(&p->lx, save);
      return true;
    }
  }
}

static bool parse_result_types(parser_t* p, sig_t* s) {
  if (accept_punct(p, "(")) {
    if (accept_punct(p, ")")) return true;
    if (!parse_type_list(p, &s->out, &s->nout, &s->capout)) return false;
    return expect_punct(p, ")", "')'");
  }
  hlx_type_t* t = parse_type(p);
  if (!t) return false;
  return pa_push(p, (void**)&s->out, &s->nout, &s->capout, sizeof(t), &t);
}

bool parse_signature(parser_t* p, sig_t* s) {
  memset(s, 0, sizeof(*s));
  if (accept_punct(p, "(")) {
    if (!accept_punct(p, ")")) {
      if (!parse_type_list(p, &s->in, &s->nin, &s->capin)) return false;
      if (!expect_punct(p, ")", "')'")) return false;
    }
    if (!expect_punct(p, "->", "'->'")) return false;
    s->has_arrow = true;
    return parse_result_types(p, s);
  }
  if (!parse_type_list(p, &s->in, &s->nin, &s->capin)) return false;
  if (accept_punct(p, "->")) {
    s->has_arrow = true;
    return parse_result_types(p, s);
  }
  return true;
}

/* ---- Regions ----------------------------------------------------------------- */
static bool parse_operation(parser_t* p, hlx_block_t* blk, int32_t* cap);

static bool parse_block_arg_list(parser_t* p, hlx_block_t* blk) {
  /* ( %a: T [loc], ... ) */
  if (!expect_punct(p, "(", "'('")) return false;
  if (accept_punct(p, ")")) return true;
  int32_t cap = 0;
  for (;;) {
    tok_t nm = lx_next(&p->lx);
    if (nm.kind != TK_PERCENT) return perr_tok(p, nm, "block argument");
    if (!expect_punct(p, ":", "':'")) return false;
    hlx_type_t* t = parse_type(p);
    if (!t) return false;
    skip_loc(p);
    hlx_value_t* v = new_value(p, t);
    if (!v) return false;
    v->block = blk;
    v->index = blk->num_args;
    v->name = pa_strndup(p, nm.p + 1, nm.n - 1);
    if (!v->name) return false;
    if (!pa_push(p, (void**)&blk->args, &blk->num_args, &cap, sizeof(v), &v))
      return false;
    hlx_value_t** slot = &blk->args[blk->num_args - 1];
    (void)slot;
    hlx_value_t** one = pa_alloc(p, sizeof(hlx_value_t*));
    if (!one) return false;
    *one = v;
    if (!sym_define(p, nm, one, 1)) return false;
    if (accept_punct(p, ",")) continue;
    return expect_punct(p, ")", "',' or ')'");
  }
}

hlx_region_t* parse_region(parser_t* p, const block_arg_spec_t* args,
                           int32_t nargs) {
  if (p->err) return NULL;
  tok_t open = lx_peek(&p->lx);
  if (!expect_punct(p, "{", "'{'")) return NULL;
  if (++p->depth > HLX_PARSE_MAX_DEPTH) {
    perr_at(p, open.line, open.col, "unsupported: nesting deeper than %d",
            HLX_PARSE_MAX_DEPTH);
    return NULL;
  }
  hlx_region_t* r = pa_alloc(p, sizeof(*r));
  hlx_block_t* blk = pa_alloc(p, sizeof(*blk));
  hlx_block_t** blocks = pa_alloc(p, sizeof(hlx_block_t*));
  if (!r || !blk || !blocks) return NULL;
  blocks[0] = blk;
  r->num_blocks = 1;
  r->blocks = blocks;
  blk->parent = r;
  int32_t old = scope_push(p);
  bool ok = true;
  if (args) {
    if (nargs > 0) {
      blk->args = pa_alloc(p, sizeof(hlx_value_t*) * (size_t)nargs);
      ok = blk->args != NULL;
    }
    for (int32_t i = 0; ok && i < nargs; i++) {
      hlx_value_t* v = new_value(p, args[i].type);
      hlx_value_t** one = pa_alloc(p, sizeof(hlx_value_t*));
      if (!v || !one) {
        ok = false;
        break;
      }
      v->block = blk;
      v->index = i;
      v->name = pa_strndup(p, args[i].name.p + 1, args[i].name.n - 1);
      blk->args[i] = v;
      blk->num_args = i + 1;
      *one = v;
      ok = v->name && sym_define(p, args[i].name, one, 1);
    }
  }
  tok_t t = lx_peek(&p->lx);
  if (ok && t.kind == TK_CARET) {
    if (args) {
      ok = perr_unsupported(p, t, "block label in a region with implicit arguments");
    } else {
      lx_next(&p->lx);
      if (peek_punct(p, "(")) ok = parse_block_arg_list(p, blk);
      ok = ok && expect_punct(p, ":", "':' after block label");
    }
  }
  int32_t cap = 0;
  while (ok && !p->err) {
    t = lx_peek(&p->lx);
    if (tok_punct(t, "}")) break;
    if (t.kind == TK_CARET) {
      ok = perr_unsupported(p, t, "region with several blocks");
      break;
    }
    if (t.kind == TK_EOF) {
      ok = perr_tok(p, t, "'}'");
      break;
    }
    ok = parse_operation(p, blk, &cap);
  }
  ok = ok && expect_punct(p, "}", "'}'");
  scope_pop(p, old);
  p->depth--;
  return ok && !p->err ? r : NULL;
}

/* ---- Operations ------------------------------------------------------------------ */
static bool parse_generic_op(parser_t* p, op_builder_t* b) {
  if (!expect_punct(p, "(", "'('")) return false;
  if (!accept_punct(p, ")")) {
    for (;;) {
      if (!ob_add_operand(p, b, parse_value_use(p))) return false;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, ")", "',' or ')'")) return false;
      break;
    }
  }
  tok_t t = lx_peek(&p->lx);
  if (tok_punct(t, "[")) return perr_unsupported(p, t, "successor list");
  if (tok_punct(t, "<")) {
    lx_next(&p->lx);
    if (!parse_attr_dict(p, &b->attrs, &b->nattrs, &b->capattrs)) return false;
    if (!expect_punct(p, ">", "'>' after properties")) return false;
  }
  if (accept_punct(p, "(")) {
    for (;;) {
      if (!ob_add_region(p, b, parse_region(p, NULL, 0))) return false;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, ")", "',' or ')'")) return false;
      break;
    }
  }
  if (peek_punct(p, "{") &&
      !parse_attr_dict(p, &b->attrs, &b->nattrs, &b->capattrs))
    return false;
  tok_t colon = lx_peek(&p->lx);
  if (!expect_punct(p, ":", "':'")) return false;
  tok_t ft = lx_peek(&p->lx);
  if (!tok_punct(ft, "(")) return perr_tok(p, ft, "function type");
  sig_t s;
  if (!parse_signature(p, &s)) return false;
  if (s.nin != b->nops)
    return perr_at(p, colon.line, colon.col,
                   "op has %d operands but its type lists %d", b->nops, s.nin);
  return ob_set_results(p, b, s.out, s.nout);
}

static void finish_op(op_builder_t* b) {
  hlx_op_t* op = b->op;
  op->num_operands = b->nops;
  op->operands = b->operands;
  op->num_attrs = b->nattrs;
  op->attrs = b->attrs;
  op->num_regions = b->nregions;
  op->regions = b->regions;
}

typedef struct lhs_t {
  tok_t name;
  int32_t count;
} lhs_t;

static bool parse_operation(parser_t* p, hlx_block_t* blk, int32_t* cap) {
  lhs_t* lhs = NULL;
  int32_t nlhs = 0, caplhs = 0, total = 0;
  tok_t t = lx_peek(&p->lx);
  int line = t.line, col = t.col;
  if (t.kind == TK_PERCENT) {
    for (;;) {
      tok_t nm = lx_next(&p->lx);
      if (nm.kind != TK_PERCENT) return perr_tok(p, nm, "SSA result name");
      lhs_t l = {nm, 1};
      if (lx_char(&p->lx) == ':') {
        lx_advance(&p->lx, 1);
        int64_t c;
        if (!parse_int_literal(p, &c)) return false;
        if (c < 1 || c > 1 << 20)
          return perr_at(p, nm.line, nm.col, "bad result count %lld", (long long)c);
        l.count = (int32_t)c;
      }
      if (!pa_push(p, (void**)&lhs, &nlhs, &caplhs, sizeof(l), &l)) return false;
      total += l.count;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, "=", "'='")) return false;
      break;
    }
  }
  tok_t nt = lx_next(&p->lx);
  op_builder_t b;
  memset(&b, 0, sizeof b);
  b.nlhs = total;
  if (nt.kind == TK_STRING) {
    char* name;
    size_t len;
    if (!decode_string(p, nt, &name, &len)) return false;
    if (strlen(name) != len || len == 0)
      return perr_at(p, nt.line, nt.col, "bad op name");
    b.op = new_op(p, name);
    if (!b.op) return false;
    if (!parse_generic_op(p, &b)) return false;
  } else if (nt.kind == TK_BARE) {
    const char* canon = NULL;
    if (tok_is(nt, "return")) canon = "func.return";
    else if (tok_is(nt, "call")) canon = "func.call";
    hlx_opcode_t code = canon ? hlx_opcode_from_name(canon, strlen(canon))
                              : hlx_opcode_from_name(nt.p, nt.n);
    if (code == HLX_OP_UNKNOWN && memchr(nt.p, '.', nt.n) == NULL)
      return perr_tok(p, nt, "operation name");
    const char* name = code != HLX_OP_UNKNOWN ? hlx_opcode_name(code)
                                              : pa_strndup(p, nt.p, nt.n);
    if (!name) return false;
    b.op = new_op(p, name);
    if (!b.op) return false;
    b.op->code = code;
    if (!parse_pretty_op(p, &b, nt, code)) return false;
  } else {
    return perr_tok(p, nt, "operation");
  }
  skip_loc(p);
  if (p->err) return false;
  finish_op(&b);
  hlx_op_t* op = b.op;
  op->line = line;
  op->col = col;
  op->parent = blk;
  /* Wrong counts (either form can write them) stop here, so nothing that
   * reads a parsed module (refinement, the printer, lowering) indexes past
   * an op's operands, results or regions. */
  char why[96];
  if (!hlx_op_arity_ok(op, why, sizeof why))
    return perr_at(p, line, col, "%s %s", op->name, why);
  if (nlhs > 0 && total != op->num_results)
    return perr_at(p, line, col, "op defines %d result names but has %d results",
                   total, op->num_results);
  int32_t at = 0;
  for (int32_t i = 0; i < nlhs; i++) {
    hlx_value_t** vals = op->results + at;
    char* nm = pa_strndup(p, lhs[i].name.p + 1, lhs[i].name.n - 1);
    if (!nm) return false;
    for (int32_t k = 0; k < lhs[i].count; k++) vals[k]->name = nm;
    if (!sym_define(p, lhs[i].name, vals, lhs[i].count)) return false;
    at += lhs[i].count;
  }
  return pa_push(p, (void**)&blk->ops, &blk->num_ops, cap, sizeof(op), &op);
}

/* ---- Functions and modules ---------------------------------------------------- */
/* @name or @"quoted name" -> arena string without '@'. */
static bool symbol_name(parser_t* p, tok_t t, const char** out) {
  if (t.n > 1 && t.p[1] == '"') {
    tok_t st = {TK_STRING, t.p + 1, t.n - 1, t.line, t.col};
    char* s;
    size_t len;
    if (!decode_string(p, st, &s, &len)) return false;
    if (strlen(s) != len) return perr_at(p, t.line, t.col, "NUL in symbol name");
    *out = s;
    return true;
  }
  char* s = pa_strndup(p, t.p + 1, t.n - 1);
  *out = s;
  return s != NULL;
}

static bool parse_func(parser_t* p, tok_t kw) {
  hlx_func_t* f = pa_alloc(p, sizeof(*f));
  if (!f) return false;
  f->line = kw.line;
  f->col = kw.col;
  f->is_public = true;
  if (accept_bare(p, "private")) f->is_public = false;
  else if (accept_bare(p, "public")) f->is_public = true;
  else if (accept_bare(p, "nested")) f->is_public = false;
  tok_t nm = lx_next(&p->lx);
  if (nm.kind != TK_AT) return perr_tok(p, nm, "function name");
  if (!symbol_name(p, nm, &f->name)) return false;
  p->func = f;
  /* Body region + block; arguments are its block arguments. */
  hlx_region_t* r = pa_alloc(p, sizeof(*r));
  hlx_block_t* blk = pa_alloc(p, sizeof(*blk));
  hlx_block_t** blocks = pa_alloc(p, sizeof(hlx_block_t*));
  if (!r || !blk || !blocks) return false;
  blocks[0] = blk;
  r->num_blocks = 1;
  r->blocks = blocks;
  blk->parent = r;
  f->body = r;
  for (int i = 0; i < HLX_SYM_BUCKETS; i++) p->buckets[i] = -1;
  p->nsyms = 0;
  p->scope_start = 0;
  if (!expect_punct(p, "(", "'('")) return false;
  int32_t cap_args = 0, cap_aa = 0, cap_na = 0;
  if (!accept_punct(p, ")")) {
    for (;;) {
      tok_t an = lx_next(&p->lx);
      if (an.kind != TK_PERCENT) return perr_tok(p, an, "argument name");
      if (!expect_punct(p, ":", "':'")) return false;
      hlx_type_t* t = parse_type(p);
      if (!t) return false;
      hlx_named_attr_t* attrs = NULL;
      int32_t na = 0, capa = 0;
      if (peek_punct(p, "{") && !parse_attr_dict(p, &attrs, &na, &capa))
        return false;
      skip_loc(p);
      hlx_value_t* v = new_value(p, t);
      hlx_value_t** one = pa_alloc(p, sizeof(hlx_value_t*));
      if (!v || !one) return false;
      v->block = blk;
      v->index = blk->num_args;
      v->name = pa_strndup(p, an.p + 1, an.n - 1);
      if (!v->name) return false;
      *one = v;
      if (!pa_push(p, (void**)&blk->args, &blk->num_args, &cap_args, sizeof(v), &v))
        return false;
      int32_t dummy = f->num_args;
      if (!pa_push(p, (void**)&f->arg_attrs, &dummy, &cap_aa, sizeof(attrs), &attrs))
        return false;
      dummy = f->num_args;
      if (!pa_push(p, (void**)&f->num_arg_attrs, &dummy, &cap_na, sizeof(na), &na))
        return false;
      f->num_args++;
      if (!sym_define(p, an, one, 1)) return false;
      if (accept_punct(p, ",")) continue;
      if (!expect_punct(p, ")", "',' or ')'")) return false;
      break;
    }
  }
  if (accept_punct(p, "->")) {
    int32_t cap_rt = 0, cap_ra = 0, cap_rn = 0;
    bool paren = accept_punct(p, "(");
    if (!(paren && accept_punct(p, ")"))) {
      for (;;) {
        hlx_type_t* t = parse_type(p);
        if (!t) return false;
        hlx_named_attr_t* attrs = NULL;
        int32_t na = 0, capa = 0;
        if (paren && peek_punct(p, "{") && !parse_attr_dict(p, &attrs, &na, &capa))
          return false;
        skip_loc(p);
        int32_t dummy = f->num_results;
        if (!pa_push(p, (void**)&f->result_types, &dummy, &cap_rt, sizeof(t), &t))
          return false;
        dummy = f->num_results;
        if (!pa_push(p, (void**)&f->result_attrs, &dummy, &cap_ra, sizeof(attrs), &attrs))
          return false;
        dummy = f->num_results;
        if (!pa_push(p, (void**)&f->num_result_attrs, &dummy, &cap_rn, sizeof(na), &na))
          return false;
        f->num_results++;
        if (paren && accept_punct(p, ",")) continue;
        if (paren && !expect_punct(p, ")", "',' or ')'")) return false;
        break;
      }
    }
  }
  if (accept_bare(p, "attributes")) {
    int32_t cap = 0;
    if (!parse_attr_dict(p, &f->attrs, &f->num_attrs, &cap)) return false;
  }
  tok_t t = lx_peek(&p->lx);
  if (!tok_punct(t, "{"))
    return tok_punct(t, "}") || t.kind == TK_EOF || t.kind == TK_BARE
               ? perr_unsupported(p, t, "function declaration without body before")
               : perr_tok(p, t, "'{'");
  lx_next(&p->lx);
  int32_t cap = 0;
  for (;;) {
    t = lx_peek(&p->lx);
    if (tok_punct(t, "}")) break;
    if (t.kind == TK_CARET) return perr_unsupported(p, t, "function with several blocks");
    if (t.kind == TK_EOF) return perr_tok(p, t, "'}'");
    if (!parse_operation(p, blk, &cap)) return false;
  }
  lx_next(&p->lx);
  skip_loc(p);
  int32_t capf = p->m->num_funcs;
  (void)capf;
  return !p->err;
}

static bool add_func(parser_t* p, int32_t* capf) {
  hlx_func_t* f = p->func;
  for (int32_t i = 0; i < p->m->num_funcs; i++)
    if (strcmp(p->m->funcs[i]->name, f->name) == 0)
      return perr_at(p, f->line, f->col, "redefinition of function @%s", f->name);
  return pa_push(p, (void**)&p->m->funcs, &p->m->num_funcs, capf, sizeof(f), &f);
}

/* `#name = attr` / `!name = type` at top level. */
static bool parse_alias_def(parser_t* p, tok_t nm) {
  if (!expect_punct(p, "=", "'='")) return false;
  alias_t al;
  memset(&al, 0, sizeof al);
  al.name = nm.p;
  al.len = nm.n;
  if (nm.kind == TK_HASH) {
    if (peek_bare(p, "loc")) {
      skip_loc(p);
      return !p->err;
    }
    al.attr = parse_attr(p, false);
    if (!al.attr) return false;
  } else {
    al.type = parse_type(p);
    if (!al.type) return false;
  }
  if (p->naliases == p->capaliases) {
    int32_t nc = p->capaliases ? p->capaliases * 2 : 16;
    alias_t* na = realloc(p->aliases, (size_t)nc * sizeof(alias_t));
    if (!na) {
      if (!p->err) p->err = hlx_status_oom();
      return false;
    }
    p->aliases = na;
    p->capaliases = nc;
  }
  p->aliases[p->naliases++] = al;
  return true;
}

static bool parse_top(parser_t* p) {
  int32_t capf = 0;
  bool in_module = false, seen_module = false;
  for (;;) {
    tok_t t = lx_next(&p->lx);
    if (t.kind == TK_EOF) {
      if (in_module) return perr_tok(p, t, "'}' closing the module");
      break;
    }
    if ((t.kind == TK_HASH || t.kind == TK_BANG) && !in_module) {
      if (!parse_alias_def(p, t)) return false;
      continue;
    }
    if (t.kind == TK_BARE && (tok_is(t, "func.func") || tok_is(t, "func"))) {
      if (!parse_func(p, t) || !add_func(p, &capf)) return false;
      continue;
    }
    if (t.kind == TK_BARE && tok_is(t, "module") && !in_module) {
      if (seen_module || p->m->num_funcs > 0)
        return perr_unsupported(p, t, "several modules in one program:");
      seen_module = true;
      tok_t n = lx_peek(&p->lx);
      if (n.kind == TK_AT) {
        lx_next(&p->lx);
        if (!symbol_name(p, n, &p->m->name)) return false;
      }
      if (accept_bare(p, "attributes")) {
        int32_t cap = 0;
        if (!parse_attr_dict(p, &p->m->attrs, &p->m->num_attrs, &cap))
          return false;
      }
      if (!expect_punct(p, "{", "'{'")) return false;
      in_module = true;
      continue;
    }
    if (in_module && tok_punct(t, "}")) {
      in_module = false;
      skip_loc(p);
      continue;
    }
    if (t.kind == TK_BARE && tok_is(t, "module"))
      return perr_unsupported(p, t, "nested module");
    return perr_tok(p, t, in_module ? "'func.func' or '}'" : "'module' or 'func.func'");
  }
  return !p->err;
}

hlx_status_t hlx_parse_module(const char* text, size_t len,
                              const char* filename, int first_line,
                              hlx_module_t** out) {
  if (out) *out = NULL;
  if (!out || (!text && len > 0))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_parse_module: NULL argument");
  parser_t p;
  memset(&p, 0, sizeof p);
  p.m = hlx_module_create();
  if (!p.m) return hlx_status_oom();
  p.a = &p.m->arena;
  p.filename = filename;
  p.buckets = malloc(sizeof(int32_t) * HLX_SYM_BUCKETS);
  if (!p.buckets) {
    hlx_module_destroy(p.m);
    return hlx_status_oom();
  }
  lx_init(&p.lx, text ? text : "", len, first_line);
  bool ok = parse_top(&p);
  free(p.buckets);
  free(p.syms);
  free(p.aliases);
  free(p.lits);
  if (!ok || p.err) {
    hlx_module_destroy(p.m);
    return p.err ? p.err
                 : hlx_make_status(HLX_STATUS_INTERNAL, "parse failed");
  }
  *out = p.m;
  return NULL;
}

/* ---- Split input --------------------------------------------------------------- */
int hlx_split_programs(const char* text, size_t len, hlx_text_chunk_t* out,
                       int max_chunks) {
  int count = 0;
  size_t start = 0;
  int start_line = 1, line = 1;
  size_t i = 0;
  while (i <= len) {
    size_t e = i;
    while (e < len && text[e] != '\n') e++;
    /* line [i, e) */
    size_t le = e;
    if (le > i && text[le - 1] == '\r') le--;
    bool sep = (le - i == 8 && memcmp(text + i, "// -----", 8) == 0);
    if (sep) {
      if (count < max_chunks && out) {
        out[count].text = text + start;
        out[count].len = i - start;
        out[count].first_line = start_line;
      }
      count++;
      start = e < len ? e + 1 : len;
      start_line = line + 1;
    }
    if (e >= len) break;
    i = e + 1;
    line++;
  }
  if (count < max_chunks && out) {
    out[count].text = text + start;
    out[count].len = len - start;
    out[count].first_line = start_line;
  }
  count++;
  return count;
}
