/* AVX2 + FMA vector layer for the shared x86 kernel templates
 * (kernels/x86/<family>_impl.h). Include only from files compiled with
 * -mavx2 -mfma. Tails use vmaskmov loads/stores, which never touch memory
 * in masked-off lanes. */
#ifndef HLX_KERNELS_X86_AVX2_VEC_H_
#define HLX_KERNELS_X86_AVX2_VEC_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HLX_SFX(name) name##__avx2
#define VF_N 8
#define VD_N 4
#define V_BYTES 32

typedef __m256 vf;
typedef __m256 vfb; /* all-ones / all-zeros lanes */
typedef __m256d vd;
typedef __m256d vdb;

#define HLX_VINLINE static inline __attribute__((always_inline))

/* k ones then zeros: a window into this table. */
static const int32_t hlx_avx2_mask32[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                            0,  0,  0,  0,  0,  0,  0,  0};
static const int64_t hlx_avx2_mask64[8] = {-1, -1, -1, -1, 0, 0, 0, 0};

/* ---- f32 ---- */
HLX_VINLINE __m256i vf_tail_mask(size_t k) {
  return _mm256_loadu_si256((const __m256i*)(hlx_avx2_mask32 + 8 - k));
}
HLX_VINLINE vf vf_loadu(const float* p) { return _mm256_loadu_ps(p); }
HLX_VINLINE void vf_storeu(float* p, vf v) { _mm256_storeu_ps(p, v); }
HLX_VINLINE void vf_stream(float* p, vf v) { _mm256_stream_ps(p, v); }
HLX_VINLINE vf vf_load_tail(const float* p, size_t k) {
  return _mm256_maskload_ps(p, vf_tail_mask(k));
}
HLX_VINLINE vf vf_load_tail_or(const float* p, size_t k, vf fill) {
  __m256i m = vf_tail_mask(k);
  return _mm256_blendv_ps(fill, _mm256_maskload_ps(p, m),
                          _mm256_castsi256_ps(m));
}
HLX_VINLINE void vf_store_tail(float* p, size_t k, vf v) {
  _mm256_maskstore_ps(p, vf_tail_mask(k), v);
}
HLX_VINLINE vf vf_set1(float x) { return _mm256_set1_ps(x); }
HLX_VINLINE vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
HLX_VINLINE vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
HLX_VINLINE vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
HLX_VINLINE vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
HLX_VINLINE vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
HLX_VINLINE vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
HLX_VINLINE vf vf_fnma(vf a, vf b, vf c) { return _mm256_fnmadd_ps(a, b, c); }
/* 1/a with relative error < 2^-14 (rcpps, 1.5 * 2^-12, plus one Newton
 * step), for corrections whose size already makes that enough. */
HLX_VINLINE vf vf_rcp_approx(vf a) {
  vf r = _mm256_rcp_ps(a);
  return _mm256_fmadd_ps(r, _mm256_fnmadd_ps(a, r, _mm256_set1_ps(1.0f)), r);
}
HLX_VINLINE vf vf_max_raw(vf a, vf b) { return _mm256_max_ps(a, b); }
HLX_VINLINE vf vf_min_raw(vf a, vf b) { return _mm256_min_ps(a, b); }
HLX_VINLINE vf vf_and(vf a, vf b) { return _mm256_and_ps(a, b); }
HLX_VINLINE vf vf_or(vf a, vf b) { return _mm256_or_ps(a, b); }
HLX_VINLINE vf vf_xor(vf a, vf b) { return _mm256_xor_ps(a, b); }
/* ~a & b */
HLX_VINLINE vf vf_andnot(vf a, vf b) { return _mm256_andnot_ps(a, b); }
#define vf_cmp(a, b, pred) _mm256_cmp_ps((a), (b), (pred))
HLX_VINLINE vf vf_select(vfb m, vf t, vf f) {
  return _mm256_blendv_ps(f, t, m);
}
HLX_VINLINE vfb vfb_or(vfb a, vfb b) { return _mm256_or_ps(a, b); }
/* Any lane set (rare-case branches of the vector math). */
HLX_VINLINE int vfb_any(vfb m) { return _mm256_movemask_ps(m) != 0; }
/* 8 lanes as 0/1 bytes; only the first k are written. */
HLX_VINLINE void vfb_store_bytes(uint8_t* y, vfb m, size_t k) {
  unsigned bits = (unsigned)_mm256_movemask_ps(m);
  uint64_t bytes = 0;
  for (int j = 0; j < 8; j++) bytes |= (uint64_t)((bits >> j) & 1u) << (8 * j);
  memcpy(y, &bytes, k);
}
/* Lanes whose pred byte is nonzero; only the first k bytes are read. */
HLX_VINLINE vfb vf_pred_load(const uint8_t* p, size_t k) {
  uint64_t bytes = 0;
  memcpy(&bytes, p, k);
  __m256i w = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)bytes));
  return _mm256_castsi256_ps(
      _mm256_xor_si256(_mm256_cmpeq_epi32(w, _mm256_setzero_si256()),
                       _mm256_set1_epi32(-1)));
}
HLX_VINLINE float vf_first(vf v) { return _mm256_cvtss_f32(v); }
/* v with adjacent groups of w lanes swapped (w = 4, 2, 1): the steps of
 * a horizontal reduction that stays in registers. */
