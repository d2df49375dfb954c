/* Embedding-lookup gather and f32 scatter-add kernels (list:
 * kernels/gather_kernels.inc) shared by the ISA folders; included once by
 * kernels/x86/<isa>/gather.c and kernels/arm/neon/gather.c after that
 * folder's vec.h.
 *
 *  - gather rows: 4-byte rows (a gather of single elements) use the x86
 *    hardware gather on clamped, stride-scaled lane indices (int32 offsets
 *    while the table spans < 2^31 elements, else one row at a time); longer
 *    rows are copied with whole vectors, the last one overlapping the
 *    previous so no masked tail is needed; rows shorter than a vector use
 *    memcpy. Clamping is the spec's: start index in [0, n_rows - 1].
 *  - scatter-add rows: updates applied in index order, each row vectorised
 *    along its length (a row's elements are independent, so per-element
 *    order — and hence every f32 rounding — is the reference's); only rows
 *    in a [row_lo, row_hi) window, so threads can own disjoint windows. */
#include <string.h>

#include "kernels/x86/vmath.h"

static inline int64_t gs_index(const void* idx, bool idx64, int64_t i) {
  return idx64 ? ((const int64_t*)idx)[i] : ((const int32_t*)idx)[i];
}

static inline int64_t gs_clamp(int64_t v, int64_t hi) {
  return v < 0 ? 0 : v > hi ? hi : v;
}

/* Copies one row of `bytes` >= V_BYTES bytes. */
static inline void gs_copy_row(char* dst, const char* src, size_t bytes) {
  size_t j = 0;
  for (; j + V_BYTES <= bytes; j += V_BYTES)
    vf_storeu((float*)(dst + j), vf_loadu((const float*)(src + j)));
  if (j < bytes)
    vf_storeu((float*)(dst + bytes - V_BYTES),
              vf_loadu((const float*)(src + bytes - V_BYTES)));
}

/* Hardware gather of n 4-byte elements t[clamp(idx[i]) * stride] (stride in
 * elements); returns how many it did (a multiple of the lane count). */
static inline int64_t gs_gather4(const float* t, int64_t hi, int64_t stride,
                                 const void* idx, bool idx64, int64_t n,
                                 float* out) {
  int64_t i = 0;
#if V_BYTES == 64
  if (!idx64) {
    const __m512i zero = _mm512_setzero_si512(), top = _mm512_set1_epi32((int)hi);
    const __m512i st = _mm512_set1_epi32((int)stride);
    for (; i + 16 <= n; i += 16) {
      __m512i v = _mm512_loadu_si512((const int32_t*)idx + i);
      v = _mm512_min_epi32(_mm512_max_epi32(v, zero), top);
      if (stride != 1) v = _mm512_mullo_epi32(v, st);
      _mm512_storeu_ps(out + i, _mm512_i32gather_ps(v, t, 4));
    }
  } else {
    const __m512i zero = _mm512_setzero_si512(), top = _mm512_set1_epi64(hi);
    const __m512i st = _mm512_set1_epi64(stride);
    for (; i + 8 <= n; i += 8) {
      __m512i v = _mm512_loadu_si512((const int64_t*)idx + i);
      v = _mm512_min_epi64(_mm512_max_epi64(v, zero), top);
      if (stride != 1) v = _mm512_mullo_epi64(v, st);
      _mm256_storeu_ps(out + i, _mm512_i64gather_ps(v, t, 4));
    }
  }
#elif defined(__AVX2__)
  if (!idx64) {
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi32((int)hi);
    const __m256i st = _mm256_set1_epi32((int)stride);
    for (; i + 8 <= n; i += 8) {
      __m256i v = _mm256_loadu_si256((const __m256i*)((const int32_t*)idx + i));
      v = _mm256_min_epi32(_mm256_max_epi32(v, zero), top);
      if (stride != 1) v = _mm256_mullo_epi32(v, st);
      _mm256_storeu_ps(out + i, _mm256_i32gather_ps(t, v, 4));
    }
  } else {
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi64x(hi);
    const __m256i st = _mm256_set1_epi64x(stride);
    for (; i + 4 <= n; i += 4) {
      __m256i v = _mm256_loadu_si256((const __m256i*)((const int64_t*)idx + i));
      v = _mm256_blendv_epi8(v, zero, _mm256_cmpgt_epi64(zero, v));
      v = _mm256_blendv_epi8(v, top, _mm256_cmpgt_epi64(v, top));
      /* v < 2^31 and stride < 2^31 here: 32x32->64 products are exact. */
      if (stride != 1) v = _mm256_mul_epu32(v, st);
      _mm_storeu_ps(out + i, _mm256_i64gather_ps(t, v, 4));
    }
  }
#else
  /* No hardware gather (NEON): the caller's row loop does them all. */
  (void)t, (void)hi, (void)stride, (void)idx, (void)idx64, (void)n, (void)out;
#endif
  return i;
}

void HLX_SFX(hlx_gather_rows)(const void* table, int64_t n_rows,
                              int64_t row_stride, size_t row_bytes,
                              const void* idx, bool idx64, int64_t n,
                              void* out) {
  const char* t = (const char*)table;
  char* o = (char*)out;
  const int64_t hi = n_rows - 1;
  int64_t i = 0;
  if (row_bytes == 4 && row_stride % 4 == 0 &&
      (n_rows - 1) * (row_stride / 4) < ((int64_t)1 << 31))
    i = gs_gather4((const float*)t, hi, row_stride / 4, idx, idx64, n,
                   (float*)o);
  if (row_bytes >= V_BYTES) {
    for (; i < n; i++)
      gs_copy_row(o + i * row_bytes, t + gs_clamp(gs_index(idx, idx64, i), hi) * row_stride,
                  row_bytes);
  } else {
    for (; i < n; i++)
      memcpy(o + i * row_bytes,
             t + gs_clamp(gs_index(idx, idx64, i), hi) * row_stride, row_bytes);
  }
}

