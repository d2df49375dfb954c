/* Builder: Map, Sort, variadic Reduce, Rev, Collapse, BitcastConvertType, ReducePrecision,
 * GetDimensionSize and OptimizationBarrier. */
#include <stdio.h>
#include <string.h>

#include "api/builder_internal.h"

/* Fetches n tensor operands of one shape (dims; element types may differ). */
static hlx_status_t same_shape_operands(hlx_builder_t* b, const char* kOp,
                                        const uint32_t* ids, int32_t n,
                                        hlx_value_t** vs) {
  if (n < 1 || !ids || n > 64)
    return hlx_bld_fail(b, kOp, "needs 1 to 64 operands, got %d", (int)n);
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, "operand %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, role, ids[i], &vs[i]));
    if (!hlx_bld_same_dims(vs[i]->type, vs[0]->type))
      return hlx_bld_fail(b, kOp, "operand %d has another shape than operand 0",
                          (int)i);
  }
  return NULL;
}

hlx_status_t hlx_builder_map(hlx_builder_t* b, const uint32_t* operands,
                             int32_t n, const hlx_computation_t* computation,
                             const int64_t* dimensions, int32_t num_dims,
                             uint32_t* out_value) {
  static const char kOp[] = "map";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[64];
  HLX_RETURN_IF_ERROR(same_shape_operands(b, kOp, operands, n, vs));
  const hlx_type_t* t0 = vs[0]->type;
  if (!computation) return hlx_bld_fail(b, kOp, "NULL computation");
  const hlx_func_t* f = computation->func;
  if (f->num_args != n || f->num_results != 1)
    return hlx_bld_fail(b, kOp, "the computation must take %d parameters and "
                        "return 1 value (it takes %d, returns %d)", (int)n,
                        (int)f->num_args, (int)f->num_results);
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* at = f->body->blocks[0]->args[i]->type;
    if (at->kind != HLX_TYPE_TENSOR || at->rank != 0 ||
        at->dtype != vs[i]->type->dtype)
      return hlx_bld_fail(b, kOp, "computation parameter %d must be a rank-0 "
                          "%s", (int)i, hlx_dtype_name(vs[i]->type->dtype));
  }
  const hlx_type_t* rt = f->result_types[0];
  if (rt->kind != HLX_TYPE_TENSOR || rt->rank != 0)
    return hlx_bld_fail(b, kOp, "the computation must return a rank-0 value");
  int64_t all[HLX_MAX_RANK];
  for (int32_t i = 0; i < t0->rank; i++) all[i] = i;
  if (num_dims > 0 || dimensions) {
    if (num_dims != t0->rank || !dimensions)
      return hlx_bld_fail(b, kOp, "dimensions must list all %d dimensions",
                          (int)t0->rank);
    for (int32_t i = 0; i < num_dims; i++)
      if (dimensions[i] != i)
        return hlx_bld_fail(b, kOp, "dimensions must be 0..%d in order",
                            (int)t0->rank - 1);
  }
  hlx_type_t* t =
      hlx_bld_tensor_type(&b->module->arena, rt->dtype, t0->rank, t0->dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {{"dimensions", hlx_bld_attr_i64s(b, all, t0->rank)}};
  hlx_value_t* r = NULL;
  HLX_RETURN_IF_ERROR(
      hlx_bld_emit1(b, HLX_OP_MAP, vs, n, t, attrs, 1, &r, out_value));
  return hlx_bld_attach_regions(b, r->def, &computation, NULL, 1);
}

