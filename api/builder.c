/* hlx_builder_t: XlaBuilder-style graph building (see api/hlx.h).
 *
 * A builder owns a module with one function whose body block it fills op
 * by op. Shapes are inferred and checked at every call; the first error is
 * latched. hlx_builder_build hands the module to an hlx_program_t (the same
 * handle the parser makes), so the rest of the API cannot tell a built
 * program from a parsed one. Ops are emitted exactly as the parser would
 * produce them from generic-form text (graph/stablehlo/parser.h: attribute
 * names, INT attributes typed `: i64`/`: i32` as rank-0 tensor types,
 * I64_ARRAY with a NULL type, STRUCT fields as untyped I64_ARRAY), so a
 * built program prints and parses back to an equal module.
 *
 * Sub-computations (hlx_computation_t) are modules of their own; ops that
 * take one deep-copy its block into a region of the builder's function, so
 * one computation can serve many ops and builders. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/builder_internal.h"
#include "graph/ir/copy.h"
#include "base/float_formats.h"

/* ---- errors ---------------------------------------------------------------- */
hlx_status_t hlx_bld_copy_status(hlx_status_t s) {
  if (!s) return NULL;
  if (s == hlx_status_oom()) return s;
  return hlx_make_status(hlx_status_code(s), "%s", hlx_status_message(s));
}

/* Latches (if first) and returns a copy for the caller. */
static hlx_status_t latch(hlx_builder_t* b, hlx_status_t s) {
  if (b->no_latch) return s;
  if (!b->err) b->err = s;
  else hlx_status_free(s);
  return hlx_bld_copy_status(b->err);
}

hlx_status_t hlx_bld_fail(hlx_builder_t* b, const char* op, const char* fmt,
                         ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return latch(b, hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "%s: %s", op,
                                  msg));
}

hlx_status_t hlx_bld_oom(hlx_builder_t* b) { return latch(b, hlx_status_oom()); }

/* ---- arena helpers ------------------------------------------------------------ */
void* hlx_bld_balloc(hlx_builder_t* b, size_t n) {
  return hlx_arena_alloc(&b->module->arena, n ? n : 1);
}

hlx_type_t* hlx_bld_tensor_type(hlx_arena_t* a, hlx_dtype_t dt, int32_t rank,
                               const int64_t* dims) {
  hlx_type_t* t = hlx_arena_alloc(a, sizeof(*t));
  if (!t) return NULL;
  t->kind = HLX_TYPE_TENSOR;
  t->dtype = dt;
  t->rank = rank;
  t->dims = hlx_arena_alloc(a, sizeof(int64_t) * (size_t)(rank > 0 ? rank : 1));
  if (!t->dims) return NULL;
  if (rank > 0) memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
  return t;
}

hlx_attr_t* hlx_bld_attr_new(hlx_builder_t* b, hlx_attr_kind_t k) {
  hlx_attr_t* a = hlx_bld_balloc(b, sizeof(*a));
  if (a) a->kind = k;
  return a;
}

/* array<i64: ...> (or, inside a struct, [...]): type NULL as the parser
 * makes it. */
hlx_attr_t* hlx_bld_attr_i64s(hlx_builder_t* b, const int64_t* v, int32_t n) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_I64_ARRAY);
  if (!a) return NULL;
  a->count = n;
  a->ints = hlx_bld_balloc(b, sizeof(int64_t) * (size_t)n);
  if (!a->ints) return NULL;
  if (n > 0) memcpy(a->ints, v, sizeof(int64_t) * (size_t)n);
  return a;
}

/* `v : i64` / `v : i32`: type is a rank-0 tensor type of that dtype. */
hlx_attr_t* hlx_bld_attr_int(hlx_builder_t* b, int64_t v, hlx_dtype_t dt) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_INT);
  if (!a) return NULL;
  a->i = v;
  a->type = hlx_bld_tensor_type(&b->module->arena, dt, 0, NULL);
  return a->type ? a : NULL;
}

hlx_attr_t* hlx_bld_attr_enum(hlx_builder_t* b, const char* kind,
                             const char* value) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_ENUM);
  if (!a) return NULL;
  a->str = kind; /* static strings */
  a->enum_value = value;
  return a;
}

/* ---- values and ops ------------------------------------------------------------ */
static bool grow(void** p, size_t elem, size_t need, size_t* cap) {
  if (need <= *cap) return true;
  size_t nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void* q = realloc(*p, nc * elem);
  if (!q) return false;
  *p = q;
  *cap = nc;
  return true;
}

/* Registers v under a new builder id. */
bool hlx_bld_add_value(hlx_builder_t* b, hlx_value_t* v, uint32_t* id) {
  size_t cap = b->cap_values;
  if (b->num_values >= HLX_BUILDER_NO_VALUE - 1 ||
      !grow((void**)&b->values, sizeof(hlx_value_t*), b->num_values + 1, &cap))
    return false;
  b->cap_values = (uint32_t)cap;
  b->values[b->num_values] = v;
  *id = b->num_values++;
  return true;
}

static hlx_value_t* new_ir_value(hlx_builder_t* b, hlx_type_t* t) {
  if (b->func->num_values == INT32_MAX) return NULL;
  hlx_value_t* v = hlx_bld_balloc(b, sizeof(*v));
  if (!v) return NULL;
  v->type = t;
  v->id = b->func->num_values++;
  return v;
}


/* Appends one op with results of the given types; returns it (NULL = out of
 * memory). Operands must belong to the builder's function. */
hlx_op_t* hlx_bld_emit(hlx_builder_t* b, hlx_opcode_t code,
                      hlx_value_t* const* operands, int32_t nops,
                      hlx_type_t* const* rtypes, int32_t nres,
                      const named_t* attrs, int32_t nattrs) {
  for (int32_t i = 0; i < nattrs; i++)
    if (!attrs[i].value) return NULL; /* an attribute failed to allocate */
  for (int32_t i = 0; i < nres; i++)
    if (!rtypes[i]) return NULL;
  hlx_op_t* op = hlx_bld_balloc(b, sizeof(*op));
  if (!op) return NULL;
  op->code = code;
  op->name = hlx_opcode_name(code);
  op->num_operands = nops;
  op->operands = hlx_bld_balloc(b, sizeof(hlx_value_t*) * (size_t)nops);
  op->num_results = nres;
  op->results = hlx_bld_balloc(b, sizeof(hlx_value_t*) * (size_t)nres);
  op->num_attrs = nattrs;
  op->attrs = hlx_bld_balloc(b, sizeof(hlx_named_attr_t) * (size_t)nattrs);
  if (!op->operands || !op->results || !op->attrs) return NULL;
  for (int32_t i = 0; i < nops; i++) op->operands[i] = operands[i];
  for (int32_t i = 0; i < nattrs; i++) {
    op->attrs[i].name = attrs[i].name;
    op->attrs[i].value = attrs[i].value;
  }
  for (int32_t i = 0; i < nres; i++) {
    hlx_value_t* v = new_ir_value(b, rtypes[i]);
    if (!v) return NULL;
    v->def = op;
    v->index = i;
    op->results[i] = v;
  }
  size_t cap = (size_t)b->cap_ops;
  if (!grow((void**)&b->ops, sizeof(hlx_op_t*), (size_t)b->num_ops + 1, &cap))
    return NULL;
  b->cap_ops = (int32_t)cap;
  b->ops[b->num_ops++] = op;
  op->parent = b->block;
  return op;
}

hlx_status_t hlx_bld_verify_op(hlx_builder_t* b, const hlx_op_t* op) {
  /* The spec's rules as the parser's verifier checks them (graph/ops/), so
   * a built and a parsed program get the same message. Calls are checked
   * when the program is built, once every function exists. */
  hlx_status_t st = hlx_op_verify(op, NULL);
  return st ? latch(b, st) : NULL;
}

hlx_status_t hlx_bld_emit_inferred(hlx_builder_t* b, hlx_opcode_t code,
                                   hlx_value_t* const* operands, int32_t nops,
                                   const named_t* attrs, int32_t nattrs,
                                   uint32_t* out) {
  /* A stand-in of the op to infer from: its operands and attributes. */
  hlx_value_t* no_result = NULL;
  hlx_named_attr_t named[16];
  if (nattrs > 16) return hlx_bld_fail(b, hlx_opcode_name(code), "too many attributes");
  for (int32_t i = 0; i < nattrs; i++) {
    if (!attrs[i].value) return hlx_bld_oom(b);
    named[i].name = attrs[i].name;
    named[i].value = attrs[i].value;
  }
  hlx_op_t probe = {.code = code,
                    .name = hlx_opcode_name(code),
                    .num_operands = nops,
                    .operands = (hlx_value_t**)operands,
                    .num_results = 1,
                    .results = &no_result,
                    .num_attrs = nattrs,
                    .attrs = named};
  hlx_type_t* t = NULL;
  bool inferred;
  hlx_status_t st = hlx_op_infer(&probe, &b->module->arena, &t, &inferred);
  if (st) return latch(b, st);
  if (!inferred)
    return latch(b, hlx_make_status(HLX_STATUS_INTERNAL,
                                    "%s: no result type inference",
                                    hlx_opcode_name(code)));
  return hlx_bld_emit1(b, code, operands, nops, t, attrs, nattrs, NULL, out);
}

