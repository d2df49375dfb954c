#include "base/float_formats.h"

#include <math.h>
#include <string.h>

/* Description of a binary float format narrower than f32. */
typedef struct {
  int ebits, mbits, bias;
  int has_inf;      /* IEEE-like: top exponent is Inf/NaN */
  int nan_is_80;    /* "FNUZ": one NaN (0x80), no -0 */
  int fn_nan_all1;  /* "FN": exponent and mantissa all ones is NaN, no Inf */
  int no_sign;      /* E8M0: unsigned */
  int no_nan;       /* f4/f6: no NaN, no Inf (saturate) */
} fmt_t;

static int get_fmt(hlx_dtype_t t, fmt_t* f) {
  memset(f, 0, sizeof(*f));
  switch (t) {
    case HLX_DTYPE_F16: *f = (fmt_t){5, 10, 15, 1, 0, 0, 0, 0}; return 1;
    case HLX_DTYPE_BF16: *f = (fmt_t){8, 7, 127, 1, 0, 0, 0, 0}; return 1;
    case HLX_DTYPE_F8E5M2: *f = (fmt_t){5, 2, 15, 1, 0, 0, 0, 0}; return 1;
    case HLX_DTYPE_F8E4M3: *f = (fmt_t){4, 3, 7, 1, 0, 0, 0, 0}; return 1;
    case HLX_DTYPE_F8E3M4: *f = (fmt_t){3, 4, 3, 1, 0, 0, 0, 0}; return 1;
    case HLX_DTYPE_F8E4M3FN: *f = (fmt_t){4, 3, 7, 0, 0, 1, 0, 0}; return 1;
    case HLX_DTYPE_F8E4M3FNUZ: *f = (fmt_t){4, 3, 8, 0, 1, 0, 0, 0}; return 1;
    case HLX_DTYPE_F8E4M3B11FNUZ: *f = (fmt_t){4, 3, 11, 0, 1, 0, 0, 0}; return 1;
    case HLX_DTYPE_F8E5M2FNUZ: *f = (fmt_t){5, 2, 16, 0, 1, 0, 0, 0}; return 1;
    case HLX_DTYPE_F8E8M0FNU: *f = (fmt_t){8, 0, 127, 0, 0, 0, 1, 0}; return 1;
    case HLX_DTYPE_F6E2M3FN: *f = (fmt_t){2, 3, 1, 0, 0, 0, 0, 1}; return 1;
    case HLX_DTYPE_F6E3M2FN: *f = (fmt_t){3, 2, 3, 0, 0, 0, 0, 1}; return 1;
    case HLX_DTYPE_F4E2M1FN: *f = (fmt_t){2, 1, 1, 0, 0, 0, 0, 1}; return 1;
    default: return 0;
  }
}

static uint32_t nan_bits(const fmt_t* f) {
  if (f->nan_is_80) return 0x80;
  if (f->no_sign) return 0xFF;
  uint32_t emax = (1u << f->ebits) - 1;
  if (f->fn_nan_all1) return (emax << f->mbits) | ((1u << f->mbits) - 1);
  /* quiet NaN: top mantissa bit set */
  return (emax << f->mbits) | (1u << (f->mbits - 1));
}

double hlx_small_float_to_f64(hlx_dtype_t t, uint32_t bits) {
  fmt_t f;
  if (!get_fmt(t, &f)) return NAN;
  int total = f.ebits + f.mbits + (f.no_sign ? 0 : 1);
  bits &= (total >= 32) ? 0xFFFFFFFFu : ((1u << total) - 1);
  int sign = f.no_sign ? 0 : (int)((bits >> (f.ebits + f.mbits)) & 1);
  uint32_t e = (bits >> f.mbits) & ((1u << f.ebits) - 1);
  uint32_t m = bits & ((1u << f.mbits) - 1);
  uint32_t emax = (1u << f.ebits) - 1;
  if (f.nan_is_80 && bits == 0x80) return NAN;
  if (f.no_sign && bits == 0xFF) return NAN;
  if (f.fn_nan_all1 && e == emax && m == (1u << f.mbits) - 1) return NAN;
  if (f.has_inf && e == emax) {
    if (m) return sign ? -NAN : NAN;
    return sign ? -INFINITY : INFINITY;
  }
  double v;
  if (f.no_sign) {
    v = ldexp(1.0, (int)e - f.bias);
  } else if (e == 0) {
    v = ldexp((double)m, 1 - f.bias - f.mbits);
  } else {
    v = ldexp((double)(m | (1u << f.mbits)), (int)e - f.bias - f.mbits);
  }
  return sign ? -v : v;
}

