/* Syntax tree -> IR: the entry computation becomes @main, computations
 * reached through call / fusion / custom-call become private functions
 * (created on first use, after their caller), computations used by
 * reduce-like ops, while and conditional become regions (one copy per use).
 * Instructions are imported in order by the op table (hlo_ops.c) or by
 * their own importers (hlo_import_ops.c). */
#include <stdlib.h>
#include <string.h>

#include "graph/hlo/hlo_internal.h"

const hlo_attr_t* hlo_instr_attr(const hlo_instr_t* in, const char* name) {
  for (int32_t i = 0; i < in->num_attrs; i++)
    if (hlo_tok_is(in->attrs[i].name, name)) return &in->attrs[i];
  return NULL;
}

void hlo_name_value(hlo_imp_t* im, hlx_value_t* v, const hlo_instr_t* in) {
  if (!v || v->name) return;
  v->name = hlx_arena_strndup(im->b.a, in->name.p, in->name.n);
}

int32_t hlo_called_comp(hlo_imp_t* im, const hlo_scope_t* sc,
                        const hlo_span_t* s) {
  hlo_tok_t t;
  if (!hlo_read_word(s, im->b.e, &t)) return -1;
  int32_t k = hlo_find_comp(im->ast, t.p, t.n);
  if (k < 0) {
    hlo_error_at(im->b.e, t.line, t.col, "unknown computation '%.*s'",
                 (int)(t.n > 60 ? 60 : t.n), t.p);
    return -1;
  }
  if (k >= sc->comp) {
    hlo_error_at(im->b.e, t.line, t.col,
                 "computation '%.*s' is used before its definition", (int)t.n,
                 t.p);
    return -1;
  }
  return k;
}

int32_t hlo_leaves(hlx_type_t* t, hlx_type_t** out, int32_t max) {
  if (t->kind != HLX_TYPE_TUPLE) {
    if (out && max > 0) out[0] = t;
    return 1;
  }
  int32_t n = 0;
  for (int32_t i = 0; i < t->num_elems; i++)
    n += hlo_leaves(t->elems[i], out ? out + n : NULL, max - n);
  return n;
}

hlx_value_t* hlo_regroup(hlo_imp_t* im, hlo_scope_t* sc,
                         hlx_value_t* const* vals, int32_t* next, hlx_type_t* t,
                         int line, int col) {
  if (t->kind != HLX_TYPE_TUPLE) return vals[(*next)++];
  hlx_value_t** el = hlx_arena_alloc_array(im->b.a, (size_t)t->num_elems + 1,
                                           sizeof(hlx_value_t*));
  if (!el) {
    hlo_error_oom(im->b.e);
    return NULL;
  }
  for (int32_t i = 0; i < t->num_elems; i++)
    if (!(el[i] = hlo_regroup(im, sc, vals, next, t->elems[i], line, col)))
      return NULL;
  hlx_op_t* op =
      hb_op(&im->b, sc->blk, HLX_OP_TUPLE, el, t->num_elems, &t, 1, line, col);
  return op ? op->results[0] : NULL;
}

/* Counts operand uses so a root tuple nothing else uses can be unpacked. */
static bool count_uses(hlo_imp_t* im, hlo_scope_t* sc) {
  const hlo_comp_t* c = sc->c;
  sc->uses = calloc((size_t)c->num_instrs + 1, sizeof(int32_t));
  sc->param_of = calloc((size_t)c->num_instrs + 1, sizeof(int32_t));
  sc->vals = calloc((size_t)c->num_instrs + 1, sizeof(hlx_value_t*));
  if (!sc->uses || !sc->param_of || !sc->vals) return hlo_error_oom(im->b.e);
  for (int32_t i = 0; i < c->num_instrs; i++)
    for (int32_t k = 0; k < c->instrs[i].num_operands; k++)
      sc->uses[c->instrs[i].operands[k]]++;
  for (int32_t k = 0; k < c->num_params; k++) sc->param_of[c->params[k]] = k;
  return true;
}

static void free_scope(hlo_scope_t* sc) {
  free(sc->uses);
  free(sc->param_of);
  free(sc->vals);
}

hlx_value_t* hlo_import_body(hlo_imp_t* im, hlo_scope_t* sc) {
  const hlo_comp_t* c = sc->c;
  for (int32_t i = 0; i < c->num_instrs; i++) {
    if (i == sc->skip) continue;
    const hlo_instr_t* in = &c->instrs[i];
    const hlo_op_t* op = hlo_op_by_name(in->opcode.p, in->opcode.n);
    if (!op) {
      hlo_error_unsupported(im->b.e, in->opcode, "HLO opcode '%.*s'",
                            (int)(in->opcode.n > 60 ? 60 : in->opcode.n),
                            in->opcode.p);
      return NULL;
    }
    bool ok = op->kind == HK_SIMPLE ? hlo_import_simple(im, sc, i, op)
                                    : hlo_import_special(im, sc, i, op);
    if (!ok) return NULL;
    if (!sc->vals[i]) {
      hlo_error_at(im->b.e, in->name.line, in->name.col,
                   "internal: instruction produced no value");
      return NULL;
    }
    hlo_name_value(im, sc->vals[i], in);
  }
  return sc->skip == c->root ? NULL : sc->vals[c->root];
}

