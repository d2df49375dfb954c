/* Deep copies of IR (graph/ir/copy.h). Every allocation failure or use of
 * an unmapped value sets c->failed; callers check it once at the end. */
#include "graph/ir/copy.h"

#include <stdlib.h>
#include <string.h>

static void* alloc_array(hlx_ir_copier_t* c, size_t n, size_t elem) {
  void* p = hlx_arena_alloc_array(c->arena, n ? n : 1, elem);
  if (!p) c->failed = true;
  return p;
}

static void* copy_bytes(hlx_ir_copier_t* c, const void* src, size_t n) {
  void* p = alloc_array(c, n, 1);
  if (p && n) memcpy(p, src, n);
  return p;
}

static const char* copy_str(hlx_ir_copier_t* c, const char* s, size_t n) {
  if (!s) return NULL;
  char* r = hlx_arena_strndup(c->arena, s, n);
  if (!r) c->failed = true;
  return r;
}

bool hlx_ir_copier_init(hlx_ir_copier_t* c, hlx_arena_t* arena,
                        hlx_func_t* func, int32_t num_source_values) {
  memset(c, 0, sizeof *c);
  c->arena = arena;
  c->func = func;
  c->num_map = num_source_values;
  c->map = calloc((size_t)num_source_values + 1, sizeof(hlx_value_t*));
  return c->map != NULL;
}

void hlx_ir_copier_release(hlx_ir_copier_t* c) {
  free(c->map);
  c->map = NULL;
}

void hlx_ir_copier_map(hlx_ir_copier_t* c, const hlx_value_t* src,
                       hlx_value_t* dst) {
  if (src->id >= 0 && src->id < c->num_map) c->map[src->id] = dst;
}

static hlx_quant_t* copy_quant(hlx_ir_copier_t* c, const hlx_quant_t* q) {
  hlx_quant_t* n = copy_bytes(c, q, sizeof *q);
  if (!n) return NULL;
  size_t ns = (size_t)q->num_scales;
  n->scales = copy_bytes(c, q->scales, ns * sizeof(double));
  n->zero_points = copy_bytes(c, q->zero_points, ns * sizeof(int64_t));
  return n;
}

hlx_type_t* hlx_ir_copy_type(hlx_ir_copier_t* c, const hlx_type_t* t) {
  if (!t || c->share_types_and_attrs) return (hlx_type_t*)t;
  hlx_type_t* n = copy_bytes(c, t, sizeof *t);
  if (!n) return NULL;
  if (t->kind == HLX_TYPE_TENSOR) {
    size_t rank = (size_t)t->rank;
    n->dims = copy_bytes(c, t->dims, rank * sizeof(int64_t));
    if (t->bounds) n->bounds = copy_bytes(c, t->bounds, rank * sizeof(int64_t));
    if (t->quant) n->quant = copy_quant(c, t->quant);
  } else if (t->kind == HLX_TYPE_TUPLE) {
    n->elems = alloc_array(c, (size_t)t->num_elems, sizeof(hlx_type_t*));
    for (int32_t i = 0; n->elems && i < t->num_elems; i++)
      n->elems[i] = hlx_ir_copy_type(c, t->elems[i]);
  }
  return n;
}

static hlx_named_attr_t* copy_named(hlx_ir_copier_t* c,
                                    const hlx_named_attr_t* d, int32_t n) {
  if (c->share_types_and_attrs) {
    /* The list itself is the op's; its attributes are shared. */
    return copy_bytes(c, d, (size_t)n * sizeof *d);
  }
  hlx_named_attr_t* r = alloc_array(c, (size_t)n, sizeof *r);
  for (int32_t i = 0; r && i < n; i++) {
    r[i].name = copy_str(c, d[i].name, strlen(d[i].name));
    r[i].value = hlx_ir_copy_attr(c, d[i].value);
  }
  return r;
}

