/* sort / top_k: stable bottom-up merge sort of an index permutation per
 * slice, then a gather of every operand through it (see kernels/sort.h). */
#include "kernels/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/elementwise.h"

/* ---- the merge sort ------------------------------------------------------
 * DEFINE_MERGE_SORT(name, CTX, LESS, RUN) defines
 *   static void name(CTX* c, int64_t* a, int64_t* tmp, int64_t n)
 * sorting the indices a[0..n) stably by LESS(c, x, y) ("x before y").
 * Insertion sort on runs of RUN, then bottom-up merges that skip halves
 * already in order. tmp holds n indices. Terminates for any comparator. */
#define DEFINE_MERGE_SORT(name, CTX, LESS, RUN)                              \
  static void name(CTX* c, int64_t* a, int64_t* tmp, int64_t n) {            \
    for (int64_t lo = 0; lo < n; lo += (RUN)) {                              \
      int64_t hi = lo + (RUN) < n ? lo + (RUN) : n;                          \
      for (int64_t i = lo + 1; i < hi; i++) {                                \
        int64_t x = a[i], j = i;                                             \
        while (j > lo && LESS(c, x, a[j - 1])) {                             \
          a[j] = a[j - 1];                                                   \
          j--;                                                               \
        }                                                                    \
        a[j] = x;                                                            \
      }                                                                      \
    }                                                                        \
    for (int64_t w = (RUN); w < n; w *= 2) {                                 \
      for (int64_t lo = 0; lo + w < n; lo += 2 * w) {                        \
        int64_t mid = lo + w, hi = lo + 2 * w < n ? lo + 2 * w : n;          \
        if (!LESS(c, a[mid], a[mid - 1])) continue; /* already in order */   \
        memcpy(tmp, a + lo, (size_t)w * sizeof(int64_t));                    \
        int64_t i = 0, j = mid, k = lo;                                      \
        while (i < w && j < hi) {                                            \
          if (LESS(c, a[j], tmp[i]))                                         \
            a[k++] = a[j++];                                                 \
          else                                                               \
            a[k++] = tmp[i++];                                               \
        }                                                                    \
        while (i < w) a[k++] = tmp[i++];                                     \
      }                                                                      \
    }                                                                        \
  }

/* ---- native keys ---------------------------------------------------------- */

typedef union key_t_ {
  uint64_t u; /* SIGNED / UNSIGNED / TOTALORDER, mapped to unsigned order */
  double d;   /* FLOAT */
} sort_key_val_t;

typedef struct native_ctx_t {
  int32_t num_keys;
  const hlx_sort_key_t* keys;
  int64_t n;
  const sort_key_val_t* vals; /* num_keys x n */
} native_ctx_t;

static inline bool multi_less(const native_ctx_t* c, int64_t x, int64_t y) {
  for (int32_t k = 0; k < c->num_keys; k++) {
    const sort_key_val_t* v = c->vals + (size_t)k * (size_t)c->n;
    bool desc = c->keys[k].descending;
    if (c->keys[k].order == HLX_SORT_FLOAT) {
      double a = v[x].d, b = v[y].d;
      if (desc ? a > b : a < b) return true;
      if (!(a == b)) return false;
    } else {
      uint64_t a = v[x].u, b = v[y].u;
      if (desc ? a > b : a < b) return true;
      if (a != b) return false;
    }
  }
  return false;
}
#define MULTI_LESS(c, x, y) multi_less((c), (x), (y))
DEFINE_MERGE_SORT(sort_multi, const native_ctx_t, MULTI_LESS, 16)

typedef struct u64_ctx_t {
  const sort_key_val_t* v;
} u64_ctx_t;
#define U64_ASC(c, x, y) ((c)->v[x].u < (c)->v[y].u)
#define U64_DESC(c, x, y) ((c)->v[x].u > (c)->v[y].u)
#define F64_ASC(c, x, y) ((c)->v[x].d < (c)->v[y].d)
#define F64_DESC(c, x, y) ((c)->v[x].d > (c)->v[y].d)
DEFINE_MERGE_SORT(sort_u64_asc, const u64_ctx_t, U64_ASC, 16)
DEFINE_MERGE_SORT(sort_u64_desc, const u64_ctx_t, U64_DESC, 16)
DEFINE_MERGE_SORT(sort_f64_asc, const u64_ctx_t, F64_ASC, 16)
DEFINE_MERGE_SORT(sort_f64_desc, const u64_ctx_t, F64_DESC, 16)

