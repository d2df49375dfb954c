/* f32 reductions shared by the x86 ISA folders; included by
 * kernels/x86/<isa>/reduce.c after that folder's vec.h and
 * elementwise_impl.h (for f32_max/f32_min).
 *
 * Shape: [outer, reduced, inner] (hlx_reduce3_fn in kernels/simd.h).
 *
 * Sum order and error. The reference adds every element to a double
 * accumulator in row-major order. These kernels also accumulate in double
 * (each f32 is widened exactly), but in a different order:
 *  - inner == 1 (reducing the innermost dim): 4 vector
 *    accumulators of VD_N doubles each take interleaved elements; at the
 *    end the accumulators are added pairwise and horizontally, then init is
 *    added.
 *  - inner > 1: per output column a double accumulator; rows are added in
 *    groups of four ((r0 + r1) + (r2 + r3)) and then to the accumulator.
 * Either way the double result differs from the exact sum by at most
 * about (n / lanes + log2(lanes) + 2) * 2^-53 * sum|x_i| — for n below 2^24
 * that is under 2^-29 of sum|x_i|, far below half an f32 ULP of any result
 * not dominated by cancellation. The final rounding to f32 therefore gives
 * the reference's result except when the two double sums straddle an f32
 * rounding midpoint (then they differ by one ULP); under heavy cancellation
 * both are within that bound of the exact sum. A plain f32 accumulator (or
 * pairwise f32) would instead err by up to ~log2(n) * 2^-24 relative.
 * Widening costs nothing here: the loops are limited by memory bandwidth.
 *
 * max/min work in f32 (exact): NaN propagates and comes out as the
 * canonical quiet NaN like the reference; -0 < +0. */
#include <math.h>
#include <string.h>

/* Columns per block of the inner > 1 path: the accumulators (doubles)
 * stay in L1 while rows stream through. */
#define HLX_RED_BLOCK 1024

