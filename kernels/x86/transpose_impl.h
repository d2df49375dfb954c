/* Cache-blocked 2-D transpose of 4-byte elements shared by the x86
 * folders: included by kernels/x86/<isa>/transpose.c after it defines
 * HLX_TR_TILE, V_BYTES and tile_transpose(x, xs, y, ys, nt) (a TILE x TILE
 * in-register transpose; nt streams its stores).
 *
 * Why blocked: visiting tiles row block by row block sends every tile's
 * TILE output rows to lines 4*out_stride bytes apart (16 KiB at 4096
 * columns), so each output line is a DRAM row miss of its own. Within a
 * HLX_TR_BLOCK x HLX_TR_BLOCK block tiles are visited down column strips,
 * so each output row receives a 1 KiB run and the block's input (256 KiB)
 * stays in L2 while its columns are read. Outputs of HLX_NT_STORE_MIN_BYTES
 * or more are streamed (no read-for-ownership): 4.5x the row-block order
 * at 4096^2 on Zen 4 (benchmarks/RESULTS.md). Partial edge tiles are
 * copied element by element. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef HLX_NT_STORE_MIN_BYTES
#define HLX_NT_STORE_MIN_BYTES ((size_t)16 << 20)
#endif

#define HLX_TR_BLOCK 256

/* Tile k of a block prefetches row k of the next block into L2: its
 * columns are read down strips, one line per row at a time, a pattern the
 * hardware prefetchers do not follow (1.7x at 4096^2 on Zen 4). */
static inline __attribute__((always_inline)) void prefetch_block_row(
    const uint32_t* x, int64_t xs, size_t row, size_t r1, size_t c0,
    size_t c1) {
  if (row >= r1) return;
  const char* p = (const char*)(x + (int64_t)row * xs + (int64_t)c0);
  for (size_t b = 0; b < (c1 - c0) * sizeof(uint32_t); b += 64)
    __builtin_prefetch(p + b, 0, 2);
}

/* Full tiles of rows [0, r1) x cols [0, c1), both multiples of the tile. */
static inline __attribute__((always_inline)) void transpose_blocks(
    const uint32_t* x, int64_t xs, uint32_t* y, int64_t ys, size_t r1,
    size_t c1, bool nt) {
  const size_t T = HLX_TR_TILE, B = HLX_TR_BLOCK;
  for (size_t rb = 0; rb < r1; rb += B) {
    size_t re = rb + B < r1 ? rb + B : r1;
    for (size_t cb = 0; cb < c1; cb += B) {
      size_t ce = cb + B < c1 ? cb + B : c1;
      /* The next block: right of this one, else the first of the next
       * block row (none after the last). */
      size_t nrb = cb + B < c1 ? rb : rb + B, ncb = cb + B < c1 ? cb + B : 0;
      size_t nre = nrb + B < r1 ? nrb + B : r1;
      size_t nce = ncb + B < c1 ? ncb + B : c1;
      size_t k = 0;
      for (size_t c = cb; c < ce; c += T)
        for (size_t r = rb; r < re; r += T, k++) {
          prefetch_block_row(x, xs, nrb + k, nre, ncb, nce);
          tile_transpose(x + (int64_t)r * xs + (int64_t)c, xs,
                         y + (int64_t)c * ys + (int64_t)r, ys, nt);
        }
    }
  }
}

void HLX_SFX(hlx_x32_transpose)(const void* in, int64_t in_stride, void* out,
                                int64_t out_stride, size_t rows,
                                size_t cols) {
  const uint32_t* x = (const uint32_t*)in;
  uint32_t* y = (uint32_t*)out;
  const size_t T = HLX_TR_TILE;
  size_t rf = rows - rows % T, cf = cols - cols % T;
  /* Streaming needs every tile row start aligned: a base on V_BYTES and an
   * output stride of whole vectors (tile rows start at multiples of T). */
  bool nt = rows * cols * sizeof(uint32_t) >= HLX_NT_STORE_MIN_BYTES &&
            (uintptr_t)y % V_BYTES == 0 && out_stride > 0 &&
            ((size_t)out_stride * sizeof(uint32_t)) % V_BYTES == 0;
  if (nt) {
    transpose_blocks(x, in_stride, y, out_stride, rf, cf, true);
    v_sfence();
  } else {
    transpose_blocks(x, in_stride, y, out_stride, rf, cf, false);
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
