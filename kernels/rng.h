/* Random number kernels: rng_bit_generator (Threefry-2x32 and Philox-4x32,
 * bit-exact with XLA's RngBitGeneratorExpander / prng.cc) and the rng op
 * (UNIFORM and NORMAL distributions).
 *
 * rng_bit_generator, as XLA computes it (state is ui64[2] or ui64[3]):
 *
 * THREE_FRY (state [key, counter]): key = (lo32(key), hi32(key)).
 *   64-bit outputs: element i (row-major) = threefry(key, counter + i) as
 *   lo | hi << 32. 32-bit outputs: the shape is split along its first even
 *   dimension s (none even: the first largest one; rank 0: a [1] shape)
 *   into a half shape with dim s = ceil(d_s / 2); half element j gets
 *   threefry(key, counter + j) = (x0, x1) and output index k along s takes
 *   x[k % 2] of half index k / 2. Narrower outputs (8/16-bit and sub-byte)
 *   are the 32-bit outputs truncated to the element's width. New state:
 *   [key, counter + number of counters used].
 *
 * PHILOX (state [key, lo, hi] or [key, c]: the latter uses the 128-bit
 *   counter lo = c, hi = key, as XLA's Rev does): 4x32 blocks for the 128-bit
 *   counters counter + j; 32-bit outputs are block j's four words at
 *   4j..4j+3; 64-bit outputs are (w0 | w1 << 32, w2 | w3 << 32) at 2j, 2j+1.
 *   New state: [key, counter + blocks used] (a 2-word state keeps only the
 *   low word of the new counter).
 *
 * Float outputs receive the same bits as the unsigned type of their width.
 */
#ifndef HLX_KERNELS_RNG_H_
#define HLX_KERNELS_RNG_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_rng_algorithm_t {
  HLX_RNG_THREE_FRY,
  HLX_RNG_PHILOX,
} hlx_rng_algorithm_t;

/* The algorithm DEFAULT stands for: PHILOX, as on XLA's CPU backend. */
#define HLX_RNG_DEFAULT_ALGORITHM HLX_RNG_PHILOX

/* One Threefry-2x32 (20 rounds) block: x <- threefry(key, x). */
void hlx_threefry2x32(const uint32_t key[2], uint32_t x[2]);
/* One Philox-4x32-10 block: ctr <- philox(key, ctr). */
void hlx_philox4x32(const uint32_t key[2], uint32_t ctr[4]);

/* Fills `out` (shape dims[0..rank), element type `dtype`: any integer,
 * float or pred type; pred takes the low bit) with random bits and writes
 * the updated state (state_size words) to `out_state`. state_size: 2 for
 * THREE_FRY, 2 or 3 for PHILOX. */
hlx_status_t hlx_ref_rng_bit_generator(hlx_rng_algorithm_t alg,
                                       const uint64_t* state,
                                       int32_t state_size,
                                       uint64_t* out_state, hlx_dtype_t dtype,
                                       int32_t rank, const int64_t* dims,
                                       void* out) HLX_MUST_USE;

typedef enum hlx_rng_distribution_t {
  HLX_RNG_UNIFORM,
  HLX_RNG_NORMAL,
} hlx_rng_distribution_t;

/* The rng op, deterministic: the bits are Philox-4x32 blocks with key
 * (lo32(seed), hi32(seed)) and counters 0, 1, ... (32-bit draws for types up
 * to 32 bits, 64-bit draws for 64-bit types).
 * UNIFORM over [a, b): floats take the top mantissa-width bits as u in
 * [0, 1) and return a + u * (b - a) computed in f32 (f64 for f64), nudged
 * below b if rounding reached it; integers (and pred) return
 * a + bits mod (b - a) (a when b <= a). NORMAL (float types only):
 * Box-Muller on pairs of uniforms, a + b * z.
 * `a` and `b` are scalars of `dtype`; n elements are written. The graph
 * lowering seeds each rng op with its source position (line << 32 | col),
 * so a program gives the same numbers on every run. */
hlx_status_t hlx_ref_rng(hlx_rng_distribution_t dist, hlx_dtype_t dtype,
                         const void* a, const void* b, uint64_t seed,
                         int64_t n, void* out) HLX_MUST_USE;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_RNG_H_ */
