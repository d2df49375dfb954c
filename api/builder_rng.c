/* Builder: random numbers (XLA RngUniform, RngNormal as stablehlo.rng
 * with a constant shape operand; RngBitGenerator). */
#include <string.h>

#include "api/builder_internal.h"

static hlx_status_t rng(hlx_builder_t* b, const char* kOp, const char* dist,
                        uint32_t a, uint32_t c, const hlx_tensor_desc_t* desc,
                        uint32_t* out_value) {
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[3] = {NULL, NULL, NULL};
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "a", a, &vs[0]));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "b", c, &vs[1]));
  if (!desc) return hlx_bld_fail(b, kOp, "NULL shape");
  if (desc->element_type <= HLX_DTYPE_INVALID ||
      desc->element_type >= HLX_DTYPE_COUNT)
    return hlx_bld_fail(b, kOp, "unknown element type %d",
                        (int)desc->element_type);
  hlx_dtype_t dt = (hlx_dtype_t)desc->element_type;
  if (vs[0]->type->rank != 0 || vs[1]->type->rank != 0 ||
      vs[0]->type->dtype != dt || vs[1]->type->dtype != dt)
    return hlx_bld_fail(b, kOp, "both parameters must be rank-0 %s (the "
                        "shape's element type)", hlx_dtype_name(dt));
  if (strcmp(dist, "NORMAL") == 0 ? !hlx_dtype_is_float(dt)
                                  : !(hlx_dtype_is_float(dt) ||
                                      hlx_dtype_is_int(dt)))
    return hlx_bld_fail(b, kOp, "element type %s is not supported",
                        hlx_dtype_name(dt));
  if (desc->rank < 0 || desc->rank > HLX_MAX_DIMS)
    return hlx_bld_fail(b, kOp, "rank %d is out of range", (int)desc->rank);
  for (int32_t i = 0; i < desc->rank; i++)
    if (desc->dims[i] < 0)
      return hlx_bld_fail(b, kOp, "dimension %d has negative size", (int)i);
  /* The shape operand: a constant tensor<rank x i64>. */
  hlx_tensor_desc_t sd;
  memset(&sd, 0, sizeof sd);
  sd.element_type = HLX_DTYPE_S64;
  sd.rank = 1;
  sd.dims[0] = desc->rank;
  uint32_t shape_id;
  HLX_RETURN_IF_ERROR(hlx_builder_constant(b, &sd, desc->dims, &shape_id));
  vs[2] = b->values[shape_id];
  hlx_type_t* t =
      hlx_bld_tensor_type(&b->module->arena, dt, desc->rank, desc->dims);
  if (!t) return hlx_bld_oom(b);
  named_t attrs[] = {
      {"rng_distribution", hlx_bld_attr_enum(b, "rng_distribution", dist)}};
  return hlx_bld_emit1(b, HLX_OP_RNG, vs, 3, t, attrs, 1, NULL, out_value);
}

hlx_status_t hlx_builder_rng_uniform(hlx_builder_t* b, uint32_t a, uint32_t bv,
                                     const hlx_tensor_desc_t* desc,
                                     uint32_t* out_value) {
  return rng(b, "rng_uniform", "UNIFORM", a, bv, desc, out_value);
}

hlx_status_t hlx_builder_rng_normal(hlx_builder_t* b, uint32_t mu,
                                    uint32_t sigma,
                                    const hlx_tensor_desc_t* desc,
                                    uint32_t* out_value) {
  return rng(b, "rng_normal", "NORMAL", mu, sigma, desc, out_value);
}

hlx_status_t hlx_builder_rng_bit_generator(hlx_builder_t* b,
                                           hlx_rng_algorithm_t algorithm,
                                           uint32_t initial_state,
                                           const hlx_tensor_desc_t* desc,
                                           uint32_t* out_value) {
  static const char kOp[] = "rng_bit_generator";
  static const char* const kAlg[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
  BEGIN(b, out_value, kOp);
  hlx_value_t* s = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "initial_state",
                                         initial_state, &s));
  if ((int)algorithm < 0 || (int)algorithm > 2)
    return hlx_bld_fail(b, kOp, "unknown algorithm %d", (int)algorithm);
  const hlx_type_t* st = s->type;
  if (st->rank != 1 || st->dtype != HLX_DTYPE_U64)
    return hlx_bld_fail(b, kOp, "initial_state must be a rank-1 u64 tensor");
  if ((algorithm == HLX_RNG_THREE_FRY && st->dims[0] != 2) ||
      (algorithm == HLX_RNG_PHILOX && st->dims[0] != 2 && st->dims[0] != 3))
    return hlx_bld_fail(b, kOp, "%s needs a state of %s u64 values, not %lld",
                        kAlg[algorithm],
                        algorithm == HLX_RNG_THREE_FRY ? "2" : "2 or 3",
                        (long long)st->dims[0]);
  if (!desc) return hlx_bld_fail(b, kOp, "NULL shape");
  if (desc->element_type <= HLX_DTYPE_INVALID ||
      desc->element_type >= HLX_DTYPE_COUNT)
    return hlx_bld_fail(b, kOp, "unknown element type %d",
                        (int)desc->element_type);
  hlx_dtype_t dt = (hlx_dtype_t)desc->element_type;
  if (!hlx_dtype_is_int(dt) && !hlx_dtype_is_float(dt))
    return hlx_bld_fail(b, kOp, "output element type %s is not an integer or "
                        "float type", hlx_dtype_name(dt));
  if (desc->rank < 0 || desc->rank > HLX_MAX_DIMS)
    return hlx_bld_fail(b, kOp, "rank %d is out of range", (int)desc->rank);
  hlx_type_t* rts[2] = {s->type, hlx_bld_tensor_type(&b->module->arena, dt,
                                                     desc->rank, desc->dims)};
  named_t attrs[] = {
      {"rng_algorithm", hlx_bld_attr_enum(b, "rng_algorithm", kAlg[algorithm])}};
  hlx_op_t* op = hlx_bld_emit(b, HLX_OP_RNG_BIT_GENERATOR, &s, 1, rts, 2,
                              attrs, 1);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}
