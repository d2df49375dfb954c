/* Deterministic pseudo-random tensor data, for `hlx run` when no inputs are
 * given.
 *
 * Generator: SplitMix64 (Steele, Lea, Flood 2014). Draw k (k = 0, 1, ...)
 * is mix(seed + (k + 1) * 0x9E3779B97F4A7C15) with
 *   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
 *   z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
 *   z ^= z >> 31.
 * Element i uses draw i (complex elements use draws 2i and 2i+1 for the real
 * and imaginary parts), so a fill of n elements is a prefix of a fill of
 * m > n elements with the same seed, and results do not depend on the host.
 *
 * Values, from a draw x:
 *   pred                  x >> 63                          (0 or 1)
 *   S8..S64               (x >> 60) - 8                    [-8, 8)
 *   U8..U64               x >> 60                          [0, 16)
 *   S2 / S4 (b bits)      (x >> (64 - b)) - 2^(b-1): [-2, 2) / [-8, 8),
 *                         stored sign-extended, one per byte
 *   U2 / U4 (b bits)      x >> (64 - b): [0, 4) / [0, 16), one per byte
 *   F32                   (x >> 40) * 2^-23 - 1   (exact; in [-1, 1))
 *   F64                   (x >> 11) * 2^-52 - 1   (exact; in [-1, 1))
 *   F16, BF16, f8/f6/f4   the F64 value rounded to nearest; a draw that
 *                         rounds to 1.0 gives the largest value below 1
 *                         instead (so [-1, 1)).
 *                         f8E8M0FNU (unsigned powers of two, no zero) gets
 *                         2^-(1 + (x >> 61)), i.e. in [2^-8, 2^-1].
 *   C64, C128             both parts as F32 / F64.
 */
#ifndef HLX_TOOLS_RANDOM_FILL_H_
#define HLX_TOOLS_RANDOM_FILL_H_

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills n elements (not bytes) of dtype t at `data` (n *
 * hlx_dtype_size(t) bytes, hlx layout, host byte order). Does nothing for
 * HLX_DTYPE_INVALID or n == 0. */
void hlx_random_fill(hlx_dtype_t t, void* data, size_t n, uint64_t seed);

/* Draw k of the generator for `seed` (exposed for tests and tools). */
uint64_t hlx_random_draw(uint64_t seed, uint64_t k);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HLX_TOOLS_RANDOM_FILL_H_ */