/* hlx_bld_emit() for one result, registering it and writing its id. */
hlx_status_t hlx_bld_emit1(hlx_builder_t* b, hlx_opcode_t code,
                          hlx_value_t* const* operands, int32_t nops,
                          hlx_type_t* rtype, const named_t* attrs,
                          int32_t nattrs, hlx_value_t** out_v, uint32_t* out) {
  hlx_op_t* op = hlx_bld_emit(b, code, operands, nops, &rtype, 1, attrs, nattrs);
  if (!op) return hlx_bld_oom(b);
  /* Ops with regions are checked once hlx_bld_attach_regions gave them. */
  if (hlx_opcode_arity(code).min_regions == 0)
    HLX_RETURN_IF_ERROR(hlx_bld_verify_op(b, op));
  uint32_t id;
  if (!hlx_bld_add_value(b, op->results[0], &id)) return hlx_bld_oom(b);
  if (out_v) *out_v = op->results[0];
  if (out) *out = id;
  return NULL;
}

/* Looks up an operand id; `role` names it in errors ("lhs", "operand"). */
hlx_status_t hlx_bld_get_value(hlx_builder_t* b, const char* op,
                              const char* role, uint32_t id,
                              hlx_value_t** v) {
  if (id >= b->num_values)
    return hlx_bld_fail(b, op, "%s: %u is not a value of this builder (it has %u)",
                role, id, b->num_values);
  if (!b->allow_dynamic && hlx_bld_dynamic_sizes(b, id))
    return hlx_bld_fail(b, op, "%s has a dynamic dimension size "
                        "(set_dimension_size); only reduce, "
                        "get_dimension_size and set_dimension_size take "
                        "such values", role);
  *v = b->values[id];
  return NULL;
}

hlx_status_t hlx_bld_get_tensor(hlx_builder_t* b, const char* op,
                               const char* role, uint32_t id,
                               hlx_value_t** v) {
  HLX_RETURN_IF_ERROR(hlx_bld_get_value(b, op, role, id, v));
  if ((*v)->type->kind != HLX_TYPE_TENSOR)
    return hlx_bld_fail(b, op, "%s must be a tensor, not a tuple or token", role);
  return NULL;
}

static const char* dt_name(hlx_dtype_t t) { return hlx_dtype_name(t); }

static void shape_str(const hlx_type_t* t, char* buf, size_t n) {
  size_t o = 0;
  o += (size_t)snprintf(buf + o, n - o, "%s[", dt_name(t->dtype));
  for (int32_t i = 0; i < t->rank && o < n; i++)
    o += (size_t)snprintf(buf + o, n - o, "%s%lld", i ? "," : "",
                          (long long)t->dims[i]);
  if (o < n) snprintf(buf + o, n - o, "]");
}

hlx_status_t hlx_bld_check_element_type(hlx_builder_t* b, const char* op,
                                        hlx_element_type_t t) {
  if (t <= HLX_DTYPE_INVALID || t >= HLX_DTYPE_COUNT)
    return hlx_bld_fail(b, op, "unknown element type %d", (int)t);
  return NULL;
}

hlx_status_t hlx_bld_check_desc(hlx_builder_t* b, const char* op,
                                const hlx_tensor_desc_t* d) {
  if (!d) return hlx_bld_fail(b, op, "NULL shape");
  HLX_RETURN_IF_ERROR(hlx_bld_check_element_type(b, op, d->element_type));
  if (d->rank < 0 || d->rank > HLX_MAX_DIMS)
    return hlx_bld_fail(b, op, "rank %d is out of range 0..%d", (int)d->rank,
                HLX_MAX_DIMS);
  for (int32_t i = 0; i < d->rank; i++)
    if (d->dims[i] < 0)
      return hlx_bld_fail(b, op, "dimension %d has negative size %lld", (int)i,
                  (long long)d->dims[i]);
  return NULL;
}

/* Element count of dims, or -1 if it overflows. */
static int64_t count_of(const int64_t* dims, int32_t rank) {
  int64_t n = 1;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] != 0 && n > INT64_MAX / dims[i]) return -1;
    n *= dims[i];
  }
  return n;
}

/* ---- builder lifecycle ------------------------------------------------------------ */
hlx_status_t hlx_builder_create(const char* name, hlx_builder_t** out_builder) {
  if (!out_builder)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_builder_create: NULL out_builder");
  *out_builder = NULL;
  hlx_builder_t* b = calloc(1, sizeof(*b));
  if (!b) return hlx_status_oom();
  b->module = hlx_module_create();
  if (!b->module) {
    free(b);
    return hlx_status_oom();
  }
  hlx_arena_t* a = &b->module->arena;
  const char* nm = name && name[0] ? name : "main";
  b->func = hlx_arena_alloc(a, sizeof(hlx_func_t));
  hlx_region_t* r = hlx_arena_alloc(a, sizeof(hlx_region_t));
  b->block = hlx_arena_alloc(a, sizeof(hlx_block_t));
  hlx_block_t** blocks = hlx_arena_alloc(a, sizeof(hlx_block_t*));
  char* fname = hlx_arena_strndup(a, nm, strlen(nm));
  if (!b->func || !r || !b->block || !blocks || !fname) {
    hlx_builder_destroy(b);
    return hlx_status_oom();
  }
  blocks[0] = b->block;
  r->num_blocks = 1;
  r->blocks = blocks;
  b->block->parent = r;
  b->func->name = fname;
  b->func->is_public = true;
  b->func->body = r;
  *out_builder = b;
  return NULL;
}

void hlx_builder_options_init(hlx_builder_options_t* o) {
  if (!o) return;
  memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
  o->latch_errors = true;
}

hlx_status_t hlx_builder_create_with_options(
    const hlx_builder_options_t* options, hlx_builder_t** out_builder) {
  hlx_builder_options_t o;
  hlx_builder_options_init(&o);
  if (options) {
    /* Older callers pass a shorter struct: read only what they set. */
    if (options->struct_size < offsetof(hlx_builder_options_t, name) +
                                   sizeof(o.name) ||
        options->struct_size > sizeof(o)) {
      if (out_builder) *out_builder = NULL;
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "hlx_builder_create_with_options: struct_size "
                             "%zu is not that of hlx_builder_options_t "
                             "(call hlx_builder_options_init)",
                             options->struct_size);
    }
    memcpy(&o, options, options->struct_size);
  }
  HLX_RETURN_IF_ERROR(hlx_builder_create(o.name, out_builder));
  (*out_builder)->no_latch = !o.latch_errors;
  return NULL;
}

void hlx_builder_destroy(hlx_builder_t* b) {
  if (!b) return;
  hlx_module_destroy(b->module);
  free(b->ops);
  free(b->values);
  free(b->params);
  free(b->dynamic);
  hlx_status_free(b->err);
  free(b);
}

hlx_status_t hlx_builder_first_error(const hlx_builder_t* b) {
  return b ? hlx_bld_copy_status(b->err) : NULL;
}

void hlx_bld_desc_of(const hlx_type_t* t, hlx_tensor_desc_t* d) {
  memset(d, 0, sizeof(*d));
  d->element_type = (hlx_element_type_t)t->dtype;
  d->rank = t->rank;
  for (int32_t i = 0; i < t->rank && i < HLX_MAX_DIMS; i++) d->dims[i] = t->dims[i];
}

hlx_status_t hlx_builder_get_desc(const hlx_builder_t* b, uint32_t value,
                                  hlx_tensor_desc_t* out_desc) {
  if (!b || !out_desc)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_builder_get_desc: NULL argument");
  memset(out_desc, 0, sizeof(*out_desc));
  if (b->spent || value >= b->num_values)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_builder_get_desc: %u is not a value of this "
                           "builder", value);
  const hlx_type_t* t = b->values[value]->type;
  if (t->kind != HLX_TYPE_TENSOR)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_builder_get_desc: value %u is not a tensor",
                           value);
  hlx_bld_desc_of(t, out_desc);
  return NULL;
}

/* Checks the parameters and roots, then closes the function: arguments in
 * index order, ops array, terminator `term` returning the roots. */
