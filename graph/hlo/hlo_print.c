/* IR -> HLO text: the module header, functions and regions as
 * computations (parameters, instructions, ROOT), instruction names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/hlo/hlo_print_internal.h"
#include "graph/hlo/hlo_printer.h"

/* ---- buffers ----------------------------------------------------------------
 */
void pb_put(pbuf_t* b, const char* s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t nc = b->cap ? b->cap : 1024;
    while (nc < b->n + n + 1) {
      if (nc > SIZE_MAX / 2) {
        b->oom = true;
        return;
      }
      nc *= 2;
    }
    char* ns = realloc(b->s, nc);
    if (!ns) {
      b->oom = true;
      return;
    }
    b->s = ns;
    b->cap = nc;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

void pb_puts(pbuf_t* b, const char* s) { pb_put(b, s, strlen(s)); }

void pb_printf(pbuf_t* b, const char* fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof tmp) {
    b->oom = true; /* only short fragments are printed with a format */
    return;
  }
  pb_put(b, tmp, (size_t)n);
}

void pb_string(pbuf_t* b, const char* s, size_t n) {
  pb_put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      pb_put(b, e, 2);
    } else if (c == '\n') {
      pb_put(b, "\\n", 2);
    } else if (c < 32 || c >= 127) {
      pb_printf(b, "\\x%02x", c);
    } else {
      pb_put(b, (const char*)&s[i], 1);
    }
  }
  pb_put(b, "\"", 1);
}

bool hp_fail(hp_t* hp, hlx_status_code_t code, const char* fmt, ...) {
  if (hp->err) return false;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  hp->err = hlx_make_status(code, "%s", msg);
  return false;
}

