/* Per-thread scratch buffers kept between kernel runs: each
 * hlx_thread_buffer_t (a static object per user) gives every calling thread
 * one 64-byte aligned buffer of its own, grown on demand and freed when the
 * thread exits, so a kernel run costs no allocation once its threads have
 * seen its size (a fresh buffer per run costs malloc and page faults every
 * time). Every live buffer is also on a process-wide list, so leak checkers
 * see the main thread's as reachable. */
#ifndef HLX_KERNELS_LIBS_THREAD_BUFFER_H_
#define HLX_KERNELS_LIBS_THREAD_BUFFER_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_thread_buffer_t {
  pthread_key_t key;
  int state; /* 0 no key yet, 1 key made, -1 key creation failed */
} hlx_thread_buffer_t;

#define HLX_THREAD_BUFFER_INIT {0}

/* The calling thread's buffer of tb with at least `bytes` (64-byte
 * aligned, rounded up to whole lines). *fresh (may be NULL) is set when the
 * buffer was just (re)allocated: its contents are zero then; otherwise
 * they are what the thread's last user left. Valid until the thread's next
 * call on tb. NULL when memory runs out or `bytes` is beyond any buffer. */
void* hlx_thread_buffer(hlx_thread_buffer_t* tb, size_t bytes, bool* fresh);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_LIBS_THREAD_BUFFER_H_ */
