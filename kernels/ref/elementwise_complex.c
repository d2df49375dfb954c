/* Reference elementwise kernels for complex<f32> and complex<f64>.
 *
 * Values are interleaved (re, im) pairs. Every op is a scalar function on
 * double complex (z_<op>); complex<f32> kernels widen, apply and round each
 * component once, which is more accurate than computing in f32. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ref/elementwise_internal.h"

typedef double complex zd;

/* Builds re + i*im without arithmetic (so Inf/NaN parts stay as given);
 * a complex is laid out as double[2] (C11 6.2.5p13). Not CMPLX: clang 14
 * with glibc does not provide it. */
static inline zd mk(double re, double im) {
  double parts[2] = {re, im};
  zd z;
  memcpy(&z, parts, sizeof z);
  return z;
}

static inline zd z_negate(zd z) { return mk(-creal(z), -cimag(z)); }
static inline zd z_sign(zd z) {
  double x = creal(z), y = cimag(z);
  if (isnan(x) || isnan(y)) return mk(NAN, NAN);
  if (x == 0 && y == 0) return mk(0.0, 0.0);
  double r = hypot(x, y);
  if (isinf(r)) {
    /* Infinite modulus: direction of the infinite parts. */
    x = isinf(x) ? copysign(1.0, x) : copysign(0.0, x);
    y = isinf(y) ? copysign(1.0, y) : copysign(0.0, y);
    r = hypot(x, y);
  }
  return mk(x / r, y / r);
}
static inline zd z_sqrt(zd z) { return csqrt(z); }
static inline zd z_rsqrt(zd z) { return 1.0 / csqrt(z); }
/* Principal cube root: |z|^(1/3) at a third of the argument. */
static inline zd z_cbrt(zd z) {
  double r = cbrt(hypot(creal(z), cimag(z)));
  double t = carg(z) / 3.0;
  return mk(r * cos(t), r * sin(t));
}
static inline zd z_exponential(zd z) { return cexp(z); }
/* expm1(x+iy) = (e^x cos y - 1) + i e^x sin y, with the real part written
 * as expm1(x) cos y - 2 sin^2(y/2) to avoid cancellation near 0. */
static inline zd z_exponential_minus_one(zd z) {
  double x = creal(z), y = cimag(z);
  if (y == 0) return mk(expm1(x), y);
  double s = sin(0.5 * y);
  double ex = exp(x);
  if (isinf(ex)) return mk(ex * cos(y), ex * sin(y));
  return mk(expm1(x) * cos(y) - 2.0 * s * s, ex * sin(y));
}
static inline zd z_log(zd z) { return clog(z); }
/* log(1+z): re = 0.5*log1p(2x + x^2 + y^2) near 0, im = atan2(y, 1+x). */
static inline zd z_log_plus_one(zd z) {
  double x = creal(z), y = cimag(z);
  if (fabs(x) < 0.5 && fabs(y) < 0.5)
    return mk(0.5 * log1p(x * (2.0 + x) + y * y), atan2(y, 1.0 + x));
  return clog(1.0 + z);
}
static inline zd z_logistic(zd z) { return 1.0 / (1.0 + cexp(-z)); }
static inline zd z_sine(zd z) { return csin(z); }
static inline zd z_cosine(zd z) { return ccos(z); }
static inline zd z_tan(zd z) { return ctan(z); }
static inline zd z_tanh(zd z) { return ctanh(z); }
static inline zd z_conj(zd z) { return mk(creal(z), -cimag(z)); }
static inline zd z_acos(zd z) { return cacos(z); }
static inline zd z_acosh(zd z) { return cacosh(z); }
static inline zd z_asin(zd z) { return casin(z); }
static inline zd z_asinh(zd z) { return casinh(z); }
static inline zd z_atan(zd z) { return catan(z); }
static inline zd z_atanh(zd z) { return catanh(z); }
static inline zd z_cosh(zd z) { return ccosh(z); }
static inline zd z_sinh(zd z) { return csinh(z); }
static inline zd z_square(zd z) {
  double x = creal(z), y = cimag(z);
  return mk((x - y) * (x + y), 2.0 * x * y);
}

