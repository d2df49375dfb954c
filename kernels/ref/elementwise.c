/* Op names and the (op, dtype) -> reference kernel lookup. The kernels
 * themselves live in elementwise_{int,float,complex}.c. */
#include "kernels/elementwise.h"

#include "kernels/ref/elementwise_internal.h"

static const char* const kUnaryNames[HLX_UNARY_COUNT] = {
#define HLX_UNARY(id, name) [HLX_UNARY_##id] = name,
#include "kernels/elementwise_ops.inc"
#undef HLX_UNARY
};

static const char* const kBinaryNames[HLX_BINARY_COUNT] = {
#define HLX_BINARY(id, name) [HLX_BINARY_##id] = name,
#include "kernels/elementwise_ops.inc"
#undef HLX_BINARY
};

const char* hlx_unary_op_name(hlx_unary_op_t op) {
  return (unsigned)op < HLX_UNARY_COUNT ? kUnaryNames[op] : "invalid";
}

const char* hlx_binary_op_name(hlx_binary_op_t op) {
  return (unsigned)op < HLX_BINARY_COUNT ? kBinaryNames[op] : "invalid";
}

hlx_unary_fn hlx_ref_unary_kernel(hlx_unary_op_t op, hlx_dtype_t in,
                                  hlx_dtype_t* out) {
  hlx_unary_fn fn = NULL;
  if (hlx_dtype_is_int(in) || hlx_dtype_is_pred(in))
    fn = hlx_internal_int_unary(op, in);
  else if (hlx_dtype_is_float(in))
    fn = hlx_internal_float_unary(op, in);
  else if (hlx_dtype_is_complex(in))
    fn = hlx_internal_complex_unary(op, in);
  if (out) {
    hlx_dtype_t t = in;
    switch (op) {
      case HLX_UNARY_IS_FINITE:
      case HLX_UNARY_IS_INF:
      case HLX_UNARY_IS_POS_INF:
      case HLX_UNARY_IS_NEG_INF:
        t = HLX_DTYPE_PRED;
        break;
      case HLX_UNARY_ABS:
      case HLX_UNARY_REAL:
      case HLX_UNARY_IMAG:
        t = hlx_dtype_complex_part(in);
        break;
      default:
        break;
    }
    *out = fn ? t : HLX_DTYPE_INVALID;
  }
  return fn;
}

hlx_binary_fn hlx_ref_binary_kernel(hlx_binary_op_t op, hlx_dtype_t in,
                                    hlx_dtype_t* out) {
  hlx_binary_fn fn = NULL;
  if (hlx_dtype_is_int(in) || hlx_dtype_is_pred(in))
    fn = hlx_internal_int_binary(op, in);
  else if (hlx_dtype_is_float(in))
    fn = hlx_internal_float_binary(op, in);
  else if (hlx_dtype_is_complex(in))
    fn = hlx_internal_complex_binary(op, in);
  if (out) {
    hlx_dtype_t t = in;
    if (op == HLX_BINARY_COMPLEX)
      t = in == HLX_DTYPE_F32 ? HLX_DTYPE_C64 : HLX_DTYPE_C128;
    *out = fn ? t : HLX_DTYPE_INVALID;
  }
  return fn;
}
