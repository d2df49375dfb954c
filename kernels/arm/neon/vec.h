/* AArch64 NEON (Advanced SIMD, always present on AArch64) vector layer for
 * the shared kernel templates (kernels/x86/<family>_impl.h and vmath.h are
 * written on this layer only, so they compile for NEON unchanged). Lanes:
 * 4 x f32, 2 x f64. NEON has no masked loads, so tails go through a small
 * stack buffer: lanes past the end are never read or written. Streaming
 * stores are plain stores (AArch64's STNP is a hint the templates do not
 * need); v_sfence() is a compiler barrier. */
#ifndef HLX_KERNELS_ARM_NEON_VEC_H_
#define HLX_KERNELS_ARM_NEON_VEC_H_

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HLX_SFX(name) name##__neon
#define VF_N 4
#define VD_N 2
#define V_BYTES 16

typedef float32x4_t vf;
typedef uint32x4_t vfb; /* all-ones / all-zeros lanes */
typedef float64x2_t vd;
typedef uint64x2_t vdb;

#define HLX_VINLINE static inline __attribute__((always_inline))

/* The comparison predicates the templates use, with the values x86's
 * _mm*_cmp_p[sd] gives them (O = false on NaN, U = true on NaN). */
enum {
  _CMP_EQ_OQ = 0x00,
  _CMP_UNORD_Q = 0x03,
  _CMP_NEQ_UQ = 0x04,
  _CMP_NLE_UQ = 0x16,
  _CMP_NGE_UQ = 0x19,
  _CMP_NGT_UQ = 0x1a,
  _CMP_NLT_UQ = 0x15,
  _CMP_ORD_Q = 0x07,
  _CMP_LT_OQ = 0x11,
  _CMP_LE_OQ = 0x12,
  _CMP_GE_OQ = 0x1d,
  _CMP_GT_OQ = 0x1e,
};

/* ---- f32 ---- */
HLX_VINLINE vf vf_loadu(const float* p) { return vld1q_f32(p); }
HLX_VINLINE void vf_storeu(float* p, vf v) { vst1q_f32(p, v); }
HLX_VINLINE void vf_stream(float* p, vf v) { vst1q_f32(p, v); }
HLX_VINLINE vf vf_load_tail_or(const float* p, size_t k, vf fill) {
  float t[VF_N];
  vst1q_f32(t, fill);
  memcpy(t, p, k * sizeof(float));
  return vld1q_f32(t);
}
HLX_VINLINE vf vf_load_tail(const float* p, size_t k) {
  return vf_load_tail_or(p, k, vdupq_n_f32(0.0f));
}
HLX_VINLINE void vf_store_tail(float* p, size_t k, vf v) {
  float t[VF_N];
  vst1q_f32(t, v);
  memcpy(p, t, k * sizeof(float));
}
HLX_VINLINE vf vf_set1(float x) { return vdupq_n_f32(x); }
HLX_VINLINE vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
HLX_VINLINE vf vf_sub(vf a, vf b) { return vsubq_f32(a, b); }
HLX_VINLINE vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
HLX_VINLINE vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
HLX_VINLINE vf vf_sqrt(vf a) { return vsqrtq_f32(a); }
/* a * b + c, one rounding. */
HLX_VINLINE vf vf_fma(vf a, vf b, vf c) { return vfmaq_f32(c, a, b); }
/* c - a * b, one rounding. */
HLX_VINLINE vf vf_fnma(vf a, vf b, vf c) { return vfmsq_f32(c, a, b); }
/* 1/a with relative error well below 2^-14: the 8-bit estimate plus two
 * Newton steps (vrecps computes 2 - a * r). */
HLX_VINLINE vf vf_rcp_approx(vf a) {
  vf r = vrecpeq_f32(a);
  r = vmulq_f32(r, vrecpsq_f32(a, r));
  return vmulq_f32(r, vrecpsq_f32(a, r));
}
/* x86 semantics (the templates build NaN/-0 handling on them): the second
 * operand unless the first is strictly greater/less. */
HLX_VINLINE vf vf_max_raw(vf a, vf b) {
  return vbslq_f32(vcgtq_f32(a, b), a, b);
}
HLX_VINLINE vf vf_min_raw(vf a, vf b) {
  return vbslq_f32(vcltq_f32(a, b), a, b);
}
#define HLX_NEON_F32_BITOP(name, expr)                                  \
  HLX_VINLINE vf vf_##name(vf a, vf b) {                                \
    uint32x4_t x = vreinterpretq_u32_f32(a), y = vreinterpretq_u32_f32(b); \
    return vreinterpretq_f32_u32(expr);                                 \
  }
