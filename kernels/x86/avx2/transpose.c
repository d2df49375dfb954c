/* Transpose tiles, AVX2 build: 4- and 8-byte elements in 32-byte registers
 * (8x8 and 4x4 networks, four to a tile so each output row of a tile is a
 * whole 64-byte line: 16x16 and 8x8 tiles), 1- and 2-byte elements from
 * kernels/x86/transpose_tiles.h. The network loops are unrolled by pragma
 * for the reason given in kernels/x86/avx512/transpose.c; the staging
 * loops and the loop over a tile's networks are not (unrolling those
 * measured slower). */
#include "kernels/x86/avx2/vec.h"
#include <stdbool.h>

#include "kernels/simd.h"
#include "kernels/x86/transpose_tiles.h"

#define HLX_TR_INLINE static inline __attribute__((always_inline))

/* 8x8 of 4-byte elements. */
HLX_TR_INLINE void tile_x32_8(const uint32_t* x, int64_t xs, uint32_t* y,
                              int64_t ys, bool nt) {
  __m256 r[8], t[8];
  #pragma GCC unroll 16
  for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps((const float*)(x + k * xs));
  #pragma GCC unroll 16
  for (int k = 0; k < 4; k++) {
    t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  /* R[4k+m] lane L = column 4L+m of rows 4k..4k+3. */
  #pragma GCC unroll 16
  for (int k = 0; k < 2; k++) {
    __m256d a = _mm256_castps_pd(t[4 * k]), b = _mm256_castps_pd(t[4 * k + 2]);
    __m256d c = _mm256_castps_pd(t[4 * k + 1]), d = _mm256_castps_pd(t[4 * k + 3]);
    r[4 * k + 0] = _mm256_castpd_ps(_mm256_unpacklo_pd(a, b));
    r[4 * k + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(a, b));
    r[4 * k + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(c, d));
    r[4 * k + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(c, d));
  }
  #pragma GCC unroll 16
  for (int m = 0; m < 4; m++) {
    tr_store256(y + m * ys,
                _mm256_castps_si256(_mm256_permute2f128_ps(r[m], r[4 + m], 0x20)), nt);
    tr_store256(y + (4 + m) * ys,
                _mm256_castps_si256(_mm256_permute2f128_ps(r[m], r[4 + m], 0x31)), nt);
  }
}

/* 4x4 of 8-byte elements. */
HLX_TR_INLINE void tile_x64_4(const uint64_t* x, int64_t xs, uint64_t* y,
                              int64_t ys, bool nt) {
  __m256i r[4];
  #pragma GCC unroll 16
  for (int k = 0; k < 4; k++) r[k] = _mm256_loadu_si256((const __m256i*)(x + k * xs));
  __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
  __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
  tr_store256(y, _mm256_permute2x128_si256(t0, t2, 0x20), nt);
  tr_store256(y + ys, _mm256_permute2x128_si256(t1, t3, 0x20), nt);
  tr_store256(y + 2 * ys, _mm256_permute2x128_si256(t0, t2, 0x31), nt);
  tr_store256(y + 3 * ys, _mm256_permute2x128_si256(t1, t3, 0x31), nt);
}

/* A tile of 64-byte rows (16 x 16 4-byte or 8 x 8 8-byte elements) as
 * four 8x8 / 4x4 networks: staged in (see tr_stage); per column group the
 * upper then the lower rows (the two halves of the group's output lines),
 * through obuf when streaming (see tr_unstage). Strides in bytes. */
HLX_TR_INLINE void tile_wide(const uint8_t* x, int64_t xs, uint8_t* y,
                             int64_t ys, bool nt, int es) {
  const int rows = 64 / es, h = rows / 2;
  _Alignas(64) uint8_t buf[16 * 64], obuf[16 * 64];
  tr_stage(x, xs, rows, buf);
  uint8_t* d = nt ? obuf : y;
  int64_t ds = nt ? 64 : ys;
  for (int cg = 0; cg < rows; cg += h)
    for (int rg = 0; rg < rows; rg += h) {
      const uint8_t* src = buf + rg * 64 + cg * es;
      uint8_t* dst = d + cg * ds + rg * es;
      if (es == 4)
        tile_x32_8((const uint32_t*)src, 16, (uint32_t*)dst, ds / 4, false);
      else
        tile_x64_4((const uint64_t*)src, 8, (uint64_t*)dst, ds / 8, false);
    }
  if (nt) tr_unstage(obuf, rows, y, ys, true);
}

HLX_TR_INLINE void tile_x32_16(const uint32_t* x, int64_t xs, uint32_t* y,
                               int64_t ys, bool nt) {
  tile_wide((const uint8_t*)x, xs * 4, (uint8_t*)y, ys * 4, nt, 4);
}

HLX_TR_INLINE void tile_x64_8(const uint64_t* x, int64_t xs, uint64_t* y,
                              int64_t ys, bool nt) {
  tile_wide((const uint8_t*)x, xs * 8, (uint8_t*)y, ys * 8, nt, 8);
}

#define tile_x8_64 tr_tile_x8_ymm
#define tile_x16_32 tr_tile_x16_ymm
#include "kernels/x86/transpose_instances.h"
