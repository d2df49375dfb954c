/* Shape refinement (see refine_shapes.h).
 *
 * One walk in program order. Each op's `?` result dims are inferred from
 * its (already refined) operands; small integer values (dimension
 * variables, get_dimension_size, constants and the arithmetic JAX builds
 * shapes with) are evaluated on the way so the dynamic_* ops' shape
 * operands are known when they are reached. Refined values get new types:
 * the parser shares type objects between values. */
#include "graph/passes/refine_shapes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ir/copy.h"

enum { kMaxKnown = 256, kMaxFuncs = 256 };

typedef struct known_t {
  int64_t n; /* -1: unknown */
  int64_t* v;
} known_t;

typedef struct func_state_t {
  hlx_func_t* f;             /* the function refined: origin or a copy */
  const hlx_func_t* origin;  /* the function the calls name */
  hlx_func_t* pristine;      /* origin as it was, for more copies */
  bool done;
  hlx_type_t** arg_types; /* as refined */
  known_t* arg_known;
  known_t* ret_known;
} func_state_t;

typedef struct ctx_t {
  hlx_module_t* m;
  func_state_t funcs[kMaxFuncs];
  int32_t num_funcs;
  int32_t depth;
} ctx_t;

typedef struct fn_ctx_t {
  ctx_t* c;
  known_t* known; /* by value id */
  int32_t num_values;
} fn_ctx_t;

static hlx_status_t op_err(const hlx_op_t* op, hlx_status_code_t code,
                           const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hlx_make_status(code, "%d:%d: %s: shape refinement: %s",
                         (int)op->line, (int)op->col, hlx_opcode_name(op->code),
                         msg);
}

static hlx_type_t* new_type(hlx_arena_t* a, const hlx_type_t* like,
                            int32_t rank, const int64_t* dims) {
  hlx_type_t* t = hlx_arena_alloc(a, sizeof *t);
  if (!t) return NULL;
  *t = *like;
  t->kind = HLX_TYPE_TENSOR;
  t->rank = rank;
  t->bounds = NULL;
  t->dims = hlx_arena_alloc_array(a, (size_t)(rank ? rank : 1), sizeof(int64_t));
  if (!t->dims) return NULL;
  for (int32_t i = 0; i < rank; i++) t->dims[i] = dims[i];
  return t;
}

static bool is_dyn_type(const hlx_type_t* t) {
  if (!t) return false;
  if (t->kind == HLX_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->num_elems; i++)
      if (is_dyn_type(t->elems[i])) return true;
    return false;
  }
  if (t->kind != HLX_TYPE_TENSOR) return false;
  for (int32_t i = 0; i < t->rank; i++)
    if (t->dims[i] == HLX_DYNAMIC_DIM) return true;
  return false;
}

/* Walks f and its callees once each (seen: one flag per module function). */
static bool func_dyn(const hlx_module_t* m, const hlx_func_t* f, bool* seen);

static bool block_is_dynamic(const hlx_module_t* m, const hlx_block_t* b,
                             bool* seen) {
  for (int32_t i = 0; i < b->num_args; i++)
    if (is_dyn_type(b->args[i]->type)) return true;
  for (int32_t k = 0; k < b->num_ops; k++) {
    const hlx_op_t* op = b->ops[k];
    for (int32_t r = 0; r < op->num_results; r++)
      if (is_dyn_type(op->results[r]->type)) return true;
    for (int32_t g = 0; g < op->num_regions; g++)
      for (int32_t j = 0; j < op->regions[g]->num_blocks; j++)
        if (block_is_dynamic(m, op->regions[g]->blocks[j], seen)) return true;
    if (op->code == HLX_OP_FUNC_CALL) {
      const hlx_attr_t* cal = hlx_op_attr(op, "callee");
      const hlx_func_t* f =
          cal && cal->str ? hlx_module_find_func(m, cal->str) : NULL;
      if (f && func_dyn(m, f, seen)) return true;
    }
  }
  return false;
}

static bool func_dyn(const hlx_module_t* m, const hlx_func_t* f, bool* seen) {
  for (int32_t i = 0; i < m->num_funcs; i++)
    if (m->funcs[i] == f) {
      if (seen[i]) return false;
      seen[i] = true;
    }
  for (int32_t i = 0; i < f->num_results; i++)
    if (is_dyn_type(f->result_types[i])) return true;
  return block_is_dynamic(m, f->body->blocks[0], seen);
}

bool hlx_func_is_dynamic(const hlx_module_t* m, const hlx_func_t* f) {
  bool* seen = calloc((size_t)m->num_funcs + 1, sizeof(bool));
  if (!seen) return false;
  bool dyn = func_dyn(m, f, seen);
  free(seen);
  return dyn;
}

/* ---- copies of functions (one per argument shapes) ---------------------- */

/* A private copy of pristine named after origin, added to the module. */
static hlx_status_t add_copy(ctx_t* c, const hlx_func_t* origin,
                             const hlx_func_t* pristine, hlx_func_t** out) {
  hlx_module_t* m = c->m;
  char name[256];
  for (int k = 1;; k++) {
    snprintf(name, sizeof name, "%.200s_shape%d", origin->name, k);
    if (!hlx_module_find_func(m, name)) break;
  }
  char* nm = hlx_arena_strndup(&m->arena, name, strlen(name));
  hlx_func_t** funcs = hlx_arena_alloc_array(&m->arena, (size_t)m->num_funcs + 1,
                                             sizeof(hlx_func_t*));
  if (!nm || !funcs) return hlx_status_oom();
  /* Types and attributes are shared: refinement replaces a value's type,
   * never writes into one. */
  HLX_RETURN_IF_ERROR(hlx_func_copy(m, pristine, nm, true, out));
  (*out)->is_public = false;
  memcpy(funcs, m->funcs, sizeof(hlx_func_t*) * (size_t)m->num_funcs);
  funcs[m->num_funcs] = *out;
  m->funcs = funcs;
  m->num_funcs++;
  return NULL;
}

/* ---- small integer values ---------------------------------------------- */

static bool int_like(const hlx_type_t* t) {
  return t && t->kind == HLX_TYPE_TENSOR && !t->quant &&
         (hlx_dtype_is_int(t->dtype) || hlx_dtype_is_pred(t->dtype));
}

