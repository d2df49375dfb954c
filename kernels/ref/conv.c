/* Reference convolution (see conv.h): for every output row (batch, output
 * position) and every kernel position whose input element exists, the
 * lhs feature row is multiplied into the kernel's [Ci, O] block with
 * contiguous axpy loops over the output features. */
#include <stdlib.h>
#include <string.h>

#include "kernels/conv.h"

int64_t hlx_conv_num_windows(int64_t in, int64_t kernel, int64_t stride,
                             int64_t pad_lo, int64_t pad_hi,
                             int64_t lhs_dilation, int64_t rhs_dilation) {
  if (in < 0 || kernel < 0 || stride <= 0 || lhs_dilation <= 0 ||
      rhs_dilation <= 0)
    return -1;
  int64_t dil = 0, padded, dw = 0;
  if (in > 0 && (__builtin_mul_overflow(in - 1, lhs_dilation, &dil) ||
                 __builtin_add_overflow(dil, 1, &dil)))
    return -1;
  if (__builtin_add_overflow(dil, pad_lo, &padded) ||
      __builtin_add_overflow(padded, pad_hi, &padded))
    return -1;
  if (kernel > 0 && (__builtin_mul_overflow(kernel - 1, rhs_dilation, &dw) ||
                     __builtin_add_overflow(dw, 1, &dw)))
    return -1;
  if (padded <= 0 || dw > padded) return 0;
  return (padded - dw) / stride + 1;
}

/* Shared geometry: index tables and strides. */
typedef struct geom_t {
  int32_t ns;
  int64_t nb, groups, og, ci, o;
  int64_t pcount, kcount;
  int64_t lhs_batch_stride;
  int64_t ls[HLX_CONV_MAX_SPATIAL]; /* lhs spatial strides */
  int64_t* tab[HLX_CONV_MAX_SPATIAL];
  int64_t* storage;
} geom_t;

static bool geom_init(const hlx_conv_params_t* p, geom_t* g) {
  memset(g, 0, sizeof(*g));
  int32_t ns = p->num_spatial;
  if (ns < 0 || ns > HLX_CONV_MAX_SPATIAL) return false;
  int64_t G = p->feature_group_count, B = p->batch_group_count;
  if (G <= 0 || B <= 0 || p->batch % B || p->in_features % G ||
      p->out_features % (G * B) || p->kernel_in_features * G != p->in_features)
    return false;
  g->ns = ns;
  g->nb = p->batch / B;
  g->groups = G * B;
  g->og = p->out_features / g->groups;
  g->ci = p->kernel_in_features;
  g->o = p->out_features;
  int64_t s = p->in_features;
  size_t entries = 1;
  g->pcount = g->kcount = 1;
  for (int32_t d = ns - 1; d >= 0; d--) {
    g->ls[d] = s;
    s *= p->in_spatial[d];
  }
  g->lhs_batch_stride = s;
  for (int32_t d = 0; d < ns; d++) {
    entries += (size_t)(p->out_spatial[d] * p->kernel_spatial[d]);
    g->pcount *= p->out_spatial[d];
    g->kcount *= p->kernel_spatial[d];
  }
  g->storage = malloc(entries * sizeof(int64_t));
  if (!g->storage) return false;
  int64_t* t = g->storage;
  for (int32_t d = 0; d < ns; d++) {
    g->tab[d] = t;
    int64_t K = p->kernel_spatial[d], ld = p->lhs_dilation[d];
    for (int64_t o = 0; o < p->out_spatial[d]; o++)
      for (int64_t q = 0; q < K; q++) {
        int64_t qq = p->reversal[d] ? K - 1 - q : q;
        int64_t x = o * p->stride[d] + qq * p->rhs_dilation[d] - p->pad_lo[d];
        int64_t v = -1;
        if (x >= 0 && x % ld == 0 && x / ld < p->in_spatial[d]) v = x / ld;
        *t++ = v;
      }
  }
  return true;
}

/* Iterates (n, output position, kernel position, group) and calls BODY with
 * `lrow` = lhs feature row offset for the group, `rblk` = rhs offset of the
 * group's first output feature at input feature 0, `orow` = out offset of
 * the group's first output feature. */
