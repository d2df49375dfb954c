/* The run memory of one plan: a run takes one block of a fixed size (slot
 * pointers, task counters, buffers; see schedule.h) and gives it back when
 * it ends. Blocks of finished runs are kept for later runs, which then do
 * not page-fault on fresh memory (that dominated repeated runs).
 *
 * The one part of a finalized plan that runs change; safe to use from
 * several threads at once. */
#ifndef HLX_SCHEDULER_RUN_BLOCKS_H_
#define HLX_SCHEDULER_RUN_BLOCKS_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_run_blocks_t hlx_run_blocks_t;

/* Blocks of at least `bytes` each, 64-byte aligned; from 2 MiB up, 2 MiB
 * aligned, rounded up to whole 2 MiB and offered to transparent huge pages
 * (fewer page faults and TLB misses). NULL on OOM. */
hlx_run_blocks_t* hlx_run_blocks_create(size_t bytes);
/* The size of every block: SIZE_MAX when rounding overflowed. */
size_t hlx_run_blocks_bytes(const hlx_run_blocks_t* b);
/* Frees the kept blocks; every block taken must have been put back. */
void hlx_run_blocks_destroy(hlx_run_blocks_t* b);
/* A block: a kept one if any, else fresh memory. NULL on OOM. */
unsigned char* hlx_run_blocks_get(hlx_run_blocks_t* b);
/* Keeps block for the next run, or frees it when enough are kept. */
void hlx_run_blocks_put(hlx_run_blocks_t* b, unsigned char* block);

#ifdef __cplusplus
}
#endif

#endif /* HLX_SCHEDULER_RUN_BLOCKS_H_ */
