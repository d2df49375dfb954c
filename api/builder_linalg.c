/* Builder: Cholesky, TriangularSolve, BatchNorm{Inference,Training,Grad}
 * and Fft (XLA operation semantics; StableHLO attribute spelling). */
#include <stdio.h>
#include <string.h>

#include "api/builder_internal.h"

static bool float_or_complex(hlx_dtype_t t) {
  return hlx_dtype_is_float(t) || hlx_dtype_is_complex(t);
}

/* [..., n, n] of a float or complex type. */
static hlx_status_t check_square(hlx_builder_t* b, const char* kOp,
                                 const char* role, const hlx_type_t* t) {
  if (!float_or_complex(t->dtype))
    return hlx_bld_fail(b, kOp, "%s must be floating point or complex, not %s",
                        role, hlx_dtype_name(t->dtype));
  if (t->rank < 2 || t->dims[t->rank - 1] != t->dims[t->rank - 2])
    return hlx_bld_fail(b, kOp, "%s must have rank >= 2 and square innermost "
                        "dimensions", role);
  return NULL;
}

hlx_status_t hlx_builder_cholesky(hlx_builder_t* b, uint32_t a, bool lower,
                                  uint32_t* out_value) {
  static const char kOp[] = "cholesky";
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "a", a, &x));
  HLX_RETURN_IF_ERROR(check_square(b, kOp, "a", x->type));
  named_t attrs[] = {{"lower", hlx_bld_attr_bool(b, lower)}};
  return hlx_bld_emit1(b, HLX_OP_CHOLESKY, &x, 1, x->type, attrs, 1, NULL,
                       out_value);
}

hlx_status_t hlx_builder_triangular_solve(
    hlx_builder_t* b, uint32_t a, uint32_t rhs, bool left_side, bool lower,
    bool unit_diagonal, hlx_triangular_transpose_t transpose_a,
    uint32_t* out_value) {
  static const char kOp[] = "triangular_solve";
  static const char* const kTranspose[] = {"NO_TRANSPOSE", "TRANSPOSE",
                                           "ADJOINT"};
  BEGIN(b, out_value, kOp);
  hlx_value_t* vs[2] = {NULL, NULL};
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "a", a, &vs[0]));
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "b", rhs, &vs[1]));
  const hlx_type_t *at = vs[0]->type, *bt = vs[1]->type;
  HLX_RETURN_IF_ERROR(check_square(b, kOp, "a", at));
  if (bt->dtype != at->dtype || bt->rank != at->rank)
    return hlx_bld_fail(b, kOp, "b must have a's element type and rank");
  for (int32_t d = 0; d + 2 < at->rank; d++)
    if (at->dims[d] != bt->dims[d])
      return hlx_bld_fail(b, kOp, "batch dimension %d differs: a %lld, b %lld",
                          (int)d, (long long)at->dims[d],
                          (long long)bt->dims[d]);
  int32_t R = at->rank;
  int64_t m = bt->dims[left_side ? R - 2 : R - 1];
  if (at->dims[R - 1] != m)
    return hlx_bld_fail(b, kOp, "a is %lldx%lld, but b has %lld %s",
                        (long long)at->dims[R - 1], (long long)at->dims[R - 1],
                        (long long)m, left_side ? "rows" : "columns");
  if ((int)transpose_a < 0 || (int)transpose_a > 2)
    return hlx_bld_fail(b, kOp, "unknown transpose_a %d", (int)transpose_a);
  named_t attrs[] = {
      {"left_side", hlx_bld_attr_bool(b, left_side)},
      {"lower", hlx_bld_attr_bool(b, lower)},
      {"unit_diagonal", hlx_bld_attr_bool(b, unit_diagonal)},
      {"transpose_a", hlx_bld_attr_enum(b, "transpose", kTranspose[transpose_a])},
  };
  return hlx_bld_emit1(b, HLX_OP_TRIANGULAR_SOLVE, vs, 2, vs[1]->type, attrs,
                       4, NULL, out_value);
}

/* The batch norm family: operand (float, feature_index in range) and n
 * more tensors, each rank 1 of the feature size (or, for grad_output at
 * index `full`, the operand's shape). */
