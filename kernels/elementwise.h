/* Reference elementwise kernels: every op of elementwise_ops.inc for every
 * element type the StableHLO spec allows it.
 *
 * All tensors are dense, row-major and of equal element count n (StableHLO
 * has no implicit broadcasting; scalar operands of select/clamp are flagged
 * explicitly). Sub-byte ints (i2/i4/ui2/ui4) and small floats are stored one
 * per byte; integer results wrap to the type's bit width (sign-extended for
 * signed types). Kernels assume the verifier checked dtypes; asking for an
 * unsupported (op, dtype) pair returns NULL from the *_kernel lookup. */
#ifndef HLX_KERNELS_ELEMENTWISE_H_
#define HLX_KERNELS_ELEMENTWISE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_unary_op_t {
#define HLX_UNARY(id, name) HLX_UNARY_##id,
#include "kernels/elementwise_ops.inc"
#undef HLX_UNARY
  HLX_UNARY_COUNT
} hlx_unary_op_t;

typedef enum hlx_binary_op_t {
#define HLX_BINARY(id, name) HLX_BINARY_##id,
#include "kernels/elementwise_ops.inc"
#undef HLX_BINARY
  HLX_BINARY_COUNT
} hlx_binary_op_t;

const char* hlx_unary_op_name(hlx_unary_op_t op);
const char* hlx_binary_op_name(hlx_binary_op_t op);

typedef void (*hlx_unary_fn)(const void* x, void* y, size_t n);
typedef void (*hlx_binary_fn)(const void* a, const void* b, void* y,
                              size_t n);

/* The reference kernel for (op, dtype of the input), or NULL if the spec
 * does not allow that pair. `out` receives the result dtype. */
hlx_unary_fn hlx_ref_unary_kernel(hlx_unary_op_t op, hlx_dtype_t in,
                                  hlx_dtype_t* out);
hlx_binary_fn hlx_ref_binary_kernel(hlx_binary_op_t op, hlx_dtype_t in,
                                    hlx_dtype_t* out);

/* compare: y (pred, one byte 0/1) = a <dir> b. */
typedef enum hlx_compare_dir_t {
  HLX_CMP_EQ, HLX_CMP_NE, HLX_CMP_GE, HLX_CMP_GT, HLX_CMP_LE, HLX_CMP_LT
} hlx_compare_dir_t;
typedef enum hlx_compare_type_t {
  HLX_CMP_DEFAULT,    /* from the dtype: FLOAT for floats, SIGNED/UNSIGNED */
  HLX_CMP_FLOAT,      /* IEEE: NaN compares unordered */
  HLX_CMP_TOTALORDER, /* IEEE totalOrder */
  HLX_CMP_SIGNED,
  HLX_CMP_UNSIGNED,
} hlx_compare_type_t;
/* Complex operands: EQ/NE compare both parts; ordered directions compare
 * lexicographically (real, then imag) as XLA does. false if unsupported. */
bool hlx_ref_compare(hlx_compare_dir_t dir, hlx_compare_type_t type,
                     hlx_dtype_t t, const void* a, const void* b, uint8_t* y,
                     size_t n);

/* select: y[i] = pred[pred_scalar ? 0 : i] ? on_true[i] : on_false[i]. */
void hlx_ref_select(size_t elem_size, const uint8_t* pred, bool pred_scalar,
                    const void* on_true, const void* on_false, void* y,
                    size_t n);

/* clamp: y = min(max(x, lo), hi); lo/hi may be scalars (one element). NaN
 * propagates as in maximum/minimum. false if unsupported. */
bool hlx_ref_clamp(hlx_dtype_t t, const void* lo, bool lo_scalar,
                   const void* x, const void* hi, bool hi_scalar, void* y,
                   size_t n);

/* convert: every dtype pair. float->int truncates toward zero and saturates
 * (NaN -> 0) like XLA; int->int wraps; to pred: x != 0; complex->real takes
 * the real part (complex->pred too: real != 0, as the StableHLO interpreter
 * does). false if unsupported. */
bool hlx_ref_convert(hlx_dtype_t from, const void* x, hlx_dtype_t to, void* y,
                     size_t n);

/* reduce_precision: round x to exponent_bits/mantissa_bits (RNE), overflow
 * to Inf, NaN kept NaN. Float dtypes only. false if unsupported. */
bool hlx_ref_reduce_precision(hlx_dtype_t t, int32_t exponent_bits,
                              int32_t mantissa_bits, const void* x, void* y,
                              size_t n);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_ELEMENTWISE_H_ */