static hlx_status_t finish(hlx_builder_t* b, const char* what,
                           const uint32_t* roots, int32_t num_roots,
                           hlx_opcode_t term) {
  if (b->spent)
    return hlx_make_status(HLX_STATUS_FAILED_PRECONDITION,
                           "%s: the builder was already built", what);
  if (b->err) return hlx_bld_copy_status(b->err);
  if (num_roots < 1 || !roots)
    return hlx_bld_fail(b, what, "at least one root value is needed");
  hlx_value_t** rv = hlx_bld_balloc(b, sizeof(hlx_value_t*) * (size_t)num_roots);
  hlx_type_t** rt = hlx_bld_balloc(b, sizeof(hlx_type_t*) * (size_t)num_roots);
  if (!rv || !rt) return hlx_bld_oom(b);
  for (int32_t i = 0; i < num_roots; i++) {
    char role[32];
    snprintf(role, sizeof role, "root %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_value(b, what, role, roots[i], &rv[i]));
    rt[i] = rv[i]->type;
  }
  int32_t nparams = 0;
  for (int32_t i = 0; i < b->cap_params; i++)
    if (b->params[i]) nparams = i + 1;
  for (int32_t i = 0; i < nparams; i++)
    if (!b->params[i])
      return hlx_bld_fail(b, what,
                  "parameter %d is missing (parameters must be numbered "
                  "0..%d without gaps)",
                  (int)i, (int)nparams - 1);
  hlx_block_t* blk = b->block;
  blk->args = hlx_bld_balloc(b, sizeof(hlx_value_t*) * (size_t)nparams);
  hlx_func_t* f = b->func;
  f->arg_attrs = hlx_bld_balloc(b, sizeof(hlx_named_attr_t*) * (size_t)nparams);
  f->num_arg_attrs = hlx_bld_balloc(b, sizeof(int32_t) * (size_t)nparams);
  f->result_attrs = hlx_bld_balloc(b, sizeof(hlx_named_attr_t*) * (size_t)num_roots);
  f->num_result_attrs = hlx_bld_balloc(b, sizeof(int32_t) * (size_t)num_roots);
  if (!blk->args || !f->arg_attrs || !f->num_arg_attrs || !f->result_attrs ||
      !f->num_result_attrs)
    return hlx_bld_oom(b);
  for (int32_t i = 0; i < nparams; i++) {
    blk->args[i] = b->params[i];
    b->params[i]->index = i;
  }
  hlx_op_t* ret = hlx_bld_emit(b, term, rv, num_roots, NULL, 0, NULL, 0);
  if (!ret) return hlx_bld_oom(b);
  hlx_op_t** ops = hlx_bld_balloc(b, sizeof(hlx_op_t*) * (size_t)b->num_ops);
  if (!ops) {
    b->num_ops--; /* drop the terminator again */
    return hlx_bld_oom(b);
  }
  memcpy(ops, b->ops, sizeof(hlx_op_t*) * (size_t)b->num_ops);
  blk->num_args = nparams;
  blk->ops = ops;
  blk->num_ops = b->num_ops;
  f->num_args = nparams;
  f->num_results = num_roots;
  f->result_types = rt;
  return NULL;
}

static hlx_status_t attach_func(hlx_builder_t* b) {
  hlx_module_t* m = b->module;
  m->funcs = hlx_bld_balloc(b, sizeof(hlx_func_t*));
  if (!m->funcs) return hlx_status_oom();
  m->funcs[0] = b->func;
  m->num_funcs = 1;
  return NULL;
}

hlx_status_t hlx_builder_build(hlx_builder_t* b, const uint32_t* roots,
                               int32_t num_roots, hlx_program_t** out_program) {
  if (out_program) *out_program = NULL;
  if (!b || !out_program)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_builder_build: NULL argument");
  hlx_program_t* p = calloc(1, sizeof(*p));
  if (!p) return hlx_status_oom();
  hlx_status_t st = finish(b, "build", roots, num_roots, HLX_OP_FUNC_RETURN);
  if (!st) st = attach_func(b);
  if (!st) st = hlx_verify_module(b->module);
  if (st) {
    free(p);
    return st;
  }
  p->module = b->module;
  b->module = NULL;
  b->spent = true;
  *out_program = p;
  return NULL;
}

hlx_status_t hlx_builder_build_computation(
    hlx_builder_t* b, const uint32_t* roots, int32_t num_roots,
    hlx_computation_t** out_computation) {
  if (out_computation) *out_computation = NULL;
  if (!b || !out_computation)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_builder_build_computation: NULL argument");
  hlx_computation_t* c = calloc(1, sizeof(*c));
  if (!c) return hlx_status_oom();
  hlx_status_t st =
      finish(b, "build_computation", roots, num_roots, HLX_OP_FUNC_RETURN);
  if (!st) st = attach_func(b);
  if (st) {
    free(c);
    return st;
  }
  c->module = b->module;
  c->func = b->func;
  b->module = NULL;
  b->spent = true;
  *out_computation = c;
  return NULL;
}

void hlx_computation_destroy(hlx_computation_t* c) {
  if (!c) return;
  hlx_module_destroy(c->module);
  free(c);
}

/* ---- a computation copied into a region ---------------------------------------- */

/* A copy of the computation's body as a region of a new op's (the one deep
 * copy, graph/ir/copy.h: new value ids in the builder's function, types
 * and attributes copied into its module). With outer_args, the region
 * takes no arguments: uses of the computation's parameter i become uses
 * of outer_args[i] (if/case branches capture). */
static hlx_region_t* clone_region(hlx_builder_t* b,
                                  const hlx_computation_t* comp,
                                  hlx_value_t* const* outer_args) {
  hlx_ir_copier_t c;
  if (!hlx_ir_copier_init(&c, &b->module->arena, b->func,
                          comp->func->num_values))
    return NULL;
  c.func_return_to_return = true;
  hlx_region_t* r = hlx_arena_alloc(c.arena, sizeof(*r));
  hlx_block_t** blocks = hlx_arena_alloc(c.arena, sizeof(hlx_block_t*));
  const hlx_block_t* src = comp->func->body->blocks[0];
  if (r && blocks) {
    memset(r, 0, sizeof *r);
    r->num_blocks = 1;
    r->blocks = blocks;
    if (outer_args)
      for (int32_t i = 0; i < src->num_args; i++)
        hlx_ir_copier_map(&c, src->args[i], outer_args[i]);
    blocks[0] = hlx_ir_copy_block(&c, src, r, outer_args != NULL);
  }
  bool ok = r && blocks && blocks[0] && !c.failed;
  hlx_ir_copier_release(&c);
  return ok ? r : NULL;
}

hlx_region_t* hlx_bld_clone_computation(hlx_builder_t* b,
                                        const hlx_computation_t* comp) {
  return clone_region(b, comp, NULL);
}

hlx_region_t* hlx_bld_clone_computation_captured(
    hlx_builder_t* b, const hlx_computation_t* comp,
    hlx_value_t* const* outer_args) {
  return clone_region(b, comp, outer_args);
}

hlx_status_t hlx_bld_attach_regions(hlx_builder_t* b, hlx_op_t* op,
                                    const hlx_computation_t* const* comps,
                                    hlx_value_t* const* const* captured,
                                    int32_t n) {
  op->regions = hlx_bld_balloc(b, sizeof(hlx_region_t*) * (size_t)n);
  if (!op->regions) return hlx_bld_oom(b);
  for (int32_t i = 0; i < n; i++) {
    hlx_region_t* r = clone_region(b, comps[i], captured ? captured[i] : NULL);
    if (!r) return hlx_bld_oom(b);
    r->parent = op;
    op->regions[i] = r;
  }
  op->num_regions = n;
  return hlx_bld_verify_op(b, op);
}

/* dense<...> : tensor<rows x cols x i64> (cols < 0: rank 1 of rows). */
hlx_attr_t* hlx_bld_attr_dense_i64(hlx_builder_t* b, const int64_t* v,
                                   int64_t rows, int64_t cols) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_DENSE);
  if (!a) return NULL;
  int64_t dims[2] = {rows, cols};
  a->type = hlx_bld_tensor_type(&b->module->arena, HLX_DTYPE_S64,
                                cols < 0 ? 1 : 2, dims);
  int64_t n = rows * (cols < 0 ? 1 : cols);
  a->dense_bytes = sizeof(int64_t) * (size_t)n;
  a->dense = hlx_bld_balloc(b, a->dense_bytes);
  if (!a->type || !a->dense) return NULL;
  if (n > 0) memcpy(a->dense, v, a->dense_bytes);
  return a;
}

hlx_attr_t* hlx_bld_attr_bool(hlx_builder_t* b, bool v) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_BOOL);
  if (a) a->b = v;
  return a;
}

hlx_attr_t* hlx_bld_attr_string(hlx_builder_t* b, const char* str) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_STRING);
  if (!a) return NULL;
  a->len = str ? strlen(str) : 0;
  a->str = hlx_arena_strndup(&b->module->arena, str ? str : "", a->len);
  return a->str ? a : NULL;
}

hlx_status_t hlx_bld_register_results(hlx_builder_t* b, hlx_op_t* op,
                                      uint32_t* ids) {
  for (int32_t i = 0; i < op->num_results; i++)
    if (!hlx_bld_add_value(b, op->results[i], &ids[i])) return hlx_bld_oom(b);
  return NULL;
}

/* ---- parameters and constants ------------------------------------------------------ */
hlx_status_t hlx_builder_parameter(hlx_builder_t* b, int32_t index,
                                   const hlx_tensor_desc_t* desc,
                                   const char* name, uint32_t* out_value) {
  static const char kOp[] = "parameter";
  BEGIN(b, out_value, kOp);
  HLX_RETURN_IF_ERROR(hlx_bld_check_desc(b, kOp, desc));
  if (index < 0 || index > (1 << 20))
    return hlx_bld_fail(b, kOp, "index %d is out of range", (int)index);
  if (index < b->cap_params && b->params[index])
    return hlx_bld_fail(b, kOp, "index %d is declared twice", (int)index);
  if (index >= b->cap_params) {
    size_t nc = (size_t)index + 8;
    hlx_value_t** p = realloc(b->params, nc * sizeof(*p));
    if (!p) return hlx_bld_oom(b);
    for (size_t i = (size_t)b->cap_params; i < nc; i++) p[i] = NULL;
    b->params = p;
    b->cap_params = (int32_t)nc;
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena,
                              (hlx_dtype_t)desc->element_type, desc->rank,
                              desc->dims);
  hlx_value_t* v = t ? new_ir_value(b, t) : NULL;
  if (!v) return hlx_bld_oom(b);
  v->block = b->block;
  v->index = index;
  if (name && name[0]) {
    v->name = hlx_arena_strndup(&b->module->arena, name, strlen(name));
    if (!v->name) return hlx_bld_oom(b);
  }
  uint32_t id;
  if (!hlx_bld_add_value(b, v, &id)) return hlx_bld_oom(b);
  b->params[index] = v;
  *out_value = id;
  return NULL;
}

