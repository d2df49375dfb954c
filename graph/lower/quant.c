/* Lowering of uniform_quantize / uniform_dequantize, and of elementwise ops
 * on quantized operands (the spec's dequantize_op_quantize: dequantize every
 * quantized operand into its expressed type, run the float kernel, quantize
 * into the result type). Elementwise ops without quantized types are handed
 * to the elementwise family's lowering unchanged. */
#include <stdlib.h>
#include <string.h>

#include "graph/lower/ctx.h"
#include "kernels/elementwise.h"
#include "kernels/quant.h"

/* ---- quantization parameters of a type ----------------------------------- */

/* Kernel parameters of quantized type t (`what` names it in errors); the
 * arrays live in the plan arena. Also used by graph/lower/linalg.c. */

hlx_status_t hlx_lower_quant_params(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const char* what, const hlx_type_t* t,
                                    hlx_quant_params_t* out) {
  const hlx_quant_t* q = t->quant;
  memset(out, 0, sizeof *out);
  if (!q)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s must be a quantized tensor", what);
  if (!hlx_dtype_is_int(q->storage))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: storage type %s is not an integer type", what,
                        hlx_dtype_name(q->storage));
  if (!hlx_dtype_is_float(q->expressed))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: expressed type %s is not a float type", what,
                        hlx_dtype_name(q->expressed));
  int bits = hlx_dtype_bits(q->storage);
  int64_t tmin, tmax;
  if (hlx_dtype_is_signed_int(q->storage)) {
    tmin = bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    tmax = bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
  } else {
    tmin = 0;
    tmax = bits >= 63 ? INT64_MAX : ((int64_t)1 << bits) - 1;
  }
  out->storage = q->storage;
  out->expressed = q->expressed;
  out->storage_min = q->has_storage_range ? q->storage_min : tmin;
  out->storage_max = q->has_storage_range ? q->storage_max : tmax;
  if (out->storage_min < tmin || out->storage_max > tmax ||
      out->storage_min > out->storage_max)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: storage range [%lld, %lld] does not fit %s", what,
                        (long long)out->storage_min,
                        (long long)out->storage_max,
                        hlx_dtype_name(q->storage));
  int64_t channels = 1, inner = 1;
  if (q->quantized_dimension >= 0) {
    int32_t qd = q->quantized_dimension;
    if (qd >= t->rank)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: quantization_dimension %d is out of range for "
                          "rank %d",
                          what, qd, t->rank);
    channels = t->dims[qd];
    if (q->num_scales != channels)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: %d scales for quantization dimension %d of "
                          "size %lld",
                          what, q->num_scales, qd, (long long)channels);
    for (int32_t d = qd + 1; d < t->rank; d++) inner *= t->dims[d];
    if (inner < 1) inner = 1;
    if (channels < 1) channels = 1; /* empty tensor */
  } else if (q->num_scales != 1) {
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%s: per-tensor quantization needs one scale", what);
  }
  int32_t ns = q->num_scales > 0 ? q->num_scales : 1;
  double* sc = hlx_lower_alloc(c, sizeof(double) * (size_t)ns);
  int64_t* zp = hlx_lower_alloc(c, sizeof(int64_t) * (size_t)ns);
  if (!sc || !zp) return hlx_status_oom();
  for (int32_t i = 0; i < ns; i++) {
    sc[i] = i < q->num_scales ? q->scales[i] : 1.0;
    zp[i] = i < q->num_scales ? q->zero_points[i] : 0;
    if (zp[i] < out->storage_min || zp[i] > out->storage_max)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: zero point %lld is outside the storage range",
                          what, (long long)zp[i]);
    if (!(sc[i] > 0))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%s: scale %g is not positive", what, sc[i]);
  }
  out->channels = channels;
  out->inner = inner;
  out->scales = sc;
  out->zero_points = zp;
  return NULL;
}

