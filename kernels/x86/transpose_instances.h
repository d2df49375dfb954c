/* The transposes of 1-, 2-, 4- and 8-byte elements of an x86 build
 * (kernels/x86/<isa>/transpose.c): included once, after its vec.h, the
 * shared small-element tiles (transpose_tiles.h) and its own tile_x32_16
 * and tile_x64_8. Every tile is 64 bytes wide, so each output row of a
 * tile is one whole line. */
#define HLX_TR_NAME hlx_x8_transpose
#define HLX_TR_ELEM uint8_t
#define HLX_TR_TILE 64
#define HLX_TR_TILE_FN tile_x8_64
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"

#define HLX_TR_NAME hlx_x16_transpose
#define HLX_TR_ELEM uint16_t
#define HLX_TR_TILE 32
#define HLX_TR_TILE_FN tile_x16_32
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"

#define HLX_TR_NAME hlx_x32_transpose
#define HLX_TR_ELEM uint32_t
#define HLX_TR_TILE 16
#define HLX_TR_TILE_FN tile_x32_16
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"

/* 128 x 128 blocks: 128 KiB of input (256 x 256 would be half the L2). */
#define HLX_TR_NAME hlx_x64_transpose
#define HLX_TR_ELEM uint64_t
#define HLX_TR_TILE 8
#define HLX_TR_TILE_FN tile_x64_8
#define HLX_TR_BLOCK 128
#define HLX_TR_NT_ALIGN 64
#include "kernels/x86/transpose_impl.h"
