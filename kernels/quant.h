/* Uniform quantization kernels: quantize, dequantize, requantize.
 *
 * Semantics are the StableHLO spec's `quantize` / `dequantize` helpers:
 *   dequantize(x) = convert(x_storage - zero_point, expressed) * scale
 *   quantize(x)   = round_nearest_even(clamp(storage_min,
 *                       x / scale + zero_point, storage_max))
 * with every floating-point step rounded to the expressed type (f32, f16,
 * bf16 or f64) and the storage subtraction done exactly in 64-bit ints.
 * NaN quantizes to 0. Requantize is dequantize followed by quantize.
 * Storage values are one per byte for sub-byte types, as everywhere. */
#ifndef HLX_KERNELS_QUANT_H_
#define HLX_KERNELS_QUANT_H_

#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_quant_params_t {
  hlx_dtype_t storage;   /* integer storage type */
  hlx_dtype_t expressed; /* float type the arithmetic is rounded to */
  int64_t storage_min, storage_max;
  /* 1 for per-tensor; per-axis: the size of the quantized dimension, and
   * element i of a row-major tensor uses channel (i / inner) % channels. */
  int64_t channels;
  int64_t inner;
  const double* scales;       /* channels entries */
  const int64_t* zero_points; /* channels entries */
} hlx_quant_params_t;

/* y (n elements of float type y_type; normally q->expressed) =
 * dequantize(x), x in q->storage. */
hlx_status_t hlx_ref_dequantize(const hlx_quant_params_t* q, const void* x,
                                hlx_dtype_t y_type, void* y,
                                int64_t n) HLX_MUST_USE;
/* y (q->storage) = quantize(x), x of float type x_type (normally
 * q->expressed). */
hlx_status_t hlx_ref_quantize(const hlx_quant_params_t* q,
                              hlx_dtype_t x_type, const void* x, void* y,
                              int64_t n) HLX_MUST_USE;
/* y (out->storage) = quantize(dequantize(x, in), out). */
hlx_status_t hlx_ref_requantize(const hlx_quant_params_t* in,
                                const hlx_quant_params_t* out, const void* x,
                                void* y, int64_t n) HLX_MUST_USE;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_QUANT_H_ */
