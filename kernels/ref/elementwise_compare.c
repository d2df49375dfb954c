/* compare, select and clamp.
 *
 * compare widens a chunk of each operand to one canonical form (int64,
 * uint64, double, an int64 totalOrder key, or double pairs) and compares
 * with the direction switched outside the loop, so one tight loop per
 * (form, direction) serves every dtype. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ref/elementwise_internal.h"

typedef enum { K_S64, K_U64, K_F64, K_TOTAL, K_CPLX } kind_t;

typedef union {
  int64_t s[HLX_EW_CHUNK];
  uint64_t u[HLX_EW_CHUNK];
  double f[HLX_EW_CHUNK];
  double c[2 * HLX_EW_CHUNK];
} canon_t;

static uint64_t raw_bits(hlx_dtype_t t, const void* p, size_t i) {
  switch (hlx_dtype_size(t)) {
    case 1: return ((const uint8_t*)p)[i];
    case 2: return ((const uint16_t*)p)[i];
    case 4: return ((const uint32_t*)p)[i];
    default: return ((const uint64_t*)p)[i];
  }
}

/* Load m elements starting at index i of x into c as `kind`. */
static void load_chunk(hlx_dtype_t t, kind_t kind, const void* x, size_t i,
                       size_t m, canon_t* c) {
  const int bits = hlx_dtype_bits(t);
  switch (kind) {
    case K_S64:
    case K_U64: {
      const uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
      for (size_t j = 0; j < m; j++) {
        uint64_t v = raw_bits(t, x, i + j) & mask;
        if (kind == K_S64 && bits < 64) {
          uint64_t sb = (uint64_t)1 << (bits - 1);
          v = (v ^ sb) - sb;
        }
        c->u[j] = v;
      }
      break;
    }
    case K_F64:
      if (t == HLX_DTYPE_F64) {
        memcpy(c->f, (const double*)x + i, m * sizeof(double));
      } else if (t == HLX_DTYPE_F32) {
        const float* f = (const float*)x + i;
        for (size_t j = 0; j < m; j++) c->f[j] = f[j];
      } else {
        float tmp[HLX_EW_CHUNK];
        hlx_internal_narrow_to_f32(t, (const uint8_t*)x + i * hlx_dtype_size(t),
                                   tmp, m);
        for (size_t j = 0; j < m; j++) c->f[j] = tmp[j];
      }
      break;
    case K_TOTAL:
      /* Sign-magnitude bits -> ordered integer key:
       * -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN. */
      for (size_t j = 0; j < m; j++) {
        uint64_t v = raw_bits(t, x, i + j);
        if (t == HLX_DTYPE_F8E8M0FNU) {
          c->s[j] = (int64_t)v;
          continue;
        }
        uint64_t sign = (v >> (bits - 1)) & 1;
        int64_t mag = (int64_t)(v & (((uint64_t)1 << (bits - 1)) - 1));
        c->s[j] = sign ? -1 - mag : mag;
      }
      break;
    case K_CPLX:
      if (t == HLX_DTYPE_C128) {
        memcpy(c->c, (const double*)x + 2 * i, 2 * m * sizeof(double));
      } else {
        const float* f = (const float*)x + 2 * i;
        for (size_t j = 0; j < 2 * m; j++) c->c[j] = f[j];
      }
      break;
  }
}

#define CMP_LOOP(A, B, OP) \
  for (size_t j = 0; j < m; j++) y[j] = (A)[j] OP (B)[j];
#define CMP_DIRS(A, B)                    \
  switch (dir) {                          \
    case HLX_CMP_EQ: CMP_LOOP(A, B, ==) break; \
    case HLX_CMP_NE: CMP_LOOP(A, B, !=) break; \
    case HLX_CMP_GE: CMP_LOOP(A, B, >=) break; \
    case HLX_CMP_GT: CMP_LOOP(A, B, >) break;  \
    case HLX_CMP_LE: CMP_LOOP(A, B, <=) break; \
    case HLX_CMP_LT: CMP_LOOP(A, B, <) break;  \
  }

static void compare_chunk(hlx_compare_dir_t dir, kind_t kind,
                          const canon_t* a, const canon_t* b, uint8_t* y,
                          size_t m) {
  switch (kind) {
    case K_S64:
    case K_TOTAL: CMP_DIRS(a->s, b->s) break;
    case K_U64: CMP_DIRS(a->u, b->u) break;
    case K_F64: CMP_DIRS(a->f, b->f) break;
    case K_CPLX:
      for (size_t j = 0; j < m; j++) {
        double ar = a->c[2 * j], ai = a->c[2 * j + 1];
        double br = b->c[2 * j], bi = b->c[2 * j + 1];
        int r;
        switch (dir) {
          case HLX_CMP_EQ: r = ar == br && ai == bi; break;
          case HLX_CMP_NE: r = !(ar == br && ai == bi); break;
          case HLX_CMP_GE: r = ar > br || (ar == br && ai >= bi); break;
          case HLX_CMP_GT: r = ar > br || (ar == br && ai > bi); break;
          case HLX_CMP_LE: r = ar < br || (ar == br && ai <= bi); break;
          default: r = ar < br || (ar == br && ai < bi); break;
        }
        y[j] = (uint8_t)r;
      }
      break;
  }
}

