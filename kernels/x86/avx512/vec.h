/* AVX-512 (F+BW+DQ+VL) vector layer for the shared x86 kernel templates
 * (kernels/x86/<family>_impl.h). Include only from files compiled with
 * -mavx512f -mavx512bw -mavx512dq -mavx512vl. Tails use opmasks: loads of
 * the lanes past the end never touch memory. */
#ifndef HLX_KERNELS_X86_AVX512_VEC_H_
#define HLX_KERNELS_X86_AVX512_VEC_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define HLX_SFX(name) name##__avx512
#define VF_N 16
#define VD_N 8
#define V_BYTES 64

typedef __m512 vf;
typedef __mmask16 vfb;
typedef __m512d vd;
typedef __mmask8 vdb;

#define HLX_VINLINE static inline __attribute__((always_inline))

/* ---- f32 ---- */
HLX_VINLINE vfb vf_tail_mask(size_t k) { return (vfb)((1u << k) - 1u); }
HLX_VINLINE vf vf_loadu(const float* p) { return _mm512_loadu_ps(p); }
HLX_VINLINE void vf_storeu(float* p, vf v) { _mm512_storeu_ps(p, v); }
HLX_VINLINE void vf_stream(float* p, vf v) { _mm512_stream_ps(p, v); }
HLX_VINLINE vf vf_load_tail(const float* p, size_t k) {
  return _mm512_maskz_loadu_ps(vf_tail_mask(k), p);
}
HLX_VINLINE vf vf_load_tail_or(const float* p, size_t k, vf fill) {
  return _mm512_mask_loadu_ps(fill, vf_tail_mask(k), p);
}
HLX_VINLINE void vf_store_tail(float* p, size_t k, vf v) {
  _mm512_mask_storeu_ps(p, vf_tail_mask(k), v);
}
HLX_VINLINE vf vf_set1(float x) { return _mm512_set1_ps(x); }
HLX_VINLINE vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
HLX_VINLINE vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
HLX_VINLINE vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
HLX_VINLINE vf vf_div(vf a, vf b) { return _mm512_div_ps(a, b); }
HLX_VINLINE vf vf_sqrt(vf a) { return _mm512_sqrt_ps(a); }
HLX_VINLINE vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
HLX_VINLINE vf vf_fnma(vf a, vf b, vf c) { return _mm512_fnmadd_ps(a, b, c); }
/* 1/a with relative error < 2^-14 (vrcp14ps), for corrections whose size
 * already makes that enough. */
HLX_VINLINE vf vf_rcp_approx(vf a) { return _mm512_rcp14_ps(a); }
HLX_VINLINE vf vf_max_raw(vf a, vf b) { return _mm512_max_ps(a, b); }
HLX_VINLINE vf vf_min_raw(vf a, vf b) { return _mm512_min_ps(a, b); }
HLX_VINLINE vf vf_and(vf a, vf b) { return _mm512_and_ps(a, b); }
HLX_VINLINE vf vf_or(vf a, vf b) { return _mm512_or_ps(a, b); }
HLX_VINLINE vf vf_xor(vf a, vf b) { return _mm512_xor_ps(a, b); }
/* ~a & b */
HLX_VINLINE vf vf_andnot(vf a, vf b) { return _mm512_andnot_ps(a, b); }
#define vf_cmp(a, b, pred) _mm512_cmp_ps_mask((a), (b), (pred))
HLX_VINLINE vf vf_select(vfb m, vf t, vf f) {
  return _mm512_mask_blend_ps(m, f, t);
}
HLX_VINLINE vfb vfb_or(vfb a, vfb b) { return (vfb)(a | b); }
/* Any lane set (rare-case branches of the vector math). */
HLX_VINLINE int vfb_any(vfb m) { return m != 0; }
/* 16 lanes as 0/1 bytes; only the first k are written. */
HLX_VINLINE void vfb_store_bytes(uint8_t* y, vfb m, size_t k) {
  __m128i b = _mm_maskz_set1_epi8(m, 1);
  if (k == VF_N)
    _mm_storeu_si128((__m128i*)y, b);
  else
    _mm_mask_storeu_epi8(y, (__mmask16)((1u << k) - 1u), b);
}
/* Lanes whose pred byte is nonzero; only the first k bytes are read. */
HLX_VINLINE vfb vf_pred_load(const uint8_t* p, size_t k) {
  __m128i b = k == VF_N ? _mm_loadu_si128((const __m128i*)p)
                        : _mm_maskz_loadu_epi8((__mmask16)((1u << k) - 1u), p);
  return _mm_test_epi8_mask(b, b);
}
HLX_VINLINE float vf_first(vf v) { return _mm512_cvtss_f32(v); }
/* v with adjacent groups of w lanes swapped (w = 8, 4, 2, 1): the steps of
 * a horizontal reduction that stays in registers. */
