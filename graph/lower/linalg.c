/* Lowering of cholesky, triangular_solve and batch_norm_{inference,training,
 * grad} onto kernels/linalg.h. Per-tensor quantized operands follow the
 * spec's dequantize_op_quantize: the task dequantizes them into their
 * expressed type, runs the float kernel and quantizes the results. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/linalg.h"
#include "kernels/quant.h"

/* In graph/lower/quant.c. */

enum { kMaxIo = 5 };

/* Shared task frame: dequantize quantized inputs, run the float kernel on
 * the expressed type, quantize quantized outputs. */
typedef struct la_args_t la_args_t;
typedef hlx_status_t (*la_kernel_fn)(const la_args_t* a, const void* const* in,
                                     void* const* out);
struct la_args_t {
  la_kernel_fn kernel;
  hlx_dtype_t t; /* the (expressed) element type the kernel computes in */
  int32_t num_in, num_out;
  int64_t in_n[kMaxIo], out_n[kMaxIo];
  bool in_q[kMaxIo], out_q[kMaxIo];
  hlx_quant_params_t in_qp[kMaxIo], out_qp[kMaxIo];
  /* op parameters */
  int64_t batch, m, n;
  bool left_side, lower, unit_diagonal;
  hlx_transpose_t transpose_a;
  int64_t outer, c, inner;
  float epsilon;
};

static hlx_status_t run_la(const void* args, void* const* in,
                           void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const la_args_t* a = args;
  size_t es = hlx_dtype_size(a->t);
  size_t total = 0;
  for (int32_t i = 0; i < a->num_in; i++)
    if (a->in_q[i]) total += (size_t)a->in_n[i] * es;
  for (int32_t i = 0; i < a->num_out; i++)
    if (a->out_q[i]) total += (size_t)a->out_n[i] * es;
  char* buf = NULL;
  if (total) {
    buf = malloc(total);
    if (!buf) return hlx_status_oom();
  }
  char* p = buf;
  const void* fin[kMaxIo] = {0};
  void* fout[kMaxIo] = {0};
  hlx_status_t s = NULL;
  for (int32_t i = 0; i < a->num_in && !s; i++) {
    fin[i] = in[i];
    if (a->in_q[i]) {
      s = hlx_ref_dequantize(&a->in_qp[i], in[i], a->t, p, a->in_n[i]);
      fin[i] = p;
      p += (size_t)a->in_n[i] * es;
    }
  }
  for (int32_t i = 0; i < a->num_out; i++) {
    fout[i] = out[i];
    if (a->out_q[i]) {
      fout[i] = p;
      p += (size_t)a->out_n[i] * es;
    }
  }
  if (!s) s = a->kernel(a, fin, fout);
  for (int32_t i = 0; i < a->num_out && !s; i++)
    if (a->out_q[i])
      s = hlx_ref_quantize(&a->out_qp[i], a->t, fout[i], out[i], a->out_n[i]);
  free(buf);
  return s;
}

static la_args_t* new_args(hlx_lower_ctx_t* c, la_kernel_fn k) {
  la_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (a) {
    memset(a, 0, sizeof *a);
    a->kernel = k;
  }
  return a;
}

static const char* dname(const hlx_type_t* t) {
  return t->quant ? "a quantized type" : hlx_dtype_name(t->dtype);
}

/* Baseline element type: the expressed type of a quantized tensor. */
static hlx_dtype_t base_elem(const hlx_type_t* t) {
  return t->quant ? t->quant->expressed : t->dtype;
}