static bool same_shape(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

/* ---- uniform_quantize / uniform_dequantize ------------------------------- */

typedef struct uq_args_t {
  int kind; /* 0 quantize, 1 requantize, 2 dequantize */
  hlx_dtype_t float_type;
  hlx_quant_params_t in, out;
  int64_t n;
} uq_args_t;

static hlx_status_t run_uq(const void* args, void* const* in,
                           void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const uq_args_t* a = args;
  switch (a->kind) {
    case 0:
      return hlx_ref_quantize(&a->out, a->float_type, in[0], out[0], a->n);
    case 1:
      return hlx_ref_requantize(&a->in, &a->out, in[0], out[0], a->n);
    default:
      return hlx_ref_dequantize(&a->in, in[0], a->float_type, out[0], a->n);
  }
}

static hlx_status_t unary_types(const hlx_op_t* op, const hlx_type_t** t,
                                const hlx_type_t** r) {
  if (op->num_operands != 1 || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs one operand and one result");
  *t = hlx_static_tensor(op->operands[0]);
  *r = hlx_static_tensor(op->results[0]);
  if (!*t || !*r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes");
  if (!same_shape(*t, *r))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) shape(operand) must equal shape(result)");
  return NULL;
}

static hlx_status_t lower_uniform_quantize(hlx_lower_ctx_t* c,
                                           const hlx_op_t* op) {
  const hlx_type_t *t, *r;
  HLX_RETURN_IF_ERROR(unary_types(op, &t, &r));
  if (!r->quant)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "result must be a quantized tensor, got %s",
                        hlx_dtype_name(r->dtype));
  uq_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->n = hlx_type_num_elements(r);
  HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, "result", r, &a->out));
  if (t->quant) {
    HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, "operand", t, &a->in));
    if (t->quant->expressed != r->quant->expressed)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) expressed_type(result) = %s must equal "
                          "expressed_type(operand) = %s",
                          hlx_dtype_name(r->quant->expressed),
                          hlx_dtype_name(t->quant->expressed));
    a->kind = 1;
  } else {
    if (!hlx_dtype_is_float(t->dtype))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "operand must be a floating-point or quantized "
                          "tensor, got %s",
                          hlx_dtype_name(t->dtype));
    if (t->dtype != r->quant->expressed)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) expressed_type(result) = %s must equal "
                          "element_type(operand) = %s",
                          hlx_dtype_name(r->quant->expressed),
                          hlx_dtype_name(t->dtype));
    a->kind = 0;
    a->float_type = t->dtype;
  }
  int32_t in, out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_uq, a, 1, &in, 1, &out);
}

static hlx_status_t lower_uniform_dequantize(hlx_lower_ctx_t* c,
                                             const hlx_op_t* op) {
  const hlx_type_t *t, *r;
  HLX_RETURN_IF_ERROR(unary_types(op, &t, &r));
  if (!t->quant)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand must be a quantized tensor, got %s",
                        hlx_dtype_name(t->dtype));
  if (r->quant || r->dtype != t->quant->expressed)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) element_type(result) = %s must equal "
                        "expressed_type(operand) = %s",
                        r->quant ? "a quantized type" : hlx_dtype_name(r->dtype),
                        hlx_dtype_name(t->quant->expressed));
  uq_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->kind = 2;
  a->n = hlx_type_num_elements(r);
  a->float_type = r->dtype;
  HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, "operand", t, &a->in));
  int32_t in, out;
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, 0, &in));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_uq, a, 1, &in, 1, &out);
}

/* ---- elementwise ops on quantized operands ------------------------------- */

enum { kMaxQOperands = 2 };

typedef struct qew_args_t {
  int32_t num_in;
  hlx_unary_fn unary;
  hlx_binary_fn binary;
  hlx_dtype_t ftype; /* the float type the op computes in */
  bool in_q[kMaxQOperands];
  hlx_quant_params_t in[kMaxQOperands];
  bool out_q;
  hlx_quant_params_t out;
  int64_t n;
} qew_args_t;

static hlx_status_t run_qew(const void* args, void* const* in,
                            void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const qew_args_t* a = args;
  size_t es = hlx_dtype_size(a->ftype);
  size_t bytes = (size_t)(a->n > 0 ? a->n : 1) * es;
  char* buf = malloc(bytes * (size_t)(a->num_in + 1));
  if (!buf) return hlx_status_oom();
  const void* fin[kMaxQOperands] = {NULL, NULL};
  hlx_status_t s = NULL;
  for (int32_t i = 0; i < a->num_in && !s; i++) {
    if (a->in_q[i]) {
      s = hlx_ref_dequantize(&a->in[i], in[i], a->ftype, buf + bytes * (size_t)i,
                             a->n);
      fin[i] = buf + bytes * (size_t)i;
    } else {
      fin[i] = in[i];
    }
  }
  if (!s) {
    void* fout = a->out_q ? buf + bytes * (size_t)a->num_in : out[0];
    if (a->num_in == 1)
      a->unary(fin[0], fout, (size_t)a->n);
    else
      a->binary(fin[0], fin[1], fout, (size_t)a->n);
    if (a->out_q) s = hlx_ref_quantize(&a->out, a->ftype, fout, out[0], a->n);
  }
  free(buf);
  return s;
}