uint32_t hlx_f64_to_small_float(hlx_dtype_t t, double d) {
  fmt_t f;
  if (!get_fmt(t, &f)) return 0;
  uint32_t sign_bit = f.no_sign ? 0 : (1u << (f.ebits + f.mbits));
  uint32_t emax = (1u << f.ebits) - 1;
  if (isnan(d)) {
    if (f.no_nan) return 0; /* no NaN encoding: ml_dtypes gives 0 */
    return nan_bits(&f) | ((signbit(d) && f.has_inf) ? sign_bit : 0);
  }
  int neg = signbit(d) ? 1 : 0;
  double a = fabs(d);
  if (f.no_sign) {
    /* E8M0: powers of two only; round the exponent (ties up, like ml_dtypes
     * rounding of the mantissa to zero bits, ties to even on the exponent). */
    if (neg && a != 0) return 0xFF;
    if (a == 0 || isinf(a)) return 0xFF;
    int ex;
    double fr = frexp(a, &ex); /* a = fr * 2^ex, fr in [0.5,1) */
    int e2 = ex - 1;           /* a = (2*fr) * 2^e2 */
    double mant = 2 * fr;      /* [1,2) */
    if (mant > 1.5 || (mant == 1.5 && ((e2 + f.bias) & 1))) e2++;
    int be = e2 + f.bias;
    if (be < 0) be = 0;
    if (be > 254) return 0xFF;
    return (uint32_t)be;
  }
  uint32_t s = neg ? sign_bit : 0;
  if (isinf(a)) {
    if (f.has_inf) return s | (emax << f.mbits);
    if (f.no_nan) return s | (emax << f.mbits) | ((1u << f.mbits) - 1);
    return nan_bits(&f) | (f.nan_is_80 ? 0 : s);
  }
  /* Largest finite encoding. */
  uint32_t max_e, max_m;
  if (f.has_inf) {
    max_e = emax - 1;
    max_m = (1u << f.mbits) - 1;
  } else if (f.fn_nan_all1) {
    max_e = emax;
    max_m = (1u << f.mbits) - 2;
  } else {
    max_e = emax;
    max_m = (1u << f.mbits) - 1;
  }
  /* Quantise a to a multiple of the spacing at its binade, RNE. */
  int min_exp = 1 - f.bias; /* exponent of smallest normal */
  int ex;
  if (a == 0) {
    if (f.nan_is_80) return 0;
    return s;
  }
  frexp(a, &ex);
  int e_unb = ex - 1; /* a in [2^e_unb, 2^(e_unb+1)) */
  if (e_unb < min_exp) e_unb = min_exp;
  double quantum = ldexp(1.0, e_unb - f.mbits);
  double q = a / quantum; /* exact: power-of-two scaling */
  double r = nearbyint(q); /* default rounding mode: ties to even */
  double v = r * quantum;
  /* Re-encode v (may have rounded up into the next binade). */
  if (v == 0) return f.nan_is_80 ? 0 : s;
  int vex;
  frexp(v, &vex);
  int ve = vex - 1;
  uint32_t be, bm;
  if (ve < min_exp) {
    be = 0;
    bm = (uint32_t)(v / ldexp(1.0, min_exp - f.mbits));
  } else {
    be = (uint32_t)(ve + f.bias);
    bm = (uint32_t)(v / ldexp(1.0, ve - f.mbits)) - (1u << f.mbits);
  }
  if (be > max_e || (be == max_e && bm > max_m)) {
    if (f.has_inf) return s | (emax << f.mbits);
    if (f.no_nan) return s | (max_e << f.mbits) | max_m; /* saturate */
    return nan_bits(&f) | (f.nan_is_80 ? 0 : s);
  }
  return s | (be << f.mbits) | bm;
}

float hlx_f16_to_f32(uint16_t h) {
  return (float)hlx_small_float_to_f64(HLX_DTYPE_F16, h);
}
uint16_t hlx_f64_to_f16(double d) {
  return (uint16_t)hlx_f64_to_small_float(HLX_DTYPE_F16, d);
}
uint16_t hlx_f32_to_f16(float f) { return hlx_f64_to_f16((double)f); }

float hlx_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
uint16_t hlx_f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  uint32_t lsb = (u >> 16) & 1;
  u += 0x7fffu + lsb;
  return (uint16_t)(u >> 16);
}
uint16_t hlx_f64_to_bf16(double d) {
  return (uint16_t)hlx_f64_to_small_float(HLX_DTYPE_BF16, d);
}
