/* Lowering of rng_bit_generator and rng onto kernels/rng.h. */
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/rng.h"

/* ---- rng_bit_generator --------------------------------------------------- */

typedef struct rbg_args_t {
  hlx_rng_algorithm_t alg;
  int32_t state_size;
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];
} rbg_args_t;

static hlx_status_t run_rbg(const void* args, void* const* in,
                            void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const rbg_args_t* a = args;
  return hlx_ref_rng_bit_generator(a->alg, in[0], a->state_size, out[0],
                                   a->dtype, a->rank, a->dims, out[1]);
}

static hlx_status_t lower_rng_bit_generator(hlx_lower_ctx_t* c,
                                            const hlx_op_t* op) {
  if (op->num_operands != 1 || op->num_results != 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one operand (initial_state) and two results "
                        "(output_state, output)");
  const hlx_type_t* st = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* ost = hlx_static_tensor(op->results[0]);
  const hlx_type_t* ot = hlx_static_tensor(op->results[1]);
  if (!st || !ost || !ot)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes");
  if (st->rank != 1 || st->dtype != HLX_DTYPE_U64 || st->quant)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I2) initial_state must be a 1-dimensional tensor of "
                        "ui64, got rank %d of %s",
                        st->rank, hlx_dtype_name(st->dtype));
  if (!hlx_type_equal(st, ost))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) type(initial_state) must equal "
                        "type(output_state)");
  if (ot->quant ||
      !(hlx_dtype_is_int(ot->dtype) || hlx_dtype_is_float(ot->dtype)))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "output must be a tensor of integer or floating-point "
                        "type, got %s",
                        hlx_dtype_name(ot->dtype));
  if (ot->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: rank above %d", HLX_MAX_RANK);
  const hlx_attr_t* al = hlx_op_attr(op, "rng_algorithm");
  const char* name = al && al->kind == HLX_ATTR_ENUM ? al->enum_value : NULL;
  hlx_rng_algorithm_t alg;
  int64_t size = st->dims[0];
  if (!name)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I1) rng_algorithm must be DEFAULT, THREE_FRY or "
                        "PHILOX");
  if (strcmp(name, "THREE_FRY") == 0) {
    alg = HLX_RNG_THREE_FRY;
    if (size != 2)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) size(initial_state) must be 2 for THREE_FRY, "
                          "got %lld",
                          (long long)size);
  } else if (strcmp(name, "PHILOX") == 0 || strcmp(name, "DEFAULT") == 0) {
    alg = HLX_RNG_PHILOX; /* DEFAULT is PHILOX, as on XLA's CPU backend */
    if (size != 2 && size != 3)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) size(initial_state) must be 2 or 3 for %s, "
                          "got %lld",
                          name, (long long)size);
  } else {
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I1) rng_algorithm must be DEFAULT, THREE_FRY or "
                        "PHILOX, got %s",
                        name);
  }
  rbg_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->alg = alg;
  a->state_size = (int32_t)size;
  a->dtype = ot->dtype;
  a->rank = ot->rank;
  if (ot->rank) memcpy(a->dims, ot->dims, sizeof(int64_t) * (size_t)ot->rank);
  int32_t in, out[2];
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out[0]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 1, &out[1]));
  return hlx_lower_emit(c, op, run_rbg, a, 1, &in, 2, out);
}

/* ---- rng ----------------------------------------------------------------- */

typedef struct rng_args_t {
  hlx_rng_distribution_t dist;
  hlx_dtype_t dtype;
  uint64_t seed;
  int64_t n;
} rng_args_t;

static hlx_status_t run_rng(const void* args, void* const* in,
                            void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const rng_args_t* a = args;
  return hlx_ref_rng(a->dist, a->dtype, in[0], in[1], a->seed, a->n, out[0]);
}

static hlx_status_t lower_rng(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands != 3 || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs three operands (a, b, shape) and one result");
  const hlx_type_t* at = hlx_static_tensor(op->operands[0]);
  const hlx_type_t* bt = hlx_static_tensor(op->operands[1]);
  const hlx_type_t* st = hlx_static_tensor(op->operands[2]);
  const hlx_type_t* rt = hlx_static_tensor(op->results[0]);
  if (!at || !bt || !st || !rt)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes");
  if (at->rank != 0 || bt->rank != 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I1/I2) a and b must be 0-dimensional tensors, got "
                        "ranks %d and %d",
                        at->rank, bt->rank);
  hlx_dtype_t t = rt->dtype;
  if (at->quant || bt->quant || rt->quant ||
      !(hlx_dtype_is_int(t) || hlx_dtype_is_float(t) || hlx_dtype_is_pred(t)))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result must be a tensor of integer, boolean or "
                        "floating-point type, got %s",
                        hlx_dtype_name(t));
  if (at->dtype != t || bt->dtype != t)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) element_type(a) = %s, element_type(b) = %s and "
                        "element_type(result) = %s must be equal",
                        hlx_dtype_name(at->dtype), hlx_dtype_name(bt->dtype),
                        hlx_dtype_name(t));
  const hlx_attr_t* d = hlx_op_attr(op, "rng_distribution");
  const char* name = d && d->kind == HLX_ATTR_ENUM ? d->enum_value : NULL;
  hlx_rng_distribution_t dist;
  if (name && strcmp(name, "UNIFORM") == 0) {
    dist = HLX_RNG_UNIFORM;
  } else if (name && strcmp(name, "NORMAL") == 0) {
    dist = HLX_RNG_NORMAL;
    if (!hlx_dtype_is_float(t))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) NORMAL needs a floating-point a, got %s",
                          hlx_dtype_name(t));
  } else {
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I4) rng_distribution must be UNIFORM or NORMAL");
  }
  if (st->rank != 1 || !hlx_dtype_is_int(st->dtype))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I3) shape must be a 1-dimensional integer tensor");
  if (st->dims[0] != rt->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) shape has %lld elements but the result has "
                        "rank %d",
                        (long long)st->dims[0], rt->rank);
  if (rt->rank > 0 && rt->rank <= HLX_MAX_RANK) {
    int64_t shape[HLX_MAX_RANK];
    int32_t ns = 0;
    /* A non-constant shape cannot be checked here; the result type rules. */
    hlx_status_t cs = hlx_op_constant_i64(op, 2, shape, HLX_MAX_RANK, &ns);
    if (cs) {
      hlx_status_free(cs);
    } else if (ns == rt->rank) {
      for (int32_t i = 0; i < ns; i++)
        if (shape[i] != rt->dims[i])
          return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                              "(C3) shape[%d] = %lld but the result's dim %d "
                              "is %lld",
                              i, (long long)shape[i], i,
                              (long long)rt->dims[i]);
    }
  }
  rng_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->dist = dist;
  a->dtype = t;
  /* Deterministic per op: seeded by its source position. */
  a->seed = (uint64_t)(uint32_t)op->line << 32 | (uint32_t)op->col;
  a->n = hlx_type_num_elements(rt);
  int32_t in[2], out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in[0]));
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 1, &in[1]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_rng, a, 2, in, 1, &out);
}

const hlx_lowering_t hlx_lowerings_rng[] = {
    {HLX_OP_RNG_BIT_GENERATOR, lower_rng_bit_generator},
    {HLX_OP_RNG, lower_rng},
    {HLX_OP_UNKNOWN, NULL},
};
