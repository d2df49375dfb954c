/* The IR section of MLIR bytecode -> hlx IR: the top-level module, its
 * functions (vhlo.func_v1), their bodies and every nested region, with
 * values numbered as the format numbers them (per isolated scope, each
 * region's values after those of the regions around it). Regions of
 * isolated ops are nested IR sections from bytecode version 2 on. */
#include <stdio.h>
#include <string.h>

#include "graph/stablehlo/bytecode_convert.h"

typedef struct frame_t {
  uint64_t base, count; /* value indices [base, base + count) */
  uint64_t defined, cap;
  hlx_value_t** vals;
} frame_t;

typedef enum region_kind_t { R_OP, R_FUNC, R_MODULE } region_kind_t;

typedef struct ir_t {
  hlx_bc_t* bc;
  hlx_func_t* func; /* the function being read: values take ids from it */
  frame_t* frames;
  int32_t nframes, capframes;
  int32_t scope; /* first frame of the current isolated scope */
  int depth;
  int32_t capfuncs;
} ir_t;

static bool read_region(ir_t* ir, hlx_bc_stream_t* s, region_kind_t kind,
                        hlx_region_t** out);

/* ---- Values -------------------------------------------------------------------- */
static bool push_frame(ir_t* ir, hlx_bc_stream_t* s, uint64_t count) {
  if (count > hlx_bc_left(s))
    return hlx_bc_fail(ir->bc, s, "region declares %llu values, more than its %zu bytes "
                       "can define", (unsigned long long)count, hlx_bc_left(s));
  if (ir->nframes == ir->capframes) {
    int32_t nc = ir->capframes ? ir->capframes * 2 : 16;
    frame_t* nf = hlx_bc_scratch(ir->bc, (size_t)nc, sizeof(frame_t));
    if (!nf) return false;
    if (ir->nframes) memcpy(nf, ir->frames, (size_t)ir->nframes * sizeof(frame_t));
    ir->frames = nf;
    ir->capframes = nc;
  }
  frame_t* f = &ir->frames[ir->nframes];
  memset(f, 0, sizeof *f);
  if (ir->nframes > ir->scope) f->base = f[-1].base + f[-1].count;
  f->count = count;
  ir->nframes++;
  return true;
}

static bool define(ir_t* ir, hlx_bc_stream_t* s, hlx_value_t* v) {
  if (ir->nframes == ir->scope) return true;
  frame_t* f = &ir->frames[ir->nframes - 1];
  if (f->count == 0) return true; /* a region declaring no values names none */
  if (f->defined == f->count)
    return hlx_bc_fail(ir->bc, s, "region defines more than the %llu values it declared",
                       (unsigned long long)f->count);
  if (f->defined == f->cap) {
    uint64_t nc = f->cap ? f->cap * 2 : 16;
    if (nc > f->count) nc = f->count;
    hlx_value_t** nv = hlx_bc_scratch(ir->bc, (size_t)nc, sizeof(hlx_value_t*));
    if (!nv) return false;
    if (f->defined) memcpy(nv, f->vals, (size_t)f->defined * sizeof(hlx_value_t*));
    f->vals = nv;
    f->cap = nc;
  }
  f->vals[f->defined++] = v;
  return true;
}

static hlx_value_t* lookup(ir_t* ir, hlx_bc_stream_t* s) {
  hlx_bc_stream_t at = *s;
  uint64_t i = 0;
  if (!hlx_bc_varint(ir->bc, s, &i)) return NULL;
  for (int32_t k = ir->nframes - 1; k >= ir->scope; k--) {
    frame_t* f = &ir->frames[k];
    if (i < f->base || i - f->base >= f->count) continue;
    if (i - f->base < f->defined) return f->vals[i - f->base];
    hlx_bc_unsupported(ir->bc, &at, "value %llu used before its definition",
                       (unsigned long long)i);
    return NULL;
  }
  hlx_bc_fail(ir->bc, &at, "value index %llu names no value in scope", (unsigned long long)i);
  return NULL;
}

static bool is_value_type(const hlx_bc_type_t* t) {
  return t->kind == HLX_BC_TYPE_TENSOR || t->kind == HLX_BC_TYPE_TUPLE ||
         t->kind == HLX_BC_TYPE_TOKEN;
}

