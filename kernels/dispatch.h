/* Kernel dispatch: the best variant for this CPU at the current ISA cap
 * (kernels/cpu_features.h: detected level, HLX_MAX_ISA, the test setter),
 * falling back to the reference kernels for every (op, dtype) without an
 * optimised variant. Each family's table (kernels/dispatch/<family>_config.c)
 * is filled once, at first use, from the family enumerator (.inc) and the
 * CPU features; a lookup picks the table of the current cap.
 *
 * Results: bit-identical to the reference except the f32 transcendentals
 * (<= 1 ULP, see kernels/x86/elementwise_impl.h) and f32 sums and
 * cumulative sums (another summation order, see kernels/x86/reduce_impl.h
 * and kernels/scan.h); NaN payloads may differ.
 * Lookups are thread-safe. */
#ifndef HLX_KERNELS_DISPATCH_H_
#define HLX_KERNELS_DISPATCH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/parallel.h"
#include "kernels/cpu_features.h"
#include "kernels/data_movement.h"
#include "kernels/elementwise.h"
#include "kernels/gather_scatter.h"
#include "kernels/reduce.h"
#include "kernels/scan.h"
#include "kernels/simd.h"
#include "kernels/window.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Like hlx_ref_unary_kernel / hlx_ref_binary_kernel (same NULL and
 * out-dtype contract), returning the dispatched variant when one exists. */
hlx_unary_fn hlx_unary_kernel(hlx_unary_op_t op, hlx_dtype_t in,
                              hlx_dtype_t* out);
hlx_binary_fn hlx_binary_kernel(hlx_binary_op_t op, hlx_dtype_t in,
                                hlx_dtype_t* out);

/* The variant compiled for exactly `isa` (no fallback; NULL if there is
 * none or the CPU cannot run it). HLX_ISA_REFERENCE gives the reference
 * kernel. For tests and benchmarks. */
hlx_unary_fn hlx_unary_kernel_for_isa(hlx_unary_op_t op, hlx_dtype_t in,
                                      hlx_isa_t isa);
hlx_binary_fn hlx_binary_kernel_for_isa(hlx_binary_op_t op, hlx_dtype_t in,
                                        hlx_isa_t isa);

/* hlx_ref_compare / hlx_ref_select with dispatched fast paths. */
bool hlx_compare(hlx_compare_dir_t dir, hlx_compare_type_t type,
                 hlx_dtype_t t, const void* a, const void* b, uint8_t* y,
                 size_t n);
void hlx_select(size_t elem_size, const uint8_t* pred, bool pred_scalar,
                const void* on_true, const void* on_false, void* y, size_t n);

/* hlx_ref_convert with dispatched fast paths (f32 <-> bf16/f16, bit-exact).
 * hlx_convert_kernel_for_isa: the variant compiled for exactly `isa`, or
 * NULL (no reference fallback). */
bool hlx_convert(hlx_dtype_t from, const void* x, hlx_dtype_t to, void* y,
                 size_t n);
hlx_unary_fn hlx_convert_kernel_for_isa(hlx_dtype_t from, hlx_dtype_t to,
                                        hlx_isa_t isa);

/* hlx_ref_reduce with dispatched fast paths (f32 add/max/min whose reduced
 * dims form one contiguous group after merging adjacent dims). */
bool hlx_reduce(hlx_reduce_op_t op, hlx_dtype_t t, int32_t rank,
                const int64_t* dims, uint32_t reduce_mask, const void* in,
                const void* init, void* out);
/* The [outer, reduced, inner] kernel for (op, t) at the current cap, or
 * NULL. */
hlx_reduce3_fn hlx_reduce3_kernel(hlx_reduce_op_t op, hlx_dtype_t t);

/* hlx_ref_copy_strided with a tiled in-register transpose when, after
 * merging dims contiguous in both layouts, one input dim is contiguous and
 * the innermost output dim is strided in the input (1/2/4/8-byte elements,
 * or runs of those moving together). */
void hlx_copy_strided(size_t elem_size, int32_t rank, const int64_t* dims,
                      const void* in, const int64_t* in_strides, void* out,
                      const int64_t* out_strides);
/* The same, large tiled copies split across par's threads (par may be
 * NULL): each thread transposes a range of input rows (output columns). */
