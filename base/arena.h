/* A bump allocator: everything of one module (or one plan) is allocated here
 * and freed at once. Allocation failure returns NULL. */
#ifndef HLX_BASE_ARENA_H_
#define HLX_BASE_ARENA_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_arena_chunk_t hlx_arena_chunk_t;
typedef struct hlx_arena_t {
  hlx_arena_chunk_t* head;
  size_t total; /* bytes handed out, for statistics */
} hlx_arena_t;

void hlx_arena_init(hlx_arena_t* a);
void hlx_arena_release(hlx_arena_t* a);
/* Zeroed, 16-byte aligned memory; NULL on failure or overflow. */
void* hlx_arena_alloc(hlx_arena_t* a, size_t bytes);
void* hlx_arena_alloc_array(hlx_arena_t* a, size_t n, size_t elem);
char* hlx_arena_strndup(hlx_arena_t* a, const char* s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* HLX_BASE_ARENA_H_ */
