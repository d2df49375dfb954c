/* convert and reduce_precision.
 *
 * convert goes through one canonical chunk per source class (int64 for
 * signed ints, uint64 for unsigned ints and pred, double for real floats,
 * double pairs for complex) and then to the destination, so each step is a
 * tight loop with the dtype switch outside it. Complex sources convert their
 * real part (also to i1: (0, 1) -> false, per the StableHLO interpreter). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ref/elementwise_internal.h"

typedef enum { C_S, C_U, C_F, C_C } cls_t;

typedef union {
  int64_t s[HLX_EW_CHUNK];
  uint64_t u[HLX_EW_CHUNK];
  double f[HLX_EW_CHUNK];
  double c[2 * HLX_EW_CHUNK];
} chunk_t;

static cls_t class_of(hlx_dtype_t t) {
  if (hlx_dtype_is_signed_int(t)) return C_S;
  if (hlx_dtype_is_unsigned_int(t) || hlx_dtype_is_pred(t)) return C_U;
  if (hlx_dtype_is_complex(t)) return C_C;
  return C_F;
}

static uint64_t mask_bits(int bits) {
  return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

static uint64_t load_raw(size_t es, const void* p, size_t i) {
  switch (es) {
    case 1: return ((const uint8_t*)p)[i];
    case 2: return ((const uint16_t*)p)[i];
    case 4: return ((const uint32_t*)p)[i];
    default: return ((const uint64_t*)p)[i];
  }
}

static void store_raw(size_t es, void* p, size_t i, uint64_t v) {
  switch (es) {
    case 1: ((uint8_t*)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t*)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t*)p)[i] = (uint32_t)v; break;
    default: ((uint64_t*)p)[i] = v; break;
  }
}

static void load_chunk(hlx_dtype_t t, const void* x, size_t i, size_t m,
                       chunk_t* c) {
  const size_t es = hlx_dtype_size(t);
  const int bits = hlx_dtype_bits(t);
  switch (class_of(t)) {
    case C_S: {
      uint64_t sb = (uint64_t)1 << (bits - 1), mk = mask_bits(bits);
      for (size_t j = 0; j < m; j++)
        c->u[j] = ((load_raw(es, x, i + j) & mk) ^ sb) - sb;
      break;
    }
    case C_U:
      if (t == HLX_DTYPE_PRED) {
        for (size_t j = 0; j < m; j++) c->u[j] = ((const uint8_t*)x)[i + j] != 0;
      } else {
        uint64_t mk = mask_bits(bits);
        for (size_t j = 0; j < m; j++) c->u[j] = load_raw(es, x, i + j) & mk;
      }
      break;
    case C_F:
      if (t == HLX_DTYPE_F64) {
        memcpy(c->f, (const double*)x + i, m * sizeof(double));
      } else if (t == HLX_DTYPE_F32) {
        for (size_t j = 0; j < m; j++) c->f[j] = ((const float*)x)[i + j];
      } else if (t == HLX_DTYPE_F16) {
        const uint16_t* h = (const uint16_t*)x + i;
        for (size_t j = 0; j < m; j++) c->f[j] = hlx_ew_f16_to_f32(h[j]);
      } else {
        for (size_t j = 0; j < m; j++)
          c->f[j] = hlx_small_float_to_f64(t, (uint32_t)load_raw(es, x, i + j));
      }
      break;
    case C_C:
      if (t == HLX_DTYPE_C128) {
        memcpy(c->c, (const double*)x + 2 * i, 2 * m * sizeof(double));
      } else {
        const float* f = (const float*)x + 2 * i;
        for (size_t j = 0; j < 2 * m; j++) c->c[j] = f[j];
      }
      break;
  }
}

/* |v| as a double that rounds to any format of <= 51 mantissa bits exactly
 * as v would: low bits beyond 53 are folded into a sticky bit. */
static double u64_to_f64_sticky(uint64_t v) {
  if (v < ((uint64_t)1 << 53)) return (double)v;
  int s = 64 - __builtin_clzll(v) - 53;
  uint64_t r = (v >> s) | ((v & (((uint64_t)1 << s) - 1)) != 0);
  return ldexp((double)r, s);
}
static double s64_to_f64_sticky(int64_t v) {
  if (v >= 0) return u64_to_f64_sticky((uint64_t)v);
  return -u64_to_f64_sticky((uint64_t)0 - (uint64_t)v);
}

/* Float -> int: truncate toward zero, saturate, NaN -> 0 (XLA). */
static uint64_t f64_to_int(double d, int bits, int sgn) {
  if (isnan(d)) return 0;
  if (sgn) {
    double lim = ldexp(1.0, bits - 1);
    if (d >= lim) return mask_bits(bits - 1);    /* max */
    if (d <= -lim) return (uint64_t)0 - ((uint64_t)1 << (bits - 1)); /* min */
    return (uint64_t)(int64_t)trunc(d);
  }
  if (d >= ldexp(1.0, bits)) return mask_bits(bits);
  if (!(d > 0)) return 0;
  return (uint64_t)trunc(d);
}