static int q_unary_of(hlx_opcode_t code) {
  switch (code) {
#define U(op, id) \
  case HLX_OP_##op: return HLX_UNARY_##id;
    U(ABS, ABS) U(NEGATE, NEGATE) U(SIGN, SIGN) U(SQRT, SQRT) U(RSQRT, RSQRT)
    U(CBRT, CBRT) U(EXPONENTIAL, EXP) U(EXPONENTIAL_MINUS_ONE, EXPM1)
    U(LOG, LOG) U(LOG_PLUS_ONE, LOG1P) U(LOGISTIC, LOGISTIC) U(SINE, SIN)
    U(COSINE, COS) U(TAN, TAN) U(TANH, TANH) U(FLOOR, FLOOR) U(CEIL, CEIL)
    U(ROUND_NEAREST_AFZ, ROUND_AFZ) U(ROUND_NEAREST_EVEN, ROUND_EVEN)
#undef U
    default:
      return -1;
  }
}

static int q_binary_of(hlx_opcode_t code) {
  switch (code) {
#define B(op, id) \
  case HLX_OP_##op: return HLX_BINARY_##id;
    B(ADD, ADD) B(SUBTRACT, SUBTRACT) B(MULTIPLY, MULTIPLY) B(DIVIDE, DIVIDE)
    B(REMAINDER, REMAINDER) B(POWER, POWER) B(MAXIMUM, MAXIMUM)
    B(MINIMUM, MINIMUM) B(ATAN2, ATAN2)
#undef B
    default:
      return -1;
  }
}

static hlx_lower_fn elementwise_fn(hlx_opcode_t code) {
  for (const hlx_lowering_t* e = hlx_lowerings_elementwise; e->fn; e++)
    if (e->op == code) return e->fn;
  return NULL;
}

/* add's quantized rules (C2)-(C7): every value quantized alike. */
static hlx_status_t check_quantized_add(const hlx_op_t* op) {
  if (op->num_operands != 2 || op->num_results != 1) return NULL;
  const hlx_type_t* v[3] = {op->operands[0]->type, op->operands[1]->type,
                            op->results[0]->type};
  static const char* const kNames[3] = {"lhs", "rhs", "result"};
  for (int i = 0; i < 3; i++)
    if (v[i]->kind != HLX_TYPE_TENSOR || !v[i]->quant)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) %s is not quantized: lhs, rhs and result must "
                          "all be",
                          kNames[i]);
  const hlx_quant_t *l = v[0]->quant, *r = v[1]->quant, *o = v[2]->quant;
  if (l->storage != o->storage || r->storage != o->storage)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) storage types %s, %s and %s differ",
                        hlx_dtype_name(l->storage), hlx_dtype_name(r->storage),
                        hlx_dtype_name(o->storage));
  if (l->expressed != o->expressed || r->expressed != o->expressed)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) expressed types %s, %s and %s differ",
                        hlx_dtype_name(l->expressed),
                        hlx_dtype_name(r->expressed),
                        hlx_dtype_name(o->expressed));
  bool lax = l->quantized_dimension >= 0, rax = r->quantized_dimension >= 0;
  if ((lax || rax) != (o->quantized_dimension >= 0))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C5) the result is per-axis quantized iff lhs or rhs "
                        "is");
  if (lax && l->quantized_dimension != o->quantized_dimension)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C6) quantization_dimension(lhs) = %d, result's = %d",
                        l->quantized_dimension, o->quantized_dimension);
  if (rax && r->quantized_dimension != o->quantized_dimension)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C7) quantization_dimension(rhs) = %d, result's = %d",
                        r->quantized_dimension, o->quantized_dimension);
  return NULL;
}