#define CONV_LOOP(p, g, ...)                                                 \
  do {                                                                       \
    int64_t pi_[HLX_CONV_MAX_SPATIAL] = {0};                                 \
    int64_t B_ = (p)->batch_group_count;                                     \
    for (int64_t n = 0; n < (g).nb; n++) {                                   \
      for (int64_t pidx = 0; pidx < (g).pcount; pidx++) {                    \
        int64_t orow0 = (n * (g).pcount + pidx) * (g).o;                     \
        int64_t qi_[HLX_CONV_MAX_SPATIAL] = {0};                             \
        for (int64_t kidx = 0; kidx < (g).kcount; kidx++) {                  \
          int64_t loff = 0;                                                  \
          bool ok_ = true;                                                   \
          for (int32_t d = 0; d < (g).ns; d++) {                             \
            int64_t v = (g).tab[d][pi_[d] * (p)->kernel_spatial[d] + qi_[d]]; \
            if (v < 0) {                                                     \
              ok_ = false;                                                   \
              break;                                                         \
            }                                                                \
            loff += v * (g).ls[d];                                           \
          }                                                                  \
          if (ok_) {                                                         \
            for (int64_t grp = 0; grp < (g).groups; grp++) {                 \
              int64_t nn = B_ > 1 ? grp * (g).nb + n : n;                    \
              int64_t foff = B_ > 1 ? 0 : grp * (g).ci;                      \
              int64_t lrow = nn * (g).lhs_batch_stride + loff + foff;        \
              int64_t rblk = kidx * (g).ci * (g).o + grp * (g).og;           \
              int64_t orow = orow0 + grp * (g).og;                           \
              __VA_ARGS__                                                    \
            }                                                                \
          }                                                                  \
          for (int32_t d = (g).ns - 1; d >= 0; d--) {                        \
            if (++qi_[d] < (p)->kernel_spatial[d]) break;                    \
            qi_[d] = 0;                                                      \
          }                                                                  \
        }                                                                    \
        for (int32_t d = (g).ns - 1; d >= 0; d--) {                          \
          if (++pi_[d] < (p)->out_spatial[d]) break;                         \
          pi_[d] = 0;                                                        \
        }                                                                    \
      }                                                                      \
    }                                                                        \
  } while (0)

static int64_t out_count(const geom_t* g) { return g->nb * g->pcount * g->o; }

bool hlx_ref_conv_f64(const hlx_conv_params_t* p, const double* lhs,
                      const double* rhs, double* out) {
  geom_t g;
  if (!geom_init(p, &g)) return false;
  memset(out, 0, sizeof(double) * (size_t)out_count(&g));
  int64_t og = g.og, ci = g.ci, O = g.o;
  CONV_LOOP(p, g, {
    const double* l = lhs + lrow;
    double* o = out + orow;
    for (int64_t c = 0; c < ci; c++) {
      double a = l[c];
      const double* r = rhs + rblk + c * O;
      for (int64_t j = 0; j < og; j++) o[j] += a * r[j];
    }
  });
  free(g.storage);
  return true;
}

bool hlx_ref_conv_s64(const hlx_conv_params_t* p, const int64_t* lhs,
                      const int64_t* rhs, int64_t* out) {
  geom_t g;
  if (!geom_init(p, &g)) return false;
  memset(out, 0, sizeof(int64_t) * (size_t)out_count(&g));
  int64_t og = g.og, ci = g.ci, O = g.o;
  CONV_LOOP(p, g, {
    const int64_t* l = lhs + lrow;
    uint64_t* o = (uint64_t*)out + orow;
    for (int64_t c = 0; c < ci; c++) {
      uint64_t a = (uint64_t)l[c];
      if (!a) continue;
      const int64_t* r = rhs + rblk + c * O;
      for (int64_t j = 0; j < og; j++) o[j] += a * (uint64_t)r[j];
    }
  });
  free(g.storage);
  return true;
}

bool hlx_ref_conv_c128(const hlx_conv_params_t* p, const double* lhs,
                       const double* rhs, double* out) {
  geom_t g;
  if (!geom_init(p, &g)) return false;
  memset(out, 0, 2 * sizeof(double) * (size_t)out_count(&g));
  int64_t og = g.og, ci = g.ci, O = g.o;
  CONV_LOOP(p, g, {
    const double* l = lhs + 2 * lrow;
    double* o = out + 2 * orow;
    for (int64_t c = 0; c < ci; c++) {
      double ar = l[2 * c], ai = l[2 * c + 1];
      const double* r = rhs + 2 * (rblk + c * O);
      for (int64_t j = 0; j < og; j++) {
        double rr = r[2 * j], ri = r[2 * j + 1];
        o[2 * j] += ar * rr - ai * ri;
        o[2 * j + 1] += ar * ri + ai * rr;
      }
    }
  });
  free(g.storage);
  return true;
}