/* Element scatter-add (row_len 1) over the window [lo, lo + span): one
 * loop per index type; the unsigned compare is the bounds check. The whole
 * table keeps a branch, then always taken. A narrower window (a thread's
 * share) skips about half the indices at random: a branch would mispredict
 * and throw away the loads in flight, and a branchless add to a junk slot
 * costs as much as the real update (stores commit in order, so junk stores
 * queue behind the missing ones and halve the misses in flight). So each
 * chunk of indices is first compacted (branch-free) to the positions in
 * the window, then those are applied in order. */
enum { kGsChunk = 2048 };
#define HLX_GS_SCATTER1(IT)                                                 \
  do {                                                                      \
    const IT* ix = (const IT*)idx;                                          \
    if (whole) {                                                            \
      for (int64_t i = 0; i < n; i++)                                       \
        if ((uint64_t)(int64_t)ix[i] < span)                                \
          table[(int64_t)ix[i] * row_stride] += updates[i];                 \
      break;                                                                \
    }                                                                       \
    uint16_t pos[kGsChunk];                                                 \
    for (int64_t c = 0; c < n; c += kGsChunk) {                             \
      int64_t m = n - c < kGsChunk ? n - c : kGsChunk, k = 0;               \
      for (int64_t j = 0; j < m; j++) {                                     \
        pos[k] = (uint16_t)j;                                               \
        k += (uint64_t)(int64_t)ix[c + j] - (uint64_t)row_lo < span;        \
      }                                                                     \
      for (int64_t j = 0; j < k; j++)                                       \
        table[(int64_t)ix[c + pos[j]] * row_stride] += updates[c + pos[j]]; \
    }                                                                       \
  } while (0)

#if V_BYTES == 64
/* The window case for int32 indices with AVX-512: compresses (order kept)
 * each chunk's in-window indices and their updates into two small arrays,
 * so the apply loop reads them sequentially instead of through positions
 * (a thread's half-window share: 0.55 of the whole table's time, against
 * 0.68 with positions; RESULTS.md). Needs row_hi <= 2^31: then (v - row_lo) mod 2^32 < span holds
 * exactly for v in [row_lo, row_hi), negative v included. */
static void gs_scatter1_window_i32(float* table, int64_t row_stride,
                                   const int32_t* ix, int64_t n,
                                   const float* updates, int64_t row_lo,
                                   uint64_t span) {
  int32_t cidx[kGsChunk + 16];
  float cupd[kGsChunk + 16];
  const __m512i lo = _mm512_set1_epi32((int32_t)row_lo);
  const __m512i sp = _mm512_set1_epi32((int32_t)(uint32_t)span);
  for (int64_t c = 0; c < n; c += kGsChunk) {
    int64_t m = n - c < kGsChunk ? n - c : kGsChunk, k = 0, j = 0;
    for (; j + 16 <= m; j += 16) {
      __m512i v = _mm512_loadu_si512(ix + c + j);
      __mmask16 in = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(v, lo), sp);
      /* register compress + full store (lanes past k are overwritten by
       * the next step): the memory form is microcoded on Zen 4 */
      _mm512_storeu_si512(cidx + k, _mm512_maskz_compress_epi32(in, v));
      _mm512_storeu_ps(cupd + k, _mm512_maskz_compress_ps(
                                     in, _mm512_loadu_ps(updates + c + j)));
      k += __builtin_popcount((unsigned)in);
    }
    for (; j < m; j++) {
      cidx[k] = ix[c + j];
      cupd[k] = updates[c + j];
      k += (uint64_t)(int64_t)ix[c + j] - (uint64_t)row_lo < span;
    }
    for (int64_t q = 0; q < k; q++)
      table[(int64_t)cidx[q] * row_stride] += cupd[q];
  }
}
#endif

void HLX_SFX(hlx_f32_scatter_add_rows)(float* table, int64_t n_rows,
                                       int64_t row_lo, int64_t row_hi,
                                       int64_t row_stride, int64_t row_len,
                                       const void* idx, bool idx64, int64_t n,
                                       const float* updates) {
  const uint64_t span = (uint64_t)row_hi - (uint64_t)row_lo;
  const bool whole = row_lo == 0 && row_hi == n_rows;
  if (row_len == 1) {  /* a masked vector op per element would cost more
                        * than the scalar add */
#if V_BYTES == 64
    if (!idx64 && !whole && (uint64_t)row_hi <= ((uint64_t)1 << 31)) {
      gs_scatter1_window_i32(table, row_stride, (const int32_t*)idx, n,
                             updates, row_lo, span);
      return;
    }
#endif
    if (idx64)
      HLX_GS_SCATTER1(int64_t);
    else
      HLX_GS_SCATTER1(int32_t);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t r = gs_index(idx, idx64, i);
    if ((uint64_t)r - (uint64_t)row_lo >= span) continue;
    float* row = table + r * row_stride;
    const float* u = updates + i * row_len;
    int64_t j = 0;
    for (; j + VF_N <= row_len; j += VF_N)
      vf_storeu(row + j, vf_add(vf_loadu(row + j), vf_loadu(u + j)));
    if (j < row_len) {
      size_t k = (size_t)(row_len - j);
      vf_store_tail(row + j, k,
                    vf_add(vf_load_tail(row + j, k), vf_load_tail(u + j, k)));
    }
  }
}
#undef HLX_GS_SCATTER1