static hlx_status_t lower_maybe_quantized(hlx_lower_ctx_t* c,
                                          const hlx_op_t* op) {
  bool any_q = false;
  for (int32_t i = 0; i < op->num_operands; i++)
    if (op->operands[i]->type->quant) any_q = true;
  for (int32_t i = 0; i < op->num_results; i++)
    if (op->results[i]->type->quant) any_q = true;
  if (!any_q) {
    hlx_lower_fn fn = elementwise_fn(op->code);
    if (!fn)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: no kernel for this op yet");
    return fn(c, op);
  }
  if (op->code == HLX_OP_ADD) HLX_RETURN_IF_ERROR(check_quantized_add(op));
  int u = q_unary_of(op->code), b = q_binary_of(op->code);
  int32_t want = u >= 0 ? 1 : 2;
  if (u < 0 && b < 0)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: quantized operands");
  if (op->num_operands != want || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "needs %d operand(s) and one result", want);
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes");
  qew_args_t* a = hlx_lower_alloc(c, sizeof *a);
  if (!a) return hlx_status_oom();
  memset(a, 0, sizeof *a);
  a->num_in = want;
  a->n = hlx_type_num_elements(r);
  /* The float type: the expressed type shared by every quantized value. */
  hlx_dtype_t ft = HLX_DTYPE_INVALID;
  for (int32_t i = 0; i <= want; i++) {
    const hlx_type_t* t =
        i < want ? hlx_static_tensor(op->operands[i]) : r;
    if (!t)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: dynamic shapes");
    if (!same_shape(t, r))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) operand #%d's shape differs from the "
                          "result's",
                          i);
    hlx_dtype_t e = t->quant ? t->quant->expressed : t->dtype;
    if (ft == HLX_DTYPE_INVALID) ft = e;
    if (e != ft)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C1) %s #%d has (expressed) element type %s, "
                          "expected %s",
                          i < want ? "operand" : "result", i < want ? i : 0,
                          hlx_dtype_name(e), hlx_dtype_name(ft));
    const char* what = i < want ? (i == 0 ? "operand #0" : "operand #1")
                                : "result";
    if (i < want) {
      a->in_q[i] = t->quant != NULL;
      if (t->quant)
        HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, what, t, &a->in[i]));
    } else {
      a->out_q = t->quant != NULL;
      if (t->quant)
        HLX_RETURN_IF_ERROR(hlx_lower_quant_params(c, op, what, t, &a->out));
    }
  }
  if (!hlx_dtype_is_float(ft))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "quantized operands need a float expressed type, got "
                        "%s",
                        hlx_dtype_name(ft));
  a->ftype = ft;
  hlx_dtype_t rt = HLX_DTYPE_INVALID;
  if (u >= 0)
    a->unary = hlx_ref_unary_kernel((hlx_unary_op_t)u, ft, &rt);
  else
    a->binary = hlx_ref_binary_kernel((hlx_binary_op_t)b, ft, &rt);
  if ((!a->unary && !a->binary) || rt != ft)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: no kernel for expressed type %s",
                        hlx_dtype_name(ft));
  int32_t in[kMaxQOperands], out;
  for (int32_t i = 0; i < want; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &in[i]));
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_qew, a, want, in, 1, &out);
}

const hlx_lowering_t hlx_lowerings_quant[] = {
    {HLX_OP_UNIFORM_QUANTIZE, lower_uniform_quantize},
    {HLX_OP_UNIFORM_DEQUANTIZE, lower_uniform_dequantize},
#define Q(op) {HLX_OP_##op, lower_maybe_quantized},
    Q(ABS) Q(NEGATE) Q(SIGN) Q(SQRT) Q(RSQRT) Q(CBRT) Q(EXPONENTIAL)
    Q(EXPONENTIAL_MINUS_ONE) Q(LOG) Q(LOG_PLUS_ONE) Q(LOGISTIC) Q(SINE)
    Q(COSINE) Q(TAN) Q(TANH) Q(FLOOR) Q(CEIL) Q(ROUND_NEAREST_AFZ)
    Q(ROUND_NEAREST_EVEN) Q(ADD) Q(SUBTRACT) Q(MULTIPLY) Q(DIVIDE)
    Q(REMAINDER) Q(POWER) Q(MAXIMUM) Q(MINIMUM) Q(ATAN2)
#undef Q
    {HLX_OP_UNKNOWN, NULL},
};
