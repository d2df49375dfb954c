#include "graph/ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const kOpNames[HLX_OP_COUNT] = {
#define HLX_OP(id, text, ...) text,
#include "graph/ir/ops.inc"
#undef HLX_OP
};

static const hlx_op_arity_t kOpArity[HLX_OP_COUNT] = {
#define HLX_OP(id, text, in0, in1, out0, out1, reg0, reg1) \
  {in0, in1, out0, out1, reg0, reg1},
#include "graph/ir/ops.inc"
#undef HLX_OP
};

const char* hlx_opcode_name(hlx_opcode_t op) {
  return (op >= 0 && op < HLX_OP_COUNT) ? kOpNames[op] : "";
}

hlx_opcode_t hlx_opcode_from_name(const char* name, size_t len) {
  for (int i = 1; i < HLX_OP_COUNT; i++) {
    if (strlen(kOpNames[i]) == len && memcmp(kOpNames[i], name, len) == 0)
      return (hlx_opcode_t)i;
  }
  return HLX_OP_UNKNOWN;
}

hlx_op_arity_t hlx_opcode_arity(hlx_opcode_t op) {
  return kOpArity[(op >= 0 && op < HLX_OP_COUNT) ? op : HLX_OP_UNKNOWN];
}

/* Whether min <= n <= max (max -1: no bound); if not, why = "expects 2
 * operands, has 3" / "expects at least 1 operand, has 0" / "expects 0 to 1
 * results, has 2". */
static bool count_ok(int32_t n, int min, int max, const char* what,
                     char* why, size_t len) {
  if (n >= min && (max < 0 || n <= max)) return true;
  const char* plural = max == 1 || (max < 0 && min == 1) ? "" : "s";
  if (max < 0)
    snprintf(why, len, "expects at least %d %s%s, has %d", min, what, plural,
             (int)n);
  else if (min == max)
    snprintf(why, len, "expects %d %s%s, has %d", min, what, plural, (int)n);
  else
    snprintf(why, len, "expects %d to %d %ss, has %d", min, max, what,
             (int)n);
  return false;
}

bool hlx_op_arity_ok(const hlx_op_t* op, char* why, size_t len) {
  hlx_op_arity_t a = hlx_opcode_arity(op->code);
  return count_ok(op->num_operands, a.min_operands, a.max_operands,
                  "operand", why, len) &&
         count_ok(op->num_results, a.min_results, a.max_results, "result",
                  why, len) &&
         count_ok(op->num_regions, a.min_regions, a.max_regions, "region",
                  why, len);
}

static const hlx_op_t* first_bad_in(const hlx_region_t* r, char* why,
                                     size_t len) {
  for (int32_t b = 0; r && b < r->num_blocks; b++) {
    const hlx_block_t* blk = r->blocks[b];
    for (int32_t i = 0; i < blk->num_ops; i++) {
      const hlx_op_t* op = blk->ops[i];
      if (!hlx_op_arity_ok(op, why, len)) return op;
      for (int32_t g = 0; g < op->num_regions; g++) {
        const hlx_op_t* bad = first_bad_in(op->regions[g], why, len);
        if (bad) return bad;
      }
    }
  }
  return NULL;
}

const hlx_op_t* hlx_module_first_bad_arity(const hlx_module_t* m, char* why,
                                           size_t len) {
  for (int32_t f = 0; f < m->num_funcs; f++) {
    const hlx_op_t* bad = first_bad_in(m->funcs[f]->body, why, len);
    if (bad) return bad;
  }
  return NULL;
}

int64_t hlx_type_num_elements(const hlx_type_t* t) {
  if (!t || t->kind != HLX_TYPE_TENSOR) return -1;
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) {
    int64_t d = t->dims[i];
    if (d < 0) return -1;
    if (d != 0 && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

bool hlx_type_is_static(const hlx_type_t* t) {
  if (!t) return false;
  if (t->kind == HLX_TYPE_TOKEN) return true;
  if (t->kind == HLX_TYPE_TUPLE) {
    for (int i = 0; i < t->num_elems; i++)
      if (!hlx_type_is_static(t->elems[i])) return false;
    return true;
  }
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] < 0) return false;
  return true;
}

static bool quant_equal(const hlx_quant_t* a, const hlx_quant_t* b) {
  if (!a || !b) return a == b;
  if (a->storage != b->storage || a->expressed != b->expressed ||
      a->quantized_dimension != b->quantized_dimension ||
      a->num_scales != b->num_scales ||
      a->has_storage_range != b->has_storage_range)
    return false;
  if (a->has_storage_range && (a->storage_min != b->storage_min ||
                               a->storage_max != b->storage_max))
    return false;
  for (int i = 0; i < a->num_scales; i++)
    if (a->scales[i] != b->scales[i] || a->zero_points[i] != b->zero_points[i])
      return false;
  return true;
}

bool hlx_type_equal(const hlx_type_t* a, const hlx_type_t* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case HLX_TYPE_TOKEN:
      return true;
    case HLX_TYPE_TUPLE:
      if (a->num_elems != b->num_elems || a->is_future != b->is_future)
        return false;
      for (int i = 0; i < a->num_elems; i++)
        if (!hlx_type_equal(a->elems[i], b->elems[i])) return false;
      return true;
    case HLX_TYPE_TENSOR:
      if (a->dtype != b->dtype || a->rank != b->rank ||
          a->is_index != b->is_index)
        return false;
      for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return false;
      if ((a->bounds == NULL) != (b->bounds == NULL)) return false;
      if (a->bounds)
        for (int i = 0; i < a->rank; i++)
          if (a->bounds[i] != b->bounds[i]) return false;
      return quant_equal(a->quant, b->quant);
  }
  return false;
}

hlx_module_t* hlx_module_create(void) {
  hlx_module_t* m = calloc(1, sizeof(*m));
  if (!m) return NULL;
  hlx_arena_init(&m->arena);
  return m;
}

void hlx_module_destroy(hlx_module_t* m) {
  if (!m) return;
  hlx_arena_release(&m->arena);
  free(m);
}

hlx_func_t* hlx_module_find_func(const hlx_module_t* m, const char* name) {
  for (int i = 0; i < m->num_funcs; i++)
    if (strcmp(m->funcs[i]->name, name) == 0) return m->funcs[i];
  return NULL;
}

hlx_func_t* hlx_module_entry(const hlx_module_t* m) {
  hlx_func_t* f = hlx_module_find_func(m, "main");
  if (f) return f;
  hlx_func_t* pub = NULL;
  int npub = 0;
  for (int i = 0; i < m->num_funcs; i++)
    if (m->funcs[i]->is_public) {
      pub = m->funcs[i];
      npub++;
    }
  if (npub == 1) return pub;
  return m->num_funcs > 0 ? m->funcs[0] : NULL;
}

const hlx_attr_t* hlx_named_attrs_get(const hlx_named_attr_t* a, int32_t n,
                                      const char* name) {
  for (int i = 0; i < n; i++)
    if (strcmp(a[i].name, name) == 0) return a[i].value;
  return NULL;
}

const hlx_attr_t* hlx_op_attr(const hlx_op_t* op, const char* name) {
  return hlx_named_attrs_get(op->attrs, op->num_attrs, name);
}

const hlx_attr_t* hlx_attr_dict_get(const hlx_attr_t* dict, const char* name) {
  if (!dict || (dict->kind != HLX_ATTR_DICT && dict->kind != HLX_ATTR_STRUCT))
    return NULL;
  return hlx_named_attrs_get(dict->dict, dict->count, name);
}
