/* Reference batched matrix product on canonical operands:
 *   out[b, m, n] = sum_k lhs[b, m, k] * rhs[b, k, n]
 * all row-major and contiguous, in one of five compute types: f32/c64
 * (operands no wider than f32), f64 (other real floats), s64 (every integer and pred; products wrap mod 2^64, which is
 * exact for the result's narrower wraparound), c128 (complex). The graph
 * layer converts operands into the compute type and the result back. */
#ifndef HLX_KERNELS_DOT_H_
#define HLX_KERNELS_DOT_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void hlx_ref_batch_matmul_f64(int64_t B, int64_t M, int64_t N, int64_t K,
                              const double* lhs, const double* rhs,
                              double* out);
void hlx_ref_batch_matmul_s64(int64_t B, int64_t M, int64_t N, int64_t K,
                              const int64_t* lhs, const int64_t* rhs,
                              int64_t* out);
/* f32 and complex<f32> accumulate in single precision, in k order, like
 * XLA's CPU and StableHLO's interpreter (so results match them to the
 * ULP, cancellation included). */
void hlx_ref_batch_matmul_f32(int64_t B, int64_t M, int64_t N, int64_t K,
                              const float* lhs, const float* rhs, float* out);
void hlx_ref_batch_matmul_c64(int64_t B, int64_t M, int64_t N, int64_t K,
                              const float* lhs, const float* rhs, float* out);
/* Complex: interleaved (re, im) doubles. */
void hlx_ref_batch_matmul_c128(int64_t B, int64_t M, int64_t N, int64_t K,
                               const double* lhs, const double* rhs,
                               double* out);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_DOT_H_ */
