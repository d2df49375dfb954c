/* HLO text -> syntax tree: the optional `HloModule name, attrs` header,
 * computations (`[ENTRY] name [(params) -> shape] { instructions }`) and
 * instructions (`[ROOT] name = shape opcode(operands), attr=value, ...`).
 * Operand names are resolved to earlier instructions of the same
 * computation; attribute values are kept as source spans (hlo_attr_parse.c
 * reads them when an op needs them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/hlo/hlo_internal.h"

#define MAX_DEPTH 256

typedef struct ast_p_t {
  hlo_lexer_t lx;
  hlx_arena_t* a;
  hlo_err_t* e;
  /* Name table of the computation being parsed (open addressing). */
  int32_t* slots;
  uint32_t nslots;
  int32_t anon; /* counter of names made up for nested instructions */
} ast_p_t;

static uint32_t hash(const char* s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static bool expect(ast_p_t* p, const char* punct, const char* what) {
  hlo_tok_t t = hlo_lx_next(&p->lx);
  return hlo_tok_punct(t, punct) ? true : hlo_error_tok(p->e, t, what);
}

static bool is_opener(hlo_tok_t t) {
  return hlo_tok_punct(t, "{") || hlo_tok_punct(t, "[") ||
         hlo_tok_punct(t, "(");
}

/* Skips a balanced group whose opener t was just read. */
static bool skip_group(ast_p_t* p, hlo_tok_t open) {
  char stack[MAX_DEPTH];
  int depth = 0;
  stack[depth++] = open.p[0] == '{' ? '}' : open.p[0] == '[' ? ']' : ')';
  while (depth > 0) {
    hlo_tok_t t = hlo_lx_next(&p->lx);
    if (t.kind == HT_EOF || t.kind == HT_ERROR) {
      char want[16] = "'x'";
      want[1] = stack[depth - 1];
      return hlo_error_tok(p->e, t, want);
    }
    if (is_opener(t)) {
      if (depth == MAX_DEPTH)
        return hlo_error_unsupported(p->e, t, "nesting deeper than %d",
                                     MAX_DEPTH);
      stack[depth++] = t.p[0] == '{' ? '}' : t.p[0] == '[' ? ']' : ')';
    } else if (hlo_tok_punct(t, "}") || hlo_tok_punct(t, "]") ||
               hlo_tok_punct(t, ")")) {
      if (t.p[0] != stack[depth - 1]) {
        char want[16] = "'x'";
        want[1] = stack[depth - 1];
        return hlo_error_tok(p->e, t, want);
      }
      depth--;
    }
  }
  return true;
}

/* One atom or balanced group. */
static bool skip_primary(ast_p_t* p) {
  hlo_tok_t t = hlo_lx_next(&p->lx);
  if (is_opener(t)) return skip_group(p, t);
  if (t.kind == HT_NAME || t.kind == HT_INT || t.kind == HT_FLOAT ||
      t.kind == HT_WORD || t.kind == HT_STRING)
    return true;
  return hlo_error_tok(p->e, t, "attribute value");
}

/* An attribute value: a primary followed by what continues it without
 * a comma: `[2,2]<=[4]T(1,0)`, `b01f_01io->b01f`, `f32[2]{0}`. */
static bool skip_value(ast_p_t* p, hlo_span_t* s) {
  hlo_tok_t first = hlo_lx_peek(&p->lx);
  s->begin = first.p;
  s->line = first.line;
  s->col = first.col;
  s->line_start = first.p - (first.col - 1);
  if (!skip_primary(p)) return false;
  for (;;) {
    hlo_tok_t n = hlo_lx_peek(&p->lx);
    if (hlo_tok_punct(n, "<=") || hlo_tok_punct(n, "->")) {
      hlo_lx_next(&p->lx);
      if (!skip_primary(p)) return false;
    } else if (!n.space_before &&
               (is_opener(n) || (n.kind == HT_NAME && hlo_tok_is(n, "T")))) {
      if (n.kind == HT_NAME) hlo_lx_next(&p->lx);
      if (!skip_primary(p)) return false;
    } else {
      break;
    }
  }
  s->end = p->lx.p;
  return true;
}

static bool parse_attr(ast_p_t* p, hlo_attr_t** list, int32_t* n,
                       int32_t* cap) {
  hlo_attr_t at;
  memset(&at, 0, sizeof at);
  at.name = hlo_lx_next(&p->lx);
  if (at.name.kind != HT_NAME)
    return hlo_error_tok(p->e, at.name, "attribute name");
  if (!expect(p, "=", "'=' after the attribute name")) return false;
  if (!skip_value(p, &at.value)) return false;
  for (int32_t i = 0; i < *n; i++)
    if ((*list)[i].name.n == at.name.n &&
        memcmp((*list)[i].name.p, at.name.p, at.name.n) == 0)
      return hlo_error_at(p->e, at.name.line, at.name.col,
                          "attribute '%.*s' given twice", (int)at.name.n,
                          at.name.p);
  if (!hlo_push(p->a, (void**)list, n, cap, sizeof at, &at))
    return hlo_error_oom(p->e);
  return true;
}

static bool parse_attrs(ast_p_t* p, hlo_attr_t** list, int32_t* n) {
  int32_t cap = 0;
  while (hlo_tok_punct(hlo_lx_peek(&p->lx), ",")) {
    hlo_lx_next(&p->lx);
    if (!parse_attr(p, list, n, &cap)) return false;
  }
  return true;
}

/* ---- name table --------------------------------------------------------- */
static bool table_reset(ast_p_t* p, uint32_t want) {
  uint32_t n = 64;
  while (n < want * 2 && n < (1u << 30)) n *= 2;
  if (n > p->nslots) {
    int32_t* s = realloc(p->slots, sizeof(int32_t) * n);
    if (!s) return hlo_error_oom(p->e);
    p->slots = s;
    p->nslots = n;
  }
  for (uint32_t i = 0; i < p->nslots; i++) p->slots[i] = -1;
  return true;
}

static int32_t table_find(ast_p_t* p, const hlo_comp_t* c, hlo_tok_t name,
                          uint32_t* slot) {
  uint32_t m = p->nslots - 1, i = hash(name.p, name.n) & m;
  for (;; i = (i + 1) & m) {
    int32_t k = p->slots[i];
    if (k < 0) break;
    hlo_tok_t o = c->instrs[k].name;
    if (o.n == name.n && memcmp(o.p, name.p, name.n) == 0) {
      *slot = i;
      return k;
    }
  }
  *slot = i;
  return -1;
}

/* Grows the table (rehashing the first n instructions) when half full. */
static bool table_grow(ast_p_t* p, const hlo_comp_t* c, int32_t n) {
  if ((uint32_t)n * 2 < p->nslots) return true;
  if (!table_reset(p, (uint32_t)n * 2)) return false;
  for (int32_t k = 0; k < n; k++) {
    uint32_t slot;
    table_find(p, c, c->instrs[k].name, &slot);
    p->slots[slot] = k;
  }
  return true;
}

/* ---- instructions ---------------------------------------------------------
 */
static bool starts_shape(hlo_tok_t t) {
  return hlo_tok_punct(t, "(") ||
         (t.kind == HT_NAME &&
          (hlo_tok_is(t, "token") ||
           hlo_dtype_from_name(t.p, t.n) != HLX_DTYPE_INVALID));
}

static bool parse_rhs(ast_p_t* p, hlo_comp_t* c, int32_t* cap, hlo_instr_t* in,
                      bool attrs, int depth);
static bool add_instr(ast_p_t* p, hlo_comp_t* c, int32_t* cap, hlo_instr_t* in);

/* An operand written as an instruction, `add(f32[] add(x, y), z)`: added
 * before its user under a made-up name (no attributes allowed, as in
 * XLA). */
static bool nested_operand(ast_p_t* p, hlo_comp_t* c, int32_t* cap, int depth,
                           int32_t* index) {
  hlo_instr_t in;
  memset(&in, 0, sizeof in);
  hlo_tok_t at = hlo_lx_peek(&p->lx);
  if (depth >= MAX_DEPTH)
    return hlo_error_unsupported(p->e, at, "nesting deeper than %d", MAX_DEPTH);
  if (!parse_rhs(p, c, cap, &in, false, depth + 1)) return false;
  char* name = hlx_arena_alloc(p->a, in.opcode.n + 24);
  if (!name) return hlo_error_oom(p->e);
  uint32_t slot;
  do {
    snprintf(name, in.opcode.n + 24, "%.*s.anon%d", (int)in.opcode.n,
             in.opcode.p, ++p->anon);
    in.name = at;
    in.name.kind = HT_NAME;
    in.name.p = name;
    in.name.n = strlen(name);
  } while (table_find(p, c, in.name, &slot) >= 0);
  *index = c->num_instrs;
  return add_instr(p, c, cap, &in);
}

static bool parse_operands(ast_p_t* p, hlo_comp_t* c, int32_t* cap,
                           hlo_instr_t* in, int depth) {
  int32_t cap1 = 0, cap2 = 0;
  if (hlo_tok_punct(hlo_lx_peek(&p->lx), ")")) {
    hlo_lx_next(&p->lx);
    return true;
  }
  for (;;) {
    hlo_lexer_t save = p->lx;
    hlo_tok_t t = hlo_lx_peek(&p->lx);
    bool shaped = hlo_tok_punct(t, "(");
    if (starts_shape(t) && !shaped) {
      hlo_lx_next(&p->lx);
      shaped = hlo_tok_punct(hlo_lx_peek(&p->lx), "[");
      p->lx = save;
    }
    if (shaped && !hlo_parse_shape(&p->lx, p->a, p->e)) return false;
    t = hlo_lx_next(&p->lx);
    if (t.kind != HT_NAME) return hlo_error_tok(p->e, t, "operand name");
    int32_t k;
    uint32_t slot;
    if (hlo_tok_punct(hlo_lx_peek(&p->lx), "(")) {
      if (!shaped)
        return hlo_error_unsupported(p->e, t,
                                     "a nested instruction without a shape");
      p->lx = save;
      if (!nested_operand(p, c, cap, depth, &k)) return false;
    } else if ((k = table_find(p, c, t, &slot)) < 0) {
      return hlo_error_at(p->e, t.line, t.col,
                          "use of undefined instruction '%.*s'",
                          (int)(t.n > 60 ? 60 : t.n), t.p);
    }
    if (!hlo_push(p->a, (void**)&in->operands, &in->num_operands, &cap1,
                  sizeof k, &k))
      return hlo_error_oom(p->e);
    int32_t n2 = in->num_operands - 1;
    if (!hlo_push(p->a, (void**)&in->operand_tok, &n2, &cap2, sizeof t, &t))
      return hlo_error_oom(p->e);
    t = hlo_lx_next(&p->lx);
    if (hlo_tok_punct(t, ")")) return true;
    if (!hlo_tok_punct(t, ",")) return hlo_error_tok(p->e, t, "',' or ')'");
  }
}

/* The raw text inside the parentheses of constant(...) / parameter(...). */
static bool parse_paren_span(ast_p_t* p, hlo_instr_t* in) {
  hlo_tok_t first = hlo_lx_peek(&p->lx);
  in->paren.begin = first.p;
  in->paren.line = first.line;
  in->paren.col = first.col;
  in->paren.line_start = first.p - (first.col - 1);
  hlo_tok_t open = {HT_PUNCT, "(", 1, first.line, first.col, false};
  const char* before = p->lx.p;
  if (!skip_group(p, open)) return false;
  /* p->lx.p is just past ')'; find it. */
  const char* q = p->lx.p - 1;
  in->paren.end = q >= before ? q : before;
  if (hlo_tok_punct(first, ")")) in->paren.end = in->paren.begin;
  return true;
}

/* `shape opcode(operands), attrs` */
static bool parse_rhs(ast_p_t* p, hlo_comp_t* c, int32_t* cap, hlo_instr_t* in,
                      bool attrs, int depth) {
  hlo_tok_t st = hlo_lx_peek(&p->lx);
  if (!starts_shape(st))
    return st.kind == HT_NAME
               ? hlo_error_unsupported(p->e, st,
                                       "instruction without a result shape")
               : hlo_error_tok(p->e, st, "shape");
  in->shape = hlo_parse_shape(&p->lx, p->a, p->e);
  if (!in->shape) return false;
  in->opcode = hlo_lx_next(&p->lx);
  if (in->opcode.kind != HT_NAME)
    return hlo_error_tok(p->e, in->opcode, "opcode");
  if (!expect(p, "(", "'(' after the opcode")) return false;
  if (hlo_tok_is(in->opcode, "constant") ||
      hlo_tok_is(in->opcode, "parameter")) {
    if (!parse_paren_span(p, in)) return false;
  } else if (!parse_operands(p, c, cap, in, depth)) {
    return false;
  }
  return !attrs || parse_attrs(p, &in->attrs, &in->num_attrs);
}

static bool add_instr(ast_p_t* p, hlo_comp_t* c, int32_t* cap,
                      hlo_instr_t* in) {
  if (!table_grow(p, c, c->num_instrs + 1)) return false;
  uint32_t slot;
  if (table_find(p, c, in->name, &slot) >= 0)
    return hlo_error_at(p->e, in->name.line, in->name.col,
                        "redefinition of instruction '%.*s'",
                        (int)(in->name.n > 60 ? 60 : in->name.n), in->name.p);
  if (in->is_root && c->root >= 0)
    return hlo_error_at(p->e, in->name.line, in->name.col,
                        "a second ROOT instruction in computation '%.*s'",
                        (int)c->name.n, c->name.p);
  if (in->is_root) c->root = c->num_instrs;
  p->slots[slot] = c->num_instrs;
  if (!hlo_push(p->a, (void**)&c->instrs, &c->num_instrs, cap, sizeof *in, in))
    return hlo_error_oom(p->e);
  return true;
}

static bool parse_instr(ast_p_t* p, hlo_comp_t* c, int32_t* cap) {
  hlo_instr_t in;
  memset(&in, 0, sizeof in);
  hlo_tok_t t = hlo_lx_next(&p->lx);
  if (t.kind == HT_NAME && hlo_tok_is(t, "ROOT")) {
    in.is_root = true;
    t = hlo_lx_next(&p->lx);
  }
  if (t.kind != HT_NAME)
    return hlo_error_tok(p->e, t, "instruction name or '}'");
  in.name = t;
  if (!expect(p, "=", "'=' after the instruction name")) return false;
  return parse_rhs(p, c, cap, &in, true, 0) && add_instr(p, c, cap, &in);
}

/* ---- computations
 * ------------------------------------------------------------- */
/* parameter(N) instructions -> c->params[N]; every N in 0..n-1 once. */
static bool collect_params(ast_p_t* p, hlo_comp_t* c) {
  int32_t n = 0;
  for (int32_t i = 0; i < c->num_instrs; i++)
    if (hlo_tok_is(c->instrs[i].opcode, "parameter")) n++;
  c->num_params = n;
  c->params = hlx_arena_alloc_array(p->a, (size_t)n + 1, sizeof(int32_t));
  if (!c->params) return hlo_error_oom(p->e);
  for (int32_t i = 0; i < n; i++) c->params[i] = -1;
  for (int32_t i = 0; i < c->num_instrs; i++) {
    hlo_instr_t* in = &c->instrs[i];
    if (!hlo_tok_is(in->opcode, "parameter")) continue;
    int64_t k;
    if (!hlo_read_i64(&in->paren, p->e, &k)) return false;
    if (k < 0 || k >= n)
      return hlo_error_at(p->e, in->paren.line, in->paren.col,
                          "parameter number %lld out of range (the "
                          "computation has %d parameters)",
                          (long long)k, n);
    if (c->params[k] >= 0)
      return hlo_error_at(p->e, in->paren.line, in->paren.col,
                          "parameter(%lld) defined twice", (long long)k);
    c->params[k] = i;
  }
  return true;
}

static bool parse_signature(ast_p_t* p) {
  hlo_lx_next(&p->lx); /* ( */
  if (!hlo_tok_punct(hlo_lx_peek(&p->lx), ")")) {
    for (;;) {
      hlo_tok_t n = hlo_lx_next(&p->lx);
      if (n.kind != HT_NAME) return hlo_error_tok(p->e, n, "parameter name");
      if (!expect(p, ":", "':' after the parameter name")) return false;
      if (!hlo_parse_shape(&p->lx, p->a, p->e)) return false;
      hlo_tok_t t = hlo_lx_next(&p->lx);
      if (hlo_tok_punct(t, ")")) break;
      if (!hlo_tok_punct(t, ",")) return hlo_error_tok(p->e, t, "',' or ')'");
    }
  } else {
    hlo_lx_next(&p->lx);
  }
  if (!expect(p, "->", "'->' before the result shape")) return false;
  return hlo_parse_shape(&p->lx, p->a, p->e) != NULL;
}

static bool parse_comp(ast_p_t* p, hlo_ast_t* ast, int32_t* cap) {
  hlo_comp_t c;
  memset(&c, 0, sizeof c);
  c.root = -1;
  hlo_tok_t t = hlo_lx_next(&p->lx);
  if (t.kind == HT_NAME && hlo_tok_is(t, "ENTRY")) {
    c.is_entry = true;
    t = hlo_lx_next(&p->lx);
  }
  if (t.kind == HT_NAME && hlo_tok_is(t, "HloModule"))
    return hlo_error_unsupported(p->e, t,
                                 "a second HloModule in one text "
                                 "(split the modules at `// -----` lines)");
  if (t.kind != HT_NAME || hlo_tok_is(t, "ROOT"))
    return hlo_error_tok(
        p->e, t,
        ast->num_comps ? "computation" : "'HloModule' or a computation");
  c.name = t;
  if (hlo_find_comp(ast, t.p, t.n) >= 0)
    return hlo_error_at(p->e, t.line, t.col,
                        "redefinition of computation '%.*s'",
                        (int)(t.n > 60 ? 60 : t.n), t.p);
  if (hlo_tok_punct(hlo_lx_peek(&p->lx), "(") && !parse_signature(p))
    return false;
  if (!expect(p, "{", "'{' starting the computation's instructions"))
    return false;
  if (!table_reset(p, 64)) return false;
  int32_t icap = 0;
  while (!hlo_tok_punct(hlo_lx_peek(&p->lx), "}")) {
    if (hlo_lx_peek(&p->lx).kind == HT_EOF)
      return hlo_error_tok(p->e, hlo_lx_peek(&p->lx),
                           "'}' closing the computation");
    if (!parse_instr(p, &c, &icap)) return false;
  }
  hlo_lx_next(&p->lx);
  if (c.num_instrs == 0)
    return hlo_error_at(p->e, t.line, t.col,
                        "computation '%.*s' has no instructions", (int)t.n,
                        t.p);
  if (c.root < 0) c.root = c.num_instrs - 1;
  hlo_attr_t* extra = NULL;
  int32_t nextra = 0;
  if (!parse_attrs(p, &extra, &nextra)) return false; /* execution_thread= */
  if (c.is_entry) {
    for (int32_t i = 0; i < ast->num_comps; i++)
      if (ast->comps[i].is_entry)
        return hlo_error_at(p->e, t.line, t.col, "a second ENTRY computation");
  }
  if (!collect_params(p, &c)) return false;
  if (!hlo_push(p->a, (void**)&ast->comps, &ast->num_comps, cap, sizeof c, &c))
    return hlo_error_oom(p->e);
  return true;
}

int32_t hlo_find_comp(const hlo_ast_t* ast, const char* n, size_t len) {
  for (int32_t i = 0; i < ast->num_comps; i++)
    if (ast->comps[i].name.n == len &&
        memcmp(ast->comps[i].name.p, n, len) == 0)
      return i;
  return -1;
}

bool hlo_parse_ast(const char* text, size_t len, int first_line, hlx_arena_t* a,
                   hlo_err_t* e, hlo_ast_t* ast) {
  ast_p_t p;
  memset(&p, 0, sizeof p);
  memset(ast, 0, sizeof(*ast));
  p.a = a;
  p.e = e;
  hlo_lx_init(&p.lx, text, len, first_line, text);
  ast->name.kind = HT_EOF;
  bool ok = true;
  hlo_tok_t t = hlo_lx_peek(&p.lx);
  if (t.kind == HT_NAME && hlo_tok_is(t, "HloModule")) {
    hlo_lx_next(&p.lx);
    ast->name = hlo_lx_next(&p.lx);
    if (ast->name.kind != HT_NAME)
      ok = hlo_error_tok(e, ast->name, "module name");
    ok = ok && parse_attrs(&p, &ast->attrs, &ast->num_attrs);
  }
  int32_t cap = 0;
  while (ok && hlo_lx_peek(&p.lx).kind != HT_EOF)
    ok = parse_comp(&p, ast, &cap);
  if (ok && ast->num_comps == 0)
    ok = hlo_error_tok(e, hlo_lx_peek(&p.lx), "a computation");
  free(p.slots);
  if (!ok) return false;
  ast->entry = ast->num_comps - 1;
  for (int32_t i = 0; i < ast->num_comps; i++)
    if (ast->comps[i].is_entry) ast->entry = i;
  return true;
}

void hlo_span_lexer(const hlo_span_t* s, hlo_lexer_t* lx) {
  hlo_lx_init(lx, s->begin, (size_t)(s->end - s->begin), s->line,
              s->line_start);
}
