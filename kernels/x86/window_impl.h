/* reduce_window pooling kernels (list: kernels/window_kernels.inc) shared
 * by the x86 ISA folders; included once by kernels/x86/<isa>/window.c
 * after that folder's vec.h.
 *
 * Bit-for-bit the reference (kernels/ref/window.c) except NaN payloads:
 * every output starts from init and combines its window positions in
 * row-major order, padding contributing init, with the f32 ops of the
 * elementwise kernels (vmath.h: add rounds per step, max/min propagate NaN
 * and order -0 < +0). Lanes are independent outputs, so vectorising does
 * not change any output's order of operations.
 *
 *  - NCHW: lanes run along the output width. Vector blocks whose windows lie
 *    wholly inside the row load the inputs directly (stride 2 through
 *    vf_load_even, stride 1 plain loads); outputs whose window touches the
 *    left/right padding, and the last partial block, go through a one-lane
 *    path with the same ops. Rows in the top/bottom padding fold init.
 *  - NHWC: lanes run along the channels, any window and strides; the channel
 *    tail uses masked loads/stores. */
#include "kernels/x86/vmath.h"

/* NCHW vector blocks [ow0, ow0 + VF_N) run for vlo <= ow0 and
 * ow0 + VF_N <= vend: ow0 * sw >= pw, and the last lane's loads (plus the
 * odd element after it for stride 2) stay inside the row. */
static inline void nchw_vector_range(const hlx_pool2d_t* g, int64_t* vlo,
                                     int64_t* vend) {
  const int64_t extra = g->sw == 2 ? 1 : 0;
  const int64_t lim = g->w - 1 - extra - (g->kw - 1) + g->pw;
  *vlo = (g->pw + g->sw - 1) / g->sw;
  *vend = lim < 0 ? 0 : lim / g->sw + 1;
}

/* One output computed alone (borders of NCHW rows), same ops as the lanes. */
#define POOL_ONE(OPV)                                                      \
  static inline float pool_one_##OPV(const hlx_pool2d_t* g,               \
                                     const float* plane, float init,       \
                                     int64_t oh, int64_t ow) {             \
    vf acc = vf_set1(init), vi = vf_set1(init);                            \
    for (int64_t ky = 0; ky < g->kh; ky++) {                               \
      int64_t ih = oh * g->sh - g->ph + ky;                                \
      for (int64_t kx = 0; kx < g->kw; kx++) {                             \
        int64_t iw = ow * g->sw - g->pw + kx;                              \
        bool in = ih >= 0 && ih < g->h && iw >= 0 && iw < g->w;            \
        acc = OPV(acc, in ? vf_set1(plane[ih * g->w + iw]) : vi);          \
      }                                                                    \
    }                                                                      \
    return vf_first(acc);                                                  \
  }

#define POOL_NCHW(NAME, OPV)                                                \
  POOL_ONE(OPV)                                                             \
  void HLX_SFX(hlx_f32_pool_##NAME##_nchw)(const hlx_pool2d_t* g,           \
                                           const float* in, float init,     \
                                           float* out) {                    \
    const vf vi = vf_set1(init);                                            \
    int64_t vlo, vend;                                                      \
    nchw_vector_range(g, &vlo, &vend);                                      \
    for (int64_t p = 0; p < g->planes; p++) {                               \
      const float* plane = in + p * g->h * g->w;                            \
      for (int64_t oh = 0; oh < g->oh; oh++) {                              \
        float* orow = out + (p * g->oh + oh) * g->ow;                       \
        int64_t ow = 0;                                                     \
        for (; ow < g->ow && ow < vlo; ow++)                                \
          orow[ow] = pool_one_##OPV(g, plane, init, oh, ow);                \
        for (; ow + VF_N <= g->ow && ow + VF_N <= vend; ow += VF_N) {       \
          vf acc = vi;                                                      \
          for (int64_t ky = 0; ky < g->kh; ky++) {                          \
            int64_t ih = oh * g->sh - g->ph + ky;                           \
            if (ih < 0 || ih >= g->h) {                                     \
              for (int64_t kx = 0; kx < g->kw; kx++) acc = OPV(acc, vi);    \
              continue;                                                     \
            }                                                               \
            const float* r = plane + ih * g->w + ow * g->sw - g->pw;        \
            if (g->sw == 2)                                                 \
              for (int64_t kx = 0; kx < g->kw; kx++)                        \
                acc = OPV(acc, vf_load_even(r + kx));                       \
            else                                                            \
              for (int64_t kx = 0; kx < g->kw; kx++)                        \
                acc = OPV(acc, vf_loadu(r + kx));                           \
          }                                                                 \
          vf_storeu(orow + ow, acc);                                        \
        }                                                                   \
        for (; ow < g->ow; ow++)                                            \
          orow[ow] = pool_one_##OPV(g, plane, init, oh, ow);                \
      }                                                                     \
    }                                                                       \
  }

