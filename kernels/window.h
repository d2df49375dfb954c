/* Reference windowed kernels: reduce_window and select_and_scatter.
 *
 * A window geometry (hlx_window_t) describes, per dimension, the input
 * size, the window size, its stride, the base (input) dilation, the window
 * dilation and the low padding (may be negative). The "padded input" is the
 * input with base_dilation - 1 holes between elements and pad_lo / pad_hi
 * elements at the edges; window position w of output index o along a
 * dimension reads padded coordinate o * stride + w * window_dilation, which
 * is input element (p - pad_lo) / base_dilation when that is a whole number
 * inside the input and a hole (the init value) otherwise.
 *
 * All tensors are dense and row-major. Windows are visited in row-major
 * order of the window dimensions. */
#ifndef HLX_KERNELS_WINDOW_H_
#define HLX_KERNELS_WINDOW_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "kernels/elementwise.h"
#include "kernels/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HLX_WINDOW_MAX_RANK 16

typedef struct hlx_window_t {
  int32_t rank;
  int64_t in_dims[HLX_WINDOW_MAX_RANK];
  int64_t out_dims[HLX_WINDOW_MAX_RANK];
  int64_t window[HLX_WINDOW_MAX_RANK];
  int64_t stride[HLX_WINDOW_MAX_RANK];
  int64_t base_dilation[HLX_WINDOW_MAX_RANK];
  int64_t window_dilation[HLX_WINDOW_MAX_RANK];
  int64_t pad_lo[HLX_WINDOW_MAX_RANK];
} hlx_window_t;

/* Number of windows along one dimension (the spec's num_windows):
 * 0 when the padded size is 0 or the dilated window does not fit. Returns
 * -1 when a size is negative or the arithmetic overflows. */
int64_t hlx_window_num_windows(int64_t in_dim, int64_t window, int64_t stride,
                               int64_t base_dilation, int64_t window_dilation,
                               int64_t pad_lo, int64_t pad_hi);

/* Elements in one window / in the output (products of window / out_dims). */
int64_t hlx_window_size(const hlx_window_t* w);
int64_t hlx_window_out_count(const hlx_window_t* w);

/* Per-dimension lookup tables: for dimension d, output index o and window
 * position k, tables[d][o * window[d] + k] is the input index along d, or -1
 * for a hole/padding. `tables` receives pointers into `storage`, which must
 * hold sum_d out_dims[d] * window[d] int64s. */
void hlx_window_tables(const hlx_window_t* w, int64_t* storage,
                       int64_t** tables);

/* Fills offsets[k] (k = row-major window position, hlx_window_size entries)
 * with the row-major input element offset that window position k of output
 * element `out_index` (a multi-index) reads, or -1 for a hole. */
void hlx_window_offsets(const hlx_window_t* w, int64_t* const* tables,
                        const int64_t* out_index, int64_t* offsets);

/* reduce_window with a recognised combiner: every output starts from *init
 * and is combined as acc = op(acc, x) over its window in row-major order,
 * holes contributing *init, rounding to the element type after every step
 * exactly as the body region would (pred: add = or, multiply = and).
 * Returns false if (op, t) is unsupported or memory runs out. */
bool hlx_ref_reduce_window(hlx_reduce_op_t op, hlx_dtype_t t,
                           const hlx_window_t* w, const void* in,
                           const void* init, void* out);

/* The select half of select_and_scatter with a compare select region:
 * for each window (row-major over out_dims), selected[i] is the row-major
 * operand offset chosen by
 *   cur = first element; for each next x: if !(cur <dir> x) cur = x
 * over the window's operand elements (padding never selected), or -1 when
 * the window holds no operand element. Base dilation must be 1.
 * Returns false if the comparison is unsupported for t. */
bool hlx_ref_window_select(hlx_compare_dir_t dir, hlx_compare_type_t type,
                           hlx_dtype_t t, const hlx_window_t* w,
                           const void* operand, int64_t* selected);

/* The scatter half: out (n_out elements) = *init everywhere, then for each
 * i < n_source with selected[i] >= 0 in order:
 *   out[selected[i]] = op(out[selected[i]], source[i])
 * rounding in the element type at every step. Returns false if (op, t) is
 * unsupported. */
bool hlx_ref_scatter_selected(hlx_reduce_op_t op, hlx_dtype_t t,
                              int64_t n_source, const int64_t* selected,
                              const void* source, const void* init,
                              int64_t n_out, void* out);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_WINDOW_H_ */
