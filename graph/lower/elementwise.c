/* Lowering of elementwise ops onto the kernels of kernels/elementwise.h,
 * dispatched (kernels/dispatch.h): the ISA variant for this CPU and
 * HLX_MAX_ISA where one exists, the reference kernel otherwise. Shapes
 * match exactly (the verifier's rule), so a task is one call over n
 * elements.
 * Large ops are split across the pool's threads (run_split).
 */
#include <string.h>

#include "base/parallel.h"
#include "graph/lower/ctx.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise.h"

typedef struct unary_args_t {
  hlx_unary_fn fn;
  size_t n;
  size_t in_size, out_size; /* bytes per element */
} unary_args_t;

typedef struct binary_args_t {
  hlx_binary_fn fn;
  size_t n;
  size_t in_size, out_size;
} binary_args_t;

/* Large elementwise ops are split into one contiguous piece per thread
 * (pieces as large as possible so the kernels keep their streaming-store
 * path; boundaries on 64-element multiples keep vector alignment). Below
 * kParallelMin elements the call stays on one thread. */
enum { kParallelMin = 1 << 18 };

typedef struct ew_split_t {
  const void* args;
  void* const* in;
  void* const* out;
  size_t step;
  bool binary;
} ew_split_t;

static void run_piece(void* arg, size_t begin, size_t end) {
  const ew_split_t* s = arg;
  for (size_t piece = begin; piece < end; piece++) {
    if (s->binary) {
      const binary_args_t* a = s->args;
      size_t lo = piece * s->step, hi = lo + s->step < a->n ? lo + s->step : a->n;
      if (lo >= hi) continue;
      a->fn((const char*)s->in[0] + lo * a->in_size,
            (const char*)s->in[1] + lo * a->in_size,
            (char*)s->out[0] + lo * a->out_size, hi - lo);
    } else {
      const unary_args_t* a = s->args;
      size_t lo = piece * s->step, hi = lo + s->step < a->n ? lo + s->step : a->n;
      if (lo >= hi) continue;
      a->fn((const char*)s->in[0] + lo * a->in_size,
            (char*)s->out[0] + lo * a->out_size, hi - lo);
    }
  }
}

/* Runs the op whole, or in one piece per thread when it is large. */
static void run_split(const void* args, void* const* in, void* const* out,
                      hlx_run_ctx_t* ctx, size_t n, bool binary) {
  int threads = hlx_parallel_num_threads(ctx->parallel);
  ew_split_t s = {args, in, out, n, binary};
  if (threads <= 1 || n < kParallelMin) {
    run_piece(&s, 0, 1);
    return;
  }
  s.step = ((n + (size_t)threads - 1) / (size_t)threads + 63) & ~(size_t)63;
  hlx_parallel_for(ctx->parallel, (size_t)threads, 1, run_piece, &s);
}

static hlx_status_t run_unary(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  run_split(args, in, out, ctx, ((const unary_args_t*)args)->n, false);
  return NULL;
}

static hlx_status_t run_binary(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  run_split(args, in, out, ctx, ((const binary_args_t*)args)->n, true);
  return NULL;
}

static bool shape_equal(const hlx_type_t* a, const hlx_type_t* b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

/* The spec's label of an elementwise op's shape rule: (C2) for compare and
 * complex, whose (C1) is about lhs and rhs, (C1) for the others. */
static const char* shape_rule(hlx_opcode_t code) {
  return code == HLX_OP_COMPARE || code == HLX_OP_COMPLEX ? "(C2) " : "(C1) ";
}

/* The label of the result element-type rule: (C2) for abs, real and imag,
 * (C3) for complex, none for the i1 results of compare and is_finite, whose
 * spec has no numbered rule for it, (C1) baseline_type for the others. */
static const char* result_type_rule(hlx_opcode_t code) {
  switch (code) {
    case HLX_OP_ABS: case HLX_OP_REAL: case HLX_OP_IMAG:
      return "(C2) ";
    case HLX_OP_COMPLEX:
      return "(C3) ";
    case HLX_OP_COMPARE: case HLX_OP_IS_FINITE:
      return "";
    default:
      return "(C1) ";
  }
}

/* The shape rule shared by elementwise ops: every operand and the result
 * have the same static shape. */
static hlx_status_t same_shapes(const hlx_op_t* op, size_t* n) {
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  for (int32_t i = 0; i < op->num_operands; i++) {
    const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
    if (!t)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: operand #%d is not a static tensor", i);
    if (!shape_equal(t, r))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "%soperand #%d's shape differs from the result's",
                          shape_rule(op->code), i);
  }
  *n = (size_t)hlx_type_num_elements(r);
  return NULL;
}

