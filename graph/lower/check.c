/* The check ops of StableHLO's test suite (check.expect_* and the
 * @check.* custom calls): they compare a value with an expected one and
 * fail the run with HLX_CHECK_FAILED when it differs. Semantics follow
 * StableHLO's interpreter (DESIGN.md): expect_eq exact (NaN equals NaN),
 * expect_close within max_ulp_difference (default 3) ULP, expect_almost_eq
 * within an absolute or relative tolerance (default 1e-3). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/float_formats.h"
#include "graph/lower/ctx.h"
#include "graph/lower/jax.h"

typedef enum check_kind_t { CHECK_EQ, CHECK_CLOSE, CHECK_ALMOST_EQ } check_kind_t;

typedef struct check_args_t {
  check_kind_t kind;
  hlx_dtype_t dtype;
  int32_t rank;
  int64_t dims[HLX_MAX_RANK];
  size_t n;
  const void* expected; /* constant data, or NULL to read input 1 */
  double tolerance;
  int64_t max_ulp, min_ulp;
  const char* what;
  bool returns_pred; /* @check.eq yields an i1 result */
} check_args_t;

/* Maps a float's bit pattern to an integer line where adjacent floats are
 * one apart (sign-magnitude to two's complement). */
static int64_t ordered_bits(uint64_t bits, int total_bits) {
  uint64_t sign = 1ull << (total_bits - 1);
  uint64_t mag = bits & (sign - 1);
  return (bits & sign) ? -(int64_t)mag : (int64_t)mag;
}

/* ULP distance of two finite values of one format: the gap between their
 * places on that line. uint64, because it goes past INT64_MAX: the largest
 * f64 and its negation are 2^64 - 2^53 - 2 apart. */
static uint64_t ulp_distance(uint64_t got, uint64_t want, int total_bits) {
  int64_t g = ordered_bits(got, total_bits);
  int64_t w = ordered_bits(want, total_bits);
  return g >= w ? (uint64_t)g - (uint64_t)w : (uint64_t)w - (uint64_t)g;
}

static uint64_t load_bits(const void* p, size_t size) {
  uint64_t v = 0;
  memcpy(&v, p, size); /* little-endian host */
  return v;
}

static double to_double(hlx_dtype_t t, uint64_t bits) {
  if (t == HLX_DTYPE_F32) {
    float f;
    uint32_t b = (uint32_t)bits;
    memcpy(&f, &b, 4);
    return f;
  }
  if (t == HLX_DTYPE_F64) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  return hlx_small_float_to_f64(t, (uint32_t)bits);
}

/* Compares one real component; writes a reason when it fails. */
static bool component_ok(const check_args_t* a, hlx_dtype_t t, uint64_t got,
                         uint64_t want, char* why, size_t len) {
  if (!hlx_dtype_is_float(t)) {
    if (got == want) return true;
    int bits = hlx_dtype_bits(t);
    if (hlx_dtype_is_signed_int(t) && bits < 64) {
      int64_t g = (int64_t)(got << (64 - bits)) >> (64 - bits);
      int64_t w = (int64_t)(want << (64 - bits)) >> (64 - bits);
      snprintf(why, len, "got %lld, expected %lld", (long long)g, (long long)w);
    } else if (hlx_dtype_is_signed_int(t)) {
      snprintf(why, len, "got %lld, expected %lld", (long long)got,
               (long long)want);
    } else {
      snprintf(why, len, "got %llu, expected %llu", (unsigned long long)got,
               (unsigned long long)want);
    }
    return false;
  }
  double g = to_double(t, got), w = to_double(t, want);
  if (isnan(g) && isnan(w)) return true;
  bool ok;
  char extra[64] = "";
  if (a->kind == CHECK_EQ) {
    ok = got == want;
  } else if (isnan(g) || isnan(w) || isinf(g) || isinf(w)) {
    ok = got == want; /* non-finite values must match bitwise */
  } else if (a->kind == CHECK_CLOSE) {
    uint64_t d = ulp_distance(got, want, hlx_dtype_bits(t));
    /* max_ulp and min_ulp are >= 0 (lower_check_common). */
    ok = d <= (uint64_t)a->max_ulp && d >= (uint64_t)a->min_ulp;
    snprintf(extra, sizeof extra, " (%llu ULP, allowed %lld)",
             (unsigned long long)d, (long long)a->max_ulp);
  } else {
    double diff = fabs(g - w);
    ok = diff <= a->tolerance || diff <= a->tolerance * fabs(w);
    snprintf(extra, sizeof extra, " (difference %.3g, tolerance %g)", diff,
             a->tolerance);
  }
  if (!ok) snprintf(why, len, "got %.9g, expected %.9g%s", g, w, extra);
  return ok;
}