static hlx_status_t batch_norm_operands(hlx_builder_t* b, const char* kOp,
                                        const uint32_t* ids,
                                        const char* const* roles, int32_t n,
                                        int32_t full, int64_t feature_index,
                                        hlx_value_t** vs) {
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", ids[0], &vs[0]));
  const hlx_type_t* t = vs[0]->type;
  if (!hlx_dtype_is_float(t->dtype))
    return hlx_bld_fail(b, kOp, "operand must be floating point, not %s",
                        hlx_dtype_name(t->dtype));
  if (feature_index < 0 || feature_index >= t->rank)
    return hlx_bld_fail(b, kOp, "feature_index %lld is out of range for rank %d",
                        (long long)feature_index, (int)t->rank);
  int64_t f = t->dims[feature_index];
  for (int32_t i = 1; i <= n; i++) {
    HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, roles[i], ids[i], &vs[i]));
    const hlx_type_t* u = vs[i]->type;
    if (u->dtype != t->dtype)
      return hlx_bld_fail(b, kOp, "%s must have the operand's element type %s",
                          roles[i], hlx_dtype_name(t->dtype));
    if (i == full) {
      if (!hlx_bld_same_dims(u, t))
        return hlx_bld_fail(b, kOp, "%s must have the operand's shape",
                            roles[i]);
    } else if (u->rank != 1 || u->dims[0] != f) {
      return hlx_bld_fail(b, kOp, "%s must have shape [%lld] (the feature "
                          "dimension's size)", roles[i], (long long)f);
    }
  }
  return NULL;
}

static hlx_attr_t* attr_f32(hlx_builder_t* b, float v) {
  hlx_attr_t* a = hlx_bld_attr_new(b, HLX_ATTR_FLOAT);
  if (!a) return NULL;
  a->f = v;
  a->type = hlx_bld_tensor_type(&b->module->arena, HLX_DTYPE_F32, 0, NULL);
  return a->type ? a : NULL;
}

/* Emits a batch norm op with results: the operand's type, then nvec
 * feature-sized vectors; one result is returned as is, more as a tuple. */
static hlx_status_t emit_batch_norm(hlx_builder_t* b, hlx_opcode_t code,
                                    hlx_value_t** vs, int32_t nops,
                                    int32_t nvec, float epsilon,
                                    int64_t feature_index,
                                    uint32_t* out_value) {
  const hlx_type_t* t = vs[0]->type;
  hlx_type_t* rts[3];
  rts[0] = vs[0]->type;
  int64_t f = t->dims[feature_index];
  for (int32_t i = 1; i <= nvec; i++)
    rts[i] = hlx_bld_tensor_type(&b->module->arena, t->dtype, 1, &f);
  named_t attrs[] = {
      {"epsilon", attr_f32(b, epsilon)},
      {"feature_index", hlx_bld_attr_int(b, feature_index, HLX_DTYPE_S64)},
  };
  hlx_op_t* op = hlx_bld_emit(b, code, vs, nops, rts, nvec + 1, attrs, 2);
  if (!op) return hlx_bld_oom(b);
  return hlx_bld_results_value(b, op, out_value);
}

hlx_status_t hlx_builder_batch_norm_inference(
    hlx_builder_t* b, uint32_t operand, uint32_t scale, uint32_t offset,
    uint32_t mean, uint32_t variance, float epsilon, int64_t feature_index,
    uint32_t* out_value) {
  static const char kOp[] = "batch_norm_inference";
  static const char* const kRoles[] = {"operand", "scale", "offset", "mean",
                                       "variance"};
  BEGIN(b, out_value, kOp);
  uint32_t ids[5] = {operand, scale, offset, mean, variance};
  hlx_value_t* vs[5];
  HLX_RETURN_IF_ERROR(
      batch_norm_operands(b, kOp, ids, kRoles, 4, -1, feature_index, vs));
  return emit_batch_norm(b, HLX_OP_BATCH_NORM_INFERENCE, vs, 5, 0, epsilon,
                         feature_index, out_value);
}

hlx_status_t hlx_builder_batch_norm_training(hlx_builder_t* b,
                                             uint32_t operand, uint32_t scale,
                                             uint32_t offset, float epsilon,
                                             int64_t feature_index,
                                             uint32_t* out_value) {
  static const char kOp[] = "batch_norm_training";
  static const char* const kRoles[] = {"operand", "scale", "offset"};
  BEGIN(b, out_value, kOp);
  uint32_t ids[3] = {operand, scale, offset};
  hlx_value_t* vs[3];
  HLX_RETURN_IF_ERROR(
      batch_norm_operands(b, kOp, ids, kRoles, 2, -1, feature_index, vs));
  return emit_batch_norm(b, HLX_OP_BATCH_NORM_TRAINING, vs, 3, 2, epsilon,
                         feature_index, out_value);
}

