/* Builder: windowed ops (XLA ReduceWindow, SelectAndScatter) and the window
 * arithmetic and computation checks the other op families share. */
#include <stdio.h>
#include <string.h>

#include "api/builder_internal.h"

hlx_status_t hlx_bld_check_scalar_computation(hlx_builder_t* b,
                                              const char* op,
                                              const char* role,
                                              const hlx_computation_t* comp,
                                              int32_t nargs, hlx_dtype_t in,
                                              int32_t nres, hlx_dtype_t out) {
  if (!comp) return hlx_bld_fail(b, op, "NULL %s computation", role);
  const hlx_func_t* f = comp->func;
  if (f->num_args != nargs || f->num_results != nres)
    return hlx_bld_fail(b, op,
                        "the %s must take %d parameters and return %d "
                        "value%s (it takes %d and returns %d)",
                        role, (int)nargs, (int)nres, nres == 1 ? "" : "s",
                        (int)f->num_args,
                        (int)f->num_results);
  const hlx_block_t* blk = f->body->blocks[0];
  for (int32_t i = 0; i < nargs; i++) {
    const hlx_type_t* t = blk->args[i]->type;
    if (t->kind != HLX_TYPE_TENSOR || t->rank != 0 || t->dtype != in)
      return hlx_bld_fail(b, op, "%s parameter %d must be a rank-0 %s", role,
                          (int)i, hlx_dtype_name(in));
  }
  for (int32_t i = 0; i < nres; i++) {
    const hlx_type_t* t = f->result_types[i];
    if (t->kind != HLX_TYPE_TENSOR || t->rank != 0 || t->dtype != out)
      return hlx_bld_fail(b, op, "the %s must return a rank-0 %s", role,
                          hlx_dtype_name(out));
  }
  return NULL;
}

int64_t hlx_bld_window_count(int64_t size, int64_t window, int64_t stride,
                             int64_t lo, int64_t hi, int64_t base_dilation,
                             int64_t window_dilation) {
  if (window < 1 || stride < 1 || base_dilation < 1 || window_dilation < 1)
    return -1;
  int64_t padded = (size == 0 ? 0 : (size - 1) * base_dilation + 1) + lo + hi;
  int64_t span = (window - 1) * window_dilation + 1;
  if (padded < span) return 0;
  return (padded - span) / stride + 1;
}

void hlx_bld_same_padding(int64_t size, int64_t window, int64_t stride,
                          int64_t window_dilation, int64_t* lo, int64_t* hi) {
  int64_t out = (size + stride - 1) / stride;
  int64_t span = (window - 1) * window_dilation + 1;
  int64_t total = (out - 1) * stride + span - size;
  if (total < 0) total = 0;
  *lo = total / 2;
  *hi = total - *lo;
}

hlx_status_t hlx_bld_results_value(hlx_builder_t* b, hlx_op_t* op,
                                   uint32_t* out_value) {
  uint32_t ids[64];
  if (op->num_results > 64) return hlx_bld_fail(b, op->name, "too many results");
  HLX_RETURN_IF_ERROR(hlx_bld_register_results(b, op, ids));
  if (op->num_results == 1) {
    *out_value = ids[0];
    return NULL;
  }
  return hlx_builder_tuple(b, ids, op->num_results, out_value);
}

/* Checks window dims/strides/dilations/padding of rank entries and fills
 * the result dims. NULL arrays take their defaults. */