/* Wraps v to the range of dtype t (as the kernels' conversions do). */
static int64_t wrap(hlx_dtype_t t, int64_t v) {
  if (hlx_dtype_is_pred(t)) return v != 0;
  int bits = hlx_dtype_bits(t);
  if (bits >= 64) return v;
  uint64_t mask = (UINT64_C(1) << bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (hlx_dtype_is_signed_int(t) && (u >> (bits - 1)))
    return (int64_t)(u | ~mask);
  return (int64_t)u;
}

static known_t* kn(fn_ctx_t* f, const hlx_value_t* v) {
  if (v->id < 0 || v->id >= f->num_values) return NULL;
  known_t* k = &f->known[v->id];
  return k->n >= 0 ? k : NULL;
}

static hlx_status_t set_known(fn_ctx_t* f, const hlx_value_t* v, int64_t n,
                              const int64_t* vals) {
  if (v->id < 0 || v->id >= f->num_values) return NULL;
  int64_t* d = hlx_arena_alloc_array(&f->c->m->arena, (size_t)(n ? n : 1),
                                     sizeof(int64_t));
  if (!d) return hlx_status_oom();
  for (int64_t i = 0; i < n; i++) d[i] = wrap(v->type->dtype, vals[i]);
  f->known[v->id].n = n;
  f->known[v->id].v = d;
  return NULL;
}

static int64_t read_elem(const hlx_attr_t* a, int64_t i) {
  hlx_dtype_t t = a->type->dtype;
  const char* p = (const char*)a->dense + (size_t)i * hlx_dtype_size(t);
  switch (hlx_dtype_size(t)) {
    case 1: {
      if (hlx_dtype_is_signed_int(t)) return *(const int8_t*)p;
      return *(const uint8_t*)p;
    }
    case 2: {
      if (hlx_dtype_is_signed_int(t)) return *(const int16_t*)p;
      return *(const uint16_t*)p;
    }
    case 4: {
      if (hlx_dtype_is_signed_int(t)) return *(const int32_t*)p;
      return *(const uint32_t*)p;
    }
    default: return *(const int64_t*)p;
  }
}

static int64_t cmp(const char* dir, int64_t a, int64_t b, bool uns) {
  if (uns) {
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    if (!strcmp(dir, "EQ")) return x == y;
    if (!strcmp(dir, "NE")) return x != y;
    if (!strcmp(dir, "LT")) return x < y;
    if (!strcmp(dir, "LE")) return x <= y;
    if (!strcmp(dir, "GT")) return x > y;
    return x >= y;
  }
  if (!strcmp(dir, "EQ")) return a == b;
  if (!strcmp(dir, "NE")) return a != b;
  if (!strcmp(dir, "LT")) return a < b;
  if (!strcmp(dir, "LE")) return a <= b;
  if (!strcmp(dir, "GT")) return a > b;
  return a >= b;
}

static const hlx_attr_t* attr(const hlx_op_t* op, const char* name) {
  return hlx_op_attr(op, name);
}

/* An integer list attribute (array<i64: ...>, [1, 2] or dense<...>). */
static int32_t attr_ints(const hlx_attr_t* a, int64_t* out, int32_t cap) {
  if (!a) return -1;
  if (a->kind == HLX_ATTR_I64_ARRAY) {
    if (a->count > cap) return -1;
    for (int32_t i = 0; i < a->count; i++) out[i] = a->ints[i];
    return a->count;
  }
  if (a->kind == HLX_ATTR_ARRAY) {
    if (a->count > cap) return -1;
    for (int32_t i = 0; i < a->count; i++) {
      if (a->items[i]->kind != HLX_ATTR_INT) return -1;
      out[i] = a->items[i]->i;
    }
    return a->count;
  }
  if (a->kind == HLX_ATTR_DENSE && a->type && int_like(a->type)) {
    int64_t n = hlx_type_num_elements(a->type);
    if (n < 0 || n > cap) return -1;
    for (int64_t i = 0; i < n; i++) out[i] = read_elem(a, i);
    return (int32_t)n;
  }
  if (a->kind == HLX_ATTR_INT) {
    out[0] = a->i;
    return 1;
  }
  return -1;
}

static int64_t attr_int(const hlx_attr_t* a, int64_t dflt) {
  if (a && a->kind == HLX_ATTR_INT) return a->i;
  return dflt;
}

static const hlx_attr_t* field(const hlx_attr_t* s, const char* name) {
  if (!s) return NULL;
  if (s->kind != HLX_ATTR_STRUCT && s->kind != HLX_ATTR_DICT) return NULL;
  return hlx_attr_dict_get(s, name);
}

static bool elementwise_int_op(hlx_opcode_t c) {
  switch (c) {
    case HLX_OP_ADD: case HLX_OP_SUBTRACT: case HLX_OP_MULTIPLY:
    case HLX_OP_DIVIDE: case HLX_OP_REMAINDER: case HLX_OP_MAXIMUM:
    case HLX_OP_MINIMUM: case HLX_OP_AND: case HLX_OP_OR: case HLX_OP_XOR:
    case HLX_OP_COMPARE: case HLX_OP_SELECT: case HLX_OP_NOT:
    case HLX_OP_NEGATE: case HLX_OP_ABS: case HLX_OP_SIGN: case HLX_OP_CLAMP:
    case HLX_OP_CONVERT:
      return true;
    default: return false;
  }
}

/* Evaluates op when it computes a small integer value from known ones. A
 * value it cannot evaluate stays unknown (not an error). */
static hlx_status_t eval(fn_ctx_t* f, const hlx_op_t* op) {
  if (op->num_results != 1) return NULL;
  const hlx_type_t* rt = op->results[0]->type;
  if (!int_like(rt) || !hlx_type_is_static(rt)) return NULL;
  int64_t n = hlx_type_num_elements(rt);
  if (n < 0 || n > kMaxKnown) return NULL;
  int64_t out[kMaxKnown];
  if (op->code == HLX_OP_CONSTANT) {
    const hlx_attr_t* v = attr(op, "value");
    if (!v || v->kind != HLX_ATTR_DENSE || !v->type || !int_like(v->type) ||
        hlx_type_num_elements(v->type) != n)
      return NULL;
    for (int64_t i = 0; i < n; i++) out[i] = read_elem(v, i);
    return set_known(f, op->results[0], n, out);
  }
  if (op->code == HLX_OP_IOTA && rt->rank == 1) {
    for (int64_t i = 0; i < n; i++) out[i] = i;
    return set_known(f, op->results[0], n, out);
  }
  known_t* a[4] = {0};
  for (int32_t i = 0; i < op->num_operands && i < 4; i++) {
    a[i] = kn(f, op->operands[i]);
    if (!a[i]) return NULL;
    if (!int_like(op->operands[i]->type)) return NULL;
  }
  if (op->num_operands > 4) {
    if (op->code != HLX_OP_CONCATENATE) return NULL;
  }
  switch (op->code) {
    case HLX_OP_RESHAPE:
    case HLX_OP_BITCAST_CONVERT:
      if (op->code == HLX_OP_BITCAST_CONVERT &&
          op->operands[0]->type->dtype != rt->dtype)
        return NULL;
      if (a[0]->n != n) return NULL;
      return set_known(f, op->results[0], n, a[0]->v);
    case HLX_OP_BROADCAST_IN_DIM:
      if (a[0]->n == 1) {
        for (int64_t i = 0; i < n; i++) out[i] = a[0]->v[0];
        return set_known(f, op->results[0], n, out);
      }
      if (a[0]->n == n && rt->rank == 1)
        return set_known(f, op->results[0], n, a[0]->v);
      return NULL;
    case HLX_OP_CONCATENATE: {
      /* Along dim 0, row-major data is the operands' data appended. */
      if (rt->rank < 1 || attr_int(attr(op, "dimension"), -1) != 0) return NULL;
      int64_t k = 0;
      for (int32_t i = 0; i < op->num_operands; i++) {
        known_t* x = kn(f, op->operands[i]);
        if (!x || k + x->n > n) return NULL;
        for (int64_t j = 0; j < x->n; j++) out[k++] = x->v[j];
      }
      if (k != n) return NULL;
      return set_known(f, op->results[0], n, out);
    }
    case HLX_OP_SLICE: {
      int64_t s[1], l[1], st[1] = {1};
      if (rt->rank != 1 || attr_ints(attr(op, "start_indices"), s, 1) != 1 ||
          attr_ints(attr(op, "limit_indices"), l, 1) != 1)
        return NULL;
      attr_ints(attr(op, "strides"), st, 1);
      int64_t k = 0;
      for (int64_t i = s[0]; i < l[0] && k < n && i < a[0]->n; i += st[0])
        out[k++] = a[0]->v[i];
      if (k != n) return NULL;
      return set_known(f, op->results[0], n, out);
    }
    default: break;
  }
  if (!elementwise_int_op(op->code)) return NULL;
  /* Elementwise: operands are n elements or (select/clamp) scalars. */
  for (int32_t i = 0; i < op->num_operands; i++)
    if (a[i]->n != n && a[i]->n != 1) return NULL;
  bool uns = op->num_operands &&
             hlx_dtype_is_unsigned_int(op->operands[0]->type->dtype);
  const hlx_attr_t* dir = attr(op, "comparison_direction");
  for (int64_t i = 0; i < n; i++) {
    int64_t x = a[0]->v[a[0]->n == 1 ? 0 : i];
    int64_t y = a[1] ? a[1]->v[a[1]->n == 1 ? 0 : i] : 0;
    int64_t z = a[2] ? a[2]->v[a[2]->n == 1 ? 0 : i] : 0;
    int64_t r;
    switch (op->code) {
      case HLX_OP_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
      case HLX_OP_SUBTRACT: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
      case HLX_OP_MULTIPLY: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
      case HLX_OP_DIVIDE:
      case HLX_OP_REMAINDER:
        if (y == 0 || (x == INT64_MIN && y == -1)) return NULL;
        r = op->code == HLX_OP_DIVIDE ? x / y : x % y;
        break;
      case HLX_OP_MAXIMUM: r = x > y ? x : y; break;
      case HLX_OP_MINIMUM: r = x < y ? x : y; break;
      case HLX_OP_AND: r = x & y; break;
      case HLX_OP_OR: r = x | y; break;
      case HLX_OP_XOR: r = x ^ y; break;
      case HLX_OP_NOT:
        r = hlx_dtype_is_pred(rt->dtype) ? !x : ~x;
        break;
      case HLX_OP_NEGATE: r = (int64_t)(0 - (uint64_t)x); break;
      case HLX_OP_ABS: r = x < 0 ? (int64_t)(0 - (uint64_t)x) : x; break;
      case HLX_OP_SIGN: r = (x > 0) - (x < 0); break;
      case HLX_OP_CLAMP: r = y < x ? x : (y > z ? z : y); break;
      case HLX_OP_SELECT: r = x ? y : z; break;
      case HLX_OP_CONVERT: r = x; break;
      case HLX_OP_COMPARE:
        if (!dir || dir->kind != HLX_ATTR_ENUM || !dir->enum_value) return NULL;
        r = cmp(dir->enum_value, x, y, uns);
        break;
      default: return NULL;
    }
    out[i] = r;
  }
  return set_known(f, op->results[0], n, out);
}

/* ---- shape rules ---------------------------------------------------------- */

/* Sets result r's type to dims, checking the declared static dims. */
static hlx_status_t set_result(fn_ctx_t* f, const hlx_op_t* op, int32_t r,
                               int32_t rank, const int64_t* dims) {
  hlx_value_t* v = op->results[r];
  const hlx_type_t* t = v->type;
  if (t->kind != HLX_TYPE_TENSOR || t->rank != rank)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "result %d: inferred rank %d differs from the declared type",
                  (int)r, (int)rank);
  bool same = true;
  for (int32_t d = 0; d < rank; d++) {
    if (dims[d] < 0)
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "result %d dim %d: inferred size %lld is negative",
                    (int)r, (int)d, (long long)dims[d]);
    if (t->dims[d] != HLX_DYNAMIC_DIM && t->dims[d] != dims[d])
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "result %d dim %d: the shapes give %lld, the declared "
                    "type says %lld (inconsistent dimension values)",
                    (int)r, (int)d, (long long)dims[d], (long long)t->dims[d]);
    same = same && t->dims[d] == dims[d];
  }
  if (same) return NULL;
  hlx_type_t* nt = new_type(&f->c->m->arena, t, rank, dims);
  if (!nt) return hlx_status_oom();
  v->type = nt;
  return NULL;
}