static int unary_of(hlx_opcode_t code) {
  switch (code) {
#define U(op, id) \
  case HLX_OP_##op: return HLX_UNARY_##id;
    U(ABS, ABS) U(NEGATE, NEGATE) U(NOT, NOT) U(SIGN, SIGN) U(SQRT, SQRT)
    U(RSQRT, RSQRT) U(CBRT, CBRT) U(EXPONENTIAL, EXP)
    U(EXPONENTIAL_MINUS_ONE, EXPM1) U(LOG, LOG) U(LOG_PLUS_ONE, LOG1P)
    U(LOGISTIC, LOGISTIC) U(SINE, SIN) U(COSINE, COS) U(TAN, TAN)
    U(TANH, TANH) U(FLOOR, FLOOR) U(CEIL, CEIL)
    U(ROUND_NEAREST_AFZ, ROUND_AFZ) U(ROUND_NEAREST_EVEN, ROUND_EVEN)
    U(POPCNT, POPCNT) U(COUNT_LEADING_ZEROS, CLZ) U(IS_FINITE, IS_FINITE)
    U(REAL, REAL) U(IMAG, IMAG) U(CHLO_CONJ, CONJ) U(CHLO_ACOS, ACOS)
    U(CHLO_ACOSH, ACOSH) U(CHLO_ASIN, ASIN) U(CHLO_ASINH, ASINH)
    U(CHLO_ATAN, ATAN) U(CHLO_ATANH, ATANH) U(CHLO_COSH, COSH)
    U(CHLO_SINH, SINH) U(CHLO_ERF, ERF) U(CHLO_ERFC, ERFC)
    U(CHLO_ERF_INV, ERF_INV) U(CHLO_LGAMMA, LGAMMA) U(CHLO_DIGAMMA, DIGAMMA)
    U(CHLO_BESSEL_I0E, BESSEL_I0E) U(CHLO_BESSEL_I1E, BESSEL_I1E)
    U(CHLO_IS_INF, IS_INF) U(CHLO_IS_POS_INF, IS_POS_INF)
    U(CHLO_IS_NEG_INF, IS_NEG_INF) U(CHLO_SQUARE, SQUARE) U(CHLO_TAN, TAN)
#undef U
    default:
      return -1;
  }
}

static int binary_of(hlx_opcode_t code) {
  switch (code) {
#define B(op, id) \
  case HLX_OP_##op: return HLX_BINARY_##id;
    B(ADD, ADD) B(SUBTRACT, SUBTRACT) B(MULTIPLY, MULTIPLY) B(DIVIDE, DIVIDE)
    B(REMAINDER, REMAINDER) B(POWER, POWER) B(MAXIMUM, MAXIMUM)
    B(MINIMUM, MINIMUM) B(AND, AND) B(OR, OR) B(XOR, XOR)
    B(SHIFT_LEFT, SHIFT_LEFT) B(SHIFT_RIGHT_ARITHMETIC, SHIFT_RIGHT_ARITHMETIC)
    B(SHIFT_RIGHT_LOGICAL, SHIFT_RIGHT_LOGICAL) B(ATAN2, ATAN2)
    B(COMPLEX, COMPLEX) B(CHLO_NEXT_AFTER, NEXT_AFTER)
    B(CHLO_POLYGAMMA, POLYGAMMA) B(CHLO_ZETA, ZETA) B(CHLO_MULHI, MULHI)
#undef B
    default:
      return -1;
  }
}