static hlx_status_t window_shape(hlx_builder_t* b, const char* kOp,
                                 const hlx_type_t* t, const int64_t* wd,
                                 const int64_t* ws, const int64_t* bd,
                                 const int64_t* wdl, const int64_t* pad,
                                 int64_t* out_dims) {
  if (!wd) return hlx_bld_fail(b, kOp, "window_dimensions are required");
  for (int32_t d = 0; d < t->rank; d++) {
    int64_t s = ws ? ws[d] : 1, x = bd ? bd[d] : 1, y = wdl ? wdl[d] : 1;
    if (wd[d] < 1)
      return hlx_bld_fail(b, kOp, "window dimension %d is %lld, must be >= 1",
                          (int)d, (long long)wd[d]);
    if (s < 1)
      return hlx_bld_fail(b, kOp, "window stride %d is %lld, must be >= 1",
                          (int)d, (long long)s);
    if (x < 1 || y < 1)
      return hlx_bld_fail(b, kOp, "dilation of dimension %d must be >= 1",
                          (int)d);
    out_dims[d] = hlx_bld_window_count(t->dims[d], wd[d], s,
                                       pad ? pad[2 * d] : 0,
                                       pad ? pad[2 * d + 1] : 0, x, y);
  }
  return NULL;
}

static hlx_attr_t* pad_attr(hlx_builder_t* b, const int64_t* pad,
                            int32_t rank) {
  int64_t zeros[2 * HLX_MAX_RANK] = {0};
  return hlx_bld_attr_dense_i64(b, pad ? pad : zeros, rank, 2);
}

const int64_t* hlx_bld_or_ones(const int64_t* v) {
  static const int64_t kOnes[HLX_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1,
                                              1, 1, 1, 1, 1, 1, 1, 1};
  return v ? v : kOnes;
}

hlx_status_t hlx_bld_check_variadic_computation(hlx_builder_t* b,
                                                const char* op,
                                                const hlx_computation_t* comp,
                                                hlx_value_t* const* operands,
                                                int32_t n) {
  if (!comp) return hlx_bld_fail(b, op, "NULL computation");
  const hlx_func_t* f = comp->func;
  if (f->num_args != 2 * n || f->num_results != n)
    return hlx_bld_fail(b, op, "the computation must take %d parameters and "
                        "return %d value%s (it takes %d, returns %d)",
                        (int)(2 * n), (int)n, n == 1 ? "" : "s",
                        (int)f->num_args, (int)f->num_results);
  for (int32_t i = 0; i < 2 * n; i++) {
    const hlx_type_t* at = f->body->blocks[0]->args[i]->type;
    hlx_dtype_t want = operands[i % n]->type->dtype;
    if (at->kind != HLX_TYPE_TENSOR || at->rank != 0 || at->dtype != want)
      return hlx_bld_fail(b, op, "computation parameter %d must be a rank-0 %s",
                          (int)i, hlx_dtype_name(want));
    const hlx_type_t* rt = i < n ? f->result_types[i] : NULL;
    if (rt && (rt->kind != HLX_TYPE_TENSOR || rt->rank != 0 || rt->dtype != want))
      return hlx_bld_fail(b, op, "computation result %d must be a rank-0 %s",
                          (int)i, hlx_dtype_name(want));
  }
  return NULL;
}

hlx_status_t hlx_bld_get_values(hlx_builder_t* b, const char* op,
                                const uint32_t* ids, int32_t n,
                                hlx_value_t** vs, hlx_type_t** ts) {
  if (n < 0 || n > 64 || (n > 0 && !ids))
    return hlx_bld_fail(b, op, "needs 0 to 64 operands, got %d", (int)n);
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, "operand %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_value(b, op, role, ids[i], &vs[i]));
    if (ts) ts[i] = vs[i]->type;
  }
  return NULL;
}

hlx_status_t hlx_bld_variadic_operands(hlx_builder_t* b, const char* op,
                                       const uint32_t* operands,
                                       const uint32_t* inits, int32_t n,
                                       hlx_value_t** vs) {
  if (n < 1 || n > 64 || !operands || !inits)
    return hlx_bld_fail(b, op, "needs 1 to 64 operands and inits, got %d",
                        (int)n);
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, n == 1 ? "operand" : "operand %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, op, role, operands[i], &vs[i]));
    if (!hlx_bld_same_dims(vs[i]->type, vs[0]->type))
      return hlx_bld_fail(b, op, "operand %d has another shape than operand 0",
                          (int)i);
  }
  for (int32_t i = 0; i < n; i++) {
    char role[32];
    snprintf(role, sizeof role, n == 1 ? "init" : "init %d", (int)i);
    HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, op, role, inits[i], &vs[n + i]));
    if (vs[n + i]->type->rank != 0 ||
        vs[n + i]->type->dtype != vs[i]->type->dtype)
      return hlx_bld_fail(b, op, "%s must be a rank-0 %s, like %s's elements",
                          role, hlx_dtype_name(vs[i]->type->dtype),
                          n == 1 ? "the operand" : "its operand");
  }
  return NULL;
}