static hlx_status_t need_known(const hlx_op_t* op, known_t* k, int32_t i,
                               int64_t n, const char* what) {
  if (!k)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "%s (operand %d) is not computable from the argument "
                  "shapes and dimension values",
                  what, (int)i);
  if (n >= 0 && k->n != n)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "%s (operand %d) has %lld elements, expected %lld", what,
                  (int)i, (long long)k->n, (long long)n);
  return NULL;
}

static hlx_attr_t* i64_array(hlx_arena_t* a, const int64_t* v, int32_t n) {
  hlx_attr_t* at = hlx_arena_alloc(a, sizeof *at);
  if (!at) return NULL;
  memset(at, 0, sizeof *at);
  at->kind = HLX_ATTR_I64_ARRAY;
  at->count = n;
  at->ints = hlx_arena_alloc_array(a, (size_t)(n ? n : 1), sizeof(int64_t));
  if (!at->ints) return NULL;
  for (int32_t i = 0; i < n; i++) at->ints[i] = v[i];
  return at;
}

/* Replaces op's attributes named in names[] (adding missing ones). */
static hlx_status_t put_attr(hlx_arena_t* a, hlx_op_t* op, const char* name,
                             hlx_attr_t* v) {
  if (!v) return hlx_status_oom();
  for (int32_t i = 0; i < op->num_attrs; i++)
    if (!strcmp(op->attrs[i].name, name)) {
      op->attrs[i].value = v;
      return NULL;
    }
  hlx_named_attr_t* na = hlx_arena_alloc_array(a, (size_t)op->num_attrs + 1,
                                               sizeof *na);
  if (!na) return hlx_status_oom();
  if (op->num_attrs) memcpy(na, op->attrs, sizeof *na * (size_t)op->num_attrs);
  na[op->num_attrs].name = name;
  na[op->num_attrs].value = v;
  op->attrs = na;
  op->num_attrs++;
  return NULL;
}

static const char* const kSliceNames[3] = {"start_indices", "limit_indices",
                                           "strides"};
static const char* const kPadNames[3] = {"edge_padding_low",
                                         "edge_padding_high",
                                         "interior_padding"};

/* slice's result dims (spec C2-C4 checked). */
static hlx_status_t slice_dims(const hlx_op_t* op, const hlx_type_t* o,
                               const int64_t* s, const int64_t* l,
                               const int64_t* st, int32_t rank,
                               int64_t* dims) {
  for (int32_t d = 0; d < rank; d++) {
    if (s[d] < 0 || s[d] > l[d] || l[d] > o->dims[d] || st[d] <= 0)
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "(C3/C4) dim %d: need 0 <= start %lld <= limit %lld "
                    "<= %lld and stride %lld > 0",
                    (int)d, (long long)s[d], (long long)l[d],
                    (long long)o->dims[d], (long long)st[d]);
    dims[d] = (l[d] - s[d] + st[d] - 1) / st[d];
  }
  return NULL;
}

/* pad's result dims (spec C4 checked). */
static hlx_status_t pad_dims(const hlx_op_t* op, const hlx_type_t* o,
                             const int64_t* lo, const int64_t* hi,
                             const int64_t* in, int32_t rank, int64_t* dims) {
  for (int32_t d = 0; d < rank; d++) {
    if (in[d] < 0)
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "(C4) interior_padding[%d] is negative", (int)d);
    int64_t n = o->dims[d];
    dims[d] = lo[d] + hi[d] + n + (n > 0 ? (n - 1) * in[d] : 0);
  }
  return NULL;
}

/* Operands first..first+2 (real_dynamic_slice's and dynamic_pad's index
 * vectors) as known values of rank elements each. */
static hlx_status_t need_three(fn_ctx_t* f, const hlx_op_t* op, int32_t first,
                               int32_t rank, const char* const names[3],
                               known_t* k[3]) {
  for (int32_t i = 0; i < 3; i++) {
    k[i] = kn(f, op->operands[first + i]);
    HLX_RETURN_IF_ERROR(need_known(op, k[i], first + i, rank, names[i]));
  }
  return NULL;
}

/* The static op's attributes from those values. */
static hlx_status_t put_three(hlx_arena_t* ar, hlx_op_t* op,
                              const char* const names[3], known_t* const k[3],
                              int32_t rank) {
  for (int32_t i = 0; i < 3; i++)
    HLX_RETURN_IF_ERROR(put_attr(ar, op, names[i], i64_array(ar, k[i]->v, rank)));
  return NULL;
}

static void set_code(hlx_op_t* op, hlx_opcode_t code, int32_t num_operands) {
  op->code = code;
  op->name = hlx_opcode_name(code);
  op->num_operands = num_operands;
}

/* Unifies `?` result dims with the same-rank operands' dims (elementwise
 * ops, where every operand of the result's rank has its shape). */
static hlx_status_t elementwise_rule(fn_ctx_t* f, const hlx_op_t* op,
                                     int32_t first, int32_t count) {
  for (int32_t r = 0; r < op->num_results; r++) {
    const hlx_type_t* t = op->results[r]->type;
    if (t->kind != HLX_TYPE_TENSOR) continue;
    int64_t dims[HLX_MAX_RANK];
    for (int32_t d = 0; d < t->rank; d++) dims[d] = t->dims[d];
    int32_t end = count < 0 ? op->num_operands : first + count;
    for (int32_t i = first; i < end && i < op->num_operands; i++) {
      const hlx_type_t* o = op->operands[i]->type;
      if (o->kind != HLX_TYPE_TENSOR || o->rank != t->rank) continue;
      for (int32_t d = 0; d < t->rank; d++) {
        if (o->dims[d] == HLX_DYNAMIC_DIM) continue;
        if (dims[d] == HLX_DYNAMIC_DIM)
          dims[d] = o->dims[d];
        else if (dims[d] != o->dims[d])
          return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand %d dim %d is %lld but the result's is %lld "
                        "(operands and result must have one shape)",
                        (int)i, (int)d, (long long)o->dims[d],
                        (long long)dims[d]);
      }
    }
    for (int32_t d = 0; d < t->rank; d++)
      if (dims[d] == HLX_DYNAMIC_DIM) goto next;
    HLX_RETURN_IF_ERROR(set_result(f, op, r, t->rank, dims));
  next:;
  }
  return NULL;
}

static const hlx_type_t* ot(const hlx_op_t* op, int32_t i) {
  return op->operands[i]->type;
}

static hlx_status_t gather_shape(const hlx_op_t* op, const int64_t* sizes,
                                 int32_t nsizes, int64_t* dims,
                                 int32_t* rank) {
  const hlx_attr_t* dn = attr(op, "dimension_numbers");
  int64_t offset[HLX_MAX_RANK], collapsed[HLX_MAX_RANK], obatch[HLX_MAX_RANK];
  int32_t no = attr_ints(field(dn, "offset_dims"), offset, HLX_MAX_RANK);
  int32_t nc = attr_ints(field(dn, "collapsed_slice_dims"), collapsed,
                         HLX_MAX_RANK);
  int32_t nb = attr_ints(field(dn, "operand_batching_dims"), obatch,
                         HLX_MAX_RANK);
  if (no < 0) no = 0;
  if (nc < 0) nc = 0;
  if (nb < 0) nb = 0;
  int64_t ivd = attr_int(field(dn, "index_vector_dim"), 0); /* spec default */
  const hlx_type_t* it = ot(op, 1);
  int64_t batch[HLX_MAX_RANK];
  int32_t nbd = 0;
  for (int32_t d = 0; d < it->rank; d++)
    if (d != ivd) batch[nbd++] = it->dims[d];
  int64_t offs[HLX_MAX_RANK];
  int32_t nos = 0;
  for (int32_t d = 0; d < nsizes; d++) {
    bool drop = false;
    for (int32_t k = 0; k < nc; k++) drop = drop || collapsed[k] == d;
    for (int32_t k = 0; k < nb; k++) drop = drop || obatch[k] == d;
    if (!drop) offs[nos++] = sizes[d];
  }
  int32_t r = nbd + nos;
  if (nos != no || r > HLX_MAX_RANK)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "(C7) offset_dims has %d entries, slice_sizes give %d",
                  (int)no, (int)nos);
  int32_t bi = 0, oi = 0;
  for (int32_t d = 0; d < r; d++) {
    bool is_off = false;
    for (int32_t k = 0; k < no; k++) is_off = is_off || offset[k] == d;
    dims[d] = is_off ? offs[oi++] : (bi < nbd ? batch[bi++] : 1);
  }
  *rank = r;
  return NULL;
}