static hlx_status_t constant_bytes(hlx_builder_t* b, const char* op,
                                   const hlx_tensor_desc_t* desc,
                                   const void* data, uint32_t* out_value) {
  HLX_RETURN_IF_ERROR(hlx_bld_check_desc(b, op, desc));
  hlx_dtype_t dt = (hlx_dtype_t)desc->element_type;
  int64_t n = count_of(desc->dims, desc->rank);
  size_t esz = hlx_dtype_size(dt);
  if (n < 0 || (uint64_t)n > ((uint64_t)1 << 40) / esz)
    return hlx_bld_fail(b, op, "the constant has too many elements");
  size_t bytes = (size_t)n * esz;
  if (bytes > 0 && !data) return hlx_bld_fail(b, op, "data is NULL for %lld elements",
                                      (long long)n);
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, dt, desc->rank, desc->dims);
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_DENSE);
  if (!t || !a) return hlx_bld_oom(b);
  a->type = t;
  a->dense_bytes = bytes;
  a->dense = hlx_bld_balloc(b, bytes);
  if (!a->dense) return hlx_bld_oom(b);
  if (bytes) memcpy(a->dense, data, bytes);
  if (dt == HLX_DTYPE_PRED) /* one byte per element, 0 or 1 */
    for (size_t i = 0; i < bytes; i++)
      ((uint8_t*)a->dense)[i] = ((uint8_t*)a->dense)[i] != 0;
  named_t attrs[] = {{"value", a}};
  return hlx_bld_emit1(b, HLX_OP_CONSTANT, NULL, 0, t, attrs, 1, NULL, out_value);
}

hlx_status_t hlx_builder_constant(hlx_builder_t* b,
                                  const hlx_tensor_desc_t* desc,
                                  const void* data, uint32_t* out_value) {
  BEGIN(b, out_value, "constant");
  return constant_bytes(b, "constant", desc, data, out_value);
}

/* Writes v converted to dt at p (hlx_dtype_size(dt) bytes). */
static bool scalar_from_double(hlx_dtype_t dt, double v, void* p) {
  switch (dt) {
#define INT_CASE(T, ct)   \
  case T: {               \
    ct x = (ct)v;         \
    memcpy(p, &x, sizeof x); \
    return true;          \
  }
    INT_CASE(HLX_DTYPE_S8, int8_t)
    INT_CASE(HLX_DTYPE_S16, int16_t)
    INT_CASE(HLX_DTYPE_S32, int32_t)
    INT_CASE(HLX_DTYPE_S64, int64_t)
    INT_CASE(HLX_DTYPE_U8, uint8_t)
    INT_CASE(HLX_DTYPE_U16, uint16_t)
    INT_CASE(HLX_DTYPE_U32, uint32_t)
    INT_CASE(HLX_DTYPE_U64, uint64_t)
    INT_CASE(HLX_DTYPE_S2, int8_t)
    INT_CASE(HLX_DTYPE_S4, int8_t)
    INT_CASE(HLX_DTYPE_U2, uint8_t)
    INT_CASE(HLX_DTYPE_U4, uint8_t)
    INT_CASE(HLX_DTYPE_F32, float)
    INT_CASE(HLX_DTYPE_F64, double)
#undef INT_CASE
    case HLX_DTYPE_PRED:
      *(uint8_t*)p = v != 0;
      return true;
    case HLX_DTYPE_F16: {
      uint16_t h = hlx_f64_to_f16(v);
      memcpy(p, &h, 2);
      return true;
    }
    case HLX_DTYPE_BF16: {
      uint16_t h = hlx_f64_to_bf16(v);
      memcpy(p, &h, 2);
      return true;
    }
    case HLX_DTYPE_C64: {
      float x[2] = {(float)v, 0};
      memcpy(p, x, sizeof x);
      return true;
    }
    case HLX_DTYPE_C128: {
      double x[2] = {v, 0};
      memcpy(p, x, sizeof x);
      return true;
    }
    default:
      if (hlx_dtype_is_small_float(dt)) {
        *(uint8_t*)p = (uint8_t)hlx_f64_to_small_float(dt, v);
        return true;
      }
      return false;
  }
}

hlx_status_t hlx_builder_constant_scalar(hlx_builder_t* b,
                                         hlx_element_type_t t, double value,
                                         uint32_t* out_value) {
  static const char kOp[] = "constant_scalar";
  BEGIN(b, out_value, kOp);
  unsigned char bytes[16] = {0};
  if (t <= HLX_DTYPE_INVALID || t >= HLX_DTYPE_COUNT ||
      !scalar_from_double((hlx_dtype_t)t, value, bytes))
    return hlx_bld_fail(b, kOp, "unknown element type %d", (int)t);
  hlx_tensor_desc_t d = {0};
  d.element_type = t;
  return constant_bytes(b, kOp, &d, bytes, out_value);
}

/* ---- elementwise ---------------------------------------------------------------------- */
enum { K_PRED = 1, K_SINT = 2, K_UINT = 4, K_FLOAT = 8, K_COMPLEX = 16 };
#define K_INT (K_SINT | K_UINT)
#define K_ANY (K_PRED | K_INT | K_FLOAT | K_COMPLEX)

static int kind_of(hlx_dtype_t t) {
  if (hlx_dtype_is_pred(t)) return K_PRED;
  if (hlx_dtype_is_signed_int(t)) return K_SINT;
  if (hlx_dtype_is_unsigned_int(t)) return K_UINT;
  if (hlx_dtype_is_complex(t)) return K_COMPLEX;
  return K_FLOAT;
}

static const char* kinds_text(int k) {
  switch (k) {
    case K_FLOAT | K_COMPLEX: return "a float or complex type";
    case K_FLOAT: return "a float type";
    case K_PRED | K_INT: return "pred or an integer type";
    case K_INT: return "an integer type";
    case K_SINT | K_FLOAT | K_COMPLEX: return "a signed integer, float or complex type";
    case K_INT | K_FLOAT | K_COMPLEX: return "an integer, float or complex type";
    default: return "another element type";
  }
}

typedef struct unary_info_t {
  hlx_opcode_t code;
  const char* name;
  int kinds;
} unary_info_t;

static const unary_info_t kUnary[] = {
    [HLX_UNARY_ABS] = {HLX_OP_ABS, "abs", K_SINT | K_FLOAT | K_COMPLEX},
    [HLX_UNARY_CEIL] = {HLX_OP_CEIL, "ceil", K_FLOAT},
    [HLX_UNARY_COS] = {HLX_OP_COSINE, "cosine", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_EXP] = {HLX_OP_EXPONENTIAL, "exponential", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_EXPM1] = {HLX_OP_EXPONENTIAL_MINUS_ONE, "exponential_minus_one",
                         K_FLOAT | K_COMPLEX},
    [HLX_UNARY_FLOOR] = {HLX_OP_FLOOR, "floor", K_FLOAT},
    [HLX_UNARY_IMAG] = {HLX_OP_IMAG, "imag", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_IS_FINITE] = {HLX_OP_IS_FINITE, "is_finite", K_FLOAT},
    [HLX_UNARY_LOG] = {HLX_OP_LOG, "log", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_LOG1P] = {HLX_OP_LOG_PLUS_ONE, "log_plus_one", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_LOGISTIC] = {HLX_OP_LOGISTIC, "logistic", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_NOT] = {HLX_OP_NOT, "not", K_PRED | K_INT},
    [HLX_UNARY_POPCNT] = {HLX_OP_POPCNT, "popcnt", K_INT},
    [HLX_UNARY_NEG] = {HLX_OP_NEGATE, "negate", K_INT | K_FLOAT | K_COMPLEX},
    [HLX_UNARY_REAL] = {HLX_OP_REAL, "real", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_RSQRT] = {HLX_OP_RSQRT, "rsqrt", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_SIGN] = {HLX_OP_SIGN, "sign", K_SINT | K_FLOAT | K_COMPLEX},
    [HLX_UNARY_SIN] = {HLX_OP_SINE, "sine", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_SQRT] = {HLX_OP_SQRT, "sqrt", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_CBRT] = {HLX_OP_CBRT, "cbrt", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_TAN] = {HLX_OP_TAN, "tan", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_TANH] = {HLX_OP_TANH, "tanh", K_FLOAT | K_COMPLEX},
    [HLX_UNARY_ROUND] = {HLX_OP_ROUND_NEAREST_AFZ, "round_nearest_afz", K_FLOAT},
    [HLX_UNARY_ROUND_NEAREST_EVEN] = {HLX_OP_ROUND_NEAREST_EVEN,
                                      "round_nearest_even", K_FLOAT},
    [HLX_UNARY_CLZ] = {HLX_OP_COUNT_LEADING_ZEROS, "count_leading_zeros", K_INT},
};