hlx_status_t hlx_builder_reduce_window_variadic(
    hlx_builder_t* b, const uint32_t* operands, const uint32_t* inits,
    int32_t n, const hlx_computation_t* computation,
    const int64_t* window_dimensions, const int64_t* window_strides,
    const int64_t* base_dilations, const int64_t* window_dilations,
    const int64_t* padding, uint32_t* out_value) {
  static const char kOp[] = "reduce_window";
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[128];
  HLX_RETURN_IF_ERROR(
      hlx_bld_variadic_operands(b, kOp, operands, inits, n, vs));
  HLX_RETURN_IF_ERROR(
      hlx_bld_check_variadic_computation(b, kOp, computation, vs, n));
  const hlx_type_t* t0 = vs[0]->type;
  int32_t rank = t0->rank;
  int64_t dims[HLX_MAX_RANK];
  HLX_RETURN_IF_ERROR(window_shape(b, kOp, t0, window_dimensions,
                                   window_strides, base_dilations,
                                   window_dilations, padding, dims));
  hlx_type_t* rts[64];
  for (int32_t i = 0; i < n; i++)
    rts[i] = hlx_bld_tensor_type(&b->module->arena, vs[i]->type->dtype, rank,
                                 dims);
  named_t attrs[] = {
      {"window_dimensions", hlx_bld_attr_i64s(b, window_dimensions, rank)},
      {"window_strides", hlx_bld_attr_i64s(b, hlx_bld_or_ones(window_strides), rank)},
      {"base_dilations", hlx_bld_attr_i64s(b, hlx_bld_or_ones(base_dilations), rank)},
      {"window_dilations",
       hlx_bld_attr_i64s(b, hlx_bld_or_ones(window_dilations), rank)},
      {"padding", pad_attr(b, padding, rank)},
  };
  hlx_op_t* op =
      hlx_bld_emit(b, HLX_OP_REDUCE_WINDOW, vs, 2 * n, rts, n, attrs, 5);
  if (!op) return hlx_bld_oom(b);
  HLX_RETURN_IF_ERROR(hlx_bld_attach_regions(b, op, &computation, NULL, 1));
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_reduce_window_general(
    hlx_builder_t* b, uint32_t operand, uint32_t init,
    const hlx_computation_t* computation, const int64_t* window_dimensions,
    const int64_t* window_strides, const int64_t* base_dilations,
    const int64_t* window_dilations, const int64_t* padding,
    uint32_t* out_value) {
  return hlx_builder_reduce_window_variadic(
      b, &operand, &init, 1, computation, window_dimensions, window_strides,
      base_dilations, window_dilations, padding, out_value);
}

/* VALID / SAME as explicit (low, high) pairs. */
hlx_status_t hlx_bld_padding_pairs(hlx_builder_t* b, const char* kOp,
                                   const hlx_type_t* t, const int64_t* first,
                                   int32_t n, const int64_t* wd,
                                   const int64_t* ws, const int64_t* wdl,
                                   hlx_padding_t padding, int64_t* pad) {
  if (padding != HLX_PADDING_VALID && padding != HLX_PADDING_SAME)
    return hlx_bld_fail(b, kOp, "padding must be HLX_PADDING_VALID or _SAME");
  if (!wd) return hlx_bld_fail(b, kOp, "window dimensions are required");
  for (int32_t i = 0; i < n; i++) {
    pad[2 * i] = pad[2 * i + 1] = 0;
    int64_t d = first ? first[i] : i;
    int64_t s = ws ? ws[i] : 1;
    if (padding == HLX_PADDING_SAME && s >= 1)
      hlx_bld_same_padding(t->dims[d], wd[i], s, wdl ? wdl[i] : 1,
                           &pad[2 * i], &pad[2 * i + 1]);
  }
  return NULL;
}

hlx_status_t hlx_builder_reduce_window(hlx_builder_t* b, uint32_t operand,
                                       uint32_t init,
                                       const hlx_computation_t* computation,
                                       const int64_t* window_dimensions,
                                       const int64_t* window_strides,
                                       hlx_padding_t padding,
                                       uint32_t* out_value) {
  static const char kOp[] = "reduce_window";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  int64_t pad[2 * HLX_MAX_RANK];
  HLX_RETURN_IF_ERROR(hlx_bld_padding_pairs(b, kOp, x->type, NULL, x->type->rank,
                                    window_dimensions, window_strides, NULL,
                                    padding, pad));
  return hlx_builder_reduce_window_general(b, operand, init, computation,
                                           window_dimensions, window_strides,
                                           NULL, NULL, pad, out_value);
}

hlx_status_t hlx_builder_select_and_scatter(
    hlx_builder_t* b, uint32_t operand, const hlx_computation_t* select,
    const int64_t* window_dimensions, const int64_t* window_strides,
    const int64_t* padding, uint32_t source, uint32_t init,
    const hlx_computation_t* scatter, uint32_t* out_value) {
  static const char kOp[] = "select_and_scatter";
  BEGIN(b, out_value, kOp);
  hlx_value_t *x = NULL, *src = NULL, *iv = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "source", source, &src));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "init", init, &iv));
  hlx_dtype_t dt = x->type->dtype;
  if (src->type->dtype != dt || iv->type->dtype != dt || iv->type->rank != 0)
    return hlx_bld_fail(b, kOp,
                        "source and init (rank 0) must have the operand's "
                        "element type %s",
                        hlx_dtype_name(dt));
  HLX_RETURN_IF_ERROR(hlx_bld_check_scalar_computation(
      b, kOp, "select", select, 2, dt, 1, HLX_DTYPE_PRED));
  HLX_RETURN_IF_ERROR(hlx_bld_check_scalar_computation(
      b, kOp, "scatter", scatter, 2, dt, 1, dt));
  int32_t rank = x->type->rank;
  int64_t dims[HLX_MAX_RANK];
  HLX_RETURN_IF_ERROR(window_shape(b, kOp, x->type, window_dimensions,
                                   window_strides, NULL, NULL, padding, dims));
  if (src->type->rank != rank)
    return hlx_bld_fail(b, kOp, "source has rank %d, operand %d",
                        (int)src->type->rank, (int)rank);
  for (int32_t d = 0; d < rank; d++)
    if (src->type->dims[d] != dims[d])
      return hlx_bld_fail(b, kOp,
                          "source dimension %d has size %lld, but there are "
                          "%lld windows along it",
                          (int)d, (long long)src->type->dims[d],
                          (long long)dims[d]);
  named_t attrs[] = {
      {"window_dimensions", hlx_bld_attr_i64s(b, window_dimensions, rank)},
      {"window_strides", hlx_bld_attr_i64s(b, hlx_bld_or_ones(window_strides), rank)},
      {"padding", pad_attr(b, padding, rank)},
  };
  hlx_value_t* ops[3] = {x, src, iv};
  hlx_value_t* r = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_emit1(b, HLX_OP_SELECT_AND_SCATTER, ops, 3,
                                    x->type, attrs, 3, &r, out_value));
  const hlx_computation_t* comps[2] = {select, scatter};
  return hlx_bld_attach_regions(b, r->def, comps, NULL, 2);
}