HLX_NEON_F32_BITOP(and, vandq_u32(x, y))
HLX_NEON_F32_BITOP(or, vorrq_u32(x, y))
HLX_NEON_F32_BITOP(xor, veorq_u32(x, y))
/* ~a & b */
HLX_NEON_F32_BITOP(andnot, vbicq_u32(y, x))
#undef HLX_NEON_F32_BITOP
HLX_VINLINE vfb vf_cmp(vf a, vf b, int pred) {
  switch (pred) {
    case _CMP_EQ_OQ: return vceqq_f32(a, b);
    case _CMP_LT_OQ: return vcltq_f32(a, b);
    case _CMP_LE_OQ: return vcleq_f32(a, b);
    case _CMP_GT_OQ: return vcgtq_f32(a, b);
    case _CMP_GE_OQ: return vcgeq_f32(a, b);
    case _CMP_NEQ_UQ: return vmvnq_u32(vceqq_f32(a, b));
    case _CMP_NLE_UQ: return vmvnq_u32(vcleq_f32(a, b));
    case _CMP_NGE_UQ: return vmvnq_u32(vcgeq_f32(a, b));
    case _CMP_NGT_UQ: return vmvnq_u32(vcgtq_f32(a, b));
    case _CMP_NLT_UQ: return vmvnq_u32(vcltq_f32(a, b));
    case _CMP_ORD_Q: return vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b));
    default: /* _CMP_UNORD_Q */
      return vmvnq_u32(vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b)));
  }
}
HLX_VINLINE vf vf_select(vfb m, vf t, vf f) { return vbslq_f32(m, t, f); }
HLX_VINLINE vfb vfb_or(vfb a, vfb b) { return vorrq_u32(a, b); }
/* Any lane set (rare-case branches of the vector math). */
HLX_VINLINE int vfb_any(vfb m) { return vmaxvq_u32(m) != 0; }
/* 4 lanes as 0/1 bytes; only the first k are written. */
HLX_VINLINE void vfb_store_bytes(uint8_t* y, vfb m, size_t k) {
  uint16x4_t h = vmovn_u32(vshrq_n_u32(m, 31));
  uint8x8_t b = vmovn_u16(vcombine_u16(h, h));
  uint8_t t[8];
  vst1_u8(t, b);
  memcpy(y, t, k);
}
/* Lanes whose pred byte is nonzero; only the first k bytes are read. */
HLX_VINLINE vfb vf_pred_load(const uint8_t* p, size_t k) {
  uint8_t t[8] = {0};
  memcpy(t, p, k);
  uint32x4_t w = vmovl_u16(vget_low_u16(vmovl_u8(vld1_u8(t))));
  return vtstq_u32(w, w);
}
HLX_VINLINE float vf_first(vf v) { return vgetq_lane_f32(v, 0); }
/* v with adjacent groups of w lanes swapped (w = 2, 1): the steps of a
 * horizontal reduction that stays in registers. */
HLX_VINLINE vf vf_swap_groups(vf v, int w) {
  return w == 2 ? vextq_f32(v, v, 2) : vrev64q_f32(v);
}
/* p[0], p[2], p[4], p[6] (reads p[0..7]): stride-2 windows. */
HLX_VINLINE vf vf_load_even(const float* p) { return vld2q_f32(p).val[0]; }

/* f32 <-> f64 halves. */
HLX_VINLINE vd vf_lo_pd(vf x) { return vcvt_f64_f32(vget_low_f32(x)); }
HLX_VINLINE vd vf_hi_pd(vf x) { return vcvt_high_f64_f32(x); }
HLX_VINLINE vf vf_from_pd(vd lo, vd hi) {
  return vcvt_high_f32_f64(vcvt_f32_f64(lo), hi);
}

/* ---- f64 ---- */
HLX_VINLINE vd vd_loadu(const double* p) { return vld1q_f64(p); }
HLX_VINLINE void vd_storeu(double* p, vd v) { vst1q_f64(p, v); }
HLX_VINLINE void vd_stream(double* p, vd v) { vst1q_f64(p, v); }
HLX_VINLINE vd vd_load_tail_or(const double* p, size_t k, vd fill) {
  double t[VD_N];
  vst1q_f64(t, fill);
  memcpy(t, p, k * sizeof(double));
  return vld1q_f64(t);
}
HLX_VINLINE vd vd_load_tail(const double* p, size_t k) {
  return vd_load_tail_or(p, k, vdupq_n_f64(0.0));
}
HLX_VINLINE void vd_store_tail(double* p, size_t k, vd v) {
  double t[VD_N];
  vst1q_f64(t, v);
  memcpy(p, t, k * sizeof(double));
}
HLX_VINLINE vd vd_set1(double x) { return vdupq_n_f64(x); }
HLX_VINLINE vd vd_zero(void) { return vdupq_n_f64(0.0); }
HLX_VINLINE vd vd_add(vd a, vd b) { return vaddq_f64(a, b); }
HLX_VINLINE vd vd_sub(vd a, vd b) { return vsubq_f64(a, b); }
HLX_VINLINE vd vd_mul(vd a, vd b) { return vmulq_f64(a, b); }
HLX_VINLINE vd vd_div(vd a, vd b) { return vdivq_f64(a, b); }
HLX_VINLINE vd vd_sqrt(vd a) { return vsqrtq_f64(a); }
HLX_VINLINE vd vd_fma(vd a, vd b, vd c) { return vfmaq_f64(c, a, b); }
HLX_VINLINE vd vd_max_raw(vd a, vd b) {
  return vbslq_f64(vcgtq_f64(a, b), a, b);
}
HLX_VINLINE vd vd_min_raw(vd a, vd b) {
  return vbslq_f64(vcltq_f64(a, b), a, b);
}
#define HLX_NEON_F64_BITOP(name, expr)                                  \
  HLX_VINLINE vd vd_##name(vd a, vd b) {                                \
    uint64x2_t x = vreinterpretq_u64_f64(a), y = vreinterpretq_u64_f64(b); \
    return vreinterpretq_f64_u64(expr);                                 \
  }
