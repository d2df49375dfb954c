/* Builder: dynamic dimension sizes (XLA SetDimensionSize and what reads
 * them). hlx tensors have static shapes, so a dynamic size lives only in
 * the builder: set_dimension_size gives a value a new id carrying an s32[]
 * size per dimension, reduce turns the elements beyond those sizes into
 * its init value (XLA: "padded values will be ignored by downstream
 * reduction ops"), get_dimension_size returns the size, and every other
 * op rejects the value (api/builder.c hlx_bld_get_value). */
#include <stdlib.h>
#include <string.h>

#include "api/builder_internal.h"

typedef struct hlx_bld_dynamic_t {
  uint32_t id;
  uint32_t size[HLX_MAX_RANK]; /* HLX_BUILDER_NO_VALUE = static */
} hlx_bld_dynamic_t;

const uint32_t* hlx_bld_dynamic_sizes(const hlx_builder_t* b, uint32_t id) {
  for (uint32_t i = 0; i < b->num_dynamic; i++)
    if (b->dynamic[i].id == id) return b->dynamic[i].size;
  return NULL;
}

/* A new id for v with the given sizes (all static: no entry). */
static hlx_status_t add_alias(hlx_builder_t* b, hlx_value_t* v,
                              const uint32_t* size, uint32_t* out) {
  bool any = false;
  for (int32_t d = 0; d < v->type->rank; d++)
    any = any || size[d] != HLX_BUILDER_NO_VALUE;
  if (any && b->num_dynamic == b->cap_dynamic) {
    uint32_t cap = b->cap_dynamic ? 2 * b->cap_dynamic : 8;
    hlx_bld_dynamic_t* n = realloc(b->dynamic, sizeof(*n) * cap);
    if (!n) return hlx_bld_oom(b);
    b->dynamic = n;
    b->cap_dynamic = cap;
  }
  uint32_t id;
  if (!hlx_bld_add_value(b, v, &id)) return hlx_bld_oom(b);
  if (any) {
    hlx_bld_dynamic_t* e = &b->dynamic[b->num_dynamic++];
    e->id = id;
    memcpy(e->size, size, sizeof(e->size));
  }
  *out = id;
  return NULL;
}

/* Looks up a value that may have dynamic sizes. */
static hlx_status_t get_any(hlx_builder_t* b, const char* op, const char* role,
                            uint32_t id, hlx_value_t** v) {
  bool was = b->allow_dynamic;
  b->allow_dynamic = true;
  hlx_status_t st = hlx_bld_get_tensor(b, op, role, id, v);
  b->allow_dynamic = was;
  return st;
}

hlx_status_t hlx_builder_set_dimension_size(hlx_builder_t* b, uint32_t operand,
                                            uint32_t size, int64_t dimension,
                                            uint32_t* out_value) {
  static const char kOp[] = "set_dimension_size";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  hlx_value_t* s = NULL;
  HLX_RETURN_IF_ERROR(get_any(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "size", size, &s));
  if (dimension < 0 || dimension >= x->type->rank)
    return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d",
                        (long long)dimension, (int)x->type->rank);
  if (s->type->dtype != HLX_DTYPE_S32 || s->type->rank != 0)
    return hlx_bld_fail(b, kOp, "size must be an s32[] (XLA: int32), not "
                        "a rank-%d %s", (int)s->type->rank,
                        hlx_dtype_name(s->type->dtype));
  int64_t bound = x->type->dims[dimension];
  uint32_t sizes[HLX_MAX_RANK];
  const uint32_t* old = hlx_bld_dynamic_sizes(b, operand);
  for (int32_t d = 0; d < HLX_MAX_RANK; d++)
    sizes[d] = old ? old[d] : HLX_BUILDER_NO_VALUE;
  sizes[dimension] = size;
  /* A constant size is checked now; the static size is no dynamic size. */
  const hlx_attr_t* v = s->def && s->def->code == HLX_OP_CONSTANT
                            ? hlx_op_attr(s->def, "value")
                            : NULL;
  if (v && v->kind == HLX_ATTR_DENSE && v->dense_bytes == sizeof(int32_t)) {
    int32_t n;
    memcpy(&n, v->dense, sizeof n);
    if (n < 0 || n > bound)
      return hlx_bld_fail(b, kOp, "size %d is outside 0..%lld, dimension "
                          "%lld's static size", (int)n, (long long)bound,
                          (long long)dimension);
    if (n == bound) sizes[dimension] = HLX_BUILDER_NO_VALUE;
  }
  return add_alias(b, x, sizes, out_value);
}

