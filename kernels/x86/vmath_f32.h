/* f32 transcendentals evaluated in f32 with FMA for the x86 kernel
 * templates (exp, expm1, log, log1p, tanh, logistic, sin, cos, erf).
 * Included after a folder's vec.h. Contract: error <= 1 ULP against the
 * exact value for every f32 input, subnormal results included; NaN, +-Inf,
 * +-0 and denormal inputs give the reference's value (NaN payloads may
 * differ). Max error over all 2^32 inputs (benchmarks/kernels/
 * vmath_sweep.cc, AVX2 and AVX-512): exp 0.581 (table version; 0.776
 * for subnormal results; NEON's polynomial one 0.988), expm1 0.829, log
 * 0.885, log1p 0.885, tanh 0.880 (AVX2; AVX-512's table tanh 0.728, see
 * vmath_tanh.h), logistic 0.822, sin 0.741, cos 0.755, erf 0.925, erfc
 * (AVX-512 only, vmath_erfc.h) 0.757 (0.818 for subnormal results) ULP. The
 * unit test samples every 257th bit pattern and the boundaries
 * (tests/kernels/simd_elementwise_test.cc).
 *
 * Shape of each: a Cody-Waite reduction and a minimax polynomial, with the
 * few steps whose rounding would push the bound past 1 ULP carried as an
 * unevaluated hi + lo pair (Fast2Sum / FMA residuals), so the last
 * addition is the only full rounding. Rare inputs (zeros, denormals,
 * overflow and saturation) are fixed in branches taken only when a vector
 * holds one; such a branch changes only those lanes, so a lane's result
 * never depends on its neighbours (in-place and misaligned calls agree). */
#ifndef HLX_KERNELS_X86_VMATH_F32_H_
#define HLX_KERNELS_X86_VMATH_F32_H_

#include "kernels/x86/vmath.h"

typedef int32_t hlx_vmath_i32 __attribute__((vector_size(V_BYTES)));
/* Left shifts go through unsigned lanes (negative / top-bit values). */
typedef uint32_t hlx_vmath_u32 __attribute__((vector_size(V_BYTES)));

#define HLX_LN2_HI 0.693145751953125f /* 15 bits: q * HI exact, |q| < 512 */
#define HLX_LN2_LO 1.428606765330187045e-06f

HLX_VINLINE vf vf_from_i32(hlx_vmath_i32 i) {
  return __builtin_convertvector(i, vf);
}
HLX_VINLINE hlx_vmath_i32 vi_min(hlx_vmath_i32 a, hlx_vmath_i32 b) {
  hlx_vmath_i32 m = a < b;
  return (a & m) | (b & ~m);
}
HLX_VINLINE hlx_vmath_i32 vi_max(hlx_vmath_i32 a, hlx_vmath_i32 b) {
  hlx_vmath_i32 m = a > b;
  return (a & m) | (b & ~m);
}
/* 2^i for integer lanes i in [-126, 127]. */
HLX_VINLINE vf vf_pow2i(hlx_vmath_i32 i) {
  return (vf)((hlx_vmath_u32)(i + 127) << 23);
}

/* ------------------------------------------------------- exp family -- */

/* x = q ln2 + s with |s| <= ln2/2 (|x| < 150, so q * HLX_LN2_HI is
 * exact); returns t = e^s - 1 = s + s^2 P(s) and q as float and as int
 * lanes. P: Sleef's expf_u10 polynomial (degree 7 in all), or with short
 * a degree-6 one fitted here (relative error 2^-28 of e^s: enough where
 * the caller weighs t's error by <= ~0.4 or carries it in *tlo). With tlo
 * non-NULL, t is returned as an unevaluated pair t + *tlo that also holds
 * the rounding errors of s and of the last addition (for the callers whose
 * final step would magnify them). */
