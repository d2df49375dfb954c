/* reduce: a recognised combiner (add, max, ...) runs the reduce kernel;
 * any other body (variadic argmax, custom regions) is applied element by
 * element in row-major order of the reduced dimensions. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "graph/lower/region_match.h"
#include "kernels/dispatch.h"
#include "kernels/reduce.h"

typedef struct reduce_args_t {
  hlx_reduce_op_t op;
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];
  uint32_t mask;
} reduce_args_t;

static hlx_status_t run_reduce(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const reduce_args_t* a = args;
  /* Dispatched: an ISA kernel when one fits, else hlx_ref_reduce. */
  hlx_reduce(a->op, a->dtype, a->rank, a->dims, a->mask, in[0], in[1], out[0]);
  return NULL;
}

/* General path: N operands, N inits, a body sub-plan. */
typedef struct reduce_region_args_t {
  int32_t n; /* operands */
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];
  uint32_t mask;
  size_t elem_size[64];
  const hlx_plan_t* body;
  int32_t num_captures; /* task inputs after the 2n explicit ones */
} reduce_region_args_t;

static hlx_status_t run_reduce_region(const void* args, void* const* in,
                                      void* const* out, hlx_run_ctx_t* ctx) {
  const reduce_region_args_t* a = args;
  int32_t n = a->n, np = 2 * n + a->num_captures;
  int64_t stride[HLX_MAX_RANK], s = 1;
  for (int32_t d = a->rank - 1; d >= 0; d--) {
    stride[d] = s;
    s *= a->dims[d];
  }
  /* acc_i: the running value of operand i's reduction, scalar buffers. */
  unsigned char* acc = malloc(2 * 64 * (size_t)n + 16);
  const void** params = calloc((size_t)np + 1, sizeof(void*));
  void** results = calloc((size_t)n + 1, sizeof(void*));
  if (!acc || !params || !results) {
    free(acc);
    free(params);
    free(results);
    return hlx_status_oom();
  }
  unsigned char* next = acc + 64 * (size_t)n;
  for (int32_t c = 0; c < a->num_captures; c++) params[2 * n + c] = in[2 * n + c];
  hlx_status_t st = NULL;
  int64_t kept_idx[HLX_MAX_RANK] = {0};
  int64_t out_i = 0;
  for (bool more_out = true; more_out && !st; out_i++) {
    int64_t base = 0;
    for (int32_t d = 0; d < a->rank; d++)
      if (!(a->mask & (1u << d))) base += kept_idx[d] * stride[d];
    for (int32_t i = 0; i < n; i++)
      memcpy(acc + 64 * i, in[n + i], a->elem_size[i]);
    int64_t red_idx[HLX_MAX_RANK] = {0};
    bool empty = false;
    for (int32_t d = 0; d < a->rank; d++)
      if ((a->mask & (1u << d)) && a->dims[d] == 0) empty = true;
    for (bool more = !empty; more && !st;) {
      int64_t off = base;
      for (int32_t d = 0; d < a->rank; d++)
        if (a->mask & (1u << d)) off += red_idx[d] * stride[d];
      for (int32_t i = 0; i < n; i++) {
        params[i] = acc + 64 * i;
        params[n + i] = (const unsigned char*)in[i] + off * (int64_t)a->elem_size[i];
        results[i] = next + 64 * i;
      }
      st = hlx_plan_execute(a->body, params, results, ctx);
      memcpy(acc, next, 64 * (size_t)n);
      more = false;
      for (int32_t d = a->rank - 1; d >= 0; d--) {
        if (!(a->mask & (1u << d))) continue;
        if (++red_idx[d] < a->dims[d]) {
          more = true;
          break;
        }
        red_idx[d] = 0;
      }
    }
    for (int32_t i = 0; i < n; i++)
      memcpy((unsigned char*)out[i] + out_i * (int64_t)a->elem_size[i],
             acc + 64 * i, a->elem_size[i]);
    more_out = false;
    for (int32_t d = a->rank - 1; d >= 0; d--) {
      if (a->mask & (1u << d)) continue;
      if (++kept_idx[d] < a->dims[d]) {
        more_out = true;
        break;
      }
      kept_idx[d] = 0;
    }
  }
  free(acc);
  free(params);
  free(results);
  return st;
}

