/* sort and top_k reference kernels.
 *
 * Every sort here is a stable merge sort of an index permutation per 1-D
 * slice, followed by a gather of every operand through the permutation, so
 * the inputs are never written and all operands move together. Two ways to
 * compare:
 *  - hlx_ref_sort: a list of native keys compared lexicographically (the
 *    comparators JAX and XLA emit: `compare LT/GT` on one operand's pair of
 *    arguments, chained with `or(lt, and(eq, rest))`), keys precomputed per
 *    slice;
 *  - hlx_ref_sort_custom: any comparator, called as a function per
 *    comparison (the graph runs the comparator region there).
 * Scratch memory is allocated once per call, never per comparison. */
#ifndef HLX_KERNELS_SORT_H_
#define HLX_KERNELS_SORT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_sort_order_t {
  HLX_SORT_SIGNED,     /* integers, sign-extended from the dtype's width */
  HLX_SORT_UNSIGNED,   /* integers read as unsigned; pred (false < true) */
  HLX_SORT_FLOAT,      /* IEEE `<` and `==`: NaN is unordered, -0 == +0 */
  HLX_SORT_TOTALORDER, /* IEEE totalOrder: -NaN < -Inf < -0 < +0 < +NaN */
} hlx_sort_order_t;

/* One key: compare(lhs, rhs) with direction LT (ascending) or GT
 * (descending) on operand `operand` under `order`. With `canonicalize`,
 * each element x (of a float dtype) is first replaced by
 *   isnan(x) ? nan_bits : (x == match_bits (IEEE) ? zero_bits : x)
 * which is the -0/NaN canonicalisation JAX puts in front of TOTALORDER
 * compares; the *_bits are element bit patterns of the operand's dtype. */
typedef struct hlx_sort_key_t {
  int32_t operand;
  hlx_sort_order_t order;
  bool descending;
  bool canonicalize;
  uint64_t match_bits, zero_bits, nan_bits;
} hlx_sort_key_t;

/* True when (dtype, order) is a valid key (no complex; FLOAT/TOTALORDER
 * only for floats; SIGNED/UNSIGNED for ints and pred). */
bool hlx_sort_key_supported(hlx_dtype_t dtype, hlx_sort_order_t order);

/* Sorts every 1-D slice along `axis` of `num_operands` tensors that all
 * have shape dims[0..rank). Element i precedes j when, for the first key
 * where they are not equal, lt(i, j) holds (keys[0] decides first; equal on
 * every key: original order kept). out[k] receives operand k sorted.
 * Errors: invalid arguments, out of memory. */
hlx_status_t hlx_ref_sort(int32_t num_operands, const hlx_dtype_t* dtypes,
                          int32_t rank, const int64_t* dims, int32_t axis,
                          const hlx_sort_key_t* keys, int32_t num_keys,
                          const void* const* in, void* const* out)
    HLX_MUST_USE;

/* The general comparator: *less = comparator(lhs, rhs), where lhs and rhs
 * are flat (row-major) element offsets into the operands. A non-NULL status
 * stops the sort and is returned. */
typedef hlx_status_t (*hlx_sort_less_fn)(void* user, int64_t lhs, int64_t rhs,
                                         bool* less);

/* Stable sort with a general comparator; elem_sizes[k] is the byte size of
 * operand k's elements. */
hlx_status_t hlx_ref_sort_custom(int32_t num_operands,
                                 const size_t* elem_sizes, int32_t rank,
                                 const int64_t* dims, int32_t axis,
                                 hlx_sort_less_fn less, void* user,
                                 const void* const* in, void* const* out)
    HLX_MUST_USE;

/* top_k along the last dim: `rows` rows of n elements each; values/indices
 * are rows x k. Largest first in IEEE totalOrder for floats (+NaN above
 * +Inf, +0 above -0), signed/unsigned order for ints, false < true for
 * pred; equal elements keep their original order (lower index first), as
 * XLA does. Complex dtypes are not ordered: invalid argument. */
hlx_status_t hlx_ref_top_k(hlx_dtype_t dtype, int64_t rows, int64_t n,
                           int64_t k, const void* in, void* values,
                           int32_t* indices) HLX_MUST_USE;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_SORT_H_ */