bool hlx_sort_key_supported(hlx_dtype_t dtype, hlx_sort_order_t order) {
  switch (order) {
    case HLX_SORT_SIGNED:
    case HLX_SORT_UNSIGNED:
      return hlx_dtype_is_int(dtype) || hlx_dtype_is_pred(dtype);
    case HLX_SORT_FLOAT:
    case HLX_SORT_TOTALORDER:
      return hlx_dtype_is_float(dtype);
  }
  return false;
}

static uint64_t load_bits(const unsigned char* p, size_t es) {
  switch (es) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

static double bits_to_f64(hlx_dtype_t t, uint64_t bits) {
  unsigned char b[8];
  double d = 0;
  memcpy(b, &bits, 8); /* little-endian host: low bytes first */
  hlx_ref_convert(t, b, HLX_DTYPE_F64, &d, 1);
  return d;
}

/* Maps element bits to an unsigned key whose order is `order`'s. */
static uint64_t order_key(hlx_dtype_t t, hlx_sort_order_t order,
                          uint64_t v) {
  int bits = hlx_dtype_bits(t);
  uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
  v &= mask;
  const uint64_t top = (uint64_t)1 << 63;
  if (order == HLX_SORT_UNSIGNED) return v;
  if (order == HLX_SORT_SIGNED) {
    if (bits < 64) {
      uint64_t sb = (uint64_t)1 << (bits - 1);
      v = (v ^ sb) - sb; /* sign-extend */
    }
    return v ^ top;
  }
  /* TOTALORDER */
  if (t == HLX_DTYPE_F8E8M0FNU) return v; /* no sign bit */
  uint64_t sign = (v >> (bits - 1)) & 1;
  int64_t mag = (int64_t)(v & (((uint64_t)1 << (bits - 1)) - 1));
  int64_t s = sign ? -1 - mag : mag;
  return (uint64_t)s ^ top;
}

/* Fills vals[0..n) with the key values of one slice of operand `x`. raw,
 * bytes and dv are scratch for n elements. */
static void slice_keys(const hlx_sort_key_t* key, hlx_dtype_t t,
                       const unsigned char* x, int64_t base, int64_t stride,
                       int64_t n, uint64_t* raw, unsigned char* bytes,
                       double* dv, sort_key_val_t* vals) {
  size_t es = hlx_dtype_size(t);
  for (int64_t i = 0; i < n; i++) {
    const unsigned char* p = x + (size_t)(base + i * stride) * es;
    memcpy(bytes + (size_t)i * es, p, es);
    raw[i] = load_bits(p, es);
  }
  bool is_float = hlx_dtype_is_float(t);
  bool need_f64 = is_float && (key->canonicalize || key->order == HLX_SORT_FLOAT);
  if (need_f64) hlx_ref_convert(t, bytes, HLX_DTYPE_F64, dv, (size_t)n);
  if (key->canonicalize && need_f64) {
    double match = bits_to_f64(t, key->match_bits);
    double zero = bits_to_f64(t, key->zero_bits);
    double nan = bits_to_f64(t, key->nan_bits);
    for (int64_t i = 0; i < n; i++) {
      if (isnan(dv[i])) {
        raw[i] = key->nan_bits;
        dv[i] = nan;
      } else if (dv[i] == match) {
        raw[i] = key->zero_bits;
        dv[i] = zero;
      }
    }
  }
  if (key->order == HLX_SORT_FLOAT) {
    for (int64_t i = 0; i < n; i++) vals[i].d = dv[i];
  } else {
    for (int64_t i = 0; i < n; i++) vals[i].u = order_key(t, key->order, raw[i]);
  }
}

/* ---- shared slice iteration and gather ------------------------------------ */

typedef struct slicing_t {
  int64_t outer, n, inner; /* slices = outer * inner, each n long */
} slicing_t;

static hlx_status_t get_slicing(int32_t rank, const int64_t* dims,
                                int32_t axis, slicing_t* s) {
  if (rank < 1 || axis < 0 || axis >= rank)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "sort: dimension %d out of range for rank %d",
                           (int)axis, (int)rank);
  s->outer = 1;
  s->inner = 1;
  for (int32_t d = 0; d < axis; d++) s->outer *= dims[d];
  for (int32_t d = axis + 1; d < rank; d++) s->inner *= dims[d];
  s->n = dims[axis];
  for (int32_t d = 0; d < rank; d++)
    if (dims[d] < 0)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "sort: negative dimension size");
  return NULL;
}