HLX_VINLINE vf f32_expm1_reduced(vf x, vf* q, hlx_vmath_i32* qi, vf* tlo,
                                 int short_poly) {
  const vf shifter = vf_set1(0x1.8p23f);
  vf k = vf_fma(x, vf_set1(1.442695040888963407f), shifter);
  *q = vf_sub(k, shifter);
  *qi = (hlx_vmath_i32)k - (hlx_vmath_i32)shifter;
  vf s1 = vf_fma(*q, vf_set1(-HLX_LN2_HI), x);
  vf s = vf_fma(*q, vf_set1(-HLX_LN2_LO), s1);
  vf u;
  if (short_poly) {
    u = vf_set1(0.0013863786589354277f);
    u = vf_fma(u, s, vf_set1(0.008367476053535938f));
    u = vf_fma(u, s, vf_set1(0.041667237877845764f));
    u = vf_fma(u, s, vf_set1(0.16666534543037415f));
  } else {
    u = vf_set1(0.000198527617612853646278381f);
    u = vf_fma(u, s, vf_set1(0.00139304355252534151077271f));
    u = vf_fma(u, s, vf_set1(0.00833336077630519866943359f));
    u = vf_fma(u, s, vf_set1(0.0416664853692054748535156f));
    u = vf_fma(u, s, vf_set1(0.166666671633720397949219f));
  }
  u = vf_fma(u, s, vf_set1(0.5f));
  if (!tlo) return vf_fma(vf_mul(s, s), u, s);
  vf slo = vf_fma(*q, vf_set1(-HLX_LN2_LO), vf_sub(s1, s));
  vf w = vf_mul(vf_mul(s, s), u);
  vf t = vf_add(s, w);
  *tlo = vf_add(vf_add(vf_sub(s, t), w), slo);
  return t;
}

/* e^x (max 0.988 ULP): 2^q applied in two exact power-of-two steps so it
 * never leaves the normal range (q in [-150, 128]) and the result, even a
 * subnormal one, is rounded once. x is clamped to [-104, 89], which keeps
 * every input whose result is neither 0 nor Inf. */
HLX_VINLINE vf f32_exp_poly(vf x) {
  vf c = vf_min_raw(vf_max_raw(x, vf_set1(-104.0f)), vf_set1(89.0f));
  vf q;
  hlx_vmath_i32 qi;
  vf u = vf_add(vf_set1(1.0f), f32_expm1_reduced(c, &q, &qi, NULL, 0));
  hlx_vmath_i32 q1 = qi >> 1, q2 = qi - q1;
  return keep_nan(x, vf_mul(vf_mul(u, vf_pow2i(q1)), vf_pow2i(q2)));
}

/* e^x with a 2^(j/N) table (AVX-512: N = 16 in one vpermps register;
 * AVX2: N = 8): x = (N q + j) ln2 / N + s, |s| <= ln2 / 2N, e^x = 2^q
 * T[j] (1 + p(s)) with T = hi (1 + lo) as an f32 pair (lo = the rounding
 * of 2^(j/N), ~2^-25, joins p) and p a minimax e^s - 1 (degree 3 for
 * N = 16, 2^-29.2; degree 4 for N = 8, 2^-32.4). s1 = x - k L1 is exact
 * (one FMA, L1 = ln2/N rounded: the difference fits 24 bits for |k| <
 * 2^12), s = s1 - k L2 rounded once, so T hi (1 + p + lo) carries one full
 * rounding: max 0.557 (AVX-512) / 0.581 (AVX2) ULP over all 2^32 inputs,
 * 0.776 for subnormal results (vmath_sweep). The scale is one exact power of
 * two; vectors with a lane past +-87 take exp_poly's two-step scaling
 * (same bits for the other lanes). Tables: 2^(j/N) and its f32 rounding's
 * relative error, from mpmath. Constants before x in min/max_raw: NaN
 * flows through. */
#if V_BYTES == 64 && defined(__AVX512F__)
#define HLX_EXP_TABLE_N 16
#define HLX_EXP_TABLE_SHIFT 4
#define HLX_EXP_L1 0.0433216989f /* ln2/16 rounded, and the rest */
#define HLX_EXP_L2 -1.19040894e-10f
static const float hlx_exp_hi[16] __attribute__((aligned(64))) = {
    1.0f, 1.04427373f, 1.09050775f, 1.13878858f, 1.18920708f, 1.24185777f,
    1.29683959f, 1.35425556f, 1.41421354f, 1.47682619f, 1.54221082f,
    1.61049032f, 1.68179286f, 1.75625217f, 1.8340081f, 1.91520655f};
static const float hlx_exp_lo[16] __attribute__((aligned(64))) = {
    0.0f, 4.62854715e-08f, -1.19921575e-08f, 4.72978243e-08f,
    3.19341815e-08f, 3.62105723e-08f, -3.09907193e-08f, -7.47521334e-09f,
    1.71142709e-08f, -3.04768335e-08f, 5.23333421e-09f, 6.10759177e-09f,
    -1.47196051e-08f, -5.25879518e-09f, -6.12825968e-09f, 5.14060927e-09f};
/* t[i mod 16] */
HLX_VINLINE vf f32_exp_lut(const float* t, hlx_vmath_i32 i) {
  return _mm512_permutexvar_ps((__m512i)i, _mm512_load_ps(t));
}
/* t[i mod 32] (two registers, vpermt2ps): tanh's and erfc's interval
 * tables. */