#define POOL_NHWC(NAME, OPV)                                                \
  void HLX_SFX(hlx_f32_pool_##NAME##_nhwc)(const hlx_pool2d_t* g,           \
                                           const float* in, float init,     \
                                           float* out) {                    \
    const vf vi = vf_set1(init);                                            \
    const int64_t c = g->c;                                                 \
    for (int64_t p = 0; p < g->planes; p++) {                               \
      const float* img = in + p * g->h * g->w * c;                          \
      for (int64_t oh = 0; oh < g->oh; oh++)                                \
        for (int64_t ow = 0; ow < g->ow; ow++) {                            \
          float* o = out + ((p * g->oh + oh) * g->ow + ow) * c;             \
          for (int64_t c0 = 0; c0 < c; c0 += VF_N) {                        \
            size_t k = c - c0 < VF_N ? (size_t)(c - c0) : VF_N;             \
            vf acc = vi;                                                    \
            for (int64_t ky = 0; ky < g->kh; ky++) {                        \
              int64_t ih = oh * g->sh - g->ph + ky;                         \
              for (int64_t kx = 0; kx < g->kw; kx++) {                      \
                int64_t iw = ow * g->sw - g->pw + kx;                       \
                if (ih < 0 || ih >= g->h || iw < 0 || iw >= g->w) {         \
                  acc = OPV(acc, vi);                                       \
                  continue;                                                 \
                }                                                           \
                const float* s = img + (ih * g->w + iw) * c + c0;           \
                acc = OPV(acc, k == VF_N ? vf_loadu(s) : vf_load_tail(s, k)); \
              }                                                             \
            }                                                               \
            if (k == VF_N)                                                  \
              vf_storeu(o + c0, acc);                                       \
            else                                                            \
              vf_store_tail(o + c0, k, acc);                                \
          }                                                                 \
        }                                                                   \
    }                                                                       \
  }

POOL_NCHW(max, f32_max)
POOL_NCHW(min, f32_min)
POOL_NCHW(add, f32_add)
POOL_NHWC(max, f32_max)
POOL_NHWC(min, f32_min)
POOL_NHWC(add, f32_add)

/* ---- select_and_scatter's select (max/min pooling gradients) ----
 * Lanes are independent windows again; each keeps its current value and
 * the window position it came from (as an exact small float), visiting
 * positions in row-major order and replacing when !(cur <dir> x) — with
 * NaN on either side that is a replacement, as in the reference. Window
 * positions outside the input are skipped; they are uniform across lanes
 * (NHWC lanes share ih/iw; NCHW vector blocks are interior horizontally). */
#define SEL_ONE(DIRN, CMPOP)                                               \
  static inline int64_t sel_one_##DIRN(const hlx_pool2d_t* g,             \
                                       const float* plane, int64_t oh,     \
                                       int64_t ow) {                       \
    int64_t best = -1;                                                     \
    float cur = 0;                                                         \
    for (int64_t ky = 0; ky < g->kh; ky++) {                               \
      int64_t ih = oh * g->sh - g->ph + ky;                                \
      if (ih < 0 || ih >= g->h) continue;                                  \
      for (int64_t kx = 0; kx < g->kw; kx++) {                             \
        int64_t iw = ow * g->sw - g->pw + kx;                              \
        if (iw < 0 || iw >= g->w) continue;                                \
        float x = plane[ih * g->w + iw];                                   \
        if (best < 0 || !(cur CMPOP x)) {                                  \
          cur = x;                                                         \
          best = ih * g->w + iw;                                           \
        }                                                                  \
      }                                                                    \
    }                                                                      \
    return best;                                                           \
  }

/* Folds x (window position kpos) into (cur, best) for all lanes. */
#define SEL_STEP(PRED, x, kpos)                                            \
  do {                                                                     \
    vf x_ = (x), k_ = vf_set1((float)(kpos));                              \
    if (!have) {                                                           \
      cur = x_;                                                            \
      best = k_;                                                           \
      have = true;                                                         \
    } else {                                                               \
      vfb m_ = vf_cmp(cur, x_, PRED);                                      \
      cur = vf_select(m_, x_, cur);                                        \
      best = vf_select(m_, k_, best);                                      \
    }                                                                      \
  } while (0)

