/* libxsmm (Debian's libxsmm 1.17, static) JIT kernels for small dense
 * matrix products: row-major C[M, N] = A[M, K] * B[K, N] in f32 or f64,
 * each matrix with unit column stride and any leading dimension.
 *
 * hlx_xsmm_gemm_init dispatches once (libxsmm keeps every generated kernel
 * in its own process-wide, thread-safe registry keyed by the shape, so a
 * second init of the same shape is a hash lookup) and stores the kernel in
 * the caller's struct: the lowering does it when building a plan, and the
 * run is a plain indirect call per batch entry. Calls are single-threaded
 * and reentrant. f32 accumulates in f32 in k order with FMA. */
#ifndef HLX_KERNELS_LIBS_LIBXSMM_H_
#define HLX_KERNELS_LIBS_LIBXSMM_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shapes libxsmm handles best: M * N * K <= 64^3 and every dim <= 128. */
bool hlx_xsmm_is_small(int64_t m, int64_t n, int64_t k);

typedef struct hlx_xsmm_gemm_t {
  void* fn; /* libxsmm_smmfunction / libxsmm_dmmfunction */
  hlx_dtype_t type;
  int64_t m, n, k, lda, ldb, ldc;
} hlx_xsmm_gemm_t;

/* False when the type is not f32/f64, a size is out of range, or libxsmm
 * cannot generate the kernel (the caller falls back). */
bool hlx_xsmm_gemm_init(hlx_xsmm_gemm_t* g, hlx_dtype_t type, int64_t m,
                        int64_t n, int64_t k, int64_t lda, int64_t ldb,
                        int64_t ldc);

/* batch products: C_i = A_i * B_i with A_i = a + i * a_stride (elements),
 * likewise B_i, C_i. */
void hlx_xsmm_gemm_run(const hlx_xsmm_gemm_t* g, int64_t batch, const void* a,
                       int64_t a_stride, const void* b, int64_t b_stride,
                       void* c, int64_t c_stride);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_LIBS_LIBXSMM_H_ */