HLX_VINLINE vf f32_lut32(const float* t, __m512i i) {
  return _mm512_permutex2var_ps(_mm512_load_ps(t), i, _mm512_load_ps(t + 16));
}
/* t[0][i] + d (t[1][i] + d (...)) over n tables. */
HLX_VINLINE vf f32_lut32_horner(const float* const* t, int n, __m512i i,
                                vf d) {
  vf p = f32_lut32(t[n - 1], i);
#pragma GCC unroll 8 /* -O2 keeps the loop (and reloads t[k]) otherwise */
  for (int k = n - 2; k >= 0; k--) p = vf_fma(p, d, f32_lut32(t[k], i));
  return p;
}
HLX_VINLINE vf f32_exp_poly_s(vf s) { /* e^s - 1 */
  vf u = vf_fma(vf_set1(0.16666925f), s, vf_set1(0.500016212f));
  return vf_fma(vf_mul(s, s), u, s);
}
#elif V_BYTES == 32 && defined(__AVX2__)
#define HLX_EXP_TABLE_N 8
#define HLX_EXP_TABLE_SHIFT 3
#define HLX_EXP_L1 0.0866433978f /* ln2/8 rounded, and the rest */
#define HLX_EXP_L2 -2.38081787e-10f
static const float hlx_exp_hi[8] __attribute__((aligned(32))) = {
    1.0f, 1.09050775f, 1.18920708f, 1.29683959f, 1.41421354f, 1.54221082f,
    1.68179286f, 1.8340081f};
static const float hlx_exp_lo[8] __attribute__((aligned(32))) = {
    0.0f, -1.19921575e-08f, 3.19341815e-08f, -3.09907193e-08f,
    1.71142709e-08f, 5.23333421e-09f, -1.47196051e-08f, -6.12825968e-09f};
/* t[i mod 8] */
HLX_VINLINE vf f32_exp_lut(const float* t, hlx_vmath_i32 i) {
  return _mm256_permutevar8x32_ps(_mm256_load_ps(t), (__m256i)i);
}
HLX_VINLINE vf f32_exp_poly_s(vf s) {
  vf u = vf_fma(vf_set1(0.0416673236f), s, vf_set1(0.166680217f));
  u = vf_fma(u, s, vf_set1(0.5f));
  return vf_fma(vf_mul(s, s), u, s);
}
#endif

#ifdef HLX_EXP_TABLE_N
HLX_VINLINE vf f32_exp(vf x) {
  const float n = (float)HLX_EXP_TABLE_N;
  vf c = vf_min_raw(vf_set1(89.0f), vf_max_raw(vf_set1(-104.0f), x));
  const vf shifter = vf_set1(0x1.8p23f);
  vf k = vf_fma(c, vf_set1(n * 1.442695040888963407f), shifter);
  vf kf = vf_sub(k, shifter);
  /* shifter's low 22 bits are 0: k's low bits are j, the rest N q */
  hlx_vmath_i32 ki = (hlx_vmath_i32)k - (hlx_vmath_i32)shifter;
  hlx_vmath_i32 q = ki >> HLX_EXP_TABLE_SHIFT;
  vf s = vf_fma(kf, vf_set1(-HLX_EXP_L1), c);
  s = vf_fma(kf, vf_set1(-HLX_EXP_L2), s);
  vf th = f32_exp_lut(hlx_exp_hi, ki);
  vf r = vf_fma(th, vf_add(f32_exp_poly_s(s), f32_exp_lut(hlx_exp_lo, ki)), th);
  if (!vfb_any(vf_cmp(f32_abs(c), vf_set1(87.0f), _CMP_GT_OQ)))
    return vf_mul(r, vf_pow2i(q));
  hlx_vmath_i32 q1 = q >> 1, q2 = q - q1;
  return vf_mul(vf_mul(r, vf_pow2i(q1)), vf_pow2i(q2));
}
#else
HLX_VINLINE vf f32_exp(vf x) { return f32_exp_poly(x); }
#endif

/* e^x - 1 = 2^q (1 + t) - 1 = (2^q - 1) + 2^q t: for q <= 24 both terms
 * are exact and |2^q - 1| >= |2^q t| (q != 0), so Fast2Sum gives their
 * sum as hi + lo and 2^q tlo joins lo before the one rounding. x is
 * clamped to -20 (below -17.33 the result rounds to -1; for q < -24 the
 * rounded 2^q - 1 = -1 is within 0.71 ULP). Larger q (x > 16.5) would
 * round 2^q - 1: there (1 + t - 2^-q) is summed as hi + lo, then scaled
 * by 2^q in two exact steps (Inf past 88.72, as exp). */
