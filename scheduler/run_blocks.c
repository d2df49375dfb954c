/* Run blocks of one plan, kept across runs (see run_blocks.h). */
#include "scheduler/run_blocks.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum {
  /* Enough for a few concurrent runs of one executable, bounded so memory
   * stays bounded. */
  kMaxFreeBlocks = 4,
};
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

struct hlx_run_blocks_t {
  size_t bytes;
  /* A spin lock: held for a few loads and stores only. */
  atomic_flag lock;
  int32_t num_free;
  void* free_blocks[kMaxFreeBlocks];
};

hlx_run_blocks_t* hlx_run_blocks_create(size_t bytes) {
  hlx_run_blocks_t* b = calloc(1, sizeof(*b));
  if (!b) return NULL;
  b->bytes = bytes;
  if (bytes >= HUGE_PAGE_BYTES && bytes != SIZE_MAX) {
    size_t r = (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
    b->bytes = r < bytes ? SIZE_MAX : r;
  }
  atomic_flag_clear(&b->lock);
  return b;
}

size_t hlx_run_blocks_bytes(const hlx_run_blocks_t* b) { return b->bytes; }

void hlx_run_blocks_destroy(hlx_run_blocks_t* b) {
  if (!b) return;
  for (int32_t i = 0; i < b->num_free; i++) free(b->free_blocks[i]);
  free(b);
}

static void lock(hlx_run_blocks_t* b) {
  while (atomic_flag_test_and_set_explicit(&b->lock, memory_order_acquire))
    ;
}

static void unlock(hlx_run_blocks_t* b) {
  atomic_flag_clear_explicit(&b->lock, memory_order_release);
}

unsigned char* hlx_run_blocks_get(hlx_run_blocks_t* b) {
  void* block = NULL;
  lock(b);
  if (b->num_free > 0) block = b->free_blocks[--b->num_free];
  unlock(b);
  if (block) return block;
  if (b->bytes < HUGE_PAGE_BYTES) return aligned_alloc(64, b->bytes);
  block = aligned_alloc(HUGE_PAGE_BYTES, b->bytes);
  if (block) (void)madvise(block, b->bytes, MADV_HUGEPAGE); /* a hint only */
  return block;
}

void hlx_run_blocks_put(hlx_run_blocks_t* b, unsigned char* block) {
  lock(b);
  bool kept = b->num_free < kMaxFreeBlocks;
  if (kept) b->free_blocks[b->num_free++] = block;
  unlock(b);
  if (!kept) free(block);
}