static hlx_status_t check_result_dtype(const hlx_op_t* op, hlx_dtype_t want) {
  hlx_dtype_t got = op->results[0]->type->dtype;
  if (got != want)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "%sresult element type is %s, the op produces %s",
                        result_type_rule(op->code), hlx_dtype_name(got),
                        hlx_dtype_name(want));
  return NULL;
}

static hlx_status_t not_quantized(const hlx_op_t* op) {
  for (int32_t i = 0; i < op->num_operands; i++)
    if (op->operands[i]->type->kind == HLX_TYPE_TENSOR &&
        op->operands[i]->type->quant)
      return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                          "unsupported: quantized operands");
  return NULL;
}

/* Emits a unary/binary task flagged HLX_TASK_ELEMENTWISE, so buffer
 * assignment may write its result over a same-size operand that dies here
 * (the kernels read element i before writing element i). Checks that a task
 * was added: a constant-folded op adds none. */
static hlx_status_t emit_elementwise(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                     hlx_task_fn fn, const void* args,
                                     int32_t num_in) {
  int32_t before = c->plan->num_tasks;
  HLX_RETURN_IF_ERROR(hlx_lower_emit_simple(c, op, fn, args, num_in));
  if (c->plan->num_tasks == before + 1)
    hlx_plan_last_task_set_flags(c->plan, HLX_TASK_ELEMENTWISE);
  return NULL;
}

static hlx_status_t lower_unary(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  size_t n;
  HLX_RETURN_IF_ERROR(not_quantized(op));
  if (op->num_operands != 1 || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes one operand and one result");
  HLX_RETURN_IF_ERROR(same_shapes(op, &n));
  hlx_dtype_t in_t = op->operands[0]->type->dtype, out_t;
  int u = unary_of(op->code);
  hlx_unary_fn fn = hlx_unary_kernel((hlx_unary_op_t)u, in_t, &out_t);
  if (!fn)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "element type %s is not allowed",
                        hlx_dtype_name(in_t));
  HLX_RETURN_IF_ERROR(check_result_dtype(op, out_t));
  unary_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->fn = fn;
  a->n = n;
  a->in_size = hlx_dtype_size(in_t);
  a->out_size = hlx_dtype_size(out_t);
  return emit_elementwise(c, op, run_unary, a, 1);
}

static hlx_status_t lower_binary(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  size_t n;
  HLX_RETURN_IF_ERROR(not_quantized(op));
  if (op->num_operands != 2 || op->num_results != 1)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes two operands and one result");
  HLX_RETURN_IF_ERROR(same_shapes(op, &n));
  hlx_dtype_t in_t = op->operands[0]->type->dtype, out_t;
  if (op->operands[1]->type->dtype != in_t)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) operands have element types %s and %s",
                        hlx_dtype_name(in_t),
                        hlx_dtype_name(op->operands[1]->type->dtype));
  int b = binary_of(op->code);
  hlx_binary_fn fn = hlx_binary_kernel((hlx_binary_op_t)b, in_t, &out_t);
  if (!fn)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "element type %s is not allowed",
                        hlx_dtype_name(in_t));
  HLX_RETURN_IF_ERROR(check_result_dtype(op, out_t));
  binary_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->fn = fn;
  a->n = n;
  a->in_size = hlx_dtype_size(in_t);
  a->out_size = hlx_dtype_size(out_t);
  return emit_elementwise(c, op, run_binary, a, 2);
}

/* ---- compare ------------------------------------------------------------- */

typedef struct compare_args_t {
  hlx_compare_dir_t dir;
  hlx_compare_type_t type;
  hlx_dtype_t dtype;
  size_t n;
} compare_args_t;