HLX_NEON_F64_BITOP(and, vandq_u64(x, y))
HLX_NEON_F64_BITOP(or, vorrq_u64(x, y))
HLX_NEON_F64_BITOP(xor, veorq_u64(x, y))
HLX_NEON_F64_BITOP(andnot, vbicq_u64(y, x))
#undef HLX_NEON_F64_BITOP
HLX_VINLINE vdb vdb_not(vdb m) {
  return vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(m)));
}
HLX_VINLINE vdb vd_cmp(vd a, vd b, int pred) {
  switch (pred) {
    case _CMP_EQ_OQ: return vceqq_f64(a, b);
    case _CMP_LT_OQ: return vcltq_f64(a, b);
    case _CMP_LE_OQ: return vcleq_f64(a, b);
    case _CMP_GT_OQ: return vcgtq_f64(a, b);
    case _CMP_GE_OQ: return vcgeq_f64(a, b);
    case _CMP_NEQ_UQ: return vdb_not(vceqq_f64(a, b));
    case _CMP_NLE_UQ: return vdb_not(vcleq_f64(a, b));
    case _CMP_NGE_UQ: return vdb_not(vcgeq_f64(a, b));
    case _CMP_NGT_UQ: return vdb_not(vcgtq_f64(a, b));
    case _CMP_NLT_UQ: return vdb_not(vcltq_f64(a, b));
    case _CMP_ORD_Q: return vandq_u64(vceqq_f64(a, a), vceqq_f64(b, b));
    default: /* _CMP_UNORD_Q */
      return vdb_not(vandq_u64(vceqq_f64(a, a), vceqq_f64(b, b)));
  }
}
HLX_VINLINE vd vd_select(vdb m, vd t, vd f) { return vbslq_f64(m, t, f); }
HLX_VINLINE void vdb_store_bytes(uint8_t* y, vdb m, size_t k) {
  uint8_t t[2] = {(uint8_t)(vgetq_lane_u64(m, 0) & 1u),
                  (uint8_t)(vgetq_lane_u64(m, 1) & 1u)};
  memcpy(y, t, k);
}
HLX_VINLINE vdb vd_pred_load(const uint8_t* p, size_t k) {
  uint8_t t[2] = {0, 0};
  memcpy(t, p, k);
  uint64x2_t w = {t[0], t[1]};
  return vtstq_u64(w, w);
}
HLX_VINLINE double vd_hsum(vd v) { return vaddvq_f64(v); }
/* 2^n for t = n + 0x1.8p52 (n an integer in [-1022, 1023]). */
HLX_VINLINE vd vd_exp2i(vd t) {
  int64x2_t i = vreinterpretq_s64_f64(t);
  i = vshlq_n_s64(vaddq_s64(i, vdupq_n_s64(1023)), 52);
  return vreinterpretq_f64_s64(i);
}
/* x = m * 2^e with m in [sqrt(1/2), sqrt(2)), for positive normal x. */
HLX_VINLINE vd vd_frexp_sqrt2(vd x, vd* e) {
  const int64x2_t off = vdupq_n_s64(0x3fe6a09e667f3bcdLL);
  int64x2_t bits = vreinterpretq_s64_f64(x);
  int64x2_t tmp = vsubq_s64(bits, off);
  uint64x2_t kb = vshrq_n_u64(
      vreinterpretq_u64_s64(vaddq_s64(tmp, vdupq_n_s64(0x3ff0000000000000LL))),
      52);
  *e = vsubq_f64(vcvtq_f64_u64(kb), vdupq_n_f64(1023.0));
  int64x2_t hi = vandq_s64(tmp, vdupq_n_s64((int64_t)0xfff0000000000000ULL));
  return vreinterpretq_f64_s64(vsubq_s64(bits, hi));
}

HLX_VINLINE void v_sfence(void) { __asm__ __volatile__("" ::: "memory"); }

#endif /* HLX_KERNELS_ARM_NEON_VEC_H_ */
