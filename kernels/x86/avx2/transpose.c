/* 8x8 in-register transpose of 4-byte elements, AVX2 build. */
#include "kernels/x86/avx2/vec.h"
#include <stdbool.h>

#include "kernels/simd.h"

#define HLX_TR_TILE 8

/* nt: stream the output rows (32 bytes each, 32-byte aligned by the
 * caller; the next tile down the strip fills the other half line). */
static inline __attribute__((always_inline)) void tile_store(uint32_t* p,
                                                             __m256 v,
                                                             bool nt) {
  if (nt)
    _mm256_stream_ps((float*)p, v);
  else
    _mm256_storeu_ps((float*)p, v);
}

static inline __attribute__((always_inline)) void tile_transpose(
    const uint32_t* x, int64_t xs, uint32_t* y, int64_t ys, bool nt) {
  __m256 r[8], t[8];
  for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps((const float*)(x + k * xs));
  for (int k = 0; k < 4; k++) {
    t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  /* R[4k+m] lane L = column 4L+m of rows 4k..4k+3. */
  for (int k = 0; k < 2; k++) {
    __m256d a = _mm256_castps_pd(t[4 * k]), b = _mm256_castps_pd(t[4 * k + 2]);
    __m256d c = _mm256_castps_pd(t[4 * k + 1]), d = _mm256_castps_pd(t[4 * k + 3]);
    r[4 * k + 0] = _mm256_castpd_ps(_mm256_unpacklo_pd(a, b));
    r[4 * k + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(a, b));
    r[4 * k + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(c, d));
    r[4 * k + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(c, d));
  }
  for (int m = 0; m < 4; m++) {
    tile_store(y + m * ys, _mm256_permute2f128_ps(r[m], r[4 + m], 0x20), nt);
    tile_store(y + (4 + m) * ys, _mm256_permute2f128_ps(r[m], r[4 + m], 0x31),
               nt);
  }
}

#include "kernels/x86/transpose_impl.h"