/* `index` elements appear in attribute types only (as in the text parser). */
static bool has_index(const hlx_type_t* t) {
  if (t->kind == HLX_TYPE_TENSOR) return t->is_index;
  for (int32_t i = 0; t->kind == HLX_TYPE_TUPLE && i < t->num_elems; i++)
    if (has_index(t->elems[i])) return true;
  return false;
}

static hlx_value_t* new_value(ir_t* ir, hlx_bc_stream_t* s, const hlx_bc_type_t* t) {
  if (is_value_type(t) && has_index(t->t)) {
    hlx_bc_unsupported(ir->bc, s, "a value with element type 'index'");
    return NULL;
  }
  if (!is_value_type(t)) {
    hlx_bc_unsupported(ir->bc, s, "value of type %s",
                       t->name ? t->name : t->kind == HLX_BC_TYPE_FUNCTION ? "function"
                                                                           : "none");
    return NULL;
  }
  if (!ir->func) {
    hlx_bc_unsupported(ir->bc, s, "values outside a function");
    return NULL;
  }
  hlx_value_t* v = hlx_bc_irmem(ir->bc, 1, sizeof(*v));
  if (!v) return NULL;
  if (ir->func->num_values == INT32_MAX) {
    hlx_bc_oom(ir->bc);
    return NULL;
  }
  v->type = t->t;
  v->id = ir->func->num_values++;
  char name[16];
  snprintf(name, sizeof name, "%d", v->id);
  v->name = hlx_arena_strndup(&ir->bc->m->arena, name, strlen(name));
  if (!v->name) hlx_bc_oom(ir->bc);
  return v->name ? v : NULL;
}

/* ---- Use-list orders (hlx keeps no use lists: read and dropped) ------------------ */
static bool skip_use_lists(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t nvalues) {
  uint64_t n = 1, x;
  if (nvalues > 1 && !hlx_bc_varint(bc, s, &n)) return false;
  if (n > hlx_bc_left(s)) return hlx_bc_fail(bc, s, "use-list count %llu", (unsigned long long)n);
  for (uint64_t i = 0; i < n; i++) {
    if (nvalues > 1 && !hlx_bc_varint(bc, s, &x)) return false; /* value index */
    hlx_bc_stream_t at = *s;
    if (!hlx_bc_varint(bc, s, &x)) return false; /* count << 1 | index-pair flag */
    if ((x >> 1) > hlx_bc_left(s))
      return hlx_bc_fail(bc, &at, "use-list of %llu entries", (unsigned long long)(x >> 1));
    for (uint64_t k = x >> 1; k > 0; k--)
      if (!hlx_bc_varint(bc, s, &x)) return false;
  }
  return true;
}

/* ---- Operations ----------------------------------------------------------------------- */
static bool read_op_attrs(ir_t* ir, hlx_bc_stream_t* s, uint8_t mask, hlx_bc_op_t* op) {
  hlx_bc_t* bc = ir->bc;
  hlx_bc_attr_t* dict = NULL;
  hlx_bc_stream_t at = *s;
  if ((mask & HLX_BC_OP_ATTRS) && !(dict = hlx_bc_attr_ref(bc, s))) return false;
  if (mask & HLX_BC_OP_PROPERTIES) {
    if (op->opname->registered < 0)
      return hlx_bc_fail(bc, s, "properties in bytecode version %llu",
                         (unsigned long long)bc->version);
    if (op->opname->registered) {
      uint64_t idx;
      hlx_bc_stream_t blob;
      if (!hlx_bc_varint(bc, s, &idx) || !hlx_bc_properties(bc, s, idx, &blob) ||
          !hlx_bc_read_properties(bc, &blob, op))
        return false;
    } else { /* an unregistered op keeps its properties as a dictionary */
      hlx_bc_stream_t pat = *s;
      hlx_bc_attr_t* p = hlx_bc_attr_ref(bc, s);
      if (!p || !hlx_bc_add_dict(bc, &pat, op, p)) return false;
    }
  }
  return !dict || hlx_bc_add_dict(bc, &at, op, dict);
}

