/* Reference elementwise kernels for integers (i2..i64, ui2..ui64) and pred.
 *
 * Every value is widened to a canonical 64-bit pattern (sign-extended for
 * signed types, zero-extended for unsigned), the op runs in uint64_t
 * (modular, so no signed overflow), and the result is wrapped back to the
 * type's bit width. `bits` and `sgn` are compile-time constants in every
 * kernel, so the helpers fold away. */
#include <stdint.h>

#include "kernels/ref/elementwise_internal.h"

typedef uint64_t u64;
typedef int64_t i64;

static inline u64 mask_of(int bits) {
  return bits >= 64 ? ~(u64)0 : (((u64)1 << bits) - 1);
}

/* Sign-extend the low `bits` of v. */
static inline u64 sext(u64 v, int bits) {
  if (bits >= 64) return v;
  u64 m = (u64)1 << (bits - 1);
  v &= mask_of(bits);
  return (v ^ m) - m;
}

/* Wrap to the canonical pattern of a `bits`-wide (un)signed type. */
static inline u64 wrap(u64 v, int bits, int sgn) {
  return sgn ? sext(v, bits) : (v & mask_of(bits));
}

static inline u64 op_add(u64 a, u64 b, int bits, int sgn) {
  return wrap(a + b, bits, sgn);
}
static inline u64 op_subtract(u64 a, u64 b, int bits, int sgn) {
  return wrap(a - b, bits, sgn);
}
static inline u64 op_multiply(u64 a, u64 b, int bits, int sgn) {
  return wrap(a * b, bits, sgn);
}
/* x / 0 = -1 (all ones); INT_MIN / -1 = INT_MIN (wraps). */
static inline u64 op_divide(u64 a, u64 b, int bits, int sgn) {
  if (b == 0) return wrap(~(u64)0, bits, sgn);
  if (sgn) {
    if ((i64)b == -1) return wrap((u64)0 - a, bits, sgn);
    return wrap((u64)((i64)a / (i64)b), bits, sgn);
  }
  return a / b;
}
/* x % 0 = x; INT_MIN % -1 = 0; sign of the dividend. */
static inline u64 op_remainder(u64 a, u64 b, int bits, int sgn) {
  (void)bits;
  if (b == 0) return a;
  if (sgn) {
    if ((i64)b == -1) return 0;
    return (u64)((i64)a % (i64)b);
  }
  return a % b;
}
/* Exponentiation by squaring, modular. Negative exponents follow 1/x^-b
 * truncated: 1 -> 1, -1 -> +-1, anything else -> 0. */
static inline u64 op_power(u64 a, u64 b, int bits, int sgn) {
  if (sgn && (i64)b < 0) {
    if ((i64)a == 1) return 1;
    if ((i64)a == -1) return (b & 1) ? ~(u64)0 : 1;
    return 0;
  }
  u64 r = 1;
  while (b) {
    if (b & 1) r *= a;
    a *= a;
    b >>= 1;
  }
  return wrap(r, bits, sgn);
}
static inline u64 op_maximum(u64 a, u64 b, int bits, int sgn) {
  (void)bits;
  if (sgn) return (i64)a > (i64)b ? a : b;
  return a > b ? a : b;
}
static inline u64 op_minimum(u64 a, u64 b, int bits, int sgn) {
  (void)bits;
  if (sgn) return (i64)a < (i64)b ? a : b;
  return a < b ? a : b;
}
static inline u64 op_and(u64 a, u64 b, int bits, int sgn) {
  (void)bits, (void)sgn;
  return a & b;
}
static inline u64 op_or(u64 a, u64 b, int bits, int sgn) {
  (void)bits, (void)sgn;
  return a | b;
}
static inline u64 op_xor(u64 a, u64 b, int bits, int sgn) {
  (void)bits, (void)sgn;
  return a ^ b;
}
/* Shift counts are read as unsigned: negative counts are >= the width. */
static inline u64 op_shift_left(u64 a, u64 b, int bits, int sgn) {
  b &= mask_of(bits);
  if (b >= (u64)bits) return 0;
  return wrap(a << b, bits, sgn);
}
static inline u64 op_shift_right_logical(u64 a, u64 b, int bits, int sgn) {
  b &= mask_of(bits);
  if (b >= (u64)bits) return 0;
  return wrap((a & mask_of(bits)) >> b, bits, sgn);
}
/* Arithmetic shift of the bit pattern (unsigned types too, like XLA). */
static inline u64 op_shift_right_arithmetic(u64 a, u64 b, int bits, int sgn) {
  b &= mask_of(bits);
  i64 s = (i64)sext(a, bits);
  if (b >= (u64)bits) return wrap(s < 0 ? ~(u64)0 : 0, bits, sgn);
  /* >> of a negative i64 is arithmetic with GCC/Clang. */
  return wrap((u64)(s >> b), bits, sgn);
}
/* High half of the double-width product. */
static inline u64 op_mulhi(u64 a, u64 b, int bits, int sgn) {
  if (bits == 64) {
    __extension__ typedef __int128 i128;
    __extension__ typedef unsigned __int128 u128;
    if (sgn) return (u64)(((i128)(i64)a * (i128)(i64)b) >> 64);
    return (u64)(((u128)a * (u128)b) >> 64);
  }
  if (sgn) return wrap((u64)(((i64)a * (i64)b) >> bits), bits, sgn);
  return wrap((a * b) >> bits, bits, sgn);
}

