/* Per-thread buffers (see thread_buffer.h). */
#include "kernels/libs/thread_buffer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct buffer_t {
  struct buffer_t *prev, *next;
  size_t bytes;
  void* data;
} buffer_t;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static buffer_t g_all = {&g_all, &g_all, 0, NULL};

static void destroy(void* p) {
  buffer_t* w = p;
  pthread_mutex_lock(&g_mu);
  w->prev->next = w->next;
  w->next->prev = w->prev;
  pthread_mutex_unlock(&g_mu);
  free(w->data);
  free(w);
}

static bool has_key(hlx_thread_buffer_t* tb) {
  int s = __atomic_load_n(&tb->state, __ATOMIC_ACQUIRE);
  if (s == 0) {
    pthread_mutex_lock(&g_mu);
    s = tb->state;
    if (s == 0) {
      s = pthread_key_create(&tb->key, destroy) == 0 ? 1 : -1;
      __atomic_store_n(&tb->state, s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_mu);
  }
  return s == 1;
}

void* hlx_thread_buffer(hlx_thread_buffer_t* tb, size_t bytes, bool* fresh) {
  if (fresh) *fresh = false;
  /* Rounding such a size up to whole lines would wrap to a tiny buffer. */
  if (bytes > SIZE_MAX - 63 || !has_key(tb)) return NULL;
  buffer_t* w = pthread_getspecific(tb->key);
  if (!w) {
    w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    if (pthread_setspecific(tb->key, w) != 0) {
      free(w);
      return NULL;
    }
    pthread_mutex_lock(&g_mu);
    w->next = g_all.next;
    w->prev = &g_all;
    g_all.next->prev = w;
    g_all.next = w;
    pthread_mutex_unlock(&g_mu);
  }
  if (w->bytes < bytes || !w->data) {
    size_t n = (bytes + 63) / 64 * 64;
    free(w->data);
    w->bytes = 0;
    w->data = aligned_alloc(64, n ? n : 64);
    if (!w->data) return NULL;
    memset(w->data, 0, n ? n : 64);
    w->bytes = n;
    if (fresh) *fresh = true;
  }
  return w->data;
}
