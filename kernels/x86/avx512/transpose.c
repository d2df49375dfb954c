/* Transpose tiles, AVX-512 build, in 64-byte registers (each output row a
 * whole line): 16x16 of 4-byte and 8x8 of 8-byte elements; 32x32 of 2-byte
 * and 64x64 of 1-byte elements by pairing rows into elements twice as
 * wide.
 *
 * The register loops carry `#pragma GCC unroll`: at -O2 GCC leaves them
 * rolled, which keeps r[] and t[] in stack memory (a load and a store
 * around every shuffle); unrolled they live in registers, 3x the tile rate
 * in L1 and 1.2-1.5x the 64 MiB transposes (benchmarks/RESULTS.md). */
#include "kernels/x86/avx512/vec.h"
#include <stdbool.h>

#include "kernels/simd.h"

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

/* 16x16 transpose of the 4-byte elements in r[] to 16 output rows. */
HLX_TR_INLINE void tr16_regs(__m512i r[16], uint32_t* y, int64_t ys,
                             bool nt) {
  __m512i t[16];
  /* Within each 128-bit lane L: interleave pairs of rows, then pairs of
   * pairs; after this R[4k+m] lane L holds column 4L+m of rows 4k..4k+3. */
  #pragma GCC unroll 16
  for (int k = 0; k < 8; k++) {
    t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
  }
  #pragma GCC unroll 16
  for (int k = 0; k < 4; k++) {
    r[4 * k + 0] = _mm512_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
    r[4 * k + 1] = _mm512_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
    r[4 * k + 2] = _mm512_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
    r[4 * k + 3] = _mm512_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
  }
  /* Output row 4L+m = lane L of R[m], R[4+m], R[8+m], R[12+m]. */
  #pragma GCC unroll 16
  for (int m = 0; m < 4; m++) {
    __m512i o[4];
    lanes4x4(r[m], r[4 + m], r[8 + m], r[12 + m], o);
    #pragma GCC unroll 4
    for (int L = 0; L < 4; L++) tile_store(y + (4 * L + m) * ys, o[L], nt);
  }
}

HLX_TR_INLINE void tile_x32_16(const uint32_t* x, int64_t xs, uint32_t* y,
                               int64_t ys, bool nt) {
  __m512i r[16];
  #pragma GCC unroll 16
  for (int k = 0; k < 16; k++) r[k] = _mm512_loadu_si512(x + k * xs);
  tr16_regs(r, y, ys, nt);
}

/* Rows a, b of `bits`-wide elements -> the pairs (a[2j], b[2j]) (*even)
 * and (a[2j+1], b[2j+1]) (*odd) as elements twice as wide. */
HLX_TR_INLINE void pair_rows(__m512i a, __m512i b, int bits, __m512i* even,
                             __m512i* odd) {
  if (bits == 16) {
    *even = _mm512_mask_blend_epi16(0xAAAAAAAAu, a, _mm512_slli_epi32(b, 16));
    *odd = _mm512_mask_blend_epi16(0xAAAAAAAAu, _mm512_srli_epi32(a, 16), b);
  } else {
    *even = _mm512_mask_blend_epi8(0xAAAAAAAAAAAAAAAAull, a,
                                   _mm512_slli_epi16(b, 8));
    *odd = _mm512_mask_blend_epi8(0xAAAAAAAAAAAAAAAAull,
                                  _mm512_srli_epi16(a, 8), b);
  }
}

/* 32x32 2-byte elements: rows 2i and 2i+1 paired into 4-byte elements,
 * E_i[j] = (x[2i][2j], x[2i+1][2j]) and O_i[j] = (x[2i][2j+1],
 * x[2i+1][2j+1]); the 16x16 transpose of E gives the even output rows and
 * that of O the odd ones, each a whole line. A third of the shuffles of
 * the 16-bit unpack network (transpose_tiles.h). */
HLX_TR_INLINE void tile_x16_32(const uint16_t* x, int64_t xs, uint16_t* y,
                               int64_t ys, bool nt) {
  __m512i e[16];
  _Alignas(64) uint32_t odd[16 * 16];
  #pragma GCC unroll 16
  for (int i = 0; i < 16; i++) {
    __m512i o;
    pair_rows(_mm512_loadu_si512(x + 2 * i * xs),
              _mm512_loadu_si512(x + (2 * i + 1) * xs), 16, &e[i], &o);
    _mm512_store_si512(odd + 16 * i, o);
  }
  /* Output row 2j (2-byte units) is 4-byte row j of stride ys. */
  tr16_regs(e, (uint32_t*)y, ys, nt);
  #pragma GCC unroll 16
  for (int i = 0; i < 16; i++) e[i] = _mm512_load_si512(odd + 16 * i);
  tr16_regs(e, (uint32_t*)(y + ys), ys, nt);
}

/* 64x64 bytes: rows paired into 2-byte elements the same way, giving two
 * 32x32 2-byte tiles whose transposes are the even and odd output rows. */
HLX_TR_INLINE void tile_x8_64(const uint8_t* x, int64_t xs, uint8_t* y,
                              int64_t ys, bool nt) {
  _Alignas(64) uint16_t even[32 * 32], odd[32 * 32];
  #pragma GCC unroll 16
  for (int i = 0; i < 32; i++) {
    __m512i e, o;
    pair_rows(_mm512_loadu_si512(x + 2 * i * xs),
              _mm512_loadu_si512(x + (2 * i + 1) * xs), 8, &e, &o);
    _mm512_store_si512(even + 32 * i, e);
    _mm512_store_si512(odd + 32 * i, o);
  }
  tile_x16_32(even, 32, (uint16_t*)y, ys, nt);
  tile_x16_32(odd, 32, (uint16_t*)(y + ys), ys, nt);
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

/* Row by row measured faster for these 1- and 2-byte tiles. */
#define HLX_TR_SMALL_ROWS_FIRST
#include "kernels/x86/transpose_instances.h"
