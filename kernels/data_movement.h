/* Reference data-movement kernels. Shapes are row-major; strides are in
 * elements and may be zero (broadcast) or negative (reverse). Every layout
 * op of StableHLO (transpose, broadcast_in_dim, slice, reverse, pad,
 * concatenate, dynamic_slice, ...) lowers to these. */
#ifndef HLX_KERNELS_DATA_MOVEMENT_H_
#define HLX_KERNELS_DATA_MOVEMENT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HLX_KERNEL_MAX_RANK 16

/* For every index i < dims (rank entries):
 *   out[sum i_k * out_strides[k]] = in[sum i_k * in_strides[k]]
 * `in` and `out` point at the element of index 0. rank 0 copies one
 * element. Runs of unit strides are copied with memcpy. */
void hlx_ref_copy_strided(size_t elem_size, int32_t rank, const int64_t* dims,
                          const void* in, const int64_t* in_strides, void* out,
                          const int64_t* out_strides);

/* Fills n elements of elem_size bytes with *value. */
void hlx_ref_fill(size_t elem_size, const void* value, void* out, size_t n);

/* Row-major strides (in elements) of dims. */
void hlx_row_major_strides(int32_t rank, const int64_t* dims,
                           int64_t* strides);

/* out[i] = index of i along dimension `dim`, as int64 (the caller converts
 * to the element type). */
void hlx_ref_iota_s64(int32_t rank, const int64_t* dims, int32_t dim,
                      int64_t* out);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_DATA_MOVEMENT_H_ */