/* convolution's result dims (spec C13-C15); pad: 2 per spatial dim, or
 * NULL for the op's padding attribute. */
static hlx_status_t conv_dims(const hlx_op_t* op, const int64_t* pad,
                              int64_t* dims, int32_t* rank) {
  const hlx_attr_t* dn = attr(op, "dimension_numbers");
  const hlx_type_t* in = ot(op, 0);
  const hlx_type_t* k = ot(op, 1);
  int64_t isp[HLX_MAX_RANK], ksp[HLX_MAX_RANK], osp[HLX_MAX_RANK];
  int32_t ns = attr_ints(field(dn, "input_spatial_dimensions"), isp,
                         HLX_MAX_RANK);
  if (ns < 0) ns = 0;
  if (attr_ints(field(dn, "kernel_spatial_dimensions"), ksp, HLX_MAX_RANK) !=
          ns ||
      attr_ints(field(dn, "output_spatial_dimensions"), osp, HLX_MAX_RANK) !=
          ns ||
      in->rank != ns + 2 || k->rank != ns + 2)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "(C2-C12) bad dimension_numbers");
  int64_t st[HLX_MAX_RANK], ld[HLX_MAX_RANK], rd[HLX_MAX_RANK],
      pv[2 * HLX_MAX_RANK];
  for (int32_t d = 0; d < ns; d++) st[d] = ld[d] = rd[d] = 1;
  for (int32_t d = 0; d < 2 * ns; d++) pv[d] = pad ? pad[d] : 0;
  attr_ints(attr(op, "window_strides"), st, HLX_MAX_RANK);
  attr_ints(attr(op, "lhs_dilation"), ld, HLX_MAX_RANK);
  attr_ints(attr(op, "rhs_dilation"), rd, HLX_MAX_RANK);
  if (!pad) attr_ints(attr(op, "padding"), pv, 2 * HLX_MAX_RANK);
  int64_t bg = attr_int(attr(op, "batch_group_count"), 1);
  int64_t ib = attr_int(field(dn, "input_batch_dimension"), -1);
  int64_t kof = attr_int(field(dn, "kernel_output_feature_dimension"), -1);
  int64_t ob = attr_int(field(dn, "output_batch_dimension"), -1);
  int64_t of = attr_int(field(dn, "output_feature_dimension"), -1);
  if (ib < 0 || ib >= in->rank || kof < 0 || kof >= k->rank || ob < 0 ||
      ob >= in->rank || of < 0 || of >= in->rank || bg < 1)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "(C2-C12) bad dimension_numbers");
  for (int32_t d = 0; d < in->rank; d++) dims[d] = 0;
  dims[ob] = in->dims[ib] / bg;
  dims[of] = k->dims[kof];
  for (int32_t d = 0; d < ns; d++) {
    if (isp[d] < 0 || isp[d] >= in->rank || ksp[d] < 0 ||
        ksp[d] >= k->rank || osp[d] < 0 || osp[d] >= in->rank || st[d] < 1)
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "(C2-C12) bad spatial dimensions");
    int64_t n = in->dims[isp[d]];
    int64_t dil = n > 0 ? (n - 1) * ld[d] + 1 : 0;
    int64_t padded = dil + pv[2 * d] + pv[2 * d + 1];
    int64_t win = (k->dims[ksp[d]] - 1) * rd[d] + 1;
    dims[osp[d]] = padded < win ? 0 : (padded - win) / st[d] + 1;
  }
  *rank = in->rank;
  return NULL;
}

/* custom_call @stablehlo.dynamic_top_k(x, k) (JAX's shape-polymorphic
 * top_k): values and indices of shape x.shape[:-1] + [k], made chlo.top_k
 * with attribute k. */
static hlx_status_t refine_dynamic_top_k(fn_ctx_t* f, hlx_op_t* op) {
  const hlx_type_t* o = op->num_operands == 2 ? ot(op, 0) : NULL;
  if (!o || o->kind != HLX_TYPE_TENSOR || o->rank < 1 ||
      !hlx_type_is_static(o) || op->num_results != 2)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "stablehlo.dynamic_top_k takes a static operand of rank "
                  ">= 1 and k, and returns values and indices");
  known_t* k = kn(f, op->operands[1]);
  HLX_RETURN_IF_ERROR(need_known(op, k, 1, 1, "k"));
  int64_t dims[HLX_MAX_RANK];
  int32_t last = o->rank - 1;
  memcpy(dims, o->dims, sizeof(int64_t) * (size_t)o->rank);
  if (k->v[0] < 0 || k->v[0] > dims[last])
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "stablehlo.dynamic_top_k: k = %lld must be in [0, %lld]",
                  (long long)k->v[0], (long long)dims[last]);
  dims[last] = k->v[0];
  HLX_RETURN_IF_ERROR(set_result(f, op, 0, o->rank, dims));
  HLX_RETURN_IF_ERROR(set_result(f, op, 1, o->rank, dims));
  hlx_arena_t* ar = &f->c->m->arena;
  hlx_attr_t* ka = hlx_arena_alloc(ar, sizeof *ka);
  if (!ka) return hlx_status_oom();
  memset(ka, 0, sizeof *ka);
  ka->kind = HLX_ATTR_INT;
  ka->i = k->v[0];
  HLX_RETURN_IF_ERROR(put_attr(ar, op, "k", ka));
  set_code(op, HLX_OP_CHLO_TOP_K, 1);
  return NULL;
}

/* custom_call @stablehlo.dynamic_approx_top_k(inputs..., initial values...,
 * k[, result shapes...]) (JAX's shape-polymorphic approx_max_k): each
 * result takes the shape its operand in indices_of_shape_operands gives
 * (as JAX writes it), else input 0's shape with reduction_dim
 * (mhlo.backend_config) of size k. It stays a custom_call, which
 * graph/lower/jax_approx_top_k.c runs. */
static hlx_status_t refine_dynamic_approx_top_k(fn_ctx_t* f, hlx_op_t* op) {
  int32_t n = op->num_results;
  const hlx_type_t* o =
      n >= 1 && op->num_operands >= 2 * n + 1 ? ot(op, 0) : NULL;
  if (!o || o->kind != HLX_TYPE_TENSOR || o->rank < 1 ||
      !hlx_type_is_static(o))
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "stablehlo.dynamic_approx_top_k takes N static inputs, N "
                  "initial values and k, and returns N results");
  int64_t idx[HLX_MAX_RANK];
  const hlx_attr_t* shapes = attr(op, "indices_of_shape_operands");
  if (shapes) {
    if (attr_ints(shapes, idx, HLX_MAX_RANK) != n)
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "indices_of_shape_operands must name one operand per "
                    "result");
    for (int32_t r = 0; r < n; r++) {
      known_t* k = idx[r] >= 0 && idx[r] < op->num_operands
                       ? kn(f, op->operands[idx[r]])
                       : NULL;
      HLX_RETURN_IF_ERROR(need_known(op, k, (int32_t)idx[r], o->rank,
                                     "result shape"));
      HLX_RETURN_IF_ERROR(set_result(f, op, r, o->rank, k->v));
    }
    return NULL;
  }
  const hlx_attr_t* cfg = attr(op, "mhlo.backend_config");
  int64_t rd = attr_int(field(cfg, "reduction_dim"), -1);
  const hlx_attr_t* agg = field(cfg, "aggregate_to_topk");
  if (agg && agg->kind == HLX_ATTR_BOOL && !agg->b)
    return op_err(op, HLX_STATUS_UNIMPLEMENTED,
                  "stablehlo.dynamic_approx_top_k: aggregate_to_topk = "
                  "false needs indices_of_shape_operands");
  known_t* k = kn(f, op->operands[2 * n]);
  HLX_RETURN_IF_ERROR(need_known(op, k, 2 * n, 1, "k"));
  if (rd < 0 || rd >= o->rank || k->v[0] < 0)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "stablehlo.dynamic_approx_top_k: reduction_dim %lld must "
                  "be in [0, %d) and k = %lld >= 0",
                  (long long)rd, (int)o->rank, (long long)k->v[0]);
  memcpy(idx, o->dims, sizeof(int64_t) * (size_t)o->rank);
  idx[rd] = k->v[0];
  for (int32_t r = 0; r < n; r++)
    HLX_RETURN_IF_ERROR(set_result(f, op, r, o->rank, idx));
  return NULL;
}

/* custom_call @stablehlo.dynamic_rng_bit_generator(state, shape)
 * {rng_algorithm}: the output takes the shape's values; made
 * rng_bit_generator. */
