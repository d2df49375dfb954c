/* Linear-time cumulative scans (see kernels/scan.h), the reference: portable
 * C, the oracle of the ISA kernels (kernels/scan_kernels.inc), which
 * hlx_scan_with plugs in for f32 sums along the innermost axis. The
 * column-block rows are fixed-width loops the compiler vectorises at -O2;
 * the innermost-axis case scans 8 lines at once (8 dependency chains in
 * flight), skewed against cache-set and 4K aliasing. Every output is
 * computed in the same order as one line alone. */
#include "kernels/scan.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum {
  kLines = 8,
  kCols = 2048,
  kChunk = 16,
  kParallelElems = 1 << 16,
  kStreamElems = 8 << 20 /* 32 MiB of f32: beyond the last-level cache */
};

typedef void (*scan_fn)(const void* in, void* out, const hlx_scan_t* s,
                        const void* init, int64_t u0, int64_t u1);

/* Combiners, rounding in the element type as the reference's elementwise
 * kernels do. Integer add/mul wrap (computed unsigned); float max/min
 * propagate NaN and order -0 < +0. */
#define FLOAT_OPS(T, SFX)                                         \
  static inline T add_##SFX(T a, T b) { return a + b; }           \
  static inline T mul_##SFX(T a, T b) { return a * b; }           \
  static inline T max_##SFX(T a, T b) {                           \
    if (isnan(a) || isnan(b)) return a + b;                       \
    if (a == b) return signbit(a) ? b : a;                        \
    return a > b ? a : b;                                         \
  }                                                               \
  static inline T min_##SFX(T a, T b) {                           \
    if (isnan(a) || isnan(b)) return a + b;                       \
    if (a == b) return signbit(a) ? a : b;                        \
    return a < b ? a : b;                                         \
  }
FLOAT_OPS(float, f32)
FLOAT_OPS(double, f64)

/* Integer add/mul through uint64_t: wraps, no signed overflow. */
#define INT_OPS(T, SFX)                                                     \
  static inline T add_##SFX(T a, T b) {                                     \
    return (T)((uint64_t)a + (uint64_t)b);                                  \
  }                                                                         \
  static inline T mul_##SFX(T a, T b) {                                     \
    return (T)((uint64_t)a * (uint64_t)b);                                  \
  }                                                                         \
  static inline T max_##SFX(T a, T b) { return a > b ? a : b; }             \
  static inline T min_##SFX(T a, T b) { return a < b ? a : b; }             \
  static inline T and_##SFX(T a, T b) { return (T)(a & b); }                \
  static inline T or_##SFX(T a, T b) { return (T)(a | b); }                 \
  static inline T xor_##SFX(T a, T b) { return (T)(a ^ b); }
INT_OPS(int8_t, s8)
INT_OPS(int16_t, s16)
INT_OPS(int32_t, s32)
INT_OPS(int64_t, s64)
INT_OPS(uint8_t, u8)
INT_OPS(uint16_t, u16)
INT_OPS(uint32_t, u32)
INT_OPS(uint64_t, u64)

/* DEFINE_SCAN(NAME, T, COMBINE): COMBINE(a, b) with a the earlier value.
 * Units: groups of kLines lines (inner == 1) or one column block of one
 * outer index (inner > 1). */