hlx_status_t hlx_builder_unary(hlx_builder_t* b, hlx_unary_op_t op,
                               uint32_t operand, uint32_t* out_value) {
  BEGIN(b, out_value, "unary");
  if ((int)op < 0 || (size_t)op >= sizeof kUnary / sizeof kUnary[0] ||
      !kUnary[op].name)
    return hlx_bld_fail(b, "unary", "unknown unary op %d", (int)op);
  const unary_info_t* u = &kUnary[op];
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, u->name, "operand", operand, &x));
  hlx_dtype_t dt = x->type->dtype;
  if (!(kind_of(dt) & u->kinds))
    return hlx_bld_fail(b, u->name, "operand element type %s is not %s", dt_name(dt),
                kinds_text(u->kinds));
  hlx_dtype_t rdt = dt;
  if (op == HLX_UNARY_IS_FINITE) rdt = HLX_DTYPE_PRED;
  if (op == HLX_UNARY_REAL || op == HLX_UNARY_IMAG ||
      (op == HLX_UNARY_ABS && hlx_dtype_is_complex(dt)))
    rdt = hlx_dtype_complex_part(dt);
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, rdt, x->type->rank, x->type->dims);
  if (!t) return hlx_bld_oom(b);
  return hlx_bld_emit1(b, u->code, &x, 1, t, NULL, 0, NULL, out_value);
}

typedef struct binary_info_t {
  hlx_opcode_t code;
  const char* name;
  int kinds;
} binary_info_t;

static const binary_info_t kBinary[] = {
    [HLX_BINARY_ADD] = {HLX_OP_ADD, "add", K_ANY},
    [HLX_BINARY_SUB] = {HLX_OP_SUBTRACT, "subtract", K_INT | K_FLOAT | K_COMPLEX},
    [HLX_BINARY_MUL] = {HLX_OP_MULTIPLY, "multiply", K_ANY},
    [HLX_BINARY_DIV] = {HLX_OP_DIVIDE, "divide", K_INT | K_FLOAT | K_COMPLEX},
    [HLX_BINARY_REM] = {HLX_OP_REMAINDER, "remainder", K_INT | K_FLOAT | K_COMPLEX},
    [HLX_BINARY_MAX] = {HLX_OP_MAXIMUM, "maximum", K_ANY},
    [HLX_BINARY_MIN] = {HLX_OP_MINIMUM, "minimum", K_ANY},
    [HLX_BINARY_POW] = {HLX_OP_POWER, "power", K_INT | K_FLOAT | K_COMPLEX},
    [HLX_BINARY_ATAN2] = {HLX_OP_ATAN2, "atan2", K_FLOAT | K_COMPLEX},
    [HLX_BINARY_AND] = {HLX_OP_AND, "and", K_PRED | K_INT},
    [HLX_BINARY_OR] = {HLX_OP_OR, "or", K_PRED | K_INT},
    [HLX_BINARY_XOR] = {HLX_OP_XOR, "xor", K_PRED | K_INT},
    [HLX_BINARY_SHIFT_LEFT] = {HLX_OP_SHIFT_LEFT, "shift_left", K_INT},
    [HLX_BINARY_SHIFT_RIGHT_ARITHMETIC] = {HLX_OP_SHIFT_RIGHT_ARITHMETIC,
                                           "shift_right_arithmetic", K_INT},
    [HLX_BINARY_SHIFT_RIGHT_LOGICAL] = {HLX_OP_SHIFT_RIGHT_LOGICAL,
                                        "shift_right_logical", K_INT},
    [HLX_BINARY_COMPLEX] = {HLX_OP_COMPLEX, "complex", K_FLOAT},
};

/* Emits broadcast_in_dim(v) to dims (rank) with v's element type; used for
 * XLA's implicit broadcasts. */
static hlx_status_t emit_bcast(hlx_builder_t* b, hlx_value_t* v,
                               const int64_t* dims, int32_t rank,
                               const int64_t* map, hlx_value_t** out) {
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, v->type->dtype, rank, dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"broadcast_dimensions", hlx_bld_attr_i64s(b, map, v->type->rank)}};
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_BROADCAST_IN_DIM, &v, 1, &t, 1, attrs, 1);
  if (!op) return hlx_bld_oom(b);
  *out = op->results[0];
  return NULL;
}

/* XLA's broadcasting for binary elementwise ops (seed 000 "Element-wise
 * binary arithmetic operations" and the broadcasting page). On success *l
 * and *r are replaced by values of the common shape (res_dims, *res_rank). */
static hlx_status_t broadcast_pair(hlx_builder_t* b, const char* op,
                                   hlx_value_t** l, hlx_value_t** r,
                                   const int64_t* bd, int32_t nbd,
                                   int64_t* res_dims, int32_t* res_rank) {
  const hlx_type_t* lt = (*l)->type;
  const hlx_type_t* rt = (*r)->type;
  int64_t lmap[HLX_MAX_RANK], rmap[HLX_MAX_RANK];
  if (nbd < 0 || (nbd > 0 && !bd))
    return hlx_bld_fail(b, op, "broadcast_dimensions: bad count %d", (int)nbd);
  if (lt->rank == rt->rank) {
    for (int32_t i = 0; i < nbd; i++)
      if (nbd != lt->rank || bd[i] != i)
        return hlx_bld_fail(b, op,
                    "broadcast_dimensions must be empty or the identity for "
                    "operands of equal rank %d",
                    (int)lt->rank);
    *res_rank = lt->rank;
    for (int32_t i = 0; i < lt->rank; i++) {
      int64_t x = lt->dims[i], y = rt->dims[i];
      if (x != y && x != 1 && y != 1)
        return hlx_bld_fail(b, op,
                    "dimension %d: lhs has size %lld, rhs has size %lld (sizes "
                    "must match or one must be 1)",
                    (int)i, (long long)x, (long long)y);
      res_dims[i] = x == 1 ? y : x;
      lmap[i] = rmap[i] = i;
    }
  } else {
    bool lhs_small = lt->rank < rt->rank;
    const hlx_type_t* st = lhs_small ? lt : rt;
    const hlx_type_t* bt = lhs_small ? rt : lt;
    int64_t* smap = lhs_small ? lmap : rmap;
    int64_t* bmap = lhs_small ? rmap : lmap;
    const char* sname = lhs_small ? "lhs" : "rhs";
    *res_rank = bt->rank;
    for (int32_t i = 0; i < bt->rank; i++) {
      res_dims[i] = bt->dims[i];
      bmap[i] = i;
    }
    if (st->rank > 0 || nbd > 0) {
      if (nbd == 0)
        return hlx_bld_fail(b, op,
                    "operands of different ranks (lhs %d, rhs %d) need "
                    "broadcast_dimensions unless one is a scalar",
                    (int)lt->rank, (int)rt->rank);
      if (nbd != st->rank)
        return hlx_bld_fail(b, op,
                    "broadcast_dimensions has %d entries, the lower-rank "
                    "operand (%s) has rank %d",
                    (int)nbd, sname, (int)st->rank);
      for (int32_t i = 0; i < nbd; i++) {
        if (bd[i] < 0 || bd[i] >= bt->rank)
          return hlx_bld_fail(b, op,
                      "broadcast_dimensions[%d] = %lld is out of range for "
                      "rank %d",
                      (int)i, (long long)bd[i], (int)bt->rank);
        if (i > 0 && bd[i] <= bd[i - 1])
          return hlx_bld_fail(b, op, "broadcast_dimensions must be strictly increasing");
      }
      for (int32_t i = 0; i < nbd; i++) {
        int64_t x = st->dims[i], y = bt->dims[bd[i]];
        if (x != y && x != 1 && y != 1)
          return hlx_bld_fail(b, op,
                      "%s dimension %d has size %lld, mapped to dimension %lld "
                      "of size %lld (sizes must match or one must be 1)",
                      sname, (int)i, (long long)x, (long long)bd[i],
                      (long long)y);
        if (y == 1) res_dims[bd[i]] = x;
        smap[i] = bd[i];
      }
    }
  }
  hlx_value_t** vs[2] = {l, r};
  const int64_t* maps[2] = {lmap, rmap};
  for (int k = 0; k < 2; k++) {
    const hlx_type_t* t = (*vs[k])->type;
    bool same = t->rank == *res_rank;
    for (int32_t i = 0; same && i < t->rank; i++) same = t->dims[i] == res_dims[i];
    if (!same)
      HLX_RETURN_IF_ERROR(emit_bcast(b, *vs[k], res_dims, *res_rank, maps[k], vs[k]));
  }
  return NULL;
}