hlx_status_t hlx_builder_get_dimension_size(hlx_builder_t* b,
                                            uint32_t operand,
                                            int64_t dimension,
                                            uint32_t* out_value) {
  static const char kOp[] = "get_dimension_size";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(get_any(b, kOp, "operand", operand, &x));
  if (dimension < 0 || dimension >= x->type->rank)
    return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d",
                        (long long)dimension, (int)x->type->rank);
  const uint32_t* sizes = hlx_bld_dynamic_sizes(b, operand);
  if (sizes && sizes[dimension] != HLX_BUILDER_NO_VALUE) {
    *out_value = sizes[dimension];
    return NULL;
  }
  hlx_type_t* t = hlx_bld_tensor_type(&b->module->arena, HLX_DTYPE_S32, 0, NULL);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"dimension", hlx_bld_attr_int(b, dimension, HLX_DTYPE_S64)}};
  return hlx_bld_emit1(b, HLX_OP_GET_DIMENSION_SIZE, &x, 1, t, attrs, 1, NULL,
                       out_value);
}

/* mask = AND over dynamic dims d of iota(d) < size_d; select(mask,
 * operand, init) broadcast to the operand's shape. */
static hlx_status_t masked(hlx_builder_t* b, const hlx_type_t* t,
                           const uint32_t* sizes, uint32_t operand,
                           uint32_t init, uint32_t* out) {
  hlx_tensor_desc_t d;
  hlx_bld_desc_of(t, &d);
  d.element_type = (hlx_element_type_t)HLX_DTYPE_S32;
  uint32_t mask = HLX_BUILDER_NO_VALUE;
  for (int32_t k = 0; k < t->rank; k++) {
    if (sizes[k] == HLX_BUILDER_NO_VALUE) continue;
    uint32_t io, sz, lt;
    HLX_RETURN_IF_ERROR(hlx_builder_iota(b, &d, k, &io));
    HLX_RETURN_IF_ERROR(hlx_builder_broadcast_in_dim(b, sizes[k], t->dims,
                                                     t->rank, NULL, 0, &sz));
    HLX_RETURN_IF_ERROR(
        hlx_builder_compare(b, HLX_COMPARE_LT, io, sz, NULL, 0, &lt));
    if (mask == HLX_BUILDER_NO_VALUE)
      mask = lt;
    else
      HLX_RETURN_IF_ERROR(
          hlx_builder_binary(b, HLX_BINARY_AND, mask, lt, NULL, 0, &mask));
  }
  uint32_t fill;
  HLX_RETURN_IF_ERROR(hlx_builder_broadcast_in_dim(b, init, t->dims, t->rank,
                                                   NULL, 0, &fill));
  return hlx_builder_select(b, mask, operand, fill, out);
}

hlx_status_t hlx_bld_mask_dynamic(hlx_builder_t* b, const char* op,
                                  uint32_t operand, uint32_t init,
                                  const bool* reduced, uint32_t* out) {
  *out = operand;
  const uint32_t* sizes = hlx_bld_dynamic_sizes(b, operand);
  if (!sizes) return NULL;
  const hlx_type_t* t = b->values[operand]->type;
  for (int32_t k = 0; k < t->rank; k++)
    if (sizes[k] != HLX_BUILDER_NO_VALUE && !reduced[k])
      return hlx_bld_fail(b, op, "dimension %d has a dynamic size but is not "
                          "reduced; hlx keeps dynamic sizes only up to the "
                          "reduce that consumes them", (int)k);
  bool was = b->allow_dynamic;
  b->allow_dynamic = true;
  hlx_status_t st = masked(b, t, sizes, operand, init, out);
  b->allow_dynamic = was;
  return st;
}
