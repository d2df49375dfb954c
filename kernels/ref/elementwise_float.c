/* Reference elementwise kernels for real floats.
 *
 * Every op is a scalar function on double (d_<op>). f64 kernels apply it
 * directly; f32 kernels widen, apply and round once, which makes +-*÷ and
 * sqrt correctly rounded and keeps libm's transcendentals well inside 1 ULP
 * of f32. Narrow floats (f16, bf16, the 4/6/8-bit formats) are computed as
 * XLA does: decode a chunk to f32, run the f32 kernel, round each result
 * back once. next_after is the exception: it steps in the narrow format. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ref/elementwise_internal.h"

/* ---- scalar ops ---- */
static inline double d_abs(double x) { return fabs(x); }
static inline double d_negate(double x) { return -x; }
static inline double d_sign(double x) {
  if (isnan(x)) return x;
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); /* keeps +-0 */
}
static inline double d_sqrt(double x) { return sqrt(x); }
static inline double d_rsqrt(double x) { return 1.0 / sqrt(x); }
/* glibc's cbrt is not correctly rounded (cbrt(27.0) = 3.0000000000000004,
 * while the spec's example wants 3): one Newton step in long double on
 * cbrtl's value, then a single rounding to double. */
static inline double d_cbrt(double x) {
  if (x == 0 || !isfinite(x)) return cbrt(x); /* +-0, +-inf, NaN */
  long double y = cbrtl((long double)x);
  y -= (y * y * y - (long double)x) / (3 * y * y);
  return (double)y;
}
static inline double d_exponential(double x) { return exp(x); }
static inline double d_exponential_minus_one(double x) { return expm1(x); }
static inline double d_log(double x) { return log(x); }
static inline double d_log_plus_one(double x) { return log1p(x); }
static inline double d_logistic(double x) {
  if (x >= 0) return 1.0 / (1.0 + exp(-x));
  double e = exp(x);
  return e / (1.0 + e);
}
static inline double d_sine(double x) { return sin(x); }
static inline double d_cosine(double x) { return cos(x); }
static inline double d_tan(double x) { return tan(x); }
static inline double d_tanh(double x) { return tanh(x); }
static inline double d_floor(double x) { return floor(x); }
static inline double d_ceil(double x) { return ceil(x); }
static inline double d_round_nearest_afz(double x) { return round(x); }
static inline double d_round_nearest_even(double x) {
  /* Ties to even independently of the current rounding mode. */
  double r = round(x);
  if (fabs(x - trunc(x)) == 0.5) r = 2.0 * round(x * 0.5);
  return r;
}
static inline double d_real(double x) { return x; }
static inline double d_imag(double x) {
  (void)x;
  return 0.0;
}
static inline double d_conj(double x) { return x; }
static inline double d_acos(double x) { return acos(x); }
static inline double d_acosh(double x) { return acosh(x); }
static inline double d_asin(double x) { return asin(x); }
static inline double d_asinh(double x) { return asinh(x); }
static inline double d_atan(double x) { return atan(x); }
static inline double d_atanh(double x) { return atanh(x); }
static inline double d_cosh(double x) { return cosh(x); }
static inline double d_sinh(double x) { return sinh(x); }
static inline double d_erf(double x) { return erf(x); }
static inline double d_erfc(double x) { return erfc(x); }
static inline double d_erf_inv(double x) { return hlx_internal_erf_inv(x); }
static inline double d_lgamma(double x) { return hlx_internal_lgamma(x); }
static inline double d_digamma(double x) { return hlx_internal_digamma(x); }
static inline double d_bessel_i0e(double x) {
  return hlx_internal_bessel_i0e(x);
}
static inline double d_bessel_i1e(double x) {
  return hlx_internal_bessel_i1e(x);
}
static inline double d_square(double x) { return x * x; }

static inline uint8_t p_is_finite(double x) { return isfinite(x) != 0; }
static inline uint8_t p_is_inf(double x) { return isinf(x) != 0; }
static inline uint8_t p_is_pos_inf(double x) { return x == INFINITY; }
static inline uint8_t p_is_neg_inf(double x) { return x == -INFINITY; }