static hlx_status_t lower_reduce(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  int32_t n = op->num_operands / 2;
  if (op->num_operands % 2 || n < 1 || op->num_results != n ||
      op->num_regions != 1 || n > 64)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) needs N inputs, N init values (1 <= N <= 64), "
                        "N results and a body");
  const hlx_type_t* in0 = hlx_static_tensor(op->operands[0]);
  if (!in0 || in0->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic or rank > %d input",
                        HLX_MAX_RANK);
  const int64_t* dims;
  int32_t nd;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "dimensions", true, &dims, &nd));
  uint32_t mask = 0;
  for (int32_t i = 0; i < nd; i++) {
    if (dims[i] < 0 || dims[i] >= in0->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C4) dimensions[%d] = %lld is out of range for "
                          "rank %d",
                          i, (long long)dims[i], in0->rank);
    if (mask & (1u << dims[i]))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C5) dimensions[%d] = %lld is repeated", i,
                          (long long)dims[i]);
    mask |= 1u << dims[i];
  }
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    const hlx_type_t* init = hlx_static_tensor(op->operands[n + i]);
    const hlx_type_t* r = hlx_static_tensor(op->results[i]);
    if (!t || !init || !r || t->rank != in0->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "input #%d must be static with the shape of input #0",
                          i);
    for (int32_t d = 0; d < t->rank; d++)
      if (t->dims[d] != in0->dims[d])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C1) inputs #0 and #%d have different shapes", i);
    if (init->rank != 0 || init->dtype != t->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) init value #%d must be a scalar of the input's "
                          "element type",
                          i);
    if (r->rank != t->rank - nd)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C7) result #%d has rank %d, expected %d", i, r->rank,
                          t->rank - nd);
    for (int32_t d = 0, k = 0; d < t->rank; d++)
      if (!(mask & (1u << d)) && r->dims[k++] != t->dims[d])
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "(C7) result #%d's shape is not the input's kept dims",
                            i);
  }
  /* (C6) body: (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...);
   * (C8) element_type(results[i]) = Ei. */
  const hlx_region_t* region = op->regions[0];
  const hlx_block_t* bb = region->num_blocks == 1 ? region->blocks[0] : NULL;
  const hlx_op_t* ret = bb && bb->num_ops ? bb->ops[bb->num_ops - 1] : NULL;
  if (!ret || bb->num_args != 2 * n || ret->num_operands != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C6) body must take %d scalars and return %d", 2 * n,
                        n);
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* e = bb->args[i]->type;
    bool scalar = e->kind == HLX_TYPE_TENSOR && e->rank == 0;
    if (!scalar || !hlx_type_equal(bb->args[n + i]->type, e) ||
        !hlx_type_equal(ret->operands[i]->type, e))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C6) body arguments #%d and #%d and result #%d "
                          "must be the same scalar type",
                          i, n + i, i);
    if (op->results[i]->type->dtype != e->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C8) result #%d has element type %s, the body "
                          "computes %s",
                          i, hlx_dtype_name(op->results[i]->type->dtype),
                          hlx_dtype_name(e->dtype));
  }
  hlx_reduce_op_t rop;
  if (n == 1 && !in0->quant &&
      hlx_region_is_simple_combiner(op->regions[0], &rop) &&
      op->results[0]->type->dtype == in0->dtype) {
    reduce_args_t* a = hlx_lower_alloc(c, sizeof(*a));
    if (!a) return hlx_status_oom();
    a->op = rop;
    a->dtype = in0->dtype;
    a->rank = in0->rank;
    /* dims may be NULL at rank 0 */
    if (in0->rank)
      memcpy(a->dims, in0->dims, sizeof(int64_t) * (size_t)in0->rank);
    a->mask = mask;
    unsigned char z[16] = {0}, o[16];
    int64_t one = 1;
    if (hlx_ref_reduce(rop, a->dtype, 1, &one, 1, z, z, o)) {
      return hlx_lower_emit_simple(c, op, run_reduce, a, 2);
    }
  }
  reduce_region_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->n = n;
  a->rank = in0->rank;
  /* dims may be NULL at rank 0 */
  if (in0->rank)
    memcpy(a->dims, in0->dims, sizeof(int64_t) * (size_t)in0->rank);
  a->mask = mask;
  for (int32_t i = 0; i < n; i++)
    a->elem_size[i] = hlx_dtype_size(op->operands[i]->type->dtype);
  hlx_plan_t* body;
  const hlx_value_t** caps;
  int32_t ncap;
  HLX_RETURN_IF_ERROR(hlx_lower_region(c, op->regions[0], &body, &caps, &ncap));
  if (body->num_params != 2 * n + ncap || body->num_results != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "body must take %d scalars and return %d", 2 * n, n);
  a->body = body;
  int32_t* ins = hlx_lower_alloc(c, ((size_t)(2 * n + ncap) + 1) * 4);
  if (!ins) return hlx_status_oom();
  for (int32_t i = 0; i < 2 * n; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
  int32_t nin = 2 * n;
  for (int32_t i = 0; i < ncap; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, caps[i], &s));
    if (s.n != 1)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: body captures a tuple");
    ins[nin++] = s.slots[0];
  }
  a->num_captures = ncap;
  int32_t *outs, nout;
  HLX_RETURN_IF_ERROR(hlx_lower_flatten(c, op, true, &outs, &nout));
  return hlx_lower_emit(c, op, run_reduce_region, a, nin, ins, nout, outs);
}

const hlx_lowering_t hlx_lowerings_reduce[] = {
    {HLX_OP_REDUCE, lower_reduce},
    {HLX_OP_UNKNOWN, NULL},
};