/* Records operand/result i's quantization; per-tensor only. */
static hlx_status_t note_q(hlx_lower_ctx_t* c, const hlx_op_t* op,
                           la_args_t* a, bool result, int32_t i,
                           const char* what, const hlx_type_t* t) {
  int64_t n = hlx_type_num_elements(t);
  if (result) {
    a->out_n[i] = n;
  } else {
    a->in_n[i] = n;
  }
  if (!t->quant) return NULL;
  if (t->quant->quantized_dimension >= 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s must be a per-tensor quantized tensor", what);
  if (result) {
    a->out_q[i] = true;
    return hlx_lower_quant_params(c, op, what, t, &a->out_qp[i]);
  }
  a->in_q[i] = true;
  return hlx_lower_quant_params(c, op, what, t, &a->in_qp[i]);
}

static hlx_status_t all_static(const hlx_op_t* op, int32_t nin, int32_t nout,
                               const hlx_type_t** ins,
                               const hlx_type_t** outs) {
  if (op->num_operands != nin || op->num_results != nout)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs %d operand(s) and %d result(s), got %d and %d",
                        nin, nout, op->num_operands, op->num_results);
  for (int32_t i = 0; i < nin; i++) {
    ins[i] = hlx_static_tensor(op->operands[i]);
    if (!ins[i])
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: dynamic shapes");
  }
  for (int32_t i = 0; i < nout; i++) {
    outs[i] = hlx_static_tensor(op->results[i]);
    if (!outs[i])
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: dynamic shapes");
  }
  return NULL;
}

static hlx_status_t bool_attr(const hlx_op_t* op, const char* name,
                              bool dflt, bool* out) {
  const hlx_attr_t* at = hlx_op_attr(op, name);
  *out = dflt;
  if (!at) return NULL;
  if (at->kind == HLX_ATTR_BOOL) {
    *out = at->b;
    return NULL;
  }
  if (at->kind == HLX_ATTR_INT) {
    *out = at->i != 0;
    return NULL;
  }
  if (at->kind == HLX_ATTR_UNIT) {
    *out = true;
    return NULL;
  }
  return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                      "attribute %s must be a boolean", name);
}

static hlx_status_t emit(hlx_lower_ctx_t* c, const hlx_op_t* op,
                         la_args_t* a) {
  int32_t in[kMaxIo], out[kMaxIo];
  for (int32_t i = 0; i < a->num_in; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &in[i]));
  for (int32_t i = 0; i < a->num_out; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, i, &out[i]));
  return hlx_lower_emit(c, op, run_la, a, a->num_in, in, a->num_out, out);
}

static bool float_or_complex(hlx_dtype_t t) {
  return hlx_dtype_is_float(t) || hlx_dtype_is_complex(t);
}

/* ---- cholesky ------------------------------------------------------------ */

static hlx_status_t k_cholesky(const la_args_t* a, const void* const* in,
                               void* const* out) {
  return hlx_ref_cholesky(a->t, a->batch, a->n, a->lower, in[0], out[0]);
}

static hlx_status_t lower_cholesky(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_type_t *in[1], *out[1];
  HLX_RETURN_IF_ERROR(all_static(op, 1, 1, in, out));
  const hlx_type_t *t = in[0], *r = out[0];
  if (!float_or_complex(base_elem(t)))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I1) a must be a tensor of floating-point or complex "
                        "type, got %s",
                        dname(t));
  if (base_elem(t) != base_elem(r) || !t->quant != !r->quant ||
      t->rank != r->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) baseline_type(a) must equal "
                        "baseline_type(result)");
  for (int32_t d = 0; d < t->rank; d++)
    if (t->dims[d] != r->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) baseline_type(a) must equal "
                          "baseline_type(result): dim %d is %lld vs %lld",
                          d, (long long)t->dims[d], (long long)r->dims[d]);
  if (t->rank < 2)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) rank(a) = %d must be at least 2", t->rank);
  int64_t n = t->dims[t->rank - 1];
  if (t->dims[t->rank - 2] != n)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) dim(a, -2) = %lld must equal dim(a, -1) = %lld",
                        (long long)t->dims[t->rank - 2], (long long)n);
  la_args_t* a = new_args(c, k_cholesky);
  if (!a) return hlx_status_oom();
  HLX_RETURN_IF_ERROR(bool_attr(op, "lower", false, &a->lower));
  a->t = base_elem(t);
  a->num_in = a->num_out = 1;
  a->n = n;
  a->batch = 1;
  for (int32_t d = 0; d + 2 < t->rank; d++) a->batch *= t->dims[d];
  HLX_RETURN_IF_ERROR(note_q(c, op, a, false, 0, "a", t));
  HLX_RETURN_IF_ERROR(note_q(c, op, a, true, 0, "result", r));
  return emit(c, op, a);
}

