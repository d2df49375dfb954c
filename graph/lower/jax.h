/* The custom-call targets JAX's CPU exports name, built in
 * (graph/lower/jax_custom_call.c: the target table, identities,
 * shape_assertion; jax_lapack.c: lapack_* / blas_*;
 * jax_fft.c: ducc_fft / dynamic_ducc_fft; jax_approx_top_k.c:
 * ApproxTopK / stablehlo.dynamic_approx_top_k). Shared helpers. */
#ifndef HLX_GRAPH_LOWER_JAX_H_
#define HLX_GRAPH_LOWER_JAX_H_

#include "graph/lower/ctx.h"

/* Lowers op when `target` is a built-in JAX target (*handled = true);
 * otherwise leaves it to the host functions (*handled = false). */
hlx_status_t hlx_lower_jax_custom_call(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                       const char* target,
                                       bool* handled) HLX_MUST_USE;

/* The lapack_* and blas_*trsm targets; *handled = false for other names. */
hlx_status_t hlx_lower_jax_lapack(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                  const char* target,
                                  bool* handled) HLX_MUST_USE;
/* ducc_fft / dynamic_ducc_fft. */
hlx_status_t hlx_lower_jax_ducc_fft(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                    const char* target) HLX_MUST_USE;

/* ApproxTopK / stablehlo.dynamic_approx_top_k, computed exactly. */
hlx_status_t hlx_lower_jax_approx_top_k(hlx_lower_ctx_t* c,
                                        const hlx_op_t* op,
                                        const char* target) HLX_MUST_USE;

/* An error "TARGET: message" on op (a custom_call). */
hlx_status_t hlx_jax_error(const hlx_op_t* op, const char* target,
                           hlx_status_code_t code, const char* fmt, ...)
    HLX_PRINTF(4, 5) HLX_MUST_USE;

/* Operand i as an integer known when the program is compiled (a constant,
 * or a value folded into one); an error naming `what` otherwise. Reads the
 * first element when count is NULL, else up to max into out. */
hlx_status_t hlx_jax_const_ints(hlx_lower_ctx_t* c, const hlx_op_t* op,
                                const char* target, int i, const char* what,
                                int64_t* out, int32_t max,
                                int32_t* count) HLX_MUST_USE;

/* Integer field `name` of the backend_config dictionary (api_version 4:
 * `mhlo.backend_config = {uplo = 76 : ui8}` or `backend_config = {...}`).
 * *present = false (and *out untouched) when absent. */
hlx_status_t hlx_jax_config_int(const hlx_op_t* op, const char* target,
                                const char* name, int64_t* out,
                                bool* present) HLX_MUST_USE;

/* minor_to_major of operand (results = false) or result i from
 * operand_layouts / result_layouts; *m2m = NULL when the op gives none
 * (the default, row-major layout). Checks it is a permutation of the
 * value's rank. The array lives in the plan's arena. */
hlx_status_t hlx_jax_layout(hlx_lower_ctx_t* c, const hlx_op_t* op,
                            const char* target, bool results, int i,
                            const int64_t** m2m) HLX_MUST_USE;

#endif /* HLX_GRAPH_LOWER_JAX_H_ */
