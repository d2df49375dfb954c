/* Structural IR equality (see ir_equal.h). */
#include "graph/ir/ir_equal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct eq_ctx_t {
  char* why;
  size_t why_len;
  int32_t* map; /* a's value id -> b's value id (+1; 0 = unmapped) */
  int32_t map_len;
  const char* func;
} eq_ctx_t;

static bool fail(eq_ctx_t* c, const char* fmt, ...) HLX_PRINTF(2, 3);
static bool fail(eq_ctx_t* c, const char* fmt, ...) {
  if (c->why && c->why_len > 0) {
    char tmp[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (c->func) snprintf(c->why, c->why_len, "@%s: %s", c->func, tmp);
    else snprintf(c->why, c->why_len, "%s", tmp);
  }
  return false;
}

static bool type_eq(const hlx_type_t* a, const hlx_type_t* b) {
  if (!a || !b) return a == b;
  return hlx_type_equal(a, b);
}

static bool named_attrs_equal(const hlx_named_attr_t* a, int32_t na,
                              const hlx_named_attr_t* b, int32_t nb);

bool hlx_attr_equal(const hlx_attr_t* a, const hlx_attr_t* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case HLX_ATTR_UNIT:
      return true;
    case HLX_ATTR_BOOL:
      return a->b == b->b;
    case HLX_ATTR_INT:
      return a->i == b->i && type_eq(a->type, b->type);
    case HLX_ATTR_FLOAT:
      return memcmp(&a->f, &b->f, sizeof(double)) == 0 &&
             type_eq(a->type, b->type);
    case HLX_ATTR_STRING:
      return a->len == b->len && (a->len == 0 || memcmp(a->str, b->str, a->len) == 0);
    case HLX_ATTR_SYMBOL:
    case HLX_ATTR_OPAQUE:
      return strcmp(a->str ? a->str : "", b->str ? b->str : "") == 0;
    case HLX_ATTR_TYPE:
      return type_eq(a->type, b->type);
    case HLX_ATTR_ARRAY:
      if (a->count != b->count) return false;
      for (int32_t i = 0; i < a->count; i++)
        if (!hlx_attr_equal(a->items[i], b->items[i])) return false;
      return true;
    case HLX_ATTR_I64_ARRAY:
      if (a->count != b->count || !type_eq(a->type, b->type)) return false;
      return a->count == 0 ||
             memcmp(a->ints, b->ints, sizeof(int64_t) * (size_t)a->count) == 0;
    case HLX_ATTR_DENSE:
      return type_eq(a->type, b->type) && a->dense_bytes == b->dense_bytes &&
             (a->dense_bytes == 0 ||
              memcmp(a->dense, b->dense, a->dense_bytes) == 0);
    case HLX_ATTR_ELIDED:
      return type_eq(a->type, b->type) &&
             strcmp(a->str ? a->str : "", b->str ? b->str : "") == 0;
    case HLX_ATTR_DICT:
      return named_attrs_equal(a->dict, a->count, b->dict, b->count);
    case HLX_ATTR_ENUM:
      return strcmp(a->str ? a->str : "", b->str ? b->str : "") == 0 &&
             strcmp(a->enum_value ? a->enum_value : "",
                    b->enum_value ? b->enum_value : "") == 0;
    case HLX_ATTR_STRUCT:
      return strcmp(a->str ? a->str : "", b->str ? b->str : "") == 0 &&
             named_attrs_equal(a->dict, a->count, b->dict, b->count);
  }
  return false;
}

/* Order-insensitive by name (names are unique within one list). */
static bool named_attrs_equal(const hlx_named_attr_t* a, int32_t na,
                              const hlx_named_attr_t* b, int32_t nb) {
  if (na != nb) return false;
  for (int32_t i = 0; i < na; i++) {
    const hlx_attr_t* bv = NULL;
    bool found = false;
    /* fast path: same position */
    if (strcmp(a[i].name, b[i].name) == 0) {
      bv = b[i].value;
      found = true;
    } else {
      for (int32_t k = 0; k < nb; k++)
        if (strcmp(a[i].name, b[k].name) == 0) {
          bv = b[k].value;
          found = true;
          break;
        }
    }
    if (!found || !hlx_attr_equal(a[i].value, bv)) return false;
  }
  return true;
}

