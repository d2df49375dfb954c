/* map: result[i] = computation(inputs...[i]). A body that is one unary or
 * binary elementwise op on the block arguments (in order) runs that op's
 * kernel over the whole tensor; any other body runs as a sub-plan per
 * element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/elementwise.h"

enum { kMaxMapInputs = 64 };

typedef struct map_args_t {
  int32_t n;
  size_t count;
  size_t in_size[kMaxMapInputs];
  size_t out_size;
  hlx_unary_fn unary;
  hlx_binary_fn binary;
  const hlx_plan_t* body;
  int32_t num_captures;
} map_args_t;

static hlx_status_t run_map_kernel(const void* args, void* const* in,
                                   void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const map_args_t* a = args;
  if (a->unary)
    a->unary(in[0], out[0], a->count);
  else
    a->binary(in[0], in[1], out[0], a->count);
  return NULL;
}

static hlx_status_t run_map_region(const void* args, void* const* in,
                                   void* const* out, hlx_run_ctx_t* ctx) {
  const map_args_t* a = args;
  int32_t np = a->n + a->num_captures;
  const void** params = calloc((size_t)np + 1, sizeof(void*));
  if (!params) return hlx_status_oom();
  for (int32_t c = 0; c < a->num_captures; c++)
    params[a->n + c] = in[a->n + c];
  hlx_status_t st = NULL;
  for (size_t i = 0; i < a->count && !st; i++) {
    for (int32_t k = 0; k < a->n; k++)
      params[k] = (const unsigned char*)in[k] + i * a->in_size[k];
    void* res[1] = {(unsigned char*)out[0] + i * a->out_size};
    st = hlx_plan_execute(a->body, params, res, ctx);
  }
  free(params);
  return st;
}

/* The unary/binary kernel when the body is `return op(arg0[, arg1])`. */
static void match_elementwise_body(const hlx_block_t* b, hlx_dtype_t in_t,
                                   hlx_dtype_t out_t, map_args_t* a) {
  if (b->num_ops != 2 || (b->num_args != 1 && b->num_args != 2)) return;
  const hlx_op_t* f = b->ops[0];
  const hlx_op_t* ret = b->ops[1];
  if (ret->num_operands != 1 || ret->operands[0] != f->results[0] ||
      f->num_results != 1 || f->num_operands != b->num_args ||
      f->num_regions != 0)
    return;
  for (int32_t i = 0; i < b->num_args; i++)
    if (f->operands[i] != b->args[i]) return;
  const char* name = hlx_opcode_name(f->code);
  char want[64];
  hlx_dtype_t got = HLX_DTYPE_INVALID;
  if (b->num_args == 1) {
    for (int op = 0; op < HLX_UNARY_COUNT; op++) {
      snprintf(want, sizeof want, "stablehlo.%s",
               hlx_unary_op_name((hlx_unary_op_t)op));
      if (strcmp(want, name) != 0) continue;
      hlx_unary_fn fn = hlx_ref_unary_kernel((hlx_unary_op_t)op, in_t, &got);
      if (fn && got == out_t) a->unary = fn;
      return;
    }
  } else {
    for (int op = 0; op < HLX_BINARY_COUNT; op++) {
      snprintf(want, sizeof want, "stablehlo.%s",
               hlx_binary_op_name((hlx_binary_op_t)op));
      if (strcmp(want, name) != 0) continue;
      hlx_binary_fn fn = hlx_ref_binary_kernel((hlx_binary_op_t)op, in_t, &got);
      if (fn && got == out_t) a->binary = fn;
      return;
    }
  }
}

