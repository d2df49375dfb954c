/* A reusable parameter's copy in a library's own layout (packed matmul or
 * convolution weights), made from the buffer a run passes and kept while
 * runs pass the same buffer (the parameter's contents stay as they are
 * while its buffer does: hlx_compile_options_t reusable parameters).
 * Concurrent runs share the copy under a read lock; a run that needs it
 * made again (another buffer, or its own extra key changed) remakes it
 * under the write lock and computes under that lock too, so a copy is
 * never replaced while another run reads it. Used by graph/lower/dot.c
 * and graph/lower/conv.c. */
#ifndef HLX_GRAPH_LOWER_PACKED_COPY_H_
#define HLX_GRAPH_LOWER_PACKED_COPY_H_

#include <pthread.h>
#include <stdbool.h>

#include "graph/lower/ctx.h"

typedef struct hlx_packed_copy_t {
  pthread_rwlock_t lock;
  const void* src; /* the buffer `data` was made from; NULL: none yet */
  void* data;      /* 64-byte aligned, in the plan's arena */
} hlx_packed_copy_t;

/* A copy of `bytes` in the plan's arena; its lock goes with the plan. */
hlx_status_t hlx_lower_packed_copy(hlx_lower_ctx_t* c, size_t bytes,
                                   hlx_packed_copy_t** out) HLX_MUST_USE;

/* Locks p with its data made from src: when it was (and fresh(arg) holds,
 * if fresh is given) under the read lock, else after fill(arg, data)
 * under the write lock. On success the lock is held until
 * hlx_packed_copy_unlock; on error it is released. */
hlx_status_t hlx_packed_copy_lock(hlx_packed_copy_t* p, const void* src,
                                  bool (*fresh)(const void* arg),
                                  hlx_status_t (*fill)(const void* arg,
                                                       void* data),
                                  const void* arg) HLX_MUST_USE;
void hlx_packed_copy_unlock(hlx_packed_copy_t* p);

#endif  // HLX_GRAPH_LOWER_PACKED_COPY_H_