static bool read_op_header(ir_t* ir, hlx_bc_stream_t* s, hlx_bc_op_t* op) {
  hlx_bc_t* bc = ir->bc;
  hlx_bc_stream_t at = *s;
  uint64_t idx = 0;
  uint8_t mask = 0;
  memset(op, 0, sizeof *op);
  if (!hlx_bc_varint(bc, s, &idx)) return false;
  if (idx >= bc->nopnames)
    return hlx_bc_fail(bc, &at, "operation name index %llu out of range (%llu names)",
                       (unsigned long long)idx, (unsigned long long)bc->nopnames);
  op->opname = &bc->opnames[idx];
  if (!(op->name = hlx_bc_opname(bc, op->opname))) return false;
  if (!hlx_bc_byte(bc, s, &mask) || !hlx_bc_skip_attr_ref(bc, s) ||
      !read_op_attrs(ir, s, mask, op))
    return false;
  uint32_t n = 0;
  if (mask & HLX_BC_OP_RESULTS) {
    if (!hlx_bc_count(bc, s, 1, "result", &n)) return false;
    if (!(op->results = hlx_bc_scratch(bc, n, sizeof(hlx_bc_type_t*)))) return false;
    for (op->nresults = 0; op->nresults < (int32_t)n; op->nresults++)
      if (!(op->results[op->nresults] = hlx_bc_type_ref(bc, s))) return false;
  }
  if (mask & HLX_BC_OP_OPERANDS) {
    if (!hlx_bc_count(bc, s, 1, "operand", &n)) return false;
    if (!(op->operands = hlx_bc_irmem(bc, n, sizeof(hlx_value_t*)))) return false;
    for (op->noperands = 0; op->noperands < (int32_t)n; op->noperands++)
      if (!(op->operands[op->noperands] = lookup(ir, s))) return false;
  }
  if (mask & HLX_BC_OP_SUCCESSORS)
    return hlx_bc_unsupported(bc, s, "successor blocks (in '%s')", op->name);
  if (bc->version >= HLX_BC_V_USE_LIST_ORDERS && (mask & HLX_BC_OP_USE_LISTS) &&
      !skip_use_lists(bc, s, (uint64_t)op->nresults))
    return false;
  if (mask & HLX_BC_OP_REGIONS) {
    uint64_t nr = 0;
    if (!hlx_bc_varint_flag(bc, s, &nr, &op->isolated)) return false;
    if (nr > hlx_bc_left(s) + 1)
      return hlx_bc_fail(bc, s, "%llu regions", (unsigned long long)nr);
    op->nregions = (uint32_t)nr;
  }
  return true;
}

/* The op's regions: inline, or (isolated, version >= 2) in a nested IR
 * section; an isolated op starts a new value scope. */
static bool read_regions(ir_t* ir, hlx_bc_stream_t* s, const hlx_bc_op_t* op,
                         region_kind_t kind, hlx_region_t** out) {
  hlx_bc_t* bc = ir->bc;
  hlx_bc_stream_t sub, *rs = s;
  if (op->isolated && bc->version >= HLX_BC_V_LAZY_LOADING) {
    uint8_t id = 0;
    if (!hlx_bc_section(bc, s, &id, &sub)) return false;
    if (id != HLX_BC_SEC_IR)
      return hlx_bc_fail(bc, s, "expected an IR section for the regions of '%s', got "
                         "section %u", op->name, id);
    rs = &sub;
  }
  int32_t saved = ir->scope;
  if (op->isolated) ir->scope = ir->nframes;
  for (uint32_t i = 0; i < op->nregions; i++)
    if (!read_region(ir, rs, kind, &out[i])) return false;
  ir->scope = saved;
  return rs == s || hlx_bc_expect_end(bc, rs);
}

static bool append_op(ir_t* ir, hlx_block_t* blk, int32_t* cap, hlx_op_t* o) {
  if (blk->num_ops == *cap) {
    int32_t nc = *cap ? *cap * 2 : 8;
    hlx_op_t** na = hlx_bc_irmem(ir->bc, (size_t)nc, sizeof(hlx_op_t*));
    if (!na) return false;
    if (blk->num_ops) memcpy(na, blk->ops, (size_t)blk->num_ops * sizeof(hlx_op_t*));
    blk->ops = na;
    *cap = nc;
  }
  blk->ops[blk->num_ops++] = o;
  o->parent = blk;
  return true;
}