hlx_status_t hlx_builder_binary(hlx_builder_t* b, hlx_binary_op_t op,
                                uint32_t lhs, uint32_t rhs,
                                const int64_t* broadcast_dimensions,
                                int32_t num_broadcast_dims,
                                uint32_t* out_value) {
  BEGIN(b, out_value, "binary");
  if ((int)op < 0 || (size_t)op >= sizeof kBinary / sizeof kBinary[0] ||
      !kBinary[op].name)
    return hlx_bld_fail(b, "binary", "unknown binary op %d", (int)op);
  const binary_info_t* bi = &kBinary[op];
  hlx_value_t *l = NULL, *r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, bi->name, "lhs", lhs, &l));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, bi->name, "rhs", rhs, &r));
  hlx_dtype_t dt = l->type->dtype;
  if (dt != r->type->dtype)
    return hlx_bld_fail(b, bi->name, "element types differ: lhs %s, rhs %s",
                dt_name(dt), dt_name(r->type->dtype));
  if (!(kind_of(dt) & bi->kinds) ||
      (op == HLX_BINARY_COMPLEX && dt != HLX_DTYPE_F32 && dt != HLX_DTYPE_F64))
    return hlx_bld_fail(b, bi->name, "element type %s is not %s", dt_name(dt),
                op == HLX_BINARY_COMPLEX ? "f32 or f64" : kinds_text(bi->kinds));
  int64_t dims[HLX_MAX_RANK];
  int32_t rank;
  HLX_RETURN_IF_ERROR(broadcast_pair(b, bi->name, &l, &r, broadcast_dimensions,
                                     num_broadcast_dims, dims, &rank));
  hlx_dtype_t rdt = op == HLX_BINARY_COMPLEX
                        ? (dt == HLX_DTYPE_F32 ? HLX_DTYPE_C64 : HLX_DTYPE_C128)
                        : dt;
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, rdt, rank, dims);
  if (!t) return hlx_bld_oom(b);
  hlx_value_t* ops[2] = {l, r};
  return hlx_bld_emit1(b, bi->code, ops, 2, t, NULL, 0, NULL, out_value);
}

hlx_status_t hlx_builder_compare(hlx_builder_t* b,
                                 hlx_comparison_direction_t direction,
                                 uint32_t lhs, uint32_t rhs,
                                 const int64_t* broadcast_dimensions,
                                 int32_t num_broadcast_dims,
                                 uint32_t* out_value) {
  static const char kOp[] = "compare";
  static const char* const kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  BEGIN(b, out_value, kOp);
  if ((int)direction < 0 || (int)direction > 5)
    return hlx_bld_fail(b, kOp, "unknown comparison direction %d", (int)direction);
  hlx_value_t *l = NULL, *r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "lhs", lhs, &l));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "rhs", rhs, &r));
  hlx_dtype_t dt = l->type->dtype;
  if (dt != r->type->dtype)
    return hlx_bld_fail(b, kOp, "element types differ: lhs %s, rhs %s", dt_name(dt),
                dt_name(r->type->dtype));
  int64_t dims[HLX_MAX_RANK];
  int32_t rank;
  HLX_RETURN_IF_ERROR(broadcast_pair(b, kOp, &l, &r, broadcast_dimensions,
                                     num_broadcast_dims, dims, &rank));
  int k = kind_of(dt);
  const char* ctype = k == K_SINT ? "SIGNED"
                      : (k == K_UINT || k == K_PRED) ? "UNSIGNED"
                                                     : "FLOAT";
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, HLX_DTYPE_PRED, rank, dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {
      {"comparison_direction", hlx_bld_attr_enum(b, "comparison_direction", kDirs[direction])},
      {"compare_type", hlx_bld_attr_enum(b, "comparison_type", ctype)}};
  hlx_value_t* ops[2] = {l, r};
  return hlx_bld_emit1(b, HLX_OP_COMPARE, ops, 2, t, attrs, 2, NULL, out_value);
}

bool hlx_bld_same_dims(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

hlx_status_t hlx_builder_select(hlx_builder_t* b, uint32_t pred,
                                uint32_t on_true, uint32_t on_false,
                                uint32_t* out_value) {
  static const char kOp[] = "select";
  BEGIN(b, out_value, kOp);
  hlx_value_t *p = NULL, *t = NULL, *f = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "pred", pred, &p));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "on_true", on_true, &t));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "on_false", on_false, &f));
  if (p->type->dtype != HLX_DTYPE_PRED)
    return hlx_bld_fail(b, kOp, "pred must have element type i1, not %s",
                dt_name(p->type->dtype));
  if (!hlx_type_equal(t->type, f->type)) {
    char x[128], y[128];
    shape_str(t->type, x, sizeof x);
    shape_str(f->type, y, sizeof y);
    return hlx_bld_fail(b, kOp, "on_true %s and on_false %s must have the same type", x, y);
  }
  if (p->type->rank != 0 && !hlx_bld_same_dims(p->type, t->type))
    return hlx_bld_fail(b, kOp, "pred must be rank 0 or have on_true's shape");
  hlx_value_t* ops[3] = {p, t, f};
  return hlx_bld_emit1(b, HLX_OP_SELECT, ops, 3, t->type, NULL, 0, NULL, out_value);
}

hlx_status_t hlx_builder_clamp(hlx_builder_t* b, uint32_t min,
                               uint32_t operand, uint32_t max,
                               uint32_t* out_value) {
  static const char kOp[] = "clamp";
  BEGIN(b, out_value, kOp);
  hlx_value_t *lo = NULL, *x = NULL, *hi = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "min", min, &lo));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "max", max, &hi));
  hlx_value_t* bounds[2] = {lo, hi};
  const char* names[2] = {"min", "max"};
  for (int k = 0; k < 2; k++) {
    if (bounds[k]->type->dtype != x->type->dtype)
      return hlx_bld_fail(b, kOp, "%s element type %s differs from operand's %s", names[k],
                  dt_name(bounds[k]->type->dtype), dt_name(x->type->dtype));
    if (bounds[k]->type->rank != 0 && !hlx_bld_same_dims(bounds[k]->type, x->type))
      return hlx_bld_fail(b, kOp, "%s must be rank 0 or have the operand's shape", names[k]);
  }
  hlx_value_t* ops[3] = {lo, x, hi};
  return hlx_bld_emit1(b, HLX_OP_CLAMP, ops, 3, x->type, NULL, 0, NULL, out_value);
}

hlx_status_t hlx_builder_convert(hlx_builder_t* b, uint32_t operand,
                                 hlx_element_type_t new_type,
                                 uint32_t* out_value) {
  static const char kOp[] = "convert";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_check_element_type(b, kOp, new_type));
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, (hlx_dtype_t)new_type,
                              x->type->rank, x->type->dims);
  if (!t) return hlx_bld_oom(b);
  return hlx_bld_emit1(b, HLX_OP_CONVERT, &x, 1, t, NULL, 0, NULL, out_value);
}

/* ---- shape ops -------------------------------------------------------------------- */
hlx_status_t hlx_builder_reshape(hlx_builder_t* b, uint32_t operand,
                                 const int64_t* new_sizes, int32_t rank,
                                 uint32_t* out_value) {
  static const char kOp[] = "reshape";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  if (rank < 0 || rank > HLX_MAX_DIMS || (rank > 0 && !new_sizes))
    return hlx_bld_fail(b, kOp, "rank %d is out of range 0..%d", (int)rank, HLX_MAX_DIMS);
  for (int32_t i = 0; i < rank; i++)
    if (new_sizes[i] < 0)
      return hlx_bld_fail(b, kOp, "new size %d is negative", (int)i);
  int64_t n = count_of(new_sizes, rank);
  int64_t m = hlx_type_num_elements(x->type);
  if (n != m)
    return hlx_bld_fail(b, kOp,
                "element count changes: operand has %lld elements, the new "
                "shape %lld",
                (long long)m, (long long)n);
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, x->type->dtype, rank, new_sizes);
  if (!t) return hlx_bld_oom(b);
  return hlx_bld_emit1(b, HLX_OP_RESHAPE, &x, 1, t, NULL, 0, NULL, out_value);
}

hlx_status_t hlx_builder_transpose(hlx_builder_t* b, uint32_t operand,
                                   const int64_t* permutation, int32_t n,
                                   uint32_t* out_value) {
  static const char kOp[] = "transpose";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  if (n != x->type->rank || (n > 0 && !permutation))
    return hlx_bld_fail(b, kOp, "permutation has %d entries, the operand has rank %d",
                (int)n, (int)x->type->rank);
  bool seen[HLX_MAX_RANK] = {false};
  int64_t dims[HLX_MAX_RANK];
  for (int32_t i = 0; i < n; i++) {
    int64_t p = permutation[i];
    if (p < 0 || p >= n || seen[p])
      return hlx_bld_fail(b, kOp, "permutation is not a permutation of 0..%d", (int)n - 1);
    seen[p] = true;
    dims[i] = x->type->dims[p];
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, x->type->dtype, n, dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"permutation", hlx_bld_attr_i64s(b, permutation, n)}};
  return hlx_bld_emit1(b, HLX_OP_TRANSPOSE, &x, 1, t, attrs, 1, NULL, out_value);
}

