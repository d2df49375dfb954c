/* f32 cumulative sums along the innermost axis (list:
 * kernels/scan_kernels.inc), shared by the ISA folders; included once by
 * kernels/x86/<isa>/scan.c and kernels/arm/neon/scan.c after that folder's
 * vec.h.
 *
 * Each line: a running carry (broadcast in every lane) plus the in-register
 * inclusive prefix of each VF_N-element block (log2(VF_N) shift-and-add
 * steps), two blocks per step so the carry's dependency chain is one add
 * per 2 * VF_N elements; the tail (< 2 * VF_N elements) continues the carry
 * one element at a time. Reverse scans run the same from the end with
 * in-register suffix sums. Only the rounding differs from the sequential
 * order (bound: kernels/scan.h): a line whose block outputs or carry hold
 * an Inf or NaN (an input one, or an overflow that the other order may not
 * have) is redone sequentially, so its specials are the reference's bit for
 * bit. With `stream`,
 * lines whose blocks are vector-aligned are written with non-temporal
 * stores (outputs larger than the last-level cache: no read for
 * ownership). */
#include <stdbool.h>
#include <stdint.h>

#include "kernels/scan.h"

/* The lane shuffles the scan needs, per ISA (vec.h has no lane shifts):
 * sc_prefix (lane i = v[0] + ... + v[i]) and sc_suffix (lane i = v[i] +
 * ... + v[last]), whose shifted-in lanes never change a value (-0
 * included), and sc_last / sc_first (that lane in every lane). */
#if V_BYTES == 64
/* valignd moves v up (lanes >= k gain v[i - k]) or down (lanes < 16 - k
 * gain v[i + k]) by k lanes; the masked add leaves the other lanes. */
#define SC_ALIGN(a, b, imm) \
  _mm512_castsi512_ps(      \
      _mm512_alignr_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b), imm))
HLX_VINLINE vf sc_prefix(vf v) {
  const vf z = _mm512_setzero_ps();
  v = _mm512_mask_add_ps(v, 0xFFFE, v, SC_ALIGN(v, z, 15));
  v = _mm512_mask_add_ps(v, 0xFFFC, v, SC_ALIGN(v, z, 14));
  v = _mm512_mask_add_ps(v, 0xFFF0, v, SC_ALIGN(v, z, 12));
  return _mm512_mask_add_ps(v, 0xFF00, v, SC_ALIGN(v, z, 8));
}
HLX_VINLINE vf sc_suffix(vf v) {
  const vf z = _mm512_setzero_ps();
  v = _mm512_mask_add_ps(v, 0x7FFF, v, SC_ALIGN(z, v, 1));
  v = _mm512_mask_add_ps(v, 0x3FFF, v, SC_ALIGN(z, v, 2));
  v = _mm512_mask_add_ps(v, 0x0FFF, v, SC_ALIGN(z, v, 4));
  return _mm512_mask_add_ps(v, 0x00FF, v, SC_ALIGN(z, v, 8));
}
#undef SC_ALIGN
HLX_VINLINE vf sc_last(vf v) {
  return _mm512_permutexvar_ps(_mm512_set1_epi32(15), v);
}
HLX_VINLINE vf sc_first(vf v) {
  return _mm512_broadcastss_ps(_mm512_castps512_ps128(v));
}
#elif V_BYTES == 32 && defined(__AVX2__)
/* Byte shifts stay within 128-bit halves: prefix each half, then add the
 * low half's total to the high half. OR-ing -0 into the shifted-in zero
 * lanes makes them -0, and x + (-0) == x for every x. */
HLX_VINLINE vf sc_prefix(vf v) {
  const __m256 pad1 = _mm256_setr_ps(-0.0f, 0, 0, 0, -0.0f, 0, 0, 0);
  const __m256 pad2 = _mm256_setr_ps(-0.0f, -0.0f, 0, 0, -0.0f, -0.0f, 0, 0);
  const __m256 pad4 = _mm256_setr_ps(-0.0f, -0.0f, -0.0f, -0.0f, 0, 0, 0, 0);
  __m256i b = _mm256_castps_si256(v);
  v = _mm256_add_ps(v, _mm256_or_ps(_mm256_castsi256_ps(_mm256_slli_si256(b, 4)), pad1));
  b = _mm256_castps_si256(v);
  v = _mm256_add_ps(v, _mm256_or_ps(_mm256_castsi256_ps(_mm256_slli_si256(b, 8)), pad2));
  __m256 t = _mm256_permute_ps(v, 0xFF);   /* each half's lane 3 */
  t = _mm256_permute2f128_ps(t, t, 0x08);  /* low: zero, high: low's total */
  return _mm256_add_ps(v, _mm256_or_ps(t, pad4));
}
HLX_VINLINE vf sc_suffix(vf v) {
  const __m256 pad1 = _mm256_setr_ps(0, 0, 0, -0.0f, 0, 0, 0, -0.0f);
  const __m256 pad2 = _mm256_setr_ps(0, 0, -0.0f, -0.0f, 0, 0, -0.0f, -0.0f);
  const __m256 pad4 = _mm256_setr_ps(0, 0, 0, 0, -0.0f, -0.0f, -0.0f, -0.0f);
  __m256i b = _mm256_castps_si256(v);
  v = _mm256_add_ps(v, _mm256_or_ps(_mm256_castsi256_ps(_mm256_srli_si256(b, 4)), pad1));
  b = _mm256_castps_si256(v);
  v = _mm256_add_ps(v, _mm256_or_ps(_mm256_castsi256_ps(_mm256_srli_si256(b, 8)), pad2));
  __m256 t = _mm256_permute_ps(v, 0x00);   /* each half's lane 0 */
  t = _mm256_permute2f128_ps(t, t, 0x81);  /* low: high's total, high: zero */
  return _mm256_add_ps(v, _mm256_or_ps(t, pad4));
}
HLX_VINLINE vf sc_last(vf v) {
  return _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(7));
}
HLX_VINLINE vf sc_first(vf v) {
  return _mm256_broadcastss_ps(_mm256_castps256_ps128(v));
}
#elif defined(__aarch64__)
HLX_VINLINE vf sc_prefix(vf v) {
  const float32x4_t z = vdupq_n_f32(-0.0f);
  v = vaddq_f32(v, vextq_f32(z, v, 3)); /* -0, v0, v1, v2 */
  return vaddq_f32(v, vextq_f32(z, v, 2)); /* -0, -0, v0, v1 */
}
HLX_VINLINE vf sc_suffix(vf v) {
  const float32x4_t z = vdupq_n_f32(-0.0f);
  v = vaddq_f32(v, vextq_f32(v, z, 1)); /* v1, v2, v3, -0 */
  return vaddq_f32(v, vextq_f32(v, z, 2)); /* v2, v3, -0, -0 */
}
HLX_VINLINE vf sc_last(vf v) { return vdupq_laneq_f32(v, 3); }
HLX_VINLINE vf sc_first(vf v) { return vdupq_laneq_f32(v, 0); }
#else
#error "kernels/x86/scan_impl.h: no lane shuffles for this vector layer"
#endif

