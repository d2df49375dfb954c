/* FFTW3 plans for the fft op (FFT, IFFT, RFFT, IRFFT over the last 1-3
 * dims, f32/c64 with fftwf_, f64/c128 with fftw_), with the same contract
 * as hlx_ref_fft (kernels/fft.h), which stays the oracle and the fallback.
 *
 * Plans are made when the program is compiled and shared process-wide by
 * (shape, planning effort, threads), reference-counted: an executable's
 * plan holds a reference (hlx_fftw_plan_release drops it); a plan nobody
 * references stays cached, idle, for the next compile of that shape, and
 * past the idle capacity (HLX_FFTW_CACHE_IDLE, default 64) the longest-
 * idle one is destroyed. FFTW's planner (making, destroying plans, wisdom)
 * is not thread-safe: all of it holds one global lock; executing a plan
 * on new arrays (fftw_execute_dft & co.) is thread-safe and takes no lock.
 * Plans are made with FFTW_UNALIGNED, so any buffer alignment works.
 *
 * Planning effort: FFTW_MEASURE (tens of ms to seconds per new shape,
 * faster transforms), or FFTW_ESTIMATE for a fast compile (options.estimate,
 * hlx_compile_options_t.fast_compile, or HLX_FFTW_ESTIMATE=1 for every
 * plan). HLX_FFTW_MEASURE, which asked for MEASURE when ESTIMATE was the
 * default, is no longer read.
 *
 * Wisdom: what MEASURE learns is kept in one file (HLX_FFTW_WISDOM=path;
 * default $XDG_CACHE_HOME/hlx/fftw.wisdom or $HOME/.cache/hlx/fftw.wisdom)
 * holding the single- then the double-precision wisdom. It is read once,
 * before the first plan (missing or unreadable: planning just measures),
 * and rewritten after a shape is measured that the wisdom did not know:
 * under an flock on <path>.lock, the file is merged with what other
 * processes wrote meanwhile, written to a temporary file and renamed over
 * the old one, so a reader never sees half a file and concurrent writers
 * keep each other's shapes. A failed write is not an error. HLX_FFTW_WISDOM=""
 * (empty) turns the file off.
 *
 * Threads: a transform of at least HLX_FFTW_THREAD_MIN elements (real
 * side, whole batch; default in fftw.c, measured) is planned for
 * options.threads (the task's worker budget), smaller ones for one thread
 * (a threaded plan is slower there). FFTW's threads library runs a
 * threaded plan's parallel loops through the hlx_parallel_t given to
 * hlx_fftw_execute: the pool the task runs on, like hlx's own kernels'
 * parallel_for, so FFTW starts no threads of its own, idle workers take
 * its chunks and busy ones are not oversubscribed (unlike oneDNN's OpenMP
 * teams, these tasks need no HLX_TASK_WIDE). That hook is FFTW's, process-
 * wide: an application's own threaded FFTW plans get a thread per job
 * from it, as FFTW would start them; hlx makes FFTW's planner thread-safe
 * and puts the application's fftw_plan_with_nthreads back after planning
 * (an application that set its own loop callback loses it to hlx's). */
#ifndef HLX_KERNELS_LIBS_FFTW_H_
#define HLX_KERNELS_LIBS_FFTW_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/parallel.h"
#include "base/status.h"
#include "kernels/fft.h"
#include "kernels/libs/fftw_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_fftw_plan_t hlx_fftw_plan_t;

typedef struct hlx_fftw_options_t {
  bool estimate;   /* FFTW_ESTIMATE instead of FFTW_MEASURE */
  int32_t threads; /* worker budget of the task (<= 1: one thread) */
  /* The pool threaded plans are measured on while planning (NULL: loops
   * run inline, so MEASURE times them on one thread). */
  const hlx_parallel_t* parallel;
} hlx_fftw_options_t;

/* A reference to the plan for hlx_ref_fft's transform with these
 * arguments (no data), or UNIMPLEMENTED when FFTW cannot take it (empty
 * dims, sizes beyond int) — the caller then uses the reference kernel.
 * options may be NULL (MEASURE, one thread). Release with
 * hlx_fftw_plan_release. */
hlx_status_t hlx_fftw_plan_obtain(hlx_fft_type_t type, hlx_dtype_t in_dtype,
                                  int32_t rank, const int64_t* in_dims,
                                  int32_t fft_rank, const int64_t* fft_length,
                                  const hlx_fftw_options_t* options,
                                  hlx_fftw_plan_t** out) HLX_MUST_USE;
void hlx_fftw_plan_release(hlx_fftw_plan_t* p); /* NULL: no-op */

/* Runs the transform; `in` is not modified. Thread-safe. A threaded plan
 * splits its loops over `par` (NULL: inline on the calling thread). */
hlx_status_t hlx_fftw_execute(const hlx_fftw_plan_t* p, const void* in,
                              void* out, const hlx_parallel_t* par) HLX_MUST_USE;

/* Threads the plan was made with (1: single-threaded). */
int32_t hlx_fftw_plan_threads(const hlx_fftw_plan_t* p);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_LIBS_FFTW_H_ */