static void gather_slice(size_t es, const unsigned char* in, unsigned char* out,
                         int64_t base, int64_t stride, const int64_t* perm,
                         int64_t n) {
#define GATHER(T)                                                   \
  for (int64_t i = 0; i < n; i++)                                   \
    ((T*)out)[base + i * stride] = ((const T*)in)[base + perm[i] * stride];
  switch (es) {
    case 1: GATHER(uint8_t) break;
    case 2: GATHER(uint16_t) break;
    case 4: GATHER(uint32_t) break;
    case 8: GATHER(uint64_t) break;
    default:
      for (int64_t i = 0; i < n; i++)
        memcpy(out + (size_t)(base + i * stride) * es,
               in + (size_t)(base + perm[i] * stride) * es, es);
  }
#undef GATHER
}

/* ---- hlx_ref_sort --------------------------------------------------------- */

hlx_status_t hlx_ref_sort(int32_t num_operands, const hlx_dtype_t* dtypes,
                          int32_t rank, const int64_t* dims, int32_t axis,
                          const hlx_sort_key_t* keys, int32_t num_keys,
                          const void* const* in, void* const* out) {
  slicing_t s;
  HLX_RETURN_IF_ERROR(get_slicing(rank, dims, axis, &s));
  if (num_operands < 1 || num_keys < 1)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "sort: needs at least one operand and one key");
  for (int32_t k = 0; k < num_keys; k++) {
    if (keys[k].operand < 0 || keys[k].operand >= num_operands ||
        !hlx_sort_key_supported(dtypes[keys[k].operand], keys[k].order))
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "sort: key %d is not a valid key", (int)k);
  }
  int64_t n = s.n;
  if (s.outer == 0 || s.inner == 0 || n == 0) return NULL;
  size_t un = (size_t)n;
  int64_t* perm = malloc(un * sizeof(int64_t));
  int64_t* tmp = malloc(un * sizeof(int64_t));
  uint64_t* raw = malloc(un * sizeof(uint64_t));
  unsigned char* bytes = malloc(un * 16);
  double* dv = malloc(un * sizeof(double));
  sort_key_val_t* vals = malloc(un * (size_t)num_keys * sizeof(sort_key_val_t));
  if (!perm || !tmp || !raw || !bytes || !dv || !vals) {
    free(perm); free(tmp); free(raw); free(bytes); free(dv); free(vals);
    return hlx_status_oom();
  }
  native_ctx_t mc = {num_keys, keys, n, vals};
  u64_ctx_t uc = {vals};
  for (int64_t o = 0; o < s.outer; o++) {
    for (int64_t j = 0; j < s.inner; j++) {
      int64_t base = o * n * s.inner + j;
      for (int32_t k = 0; k < num_keys; k++) {
        int32_t op = keys[k].operand;
        slice_keys(&keys[k], dtypes[op], in[op], base, s.inner, n, raw, bytes,
                   dv, vals + (size_t)k * un);
      }
      for (int64_t i = 0; i < n; i++) perm[i] = i;
      if (num_keys == 1 && keys[0].order == HLX_SORT_FLOAT) {
        if (keys[0].descending) sort_f64_desc(&uc, perm, tmp, n);
        else sort_f64_asc(&uc, perm, tmp, n);
      } else if (num_keys == 1) {
        if (keys[0].descending) sort_u64_desc(&uc, perm, tmp, n);
        else sort_u64_asc(&uc, perm, tmp, n);
      } else {
        sort_multi(&mc, perm, tmp, n);
      }
      for (int32_t k = 0; k < num_operands; k++)
        gather_slice(hlx_dtype_size(dtypes[k]), in[k], out[k], base, s.inner,
                     perm, n);
    }
  }
  free(perm); free(tmp); free(raw); free(bytes); free(dv); free(vals);
  return NULL;
}

/* ---- hlx_ref_sort_custom -------------------------------------------------- */

typedef struct custom_ctx_t {
  hlx_sort_less_fn fn;
  void* user;
  int64_t base, stride;
  hlx_status_t st; /* first error; later comparisons answer false */
} custom_ctx_t;