hlx_attr_t* hlx_ir_copy_attr(hlx_ir_copier_t* c, const hlx_attr_t* a) {
  if (!a || c->share_types_and_attrs) return (hlx_attr_t*)a;
  hlx_attr_t* n = copy_bytes(c, a, sizeof *a);
  if (!n) return NULL;
  n->type = hlx_ir_copy_type(c, a->type);
  if (a->str)
    n->str = copy_str(c, a->str,
                      a->kind == HLX_ATTR_STRING ? a->len : strlen(a->str));
  if (a->enum_value)
    n->enum_value = copy_str(c, a->enum_value, strlen(a->enum_value));
  switch (a->kind) {
    case HLX_ATTR_ARRAY:
      n->items = alloc_array(c, (size_t)a->count, sizeof(hlx_attr_t*));
      for (int32_t i = 0; n->items && i < a->count; i++)
        n->items[i] = hlx_ir_copy_attr(c, a->items[i]);
      break;
    case HLX_ATTR_I64_ARRAY:
      n->ints = copy_bytes(c, a->ints, (size_t)a->count * sizeof(int64_t));
      break;
    case HLX_ATTR_DICT:
    case HLX_ATTR_STRUCT:
      n->dict = copy_named(c, a->dict, a->count);
      break;
    case HLX_ATTR_DENSE:
      n->dense = copy_bytes(c, a->dense, a->dense_bytes);
      break;
    default:
      break;
  }
  return n;
}

/* The copy of a value defined by the copied IR (a result or an argument). */
static hlx_value_t* define(hlx_ir_copier_t* c, const hlx_value_t* src) {
  hlx_value_t* v = copy_bytes(c, src, sizeof *src);
  if (!v || src->id < 0 || src->id >= c->num_map) {
    c->failed = true;
    return NULL;
  }
  v->type = hlx_ir_copy_type(c, src->type);
  v->def = NULL;
  v->block = NULL;
  if (c->func) {
    if (c->func->num_values == INT32_MAX) {
      c->failed = true;
      return NULL;
    }
    v->id = c->func->num_values++;
  }
  if (src->name && !c->share_types_and_attrs)
    v->name = copy_str(c, src->name, strlen(src->name));
  c->map[src->id] = v;
  return v;
}

static hlx_value_t* use(hlx_ir_copier_t* c, const hlx_value_t* src) {
  hlx_value_t* v =
      src && src->id >= 0 && src->id < c->num_map ? c->map[src->id] : NULL;
  if (!v) c->failed = true; /* used before it is defined */
  return v;
}

static hlx_op_t* copy_op(hlx_ir_copier_t* c, const hlx_op_t* src,
                         hlx_block_t* parent) {
  hlx_op_t* op = copy_bytes(c, src, sizeof *src);
  if (!op) return NULL;
  op->parent = parent;
  if (c->func_return_to_return && src->code == HLX_OP_FUNC_RETURN) {
    op->code = HLX_OP_RETURN;
    op->name = hlx_opcode_name(HLX_OP_RETURN);
  } else if (!c->share_types_and_attrs) {
    op->name = copy_str(c, src->name, strlen(src->name));
  }
  op->operands = alloc_array(c, (size_t)src->num_operands, sizeof(hlx_value_t*));
  for (int32_t i = 0; op->operands && i < src->num_operands; i++)
    op->operands[i] = use(c, src->operands[i]);
  op->attrs = copy_named(c, src->attrs, src->num_attrs);
  op->regions = alloc_array(c, (size_t)src->num_regions, sizeof(hlx_region_t*));
  for (int32_t r = 0; op->regions && r < src->num_regions && !c->failed; r++)
    op->regions[r] = hlx_ir_copy_region(c, src->regions[r], op);
  op->results = alloc_array(c, (size_t)src->num_results, sizeof(hlx_value_t*));
  for (int32_t i = 0; op->results && i < src->num_results && !c->failed; i++) {
    hlx_value_t* v = define(c, src->results[i]);
    if (v) v->def = op;
    op->results[i] = v;
  }
  return c->failed ? NULL : op;
}

hlx_block_t* hlx_ir_copy_block(hlx_ir_copier_t* c, const hlx_block_t* src,
                               hlx_region_t* parent, bool drop_arguments) {
  hlx_block_t* blk = copy_bytes(c, src, sizeof *src);
  if (!blk) return NULL;
  blk->parent = parent;
  blk->num_args = drop_arguments ? 0 : src->num_args;
  blk->args = alloc_array(c, (size_t)blk->num_args, sizeof(hlx_value_t*));
  blk->ops = alloc_array(c, (size_t)src->num_ops, sizeof(hlx_op_t*));
  for (int32_t i = 0; blk->args && i < blk->num_args && !c->failed; i++) {
    hlx_value_t* v = define(c, src->args[i]);
    if (v) v->block = blk;
    blk->args[i] = v;
  }
  for (int32_t i = 0; blk->ops && i < src->num_ops && !c->failed; i++)
    blk->ops[i] = copy_op(c, src->ops[i], blk);
  return c->failed ? NULL : blk;
}

