/* Tiled 2-D transpose of 4-byte elements shared by the x86 folders:
 * included by kernels/x86/<isa>/transpose.c after it defines
 * HLX_TR_TILE and tile_transpose() (a TILE x TILE in-register transpose).
 * Tiles are visited row-block by row-block; partial edge tiles are copied
 * element by element. */
#include <stddef.h>
#include <stdint.h>

void HLX_SFX(hlx_x32_transpose)(const void* in, int64_t in_stride, void* out,
                                int64_t out_stride, size_t rows,
                                size_t cols) {
  const uint32_t* x = (const uint32_t*)in;
  uint32_t* y = (uint32_t*)out;
  const size_t T = HLX_TR_TILE;
  size_t rf = rows - rows % T, cf = cols - cols % T;
  for (size_t r = 0; r < rf; r += T) {
    for (size_t c = 0; c < cf; c += T)
      tile_transpose(x + (int64_t)r * in_stride + (int64_t)c, in_stride,
                     y + (int64_t)c * out_stride + (int64_t)r, out_stride);
    for (size_t rr = r; rr < r + T; rr++)
      for (size_t c = cf; c < cols; c++)
        y[(int64_t)c * out_stride + (int64_t)rr] =
            x[(int64_t)rr * in_stride + (int64_t)c];
  }
  for (size_t r = rf; r < rows; r++)
    for (size_t c = 0; c < cols; c++)
      y[(int64_t)c * out_stride + (int64_t)r] =
          x[(int64_t)r * in_stride + (int64_t)c];
}
