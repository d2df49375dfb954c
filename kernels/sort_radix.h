/* LSD radix sort for the common sort: one key (JAX's sort / argsort
 * comparators, recognised by the graph as an hlx_sort_key_t) on a 4-byte
 * operand, every other operand a payload carried along.
 *
 * Each slice's keys are mapped to u32 whose unsigned order is the key's
 * (TOTALORDER: sign-magnitude to offset binary; FLOAT: the same after
 * -0 -> +0, as IEEE `<` makes them equal; SIGNED: sign bit flipped;
 * descending: complemented), paired with their index and sorted by 8-bit
 * digits, skipping digits every key shares. LSD radix sort is stable, and
 * with these maps the comparator is a strict weak order, so the result is
 * the unique stable order: bit-for-bit hlx_ref_sort's. The one comparator
 * that is no strict weak order, FLOAT with a NaN present, is declined. */
#ifndef HLX_KERNELS_SORT_RADIX_H_
#define HLX_KERNELS_SORT_RADIX_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/parallel.h"
#include "base/status.h"
#include "kernels/sort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Slices shorter than this are left to the merge sort (histogram cost). */
#define HLX_SORT_RADIX_MIN_N 256

/* True when the key's (dtype, order) is one the radix sort maps: f32
 * (FLOAT, TOTALORDER, with or without canonicalisation), s32 / u32
 * (SIGNED, UNSIGNED); slices of HLX_SORT_RADIX_MIN_N to 2^32 - 1 elements. */
bool hlx_sort_radix_supported(const hlx_dtype_t* dtypes, int32_t rank,
                              const int64_t* dims, int32_t axis,
                              const hlx_sort_key_t* key);

/* Same arguments as hlx_ref_sort with one key. *done = false (nothing
 * written) when not supported or the FLOAT key holds a NaN; the caller
 * then runs hlx_ref_sort. Slices are split across `par`. Errors: out of
 * memory. */
hlx_status_t hlx_sort_radix(int32_t num_operands, const hlx_dtype_t* dtypes,
                            int32_t rank, const int64_t* dims, int32_t axis,
                            const hlx_sort_key_t* key, const void* const* in,
                            void* const* out, const hlx_parallel_t* par,
                            bool* done) HLX_MUST_USE;

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_SORT_RADIX_H_ */