static inline u64 op_negate(u64 a, int bits, int sgn) {
  return wrap((u64)0 - a, bits, sgn);
}
static inline u64 op_not(u64 a, int bits, int sgn) {
  return wrap(~a, bits, sgn);
}
static inline u64 op_abs(u64 a, int bits, int sgn) {
  return ((i64)a < 0) ? wrap((u64)0 - a, bits, sgn) : a;
}
static inline u64 op_sign(u64 a, int bits, int sgn) {
  (void)bits, (void)sgn;
  return (i64)a < 0 ? ~(u64)0 : (a != 0);
}
static inline u64 op_popcnt(u64 a, int bits, int sgn) {
  (void)sgn;
  return (u64)__builtin_popcountll(a & mask_of(bits));
}
static inline u64 op_count_leading_zeros(u64 a, int bits, int sgn) {
  (void)sgn;
  a &= mask_of(bits);
  return a ? (u64)(bits - (64 - __builtin_clzll(a))) : (u64)bits;
}

/* (name, dtype enumerator, storage type, bits, signed) */
#define INT_TYPES(X)              \
  X(s2, S2, int8_t, 2, 1)         \
  X(s4, S4, int8_t, 4, 1)         \
  X(s8, S8, int8_t, 8, 1)         \
  X(s16, S16, int16_t, 16, 1)     \
  X(s32, S32, int32_t, 32, 1)     \
  X(s64, S64, int64_t, 64, 1)     \
  X(u2, U2, uint8_t, 2, 0)        \
  X(u4, U4, uint8_t, 4, 0)        \
  X(u8, U8, uint8_t, 8, 0)        \
  X(u16, U16, uint16_t, 16, 0)    \
  X(u32, U32, uint32_t, 32, 0)    \
  X(u64, U64, uint64_t, 64, 0)

/* Op lists (enumerator ID, kernel suffix); the leading arguments are passed
 * through to X. */
#define INT_BINARY_OPS(X, ...)                                            \
  X(__VA_ARGS__, ADD, add) X(__VA_ARGS__, SUBTRACT, subtract)             \
  X(__VA_ARGS__, MULTIPLY, multiply) X(__VA_ARGS__, DIVIDE, divide)       \
  X(__VA_ARGS__, REMAINDER, remainder) X(__VA_ARGS__, POWER, power)       \
  X(__VA_ARGS__, MAXIMUM, maximum) X(__VA_ARGS__, MINIMUM, minimum)       \
  X(__VA_ARGS__, AND, and) X(__VA_ARGS__, OR, or) X(__VA_ARGS__, XOR, xor) \
  X(__VA_ARGS__, SHIFT_LEFT, shift_left)                                  \
  X(__VA_ARGS__, SHIFT_RIGHT_ARITHMETIC, shift_right_arithmetic)          \
  X(__VA_ARGS__, SHIFT_RIGHT_LOGICAL, shift_right_logical)                \
  X(__VA_ARGS__, MULHI, mulhi)
#define INT_UNARY_OPS(X, ...)                                      \
  X(__VA_ARGS__, NEGATE, negate) X(__VA_ARGS__, NOT, not)          \
  X(__VA_ARGS__, POPCNT, popcnt) X(__VA_ARGS__, CLZ, count_leading_zeros)
/* abs and sign: signed types only */
#define SIGNED_UNARY_OPS_1(X, ...) \
  X(__VA_ARGS__, ABS, abs) X(__VA_ARGS__, SIGN, sign)
#define SIGNED_UNARY_OPS_0(X, ...)

#define LOAD(SGN, v) ((SGN) ? (u64)(i64)(v) : (u64)(v))

/* The kernels: hlx_<type>_<op>. */
#define DEF_BINARY(NAME, ST, BITS, SGN, ID, OP)                           \
  void hlx_##NAME##_##OP(const void* av, const void* bv, void* yv,        \
                         size_t n);                                       \
  void hlx_##NAME##_##OP(const void* av, const void* bv, void* yv,        \
                         size_t n) {                                      \
    const ST* a = (const ST*)av;                                          \
    const ST* b = (const ST*)bv;                                          \
    ST* y = (ST*)yv;                                                      \
    for (size_t i = 0; i < n; i++)                                        \
      y[i] = (ST)op_##OP(LOAD(SGN, a[i]), LOAD(SGN, b[i]), BITS, SGN);    \
  }