static inline double d_add(double a, double b) { return a + b; }
static inline double d_subtract(double a, double b) { return a - b; }
static inline double d_multiply(double a, double b) { return a * b; }
static inline double d_divide(double a, double b) { return a / b; }
static inline double d_remainder(double a, double b) { return fmod(a, b); }
static inline double d_power(double a, double b) { return pow(a, b); }
/* IEEE maximum/minimum: NaN propagates, -0 < +0. */
static inline double d_maximum(double a, double b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static inline double d_minimum(double a, double b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static inline double d_atan2(double a, double b) { return atan2(a, b); }
static inline double d_polygamma(double a, double b) {
  return hlx_internal_polygamma(a, b);
}
static inline double d_zeta(double a, double b) {
  return hlx_internal_zeta(a, b);
}

/* ---- op lists: (enumerator ID, kernel suffix) ---- */
#define FLOAT_UNARY_OPS(X, ...)                                            \
  X(__VA_ARGS__, ABS, abs) X(__VA_ARGS__, NEGATE, negate)                  \
  X(__VA_ARGS__, SIGN, sign) X(__VA_ARGS__, SQRT, sqrt)                    \
  X(__VA_ARGS__, RSQRT, rsqrt) X(__VA_ARGS__, CBRT, cbrt)                  \
  X(__VA_ARGS__, EXP, exponential)                                         \
  X(__VA_ARGS__, EXPM1, exponential_minus_one) X(__VA_ARGS__, LOG, log)    \
  X(__VA_ARGS__, LOG1P, log_plus_one) X(__VA_ARGS__, LOGISTIC, logistic)   \
  X(__VA_ARGS__, SIN, sine) X(__VA_ARGS__, COS, cosine)                    \
  X(__VA_ARGS__, TAN, tan) X(__VA_ARGS__, TANH, tanh)                      \
  X(__VA_ARGS__, FLOOR, floor) X(__VA_ARGS__, CEIL, ceil)                  \
  X(__VA_ARGS__, ROUND_AFZ, round_nearest_afz)                             \
  X(__VA_ARGS__, ROUND_EVEN, round_nearest_even)                           \
  X(__VA_ARGS__, REAL, real) X(__VA_ARGS__, IMAG, imag)                    \
  X(__VA_ARGS__, CONJ, conj) X(__VA_ARGS__, ACOS, acos)                    \
  X(__VA_ARGS__, ACOSH, acosh) X(__VA_ARGS__, ASIN, asin)                  \
  X(__VA_ARGS__, ASINH, asinh) X(__VA_ARGS__, ATAN, atan)                  \
  X(__VA_ARGS__, ATANH, atanh) X(__VA_ARGS__, COSH, cosh)                  \
  X(__VA_ARGS__, SINH, sinh) X(__VA_ARGS__, ERF, erf)                      \
  X(__VA_ARGS__, ERFC, erfc) X(__VA_ARGS__, ERF_INV, erf_inv)              \
  X(__VA_ARGS__, LGAMMA, lgamma) X(__VA_ARGS__, DIGAMMA, digamma)          \
  X(__VA_ARGS__, BESSEL_I0E, bessel_i0e)                                   \
  X(__VA_ARGS__, BESSEL_I1E, bessel_i1e) X(__VA_ARGS__, SQUARE, square)
/* -> pred */
#define FLOAT_PRED_OPS(X, ...)                                      \
  X(__VA_ARGS__, IS_FINITE, is_finite) X(__VA_ARGS__, IS_INF, is_inf) \
  X(__VA_ARGS__, IS_POS_INF, is_pos_inf)                            \
  X(__VA_ARGS__, IS_NEG_INF, is_neg_inf)
#define FLOAT_BINARY_OPS(X, ...)                                         \
  X(__VA_ARGS__, ADD, add) X(__VA_ARGS__, SUBTRACT, subtract)            \
  X(__VA_ARGS__, MULTIPLY, multiply) X(__VA_ARGS__, DIVIDE, divide)      \
  X(__VA_ARGS__, REMAINDER, remainder) X(__VA_ARGS__, POWER, power)      \
  X(__VA_ARGS__, MAXIMUM, maximum) X(__VA_ARGS__, MINIMUM, minimum)      \
  X(__VA_ARGS__, ATAN2, atan2) X(__VA_ARGS__, POLYGAMMA, polygamma)      \
  X(__VA_ARGS__, ZETA, zeta)

/* ---- f32 / f64 kernels ---- */
#define DEF_UNARY(NAME, T, ID, OP)                                  \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n);       \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n) {      \
    const T* x = (const T*)xv;                                      \
    T* y = (T*)yv;                                                  \
    for (size_t i = 0; i < n; i++) y[i] = (T)d_##OP((double)x[i]);  \
  }
#define DEF_PRED(NAME, T, ID, OP)                                   \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n);       \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n) {      \
    const T* x = (const T*)xv;                                      \
    uint8_t* y = (uint8_t*)yv;                                      \
    for (size_t i = 0; i < n; i++) y[i] = p_##OP((double)x[i]);     \
  }