/* An operation inside a function: a VHLO op becomes its StableHLO op. */
static bool read_op(ir_t* ir, hlx_bc_stream_t* s, hlx_block_t* blk, bool in_func,
                    int32_t* cap) {
  hlx_bc_t* bc = ir->bc;
  hlx_bc_stream_t at = *s;
  hlx_bc_op_t op;
  if (!read_op_header(ir, s, &op)) return false;
  if (strcmp(op.name, "builtin.module") == 0 || strcmp(op.name, "vhlo.func_v1") == 0 ||
      strcmp(op.name, "func.func") == 0)
    return hlx_bc_unsupported(bc, &at, "'%s' inside a function", op.name);
  hlx_op_t* o = hlx_bc_irmem(bc, 1, sizeof(*o));
  if (!o || !(o->name = hlx_bc_ir_op_name(bc, &op, in_func))) return false;
  o->code = hlx_opcode_from_name(o->name, strlen(o->name));
  if (!hlx_bc_convert_attrs(bc, &at, &op, &o->attrs, &o->num_attrs)) return false;
  o->num_operands = op.noperands;
  o->operands = op.operands;
  if (op.nresults && !(o->results = hlx_bc_irmem(bc, (size_t)op.nresults, sizeof(hlx_value_t*))))
    return false;
  for (o->num_results = 0; o->num_results < op.nresults; o->num_results++) {
    hlx_value_t* v = new_value(ir, &at, op.results[o->num_results]);
    if (!v || !define(ir, &at, v)) return false;
    v->def = o;
    v->index = o->num_results;
    o->results[o->num_results] = v;
  }
  if (!append_op(ir, blk, cap, o)) return false;
  if (op.nregions) {
    if (!(o->regions = hlx_bc_irmem(bc, op.nregions, sizeof(hlx_region_t*))) ||
        !read_regions(ir, s, &op, R_OP, o->regions))
      return false;
    o->num_regions = (int32_t)op.nregions;
    for (uint32_t i = 0; i < op.nregions; i++) o->regions[i]->parent = o;
  }
  /* As the text parser does: wrong counts stop here, so nothing that
   * reads the module indexes past an op's operands, results or regions. */
  char why[96];
  if (!hlx_op_arity_ok(o, why, sizeof why))
    return hlx_bc_fail(bc, &at, "%s %s", o->name, why);
  return true;
}

/* ---- Functions and modules ---------------------------------------------------------- */
/* Block of a function or an op region: arguments and the op count. */
static bool read_block_args(ir_t* ir, hlx_bc_stream_t* s, hlx_block_t* blk) {
  hlx_bc_t* bc = ir->bc;
  uint32_t n = 0;
  if (!hlx_bc_count(bc, s, 1, "block argument", &n)) return false;
  if (n && !(blk->args = hlx_bc_irmem(bc, n, sizeof(hlx_value_t*)))) return false;
  for (uint32_t i = 0; i < n; i++) {
    hlx_bc_stream_t at = *s;
    hlx_bc_type_t* t;
    if (bc->version >= HLX_BC_V_ELIDE_ARG_LOCS) {
      uint64_t idx;
      bool has_loc;
      if (!hlx_bc_varint_flag(bc, s, &idx, &has_loc) || !(t = hlx_bc_type_at(bc, &at, idx)) ||
          (has_loc && !hlx_bc_skip_attr_ref(bc, s)))
        return false;
    } else if (!(t = hlx_bc_type_ref(bc, s)) || !hlx_bc_skip_attr_ref(bc, s)) {
      return false;
    }
    hlx_value_t* v = new_value(ir, &at, t);
    if (!v || !define(ir, &at, v)) return false;
    v->block = blk;
    v->index = (int32_t)i;
    blk->args[i] = v;
    blk->num_args = (int32_t)i + 1;
  }
  if (bc->version < HLX_BC_V_USE_LIST_ORDERS) return true;
  uint8_t has_use_lists = 0;
  if (!hlx_bc_byte(bc, s, &has_use_lists)) return false;
  return !has_use_lists || skip_use_lists(bc, s, n);
}

static bool read_module_op(ir_t* ir, hlx_bc_stream_t* s);