hlx_status_t hlx_builder_sort(hlx_builder_t* b, const uint32_t* operands,
                              int32_t n, const hlx_computation_t* comparator,
                              int64_t dimension, bool is_stable,
                              uint32_t* out_value) {
  static const char kOp[] = "sort";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[64];
  HLX_RETURN_IF_ERROR(same_shape_operands(b, kOp, operands, n, vs));
  int32_t rank = vs[0]->type->rank;
  if (dimension == -1 && rank > 0) dimension = rank - 1; /* XLA's default */
  if (dimension < 0 || dimension >= (rank > 0 ? rank : 1))
    return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d",
                        (long long)dimension, (int)rank);
  if (!comparator) return hlx_bld_fail(b, kOp, "NULL comparator computation");
  const hlx_func_t* f = comparator->func;
  if (f->num_args != 2 * n || f->num_results != 1)
    return hlx_bld_fail(b, kOp, "the comparator must take %d parameters and "
                        "return 1 value (it takes %d, returns %d)", (int)(2 * n),
                        (int)f->num_args, (int)f->num_results);
  for (int32_t i = 0; i < 2 * n; i++) {
    const hlx_type_t* at = f->body->blocks[0]->args[i]->type;
    if (at->kind != HLX_TYPE_TENSOR || at->rank != 0 ||
        at->dtype != vs[i / 2]->type->dtype)
      return hlx_bld_fail(b, kOp, "comparator parameter %d must be a rank-0 %s "
                          "(operand %d's element type)", (int)i,
                          hlx_dtype_name(vs[i / 2]->type->dtype), (int)(i / 2));
  }
  const hlx_type_t* rt = f->result_types[0];
  if (rt->kind != HLX_TYPE_TENSOR || rt->rank != 0 ||
      rt->dtype != HLX_DTYPE_PRED)
    return hlx_bld_fail(b, kOp, "the comparator must return a pred[]");
  hlx_type_t* rts[64];
  for (int32_t i = 0; i < n; i++) rts[i] = vs[i]->type;
  named_t attrs[] = {{"dimension", hlx_bld_attr_int(b, dimension, HLX_DTYPE_S64)},
                     {"is_stable", hlx_bld_attr_bool(b, is_stable)}};
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_SORT, vs, n, rts, n, attrs, 2);
  if (!op) return hlx_bld_oom(b);
  HLX_RETURN_IF_ERROR(hlx_bld_attach_regions(b, op, &comparator, NULL, 1));
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_reduce_variadic(hlx_builder_t* b,
                                         const uint32_t* operands,
                                         const uint32_t* inits, int32_t n,
                                         const hlx_computation_t* computation,
                                         const int64_t* dimensions,
                                         int32_t num_dims,
                                         uint32_t* out_value) {
  static const char kOp[] = "reduce";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[128];
  b->allow_dynamic = true; /* masked below */
  hlx_status_t st = hlx_bld_variadic_operands(b, kOp, operands, inits, n, vs);
  b->allow_dynamic = false;
  HLX_RETURN_IF_ERROR(st);
  HLX_RETURN_IF_ERROR(
      hlx_bld_check_variadic_computation(b, kOp, computation, vs, n));
  const hlx_type_t* t0 = vs[0]->type;
  if (num_dims < 0 || num_dims > t0->rank || (num_dims > 0 && !dimensions))
    return hlx_bld_fail(b, kOp, "%d dimensions for an operand of rank %d",
                        (int)num_dims, (int)t0->rank);
  bool red[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < num_dims; i++) {
    int64_t d = dimensions[i];
    if (d < 0 || d >= t0->rank || red[d])
      return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d "
                          "or repeated", (long long)d, (int)t0->rank);
    red[d] = true;
  }
  for (int32_t i = 0; i < n; i++) {
    uint32_t m;
    HLX_RETURN_IF_ERROR(
        hlx_bld_mask_dynamic(b, kOp, operands[i], inits[i], red, &m));
    vs[i] = b->values[m];
  }
  int64_t dims[HLX_MAX_RANK];
  int32_t rank = 0;
  for (int32_t i = 0; i < t0->rank; i++)
    if (!red[i]) dims[rank++] = t0->dims[i];
  hlx_type_t* rts[64];
  for (int32_t i = 0; i < n; i++)
    rts[i] = hlx_bld_tensor_type(&b->module->arena, vs[i]->type->dtype, rank,
                                 dims);
  named_t attrs[] = {{"dimensions", hlx_bld_attr_i64s(b, dimensions, num_dims)}};
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_REDUCE, vs, 2 * n, rts, n, attrs, 1);
  if (!op) return hlx_bld_oom(b);
  HLX_RETURN_IF_ERROR(hlx_bld_attach_regions(b, op, &computation, NULL, 1));
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_rev(hlx_builder_t* b, uint32_t operand,
                             const int64_t* dimensions, int32_t n,
                             uint32_t* out_value) {
  static const char kOp[] = "rev";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  if (n < 0 || n > x->type->rank || (n > 0 && !dimensions))
    return hlx_bld_fail(b, kOp, "%d dimensions for an operand of rank %d",
                        (int)n, (int)x->type->rank);
  bool seen[HLX_MAX_RANK] = {false};
  for (int32_t i = 0; i < n; i++) {
    int64_t d = dimensions[i];
    if (d < 0 || d >= x->type->rank)
      return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d",
                          (long long)d, (int)x->type->rank);
    if (seen[d])
      return hlx_bld_fail(b, kOp, "dimension %lld appears twice", (long long)d);
    seen[d] = true;
  }
  named_t attrs[] = {{"dimensions", hlx_bld_attr_i64s(b, dimensions, n)}};
  return hlx_bld_emit1(b, HLX_OP_REVERSE, &x, 1, x->type, attrs, 1, NULL,
                       out_value);
}