/* Real value -> float dtype `t` (one rounding from double). */
static void store_float(hlx_dtype_t t, void* y, size_t i, double d) {
  if (t == HLX_DTYPE_F64)
    ((double*)y)[i] = d;
  else if (t == HLX_DTYPE_F32)
    ((float*)y)[i] = (float)d;
  else
    store_raw(hlx_dtype_size(t), y, i, hlx_f64_to_small_float(t, d));
}

static void store_chunk(cls_t from, const chunk_t* c, hlx_dtype_t t, void* y,
                        size_t i, size_t m) {
  const size_t es = hlx_dtype_size(t);
  const int bits = hlx_dtype_bits(t);
  if (t == HLX_DTYPE_PRED) {
    uint8_t* p = (uint8_t*)y + i;
    switch (from) {
      case C_S:
      case C_U: for (size_t j = 0; j < m; j++) p[j] = c->u[j] != 0; break;
      case C_F: for (size_t j = 0; j < m; j++) p[j] = c->f[j] != 0; break;
      case C_C: /* the real part, as the StableHLO interpreter does */
        for (size_t j = 0; j < m; j++) p[j] = c->c[2 * j] != 0;
        break;
    }
    return;
  }
  switch (class_of(t)) {
    case C_S:
    case C_U: {
      int sgn = class_of(t) == C_S;
      uint64_t mk = mask_bits(bits), sb = (uint64_t)1 << (bits - 1);
      /* Integers are stored sign-extended (signed) or zero-extended. */
#define WRAP(v) (sgn ? ((((v) & mk) ^ sb) - sb) : ((v) & mk))
      switch (from) {
        case C_S:
        case C_U:
          for (size_t j = 0; j < m; j++) store_raw(es, y, i + j, WRAP(c->u[j]));
          break;
        case C_F:
          for (size_t j = 0; j < m; j++)
            store_raw(es, y, i + j, WRAP(f64_to_int(c->f[j], bits, sgn)));
          break;
        case C_C:
          for (size_t j = 0; j < m; j++)
            store_raw(es, y, i + j, WRAP(f64_to_int(c->c[2 * j], bits, sgn)));
          break;
      }
#undef WRAP
      break;
    }
    case C_F:
      switch (from) {
        case C_S:
          if (t == HLX_DTYPE_F64) {
            for (size_t j = 0; j < m; j++) ((double*)y)[i + j] = (double)c->s[j];
          } else if (t == HLX_DTYPE_F32) {
            for (size_t j = 0; j < m; j++) ((float*)y)[i + j] = (float)c->s[j];
          } else {
            for (size_t j = 0; j < m; j++)
              store_float(t, y, i + j, s64_to_f64_sticky(c->s[j]));
          }
          break;
        case C_U:
          if (t == HLX_DTYPE_F64) {
            for (size_t j = 0; j < m; j++) ((double*)y)[i + j] = (double)c->u[j];
          } else if (t == HLX_DTYPE_F32) {
            for (size_t j = 0; j < m; j++) ((float*)y)[i + j] = (float)c->u[j];
          } else {
            for (size_t j = 0; j < m; j++)
              store_float(t, y, i + j, u64_to_f64_sticky(c->u[j]));
          }
          break;
        case C_F:
          if (t == HLX_DTYPE_F16) {
            uint16_t* h = (uint16_t*)y + i;
            for (size_t j = 0; j < m; j++) h[j] = hlx_f64_to_f16(c->f[j]);
          } else {
            for (size_t j = 0; j < m; j++) store_float(t, y, i + j, c->f[j]);
          }
          break;
        case C_C:
          for (size_t j = 0; j < m; j++) store_float(t, y, i + j, c->c[2 * j]);
          break;
      }
      break;
    case C_C: {
      int f32 = t == HLX_DTYPE_C64;
      for (size_t j = 0; j < m; j++) {
        double re, im = 0;
        switch (from) {
          case C_S:
            re = f32 ? (double)(float)c->s[j] : (double)c->s[j];
            break;
          case C_U:
            re = f32 ? (double)(float)c->u[j] : (double)c->u[j];
            break;
          case C_F: re = c->f[j]; break;
          default:
            re = c->c[2 * j];
            im = c->c[2 * j + 1];
            break;
        }
        if (f32) {
          ((float*)y)[2 * (i + j)] = (float)re;
          ((float*)y)[2 * (i + j) + 1] = (float)im;
        } else {
          ((double*)y)[2 * (i + j)] = re;
          ((double*)y)[2 * (i + j) + 1] = im;
        }
      }
      break;
    }
  }
}

bool hlx_ref_convert(hlx_dtype_t from, const void* x, hlx_dtype_t to, void* y,
                     size_t n) {
  if ((unsigned)from >= HLX_DTYPE_COUNT || (unsigned)to >= HLX_DTYPE_COUNT ||
      from == HLX_DTYPE_INVALID || to == HLX_DTYPE_INVALID)
    return false;
  if (from == to) {
    memmove(y, x, n * hlx_dtype_size(from));
    return true;
  }
  cls_t fc = class_of(from);
  chunk_t c;
  for (size_t i = 0; i < n; i += HLX_EW_CHUNK) {
    size_t m = n - i < HLX_EW_CHUNK ? n - i : HLX_EW_CHUNK;
    load_chunk(from, x, i, m, &c);
    store_chunk(fc, &c, to, y, i, m);
  }
  return true;
}

