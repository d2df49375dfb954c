/* 16x16 in-register transpose of 4-byte elements, AVX-512 build. */
#include "kernels/x86/avx512/vec.h"
#include <stdbool.h>

#include "kernels/simd.h"

#define HLX_TR_TILE 16

/* nt: stream the 16 output rows (each a whole 64-byte line, 64-byte
 * aligned by the caller) past the caches. */
static inline __attribute__((always_inline)) void tile_store(uint32_t* p,
                                                             __m512i v,
                                                             bool nt) {
  if (nt)
    _mm512_stream_si512((void*)p, v);
  else
    _mm512_storeu_si512(p, v);
}

static inline __attribute__((always_inline)) void tile_transpose(
    const uint32_t* x, int64_t xs, uint32_t* y, int64_t ys, bool nt) {
  __m512i r[16], t[16];
  for (int k = 0; k < 16; k++) r[k] = _mm512_loadu_si512(x + k * xs);
  /* Within each 128-bit lane L: interleave pairs of rows, then pairs of
   * pairs; after this R[4k+m] lane L holds column 4L+m of rows 4k..4k+3. */
  for (int k = 0; k < 8; k++) {
    t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 4; k++) {
    r[4 * k + 0] = _mm512_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
    r[4 * k + 1] = _mm512_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
    r[4 * k + 2] = _mm512_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
    r[4 * k + 3] = _mm512_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
  }
  /* 4x4 transpose of 128-bit lanes across R[m], R[4+m], R[8+m], R[12+m]:
   * output row 4L+m = lane L of each. */
  for (int m = 0; m < 4; m++) {
    __m512i u0 = _mm512_shuffle_i32x4(r[m], r[4 + m], 0x44);
    __m512i u1 = _mm512_shuffle_i32x4(r[m], r[4 + m], 0xEE);
    __m512i u2 = _mm512_shuffle_i32x4(r[8 + m], r[12 + m], 0x44);
    __m512i u3 = _mm512_shuffle_i32x4(r[8 + m], r[12 + m], 0xEE);
    tile_store(y + (0 + m) * ys, _mm512_shuffle_i32x4(u0, u2, 0x88), nt);
    tile_store(y + (4 + m) * ys, _mm512_shuffle_i32x4(u0, u2, 0xDD), nt);
    tile_store(y + (8 + m) * ys, _mm512_shuffle_i32x4(u1, u3, 0x88), nt);
    tile_store(y + (12 + m) * ys, _mm512_shuffle_i32x4(u1, u3, 0xDD), nt);
  }
}

#include "kernels/x86/transpose_impl.h"
