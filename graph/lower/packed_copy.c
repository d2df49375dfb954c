/* Reusable parameters' packed copies (see packed_copy.h). */
#include "graph/lower/packed_copy.h"

#include <stdint.h>
#include <string.h>

static void destroy_lock(void* p) {
  pthread_rwlock_destroy(&((hlx_packed_copy_t*)p)->lock);
}

hlx_status_t hlx_lower_packed_copy(hlx_lower_ctx_t* c, size_t bytes,
                                   hlx_packed_copy_t** out) {
  hlx_packed_copy_t* p = hlx_lower_alloc(c, sizeof(*p));
  unsigned char* raw = hlx_lower_alloc(c, bytes + 64);
  if (!p || !raw) return hlx_status_oom();
  memset(p, 0, sizeof *p);
  p->data = raw + (64 - (uintptr_t)raw % 64) % 64;
  if (pthread_rwlock_init(&p->lock, NULL) != 0) return hlx_status_oom();
  if (!hlx_plan_on_destroy(c->plan, destroy_lock, p)) {
    pthread_rwlock_destroy(&p->lock);
    return hlx_status_oom();
  }
  *out = p;
  return NULL;
}

static bool is_made_from(const hlx_packed_copy_t* p, const void* src,
                         bool (*fresh)(const void*), const void* arg) {
  return p->src == src && (!fresh || fresh(arg));
}

hlx_status_t hlx_packed_copy_lock(hlx_packed_copy_t* p, const void* src,
                                  bool (*fresh)(const void* arg),
                                  hlx_status_t (*fill)(const void* arg,
                                                       void* data),
                                  const void* arg) {
  pthread_rwlock_rdlock(&p->lock);
  if (is_made_from(p, src, fresh, arg)) return NULL;
  pthread_rwlock_unlock(&p->lock);
  pthread_rwlock_wrlock(&p->lock);
  if (is_made_from(p, src, fresh, arg)) return NULL;
  p->src = NULL; /* a failed fill leaves no copy to trust */
  hlx_status_t st = fill(arg, p->data);
  if (st) {
    pthread_rwlock_unlock(&p->lock);
    return st;
  }
  p->src = src;
  return NULL;
}

void hlx_packed_copy_unlock(hlx_packed_copy_t* p) {
  pthread_rwlock_unlock(&p->lock);
}
