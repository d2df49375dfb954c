/* FFTW3 plans for the fft op (FFT, IFFT, RFFT, IRFFT over the last 1-3
 * dims, f32/c64 with fftwf_, f64/c128 with fftw_), with the same contract
 * as hlx_ref_fft (kernels/fft.h), which stays the oracle and the fallback.
 *
 * Plans are made once, when the program is compiled, and cached process-
 * wide by shape (never destroyed before exit, like oneDNN's primitives), so
 * every executable and run reuses them. FFTW's planner is not thread-safe:
 * every planner call holds one global lock; executing a plan on new arrays
 * (fftw_execute_dft & co.) is thread-safe and needs no lock. Plans are made
 * with FFTW_UNALIGNED, so any buffer alignment works.
 *
 * Planning effort: FFTW_ESTIMATE (a fast compile) unless HLX_FFTW_MEASURE=1
 * asks for FFTW_MEASURE (seconds of planning per new shape, faster
 * transforms). Transforms run on the calling thread. */
#ifndef HLX_KERNELS_LIBS_FFTW_H_
#define HLX_KERNELS_LIBS_FFTW_H_

#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"
#include "kernels/fft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_fftw_plan_t hlx_fftw_plan_t;

/* A plan for hlx_ref_fft's transform with these arguments (no data), or
 * UNIMPLEMENTED when FFTW cannot take it (empty dims, sizes beyond int) —
 * the caller then uses the reference kernel. *out is borrowed from the
 * process-wide cache. */
hlx_status_t hlx_fftw_plan_get(hlx_fft_type_t type, hlx_dtype_t in_dtype,
                               int32_t rank, const int64_t* in_dims,
                               int32_t fft_rank, const int64_t* fft_length,
                               const hlx_fftw_plan_t** out) HLX_MUST_USE;

/* Runs the transform; `in` is not modified. Thread-safe. */
hlx_status_t hlx_fftw_execute(const hlx_fftw_plan_t* p, const void* in,
                              void* out) HLX_MUST_USE;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_LIBS_FFTW_H_ */
