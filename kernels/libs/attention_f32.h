/* Fused scaled dot-product attention, f32 (semantics: kernels/attention.h).
 *
 * Per problem, on one thread with its scratch (one buffer per thread, kept
 * across runs: kernels/libs/thread_buffer.h), K packed transposed (rows
 * padded to whole vectors), Q and V packed only when their columns are
 * strided, O written straight into its strides when its columns are
 * unit-strided, else through a small tile. Then either
 * - the register path (AVX-512, Lk <= 96): per 4 query rows S = Q K^T in
 *   zmm accumulators, scaled and row-maxed there, one exp-and-sum pass,
 *   O = E V divided by the row sums on the accumulators; or
 * - the libxsmm blocks: per block of 16 query rows S = Q K^T (libxsmm),
 *   the row softmax in place (vectorised passes and the caller's exp
 *   kernel), then O = P V (libxsmm); shapes libxsmm declines run plain
 *   loops.
 * Problems are spread over the caller's thread pool; the next-but-one
 * problem's rows are prefetched while one computes. */
#ifndef HLX_KERNELS_LIBS_ATTENTION_F32_H_
#define HLX_KERNELS_LIBS_ATTENTION_F32_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parallel.h"
#include "kernels/attention.h"
#include "kernels/elementwise.h"
#include "kernels/libs/libxsmm.h"
#include "kernels/simd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hlx_attention_f32_t {
  hlx_attention_params_t p; /* its offset arrays must outlive this */
  bool q_direct, v_direct, o_direct; /* read/write in place, no copy */
  /* Query rows run in blocks of `rows` (the last block has last_rows) so
   * a block's S rows stay in L1 from Q K^T through P V; per block size
   * ([0] full, [1] last) the libxsmm kernels, or false: plain loops. */
  int64_t rows, last_rows;
  bool qk_xsmm[2], pv_xsmm[2];
  hlx_xsmm_gemm_t qk[2], pv[2];
  int64_t ld; /* row stride of the K^T and S tiles */
  size_t scratch_floats; /* per thread */
} hlx_attention_f32_t;

/* Prepares the products for p (JIT-compiling the libxsmm kernels). */
void hlx_attention_f32_init(hlx_attention_f32_t* a,
                            const hlx_attention_params_t* p);

/* The kernels a run calls (the caller's dispatched ones). */
typedef struct hlx_attention_f32_ops_t {
  hlx_unary_fn exp;           /* f32, in place allowed; NULL: expf */
  hlx_transpose_fn transpose; /* 4-byte elements; NULL: a plain loop */
  int simd; /* hlx_isa_t level of the row passes: 0 portable, 1 AVX2,
               2 AVX-512 (x86-64 only) */
  /* At level 2 with Lk <= 96 the register path runs (no libxsmm, its own
   * inline exp, the same as the dispatched AVX-512 one); true: the
   * libxsmm blocks instead (tests, benchmarks). */
  bool xsmm_blocks;
} hlx_attention_f32_ops_t;

/* Runs every problem of a (its scalars as set in a->p); par may be NULL.
 * False when scratch cannot be allocated. */
bool hlx_attention_f32_run(const hlx_attention_f32_t* a, const float* q,
                           const float* k, const float* v, float* o,
                           const hlx_attention_f32_ops_t* ops,
                           const hlx_parallel_t* par);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_LIBS_ATTENTION_F32_H_ */