void hlx_copy_strided_par(size_t elem_size, int32_t rank, const int64_t* dims,
                          const void* in, const int64_t* in_strides, void* out,
                          const int64_t* out_strides,
                          const hlx_parallel_t* par);
/* Whether hlx_copy_strided takes the tiled path for these arguments. */
bool hlx_copy_strided_is_tiled(size_t elem_size, int32_t rank,
                               const int64_t* dims, const void* in,
                               const int64_t* in_strides, const void* out,
                               const int64_t* out_strides);
hlx_transpose_fn hlx_transpose_kernel(size_t elem_size);

/* hlx_ref_reduce_window with dispatched fast paths: f32 max/min/add 2-D
 * pooling (rank 4, no dilation, window on dims 2-3 with width stride <= 2
 * = NCHW, or on dims 1-2 = NHWC); bit-identical to the reference except
 * NaN payloads. Same return contract. */
bool hlx_reduce_window(hlx_reduce_op_t op, hlx_dtype_t t,
                       const hlx_window_t* w, const void* in,
                       const void* init, void* out);
/* Whether w is such a 2-D pooling geometry; fills g and the layout. */
bool hlx_window_as_pool2d(const hlx_window_t* w, bool* nhwc,
                          hlx_pool2d_t* g);
/* hlx_ref_window_select with dispatched fast paths: f32, GE (max pooling's
 * gradient) or LE, FLOAT/DEFAULT compare, the same pooling geometries as
 * hlx_reduce_window. Identical results; same return contract. */
bool hlx_window_select(hlx_compare_dir_t dir, hlx_compare_type_t type,
                       hlx_dtype_t t, const hlx_window_t* w,
                       const void* operand, int64_t* selected);
hlx_pool2d_select_fn hlx_pool2d_select_kernel_for_isa(hlx_compare_dir_t dir,
                                                      bool nhwc,
                                                      hlx_isa_t isa);
/* The pooling variant compiled for exactly `isa` (NULL if none/unusable). */
hlx_pool2d_fn hlx_pool2d_kernel_for_isa(hlx_reduce_op_t op, bool nhwc,
                                        hlx_isa_t isa);

/* hlx_ref_scan (kernels/scan.h) with f32 sums along the innermost axis
 * run by the best variant of kernels/scan_kernels.inc (another summation
 * order, bounded in kernels/scan.h); same return contract. The variant
 * compiled for exactly `isa`: hlx_scan_add_f32_kernel (NULL if none). */
bool hlx_scan(hlx_reduce_op_t op, hlx_dtype_t t, const hlx_scan_t* s,
              const void* in, const void* init, void* out,
              const hlx_parallel_t* par);
hlx_scan_add_f32_fn hlx_scan_add_f32_kernel(hlx_isa_t isa);

/* hlx_ref_gather / hlx_ref_scatter with dispatched fast paths for the
 * embedding pattern: a 2-D operand whose dim-0 rows are picked by int32/
 * int64 scalar indices (any index batch shape, trailing index vector of 1
 * or implicit), no batching dims; gather copies (a prefix of) each row,
 * scatter adds f32 update rows. Bit-identical to the reference (scatter:
 * NaN payloads aside); same contracts. With par (may be NULL) large ones
 * run on its threads: gathers split by output rows, scatter-adds by
 * destination rows (each thread applies, in index order, the updates that
 * land in its rows), so the results do not depend on the thread count. */
void hlx_gather(const hlx_gather_params_t* p, size_t elem_size,
                const void* operand, const void* indices, void* result,
                const hlx_parallel_t* par);
bool hlx_scatter(const hlx_scatter_params_t* p, hlx_scatter_combiner_t comb,
                 hlx_dtype_t t, const void* indices, const void* updates,
                 void* out, const hlx_parallel_t* par);
/* Whether p is that pattern; *n = number of looked-up rows. */
bool hlx_gather_is_row_lookup(const hlx_gather_params_t* p, int64_t* n);
bool hlx_scatter_is_row_update(const hlx_scatter_params_t* p, int64_t* n);
/* The variants compiled for exactly `isa` (NULL if none/unusable). */
hlx_gather_rows_fn hlx_gather_rows_kernel(hlx_isa_t isa);
hlx_scatter_add_rows_fn hlx_scatter_add_rows_kernel(hlx_isa_t isa);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_DISPATCH_H_ */