hlx_status_t hlx_builder_collapse(hlx_builder_t* b, uint32_t operand,
                                  const int64_t* dimensions, int32_t n,
                                  uint32_t* out_value) {
  static const char kOp[] = "collapse";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  const hlx_type_t* t = x->type;
  if (n < 1 || !dimensions || n > t->rank)
    return hlx_bld_fail(b, kOp, "needs 1..%d dimensions, got %d", (int)t->rank,
                        (int)n);
  for (int32_t i = 0; i < n; i++) {
    if (dimensions[i] < 0 || dimensions[i] >= t->rank)
      return hlx_bld_fail(b, kOp, "dimension %lld is out of range for rank %d",
                          (long long)dimensions[i], (int)t->rank);
    if (i > 0 && dimensions[i] != dimensions[i - 1] + 1)
      return hlx_bld_fail(b, kOp, "dimensions must be consecutive and in "
                          "order (%lld follows %lld)",
                          (long long)dimensions[i],
                          (long long)dimensions[i - 1]);
  }
  int64_t dims[HLX_MAX_RANK];
  int32_t rank = 0;
  for (int32_t i = 0; i < t->rank; i++) {
    if (i > dimensions[0] && i <= dimensions[n - 1]) {
      dims[rank - 1] *= t->dims[i];
      continue;
    }
    dims[rank++] = t->dims[i];
  }
  return hlx_builder_reshape(b, operand, dims, rank, out_value);
}

/* XLA Reshape(operand, dimensions, new_sizes): the operand collapsed in
 * the order `dimensions` (a transpose, when that is not the identity),
 * then refined into new_sizes. */
hlx_status_t hlx_builder_reshape_with_dimensions(hlx_builder_t* b,
                                                 uint32_t operand,
                                                 const int64_t* dimensions,
                                                 int32_t n,
                                                 const int64_t* new_sizes,
                                                 int32_t rank,
                                                 uint32_t* out_value) {
  static const char kOp[] = "reshape";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  const hlx_type_t* t = x->type;
  if (n != t->rank || (n > 0 && !dimensions))
    return hlx_bld_fail(b, kOp, "dimensions must list all %d operand "
                        "dimensions, got %d", (int)t->rank, (int)n);
  bool seen[HLX_MAX_RANK] = {false}, identity = true;
  for (int32_t i = 0; i < n; i++) {
    if (dimensions[i] < 0 || dimensions[i] >= n || seen[dimensions[i]])
      return hlx_bld_fail(b, kOp, "dimensions is not a permutation of 0..%d "
                          "(entry %d is %lld)", (int)n - 1, (int)i,
                          (long long)dimensions[i]);
    seen[dimensions[i]] = true;
    identity = identity && dimensions[i] == i;
  }
  uint32_t v = operand;
  if (!identity)
    HLX_RETURN_IF_ERROR(hlx_builder_transpose(b, operand, dimensions, n, &v));
  return hlx_builder_reshape(b, v, new_sizes, rank, out_value);
}