static void format_index(const check_args_t* a, size_t flat, char* buf,
                         size_t len) {
  int64_t idx[HLX_MAX_RANK];
  for (int32_t d = a->rank - 1; d >= 0; d--) {
    idx[d] = a->dims[d] ? (int64_t)(flat % (size_t)a->dims[d]) : 0;
    flat = a->dims[d] ? flat / (size_t)a->dims[d] : 0;
  }
  size_t k = (size_t)snprintf(buf, len, "[");
  for (int32_t d = 0; d < a->rank && k < len; d++)
    k += (size_t)snprintf(buf + k, len - k, "%s%lld", d ? ", " : "",
                          (long long)idx[d]);
  if (k < len) snprintf(buf + k, len - k, "]");
}

static hlx_status_t run_check(const void* args, void* const* in,
                              void* const* out, hlx_run_ctx_t* ctx) {
  (void)ctx;
  const check_args_t* a = args;
  const unsigned char* got = in[0];
  const unsigned char* want = a->expected ? a->expected : in[1];
  size_t es = hlx_dtype_size(a->dtype);
  bool cplx = hlx_dtype_is_complex(a->dtype);
  hlx_dtype_t part = hlx_dtype_complex_part(a->dtype);
  size_t ps = cplx ? es / 2 : es;
  for (size_t i = 0; i < a->n; i++) {
    char why[160];
    bool ok = true;
    for (int c = 0; c < (cplx ? 2 : 1) && ok; c++) {
      const unsigned char* g = got + i * es + (size_t)c * ps;
      const unsigned char* w = want + i * es + (size_t)c * ps;
      ok = component_ok(a, part, load_bits(g, ps), load_bits(w, ps), why,
                        sizeof why);
    }
    if (!ok) {
      if (a->returns_pred) {
        *(uint8_t*)out[0] = 0;
      }
      char idx[128];
      format_index(a, i, idx, sizeof idx);
      return hlx_make_status(HLX_CHECK_FAILED_CODE, "%s: %s: element %s: %s",
                             HLX_CHECK_FAILED, a->what, idx, why);
    }
  }
  if (a->returns_pred) *(uint8_t*)out[0] = 1;
  return NULL;
}

static hlx_status_t lower_check_common(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                       check_kind_t kind, bool has_const,
                                       const char* what) {
  int want_operands = has_const ? 1 : 2;
  if (op->num_operands != want_operands)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "takes %d operands, has %d", want_operands,
                        op->num_operands);
  const hlx_type_t* t = hlx_static_tensor(op->operands[0]);
  if (!t || t->rank > HLX_MAX_RANK)
    return hlx_op_error(op, HLX_STATUS_UNIMPLEMENTED,
                        "unsupported: operand is not a static tensor");
  check_args_t* a = hlx_lower_alloc(c, sizeof(*a));
  if (!a) return hlx_status_oom();
  a->kind = kind;
  a->dtype = t->dtype;
  a->rank = t->rank;
  /* dims may be NULL at rank 0 */
  if (t->rank)
    memcpy(a->dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
  a->n = (size_t)hlx_type_num_elements(t);
  a->what = what;
  a->max_ulp = 3;
  a->tolerance = 1e-3;
  if (has_const) {
    const hlx_attr_t* v = hlx_op_attr(op, "value");
    if (!v || v->kind != HLX_ATTR_DENSE)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "missing dense attribute 'value'");
    if (v->dense_bytes != hlx_tensor_bytes(t) || !v->type ||
        v->type->dtype != t->dtype)
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "expected value's type differs from the operand's");
    a->expected = v->dense;
  } else if (!hlx_type_equal(op->operands[1]->type, t)) {
    /* Quantized or otherwise: compare as long as the storage matches. */
    const hlx_type_t* u = op->operands[1]->type;
    if (u->kind != HLX_TYPE_TENSOR || u->dtype != t->dtype ||
        hlx_tensor_bytes(u) != hlx_tensor_bytes(t))
      return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                          "operands have different types");
  }
  const hlx_attr_t* tol = hlx_op_attr(op, "tolerance");
  if (tol && tol->kind == HLX_ATTR_FLOAT) a->tolerance = tol->f;
  int64_t v;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "max_ulp_difference", false, 3, &v));
  a->max_ulp = v;
  HLX_RETURN_IF_ERROR(hlx_attr_int(op, "min_ulp_difference", false, 0, &v));
  a->min_ulp = v;
  if (a->max_ulp < 0 || a->min_ulp < 0)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "max_ulp_difference and min_ulp_difference must be "
                        ">= 0, are %lld and %lld",
                        (long long)a->max_ulp, (long long)a->min_ulp);
  int32_t in[2];
  for (int i = 0; i < want_operands; i++)
    HLX_RETURN_IF_ERROR(hlx_lower_in(c, op, i, &in[i]));
  int32_t out = -1;
  if (op->num_results == 1) {
    a->returns_pred = true;
    HLX_RETURN_IF_ERROR(hlx_lower_out(c, op, 0, &out));
  } else {
    for (int32_t i = 0; i < op->num_results; i++)
      HLX_RETURN_IF_ERROR(hlx_lower_define(c, op->results[i], NULL));
  }
  HLX_RETURN_IF_ERROR(hlx_lower_emit(c, op, run_check, a, want_operands, in,
                                     a->returns_pred ? 1 : 0, &out));
  hlx_plan_last_task_set_flags(c->plan, HLX_TASK_SIDE_EFFECT); /* in order */
  return NULL;
}