#define DEF_BINARY(NAME, T, ID, OP)                                       \
  void hlx_##NAME##_##OP(const void* av, const void* bv, void* yv,        \
                         size_t n);                                       \
  void hlx_##NAME##_##OP(const void* av, const void* bv, void* yv,        \
                         size_t n) {                                      \
    const T* a = (const T*)av;                                            \
    const T* b = (const T*)bv;                                            \
    T* y = (T*)yv;                                                        \
    for (size_t i = 0; i < n; i++)                                        \
      y[i] = (T)d_##OP((double)a[i], (double)b[i]);                       \
  }
FLOAT_UNARY_OPS(DEF_UNARY, f32, float)
FLOAT_PRED_OPS(DEF_PRED, f32, float)
FLOAT_BINARY_OPS(DEF_BINARY, f32, float)
FLOAT_UNARY_OPS(DEF_UNARY, f64, double)
FLOAT_PRED_OPS(DEF_PRED, f64, double)
FLOAT_BINARY_OPS(DEF_BINARY, f64, double)

void hlx_f32_next_after(const void* av, const void* bv, void* yv, size_t n);
void hlx_f32_next_after(const void* av, const void* bv, void* yv, size_t n) {
  const float* a = (const float*)av;
  const float* b = (const float*)bv;
  float* y = (float*)yv;
  for (size_t i = 0; i < n; i++) y[i] = nextafterf(a[i], b[i]);
}
void hlx_f64_next_after(const void* av, const void* bv, void* yv, size_t n);
void hlx_f64_next_after(const void* av, const void* bv, void* yv, size_t n) {
  const double* a = (const double*)av;
  const double* b = (const double*)bv;
  double* y = (double*)yv;
  for (size_t i = 0; i < n; i++) y[i] = nextafter(a[i], b[i]);
}

/* complex(re, im): f32, f32 -> complex<f32>. */
#define DEF_COMPLEX(NAME, T)                                              \
  void hlx_##NAME##_complex(const void* av, const void* bv, void* yv,     \
                            size_t n);                                    \
  void hlx_##NAME##_complex(const void* av, const void* bv, void* yv,     \
                            size_t n) {                                   \
    const T* a = (const T*)av;                                            \
    const T* b = (const T*)bv;                                            \
    T* y = (T*)yv;                                                        \
    for (size_t i = 0; i < n; i++) {                                      \
      y[2 * i] = a[i];                                                    \
      y[2 * i + 1] = b[i];                                                \
    }                                                                     \
  }
DEF_COMPLEX(f32, float)
DEF_COMPLEX(f64, double)

/* ---- narrow floats ---- */
void hlx_internal_narrow_to_f32(hlx_dtype_t t, const void* xv, float* y,
                                size_t n) {
  if (t == HLX_DTYPE_F16) {
    const uint16_t* x = (const uint16_t*)xv;
    for (size_t i = 0; i < n; i++) y[i] = hlx_ew_f16_to_f32(x[i]);
  } else if (t == HLX_DTYPE_BF16) {
    const uint16_t* x = (const uint16_t*)xv;
    for (size_t i = 0; i < n; i++) y[i] = hlx_bf16_to_f32(x[i]);
  } else {
    const uint8_t* x = (const uint8_t*)xv;
    for (size_t i = 0; i < n; i++)
      y[i] = (float)hlx_small_float_to_f64(t, x[i]);
  }
}

void hlx_internal_f32_to_narrow(hlx_dtype_t t, const float* x, void* yv,
                                size_t n) {
  if (t == HLX_DTYPE_F16) {
    uint16_t* y = (uint16_t*)yv;
    for (size_t i = 0; i < n; i++) y[i] = hlx_ew_f32_to_f16(x[i]);
  } else if (t == HLX_DTYPE_BF16) {
    uint16_t* y = (uint16_t*)yv;
    for (size_t i = 0; i < n; i++) y[i] = hlx_f32_to_bf16(x[i]);
  } else {
    uint8_t* y = (uint8_t*)yv;
    for (size_t i = 0; i < n; i++)
      y[i] = (uint8_t)hlx_f64_to_small_float(t, (double)x[i]);
  }
}

static void narrow_unary(hlx_dtype_t t, hlx_unary_fn f32_fn, const void* xv,
                         void* yv, size_t n) {
  const size_t es = hlx_dtype_size(t);
  const uint8_t* x = (const uint8_t*)xv;
  uint8_t* y = (uint8_t*)yv;
  float buf[HLX_EW_CHUNK];
  for (size_t i = 0; i < n; i += HLX_EW_CHUNK) {
    size_t m = n - i < HLX_EW_CHUNK ? n - i : HLX_EW_CHUNK;
    hlx_internal_narrow_to_f32(t, x + i * es, buf, m);
    f32_fn(buf, buf, m);
    hlx_internal_f32_to_narrow(t, buf, y + i * es, m);
  }
}