static inline zd z_add(zd a, zd b) {
  return mk(creal(a) + creal(b), cimag(a) + cimag(b));
}
static inline zd z_subtract(zd a, zd b) {
  return mk(creal(a) - creal(b), cimag(a) - cimag(b));
}
/* Textbook product (no Annex G inf recovery), as XLA emits it. */
static inline zd z_multiply(zd a, zd b) {
  double p = creal(a), q = cimag(a), r = creal(b), s = cimag(b);
  return mk(p * r - q * s, p * s + q * r);
}
static inline zd z_divide(zd a, zd b) { return a / b; }
static inline zd z_power(zd a, zd b) {
  if (creal(a) == 0 && cimag(a) == 0) {
    if (creal(b) == 0 && cimag(b) == 0) return mk(1.0, 0.0);
    if (cimag(b) == 0 && creal(b) > 0) return mk(0.0, 0.0);
  }
  return cpow(a, b);
}
/* Lexicographic on (real, imag); NaN in either operand propagates. */
static inline int z_isnan(zd a) { return isnan(creal(a)) || isnan(cimag(a)); }
static inline zd z_maximum(zd a, zd b) {
  if (z_isnan(a)) return a;
  if (z_isnan(b)) return b;
  if (creal(a) != creal(b)) return creal(a) > creal(b) ? a : b;
  return cimag(a) >= cimag(b) ? a : b;
}
static inline zd z_minimum(zd a, zd b) {
  if (z_isnan(a)) return a;
  if (z_isnan(b)) return b;
  if (creal(a) != creal(b)) return creal(a) < creal(b) ? a : b;
  return cimag(a) <= cimag(b) ? a : b;
}
/* atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)). */
static inline zd z_atan2(zd y, zd x) {
  zd iy = mk(-cimag(y), creal(y));
  zd w = clog((x + iy) / csqrt(x * x + y * y));
  return mk(cimag(w), -creal(w));
}

/* -> component type */
static inline double r_abs(zd z) { return hypot(creal(z), cimag(z)); }
static inline double r_real(zd z) { return creal(z); }
static inline double r_imag(zd z) { return cimag(z); }

#define COMPLEX_UNARY_OPS(X, ...)                                        \
  X(__VA_ARGS__, NEGATE, negate) X(__VA_ARGS__, SIGN, sign)              \
  X(__VA_ARGS__, SQRT, sqrt) X(__VA_ARGS__, RSQRT, rsqrt)                \
  X(__VA_ARGS__, CBRT, cbrt) X(__VA_ARGS__, EXP, exponential)            \
  X(__VA_ARGS__, EXPM1, exponential_minus_one) X(__VA_ARGS__, LOG, log)  \
  X(__VA_ARGS__, LOG1P, log_plus_one) X(__VA_ARGS__, LOGISTIC, logistic) \
  X(__VA_ARGS__, SIN, sine) X(__VA_ARGS__, COS, cosine)                  \
  X(__VA_ARGS__, TAN, tan) X(__VA_ARGS__, TANH, tanh)                    \
  X(__VA_ARGS__, CONJ, conj) X(__VA_ARGS__, ACOS, acos)                  \
  X(__VA_ARGS__, ACOSH, acosh) X(__VA_ARGS__, ASIN, asin)                \
  X(__VA_ARGS__, ASINH, asinh) X(__VA_ARGS__, ATAN, atan)                \
  X(__VA_ARGS__, ATANH, atanh) X(__VA_ARGS__, COSH, cosh)                \
  X(__VA_ARGS__, SINH, sinh) X(__VA_ARGS__, SQUARE, square)
#define COMPLEX_PART_OPS(X, ...)                              \
  X(__VA_ARGS__, ABS, abs) X(__VA_ARGS__, REAL, real)         \
  X(__VA_ARGS__, IMAG, imag)
