/* 4x4 in-register transpose of 4-byte elements, NEON build. */
#include <stdbool.h>

#include "kernels/arm/neon/vec.h"
#include "kernels/simd.h"

#define HLX_TR_TILE 4

static inline __attribute__((always_inline)) void tile_transpose(
    const uint32_t* x, int64_t xs, uint32_t* y, int64_t ys, bool nt) {
  (void)nt; /* plain stores: see vec.h */
  uint32x4_t r0 = vld1q_u32(x), r1 = vld1q_u32(x + xs);
  uint32x4_t r2 = vld1q_u32(x + 2 * xs), r3 = vld1q_u32(x + 3 * xs);
  /* Pairs of rows interleaved, then pairs of pairs as 64-bit halves. */
  uint64x2_t t0 = vreinterpretq_u64_u32(vtrn1q_u32(r0, r1));
  uint64x2_t t1 = vreinterpretq_u64_u32(vtrn2q_u32(r0, r1));
  uint64x2_t t2 = vreinterpretq_u64_u32(vtrn1q_u32(r2, r3));
  uint64x2_t t3 = vreinterpretq_u64_u32(vtrn2q_u32(r2, r3));
  vst1q_u32(y, vreinterpretq_u32_u64(vtrn1q_u64(t0, t2)));
  vst1q_u32(y + ys, vreinterpretq_u32_u64(vtrn1q_u64(t1, t3)));
  vst1q_u32(y + 2 * ys, vreinterpretq_u32_u64(vtrn2q_u64(t0, t2)));
  vst1q_u32(y + 3 * ys, vreinterpretq_u32_u64(vtrn2q_u64(t1, t3)));
}

#include "kernels/x86/transpose_impl.h"
