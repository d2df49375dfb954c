/* Layouts (minor_to_major) of host buffers and the conversions executables
 * make at their boundary, so kernels only ever see row-major tensors. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"

hlx_status_t hlx_internal_check_layout(const char* who, int32_t rank,
                                       const int32_t* m2m) {
  bool seen[HLX_MAX_DIMS] = {false};
  for (int32_t i = 0; i < rank; i++) {
    if (m2m[i] < 0 || m2m[i] >= rank || seen[m2m[i]])
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s: minor_to_major is not a permutation of "
                             "0..%d (entry %d is %d)",
                             who, rank - 1, i, m2m[i]);
    seen[m2m[i]] = true;
  }
  return NULL;
}

void hlx_internal_row_major(int32_t rank, int32_t* m2m) {
  for (int32_t i = 0; i < rank; i++) m2m[i] = rank - 1 - i;
}

bool hlx_internal_is_row_major(int32_t rank, const int32_t* m2m) {
  for (int32_t i = 0; i < rank; i++)
    if (m2m[i] != rank - 1 - i) return false;
  return true;
}

hlx_status_t hlx_internal_check_padding(const char* who,
                                        const hlx_tensor_desc_t* d,
                                        const int64_t* padded) {
  hlx_tensor_desc_t pd = *d;
  for (int32_t i = 0; i < d->rank; i++) {
    if (padded[i] < d->dims[i])
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s: padded_dimensions[%d] = %lld is smaller "
                             "than dimension %d's size %lld",
                             who, i, (long long)padded[i], i,
                             (long long)d->dims[i]);
    pd.dims[i] = padded[i];
  }
  if (hlx_internal_desc_bytes(&pd) == SIZE_MAX)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: the padded size overflows", who);
  return NULL;
}

bool hlx_internal_is_plain(const hlx_buffer_t* b) {
  int32_t r = b->desc.rank;
  return hlx_internal_is_row_major(r, b->minor_to_major) &&
         !memcmp(b->padded, b->desc.dims, sizeof(int64_t) * (size_t)r);
}

/* Element strides of each logical dimension in layout l. */
static void layout_strides(const hlx_tensor_desc_t* d, hlx_layout_t l,
                           int64_t* strides) {
  const int64_t* ext = l.padded ? l.padded : d->dims;
  int64_t s = 1;
  for (int32_t i = 0; i < d->rank; i++) {
    strides[l.m2m[i]] = s;
    s *= ext[l.m2m[i]];
  }
}

/* Bytes of the (padded) array of layout l. */
static size_t layout_bytes(const hlx_tensor_desc_t* d, hlx_layout_t l) {
  hlx_tensor_desc_t pd = *d;
  if (l.padded)
    memcpy(pd.dims, l.padded, sizeof(int64_t) * (size_t)d->rank);
  return hlx_internal_desc_bytes(&pd);
}

/* Walks the destination's logical elements in its memory order (its
 * fastest dimension innermost) and gathers each from the source. */
void hlx_internal_relayout(const hlx_tensor_desc_t* d, hlx_layout_t from,
                           const void* src, hlx_layout_t to, void* dst) {
  size_t es = hlx_dtype_size((hlx_dtype_t)d->element_type);
  size_t bytes = hlx_internal_desc_bytes(d), dst_bytes = layout_bytes(d, to);
  if (bytes == SIZE_MAX || dst_bytes == SIZE_MAX) return;
  int32_t r = d->rank;
  size_t rs = sizeof(int64_t) * (size_t)r;
  const int64_t* fp = from.padded ? from.padded : d->dims;
  const int64_t* tp = to.padded ? to.padded : d->dims;
  if (!memcmp(from.m2m, to.m2m, sizeof(int32_t) * (size_t)r) &&
      !memcmp(fp, tp, rs)) {
    memcpy(dst, src, dst_bytes);
    return;
  }
  if (memcmp(tp, d->dims, rs)) memset(dst, 0, dst_bytes);
  if (!bytes) return;
  int64_t ss[HLX_MAX_DIMS], ds[HLX_MAX_DIMS];
  layout_strides(d, from, ss);
  layout_strides(d, to, ds);
  int64_t idx[HLX_MAX_DIMS] = {0}; /* over dst's dims, fastest first */
  int64_t n = (int64_t)(bytes / es), soff = 0, doff = 0;
  const char* s = src;
  char* o = dst;
  int32_t inner = to.m2m[0];
  int64_t inner_n = d->dims[inner], inner_s = ss[inner], inner_d = ds[inner];
  for (int64_t done = 0; done < n; done += inner_n) {
    for (int64_t j = 0; j < inner_n; j++)
      memcpy(o + (size_t)(doff + j * inner_d) * es,
             s + (size_t)(soff + j * inner_s) * es, es);
    /* Odometer over the slower dst dimensions. */
    for (int32_t k = 1; k < r; k++) {
      int32_t dim = to.m2m[k];
      soff += ss[dim];
      doff += ds[dim];
      if (++idx[k] < d->dims[dim]) break;
      soff -= ss[dim] * d->dims[dim];
      doff -= ds[dim] * d->dims[dim];
      idx[k] = 0;
    }
  }
}