HLX_VINLINE vf f32_expm1(vf x) {
  vf c = vf_min_raw(vf_max_raw(x, vf_set1(-20.0f)), vf_set1(89.0f));
  vf q, tlo;
  hlx_vmath_i32 qi;
  vf t = f32_expm1_reduced(c, &q, &qi, &tlo, 0);
  vf one = vf_set1(1.0f);
  vf f = vf_pow2i(vi_min(qi, (hlx_vmath_i32){0} + 25)); /* normal */
  vf a = vf_sub(f, one), b = vf_mul(f, t);
  vf hi = vf_add(a, b);
  vf lo = vf_fma(f, tlo, vf_add(vf_sub(a, hi), b));
  vf r = vf_add(hi, lo);
  vfb big = vf_cmp(c, vf_set1(16.5f), _CMP_GT_OQ);
  if (vfb_any(big)) {
    hlx_vmath_i32 q1 = qi >> 1, q2 = qi - q1;
    vf h = vf_add(one, t);
    vf l = vf_add(vf_sub(one, h), t);
    vf g = vf_pow2i(-vi_min(qi, (hlx_vmath_i32){0} + 126));
    vf in = vf_add(h, vf_add(tlo, vf_sub(l, g)));
    vf rb = vf_mul(vf_mul(in, vf_pow2i(q1)), vf_pow2i(q2));
    r = vf_select(big, rb, r);
  }
  /* -0 -> -0 (the sums give +0); every other result has x's sign. */
  r = vf_or(r, vf_and(x, vf_set1(-0.0f)));
  return keep_nan(x, r);
}

/* ------------------------------------------------------- log family -- */

/* log(1 + f) - f = f^2 Q(f) on f in [sqrt(1/2) - 1, sqrt(2) - 1]:
 * degree-9 minimax of the relative error (7.7e-9 with the f32
 * coefficients, rounded one at a time and the rest refitted). */
HLX_VINLINE vf f32_log1p_q(vf f) {
  static const float c[] = {0.068954445f,  -0.11626241f, 0.11791462f,
                            -0.124070354f, 0.14233284f,  -0.16668437f,
                            0.20001441f,   -0.24999991f, 0.33333322f};
  vf p = vf_set1(c[0]);
  for (int k = 1; k < 9; k++) p = vf_fma(p, f, vf_set1(c[k]));
  return vf_fma(p, f, vf_set1(-0.5f));
}

/* x = 2^e m, m in [sqrt(1/2), sqrt(2)), for positive normal x: integer
 * subtraction of sqrt(1/2)'s bits puts the exponent step at m = sqrt(1/2). */
HLX_VINLINE vf f32_frexp_sqrt2(vf x, hlx_vmath_i32* e) {
  hlx_vmath_u32 i = (hlx_vmath_u32)x; /* wraps for the x < 0 lanes */
  *e = (hlx_vmath_i32)(i - 0x3f3504f3u) >> 23;
  return (vf)(i - ((hlx_vmath_u32)*e << 23));
}

/* e ln2 + log(1 + f) + lo: e ln2 + f is summed exactly as hi + lo
 * (Fast2Sum: |e HLX_LN2_HI| >= ln2 > |f| unless e = 0), so the only full
 * rounding is the last addition. */
HLX_VINLINE vf f32_log_combine(vf e, vf f, vf lo_in) {
  vf a = vf_mul(e, vf_set1(HLX_LN2_HI));
  vf hi = vf_add(a, f);
  vf lo = vf_add(vf_add(vf_sub(a, hi), f), lo_in);
  vf w = vf_fma(vf_mul(f, f), f32_log1p_q(f), lo);
  w = vf_fma(e, vf_set1(HLX_LN2_LO), w);
  return vf_add(hi, w);
}