static hlx_status_t lower_map(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  int32_t n = op->num_operands;
  if (n < 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) needs at least one input");
  if (n > kMaxMapInputs)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: more than %d inputs", kMaxMapInputs);
  if (op->num_results != 1 || op->num_regions != 1 ||
      op->regions[0]->num_blocks != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one result and one computation region");
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic result shape");
  bool quant = r->quant != NULL;
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    if (!t)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: input #%d has a dynamic shape", i);
    bool same = t->rank == r->rank;
    for (int32_t d = 0; same && d < r->rank; d++)
      same = t->dims[d] == r->dims[d];
    if (!same)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) input #%d's shape differs from the result's",
                          i);
    if (t->quant) quant = true;
  }
  const int64_t* dims;
  int32_t nd;
  HLX_RETURN_IF_ERROR(hlx_attr_i64_array(op, "dimensions", true, &dims, &nd));
  bool range = nd == r->rank;
  for (int32_t i = 0; range && i < nd; i++) range = dims[i] == i;
  if (!range)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) dimensions must be [0, ..., %d] (every "
                        "dimension in order)",
                        r->rank - 1);
  const hlx_block_t* b = op->regions[0]->blocks[0];
  if (b->num_args != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) computation takes %d arguments, expected %d",
                        b->num_args, n);
  for (int32_t i = 0; i < n; i++) {
    const hlx_type_t* at = b->args[i]->type;
    const hlx_type_t* it = op->operands[i]->type;
    if (!at || at->kind != HLX_TYPE_TENSOR || at->rank != 0 ||
        at->dtype != it->dtype || (!at->quant) != (!it->quant))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C4) computation argument #%d must be tensor<%s>",
                          i, hlx_dtype_name(it->dtype));
  }
  const hlx_op_t* ret = b->num_ops ? b->ops[b->num_ops - 1] : NULL;
  const hlx_type_t* rt =
      ret && ret->num_operands == 1 ? ret->operands[0]->type : NULL;
  if (!rt || rt->kind != HLX_TYPE_TENSOR || rt->rank != 0 ||
      rt->dtype != r->dtype || (!rt->quant) != (!r->quant))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) computation must return one tensor<%s> (the "
                        "result's element type)",
                        hlx_dtype_name(r->dtype));

  map_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->n = n;
  a->count = (size_t)hlx_type_num_elements(r);
  for (int32_t i = 0; i < n; i++)
    a->in_size[i] = hlx_dtype_size(op->operands[i]->type->dtype);
  a->out_size = hlx_dtype_size(r->dtype);
  int32_t out;
  bool same_in = true;
  for (int32_t i = 1; i < n; i++)
    same_in = same_in && op->operands[i]->type->dtype == op->operands[0]->type->dtype;
  if (!quant && same_in)
    match_elementwise_body(b, op->operands[0]->type->dtype, r->dtype, a);
  if (a->unary || a->binary) {
    int32_t ins[2];
    for (int32_t i = 0; i < n; i++)
      HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
    HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
    return hlx_lower_emit(c, op, run_map_kernel, a, n, ins, 1, &out);
  }
  hlx_plan_t* body;
  const hlx_value_t** caps;
  int32_t ncap;
  HLX_RETURN_IF_ERROR(hlx_lower_region(c, op->regions[0], &body, &caps, &ncap));
  if (body->num_params != n + ncap || body->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) computation must take %d scalars and return one",
                        n);
  a->body = body;
  a->num_captures = ncap;
  int32_t* ins = hlx_lower_alloc(c, ((size_t)(n + ncap) + 1) * sizeof(int32_t));
  if (!ins) return hlx_status_oom();
  for (int32_t i = 0; i < n; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &ins[i]));
  for (int32_t i = 0; i < ncap; i++) {
    hlx_value_slots_t s;
    HLX_RETURN_IF_ERROR(hlx_lower_slots_of(c, caps[i], &s));
    if (s.n != 1)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: computation captures a tuple");
    ins[n + i] = s.slots[0];
  }
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_map_region, a, n + ncap, ins, 1, &out);
}

const hlx_lowering_t hlx_lowerings_map[] = {
    {HLX_OP_MAP, lower_map},
    {HLX_OP_UNKNOWN, NULL},
};
