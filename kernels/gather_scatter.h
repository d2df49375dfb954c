/* Reference gather and scatter kernels (StableHLO gather, dynamic_gather,
 * scatter) with the full dimension numbers, batching dims included.
 *
 * The parameter structs mirror the spec's attributes. Kernels assume the
 * caller checked the spec's constraints (graph/lower/gather_scatter.c does);
 * they never allocate per element and never write their inputs.
 *
 * Index elements may be of any integer type (i2..i64, ui2..ui64; sub-byte
 * types stored one per byte, sign-extended for signed types). Unsigned
 * values above INT64_MAX are read as INT64_MAX (clamped by gather, out of
 * bounds for scatter). */
#ifndef HLX_KERNELS_GATHER_SCATTER_H_
#define HLX_KERNELS_GATHER_SCATTER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "kernels/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HLX_GS_MAX_RANK 16

typedef struct hlx_gather_params_t {
  int32_t operand_rank;
  int64_t operand_dims[HLX_GS_MAX_RANK];
  int32_t indices_rank;
  int64_t indices_dims[HLX_GS_MAX_RANK];
  hlx_dtype_t index_dtype;
  /* == indices_rank: every index element is a 1-vector (implicit trailing
   * dimension of size 1). */
  int32_t index_vector_dim;
  int32_t num_offset_dims;
  int64_t offset_dims[HLX_GS_MAX_RANK]; /* result axes, sorted */
  int32_t num_collapsed;
  int64_t collapsed_slice_dims[HLX_GS_MAX_RANK];
  int32_t num_batching; /* operand_batching_dims / start_indices_batching_dims */
  int64_t operand_batching_dims[HLX_GS_MAX_RANK];
  int64_t start_indices_batching_dims[HLX_GS_MAX_RANK];
  int32_t num_start_index_map;
  int64_t start_index_map[HLX_GS_MAX_RANK];
  int64_t slice_sizes[HLX_GS_MAX_RANK]; /* operand_rank entries */
} hlx_gather_params_t;

/* The result shape the spec's (C22) prescribes: returns its rank, writes
 * the dims (at most HLX_GS_MAX_RANK; -1 if the rank would exceed it). */
int32_t hlx_gather_result_shape(const hlx_gather_params_t* p, int64_t* dims);

/* result[result_index] = operand[operand_index] as the spec defines it:
 * start indices clamped to [0, dim - slice_size], batching dims taken from
 * the batch index. `result` has the shape of hlx_gather_result_shape. */
void hlx_ref_gather(const hlx_gather_params_t* p, size_t elem_size,
                    const void* operand, const void* indices, void* result);

typedef struct hlx_scatter_params_t {
  int32_t input_rank;
  int64_t input_dims[HLX_GS_MAX_RANK];
  int32_t indices_rank;
  int64_t indices_dims[HLX_GS_MAX_RANK];
  hlx_dtype_t index_dtype;
  int32_t index_vector_dim; /* == indices_rank: implicit trailing 1 */
  int32_t update_rank;
  int64_t update_dims[HLX_GS_MAX_RANK];
  int32_t num_update_window_dims;
  int64_t update_window_dims[HLX_GS_MAX_RANK]; /* update axes, sorted */
  int32_t num_inserted;
  int64_t inserted_window_dims[HLX_GS_MAX_RANK];
  int32_t num_batching; /* input_batching_dims / scatter_indices_batching_dims */
  int64_t input_batching_dims[HLX_GS_MAX_RANK];
  int64_t scatter_indices_batching_dims[HLX_GS_MAX_RANK];
  int32_t num_scatter_dims;
  int64_t scatter_dims_to_operand_dims[HLX_GS_MAX_RANK];
} hlx_scatter_params_t;

/* Called for `count` consecutive update elements (row-major linear offsets
 * update_off .. update_off+count-1) that land on the consecutive result
 * elements result_off .. result_off+count-1. Nonzero stops the walk. */
typedef int (*hlx_scatter_visit_fn)(void* ctx, int64_t result_off,
                                    int64_t update_off, int64_t count);

/* Walks every update element in row-major order of the update index (the
 * spec's order), skipping those whose full result index is out of bounds,
 * and calls `visit` for runs of them. Returns the first nonzero value visit
 * returned, else 0. */
int hlx_ref_scatter_visit(const hlx_scatter_params_t* p, const void* indices,
                          hlx_scatter_visit_fn visit, void* ctx);

/* How scatter combines: a reduce combiner, or plain replacement (the region
 * `return %update`). */
typedef struct hlx_scatter_combiner_t {
  bool replace;
  hlx_reduce_op_t op; /* when !replace */
} hlx_scatter_combiner_t;

/* True when hlx_ref_scatter supports (combiner, dtype): replace for every
 * dtype; add/mul/max/min for numbers (and pred); and/or/xor for integers and
 * pred. */
bool hlx_scatter_supported(hlx_scatter_combiner_t comb, hlx_dtype_t t);

/* Updates `out` in place: out must already hold the input tensor. Each
 * in-bounds update element u does out[r] = combine(out[r], updates[u]) with
 * the elementwise op's exact semantics (f16/bf16 rounded per step, max/min
 * propagating NaN, integers wrapping), in row-major update order. Returns
 * false if unsupported. */
bool hlx_ref_scatter(const hlx_scatter_params_t* p, hlx_scatter_combiner_t comb,
                     hlx_dtype_t t, const void* indices, const void* updates,
                     void* out);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_GATHER_SCATTER_H_ */
