/* 256-bit transpose tiles of 1- and 2-byte elements shared by the x86
 * transpose builds (AVX2 and AVX-512 both run them on ymm registers; the
 * byte shuffles of 512-bit lanes would need cross-lane permutes per step).
 * Included by kernels/x86/<isa>/transpose.c after its vec.h.
 *
 * Each network transposes two independent square blocks at once, one per
 * 128-bit lane: lane 0 holds rows [0, n) and lane 1 rows [n, 2n) of the
 * same columns, so output row c is one 32-byte store (column c of all 2n
 * rows). The network is the perfect-shuffle one: log2(n) rounds of
 *   new[2k] = unpacklo(old[k], old[k + n/2]), new[2k+1] = unpackhi(...)
 * at the element width, which leaves column c in new[c]. The tiles
 * (tr_tile_x8_ymm, tr_tile_x16_ymm) visit the networks so that each output row is
 * completed (both 32-byte halves of a 64-byte line) by consecutive calls:
 * full lines for the write-combining buffers when streaming. Network loops
 * are unrolled by pragma so v[] and t[] stay in registers (see
 * kernels/x86/avx512/transpose.c). */
#ifndef HLX_KERNELS_X86_TRANSPOSE_TILES_H_
#define HLX_KERNELS_X86_TRANSPOSE_TILES_H_

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#define HLX_TR_INLINE static inline __attribute__((always_inline))

HLX_TR_INLINE void tr_store256(void* p, __m256i v, bool nt) {
  if (nt)
    _mm256_stream_si256((__m256i*)p, v);
  else
    _mm256_storeu_si256((__m256i*)p, v);
}