static hlx_status_t run_compare(const void* args, void* const* in,
                                void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const compare_args_t* a = args;
  hlx_compare(a->dir, a->type, a->dtype, in[0], in[1], out[0], a->n);
  return NULL;
}

static hlx_status_t lower_compare(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  size_t n;
  HLX_RETURN_IF_ERROR(not_quantized(op));
  HLX_RETURN_IF_ERROR(same_shapes(op, &n));
  const hlx_attr_t* d = hlx_op_attr(op, "comparison_direction");
  static const char* const kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  int dir = -1;
  if (d && d->kind == HLX_ATTR_ENUM)
    for (int i = 0; i < 6; i++)
      if (strcmp(d->enum_value, kDirs[i]) == 0) dir = i;
  if (dir < 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "comparison_direction must be one of EQ, NE, GE, GT, "
                        "LE, LT");
  hlx_compare_type_t type = HLX_CMP_DEFAULT;
  const hlx_attr_t* ct = hlx_op_attr(op, "compare_type");
  if (ct && ct->kind == HLX_ATTR_ENUM) {
    static const char* const kTypes[] = {"NOTYPE", "FLOAT", "TOTALORDER",
                                         "SIGNED", "UNSIGNED"};
    int k = -1;
    for (int i = 0; i < 5; i++)
      if (strcmp(ct->enum_value, kTypes[i]) == 0) k = i;
    if (k < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "unknown compare_type %s", ct->enum_value);
    type = (hlx_compare_type_t)k;
  }
  hlx_dtype_t t = op->operands[0]->type->dtype;
  if (op->operands[1]->type->dtype != t)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) lhs and rhs have element types %s and %s",
                        hlx_dtype_name(t),
                        hlx_dtype_name(op->operands[1]->type->dtype));
  /* (C3) compare_type: SIGNED for signed ints, UNSIGNED for unsigned ints
   * and i1, FLOAT or TOTALORDER for floats and complex. */
  if (type != HLX_CMP_DEFAULT) {
    bool ok = hlx_dtype_is_signed_int(t)
                  ? type == HLX_CMP_SIGNED
                  : (hlx_dtype_is_unsigned_int(t) || hlx_dtype_is_pred(t))
                        ? type == HLX_CMP_UNSIGNED
                        : type == HLX_CMP_FLOAT || type == HLX_CMP_TOTALORDER;
    if (!ok)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) compare_type %s is not allowed for %s",
                          ct->enum_value, hlx_dtype_name(t));
  }
  HLX_RETURN_IF_ERROR(check_result_dtype(op, HLX_DTYPE_PRED));
  compare_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  *a = (compare_args_t){(hlx_compare_dir_t)dir, type, t, n};
  /* Probe once at lowering so an unsupported dtype fails here. */
  unsigned char x[16] = {0}, y[16] = {0};
  uint8_t r;
  if (!hlx_ref_compare(a->dir, a->type, t, x, y, &r, 1))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "cannot compare element type %s", hlx_dtype_name(t));
  return hlx_lower_emit_simple(c, op, run_compare, a, 2);
}

/* ---- select / clamp ------------------------------------------------------ */

typedef struct select_args_t {
  size_t elem_size, n;
  bool pred_scalar;
} select_args_t;

static hlx_status_t run_select(const void* args, void* const* in,
                               void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const select_args_t* a = args;
  hlx_select(a->elem_size, in[0], a->pred_scalar, in[1], in[2], out[0], a->n);
  return NULL;
}

static bool is_scalar(const hlx_value_t* v) {
  return v->type->kind == HLX_TYPE_TENSOR && v->type->rank == 0;
}