hlx_region_t* hlx_ir_copy_region(hlx_ir_copier_t* c, const hlx_region_t* src,
                                 hlx_op_t* parent) {
  hlx_region_t* r = copy_bytes(c, src, sizeof *src);
  if (!r) return NULL;
  r->parent = parent;
  r->blocks = alloc_array(c, (size_t)src->num_blocks, sizeof(hlx_block_t*));
  for (int32_t k = 0; r->blocks && k < src->num_blocks && !c->failed; k++)
    r->blocks[k] = hlx_ir_copy_block(c, src->blocks[k], r, false);
  return c->failed ? NULL : r;
}

/* Per-argument (or per-result) attribute lists of a function. */
static hlx_named_attr_t** copy_lists(hlx_ir_copier_t* c,
                                     hlx_named_attr_t* const* lists,
                                     const int32_t* counts, int32_t n) {
  if (!lists) return NULL;
  hlx_named_attr_t** r = alloc_array(c, (size_t)n, sizeof *r);
  for (int32_t i = 0; r && i < n; i++)
    r[i] = lists[i] ? copy_named(c, lists[i], counts[i]) : NULL;
  return r;
}

static hlx_func_t* copy_func(hlx_ir_copier_t* c, const hlx_func_t* f,
                             const char* name) {
  hlx_func_t* n = copy_bytes(c, f, sizeof *f);
  if (!n) return NULL;
  n->name = copy_str(c, name, strlen(name));
  n->arg_attrs = copy_lists(c, f->arg_attrs, f->num_arg_attrs, f->num_args);
  if (f->num_arg_attrs)
    n->num_arg_attrs = copy_bytes(c, f->num_arg_attrs,
                                  (size_t)f->num_args * sizeof(int32_t));
  n->result_types = alloc_array(c, (size_t)f->num_results, sizeof(hlx_type_t*));
  for (int32_t r = 0; n->result_types && r < f->num_results; r++)
    n->result_types[r] = hlx_ir_copy_type(c, f->result_types[r]);
  n->result_attrs =
      copy_lists(c, f->result_attrs, f->num_result_attrs, f->num_results);
  if (f->num_result_attrs)
    n->num_result_attrs = copy_bytes(c, f->num_result_attrs,
                                     (size_t)f->num_results * sizeof(int32_t));
  n->attrs = copy_named(c, f->attrs, f->num_attrs);
  n->body = c->failed ? NULL : hlx_ir_copy_region(c, f->body, NULL);
  return c->failed ? NULL : n;
}

hlx_status_t hlx_func_copy(hlx_module_t* dst, const hlx_func_t* f,
                           const char* name, bool share_types_and_attrs,
                           hlx_func_t** out) {
  *out = NULL;
  hlx_ir_copier_t c;
  if (!hlx_ir_copier_init(&c, &dst->arena, NULL, f->num_values))
    return hlx_status_oom();
  c.share_types_and_attrs = share_types_and_attrs;
  *out = copy_func(&c, f, name);
  hlx_ir_copier_release(&c);
  if (!*out)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "cannot copy @%s: a value is used before it is "
                           "defined, or out of memory",
                           f->name);
  return NULL;
}

hlx_status_t hlx_module_copy(const hlx_module_t* m, hlx_module_t** out) {
  *out = NULL;
  hlx_module_t* n = hlx_module_create();
  if (!n) return hlx_status_oom();
  hlx_ir_copier_t c;
  memset(&c, 0, sizeof c);
  c.arena = &n->arena;
  if (m->name) n->name = copy_str(&c, m->name, strlen(m->name));
  n->num_attrs = m->num_attrs;
  n->attrs = copy_named(&c, m->attrs, m->num_attrs);
  n->funcs = alloc_array(&c, (size_t)m->num_funcs, sizeof(hlx_func_t*));
  for (int32_t i = 0; n->funcs && i < m->num_funcs && !c.failed; i++) {
    hlx_func_t* f = NULL;
    hlx_status_t st = hlx_func_copy(n, m->funcs[i], m->funcs[i]->name,
                                    false, &f);
    if (st) {
      hlx_module_destroy(n);
      return st;
    }
    n->funcs[n->num_funcs++] = f;
  }
  if (c.failed) {
    hlx_module_destroy(n);
    return hlx_status_oom();
  }
  *out = n;
  return NULL;
}