static hlx_status_t refine_dynamic_rng(fn_ctx_t* f, hlx_op_t* op) {
  const hlx_type_t* st = op->num_operands == 2 ? ot(op, 0) : NULL;
  const hlx_type_t* rt = op->num_results == 2 ? op->results[1]->type : NULL;
  if (!st || !rt || st->kind != HLX_TYPE_TENSOR || !hlx_type_is_static(st) ||
      rt->kind != HLX_TYPE_TENSOR)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                  "stablehlo.dynamic_rng_bit_generator takes a static state "
                  "and an output shape, and returns a state and the output");
  known_t* k = kn(f, op->operands[1]);
  HLX_RETURN_IF_ERROR(need_known(op, k, 1, rt->rank, "output_shape"));
  HLX_RETURN_IF_ERROR(set_result(f, op, 0, st->rank, st->dims));
  HLX_RETURN_IF_ERROR(set_result(f, op, 1, rt->rank, k->v));
  set_code(op, HLX_OP_RNG_BIT_GENERATOR, 1);
  return NULL;
}

static hlx_status_t refine_block(fn_ctx_t* f, hlx_block_t* b);
static hlx_status_t refine_func(ctx_t* c, hlx_func_t* fn,
                                hlx_type_t* const* arg_types,
                                const known_t* arg_known, known_t* ret_known,
                                hlx_func_t** used);

static hlx_status_t set_block_arg(fn_ctx_t* f, hlx_block_t* b, int32_t i,
                                  const hlx_type_t* t) {
  hlx_value_t* v = b->args[i];
  if (v->type == t || !is_dyn_type(v->type)) return NULL;
  if (t->kind != HLX_TYPE_TENSOR || v->type->rank != t->rank)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "shape refinement: region argument %d: rank "
                           "differs from its operand",
                           (int)i);
  hlx_type_t* nt = new_type(&f->c->m->arena, v->type, t->rank, t->dims);
  if (!nt) return hlx_status_oom();
  nt->dtype = v->type->dtype;
  v->type = nt;
  return NULL;
}

static hlx_status_t results_from_terminator(fn_ctx_t* f, const hlx_op_t* op,
                                            const hlx_block_t* b) {
  if (b->num_ops < 1)
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT, "a branch has no return");
  const hlx_op_t* term = b->ops[b->num_ops - 1];
  for (int32_t r = 0; r < op->num_results && r < term->num_operands; r++) {
    const hlx_type_t* t = term->operands[r]->type;
    if (t->kind != HLX_TYPE_TENSOR || !hlx_type_is_static(t)) continue;
    HLX_RETURN_IF_ERROR(set_result(f, op, r, t->rank, t->dims));
  }
  return NULL;
}

/* The operands the shape rules index (fewer: a malformed op). */
static int32_t min_operands(hlx_opcode_t c) {
  switch (c) {
    case HLX_OP_DYNAMIC_IOTA: case HLX_OP_GET_DIMENSION_SIZE:
    case HLX_OP_BROADCAST_IN_DIM: case HLX_OP_TRANSPOSE: case HLX_OP_RESHAPE:
    case HLX_OP_CONCATENATE: case HLX_OP_SLICE: case HLX_OP_PAD:
    case HLX_OP_REDUCE_WINDOW:
      return 1;
    case HLX_OP_DYNAMIC_BROADCAST_IN_DIM: case HLX_OP_DYNAMIC_RESHAPE:
    case HLX_OP_GATHER: case HLX_OP_REDUCE: case HLX_OP_DOT:
    case HLX_OP_DOT_GENERAL: case HLX_OP_TRIANGULAR_SOLVE:
    case HLX_OP_CONVOLUTION:
      return 2;
    case HLX_OP_DYNAMIC_GATHER: case HLX_OP_DYNAMIC_CONV: return 3;
    case HLX_OP_REAL_DYNAMIC_SLICE: return 4;
    case HLX_OP_DYNAMIC_PAD: return 5;
    default: return 0;
  }
}

static bool all_in(const int64_t* v, int32_t n, int32_t rank) {
  for (int32_t i = 0; i < n; i++)
    if (v[i] < 0 || v[i] >= rank) return false;
  return true;
}

