/* Inline vector math shared by the x86 kernel templates: the elementwise
 * drivers (whole vectors + one masked tail, non-temporal stores for large
 * outputs) and the per-vector ops. Included after a folder's vec.h. See
 * elementwise_impl.h for the accuracy contract. */
#ifndef HLX_KERNELS_X86_VMATH_H_
#define HLX_KERNELS_X86_VMATH_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/elementwise.h"

#ifndef HLX_NT_STORE_MIN_BYTES
#define HLX_NT_STORE_MIN_BYTES ((size_t)16 << 20)
#endif

#define HLX_EW_DRIVER static inline __attribute__((always_inline))

/* ------------------------------------------------------------ drivers -- */

/* y[i] = op(x[i]) over n floats; op must be an always-inline function. */
HLX_EW_DRIVER void drive_f32_unary(const float* x, float* y, size_t n,
                                   vf (*op)(vf)) {
  size_t i = 0;
  if (n * sizeof(float) >= HLX_NT_STORE_MIN_BYTES) {
    /* Align y for streaming stores with one masked head. */
    size_t head = ((V_BYTES - ((uintptr_t)y % V_BYTES)) % V_BYTES) / sizeof(float);
    if (head) vf_store_tail(y, head, op(vf_load_tail(x, head)));
    for (i = head; i + VF_N <= n; i += VF_N) vf_stream(y + i, op(vf_loadu(x + i)));
    v_sfence();
  } else {
    for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
      vf a = vf_loadu(x + i), b = vf_loadu(x + i + VF_N);
      vf_storeu(y + i, op(a));
      vf_storeu(y + i + VF_N, op(b));
    }
    for (; i + VF_N <= n; i += VF_N) vf_storeu(y + i, op(vf_loadu(x + i)));
  }
  if (i < n) vf_store_tail(y + i, n - i, op(vf_load_tail(x + i, n - i)));
}

HLX_EW_DRIVER void drive_f32_binary(const float* a, const float* b, float* y,
                                    size_t n, vf (*op)(vf, vf)) {
  size_t i = 0;
  if (n * sizeof(float) >= HLX_NT_STORE_MIN_BYTES) {
    size_t head = ((V_BYTES - ((uintptr_t)y % V_BYTES)) % V_BYTES) / sizeof(float);
    if (head)
      vf_store_tail(y, head, op(vf_load_tail(a, head), vf_load_tail(b, head)));
    for (i = head; i + VF_N <= n; i += VF_N)
      vf_stream(y + i, op(vf_loadu(a + i), vf_loadu(b + i)));
    v_sfence();
  } else {
    for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
      vf a0 = vf_loadu(a + i), a1 = vf_loadu(a + i + VF_N);
      vf b0 = vf_loadu(b + i), b1 = vf_loadu(b + i + VF_N);
      vf_storeu(y + i, op(a0, b0));
      vf_storeu(y + i + VF_N, op(a1, b1));
    }
    for (; i + VF_N <= n; i += VF_N)
      vf_storeu(y + i, op(vf_loadu(a + i), vf_loadu(b + i)));
  }
  if (i < n)
    vf_store_tail(y + i, n - i,
                  op(vf_load_tail(a + i, n - i), vf_load_tail(b + i, n - i)));
}

HLX_EW_DRIVER void drive_f64_unary(const double* x, double* y, size_t n,
                                   vd (*op)(vd)) {
  size_t i = 0;
  if (n * sizeof(double) >= HLX_NT_STORE_MIN_BYTES) {
    size_t head = ((V_BYTES - ((uintptr_t)y % V_BYTES)) % V_BYTES) / sizeof(double);
    if (head) vd_store_tail(y, head, op(vd_load_tail(x, head)));
    for (i = head; i + VD_N <= n; i += VD_N) vd_stream(y + i, op(vd_loadu(x + i)));
    v_sfence();
  } else {
    for (; i + VD_N <= n; i += VD_N) vd_storeu(y + i, op(vd_loadu(x + i)));
  }
  if (i < n) vd_store_tail(y + i, n - i, op(vd_load_tail(x + i, n - i)));
}