#define COMPLEX_BINARY_OPS(X, ...)                                     \
  X(__VA_ARGS__, ADD, add) X(__VA_ARGS__, SUBTRACT, subtract)          \
  X(__VA_ARGS__, MULTIPLY, multiply) X(__VA_ARGS__, DIVIDE, divide)    \
  X(__VA_ARGS__, POWER, power) X(__VA_ARGS__, MAXIMUM, maximum)        \
  X(__VA_ARGS__, MINIMUM, minimum) X(__VA_ARGS__, ATAN2, atan2)

/* T is the component type. */
#define DEF_UNARY(NAME, T, ID, OP)                                  \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n);       \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n) {      \
    const T* x = (const T*)xv;                                      \
    T* y = (T*)yv;                                                  \
    for (size_t i = 0; i < n; i++) {                                \
      zd r = z_##OP(mk(x[2 * i], x[2 * i + 1]));                    \
      y[2 * i] = (T)creal(r);                                       \
      y[2 * i + 1] = (T)cimag(r);                                   \
    }                                                               \
  }
#define DEF_PART(NAME, T, ID, OP)                                   \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n);       \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n) {      \
    const T* x = (const T*)xv;                                      \
    T* y = (T*)yv;                                                  \
    for (size_t i = 0; i < n; i++)                                  \
      y[i] = (T)r_##OP(mk(x[2 * i], x[2 * i + 1]));                 \
  }
#define DEF_BINARY(NAME, T, ID, OP)                                       \
  void hlx_##NAME##_##OP(const void* av, const void* bv, void* yv,        \
                         size_t n);                                       \
  void hlx_##NAME##_##OP(const void* av, const void* bv, void* yv,        \
                         size_t n) {                                      \
    const T* a = (const T*)av;                                            \
    const T* b = (const T*)bv;                                            \
    T* y = (T*)yv;                                                        \
    for (size_t i = 0; i < n; i++) {                                      \
      zd r = z_##OP(mk(a[2 * i], a[2 * i + 1]), mk(b[2 * i], b[2 * i + 1])); \
      y[2 * i] = (T)creal(r);                                             \
      y[2 * i + 1] = (T)cimag(r);                                         \
    }                                                                     \
  }
#define UN_ENTRY(NAME, ID, OP) [HLX_UNARY_##ID] = hlx_##NAME##_##OP,
#define BIN_ENTRY(NAME, ID, OP) [HLX_BINARY_##ID] = hlx_##NAME##_##OP,
#define DEF_TYPE(NAME, T)                                                \
  COMPLEX_UNARY_OPS(DEF_UNARY, NAME, T)                                  \
  COMPLEX_PART_OPS(DEF_PART, NAME, T)                                    \
  COMPLEX_BINARY_OPS(DEF_BINARY, NAME, T)                                \
  static const hlx_unary_fn NAME##_unary[HLX_UNARY_COUNT] = {            \
      COMPLEX_UNARY_OPS(UN_ENTRY, NAME) COMPLEX_PART_OPS(UN_ENTRY, NAME)}; \
  static const hlx_binary_fn NAME##_binary[HLX_BINARY_COUNT] = {         \
      COMPLEX_BINARY_OPS(BIN_ENTRY, NAME)};
DEF_TYPE(c64, float)
DEF_TYPE(c128, double)

hlx_unary_fn hlx_internal_complex_unary(hlx_unary_op_t op, hlx_dtype_t t) {
  if ((unsigned)op >= HLX_UNARY_COUNT) return NULL;
  if (t == HLX_DTYPE_C64) return c64_unary[op];
  if (t == HLX_DTYPE_C128) return c128_unary[op];
  return NULL;
}

hlx_binary_fn hlx_internal_complex_binary(hlx_binary_op_t op, hlx_dtype_t t) {
  if ((unsigned)op >= HLX_BINARY_COUNT) return NULL;
  if (t == HLX_DTYPE_C64) return c64_binary[op];
  if (t == HLX_DTYPE_C128) return c128_binary[op];
  return NULL;
}