static inline bool custom_less(custom_ctx_t* c, int64_t x, int64_t y) {
  if (c->st) return false;
  bool r = false;
  c->st = c->fn(c->user, c->base + x * c->stride, c->base + y * c->stride, &r);
  return !c->st && r;
}
#define CUSTOM_LESS(c, x, y) custom_less((c), (x), (y))
/* Runs of 1: pure merge sort, fewest comparator calls. */
DEFINE_MERGE_SORT(sort_custom, custom_ctx_t, CUSTOM_LESS, 1)

hlx_status_t hlx_ref_sort_custom(int32_t num_operands,
                                 const size_t* elem_sizes, int32_t rank,
                                 const int64_t* dims, int32_t axis,
                                 hlx_sort_less_fn less, void* user,
                                 const void* const* in, void* const* out) {
  slicing_t s;
  HLX_RETURN_IF_ERROR(get_slicing(rank, dims, axis, &s));
  if (num_operands < 1 || !less)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "sort: needs at least one operand and a comparator");
  int64_t n = s.n;
  if (s.outer == 0 || s.inner == 0 || n == 0) return NULL;
  int64_t* perm = malloc((size_t)n * sizeof(int64_t));
  int64_t* tmp = malloc((size_t)n * sizeof(int64_t));
  if (!perm || !tmp) {
    free(perm);
    free(tmp);
    return hlx_status_oom();
  }
  custom_ctx_t c = {less, user, 0, s.inner, NULL};
  for (int64_t o = 0; o < s.outer && !c.st; o++) {
    for (int64_t j = 0; j < s.inner && !c.st; j++) {
      c.base = o * n * s.inner + j;
      for (int64_t i = 0; i < n; i++) perm[i] = i;
      sort_custom(&c, perm, tmp, n);
      if (c.st) break;
      for (int32_t k = 0; k < num_operands; k++)
        gather_slice(elem_sizes[k], in[k], out[k], c.base, s.inner, perm, n);
    }
  }
  free(perm);
  free(tmp);
  return c.st;
}

/* ---- top_k ---------------------------------------------------------------- */

hlx_status_t hlx_ref_top_k(hlx_dtype_t dtype, int64_t rows, int64_t n,
                           int64_t k, const void* in, void* values,
                           int32_t* indices) {
  hlx_sort_key_t key = {0, HLX_SORT_SIGNED, true, false, 0, 0, 0};
  if (hlx_dtype_is_float(dtype))
    key.order = HLX_SORT_TOTALORDER;
  else if (hlx_dtype_is_signed_int(dtype))
    key.order = HLX_SORT_SIGNED;
  else if (hlx_dtype_is_unsigned_int(dtype) || hlx_dtype_is_pred(dtype))
    key.order = HLX_SORT_UNSIGNED;
  else
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "top_k: element type %s has no order",
                           hlx_dtype_name(dtype));
  if (rows < 0 || n < 0 || k < 0 || k > n || n > INT32_MAX)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "top_k: k = %lld must be in [0, %lld] (and the "
                           "last dimension below 2^31)",
                           (long long)k, (long long)n);
  if (rows == 0 || k == 0) return NULL;
  size_t un = (size_t)n, es = hlx_dtype_size(dtype);
  int64_t* perm = malloc(un * sizeof(int64_t));
  int64_t* tmp = malloc(un * sizeof(int64_t));
  uint64_t* raw = malloc(un * sizeof(uint64_t));
  unsigned char* bytes = malloc(un * 16);
  double* dv = malloc(un * sizeof(double));
  sort_key_val_t* vals = malloc(un * sizeof(sort_key_val_t));
  if (!perm || !tmp || !raw || !bytes || !dv || !vals) {
    free(perm); free(tmp); free(raw); free(bytes); free(dv); free(vals);
    return hlx_status_oom();
  }
  u64_ctx_t uc = {vals};
  const unsigned char* x = in;
  unsigned char* y = values;
  for (int64_t r = 0; r < rows; r++) {
    slice_keys(&key, dtype, x, r * n, 1, n, raw, bytes, dv, vals);
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    sort_u64_desc(&uc, perm, tmp, n);
    for (int64_t i = 0; i < k; i++) {
      memcpy(y + (size_t)(r * k + i) * es, x + (size_t)(r * n + perm[i]) * es,
             es);
      indices[r * k + i] = (int32_t)perm[i];
    }
  }
  free(perm); free(tmp); free(raw); free(bytes); free(dv); free(vals);
  return NULL;
}