static hlx_status_t lower_select(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  if (op->num_operands != 3)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes three operands");
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  if (op->operands[0]->type->dtype != HLX_DTYPE_PRED)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "pred must have element type i1");
  for (int i = 1; i < 3; i++)
    if (!hlx_type_equal(op->operands[i]->type, r))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C2) on_true, on_false and the result must have "
                          "the same type");
  bool scalar = is_scalar(op->operands[0]);
  if (!scalar && !shape_equal(op->operands[0]->type, r))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) pred must be a scalar or have the operands' "
                        "shape");
  select_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->elem_size = hlx_dtype_size(r->dtype);
  a->n = (size_t)hlx_type_num_elements(r);
  a->pred_scalar = scalar;
  return hlx_lower_emit_simple(c, op, run_select, a, 3);
}

typedef struct clamp_args_t {
  hlx_dtype_t dtype;
  bool lo_scalar, hi_scalar;
  size_t n;
} clamp_args_t;

static hlx_status_t run_clamp(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const clamp_args_t* a = args;
  hlx_ref_clamp(a->dtype, in[0], a->lo_scalar, in[1], in[2], a->hi_scalar,
                out[0], a->n);
  return NULL;
}

static hlx_status_t lower_clamp(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  HLX_RETURN_IF_ERROR(not_quantized(op));
  if (op->num_operands != 3)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes three operands (min, operand, max)");
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  if (!hlx_type_equal(op->operands[1]->type, r))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C4) operand and result must have the same type");
  for (int i = 0; i < 3; i += 2) {
    const hlx_type_t* t = op->operands[i]->type;
    if (t->rank != 0 && !shape_equal(t, r))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C%d) %s must be a scalar or have the operand's "
                          "type",
                          i == 0 ? 1 : 2, i == 0 ? "min" : "max");
    if (t->dtype != r->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "(C3) %s has element type %s, operand %s",
                          i == 0 ? "min" : "max", hlx_dtype_name(t->dtype),
                          hlx_dtype_name(r->dtype));
  }
  clamp_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  *a = (clamp_args_t){r->dtype, is_scalar(op->operands[0]),
                      is_scalar(op->operands[2]),
                      (size_t)hlx_type_num_elements(r)};
  unsigned char z[16] = {0}, o[16];
  if (!hlx_ref_clamp(r->dtype, z, true, z, z, true, o, 1))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "element type %s is not allowed",
                        hlx_dtype_name(r->dtype));
  return hlx_lower_emit_simple(c, op, run_clamp, a, 3);
}

/* ---- convert, reduce_precision ------------------------------------------- */

typedef struct convert_args_t {
  hlx_dtype_t from, to;
  size_t n;
} convert_args_t;

static hlx_status_t run_convert(const void* args, void* const* in,
                                void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const convert_args_t* a = args;
  hlx_ref_convert(a->from, in[0], a->to, out[0], a->n);
  return NULL;
}

static hlx_status_t lower_convert(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  size_t n;
  HLX_RETURN_IF_ERROR(not_quantized(op));
  HLX_RETURN_IF_ERROR(same_shapes(op, &n));
  convert_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  *a = (convert_args_t){op->operands[0]->type->dtype,
                        op->results[0]->type->dtype, n};
  unsigned char z[16] = {0}, o[16];
  if (!hlx_ref_convert(a->from, z, a->to, o, 1))
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: convert from %s to %s",
                        hlx_dtype_name(a->from), hlx_dtype_name(a->to));
  return hlx_lower_emit_simple(c, op, run_convert, a, 1);
}

typedef struct reduce_precision_args_t {
  hlx_dtype_t dtype;
  int32_t exponent_bits, mantissa_bits;
  size_t n;
} reduce_precision_args_t;

static hlx_status_t run_reduce_precision(const void* args, void* const* in,
                                         void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const reduce_precision_args_t* a = args;
  hlx_ref_reduce_precision(a->dtype, a->exponent_bits, a->mantissa_bits, in[0],
                           out[0], a->n);
  return NULL;
}