static bool attrs_eq_why(eq_ctx_t* c, const char* what,
                         const hlx_named_attr_t* a, int32_t na,
                         const hlx_named_attr_t* b, int32_t nb) {
  if (named_attrs_equal(a, na, b, nb)) return true;
  if (na != nb) return fail(c, "%s: %d vs %d attributes", what, na, nb);
  for (int32_t i = 0; i < na; i++) {
    const hlx_attr_t* bv = hlx_named_attrs_get(b, nb, a[i].name);
    if (!bv) return fail(c, "%s: attribute '%s' missing", what, a[i].name);
    if (!hlx_attr_equal(a[i].value, bv))
      return fail(c, "%s: attribute '%s' differs", what, a[i].name);
  }
  return fail(c, "%s: attributes differ", what);
}

static bool map_value(eq_ctx_t* c, const hlx_value_t* a, const hlx_value_t* b) {
  if (a->id < 0 || a->id >= c->map_len)
    return fail(c, "value id %d out of range", a->id);
  if (!type_eq(a->type, b->type)) return fail(c, "value %%%s type differs", a->name ? a->name : "?");
  c->map[a->id] = b->id + 1;
  return true;
}

static bool region_eq(eq_ctx_t* c, const hlx_region_t* a, const hlx_region_t* b,
                      int depth);

static bool op_eq(eq_ctx_t* c, const hlx_op_t* a, const hlx_op_t* b, int depth) {
  const char* an = a->name ? a->name : "";
  const char* bn = b->name ? b->name : "";
  if (a->code != b->code || strcmp(an, bn) != 0)
    return fail(c, "op %s (line %d) vs %s (line %d)", an, a->line, bn, b->line);
  if (a->num_operands != b->num_operands)
    return fail(c, "%s (line %d): %d vs %d operands", an, a->line,
                a->num_operands, b->num_operands);
  for (int32_t i = 0; i < a->num_operands; i++) {
    const hlx_value_t* x = a->operands[i];
    const hlx_value_t* y = b->operands[i];
    if (!x || !y || x->id < 0 || x->id >= c->map_len || c->map[x->id] != y->id + 1)
      return fail(c, "%s (line %d): operand %d wired differently", an, a->line, i);
  }
  char what[160];
  snprintf(what, sizeof what, "%s (line %d)", an, a->line);
  if (!attrs_eq_why(c, what, a->attrs, a->num_attrs, b->attrs, b->num_attrs))
    return false;
  if (a->num_regions != b->num_regions)
    return fail(c, "%s: %d vs %d regions", what, a->num_regions, b->num_regions);
  for (int32_t i = 0; i < a->num_regions; i++)
    if (!region_eq(c, a->regions[i], b->regions[i], depth + 1)) return false;
  if (a->num_results != b->num_results)
    return fail(c, "%s: %d vs %d results", what, a->num_results, b->num_results);
  for (int32_t i = 0; i < a->num_results; i++) {
    if (!type_eq(a->results[i]->type, b->results[i]->type))
      return fail(c, "%s: result %d type differs", what, i);
    if (!map_value(c, a->results[i], b->results[i])) return false;
  }
  return true;
}

