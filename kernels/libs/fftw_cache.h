/* The FFTW plan cache's statistics and knobs (kernels/libs/fftw.h), apart
 * so that code using the public API (whose hlx_fft_type_t is its own) can
 * include them: tests, embedders watching memory. */
#ifndef HLX_KERNELS_LIBS_FFTW_CACHE_H_
#define HLX_KERNELS_LIBS_FFTW_CACHE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_fftw_cache_stats_t {
  int64_t live;        /* plans alive (in use or idle) */
  int64_t idle;        /* of those, referenced by nobody */
  int64_t builds;      /* plans made since the process started */
  int64_t wisdom_hits; /* MEASURE plans made from wisdom alone */
  int64_t wisdom_writes; /* wisdom files written */
  int64_t pool_loops;  /* threaded plans' loops handed to an hlx pool */
} hlx_fftw_cache_stats_t;
void hlx_fftw_cache_stats(hlx_fftw_cache_stats_t* s);

/* Sets the idle capacity (destroying idle plans past it); returns the
 * previous one. For tests and memory-tight embedders. */
int32_t hlx_fftw_cache_set_idle_capacity(int32_t n);

/* Tests: forgets the loaded wisdom and re-reads the wisdom file (path
 * from the environment again) before the next plan, as a new process
 * would. Idle plans are destroyed; plans in use are kept. */
void hlx_fftw_reset_wisdom_for_testing(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_LIBS_FFTW_CACHE_H_ */
