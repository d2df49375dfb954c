/* Reference reduce: elements are widened chunk by chunk into a compute
 * domain (f64 for real floats, s64/u64 for integers, c128 for complex),
 * combined in row-major order into per-output accumulators, and narrowed
 * once at the end. Integer add/multiply wrap exactly as in the narrow type
 * (arithmetic mod 2^64 then truncation). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/elementwise.h"
#include "kernels/reduce.h"

typedef enum { DOM_F64, DOM_S64, DOM_U64, DOM_C128 } domain_t;

static domain_t domain_of(hlx_dtype_t t, hlx_dtype_t* dt) {
  if (hlx_dtype_is_complex(t)) {
    *dt = HLX_DTYPE_C128;
    return DOM_C128;
  }
  if (hlx_dtype_is_float(t)) {
    *dt = HLX_DTYPE_F64;
    return DOM_F64;
  }
  if (hlx_dtype_is_signed_int(t)) {
    *dt = HLX_DTYPE_S64;
    return DOM_S64;
  }
  *dt = HLX_DTYPE_U64;
  return DOM_U64;
}

static bool supported(hlx_reduce_op_t op, hlx_dtype_t t) {
  bool bitwise = op == HLX_REDUCE_AND || op == HLX_REDUCE_OR ||
                 op == HLX_REDUCE_XOR;
  if (bitwise) return hlx_dtype_is_int(t) || hlx_dtype_is_pred(t);
  if (hlx_dtype_is_complex(t))
    return op == HLX_REDUCE_ADD || op == HLX_REDUCE_MUL;
  return t != HLX_DTYPE_INVALID && t < HLX_DTYPE_COUNT;
}

static double fmax_nan(double a, double b) {
  if (isnan(a) || isnan(b)) return NAN;
  return a > b ? a : (b > a ? b : (signbit(a) ? b : a));
}
static double fmin_nan(double a, double b) {
  if (isnan(a) || isnan(b)) return NAN;
  return a < b ? a : (b < a ? b : (signbit(a) ? a : b));
}

#define COMBINE_INT(T)                                          \
  static void combine_##T(hlx_reduce_op_t op, T* acc, T x) {    \
    switch (op) {                                               \
      case HLX_REDUCE_ADD: *acc = (T)((uint64_t)*acc + (uint64_t)x); break; \
      case HLX_REDUCE_MUL: *acc = (T)((uint64_t)*acc * (uint64_t)x); break; \
      case HLX_REDUCE_MAX: if (x > *acc) *acc = x; break;       \
      case HLX_REDUCE_MIN: if (x < *acc) *acc = x; break;       \
      case HLX_REDUCE_AND: *acc &= x; break;                    \
      case HLX_REDUCE_OR: *acc |= x; break;                     \
      case HLX_REDUCE_XOR: *acc ^= x; break;                    \
    }                                                           \
  }
COMBINE_INT(int64_t)
COMBINE_INT(uint64_t)

static void combine_f64(hlx_reduce_op_t op, double* acc, double x) {
  switch (op) {
    case HLX_REDUCE_ADD: *acc += x; break;
    case HLX_REDUCE_MUL: *acc *= x; break;
    case HLX_REDUCE_MAX: *acc = fmax_nan(*acc, x); break;
    case HLX_REDUCE_MIN: *acc = fmin_nan(*acc, x); break;
    default: break;
  }
}

static void combine_c128(hlx_reduce_op_t op, double* acc, const double* x) {
  if (op == HLX_REDUCE_ADD) {
    acc[0] += x[0];
    acc[1] += x[1];
  } else {
    double re = acc[0] * x[0] - acc[1] * x[1];
    double im = acc[0] * x[1] + acc[1] * x[0];
    acc[0] = re;
    acc[1] = im;
  }
}

bool hlx_ref_reduce(hlx_reduce_op_t op, hlx_dtype_t t, int32_t rank,
                    const int64_t* dims, uint32_t reduce_mask, const void* in,
                    const void* init, void* out) {
  if (!supported(op, t) || rank > 32) return false;
  /* On i1, add is logical or and multiply logical and (as in the spec's
   * elementwise ops). */
  if (hlx_dtype_is_pred(t) && op == HLX_REDUCE_ADD) op = HLX_REDUCE_OR;
  if (hlx_dtype_is_pred(t) && op == HLX_REDUCE_MUL) op = HLX_REDUCE_AND;
  hlx_dtype_t dt;
  domain_t dom = domain_of(t, &dt);
  size_t ds = hlx_dtype_size(dt), es = hlx_dtype_size(t);
  /* Output strides per input dim (0 for reduced dims). */
  int64_t ostride[32], n_in = 1, n_out = 1;
  for (int32_t d = rank - 1; d >= 0; d--) {
    n_in *= dims[d];
    if (reduce_mask & (1u << d)) {
      ostride[d] = 0;
    } else {
      ostride[d] = n_out;
      n_out *= dims[d];
    }
  }
  unsigned char* acc = malloc((size_t)n_out * ds + ds);
  enum { kChunk = 4096 };
  unsigned char* chunk = malloc((size_t)kChunk * ds);
  unsigned char init_d[16];
  if (!acc || !chunk) {
    free(acc);
    free(chunk);
    return false;
  }
  hlx_ref_convert(t, init, dt, init_d, 1);
  for (int64_t i = 0; i < n_out; i++) memcpy(acc + (size_t)i * ds, init_d, ds);
  int64_t idx[32] = {0}, off = 0;
  for (int64_t base = 0; base < n_in; base += kChunk) {
    int64_t cnt = n_in - base < kChunk ? n_in - base : kChunk;
    hlx_ref_convert(t, (const unsigned char*)in + (size_t)base * es, dt, chunk,
                    (size_t)cnt);
    for (int64_t j = 0; j < cnt; j++) {
      unsigned char* a = acc + (size_t)off * ds;
      const unsigned char* x = chunk + (size_t)j * ds;
      switch (dom) {
        case DOM_F64: combine_f64(op, (double*)a, *(const double*)x); break;
        case DOM_S64: combine_int64_t(op, (int64_t*)a, *(const int64_t*)x); break;
        case DOM_U64:
          combine_uint64_t(op, (uint64_t*)a, *(const uint64_t*)x);
          break;
        case DOM_C128: combine_c128(op, (double*)a, (const double*)x); break;
      }
      for (int32_t d = rank - 1; d >= 0; d--) {
        off += ostride[d];
        if (++idx[d] < dims[d]) break;
        off -= ostride[d] * dims[d];
        idx[d] = 0;
      }
    }
  }
  hlx_ref_convert(dt, acc, t, out, (size_t)n_out);
  free(acc);
  free(chunk);
  return true;
}