static hlx_status_t lower_reduce_precision(hlx_lower_ctx_t* c,
                                           const hlx_op_t* op) {
  size_t n;
  HLX_RETURN_IF_ERROR(same_shapes(op, &n));
  int64_t e, m;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "exponent_bits", true, 0, &e));
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "mantissa_bits", true, 0, &m));
  if (op->results[0]->type->dtype != op->operands[0]->type->dtype)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C1) operand has element type %s, output %s",
                        hlx_dtype_name(op->operands[0]->type->dtype),
                        hlx_dtype_name(op->results[0]->type->dtype));
  if (e < 1 || e > 64)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C2) exponent_bits must be >= 1 (got %lld)",
                        (long long)e);
  if (m < 0 || m > 64)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "(C3) mantissa_bits must be >= 0 (got %lld)",
                        (long long)m);
  reduce_precision_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  *a = (reduce_precision_args_t){op->operands[0]->type->dtype, (int32_t)e,
                                 (int32_t)m, n};
  unsigned char z[16] = {0}, o[16];
  if (!hlx_ref_reduce_precision(a->dtype, a->exponent_bits, a->mantissa_bits,
                                z, o, 1))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "element type %s is not allowed",
                        hlx_dtype_name(a->dtype));
  return hlx_lower_emit_simple(c, op, run_reduce_precision, a, 1);
}

/* ---- chlo.broadcast_*: numpy-style implicit broadcasting ---------------- */

/* The binary op behind a chlo.broadcast_<op>, or -1. */
static int chlo_broadcast_binary(hlx_opcode_t code) {
  switch (code) {
#define CB(op, id) \
  case HLX_OP_CHLO_BROADCAST_##op: return HLX_BINARY_##id;
    CB(ADD, ADD) CB(SUBTRACT, SUBTRACT) CB(MULTIPLY, MULTIPLY)
    CB(DIVIDE, DIVIDE) CB(REMAINDER, REMAINDER) CB(POWER, POWER)
    CB(MAXIMUM, MAXIMUM) CB(MINIMUM, MINIMUM) CB(AND, AND) CB(OR, OR)
    CB(XOR, XOR) CB(SHIFT_LEFT, SHIFT_LEFT)
    CB(SHIFT_RIGHT_ARITHMETIC, SHIFT_RIGHT_ARITHMETIC)
    CB(SHIFT_RIGHT_LOGICAL, SHIFT_RIGHT_LOGICAL) CB(ATAN2, ATAN2)
    CB(COMPLEX, COMPLEX) CB(NEXT_AFTER, NEXT_AFTER) CB(POLYGAMMA, POLYGAMMA)
    CB(ZETA, ZETA)
#undef CB
    default:
      return -1;
  }
}

/* Slot of operand i broadcast to the result's shape: right-aligned like
 * numpy, or along `broadcast_dimensions` for the lower-rank operand. */
static hlx_status_t broadcast_operand(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                      int i, const hlx_type_t* r,
                                      int32_t* slot) {
  const hlx_type_t* t = hlx_static_tensor(op->operands[i]);
  if (!t || t->rank > r->rank || t->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "operand #%d's rank exceeds the result's", i);
  HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, slot));
  bool same = t->rank == r->rank;
  for (int32_t d = 0; same && d < r->rank; d++) same = t->dims[d] == r->dims[d];
  if (same) return NULL;
  int64_t bd[HLX_MAX_RANK];
  const int64_t* given;
  int32_t ng;
  HLX_RETURN_IF_ERROR(
      hlx_attr_i64_array(op, "broadcast_dimensions", false, &given, &ng));
  for (int32_t d = 0; d < t->rank; d++)
    bd[d] = (given && ng == t->rank) ? given[d] : r->rank - t->rank + d;
  hlx_type_t shaped = *r;
  shaped.dtype = t->dtype;
  return hlx_lower_broadcast_slot(c, op, *slot, t, &shaped, bd, slot);
}

