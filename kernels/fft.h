/* fft reference kernel: FFT, IFFT, RFFT, IRFFT over the last 1-3 dims.
 *
 * A portable O(n log n) transform: mixed-radix Cooley-Tukey for lengths
 * whose prime factors are small, Bluestein's chirp-z (through a power-of-two
 * transform) otherwise. It computes in long double with accurately
 * computed twiddles and rounds once into the result type, so complex64 and
 * complex128 results are within a few ULP of the exact transform. IFFT and
 * IRFFT scale by 1/n per transformed dimension (StableHLO's definition). */
#ifndef HLX_KERNELS_FFT_H_
#define HLX_KERNELS_FFT_H_

#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_fft_type_t {
  HLX_FFT_FFT,   /* complex -> complex, forward */
  HLX_FFT_IFFT,  /* complex -> complex, inverse (scaled by 1/n) */
  HLX_FFT_RFFT,  /* real -> complex, last dim n -> n/2+1 */
  HLX_FFT_IRFFT, /* complex -> real, last dim n/2+1 -> n */
} hlx_fft_type_t;

/* Transforms the last `fft_rank` (1..3) dims of `in` (shape
 * in_dims[0..rank)). Element types: FFT/IFFT c64->c64 or c128->c128;
 * RFFT f32->c64 or f64->c128; IRFFT c64->f32 or c128->f64. The result shape
 * is in_dims except, for RFFT, last = (n == 0 ? 0 : n/2+1) and, for IRFFT,
 * last = fft_length[fft_rank-1]. fft_length must equal the transformed
 * dims of the complex (FFT/IFFT) or real (RFFT operand / IRFFT result)
 * side, and for IRFFT the operand's last dim must be n/2+1 (0 when n = 0).
 * Errors: invalid arguments, out of memory. */
hlx_status_t hlx_ref_fft(hlx_fft_type_t type, hlx_dtype_t in_dtype,
                         hlx_dtype_t out_dtype, int32_t rank,
                         const int64_t* in_dims, int32_t fft_rank,
                         const int64_t* fft_length, const void* in, void* out)
    HLX_MUST_USE;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_FFT_H_ */
