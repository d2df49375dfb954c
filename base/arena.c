#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hlx_arena_chunk_t {
  hlx_arena_chunk_t* next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

enum { kChunkSize = 64 * 1024 };

void hlx_arena_init(hlx_arena_t* a) {
  a->head = NULL;
  a->total = 0;
}

void hlx_arena_release(hlx_arena_t* a) {
  hlx_arena_chunk_t* c = a->head;
  while (c) {
    hlx_arena_chunk_t* n = c->next;
    free(c);
    c = n;
  }
  a->head = NULL;
  a->total = 0;
}

void* hlx_arena_alloc(hlx_arena_t* a, size_t bytes) {
  if (bytes > SIZE_MAX / 2) return NULL;
  size_t need = (bytes + 15) & ~(size_t)15;
  if (need == 0) need = 16;
  hlx_arena_chunk_t* c = a->head;
  if (!c || c->cap - c->used < need) {
    /* Big requests get a chunk of their own behind the current one so the
     * current chunk's free space is not wasted. */
    size_t cap = need > kChunkSize / 4 ? need : kChunkSize;
    hlx_arena_chunk_t* n = malloc(sizeof(*n) + cap);
    if (!n) return NULL;
    n->used = 0;
    n->cap = cap;
    if (c && cap != kChunkSize) {
      n->next = c->next;
      c->next = n;
    } else {
      n->next = c;
      a->head = n;
    }
    c = n;
  }
  void* p = c->data + c->used;
  c->used += need;
  a->total += need;
  memset(p, 0, need);
  return p;
}

void* hlx_arena_alloc_array(hlx_arena_t* a, size_t n, size_t elem) {
  if (elem && n > SIZE_MAX / 2 / elem) return NULL;
  return hlx_arena_alloc(a, n * elem);
}

char* hlx_arena_strndup(hlx_arena_t* a, const char* s, size_t n) {
  char* p = hlx_arena_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}
