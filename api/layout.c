/* Layouts (minor_to_major) of host buffers and the conversions executables
 * make at their boundary, so kernels only ever see row-major tensors. */
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

/* Element strides of each logical dimension in layout m2m. */
static void layout_strides(const hlx_tensor_desc_t* d, const int32_t* m2m,
                           int64_t* strides) {
  int64_t s = 1;
  for (int32_t i = 0; i < d->rank; i++) {
    strides[m2m[i]] = s;
    s *= d->dims[m2m[i]];
  }
}

/* Walks the destination in its own memory order (sequential writes) and
 * gathers each element from the source. */
void hlx_internal_relayout(const hlx_tensor_desc_t* d, const int32_t* src_m2m,
                           const void* src, const int32_t* dst_m2m,
                           void* dst) {
  size_t es = hlx_dtype_size((hlx_dtype_t)d->element_type);
  size_t bytes = hlx_internal_desc_bytes(d);
  if (!bytes || bytes == SIZE_MAX) return;
  int32_t r = d->rank;
  if (!memcmp(src_m2m, dst_m2m, sizeof(int32_t) * (size_t)r)) {
    memcpy(dst, src, bytes);
    return;
  }
  int64_t ss[HLX_MAX_DIMS];
  layout_strides(d, src_m2m, ss);
  int64_t idx[HLX_MAX_DIMS] = {0}; /* over dst's dims, fastest first */
  int64_t n = (int64_t)(bytes / es), off = 0; /* off: source element */
  const char* s = src;
  char* o = dst;
  int32_t inner = dst_m2m[0];
  int64_t inner_n = d->dims[inner], inner_s = ss[inner];
  for (int64_t done = 0; done < n; done += inner_n) {
    const char* p = s + (size_t)off * es;
    for (int64_t j = 0; j < inner_n; j++, o += es)
      memcpy(o, p + (size_t)(j * inner_s) * es, es);
    /* Odometer over the slower dst dimensions. */
    for (int32_t k = 1; k < r; k++) {
      int32_t dim = dst_m2m[k];
      off += ss[dim];
      if (++idx[k] < d->dims[dim]) break;
      off -= ss[dim] * d->dims[dim];
      idx[k] = 0;
    }
  }
}

/* ---- the executable's boundary ------------------------------------------ */

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

hlx_status_t hlx_internal_result_alloc(const hlx_executable_t* e, int32_t i,
                                       hlx_buffer_t** out_buffer) {
  return hlx_internal_buffer_alloc(
      &e->results[i], e->result_layouts ? e->result_layouts[i] : NULL,
      e->has_allocator ? &e->allocator : NULL, NULL, out_buffer);
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
    if (hlx_internal_is_row_major(p->desc.rank, p->minor_to_major)) {
      bd->in[i] = p->data;
      continue;
    }
    int32_t rm[HLX_MAX_DIMS];
    hlx_internal_row_major(p->desc.rank, rm);
    bd->staged_in[i] = alloc64(p->bytes);
    if (!bd->staged_in[i]) return hlx_status_oom();
    hlx_internal_relayout(&p->desc, p->minor_to_major, p->data, rm,
                          bd->staged_in[i]);
    bd->in[i] = bd->staged_in[i];
  }
  return NULL;
}

hlx_status_t hlx_internal_boundary_result(hlx_boundary_t* bd, int32_t i,
                                          hlx_buffer_t* result,
                                          void** out_data) {
  if (hlx_internal_is_row_major(result->desc.rank, result->minor_to_major)) {
    *out_data = result->data;
    return NULL;
  }
  bd->staged_out[i] = alloc64(result->bytes);
  if (!bd->staged_out[i]) return hlx_status_oom();
  memset(bd->staged_out[i], 0, result->bytes);
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
    hlx_internal_relayout(&r->desc, rm, bd->staged_out[i], r->minor_to_major,
                          r->data);
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
