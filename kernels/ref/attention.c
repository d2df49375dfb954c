/* Reference attention (kernels/attention.h): every step of the softmax in
 * the graph's order, products accumulated in double. */
#include "kernels/attention.h"

#include <math.h>
#include <stdlib.h>

/* stablehlo.maximum / reduce max: NaN propagates. */
static float max_nan(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  return a > b ? a : (b > a ? b : (signbit(a) ? b : a));
}

static void one_problem(const hlx_attention_params_t* p, const float* q,
                        const float* k, const float* v, float* o, float* row) {
  for (int64_t i = 0; i < p->lq; i++) {
    for (int64_t j = 0; j < p->lk; j++) {
      double s = 0;
      for (int64_t d = 0; d < p->d; d++)
        s += (double)q[i * p->q_si + d * p->q_sd] *
             (double)k[j * p->k_sj + d * p->k_sd];
      float x = (float)s;
      if (p->scale_kind == HLX_ATTENTION_SCALE_MULTIPLY) x = x * p->scale;
      if (p->scale_kind == HLX_ATTENTION_SCALE_DIVIDE) x = x / p->scale;
      row[j] = x;
    }
    float m = p->max_init;
    for (int64_t j = 0; j < p->lk; j++) m = max_nan(m, row[j]);
    if (p->has_floor) m = max_nan(p->max_floor, m);
    double l = p->sum_init;
    for (int64_t j = 0; j < p->lk; j++) {
      row[j] = expf(row[j] - m);
      l += row[j];
    }
    for (int64_t j = 0; j < p->lk; j++) row[j] = row[j] / (float)l;
    for (int64_t e = 0; e < p->dv; e++) {
      double s = 0;
      for (int64_t j = 0; j < p->lk; j++)
        s += (double)row[j] * (double)v[j * p->v_sj + e * p->v_se];
      o[i * p->o_si + e * p->o_se] = (float)s;
    }
  }
}

bool hlx_ref_attention_f32(const hlx_attention_params_t* p, const float* q,
                           const float* k, const float* v, float* o,
                           int64_t b0, int64_t b1) {
  float* row = malloc((size_t)(p->lk > 0 ? p->lk : 1) * sizeof(float));
  if (!row) return false;
  for (int64_t b = b0; b < b1; b++)
    one_problem(p, q + p->q_off[b], k + p->k_off[b], v + p->v_off[b],
                o + p->o_off[b], row);
  free(row);
  return true;
}