static hlx_type_t** param_types(hlo_imp_t* im, const hlo_comp_t* c) {
  hlx_type_t** t = hlx_arena_alloc_array(im->b.a, (size_t)c->num_params + 1,
                                         sizeof(hlx_type_t*));
  if (!t) {
    hlo_error_oom(im->b.e);
    return NULL;
  }
  for (int32_t k = 0; k < c->num_params; k++)
    if (!(t[k] = hb_type_from_shape(&im->b, c->instrs[c->params[k]].shape)))
      return NULL;
  return t;
}

static bool add_return(hlo_imp_t* im, hlx_block_t* blk, hlx_opcode_t code,
                       hlx_value_t* const* vals, int32_t n,
                       const hlo_comp_t* c) {
  const hlo_tok_t* at = &c->instrs[c->root].name;
  return hb_op(&im->b, blk, code, vals, n, NULL, 0, at->line, at->col) != NULL;
}

/* The values a region returns: the root, or a root tuple's elements. */
static bool region_results(hlo_imp_t* im, hlo_scope_t* sc, hlx_value_t* root,
                           hlx_value_t*** out, int32_t* n) {
  const hlo_comp_t* c = sc->c;
  const hlo_instr_t* r = &c->instrs[c->root];
  if (sc->skip == c->root) { /* an unused root tuple: its operands */
    *n = r->num_operands;
    *out = hlx_arena_alloc_array(im->b.a, (size_t)*n + 1, sizeof(hlx_value_t*));
    if (!*out) return hlo_error_oom(im->b.e);
    for (int32_t k = 0; k < *n; k++) (*out)[k] = sc->vals[r->operands[k]];
    return true;
  }
  if (root->type->kind != HLX_TYPE_TUPLE) {
    *n = 1;
    *out = hlx_arena_alloc_array(im->b.a, 1, sizeof(hlx_value_t*));
    if (!*out) return hlo_error_oom(im->b.e);
    (*out)[0] = root;
    return true;
  }
  *n = root->type->num_elems;
  *out = hlx_arena_alloc_array(im->b.a, (size_t)*n + 1, sizeof(hlx_value_t*));
  if (!*out) return hlo_error_oom(im->b.e);
  for (int32_t k = 0; k < *n; k++) {
    hlx_type_t* et = root->type->elems[k];
    hlx_op_t* g = hb_op(&im->b, sc->blk, HLX_OP_GET_TUPLE_ELEMENT, &root, 1,
                        &et, 1, r->name.line, r->name.col);
    if (!g || !hb_attr(&im->b, g, "index", hb_int(&im->b, k, HLX_DTYPE_S32)))
      return false;
    (*out)[k] = g->results[0];
  }
  return true;
}

hlx_region_t* hlo_import_region(hlo_imp_t* im, int32_t comp, bool unpack,
                                hlx_value_t* const* params) {
  const hlo_comp_t* c = &im->ast->comps[comp];
  hlx_type_t** types = param_types(im, c);
  if (!types) return NULL;
  for (int32_t k = 0; params && k < c->num_params; k++)
    if (!hlx_type_equal(types[k], params[k]->type)) {
      const hlo_tok_t* at = &c->instrs[c->params[k]].name;
      hlo_error_at(im->b.e, at->line, at->col,
                   "parameter %d of computation '%.*s' does not have the "
                   "type of the operand passed to it",
                   k, (int)c->name.n, c->name.p);
      return NULL;
    }
  hlx_region_t* r = hb_region(&im->b, types, params ? 0 : c->num_params);
  if (!r) return NULL;
  hlo_scope_t sc;
  memset(&sc, 0, sizeof sc);
  sc.comp = comp;
  sc.c = c;
  sc.blk = r->blocks[0];
  sc.params = params ? params : sc.blk->args;
  sc.skip = -1;
  bool ok = count_uses(im, &sc);
  const hlo_instr_t* root = &c->instrs[c->root];
  if (ok && unpack && hlo_tok_is(root->opcode, "tuple") &&
      sc.uses[c->root] == 0)
    sc.skip = c->root;
  hlx_value_t* v = ok ? hlo_import_body(im, &sc) : NULL;
  hlx_value_t** outs = NULL;
  int32_t n = 0;
  ok = ok && (v || sc.skip == c->root) &&
       (unpack ? region_results(im, &sc, v, &outs, &n)
               : (outs = &v, n = 1, true)) &&
       add_return(im, sc.blk, HLX_OP_RETURN, outs, n, c);
  free_scope(&sc);
  return ok ? r : NULL;
}