/* ---- triangular_solve ---------------------------------------------------- */

static hlx_status_t k_trsm(const la_args_t* a, const void* const* in,
                           void* const* out) {
  return hlx_ref_triangular_solve(a->t, a->batch, a->m, a->n, a->left_side,
                                  a->lower, a->unit_diagonal, a->transpose_a,
                                  in[0], in[1], out[0]);
}

static hlx_status_t lower_triangular_solve(hlx_lower_ctx_t* c,
                                           const hlx_op_t* op) {
  const hlx_type_t *in[2], *out[1];
  HLX_RETURN_IF_ERROR(all_static(op, 2, 1, in, out));
  const hlx_type_t *ta = in[0], *tb = in[1], *r = out[0];
  if (!float_or_complex(base_elem(ta)))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I1) a must be a tensor of floating-point or complex "
                        "type, got %s",
                        dname(ta));
  if (base_elem(ta) != base_elem(tb))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) baseline_element_type(a) = %s must equal "
                        "baseline_element_type(b) = %s",
                        hlx_dtype_name(base_elem(ta)),
                        hlx_dtype_name(base_elem(tb)));
  int32_t R = ta->rank;
  if (R < 2 || tb->rank != R)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) 2 <= rank(a) = rank(b) is violated: rank(a) = "
                        "%d, rank(b) = %d",
                        R, tb->rank);
  la_args_t* a = new_args(c, k_trsm);
  if (!a) return hlx_status_oom();
  HLX_RETURN_IF_ERROR(bool_attr(op, "left_side", false, &a->left_side));
  HLX_RETURN_IF_ERROR(bool_attr(op, "lower", false, &a->lower));
  HLX_RETURN_IF_ERROR(bool_attr(op, "unit_diagonal", false,
                                &a->unit_diagonal));
  const hlx_attr_t* tr = hlx_op_attr(op, "transpose_a");
  const char* tv = tr && tr->kind == HLX_ATTR_ENUM ? tr->enum_value : NULL;
  if (!tv)
    a->transpose_a = HLX_TRANSPOSE_NO;
  else if (strcmp(tv, "NO_TRANSPOSE") == 0)
    a->transpose_a = HLX_TRANSPOSE_NO;
  else if (strcmp(tv, "TRANSPOSE") == 0)
    a->transpose_a = HLX_TRANSPOSE_T;
  else if (strcmp(tv, "ADJOINT") == 0)
    a->transpose_a = HLX_TRANSPOSE_ADJOINT;
  else
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I6) transpose_a must be NO_TRANSPOSE, TRANSPOSE or "
                        "ADJOINT, got %s",
                        tv);
  for (int32_t d = 0; d + 2 < R; d++)
    if (ta->dims[d] != tb->dims[d])
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) batch dim %d of a (%lld) differs from b's "
                          "(%lld)",
                          d, (long long)ta->dims[d], (long long)tb->dims[d]);
  int64_t k = ta->dims[R - 1];
  if (ta->dims[R - 2] != k)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) dim(a, -2) = %lld must equal dim(a, -1) = %lld",
                        (long long)ta->dims[R - 2], (long long)k);
  int64_t bk = tb->dims[a->left_side ? R - 2 : R - 1];
  if (bk != k)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) dim(a, -1) = %lld must equal dim(b, %s) = %lld",
                        (long long)k, a->left_side ? "-2" : "-1",
                        (long long)bk);
  bool same = base_elem(tb) == base_elem(r) && !tb->quant == !r->quant &&
              tb->rank == r->rank;
  for (int32_t d = 0; same && d < R; d++) same = tb->dims[d] == r->dims[d];
  if (!same)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) baseline_type(b) must equal "
                        "baseline_type(result)");
  a->t = base_elem(ta);
  a->num_in = 2;
  a->num_out = 1;
  a->batch = 1;
  for (int32_t d = 0; d + 2 < R; d++) a->batch *= tb->dims[d];
  a->m = tb->dims[R - 2];
  a->n = tb->dims[R - 1];
  HLX_RETURN_IF_ERROR(note_q(c, op, a, false, 0, "a", ta));
  HLX_RETURN_IF_ERROR(note_q(c, op, a, false, 1, "b", tb));
  HLX_RETURN_IF_ERROR(note_q(c, op, a, true, 0, "result", r));
  return emit(c, op, a);
}