static bool read_region(ir_t* ir, hlx_bc_stream_t* s, region_kind_t kind,
                        hlx_region_t** out) {
  hlx_bc_t* bc = ir->bc;
  uint64_t nblocks = 0, nvalues = 0, nops = 0;
  bool has_args = false;
  hlx_bc_stream_t at = *s;
  if (!hlx_bc_varint(bc, s, &nblocks)) return false;
  if (nblocks != 1)
    return hlx_bc_unsupported(bc, &at, "a region with %llu blocks (hlx regions have one)",
                              (unsigned long long)nblocks);
  if (++ir->depth > HLX_BC_MAX_DEPTH)
    return hlx_bc_unsupported(bc, s, "regions nested deeper than %d", HLX_BC_MAX_DEPTH);
  hlx_region_t* r = hlx_bc_irmem(bc, 1, sizeof(*r));
  hlx_block_t* blk = hlx_bc_irmem(bc, 1, sizeof(*blk));
  hlx_block_t** blocks = hlx_bc_irmem(bc, 1, sizeof(hlx_block_t*));
  if (!r || !blk || !blocks || !hlx_bc_varint(bc, s, &nvalues) ||
      !push_frame(ir, s, nvalues))
    return false;
  blocks[0] = blk;
  r->num_blocks = 1;
  r->blocks = blocks;
  blk->parent = r;
  at = *s;
  if (!hlx_bc_varint_flag(bc, s, &nops, &has_args)) return false;
  if (nops > hlx_bc_left(s))
    return hlx_bc_fail(bc, &at, "block of %llu operations", (unsigned long long)nops);
  if (has_args && kind == R_MODULE)
    return hlx_bc_unsupported(bc, &at, "arguments on a module's block");
  if (has_args && !read_block_args(ir, s, blk)) return false;
  int32_t cap = 0;
  for (uint64_t i = 0; i < nops; i++) {
    bool ok = kind == R_MODULE ? read_module_op(ir, s)
                               : read_op(ir, s, blk, kind == R_FUNC, &cap);
    if (!ok) return false;
  }
  ir->nframes--;
  ir->depth--;
  *out = r;
  return true;
}

/* A dictionary attribute's entries as a named list (argument attributes). */
static bool dict_attrs(hlx_bc_t* bc, const hlx_bc_stream_t* s, hlx_bc_attr_t* d,
                       hlx_named_attr_t** out, int32_t* n) {
  *out = NULL;
  *n = 0;
  if (d->kind != HLX_BC_ATTR_DICT)
    return hlx_bc_fail(bc, s, "expected a dictionary of argument attributes");
  if (d->n == 0) return true;
  hlx_bc_named_t* in = hlx_bc_scratch(bc, (size_t)d->n, sizeof(*in));
  if (!in) return false;
  for (int32_t i = 0; i < d->n; i++) {
    in[i].name = d->keys[i];
    in[i].value = d->items[i];
  }
  return hlx_bc_convert_named(bc, s, in, d->n, out, n);
}

/* arg_attrs / res_attrs: an array with one dictionary per argument (or
 * empty: none have attributes). */
static bool per_value_attrs(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                            const hlx_bc_named_t* a, int32_t count,
                            hlx_named_attr_t*** lists, int32_t** counts) {
  if (count == 0) return true;
  *lists = hlx_bc_irmem(bc, (size_t)count, sizeof(hlx_named_attr_t*));
  *counts = hlx_bc_irmem(bc, (size_t)count, sizeof(int32_t));
  if (!*lists || !*counts) return false;
  if (!a || (a->value->kind == HLX_BC_ATTR_ARRAY && a->value->n == 0)) return true;
  if (a->value->kind != HLX_BC_ATTR_ARRAY || a->value->n != count)
    return hlx_bc_fail(bc, s, "%s has %d entries for %d values", a->name,
                       a->value->kind == HLX_BC_ATTR_ARRAY ? a->value->n : -1, count);
  for (int32_t i = 0; i < count; i++)
    if (!dict_attrs(bc, s, a->value->items[i], &(*lists)[i], &(*counts)[i])) return false;
  return true;
}

/* The attributes of a func op that are not its signature stay its
 * discardable attributes (`attributes {...}` in the text form). */
