/* Integer and 16-bit-float elementwise kernels shared by the x86 ISA
 * folders (list: kernels/elementwise_ext.inc). Included once by
 * kernels/x86/<isa>/elementwise_ext.c after that folder's vec.h.
 *
 * Integer lanes use GCC vector extensions of the folder's vector width:
 * the compiler picks the ISA's instructions (and expands the ones it lacks,
 * e.g. 8-bit and 64-bit multiplies on AVX2), which keeps one source for
 * both ISAs and 8 integer types. Arithmetic runs on unsigned lanes so it
 * wraps as the reference does; max/min/compare use the dtype's signedness.
 * All integer results are bit-for-bit the reference's.
 *
 * bf16/f16 are widened to f32, computed with the f32 kernels' vector ops
 * (vmath.h) and rounded back once, RNE, exactly like the reference
 * (kernels/ref/elementwise_float.c). The conversions are integer/FP bit
 * tricks that are exact for every input including denormals, Inf and NaN
 * (NaN -> quiet NaN, sign kept, as in base/float_formats.c). Hardware
 * AVX512-BF16 conversion (vcvtneps2bf16) is not used: it flushes denormal
 * inputs and outputs to zero, which the reference does not. */
#include <string.h>

#include "kernels/x86/vmath_f32.h"

#define EXT_VEC(T, BYTES) T __attribute__((vector_size(BYTES)))
#define EXT_VINLINE static inline __attribute__((always_inline))

/* Runs BODY(k, ...) over blocks of L elements from i (declared by the
 * caller) to n: whole blocks with k the constant L — so its memcpys become
 * plain vector loads/stores — then the tail once with k = n - i (i is
 * left at the tail's start). */
#define EXT_BLOCKS(L, BODY, ...)                   \
  for (; i + (L) <= n; i += (L)) BODY((L), __VA_ARGS__) \
  if (i < n) BODY(n - i, __VA_ARGS__)

/* ------------------------------------------------------- integer ops -- */

/* One block of typedefs and lane ops per integer type: NAME, element type,
 * unsigned type of the same width. */
#define EXT_INT_TYPE(NAME, T, U)                                              \
  typedef EXT_VEC(T, V_BYTES) v_##NAME;                                       \
  typedef EXT_VEC(U, V_BYTES) vu_##NAME;                                      \
  enum { L_##NAME = V_BYTES / sizeof(T) };                                    \
  typedef EXT_VEC(int8_t, L_##NAME) vpred_##NAME;                             \
  EXT_VINLINE v_##NAME NAME##_add(v_##NAME a, v_##NAME b) {                   \
    return (v_##NAME)((vu_##NAME)a + (vu_##NAME)b);                           \
  }                                                                           \
  EXT_VINLINE v_##NAME NAME##_subtract(v_##NAME a, v_##NAME b) {              \
    return (v_##NAME)((vu_##NAME)a - (vu_##NAME)b);                           \
  }                                                                           \
  EXT_VINLINE v_##NAME NAME##_multiply(v_##NAME a, v_##NAME b) {              \
    return (v_##NAME)((vu_##NAME)a * (vu_##NAME)b);                           \
  }                                                                           \
  EXT_VINLINE v_##NAME NAME##_maximum(v_##NAME a, v_##NAME b) {               \
    v_##NAME m = (v_##NAME)(a > b);                                           \
    return (a & m) | (b & ~m);                                                \
  }                                                                           \
  EXT_VINLINE v_##NAME NAME##_minimum(v_##NAME a, v_##NAME b) {               \
    v_##NAME m = (v_##NAME)(a < b);                                           \
    return (a & m) | (b & ~m);                                                \
  }                                                                           \
  EXT_VINLINE v_##NAME NAME##_and(v_##NAME a, v_##NAME b) { return a & b; }   \
  EXT_VINLINE v_##NAME NAME##_or(v_##NAME a, v_##NAME b) { return a | b; }    \
  EXT_VINLINE v_##NAME NAME##_xor(v_##NAME a, v_##NAME b) { return a ^ b; }

EXT_INT_TYPE(s8, int8_t, uint8_t)
EXT_INT_TYPE(s16, int16_t, uint16_t)
EXT_INT_TYPE(s32, int32_t, uint32_t)
EXT_INT_TYPE(s64, int64_t, uint64_t)
EXT_INT_TYPE(u8, uint8_t, uint8_t)
EXT_INT_TYPE(u16, uint16_t, uint16_t)
EXT_INT_TYPE(u32, uint32_t, uint32_t)
EXT_INT_TYPE(u64, uint64_t, uint64_t)

