/* Building hlx IR in a module's arena for the HLO importer: types from HLO
 * shapes, values, ops appended to blocks, regions and attributes in the
 * representation the StableHLO parser gives them (graph/stablehlo/parser.h). */
#include <string.h>

#include "graph/hlo/hlo_internal.h"

static void* alloc(hlo_b_t* b, size_t bytes) {
  void* r = hlx_arena_alloc(b->a, bytes ? bytes : 1);
  if (!r) hlo_error_oom(b->e);
  return r;
}

hlx_type_t* hb_tensor(hlo_b_t* b, hlx_dtype_t dt, int32_t rank,
                      const int64_t* dims) {
  hlx_type_t* t = alloc(b, sizeof(*t));
  int64_t* d = alloc(b, sizeof(int64_t) * ((size_t)rank + 1));
  if (!t || !d) return NULL;
  t->kind = HLX_TYPE_TENSOR;
  t->dtype = dt;
  t->rank = rank;
  if (rank) memcpy(d, dims, sizeof(int64_t) * (size_t)rank);
  t->dims = d;
  return t;
}

hlx_type_t* hb_tuple(hlo_b_t* b, hlx_type_t* const* elems, int32_t n) {
  hlx_type_t* t = alloc(b, sizeof(*t));
  hlx_type_t** el = alloc(b, sizeof(hlx_type_t*) * ((size_t)n + 1));
  if (!t || !el) return NULL;
  t->kind = HLX_TYPE_TUPLE;
  t->num_elems = n;
  if (n) memcpy(el, elems, sizeof(hlx_type_t*) * (size_t)n);
  t->elems = el;
  return t;
}

hlx_type_t* hb_type_from_shape(hlo_b_t* b, const hlo_shape_t* s) {
  if (s->kind == HLX_TYPE_TOKEN) {
    hlx_type_t* t = alloc(b, sizeof(*t));
    if (t) t->kind = HLX_TYPE_TOKEN;
    return t;
  }
  if (s->kind == HLX_TYPE_TUPLE) {
    hlx_type_t** el =
        alloc(b, sizeof(hlx_type_t*) * ((size_t)s->num_elems + 1));
    if (!el) return NULL;
    for (int32_t i = 0; i < s->num_elems; i++)
      if (!(el[i] = hb_type_from_shape(b, s->elems[i]))) return NULL;
    return hb_tuple(b, el, s->num_elems);
  }
  hlx_type_t* t = hb_tensor(b, s->dtype, s->rank, s->dims);
  if (t && s->bounds) {
    t->bounds = alloc(b, sizeof(int64_t) * ((size_t)s->rank + 1));
    if (!t->bounds) return NULL;
    memcpy(t->bounds, s->bounds, sizeof(int64_t) * (size_t)s->rank);
  }
  return t;
}

hlx_value_t* hb_value(hlo_b_t* b, hlx_type_t* t) {
  if (!t) return NULL;
  hlx_value_t* v = alloc(b, sizeof(*v));
  if (!v) return NULL;
  if (b->func->num_values == INT32_MAX) {
    hlo_error_oom(b->e);
    return NULL;
  }
  v->type = t;
  v->id = b->func->num_values++;
  return v;
}

/* Appends op to blk's op list (capacity doubles at powers of two). */
static bool append_op(hlo_b_t* b, hlx_block_t* blk, hlx_op_t* op) {
  int32_t n = blk->num_ops;
  if ((n & (n - 1)) == 0) {
    int32_t cap = n ? n * 2 : 4;
    hlx_op_t** ops = alloc(b, sizeof(hlx_op_t*) * (size_t)cap);
    if (!ops) return false;
    if (n) memcpy(ops, blk->ops, sizeof(hlx_op_t*) * (size_t)n);
    blk->ops = ops;
  }
  blk->ops[blk->num_ops++] = op;
  op->parent = blk;
  return true;
}

