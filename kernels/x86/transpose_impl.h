/* Cache-blocked 2-D transpose shared by the ISA folders, one instance per
 * element size. A kernels/<arch>/<isa>/transpose.c defines, then includes
 * this file (once per instance; it #undefs them at the end):
 *   HLX_TR_NAME   public name without the ISA suffix (default
 *                 hlx_x32_transpose)
 *   HLX_TR_ELEM   element type (default uint32_t)
 *   HLX_TR_TILE   tile edge in elements (square tiles)
 *   HLX_TR_TILE_FN(x, xs, y, ys, nt)  TILE x TILE in-register transpose,
 *                 strides in elements; nt streams its stores (default
 *                 tile_transpose)
 *   HLX_TR_BLOCK  block edge in elements (default 256)
 *   HLX_TR_NT_ALIGN  byte alignment streaming needs of the output base and
 *                 stride (default V_BYTES)
 *   HLX_TR_BLOCK_R, HLX_TR_BLOCK_C  block rows and columns (default
 *                 HLX_TR_BLOCK each)
 *   HLX_TR_ROWS_FIRST  1: visit a block's tiles row by row instead of down
 *                 column strips (default 0)
 *
 * Why blocked: visiting tiles row block by row block sends every tile's
 * TILE output rows to lines out_stride elements apart (16 KiB at 4096
 * f32 columns), so each output line is a DRAM row miss of its own. Within a
 * BLOCK x BLOCK block tiles are visited down column strips, so each output
 * row receives a BLOCK-element run and the block's input stays in L2 while
 * its columns are read. Outputs of HLX_NT_STORE_MIN_BYTES or more are
 * streamed (no read-for-ownership): 4.5x the row-block order at 4096^2 f32
 * on Zen 4 (benchmarks/RESULTS.md). Tiles whose output rows are whole 64-byte
 * lines let the write-combining buffers flush full lines. Partial edge
 * tiles are copied element by element. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef HLX_NT_STORE_MIN_BYTES
#define HLX_NT_STORE_MIN_BYTES ((size_t)16 << 20)
#endif

#ifndef HLX_TR_NAME
#define HLX_TR_NAME hlx_x32_transpose
#endif
#ifndef HLX_TR_ELEM
#define HLX_TR_ELEM uint32_t
#endif
#ifndef HLX_TR_TILE_FN
#define HLX_TR_TILE_FN tile_transpose
#endif
#ifndef HLX_TR_BLOCK
#define HLX_TR_BLOCK 256
#endif
/* Block rows (= the run each output row receives) and columns. */
#ifndef HLX_TR_BLOCK_R
#define HLX_TR_BLOCK_R HLX_TR_BLOCK
#endif
#ifndef HLX_TR_BLOCK_C
#define HLX_TR_BLOCK_C HLX_TR_BLOCK
#endif
#ifndef HLX_TR_NT_ALIGN
#define HLX_TR_NT_ALIGN V_BYTES
#endif
#ifndef HLX_TR_ROWS_FIRST
#define HLX_TR_ROWS_FIRST 0
#endif

#define HLX_TR_CAT2(a, b) a##_##b
#define HLX_TR_CAT(a, b) HLX_TR_CAT2(a, b)
#define HLX_TR_LOCAL(n) HLX_TR_CAT(HLX_TR_NAME, n)
#define HLX_TR_PUBLIC(n) HLX_SFX(n) /* expands HLX_TR_NAME first */

/* Tile k of a block prefetches rows [k * per, (k + 1) * per) of the next
 * block into L2 (per = rows per tile, so a block's tiles cover the next
 * block's rows): its columns are read down strips, a few lines per row at a
 * time, a pattern the hardware prefetchers do not follow (1.7x at 4096^2
 * f32 on Zen 4). */
static inline __attribute__((always_inline)) void HLX_TR_LOCAL(prefetch)(
    const HLX_TR_ELEM* x, int64_t xs, size_t row, size_t per, size_t r1,
    size_t c0, size_t c1) {
  for (size_t k = 0; k < per && row + k < r1; k++) {
    const char* p = (const char*)(x + (int64_t)(row + k) * xs + (int64_t)c0);
    for (size_t b = 0; b < (c1 - c0) * sizeof(HLX_TR_ELEM); b += 64)
      __builtin_prefetch(p + b, 0, 2);
  }
}