HLX_VINLINE vf f32_log(vf x) {
  /* Not a positive normal number: zero, denormal, negative, Inf, NaN. */
  vfb odd = vfb_or(vf_cmp(x, vf_set1(0x1p-126f), _CMP_NGE_UQ),
                   vf_cmp(x, vf_set1(0x1.fffffep127f), _CMP_NLE_UQ));
  int any_odd = vfb_any(odd);
  vf xs = x, eoff = vf_set1(0.0f);
  if (any_odd) { /* denormals: scale into the normal range */
    vfb den = vf_cmp(x, vf_set1(0x1p-126f), _CMP_LT_OQ);
    xs = vf_select(den, vf_mul(x, vf_set1(0x1p23f)), x);
    eoff = vf_select(den, vf_set1(-23.0f), eoff);
  }
  hlx_vmath_i32 ei;
  vf m = f32_frexp_sqrt2(xs, &ei);
  vf e = vf_add(vf_from_i32(ei), eoff);
  vf r = f32_log_combine(e, vf_sub(m, vf_set1(1.0f)), vf_set1(0.0f));
  if (any_odd) {
    r = vf_select(vf_cmp(x, vf_set1(0.0f), _CMP_EQ_OQ), vf_set1(-INFINITY), r);
    r = vf_select(vf_cmp(x, vf_set1(0.0f), _CMP_LT_OQ), vf_set1(NAN), r);
    r = vf_select(vf_cmp(x, vf_set1(INFINITY), _CMP_EQ_OQ), x, r);
    r = keep_nan(x, r);
  }
  return r;
}

/* log(1 + x): u = 1 + x rounded, log(u) + (1 + x - u) / u. When u is in
 * [sqrt(1/2), sqrt(2)) (e = 0), f = x exactly and no correction. */
HLX_VINLINE vf f32_log1p(vf x) {
  vfb odd = vfb_or(vf_cmp(x, vf_set1(-1.0f), _CMP_NGT_UQ),
                   vf_cmp(x, vf_set1(0x1.fffffep127f), _CMP_NLE_UQ));
  odd = vfb_or(odd, vf_cmp(x, vf_set1(0.0f), _CMP_EQ_OQ));
  vf one = vf_set1(1.0f);
  vf u = vf_add(one, x);
  hlx_vmath_i32 ei;
  vf m = f32_frexp_sqrt2(u, &ei);
  vf e = vf_from_i32(ei);
  vfb e0 = vf_cmp(e, vf_set1(0.0f), _CMP_EQ_OQ);
  /* 1 + x - u exactly: Fast2Sum with the larger operand first. */
  vf err = vf_select(vf_cmp(x, one, _CMP_GT_OQ), vf_add(vf_sub(x, u), one),
                     vf_add(vf_sub(one, u), x));
  vf corr = vf_select(e0, vf_set1(0.0f), vf_div(err, u));
  vf f = vf_select(e0, x, vf_sub(m, one));
  vf r = f32_log_combine(e, f, corr);
  if (vfb_any(odd)) {
    r = vf_select(vf_cmp(x, vf_set1(0.0f), _CMP_EQ_OQ), x, r);
    r = vf_select(vf_cmp(x, vf_set1(-1.0f), _CMP_EQ_OQ), vf_set1(-INFINITY), r);
    r = vf_select(vf_cmp(x, vf_set1(-1.0f), _CMP_LT_OQ), vf_set1(NAN), r);
    r = vf_select(vf_cmp(x, vf_set1(INFINITY), _CMP_EQ_OQ), x, r);
    r = keep_nan(x, r);
  }
  return r;
}

/* --------------------------------------------------- tanh, logistic -- */

/* 1 / (dh + dl) for dh >= 1, |dl| <= ulp(dh): the approximate reciprocal
 * r0 and the residual e = 1 - (dh + dl) r0 (FMAs, exact to ~2^-38), so
 * 1 / (dh + dl) = r0 + r0 e to ~2^-28. */
HLX_VINLINE vf f32_rcp_residual(vf dh, vf dl, vf* e) {
  vf r0 = vf_rcp_approx(dh);
  *e = vf_fnma(dl, r0, vf_fnma(dh, r0, vf_set1(1.0f)));
  return r0;
}

#include "kernels/x86/vmath_tanh.h"

/* logistic(x) = n / (1 + E), E = e^{-|x|} = 2^q (1 + t), n = 1 (x >= 0)
 * or E (x < 0). Vectors without a negative lane: 1 / (1 + E) with E
 * rounded once and 1 + E summed exactly as dh + dl; the result (>= 1/2)
 * carries E's error weighted by E / (1 + E)^2 <= 1/4, so r0 (1 + e)
 * rounded once is enough. Otherwise E's error would reach the result
 * unweighted: E is carried as eh + el (t's pair and eh's FMA residual)
 * and the quotient's residual joins before the one rounding. Below -87
 * (2^q no longer normal) the result is E to far below an ULP: those
 * lanes take exp's two-step scaling (subnormal results, 0 from -104 on).
 * Max 0.820 ULP; NaN flows through. */