hlx_op_t* hb_op(hlo_b_t* b, hlx_block_t* blk, hlx_opcode_t code,
                hlx_value_t* const* operands, int32_t nops,
                hlx_type_t* const* result_types, int32_t nres, int line,
                int col) {
  hlx_op_t* op = alloc(b, sizeof(*op));
  hlx_value_t** ops = alloc(b, sizeof(hlx_value_t*) * ((size_t)nops + 1));
  hlx_value_t** res = alloc(b, sizeof(hlx_value_t*) * ((size_t)nres + 1));
  if (!op || !ops || !res) return NULL;
  op->code = code;
  op->name = hlx_opcode_name(code);
  op->line = line;
  op->col = col;
  for (int32_t i = 0; i < nops; i++) {
    if (!operands[i]) return NULL;
    ops[i] = operands[i];
  }
  op->operands = ops;
  op->num_operands = nops;
  for (int32_t i = 0; i < nres; i++) {
    hlx_value_t* v = hb_value(b, result_types[i]);
    if (!v) return NULL;
    v->def = op;
    v->index = i;
    res[i] = v;
  }
  op->results = res;
  op->num_results = nres;
  return append_op(b, blk, op) ? op : NULL;
}

static bool push_named(hlo_b_t* b, hlx_named_attr_t** list, int32_t* n,
                       const char* name, hlx_attr_t* v) {
  if (!v) return false;
  int32_t k = *n;
  if ((k & (k - 1)) == 0) {
    int32_t cap = k ? k * 2 : 4;
    hlx_named_attr_t* l = alloc(b, sizeof(hlx_named_attr_t) * (size_t)cap);
    if (!l) return false;
    if (k) memcpy(l, *list, sizeof(hlx_named_attr_t) * (size_t)k);
    *list = l;
  }
  (*list)[k].name = name;
  (*list)[k].value = v;
  (*n)++;
  return true;
}

bool hb_attr(hlo_b_t* b, hlx_op_t* op, const char* name, hlx_attr_t* v) {
  return push_named(b, &op->attrs, &op->num_attrs, name, v);
}

static hlx_attr_t* new_attr(hlo_b_t* b, hlx_attr_kind_t kind) {
  hlx_attr_t* a = alloc(b, sizeof(*a));
  if (a) a->kind = kind;
  return a;
}

static hlx_attr_t* int_array(hlo_b_t* b, const int64_t* v, int32_t n,
                             hlx_dtype_t elem) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_I64_ARRAY);
  int64_t* d = alloc(b, sizeof(int64_t) * ((size_t)n + 1));
  if (!a || !d) return NULL;
  if (n) memcpy(d, v, sizeof(int64_t) * (size_t)n);
  a->ints = d;
  a->count = n;
  if (elem != HLX_DTYPE_S64 && !(a->type = hb_tensor(b, elem, 0, NULL)))
    return NULL;
  return a;
}

hlx_attr_t* hb_i64_array(hlo_b_t* b, const int64_t* v, int32_t n) {
  return int_array(b, v, n, HLX_DTYPE_S64);
}

hlx_attr_t* hb_bool_array(hlo_b_t* b, const int64_t* v, int32_t n) {
  return int_array(b, v, n, HLX_DTYPE_PRED);
}

hlx_attr_t* hb_int(hlo_b_t* b, int64_t v, hlx_dtype_t dt) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_INT);
  if (!a) return NULL;
  if (dt != HLX_DTYPE_INVALID && !(a->type = hb_tensor(b, dt, 0, NULL)))
    return NULL;
  a->i = v;
  return a;
}

hlx_attr_t* hb_float(hlo_b_t* b, double v, hlx_dtype_t dt) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_FLOAT);
  if (!a || !(a->type = hb_tensor(b, dt, 0, NULL))) return NULL;
  a->f = v;
  return a;
}

hlx_attr_t* hb_bool(hlo_b_t* b, bool v) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_BOOL);
  if (a) a->b = v;
  return a;
}

