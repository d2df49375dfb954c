/* Scaled dot-product attention, f32: per problem b of a batch,
 *   S = Q K^T (scaled), P = softmax over S's rows, O = P V,
 * with the softmax computed step by step the way JAX exports it (so a
 * fused kernel equals the unfused graph up to float rounding, Inf/NaN
 * rows included):
 *   x[j] = S[i, j] * scale   (or S[i, j] / scale, or S[i, j])
 *   m    = max(max_init, x[0], ..., x[Lk-1])   NaN propagates
 *   m    = maximum(max_floor, m)               when has_floor
 *   e[j] = exp(x[j] - m)
 *   l    = sum_init + e[0] + ... + e[Lk-1]
 *   P[i, j] = e[j] / l
 * Problem b reads Q[i, d] at q + q_off[b] + i * q_si + d * q_sd (likewise
 * K[j, d], V[j, e]) and writes O[i, e] at o + o_off[b] + i * o_si +
 * e * o_se (elements). The reference is hlx_ref_attention_f32
 * (kernels/ref/attention.c); the fast one kernels/libs/attention_f32.h. */
#ifndef HLX_KERNELS_ATTENTION_H_
#define HLX_KERNELS_ATTENTION_H_

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_attention_scale_t {
  HLX_ATTENTION_SCALE_NONE,
  HLX_ATTENTION_SCALE_MULTIPLY,
  HLX_ATTENTION_SCALE_DIVIDE,
} hlx_attention_scale_t;

typedef struct hlx_attention_params_t {
  int64_t batch;      /* problems */
  int64_t lq, lk;     /* query rows, key rows (the softmax width) */
  int64_t d, dv;      /* Q/K depth, V/O width */
  int64_t q_si, q_sd; /* element strides within one problem */
  int64_t k_sj, k_sd;
  int64_t v_sj, v_se;
  int64_t o_si, o_se;
  /* per problem element offsets (batch entries each) */
  const int64_t* q_off;
  const int64_t* k_off;
  const int64_t* v_off;
  const int64_t* o_off;
  hlx_attention_scale_t scale_kind;
  float scale;
  float max_init;
  bool has_floor;
  float max_floor;
  float sum_init;
} hlx_attention_params_t;

/* Problems [b0, b1) of p, in plain C (accumulating in double); false
 * when its one row of scratch cannot be allocated. */
bool hlx_ref_attention_f32(const hlx_attention_params_t* p, const float* q,
                           const float* k, const float* v, float* o,
                           int64_t b0, int64_t b1);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_ATTENTION_H_ */
