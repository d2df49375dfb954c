/* Linear-time scans: the cumulative reduce_window pattern JAX emits for
 * cumsum / cumprod / cummax / cummin (window N along one axis, padding
 * (N-1, 0), or (0, N-1) for the reverse variants, every other dim left
 * alone). The reference runs it in O(N * window); this runs each line once.
 *
 * Results, against hlx_ref_reduce_window on the same window:
 *  - forward (padding (W-1, 0)): bit-for-bit for every dtype and op (but
 *    f32 add along the innermost axis in the ISA kernels, hlx_scan; the
 *    scalar hlx_ref_scan is bit-for-bit there too). The reference starts each output
 *    from init, folds init once per hole and then x[0..i] in order; with
 *    init (+) init == init (checked) that is out[i] = out[i-1] (+) x[i],
 *    out[-1] = init, which is what runs here.
 *  - f32 add along the innermost axis (both directions) in the ISA kernels
 *    (kernels/scan_kernels.inc, kernels/x86/scan_impl.h): a running carry
 *    plus the in-register prefix of each vector-wide block (log-step
 *    within the block, the carry adding whole blocks' totals), 3x+ faster
 *    than the sequential chain, whose add latency bounds it. Like any order, its
 *    error is |out[i] - exact| <= gamma(i + 1) * sum_{j<=i} |x[j]|,
 *    gamma(k) = k * eps / (1 - k * eps), so it differs from the reference
 *    by at most twice that.
 *  - reverse (padding (0, W-1)): the reference folds x[i], x[i+1], ... left
 *    to right; this folds right to left, out[i] = x[i] (+) out[i+1],
 *    out[N] = init. Bit-for-bit for integers, pred and float max/min (up
 *    to NaN payloads); float add/mul round in the other order: for sums,
 *    |out[i] - exact| <= gamma(N - i) * sum_j |x[j]|, the same bound as
 *    the reference's, so the two differ by at most twice that.
 * Any init with init (+) init != init (bitwise) is left to the reference
 * (hlx_scan returns false). When the axis is innermost, the scalar scan
 * runs 8 lines at once (independent dependency chains), each a cache line
 * behind the previous one, and the f32 add ISA kernels one line after
 * another; otherwise column blocks run one row at a time (vectorisable).
 * Large inputs are split by groups of 8 lines (or column blocks) across
 * `par`, so results do not depend on the thread count. */
#ifndef HLX_KERNELS_SCAN_H_
#define HLX_KERNELS_SCAN_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/parallel.h"
#include "kernels/reduce.h"
#include "kernels/window.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dense row-major [outer, n, inner]; the scan runs along n. */
typedef struct hlx_scan_t {
  int64_t outer, n, inner;
  bool reverse;
} hlx_scan_t;

/* True when window w is a cumulative scan (see above): one dim d with
 * window[d] >= max(2, in_dims[d]) and padding (window[d] - 1, 0) or
 * (0, window[d] - 1), out_dims == in_dims, unit strides and dilations,
 * every other dim a size-1 window without padding. Fills *s. */
bool hlx_window_as_scan(const hlx_window_t* w, hlx_scan_t* s);

/* True when hlx_scan has a kernel for (op, t): f32, f64, signed and
 * unsigned 8-64-bit integers (add, mul, max, min; and/or/xor for
 * integers) and pred (add = or, mul = and, max, min, and, or, xor). */
bool hlx_scan_supported(hlx_reduce_op_t op, hlx_dtype_t t);

/* The reference scan: scalar kernels only (the oracle of the ISA kernels).
 * Returns false (nothing written) when (op, t) is not supported or
 * init (+) init != init. The dispatched entry point, with the ISA kernels
 * of kernels/scan_kernels.inc, is hlx_scan (kernels/dispatch.h). */
bool hlx_ref_scan(hlx_reduce_op_t op, hlx_dtype_t t, const hlx_scan_t* s,
                  const void* in, const void* init, void* out,
                  const hlx_parallel_t* par);

/* f32 add along the innermost axis: `lines` lines of n elements, row-major
 * at x and y, each out[i] = init + x[0] + ... + x[i] (reverse: from the
 * end) in the order of kernels/x86/scan_impl.h; `stream`: non-temporal
 * stores (outputs beyond the last-level cache). */
typedef void (*hlx_scan_add_f32_fn)(const float* x, float* y, int64_t lines,
                                    int64_t n, float init, bool reverse,
                                    bool stream);
#define HLX_SCAN_ADD_F32(ISA, fn)                                      \
  void fn(const float* x, float* y, int64_t lines, int64_t n, float init, \
          bool reverse, bool stream);
#include "kernels/scan_kernels.inc"

/* hlx_ref_scan with f32 adds along the innermost axis run by `add_f32`
 * (NULL: the scalar kernel); what hlx_scan calls with the dispatched
 * variant. */
bool hlx_scan_with(hlx_reduce_op_t op, hlx_dtype_t t, const hlx_scan_t* s,
                   const void* in, const void* init, void* out,
                   const hlx_parallel_t* par, hlx_scan_add_f32_fn add_f32);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_SCAN_H_ */
