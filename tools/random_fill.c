#include "tools/random_fill.h"

#include <math.h>
#include <string.h>

#include "base/float_formats.h"

#define GOLDEN 0x9E3779B97F4A7C15ull

uint64_t hlx_random_draw(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * GOLDEN;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* 2u - 1 with u = (x >> 11) * 2^-53: exactly representable in a double. */
static double unit_f64(uint64_t x) {
  return ldexp((double)(x >> 11), -52) - 1.0;
}

static float unit_f32(uint64_t x) {
  /* 24 random bits: exact in a float, so no rounding up to 1.0. */
  return ldexpf((float)(x >> 40), -23) - 1.0f;
}

/* A narrow float in [-1, 1): round to nearest; 1.0 becomes the largest
 * value below 1 (positive values are ordered like their bit patterns). */
static uint32_t unit_narrow(hlx_dtype_t t, uint64_t x) {
  if (t == HLX_DTYPE_F8E8M0FNU)
    return hlx_f64_to_small_float(t, ldexp(1.0, -(int)(1 + (x >> 61))));
  uint32_t b = hlx_f64_to_small_float(t, unit_f64(x));
  if (hlx_small_float_to_f64(t, b) >= 1.0)
    b = hlx_f64_to_small_float(t, 1.0) - 1;
  return b;
}

void hlx_random_fill(hlx_dtype_t t, void* data, size_t n, uint64_t seed) {
  if (!data || n == 0) return;
  uint8_t* p = (uint8_t*)data;
  switch (t) {
    case HLX_DTYPE_PRED:
      for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(hlx_random_draw(seed, i) >> 63);
      return;
    case HLX_DTYPE_S2:
    case HLX_DTYPE_S4: {
      int bits = hlx_dtype_bits(t);
      for (size_t i = 0; i < n; i++) {
        int v =
            (int)(hlx_random_draw(seed, i) >> (64 - bits)) - (1 << (bits - 1));
        p[i] = (uint8_t)(int8_t)v;
      }
      return;
    }
    case HLX_DTYPE_U2:
    case HLX_DTYPE_U4: {
      int bits = hlx_dtype_bits(t);
      for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(hlx_random_draw(seed, i) >> (64 - bits));
      return;
    }
#define INT_CASE(T, ctype, off)                                             \
  case T:                                                                   \
    for (size_t i = 0; i < n; i++) {                                        \
      ctype v = (ctype)((int64_t)(hlx_random_draw(seed, i) >> 60) - (off)); \
      memcpy(p + i * sizeof v, &v, sizeof v);                               \
    }                                                                       \
    return;
      INT_CASE(HLX_DTYPE_S8, int8_t, 8)
      INT_CASE(HLX_DTYPE_S16, int16_t, 8)
      INT_CASE(HLX_DTYPE_S32, int32_t, 8)
      INT_CASE(HLX_DTYPE_S64, int64_t, 8)
      INT_CASE(HLX_DTYPE_U8, uint8_t, 0)
      INT_CASE(HLX_DTYPE_U16, uint16_t, 0)
      INT_CASE(HLX_DTYPE_U32, uint32_t, 0)
      INT_CASE(HLX_DTYPE_U64, uint64_t, 0)
#undef INT_CASE
    case HLX_DTYPE_F32:
      for (size_t i = 0; i < n; i++) {
        float v = unit_f32(hlx_random_draw(seed, i));
        memcpy(p + i * 4, &v, 4);
      }
      return;
    case HLX_DTYPE_F64:
      for (size_t i = 0; i < n; i++) {
        double v = unit_f64(hlx_random_draw(seed, i));
        memcpy(p + i * 8, &v, 8);
      }
      return;
    case HLX_DTYPE_C64:
      for (size_t i = 0; i < n; i++) {
        float v[2] = {unit_f32(hlx_random_draw(seed, 2 * (uint64_t)i)),
                      unit_f32(hlx_random_draw(seed, 2 * (uint64_t)i + 1))};
        memcpy(p + i * 8, v, 8);
      }
      return;
    case HLX_DTYPE_C128:
      for (size_t i = 0; i < n; i++) {
        double v[2] = {unit_f64(hlx_random_draw(seed, 2 * (uint64_t)i)),
                       unit_f64(hlx_random_draw(seed, 2 * (uint64_t)i + 1))};
        memcpy(p + i * 16, v, 16);
      }
      return;
    case HLX_DTYPE_F16:
    case HLX_DTYPE_BF16:
      for (size_t i = 0; i < n; i++) {
        uint16_t v = (uint16_t)unit_narrow(t, hlx_random_draw(seed, i));
        memcpy(p + i * 2, &v, 2);
      }
      return;
    default:
      if (hlx_dtype_is_small_float(t)) {
        for (size_t i = 0; i < n; i++)
          p[i] = (uint8_t)unit_narrow(t, hlx_random_draw(seed, i));
      }
      return;
  }
}