HLX_VINLINE vf vf_swap_groups(vf v, int w) {
  switch (w) {
    case 4: return _mm256_permute2f128_ps(v, v, 1);
    case 2: return _mm256_permute_ps(v, _MM_SHUFFLE(1, 0, 3, 2));
    default: return _mm256_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1));
  }
}
/* p[0], p[2], ..., p[14] (reads p[0..15]): stride-2 windows. */
HLX_VINLINE vf vf_load_even(const float* p) {
  __m256 s = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8),
                               _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(s), _MM_SHUFFLE(3, 1, 2, 0)));
}

/* f32 <-> f64 halves. */
HLX_VINLINE vd vf_lo_pd(vf x) {
  return _mm256_cvtps_pd(_mm256_castps256_ps128(x));
}
HLX_VINLINE vd vf_hi_pd(vf x) {
  return _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
}
HLX_VINLINE vf vf_from_pd(vd lo, vd hi) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)),
                              _mm256_cvtpd_ps(hi), 1);
}

/* ---- f64 ---- */
HLX_VINLINE __m256i vd_tail_mask(size_t k) {
  return _mm256_loadu_si256((const __m256i*)(hlx_avx2_mask64 + 4 - k));
}
HLX_VINLINE vd vd_loadu(const double* p) { return _mm256_loadu_pd(p); }
HLX_VINLINE void vd_storeu(double* p, vd v) { _mm256_storeu_pd(p, v); }
HLX_VINLINE void vd_stream(double* p, vd v) { _mm256_stream_pd(p, v); }
HLX_VINLINE vd vd_load_tail(const double* p, size_t k) {
  return _mm256_maskload_pd(p, vd_tail_mask(k));
}
HLX_VINLINE vd vd_load_tail_or(const double* p, size_t k, vd fill) {
  __m256i m = vd_tail_mask(k);
  return _mm256_blendv_pd(fill, _mm256_maskload_pd(p, m),
                          _mm256_castsi256_pd(m));
}
HLX_VINLINE void vd_store_tail(double* p, size_t k, vd v) {
  _mm256_maskstore_pd(p, vd_tail_mask(k), v);
}
HLX_VINLINE vd vd_set1(double x) { return _mm256_set1_pd(x); }
HLX_VINLINE vd vd_zero(void) { return _mm256_setzero_pd(); }
HLX_VINLINE vd vd_add(vd a, vd b) { return _mm256_add_pd(a, b); }
HLX_VINLINE vd vd_sub(vd a, vd b) { return _mm256_sub_pd(a, b); }
HLX_VINLINE vd vd_mul(vd a, vd b) { return _mm256_mul_pd(a, b); }
HLX_VINLINE vd vd_div(vd a, vd b) { return _mm256_div_pd(a, b); }
HLX_VINLINE vd vd_sqrt(vd a) { return _mm256_sqrt_pd(a); }
HLX_VINLINE vd vd_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
HLX_VINLINE vd vd_max_raw(vd a, vd b) { return _mm256_max_pd(a, b); }
HLX_VINLINE vd vd_min_raw(vd a, vd b) { return _mm256_min_pd(a, b); }
HLX_VINLINE vd vd_and(vd a, vd b) { return _mm256_and_pd(a, b); }
HLX_VINLINE vd vd_or(vd a, vd b) { return _mm256_or_pd(a, b); }
HLX_VINLINE vd vd_xor(vd a, vd b) { return _mm256_xor_pd(a, b); }
HLX_VINLINE vd vd_andnot(vd a, vd b) { return _mm256_andnot_pd(a, b); }
#define vd_cmp(a, b, pred) _mm256_cmp_pd((a), (b), (pred))
HLX_VINLINE vd vd_select(vdb m, vd t, vd f) {
  return _mm256_blendv_pd(f, t, m);
}
HLX_VINLINE void vdb_store_bytes(uint8_t* y, vdb m, size_t k) {
  unsigned bits = (unsigned)_mm256_movemask_pd(m);
  uint32_t bytes = 0;
  for (int j = 0; j < 4; j++) bytes |= ((bits >> j) & 1u) << (8 * j);
  memcpy(y, &bytes, k);
}
HLX_VINLINE vdb vd_pred_load(const uint8_t* p, size_t k) {
  uint32_t bytes = 0;
  memcpy(&bytes, p, k);
  __m256i w = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)bytes));
  return _mm256_castsi256_pd(
      _mm256_xor_si256(_mm256_cmpeq_epi64(w, _mm256_setzero_si256()),
                       _mm256_set1_epi64x(-1)));
}
HLX_VINLINE double vd_hsum(vd v) {
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
HLX_VINLINE void v_sfence(void) { _mm_sfence(); }

#endif /* HLX_KERNELS_X86_AVX2_VEC_H_ */
