/* uniform quantize / dequantize / requantize reference kernels. */
#include "kernels/quant.h"

#include <math.h>

#include "base/float_formats.h"
#include "kernels/elementwise.h"

enum { kChunk = 256 };

/* v rounded to the float type t. */
static inline double round_to(hlx_dtype_t t, double v) {
  switch (t) {
    case HLX_DTYPE_F32:
      return (double)(float)v;
    case HLX_DTYPE_F64:
      return v;
    case HLX_DTYPE_F16:
      return (double)hlx_f16_to_f32(hlx_f64_to_f16(v));
    case HLX_DTYPE_BF16:
      return (double)hlx_bf16_to_f32(hlx_f64_to_bf16(v));
    default:
      if (hlx_dtype_is_small_float(t))
        return hlx_small_float_to_f64(t, hlx_f64_to_small_float(t, v));
      return v;
  }
}

static hlx_status_t check(const hlx_quant_params_t* q, const char* what) {
  if (!q || !hlx_dtype_is_int(q->storage) || !hlx_dtype_is_float(q->expressed) ||
      q->channels < 1 || q->inner < 1 || !q->scales || !q->zero_points ||
      q->storage_min > q->storage_max)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: invalid quantization parameters", what);
  return NULL;
}

static inline int64_t channel(const hlx_quant_params_t* q, int64_t i) {
  return q->channels == 1 ? 0 : (i / q->inner) % q->channels;
}

/* Dequantizes n (<= kChunk) storage ints starting at global index base. */
static void deq_chunk(const hlx_quant_params_t* q, const int64_t* s,
                      double* y, int64_t base, int64_t n) {
  const hlx_dtype_t e = q->expressed;
  for (int64_t i = 0; i < n; i++) {
    int64_t ch = channel(q, base + i);
    double sub = round_to(e, (double)(s[i] - q->zero_points[ch]));
    y[i] = round_to(e, sub * round_to(e, q->scales[ch]));
  }
}

static void q_chunk(const hlx_quant_params_t* q, const double* x, int64_t* s,
                    int64_t base, int64_t n) {
  const hlx_dtype_t e = q->expressed;
  const double lo = round_to(e, (double)q->storage_min);
  const double hi = round_to(e, (double)q->storage_max);
  for (int64_t i = 0; i < n; i++) {
    int64_t ch = channel(q, base + i);
    double v = round_to(e, round_to(e, x[i]) / round_to(e, q->scales[ch]));
    v = round_to(e, v + round_to(e, (double)q->zero_points[ch]));
    if (v != v) {
      s[i] = 0;
      continue;
    }
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    v = nearbyint(v); /* default rounding mode: half to even */
    int64_t r = (int64_t)v;
    if (r < q->storage_min) r = q->storage_min;
    if (r > q->storage_max) r = q->storage_max;
    s[i] = r;
  }
}

hlx_status_t hlx_ref_dequantize(const hlx_quant_params_t* q, const void* x,
                                hlx_dtype_t y_type, void* y, int64_t n) {
  HLX_RETURN_IF_ERROR(check(q, "uniform_dequantize"));
  if (!hlx_dtype_is_float(y_type))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "uniform_dequantize: result type %s is not a "
                           "float type",
                           hlx_dtype_name(y_type));
  size_t xs = hlx_dtype_size(q->storage), ys = hlx_dtype_size(y_type);
  int64_t s[kChunk];
  double d[kChunk];
  for (int64_t b = 0; b < n; b += kChunk) {
    int64_t m = n - b < kChunk ? n - b : kChunk;
    hlx_ref_convert(q->storage, (const char*)x + (size_t)b * xs,
                    HLX_DTYPE_S64, s, (size_t)m);
    deq_chunk(q, s, d, b, m);
    hlx_ref_convert(HLX_DTYPE_F64, d, y_type, (char*)y + (size_t)b * ys,
                    (size_t)m);
  }
  return NULL;
}

hlx_status_t hlx_ref_quantize(const hlx_quant_params_t* q,
                              hlx_dtype_t x_type, const void* x, void* y,
                              int64_t n) {
  HLX_RETURN_IF_ERROR(check(q, "uniform_quantize"));
  if (!hlx_dtype_is_float(x_type))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "uniform_quantize: operand type %s is not a float "
                           "type",
                           hlx_dtype_name(x_type));
  size_t xs = hlx_dtype_size(x_type), ys = hlx_dtype_size(q->storage);
  int64_t s[kChunk];
  double d[kChunk];
  for (int64_t b = 0; b < n; b += kChunk) {
    int64_t m = n - b < kChunk ? n - b : kChunk;
    hlx_ref_convert(x_type, (const char*)x + (size_t)b * xs, HLX_DTYPE_F64, d,
                    (size_t)m);
    q_chunk(q, d, s, b, m);
    hlx_ref_convert(HLX_DTYPE_S64, s, q->storage, (char*)y + (size_t)b * ys,
                    (size_t)m);
  }
  return NULL;
}

hlx_status_t hlx_ref_requantize(const hlx_quant_params_t* in,
                                const hlx_quant_params_t* out, const void* x,
                                void* y, int64_t n) {
  HLX_RETURN_IF_ERROR(check(in, "uniform_quantize"));
  HLX_RETURN_IF_ERROR(check(out, "uniform_quantize"));
  size_t xs = hlx_dtype_size(in->storage), ys = hlx_dtype_size(out->storage);
  int64_t s[kChunk];
  double d[kChunk];
  for (int64_t b = 0; b < n; b += kChunk) {
    int64_t m = n - b < kChunk ? n - b : kChunk;
    hlx_ref_convert(in->storage, (const char*)x + (size_t)b * xs,
                    HLX_DTYPE_S64, s, (size_t)m);
    deq_chunk(in, s, d, b, m);
    q_chunk(out, d, s, b, m);
    hlx_ref_convert(HLX_DTYPE_S64, s, out->storage,
                    (char*)y + (size_t)b * ys, (size_t)m);
  }
  return NULL;
}