HLX_EW_DRIVER void drive_f64_binary(const double* a, const double* b,
                                    double* y, size_t n, vd (*op)(vd, vd)) {
  size_t i = 0;
  if (n * sizeof(double) >= HLX_NT_STORE_MIN_BYTES) {
    size_t head = ((V_BYTES - ((uintptr_t)y % V_BYTES)) % V_BYTES) / sizeof(double);
    if (head)
      vd_store_tail(y, head, op(vd_load_tail(a, head), vd_load_tail(b, head)));
    for (i = head; i + VD_N <= n; i += VD_N)
      vd_stream(y + i, op(vd_loadu(a + i), vd_loadu(b + i)));
    v_sfence();
  } else {
    for (; i + VD_N <= n; i += VD_N)
      vd_storeu(y + i, op(vd_loadu(a + i), vd_loadu(b + i)));
  }
  if (i < n)
    vd_store_tail(y + i, n - i,
                  op(vd_load_tail(a + i, n - i), vd_load_tail(b + i, n - i)));
}

/* ---------------------------------------------------------- f32 ops -- */

HLX_VINLINE vf f32_add(vf a, vf b) { return vf_add(a, b); }
HLX_VINLINE vf f32_sub(vf a, vf b) { return vf_sub(a, b); }
HLX_VINLINE vf f32_mul(vf a, vf b) { return vf_mul(a, b); }
HLX_VINLINE vf f32_div(vf a, vf b) { return vf_div(a, b); }
/* maximum: NaN if either is NaN (a + b keeps a NaN), +0 over -0. The raw
 * max returns its second operand for NaN and for equal values, so equal
 * lanes take a & b (+0 & -0 = +0) and unordered lanes a + b. */
HLX_VINLINE vf f32_max(vf a, vf b) {
  vf r = vf_select(vf_cmp(a, b, _CMP_EQ_OQ), vf_and(a, b), vf_max_raw(a, b));
  return vf_select(vf_cmp(a, b, _CMP_UNORD_Q), vf_add(a, b), r);
}
HLX_VINLINE vf f32_min(vf a, vf b) {
  vf r = vf_select(vf_cmp(a, b, _CMP_EQ_OQ), vf_or(a, b), vf_min_raw(a, b));
  return vf_select(vf_cmp(a, b, _CMP_UNORD_Q), vf_add(a, b), r);
}
HLX_VINLINE vf f32_neg(vf x) { return vf_xor(x, vf_set1(-0.0f)); }
HLX_VINLINE vf f32_abs(vf x) {
  return vf_andnot(vf_set1(-0.0f), x);
}
HLX_VINLINE vf f32_sqrt(vf x) { return vf_sqrt(x); }
HLX_VINLINE vf f32_square(vf x) { return vf_mul(x, x); }

/* Lanes that are NaN in x take x + x (quiet NaN), the rest r. */
HLX_VINLINE vf keep_nan(vf x, vf r) {
  return vf_select(vf_cmp(x, x, _CMP_UNORD_Q), vf_add(x, x), r);
}

/* -- double-precision cores (relative error < 2^-35 on their domain) -- */

/* e^x for x in [-708, 708]: x = n ln2 + r, |r| <= ln2/2, e^r by its
 * Taylor series to r^11 (truncation < 2^-44). */
HLX_VINLINE vd d_exp(vd x) {
  const vd shifter = vd_set1(0x1.8p52);
  vd t = vd_fma(x, vd_set1(0x1.71547652b82fep0), shifter);
  vd n = vd_sub(t, shifter);
  vd r = vd_fma(n, vd_set1(-6.93147180369123816490e-01), x);
  r = vd_fma(n, vd_set1(-1.90821492927058770002e-10), r);
  vd p = vd_set1(1.0 / 39916800);
  p = vd_fma(p, r, vd_set1(1.0 / 3628800));
  p = vd_fma(p, r, vd_set1(1.0 / 362880));
  p = vd_fma(p, r, vd_set1(1.0 / 40320));
  p = vd_fma(p, r, vd_set1(1.0 / 5040));
  p = vd_fma(p, r, vd_set1(1.0 / 720));
  p = vd_fma(p, r, vd_set1(1.0 / 120));
  p = vd_fma(p, r, vd_set1(1.0 / 24));
  p = vd_fma(p, r, vd_set1(1.0 / 6));
  p = vd_fma(p, r, vd_set1(0.5));
  p = vd_fma(p, r, vd_set1(1.0));
  p = vd_fma(p, r, vd_set1(1.0));
  return vd_mul(p, vd_exp2i(t));
}