static hlx_status_t refine_op(fn_ctx_t* f, hlx_op_t* op) {
  hlx_arena_t* ar = &f->c->m->arena;
  int64_t dims[3 * HLX_MAX_RANK]; /* dot: batch + both free dims */
  int64_t tmp[HLX_MAX_RANK];
  const hlx_type_t* rt = op->num_results ? op->results[0]->type : NULL;
  int32_t rank = rt && rt->kind == HLX_TYPE_TENSOR ? rt->rank : 0;
  int32_t need = min_operands(op->code);
  if (need) {
    bool ok = op->num_operands >= need && rt && rt->kind == HLX_TYPE_TENSOR;
    for (int32_t i = 0; ok && i < need; i++)
      ok = ot(op, i)->kind == HLX_TYPE_TENSOR;
    if (!ok)
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "needs %d tensor operands and a tensor result", (int)need);
  }
  if ((op->code == HLX_OP_IF || op->code == HLX_OP_CASE) &&
      (op->num_regions < 1 || op->regions[0]->num_blocks < 1))
    return op_err(op, HLX_STATUS_INVALID_ARGUMENT, "has no branch");
  switch (op->code) {
    case HLX_OP_DYNAMIC_BROADCAST_IN_DIM: {
      known_t* k = kn(f, op->operands[1]);
      HLX_RETURN_IF_ERROR(need_known(op, k, 1, rank, "output_dimensions"));
      int64_t bd[HLX_MAX_RANK];
      const hlx_type_t* o = ot(op, 0);
      if (attr_ints(attr(op, "broadcast_dimensions"), bd, HLX_MAX_RANK) !=
          o->rank)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "(C2) broadcast_dimensions must have the operand's rank");
      for (int32_t d = 0; d < o->rank; d++) {
        if (bd[d] < 0 || bd[d] >= rank)
          return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) broadcast_dimensions[%d] out of range", (int)d);
        if (o->dims[d] != 1 && o->dims[d] != k->v[bd[d]])
          return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) operand dim %d is %lld, neither 1 nor the "
                        "output dimension %lld",
                        (int)d, (long long)o->dims[d], (long long)k->v[bd[d]]);
      }
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, k->v));
      set_code(op, HLX_OP_BROADCAST_IN_DIM, 1);
      return eval(f, op);
    }
    case HLX_OP_DYNAMIC_IOTA: {
      known_t* k = kn(f, op->operands[0]);
      HLX_RETURN_IF_ERROR(need_known(op, k, 0, rank, "output_shape"));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, k->v));
      set_code(op, HLX_OP_IOTA, 0);
      return eval(f, op);
    }
    case HLX_OP_DYNAMIC_RESHAPE: {
      known_t* k = kn(f, op->operands[1]);
      HLX_RETURN_IF_ERROR(need_known(op, k, 1, rank, "output_shape"));
      int64_t n = 1;
      for (int32_t d = 0; d < rank; d++)
        if (k->v[d] < 0 || __builtin_mul_overflow(n, k->v[d], &n))
          return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) output_shape[%d] = %lld: no valid size", (int)d,
                        (long long)k->v[d]);
      if (n != hlx_type_num_elements(ot(op, 0)))
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "(C2) output_shape has %lld elements, the operand %lld",
                      (long long)n, (long long)hlx_type_num_elements(ot(op, 0)));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, k->v));
      set_code(op, HLX_OP_RESHAPE, 1);
      return eval(f, op);
    }
    case HLX_OP_REAL_DYNAMIC_SLICE: {
      known_t* k[3];
      HLX_RETURN_IF_ERROR(need_three(f, op, 1, rank, kSliceNames, k));
      HLX_RETURN_IF_ERROR(slice_dims(op, ot(op, 0), k[0]->v, k[1]->v,
                                     k[2]->v, rank, dims));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, dims));
      HLX_RETURN_IF_ERROR(put_three(ar, op, kSliceNames, k, rank));
      set_code(op, HLX_OP_SLICE, 1);
      return eval(f, op);
    }
    case HLX_OP_DYNAMIC_PAD: {
      known_t* k[3];
      HLX_RETURN_IF_ERROR(need_three(f, op, 2, rank, kPadNames, k));
      HLX_RETURN_IF_ERROR(pad_dims(op, ot(op, 0), k[0]->v, k[1]->v, k[2]->v,
                                   rank, dims));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, dims));
      HLX_RETURN_IF_ERROR(put_three(ar, op, kPadNames, k, rank));
      set_code(op, HLX_OP_PAD, 2);
      return eval(f, op);
    }
    case HLX_OP_DYNAMIC_GATHER: {
      const hlx_type_t* o = ot(op, 0);
      known_t* k = kn(f, op->operands[2]);
      HLX_RETURN_IF_ERROR(need_known(op, k, 2, o->rank, "slice_sizes"));
      int32_t r;
      HLX_RETURN_IF_ERROR(gather_shape(op, k->v, o->rank, dims, &r));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, r, dims));
      HLX_RETURN_IF_ERROR(put_attr(ar, op, "slice_sizes",
                                   i64_array(ar, k->v, o->rank)));
      set_code(op, HLX_OP_GATHER, 2);
      return eval(f, op);
    }
    case HLX_OP_GET_DIMENSION_SIZE: {
      const hlx_type_t* o = ot(op, 0);
      int64_t d = attr_int(attr(op, "dimension"), -1);
      if (d < 0 || d >= o->rank)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "(C1) dimension %lld is not in [0, %d)", (long long)d,
                      (int)o->rank);
      int64_t size = o->dims[d];
      if (!int_like(rt) || rt->rank != 0)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "the result must be an integer scalar");
      hlx_attr_t* v = hlx_arena_alloc(ar, sizeof *v);
      if (!v) return hlx_status_oom();
      memset(v, 0, sizeof *v);
      v->kind = HLX_ATTR_DENSE;
      v->type = (hlx_type_t*)rt;
      v->dense_bytes = hlx_dtype_size(rt->dtype);
      v->dense = hlx_arena_alloc(ar, 8);
      if (!v->dense) return hlx_status_oom();
      int64_t w = wrap(rt->dtype, size);
      switch (v->dense_bytes) {
        case 1: *(int8_t*)v->dense = (int8_t)w; break;
        case 2: *(int16_t*)v->dense = (int16_t)w; break;
        case 4: *(int32_t*)v->dense = (int32_t)w; break;
        default: *(int64_t*)v->dense = w; break;
      }
      op->num_attrs = 0;
      HLX_RETURN_IF_ERROR(put_attr(ar, op, "value", v));
      set_code(op, HLX_OP_CONSTANT, 0);
      return eval(f, op);
    }
    case HLX_OP_DYNAMIC_CONV: {
      known_t* k = kn(f, op->operands[2]);
      HLX_RETURN_IF_ERROR(need_known(op, k, 2, 2 * (ot(op, 0)->rank - 2),
                                     "padding"));
      int32_t r;
      HLX_RETURN_IF_ERROR(conv_dims(op, k->v, dims, &r));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, r, dims));
      HLX_RETURN_IF_ERROR(put_attr(ar, op, "padding",
                                   i64_array(ar, k->v, (int32_t)k->n)));
      set_code(op, HLX_OP_CONVOLUTION, 2);
      return NULL;
    }
    default: break;
  }
  /* Ops whose results are static already need no rule. */
  bool dyn = false;
  for (int32_t r = 0; r < op->num_results; r++)
    dyn = dyn || is_dyn_type(op->results[r]->type);
  if (op->code == HLX_OP_WHILE) {
    for (int32_t g = 0; g < op->num_regions; g++) {
      hlx_block_t* b = op->regions[g]->blocks[0];
      for (int32_t i = 0; i < b->num_args && i < op->num_operands; i++)
        HLX_RETURN_IF_ERROR(set_block_arg(f, b, i, ot(op, i)));
      HLX_RETURN_IF_ERROR(refine_block(f, b));
    }
    for (int32_t r = 0; r < op->num_results && r < op->num_operands; r++) {
      const hlx_type_t* t = ot(op, r);
      if (t->kind == HLX_TYPE_TENSOR && hlx_type_is_static(t))
        HLX_RETURN_IF_ERROR(set_result(f, op, r, t->rank, t->dims));
    }
    return NULL;
  }
  /* Other regions (reduce bodies, branches) are refined before the op's
   * results: branches give if/case their result shapes. */
  for (int32_t g = 0; g < op->num_regions; g++)
    for (int32_t j = 0; j < op->regions[g]->num_blocks; j++)
      HLX_RETURN_IF_ERROR(refine_block(f, op->regions[g]->blocks[j]));
  if (op->code == HLX_OP_FUNC_CALL) {
    const hlx_attr_t* cal = attr(op, "callee");
    hlx_func_t* callee =
        cal && cal->str ? hlx_module_find_func(f->c->m, cal->str) : NULL;
    if (!callee) return op_err(op, HLX_STATUS_INVALID_ARGUMENT, "no callee");
    if (op->num_operands != callee->num_args ||
        op->num_operands > kMaxKnown)
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "operand count differs from @%s's arguments", callee->name);
    hlx_type_t* types[kMaxKnown];
    known_t ks[kMaxKnown];
    known_t rk[kMaxKnown];
    for (int32_t i = 0; i < op->num_operands; i++) {
      types[i] = op->operands[i]->type;
      known_t* k = kn(f, op->operands[i]);
      ks[i] = k ? *k : (known_t){-1, NULL};
    }
    if (callee->num_results > kMaxKnown)
      return op_err(op, HLX_STATUS_UNIMPLEMENTED, "too many results");
    hlx_func_t* used = callee;
    HLX_RETURN_IF_ERROR(refine_func(f->c, callee, types, ks, rk, &used));
    if (used != callee) {
      hlx_attr_t* sym = hlx_arena_alloc(ar, sizeof *sym);
      if (!sym) return hlx_status_oom();
      *sym = *cal;
      sym->str = used->name;
      HLX_RETURN_IF_ERROR(put_attr(ar, op, "callee", sym));
      callee = used;
    }
    for (int32_t r = 0; r < op->num_results && r < callee->num_results; r++) {
      const hlx_type_t* t = callee->result_types[r];
      if (t->kind == HLX_TYPE_TENSOR && hlx_type_is_static(t))
        HLX_RETURN_IF_ERROR(set_result(f, op, r, t->rank, t->dims));
      if (rk[r].n >= 0)
        HLX_RETURN_IF_ERROR(set_known(f, op->results[r], rk[r].n, rk[r].v));
    }
    return NULL;
  }
  if (!dyn) return eval(f, op);
  switch (op->code) {
    case HLX_OP_IF:
    case HLX_OP_CASE:
      HLX_RETURN_IF_ERROR(results_from_terminator(
          f, op, op->regions[0]->blocks[0]));
      break;
    case HLX_OP_BROADCAST_IN_DIM: {
      const hlx_type_t* o = ot(op, 0);
      int64_t bd[HLX_MAX_RANK];
      if (attr_ints(attr(op, "broadcast_dimensions"), bd, HLX_MAX_RANK) !=
          o->rank)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "(C2) broadcast_dimensions must have the operand's rank");
      for (int32_t d = 0; d < rank; d++) dims[d] = rt->dims[d];
      for (int32_t d = 0; d < o->rank; d++)
        if (bd[d] >= 0 && bd[d] < rank && dims[bd[d]] == HLX_DYNAMIC_DIM)
          dims[bd[d]] = o->dims[d];
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, dims));
      break;
    }
    case HLX_OP_TRANSPOSE: {
      int64_t p[HLX_MAX_RANK];
      if (attr_ints(attr(op, "permutation"), p, HLX_MAX_RANK) != rank ||
          !all_in(p, rank, ot(op, 0)->rank))
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT, "(C2) bad permutation");
      for (int32_t d = 0; d < rank; d++) dims[d] = ot(op, 0)->dims[p[d]];
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, dims));
      break;
    }
    case HLX_OP_RESHAPE: {
      /* One `?` can be the remaining element count. */
      int64_t n = hlx_type_num_elements(ot(op, 0)), p = 1;
      int32_t q = -1;
      for (int32_t d = 0; d < rank; d++) {
        dims[d] = rt->dims[d];
        if (dims[d] == HLX_DYNAMIC_DIM) {
          if (q >= 0) q = -2;
          if (q == -1) q = d;
        } else {
          p *= dims[d];
        }
      }
      if (q < 0 || p == 0 || n < 0 || n % p)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "the result's `?` dims cannot be derived from the "
                      "operand's element count");
      dims[q] = n / p;
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, dims));
      break;
    }
    case HLX_OP_CONCATENATE: {
      int64_t cd = attr_int(attr(op, "dimension"), -1);
      if (cd < 0 || cd >= rank)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT, "(C4) bad dimension");
      for (int32_t i = 0; i < op->num_operands; i++)
        if (ot(op, i)->kind != HLX_TYPE_TENSOR || ot(op, i)->rank != rank)
          return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) operand %d's rank differs from the result's",
                        (int)i);
      for (int32_t d = 0; d < rank; d++) {
        dims[d] = d == cd ? 0 : ot(op, 0)->dims[d];
        for (int32_t i = 0; i < op->num_operands; i++) {
          if (d == cd) {
            dims[d] += ot(op, i)->dims[d];
          } else if (ot(op, i)->dims[d] != dims[d]) {
            return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) operand %d dim %d is %lld, operand 0's %lld",
                          (int)i, (int)d, (long long)ot(op, i)->dims[d],
                          (long long)dims[d]);
          }
        }
      }
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, dims));
      break;
    }
    case HLX_OP_SLICE:
    case HLX_OP_PAD: {
      /* Static attributes: the same sizes as the dynamic forms. */
      bool slice = op->code == HLX_OP_SLICE;
      const char* const* names = slice ? kSliceNames : kPadNames;
      int64_t v[3][HLX_MAX_RANK];
      for (int32_t i = 0; i < 3; i++)
        if (attr_ints(attr(op, names[i]), v[i], HLX_MAX_RANK) != rank)
          return op_err(op, HLX_STATUS_INVALID_ARGUMENT, "(C2) bad %s",
                        names[i]);
      if (slice)
        HLX_RETURN_IF_ERROR(slice_dims(op, ot(op, 0), v[0], v[1], v[2], rank,
                                       dims));
      else
        HLX_RETURN_IF_ERROR(pad_dims(op, ot(op, 0), v[0], v[1], v[2], rank,
                                     dims));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, rank, dims));
      break;
    }
    case HLX_OP_GATHER: {
      const hlx_type_t* o = ot(op, 0);
      if (attr_ints(attr(op, "slice_sizes"), tmp, HLX_MAX_RANK) != o->rank)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT, "(C11) bad slice_sizes");
      int32_t r;
      HLX_RETURN_IF_ERROR(gather_shape(op, tmp, o->rank, dims, &r));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, r, dims));
      break;
    }
    case HLX_OP_REDUCE: {
      int32_t ni = op->num_operands / 2;
      int32_t nd = attr_ints(attr(op, "dimensions"), tmp, HLX_MAX_RANK);
      const hlx_type_t* o = ot(op, 0);
      int32_t r = 0;
      for (int32_t d = 0; d < o->rank; d++) {
        bool red = false;
        for (int32_t k = 0; k < nd; k++) red = red || tmp[k] == d;
        if (!red) dims[r++] = o->dims[d];
      }
      for (int32_t i = 0; i < ni && i < op->num_results; i++)
        HLX_RETURN_IF_ERROR(set_result(f, op, i, r, dims));
      break;
    }
    case HLX_OP_DOT_GENERAL:
    case HLX_OP_DOT: {
      const hlx_type_t* l = ot(op, 0);
      const hlx_type_t* rr = ot(op, 1);
      int64_t lb[HLX_MAX_RANK], rb[HLX_MAX_RANK], lc[HLX_MAX_RANK],
          rc[HLX_MAX_RANK];
      int32_t nlb = 0, nrb = 0, nlc = 1, nrc = 1;
      if (op->code == HLX_OP_DOT) {
        lc[0] = l->rank - 1;
        rc[0] = 0;
      } else {
        const hlx_attr_t* dn = attr(op, "dot_dimension_numbers");
        nlb = attr_ints(field(dn, "lhs_batching_dimensions"), lb, HLX_MAX_RANK);
        nrb = attr_ints(field(dn, "rhs_batching_dimensions"), rb, HLX_MAX_RANK);
        nlc = attr_ints(field(dn, "lhs_contracting_dimensions"), lc,
                        HLX_MAX_RANK);
        nrc = attr_ints(field(dn, "rhs_contracting_dimensions"), rc,
                        HLX_MAX_RANK);
        if (nlb < 0) nlb = 0;
        if (nrb < 0) nrb = 0;
        if (nlc < 0) nlc = 0;
        if (nrc < 0) nrc = 0;
      }
      if (!all_in(lb, nlb, l->rank) || !all_in(lc, nlc, l->rank) ||
          !all_in(rb, nrb, rr->rank) || !all_in(rc, nrc, rr->rank))
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "(C3-C8) dimension numbers out of range");
      int32_t r = 0;
      for (int32_t k = 0; k < nlb; k++) dims[r++] = l->dims[lb[k]];
      for (int32_t d = 0; d < l->rank; d++) {
        bool skip = false;
        for (int32_t k = 0; k < nlb; k++) skip = skip || lb[k] == d;
        for (int32_t k = 0; k < nlc; k++) skip = skip || lc[k] == d;
        if (!skip) dims[r++] = l->dims[d];
      }
      for (int32_t d = 0; d < rr->rank; d++) {
        bool skip = false;
        for (int32_t k = 0; k < nrb; k++) skip = skip || rb[k] == d;
        for (int32_t k = 0; k < nrc; k++) skip = skip || rc[k] == d;
        if (!skip) dims[r++] = rr->dims[d];
      }
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, r, dims));
      break;
    }
    case HLX_OP_REDUCE_WINDOW: {
      const hlx_type_t* o = ot(op, 0);
      int32_t n = o->rank;
      int64_t wd[HLX_MAX_RANK], ws[HLX_MAX_RANK], bdl[HLX_MAX_RANK],
          wdl[HLX_MAX_RANK], pad[2 * HLX_MAX_RANK];
      if (attr_ints(attr(op, "window_dimensions"), wd, HLX_MAX_RANK) != n)
        return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                      "(C4) bad window_dimensions");
      for (int32_t d = 0; d < n; d++) ws[d] = bdl[d] = wdl[d] = 1;
      for (int32_t d = 0; d < 2 * n; d++) pad[d] = 0;
      attr_ints(attr(op, "window_strides"), ws, HLX_MAX_RANK);
      attr_ints(attr(op, "base_dilations"), bdl, HLX_MAX_RANK);
      attr_ints(attr(op, "window_dilations"), wdl, HLX_MAX_RANK);
      attr_ints(attr(op, "padding"), pad, 2 * HLX_MAX_RANK);
      for (int32_t d = 0; d < n; d++) {
        int64_t in = o->dims[d] > 0 ? (o->dims[d] - 1) * bdl[d] + 1 : 0;
        int64_t padded = in + pad[2 * d] + pad[2 * d + 1];
        int64_t win = (wd[d] - 1) * wdl[d] + 1;
        dims[d] = padded < win || ws[d] <= 0 ? 0 : (padded - win) / ws[d] + 1;
      }
      for (int32_t r = 0; r < op->num_results; r++)
        HLX_RETURN_IF_ERROR(set_result(f, op, r, n, dims));
      break;
    }
    case HLX_OP_SCATTER:
    case HLX_OP_SELECT_AND_SCATTER:
    case HLX_OP_DYNAMIC_UPDATE_SLICE:
    case HLX_OP_SORT:
      for (int32_t r = 0; r < op->num_results && r < op->num_operands; r++) {
        const hlx_type_t* t = ot(op, r);
        if (t->kind == HLX_TYPE_TENSOR && hlx_type_is_static(t))
          HLX_RETURN_IF_ERROR(set_result(f, op, r, t->rank, t->dims));
      }
      break;
    case HLX_OP_TRIANGULAR_SOLVE: {
      const hlx_type_t* t = ot(op, 1);
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, t->rank, t->dims));
      break;
    }
    case HLX_OP_CONVOLUTION: {
      int32_t r;
      HLX_RETURN_IF_ERROR(conv_dims(op, NULL, dims, &r));
      HLX_RETURN_IF_ERROR(set_result(f, op, 0, r, dims));
      break;
    }
    case HLX_OP_CUSTOM_CALL: {
      const hlx_attr_t* tn = attr(op, "call_target_name");
      if (tn && tn->kind == HLX_ATTR_STRING &&
          !strcmp(tn->str, "stablehlo.dynamic_top_k"))
        return refine_dynamic_top_k(f, op);
      if (tn && tn->kind == HLX_ATTR_STRING &&
          !strcmp(tn->str, "stablehlo.dynamic_rng_bit_generator"))
        return refine_dynamic_rng(f, op);
      if (tn && tn->kind == HLX_ATTR_STRING &&
          !strcmp(tn->str, "stablehlo.dynamic_approx_top_k"))
        return refine_dynamic_approx_top_k(f, op);
      return op_err(op, HLX_STATUS_UNIMPLEMENTED,
                    "no shape rule for a dynamically shaped result of this "
                    "custom_call target yet");
    }
    case HLX_OP_FFT:
    case HLX_OP_IOTA:
    case HLX_OP_DYNAMIC_SLICE:
      return op_err(op, HLX_STATUS_UNIMPLEMENTED,
                    "no shape rule for a dynamically shaped result of this "
                    "op yet");
    default:
      /* Elementwise ops (and those whose results take the operands'
       * shape): unify. */
      HLX_RETURN_IF_ERROR(elementwise_rule(f, op, 0, -1));
      break;
  }
  for (int32_t r = 0; r < op->num_results; r++)
    if (is_dyn_type(op->results[r]->type))
      return op_err(op, HLX_STATUS_INVALID_ARGUMENT,
                    "result %d's shape cannot be derived from its operands",
                    (int)r);
  return eval(f, op);
}