HLX_VINLINE vf f32_logistic(vf x) {
  vf a = vf_min_raw(vf_set1(104.0f), f32_abs(x));
  vf q, tlo, one = vf_set1(1.0f), e;
  hlx_vmath_i32 qi;
  vfb neg = vf_cmp(x, vf_set1(0.0f), _CMP_LT_OQ);
  /* t as in the pair (tlo unused here: dead code) so that both branches
   * give a lane the same bits (results must not depend on its vector). */
  vf t = f32_expm1_reduced(f32_neg(a), &q, &qi, &tlo, 1);
  vf f = vf_pow2i(vi_max(qi, (hlx_vmath_i32){0} - 126));
  vf eh = vf_fma(f, t, f);
  vf dh = vf_add(one, eh);
  vf dl = vf_add(vf_sub(one, dh), eh);
  if (!vfb_any(neg)) {
    vf r0 = f32_rcp_residual(dh, dl, &e);
    return vf_fma(r0, e, r0);
  }
  vf el = vf_fma(f, tlo, vf_fma(f, t, vf_sub(f, eh))); /* f - eh exact */
  /* x >= 0 lanes keep dl: n / D below is then the branch above. */
  dl = vf_select(neg, vf_add(dl, el), dl);
  vf n = vf_select(neg, eh, one), nl = vf_select(neg, el, vf_set1(0.0f));
  vf r0 = vf_rcp_approx(dh);
  vf q0 = vf_mul(n, r0);
  vf res = vf_fnma(q0, dl, vf_add(vf_fnma(q0, dh, n), nl));
  vf r = vf_fma(res, r0, q0);
  vfb tiny = vf_cmp(x, vf_set1(-87.0f), _CMP_LT_OQ);
  if (vfb_any(tiny)) {
    hlx_vmath_i32 q1 = qi >> 1, q2 = qi - q1;
    vf ex = vf_mul(vf_mul(vf_add(one, t), vf_pow2i(q1)), vf_pow2i(q2));
    r = vf_select(tiny, ex, r);
  }
  return r;
}

/* ------------------------------------------------------ sin, cos -- */

/* x = j pi/2 + rh + rl for |x| <= 2^20 (vectors with a lane past 8192):
 * the reduction in double (x and
 * j exact, pi/2 as a 33-bit head, so j * head is exact, plus a 53-bit
 * tail: |error| < 2^-66, far below an ULP of the smallest |r| an f32 of
 * that size can leave), r split back into an f32 pair. Returns the
 * quadrant j mod 4 in the low bits of the int lanes. */
HLX_VINLINE hlx_vmath_i32 f32_reduce_pio2(vf x, vf* rh, vf* rl) {
  const vd shifter = vd_set1(0x1.8p52);
  vd xs[2] = {vf_lo_pd(x), vf_hi_pd(x)}, r[2], j[2];
  for (int h = 0; h < 2; h++) {
    vd k = vd_fma(xs[h], vd_set1(0x1.45f306dc9c883p-1), shifter);
    j[h] = vd_sub(k, shifter);
    r[h] = vd_fma(j[h], vd_set1(-0x1.921fb544p+0), xs[h]);
    r[h] = vd_fma(j[h], vd_set1(-0x1.0b4611a626331p-34), r[h]);
  }
  *rh = vf_from_pd(r[0], r[1]);
  *rl = vf_from_pd(vd_sub(r[0], vf_lo_pd(*rh)), vd_sub(r[1], vf_hi_pd(*rh)));
  vf jf = vf_add(vf_from_pd(j[0], j[1]), vf_set1(0x1.8p23f));
  return (hlx_vmath_i32)jf;
}

/* The same for |x| < 8192 in f32 (a third of the double version's ops):
 * r1 = x - j P1 is exact (one FMA: |r1| < 1 and x and j P1 have no bits
 * below 2^-24 once j != 0), j P2 is exact (P2 has 11 bits, j < 2^13),
 * r1 - j P2 is split by TwoSum (r1 may cancel it) and j P3 joins the low
 * part; P1 + P2 + P3 is pi/2 to 8e-20, far below an ULP of the smallest
 * |r| (4.2e-9, at x = 252.898) an f32 below 8192 leaves. */