/* log(x) for positive normal doubles: x = m 2^e, m in [sqrt(1/2), sqrt(2)),
 * f = m - 1 (exact), s = f / (2 + f), log(m) = 2 atanh(s) by its series to
 * s^13 (|s| <= 0.1716: truncation < 2^-39). */
HLX_VINLINE vd d_log(vd x) {
  vd e;
  vd m = vd_frexp_sqrt2(x, &e);
  vd f = vd_sub(m, vd_set1(1.0));
  vd s = vd_div(f, vd_add(f, vd_set1(2.0)));
  vd z = vd_mul(s, s);
  vd p = vd_set1(1.0 / 13);
  p = vd_fma(p, z, vd_set1(1.0 / 11));
  p = vd_fma(p, z, vd_set1(1.0 / 9));
  p = vd_fma(p, z, vd_set1(1.0 / 7));
  p = vd_fma(p, z, vd_set1(1.0 / 5));
  p = vd_fma(p, z, vd_set1(1.0 / 3));
  vd two_s = vd_add(s, s);
  vd logm = vd_fma(vd_mul(two_s, z), p, two_s);
  return vd_fma(e, vd_set1(0x1.62e42fefa39efp-1), logm);
}

/* tanh: |x| < 1/16 by the odd Taylor series to x^11; otherwise
 * sign(x) (1 - 2 / (e^{2|x|} + 1)) with |x| capped at 10 (tanh rounds to
 * +-1 in f32 from 9.02 on). */
HLX_VINLINE vd d_tanh(vd x) {
  vd ax = vd_andnot(vd_set1(-0.0), x);
  vd sign = vd_xor(x, ax);
  vd z = vd_mul(x, x);
  vd p = vd_set1(-1382.0 / 155925);
  p = vd_fma(p, z, vd_set1(62.0 / 2835));
  p = vd_fma(p, z, vd_set1(-17.0 / 315));
  p = vd_fma(p, z, vd_set1(2.0 / 15));
  p = vd_fma(p, z, vd_set1(-1.0 / 3));
  vd small = vd_fma(vd_mul(x, z), p, x);
  vd e = d_exp(vd_add(vd_min_raw(ax, vd_set1(10.0)), vd_min_raw(ax, vd_set1(10.0))));
  vd big = vd_sub(vd_set1(1.0), vd_div(vd_set1(2.0), vd_add(e, vd_set1(1.0))));
  big = vd_or(big, sign);
  return vd_select(vd_cmp(ax, vd_set1(0.0625), _CMP_LT_OQ), small, big);
}

/* logistic: e = e^{-|x|} (|x| capped at 120: the result underflows f32
 * from 103.3 on), (x >= 0 ? 1 : e) / (1 + e). */
HLX_VINLINE vd d_logistic(vd x) {
  vd ax = vd_andnot(vd_set1(-0.0), x);
  vd e = d_exp(vd_sub(vd_zero(), vd_min_raw(ax, vd_set1(120.0))));
  vd num = vd_select(vd_cmp(x, vd_zero(), _CMP_GE_OQ), vd_set1(1.0), e);
  return vd_div(num, vd_add(e, vd_set1(1.0)));
}

/* f32 kernels on the double cores: split, apply, round once. */
/* e^x in the f32 domain (Sleef's expf_u10 scheme; <= 1 ULP, measured by
 * the dense sweep in tests/kernels/simd_elementwise_test.cc): q = rint(x /
 * ln2), s = x - q ln2 with a two-part ln2 (q * hi is exact), e^s by a
 * degree-7 polynomial with FMA, then two exact power-of-two scalings so
 * 2^q never leaves the normal range (q in [-150, 128]) and the result is
 * rounded once, subnormal results included. x is clamped to [-104, 89],
 * which keeps every input whose result is neither 0 nor Inf: the ends
 * round to 0 / overflow to Inf in the last multiply. */