static hlx_status_t lower_expect_eq(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_check_common(c, op, CHECK_EQ, false, "check.expect_eq");
}
static hlx_status_t lower_expect_eq_const(hlx_lower_ctx_t* c,
                                          const hlx_op_t* op) {
  return lower_check_common(c, op, CHECK_EQ, true, "check.expect_eq_const");
}
static hlx_status_t lower_expect_close(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  return lower_check_common(c, op, CHECK_CLOSE, false, "check.expect_close");
}
static hlx_status_t lower_expect_almost_eq(hlx_lower_ctx_t* c,
                                           const hlx_op_t* op) {
  return lower_check_common(c, op, CHECK_ALMOST_EQ, false,
                            "check.expect_almost_eq");
}
static hlx_status_t lower_expect_almost_eq_const(hlx_lower_ctx_t* c,
                                                 const hlx_op_t* op) {
  return lower_check_common(c, op, CHECK_ALMOST_EQ, true,
                            "check.expect_almost_eq_const");
}

/* custom_call: the @check.* targets are checks; anything else needs a host
 * function, and none is registered yet. */
static hlx_status_t lower_custom_call(hlx_lower_ctx_t* c, const hlx_op_t* op) {
  const hlx_attr_t* t = hlx_op_attr(op, "call_target_name");
  if (!t || t->kind != HLX_ATTR_STRING)
    return hlx_op_error(op, HLX_STATUS_INVALID_ARGUMENT,
                        "missing attribute 'call_target_name'");
  if (strcmp(t->str, "check.expect_eq") == 0 || strcmp(t->str, "check.eq") == 0)
    return lower_check_common(c, op, CHECK_EQ, false, t->str);
  if (strcmp(t->str, "check.expect_close") == 0)
    return lower_check_common(c, op, CHECK_CLOSE, false, t->str);
  if (strcmp(t->str, "check.expect_almost_eq") == 0)
    return lower_check_common(c, op, CHECK_ALMOST_EQ, false, t->str);
  bool builtin; /* JAX's CPU targets (graph/lower/jax_custom_call.c) */
  HLX_RETURN_IF_ERROR(hlx_lower_jax_custom_call(c, op, t->str, &builtin));
  if (builtin) return NULL;
  return hlx_lower_host_call(c, op, t->str);
}

const hlx_lowering_t hlx_lowerings_check[] = {
    {HLX_OP_CHECK_EXPECT_EQ, lower_expect_eq},
    {HLX_OP_CHECK_EQ, lower_expect_eq},
    {HLX_OP_CHECK_EXPECT_EQ_CONST, lower_expect_eq_const},
    {HLX_OP_CHECK_EXPECT_CLOSE, lower_expect_close},
    {HLX_OP_CHECK_EXPECT_ALMOST_EQ, lower_expect_almost_eq},
    {HLX_OP_CHECK_EXPECT_ALMOST_EQ_CONST, lower_expect_almost_eq_const},
    {HLX_OP_CUSTOM_CALL, lower_custom_call},
    {HLX_OP_UNKNOWN, NULL},
};
