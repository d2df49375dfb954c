/* hlx_buffer_t: a host tensor, in memory the library allocated (default
 * heap or the caller's allocator hook) or the caller's own (zero-copy). */
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

void hlx_allocator_init(hlx_allocator_t* a) {
  memset(a, 0, sizeof(*a));
  a->struct_size = sizeof(*a);
}

void hlx_buffer_options_init(hlx_buffer_options_t* o) {
  memset(o, 0, sizeof(*o));
  o->struct_size = sizeof(*o);
}

/* Options with fields the caller's struct_size does not cover defaulted. */
static hlx_buffer_options_t read_options(const hlx_buffer_options_t* options) {
  hlx_buffer_options_t o;
  hlx_buffer_options_init(&o);
  if (options) hlx_internal_copy_versioned(&o, sizeof(o), options);
  return o;
}

/* A buffer handle for desc in layout m2m (NULL = row-major) padded to
 * `padded` (NULL = none), no memory. */
static hlx_status_t new_handle(const char* who, const hlx_tensor_desc_t* desc,
                               const int32_t* m2m, const int64_t* padded,
                               hlx_buffer_t** out) {
  *out = NULL;
  size_t bytes = desc ? hlx_internal_desc_bytes(desc) : SIZE_MAX;
  if (bytes == SIZE_MAX)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: %s", who,
                           desc ? "invalid element type, rank or dims (or "
                                  "the size overflows)"
                                : "desc is NULL");
  if (m2m) HLX_RETURN_IF_ERROR(hlx_internal_check_layout(who, desc->rank, m2m));
  if (padded)
    HLX_RETURN_IF_ERROR(hlx_internal_check_padding(who, desc, padded));
  hlx_buffer_t* b = calloc(1, sizeof(*b));
  if (!b) return hlx_status_oom();
  b->desc = *desc;
  if (m2m)
    memcpy(b->minor_to_major, m2m, sizeof(int32_t) * (size_t)desc->rank);
  else
    hlx_internal_row_major(desc->rank, b->minor_to_major);
  hlx_tensor_desc_t pd = *desc; /* the padded array */
  for (int32_t i = 0; i < desc->rank; i++)
    b->padded[i] = pd.dims[i] = padded ? padded[i] : desc->dims[i];
  b->bytes = hlx_internal_desc_bytes(&pd); /* checked by check_padding */
  *out = b;
  return NULL;
}

hlx_status_t hlx_internal_buffer_alloc(const hlx_tensor_desc_t* desc,
                                       const int32_t* m2m,
                                       const int64_t* padded,
                                       const hlx_allocator_t* a,
                                       const void* data, hlx_buffer_fill_t fill,
                                       hlx_buffer_t** out_buffer) {
  const char* who = "hlx_buffer_create";
  hlx_buffer_t* b;
  HLX_RETURN_IF_ERROR(new_handle(who, desc, m2m, padded, &b));
  size_t alloc = (b->bytes + 63) & ~(size_t)63;
  if (!alloc) alloc = 64;
  if (a && (!a->alloc || !a->free)) {
    free(b);
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "%s: the allocator needs both alloc and free", who);
  }
  if (a) {
    b->data = a->alloc(a->user, alloc, 64);
    b->release = a->free;
    b->release_user = a->user;
    if (b->data && ((uintptr_t)b->data & 63)) {
      a->free(a->user, b->data);
      free(b);
      return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                             "%s: the allocator returned memory not aligned "
                             "to 64 bytes",
                             who);
    }
  } else {
    b->data = aligned_alloc(64, alloc);
    b->owned = true;
  }
  if (!b->data) {
    free(b);
    return hlx_make_status(HLX_STATUS_RESOURCE_EXHAUSTED,
                           "%s: cannot allocate %zu bytes", who, alloc);
  }
  /* Copy the caller's bytes, zero the rest (all of it without data). */
  size_t copied = data ? b->bytes : 0;
  if (copied) memcpy(b->data, data, copied);
  if (fill == HLX_BUFFER_FILL_ZERO || copied)
    memset((char*)b->data + copied, 0, alloc - copied);
  else if (fill == HLX_BUFFER_FILL_POISON)
    memset(b->data, 0xff, alloc);
  *out_buffer = b;
  return NULL;
}

