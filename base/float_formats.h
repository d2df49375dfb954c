/* Conversions between the narrow float formats (f16, bf16, the f8/f6/f4
 * families) and double/float. Rounding is to nearest, ties to even; values
 * out of range become Inf, or NaN for formats without Inf (the "FN" ones),
 * matching ml_dtypes/XLA conversions. */
#ifndef HLX_BASE_FLOAT_FORMATS_H_
#define HLX_BASE_FLOAT_FORMATS_H_

#include <stdint.h>

#include "base/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

float hlx_f16_to_f32(uint16_t h);
uint16_t hlx_f32_to_f16(float f);
float hlx_bf16_to_f32(uint16_t h);
uint16_t hlx_f32_to_bf16(float f);
/* From double directly (one rounding step, no double rounding via f32). */
uint16_t hlx_f64_to_f16(double d);
uint16_t hlx_f64_to_bf16(double d);

/* Any narrow float dtype (F16, BF16, and the small floats) <-> double. */
double hlx_small_float_to_f64(hlx_dtype_t t, uint32_t bits);
uint32_t hlx_f64_to_small_float(hlx_dtype_t t, double d);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_BASE_FLOAT_FORMATS_H_ */