static bool func_attrs(hlx_bc_t* bc, const hlx_bc_stream_t* s, const hlx_bc_op_t* op,
                       hlx_func_t* f) {
  static const char* const kInherent[] = {"sym_name", "sym_visibility", "function_type",
                                          "arg_attrs", "res_attrs"};
  hlx_bc_named_t* rest = hlx_bc_scratch(bc, (size_t)op->nattrs, sizeof(*rest));
  int32_t n = 0;
  if (!rest) return false;
  for (int32_t i = 0; i < op->nattrs; i++) {
    bool inherent = false;
    for (int k = 0; k < 5; k++) inherent |= strcmp(op->attrs[i].name, kInherent[k]) == 0;
    if (!inherent) rest[n++] = op->attrs[i];
  }
  return hlx_bc_convert_named(bc, s, rest, n, &f->attrs, &f->num_attrs);
}

static bool func_signature(hlx_bc_t* bc, const hlx_bc_stream_t* s, const hlx_bc_op_t* op,
                           hlx_func_t* f, const hlx_bc_type_t** ftype) {
  const hlx_bc_named_t* name = hlx_bc_find_attr(op, "sym_name");
  const hlx_bc_named_t* vis = hlx_bc_find_attr(op, "sym_visibility");
  const hlx_bc_named_t* type = hlx_bc_find_attr(op, "function_type");
  if (!name || name->value->kind != HLX_BC_ATTR_STRING ||
      memchr(name->value->str, 0, name->value->len))
    return hlx_bc_fail(bc, s, "function without a usable sym_name");
  f->name = name->value->str;
  f->is_public = true;
  if (vis && vis->value->kind == HLX_BC_ATTR_STRING &&
      (strcmp(vis->value->str, "private") == 0 || strcmp(vis->value->str, "nested") == 0))
    f->is_public = false;
  if (!type || type->value->kind != HLX_BC_ATTR_TYPE ||
      type->value->type->kind != HLX_BC_TYPE_FUNCTION)
    return hlx_bc_fail(bc, s, "function @%s without a function_type", f->name);
  *ftype = type->value->type;
  const hlx_bc_type_t* ft = *ftype;
  f->num_results = ft->nout;
  if (ft->nout && !(f->result_types = hlx_bc_irmem(bc, (size_t)ft->nout, sizeof(hlx_type_t*))))
    return false;
  for (int32_t i = 0; i < ft->nout; i++) {
    if (!is_value_type(ft->out[i]) || has_index(ft->out[i]->t))
      return hlx_bc_unsupported(bc, s, "result %d of @%s is not a tensor, tuple or "
                                "token of a non-index element type", i, f->name);
    f->result_types[i] = ft->out[i]->t;
  }
  return true;
}

static bool add_func(ir_t* ir, const hlx_bc_stream_t* s, hlx_func_t* f) {
  hlx_module_t* m = ir->bc->m;
  for (int32_t i = 0; i < m->num_funcs; i++)
    if (strcmp(m->funcs[i]->name, f->name) == 0)
      return hlx_bc_fail(ir->bc, s, "redefinition of function @%s", f->name);
  if (m->num_funcs == ir->capfuncs) {
    int32_t nc = ir->capfuncs ? ir->capfuncs * 2 : 8;
    hlx_func_t** nf = hlx_bc_irmem(ir->bc, (size_t)nc, sizeof(hlx_func_t*));
    if (!nf) return false;
    if (m->num_funcs) memcpy(nf, m->funcs, (size_t)m->num_funcs * sizeof(hlx_func_t*));
    m->funcs = nf;
    ir->capfuncs = nc;
  }
  m->funcs[m->num_funcs++] = f;
  return true;
}