HLX_VINLINE hlx_vmath_i32 f32_reduce_pio2_near(vf x, vf* rh, vf* rl) {
  const vf shifter = vf_set1(0x1.8p23f);
  vf k = vf_fma(x, vf_set1(0x1.45f306p-1f), shifter);
  vf j = vf_sub(k, shifter);
  vf r1 = vf_fnma(j, vf_set1(0x1.921fb6p+0f), x);
  vf c = vf_mul(j, vf_set1(-0x1.778p-25f));
  vf h = vf_sub(r1, c);
  vf z = vf_sub(h, r1);
  vf l = vf_sub(vf_sub(r1, vf_sub(h, z)), vf_add(c, z));
  *rh = h;
  *rl = vf_fnma(j, vf_set1(0x1.68c234p-39f), l);
  return (hlx_vmath_i32)k;
}

/* sin and cos of rh + rl (|r| <= pi/4 + tiny) on [0, pi^2/16]: degree-3
 * minimax polynomials in z = r^2 for (sin r - r)/r^3 and
 * (cos r - 1 + z/2)/z^2; the leading terms r and 1 - z/2 are kept as
 * pairs (z by an FMA residual, 1 - z/2 by Fast2Sum) and rl enters through
 * its first-order terms, so each result is rounded once at the end. */
HLX_VINLINE void f32_sincos_core(vf rh, vf rl, vf* sn, vf* cs) {
  vf zh = vf_mul(rh, rh);
  vf zl = vf_fma(vf_add(rh, rh), rl, vf_fma(rh, rh, vf_sub(vf_set1(0.0f), zh)));
  vf ps = vf_set1(3.382454e-06f);
  ps = vf_fma(ps, zh, vf_set1(-0.00019901199f));
  ps = vf_fma(ps, zh, vf_set1(0.008333474f));
  ps = vf_fma(ps, zh, vf_set1(-0.16666667f));
  vf pc = vf_set1(-4.3885882e-07f);
  pc = vf_fma(pc, zh, vf_set1(2.495449e-05f));
  pc = vf_fma(pc, zh, vf_set1(-0.0013889245f));
  pc = vf_fma(pc, zh, vf_set1(0.041666668f));
  /* sin: rh + (rl (1 - z/2) + rh z S) */
  vf half = vf_set1(0.5f);
  vf slo = vf_fma(vf_mul(rh, zh), ps, vf_fnma(vf_mul(half, zh), rl, rl));
  *sn = vf_add(rh, slo);
  /* cos: (1 - z/2) as hi + lo, then + z^2 C - rl rh (from -rl sin r) */
  vf hh = vf_mul(half, zh);
  vf one = vf_set1(1.0f);
  vf ch = vf_sub(one, hh);
  vf cl = vf_sub(vf_sub(one, ch), hh);
  cl = vf_fnma(half, zl, cl);
  cl = vf_fma(vf_mul(zh, zh), pc, cl);
  *cs = vf_add(ch, cl);
}

/* Lanes with |x| > 2^20, Inf or NaN: the reference's double sin / cos,
 * one lane at a time (never for the usual arguments). */
HLX_VINLINE vf f32_sincos_scalar(vf x, vf r, vfb big, int cosine) {
  float xs[VF_N], rs[VF_N];
  vf_storeu(xs, x);
  vf_storeu(rs, vf_select(big, vf_set1(1.0f), vf_set1(0.0f)));
  float out[VF_N];
  vf_storeu(out, r);
  for (int i = 0; i < VF_N; i++)
    if (rs[i] != 0.0f)
      out[i] = (float)(cosine ? cos((double)xs[i]) : sin((double)xs[i]));
  return vf_loadu(out);
}

/* sin / cos: quadrant j picks +-sin r or +-cos r (cos x = sin(x + pi/2):
 * quadrant j + 1). |x| < 2^-12: sin x rounds to x (x^2/6 is under half
 * an ULP), which keeps +-0 and denormals exact; cos needs no such case. */
HLX_VINLINE vf f32_sincos(vf x, int cosine) {
  vf rh, rl, sn, cs;
  vf ax = f32_abs(x);
  hlx_vmath_i32 j = f32_reduce_pio2_near(x, &rh, &rl);
  vfb far = vf_cmp(ax, vf_set1(8192.0f), _CMP_NLT_UQ);
  if (__builtin_expect(vfb_any(far), 0)) { /* only those lanes: same bits */
    vf dh, dl;
    vf jd = (vf)f32_reduce_pio2(x, &dh, &dl);
    j = (hlx_vmath_i32)vf_select(far, jd, (vf)j);
    rh = vf_select(far, dh, rh);
    rl = vf_select(far, dl, rl);
  }
  /* unsigned add: the quadrant bits of Inf/NaN/huge lanes are garbage */
  j = (hlx_vmath_i32)((hlx_vmath_u32)j + (uint32_t)cosine);
  f32_sincos_core(rh, rl, &sn, &cs);
  vfb odd = vf_cmp(vf_from_i32(j & 1), vf_set1(0.0f), _CMP_NEQ_UQ);
  vf r = vf_select(odd, cs, sn);
  r = vf_xor(r, (vf)((hlx_vmath_u32)(j & 2) << 30));
  if (!cosine) r = vf_select(vf_cmp(ax, vf_set1(0x1p-12f), _CMP_LT_OQ), x, r);
  vfb big = vf_cmp(ax, vf_set1(0x1p20f), _CMP_NLE_UQ);
  if (vfb_any(big)) r = f32_sincos_scalar(x, r, big, cosine);
  return r;
}
HLX_VINLINE vf f32_sin(vf x) { return f32_sincos(x, 0); }
HLX_VINLINE vf f32_cos(vf x) { return f32_sincos(x, 1); }