static void narrow_pred(hlx_dtype_t t, hlx_unary_fn f32_fn, const void* xv,
                        void* yv, size_t n) {
  const size_t es = hlx_dtype_size(t);
  const uint8_t* x = (const uint8_t*)xv;
  uint8_t* y = (uint8_t*)yv;
  float buf[HLX_EW_CHUNK];
  for (size_t i = 0; i < n; i += HLX_EW_CHUNK) {
    size_t m = n - i < HLX_EW_CHUNK ? n - i : HLX_EW_CHUNK;
    hlx_internal_narrow_to_f32(t, x + i * es, buf, m);
    f32_fn(buf, y + i, m);
  }
}

static void narrow_binary(hlx_dtype_t t, hlx_binary_fn f32_fn, const void* av,
                          const void* bv, void* yv, size_t n) {
  const size_t es = hlx_dtype_size(t);
  const uint8_t* a = (const uint8_t*)av;
  const uint8_t* b = (const uint8_t*)bv;
  uint8_t* y = (uint8_t*)yv;
  float ba[HLX_EW_CHUNK], bb[HLX_EW_CHUNK];
  for (size_t i = 0; i < n; i += HLX_EW_CHUNK) {
    size_t m = n - i < HLX_EW_CHUNK ? n - i : HLX_EW_CHUNK;
    hlx_internal_narrow_to_f32(t, a + i * es, ba, m);
    hlx_internal_narrow_to_f32(t, b + i * es, bb, m);
    f32_fn(ba, bb, ba, m);
    hlx_internal_f32_to_narrow(t, ba, y + i * es, m);
  }
}

/* next_after in the narrow format itself: formats are sign-magnitude, so
 * stepping away from zero is +1 on the magnitude bits. */
static void narrow_next_after(hlx_dtype_t t, const void* av, const void* bv,
                              void* yv, size_t n) {
  const size_t es = hlx_dtype_size(t);
  const int bits = hlx_dtype_bits(t);
  const uint32_t sign_bit = t == HLX_DTYPE_F8E8M0FNU ? 0 : 1u << (bits - 1);
  const uint8_t* a = (const uint8_t*)av;
  const uint8_t* b = (const uint8_t*)bv;
  uint8_t* y = (uint8_t*)yv;
  float fa[HLX_EW_CHUNK], fb[HLX_EW_CHUNK], qnan = NAN;
  uint32_t nan_bits = 0;
  hlx_internal_f32_to_narrow(t, &qnan, &nan_bits, 1);
  for (size_t i = 0; i < n; i += HLX_EW_CHUNK) {
    size_t m = n - i < HLX_EW_CHUNK ? n - i : HLX_EW_CHUNK;
    hlx_internal_narrow_to_f32(t, a + i * es, fa, m);
    hlx_internal_narrow_to_f32(t, b + i * es, fb, m);
    for (size_t j = 0; j < m; j++) {
      size_t k = i + j;
      uint32_t xa = es == 2 ? ((const uint16_t*)av)[k] : a[k];
      uint32_t xb = es == 2 ? ((const uint16_t*)bv)[k] : b[k];
      uint32_t r;
      if (isnan(fa[j]) || isnan(fb[j])) {
        r = nan_bits;
      } else if (fa[j] == fb[j]) {
        r = xb;
      } else if (fa[j] == 0) {
        r = (signbit(fb[j]) ? sign_bit : 0) | 1u;
      } else if ((fa[j] < fb[j]) == (fa[j] > 0)) {
        r = xa + 1;
      } else {
        r = xa - 1;
      }
      if (es == 2)
        ((uint16_t*)yv)[k] = (uint16_t)r;
      else
        y[k] = (uint8_t)r;
    }
  }
}

/* (kernel name prefix, dtype enumerator) */
#define NARROW_TYPES(X)                                                  \
  X(f16, F16) X(bf16, BF16) X(f4e2m1fn, F4E2M1FN) X(f6e2m3fn, F6E2M3FN)  \
  X(f6e3m2fn, F6E3M2FN) X(f8e3m4, F8E3M4) X(f8e4m3, F8E4M3)              \
  X(f8e4m3fn, F8E4M3FN) X(f8e4m3fnuz, F8E4M3FNUZ)                        \
  X(f8e4m3b11fnuz, F8E4M3B11FNUZ) X(f8e5m2, F8E5M2)                      \
  X(f8e5m2fnuz, F8E5M2FNUZ) X(f8e8m0fnu, F8E8M0FNU)