typedef int32_t hlx_vmath_i32 __attribute__((vector_size(V_BYTES)));
HLX_VINLINE vf f32_exp(vf x) {
  const vf shifter = vf_set1(0x1.8p23f);
  vf c = vf_min_raw(vf_max_raw(x, vf_set1(-104.0f)), vf_set1(89.0f));
  vf t = vf_fma(c, vf_set1(1.442695040888963407f), shifter);
  vf q = vf_sub(t, shifter);
  vf s = vf_fma(q, vf_set1(-0.693145751953125f), c);
  s = vf_fma(q, vf_set1(-1.428606765330187045e-06f), s);
  vf u = vf_set1(0.000198527617612853646278381f);
  u = vf_fma(u, s, vf_set1(0.00139304355252534151077271f));
  u = vf_fma(u, s, vf_set1(0.00833336077630519866943359f));
  u = vf_fma(u, s, vf_set1(0.0416664853692054748535156f));
  u = vf_fma(u, s, vf_set1(0.166666671633720397949219f));
  u = vf_fma(u, s, vf_set1(0.5f));
  u = vf_add(vf_set1(1.0f), vf_fma(vf_mul(s, s), u, s));
  hlx_vmath_i32 qi = (hlx_vmath_i32)t - (hlx_vmath_i32)shifter;
  hlx_vmath_i32 q1 = qi >> 1, q2 = qi - q1;
  vf f1 = (vf)((q1 + 127) << 23), f2 = (vf)((q2 + 127) << 23);
  return keep_nan(x, vf_mul(vf_mul(u, f1), f2));
}
HLX_VINLINE vf f32_log(vf x) {
  vf r = vf_from_pd(d_log(vf_lo_pd(x)), d_log(vf_hi_pd(x)));
  /* x <= 0, +Inf: the bit tricks above assume positive finite input. */
  r = vf_select(vf_cmp(x, vf_set1(0.0f), _CMP_EQ_OQ), vf_set1(-INFINITY), r);
  r = vf_select(vf_cmp(x, vf_set1(0.0f), _CMP_LT_OQ), vf_set1(NAN), r);
  r = vf_select(vf_cmp(x, vf_set1(INFINITY), _CMP_EQ_OQ), x, r);
  return keep_nan(x, r);
}
HLX_VINLINE vf f32_tanh(vf x) {
  return keep_nan(x, vf_from_pd(d_tanh(vf_lo_pd(x)), d_tanh(vf_hi_pd(x))));
}
HLX_VINLINE vf f32_logistic(vf x) {
  return keep_nan(
      x, vf_from_pd(d_logistic(vf_lo_pd(x)), d_logistic(vf_hi_pd(x))));
}
HLX_VINLINE vf f32_rsqrt(vf x) {
  vd one = vd_set1(1.0);
  return vf_from_pd(vd_div(one, vd_sqrt(vf_lo_pd(x))),
                    vd_div(one, vd_sqrt(vf_hi_pd(x))));
}

/* ---------------------------------------------------------- f64 ops -- */

HLX_VINLINE vd f64_add(vd a, vd b) { return vd_add(a, b); }
HLX_VINLINE vd f64_sub(vd a, vd b) { return vd_sub(a, b); }
HLX_VINLINE vd f64_mul(vd a, vd b) { return vd_mul(a, b); }
HLX_VINLINE vd f64_div(vd a, vd b) { return vd_div(a, b); }
HLX_VINLINE vd f64_max(vd a, vd b) {
  vd r = vd_select(vd_cmp(a, b, _CMP_EQ_OQ), vd_and(a, b), vd_max_raw(a, b));
  return vd_select(vd_cmp(a, b, _CMP_UNORD_Q), vd_add(a, b), r);
}
HLX_VINLINE vd f64_min(vd a, vd b) {
  vd r = vd_select(vd_cmp(a, b, _CMP_EQ_OQ), vd_or(a, b), vd_min_raw(a, b));
  return vd_select(vd_cmp(a, b, _CMP_UNORD_Q), vd_add(a, b), r);
}
HLX_VINLINE vd f64_neg(vd x) { return vd_xor(x, vd_set1(-0.0)); }
HLX_VINLINE vd f64_abs(vd x) {
  return vd_andnot(vd_set1(-0.0), x);
}
HLX_VINLINE vd f64_sqrt(vd x) { return vd_sqrt(x); }
HLX_VINLINE vd f64_square(vd x) { return vd_mul(x, x); }
HLX_VINLINE vd f64_rsqrt(vd x) { return vd_div(vd_set1(1.0), vd_sqrt(x)); }


#endif /* HLX_KERNELS_X86_VMATH_H_ */
