#include "tools/summary.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/float_formats.h"

uint64_t hlx_fnv1a64(const void* data, size_t n) {
  const uint8_t* p = (const uint8_t*)data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* ------------------------------------------------------- string builder */

typedef struct {
  char* p;
  size_t len, cap;
  bool oom;
} sb_t;

static void sb_printf(sb_t* b, const char* fmt, ...) HLX_PRINTF(2, 3);
static void sb_printf(sb_t* b, const char* fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0,
                      fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->p && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap ? b->cap : 128;
    while (cap <= b->len + (size_t)n) cap *= 2;
    char* q = realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
}

/* ---------------------------------------------------------- elements */

static double real_at(hlx_dtype_t t, const uint8_t* p, size_t i) {
  switch (t) {
    case HLX_DTYPE_F32: {
      float f;
      memcpy(&f, p + 4 * i, 4);
      return f;
    }
    case HLX_DTYPE_F64: {
      double d;
      memcpy(&d, p + 8 * i, 8);
      return d;
    }
    case HLX_DTYPE_F16:
    case HLX_DTYPE_BF16: {
      uint16_t h;
      memcpy(&h, p + 2 * i, 2);
      return hlx_small_float_to_f64(t, h);
    }
    default:
      return hlx_small_float_to_f64(t, p[i]);
  }
}

static int64_t sint_at(hlx_dtype_t t, const uint8_t* p, size_t i) {
  switch (t) {
    case HLX_DTYPE_S2:
    case HLX_DTYPE_S4: {
      int sh = 8 - hlx_dtype_bits(t);
      return (int8_t)(uint8_t)(p[i] << sh) >> sh;
    }
    case HLX_DTYPE_S8:
      return (int8_t)p[i];
    case HLX_DTYPE_S16: {
      int16_t v;
      memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case HLX_DTYPE_S32: {
      int32_t v;
      memcpy(&v, p + 4 * i, 4);
      return v;
    }
    default: {
      int64_t v;
      memcpy(&v, p + 8 * i, 8);
      return v;
    }
  }
}

static uint64_t uint_at(hlx_dtype_t t, const uint8_t* p, size_t i) {
  switch (t) {
    case HLX_DTYPE_U2:
    case HLX_DTYPE_U4:
      return p[i] & ((1u << hlx_dtype_bits(t)) - 1);
    case HLX_DTYPE_U8:
      return p[i];
    case HLX_DTYPE_U16: {
      uint16_t v;
      memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case HLX_DTYPE_U32: {
      uint32_t v;
      memcpy(&v, p + 4 * i, 4);
      return v;
    }
    default: {
      uint64_t v;
      memcpy(&v, p + 8 * i, 8);
      return v;
    }
  }
}

static void complex_at(hlx_dtype_t t, const uint8_t* p, size_t i, double* re,
                       double* im) {
  if (t == HLX_DTYPE_C64) {
    float v[2];
    memcpy(v, p + 8 * i, 8);
    *re = v[0];
    *im = v[1];
  } else {
    double v[2];
    memcpy(v, p + 16 * i, 16);
    *re = v[0];
    *im = v[1];
  }
}

/* Whether the decimal text s reads back to v as a value of type t (F64,
 * F32 or a narrow float). */
static bool reads_back(hlx_dtype_t t, const char* s, double v) {
  if (t == HLX_DTYPE_F64) return strtod(s, NULL) == v;
  if (t == HLX_DTYPE_F32) return strtof(s, NULL) == (float)v;
  return hlx_f64_to_small_float(t, strtod(s, NULL)) ==
         hlx_f64_to_small_float(t, v);
}

/* Shortest %g form of v that reads back to the same value of type t;
 * integers below 1e16 that %g would put in exponent form are printed in
 * full instead ("-65504", not "-6.55e+04"); "nan", "inf", "-inf" for the
 * non-finite, quoted when json. */
static void fmt_real(hlx_dtype_t t, double v, bool json, char* buf,
                     size_t cap) {
  if (isnan(v) || isinf(v)) {
    const char* s = isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
    snprintf(buf, cap, json ? "\"%s\"" : "%s", s);
    return;
  }
  int maxp = t == HLX_DTYPE_F64 ? 17 : 9;
  int prec = 1;
  for (; prec <= maxp; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (reads_back(t, buf, v)) break;
  }
  if (prec > maxp) snprintf(buf, cap, "%.17g", v);
  const char* e = strchr(buf, 'e');
  if (e && atoi(e + 1) >= 0 && atoi(e + 1) < 16) {
    char full[48];
    snprintf(full, sizeof full, "%.0f", v);
    if (reads_back(t, full, v)) snprintf(buf, cap, "%s", full);
  }
}

/* ------------------------------------------------------------ summary */

typedef enum { K_PRED, K_SINT, K_UINT, K_REAL, K_COMPLEX } kind_t;

static kind_t kind_of(hlx_dtype_t t) {
  if (hlx_dtype_is_pred(t)) return K_PRED;
  if (hlx_dtype_is_signed_int(t)) return K_SINT;
  if (hlx_dtype_is_unsigned_int(t)) return K_UINT;
  if (hlx_dtype_is_complex(t)) return K_COMPLEX;
  return K_REAL;
}

/* Appends element i. */
static void put_elem(sb_t* b, hlx_dtype_t t, kind_t k, const uint8_t* p,
                     size_t i, bool json) {
  char x[48], y[48];
  switch (k) {
    case K_PRED:
      sb_printf(b, "%s", p[i] ? "true" : "false");
      break;
    case K_SINT:
      sb_printf(b, "%" PRId64, sint_at(t, p, i));
      break;
    case K_UINT:
      sb_printf(b, "%" PRIu64, uint_at(t, p, i));
      break;
    case K_REAL:
      fmt_real(t, real_at(t, p, i), json, x, sizeof x);
      sb_printf(b, "%s", x);
      break;
    case K_COMPLEX: {
      double re, im;
      complex_at(t, p, i, &re, &im);
      hlx_dtype_t part = hlx_dtype_complex_part(t);
      fmt_real(part, re, json, x, sizeof x);
      fmt_real(part, im, json, y, sizeof y);
      sb_printf(b, json ? "[%s,%s]" : "(%s,%s)", x, y);
      break;
    }
  }
}

static hlx_status_t summarize(hlx_dtype_t t, int32_t rank, const int64_t* dims,
                              const void* data, int max_values, bool json,
                              char** out) {
  const char* what = json ? "tensor_summary_json" : "tensor_summary";
  if (!out)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "%s: out is NULL",
                           what);
  *out = NULL;
  if (t <= HLX_DTYPE_INVALID || t >= HLX_DTYPE_COUNT)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: invalid dtype %d", what, (int)t);
  if (rank < 0 || (rank > 0 && !dims))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: bad rank %d or NULL dims", what, (int)rank);
  size_t es = hlx_dtype_size(t);
  uint64_t count = 1;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] < 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s: dimension %d is negative (%" PRId64 ")",
                             what, (int)i, dims[i]);
    uint64_t d = (uint64_t)dims[i];
    if (d != 0 && count > (uint64_t)SIZE_MAX / es / d)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s: element count overflows", what);
    count *= d;
  }
  if (count && !data)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: data is NULL for %" PRIu64 " elements", what,
                           count);
  const uint8_t* p = (const uint8_t*)data;
  const size_t n = (size_t)count;
  const kind_t k = kind_of(t);

  /* Statistics. */
  uint64_t nan = 0, valid = 0;
  double sum = 0, sum_im = 0;
  double fmin = 0, fmax = 0;
  int64_t smin = 0, smax = 0;
  uint64_t umin = 0, umax = 0;
  for (size_t i = 0; i < n; i++) {
    switch (k) {
      case K_PRED: {
        uint64_t v = p[i] != 0;
        if (!valid || v < umin) umin = v;
        if (!valid || v > umax) umax = v;
        sum += (double)v;
        break;
      }
      case K_SINT: {
        int64_t v = sint_at(t, p, i);
        if (!valid || v < smin) smin = v;
        if (!valid || v > smax) smax = v;
        sum += (double)v;
        break;
      }
      case K_UINT: {
        uint64_t v = uint_at(t, p, i);
        if (!valid || v < umin) umin = v;
        if (!valid || v > umax) umax = v;
        sum += (double)v;
        break;
      }
      case K_REAL: {
        double v = real_at(t, p, i);
        if (isnan(v)) {
          nan++;
          continue;
        }
        if (!valid || v < fmin) fmin = v;
        if (!valid || v > fmax) fmax = v;
        sum += v;
        break;
      }
      case K_COMPLEX: {
        double re, im;
        complex_at(t, p, i, &re, &im);
        if (isnan(re) || isnan(im)) {
          nan++;
          continue;
        }
        sum += re;
        sum_im += im;
        break;
      }
    }
    valid++;
  }

  sb_t b = {0};
  const char* name = hlx_dtype_name(t);
  size_t shown = max_values < 0 || (uint64_t)max_values > count
                     ? n
                     : (size_t)max_values;
  bool truncated = shown < n;
  if (json) {
    sb_printf(&b, "{\"dtype\":\"%s\",\"shape\":[", name);
    for (int32_t i = 0; i < rank; i++)
      sb_printf(&b, "%s%" PRId64, i ? "," : "", dims[i]);
    sb_printf(&b, "],\"count\":%" PRIu64 ",\"first\":[", count);
  } else {
    sb_printf(&b, "%s[", name);
    for (int32_t i = 0; i < rank; i++)
      sb_printf(&b, "%s%" PRId64, i ? "," : "", dims[i]);
    sb_printf(&b, "] first=[");
  }
  for (size_t i = 0; i < shown; i++) {
    if (i) sb_printf(&b, json ? "," : ", ");
    put_elem(&b, t, k, p, i, json);
  }
  if (json)
    sb_printf(&b, "],\"truncated\":%s", truncated ? "true" : "false");
  else
    sb_printf(&b, "%s]", truncated ? (shown ? ", ..." : "...") : "");

  const char* eq = json ? "\":" : "=";
  const char* pre = json ? ",\"" : " ";
  char x[48], y[48];
  if (valid > 0 && k != K_COMPLEX) {
    switch (k) {
      case K_PRED:
        sb_printf(&b, "%smin%s%s%smax%s%s", pre, eq,
                  umin ? "true" : "false", pre, eq, umax ? "true" : "false");
        break;
      case K_SINT:
        sb_printf(&b, "%smin%s%" PRId64 "%smax%s%" PRId64, pre, eq, smin, pre,
                  eq, smax);
        break;
      case K_UINT:
        sb_printf(&b, "%smin%s%" PRIu64 "%smax%s%" PRIu64, pre, eq, umin, pre,
                  eq, umax);
        break;
      default:
        fmt_real(t, fmin, json, x, sizeof x);
        fmt_real(t, fmax, json, y, sizeof y);
        sb_printf(&b, "%smin%s%s%smax%s%s", pre, eq, x, pre, eq, y);
        break;
    }
  }
  if (valid > 0) {
    hlx_dtype_t mt =
        (t == HLX_DTYPE_F64 || t == HLX_DTYPE_C128) ? HLX_DTYPE_F64
                                                    : HLX_DTYPE_F32;
    double mre = sum / (double)valid;
    if (mt == HLX_DTYPE_F32) mre = (float)mre;
    fmt_real(mt, mre, json, x, sizeof x);
    if (k == K_COMPLEX) {
      double mim = sum_im / (double)valid;
      if (mt == HLX_DTYPE_F32) mim = (float)mim;
      fmt_real(mt, mim, json, y, sizeof y);
      sb_printf(&b, json ? "%smean%s[%s,%s]" : "%smean%s(%s,%s)", pre, eq, x,
                y);
    } else {
      sb_printf(&b, "%smean%s%s", pre, eq, x);
    }
  }
  if (k == K_REAL || k == K_COMPLEX)
    sb_printf(&b, "%snan%s%" PRIu64, pre, eq, nan);
  uint64_t h = hlx_fnv1a64(p, n * es);
  if (json)
    sb_printf(&b, ",\"checksum\":\"0x%016" PRIx64 "\"}", h);
  else
    sb_printf(&b, " checksum=0x%016" PRIx64, h);

  if (b.oom || !b.p) {
    free(b.p);
    return hlx_status_oom();
  }
  *out = b.p;
  return NULL;
}

hlx_status_t hlx_tensor_summary(hlx_dtype_t t, int32_t rank,
                                const int64_t* dims, const void* data,
                                int max_values, char** out) {
  return summarize(t, rank, dims, data, max_values, false, out);
}

hlx_status_t hlx_tensor_summary_json(hlx_dtype_t t, int32_t rank,
                                     const int64_t* dims, const void* data,
                                     int max_values, char** out) {
  return summarize(t, rank, dims, data, max_values, true, out);
}
