/* The idle half of a reference-counted cache (the oneDNN primitive cache,
 * the FFTW plan cache): entries nobody references wait here, oldest first,
 * and past the list's capacity the oldest are handed back for destruction.
 * The capacity comes from an environment variable (read once), else a
 * default, and tests may set it. An entry embeds an hlx_idle_link_t and is
 * recovered from it with HLX_IDLE_ENTRY. Not thread-safe: the cache's own
 * lock guards every call. */
#ifndef HLX_BASE_IDLE_LIST_H_
#define HLX_BASE_IDLE_LIST_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct hlx_idle_link_t {
  struct hlx_idle_link_t *prev, *next; /* NULL while the entry is in use */
} hlx_idle_link_t;

typedef struct hlx_idle_list_t {
  hlx_idle_link_t head; /* head.next: the longest idle */
  int64_t count;
  int32_t cap;         /* -1: not read from cap_env yet */
  const char* cap_env; /* e.g. "HLX_FFTW_CACHE_IDLE" */
  int32_t cap_default;
} hlx_idle_list_t;

#define HLX_IDLE_LIST_INIT(list, env, dflt) \
  {{&(list).head, &(list).head}, 0, -1, (env), (dflt)}

/* The entry of type T whose member `field` is link. */
#define HLX_IDLE_ENTRY(link, T, field) \
  ((T*)(void*)((char*)(link) - offsetof(T, field)))

/* Appends l (an entry just left unreferenced) as the newest idle one. */
static inline void hlx_idle_push(hlx_idle_list_t* list, hlx_idle_link_t* l) {
  l->prev = list->head.prev;
  l->next = &list->head;
  list->head.prev->next = l;
  list->head.prev = l;
  list->count++;
}

/* Takes l out of the list if it is in it (an idle entry referenced again). */
static inline void hlx_idle_remove(hlx_idle_list_t* list, hlx_idle_link_t* l) {
  if (!l->next) return;
  l->prev->next = l->next;
  l->next->prev = l->prev;
  l->prev = l->next = NULL;
  list->count--;
}

/* The capacity: cap_env's value when it is a number in [0, INT32_MAX],
 * else cap_default; read on first use. */
static inline int32_t hlx_idle_capacity(hlx_idle_list_t* list) {
  if (list->cap < 0) {
    const char* v = getenv(list->cap_env);
    long n = v && *v ? strtol(v, NULL, 10) : -1;
    list->cap = n >= 0 && n <= INT32_MAX ? (int32_t)n : list->cap_default;
  }
  return list->cap;
}

/* Sets the capacity (negative: 0); returns the previous one. The caller
 * then evicts with hlx_idle_pop_excess. */
static inline int32_t hlx_idle_set_capacity(hlx_idle_list_t* list,
                                            int32_t n) {
  int32_t prev = hlx_idle_capacity(list);
  list->cap = n < 0 ? 0 : n;
  return prev;
}

/* The longest-idle entry, unlinked, while the list holds more than its
 * capacity; NULL once it does not. */
static inline hlx_idle_link_t* hlx_idle_pop_excess(hlx_idle_list_t* list) {
  if (list->count <= hlx_idle_capacity(list)) return NULL;
  hlx_idle_link_t* l = list->head.next;
  hlx_idle_remove(list, l);
  return l;
}

#endif /* HLX_BASE_IDLE_LIST_H_ */