hlx_status_t hlx_builder_broadcast_in_dim(hlx_builder_t* b, uint32_t operand,
                                          const int64_t* out_sizes,
                                          int32_t out_rank,
                                          const int64_t* broadcast_dimensions,
                                          int32_t num_broadcast_dims,
                                          uint32_t* out_value) {
  static const char kOp[] = "broadcast_in_dim";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  if (out_rank < 0 || out_rank > HLX_MAX_DIMS || (out_rank > 0 && !out_sizes))
    return hlx_bld_fail(b, kOp, "result rank %d is out of range 0..%d", (int)out_rank,
                HLX_MAX_DIMS);
  for (int32_t i = 0; i < out_rank; i++)
    if (out_sizes[i] < 0) return hlx_bld_fail(b, kOp, "result size %d is negative", (int)i);
  if (num_broadcast_dims != x->type->rank ||
      (num_broadcast_dims > 0 && !broadcast_dimensions))
    return hlx_bld_fail(b, kOp, "broadcast_dimensions has %d entries, the operand has rank %d",
                (int)num_broadcast_dims, (int)x->type->rank);
  bool seen[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < num_broadcast_dims; i++) {
    int64_t d = broadcast_dimensions[i];
    if (d < 0 || d >= out_rank)
      return hlx_bld_fail(b, kOp, "broadcast_dimensions[%d] = %lld is out of range for result rank %d",
                  (int)i, (long long)d, (int)out_rank);
    if (seen[d])
      return hlx_bld_fail(b, kOp, "broadcast_dimensions has %lld twice", (long long)d);
    seen[d] = true;
    if (x->type->dims[i] != 1 && x->type->dims[i] != out_sizes[d])
      return hlx_bld_fail(b, kOp,
                  "operand dimension %d has size %lld; it must be 1 or the "
                  "result's size %lld",
                  (int)i, (long long)x->type->dims[i], (long long)out_sizes[d]);
  }
  hlx_value_t* r = NULL;
  HLX_RETURN_IF_ERROR(emit_bcast(b, x, out_sizes, out_rank, broadcast_dimensions, &r));
  if (!hlx_bld_add_value(b, r, out_value)) return hlx_bld_oom(b);
  return NULL;
}

hlx_status_t hlx_builder_broadcast(hlx_builder_t* b, uint32_t operand,
                                   const int64_t* sizes, int32_t n,
                                   uint32_t* out_value) {
  static const char kOp[] = "broadcast";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  if (n < 0 || (n > 0 && !sizes) || n + x->type->rank > HLX_MAX_DIMS)
    return hlx_bld_fail(b, kOp, "%d new dimensions on rank %d exceed rank %d", (int)n,
                (int)x->type->rank, HLX_MAX_DIMS);
  int64_t dims[HLX_MAX_RANK], map[HLX_MAX_RANK];
  for (int32_t i = 0; i < n; i++) {
    if (sizes[i] < 0) return hlx_bld_fail(b, kOp, "size %d is negative", (int)i);
    dims[i] = sizes[i];
  }
  for (int32_t i = 0; i < x->type->rank; i++) {
    dims[n + i] = x->type->dims[i];
    map[i] = n + i;
  }
  hlx_value_t* r = NULL;
  HLX_RETURN_IF_ERROR(emit_bcast(b, x, dims, n + x->type->rank, map, &r));
  if (!hlx_bld_add_value(b, r, out_value)) return hlx_bld_oom(b);
  return NULL;
}

hlx_status_t hlx_builder_slice(hlx_builder_t* b, uint32_t operand,
                               const int64_t* start, const int64_t* limit,
                               const int64_t* strides, int32_t rank,
                               uint32_t* out_value) {
  static const char kOp[] = "slice";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  if (rank != x->type->rank || (rank > 0 && (!start || !limit)))
    return hlx_bld_fail(b, kOp, "start/limit have %d entries, the operand has rank %d",
                (int)rank, (int)x->type->rank);
  int64_t dims[HLX_MAX_RANK], st[HLX_MAX_RANK];
  for (int32_t i = 0; i < rank; i++) {
    st[i] = strides ? strides[i] : 1;
    if (st[i] < 1)
      return hlx_bld_fail(b, kOp, "stride %d is %lld; strides must be >= 1", (int)i,
                  (long long)st[i]);
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > x->type->dims[i])
      return hlx_bld_fail(b, kOp,
                  "dimension %d: need 0 <= start (%lld) <= limit (%lld) <= "
                  "size (%lld)",
                  (int)i, (long long)start[i], (long long)limit[i],
                  (long long)x->type->dims[i]);
    dims[i] = (limit[i] - start[i] + st[i] - 1) / st[i];
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, x->type->dtype, rank, dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"start_indices", hlx_bld_attr_i64s(b, start, rank)},
                     {"limit_indices", hlx_bld_attr_i64s(b, limit, rank)},
                     {"strides", hlx_bld_attr_i64s(b, st, rank)}};
  return hlx_bld_emit1(b, HLX_OP_SLICE, &x, 1, t, attrs, 3, NULL, out_value);
}

hlx_status_t hlx_builder_concatenate(hlx_builder_t* b,
                                     const uint32_t* operands, int32_t n,
                                     int64_t dimension, uint32_t* out_value) {
  static const char kOp[] = "concatenate";
  BEGIN(b, out_value, kOp);
  if (n < 1 || !operands) return hlx_bld_fail(b, kOp, "at least one operand is needed");
  hlx_value_t** vs = hlx_bld_balloc(b, sizeof(hlx_value_t*) * (size_t)n);
  if (!vs) return hlx_bld_oom(b);
  int64_t dims[HLX_MAX_RANK];
  for (int32_t k = 0; k < n; k++) {
    char role[32];
    snprintf(role, sizeof role, "operand %d", (int)k);
    HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, role, operands[k], &vs[k]));
    const hlx_type_t* t = vs[k]->type;
    if (k == 0) {
      if (dimension < 0 || dimension >= t->rank)
        return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d",
                    (long long)dimension, (int)t->rank);
      memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
      continue;
    }
    const hlx_type_t* t0 = vs[0]->type;
    if (t->dtype != t0->dtype)
      return hlx_bld_fail(b, kOp, "operand %d has element type %s, operand 0 has %s",
                  (int)k, dt_name(t->dtype), dt_name(t0->dtype));
    if (t->rank != t0->rank)
      return hlx_bld_fail(b, kOp, "operand %d has rank %d, operand 0 has rank %d", (int)k,
                  (int)t->rank, (int)t0->rank);
    for (int32_t i = 0; i < t->rank; i++)
      if (i != dimension && t->dims[i] != t0->dims[i])
        return hlx_bld_fail(b, kOp,
                    "operand %d dimension %d has size %lld, operand 0 has %lld "
                    "(only dimension %lld may differ)",
                    (int)k, (int)i, (long long)t->dims[i], (long long)t0->dims[i],
                    (long long)dimension);
    dims[dimension] += t->dims[dimension];
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, vs[0]->type->dtype,
                              vs[0]->type->rank, dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"dimension", hlx_bld_attr_int(b, dimension, HLX_DTYPE_S64)}};
  return hlx_bld_emit1(b, HLX_OP_CONCATENATE, vs, n, t, attrs, 1, NULL, out_value);
}

hlx_status_t hlx_builder_pad(hlx_builder_t* b, uint32_t operand,
                             uint32_t padding_value, const int64_t* low,
                             const int64_t* high, const int64_t* interior,
                             int32_t rank, uint32_t* out_value) {
  static const char kOp[] = "pad";
  BEGIN(b, out_value, kOp);
  hlx_value_t *x = NULL, *pv = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "padding_value", padding_value, &pv));
  if (pv->type->rank != 0)
    return hlx_bld_fail(b, kOp, "padding_value must be rank 0, it has rank %d",
                (int)pv->type->rank);
  if (pv->type->dtype != x->type->dtype)
    return hlx_bld_fail(b, kOp, "padding_value element type %s differs from operand's %s",
                dt_name(pv->type->dtype), dt_name(x->type->dtype));
  if (rank != x->type->rank || (rank > 0 && (!low || !high)))
    return hlx_bld_fail(b, kOp, "padding arrays have %d entries, the operand has rank %d",
                (int)rank, (int)x->type->rank);
  int64_t dims[HLX_MAX_RANK], in[HLX_MAX_RANK];
  for (int32_t i = 0; i < rank; i++) {
    in[i] = interior ? interior[i] : 0;
    if (in[i] < 0)
      return hlx_bld_fail(b, kOp, "interior padding %d is negative (%lld)", (int)i,
                  (long long)in[i]);
    int64_t d = x->type->dims[i];
    int64_t r = low[i] + high[i] + d + (d > 0 ? (d - 1) * in[i] : 0);
    if (r < 0)
      return hlx_bld_fail(b, kOp, "dimension %d would have negative size %lld", (int)i,
                  (long long)r);
    dims[i] = r;
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, x->type->dtype, rank, dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"edge_padding_low", hlx_bld_attr_i64s(b, low, rank)},
                     {"edge_padding_high", hlx_bld_attr_i64s(b, high, rank)},
                     {"interior_padding", hlx_bld_attr_i64s(b, in, rank)}};
  hlx_value_t* ops[2] = {x, pv};
  return hlx_bld_emit1(b, HLX_OP_PAD, ops, 2, t, attrs, 3, NULL, out_value);
}

