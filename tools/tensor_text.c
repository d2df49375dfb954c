#include "tools/tensor_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/float_formats.h"

typedef struct out_t {
  char** buf;
  size_t *len, *cap;
  bool ok;
} out_t;

static void put(out_t* o, const char* fmt, ...) {
  if (!o->ok) return;
  va_list ap;
  va_start(ap, fmt);
  char tmp[256];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
  if (*o->len + (size_t)n + 1 > *o->cap) {
    size_t cap = (*o->cap ? *o->cap * 2 : 256) + (size_t)n;
    char* g = realloc(*o->buf, cap);
    if (!g) {
      o->ok = false;
      return;
    }
    *o->buf = g;
    *o->cap = cap;
  }
  memcpy(*o->buf + *o->len, tmp, (size_t)n + 1);
  *o->len += (size_t)n;
}

static double real_at(hlx_dtype_t t, const unsigned char* p) {
  if (t == HLX_DTYPE_F32) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  if (t == HLX_DTYPE_F64) {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  uint32_t bits = 0;
  memcpy(&bits, p, hlx_dtype_size(t));
  return hlx_small_float_to_f64(t, bits);
}

/* One element; `dense` selects MLIR's complex spelling. */
static void element(out_t* o, hlx_dtype_t t, const unsigned char* p,
                    bool dense) {
  if (hlx_dtype_is_pred(t)) {
    put(o, "%s", *p ? "true" : "false");
  } else if (hlx_dtype_is_complex(t)) {
    hlx_dtype_t part = hlx_dtype_complex_part(t);
    size_t ps = hlx_dtype_size(part);
    put(o, dense ? "(%e,%e)" : "[%e, %e]", real_at(part, p),
        real_at(part, p + ps));
  } else if (hlx_dtype_is_float(t)) {
    put(o, "%e", real_at(t, p));
  } else {
    size_t es = hlx_dtype_size(t);
    uint64_t u = 0;
    memcpy(&u, p, es);
    int bits = hlx_dtype_bits(t);
    if (hlx_dtype_is_signed_int(t)) {
      int64_t v = bits >= 64 ? (int64_t)u
                             : (int64_t)(u << (64 - bits)) >> (64 - bits);
      put(o, "%lld", (long long)v);
    } else {
      if (bits < 64) u &= (1ull << bits) - 1;
      put(o, "%llu", (unsigned long long)u);
    }
  }
}

/* Row-major elements of dims[d..] from p, as nested lists. */
static const unsigned char* nested(out_t* o, hlx_dtype_t t, int32_t rank,
                                   const int64_t* dims, int32_t d,
                                   const unsigned char* p, int indent,
                                   bool dense) {
  size_t es = hlx_dtype_size(t);
  if (dims[d] == 0) {
    put(o, "[]");
    return p;
  }
  if (d == rank - 1 || dense) {
    if (d == rank - 1) {
      put(o, "[");
      for (int64_t i = 0; i < dims[d]; i++) {
        if (i) put(o, ", ");
        element(o, t, p, dense);
        p += es;
      }
      put(o, "]");
      return p;
    }
    put(o, "[");
    for (int64_t i = 0; i < dims[d]; i++) {
      if (i) put(o, ", ");
      p = nested(o, t, rank, dims, d + 1, p, indent, dense);
    }
    put(o, "]");
    return p;
  }
  put(o, "[\n");
  for (int64_t i = 0; i < dims[d]; i++) {
    put(o, "%*s", indent + 2, "");
    p = nested(o, t, rank, dims, d + 1, p, indent + 2, dense);
    put(o, i + 1 < dims[d] ? ",\n" : "\n");
  }
  put(o, "%*s]", indent, "");
  return p;
}

static void type_text(out_t* o, hlx_dtype_t t, int32_t rank,
                      const int64_t* dims) {
  put(o, "tensor<");
  for (int32_t i = 0; i < rank; i++) put(o, "%lldx", (long long)dims[i]);
  put(o, "%s>", hlx_dtype_name(t));
}

bool hlx_tensor_text(hlx_dtype_t t, int32_t rank, const int64_t* dims,
                     const void* data, bool dense, char** buf, size_t* len,
                     size_t* cap) {
  out_t o = {buf, len, cap, true};
  const unsigned char* p = data;
  size_t es = hlx_dtype_size(t);
  int64_t n = 1;
  for (int32_t i = 0; i < rank; i++) n *= dims[i];
  if (dense) {
    put(&o, "dense<");
    bool splat = n > 0;
    for (int64_t i = 1; i < n && splat; i++)
      splat = memcmp(p, p + (size_t)i * es, es) == 0;
    if (n == 0) {
      /* dense<> */
    } else if (splat || rank == 0) {
      element(&o, t, p, true);
    } else {
      nested(&o, t, rank, dims, 0, p, 0, true);
    }
    put(&o, "> : ");
    type_text(&o, t, rank, dims);
    return o.ok;
  }
  type_text(&o, t, rank, dims);
  if (rank == 0) {
    put(&o, " {");
    element(&o, t, p, false);
    put(&o, "}");
    return o.ok;
  }
  put(&o, " {\n  ");
  nested(&o, t, rank, dims, 0, p, 2, false);
  put(&o, "\n}");
  return o.ok;
}