/* ---- reduce_precision ---- */

/* XLA's ReducePrecision on the bit pattern of an IEEE-like format with
 * `nbits` total, `se` exponent and `sm` mantissa bits: round the mantissa
 * to `m` bits (RNE, carries into the exponent), then send exponents above
 * the reduced range to +-Inf and those at or below its smallest normal to
 * +-0. NaN stays NaN unless m == 0 (then it becomes +-Inf, as in XLA). */
static uint64_t reduce_bits(uint64_t x, int nbits, int se, int sm, int e,
                            int m) {
  const uint64_t all = mask_bits(nbits);
  const uint64_t sign_mask = (uint64_t)1 << (nbits - 1);
  const uint64_t exp_mask = mask_bits(se) << sm;
  const uint64_t man_mask = mask_bits(sm);
  const uint64_t orig = x;
  const int is_nan = (x & exp_mask) == exp_mask && (x & man_mask) != 0;
  if (m < sm) {
    uint64_t last = (uint64_t)1 << (sm - m);
    uint64_t bias = (last >> 1) - 1 + ((x & last) >> (sm - m));
    x = ((x + bias) & ~(last - 1)) & all;
  }
  if (e < se) {
    uint64_t bias = ((uint64_t)1 << (se - 1)) - 1;
    uint64_t rbias = ((uint64_t)1 << (e - 1)) - 1;
    uint64_t xe = x & exp_mask;
    uint64_t sz = x & sign_mask;
    if (xe > ((bias + rbias) << sm))
      x = sz | exp_mask;
    else if (xe <= ((bias - rbias) << sm))
      x = sz;
  }
  if (is_nan) x = m > 0 ? orig : ((orig & sign_mask) | exp_mask);
  return x;
}

bool hlx_ref_reduce_precision(hlx_dtype_t t, int32_t exponent_bits,
                              int32_t mantissa_bits, const void* x, void* y,
                              size_t n) {
  if (!hlx_dtype_is_float(t) || exponent_bits < 1 || mantissa_bits < 0)
    return false;
  int nbits, se, sm;
  switch (t) {
    case HLX_DTYPE_F64: nbits = 64, se = 11, sm = 52; break;
    case HLX_DTYPE_F32: nbits = 32, se = 8, sm = 23; break;
    case HLX_DTYPE_F16: nbits = 16, se = 5, sm = 10; break;
    case HLX_DTYPE_BF16: nbits = 16, se = 8, sm = 7; break;
    case HLX_DTYPE_F8E5M2: nbits = 8, se = 5, sm = 2; break;
    case HLX_DTYPE_F8E4M3: nbits = 8, se = 4, sm = 3; break;
    case HLX_DTYPE_F8E3M4: nbits = 8, se = 3, sm = 4; break;
    default: nbits = 0, se = 0, sm = 0; break;
  }
  if (nbits) {
    /* IEEE-like (has Inf): work on the format's own bits. */
    const size_t es = hlx_dtype_size(t);
    int e = exponent_bits < se ? exponent_bits : se;
    int m = mantissa_bits < sm ? mantissa_bits : sm;
    for (size_t i = 0; i < n; i++)
      store_raw(es, y, i, reduce_bits(load_raw(es, x, i), nbits, se, sm, e, m));
    return true;
  }
  /* The finite-only / unsigned formats (no Inf encoding, so the bit
   * algorithm's overflow does not apply): reduce the value in f64 (no
   * exponent clamp when exponent_bits covers the format's own range) and
   * encode back, where overflow becomes NaN or saturates as the format
   * defines. Identity when both widths cover the format. */
  switch (t) {
    case HLX_DTYPE_F4E2M1FN: se = 2, sm = 1; break;
    case HLX_DTYPE_F6E2M3FN: se = 2, sm = 3; break;
    case HLX_DTYPE_F6E3M2FN: se = 3, sm = 2; break;
    case HLX_DTYPE_F8E5M2FNUZ: se = 5, sm = 2; break;
    case HLX_DTYPE_F8E8M0FNU: se = 8, sm = 0; break;
    default: se = 4, sm = 3; break; /* the e4m3 variants */
  }
  const size_t es = hlx_dtype_size(t);
  const int e = exponent_bits < se ? exponent_bits : 11;
  const int m = mantissa_bits < sm ? mantissa_bits : 52;
  for (size_t i = 0; i < n; i++) {
    double d = hlx_small_float_to_f64(t, (uint32_t)load_raw(es, x, i));
    uint64_t u;
    memcpy(&u, &d, 8);
    u = reduce_bits(u, 64, 11, 52, e, m);
    memcpy(&d, &u, 8);
    store_raw(es, y, i, hlx_f64_to_small_float(t, d));
  }
  return true;
}