static hlx_status_t refine_block(fn_ctx_t* f, hlx_block_t* b) {
  for (int32_t k = 0; k < b->num_ops; k++)
    HLX_RETURN_IF_ERROR(refine_op(f, b->ops[k]));
  return NULL;
}

static bool known_equal(const known_t* a, const known_t* b) {
  if (a->n != b->n) return false;
  for (int64_t i = 0; i < a->n; i++)
    if (a->v[i] != b->v[i]) return false;
  return true;
}

static bool same_args(const func_state_t* s, int32_t n,
                      hlx_type_t* const* arg_types, const known_t* arg_known) {
  for (int32_t i = 0; i < n; i++)
    if (!hlx_type_equal(arg_types[i], s->arg_types[i]) ||
        !known_equal(&arg_known[i], &s->arg_known[i]))
      return false;
  return true;
}

/* Refines fn for these arguments: fn itself the first time, then a copy of
 * it per new set of argument shapes/values; *used is the one refined. */
static hlx_status_t refine_func(ctx_t* c, hlx_func_t* fn,
                                hlx_type_t* const* arg_types,
                                const known_t* arg_known, known_t* ret_known,
                                hlx_func_t** used) {
  func_state_t* first = NULL;
  for (int32_t i = 0; i < c->num_funcs; i++) {
    func_state_t* s = &c->funcs[i];
    if (s->origin != fn) continue;
    if (s->f == fn) first = s;
    if (!same_args(s, fn->num_args, arg_types, arg_known)) continue;
    /* Called again with the same shapes and values: reuse it. */
    if (!s->done)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "shape refinement: @%s is recursive", fn->name);
    for (int32_t r = 0; r < fn->num_results; r++) ret_known[r] = s->ret_known[r];
    *used = s->f;
    return NULL;
  }
  if (c->num_funcs == kMaxFuncs)
    return hlx_make_status(HLX_STATUS_UNIMPLEMENTED,
                           "shape refinement: more than %d specialised "
                           "functions",
                           kMaxFuncs);
  hlx_func_t* target = fn;
  hlx_func_t* pristine = NULL;
  if (first) {
    if (!first->pristine)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "shape refinement: @%s (the entry) is called",
                             fn->name);
    HLX_RETURN_IF_ERROR(add_copy(c, fn, first->pristine, &target));
  } else if (ret_known) {
    /* A callee: keep it as it was for calls with other shapes. */
    HLX_RETURN_IF_ERROR(hlx_func_copy(c->m, fn, fn->name, true, &pristine));
  }
  fn = target;
  hlx_arena_t* ar = &c->m->arena;
  func_state_t* s = &c->funcs[c->num_funcs++];
  s->origin = first ? first->origin : fn;
  s->pristine = pristine;
  s->f = fn;
  s->done = false;
  s->arg_types = hlx_arena_alloc_array(ar, (size_t)fn->num_args + 1,
                                       sizeof(hlx_type_t*));
  s->arg_known = hlx_arena_alloc_array(ar, (size_t)fn->num_args + 1,
                                       sizeof(known_t));
  s->ret_known = hlx_arena_alloc_array(ar, (size_t)fn->num_results + 1,
                                       sizeof(known_t));
  fn_ctx_t f = {c, NULL, fn->num_values};
  f.known = hlx_arena_alloc_array(ar, (size_t)fn->num_values + 1,
                                  sizeof(known_t));
  if (!s->arg_types || !s->arg_known || !s->ret_known || !f.known)
    return hlx_status_oom();
  for (int32_t i = 0; i < fn->num_values; i++) f.known[i].n = -1;
  hlx_block_t* b = fn->body->blocks[0];
  if (b->num_args != fn->num_args)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "shape refinement: @%s's body takes %d arguments, "
                           "its type %d",
                           fn->name, (int)b->num_args, (int)fn->num_args);
  for (int32_t i = 0; i < fn->num_args; i++) {
    s->arg_types[i] = arg_types[i];
    s->arg_known[i] = arg_known[i];
    hlx_value_t* v = b->args[i];
    const hlx_type_t* t = arg_types[i];
    if (v->type->kind == HLX_TYPE_TENSOR) {
      if (t->kind != HLX_TYPE_TENSOR || t->rank != v->type->rank)
        return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                               "shape refinement: @%s argument %d has rank "
                               "%d, given rank %d",
                               fn->name, (int)i, (int)v->type->rank,
                               (int)t->rank);
      for (int32_t d = 0; d < t->rank; d++)
        if (v->type->dims[d] != HLX_DYNAMIC_DIM &&
            v->type->dims[d] != t->dims[d])
          return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                 "shape refinement: @%s argument %d dim %d "
                                 "is %lld, given %lld",
                                 fn->name, (int)i, (int)d,
                                 (long long)v->type->dims[d],
                                 (long long)t->dims[d]);
      if (is_dyn_type(v->type)) {
        hlx_type_t* nt = new_type(ar, v->type, t->rank, t->dims);
        if (!nt) return hlx_status_oom();
        v->type = nt;
      }
    }
    if (arg_known[i].n >= 0)
      HLX_RETURN_IF_ERROR(set_known(&f, v, arg_known[i].n, arg_known[i].v));
  }
  c->depth++;
  hlx_status_t st = c->depth > 64
                        ? hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                                          "shape refinement: calls nest too "
                                          "deep")
                        : refine_block(&f, b);
  c->depth--;
  if (st) return hlx_status_annotate(st, "in function @%s", fn->name);
  if (b->num_ops < 1)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "shape refinement: @%s has no return", fn->name);
  const hlx_op_t* term = b->ops[b->num_ops - 1];
  if (term->num_operands != fn->num_results)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "shape refinement: @%s returns %d values, its "
                           "type says %d",
                           fn->name, (int)term->num_operands,
                           (int)fn->num_results);
  for (int32_t r = 0; r < fn->num_results; r++) {
    const hlx_type_t* t = term->operands[r]->type;
    const hlx_type_t* d = fn->result_types[r];
    if (d->kind == HLX_TYPE_TENSOR && t->kind == HLX_TYPE_TENSOR) {
      if (d->rank != t->rank)
        return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                               "shape refinement: @%s result %d rank differs",
                               fn->name, (int)r);
      for (int32_t k = 0; k < d->rank; k++)
        if (d->dims[k] != HLX_DYNAMIC_DIM && d->dims[k] != t->dims[k])
          return hlx_make_status(
              HLX_STATUS_INVALID_ARGUMENT,
              "shape refinement: @%s result %d dim %d is %lld, the declared "
              "type says %lld",
              fn->name, (int)r, (int)k, (long long)t->dims[k],
              (long long)d->dims[k]);
      if (is_dyn_type(d)) {
        hlx_type_t* nt = new_type(ar, d, t->rank, t->dims);
        if (!nt) return hlx_status_oom();
        fn->result_types[r] = nt;
      }
    }
    known_t* k = kn(&f, term->operands[r]);
    s->ret_known[r] = k ? *k : (known_t){-1, NULL};
    if (ret_known) ret_known[r] = s->ret_known[r];
  }
  s->done = true;
  *used = fn;
  return NULL;
}

