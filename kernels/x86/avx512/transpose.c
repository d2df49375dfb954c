/* Transpose tiles, AVX-512 build: 4- and 8-byte elements in 64-byte
 * registers (16x16 and 8x8, each output row a whole line), 1- and 2-byte
 * elements from kernels/x86/transpose_tiles.h. */
#include "kernels/x86/avx512/vec.h"
#include <stdbool.h>

#include "kernels/simd.h"
#include "kernels/x86/transpose_tiles.h"

#define HLX_TR_INLINE static inline __attribute__((always_inline))

/* nt: stream the output row (a whole 64-byte line, 64-byte aligned by the
 * caller) past the caches. */
HLX_TR_INLINE void tile_store(void* p, __m512i v, bool nt) {
  if (nt)
    _mm512_stream_si512(p, v);
  else
    _mm512_storeu_si512(p, v);
}

/* 4x4 transpose of 128-bit lanes across a, b, c, d: out[L] = lane L of
 * each. */
HLX_TR_INLINE void lanes4x4(__m512i a, __m512i b, __m512i c, __m512i d,
                            __m512i out[4]) {
  __m512i u0 = _mm512_shuffle_i32x4(a, b, 0x44);
  __m512i u1 = _mm512_shuffle_i32x4(a, b, 0xEE);
  __m512i u2 = _mm512_shuffle_i32x4(c, d, 0x44);
  __m512i u3 = _mm512_shuffle_i32x4(c, d, 0xEE);
  out[0] = _mm512_shuffle_i32x4(u0, u2, 0x88);
  out[1] = _mm512_shuffle_i32x4(u0, u2, 0xDD);
  out[2] = _mm512_shuffle_i32x4(u1, u3, 0x88);
  out[3] = _mm512_shuffle_i32x4(u1, u3, 0xDD);
}

/* 16x16 of 4-byte elements. */
HLX_TR_INLINE void tile_x32_16(const uint32_t* x, int64_t xs, uint32_t* y,
                               int64_t ys, bool nt) {
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
  /* Output row 4L+m = lane L of R[m], R[4+m], R[8+m], R[12+m]. */
  for (int m = 0; m < 4; m++) {
    __m512i o[4];
    lanes4x4(r[m], r[4 + m], r[8 + m], r[12 + m], o);
    for (int L = 0; L < 4; L++) tile_store(y + (4 * L + m) * ys, o[L], nt);
  }
}

/* 8x8 of 8-byte elements: T[2k+m] lane L holds column 2L+m of rows 2k and
 * 2k+1; output row 2L+m = lane L of T[m], T[2+m], T[4+m], T[6+m]. */
HLX_TR_INLINE void tile_x64_8(const uint64_t* x, int64_t xs, uint64_t* y,
                              int64_t ys, bool nt) {
  __m512i r[8], t[8];
  for (int k = 0; k < 8; k++) r[k] = _mm512_loadu_si512(x + k * xs);
  for (int k = 0; k < 4; k++) {
    t[2 * k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
  }
  for (int m = 0; m < 2; m++) {
    __m512i o[4];
    lanes4x4(t[m], t[2 + m], t[4 + m], t[6 + m], o);
    for (int L = 0; L < 4; L++) tile_store(y + (2 * L + m) * ys, o[L], nt);
  }
}

#include "kernels/x86/transpose_instances.h"