hlx_status_t hlx_buffer_create_with_options(const hlx_tensor_desc_t* desc,
                                            const void* data,
                                            const hlx_buffer_options_t* options,
                                            hlx_buffer_t** out_buffer) {
  *out_buffer = NULL;
  hlx_buffer_options_t o = read_options(options);
  hlx_allocator_t a;
  if (o.allocator) { /* versioned like the options */
    hlx_allocator_init(&a);
    hlx_internal_copy_versioned(&a, sizeof(a), o.allocator);
  }
  hlx_buffer_t* b;
  HLX_RETURN_IF_ERROR(hlx_internal_buffer_alloc(
      desc, o.minor_to_major, o.padded_dimensions, o.allocator ? &a : NULL,
      data, HLX_BUFFER_FILL_ZERO, &b));
  *out_buffer = b;
  return NULL;
}

hlx_status_t hlx_buffer_create(const hlx_tensor_desc_t* desc, const void* data,
                               hlx_buffer_t** out_buffer) {
  return hlx_buffer_create_with_options(desc, data, NULL, out_buffer);
}

hlx_status_t hlx_buffer_create_zero_copy(const hlx_tensor_desc_t* desc,
                                         void* data,
                                         hlx_buffer_deleter_fn deleter,
                                         void* deleter_user,
                                         const hlx_buffer_options_t* options,
                                         hlx_buffer_t** out_buffer) {
  const char* who = "hlx_buffer_create_zero_copy";
  *out_buffer = NULL;
  hlx_buffer_options_t o = read_options(options);
  hlx_buffer_t* b;
  HLX_RETURN_IF_ERROR(
      new_handle(who, desc, o.minor_to_major, o.padded_dimensions, &b));
  size_t es = hlx_dtype_size((hlx_dtype_t)desc->element_type);
  hlx_status_t st = NULL;
  if (!data && b->bytes)
    st = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                         "%s: data is NULL for a tensor of %zu bytes", who,
                         b->bytes);
  else if ((uintptr_t)data % es)
    st = hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                         "%s: data %p is not aligned to the element size %zu",
                         who, data, es);
  if (st) {
    free(b);
    return st;
  }
  b->data = data;
  b->release = deleter;
  b->release_user = deleter_user;
  *out_buffer = b;
  return NULL;
}

void hlx_buffer_destroy(hlx_buffer_t* b) {
  if (!b) return;
  if (b->owned)
    free(b->data);
  else if (b->release)
    b->release(b->release_user, b->data);
  free(b);
}

const hlx_tensor_desc_t* hlx_buffer_desc(const hlx_buffer_t* b) {
  return &b->desc;
}
const void* hlx_buffer_data(const hlx_buffer_t* b) { return b->data; }
size_t hlx_buffer_bytes(const hlx_buffer_t* b) { return b->bytes; }

void hlx_buffer_minor_to_major(const hlx_buffer_t* b,
                               int32_t* out_minor_to_major) {
  if (b->desc.rank > 0) /* rank 0: the caller may pass NULL */
    memcpy(out_minor_to_major, b->minor_to_major,
           sizeof(int32_t) * (size_t)b->desc.rank);
}

void hlx_buffer_padded_dimensions(const hlx_buffer_t* b,
                                  int64_t* out_padded_dimensions) {
  if (b->desc.rank > 0) /* rank 0: the caller may pass NULL */
    memcpy(out_padded_dimensions, b->padded,
           sizeof(int64_t) * (size_t)b->desc.rank);
}