#define DEF_N_UNARY(NAME, E, ID, OP)                              \
  void hlx_##NAME##_##OP(const void* x, void* y, size_t n);       \
  void hlx_##NAME##_##OP(const void* x, void* y, size_t n) {      \
    narrow_unary(HLX_DTYPE_##E, hlx_f32_##OP, x, y, n);           \
  }
#define DEF_N_PRED(NAME, E, ID, OP)                               \
  void hlx_##NAME##_##OP(const void* x, void* y, size_t n);       \
  void hlx_##NAME##_##OP(const void* x, void* y, size_t n) {      \
    narrow_pred(HLX_DTYPE_##E, hlx_f32_##OP, x, y, n);            \
  }
#define DEF_N_BINARY(NAME, E, ID, OP)                                     \
  void hlx_##NAME##_##OP(const void* a, const void* b, void* y, size_t n); \
  void hlx_##NAME##_##OP(const void* a, const void* b, void* y,          \
                         size_t n) {                                      \
    narrow_binary(HLX_DTYPE_##E, hlx_f32_##OP, a, b, y, n);               \
  }
#define DEF_NARROW(NAME, E)                                               \
  FLOAT_UNARY_OPS(DEF_N_UNARY, NAME, E)                                   \
  FLOAT_PRED_OPS(DEF_N_PRED, NAME, E)                                     \
  FLOAT_BINARY_OPS(DEF_N_BINARY, NAME, E)                                 \
  void hlx_##NAME##_next_after(const void* a, const void* b, void* y,     \
                               size_t n);                                 \
  void hlx_##NAME##_next_after(const void* a, const void* b, void* y,     \
                               size_t n) {                                \
    narrow_next_after(HLX_DTYPE_##E, a, b, y, n);                         \
  }
NARROW_TYPES(DEF_NARROW)

/* ---- lookup tables ---- */
#define UN_ENTRY(NAME, ID, OP) [HLX_UNARY_##ID] = hlx_##NAME##_##OP,
#define BIN_ENTRY(NAME, ID, OP) [HLX_BINARY_##ID] = hlx_##NAME##_##OP,
#define TABLES(NAME, E)                                                  \
  static const hlx_unary_fn NAME##_unary[HLX_UNARY_COUNT] = {            \
      FLOAT_UNARY_OPS(UN_ENTRY, NAME) FLOAT_PRED_OPS(UN_ENTRY, NAME)};   \
  static const hlx_binary_fn NAME##_binary[HLX_BINARY_COUNT] = {         \
      FLOAT_BINARY_OPS(BIN_ENTRY, NAME)                                  \
      [HLX_BINARY_NEXT_AFTER] = hlx_##NAME##_next_after};
NARROW_TYPES(TABLES)
TABLES(f32, F32)
TABLES(f64, F64)

#define TYPE_ENTRY_U(NAME, E) [HLX_DTYPE_##E] = NAME##_unary,
#define TYPE_ENTRY_B(NAME, E) [HLX_DTYPE_##E] = NAME##_binary,
static const hlx_unary_fn* const kUnary[HLX_DTYPE_COUNT] = {
    NARROW_TYPES(TYPE_ENTRY_U) TYPE_ENTRY_U(f32, F32) TYPE_ENTRY_U(f64, F64)};
static const hlx_binary_fn* const kBinary[HLX_DTYPE_COUNT] = {
    NARROW_TYPES(TYPE_ENTRY_B) TYPE_ENTRY_B(f32, F32) TYPE_ENTRY_B(f64, F64)};

hlx_unary_fn hlx_internal_float_unary(hlx_unary_op_t op, hlx_dtype_t t) {
  if ((unsigned)t >= HLX_DTYPE_COUNT || (unsigned)op >= HLX_UNARY_COUNT ||
      !kUnary[t])
    return NULL;
  return kUnary[t][op];
}

hlx_binary_fn hlx_internal_float_binary(hlx_binary_op_t op, hlx_dtype_t t) {
  if ((unsigned)t >= HLX_DTYPE_COUNT || (unsigned)op >= HLX_BINARY_COUNT)
    return NULL;
  if (op == HLX_BINARY_COMPLEX) {
    if (t == HLX_DTYPE_F32) return hlx_f32_complex;
    if (t == HLX_DTYPE_F64) return hlx_f64_complex;
    return NULL;
  }
  if (!kBinary[t]) return NULL;
  return kBinary[t][op];
}
