/* hlx_buffer_t: a host tensor. */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"

/* Bytes of a described tensor; SIZE_MAX when invalid or too large. */
size_t hlx_internal_desc_bytes(const hlx_tensor_desc_t* d) {
  size_t es = hlx_dtype_size((hlx_dtype_t)d->element_type);
  if (!es || d->rank < 0 || d->rank > HLX_MAX_DIMS) return SIZE_MAX;
  size_t n = 1;
  for (int32_t i = 0; i < d->rank; i++) {
    if (d->dims[i] < 0) return SIZE_MAX;
    if (d->dims[i] && n > SIZE_MAX / 4 / (size_t)d->dims[i]) return SIZE_MAX;
    n *= (size_t)d->dims[i];
  }
  if (n > SIZE_MAX / 4 / es) return SIZE_MAX;
  return n * es;
}

hlx_status_t hlx_buffer_create(const hlx_tensor_desc_t* desc, const void* data,
                               hlx_buffer_t** out_buffer) {
  *out_buffer = NULL;
  size_t bytes = hlx_internal_desc_bytes(desc);
  if (bytes == SIZE_MAX)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_buffer_create: invalid element type, rank or "
                           "dims (or the size overflows)");
  hlx_buffer_t* b = calloc(1, sizeof(*b));
  size_t alloc = (bytes + 63) & ~(size_t)63;
  void* mem = aligned_alloc(64, alloc ? alloc : 64);
  if (!b || !mem) {
    free(b);
    free(mem);
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "hlx_buffer_create: cannot allocate %zu bytes",
                           bytes);
  }
  b->desc = *desc;
  b->bytes = bytes;
  b->data = mem;
  if (data && bytes)
    memcpy(mem, data, bytes);
  else
    memset(mem, 0, alloc ? alloc : 64);
  *out_buffer = b;
  return NULL;
}

void hlx_buffer_destroy(hlx_buffer_t* b) {
  if (!b) return;
  free(b->data);
  free(b);
}

const hlx_tensor_desc_t* hlx_buffer_desc(const hlx_buffer_t* b) {
  return &b->desc;
}
const void* hlx_buffer_data(const hlx_buffer_t* b) { return b->data; }
size_t hlx_buffer_bytes(const hlx_buffer_t* b) { return b->bytes; }