#define DEF_UNARY(NAME, ST, BITS, SGN, ID, OP)                            \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n);             \
  void hlx_##NAME##_##OP(const void* xv, void* yv, size_t n) {            \
    const ST* x = (const ST*)xv;                                          \
    ST* y = (ST*)yv;                                                      \
    for (size_t i = 0; i < n; i++)                                        \
      y[i] = (ST)op_##OP(LOAD(SGN, x[i]), BITS, SGN);                     \
  }
#define BIN_ENTRY(NAME, ID, OP) [HLX_BINARY_##ID] = hlx_##NAME##_##OP,
#define UN_ENTRY(NAME, ID, OP) [HLX_UNARY_##ID] = hlx_##NAME##_##OP,
#define DEF_TYPE(NAME, E, ST, BITS, SGN)                                 \
  INT_BINARY_OPS(DEF_BINARY, NAME, ST, BITS, SGN)                        \
  INT_UNARY_OPS(DEF_UNARY, NAME, ST, BITS, SGN)                          \
  SIGNED_UNARY_OPS_##SGN(DEF_UNARY, NAME, ST, BITS, SGN)                 \
  static const hlx_binary_fn NAME##_binary[HLX_BINARY_COUNT] = {         \
      INT_BINARY_OPS(BIN_ENTRY, NAME)};                                  \
  static const hlx_unary_fn NAME##_unary[HLX_UNARY_COUNT] = {            \
      INT_UNARY_OPS(UN_ENTRY, NAME) SIGNED_UNARY_OPS_##SGN(UN_ENTRY, NAME)};
INT_TYPES(DEF_TYPE)

/* ---- pred: add/maximum/or = OR, multiply/minimum/and = AND ---- */
#define DEF_PRED_BINARY(OP, EXPR)                                        \
  void hlx_pred_##OP(const void* av, const void* bv, void* yv, size_t n); \
  void hlx_pred_##OP(const void* av, const void* bv, void* yv,           \
                     size_t n) {                                         \
    const uint8_t* a = (const uint8_t*)av;                               \
    const uint8_t* b = (const uint8_t*)bv;                               \
    uint8_t* y = (uint8_t*)yv;                                           \
    for (size_t i = 0; i < n; i++) {                                     \
      uint8_t p = a[i] != 0, q = b[i] != 0;                              \
      y[i] = (uint8_t)(EXPR);                                            \
    }                                                                    \
  }
DEF_PRED_BINARY(or, p | q)
DEF_PRED_BINARY(and, p & q)
DEF_PRED_BINARY(xor, p ^ q)

void hlx_pred_not(const void* xv, void* yv, size_t n);
void hlx_pred_not(const void* xv, void* yv, size_t n) {
  const uint8_t* x = (const uint8_t*)xv;
  uint8_t* y = (uint8_t*)yv;
  for (size_t i = 0; i < n; i++) y[i] = x[i] == 0;
}

static const hlx_binary_fn pred_binary[HLX_BINARY_COUNT] = {
    [HLX_BINARY_ADD] = hlx_pred_or,      [HLX_BINARY_MAXIMUM] = hlx_pred_or,
    [HLX_BINARY_OR] = hlx_pred_or,       [HLX_BINARY_MULTIPLY] = hlx_pred_and,
    [HLX_BINARY_MINIMUM] = hlx_pred_and, [HLX_BINARY_AND] = hlx_pred_and,
    [HLX_BINARY_XOR] = hlx_pred_xor,
};
static const hlx_unary_fn pred_unary[HLX_UNARY_COUNT] = {
    [HLX_UNARY_NOT] = hlx_pred_not,
};

#define TYPE_ENTRY_B(NAME, E, ST, BITS, SGN) [HLX_DTYPE_##E] = NAME##_binary,
#define TYPE_ENTRY_U(NAME, E, ST, BITS, SGN) [HLX_DTYPE_##E] = NAME##_unary,
static const hlx_binary_fn* const kBinary[HLX_DTYPE_COUNT] = {
    INT_TYPES(TYPE_ENTRY_B)[HLX_DTYPE_PRED] = pred_binary};
static const hlx_unary_fn* const kUnary[HLX_DTYPE_COUNT] = {
    INT_TYPES(TYPE_ENTRY_U)[HLX_DTYPE_PRED] = pred_unary};

hlx_binary_fn hlx_internal_int_binary(hlx_binary_op_t op, hlx_dtype_t t) {
  if ((unsigned)t >= HLX_DTYPE_COUNT || (unsigned)op >= HLX_BINARY_COUNT ||
      !kBinary[t])
    return NULL;
  return kBinary[t][op];
}

hlx_unary_fn hlx_internal_int_unary(hlx_unary_op_t op, hlx_dtype_t t) {
  if ((unsigned)t >= HLX_DTYPE_COUNT || (unsigned)op >= HLX_UNARY_COUNT ||
      !kUnary[t])
    return NULL;
  return kUnary[t][op];
}
