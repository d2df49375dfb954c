/* Elementwise kernels shared by the x86 ISA folders. Included (once) by
 * kernels/x86/<isa>/elementwise.c after that folder's vec.h, which defines
 * the vector layer (vf/vd, loads, masked tails) and HLX_SFX (the __<isa>
 * suffix). Every kernel matches the reference kernels (kernels/ref/) :
 *
 *  - add, subtract, multiply, divide, sqrt, square, negate, abs, maximum,
 *    minimum, compare, select: bit-for-bit (IEEE ops are correctly rounded
 *    in f32 as in the reference's double-then-round; maximum/minimum
 *    propagate NaN and order -0 < +0 like the reference).
 *  - rsqrt f32: computed as (float)(1.0 / sqrt((double)x)) like the
 *    reference: bit-for-bit.
 *  - exp, expm1, log, log1p, tanh, logistic, sin, cos, erf, erfc (AVX-512
 *    only) f32: evaluated in f32 with FMA (vmath_f32.h; sin/cos reduce in
 *    double from |x| = 8192 on), error <= 1 ULP against the exact value
 *    for every f32 input, subnormal results included (max measured over
 *    all 2^32 inputs by benchmarks/kernels/vmath_sweep.cc: see
 *    vmath_f32.h); NaN, +-Inf, +-0 and denormal inputs give the
 *    reference's values. They may differ from the reference (libm in
 *    double, rounded once) by 1 ULP.
 *
 * NaN results are NaN but their payload/sign may differ from the reference
 * (the reference quiets signalling NaNs through double). Outputs of at
 * least HLX_NT_STORE_MIN_BYTES are written with non-temporal stores: they
 * cannot stay in the last-level cache anyway and skipping the read-for-
 * ownership saves a third of the traffic of a binary op. */
#include "kernels/x86/vmath_f32.h"

/* ------------------------------------------------------ entry points -- */

#define HLX_DEF_UNARY(T, name, op)                                        \
  void HLX_SFX(hlx_##T##_##name)(const void* x, void* y, size_t n) {      \
    drive_##T##_unary(x, y, n, op);                                       \
  }
#define HLX_DEF_BINARY(T, name, op)                                       \
  void HLX_SFX(hlx_##T##_##name)(const void* a, const void* b, void* y,   \
                                 size_t n) {                              \
    drive_##T##_binary(a, b, y, n, op);                                   \
  }

HLX_DEF_BINARY(f32, add, f32_add)
HLX_DEF_BINARY(f32, subtract, f32_sub)
HLX_DEF_BINARY(f32, multiply, f32_mul)
HLX_DEF_BINARY(f32, divide, f32_div)
HLX_DEF_BINARY(f32, maximum, f32_max)
HLX_DEF_BINARY(f32, minimum, f32_min)
HLX_DEF_UNARY(f32, negate, f32_neg)
HLX_DEF_UNARY(f32, abs, f32_abs)
HLX_DEF_UNARY(f32, sqrt, f32_sqrt)
HLX_DEF_UNARY(f32, rsqrt, f32_rsqrt)
HLX_DEF_UNARY(f32, square, f32_square)
HLX_DEF_UNARY(f32, exponential, f32_exp)
HLX_DEF_UNARY(f32, exponential_minus_one, f32_expm1)
HLX_DEF_UNARY(f32, log, f32_log)
HLX_DEF_UNARY(f32, log_plus_one, f32_log1p)
HLX_DEF_UNARY(f32, tanh, f32_tanh)
HLX_DEF_UNARY(f32, logistic, f32_logistic)
HLX_DEF_UNARY(f32, sine, f32_sin)
HLX_DEF_UNARY(f32, cosine, f32_cos)
HLX_DEF_UNARY(f32, erf, f32_erf)
#ifdef HLX_HAVE_F32_ERFC /* AVX-512 only (vmath_erfc.h) */
HLX_DEF_UNARY(f32, erfc, f32_erfc)
#endif

