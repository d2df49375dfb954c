/* The transposes of 1-, 2-, 4- and 8-byte elements of an x86 build
 * (kernels/x86/<isa>/transpose.c): included once, after its vec.h, the
 * shared small-element tiles (transpose_tiles.h) and its own tile_x32_16
 * and tile_x64_8. Every tile is 64 bytes wide, so each output row of a
 * tile is one whole line.
 *
 * Blocks are tall and narrow: 512 rows (256 for 8-byte elements) of 128 or
 * 256 bytes, so each output row receives a 1-2 KiB run of streamed lines
 * while a block's input (128 KiB) is read a 64-byte column at a time.
 * Against the square 256 x 256 blocks, 64 MiB on Zen 4, same run: 4-byte
 * 512 x 64 0.78 vs 0.68 of the NT copy, 2-byte 512 x 64 0.88 vs 0.64,
 * 8-byte 256 x 32 0.85 vs 0.69; taller (1024 rows) measured slower, and
 * the 1-byte tile is bound by its shuffles, alike for every shape
 * (benchmarks/RESULTS.md). An ISA file defining HLX_TR_SMALL_ROWS_FIRST
 * visits the 1- and 2-byte blocks row by row (transpose_impl.h): AVX-512
 * 0.45 -> 0.53 (1-byte) and 0.89 -> 1.10 (2-byte) of the NT copy; the
 * AVX2 tiles measured alike either way and 4- and 8-byte ones slower. */
#define HLX_TR_NAME hlx_x8_transpose
#define HLX_TR_ELEM uint8_t
#define HLX_TR_TILE 64
#define HLX_TR_TILE_FN tile_x8_64
#ifdef HLX_TR_SMALL_ROWS_FIRST
#define HLX_TR_ROWS_FIRST 1
#endif
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"

#define HLX_TR_NAME hlx_x16_transpose
#define HLX_TR_ELEM uint16_t
#define HLX_TR_TILE 32
#define HLX_TR_TILE_FN tile_x16_32
#ifdef HLX_TR_SMALL_ROWS_FIRST
#define HLX_TR_ROWS_FIRST 1
#endif
#define HLX_TR_BLOCK_R 512
#define HLX_TR_BLOCK_C 64
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"

#define HLX_TR_NAME hlx_x32_transpose
#define HLX_TR_ELEM uint32_t
#define HLX_TR_TILE 16
#define HLX_TR_TILE_FN tile_x32_16
#define HLX_TR_BLOCK_R 512
#define HLX_TR_BLOCK_C 64
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"

#define HLX_TR_NAME hlx_x64_transpose
#define HLX_TR_ELEM uint64_t
#define HLX_TR_TILE 8
#define HLX_TR_TILE_FN tile_x64_8
#define HLX_TR_BLOCK_R 256
#define HLX_TR_BLOCK_C 32
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"