hlx_status_t hlx_builder_iota(hlx_builder_t* b, const hlx_tensor_desc_t* desc,
                              int64_t iota_dimension, uint32_t* out_value) {
  static const char kOp[] = "iota";
  BEGIN(b, out_value, kOp);
  HLX_RETURN_IF_ERROR(hlx_bld_check_desc(b, kOp, desc));
  if (iota_dimension < 0 || iota_dimension >= desc->rank)
    return hlx_bld_fail(b, kOp, "iota_dimension %lld is out of range for rank %d",
                (long long)iota_dimension, (int)desc->rank);
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, (hlx_dtype_t)desc->element_type,
                              desc->rank, desc->dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"iota_dimension", hlx_bld_attr_int(b, iota_dimension, HLX_DTYPE_S64)}};
  return hlx_bld_emit1(b, HLX_OP_IOTA, NULL, 0, t, attrs, 1, NULL, out_value);
}

/* ---- reduce ----------------------------------------------------------------------- */
hlx_status_t hlx_builder_reduce(hlx_builder_t* b, uint32_t operand,
                                uint32_t init,
                                const hlx_computation_t* combiner,
                                const int64_t* dimensions, int32_t n,
                                uint32_t* out_value) {
  static const char kOp[] = "reduce";
  BEGIN(b, out_value, kOp);
  hlx_value_t *x = NULL, *iv = NULL;
  b->allow_dynamic = true; /* masked below */
  hlx_status_t st = hlx_bld_get_tensor(b, kOp, "operand", operand, &x);
  b->allow_dynamic = false;
  HLX_RETURN_IF_ERROR(st);
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "init", init, &iv));
  hlx_dtype_t dt = x->type->dtype;
  if (iv->type->rank != 0 || iv->type->dtype != dt)
    return hlx_bld_fail(b, kOp, "init must be a rank-0 %s, like the operand's elements",
                dt_name(dt));
  HLX_RETURN_IF_ERROR(hlx_bld_check_scalar_computation(b, kOp, "combiner",
                                                       combiner, 2, dt, 1, dt));
  if (n < 0 || n > x->type->rank || (n > 0 && !dimensions))
    return hlx_bld_fail(b, kOp, "%d dimensions for an operand of rank %d", (int)n,
                (int)x->type->rank);
  bool red[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < n; i++) {
    int64_t d = dimensions[i];
    if (d < 0 || d >= x->type->rank)
      return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d",
                  (long long)d, (int)x->type->rank);
    if (red[d]) return hlx_bld_fail(b, kOp, "dimension %lld appears twice", (long long)d);
    red[d] = true;
  }
  uint32_t m;
  HLX_RETURN_IF_ERROR(hlx_bld_mask_dynamic(b, kOp, operand, init, red, &m));
  x = b->values[m];
  int64_t dims[HLX_MAX_RANK];
  int32_t rank = 0;
  for (int32_t i = 0; i < x->type->rank; i++)
    if (!red[i]) dims[rank++] = x->type->dims[i];
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, dt, rank, dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"dimensions", hlx_bld_attr_i64s(b, dimensions, n)}};
  hlx_value_t* ops[2] = {x, iv};
  hlx_value_t* r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_emit1(b, HLX_OP_REDUCE, ops, 2, t, attrs, 1, &r, out_value));
  hlx_op_t* op = r->def;
  /* The region's values are created after the result, which only changes
   * their ids (the printer numbers values in text order). */
  op->regions = hlx_bld_balloc(b, sizeof(hlx_region_t*));
  hlx_region_t* reg = op->regions ? hlx_bld_clone_computation(b, combiner) : NULL;
  if (!reg) return hlx_bld_oom(b);
  reg->parent = op;
  op->regions[0] = reg;
  op->num_regions = 1;
  return NULL;
}

/* ---- dot ---------------------------------------------------------------------------- */
static hlx_status_t dot_general(hlx_builder_t* b, const char* kOp,
                                hlx_value_t* l, hlx_value_t* r,
                                const int64_t* lb, const int64_t* rb, int32_t nb,
                                const int64_t* lc, const int64_t* rc, int32_t nc,
                                uint32_t* out_value) {
  if (nb < 0 || nc < 0 || nb > HLX_MAX_RANK || nc > HLX_MAX_RANK ||
      (nb > 0 && (!lb || !rb)) || (nc > 0 && (!lc || !rc)))
    return hlx_bld_fail(b, kOp, "bad dimension number arrays");
  /* The attribute as the parser produces it from the generic form (only
   * the non-empty lists are printed, so only those are kept); the result
   * type and every rule come from graph/ops/dot.c. */
  const int64_t* lists[4] = {lb, rb, lc, rc};
  const char* fnames[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                           "lhs_contracting_dimensions", "rhs_contracting_dimensions"};
  hlx_attr_t* dn = hlx_bld_attr_new(b, HLX_ATTR_STRUCT);
  if (!dn) return hlx_bld_oom(b);
  dn->str = "stablehlo.dot";
  dn->dict = hlx_bld_balloc(b, sizeof(hlx_named_attr_t) * 4);
  if (!dn->dict) return hlx_bld_oom(b);
  for (int k = 0; k < 4; k++) {
    int32_t cnt = k < 2 ? nb : nc;
    if (cnt == 0) continue;
    hlx_attr_t* a = hlx_bld_attr_i64s(b, lists[k], cnt);
    if (!a) return hlx_bld_oom(b);
    dn->dict[dn->count].name = fnames[k];
    dn->dict[dn->count].value = a;
    dn->count++;
  }
  named_t attrs[] = {{"dot_dimension_numbers", dn}};
  hlx_value_t* ops[2] = {l, r};
  return hlx_bld_emit_inferred(b, HLX_OP_DOT_GENERAL, ops, 2, attrs, 1,
                               out_value);
}

hlx_status_t hlx_builder_dot(hlx_builder_t* b, uint32_t lhs, uint32_t rhs,
                             uint32_t* out_value) {
  static const char kOp[] = "dot";
  BEGIN(b, out_value, kOp);
  hlx_value_t *l = NULL, *r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "lhs", lhs, &l));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "rhs", rhs, &r));
  if (l->type->rank < 1 || l->type->rank > 2 || r->type->rank < 1 ||
      r->type->rank > 2)
    return hlx_bld_fail(b, kOp, "operands must have rank 1 or 2 (lhs %d, rhs %d)",
                (int)l->type->rank, (int)r->type->rank);
  int64_t lc = l->type->rank - 1, rc = 0;
  return dot_general(b, kOp, l, r, NULL, NULL, 0, &lc, &rc, 1, out_value);
}

hlx_status_t hlx_builder_dot_general(hlx_builder_t* b, uint32_t lhs,
                                     uint32_t rhs, const int64_t* lhs_batch,
                                     const int64_t* rhs_batch,
                                     int32_t num_batch,
                                     const int64_t* lhs_contracting,
                                     const int64_t* rhs_contracting,
                                     int32_t num_contracting,
                                     uint32_t* out_value) {
  static const char kOp[] = "dot_general";
  BEGIN(b, out_value, kOp);
  hlx_value_t *l = NULL, *r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "lhs", lhs, &l));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "rhs", rhs, &r));
  return dot_general(b, kOp, l, r, lhs_batch, rhs_batch, num_batch,
                     lhs_contracting, rhs_contracting, num_contracting,
                     out_value);
}

/* ---- tuples ---------------------------------------------------------------------- */
hlx_status_t hlx_builder_tuple(hlx_builder_t* b, const uint32_t* elements,
                               int32_t n, uint32_t* out_value) {
  static const char kOp[] = "tuple";
  BEGIN(b, out_value, kOp);
  if (n < 0 || (n > 0 && !elements)) return hlx_bld_fail(b, kOp, "bad element count %d", (int)n);
  hlx_value_t** vs = hlx_bld_balloc(b, sizeof(hlx_value_t*) * (size_t)n);
  hlx_type_t* t = hlx_bld_balloc(b, sizeof(*t));
  if (!vs || !t) return hlx_bld_oom(b);
  t->kind = HLX_TYPE_TUPLE;
  t->num_elems = n;
  t->elems = hlx_bld_balloc(b, sizeof(hlx_type_t*) * (size_t)n);
  if (!t->elems) return hlx_bld_oom(b);
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, "element %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_value(b, kOp, role, elements[i], &vs[i]));
    t->elems[i] = vs[i]->type;
  }
  return hlx_bld_emit1(b, HLX_OP_TUPLE, vs, n, t, NULL, 0, NULL, out_value);
}

hlx_status_t hlx_builder_get_tuple_element(hlx_builder_t* b, uint32_t tuple,
                                           int32_t index, uint32_t* out_value) {
  static const char kOp[] = "get_tuple_element";
  BEGIN(b, out_value, kOp);
  hlx_value_t* v = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_value(b, kOp, "operand", tuple, &v));
  if (v->type->kind != HLX_TYPE_TUPLE)
    return hlx_bld_fail(b, kOp, "operand must be a tuple");
  if (index < 0 || index >= v->type->num_elems)
    return hlx_bld_fail(b, kOp, "index %d is out of range for a tuple of %d elements",
                (int)index, (int)v->type->num_elems);
  named_t attrs[] = {{"index", hlx_bld_attr_int(b, index, HLX_DTYPE_S32)}};
  return hlx_bld_emit1(b, HLX_OP_GET_TUPLE_ELEMENT, &v, 1, v->type->elems[index], attrs,
               1, NULL, out_value);
}