HLX_DEF_BINARY(f64, add, f64_add)
HLX_DEF_BINARY(f64, subtract, f64_sub)
HLX_DEF_BINARY(f64, multiply, f64_mul)
HLX_DEF_BINARY(f64, divide, f64_div)
HLX_DEF_BINARY(f64, maximum, f64_max)
HLX_DEF_BINARY(f64, minimum, f64_min)
HLX_DEF_UNARY(f64, negate, f64_neg)
HLX_DEF_UNARY(f64, abs, f64_abs)
HLX_DEF_UNARY(f64, sqrt, f64_sqrt)
HLX_DEF_UNARY(f64, rsqrt, f64_rsqrt)
HLX_DEF_UNARY(f64, square, f64_square)

/* compare (FLOAT / default ordering): EQ and the ordered directions are
 * false on NaN, NE is true, as in C. One loop per direction. */
#define HLX_CMP_LOOP(T, V, N, PRED)                                        \
  for (; i + N <= n; i += N)                                               \
    V##b_store_bytes(y + i, V##_cmp(V##_loadu(a + i), V##_loadu(b + i), PRED), N); \
  if (i < n)                                                               \
    V##b_store_bytes(y + i,                                                \
                     V##_cmp(V##_load_tail(a + i, n - i),                  \
                             V##_load_tail(b + i, n - i), PRED),           \
                     n - i);
#define HLX_DEF_COMPARE(T, CT, V, N)                                       \
  void HLX_SFX(hlx_##T##_compare)(hlx_compare_dir_t dir, const void* av,   \
                                  const void* bv, uint8_t* y, size_t n) {  \
    const CT* a = (const CT*)av;                                           \
    const CT* b = (const CT*)bv;                                           \
    size_t i = 0;                                                          \
    switch (dir) {                                                         \
      case HLX_CMP_EQ: HLX_CMP_LOOP(T, V, N, _CMP_EQ_OQ) break;            \
      case HLX_CMP_NE: HLX_CMP_LOOP(T, V, N, _CMP_NEQ_UQ) break;           \
      case HLX_CMP_GE: HLX_CMP_LOOP(T, V, N, _CMP_GE_OQ) break;            \
      case HLX_CMP_GT: HLX_CMP_LOOP(T, V, N, _CMP_GT_OQ) break;            \
      case HLX_CMP_LE: HLX_CMP_LOOP(T, V, N, _CMP_LE_OQ) break;            \
      case HLX_CMP_LT: HLX_CMP_LOOP(T, V, N, _CMP_LT_OQ) break;            \
    }                                                                      \
  }
HLX_DEF_COMPARE(f32, float, vf, VF_N)
HLX_DEF_COMPARE(f64, double, vd, VD_N)

/* select with a per-element pred (the scalar-pred case is a plain copy):
 * y[i] = pred[i] ? t[i] : f[i], moved as bits (x32 = any 4-byte type). */
#define HLX_DEF_SELECT(W, CT, V, N)                                         \
  void HLX_SFX(hlx_##W##_select)(const uint8_t* pred, const void* tv,       \
                                 const void* fv, void* yv, size_t n) {      \
    const CT* t = (const CT*)tv;                                            \
    const CT* f = (const CT*)fv;                                            \
    CT* y = (CT*)yv;                                                        \
    size_t i = 0;                                                           \
    for (; i + N <= n; i += N)                                              \
      V##_storeu(y + i, V##_select(V##_pred_load(pred + i, N),              \
                                   V##_loadu(t + i), V##_loadu(f + i)));    \
    if (i < n) {                                                            \
      size_t k = n - i;                                                     \
      V##_store_tail(y + i, k,                                              \
                     V##_select(V##_pred_load(pred + i, k),                 \
                                V##_load_tail(t + i, k),                    \
                                V##_load_tail(f + i, k)));                  \
    }                                                                       \
  }
HLX_DEF_SELECT(x32, float, vf, VF_N)
HLX_DEF_SELECT(x64, double, vd, VD_N)
