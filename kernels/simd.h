/* Signatures of the ISA kernel variants (kernels/x86/<isa>/) and their
 * declarations, generated from the family enumerators (elementwise.inc,
 * reduce.inc, data_movement.inc). Kernel names are hlx_<dtype>_<op>__<isa>;
 * x32/x64 name kernels that move any 4/8-byte type. Callers normally go
 * through kernels/dispatch.h rather than naming a variant. */
#ifndef HLX_KERNELS_SIMD_H_
#define HLX_KERNELS_SIMD_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/elementwise.h"
#include "kernels/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* compare with FLOAT ordering (NaN: EQ/GE/GT/LE/LT false, NE true):
 * y[i] = a[i] <dir> b[i] as one byte 0/1. */
typedef void (*hlx_compare_fn)(hlx_compare_dir_t dir, const void* a,
                               const void* b, uint8_t* y, size_t n);

/* y[i] = pred[i] ? on_true[i] : on_false[i] (pred bytes, nonzero = true). */
typedef void (*hlx_select_fn)(const uint8_t* pred, const void* on_true,
                              const void* on_false, void* y, size_t n);

/* A reduction collapsed to three dims [outer, reduced, inner]:
 *   out[o * inner + c] = *init (+) in[(o * reduced + r) * inner + c], r < reduced
 * with the semantics of hlx_ref_reduce (max/min propagate NaN as the
 * canonical quiet NaN and order -0 < +0). */
typedef void (*hlx_reduce3_fn)(const void* in, size_t outer, size_t reduced,
                               size_t inner, const void* init, void* out);

/* out[c * out_stride + r] = in[r * in_stride + c] for r < rows, c < cols
 * (strides in elements, may be negative). */
typedef void (*hlx_transpose_fn)(const void* in, int64_t in_stride, void* out,
                                 int64_t out_stride, size_t rows, size_t cols);

/* A 2-D pooling window over f32 (reduce_window with a max/min/add body,
 * no dilation): `planes` independent images of h x w (x c channels for
 * NHWC; c = 1 for NCHW, where a plane is one (n, c) pair) pooled to
 * oh x ow with window kh x kw, strides sh/sw and low padding ph/pw (padded
 * positions contribute init, as in hlx_ref_reduce_window). */
typedef struct hlx_pool2d_t {
  int64_t planes, h, w, c, oh, ow, kh, kw, sh, sw, ph, pw;
} hlx_pool2d_t;
/* out = reduce_window(in) for one geometry; window positions are combined
 * in row-major order from init, rounding to f32 at every step. */
typedef void (*hlx_pool2d_fn)(const hlx_pool2d_t* g, const float* in,
                              float init, float* out);

/* Embedding lookup: out row i (row_bytes) = the table row at
 * clamp(idx[i], 0, n_rows - 1), rows row_stride bytes apart; idx holds n
 * int32 (idx64 false) or int64 values. n_rows >= 1. */
typedef void (*hlx_gather_rows_fn)(const void* table, int64_t n_rows,
                                   int64_t row_stride, size_t row_bytes,
                                   const void* idx, bool idx64, int64_t n,
                                   void* out);
/* Scatter-add of f32 rows, in order i = 0..n-1: table row idx[i] (row_stride
 * floats apart from row 0 at `table`, first row_len of them) += updates row
 * i (row_len floats) for the indices in the window [row_lo, row_hi) of the
 * table's [0, n_rows); the others are skipped. Disjoint windows may run on
 * different threads, each with every index (destination partitioning:
 * results identical to one call). */
typedef void (*hlx_scatter_add_rows_fn)(float* table, int64_t n_rows,
                                        int64_t row_lo, int64_t row_hi,
                                        int64_t row_stride,
                                        int64_t row_len, const void* idx,
                                        bool idx64, int64_t n,
                                        const float* updates);

/* selected[i] = the row-major input offset window i selects (cur = first
 * input element of the window, then cur = x whenever !(cur <dir> x); -1 if
 * the window holds no input element), as hlx_ref_window_select. */
typedef void (*hlx_pool2d_select_fn)(const hlx_pool2d_t* g, const float* in,
                                     int64_t* selected);

#if defined(__x86_64__) || defined(__aarch64__) /* the lists guard each ISA */
#define HLX_POOL_SELECT(ISA, DIR, LAYOUT, fn) \
  void fn(const hlx_pool2d_t*, const float*, int64_t*);
#include "kernels/window_kernels.inc"
#define HLX_GATHER_ROWS(ISA, fn)                                           \
  void fn(const void*, int64_t, int64_t, size_t, const void*, bool, int64_t, \
          void*);
#define HLX_SCATTER_ADD_ROWS(ISA, fn)                                  \
  void fn(float*, int64_t, int64_t, int64_t, int64_t, int64_t, const void*, \
          bool, int64_t, const float*);
#include "kernels/gather_kernels.inc"
#define HLX_POOL_KERNEL(ISA, OP, LAYOUT, fn) \
  void fn(const hlx_pool2d_t*, const float*, float, float*);
#include "kernels/window_kernels.inc"
#define HLX_EW_INCLUDE_EXT
#define HLX_EW_CONVERT(ISA, FROM, TO, fn) void fn(const void*, void*, size_t);
#define HLX_EW_UNARY(ISA, OP, DTYPE, fn) void fn(const void*, void*, size_t);
#define HLX_EW_BINARY(ISA, OP, DTYPE, fn) \
  void fn(const void*, const void*, void*, size_t);
#define HLX_EW_COMPARE(ISA, DTYPE, fn) \
  void fn(hlx_compare_dir_t, const void*, const void*, uint8_t*, size_t);
#define HLX_EW_SELECT(ISA, ELEM_SIZE, fn) \
  void fn(const uint8_t*, const void*, const void*, void*, size_t);
#include "kernels/elementwise.inc"
#undef HLX_EW_UNARY
#undef HLX_EW_BINARY
#undef HLX_EW_COMPARE
#undef HLX_EW_SELECT
#define HLX_REDUCE_KERNEL(ISA, OP, DTYPE, fn) \
  void fn(const void*, size_t, size_t, size_t, const void*, void*);
#include "kernels/reduce.inc"
#undef HLX_REDUCE_KERNEL
#define HLX_TRANSPOSE_KERNEL(ISA, ELEM_SIZE, TILE, fn) \
  void fn(const void*, int64_t, void*, int64_t, size_t, size_t);
#include "kernels/data_movement.inc"
#undef HLX_TRANSPOSE_KERNEL
#endif

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_SIMD_H_ */