/* Full tiles of rows [0, r1) x cols [0, c1), both multiples of the tile. */
static inline __attribute__((always_inline)) void HLX_TR_LOCAL(blocks)(
    const HLX_TR_ELEM* x, int64_t xs, HLX_TR_ELEM* y, int64_t ys, size_t r1,
    size_t c1, bool nt) {
  const size_t T = HLX_TR_TILE, BR = HLX_TR_BLOCK_R, BC = HLX_TR_BLOCK_C;
  const size_t tiles = (BR / T) * (BC / T);
  const size_t per = (BR + tiles - 1) / tiles;
  for (size_t rb = 0; rb < r1; rb += BR) {
    size_t re = rb + BR < r1 ? rb + BR : r1;
    for (size_t cb = 0; cb < c1; cb += BC) {
      size_t ce = cb + BC < c1 ? cb + BC : c1;
      /* The next block: right of this one, else the first of the next
       * block row (none after the last). */
      size_t nrb = cb + BC < c1 ? rb : rb + BR, ncb = cb + BC < c1 ? cb + BC : 0;
      size_t nre = nrb + BR < r1 ? nrb + BR : r1;
      size_t nce = ncb + BC < c1 ? ncb + BC : c1;
      size_t k = 0;
#if HLX_TR_ROWS_FIRST
      for (size_t r = rb; r < re; r += T)
        for (size_t c = cb; c < ce; c += T, k++) {
#else
      for (size_t c = cb; c < ce; c += T)
        for (size_t r = rb; r < re; r += T, k++) {
#endif
          HLX_TR_LOCAL(prefetch)(x, xs, nrb + k * per, per, nre, ncb, nce);
          HLX_TR_TILE_FN(x + (int64_t)r * xs + (int64_t)c, xs,
                         y + (int64_t)c * ys + (int64_t)r, ys, nt);
        }
    }
  }
}

void HLX_TR_PUBLIC(HLX_TR_NAME)(const void* in, int64_t in_stride, void* out,
                          int64_t out_stride, size_t rows, size_t cols) {
  const HLX_TR_ELEM* x = (const HLX_TR_ELEM*)in;
  HLX_TR_ELEM* y = (HLX_TR_ELEM*)out;
  const size_t T = HLX_TR_TILE;
  size_t rf = rows - rows % T, cf = cols - cols % T;
  /* Streaming needs every store aligned: the base and the output stride on
   * the alignment (tile rows start at multiples of T). */
  bool nt = rows * cols * sizeof(HLX_TR_ELEM) >= HLX_NT_STORE_MIN_BYTES &&
            (uintptr_t)y % HLX_TR_NT_ALIGN == 0 && out_stride > 0 &&
            ((size_t)out_stride * sizeof(HLX_TR_ELEM)) % HLX_TR_NT_ALIGN == 0;
  if (nt) {
    HLX_TR_LOCAL(blocks)(x, in_stride, y, out_stride, rf, cf, true);
    v_sfence();
  } else {
    HLX_TR_LOCAL(blocks)(x, in_stride, y, out_stride, rf, cf, false);
  }
  for (size_t r = 0; r < rf; r++)
    for (size_t c = cf; c < cols; c++)
      y[(int64_t)c * out_stride + (int64_t)r] =
          x[(int64_t)r * in_stride + (int64_t)c];
  for (size_t r = rf; r < rows; r++)
    for (size_t c = 0; c < cols; c++)
      y[(int64_t)c * out_stride + (int64_t)r] =
          x[(int64_t)r * in_stride + (int64_t)c];
}

#undef HLX_TR_NAME
#undef HLX_TR_ELEM
#undef HLX_TR_TILE
#undef HLX_TR_TILE_FN
#undef HLX_TR_BLOCK
#undef HLX_TR_BLOCK_R
#undef HLX_TR_BLOCK_C
#undef HLX_TR_NT_ALIGN
#undef HLX_TR_ROWS_FIRST
#undef HLX_TR_LOCAL
#undef HLX_TR_PUBLIC
#undef HLX_TR_CAT
#undef HLX_TR_CAT2