HLX_VINLINE void sc_store(float* p, vf v, bool stream) {
  if (stream)
    vf_stream(p, v);
  else
    vf_storeu(p, v);
}

/* True when some lane of chk (a sum of out * 0 terms) is NaN: an output or
 * the carry was Inf or NaN. */
HLX_VINLINE bool sc_nonfinite(vf chk) {
  float t[VF_N];
  vf_storeu(t, chk);
  bool bad = false;
  for (int l = 0; l < VF_N; l++) bad |= t[l] != t[l];
  return bad;
}

/* A line with an Inf or NaN anywhere in its vector part is redone in the
 * sequential order: a reordered sum can overflow where the sequential one
 * does not (or the other way round) and then turn Inf into NaN or back into
 * finite values (FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX: Inf, Inf, Inf, Inf
 * sequentially; FLT_MAX, NaN, ... in blocks). Lines without specials pay
 * two multiply-adds per block pair. */
static void sc_line_fwd(const float* x, float* y, int64_t n, float init,
                        bool stream) {
  const vf z = vf_set1(0.0f);
  vf c = vf_set1(init), chk = z;
  int64_t i = 0;
  stream = stream && ((uintptr_t)y % V_BYTES) == 0;
  for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
    vf p0 = sc_prefix(vf_loadu(x + i)), p1 = sc_prefix(vf_loadu(x + i + VF_N));
    vf t0 = sc_last(p0), t1 = sc_last(p1);
    vf o0 = vf_add(c, p0), o1 = vf_add(vf_add(c, t0), p1);
    sc_store(y + i, o0, stream);
    sc_store(y + i + VF_N, o1, stream);
    chk = vf_add(chk, vf_add(vf_mul(o0, z), vf_mul(o1, z)));
    c = vf_add(c, vf_add(t0, t1));
  }
  float a = vf_first(c);
  if (i > 0 && sc_nonfinite(vf_add(chk, vf_mul(c, z)))) i = 0, a = init;
  for (; i < n; i++) y[i] = a = a + x[i];
}

static void sc_line_rev(const float* x, float* y, int64_t n, float init,
                        bool stream) {
  const vf z = vf_set1(0.0f);
  vf c = vf_set1(init), chk = z;
  int64_t j = n; /* elements [j, n) done */
  stream = stream && ((uintptr_t)(y + n) % V_BYTES) == 0;
  for (; j >= 2 * VF_N; j -= 2 * VF_N) {
    vf s1 = sc_suffix(vf_loadu(x + j - VF_N));
    vf s0 = sc_suffix(vf_loadu(x + j - 2 * VF_N));
    vf t1 = sc_first(s1), t0 = sc_first(s0);
    vf o1 = vf_add(c, s1), o0 = vf_add(vf_add(c, t1), s0);
    sc_store(y + j - VF_N, o1, stream);
    sc_store(y + j - 2 * VF_N, o0, stream);
    chk = vf_add(chk, vf_add(vf_mul(o0, z), vf_mul(o1, z)));
    c = vf_add(c, vf_add(t1, t0));
  }
  float a = vf_first(c);
  if (j < n && sc_nonfinite(vf_add(chk, vf_mul(c, z)))) j = n, a = init;
  for (int64_t i = j - 1; i >= 0; i--) y[i] = a = x[i] + a;
}

void HLX_SFX(hlx_f32_scan_add_lines)(const float* x, float* y, int64_t lines,
                                     int64_t n, float init, bool reverse,
                                     bool stream) {
  /* Reverse scans take the lines last first: one descending stream over
   * the block instead of a jump forward at every line start. */
  for (int64_t k = 0; k < lines; k++) {
    int64_t l = reverse ? lines - 1 - k : k;
    if (reverse)
      sc_line_rev(x + l * n, y + l * n, n, init, stream);
    else
      sc_line_fwd(x + l * n, y + l * n, n, init, stream);
  }
  if (stream) v_sfence();
}