/* ---- the executable's boundary ------------------------------------------ */

/* Copies the compile options' result padded dimensions into e. */
static hlx_status_t result_padding(hlx_executable_t* e,
                                   const hlx_compile_options_t* o) {
  const char* who = "hlx_executable_create";
  if (!o->result_padded_dimensions && !o->num_result_padded_dimensions)
    return NULL;
  if (!o->result_padded_dimensions ||
      o->num_result_padded_dimensions != e->num_results)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: result_padded_dimensions has %d entries for "
                           "%d results", who,
                           o->result_padded_dimensions
                               ? o->num_result_padded_dimensions
                               : 0,
                           e->num_results);
  e->result_padded = calloc((size_t)e->num_results + 1,
                            sizeof(*e->result_padded));
  if (!e->result_padded) return hlx_status_oom();
  for (int32_t i = 0; i < e->num_results; i++) {
    const hlx_tensor_desc_t* d = &e->results[i];
    const int64_t* p = o->result_padded_dimensions[i];
    if (p) {
      hlx_status_t st = hlx_internal_check_padding(who, d, p);
      if (st) return hlx_status_annotate(st, "result %d", i);
    }
    memcpy(e->result_padded[i], p ? p : d->dims,
           sizeof(int64_t) * (size_t)d->rank);
  }
  return NULL;
}

hlx_status_t hlx_internal_boundary_options(hlx_executable_t* e,
                                           const hlx_compile_options_t* o) {
  const char* who = "hlx_executable_create";
  if (o->allocator) {
    hlx_allocator_init(&e->allocator);
    hlx_internal_copy_versioned(&e->allocator, sizeof(e->allocator),
                                o->allocator);
    if (!e->allocator.alloc || !e->allocator.free)
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s: the allocator needs both alloc and free",
                             who);
    e->has_allocator = true;
  }
  HLX_RETURN_IF_ERROR(result_padding(e, o));
  if (!o->result_layouts && !o->num_result_layouts) return NULL;
  if (!o->result_layouts || o->num_result_layouts != e->num_results)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: result_layouts has %d entries for %d results",
                           who, o->result_layouts ? o->num_result_layouts : 0,
                           e->num_results);
  e->result_layouts = calloc((size_t)e->num_results + 1,
                             sizeof(*e->result_layouts));
  if (!e->result_layouts) return hlx_status_oom();
  for (int32_t i = 0; i < e->num_results; i++) {
    int32_t rank = e->results[i].rank;
    if (!o->result_layouts[i]) {
      hlx_internal_row_major(rank, e->result_layouts[i]);
      continue;
    }
    hlx_status_t st = hlx_internal_check_layout(who, rank,
                                                o->result_layouts[i]);
    if (st) return hlx_status_annotate(st, "result %d", i);
    memcpy(e->result_layouts[i], o->result_layouts[i],
           sizeof(int32_t) * (size_t)rank);
  }
  return NULL;
}

/* HLX_POISON_RESULTS=1 (set by the conformance and API tests) fills the
 * results the plan must write whole with 0xff bytes instead of leaving
 * them as allocated, so a kernel that skips part of its output, or
 * accumulates into it, fails those tests rather than passing on zeros. */
static bool poison_results(void) {
  static _Atomic int cached = -1; /* -1: not read yet */
  int v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v < 0) {
    const char* s = getenv("HLX_POISON_RESULTS");
    v = s && s[0] == '1';
    atomic_store_explicit(&cached, v, memory_order_relaxed);
  }
  return v;
}