/* A function name for computation comp: "main" for the entry. */
static const char* func_name(hlo_imp_t* im, int32_t comp) {
  const hlo_comp_t* c = &im->ast->comps[comp];
  if (comp == im->ast->entry) return "main";
  bool clash = hlo_tok_is(c->name, "main");
  char* s = hlx_arena_alloc(im->b.a, c->name.n + 8);
  if (!s) {
    hlo_error_oom(im->b.e);
    return NULL;
  }
  memcpy(s, c->name.p, c->name.n);
  if (clash) memcpy(s + c->name.n, ".callee", 7);
  return s;
}

static bool push_func(hlo_imp_t* im, hlx_func_t* f) {
  int32_t n = im->m->num_funcs;
  if ((n & (n - 1)) == 0) {
    hlx_func_t** fs = hlx_arena_alloc_array(im->b.a, (size_t)(n ? n * 2 : 4),
                                            sizeof(hlx_func_t*));
    if (!fs) return hlo_error_oom(im->b.e);
    if (n) memcpy(fs, im->m->funcs, sizeof(hlx_func_t*) * (size_t)n);
    im->m->funcs = fs;
  }
  im->m->funcs[im->m->num_funcs++] = f;
  return true;
}

hlx_func_t* hlo_import_func(hlo_imp_t* im, int32_t comp) {
  if (im->funcs[comp]) return im->funcs[comp];
  const hlo_comp_t* c = &im->ast->comps[comp];
  if (im->busy[comp]) {
    hlo_error_at(im->b.e, c->name.line, c->name.col,
                 "computation calls itself");
    return NULL;
  }
  hlx_func_t* f = hlx_arena_alloc(im->b.a, sizeof(*f));
  if (!f || !(f->name = func_name(im, comp)) || !push_func(im, f)) {
    if (!f) hlo_error_oom(im->b.e);
    return NULL;
  }
  im->busy[comp] = true;
  f->is_public = comp == im->ast->entry;
  f->line = c->name.line;
  f->col = c->name.col;
  hlx_func_t* saved = im->b.func;
  im->b.func = f;
  hlx_type_t** types = param_types(im, c);
  hlx_region_t* r = types ? hb_region(&im->b, types, c->num_params) : NULL;
  hlo_scope_t sc;
  memset(&sc, 0, sizeof sc);
  bool ok = r != NULL;
  if (ok) {
    f->body = r;
    f->num_args = c->num_params;
    sc.comp = comp;
    sc.c = c;
    sc.blk = r->blocks[0];
    sc.params = sc.blk->args;
    sc.skip = -1;
    ok = count_uses(im, &sc);
  }
  hlx_value_t* root = ok ? hlo_import_body(im, &sc) : NULL;
  ok = root && add_return(im, sc.blk, HLX_OP_FUNC_RETURN, &root, 1, c);
  free_scope(&sc);
  im->b.func = saved;
  im->busy[comp] = false;
  if (!ok) return NULL;
  f->num_results = 1;
  f->result_types = hlx_arena_alloc(im->b.a, sizeof(hlx_type_t*));
  if (!f->result_types) {
    hlo_error_oom(im->b.e);
    return NULL;
  }
  f->result_types[0] = root->type;
  im->funcs[comp] = f;
  return f;
}

bool hlo_import_module(const hlo_ast_t* ast, hlx_module_t* m, hlo_err_t* e) {
  hlo_imp_t im;
  memset(&im, 0, sizeof im);
  im.ast = ast;
  im.m = m;
  im.b.a = &m->arena;
  im.b.e = e;
  im.funcs = calloc((size_t)ast->num_comps + 1, sizeof(hlx_func_t*));
  im.busy = calloc((size_t)ast->num_comps + 1, sizeof(bool));
  bool ok = im.funcs && im.busy;
  if (!ok) hlo_error_oom(e);
  if (ok) {
    const hlo_comp_t* entry = &ast->comps[ast->entry];
    size_t n = ast->name.kind == HT_NAME ? ast->name.n : entry->name.n + 7;
    char* name = hlx_arena_alloc(&m->arena, n + 1);
    ok = name != NULL;
    if (ok && ast->name.kind == HT_NAME) memcpy(name, ast->name.p, n);
    if (ok && ast->name.kind != HT_NAME) {
      memcpy(name, "module_", 7);
      memcpy(name + 7, entry->name.p, entry->name.n);
    }
    m->name = name;
    ok = ok ? hlo_import_func(&im, ast->entry) != NULL : hlo_error_oom(e);
  }
  free(im.funcs);
  free(im.busy);
  return ok && !e->status;
}