static bool region_eq(eq_ctx_t* c, const hlx_region_t* a, const hlx_region_t* b,
                      int depth) {
  if (!a || !b) return a == b ? true : fail(c, "missing region");
  if (depth > 1000) return fail(c, "regions nested too deeply");
  if (a->num_blocks != b->num_blocks)
    return fail(c, "%d vs %d blocks", a->num_blocks, b->num_blocks);
  for (int32_t k = 0; k < a->num_blocks; k++) {
    const hlx_block_t* x = a->blocks[k];
    const hlx_block_t* y = b->blocks[k];
    if (x->num_args != y->num_args)
      return fail(c, "block: %d vs %d arguments", x->num_args, y->num_args);
    for (int32_t i = 0; i < x->num_args; i++)
      if (!map_value(c, x->args[i], y->args[i])) return false;
    if (x->num_ops != y->num_ops)
      return fail(c, "block: %d vs %d ops", x->num_ops, y->num_ops);
    for (int32_t i = 0; i < x->num_ops; i++)
      if (!op_eq(c, x->ops[i], y->ops[i], depth)) return false;
  }
  return true;
}

bool hlx_module_equal(const hlx_module_t* a, const hlx_module_t* b, char* why,
                      size_t why_len) {
  eq_ctx_t c = {why, why_len, NULL, 0, NULL};
  if (why && why_len) why[0] = 0;
  if (!a || !b) return a == b ? true : fail(&c, "NULL module");
  const char* an = a->name ? a->name : "";
  const char* bn = b->name ? b->name : "";
  if ((a->name == NULL) != (b->name == NULL) || strcmp(an, bn) != 0)
    return fail(&c, "module name '%s' vs '%s'", an, bn);
  if (!attrs_eq_why(&c, "module", a->attrs, a->num_attrs, b->attrs, b->num_attrs))
    return false;
  if (a->num_funcs != b->num_funcs)
    return fail(&c, "%d vs %d functions", a->num_funcs, b->num_funcs);
  bool ok = true;
  for (int32_t i = 0; ok && i < a->num_funcs; i++) {
    const hlx_func_t* f = a->funcs[i];
    const hlx_func_t* g = b->funcs[i];
    c.func = NULL;
    if (strcmp(f->name, g->name) != 0) {
      ok = fail(&c, "function @%s vs @%s", f->name, g->name);
      break;
    }
    c.func = f->name;
    if (f->is_public != g->is_public) {
      ok = fail(&c, "visibility differs");
      break;
    }
    if (f->num_args != g->num_args || f->num_results != g->num_results) {
      ok = fail(&c, "signature arity differs");
      break;
    }
    for (int32_t k = 0; ok && k < f->num_args; k++) {
      char what[64];
      snprintf(what, sizeof what, "argument %d", k);
      ok = attrs_eq_why(&c, what, f->arg_attrs ? f->arg_attrs[k] : NULL,
                        f->num_arg_attrs ? f->num_arg_attrs[k] : 0,
                        g->arg_attrs ? g->arg_attrs[k] : NULL,
                        g->num_arg_attrs ? g->num_arg_attrs[k] : 0);
    }
    for (int32_t k = 0; ok && k < f->num_results; k++) {
      char what[64];
      snprintf(what, sizeof what, "result %d", k);
      if (!type_eq(f->result_types[k], g->result_types[k])) {
        ok = fail(&c, "%s type differs", what);
        break;
      }
      ok = attrs_eq_why(&c, what, f->result_attrs ? f->result_attrs[k] : NULL,
                        f->num_result_attrs ? f->num_result_attrs[k] : 0,
                        g->result_attrs ? g->result_attrs[k] : NULL,
                        g->num_result_attrs ? g->num_result_attrs[k] : 0);
    }
    if (!ok) break;
    if (!attrs_eq_why(&c, "function", f->attrs, f->num_attrs, g->attrs, g->num_attrs)) {
      ok = false;
      break;
    }
    free(c.map);
    c.map_len = f->num_values;
    c.map = calloc((size_t)(f->num_values > 0 ? f->num_values : 1), sizeof(int32_t));
    if (!c.map) {
      ok = fail(&c, "out of memory");
      break;
    }
    ok = region_eq(&c, f->body, g->body, 0);
  }
  free(c.map);
  return ok;
}
