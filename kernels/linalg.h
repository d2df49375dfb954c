/* Reference linear-algebra kernels: cholesky, triangular_solve and the
 * batch_norm_* ops.
 *
 * Matrices are dense row-major, batches contiguous. Every real float type
 * (f16, bf16, f8..., f32, f64) is computed in f64 and complex types in
 * complex<f64>, then rounded once into the element type, as XLA does for
 * f16/bf16 (it computes those in f32). */
#ifndef HLX_KERNELS_LINALG_H_
#define HLX_KERNELS_LINALG_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cholesky of `batch` n x n matrices. lower: reads the lower triangle of a
 * (the upper one is implied Hermitian) and returns L with a = L L^H;
 * otherwise reads the upper triangle and returns U with a = U^H U. The
 * other triangle of the result is zero. A matrix that is not positive
 * definite gets NaN from the first failing pivot on (undefined behaviour in
 * the spec). Float and complex types. */
hlx_status_t hlx_ref_cholesky(hlx_dtype_t t, int64_t batch, int64_t n,
                              bool lower, const void* a,
                              void* out) HLX_MUST_USE;

typedef enum hlx_transpose_t {
  HLX_TRANSPOSE_NO,
  HLX_TRANSPOSE_T,
  HLX_TRANSPOSE_ADJOINT,
} hlx_transpose_t;

/* triangular_solve on `batch` systems: a is k x k, b and out are m x n with
 * k = m when left_side (op(a) x = b) and k = n otherwise (x op(a) = b).
 * Only the `lower` (or upper) triangle of a is read; unit_diagonal takes the
 * diagonal as ones without reading it. A zero pivot gives Inf/NaN. */
hlx_status_t hlx_ref_triangular_solve(hlx_dtype_t t, int64_t batch,
                                      int64_t m, int64_t n, bool left_side,
                                      bool lower, bool unit_diagonal,
                                      hlx_transpose_t transpose_a,
                                      const void* a, const void* b,
                                      void* out) HLX_MUST_USE;

/* batch_norm_*: the operand is viewed as [outer, c, inner] with c the
 * feature dimension; scale/offset/mean/variance have c elements. Real float
 * types only; every tensor has element type t. */
hlx_status_t hlx_ref_batch_norm_inference(
    hlx_dtype_t t, int64_t outer, int64_t c, int64_t inner,
    const void* operand, const void* scale, const void* offset,
    const void* mean, const void* variance, float epsilon,
    void* result) HLX_MUST_USE;
/* Computes batch_mean and batch_var (biased: divided by outer*inner) and
 * normalizes with them. */
hlx_status_t hlx_ref_batch_norm_training(
    hlx_dtype_t t, int64_t outer, int64_t c, int64_t inner,
    const void* operand, const void* scale, const void* offset,
    float epsilon, void* output, void* batch_mean,
    void* batch_var) HLX_MUST_USE;
/* The spec's decomposition (XLA's batchnorm_expander). */
hlx_status_t hlx_ref_batch_norm_grad(
    hlx_dtype_t t, int64_t outer, int64_t c, int64_t inner,
    const void* operand, const void* scale, const void* mean,
    const void* variance, const void* grad_output, float epsilon,
    void* grad_operand, void* grad_scale, void* grad_offset) HLX_MUST_USE;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_KERNELS_LINALG_H_ */