/* ---------------------------------------------------------- erf -- */

/* c[0] + x (c[1] + x (...)) over n coefficients. */
HLX_VINLINE vf f32_horner(vf x, const float* c, int n) {
  vf p = vf_set1(c[n - 1]);
  for (int k = n - 2; k >= 0; k--) p = vf_fma(p, x, vf_set1(c[k]));
  return p;
}

/* erf(x) = x + x Q(x^2) for |x| < 0.75: Q's coefficients (also erfc's). */
static const float hlx_erf_small[] = {
    0.12837916612625122f,   -0.3761262595653534f,    0.1128358542919159f,
    -0.026853812858462334f, 0.00518832728266716f,    -0.0008010188466869295f,
    7.853836723370478e-05f};

/* erf, a = |x|, three minimax fits (relative error, fitted here), all
 * evaluated and selected (no lane-dependent branch):
 *  - a < 0.75: x + x Q(x^2) (degree 7 in x^2, 2^-27.9), the last FMA the
 *    one full rounding (|Q| <= 0.13); denormals and +-0 round once too.
 *  - 0.75 <= a < 2: erf(11/8) as a hi + lo pair plus d P(d), d = a - 11/8
 *    (degree 10, 2^-27.8), the small sum rounded before the last add.
 *  - 2 <= a < 3.92: 1 - e^{-a^2} G(a) (G = erfc e^{a^2}, degree 7 in
 *    a - 3, 2^-22): erfc <= 0.0047 here, so its own ~2^-20 relative error
 *    (a^2 rounded, exp) stays far below an ULP of the result;
 *  - from 3.92 on erf rounds to 1 (+-1 for +-Inf); NaN takes the first
 *    fit's NaN.
 * Max 0.925 ULP over all 2^32 inputs (AVX2 and AVX-512). */
HLX_VINLINE vf f32_erf(vf x) {
  static const float cb[] = {0.1703597456216812f, -0.23424465954303741f,
                             0.157939150929451f, -0.030501365661621094f,
                             -0.030627181753516197f, 0.022167591378092766f,
                             -0.0012925673509016633f, -0.004284245427697897f,
                             0.0012437343830242753f, 0.00036228325916454196f};
  static const float cc[] = {0.179001122713089f, -0.05437218397855759f,
                             0.01588554121553898f, -0.0044804769568145275f,
                             0.0012168651446700096f, -0.00032060459489002824f,
                             9.387525642523542e-05f, -2.4961645976873115e-05f};
  vf a = f32_abs(x);
  vf r = vf_fma(x, f32_horner(vf_mul(x, x), hlx_erf_small, 7), x);
  vf d = vf_sub(a, vf_set1(1.375f));
  vf rb = vf_add(vf_set1(0.9481700658798218f),
                 vf_fma(d, f32_horner(d, cb, 10), vf_set1(6.902268534503264e-09f)));
  vf g = f32_horner(vf_sub(a, vf_set1(3.0f)), cc, 8);
  vf rc = vf_fnma(f32_exp(f32_neg(vf_mul(a, a))), g, vf_set1(1.0f));
  vf rf = vf_select(vf_cmp(a, vf_set1(2.0f), _CMP_GE_OQ), rc, rb);
  rf = vf_select(vf_cmp(a, vf_set1(3.92f), _CMP_GE_OQ), vf_set1(1.0f), rf);
  rf = vf_or(rf, vf_and(x, vf_set1(-0.0f)));
  return vf_select(vf_cmp(a, vf_set1(0.75f), _CMP_GE_OQ), rf, r);
}

#include "kernels/x86/vmath_erfc.h"

#endif /* HLX_KERNELS_X86_VMATH_F32_H_ */