hlx_status_t hlx_internal_result_alloc(const hlx_executable_t* e, int32_t i,
                                       hlx_buffer_t** out_buffer) {
  /* A plain (row-major, unpadded) result is written whole by the plan, so
   * zeroing it first would be a wasted pass over memory (3.2 MB for a
   * 64x112x112 convolution result: ~4% of its run). Padded or relaid-out
   * results keep their zeros: the padding is never written. */
  const int32_t* m2m = e->result_layouts ? e->result_layouts[i] : NULL;
  const int64_t* padded = e->result_padded ? e->result_padded[i] : NULL;
  int32_t rank = e->results[i].rank;
  bool plain = (!m2m || hlx_internal_is_row_major(rank, m2m)) &&
               (!padded || !memcmp(padded, e->results[i].dims,
                                   sizeof(int64_t) * (size_t)rank));
  return hlx_internal_buffer_alloc(
      &e->results[i], m2m, padded, e->has_allocator ? &e->allocator : NULL,
      NULL,
      !plain            ? HLX_BUFFER_FILL_ZERO
      : poison_results() ? HLX_BUFFER_FILL_POISON
                        : HLX_BUFFER_FILL_NONE,
      out_buffer);
}

static void* alloc64(size_t bytes) {
  return aligned_alloc(64, bytes ? (bytes + 63) & ~(size_t)63 : 64);
}

hlx_status_t hlx_internal_boundary_begin(const hlx_executable_t* e,
                                         hlx_buffer_t* const* params,
                                         int32_t num_params,
                                         int32_t num_results,
                                         hlx_boundary_t* bd) {
  (void)e;
  memset(bd, 0, sizeof(*bd));
  bd->num_params = num_params;
  bd->num_results = num_results;
  bd->in = calloc((size_t)num_params + 1, sizeof(*bd->in));
  bd->staged_in = calloc((size_t)num_params + 1, sizeof(void*));
  bd->staged_out = calloc((size_t)num_results + 1, sizeof(void*));
  if (!bd->in || !bd->staged_in || !bd->staged_out) return hlx_status_oom();
  for (int32_t i = 0; i < num_params; i++) {
    const hlx_buffer_t* p = params[i];
    if (hlx_internal_is_plain(p)) {
      bd->in[i] = p->data;
      continue;
    }
    int32_t rm[HLX_MAX_DIMS];
    hlx_internal_row_major(p->desc.rank, rm);
    bd->staged_in[i] = alloc64(hlx_internal_desc_bytes(&p->desc));
    if (!bd->staged_in[i]) return hlx_status_oom();
    hlx_layout_t from = {p->minor_to_major, p->padded}, to = {rm, NULL};
    hlx_internal_relayout(&p->desc, from, p->data, to, bd->staged_in[i]);
    bd->in[i] = bd->staged_in[i];
  }
  return NULL;
}

hlx_status_t hlx_internal_boundary_result(hlx_boundary_t* bd, int32_t i,
                                          hlx_buffer_t* result,
                                          void** out_data) {
  if (hlx_internal_is_plain(result)) {
    *out_data = result->data;
    return NULL;
  }
  size_t bytes = hlx_internal_desc_bytes(&result->desc);
  bd->staged_out[i] = alloc64(bytes);
  if (!bd->staged_out[i]) return hlx_status_oom();
  memset(bd->staged_out[i], 0, bytes);
  *out_data = bd->staged_out[i];
  return NULL;
}

void hlx_internal_boundary_finish(hlx_boundary_t* bd,
                                  hlx_buffer_t* const* results) {
  for (int32_t i = 0; i < bd->num_results; i++) {
    if (!bd->staged_out[i]) continue;
    hlx_buffer_t* r = results[i];
    int32_t rm[HLX_MAX_DIMS];
    hlx_internal_row_major(r->desc.rank, rm);
    hlx_layout_t from = {rm, NULL}, to = {r->minor_to_major, r->padded};
    hlx_internal_relayout(&r->desc, from, bd->staged_out[i], to, r->data);
  }
}

void hlx_internal_boundary_free(hlx_boundary_t* bd) {
  for (int32_t i = 0; bd->staged_in && i < bd->num_params; i++)
    free(bd->staged_in[i]);
  for (int32_t i = 0; bd->staged_out && i < bd->num_results; i++)
    free(bd->staged_out[i]);
  free(bd->in);
  free(bd->staged_in);
  free(bd->staged_out);
  memset(bd, 0, sizeof(*bd));
}