/* ---- batch norm ---------------------------------------------------------- */

static hlx_status_t k_bn_inference(const la_args_t* a, const void* const* in,
                                   void* const* out) {
  return hlx_ref_batch_norm_inference(a->t, a->outer, a->c, a->inner, in[0],
                                      in[1], in[2], in[3], in[4], a->epsilon,
                                      out[0]);
}

static hlx_status_t k_bn_training(const la_args_t* a, const void* const* in,
                                  void* const* out) {
  return hlx_ref_batch_norm_training(a->t, a->outer, a->c, a->inner, in[0],
                                     in[1], in[2], a->epsilon, out[0], out[1],
                                     out[2]);
}

static hlx_status_t k_bn_grad(const la_args_t* a, const void* const* in,
                              void* const* out) {
  return hlx_ref_batch_norm_grad(a->t, a->outer, a->c, a->inner, in[0],
                                 in[1], in[2], in[3], in[4], a->epsilon,
                                 out[0], out[1], out[2]);
}

/* Operand i of a batch_norm op: its role (`names`) says whether it is the
 * full-shaped tensor (`full`) or a 1-D per-feature tensor. */
static hlx_status_t lower_batch_norm(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     int32_t nin, const char* const* in_names,
                                     const bool* in_full, int32_t nout,
                                     const char* const* out_names,
                                     const bool* out_full, la_kernel_fn k,
                                     const char* const* size_rules) {
  const hlx_type_t *in[kMaxIo], *out[kMaxIo];
  HLX_RETURN_IF_ERROR(all_static(op, nin, nout, in, out));
  const hlx_type_t* x = in[0];
  hlx_dtype_t et = base_elem(x);
  if (!hlx_dtype_is_float(et))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I1) operand must be a tensor of floating-point type "
                        "or a per-tensor quantized tensor, got %s",
                        dname(x));
  la_args_t* a = new_args(c, k);
  if (!a) return hlx_status_oom();
  const hlx_attr_t* eps = hlx_op_attr(op, "epsilon");
  if (!eps || (eps->kind != HLX_ATTR_FLOAT && eps->kind != HLX_ATTR_INT))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(I%d) epsilon must be an f32 constant",
                        nin + 1);
  a->epsilon = (float)(eps->kind == HLX_ATTR_FLOAT ? eps->f : (double)eps->i);
  int64_t fi;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "feature_index", true, 0, &fi));
  if (fi < 0 || fi >= x->rank)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) 0 <= feature_index < rank(operand) is violated: "
                        "feature_index = %lld, rank = %d",
                        (long long)fi, x->rank);
  int64_t C = x->dims[fi];
  /* (C2) one baseline element type for all. */
  for (int32_t i = 0; i < nin + nout; i++) {
    const hlx_type_t* t = i < nin ? in[i] : out[i - nin];
    const char* nm = i < nin ? in_names[i] : out_names[i - nin];
    if (base_elem(t) != et)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) %s has element type %s but operand has %s",
                          nm, hlx_dtype_name(base_elem(t)),
                          hlx_dtype_name(et));
  }
  /* Shapes: full tensors equal operand's; the others are [C]. */
  for (int32_t i = 0; i < nin + nout; i++) {
    const hlx_type_t* t = i < nin ? in[i] : out[i - nin];
    const char* nm = i < nin ? in_names[i] : out_names[i - nin];
    bool full = i < nin ? in_full[i] : out_full[i - nin];
    if (full) {
      bool same = t->rank == x->rank;
      for (int32_t d = 0; same && d < x->rank; d++)
        same = t->dims[d] == x->dims[d];
      if (!same)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "%s %s must have the shape of operand",
                            size_rules[i], nm);
    } else {
      if (t->rank != 1)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "%s %s must be a 1-dimensional tensor, got rank "
                            "%d",
                            size_rules[i], nm, t->rank);
      if (t->dims[0] != C)
        return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                            "%s size(%s) = %lld must equal dim(operand, "
                            "feature_index) = %lld",
                            size_rules[i], nm, (long long)t->dims[0],
                            (long long)C);
    }
  }
  a->t = et;
  a->num_in = nin;
  a->num_out = nout;
  a->c = C;
  a->outer = 1;
  a->inner = 1;
  for (int32_t d = 0; d < fi; d++) a->outer *= x->dims[d];
  for (int32_t d = (int32_t)fi + 1; d < x->rank; d++) a->inner *= x->dims[d];
  for (int32_t i = 0; i < nin; i++)
    HLX_RETURN_IF_ERROR(note_q(c, op, a, false, i, in_names[i], in[i]));
  for (int32_t i = 0; i < nout; i++)
    HLX_RETURN_IF_ERROR(note_q(c, op, a, true, i, out_names[i], out[i]));
  return emit(c, op, a);
}