/* 16 bytes at lo (lane 0) and 16 bytes at hi (lane 1) as one register. */
HLX_TR_INLINE __m256i tr_load_pair(const void* lo_p, const void* hi_p) {
  __m128i lo = _mm_loadu_si128((const __m128i*)lo_p);
  __m128i hi = _mm_loadu_si128((const __m128i*)hi_p);
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

/* One unpack step at the element width (8 or 16 bits). */
HLX_TR_INLINE __m256i tr_unpack(__m256i a, __m256i b, int bits, bool hi) {
  if (bits == 8) return hi ? _mm256_unpackhi_epi8(a, b) : _mm256_unpacklo_epi8(a, b);
  return hi ? _mm256_unpackhi_epi16(a, b) : _mm256_unpacklo_epi16(a, b);
}

/* n = 128 / bits: 2n rows x n columns (16 bytes a row) -> n output rows of
 * 32 bytes; strides in bytes. */
HLX_TR_INLINE void tr_net(const uint8_t* x, int64_t xs, uint8_t* y,
                          int64_t ys, int bits) {
  const int n = 128 / bits;
  __m256i v[16], t[16];
  #pragma GCC unroll 16
  for (int k = 0; k < n; k++) v[k] = tr_load_pair(x + k * xs, x + (k + n) * xs);
  #pragma GCC unroll 16
  for (int round = 1; round < n; round *= 2) {
    #pragma GCC unroll 16
    for (int k = 0; k < n / 2; k++) {
      t[2 * k] = tr_unpack(v[k], v[k + n / 2], bits, false);
      t[2 * k + 1] = tr_unpack(v[k], v[k + n / 2], bits, true);
    }
    #pragma GCC unroll 16
    for (int k = 0; k < n; k++) v[k] = t[k];
  }
  #pragma GCC unroll 16
  for (int c = 0; c < n; c++) _mm256_storeu_si256((__m256i*)(y + c * ys), v[c]);
}

/* Copies `rows` 64-byte row segments (xs bytes apart) to buf, 64 bytes
 * apart. The networks read each input line in 16- or 32-byte pieces at
 * several times; with a power-of-two row stride (4096 f32 columns) the
 * tile's rows share one L1 set, more than its ways, so the lines would be
 * evicted between the pieces. The staged copy spreads them over the sets
 * (4.5 -> 13 GB/s for 8192^2 bytes on Zen 4). */
HLX_TR_INLINE void tr_stage(const void* x, int64_t xs, int rows,
                            uint8_t* buf) {
  const char* p = (const char*)x;
  for (int k = 0; k < rows; k++) {
    __m256i a = _mm256_loadu_si256((const __m256i*)(p + k * xs));
    __m256i b = _mm256_loadu_si256((const __m256i*)(p + k * xs + 32));
    _mm_store_si128((__m128i*)(buf + 64 * k), _mm256_castsi256_si128(a));
    _mm_store_si128((__m128i*)(buf + 64 * k + 16), _mm256_extracti128_si256(a, 1));
    _mm_store_si128((__m128i*)(buf + 64 * k + 32), _mm256_castsi256_si128(b));
    _mm_store_si128((__m128i*)(buf + 64 * k + 48), _mm256_extracti128_si256(b, 1));
  }
}

/* Writes `rows` 64-byte lines from buf (64 bytes apart) to y (ys bytes
 * apart), each line's stores back to back. Streaming tiles go through
 * this: a network's 32-byte stores leave up to 16 half-written lines open
 * at once, more than the write-combining buffers hold, and partly written
 * lines are flushed as slow partial writes. */
HLX_TR_INLINE void tr_unstage(const uint8_t* buf, int rows, void* y,
                              int64_t ys, bool nt) {
  char* p = (char*)y;
  for (int k = 0; k < rows; k++) {
#if defined(__AVX512F__)
    __m512i v = _mm512_load_si512((const void*)(buf + 64 * k));
    if (nt)
      _mm512_stream_si512((void*)(p + k * ys), v);
    else
      _mm512_storeu_si512((void*)(p + k * ys), v);
#else
    tr_store256(p + k * ys, _mm256_load_si256((const __m256i*)(buf + 64 * k)), nt);
    tr_store256(p + k * ys + 32,
                _mm256_load_si256((const __m256i*)(buf + 64 * k + 32)), nt);
#endif
  }
}

/* A tile of 64 rows of 64 bytes (64 x 64 bytes or 32 x 32 2-byte
 * elements): staged in, networks per column group (rows of the upper, then
 * the lower half: the two halves of the group's output lines), written out
 * whole lines at a time when streaming. */
HLX_TR_INLINE void tr_tile_small(const uint8_t* x, int64_t xs, uint8_t* y,
                                 int64_t ys, bool nt, int bits) {
  const int n = 128 / bits, es = bits / 8, rows = 64 / es;
  _Alignas(64) uint8_t buf[64 * 64], obuf[64 * 64];
  tr_stage(x, xs, rows, buf);
  uint8_t* d = nt ? obuf : y;
  int64_t ds = nt ? 64 : ys;
  #pragma GCC unroll 16
  for (int cg = 0; cg < rows; cg += n)
    #pragma GCC unroll 16
    for (int rg = 0; rg < rows; rg += 2 * n)
      tr_net(buf + rg * 64 + cg * es, 64, d + cg * ds + rg * es, ds, bits);
  if (nt) tr_unstage(obuf, rows, y, ys, true);
}

HLX_TR_INLINE void tr_tile_x8_ymm(const uint8_t* x, int64_t xs, uint8_t* y,
                                  int64_t ys, bool nt) {
  tr_tile_small(x, xs, y, ys, nt, 8);
}

HLX_TR_INLINE void tr_tile_x16_ymm(const uint16_t* x, int64_t xs,
                                   uint16_t* y, int64_t ys, bool nt) {
  tr_tile_small((const uint8_t*)x, xs * 2, (uint8_t*)y, ys * 2, nt, 16);
}

#undef HLX_TR_INLINE

#endif /* HLX_KERNELS_X86_TRANSPOSE_TILES_H_ */