hlx_status_t hlx_builder_batch_norm_grad(hlx_builder_t* b, uint32_t operand,
                                         uint32_t scale, uint32_t mean,
                                         uint32_t variance,
                                         uint32_t grad_output, float epsilon,
                                         int64_t feature_index,
                                         uint32_t* out_value) {
  static const char kOp[] = "batch_norm_grad";
  static const char* const kRoles[] = {"operand", "scale", "mean", "variance",
                                       "grad_output"};
  BEGIN(b, out_value, kOp);
  uint32_t ids[5] = {operand, scale, mean, variance, grad_output};
  hlx_value_t* vs[5];
  HLX_RETURN_IF_ERROR(
      batch_norm_operands(b, kOp, ids, kRoles, 4, 4, feature_index, vs));
  return emit_batch_norm(b, HLX_OP_BATCH_NORM_GRAD, vs, 5, 2, epsilon,
                         feature_index, out_value);
}

hlx_status_t hlx_builder_fft(hlx_builder_t* b, uint32_t operand,
                             hlx_fft_type_t fft_type,
                             const int64_t* fft_length, int32_t n,
                             uint32_t* out_value) {
  static const char kOp[] = "fft";
  static const char* const kTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  BEGIN(b, out_value, kOp);
  hlx_value_t* x = NULL;
  HLX_RETURN_IF_ERROR(hlx_bld_get_tensor(b, kOp, "operand", operand, &x));
  const hlx_type_t* t = x->type;
  if ((int)fft_type < 0 || (int)fft_type > 3)
    return hlx_bld_fail(b, kOp, "unknown fft_type %d", (int)fft_type);
  if (n < 1 || n > 3 || !fft_length || n > t->rank)
    return hlx_bld_fail(b, kOp, "fft_length must have 1 to 3 entries, at most "
                        "the operand rank %d (got %d)", (int)t->rank, (int)n);
  bool is_complex = hlx_dtype_is_complex(t->dtype);
  hlx_dtype_t rdt = t->dtype;
  if (fft_type == HLX_FFT_RFFT) {
    if (t->dtype != HLX_DTYPE_F32 && t->dtype != HLX_DTYPE_F64)
      return hlx_bld_fail(b, kOp, "RFFT needs an f32 or f64 operand, not %s",
                          hlx_dtype_name(t->dtype));
    rdt = t->dtype == HLX_DTYPE_F32 ? HLX_DTYPE_C64 : HLX_DTYPE_C128;
  } else if (!is_complex) {
    return hlx_bld_fail(b, kOp, "%s needs a complex operand, not %s",
                        kTypes[fft_type], hlx_dtype_name(t->dtype));
  } else if (fft_type == HLX_FFT_IRFFT) {
    rdt = hlx_dtype_complex_part(t->dtype);
  }
  int64_t dims[HLX_MAX_RANK];
  memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
  for (int32_t i = 0; i < n; i++) {
    int32_t d = t->rank - n + i;
    int64_t want = fft_length[i];
    bool last = i == n - 1;
    if (last && fft_type == HLX_FFT_IRFFT) want = fft_length[i] / 2 + 1;
    if (fft_length[i] < 0 || t->dims[d] != want)
      return hlx_bld_fail(b, kOp, "operand dimension %d has size %lld, but "
                          "fft_length needs %lld", (int)d,
                          (long long)t->dims[d], (long long)want);
    if (last && fft_type == HLX_FFT_RFFT) dims[d] = fft_length[i] / 2 + 1;
    if (last && fft_type == HLX_FFT_IRFFT) dims[d] = fft_length[i];
  }
  hlx_type_t* rt = hlx_bld_tensor_type(&b->module->arena, rdt, t->rank, dims);
  if (!rt) return hlx_bld_oom(b);
  named_t attrs[] = {
      {"fft_type", hlx_bld_attr_enum(b, "fft_type", kTypes[fft_type])},
      {"fft_length", hlx_bld_attr_i64s(b, fft_length, n)},
  };
  return hlx_bld_emit1(b, HLX_OP_FFT, &x, 1, rt, attrs, 2, NULL, out_value);
}