/* Room for one more element in a malloc'd vector of n (capacity *cap). */
static bool grow(hp_t* hp, void** arr, int32_t n, int32_t* cap, size_t elem) {
  if (n < *cap) return true;
  int32_t nc = *cap ? *cap * 2 : 8;
  void* g = nc > 0 ? realloc(*arr, elem * (size_t)nc) : NULL;
  if (!g) return hp_fail(hp, HLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  *arr = g;
  *cap = nc;
  return true;
}

const char* hp_keep(hp_t* hp, const char* s) {
  char* c = strdup(s);
  if (!c ||
      !grow(hp, (void**)&hp->strs, hp->nstrs, &hp->capstrs, sizeof(char*))) {
    free(c);
    if (!hp->err) hp->err = hlx_status_oom();
    return NULL;
  }
  hp->strs[hp->nstrs++] = c;
  return c;
}

/* ---- uses
 * ---------------------------------------------------------------------- */
static void count_region(int32_t* uses, int32_t n, const hlx_region_t* r) {
  for (int32_t b = 0; b < r->num_blocks; b++) {
    const hlx_block_t* blk = r->blocks[b];
    for (int32_t o = 0; o < blk->num_ops; o++) {
      const hlx_op_t* op = blk->ops[o];
      for (int32_t i = 0; i < op->num_operands; i++)
        if (op->operands[i] && op->operands[i]->id >= 0 &&
            op->operands[i]->id < n)
          uses[op->operands[i]->id]++;
      for (int32_t i = 0; i < op->num_regions; i++)
        count_region(uses, n, op->regions[i]);
    }
  }
}

int32_t hp_uses(hp_t* hp, const hlx_func_t* f, const hlx_value_t* v) {
  if (hp->uses_of != f) {
    free(hp->uses);
    hp->uses = calloc((size_t)f->num_values + 1, sizeof(int32_t));
    hp->uses_of = hp->uses ? f : NULL;
    if (!hp->uses) {
      if (!hp->err) hp->err = hlx_status_oom();
      return 0;
    }
    count_region(hp->uses, f->num_values, f->body);
  }
  return v->id >= 0 && v->id < f->num_values ? hp->uses[v->id] : 0;
}

/* ---- names
 * ---------------------------------------------------------------------- */
static uint32_t hash(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static bool taken(hc_t* hc, const char* s, bool insert) {
  uint32_t m = hc->ntaken - 1, i = hash(s) & m;
  for (; hc->taken[i]; i = (i + 1) & m)
    if (strcmp(hc->taken[i], s) == 0) return true;
  if (insert) hc->taken[i] = (char*)s;
  return false;
}

/* Keeps the names table at most half full (doubling it). */
static bool room(hc_t* hc) {
  if (2 * (hc->used + 1) <= hc->ntaken) return true;
  uint32_t n = hc->ntaken * 2;
  char** old = hc->taken;
  char** t = n ? calloc(n, sizeof(char*)) : NULL;
  if (!t || n < hc->ntaken)
    return hp_fail(hc->hp, HLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  uint32_t on = hc->ntaken;
  hc->taken = t;
  hc->ntaken = n;
  for (uint32_t i = 0; i < on; i++)
    if (old[i]) taken(hc, old[i], true);
  free(old);
  return true;
}

const char* hc_new_name(hc_t* hc, const char* base) {
  char clean[64];
  size_t n = 0;
  for (const char* p = base ? base : ""; *p && n < 40; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (n > 0 && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
    if (!ok && n == 0 && c >= '0' && c <= '9') clean[n++] = 'v';
    if (ok || (c >= '0' && c <= '9')) clean[n++] = c;
  }
  if (n == 0) clean[n++] = 'v';
  clean[n] = 0;
  char buf[80];
  snprintf(buf, sizeof buf, "%s", clean);
  while (taken(hc, buf, false))
    snprintf(buf, sizeof buf, "%s.%d", clean, ++hc->counter);
  const char* kept = hp_keep(hc->hp, buf);
  if (!kept || !room(hc)) return NULL;
  taken(hc, kept, true);
  hc->used++;
  return kept;
}

const char* hc_ref(hc_t* hc, const hlx_value_t* v) {
  if (v && v->id >= 0 && v->id < hc->nvals && hc->names[v->id])
    return hc->names[v->id];
  hp_fail(hc->hp, HLX_STATUS_UNIMPLEMENTED,
          "unsupported: %%%s is used in a region but defined outside it "
          "(an HLO computation sees only its parameters)",
          v && v->name ? v->name : "?");
  return NULL;
}

void hc_begin_line(hc_t* hc, const hlx_value_t* v, const char* name) {
  if (v && v->id >= 0 && v->id < hc->nvals) {
    hc->names[v->id] = (char*)name;
    hc->line_at[v->id] = hc->body.n + 3; /* after "  " (+1) */
  }
  pb_printf(&hc->body, "  %%%s = ", name);
}

/* ---- captures
 * ---------------------------------------------------------------- */
static bool inside(const hlx_value_t* v, const hlx_region_t* r) {
  const hlx_block_t* blk = v->def ? v->def->parent : v->block;
  while (blk) {
    if (blk->parent == r) return true;
    const hlx_op_t* op = blk->parent ? blk->parent->parent : NULL;
    if (!op) return false;
    blk = op->parent;
  }
  return false;
}

typedef struct cap_list_t {
  const hlx_value_t** v;
  int32_t n, cap;
} cap_list_t;

static bool collect(hp_t* hp, const hlx_region_t* top, const hlx_region_t* r,
                    cap_list_t* l) {
  for (int32_t b = 0; b < r->num_blocks; b++) {
    const hlx_block_t* blk = r->blocks[b];
    for (int32_t o = 0; o < blk->num_ops; o++) {
      const hlx_op_t* op = blk->ops[o];
      for (int32_t i = 0; i < op->num_operands; i++) {
        const hlx_value_t* v = op->operands[i];
        if (!v || inside(v, top)) continue;
        int32_t k = 0;
        while (k < l->n && l->v[k] != v) k++;
        if (k < l->n) continue;
        if (!grow(hp, (void**)&l->v, l->n, &l->cap, sizeof(*l->v)))
          return false;
        l->v[l->n++] = v;
      }
      for (int32_t i = 0; i < op->num_regions; i++)
        if (!collect(hp, top, op->regions[i], l)) return false;
    }
  }
  return true;
}

bool hp_captures(hp_t* hp, const hlx_region_t* r, const hlx_value_t*** out,
                 int32_t* n) {
  cap_list_t l = {NULL, 0, 0};
  bool ok = collect(hp, r, r, &l);
  *out = l.v;
  *n = l.n;
  return ok;
}

/* ---- computations
 * --------------------------------------------------------------- */
/* The names table holds at most a few names per op of blk (its line, a
 * tuple operand, get-tuple-element lines) plus parameters: twice that. */
static bool hc_init(hc_t* hc, hp_t* hp, const hlx_func_t* f,
                    const hlx_block_t* blk, int32_t ncaptures) {
  memset(hc, 0, sizeof(*hc));
  hc->hp = hp;
  hc->func = f;
  hc->nvals = f->num_values;
  uint64_t names = (uint64_t)blk->num_args + (uint64_t)ncaptures + 16;
  for (int32_t i = 0; i < blk->num_ops; i++)
    names += 3 + (uint64_t)blk->ops[i]->num_results;
  hc->ntaken = 64;
  while (hc->ntaken < 2 * names && hc->ntaken < (1u << 30)) hc->ntaken *= 2;
  hc->names = calloc((size_t)hc->nvals + 1, sizeof(char*));
  hc->line_at = calloc((size_t)hc->nvals + 1, sizeof(size_t));
  hc->skip = calloc((size_t)hc->nvals + 1, 1);
  hc->top = calloc((size_t)hc->nvals + 1, sizeof(*hc->top));
  hc->user = calloc((size_t)hc->nvals + 1, sizeof(*hc->user));
  hc->taken = calloc(hc->ntaken, sizeof(char*));
  if (hc->names && hc->line_at && hc->skip && hc->top && hc->user && hc->taken)
    return true;
  return hp_fail(hp, HLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
}

static void hc_free(hc_t* hc) {
  free(hc->names);
  free(hc->line_at);
  free(hc->skip);
  free(hc->top);
  free(hc->user);
  free(hc->taken);
  free(hc->body.s);
}

static bool param_line(hc_t* hc, const hlx_value_t* v, const hlx_type_t* t,
                       const char* base, int32_t index) {
  const char* name = hc_new_name(hc, base);
  if (!name) return false;
  hc_begin_line(hc, v, name);
  if (!hp_type(hc->hp, &hc->body, t)) return false;
  pb_printf(&hc->body, " parameter(%d)\n", index);
  return true;
}

/* `%n = T get-tuple-element(%t), index=k` defining v. */
static bool gte_line(hc_t* hc, const hlx_value_t* v, const char* tuple,
                     int32_t k) {
  const char* name = hc_new_name(hc, v->name ? v->name : "get-tuple-element");
  if (!name) return false;
  hc_begin_line(hc, v, name);
  if (!hp_type(hc->hp, &hc->body, v->type)) return false;
  pb_printf(&hc->body, " get-tuple-element(%%%s), index=%d\n", tuple, k);
  return true;
}

/* Prints `(T0, T1, ...)`, the tuple of vals' types. */
static bool tuple_type(hp_t* hp, pbuf_t* b, const hlx_value_t* const* vals,
                       int32_t n) {
  pb_puts(b, "(");
  for (int32_t i = 0; i < n; i++) {
    if (i) pb_puts(b, ", ");
    if (!hp_type(hp, b, vals[i]->type)) return false;
  }
  pb_puts(b, ")");
  return true;
}

/* A tuple parameter holding vals (their types in order). */
static bool tuple_param(hc_t* hc, const hlx_value_t* const* vals, int32_t n) {
  const char* p = hc_new_name(hc, "param");
  if (!p) return false;
  hc_begin_line(hc, NULL, p);
  if (!tuple_type(hc->hp, &hc->body, vals, n)) return false;
  pb_puts(&hc->body, " parameter(0)\n");
  for (int32_t i = 0; i < n; i++)
    if (!gte_line(hc, vals[i], p, i)) return false;
  return true;
}

static bool print_params(hc_t* hc, const hlx_block_t* blk,
                         const hp_region_t* s) {
  if (s->params == HP_ARGS) {
    for (int32_t i = 0; i < blk->num_args; i++)
      if (!param_line(hc, blk->args[i], blk->args[i]->type,
                      blk->args[i]->name ? blk->args[i]->name : "param", i))
        return false;
    return true;
  }
  if (s->params == HP_TUPLE_ARGS)
    return tuple_param(hc, (const hlx_value_t* const*)blk->args, blk->num_args);
  if (s->ncaptures == 1)
    return param_line(hc, s->captures[0], s->captures[0]->type,
                      s->captures[0]->name ? s->captures[0]->name : "param", 0);
  if (s->ncaptures == 0) return param_line(hc, NULL, s->dummy, "unused", 0);
  return tuple_param(hc, s->captures, s->ncaptures);
}

/* Marks the line defining v as ROOT, or adds a tuple of vals as ROOT. */
static bool print_root(hc_t* hc, const hlx_value_t* const* vals, int32_t n,
                       bool tuple_root, pbuf_t* out) {
  size_t at = 0;
  (void)tuple_root;
  if (n == 1) {
    if (!hc_ref(hc, vals[0])) return false;
    at = hc->line_at[vals[0]->id];
  }
  if (at) {
    pb_put(out, hc->body.s, at - 1);
    pb_puts(out, "ROOT ");
    pb_put(out, hc->body.s + at - 1, hc->body.n - (at - 1));
    return true;
  }
  if (hc->body.n) pb_put(out, hc->body.s, hc->body.n);
  const char* name = hc_new_name(hc, "tuple");
  if (!name) return false;
  pb_printf(out, "  ROOT %%%s = ", name);
  if (!tuple_type(hc->hp, out, vals, n)) return false;
  pb_puts(out, " tuple(");
  for (int32_t i = 0; i < n; i++) {
    const char* r = hc_ref(hc, vals[i]);
    if (!r) return false;
    pb_printf(out, "%s%%%s", i ? ", " : "", r);
  }
  pb_puts(out, ")\n");
  return true;
}

/* Prints blk as computation `name`; appends it to hp->out. */
static bool print_comp(hp_t* hp, const hlx_func_t* f, const hlx_block_t* blk,
                       const char* name, bool entry, const hp_region_t* s) {
  hc_t hc;
  bool ok = hc_init(&hc, hp, f, blk, s->ncaptures) && print_params(&hc, blk, s);
  if (ok) hp_mark_absorbed(&hc, blk);
  const hlx_op_t* term = blk->num_ops ? blk->ops[blk->num_ops - 1] : NULL;
  if (ok && (!term ||
             (term->code != HLX_OP_RETURN && term->code != HLX_OP_FUNC_RETURN)))
    ok = hp_fail(hp, HLX_STATUS_INVALID_ARGUMENT,
                 "a block of @%s does not end in a return", f->name);
  for (int32_t i = 0; ok && i + 1 < blk->num_ops; i++) {
    const hlx_op_t* op = blk->ops[i];
    if (op->num_results && hc.skip[op->results[0]->id]) continue;
    ok = hp_op(&hc, op);
  }
  pbuf_t text = {0};
  pb_printf(&text, "%s%%%s {\n", entry ? "ENTRY " : "", name);
  if (ok && term->num_operands == 0 && s->params != HP_CAPTURES)
    ok = print_root(&hc, NULL, 0, true, &text);
  else if (ok)
    ok = print_root(&hc, (const hlx_value_t* const*)term->operands,
                    term->num_operands, s->tuple_root, &text);
  pb_puts(&text, "}\n\n");
  if (ok && (text.oom || hc.body.oom))
    ok = hp_fail(hp, HLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  if (ok) pb_put(&hp->out, text.s, text.n);
  free(text.s);
  hc_free(&hc);
  return ok && !hp->err;
}

bool hp_region(hp_t* hp, const hlx_func_t* f, const hp_region_t* spec,
               const char** name) {
  const hlx_region_t* r = spec->r;
  if (r->num_blocks != 1)
    return hp_fail(hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: regions with several blocks");
  char buf[48];
  do {
    snprintf(buf, sizeof buf, "region.%d", hp->regions++);
  } while (hlx_module_find_func(hp->m, buf));
  *name = hp_keep(hp, buf);
  return *name && print_comp(hp, f, r->blocks[0], *name, false, spec);
}

bool hp_func(hp_t* hp, const hlx_func_t* f) {
  for (int32_t i = 0; i < hp->nprinted; i++)
    if (hp->printed[i] == f) return true;
  if (!grow(hp, (void**)&hp->printed, hp->nprinted, &hp->capprinted,
            sizeof(*hp->printed)))
    return false;
  hp->printed[hp->nprinted++] = f;
  if (!f->body || f->body->num_blocks != 1)
    return hp_fail(hp, HLX_STATUS_UNIMPLEMENTED,
                   "unsupported: @%s has no single-block body", f->name);
  hp_region_t s = {f->body, HP_ARGS, NULL, 0, NULL, true};
  bool entry = f == hlx_module_entry(hp->m);
  return print_comp(hp, f, f->body->blocks[0], entry ? "main" : f->name, entry,
                    &s);
}

/* `HloModule name, entry_computation_layout={(params)->result}` */
static bool header(hp_t* hp, const hlx_func_t* entry, pbuf_t* b) {
  const char* n = hp->m->name && *hp->m->name ? hp->m->name : "module";
  pb_puts(b, "HloModule ");
  for (const char* p = n; *p; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (p > n && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
    pb_put(b, ok ? p : "_", 1);
  }
  pb_puts(b, ", entry_computation_layout={(");
  for (int32_t i = 0; i < entry->num_args; i++) {
    if (i) pb_puts(b, ", ");
    if (!hp_type(hp, b, entry->body->blocks[0]->args[i]->type)) return false;
  }
  pb_puts(b, ")->");
  if (entry->num_results == 1) {
    if (!hp_type(hp, b, entry->result_types[0])) return false;
  } else {
    pb_puts(b, "(");
    for (int32_t i = 0; i < entry->num_results; i++) {
      if (i) pb_puts(b, ", ");
      if (!hp_type(hp, b, entry->result_types[i])) return false;
    }
    pb_puts(b, ")");
  }
  pb_puts(b, "}\n\n");
  return true;
}

hlx_status_t hlx_print_hlo_module(const hlx_module_t* m, char** out_text,
                                  size_t* out_len) {
  if (out_text) *out_text = NULL;
  if (out_len) *out_len = 0;
  if (!m || !out_text)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_print_hlo_module: NULL argument");
  const hlx_func_t* entry = hlx_module_entry(m);
  if (!entry)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "the module has no functions");
  hp_t hp;
  memset(&hp, 0, sizeof hp);
  hp.m = m;
  pbuf_t head = {0};
  bool ok =
      entry->body && entry->body->num_blocks == 1 && header(&hp, entry, &head);
  if (!entry->body || entry->body->num_blocks != 1)
    hp_fail(&hp, HLX_STATUS_UNIMPLEMENTED,
            "unsupported: @%s has no single-block body", entry->name);
  ok = ok && hp_func(&hp, entry);
  if (ok && (head.oom || hp.out.oom))
    ok = hp_fail(&hp, HLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  if (ok) {
    pb_put(&head, hp.out.s ? hp.out.s : "", hp.out.n);
    ok = !head.oom ||
         hp_fail(&hp, HLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int32_t i = 0; i < hp.nstrs; i++) free(hp.strs[i]);
  free(hp.strs);
  free(hp.printed);
  free(hp.uses);
  free(hp.out.s);
  if (!ok || hp.err) {
    free(head.s);
    return hp.err ? hp.err
                  : hlx_make_status(HLX_STATUS_INTERNAL, "HLO print failed");
  }
  *out_text = head.s;
  if (out_len) *out_len = head.n;
  return NULL;
}