hlx_status_t hlx_refine_shapes(hlx_module_t* m, hlx_func_t* entry,
                               int32_t num_args, const hlx_refine_arg_t* args) {
  if (num_args != entry->num_args)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "shape refinement: @%s takes %d arguments, %d "
                           "given",
                           entry->name, (int)entry->num_args, (int)num_args);
  ctx_t* c = calloc(1, sizeof *c);
  if (!c) return hlx_status_oom();
  c->m = m;
  hlx_arena_t* ar = &m->arena;
  hlx_type_t** types =
      hlx_arena_alloc_array(ar, (size_t)num_args + 1, sizeof(hlx_type_t*));
  known_t* ks = hlx_arena_alloc_array(ar, (size_t)num_args + 1, sizeof(known_t));
  hlx_status_t st = types && ks ? NULL : hlx_status_oom();
  hlx_block_t* b = entry->body->blocks[0];
  for (int32_t i = 0; !st && i < num_args; i++) {
    const hlx_type_t* t = b->args[i]->type;
    ks[i].n = -1;
    if (t->kind != HLX_TYPE_TENSOR) {
      types[i] = (hlx_type_t*)t;
      continue;
    }
    if (args[i].rank != t->rank || args[i].rank > HLX_MAX_RANK) {
      st = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "shape refinement: @%s argument %d has rank %d, "
                           "given rank %d",
                           entry->name, (int)i, (int)t->rank,
                           (int)args[i].rank);
      break;
    }
    types[i] = new_type(ar, t, args[i].rank, args[i].dims);
    if (!types[i]) {
      st = hlx_status_oom();
      break;
    }
    if (args[i].values && int_like(t) && args[i].num_values <= kMaxKnown &&
        args[i].num_values == hlx_type_num_elements(types[i])) {
      int64_t n = args[i].num_values;
      ks[i].n = n;
      ks[i].v = hlx_arena_alloc_array(ar, (size_t)(n ? n : 1), sizeof(int64_t));
      if (!ks[i].v) {
        st = hlx_status_oom();
        break;
      }
      for (int64_t k = 0; k < n; k++)
        ks[i].v[k] = wrap(t->dtype, args[i].values[k]);
    }
  }
  hlx_func_t* used = NULL;
  if (!st) st = refine_func(c, entry, types, ks, NULL, &used);
  free(c);
  return st;
}