hlx_attr_t* hb_unit(hlo_b_t* b) { return new_attr(b, HLX_ATTR_UNIT); }

hlx_attr_t* hb_string(hlo_b_t* b, const char* s, size_t n) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_STRING);
  char* d = hlx_arena_strndup(b->a, s, n);
  if (!a || !d) {
    hlo_error_oom(b->e);
    return NULL;
  }
  a->str = d;
  a->len = n;
  return a;
}

hlx_attr_t* hb_symbol(hlo_b_t* b, const char* s) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_SYMBOL);
  if (a) a->str = s;
  return a;
}

hlx_attr_t* hb_enum(hlo_b_t* b, const char* kind, const char* value) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_ENUM);
  char* v = hlx_arena_strndup(b->a, value, strlen(value));
  if (!a || !v) {
    hlo_error_oom(b->e);
    return NULL;
  }
  a->str = kind;
  a->enum_value = v;
  return a;
}

hlx_attr_t* hb_i64_matrix(hlo_b_t* b, const int64_t* v, int32_t rows,
                          int32_t cols) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_DENSE);
  int64_t dims[2] = {rows, cols};
  size_t n = (size_t)rows * (size_t)cols;
  if (!a || !(a->type = hb_tensor(b, HLX_DTYPE_S64, 2, dims))) return NULL;
  a->dense_bytes = n * sizeof(int64_t);
  a->dense = alloc(b, a->dense_bytes);
  if (!a->dense) return NULL;
  if (n) memcpy(a->dense, v, a->dense_bytes);
  return a;
}

hlx_attr_t* hb_struct(hlo_b_t* b, const char* name) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_STRUCT);
  if (a) a->str = name;
  return a;
}

bool hb_struct_field(hlo_b_t* b, hlx_attr_t* s, const char* name,
                     hlx_attr_t* v) {
  return push_named(b, &s->dict, &s->count, name, v);
}

hlx_attr_t* hb_array(hlo_b_t* b, hlx_attr_t* const* items, int32_t n) {
  hlx_attr_t* a = new_attr(b, HLX_ATTR_ARRAY);
  hlx_attr_t** it = alloc(b, sizeof(hlx_attr_t*) * ((size_t)n + 1));
  if (!a || !it) return NULL;
  for (int32_t i = 0; i < n; i++) {
    if (!items[i]) return NULL;
    it[i] = items[i];
  }
  a->items = it;
  a->count = n;
  return a;
}

hlx_region_t* hb_region(hlo_b_t* b, hlx_type_t* const* arg_types,
                        int32_t nargs) {
  hlx_region_t* r = alloc(b, sizeof(*r));
  hlx_block_t* blk = alloc(b, sizeof(*blk));
  hlx_block_t** blocks = alloc(b, sizeof(hlx_block_t*));
  hlx_value_t** args = alloc(b, sizeof(hlx_value_t*) * ((size_t)nargs + 1));
  if (!r || !blk || !blocks || !args) return NULL;
  blocks[0] = blk;
  r->blocks = blocks;
  r->num_blocks = 1;
  blk->parent = r;
  for (int32_t i = 0; i < nargs; i++) {
    hlx_value_t* v = hb_value(b, arg_types[i]);
    if (!v) return NULL;
    v->block = blk;
    v->index = i;
    args[i] = v;
  }
  blk->args = args;
  blk->num_args = nargs;
  return r;
}

bool hb_add_region(hlo_b_t* b, hlx_op_t* op, hlx_region_t* r) {
  if (!r) return false;
  int32_t n = op->num_regions;
  hlx_region_t** rs = alloc(b, sizeof(hlx_region_t*) * ((size_t)n + 1));
  if (!rs) return false;
  if (n) memcpy(rs, op->regions, sizeof(hlx_region_t*) * (size_t)n);
  rs[n] = r;
  op->regions = rs;
  op->num_regions = n + 1;
  r->parent = op;
  return true;
}