bool hlx_ref_compare(hlx_compare_dir_t dir, hlx_compare_type_t type,
                     hlx_dtype_t t, const void* a, const void* b, uint8_t* y,
                     size_t n) {
  kind_t kind;
  if ((unsigned)dir > HLX_CMP_LT) return false;
  if (hlx_dtype_is_complex(t)) {
    if (type != HLX_CMP_DEFAULT && type != HLX_CMP_FLOAT) return false;
    kind = K_CPLX;
  } else if (hlx_dtype_is_float(t)) {
    if (type == HLX_CMP_DEFAULT || type == HLX_CMP_FLOAT)
      kind = K_F64;
    else if (type == HLX_CMP_TOTALORDER)
      kind = K_TOTAL;
    else
      return false;
  } else if (hlx_dtype_is_int(t)) {
    if (type == HLX_CMP_DEFAULT)
      kind = hlx_dtype_is_signed_int(t) ? K_S64 : K_U64;
    else if (type == HLX_CMP_SIGNED)
      kind = K_S64;
    else if (type == HLX_CMP_UNSIGNED)
      kind = K_U64;
    else
      return false;
  } else if (hlx_dtype_is_pred(t)) {
    if (type == HLX_CMP_FLOAT || type == HLX_CMP_TOTALORDER) return false;
    kind = K_U64; /* i1 compares unsigned: false < true */
  } else {
    return false;
  }
  canon_t ca, cb;
  for (size_t i = 0; i < n; i += HLX_EW_CHUNK) {
    size_t m = n - i < HLX_EW_CHUNK ? n - i : HLX_EW_CHUNK;
    load_chunk(t, kind, a, i, m, &ca);
    load_chunk(t, kind, b, i, m, &cb);
    compare_chunk(dir, kind, &ca, &cb, y + i, m);
  }
  return true;
}

#define SELECT_LOOP(T)                                             \
  {                                                                \
    const T* tv = (const T*)on_true;                               \
    const T* fv = (const T*)on_false;                              \
    T* out = (T*)y;                                                \
    if (pred_scalar) {                                             \
      memmove(out, pred[0] ? tv : fv, n * sizeof(T));              \
    } else {                                                       \
      for (size_t i = 0; i < n; i++) out[i] = pred[i] ? tv[i] : fv[i]; \
    }                                                              \
  }

typedef struct {
  uint64_t lo, hi;
} u128_t;

void hlx_ref_select(size_t elem_size, const uint8_t* pred, bool pred_scalar,
                    const void* on_true, const void* on_false, void* y,
                    size_t n) {
  switch (elem_size) {
    case 1: SELECT_LOOP(uint8_t) break;
    case 2: SELECT_LOOP(uint16_t) break;
    case 4: SELECT_LOOP(uint32_t) break;
    case 8: SELECT_LOOP(uint64_t) break;
    case 16: SELECT_LOOP(u128_t) break;
    default: {
      const uint8_t* tv = (const uint8_t*)on_true;
      const uint8_t* fv = (const uint8_t*)on_false;
      uint8_t* out = (uint8_t*)y;
      for (size_t i = 0; i < n; i++) {
        const uint8_t* src = pred[pred_scalar ? 0 : i] ? tv : fv;
        memmove(out + i * elem_size, src + i * elem_size, elem_size);
      }
    }
  }
}

/* clamp = minimum(maximum(x, lo), hi), a chunk at a time through the
 * maximum/minimum kernels; scalar bounds are replicated once per call. */
bool hlx_ref_clamp(hlx_dtype_t t, const void* lo, bool lo_scalar,
                   const void* x, const void* hi, bool hi_scalar, void* y,
                   size_t n) {
  hlx_binary_fn fmax = hlx_ref_binary_kernel(HLX_BINARY_MAXIMUM, t, NULL);
  hlx_binary_fn fmin = hlx_ref_binary_kernel(HLX_BINARY_MINIMUM, t, NULL);
  if (!fmax || !fmin) return false;
  const size_t es = hlx_dtype_size(t);
  _Alignas(16) uint8_t lo_rep[HLX_EW_CHUNK * 16];
  _Alignas(16) uint8_t hi_rep[HLX_EW_CHUNK * 16];
  _Alignas(16) uint8_t tmp[HLX_EW_CHUNK * 16];
  size_t reps = n < HLX_EW_CHUNK ? n : HLX_EW_CHUNK;
  if (lo_scalar)
    for (size_t j = 0; j < reps; j++) memcpy(lo_rep + j * es, lo, es);
  if (hi_scalar)
    for (size_t j = 0; j < reps; j++) memcpy(hi_rep + j * es, hi, es);
  const uint8_t* xb = (const uint8_t*)x;
  const uint8_t* lb = (const uint8_t*)lo;
  const uint8_t* hb = (const uint8_t*)hi;
  uint8_t* yb = (uint8_t*)y;
  for (size_t i = 0; i < n; i += HLX_EW_CHUNK) {
    size_t m = n - i < HLX_EW_CHUNK ? n - i : HLX_EW_CHUNK;
    fmax(xb + i * es, lo_scalar ? lo_rep : lb + i * es, tmp, m);
    fmin(tmp, hi_scalar ? hi_rep : hb + i * es, yb + i * es, m);
  }
  return true;
}