static float red_scalar_max(float a, float b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static float red_scalar_min(float a, float b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

/* ---- add ---- */

static void sum_inner1(const float* x, size_t outer, size_t red, float init,
                       float* y) {
  for (size_t o = 0; o < outer; o++) {
    const float* p = x + o * red;
    /* -0 is the identity of +: an all -0 row sums to -0 like the
     * reference's. */
    const vd nz = vd_set1(-0.0);
    vd a0 = nz, a1 = nz, a2 = nz, a3 = nz;
    size_t i = 0;
    for (; i + 2 * VF_N <= red; i += 2 * VF_N) {
      vf v0 = vf_loadu(p + i), v1 = vf_loadu(p + i + VF_N);
      a0 = vd_add(a0, vf_lo_pd(v0));
      a1 = vd_add(a1, vf_hi_pd(v0));
      a2 = vd_add(a2, vf_lo_pd(v1));
      a3 = vd_add(a3, vf_hi_pd(v1));
    }
    for (; i + VF_N <= red; i += VF_N) {
      vf v = vf_loadu(p + i);
      a0 = vd_add(a0, vf_lo_pd(v));
      a1 = vd_add(a1, vf_hi_pd(v));
    }
    if (i < red) {
      vf v = vf_load_tail_or(p + i, red - i, vf_set1(-0.0f));
      a0 = vd_add(a0, vf_lo_pd(v));
      a1 = vd_add(a1, vf_hi_pd(v));
    }
    double s = vd_hsum(vd_add(vd_add(a0, a1), vd_add(a2, a3)));
    y[o] = (float)((double)init + s);
  }
}

static void sum_outer(const float* x, size_t outer, size_t red, size_t inner,
                      float init, float* y) {
  /* VF_N of padding: the accumulator loop always runs whole vectors. */
  double acc[HLX_RED_BLOCK + VF_N] __attribute__((aligned(64)));
  const vd vinit = vd_set1((double)init);
  for (size_t o = 0; o < outer; o++) {
    const float* plane = x + o * red * inner;
    for (size_t c0 = 0; c0 < inner; c0 += HLX_RED_BLOCK) {
      size_t cb = inner - c0 < HLX_RED_BLOCK ? inner - c0 : HLX_RED_BLOCK;
      for (size_t j = 0; j < cb + VF_N; j++) acc[j] = -0.0; /* identity */
      size_t r = 0;
      for (; r + 4 <= red; r += 4) {
        const float* p0 = plane + r * inner + c0;
        const float* p1 = p0 + inner;
        const float* p2 = p1 + inner;
        const float* p3 = p2 + inner;
        for (size_t j = 0; j < cb; j += VF_N) {
          vf v0, v1, v2, v3;
          if (j + VF_N <= cb) {
            v0 = vf_loadu(p0 + j), v1 = vf_loadu(p1 + j);
            v2 = vf_loadu(p2 + j), v3 = vf_loadu(p3 + j);
          } else {
            size_t k = cb - j;
            const vf nz = vf_set1(-0.0f);
            v0 = vf_load_tail_or(p0 + j, k, nz), v1 = vf_load_tail_or(p1 + j, k, nz);
            v2 = vf_load_tail_or(p2 + j, k, nz), v3 = vf_load_tail_or(p3 + j, k, nz);
          }
          vd lo = vd_add(vd_add(vf_lo_pd(v0), vf_lo_pd(v1)),
                         vd_add(vf_lo_pd(v2), vf_lo_pd(v3)));
          vd hi = vd_add(vd_add(vf_hi_pd(v0), vf_hi_pd(v1)),
                         vd_add(vf_hi_pd(v2), vf_hi_pd(v3)));
          vd_storeu(acc + j, vd_add(vd_loadu(acc + j), lo));
          vd_storeu(acc + j + VD_N, vd_add(vd_loadu(acc + j + VD_N), hi));
        }
      }
      for (; r < red; r++) {
        const float* p0 = plane + r * inner + c0;
        for (size_t j = 0; j < cb; j += VF_N) {
          vf v0 = j + VF_N <= cb ? vf_loadu(p0 + j)
                                 : vf_load_tail_or(p0 + j, cb - j, vf_set1(-0.0f));
          vd_storeu(acc + j, vd_add(vd_loadu(acc + j), vf_lo_pd(v0)));
          vd_storeu(acc + j + VD_N,
                    vd_add(vd_loadu(acc + j + VD_N), vf_hi_pd(v0)));
        }
      }
      float* out = y + o * inner + c0;
      for (size_t j = 0; j < cb; j += VF_N) {
        vf v = vf_from_pd(vd_add(vinit, vd_loadu(acc + j)),
                          vd_add(vinit, vd_loadu(acc + j + VD_N)));
        if (j + VF_N <= cb)
          vf_storeu(out + j, v);
        else
          vf_store_tail(out + j, cb - j, v);
      }
    }
  }
}

void HLX_SFX(hlx_f32_reduce_add)(const void* in, size_t outer, size_t red,
                                 size_t inner, const void* init, void* out) {
  float i0;
  memcpy(&i0, init, sizeof i0);
  if (inner == 1)
    sum_inner1(in, outer, red, i0, out);
  else
    sum_outer(in, outer, red, inner, i0, out);
}

/* ---- max / min ---- */

/* One row reduced with the exact op (NaN-propagating, -0 < +0). */
HLX_EW_DRIVER float mm_row_exact(const float* p, size_t red, vf (*op)(vf, vf),
                                 vf vid) {
  vf a = vid;
  size_t i = 0;
  for (; i + VF_N <= red; i += VF_N) a = op(a, vf_loadu(p + i));
  if (i < red) a = op(a, vf_load_tail_or(p + i, red - i, vid));
#pragma GCC unroll 4
  for (int w = VF_N / 2; w >= 1; w /= 2) a = op(a, vf_swap_groups(a, w));
  return vf_first(a);
}

/* Rows are reduced with the raw max/min (one instruction) while a mask
 * collects NaN lanes: the raw op is exact except that it may drop a NaN
 * (then the mask makes the row NaN) and pick either zero of a -0/+0 tie
 * (then the row's result is a zero and the row is redone with the exact
 * op). Lanes are folded in registers (a scalar pass over stored lanes cost
 * more than a 79-wide row's loads). sop with init canonicalises a NaN. */
HLX_EW_DRIVER void mm_inner1(const float* x, size_t outer, size_t red,
                             float init, float* y, vf (*op)(vf, vf),
                             vf (*raw)(vf, vf), float (*sop)(float, float),
                             float ident) {
  const vf vid = vf_set1(ident);
  for (size_t o = 0; o < outer; o++) {
    const float* p = x + o * red;
    vf a0 = vid, a1 = vid, a2 = vid, a3 = vid;
    vfb nan = vf_cmp(vid, vid, _CMP_UNORD_Q); /* none */
    size_t i = 0;
    for (; i + 4 * VF_N <= red; i += 4 * VF_N) {
      vf v0 = vf_loadu(p + i), v1 = vf_loadu(p + i + VF_N);
      vf v2 = vf_loadu(p + i + 2 * VF_N), v3 = vf_loadu(p + i + 3 * VF_N);
      nan = vfb_or(nan, vfb_or(vf_cmp(v0, v1, _CMP_UNORD_Q),
                               vf_cmp(v2, v3, _CMP_UNORD_Q)));
      a0 = raw(a0, v0), a1 = raw(a1, v1), a2 = raw(a2, v2), a3 = raw(a3, v3);
    }
    for (; i + VF_N <= red; i += VF_N) {
      vf v = vf_loadu(p + i);
      nan = vfb_or(nan, vf_cmp(v, v, _CMP_UNORD_Q));
      a0 = raw(a0, v);
    }
    if (i < red) {
      vf v = vf_load_tail_or(p + i, red - i, vid);
      nan = vfb_or(nan, vf_cmp(v, v, _CMP_UNORD_Q));
      a1 = raw(a1, v);
    }
    vf v = op(op(a0, a1), op(a2, a3));
#pragma GCC unroll 4
    for (int w = VF_N / 2; w >= 1; w /= 2) v = op(v, vf_swap_groups(v, w));
    float r = vf_first(v);
    if (vfb_any(nan))
      r = NAN;
    else if (r == 0.0f)
      r = mm_row_exact(p, red, op, vid);
    y[o] = sop(init, r);
  }
}

HLX_EW_DRIVER void mm_outer(const float* x, size_t outer, size_t red,
                            size_t inner, float init, float* y,
                            vf (*op)(vf, vf), float ident) {
  float acc[HLX_RED_BLOCK + VF_N] __attribute__((aligned(64)));
  const vf vid = vf_set1(ident), vinit = vf_set1(init);
  for (size_t o = 0; o < outer; o++) {
    const float* plane = x + o * red * inner;
    for (size_t c0 = 0; c0 < inner; c0 += HLX_RED_BLOCK) {
      size_t cb = inner - c0 < HLX_RED_BLOCK ? inner - c0 : HLX_RED_BLOCK;
      for (size_t j = 0; j < cb; j += VF_N) vf_storeu(acc + j, vinit);
      size_t r = 0;
      for (; r + 4 <= red; r += 4) {
        const float* p0 = plane + r * inner + c0;
        const float* p1 = p0 + inner;
        const float* p2 = p1 + inner;
        const float* p3 = p2 + inner;
        for (size_t j = 0; j < cb; j += VF_N) {
          vf v0, v1, v2, v3;
          if (j + VF_N <= cb) {
            v0 = vf_loadu(p0 + j), v1 = vf_loadu(p1 + j);
            v2 = vf_loadu(p2 + j), v3 = vf_loadu(p3 + j);
          } else {
            size_t k = cb - j;
            v0 = vf_load_tail_or(p0 + j, k, vid);
            v1 = vf_load_tail_or(p1 + j, k, vid);
            v2 = vf_load_tail_or(p2 + j, k, vid);
            v3 = vf_load_tail_or(p3 + j, k, vid);
          }
          vf_storeu(acc + j, op(vf_loadu(acc + j), op(op(v0, v1), op(v2, v3))));
        }
      }
      for (; r < red; r++) {
        const float* p0 = plane + r * inner + c0;
        for (size_t j = 0; j < cb; j += VF_N) {
          vf v0 = j + VF_N <= cb ? vf_loadu(p0 + j)
                                 : vf_load_tail_or(p0 + j, cb - j, vid);
          vf_storeu(acc + j, op(vf_loadu(acc + j), v0));
        }
      }
      float* out = y + o * inner + c0;
      const vf qnan = vf_set1(NAN);
      for (size_t j = 0; j < cb; j += VF_N) {
        vf v = vf_loadu(acc + j);
        v = vf_select(vf_cmp(v, v, _CMP_UNORD_Q), qnan, v);
        if (j + VF_N <= cb)
          vf_storeu(out + j, v);
        else
          vf_store_tail(out + j, cb - j, v);
      }
    }
  }
}

void HLX_SFX(hlx_f32_reduce_max)(const void* in, size_t outer, size_t red,
                                 size_t inner, const void* init, void* out) {
  float i0;
  memcpy(&i0, init, sizeof i0);
  if (inner == 1)
    mm_inner1(in, outer, red, i0, out, f32_max, vf_max_raw, red_scalar_max,
              -INFINITY);
  else
    mm_outer(in, outer, red, inner, i0, out, f32_max, -INFINITY);
}

void HLX_SFX(hlx_f32_reduce_min)(const void* in, size_t outer, size_t red,
                                 size_t inner, const void* init, void* out) {
  float i0;
  memcpy(&i0, init, sizeof i0);
  if (inner == 1)
    mm_inner1(in, outer, red, i0, out, f32_min, vf_min_raw, red_scalar_min,
              INFINITY);
  else
    mm_outer(in, outer, red, inner, i0, out, f32_min, INFINITY);
}