#define DEFINE_SCAN(NAME, T, COMBINE)                                        \
  static inline void NAME##_row(T* restrict y, const T* restrict p,         \
                                const T* restrict x, int64_t w, bool rev) { \
    int64_t j = 0;                                                          \
    if (!rev) {                                                             \
      for (; j + kChunk <= w; j += kChunk)                                  \
        for (int q = 0; q < kChunk; q++)                                    \
          y[j + q] = COMBINE(p[j + q], x[j + q]);                           \
      for (; j < w; j++) y[j] = COMBINE(p[j], x[j]);                        \
    } else {                                                                \
      for (; j + kChunk <= w; j += kChunk)                                  \
        for (int q = 0; q < kChunk; q++)                                    \
          y[j + q] = COMBINE(x[j + q], p[j + q]);                           \
      for (; j < w; j++) y[j] = COMBINE(x[j], p[j]);                        \
    }                                                                       \
  }                                                                         \
  static void NAME(const void* vin, void* vout, const hlx_scan_t* s,        \
                   const void* vinit, int64_t u0, int64_t u1) {             \
    const T* in = vin;                                                      \
    T* out = vout;                                                          \
    T init;                                                                 \
    memcpy(&init, vinit, sizeof init);                                      \
    const int64_t n = s->n, inner = s->inner;                               \
    const bool rev = s->reverse;                                            \
    if (inner == 1) {                                                       \
      for (int64_t u = u0; u < u1; u++) {                                   \
        int64_t l0 = u * kLines;                                            \
        int64_t l1 = l0 + kLines < s->outer ? l0 + kLines : s->outer;       \
        const T* x = in + l0 * n;                                           \
        T* y = out + l0 * n;                                                \
        /* 8 lines in lockstep, line k skewed kSkew * k elements behind */ \
        /* line 0: lines n elements apart would otherwise hit the same */   \
        /* L1 set and alias 4K store/load checks when n * size is a    */   \
        /* multiple of 4 KiB. Prologue/epilogue run the partial steps. */   \
        const int64_t S = 64 / (int64_t)sizeof(T), last = (kLines - 1) * S; \
        if (l1 - l0 == kLines && n > last) {                                \
          T a[kLines];                                                      \
          for (int k = 0; k < kLines; k++) a[k] = init;                     \
          for (int64_t t = 0; t < n + last; t++) {                          \
            if (t == last && !rev) {                                        \
              for (; t < n; t++) {                                          \
                _Pragma("GCC unroll 8") for (int k = 0; k < kLines; k++) {  \
                  int64_t p = k * n + t - k * S;                            \
                  y[p] = a[k] = COMBINE(a[k], x[p]);                        \
                }                                                           \
              }                                                             \
            } else if (t == last) {                                         \
              for (; t < n; t++) {                                          \
                _Pragma("GCC unroll 8") for (int k = 0; k < kLines; k++) {  \
                  int64_t p = k * n + (n - 1) - (t - k * S);                \
                  y[p] = a[k] = COMBINE(x[p], a[k]);                        \
                }                                                           \
              }                                                             \
            }                                                               \
            if (t >= n + last) break;                                       \
            for (int k = 0; k < kLines; k++) {                              \
              int64_t j = t - k * S;                                        \
              if (j < 0 || j >= n) continue;                                \
              int64_t p = k * n + (rev ? n - 1 - j : j);                    \
              y[p] = a[k] = rev ? COMBINE(x[p], a[k]) : COMBINE(a[k], x[p]); \
            }                                                               \
          }                                                                 \
          continue;                                                         \
        }                                                                   \
        for (int64_t l = 0; l < l1 - l0; l++) {                             \
          T a = init;                                                       \
          const T* xl = x + l * n;                                          \
          T* yl = y + l * n;                                                \
          if (!rev)                                                         \
            for (int64_t i = 0; i < n; i++) yl[i] = a = COMBINE(a, xl[i]);  \
          else                                                              \
            for (int64_t i = n - 1; i >= 0; i--)                            \
              yl[i] = a = COMBINE(xl[i], a);                                \
        }                                                                   \
      }                                                                     \
      return;                                                               \
    }                                                                       \
    const int64_t nb = (inner + kCols - 1) / kCols;                         \
    T first[kCols];                                                         \
    for (int q = 0; q < kCols; q++) first[q] = init;                        \
    for (int64_t u = u0; u < u1; u++) {                                     \
      int64_t o = u / nb, j0 = (u % nb) * kCols;                            \
      int64_t w = inner - j0 < kCols ? inner - j0 : kCols;                  \
      const T* x = in + o * n * inner + j0;                                 \
      T* y = out + o * n * inner + j0;                                      \
      const T* prev = first;                                                \
      for (int64_t k = 0; k < n; k++) {                                     \
        int64_t i = rev ? n - 1 - k : k;                                    \
        NAME##_row(y + i * inner, prev, x + i * inner, w, rev);             \
        prev = y + i * inner;                                               \
      }                                                                     \
    }                                                                       \
  }


