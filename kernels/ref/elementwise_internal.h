/* Internal helpers shared by the reference elementwise kernels
 * (kernels/ref/elementwise_*.c). Not part of the kernel interface. */
#ifndef HLX_KERNELS_REF_ELEMENTWISE_INTERNAL_H_
#define HLX_KERNELS_REF_ELEMENTWISE_INTERNAL_H_

#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "base/float_formats.h"
#include "kernels/elementwise.h"

/* Narrow-float kernels decode a chunk of this many elements to f32, run the
 * f32 kernel on it and round back: one kernel call per chunk, never per
 * element. */
#define HLX_EW_CHUNK 256

#define HLX_EW_CAT_(a, b) a##b
#define HLX_EW_CAT(a, b) HLX_EW_CAT_(a, b)
#define HLX_EW_CAT3(a, b, c) HLX_EW_CAT(HLX_EW_CAT(a, b), c)

/* ---- f16 <-> f32, bit tricks (RNE; NaN stays NaN, sign kept). ---- */
static inline float hlx_ew_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  uint32_t r;
  if (em >= 0x7c00u) {
    r = 0x7f800000u | ((em & 0x3ffu) << 13);
  } else if (em >= 0x400u) {
    r = (em << 13) + ((uint32_t)(127 - 15) << 23);
  } else {
    float f = (float)em * 0x1p-24f; /* exact */
    memcpy(&r, &f, 4);
  }
  r |= sign;
  float out;
  memcpy(&out, &r, 4);
  return out;
}

static inline uint16_t hlx_ew_f32_to_f16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint32_t o;
  if (u >= ((uint32_t)(127 + 16) << 23)) {
    o = (u > 0x7f800000u) ? 0x7e00u : 0x7c00u;
  } else if (u < ((uint32_t)113 << 23)) {
    /* Subnormal or zero: let the FPU round (adding 0.5 puts the f16
     * subnormal ulp 2^-24 at the f32 ulp of 0.5). */
    float a;
    memcpy(&a, &u, 4);
    a += 0.5f;
    memcpy(&o, &a, 4);
    o -= 0x3f000000u;
  } else {
    uint32_t mant_odd = (u >> 13) & 1u;
    u += ((uint32_t)(15 - 127) << 23) + 0xfffu; /* wraps: rebias exponent */
    u += mant_odd;
    o = u >> 13;
  }
  return (uint16_t)(o | (sign >> 16));
}

/* Decode/encode a run of narrow floats (F16, BF16, the 4/6/8-bit formats)
 * to/from f32. */
void hlx_internal_narrow_to_f32(hlx_dtype_t t, const void* x, float* y,
                                size_t n);
void hlx_internal_f32_to_narrow(hlx_dtype_t t, const float* x, void* y,
                                size_t n);

/* Double-precision special functions (elementwise_special.c). */
double hlx_internal_erf_inv(double x);
double hlx_internal_lgamma(double x);
double hlx_internal_digamma(double x);
double hlx_internal_bessel_i0e(double x);
double hlx_internal_bessel_i1e(double x);
double hlx_internal_zeta(double x, double q);
double hlx_internal_polygamma(double n, double x);

/* Per-family kernel lookups (NULL when the pair is not allowed). The output
 * dtype is decided by hlx_ref_unary_kernel / hlx_ref_binary_kernel. */
hlx_unary_fn hlx_internal_int_unary(hlx_unary_op_t op, hlx_dtype_t t);
hlx_binary_fn hlx_internal_int_binary(hlx_binary_op_t op, hlx_dtype_t t);
hlx_unary_fn hlx_internal_float_unary(hlx_unary_op_t op, hlx_dtype_t t);
hlx_binary_fn hlx_internal_float_binary(hlx_binary_op_t op, hlx_dtype_t t);
hlx_unary_fn hlx_internal_complex_unary(hlx_unary_op_t op, hlx_dtype_t t);
hlx_binary_fn hlx_internal_complex_binary(hlx_binary_op_t op, hlx_dtype_t t);

#endif /* HLX_KERNELS_REF_ELEMENTWISE_INTERNAL_H_ */