static hlx_status_t lower_chlo_broadcast(hlx_lower_ctx_t* c,
                                         const hlx_op_t* op) {
  HLX_RETURN_IF_ERROR(not_quantized(op));
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  if (!r || r->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  int32_t in[3], out;
  for (int32_t i = 0; i < op->num_operands && i < 3; i++)
    HLX_RETURN_IF_ERROR(broadcast_operand(c, op, i, r, &in[i]));
  size_t n = (size_t)hlx_type_num_elements(r);
  if (op->code == HLX_OP_CHLO_BROADCAST_SELECT) {
    if (op->num_operands != 3 || op->operands[0]->type->dtype != HLX_DTYPE_PRED)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "takes an i1 pred and two values");
    select_args_t* a = hlx_lower_alloc(c, sizeof(*a));
    if (!a) return hlx_status_oom();
    *a = (select_args_t){hlx_dtype_size(r->dtype), n, false};
    HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
    return hlx_lower_emit(c, op, run_select, a, 3, in, 1, &out);
  }
  if (op->num_operands != 2 ||
      op->operands[0]->type->dtype != op->operands[1]->type->dtype)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes two operands of one element type");
  hlx_dtype_t t = op->operands[0]->type->dtype, out_t;
  if (op->code == HLX_OP_CHLO_BROADCAST_COMPARE) {
    const hlx_attr_t* d = hlx_op_attr(op, "comparison_direction");
    static const char* const kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
    int dir = -1;
    if (d && d->kind == HLX_ATTR_ENUM)
      for (int i = 0; i < 6; i++)
        if (strcmp(d->enum_value, kDirs[i]) == 0) dir = i;
    if (dir < 0)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "comparison_direction must be one of EQ, NE, GE, "
                          "GT, LE, LT");
    compare_args_t* a = hlx_lower_alloc(c, sizeof(*a));
    if (!a) return hlx_status_oom();
    *a = (compare_args_t){(hlx_compare_dir_t)dir, HLX_CMP_DEFAULT, t, n};
    HLX_RETURN_IF_ERROR(check_result_dtype(op, HLX_DTYPE_PRED));
    HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
    return hlx_lower_emit(c, op, run_compare, a, 2, in, 1, &out);
  }
  hlx_binary_fn fn = hlx_ref_binary_kernel(
      (hlx_binary_op_t)chlo_broadcast_binary(op->code), t, &out_t);
  if (!fn)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "element type %s is not allowed", hlx_dtype_name(t));
  HLX_RETURN_IF_ERROR(check_result_dtype(op, out_t));
  binary_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->fn = fn;
  a->n = n;
  a->in_size = hlx_dtype_size(t);
  a->out_size = hlx_dtype_size(out_t);
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  return hlx_lower_emit(c, op, run_binary, a, 2, in, 1, &out);
}

/* chlo.constant_like: a constant of the operand's shape. */
static hlx_status_t lower_constant_like(hlx_lower_ctx_t* c,
                                        const hlx_op_t* op) {
  const hlx_type_t* r = hlx_static_tensor(op->results[0]);
  const hlx_attr_t* v = hlx_op_attr(op, "value");
  if (!r)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: dynamic shapes are not executed "
                        "(hlx_program_specialize makes them static)");
  double f = 0;
  int64_t i = 0;
  hlx_dtype_t from;
  const void* src;
  if (v && v->kind == HLX_ATTR_FLOAT) {
    f = v->f;
    from = HLX_DTYPE_F64;
    src = &f;
  } else if (v && v->kind == HLX_ATTR_INT) {
    i = v->i;
    from = HLX_DTYPE_S64;
    src = &i;
  } else if (v && v->kind == HLX_ATTR_BOOL) {
    i = v->b;
    from = HLX_DTYPE_S64;
    src = &i;
  } else if (v && v->kind == HLX_ATTR_DENSE && v->type &&
             v->dense_bytes == hlx_dtype_size(r->dtype) &&
             v->type->dtype == r->dtype) {
    from = r->dtype;
    src = v->dense;
  } else {
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "attribute 'value' must be a scalar");
  }
  int32_t slot;
  HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &slot));
  size_t es = hlx_dtype_size(r->dtype), n = (size_t)hlx_type_num_elements(r);
  unsigned char* data = hlx_lower_alloc(c, n * es + 16);
  unsigned char one[16];
  if (!data) return hlx_status_oom();
  if (!hlx_ref_convert(from, src, r->dtype, one, 1))
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "cannot convert the value to %s",
                        hlx_dtype_name(r->dtype));
  for (size_t k = 0; k < n; k++) memcpy(data + k * es, one, es);
  c->plan->slot_data[slot] = data;
  return NULL;
}