#define FLOAT_SCANS(T, SFX)                   \
  DEFINE_SCAN(scan_add_##SFX, T, add_##SFX)   \
  DEFINE_SCAN(scan_mul_##SFX, T, mul_##SFX)   \
  DEFINE_SCAN(scan_max_##SFX, T, max_##SFX)   \
  DEFINE_SCAN(scan_min_##SFX, T, min_##SFX)
#define INT_SCANS(T, SFX)                     \
  FLOAT_SCANS(T, SFX)                         \
  DEFINE_SCAN(scan_and_##SFX, T, and_##SFX)   \
  DEFINE_SCAN(scan_or_##SFX, T, or_##SFX)     \
  DEFINE_SCAN(scan_xor_##SFX, T, xor_##SFX)
FLOAT_SCANS(float, f32)
FLOAT_SCANS(double, f64)
INT_SCANS(int8_t, s8)
INT_SCANS(int16_t, s16)
INT_SCANS(int32_t, s32)
INT_SCANS(int64_t, s64)
INT_SCANS(uint8_t, u8)
INT_SCANS(uint16_t, u16)
INT_SCANS(uint32_t, u32)
INT_SCANS(uint64_t, u64)

#define PICK_FLOAT(SFX)                        \
  switch (op) {                                \
    case HLX_REDUCE_ADD: return scan_add_##SFX; \
    case HLX_REDUCE_MUL: return scan_mul_##SFX; \
    case HLX_REDUCE_MAX: return scan_max_##SFX; \
    case HLX_REDUCE_MIN: return scan_min_##SFX; \
    default: return NULL;                      \
  }
#define PICK_INT(SFX)                          \
  switch (op) {                                \
    case HLX_REDUCE_ADD: return scan_add_##SFX; \
    case HLX_REDUCE_MUL: return scan_mul_##SFX; \
    case HLX_REDUCE_MAX: return scan_max_##SFX; \
    case HLX_REDUCE_MIN: return scan_min_##SFX; \
    case HLX_REDUCE_AND: return scan_and_##SFX; \
    case HLX_REDUCE_OR: return scan_or_##SFX;   \
    case HLX_REDUCE_XOR: return scan_xor_##SFX; \
    default: return NULL;                      \
  }

static scan_fn scan_kernel(hlx_reduce_op_t op, hlx_dtype_t t) {
  switch (t) {
    case HLX_DTYPE_F32:
      PICK_FLOAT(f32)
    case HLX_DTYPE_F64: PICK_FLOAT(f64)
    case HLX_DTYPE_S8: PICK_INT(s8)
    case HLX_DTYPE_S16: PICK_INT(s16)
    case HLX_DTYPE_S32: PICK_INT(s32)
    case HLX_DTYPE_S64: PICK_INT(s64)
    case HLX_DTYPE_U8: PICK_INT(u8)
    case HLX_DTYPE_U16: PICK_INT(u16)
    case HLX_DTYPE_U32: PICK_INT(u32)
    case HLX_DTYPE_U64: PICK_INT(u64)
    case HLX_DTYPE_PRED:
      /* pred is 0/1 bytes: add = or, multiply = and (StableHLO). */
      if (op == HLX_REDUCE_ADD) op = HLX_REDUCE_OR;
      else if (op == HLX_REDUCE_MUL) op = HLX_REDUCE_AND;
      PICK_INT(u8)
    default: return NULL;
  }
}

bool hlx_scan_supported(hlx_reduce_op_t op, hlx_dtype_t t) {
  return scan_kernel(op, t) != NULL;
}

bool hlx_window_as_scan(const hlx_window_t* w, hlx_scan_t* s) {
  int axis = -1;
  for (int32_t d = 0; d < w->rank; d++) {
    if (w->stride[d] != 1 || w->base_dilation[d] != 1 ||
        w->window_dilation[d] != 1 || w->out_dims[d] != w->in_dims[d])
      return false;
    if (w->window[d] == 1 && w->pad_lo[d] == 0) continue;
    /* out == in with unit strides: pad_lo + pad_hi == window - 1. */
    if (axis >= 0 || w->window[d] < 2 || w->window[d] < w->in_dims[d] ||
        (w->pad_lo[d] != 0 && w->pad_lo[d] != w->window[d] - 1))
      return false;
    axis = d;
  }
  if (axis < 0) return false;
  s->outer = s->inner = 1;
  for (int32_t d = 0; d < axis; d++) s->outer *= w->in_dims[d];
  for (int32_t d = axis + 1; d < w->rank; d++) s->inner *= w->in_dims[d];
  s->n = w->in_dims[axis];
  s->reverse = w->pad_lo[axis] == 0;
  return true;
}

/* Units of kLines lines through an ISA kernel for f32 sums along the
 * innermost axis. */
static void add_f32_units(hlx_scan_add_f32_fn fn, const hlx_scan_t* s,
                          const void* vin, void* vout, const void* vinit,
                          int64_t u0, int64_t u1) {
  float init;
  memcpy(&init, vinit, sizeof init);
  int64_t l0 = u0 * kLines, l1 = u1 * kLines < s->outer ? u1 * kLines : s->outer;
  if (l0 < l1)
    fn((const float*)vin + l0 * s->n, (float*)vout + l0 * s->n, l1 - l0, s->n,
       init, s->reverse, s->outer * s->n >= kStreamElems);
}

typedef struct scan_job_t {
  scan_fn fn;
  hlx_scan_add_f32_fn add_f32; /* instead of fn when set */
  const void* in;
  void* out;
  const hlx_scan_t* s;
  const void* init;
} scan_job_t;

static void run_units(void* arg, size_t begin, size_t end) {
  const scan_job_t* j = arg;
  if (j->add_f32)
    add_f32_units(j->add_f32, j->s, j->in, j->out, j->init, (int64_t)begin,
                  (int64_t)end);
  else
    j->fn(j->in, j->out, j->s, j->init, (int64_t)begin, (int64_t)end);
}

bool hlx_scan_with(hlx_reduce_op_t op, hlx_dtype_t t, const hlx_scan_t* s,
                   const void* in, const void* init, void* out,
                   const hlx_parallel_t* par, hlx_scan_add_f32_fn add_f32) {
  scan_fn fn = scan_kernel(op, t);
  if (!fn) return false;
  /* init folded with itself must stay init (the holes' contribution). */
  unsigned char twice[8];
  size_t es = hlx_dtype_size(t);
  hlx_scan_t one = {1, 1, 1, false};
  fn(init, twice, &one, init, 0, 1);
  if (memcmp(twice, init, es) != 0) return false;
  if (s->outer <= 0 || s->n <= 0 || s->inner <= 0) return true;
  int64_t units, per_unit;
  if (s->inner == 1) {
    units = (s->outer + kLines - 1) / kLines;
    per_unit = kLines * s->n;
  } else {
    units = s->outer * ((s->inner + kCols - 1) / kCols);
    per_unit = kCols * s->n;
  }
  size_t grain = per_unit >= kParallelElems
                     ? 1
                     : (size_t)(kParallelElems / per_unit);
  bool vector_add = add_f32 && t == HLX_DTYPE_F32 && op == HLX_REDUCE_ADD &&
                    s->inner == 1;
  scan_job_t job = {fn, vector_add ? add_f32 : NULL, in, out, s, init};
  hlx_parallel_for(par, (size_t)units, grain, run_units, &job);
  return true;
}

bool hlx_ref_scan(hlx_reduce_op_t op, hlx_dtype_t t, const hlx_scan_t* s,
                  const void* in, const void* init, void* out,
                  const hlx_parallel_t* par) {
  return hlx_scan_with(op, t, s, in, init, out, par, NULL);
}