HLX_VINLINE vf vf_swap_groups(vf v, int w) {
  switch (w) {
    case 8: return _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2));
    case 4: return _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1));
    case 2: return _mm512_permute_ps(v, _MM_SHUFFLE(1, 0, 3, 2));
    default: return _mm512_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1));
  }
}
/* p[0], p[2], ..., p[30] (reads p[0..31]): stride-2 windows. */
HLX_VINLINE vf vf_load_even(const float* p) {
  const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                        22, 24, 26, 28, 30);
  return _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx,
                                _mm512_loadu_ps(p + 16));
}

/* f32 <-> f64 halves. */
HLX_VINLINE vd vf_lo_pd(vf x) {
  return _mm512_cvtps_pd(_mm512_castps512_ps256(x));
}
HLX_VINLINE vd vf_hi_pd(vf x) {
  return _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1));
}
HLX_VINLINE vf vf_from_pd(vd lo, vd hi) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)),
                            _mm512_cvtpd_ps(hi), 1);
}

/* ---- f64 ---- */
HLX_VINLINE vdb vd_tail_mask(size_t k) { return (vdb)((1u << k) - 1u); }
HLX_VINLINE vd vd_loadu(const double* p) { return _mm512_loadu_pd(p); }
HLX_VINLINE void vd_storeu(double* p, vd v) { _mm512_storeu_pd(p, v); }
HLX_VINLINE void vd_stream(double* p, vd v) { _mm512_stream_pd(p, v); }
HLX_VINLINE vd vd_load_tail(const double* p, size_t k) {
  return _mm512_maskz_loadu_pd(vd_tail_mask(k), p);
}
HLX_VINLINE vd vd_load_tail_or(const double* p, size_t k, vd fill) {
  return _mm512_mask_loadu_pd(fill, vd_tail_mask(k), p);
}
HLX_VINLINE void vd_store_tail(double* p, size_t k, vd v) {
  _mm512_mask_storeu_pd(p, vd_tail_mask(k), v);
}
HLX_VINLINE vd vd_set1(double x) { return _mm512_set1_pd(x); }
HLX_VINLINE vd vd_zero(void) { return _mm512_setzero_pd(); }
HLX_VINLINE vd vd_add(vd a, vd b) { return _mm512_add_pd(a, b); }
HLX_VINLINE vd vd_sub(vd a, vd b) { return _mm512_sub_pd(a, b); }
HLX_VINLINE vd vd_mul(vd a, vd b) { return _mm512_mul_pd(a, b); }
HLX_VINLINE vd vd_div(vd a, vd b) { return _mm512_div_pd(a, b); }
HLX_VINLINE vd vd_sqrt(vd a) { return _mm512_sqrt_pd(a); }
HLX_VINLINE vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
HLX_VINLINE vd vd_max_raw(vd a, vd b) { return _mm512_max_pd(a, b); }
HLX_VINLINE vd vd_min_raw(vd a, vd b) { return _mm512_min_pd(a, b); }
HLX_VINLINE vd vd_and(vd a, vd b) { return _mm512_and_pd(a, b); }
HLX_VINLINE vd vd_or(vd a, vd b) { return _mm512_or_pd(a, b); }
HLX_VINLINE vd vd_xor(vd a, vd b) { return _mm512_xor_pd(a, b); }
HLX_VINLINE vd vd_andnot(vd a, vd b) { return _mm512_andnot_pd(a, b); }
#define vd_cmp(a, b, pred) _mm512_cmp_pd_mask((a), (b), (pred))
HLX_VINLINE vd vd_select(vdb m, vd t, vd f) {
  return _mm512_mask_blend_pd(m, f, t);
}
HLX_VINLINE void vdb_store_bytes(uint8_t* y, vdb m, size_t k) {
  __m128i b = _mm_maskz_set1_epi8((__mmask16)m, 1);
  _mm_mask_storeu_epi8(y, (__mmask16)((1u << k) - 1u), b);
}
HLX_VINLINE vdb vd_pred_load(const uint8_t* p, size_t k) {
  __m128i b = _mm_maskz_loadu_epi8((__mmask16)((1u << k) - 1u), p);
  return (vdb)_mm_test_epi8_mask(b, b);
}
HLX_VINLINE double vd_hsum(vd v) { return _mm512_reduce_add_pd(v); }
HLX_VINLINE void v_sfence(void) { _mm_sfence(); }

#endif /* HLX_KERNELS_X86_AVX512_VEC_H_ */