const hlx_lowering_t hlx_lowerings_elementwise[] = {
    {HLX_OP_CHLO_CONSTANT_LIKE, lower_constant_like},
#define CB(op) {HLX_OP_CHLO_BROADCAST_##op, lower_chlo_broadcast},
    CB(ADD) CB(SUBTRACT) CB(MULTIPLY) CB(DIVIDE) CB(REMAINDER) CB(POWER)
    CB(MAXIMUM) CB(MINIMUM) CB(AND) CB(OR) CB(XOR) CB(SHIFT_LEFT)
    CB(SHIFT_RIGHT_ARITHMETIC) CB(SHIFT_RIGHT_LOGICAL) CB(ATAN2) CB(COMPLEX)
    CB(NEXT_AFTER) CB(POLYGAMMA) CB(ZETA) CB(COMPARE) CB(SELECT)
#undef CB
    {HLX_OP_COMPARE, lower_compare},
    {HLX_OP_SELECT, lower_select},
    {HLX_OP_CLAMP, lower_clamp},
    {HLX_OP_CONVERT, lower_convert},
    {HLX_OP_REDUCE_PRECISION, lower_reduce_precision},
#define U(op) {HLX_OP_##op, lower_unary},
    U(ABS) U(NEGATE) U(NOT) U(SIGN) U(SQRT) U(RSQRT) U(CBRT) U(EXPONENTIAL)
    U(EXPONENTIAL_MINUS_ONE) U(LOG) U(LOG_PLUS_ONE) U(LOGISTIC) U(SINE)
    U(COSINE) U(TAN) U(TANH) U(FLOOR) U(CEIL) U(ROUND_NEAREST_AFZ)
    U(ROUND_NEAREST_EVEN) U(POPCNT) U(COUNT_LEADING_ZEROS) U(IS_FINITE)
    U(REAL) U(IMAG) U(CHLO_CONJ) U(CHLO_ACOS) U(CHLO_ACOSH) U(CHLO_ASIN)
    U(CHLO_ASINH) U(CHLO_ATAN) U(CHLO_ATANH) U(CHLO_COSH) U(CHLO_SINH)
    U(CHLO_ERF) U(CHLO_ERFC) U(CHLO_ERF_INV) U(CHLO_LGAMMA) U(CHLO_DIGAMMA)
    U(CHLO_BESSEL_I0E) U(CHLO_BESSEL_I1E) U(CHLO_IS_INF) U(CHLO_IS_POS_INF)
    U(CHLO_IS_NEG_INF) U(CHLO_SQUARE) U(CHLO_TAN)
#undef U
#define B(op) {HLX_OP_##op, lower_binary},
    B(ADD) B(SUBTRACT) B(MULTIPLY) B(DIVIDE) B(REMAINDER) B(POWER) B(MAXIMUM)
    B(MINIMUM) B(AND) B(OR) B(XOR) B(SHIFT_LEFT) B(SHIFT_RIGHT_ARITHMETIC)
    B(SHIFT_RIGHT_LOGICAL) B(ATAN2) B(COMPLEX) B(CHLO_NEXT_AFTER)
    B(CHLO_POLYGAMMA) B(CHLO_ZETA) B(CHLO_MULHI)
#undef B
    {HLX_OP_UNKNOWN, NULL},
};