static bool read_func(ir_t* ir, hlx_bc_stream_t* s, const hlx_bc_stream_t* at,
                      const hlx_bc_op_t* op) {
  hlx_bc_t* bc = ir->bc;
  hlx_func_t* f = hlx_bc_irmem(bc, 1, sizeof(*f));
  const hlx_bc_type_t* ft = NULL;
  if (!f || !func_signature(bc, at, op, f, &ft) || !func_attrs(bc, at, op, f)) return false;
  if (op->nregions != 1 || op->noperands || op->nresults)
    return hlx_bc_unsupported(bc, at, "function @%s without exactly one body", f->name);
  ir->func = f;
  if (!read_regions(ir, s, op, R_FUNC, &f->body)) return false;
  ir->func = NULL;
  hlx_block_t* blk = f->body->blocks[0];
  f->num_args = blk->num_args;
  if (ft->nin != f->num_args)
    return hlx_bc_fail(bc, at, "@%s: the function type has %d arguments, the body %d",
                       f->name, ft->nin, f->num_args);
  for (int32_t i = 0; i < ft->nin; i++)
    if (!is_value_type(ft->in[i]) || !hlx_type_equal(ft->in[i]->t, blk->args[i]->type))
      return hlx_bc_fail(bc, at, "@%s: argument %d's type differs from the function type",
                         f->name, i);
  return per_value_attrs(bc, at, hlx_bc_find_attr(op, "arg_attrs"), f->num_args,
                         &f->arg_attrs, &f->num_arg_attrs) &&
         per_value_attrs(bc, at, hlx_bc_find_attr(op, "res_attrs"), f->num_results,
                         &f->result_attrs, &f->num_result_attrs) &&
         add_func(ir, at, f);
}

static bool is_func(const hlx_bc_op_t* op) {
  return strcmp(op->name, "vhlo.func_v1") == 0 || strcmp(op->name, "func.func") == 0;
}

static bool read_module_op(ir_t* ir, hlx_bc_stream_t* s) {
  hlx_bc_stream_t at = *s;
  hlx_bc_op_t op;
  if (!read_op_header(ir, s, &op)) return false;
  if (!is_func(&op))
    return hlx_bc_unsupported(ir->bc, &at, "operation '%s' at module level (hlx reads "
                              "functions only)", op.name);
  return read_func(ir, s, &at, &op);
}

static bool read_module(ir_t* ir, hlx_bc_stream_t* s, const hlx_bc_stream_t* at,
                        const hlx_bc_op_t* op) {
  hlx_bc_t* bc = ir->bc;
  hlx_bc_named_t* rest = hlx_bc_scratch(bc, (size_t)op->nattrs, sizeof(*rest));
  int32_t n = 0;
  if (!rest) return false;
  for (int32_t i = 0; i < op->nattrs; i++) {
    const hlx_bc_named_t* a = &op->attrs[i];
    if (strcmp(a->name, "sym_visibility") == 0) continue;
    if (strcmp(a->name, "sym_name") != 0) {
      rest[n++] = *a;
      continue;
    }
    if (a->value->kind != HLX_BC_ATTR_STRING || memchr(a->value->str, 0, a->value->len))
      return hlx_bc_fail(bc, at, "expected a string module name");
    bc->m->name = a->value->str;
  }
  if (!hlx_bc_convert_named(bc, at, rest, n, &bc->m->attrs, &bc->m->num_attrs)) return false;
  if (op->nregions != 1 || op->noperands || op->nresults)
    return hlx_bc_unsupported(bc, at, "a module without exactly one body");
  hlx_region_t* body;
  return read_regions(ir, s, op, R_MODULE, &body);
}

bool hlx_bc_read_ir(hlx_bc_t* bc) {
  hlx_bc_stream_t s = hlx_bc_stream(bc->sec[HLX_BC_SEC_IR], bc->sec_len[HLX_BC_SEC_IR],
                                    "IR section");
  ir_t ir;
  memset(&ir, 0, sizeof ir);
  ir.bc = bc;
  uint64_t nops = 0;
  bool has_args, seen_module = false;
  if (!hlx_bc_varint_flag(bc, &s, &nops, &has_args)) return false;
  if (has_args) return hlx_bc_fail(bc, &s, "arguments on the top-level block");
  if (nops > hlx_bc_left(&s))
    return hlx_bc_fail(bc, &s, "%llu top-level operations", (unsigned long long)nops);
  for (uint64_t i = 0; i < nops; i++) {
    hlx_bc_stream_t at = s;
    hlx_bc_op_t op;
    if (!read_op_header(&ir, &s, &op)) return false;
    if (is_func(&op)) {
      if (!read_func(&ir, &s, &at, &op)) return false;
    } else if (strcmp(op.name, "builtin.module") == 0 && !seen_module &&
               bc->m->num_funcs == 0) {
      seen_module = true;
      if (!read_module(&ir, &s, &at, &op)) return false;
    } else {
      return hlx_bc_unsupported(bc, &at, "top-level operation '%s'", op.name);
    }
  }
  return hlx_bc_expect_end(bc, &s);
}