#define SEL_NCHW(DIRN, CMPOP, PRED)                                         \
  SEL_ONE(DIRN, CMPOP)                                                      \
  void HLX_SFX(hlx_f32_pool_select_##DIRN##_nchw)(                          \
      const hlx_pool2d_t* g, const float* in, int64_t* selected) {          \
    int64_t vlo, vend;                                                      \
    nchw_vector_range(g, &vlo, &vend);                                      \
    float kbuf[VF_N];                                                       \
    for (int64_t p = 0; p < g->planes; p++) {                               \
      const float* plane = in + p * g->h * g->w;                            \
      const int64_t base = p * g->h * g->w;                                 \
      for (int64_t oh = 0; oh < g->oh; oh++) {                              \
        int64_t* srow = selected + (p * g->oh + oh) * g->ow;                \
        int64_t ow = 0;                                                     \
        for (; ow < g->ow && ow < vlo; ow++) {                              \
          int64_t s = sel_one_##DIRN(g, plane, oh, ow);                     \
          srow[ow] = s < 0 ? -1 : base + s;                                 \
        }                                                                   \
        for (; ow + VF_N <= g->ow && ow + VF_N <= vend; ow += VF_N) {       \
          vf cur = vf_set1(0), best = cur;                                  \
          bool have = false;                                                \
          for (int64_t ky = 0; ky < g->kh; ky++) {                          \
            int64_t ih = oh * g->sh - g->ph + ky;                           \
            if (ih < 0 || ih >= g->h) continue;                             \
            const float* r = plane + ih * g->w + ow * g->sw - g->pw;        \
            for (int64_t kx = 0; kx < g->kw; kx++)                          \
              SEL_STEP(PRED,                                                \
                       g->sw == 2 ? vf_load_even(r + kx) : vf_loadu(r + kx), \
                       ky * g->kw + kx);                                    \
          }                                                                 \
          if (!have) {                                                      \
            for (int j = 0; j < VF_N; j++) srow[ow + j] = -1;               \
            continue;                                                       \
          }                                                                 \
          vf_storeu(kbuf, best);                                            \
          for (int j = 0; j < VF_N; j++) {                                  \
            int64_t kp = (int64_t)kbuf[j];                                  \
            int64_t ih = oh * g->sh - g->ph + kp / g->kw;                   \
            int64_t iw = (ow + j) * g->sw - g->pw + kp % g->kw;             \
            srow[ow + j] = base + ih * g->w + iw;                           \
          }                                                                 \
        }                                                                   \
        for (; ow < g->ow; ow++) {                                          \
          int64_t s = sel_one_##DIRN(g, plane, oh, ow);                     \
          srow[ow] = s < 0 ? -1 : base + s;                                 \
        }                                                                   \
      }                                                                     \
    }                                                                       \
  }

#define SEL_NHWC(DIRN, PRED)                                                \
  void HLX_SFX(hlx_f32_pool_select_##DIRN##_nhwc)(                          \
      const hlx_pool2d_t* g, const float* in, int64_t* selected) {          \
    const int64_t c = g->c;                                                 \
    float kbuf[VF_N];                                                       \
    for (int64_t p = 0; p < g->planes; p++)                                 \
      for (int64_t oh = 0; oh < g->oh; oh++)                                \
        for (int64_t ow = 0; ow < g->ow; ow++) {                            \
          int64_t* s = selected + ((p * g->oh + oh) * g->ow + ow) * c;      \
          for (int64_t c0 = 0; c0 < c; c0 += VF_N) {                        \
            size_t k = c - c0 < VF_N ? (size_t)(c - c0) : VF_N;             \
            vf cur = vf_set1(0), best = cur;                                \
            bool have = false;                                              \
            for (int64_t ky = 0; ky < g->kh; ky++) {                        \
              int64_t ih = oh * g->sh - g->ph + ky;                         \
              if (ih < 0 || ih >= g->h) continue;                           \
              for (int64_t kx = 0; kx < g->kw; kx++) {                      \
                int64_t iw = ow * g->sw - g->pw + kx;                       \
                if (iw < 0 || iw >= g->w) continue;                         \
                const float* src = in + ((p * g->h + ih) * g->w + iw) * c + c0; \
                SEL_STEP(PRED, k == VF_N ? vf_loadu(src) : vf_load_tail(src, k), \
                         ky * g->kw + kx);                                  \
              }                                                             \
            }                                                               \
            vf_storeu(kbuf, best);                                          \
            for (size_t j = 0; j < k; j++) {                                \
              if (!have) {                                                  \
                s[c0 + j] = -1;                                             \
                continue;                                                   \
              }                                                             \
              int64_t kp = (int64_t)kbuf[j];                                \
              int64_t ih = oh * g->sh - g->ph + kp / g->kw;                 \
              int64_t iw = ow * g->sw - g->pw + kp % g->kw;                 \
              s[c0 + j] = ((p * g->h + ih) * g->w + iw) * c + c0 + (int64_t)j; \
            }                                                               \
          }                                                                 \
        }                                                                   \
  }

SEL_NCHW(ge, >=, _CMP_NGE_UQ)
SEL_NCHW(le, <=, _CMP_NLE_UQ)
SEL_NHWC(ge, _CMP_NGE_UQ)
SEL_NHWC(le, _CMP_NLE_UQ)
