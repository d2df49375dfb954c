/* LSD radix sort of (u32 key, u32 index) pairs per slice, then a gather of
 * every operand through the indices (see kernels/sort_radix.h). A pair is
 * one u64 (key << 32 | index) so each pass streams one array. */
#include "kernels/sort_radix.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { kDigits = 4, kBuckets = 256 };

typedef struct key_map_t {
  hlx_sort_order_t order;
  bool descending, canonicalize;
  float match;
  uint32_t zero_bits, nan_bits;
} key_map_t;

static inline uint32_t canon_bits(const key_map_t* m, uint32_t b) {
  if (!m->canonicalize) return b;
  float f;
  memcpy(&f, &b, 4);
  if (isnan(f)) return m->nan_bits;
  return f == m->match ? m->zero_bits : b;
}

static inline bool bits_are_nan(uint32_t b) {
  return (b & 0x7fffffffu) > 0x7f800000u;
}

/* u32 whose unsigned order is the key's order (NaN-free for FLOAT). */
static inline uint32_t map_key(const key_map_t* m, uint32_t b) {
  b = canon_bits(m, b);
  switch (m->order) {
    case HLX_SORT_FLOAT:
      if (b == 0x80000000u) b = 0; /* -0 == +0 */
      /* fall through */
    case HLX_SORT_TOTALORDER:
      b ^= (b >> 31) ? 0xffffffffu : 0x80000000u;
      break;
    case HLX_SORT_SIGNED: b ^= 0x80000000u; break;
    case HLX_SORT_UNSIGNED: break;
  }
  return m->descending ? ~b : b;
}

typedef struct radix_job_t {
  int32_t num_operands;
  const hlx_dtype_t* dtypes;
  int64_t n, inner;
  key_map_t map;
  int32_t key_operand;
  const void* const* in;
  void* const* out;
  atomic_int oom;
} radix_job_t;

/* out[base + i * stride] = in[base + idx[i] * stride] for element size es. */
static void gather(const void* in, void* out, size_t es, const uint64_t* a,
                   int64_t n, int64_t base, int64_t stride) {
#define GATHER(T)                                                   \
  do {                                                              \
    const T* x = (const T*)in + base;                               \
    T* y = (T*)out + base;                                          \
    for (int64_t i = 0; i < n; i++)                                 \
      y[i * stride] = x[(int64_t)(uint32_t)a[i] * stride];          \
  } while (0)
  switch (es) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    default: {
      const unsigned char* x = in;
      unsigned char* y = out;
      for (int64_t i = 0; i < n; i++)
        memcpy(y + (size_t)(base + i * stride) * es,
               x + (size_t)(base + (int64_t)(uint32_t)a[i] * stride) * es, es);
    }
  }
#undef GATHER
}

/* Sorts one slice; a and t hold n pairs each. */
static void sort_slice(const radix_job_t* j, uint64_t* a, uint64_t* t,
                       int64_t base) {
  const int64_t n = j->n, stride = j->inner;
  const uint32_t* k = (const uint32_t*)j->in[j->key_operand] + base;
  uint32_t cnt[kDigits][kBuckets];
  memset(cnt, 0, sizeof cnt);
  for (int64_t i = 0; i < n; i++) {
    uint32_t key = map_key(&j->map, k[i * stride]);
    a[i] = (uint64_t)key << 32 | (uint64_t)i;
    cnt[0][key & 255]++;
    cnt[1][(key >> 8) & 255]++;
    cnt[2][(key >> 16) & 255]++;
    cnt[3][key >> 24]++;
  }
  for (int d = 0; d < kDigits; d++) {
    const int shift = 32 + 8 * d;
    if (cnt[d][(a[0] >> shift) & 255] == (uint32_t)n) continue; /* shared */
    uint32_t off[kBuckets], sum = 0;
    for (int b = 0; b < kBuckets; b++) {
      off[b] = sum;
      sum += cnt[d][b];
    }
    for (int64_t i = 0; i < n; i++) {
      uint64_t v = a[i];
      t[off[(v >> shift) & 255]++] = v;
    }
    uint64_t* s = a;
    a = t;
    t = s;
  }
  for (int32_t op = 0; op < j->num_operands; op++)
    gather(j->in[op], j->out[op], hlx_dtype_size(j->dtypes[op]), a, n, base,
           stride);
}

static void run_slices(void* arg, size_t begin, size_t end) {
  radix_job_t* j = arg;
  uint64_t* a = malloc((size_t)j->n * 2 * sizeof(uint64_t));
  if (!a) {
    atomic_store(&j->oom, 1);
    return;
  }
  for (size_t s = begin; s < end; s++) {
    int64_t o = (int64_t)s / j->inner, in = (int64_t)s % j->inner;
    sort_slice(j, a, a + j->n, o * j->n * j->inner + in);
  }
  free(a);
}

bool hlx_sort_radix_supported(const hlx_dtype_t* dtypes, int32_t rank,
                              const int64_t* dims, int32_t axis,
                              const hlx_sort_key_t* key) {
  if (rank < 1 || axis < 0 || axis >= rank || key->operand < 0) return false;
  int64_t n = dims[axis];
  if (n < HLX_SORT_RADIX_MIN_N || n > (int64_t)UINT32_MAX) return false;
  hlx_dtype_t t = dtypes[key->operand];
  switch (key->order) {
    case HLX_SORT_FLOAT:
    case HLX_SORT_TOTALORDER: return t == HLX_DTYPE_F32;
    case HLX_SORT_SIGNED:
    case HLX_SORT_UNSIGNED:
      return (t == HLX_DTYPE_S32 || t == HLX_DTYPE_U32) && !key->canonicalize;
  }
  return false;
}

hlx_status_t hlx_sort_radix(int32_t num_operands, const hlx_dtype_t* dtypes,
                            int32_t rank, const int64_t* dims, int32_t axis,
                            const hlx_sort_key_t* key, const void* const* in,
                            void* const* out, const hlx_parallel_t* par,
                            bool* done) {
  *done = false;
  if (key->operand >= num_operands ||
      !hlx_sort_radix_supported(dtypes, rank, dims, axis, key))
    return NULL;
  radix_job_t j;
  memset(&j, 0, sizeof j);
  j.num_operands = num_operands;
  j.dtypes = dtypes;
  j.n = dims[axis];
  j.inner = 1;
  int64_t outer = 1;
  for (int32_t d = 0; d < axis; d++) outer *= dims[d];
  for (int32_t d = axis + 1; d < rank; d++) j.inner *= dims[d];
  j.map.order = key->order;
  j.map.descending = key->descending;
  j.map.canonicalize = key->canonicalize;
  uint32_t mb = (uint32_t)key->match_bits;
  memcpy(&j.map.match, &mb, 4);
  j.map.zero_bits = (uint32_t)key->zero_bits;
  j.map.nan_bits = (uint32_t)key->nan_bits;
  j.key_operand = key->operand;
  j.in = in;
  j.out = out;
  atomic_init(&j.oom, 0);
  int64_t total = outer * j.n * j.inner;
  if (key->order == HLX_SORT_FLOAT) { /* NaN: no strict weak order */
    const uint32_t* k = in[key->operand];
    for (int64_t i = 0; i < total; i++)
      if (bits_are_nan(canon_bits(&j.map, k[i]))) return NULL;
  }
  size_t slices = (size_t)(outer * j.inner);
  size_t grain = (size_t)(j.n >= (1 << 16) ? 1 : (1 << 16) / j.n);
  hlx_parallel_for(par, slices, grain, run_slices, &j);
  if (atomic_load(&j.oom)) return hlx_status_oom();
  *done = true;
  return NULL;
}