#define EXT_INT_BINARY_BODY(k, NAME, T, OP)                                  \
  {                                                                          \
    v_##NAME va = {0}, vb = {0}, vy;                                         \
    memcpy(&va, a + i, (k) * sizeof(T));                                     \
    memcpy(&vb, b + i, (k) * sizeof(T));                                     \
    vy = NAME##_##OP(va, vb);                                                \
    memcpy(y + i, &vy, (k) * sizeof(T));                                     \
  }
/* y = op(a, b) over n elements: whole vectors, then the tail through a
 * zero-padded vector (never reads or writes past n); outputs of at least
 * HLX_NT_STORE_MIN_BYTES use non-temporal stores like the f32 kernels. */
#define EXT_INT_BINARY(NAME, T, OP)                                          \
  void HLX_SFX(hlx_##NAME##_##OP)(const void* av, const void* bv, void* yv,  \
                                  size_t n) {                                \
    const T* a = (const T*)av;                                               \
    const T* b = (const T*)bv;                                               \
    T* y = (T*)yv;                                                           \
    size_t i = 0;                                                            \
    if (n * sizeof(T) >= HLX_NT_STORE_MIN_BYTES) {                           \
      /* As the f32 drivers: align y with one partial block, then stream. */ \
      size_t head = ((V_BYTES - ((uintptr_t)y % V_BYTES)) % V_BYTES) / sizeof(T); \
      size_t end = n;                                                        \
      n = head;                                                              \
      EXT_BLOCKS(L_##NAME, EXT_INT_BINARY_BODY, NAME, T, OP)                 \
      i = head; /* EXT_BLOCKS leaves i before its tail */                    \
      n = end;                                                               \
      for (; i + L_##NAME <= n; i += L_##NAME) {                             \
        v_##NAME va, vb;                                                     \
        memcpy(&va, a + i, V_BYTES);                                         \
        memcpy(&vb, b + i, V_BYTES);                                         \
        vf_stream((float*)(y + i), (vf)NAME##_##OP(va, vb));                 \
      }                                                                      \
      v_sfence();                                                            \
    }                                                                        \
    EXT_BLOCKS(L_##NAME, EXT_INT_BINARY_BODY, NAME, T, OP)                   \
  }

/* compare in the dtype's signedness: lanes -> 0/1 bytes. */
#define EXT_INT_CMP_BODY(k, NAME, T, EXPR)                                   \
  {                                                                          \
    v_##NAME va = {0}, vb = {0};                                             \
    memcpy(&va, a + i, (k) * sizeof(T));                                     \
    memcpy(&vb, b + i, (k) * sizeof(T));                                     \
    vpred_##NAME r = __builtin_convertvector(EXPR, vpred_##NAME) & 1;        \
    memcpy(y + i, &r, (k));                                                  \
  }
#define EXT_INT_CMP_LOOP(NAME, T, EXPR) \
  EXT_BLOCKS(L_##NAME, EXT_INT_CMP_BODY, NAME, T, EXPR)
#define EXT_INT_COMPARE(NAME, T)                                             \
  void HLX_SFX(hlx_##NAME##_compare)(hlx_compare_dir_t dir, const void* av,  \
                                     const void* bv, uint8_t* y, size_t n) { \
    const T* a = (const T*)av;                                               \
    const T* b = (const T*)bv;                                               \
    size_t i = 0;                                                            \
    switch (dir) {                                                           \
      case HLX_CMP_EQ: EXT_INT_CMP_LOOP(NAME, T, va == vb) break;            \
      case HLX_CMP_NE: EXT_INT_CMP_LOOP(NAME, T, va != vb) break;            \
      case HLX_CMP_GE: EXT_INT_CMP_LOOP(NAME, T, va >= vb) break;            \
      case HLX_CMP_GT: EXT_INT_CMP_LOOP(NAME, T, va > vb) break;             \
      case HLX_CMP_LE: EXT_INT_CMP_LOOP(NAME, T, va <= vb) break;            \
      case HLX_CMP_LT: EXT_INT_CMP_LOOP(NAME, T, va < vb) break;             \
    }                                                                        \
  }

#define EXT_INT_KERNELS(NAME, T)         \
  EXT_INT_BINARY(NAME, T, add)           \
  EXT_INT_BINARY(NAME, T, subtract)      \
  EXT_INT_BINARY(NAME, T, multiply)      \
  EXT_INT_BINARY(NAME, T, maximum)       \
  EXT_INT_BINARY(NAME, T, minimum)       \
  EXT_INT_BINARY(NAME, T, and)           \
  EXT_INT_BINARY(NAME, T, or)            \
  EXT_INT_BINARY(NAME, T, xor)           \
  EXT_INT_COMPARE(NAME, T)

EXT_INT_KERNELS(s8, int8_t)
EXT_INT_KERNELS(s16, int16_t)
EXT_INT_KERNELS(s32, int32_t)
EXT_INT_KERNELS(s64, int64_t)
EXT_INT_KERNELS(u8, uint8_t)
EXT_INT_KERNELS(u16, uint16_t)
EXT_INT_KERNELS(u32, uint32_t)
EXT_INT_KERNELS(u64, uint64_t)

/* select with a per-element pred for 1- and 2-byte elements, as bits. */
#define EXT_SELECT_BODY(k, NAME, T)                                          \
  {                                                                          \
    vpred_##NAME p = {0};                                                    \
    v_##NAME vt = {0}, vf_ = {0};                                            \
    memcpy(&p, pred + i, (k));                                               \
    memcpy(&vt, t + i, (k) * sizeof(T));                                     \
    memcpy(&vf_, f + i, (k) * sizeof(T));                                    \
    v_##NAME m = __builtin_convertvector(p != 0, v_##NAME);                  \
    v_##NAME r = (vt & m) | (vf_ & ~m);                                      \
    memcpy(y + i, &r, (k) * sizeof(T));                                      \
  }
#define EXT_SELECT(W, NAME, T)                                               \
  void HLX_SFX(hlx_##W##_select)(const uint8_t* pred, const void* tv,        \
                                 const void* fv, void* yv, size_t n) {       \
    const T* t = (const T*)tv;                                               \
    const T* f = (const T*)fv;                                               \
    T* y = (T*)yv;                                                           \
    size_t i = 0;                                                            \
    EXT_BLOCKS(L_##NAME, EXT_SELECT_BODY, NAME, T)                           \
  }
EXT_SELECT(x8, u8, uint8_t)
EXT_SELECT(x16, u16, uint16_t)

/* ------------------------------------------------ 16-bit float lanes -- */

typedef EXT_VEC(uint16_t, V_BYTES / 2) vh;  /* VF_N 16-bit lanes */
typedef EXT_VEC(uint32_t, V_BYTES) vu32;
typedef EXT_VEC(int32_t, V_BYTES) vs32;
typedef EXT_VEC(float, V_BYTES) vfx;  /* vf as a plain GCC vector */

EXT_VINLINE vu32 ext_sel(vu32 m, vu32 t, vu32 f) { return (t & m) | (f & ~m); }

EXT_VINLINE vf bf16_to_vf(vh h) {
  return (vf)(__builtin_convertvector(h, vu32) << 16);
}
/* RNE; NaN -> quiet NaN with the top payload bits (hlx_f32_to_bf16). */
EXT_VINLINE vh vf_to_bf16(vf f) {
  vu32 u = (vu32)f;
  vu32 nan = (vu32)((u & 0x7fffffffu) > 0x7f800000u);
  vu32 r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return __builtin_convertvector(ext_sel(nan, (u >> 16) | 0x40u, r), vh);
}

/* f16 -> f32: normal and special values by rebiasing the exponent with one
 * multiply by 2^-112 (exp 31 lands on 255, so Inf/NaN stay Inf/NaN);
 * subnormals as (0.5 + m * 2^-24) - 0.5, both exact. */
EXT_VINLINE vf f16_to_vf(vh h) {
  vu32 w = __builtin_convertvector(h, vu32) << 16;
  vu32 sign = w & 0x80000000u;
  vu32 two_w = w + w;
  vfx norm = (vfx)((two_w >> 4) + (0xe0u << 23)) * 0x1p-112f;
  vfx denorm = (vfx)((two_w >> 17) | (126u << 23)) - 0.5f;
  vu32 small = (vu32)(two_w < (1u << 27));
  return (vf)(sign | ext_sel(small, (vu32)denorm, (vu32)norm));
}
/* f32 -> f16 RNE: scaling |x| by 2^112 * 2^-110 and adding a power of two
 * chosen from x's exponent makes the FPU round at f16's ulp (subnormal ulp
 * included); overflow reaches Inf through the first multiply. NaN -> 0x7e00
 * with x's sign, as the reference. Needs no FTZ/DAZ (the default MXCSR). */
EXT_VINLINE vh vf_to_f16(vf f) {
  vu32 w = (vu32)f;
  vfx base = ((vfx)(w & 0x7fffffffu) * 0x1p112f) * 0x1p-110f;
  vu32 shl1 = w + w;
  vu32 sign = w & 0x80000000u;
  vu32 bias = shl1 & 0xff000000u;
  bias = ext_sel((vu32)(bias < 0x71000000u), (vu32){0} + 0x71000000u, bias);
  base = (vfx)((bias >> 1) + 0x07800000u) + base;
  vu32 bits = (vu32)base;
  vu32 nonsign = ((bits >> 13) & 0x7c00u) + (bits & 0x0fffu);
  vu32 r = (sign >> 16) |
           ext_sel((vu32)(shl1 > 0xff000000u), (vu32){0} + 0x7e00u, nonsign);
  return __builtin_convertvector(r, vh);
}

/* Loops over VF_N lanes; the tail goes through zero-padded vectors. */
#define EXT_HALF_LOAD(dst, p, k)              \
  vh dst = {0};                               \
  memcpy(&dst, (p), (k) * sizeof(uint16_t));

#define EXT_HALF_UNARY_BODY(k, NAME, FOP)                                    \
  {                                                                          \
    EXT_HALF_LOAD(hx, x + i, (k))                                            \
    vh r = vf_to_##NAME(FOP(NAME##_to_vf(hx)));                              \
    memcpy(y + i, &r, (k) * sizeof(uint16_t));                               \
  }
#define EXT_HALF_BINARY_BODY(k, NAME, FOP)                                   \
  {                                                                          \
    EXT_HALF_LOAD(ha, a + i, (k))                                            \
    EXT_HALF_LOAD(hb, b + i, (k))                                            \
    vh r = vf_to_##NAME(FOP(NAME##_to_vf(ha), NAME##_to_vf(hb)));            \
    memcpy(y + i, &r, (k) * sizeof(uint16_t));                               \
  }
#define EXT_HALF_UNARY(NAME, OP, FOP)                                        \
  void HLX_SFX(hlx_##NAME##_##OP)(const void* xv, void* yv, size_t n) {      \
    const uint16_t* x = (const uint16_t*)xv;                                 \
    uint16_t* y = (uint16_t*)yv;                                             \
    size_t i = 0;                                                            \
    EXT_BLOCKS(VF_N, EXT_HALF_UNARY_BODY, NAME, FOP)                         \
  }
#define EXT_HALF_BINARY(NAME, OP, FOP)                                       \
  void HLX_SFX(hlx_##NAME##_##OP)(const void* av, const void* bv, void* yv,  \
                                  size_t n) {                                \
    const uint16_t* a = (const uint16_t*)av;                                 \
    const uint16_t* b = (const uint16_t*)bv;                                 \
    uint16_t* y = (uint16_t*)yv;                                             \
    size_t i = 0;                                                            \
    EXT_BLOCKS(VF_N, EXT_HALF_BINARY_BODY, NAME, FOP)                        \
  }
#define EXT_HALF_CMP_BODY(k, NAME, PRED)                                     \
  {                                                                          \
    EXT_HALF_LOAD(ha, a + i, (k))                                            \
    EXT_HALF_LOAD(hb, b + i, (k))                                            \
    vfb_store_bytes(y + i, vf_cmp(NAME##_to_vf(ha), NAME##_to_vf(hb), PRED), \
                    (k));                                                    \
  }
#define EXT_HALF_CMP_LOOP(NAME, PRED) \
  EXT_BLOCKS(VF_N, EXT_HALF_CMP_BODY, NAME, PRED)
#define EXT_HALF_COMPARE(NAME)                                               \
  void HLX_SFX(hlx_##NAME##_compare)(hlx_compare_dir_t dir, const void* av,  \
                                     const void* bv, uint8_t* y, size_t n) { \
    const uint16_t* a = (const uint16_t*)av;                                 \
    const uint16_t* b = (const uint16_t*)bv;                                 \
    size_t i = 0;                                                            \
    switch (dir) {                                                           \
      case HLX_CMP_EQ: EXT_HALF_CMP_LOOP(NAME, _CMP_EQ_OQ) break;            \
      case HLX_CMP_NE: EXT_HALF_CMP_LOOP(NAME, _CMP_NEQ_UQ) break;           \
      case HLX_CMP_GE: EXT_HALF_CMP_LOOP(NAME, _CMP_GE_OQ) break;            \
      case HLX_CMP_GT: EXT_HALF_CMP_LOOP(NAME, _CMP_GT_OQ) break;            \
      case HLX_CMP_LE: EXT_HALF_CMP_LOOP(NAME, _CMP_LE_OQ) break;            \
      case HLX_CMP_LT: EXT_HALF_CMP_LOOP(NAME, _CMP_LT_OQ) break;            \
    }                                                                        \
  }
#define EXT_HALF_CONVERTS(NAME)                                              \
  void HLX_SFX(hlx_##NAME##_to_f32)(const void* xv, void* yv, size_t n) {    \
    const uint16_t* x = (const uint16_t*)xv;                                 \
    float* y = (float*)yv;                                                   \
    size_t i = 0;                                                            \
    for (; i + VF_N <= n; i += VF_N) {                                       \
      EXT_HALF_LOAD(hx, x + i, VF_N)                                         \
      vf_storeu(y + i, NAME##_to_vf(hx));                                    \
    }                                                                        \
    if (i < n) {                                                             \
      EXT_HALF_LOAD(hx, x + i, n - i)                                        \
      vf_store_tail(y + i, n - i, NAME##_to_vf(hx));                         \
    }                                                                        \
  }                                                                          \
  void HLX_SFX(hlx_f32_to_##NAME)(const void* xv, void* yv, size_t n) {      \
    const float* x = (const float*)xv;                                       \
    uint16_t* y = (uint16_t*)yv;                                             \
    size_t i = 0;                                                            \
    for (; i + VF_N <= n; i += VF_N) {                                       \
      vh r = vf_to_##NAME(vf_loadu(x + i));                                  \
      memcpy(y + i, &r, sizeof r);                                           \
    }                                                                        \
    if (i < n) {                                                             \
      vh r = vf_to_##NAME(vf_load_tail(x + i, n - i));                       \
      memcpy(y + i, &r, (n - i) * sizeof(uint16_t));                         \
    }                                                                        \
  }

#define EXT_HALF_KERNELS(NAME)                         \
  EXT_HALF_UNARY(NAME, abs, f32_abs)                   \
  EXT_HALF_UNARY(NAME, negate, f32_neg)                \
  EXT_HALF_UNARY(NAME, sqrt, f32_sqrt)                 \
  EXT_HALF_UNARY(NAME, square, f32_square)             \
  EXT_HALF_UNARY(NAME, exponential, f32_exp)           \
  EXT_HALF_UNARY(NAME, exponential_minus_one, f32_expm1) \
  EXT_HALF_UNARY(NAME, log, f32_log)                   \
  EXT_HALF_UNARY(NAME, log_plus_one, f32_log1p)        \
  EXT_HALF_UNARY(NAME, tanh, f32_tanh)                 \
  EXT_HALF_UNARY(NAME, logistic, f32_logistic)         \
  EXT_HALF_UNARY(NAME, sine, f32_sin)                  \
  EXT_HALF_UNARY(NAME, cosine, f32_cos)                \
  EXT_HALF_BINARY(NAME, add, f32_add)                  \
  EXT_HALF_BINARY(NAME, subtract, f32_sub)             \
  EXT_HALF_BINARY(NAME, multiply, f32_mul)             \
  EXT_HALF_BINARY(NAME, divide, f32_div)               \
  EXT_HALF_BINARY(NAME, maximum, f32_max)              \
  EXT_HALF_BINARY(NAME, minimum, f32_min)              \
  EXT_HALF_COMPARE(NAME)                               \
  EXT_HALF_CONVERTS(NAME)

EXT_HALF_KERNELS(bf16)
EXT_HALF_KERNELS(f16)