hlx_status_t hlx_builder_bitcast_convert(hlx_builder_t* b, uint32_t operand,
                                         hlx_element_type_t new_type,
                                         uint32_t* out_value) {
  static const char kOp[] = "bitcast_convert";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_check_element_type(b, kOp, new_type));
  hlx_dtype_t to = (hlx_dtype_t)new_type;
  const hlx_type_t* t = x->type;
  int in_bits = hlx_dtype_bits(t->dtype), out_bits = hlx_dtype_bits(to);
  if (hlx_dtype_is_pred(t->dtype) != hlx_dtype_is_pred(to))
    return hlx_bld_fail(b, kOp, "cannot bitcast between pred and %s",
                        hlx_dtype_name(hlx_dtype_is_pred(to) ? t->dtype : to));
  int64_t dims[HLX_MAX_RANK];
  int32_t rank = t->rank;
  if (rank) memcpy(dims, t->dims, sizeof(int64_t) * (size_t)rank);
  if (in_bits > out_bits) { /* one element becomes a last dim of parts */
    if (in_bits % out_bits || rank >= HLX_MAX_RANK)
      return hlx_bld_fail(b, kOp, "%d-bit %s does not split into %d-bit %s",
                          in_bits, hlx_dtype_name(t->dtype), out_bits,
                          hlx_dtype_name(to));
    dims[rank++] = in_bits / out_bits;
  } else if (in_bits < out_bits) { /* the last dim is joined into one */
    if (out_bits % in_bits || rank < 1 ||
        t->dims[rank - 1] != out_bits / in_bits)
      return hlx_bld_fail(b, kOp, "a %d-bit %s needs a last dimension of size "
                          "%d of %d-bit %s", out_bits, hlx_dtype_name(to),
                          out_bits / (in_bits ? in_bits : 1), in_bits,
                          hlx_dtype_name(t->dtype));
    rank--;
  }
  hlx_type_t* rt = hlx_bld_tensor_type(&b->module->arena, to, rank, dims);
  if (!rt) return hlx_bld_oom(b);
  return hlx_bld_emit1(b, HLX_OP_BITCAST_CONVERT, &x, 1, rt, NULL, 0, NULL,
                       out_value);
}

hlx_status_t hlx_builder_reduce_precision(hlx_builder_t* b, uint32_t operand,
                                          int32_t exponent_bits,
                                          int32_t mantissa_bits,
                                          uint32_t* out_value) {
  static const char kOp[] = "reduce_precision";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  if (!hlx_dtype_is_float(x->type->dtype))
    return hlx_bld_fail(b, kOp, "operand must be floating point, not %s",
                        hlx_dtype_name(x->type->dtype));
  if (exponent_bits < 1 || mantissa_bits < 0)
    return hlx_bld_fail(b, kOp, "exponent_bits %d must be >= 1 and "
                        "mantissa_bits %d >= 0", (int)exponent_bits,
                        (int)mantissa_bits);
  named_t attrs[] = {
      {"exponent_bits", hlx_bld_attr_int(b, exponent_bits, HLX_DTYPE_S32)},
      {"mantissa_bits", hlx_bld_attr_int(b, mantissa_bits, HLX_DTYPE_S32)}};
  return hlx_bld_emit1(b, HLX_OP_REDUCE_PRECISION, &x, 1, x->type, attrs, 2,
                       NULL, out_value);
}

hlx_status_t hlx_builder_optimization_barrier(hlx_builder_t* b,
                                              const uint32_t* operands,
                                              int32_t n, uint32_t* out_value) {
  static const char kOp[] = "optimization_barrier";
  BEGIN(b, out_value, kOp);
  if (n < 1 || n > 64 || !operands)
    return hlx_bld_fail(b, kOp, "needs 1 to 64 operands, got %d", (int)n);
  hlx_value_t* vs[64];
  hlx_type_t* ts[64];
  HLX_RETURN_IF_ERROR(hlx_bld_get_values(b, kOp, operands, n, vs, ts));
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_OPTIMIZATION_BARRIER, vs, n, ts, n,
                              NULL, 0);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}
