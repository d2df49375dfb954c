/* Inline vector math shared by the x86 kernel templates: the elementwise
 * drivers (whole vectors + one masked tail, non-temporal stores for large
 * outputs) and the per-vector ops. Included after a folder's vec.h. See
 * elementwise_impl.h for the accuracy contract; the f32 transcendentals
 * are in vmath_f32.h. */
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

/* 1 / sqrt in double, rounded once: bit-for-bit the reference. */
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