static hlx_status_t lower_bn_inference(hlx_lower_ctx_t* c,
                                       const hlx_op_t* op) {
  static const char* const in_names[] = {"operand", "scale", "offset", "mean",
                                         "variance"};
  static const bool in_full[] = {true, false, false, false, false};
  static const char* const out_names[] = {"result"};
  static const bool out_full[] = {true};
  static const char* const rules[] = {"", "(C3)", "(C4)", "(C5)", "(C6)",
                                      "(C7)"};
  return lower_batch_norm(c, op, 5, in_names, in_full, 1, out_names, out_full,
                          k_bn_inference, rules);
}

static hlx_status_t lower_bn_training(hlx_lower_ctx_t* c,
                                      const hlx_op_t* op) {
  static const char* const in_names[] = {"operand", "scale", "offset"};
  static const bool in_full[] = {true, false, false};
  static const char* const out_names[] = {"output", "batch_mean",
                                          "batch_var"};
  static const bool out_full[] = {true, false, false};
  static const char* const rules[] = {"", "(C3)", "(C4)", "(C7)", "(C5)",
                                      "(C6)"};
  return lower_batch_norm(c, op, 3, in_names, in_full, 3, out_names, out_full,
                          k_bn_training, rules);
}

static hlx_status_t lower_bn_grad(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  static const char* const in_names[] = {"operand", "scale", "mean",
                                         "variance", "grad_output"};
  static const bool in_full[] = {true, false, false, false, true};
  static const char* const out_names[] = {"grad_operand", "grad_scale",
                                          "grad_offset"};
  static const bool out_full[] = {true, false, false};
  static const char* const rules[] = {"",     "(C5)", "(C4)", "(C4)",
                                      "(C3)", "(C3)", "(C4)", "(C4)"};
  return lower_batch_norm(c, op, 5, in_names, in_full, 3, out_names, out_full,
                          k_bn_grad, rules);
}

const hlx_lowering_t hlx_lowerings_linalg[] = {
    {HLX_OP_CHOLESKY, lower_cholesky},
    {HLX_OP_TRIANGULAR_SOLVE, lower_triangular_solve},
    {HLX_OP_BATCH_NORM_INFERENCE, lower_bn_inference},
    {HLX_OP_BATCH_NORM_TRAINING, lower_bn_training},
    {HLX_OP_BATCH_NORM_GRAD, lower_bn_grad},
    {HLX_OP_UNKNOWN, NULL},
};
