/* One-line text and JSON summaries of a tensor, for `hlx run` / `hlx print`.
 *
 * Text form (fields separated by one space; absent fields are left out):
 *   f32[2,3] first=[0.5, -1.25, 3, ...] min=-1.25 max=3 mean=0.75 nan=0
 *       checksum=0x0123456789abcdef
 *   - type: the MLIR name (hlx_dtype_name: "f32", "i1" for pred,
 *     "complex<f32>"), then the dims; a rank-0 tensor prints "f32[]".
 *   - first: the first max_values elements in row-major order, then "..."
 *     when there are more (max_values < 0 prints every element). Floats are
 *     printed in the shortest form that reads back to the same value of
 *     their type ("0.1" for an f16 0.1), non-finite values as nan, inf,
 *     -inf; ints exactly; pred as true/false; complex as (re,im).
 *   - min, max: over the elements that are not NaN; for pred false/true;
 *     left out for complex, for zero-element tensors and when every element
 *     is NaN.
 *   - mean: arithmetic mean, accumulated in double, of the non-NaN elements
 *     (pred counts true as 1); complex prints (re,im); printed in the
 *     shortest form that round-trips as an f64 for f64/complex<f64> and as
 *     an f32 otherwise. Left out for zero-element tensors and all-NaN ones.
 *   - nan: number of NaN elements (an element of a complex tensor counts
 *     when either part is NaN); only for float and complex types.
 *   - checksum: FNV-1a 64 over the raw bytes of the data (n *
 *     hlx_dtype_size bytes, hlx layout, host byte order), 16 hex digits.
 *
 * JSON form: one object with no whitespace, keys in this order:
 *   {"dtype":"f32","shape":[2,3],"count":6,"first":[0.5,-1.25,3],
 *    "truncated":true,"min":-1.25,"max":3,"mean":0.75,"nan":0,
 *    "checksum":"0x0123456789abcdef"}
 * "truncated" says whether "first" holds fewer than "count" elements.
 * min/max/mean/nan are left out under the same rules as the text form.
 * NaN and infinities are written as the strings "nan", "inf", "-inf" so the
 * output is valid JSON; pred values are true/false; complex values (in
 * "first" and "mean") are two-element arrays [re,im].
 *
 * Errors: INVALID_ARGUMENT for an invalid dtype, negative rank or dims, an
 * element count that overflows, NULL data with elements or NULL out;
 * RESOURCE_EXHAUSTED when out of memory. On success *out is a malloc'd
 * NUL-terminated string the caller frees with free(); on error *out is
 * NULL. `data` (hlx layout, host byte order) is only read. */
#ifndef HLX_TOOLS_SUMMARY_H_
#define HLX_TOOLS_SUMMARY_H_

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

hlx_status_t hlx_tensor_summary(hlx_dtype_t t, int32_t rank,
                                const int64_t* dims, const void* data,
                                int max_values, char** out) HLX_MUST_USE;

hlx_status_t hlx_tensor_summary_json(hlx_dtype_t t, int32_t rank,
                                     const int64_t* dims, const void* data,
                                     int max_values, char** out) HLX_MUST_USE;

/* FNV-1a 64 of n bytes (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3). */
uint64_t hlx_fnv1a64(const void* data, size_t n);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HLX_TOOLS_SUMMARY_H_ */
